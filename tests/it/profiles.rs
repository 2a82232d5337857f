//! Differential tests of the interpretation profiles against the real libraries.
//!
//! `tests/oracle/profile_answers.py` asks CPython 3.11's `urllib.robotparser` and
//! PyPI `protego==0.7.0`, and `tests/oracle/robots_parser_answers.js` npm
//! `robots-parser@3.0.1`, about every corpus body and about bodies generated to split
//! parsers; here the `urllib`, `protego` and `robots-parser` profiles answer the same
//! questions from one parse per body and family. Verdicts must agree on every
//! question (and crawl-delays per agent; robots-parser's matching line too). The first
//! disagreement is minimised, line by line, against the live library and printed.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StringArray};
use robots_census_engine::{Interpretations, Profile, RobotsTxt};
use serde_json::{json, Value};

use crate::support::{bin, python, read_table, repo, scratch, shared, unhex};

/// The answers file, built once per test run (`ROBOTS_CENSUS_PROFILE_ANSWERS` reuses one).
fn profile_answers() -> PathBuf {
    static ANSWERS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ANSWERS
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("ROBOTS_CENSUS_PROFILE_ANSWERS") {
                return path.into();
            }
            let dir = scratch("profile-answers");
            let (python_out, out) = (dir.join("python.jsonl"), dir.join("answers.jsonl"));
            let status = Command::new(python())
                .arg(repo().join("tests/oracle/profile_answers.py"))
                .arg(shared())
                .arg(&python_out)
                .status()
                .expect("run tests/oracle/profile_answers.py");
            assert!(status.success(), "profile_answers.py failed: {status}");
            let status = Command::new("node")
                .arg(repo().join("tests/oracle/robots_parser_answers.js"))
                .arg(shared())
                .arg(&python_out)
                .arg(&out)
                .env("NODE_PATH", repo().join("node_modules"))
                .status()
                .expect("run node tests/oracle/robots_parser_answers.js (make node)");
            assert!(
                status.success(),
                "robots_parser_answers.js failed: {status}"
            );
            out
        })
        .clone()
}

/// One live library process answering single questions (to minimise a disagreement,
/// and to check a report's lines).
pub(crate) struct Oracle {
    profile: Profile,
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Oracle {
    pub(crate) fn start(profile: Profile) -> Oracle {
        let mut cmd = match profile {
            Profile::RobotsParser => {
                let mut c = Command::new("node");
                c.arg(repo().join("tests/oracle/ask_one.js"))
                    .env("NODE_PATH", repo().join("node_modules"));
                c
            }
            _ => {
                let mut c = Command::new(python());
                c.arg(repo().join("tests/oracle/ask_one.py"))
                    .arg(profile.name());
                c
            }
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the oracle");
        let out = BufReader::new(child.stdout.take().expect("oracle stdout"));
        Oracle {
            profile,
            child,
            out,
        }
    }

    pub(crate) fn ask(&mut self, body: &[u8], agent: &str, url: &str) -> char {
        let stdin = self.child.stdin.as_mut().expect("oracle stdin");
        let q = json!({"body_hex": crate::support::hex(body), "agent": agent, "url": url});
        writeln!(stdin, "{q}").expect("ask the oracle");
        let mut line = String::new();
        self.out.read_line(&mut line).expect("oracle answer");
        // A library that failed to load (node_modules missing: `make node`) ends the
        // process: no answer is an error, never read as "disallowed".
        // "E": the library raised on the file; "U" (robots-parser): no answer for it.
        match line.trim() {
            "1" => '1',
            "0" => '0',
            "E" => 'E',
            "U" => 'U',
            other => panic!(
                "the {} oracle gave no answer ({other:?}) to {agent:?} {url:?}: is its library installed (make venv node)?",
                self.profile.name()
            ),
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        if self.child.wait().is_err() {
            eprintln!("the oracle process did not end cleanly");
        }
    }
}

fn ours(profile: Profile, body: &[u8], agent: &str, url: &str) -> char {
    let doc = RobotsTxt::parse(body);
    if Interpretations::new(body, &doc)
        .answer(profile, agent, url)
        .allowed
    {
        '1'
    } else {
        '0'
    }
}

/// The smallest body (by deleting whole lines, at most 400 library calls) on which the
/// profile and the library still disagree about (agent, url).
fn minimise(profile: Profile, body: &[u8], agent: &str, url: &str) -> Vec<u8> {
    let mut oracle = Oracle::start(profile);
    let mut lines: Vec<&[u8]> = body.split_inclusive(|b| *b == b'\n').collect();
    let mut calls = 0;
    let mut i = lines.len();
    while i > 0 && calls < 400 {
        i -= 1;
        let mut candidate = lines.clone();
        candidate.remove(i);
        let bytes = candidate.concat();
        calls += 1;
        let theirs = oracle.ask(&bytes, agent, url);
        if matches!(theirs, '0' | '1') && theirs != ours(profile, &bytes, agent, url) {
            lines = candidate;
        }
    }
    lines.concat()
}

fn body_of(record: &Value) -> Vec<u8> {
    match record["file"].as_str() {
        Some(file) => std::fs::read(shared().join("corpus/robots").join(file)).expect("read body"),
        None => unhex(record["body_hex"].as_str().expect("body_hex")),
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

/// Asks `profile` every question of the answers file and compares with `field`.
fn agree(profile: Profile, field: &str) {
    let answers = std::fs::read_to_string(profile_answers()).expect("read profile answers");
    let (mut bodies, mut questions, mut skipped) = (0usize, 0usize, 0usize);
    let mut mismatches: Vec<(String, Vec<u8>, String, String, char)> = Vec::new();
    let mut delay_mismatches = Vec::new();
    for record in answers.lines() {
        let record: Value = serde_json::from_str(record).expect("answer line is JSON");
        let body = body_of(&record);
        let name = record["file"].as_str().unwrap_or("generated").to_owned();
        let (agents, urls) = (strings(&record["agents"]), strings(&record["urls"]));
        let theirs: Vec<char> = record[field].as_str().expect(field).chars().collect();
        assert_eq!(
            theirs.len(),
            agents.len() * urls.len(),
            "{name}: answer count"
        );
        let lines = record[format!("{field}_lines")].as_array();
        let delays = record[format!("{field}_delay")].as_array().expect("delays");
        let doc = RobotsTxt::parse(&body);
        let reads = Interpretations::new(&body, &doc);
        for (a, agent) in agents.iter().enumerate() {
            for (u, url) in urls.iter().enumerate() {
                let want = theirs[a * urls.len() + u];
                if !matches!(want, '0' | '1') {
                    skipped += 1;
                    continue;
                }
                questions += 1;
                let got = reads.answer(profile, agent, url);
                let want_line = lines.map(|l| l[a * urls.len() + u].as_i64().unwrap_or(-1));
                let line_differs = want_line.is_some_and(|l| i64::from(got.line) != l.max(0));
                if got.allowed != (want == '1') || line_differs {
                    mismatches.push((name.clone(), body.clone(), agent.clone(), url.clone(), want));
                }
            }
            let want_delay = delays[a].as_f64();
            let got_delay = reads.crawl_delay(profile, agent);
            if want_delay != got_delay {
                delay_mismatches.push(format!(
                    "{name}: agent {agent:?}: crawl-delay {want_delay:?} vs ours {got_delay:?}"
                ));
            }
        }
        bodies += 1;
    }
    eprintln!(
        "{}: {questions} questions over {bodies} bodies ({skipped} the library could not answer), {} disagreements, {} crawl-delay disagreements",
        profile.name(),
        mismatches.len(),
        delay_mismatches.len()
    );
    assert!(
        bodies > 1000 && questions > 100_000,
        "too few questions asked"
    );
    if let Some((name, body, agent, url, want)) = mismatches.first() {
        let small = minimise(profile, body, agent, url);
        let listed: Vec<String> = mismatches
            .iter()
            .take(15)
            .map(|(n, _, a, u, w)| format!("{n}: agent {a:?} url {u:?}: library {w}"))
            .collect();
        panic!(
            "{} disagreements with the library; first in {name} (agent {agent:?}, url {url:?}, library says {want}); minimised body:\n{}\n---\n{}",
            mismatches.len(),
            String::from_utf8_lossy(&small),
            listed.join("\n")
        );
    }
    assert!(
        delay_mismatches.is_empty(),
        "{} crawl-delay disagreements:\n{}",
        delay_mismatches.len(),
        delay_mismatches[..delay_mismatches.len().min(15)].join("\n")
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus, the venv (tests/oracle/profile_answers.py) and npm robots-parser (make node), which build the libraries' answers: make test"
)]
fn urllib_profile_agrees_with_cpython_robotparser() {
    agree(Profile::Urllib, "urllib");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus, the venv (protego) and npm robots-parser (make node), which build the libraries' answers: make test"
)]
fn protego_profile_agrees_with_protego() {
    agree(Profile::Protego, "protego");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus, npm robots-parser (make node) and the venv (tests/oracle/profile_answers.py), which build the libraries' answers: make test"
)]
fn robots_parser_profile_agrees_with_npm_robots_parser() {
    agree(Profile::RobotsParser, "robots_parser");
}

/// The profile queries, checked by `profile_queries_agree_with_the_readings_table`.
pub const PROFILE_QUERIES: [&str; 5] = [
    "ai_signals",
    "profile_blocking",
    "profile_class_matrix",
    "profile_disagreements",
    "profile_sensitivity",
];

/// A documents row as the profile queries need it.
struct Doc {
    crawl: String,
    host: Option<String>,
    url: String,
    fetch_time: Option<i64>,
    doc_id: String,
}

fn hex_id(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

fn string_column<'a>(batch: &'a RecordBatch, name: &str) -> &'a StringArray {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("column {name}"))
        .as_string::<i32>()
}

fn read_docs(out: &Path) -> Vec<Doc> {
    let mut docs = Vec::new();
    for b in read_table(out, "documents") {
        let ids = b
            .column_by_name("doc_id")
            .expect("doc_id")
            .as_fixed_size_binary();
        let times = b
            .column_by_name("fetch_time")
            .expect("fetch_time")
            .as_primitive::<arrow_array::types::TimestampMicrosecondType>();
        let (crawl, host, url) = (
            string_column(&b, "crawl"),
            string_column(&b, "host"),
            string_column(&b, "url"),
        );
        for i in 0..b.num_rows() {
            docs.push(Doc {
                crawl: crawl.value(i).to_owned(),
                host: host.is_valid(i).then(|| host.value(i).to_owned()),
                url: url.value(i).to_owned(),
                fetch_time: times.is_valid(i).then(|| times.value(i)),
                doc_id: hex_id(ids.value(i)),
            });
        }
    }
    docs
}

/// The latest capture of each (crawl, host), as the queries' `latest` CTE picks it.
fn latest_doc_ids(docs: &[Doc]) -> HashSet<String> {
    let robots =
        regex::Regex::new(r"(?i)^https?://[^/?#]+/([^?#]*/)?robots\.txt([?#]|$)").expect("regex");
    let mut best: HashMap<(&str, &str), &Doc> = HashMap::new();
    for d in docs {
        let Some(host) = d.host.as_deref() else {
            continue;
        };
        if !robots.is_match(&d.url) {
            continue;
        }
        let key = (d.crawl.as_str(), host);
        // fetch_time DESC NULLS LAST, then doc_id DESC.
        let rank = |d: &Doc| (d.fetch_time.is_some(), d.fetch_time, d.doc_id.clone());
        if best.get(&key).is_none_or(|held| rank(d) > rank(held)) {
            best.insert(key, d);
        }
    }
    best.values().map(|d| d.doc_id.clone()).collect()
}

struct ReadingRow {
    doc_id: String,
    agent: String,
    profile: String,
    root_allowed: bool,
    probe_class: String,
    sensitive: bool,
}

fn read_readings(out: &Path) -> Vec<ReadingRow> {
    let mut rows = Vec::new();
    for b in read_table(out, "readings") {
        let ids = b
            .column_by_name("doc_id")
            .expect("doc_id")
            .as_fixed_size_binary();
        let root = b.column_by_name("root_allowed").expect("root").as_boolean();
        let sensitive = b
            .column_by_name("interpretation_sensitive")
            .expect("sensitive")
            .as_boolean();
        let (agent, profile, class) = (
            string_column(&b, "agent"),
            string_column(&b, "profile"),
            string_column(&b, "probe_class"),
        );
        for i in 0..b.num_rows() {
            rows.push(ReadingRow {
                doc_id: hex_id(ids.value(i)),
                agent: agent.value(i).to_owned(),
                profile: profile.value(i).to_owned(),
                root_allowed: root.value(i),
                probe_class: class.value(i).to_owned(),
                sensitive: sensitive.value(i),
            });
        }
    }
    rows
}

/// A row of profile_sensitivity.sql: (crawl, agent) and its counts.
#[derive(Debug, PartialEq)]
struct Sensitivity {
    key: (String, String),
    hosts: i64,
    sensitive: i64,
    sensitive_pct: f64,
    open_elsewhere: Option<i64>,
    closed_elsewhere: Option<i64>,
    profiles: i64,
}

/// profile_sensitivity.sql's rows made from the readings of the latest captures, in
/// (crawl, agent) order: per (document, agent), whether any row is sensitive, Google's
/// root verdict and the other profiles' root verdicts.
fn sensitivity_rows(readings: &[ReadingRow], crawl_of: &HashMap<&str, &str>) -> Vec<Sensitivity> {
    #[derive(Default)]
    struct Host<'a> {
        sensitive: bool,
        google_root: Option<bool>,
        other_roots: BTreeSet<bool>,
        profiles: BTreeSet<&'a str>,
    }
    let mut by_agent: BTreeMap<(&str, &str), BTreeMap<&str, Host>> = BTreeMap::new();
    for r in readings {
        let key = (crawl_of[r.doc_id.as_str()], r.agent.as_str());
        let host = by_agent
            .entry(key)
            .or_default()
            .entry(r.doc_id.as_str())
            .or_default();
        host.sensitive |= r.sensitive;
        if r.profile == "google" {
            host.google_root = Some(r.root_allowed);
        } else {
            host.other_roots.insert(r.root_allowed);
        }
        host.profiles.insert(r.profile.as_str());
    }
    by_agent
        .into_iter()
        .map(|((crawl, agent), hosts)| {
            let count = |f: &dyn Fn(&Host) -> bool| hosts.values().filter(|h| f(h)).count() as i64;
            let asked_google = hosts.values().any(|h| h.google_root.is_some());
            // Google reads '/' as `google`, some other profile as `other`.
            let split = |google: bool, other: bool| {
                asked_google.then(|| {
                    count(&|h| h.google_root == Some(google) && h.other_roots.contains(&other))
                })
            };
            let profiles: BTreeSet<&str> =
                hosts.values().flat_map(|h| h.profiles.clone()).collect();
            let (n, sensitive) = (hosts.len() as i64, count(&|h| h.sensitive));
            Sensitivity {
                key: (crawl.to_owned(), agent.to_owned()),
                hosts: n,
                sensitive,
                sensitive_pct: 100.0 * sensitive as f64 / n as f64,
                open_elsewhere: split(false, true),
                closed_elsewhere: split(true, false),
                profiles: profiles.len() as i64,
            }
        })
        .collect()
}

/// Compares profile_sensitivity.sql's rows, in order, with [`sensitivity_rows`]: the
/// percentage within rounding to two decimals, every other column exactly.
fn check_sensitivity(got: &[BTreeMap<String, Value>], want: &[Sensitivity]) {
    assert_eq!(got.len(), want.len(), "profile_sensitivity.sql rows");
    for (row, want) in got.iter().zip(want) {
        let n = |c: &str| row[c].as_i64();
        let pct = row["sensitive_pct"].as_f64().expect("sensitive_pct");
        assert!(
            (pct - want.sensitive_pct).abs() <= 0.005 + 1e-9,
            "profile_sensitivity.sql {row:?}: sensitive_pct, want {}",
            want.sensitive_pct
        );
        let have = Sensitivity {
            key: (
                row["crawl"].as_str().expect("crawl").to_owned(),
                row["agent"].as_str().expect("agent").to_owned(),
            ),
            hosts: n("hosts").expect("hosts"),
            sensitive: n("sensitive").expect("sensitive"),
            sensitive_pct: want.sensitive_pct,
            open_elsewhere: n("open_elsewhere"),
            closed_elsewhere: n("closed_elsewhere"),
            profiles: n("profiles").expect("profiles"),
        };
        assert_eq!(&have, want, "profile_sensitivity.sql {row:?}");
    }
}

/// `robots-census run` over `inputs` (absolute, or relative to the repository, as the
/// bundled samples) into `out`, quietly, replacing what is there; it must exit 0.
fn run_census(out: &Path, inputs: &[&str], args: &[&str]) {
    let status = bin()
        .current_dir(repo())
        .arg("run")
        .args(inputs)
        .args(args)
        .args(["--quiet", "--overwrite", "--out"])
        .arg(out)
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "run exit status");
}

/// queries/profile_*.sql and ai_signals.sql in DuckDB, against counts made here from
/// the tables read back with the parquet crate.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (DuckDB runs queries/*.sql): make test"
)]
fn profile_queries_agree_with_the_readings_table() {
    let dir = scratch("profile-queries");
    let out = dir.join("out");
    run_census(
        &out,
        &[
            "data-samples/cc-robotstxt-sample.warc.gz",
            "data-samples/IAH-urls-wget.warc.gz",
            "data-samples/robots-dump.csv.gz",
        ],
        &["--profiles", "all", "--tables", "rules"],
    );
    let results = crate::support::run_queries(&dir, &PROFILE_QUERIES);
    let rows = |name: &str| crate::support::named_rows(&results[name]);

    let docs = read_docs(&out);
    let latest = latest_doc_ids(&docs);
    let crawl_of: HashMap<&str, &str> = docs
        .iter()
        .map(|d| (d.doc_id.as_str(), d.crawl.as_str()))
        .collect();
    let readings: Vec<ReadingRow> = read_readings(&out)
        .into_iter()
        .filter(|r| latest.contains(&r.doc_id))
        .collect();
    assert!(
        readings.len() > 1000,
        "too few readings: {}",
        readings.len()
    );
    let profiles: BTreeSet<&str> = readings.iter().map(|r| r.profile.as_str()).collect();
    assert_eq!(profiles.len(), Profile::ALL.len(), "every profile has rows");

    // profile_blocking: class counts per (crawl, agent, profile), and the hosts whose
    // class differs from the google row of the same (document, agent).
    let google: HashMap<(&str, &str), &str> = readings
        .iter()
        .filter(|r| r.profile == "google")
        .map(|r| {
            (
                (r.doc_id.as_str(), r.agent.as_str()),
                r.probe_class.as_str(),
            )
        })
        .collect();
    let mut want: BTreeMap<String, [i64; 5]> = BTreeMap::new();
    for r in &readings {
        let key = format!("{}|{}|{}", crawl_of[r.doc_id.as_str()], r.agent, r.profile);
        let counts = want.entry(key).or_default();
        counts[0] += 1;
        match r.probe_class.as_str() {
            "full" => counts[1] += 1,
            "partial" => counts[2] += 1,
            _ => counts[3] += 1,
        }
        counts[4] += i64::from(google[&(r.doc_id.as_str(), r.agent.as_str())] != r.probe_class);
    }
    let mut got: BTreeMap<String, [i64; 5]> = BTreeMap::new();
    for row in rows("profile_blocking") {
        let key = ["crawl", "agent", "profile"].map(|c| row[c].as_str().expect(c).to_owned());
        let n = |c: &str| row[c].as_i64().unwrap_or_else(|| panic!("{c} in {row:?}"));
        got.insert(
            key.join("|"),
            [
                n("hosts"),
                n("full"),
                n("partial"),
                n("none"),
                n("differs_from_google"),
            ],
        );
    }
    assert_eq!(got, want, "profile_blocking.sql");
    assert!(
        want.values().any(|c| c[4] > 0),
        "some profile differs from google"
    );

    // profile_class_matrix: (google class, profile class) pairs.
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    for r in readings.iter().filter(|r| r.profile != "google") {
        let g = google[&(r.doc_id.as_str(), r.agent.as_str())];
        let key = format!(
            "{}|{}|{}|{g}|{}",
            crawl_of[r.doc_id.as_str()],
            r.agent,
            r.profile,
            r.probe_class
        );
        *want.entry(key).or_default() += 1;
    }
    let got: BTreeMap<String, i64> = rows("profile_class_matrix")
        .iter()
        .map(|row| {
            let key = ["crawl", "agent", "profile", "google_class", "profile_class"]
                .map(|c| row[c].as_str().expect(c).to_owned());
            (key.join("|"), row["hosts"].as_i64().expect("hosts"))
        })
        .collect();
    assert_eq!(got, want, "profile_class_matrix.sql");

    // profile_disagreements: the sensitive (document, AI agent) pairs, and each row's
    // readings are the profiles' classes and root verdicts.
    let ai: HashSet<&str> = [
        "GPTBot",
        "ChatGPT-User",
        "OAI-SearchBot",
        "ClaudeBot",
        "Claude-Web",
        "anthropic-ai",
        "CCBot",
        "Google-Extended",
        "PerplexityBot",
        "Bytespider",
        "Applebot-Extended",
        "Meta-ExternalAgent",
        "FacebookBot",
        "Amazonbot",
        "cohere-ai",
        "Diffbot",
        "omgili",
        "ImagesiftBot",
        "Timpibot",
        "YouBot",
    ]
    .into();
    // (profile, "profile=class/verdict"), ordered by profile name as the query orders.
    let mut want: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
    for r in readings
        .iter()
        .filter(|r| r.sensitive && ai.contains(r.agent.as_str()))
    {
        let verdict = if r.root_allowed { "allow" } else { "disallow" };
        want.entry(format!("{}|{}", r.doc_id, r.agent))
            .or_default()
            .push((
                r.profile.as_str(),
                format!("{}={}/{verdict}", r.profile, r.probe_class),
            ));
    }
    let want: BTreeMap<String, String> = want
        .into_iter()
        .map(|(k, mut v)| {
            v.sort();
            let texts: Vec<String> = v.into_iter().map(|(_, t)| t).collect();
            (k, texts.join(", "))
        })
        .collect();
    let got: BTreeMap<String, String> = rows("profile_disagreements")
        .iter()
        .map(|row| {
            let id = row["doc_id"].as_str().expect("doc_id").replace('-', "");
            let agent = row["agent"].as_str().expect("agent");
            (
                format!("{id}|{agent}"),
                row["readings"].as_str().expect("readings").to_owned(),
            )
        })
        .collect();
    assert!(
        !want.is_empty(),
        "the samples hold files the families read differently"
    );
    assert_eq!(got, want, "profile_disagreements.sql");

    // profile_sensitivity: per (crawl, agent), the sensitive hosts and Google's root
    // verdict against the other profiles'.
    let want = sensitivity_rows(&readings, &crawl_of);
    check_sensitivity(&rows("profile_sensitivity"), &want);
    assert!(
        want.iter().all(|w| w.profiles == Profile::ALL.len() as i64),
        "every profile read every host"
    );
    for (name, count) in [
        ("sensitive", want.iter().map(|w| w.sensitive).sum::<i64>()),
        (
            "open_elsewhere",
            want.iter().filter_map(|w| w.open_elsewhere).sum(),
        ),
        (
            "closed_elsewhere",
            want.iter().filter_map(|w| w.closed_elsewhere).sum(),
        ),
    ] {
        assert!(count > 0, "the samples have {name} hosts");
    }

    // ai_signals: hosts and lines per (crawl, signal) from the rules table.
    let host_of: HashMap<&str, &str> = docs
        .iter()
        .filter_map(|d| Some((d.doc_id.as_str(), d.host.as_deref()?)))
        .collect();
    let signals = [
        "content-signal",
        "content-signals",
        "content-usage",
        "llm-policy",
        "disallowaitraining",
        "clean-param",
        "host",
    ];
    let mut hosts: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut lines: BTreeMap<String, i64> = BTreeMap::new();
    let rules = read_table(&out, "rules");
    for b in &rules {
        let ids = b
            .column_by_name("doc_id")
            .expect("doc_id")
            .as_fixed_size_binary();
        let keys = string_column(b, "key");
        for i in 0..b.num_rows() {
            let id = hex_id(ids.value(i));
            let key = keys.value(i).to_lowercase();
            if !latest.contains(&id) || !signals.contains(&key.as_str()) {
                continue;
            }
            let (id, crawl) = crawl_of
                .get_key_value(id.as_str())
                .expect("document of a rule");
            let k = format!("{crawl}|{key}");
            hosts.entry(k.clone()).or_default().insert(host_of[id]);
            *lines.entry(k).or_default() += 1;
        }
    }
    let want: BTreeMap<String, (i64, i64)> = hosts
        .iter()
        .map(|(k, h)| (k.clone(), (h.len() as i64, lines[k])))
        .collect();
    let got: BTreeMap<String, (i64, i64)> = rows("ai_signals")
        .iter()
        .map(|row| {
            let key = ["crawl", "signal"].map(|c| row[c].as_str().expect(c).to_owned());
            (
                key.join("|"),
                (
                    row["hosts"].as_i64().expect("hosts"),
                    row["lines"].as_i64().expect("lines"),
                ),
            )
        })
        .collect();
    assert!(
        !want.is_empty(),
        "the samples hold Host / Clean-param lines"
    );
    assert_eq!(got, want, "ai_signals.sql");
}

/// profile_sensitivity.sql on a run that did not ask google: the Google columns are
/// null, the others still counted.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (DuckDB runs queries/*.sql): make test"
)]
fn profile_sensitivity_without_google_leaves_its_columns_null() {
    let dir = scratch("profile-sensitivity-no-google");
    let out = dir.join("out");
    run_census(
        &out,
        &[
            "data-samples/cc-robotstxt-sample.warc.gz",
            "data-samples/robots-dump.csv.gz",
        ],
        &["--profiles", "urllib,ccbot"],
    );
    let results = crate::support::run_queries(&dir, &["profile_sensitivity"]);
    let docs = read_docs(&out);
    let latest = latest_doc_ids(&docs);
    let crawl_of: HashMap<&str, &str> = docs
        .iter()
        .map(|d| (d.doc_id.as_str(), d.crawl.as_str()))
        .collect();
    let readings: Vec<ReadingRow> = read_readings(&out)
        .into_iter()
        .filter(|r| latest.contains(&r.doc_id))
        .collect();
    let want = sensitivity_rows(&readings, &crawl_of);
    assert!(!want.is_empty(), "rows to compare");
    assert!(want
        .iter()
        .all(|w| w.profiles == 2 && w.open_elsewhere.is_none() && w.closed_elsewhere.is_none()));
    assert!(
        want.iter().any(|w| w.sensitive > 0),
        "urllib and ccbot differ somewhere"
    );
    check_sensitivity(
        &crate::support::named_rows(&results["profile_sensitivity"]),
        &want,
    );
}

/// The readings table end to end: a CSV of corpus bodies through `run --profiles`, each
/// row's root verdict against the real library (urllib, protego, robots-parser) asked
/// about the same body, agent and `/` of the row's host.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (real robots.txt bodies), the venv (protego) and npm robots-parser (make node): make test"
)]
fn readings_rows_agree_with_the_libraries() {
    let dir = scratch("readings-e2e");
    let mut bodies: Vec<Vec<u8>> = crate::support::corpus_files()
        .iter()
        .map(|p| std::fs::read(p).expect("corpus body"))
        .filter(|b| b.len() < 50_000 && std::str::from_utf8(b).is_ok())
        .collect();
    bodies.sort();
    let bodies: Vec<Vec<u8>> = bodies.into_iter().step_by(23).take(250).collect();
    let csv_path = dir.join("bodies.csv");
    let mut csv = csv::Writer::from_path(&csv_path).expect("csv");
    csv.write_record(["url", "status", "body"]).expect("header");
    for (i, body) in bodies.iter().enumerate() {
        let url = format!("https://h{i}.example/robots.txt");
        csv.write_record([url.as_bytes(), &b"200"[..], &body[..]])
            .expect("row");
    }
    csv.flush().expect("flush");
    drop(csv);
    let agents = ["GPTBot", "Googlebot", "CCBot", "Bingbot", "UnknownBot"];
    let out = dir.join("out");
    run_census(
        &out,
        &[csv_path.to_str().expect("UTF-8 path")],
        &[
            "--profiles",
            "urllib,protego,robots-parser,google",
            "--tables",
            "agents,verdicts",
            "--paths",
            "/,/private/x,/a/b.html",
            "--agents",
            &agents.join(","),
        ],
    );

    let url_of: HashMap<String, String> = read_docs(&out)
        .into_iter()
        .map(|d| (d.doc_id, d.url))
        .collect();
    let readings = read_readings(&out);
    assert_eq!(
        readings.len(),
        bodies.len() * agents.len() * 4,
        "one row per (doc, agent, profile)"
    );
    let mut checked = 0;
    for profile in [Profile::Urllib, Profile::Protego, Profile::RobotsParser] {
        let mut oracle = Oracle::start(profile);
        for r in readings.iter().filter(|r| r.profile == profile.name()) {
            let url = &url_of[&r.doc_id];
            let i: usize = url["https://h".len()..url.find('.').expect("host")]
                .parse()
                .expect("body index");
            let root = url.replace("robots.txt", "");
            let want = oracle.ask(&bodies[i], &r.agent, &root);
            assert_eq!(
                r.root_allowed,
                want == '1',
                "{}: {url} agent {} root: library says {want}",
                profile.name(),
                r.agent
            );
            checked += 1;
        }
    }
    assert_eq!(checked, bodies.len() * agents.len() * 3);

    // The verdicts table: Google's rows as before, plus one row per question and profile,
    // each the library's answer about the same body, agent and URL.
    let mut rows: Vec<(String, String, String, bool, String)> = Vec::new();
    for b in read_table(&out, "verdicts") {
        let ids = b
            .column_by_name("doc_id")
            .expect("doc_id")
            .as_fixed_size_binary();
        let allowed = b.column_by_name("allowed").expect("allowed").as_boolean();
        let (agent, url, profile) = (
            string_column(&b, "agent"),
            string_column(&b, "url"),
            string_column(&b, "profile"),
        );
        for i in 0..b.num_rows() {
            rows.push((
                hex_id(ids.value(i)),
                agent.value(i).to_owned(),
                url.value(i).to_owned(),
                allowed.value(i),
                profile.value(i).to_owned(),
            ));
        }
    }
    assert_eq!(
        rows.len(),
        bodies.len() * agents.len() * 3 * 4,
        "questions x profiles"
    );
    let mut checked = 0;
    for profile in [Profile::Urllib, Profile::Protego, Profile::RobotsParser] {
        let mut oracle = Oracle::start(profile);
        for (doc_id, agent, url, allowed, _) in rows.iter().filter(|r| r.4 == profile.name()) {
            let robots = &url_of[doc_id];
            let i: usize = robots["https://h".len()..robots.find('.').expect("host")]
                .parse()
                .expect("body index");
            assert!(
                url.starts_with(&robots.replace("/robots.txt", "/")),
                "{url} of {robots}"
            );
            let want = oracle.ask(&bodies[i], agent, url);
            assert_eq!(
                *allowed,
                want == '1',
                "{}: {url} agent {agent}",
                profile.name()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, bodies.len() * agents.len() * 3 * 3);
    // Google's profile is the agents table's reading.
    let agents_table = read_table(&out, "agents");
    let mut google_root: HashMap<(String, String), bool> = HashMap::new();
    for b in &agents_table {
        let ids = b
            .column_by_name("doc_id")
            .expect("doc_id")
            .as_fixed_size_binary();
        let agent = string_column(b, "agent");
        let root = b.column_by_name("root_allowed").expect("root").as_boolean();
        for i in 0..b.num_rows() {
            google_root.insert(
                (hex_id(ids.value(i)), agent.value(i).to_owned()),
                root.value(i),
            );
        }
    }
    for r in readings.iter().filter(|r| r.profile == "google") {
        assert_eq!(
            r.root_allowed,
            google_root[&(r.doc_id.clone(), r.agent.clone())],
            "google reading = agents.root_allowed"
        );
    }
}
