//! queries/*.sql, run with real DuckDB on the tables of the bundled samples, against
//! counts computed here without SQL: from the input files themselves (WARC records
//! and CSV rows read by a small independent reader below, bodies parsed with the
//! engine) and from the Parquet tables read with the `parquet` crate.
//!
//! The "latest capture per host" rule is recomputed here from the inputs' own
//! WARC-Date values (doc_id, read from Parquet, only breaks ties).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::Path;
use std::process::Command;

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use robots_census::internals::classify;
use robots_census::internals::{parse_agent_list, DEFAULT_AGENTS};
use robots_census_engine::{RobotsTxt, Scope};
use serde_json::Value;

use crate::support::{self, repo, scratch};

const WARC_CC: &str = "data-samples/cc-robotstxt-sample.warc.gz";
const WARC_IAH: &str = "data-samples/IAH-urls-wget.warc.gz";
const CSV_DUMP: &str = "data-samples/robots-dump.csv.gz";
const QUERIES: [&str; 10] = [
    "ai_agent_blocking",
    "crawl_delay",
    "input_problems",
    "latest_capture_per_host",
    "lint_findings",
    "robots_presence",
    "sitemap_adoption",
    "size_distribution",
    "status_distribution",
    "top_user_agents",
];

// ---------------------------------------------------------------------------
// An independent reading of the inputs.

/// One capture as the input file holds it.
#[derive(Debug, Clone)]
struct Cap {
    source: &'static str,
    /// WARC-Record-ID, or the CSV url (unique in the dump).
    key: String,
    url: String,
    date: Option<String>,
    status: Option<u16>,
    body: Vec<u8>,
    truncated: bool,
}

fn gunzip_all(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).expect("open input");
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_end(&mut out)
        .expect("gunzip input");
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

fn header<'a>(lines: &'a [(String, String)], name: &str) -> Option<&'a str> {
    lines
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn header_lines(block: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(block)
        .split("\r\n")
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = find(data, b"\r\n", 0) {
        let size = String::from_utf8_lossy(&data[..eol]);
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
    out
}

/// Response (and robots.txt resource) records of a per-record-gzip WARC.
fn read_warc(source: &'static str) -> Vec<Cap> {
    let data = gunzip_all(&repo().join(source));
    let (mut pos, mut caps) = (0, Vec::new());
    while let Some(start) = find(&data, b"WARC/1.", pos) {
        let head_end = find(&data, b"\r\n\r\n", start).expect("WARC header end");
        let head = header_lines(&data[start..head_end]);
        let len: usize = header(&head, "Content-Length")
            .expect("Content-Length")
            .parse()
            .expect("numeric Content-Length");
        let block = &data[head_end + 4..head_end + 4 + len];
        pos = head_end + 4 + len;
        let url = header(&head, "WARC-Target-URI").unwrap_or("").to_owned();
        let (status, body) = match header(&head, "WARC-Type") {
            Some("response") | Some("revisit") => {
                let http_end = find(block, b"\r\n\r\n", 0).expect("HTTP header end");
                let http = &block[..http_end];
                let status_line =
                    String::from_utf8_lossy(&http[..find(http, b"\r\n", 0).unwrap_or(http.len())])
                        .into_owned();
                let status: u16 = status_line
                    .split(' ')
                    .nth(1)
                    .expect("status code")
                    .parse()
                    .expect("numeric status");
                let fields = header_lines(http);
                let raw = &block[http_end + 4..];
                let body = if header(&fields, "Transfer-Encoding")
                    .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
                {
                    dechunk(raw)
                } else {
                    raw.to_vec()
                };
                (Some(status), body)
            }
            Some("resource") if is_robots_url(&url) => (None, block.to_vec()),
            _ => continue,
        };
        caps.push(Cap {
            source,
            key: header(&head, "WARC-Record-ID")
                .expect("record id")
                .to_owned(),
            url,
            date: header(&head, "WARC-Date").map(str::to_owned),
            status,
            body,
            truncated: header(&head, "WARC-Truncated").is_some(),
        });
    }
    caps
}

/// Rows of a `url,status,body` CSV dump.
fn read_csv(source: &'static str) -> Vec<Cap> {
    let text = gunzip_all(&repo().join(source));
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_slice());
    let headers = reader.byte_headers().expect("CSV header").clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name.as_bytes())
            .expect("column")
    };
    let (u, s, b) = (col("url"), col("status"), col("body"));
    reader
        .byte_records()
        .map(|r| {
            let r = r.expect("CSV row");
            let url = String::from_utf8_lossy(&r[u]).into_owned();
            Cap {
                source,
                key: url.clone(),
                url,
                date: None,
                status: std::str::from_utf8(&r[s]).ok().and_then(|s| s.parse().ok()),
                body: r[b].to_vec(),
                truncated: false,
            }
        })
        .collect()
}

/// http(s) URL whose path (before '?' and '#') ends in /robots.txt.
fn is_robots_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.ends_with("/robots.txt")
}

/// Lower-cased authority of an absolute URL.
fn authority(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let auth = rest[..end].rsplit('@').next().unwrap_or("");
    (!auth.is_empty()).then(|| auth.to_ascii_lowercase())
}

// ---------------------------------------------------------------------------
// Parquet, read with the parquet crate.

fn read_table(out: &Path, table: &str) -> Vec<RecordBatch> {
    assert!(
        out.join(table).is_dir(),
        "no {table} table under {}",
        out.display()
    );
    support::read_table(out, table)
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> &'a T {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("column {name}"))
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| panic!("type of column {name}"))
}

fn opt_str(a: &StringArray, i: usize) -> Option<String> {
    a.is_valid(i).then(|| a.value(i).to_owned())
}

/// A documents row, as far as the checks need it.
#[derive(Debug, Clone)]
struct DocRow {
    /// Hex of the 16-byte UUID: its order is DuckDB's order of UUIDs.
    doc_id: String,
    source: String,
    key: String,
    host: Option<String>,
    http_status: Option<i32>,
    status_class: String,
    body_size: i64,
}

fn documents(out: &Path) -> Vec<DocRow> {
    let mut rows = Vec::new();
    for b in read_table(out, "documents") {
        let doc_id = column::<arrow_array::FixedSizeBinaryArray>(&b, "doc_id");
        let source = column::<StringArray>(&b, "source");
        let record_id = column::<StringArray>(&b, "warc_record_id");
        let url = column::<StringArray>(&b, "url");
        let host = column::<StringArray>(&b, "host");
        let status = column::<Int32Array>(&b, "http_status");
        let class = column::<StringArray>(&b, "status_class");
        let size = column::<Int64Array>(&b, "body_size");
        for i in 0..b.num_rows() {
            rows.push(DocRow {
                doc_id: doc_id.value(i).iter().map(|b| format!("{b:02x}")).collect(),
                source: source.value(i).to_owned(),
                key: opt_str(record_id, i)
                    .or_else(|| opt_str(url, i))
                    .expect("record id or url"),
                host: opt_str(host, i),
                http_status: status.is_valid(i).then(|| status.value(i)),
                status_class: class.value(i).to_owned(),
                body_size: size.value(i),
            });
        }
    }
    rows
}

// ---------------------------------------------------------------------------
// Running the binary and the queries.

/// Runs the binary with the flags of `make run`; `exit` is the expected exit code
/// (0: clean, 1: input problems).
fn run_census(out: &Path, inputs: &[&str], exit: i32) {
    let status = Command::new(env!("CARGO_BIN_EXE_robots-census"))
        .current_dir(repo())
        .arg("run")
        .args(inputs)
        .args(["--urls", "data-samples/urls.txt", "--urls-per-host", "5"])
        .arg("--out")
        .arg(out)
        .args(["--overwrite", "--quiet"])
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(exit), "robots-census exit status");
}

/// Runs query files with DuckDB from `dir` (which holds out/): file stem -> result.
fn run_queries(dir: &Path, names: &[&str]) -> BTreeMap<String, QueryResult> {
    support::run_queries(dir, names)
        .into_iter()
        .map(|(name, result)| {
            let rows = support::named_rows(&result);
            (name, QueryResult { rows })
        })
        .collect()
}

struct QueryResult {
    rows: Vec<BTreeMap<String, Value>>,
}

impl QueryResult {
    /// The rows keyed by the values of `key` columns joined with '|'.
    fn by(&self, key: &[&str]) -> BTreeMap<String, &BTreeMap<String, Value>> {
        let mut map = BTreeMap::new();
        for row in &self.rows {
            let k = key
                .iter()
                .map(|c| match &row[*c] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join("|");
            assert!(map.insert(k.clone(), row).is_none(), "duplicate key {k}");
        }
        map
    }
}

fn text(row: &BTreeMap<String, Value>, col: &str) -> String {
    row.get(col)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("text column {col} in {row:?}"))
        .to_owned()
}

fn int(row: &BTreeMap<String, Value>, col: &str) -> i64 {
    row.get(col)
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("integer column {col} in {row:?}"))
}

fn float(row: &BTreeMap<String, Value>, col: &str) -> f64 {
    row.get(col)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("number column {col} in {row:?}"))
}

// ---------------------------------------------------------------------------
// Expected values.

/// What RFC 9309 makes of a capture's status (robots_presence.sql's outcome).
fn outcome(status: Option<u16>) -> &'static str {
    match status {
        None => "robots_txt",
        Some(200..=299) => "robots_txt",
        Some(300..=399) => "redirect",
        Some(429) => "unreachable",
        Some(400..=499) => "no_robots",
        Some(500..=599) => "unreachable",
        Some(_) => "unknown",
    }
}

fn class_of(status: Option<u16>) -> &'static str {
    match status {
        None => "none",
        Some(s) => match s / 100 {
            2 => "2xx",
            3 => "3xx",
            4 => "4xx",
            5 => "5xx",
            _ => "other",
        },
    }
}

fn is_parsed(status: Option<u16>) -> bool {
    outcome(status) == "robots_txt"
}

fn size_bucket(size: usize) -> &'static str {
    match size {
        0 => "0 B",
        1..=1024 => "1 B-1 KiB",
        1025..=10240 => "1-10 KiB",
        10241..=102_400 => "10-100 KiB",
        102_401..=512_000 => "100 KiB-500 KiB",
        _ => "over 500 KiB",
    }
}

/// Absolute http(s)/ftp URL with a host and no blank or control byte.
fn absolute_sitemap(url: &[u8]) -> bool {
    let text = String::from_utf8_lossy(url).to_ascii_lowercase();
    let rest = ["http://", "https://", "ftp://"]
        .iter()
        .find_map(|s| text.strip_prefix(s));
    rest.is_some_and(|r| {
        !r.is_empty()
            && !r.starts_with(['/', '?', '#'])
            && !url
                .iter()
                .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    })
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (DuckDB runs queries/*.sql): make test"
)]
fn every_query_agrees_with_independent_counts() {
    let dir = scratch("queries");
    let out = dir.join("out");
    run_census(&out, &[WARC_CC, WARC_IAH, CSV_DUMP], 0);
    let results = run_queries(&dir, &QUERIES);
    assert_eq!(
        results.keys().map(String::as_str).collect::<Vec<_>>(),
        QUERIES.to_vec(),
        "every query file ran"
    );
    let listed: BTreeSet<String> = std::fs::read_dir(repo().join("queries"))
        .expect("queries/")
        .filter_map(|e| {
            let p = e.expect("entry").path();
            (p.extension()? == "sql").then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    assert_eq!(
        listed,
        QUERIES
            .iter()
            .chain(&crate::sites::SITES_QUERIES)
            .chain(&crate::changes::CHANGES_QUERIES)
            .chain(&crate::report::REPORT_QUERIES)
            .chain(&crate::profiles::PROFILE_QUERIES)
            .chain(&crate::signals::SIGNAL_QUERIES)
            .map(|q| q.to_string())
            .collect(),
        "queries/*.sql and the checked lists differ: check new queries here, in sites.rs, changes.rs, report.rs, profiles.rs or signals.rs"
    );

    // The inputs, read independently, and the documents table, joined by record id / url.
    let mut caps = read_warc(WARC_CC);
    caps.extend(read_warc(WARC_IAH));
    caps.extend(read_csv(CSV_DUMP));
    let docs = documents(&out);
    assert_eq!(
        docs.len(),
        caps.len(),
        "one document per response / CSV row"
    );
    let by_key: HashMap<(&str, &str), &Cap> = caps
        .iter()
        .map(|c| ((c.source, c.key.as_str()), c))
        .collect();
    assert_eq!(by_key.len(), caps.len(), "record ids are unique");
    let mut pairs: Vec<(&DocRow, &Cap)> = Vec::new();
    for d in &docs {
        let cap: &Cap = by_key
            .get(&(d.source.as_str(), d.key.as_str()))
            .copied()
            .unwrap_or_else(|| panic!("document {d:?} is not in the inputs"));
        assert_eq!(d.http_status, cap.status.map(i32::from), "{}", cap.url);
        assert_eq!(d.status_class, class_of(cap.status), "{}", cap.url);
        assert_eq!(
            d.body_size,
            cap.body.len() as i64,
            "body size of {}",
            cap.url
        );
        assert_eq!(d.host, authority(&cap.url), "host of {}", cap.url);
        pairs.push((d, cap));
    }
    // robots.txt captures with a host, the population of every query.
    let robots: Vec<(&DocRow, &Cap)> = pairs
        .iter()
        .copied()
        .filter(|(_, c)| is_robots_url(&c.url))
        .collect();
    let mut latest: BTreeMap<String, (&DocRow, &Cap)> = BTreeMap::new();
    let mut captures_per_host: BTreeMap<String, i64> = BTreeMap::new();
    for &(d, c) in &robots {
        let Some(host) = authority(&c.url) else {
            continue;
        };
        *captures_per_host.entry(host.clone()).or_default() += 1;
        let rank = |d: &DocRow, c: &Cap| (c.date.is_some(), c.date.clone(), d.doc_id.clone());
        let entry = latest.entry(host).or_insert((d, c));
        if rank(d, c) > rank(entry.0, entry.1) {
            *entry = (d, c);
        }
    }
    let parsed: BTreeMap<&str, RobotsTxt<'_>> = latest
        .iter()
        .filter(|(_, (_, c))| is_parsed(c.status))
        .map(|(h, (_, c))| (h.as_str(), RobotsTxt::parse(&c.body)))
        .collect();
    eprintln!(
        "inputs: {} captures, {} robots.txt captures, {} hosts, {} with a parsed robots.txt",
        caps.len(),
        robots.len(),
        latest.len(),
        parsed.len()
    );

    // latest_capture_per_host: the same capture for every host.
    let got = results["latest_capture_per_host"].by(&["host"]);
    assert_eq!(got.len(), latest.len(), "latest_capture_per_host: hosts");
    for (host, (d, _)) in &latest {
        let row = got
            .get(host)
            .unwrap_or_else(|| panic!("latest_capture_per_host: {host} missing"));
        assert_eq!(
            text(row, "doc_id").replace('-', ""),
            d.doc_id,
            "latest capture of {host}"
        );
        assert_eq!(
            int(row, "captures"),
            captures_per_host[host],
            "captures of {host}"
        );
    }

    // status_distribution: statuses counted in the WARC/CSV.
    let mut want: BTreeMap<String, (i64, BTreeSet<String>, i64)> = BTreeMap::new();
    for &(_, c) in &robots {
        let key = format!(
            "{}|{}",
            class_of(c.status),
            c.status.map_or("null".into(), |s| s.to_string())
        );
        let e = want.entry(key).or_default();
        e.0 += 1;
        e.1.extend(authority(&c.url));
    }
    for (_, c) in latest.values() {
        let key = format!(
            "{}|{}",
            class_of(c.status),
            c.status.map_or("null".into(), |s| s.to_string())
        );
        want.get_mut(&key).expect("status seen").2 += 1;
    }
    let got = results["status_distribution"].by(&["status_class", "http_status"]);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "status_distribution: statuses"
    );
    for (key, (captures, hosts, latest_hosts)) in &want {
        let row = got[key];
        assert_eq!(int(row, "captures"), *captures, "status {key}: captures");
        assert_eq!(int(row, "hosts"), hosts.len() as i64, "status {key}: hosts");
        assert_eq!(
            int(row, "latest_hosts"),
            *latest_hosts,
            "status {key}: latest"
        );
        eprintln!(
            "status {key}: {captures} captures, {} hosts, {latest_hosts} latest",
            hosts.len()
        );
    }

    // robots_presence: outcome of each host's latest capture.
    let mut want: BTreeMap<&str, (i64, i64, i64)> = BTreeMap::new();
    for (host, (_, c)) in &latest {
        let e = want.entry(outcome(c.status)).or_default();
        e.0 += 1;
        if let Some(doc) = parsed.get(host.as_str()) {
            e.1 += i64::from(doc.facts.looks_like_html);
            e.2 += i64::from(doc.groups.is_empty());
        }
    }
    let got = results["robots_presence"].by(&["outcome"]);
    assert_eq!(got.len(), want.len(), "robots_presence: outcomes");
    for (name, (hosts, html, empty)) in &want {
        let row = got[*name];
        assert_eq!(int(row, "hosts"), *hosts, "robots_presence {name}");
        assert_eq!(
            int(row, "robots_txt_html"),
            *html,
            "robots_presence {name} html"
        );
        assert_eq!(
            int(row, "robots_txt_empty"),
            *empty,
            "robots_presence {name} empty"
        );
        eprintln!("presence {name}: {hosts} hosts ({html} HTML, {empty} without groups)");
    }
    assert_eq!(
        want["robots_txt"].0 as usize,
        parsed.len(),
        "2xx hosts = parsed hosts"
    );

    // ai_agent_blocking: classify() over each latest parsed body, per agent.
    let agents = parse_agent_list(DEFAULT_AGENTS);
    let got = results["ai_agent_blocking"].by(&["agent"]);
    assert_eq!(
        got.len(),
        agents.len(),
        "ai_agent_blocking: one row per agent"
    );
    let unreachable = latest
        .values()
        .filter(|(_, c)| outcome(c.status) == "unreachable")
        .count() as i64;
    for agent in &agents {
        // full, full named, partial, partial named, named
        let mut n = [0i64; 5];
        for doc in parsed.values() {
            let (summary, _, class) = classify(doc, agent);
            let named = doc.names_agent(agent.as_bytes());
            assert_eq!(named, summary.scope == Scope::Named);
            n[0] += i64::from(class == "full_disallow");
            n[1] += i64::from(class == "full_disallow" && named);
            n[2] += i64::from(class == "partial_disallow");
            n[3] += i64::from(class == "partial_disallow" && named);
            n[4] += i64::from(named);
        }
        let row = got[agent.as_str()];
        let check = |col: &str, want: i64| assert_eq!(int(row, col), want, "{agent}: {col}");
        check("hosts", latest.len() as i64);
        check("robots_hosts", parsed.len() as i64);
        check("full_disallow", n[0]);
        check("full_named", n[1]);
        check("full_star", n[0] - n[1]);
        check("partial_disallow", n[2]);
        check("partial_named", n[3]);
        check("partial_star", n[2] - n[3]);
        check("named", n[4]);
        check("unreachable_hosts", unreachable);
        if ["GPTBot", "ClaudeBot", "CCBot", "Googlebot"].contains(&agent.as_str()) {
            eprintln!(
                "{agent}: full {} ({} named), partial {} ({} named), named {} of {} robots hosts",
                n[0],
                n[1],
                n[2],
                n[3],
                n[4],
                parsed.len()
            );
        }
    }

    // top_user_agents: product tokens of the agent lines, per host.
    // token -> (hosts, (host, group) pairs naming it)
    type Named<'a> = (BTreeSet<&'a str>, BTreeSet<(&'a str, u32)>);
    let mut tokens: BTreeMap<String, Named<'_>> = BTreeMap::new();
    for (host, doc) in &parsed {
        for a in &doc.agents {
            let token = if a.is_star {
                "*".to_owned()
            } else {
                String::from_utf8_lossy(a.token).to_ascii_lowercase()
            };
            let e = tokens.entry(token).or_default();
            e.0.insert(*host);
            e.1.insert((*host, a.group));
        }
    }
    let rows = &results["top_user_agents"].rows;
    assert_eq!(rows.len(), tokens.len().min(100), "top_user_agents: rows");
    let mut previous = i64::MAX;
    for row in rows {
        let token = row["product_token"].as_str().expect("token");
        let (hosts, groups) = &tokens[token];
        assert_eq!(
            int(row, "hosts"),
            hosts.len() as i64,
            "token {token}: hosts"
        );
        assert_eq!(
            int(row, "groups"),
            groups.len() as i64,
            "token {token}: groups"
        );
        assert!(int(row, "hosts") <= previous, "most hosts first");
        previous = int(row, "hosts");
    }
    let cutoff = rows.last().map_or(0, |r| int(r, "hosts")) as usize;
    assert!(
        tokens.values().filter(|(h, _)| h.len() > cutoff).count() <= rows.len(),
        "top_user_agents keeps the most frequent tokens"
    );
    let star = tokens.get("*").map_or(0, |t| t.0.len());
    let gpt = tokens.get("gptbot").map_or(0, |t| t.0.len());
    eprintln!(
        "tokens: {} distinct, '*' on {star} hosts, gptbot on {gpt}",
        tokens.len()
    );

    // sitemap_adoption: Sitemap lines per the engine, absolute / host checked here.
    let mut m: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for (host, doc) in &parsed {
        let lines = doc.sitemaps.len() as i64;
        let (mut abs, mut same, mut cross) = (0, 0, 0);
        for s in &doc.sitemaps {
            if absolute_sitemap(s.url) {
                abs += 1;
                match authority(&String::from_utf8_lossy(s.url)) {
                    Some(h) if h == *host => same += 1,
                    _ => cross += 1,
                }
            }
        }
        let mut add = |k, n: i64| {
            let e = m.entry(k).or_default();
            e.0 += 1;
            e.1 += n;
        };
        add("robots_hosts", lines);
        if lines > 0 {
            add("any_sitemap", lines);
        }
        if abs > 0 {
            add("absolute", abs);
        }
        if lines > 0 && abs == 0 {
            add("only_not_absolute", lines);
        }
        if same > 0 {
            add("same_host", same);
        }
        if cross > 0 {
            add("cross_host", cross);
        }
        if cross > 0 && same == 0 {
            add("only_cross_host", cross);
        }
    }
    let got = results["sitemap_adoption"].by(&["measure"]);
    assert_eq!(got.len(), 7, "sitemap_adoption: measures");
    for (measure, row) in &got {
        let (hosts, lines) = m.get(measure.as_str()).copied().unwrap_or_default();
        assert_eq!(int(row, "hosts"), hosts, "sitemap {measure}: hosts");
        assert_eq!(int(row, "sitemap_lines"), lines, "sitemap {measure}: lines");
        eprintln!("sitemaps {measure}: {hosts} hosts, {lines} lines");
    }

    // crawl_delay: numeric crawl-delays of groups, per token.
    let mut delays: BTreeMap<String, (BTreeSet<&str>, Vec<f64>)> = BTreeMap::new();
    for (host, doc) in &parsed {
        for g in &doc.groups {
            let Some(delay) = g.crawl_delay else { continue };
            let mut names: BTreeSet<String> = doc
                .group_agents(g)
                .iter()
                .map(|a| {
                    if a.is_star {
                        "*".to_owned()
                    } else {
                        String::from_utf8_lossy(a.token).to_ascii_lowercase()
                    }
                })
                .collect();
            names.insert("(any)".to_owned());
            for name in names {
                let e = delays.entry(name).or_default();
                e.0.insert(*host);
                e.1.push(delay);
            }
        }
    }
    let got = results["crawl_delay"].by(&["product_token"]);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        delays.keys().collect::<Vec<_>>(),
        "crawl_delay: tokens"
    );
    for (token, (hosts, values)) in &delays {
        let row = got[token.as_str()];
        assert_eq!(
            int(row, "hosts"),
            hosts.len() as i64,
            "crawl-delay {token}: hosts"
        );
        assert_eq!(
            int(row, "groups"),
            values.len() as i64,
            "crawl-delay {token}: groups"
        );
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(float(row, "min_s"), min, "crawl-delay {token}: min");
        assert_eq!(float(row, "max_s"), max, "crawl-delay {token}: max");
        let bucket =
            |lo: f64, hi: f64| values.iter().filter(|v| **v > lo && **v <= hi).count() as i64;
        assert_eq!(
            int(row, "le_1s"),
            bucket(f64::NEG_INFINITY, 1.0),
            "{token} <= 1 s"
        );
        assert_eq!(int(row, "le_5s"), bucket(1.0, 5.0), "{token} <= 5 s");
        assert_eq!(int(row, "le_10s"), bucket(5.0, 10.0), "{token} <= 10 s");
        assert_eq!(int(row, "le_60s"), bucket(10.0, 60.0), "{token} <= 60 s");
        assert_eq!(
            int(row, "over_60s"),
            bucket(60.0, f64::INFINITY),
            "{token} > 60 s"
        );
    }
    if let Some((hosts, values)) = delays.get("(any)") {
        eprintln!(
            "crawl-delay: {} hosts, {} groups",
            hosts.len(),
            values.len()
        );
    }

    // lint_findings: RobotsTxt::parse(..).findings of every parsed robots.txt capture.
    let mut want: BTreeMap<String, (i64, i64, BTreeSet<String>, BTreeSet<String>)> =
        BTreeMap::new();
    let latest_ids: BTreeSet<&str> = latest.values().map(|(d, _)| d.doc_id.as_str()).collect();
    for &(d, c) in &robots {
        if !is_parsed(c.status) {
            continue;
        }
        // The engine applies the 500 KiB cut itself (and reports body_over_500kib).
        let doc = RobotsTxt::parse(&c.body);
        let mut per_code: BTreeMap<String, i64> = BTreeMap::new();
        for f in &doc.findings {
            *per_code
                .entry(format!(
                    "{}|{}",
                    f.code.as_str(),
                    f.code.severity().as_str()
                ))
                .or_default() += 1;
        }
        for (code, n) in per_code {
            let e = want.entry(code).or_default();
            e.0 += 1;
            e.1 += n;
            let host = authority(&c.url).expect("host");
            if latest_ids.contains(d.doc_id.as_str()) {
                e.3.insert(host.clone());
            }
            e.2.insert(host);
        }
    }
    let got = results["lint_findings"].by(&["code", "severity"]);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "lint_findings: codes"
    );
    for (code, (documents, findings, hosts, latest_hosts)) in &want {
        let row = got[code.as_str()];
        assert_eq!(int(row, "documents"), *documents, "lint {code}: documents");
        assert_eq!(int(row, "findings"), *findings, "lint {code}: findings");
        assert_eq!(int(row, "hosts"), hosts.len() as i64, "lint {code}: hosts");
        assert_eq!(
            int(row, "latest_hosts"),
            latest_hosts.len() as i64,
            "lint {code}: latest"
        );
        eprintln!("lint {code}: {documents} documents, {findings} findings");
    }

    // size_distribution: body lengths of the inputs.
    let mut want: BTreeMap<&str, [i64; 4]> = BTreeMap::new();
    for &(_, c) in &robots {
        let e = want.entry(size_bucket(c.body.len())).or_default();
        e[0] += 1;
        e[1] += i64::from(is_parsed(c.status));
        e[3] += i64::from(c.truncated);
    }
    for (_, c) in latest.values().filter(|(_, c)| is_parsed(c.status)) {
        want.entry(size_bucket(c.body.len())).or_default()[2] += 1;
    }
    let got = results["size_distribution"].by(&["bucket"]);
    assert_eq!(got.len(), 6, "size_distribution: buckets");
    for (bucket, row) in &got {
        let w = want.get(bucket.as_str()).copied().unwrap_or_default();
        assert_eq!(int(row, "captures"), w[0], "size {bucket}: captures");
        assert_eq!(int(row, "parsed_captures"), w[1], "size {bucket}: parsed");
        assert_eq!(
            int(row, "latest_hosts"),
            w[2],
            "size {bucket}: latest hosts"
        );
        assert_eq!(int(row, "lower_bound"), w[3], "size {bucket}: lower bound");
        eprintln!("size {bucket}: {w:?}");
    }
    assert_eq!(
        int(got["over 500 KiB"], "captures"),
        robots
            .iter()
            .filter(|(_, c)| c.body.len() > 512_000)
            .count() as i64
    );

    // input_problems: the samples read cleanly.
    assert!(
        results["input_problems"].rows.is_empty(),
        "input problems on the samples: {:?}",
        results["input_problems"].rows
    );
}

/// input_problems.sql on an input cut inside a gzip member: one problem, and the
/// complete records before the cut still became documents.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (DuckDB runs queries/*.sql): make test"
)]
fn input_problems_reports_a_cut_archive() {
    let dir = scratch("queries-cut");
    let data = std::fs::read(repo().join(WARC_IAH)).expect("read sample");
    // Cut in the middle of the 6th gzip member (warcinfo, request, response, request,
    // response, request, ...): one record per member, as wget writes them.
    let members: Vec<usize> = data
        .windows(3)
        .enumerate()
        .filter(|(_, w)| *w == [0x1f, 0x8b, 0x08])
        .map(|(i, _)| i)
        .collect();
    let cut = (members[5] + members[6]) / 2;
    let input = dir.join("cut.warc.gz");
    std::fs::write(&input, &data[..cut]).expect("write cut input");
    let source = input.to_str().expect("UTF-8 path");
    run_census(&dir.join("out"), &[source], 1);
    let results = run_queries(&dir, &["input_problems", "status_distribution"]);
    // Members 0..5 are whole: warcinfo + 2 request/response pairs: the 302 of
    // www.archive.org/robots.txt and the 200 of archive.org/robots.txt.
    let statuses = results["status_distribution"].by(&["http_status"]);
    assert_eq!(statuses.len(), 2, "statuses before the cut");
    assert_eq!(int(statuses["302"], "captures"), 1);
    assert_eq!(int(statuses["200"], "captures"), 1);
    let rows = &results["input_problems"].rows;
    assert_eq!(rows.len(), 1, "one problem: {rows:?}");
    assert_eq!(rows[0]["source"], source);
    assert_eq!(int(&rows[0], "problems"), 1);
    assert_eq!(int(&rows[0], "skipped"), 1);
    assert_eq!(int(&rows[0], "on_documents"), 0);
    eprintln!("cut archive: {:?}", rows[0]);
    let docs = documents(&dir.join("out"));
    assert_eq!(docs.len(), 2, "documents before the cut");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Java (Spark local) and the venv (pyspark, DuckDB): make test"
)]
fn every_query_gives_the_same_rows_in_duckdb_datafusion_and_spark() {
    // One dataset with every table: the samples with every profile, `sites` with a
    // ranked list of their hosts, `changes` between their two crawls.
    let dir = scratch("queries-three-engines");
    let out = dir.join("out");
    // The samples say nothing about AI use: one more capture does, so that the signal
    // queries have rows to compare.
    let signals = dir.join("signals.csv");
    let mut writer = csv::Writer::from_path(&signals).expect("signals.csv");
    writer
        .write_record(["url", "status", "body"])
        .expect("header");
    writer
        .write_record([
            "https://signals.example/robots.txt",
            "200",
            "# BEGIN Cloudflare Managed content\nUser-agent: *\nContent-Signal: search=yes, ai-train=no\n\
             Content-Usage: train-ai=n\nAllow: /\n\nUser-agent: GPTBot\nAllow: /\n\
             # END Cloudflare Managed Content\nLicense: https://signals.example/license.xml\n",
        ])
        .expect("row");
    writer.flush().expect("flush");
    drop(writer);
    let status = crate::support::bin()
        .current_dir(repo())
        .arg("run")
        .args([WARC_CC, WARC_IAH, CSV_DUMP])
        .arg(&signals)
        .args(["--urls", "data-samples/urls.txt", "--urls-per-host", "5"])
        .args(["--profiles", "all", "--quiet", "--out"])
        .arg(&out)
        .status()
        .expect("run --profiles all");
    assert!(status.success());
    let hosts: BTreeSet<String> = documents(&out)
        .iter()
        .filter_map(|d| d.host.clone())
        .collect();
    let ranks = dir.join("ranks.csv");
    let list: String = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{},{h}\n", i + 1))
        .collect();
    std::fs::write(&ranks, list).expect("write ranks");
    crate::sites::sites_ok(&out, &["-q", "--ranks", ranks.to_str().expect("UTF-8")]);
    // The crawls, from the partition directories (crawl=<CRAWL>).
    let mut crawls: Vec<String> = std::fs::read_dir(out.join("documents"))
        .expect("documents/")
        .filter_map(|e| {
            let name = e.expect("entry").file_name().to_string_lossy().into_owned();
            name.strip_prefix("crawl=").map(str::to_owned)
        })
        .collect();
    crawls.sort();
    assert_eq!(crawls.len(), 2, "{crawls:?}");
    let changes = crate::support::bin()
        .args(["changes", "-q", "--from", &crawls[0], "--to", &crawls[1]])
        .arg(&out)
        .status()
        .expect("changes");
    assert!(changes.success());

    let mut names: Vec<String> = std::fs::read_dir(repo().join("queries"))
        .expect("queries/")
        .filter_map(|e| {
            let p = e.expect("entry").path();
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            (p.extension()? == "sql").then_some(stem)
        })
        .collect();
    names.sort();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    // DuckDB and the embedded engine (run_queries compares them row by row).
    let duckdb = crate::support::run_queries(&dir, &refs);
    // Spark SQL, one local session for every file.
    let output = Command::new(crate::support::python())
        .arg(repo().join("tests/queries/run_queries_spark.py"))
        .arg(&out)
        .args(
            names
                .iter()
                .map(|n| repo().join("queries").join(format!("{n}.sql"))),
        )
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .output()
        .expect("run tests/queries/run_queries_spark.py");
    assert!(
        output.status.success(),
        "Spark failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let spark = crate::support::results_by_file(&output.stdout);
    assert_eq!(spark.len(), names.len(), "every file ran in Spark");
    let mut nonempty = 0;
    for name in &names {
        let (want, have) = (&duckdb[name], &spark[name]);
        assert_eq!(want["columns"], have["columns"], "{name}: columns");
        let (want, have) = (
            want["rows"].as_array().expect("rows"),
            have["rows"].as_array().expect("rows"),
        );
        assert_eq!(want.len(), have.len(), "{name}: rows in DuckDB and Spark");
        for (i, (w, h)) in want.iter().zip(have).enumerate() {
            assert!(
                crate::support::same_value(w, h),
                "{name} row {i}: DuckDB {w}, Spark {h}"
            );
        }
        nonempty += usize::from(!want.is_empty());
    }
    // input_problems is empty on clean samples; every other file has rows to compare.
    assert!(
        nonempty >= names.len() - 1,
        "{nonempty} of {} files gave rows",
        names.len()
    );
}
