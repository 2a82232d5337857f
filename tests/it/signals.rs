//! The `signals` table and the agents table's AI-use columns, end to end: a WARC with
//! every kind of signal line and comment is run through the binary, and every row read
//! back is compared with the row written out here by hand from the specifications
//! (draft-ietf-aipref-vocab and -attach, Cloudflare's Content Signals Policy, RSL 1.0),
//! the line numbers found by searching the bodies for each line's text.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The queries/ files this module checks against the tables.
pub const SIGNAL_QUERIES: [&str; 5] = [
    "signal_adoption",
    "own_group_blocks",
    "agent_mentions",
    "signal_contradictions",
    "cloudflare_managed",
];

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};

use crate::support::{bin, bools, gz_record, http_block, ids, ints, read_table, scratch, strings};

/// Cloudflare's managed robots.txt as its documentation shows it (policy comment,
/// markers, the `*` group with its Content-Signal, a blocked crawler), then the site's
/// own group after the block.
const CLOUDFLARE: &str = "\
# As a condition of accessing this website, you agree to abide by the following content signals:
# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED RIGHTS IN THE DIGITAL SINGLE MARKET.

# BEGIN Cloudflare Managed content

User-Agent: *
Content-signal: search=yes,ai-train=no,use=reference
Allow: /

User-agent: GPTBot
Disallow: /

# END Cloudflare Managed Content
User-agent: *
Disallow: /private/
";

/// AIPREF Content-Usage in groups: attach's example in `*`, conflicting lines in a named
/// group, a legacy label, a parameter, a repeated key, a String where a Token belongs.
const AIPREF: &str = "\
User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-agent: ClaudeBot
Content-Usage: train-ai=y, search=n
Content-Usage: train-ai=yes
Allow: /

User-agent: CCBot/2.0
Content-Usage: ai=n, train-ai=n;p=1
Disallow: /

User-agent: Googlebot
Content-Usage: search=y, search=n, train-ai=\"n\"
Content-Usage: /news/ search=y
Allow: /
";

/// File-wide lines (License, LLM-Policy), signals before any group, a reservation
/// comment, a value that is no dictionary and DisallowAITraining.
const MISC: &str = "\
License: https://rsl.example/license.xml
License: /license.xml
LLM-Policy: https://misc.example/llms.txt
Content-Usage: train-ai=n
Content-Signal: ai-train=no, search=y
# All rights reserved: text and data mining opt-out under Article 4 of the DSM directive
User-agent: *
Content-Usage: Train-AI=n
Content-Signal: search=yes, ai-input=no
DisallowAITraining: /images/
Disallow: /tmp/
";

/// One expected row of `signals`, but `doc_id` (the document's URL instead), `line`
/// (found from `text`) and `crawl`.
#[derive(Default, Clone)]
struct Want {
    /// The line's text in the body (for a comment, the whole line with `#`).
    text: &'static str,
    kind: &'static str,
    agents: &'static [&'static str],
    path: Option<&'static str>,
    value: &'static str,
    problem: Option<&'static str>,
    train_ai: Option<&'static str>,
    search: Option<&'static str>,
    labels: Option<&'static str>,
    ai_train: Option<&'static str>,
    ai_input: Option<&'static str>,
    search_signal: Option<&'static str>,
    use_level: Option<&'static str>,
    license_url: Option<&'static str>,
    license_same_host: Option<bool>,
    cloudflare_managed: bool,
}

fn want_rows() -> Vec<(&'static str, Want)> {
    let cf = "https://cf.example/robots.txt";
    let ai = "https://aipref.example/robots.txt";
    let misc = "https://misc.example/robots.txt";
    let reservation = "ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED RIGHTS IN THE DIGITAL SINGLE MARKET.";
    let usage = |text: &'static str, agents: &'static [&'static str], value: &'static str| Want {
        text,
        kind: "content-usage",
        agents,
        value,
        labels: Some("current"),
        ..Want::default()
    };
    vec![
        // Cloudflare: the policy comment reserves rights under Article 4 (2019/790).
        (
            cf,
            Want {
                text: "# ANY RESTRICTIONS EXPRESSED",
                kind: "tdm-comment",
                value: reservation,
                ..Want::default()
            },
        ),
        (
            cf,
            Want {
                text: "# BEGIN Cloudflare Managed content",
                kind: "cloudflare-managed",
                value: "BEGIN Cloudflare Managed content",
                cloudflare_managed: true,
                ..Want::default()
            },
        ),
        (
            cf,
            Want {
                text: "Content-signal: search=yes,ai-train=no,use=reference",
                kind: "content-signal",
                agents: &["*"],
                value: "search=yes,ai-train=no,use=reference",
                search_signal: Some("yes"),
                ai_train: Some("no"),
                use_level: Some("reference"),
                cloudflare_managed: true,
                ..Want::default()
            },
        ),
        // AIPREF, attach 3.2's example.
        (
            ai,
            Want {
                train_ai: Some("n"),
                ..usage("Content-Usage: train-ai=n", &["*"], "train-ai=n")
            },
        ),
        (
            ai,
            Want {
                path: Some("/ai-ok/"),
                train_ai: Some("y"),
                ..usage(
                    "Content-Usage: /ai-ok/ train-ai=y",
                    &["*"],
                    "/ai-ok/ train-ai=y",
                )
            },
        ),
        (
            ai,
            Want {
                train_ai: Some("y"),
                search: Some("n"),
                ..usage(
                    "Content-Usage: train-ai=y, search=n",
                    &["ClaudeBot"],
                    "train-ai=y, search=n",
                )
            },
        ),
        // `yes` is a Token but not y: unknown.
        (
            ai,
            Want {
                problem: Some("yes_no_in_content_usage"),
                ..usage(
                    "Content-Usage: train-ai=yes",
                    &["ClaudeBot"],
                    "train-ai=yes",
                )
            },
        ),
        // `ai` is vocab-01's label; the parameter is ignored.
        (
            ai,
            Want {
                problem: Some("legacy_label"),
                train_ai: Some("n"),
                labels: Some("mixed"),
                ..usage(
                    "Content-Usage: ai=n, train-ai=n;p=1",
                    &["CCBot/2.0"],
                    "ai=n, train-ai=n;p=1",
                )
            },
        ),
        // The last `search` counts; a String is not a Token.
        (
            ai,
            Want {
                problem: Some("unknown_value"),
                search: Some("n"),
                ..usage(
                    "Content-Usage: search=y, search=n, train-ai=\"n\"",
                    &["Googlebot"],
                    "search=y, search=n, train-ai=\"n\"",
                )
            },
        ),
        (
            ai,
            Want {
                path: Some("/news/"),
                search: Some("y"),
                ..usage(
                    "Content-Usage: /news/ search=y",
                    &["Googlebot"],
                    "/news/ search=y",
                )
            },
        ),
        (
            misc,
            Want {
                text: "License: https://rsl.example/license.xml",
                kind: "license",
                value: "https://rsl.example/license.xml",
                license_url: Some("https://rsl.example/license.xml"),
                license_same_host: Some(false),
                ..Want::default()
            },
        ),
        (
            misc,
            Want {
                text: "License: /license.xml",
                kind: "license",
                value: "/license.xml",
                problem: Some("license_not_absolute"),
                license_url: Some("https://misc.example/license.xml"),
                license_same_host: Some(true),
                ..Want::default()
            },
        ),
        (
            misc,
            Want {
                text: "LLM-Policy: https://misc.example/llms.txt",
                kind: "llm-policy",
                value: "https://misc.example/llms.txt",
                ..Want::default()
            },
        ),
        (
            misc,
            Want {
                problem: Some("outside_group"),
                train_ai: Some("n"),
                ..usage("Content-Usage: train-ai=n", &[], "train-ai=n")
            },
        ),
        (
            misc,
            Want {
                text: "Content-Signal: ai-train=no, search=y",
                kind: "content-signal",
                value: "ai-train=no, search=y",
                problem: Some("y_n_in_content_signal"),
                ai_train: Some("no"),
                ..Want::default()
            },
        ),
        (
            misc,
            Want {
                text: "# All rights reserved",
                kind: "tdm-comment",
                value: "All rights reserved: text and data mining opt-out under Article 4 of the DSM directive",
                ..Want::default()
            },
        ),
        // Keys are lower-case: no dictionary, every category unknown.
        (
            misc,
            Want {
                problem: Some("not_sf_dictionary"),
                labels: None,
                ..usage("Content-Usage: Train-AI=n", &["*"], "Train-AI=n")
            },
        ),
        (
            misc,
            Want {
                text: "Content-Signal: search=yes, ai-input=no",
                kind: "content-signal",
                agents: &["*"],
                value: "search=yes, ai-input=no",
                search_signal: Some("yes"),
                ai_input: Some("no"),
                ..Want::default()
            },
        ),
        (
            misc,
            Want {
                text: "DisallowAITraining: /images/",
                kind: "disallow-ai-training",
                agents: &["*"],
                path: Some("/images/"),
                value: "/images/",
                ..Want::default()
            },
        ),
    ]
}

/// The 1-based number of the one line of `body` that starts with `text`.
fn line_of(body: &str, text: &str) -> i64 {
    let found: Vec<usize> = body
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with(text))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(found.len(), 1, "{text:?} must be on exactly one line");
    found[0] as i64
}

/// A list-of-strings column.
fn string_lists(batches: &[RecordBatch], column: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for batch in batches {
        let list = batch
            .column_by_name(column)
            .unwrap_or_else(|| panic!("no column {column}"))
            .as_list::<i32>();
        for i in 0..list.len() {
            let values = list.value(i);
            let values = values.as_string::<i32>();
            out.push(
                (0..values.len())
                    .map(|j| values.value(j).to_owned())
                    .collect(),
            );
        }
    }
    out
}

/// A row as one comparable line.
fn show(url: &str, line: i64, w: &Want) -> String {
    format!(
        "{url}:{line} kind={} agents={:?} path={:?} value={:?} valid={} problem={:?} train_ai={:?} search={:?} labels={:?} ai_train={:?} ai_input={:?} search_signal={:?} use={:?} license_url={:?} license_same_host={:?} cloudflare_managed={}",
        w.kind,
        w.agents,
        w.path,
        w.value,
        w.problem.is_none(),
        w.problem,
        w.train_ai,
        w.search,
        w.labels,
        w.ai_train,
        w.ai_input,
        w.search_signal,
        w.use_level,
        w.license_url,
        w.license_same_host,
        w.cloudflare_managed,
    )
}

fn leak(s: Option<String>) -> Option<&'static str> {
    s.map(|s| &*Box::leak(s.into_boxed_str()))
}

/// The test documents: (URL, HTTP status, body).
const BODIES: [(&str, u16, &str); 5] = [
    // No signal; `*` blocks everyone, a block by no crawler's own group.
    (
        "https://star.example/robots.txt",
        200,
        "User-agent: *\nDisallow: /\n",
    ),
    ("https://cf.example/robots.txt", 200, CLOUDFLARE),
    ("https://aipref.example/robots.txt", 200, AIPREF),
    ("https://misc.example/robots.txt", 200, MISC),
    // Not parsed: no signal rows, and the agents' AI-use columns are empty.
    (
        "https://gone.example/robots.txt",
        404,
        "User-agent: GPTBot\nContent-Usage: train-ai=n\n",
    ),
];

/// The agents the runs ask about.
const AGENTS: &str = "GPTBot,ClaudeBot,CCBot,Googlebot";

/// [`BODIES`] as one WARC, run into `<scratch name>/out` (crawl `test-crawl`).
fn run_bodies(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let mut warc = Vec::new();
    for (url, status, body) in &BODIES {
        warc.extend(gz_record(
            "response",
            url,
            &http_block(*status, body.as_bytes()),
        ));
    }
    let input = dir.join("signals.warc.gz");
    std::fs::write(&input, &warc).expect("write input");
    let out = dir.join("out");
    let output = bin()
        .arg("run")
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--default-crawl", "test-crawl"])
        .args(["--agents", AGENTS])
        .output()
        .expect("run robots-census");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

#[test]
fn signals_table_and_agent_preferences_end_to_end() {
    let out = run_bodies("signals");
    let bodies = BODIES;

    let docs = read_table(&out, "documents");
    let url_of: HashMap<String, String> = ids(&docs, "doc_id")
        .into_iter()
        .zip(strings(&docs, "url"))
        .map(|(id, url)| (id.expect("doc_id"), url.expect("url")))
        .collect();
    let body_of: HashMap<&str, &str> = bodies.iter().map(|(u, _, b)| (*u, *b)).collect();

    // signals: every row as written, keyed by (url, line).
    let t = read_table(&out, "signals");
    let urls: Vec<String> = ids(&t, "doc_id")
        .into_iter()
        .map(|id| url_of[&id.expect("doc_id")].clone())
        .collect();
    let lines = ints(&t, "line");
    let valid = bools(&t, "valid");
    let crawl = strings(&t, "crawl");
    let agents = string_lists(&t, "agents");
    let col = |name: &str| strings(&t, name);
    let (kind, path, value, problem) = (col("kind"), col("path"), col("value"), col("problem"));
    let (train_ai, search, labels) = (col("train_ai"), col("search"), col("labels"));
    let (ai_train, ai_input, search_signal) =
        (col("ai_train"), col("ai_input"), col("search_signal"));
    let (use_level, license_url) = (col("use"), col("license_url"));
    let same_host = bools(&t, "license_same_host");
    let managed = bools(&t, "cloudflare_managed");
    let mut got = BTreeMap::new();
    for i in 0..urls.len() {
        assert_eq!(crawl[i].as_deref(), Some("test-crawl"));
        let line = lines[i].expect("line");
        let agents: Vec<&'static str> = agents[i]
            .iter()
            .map(|a| &*Box::leak(a.clone().into_boxed_str()))
            .collect();
        let row = Want {
            text: "",
            kind: leak(kind[i].clone()).expect("kind"),
            agents: Box::leak(agents.into_boxed_slice()),
            path: leak(path[i].clone()),
            value: leak(value[i].clone()).expect("value"),
            problem: leak(problem[i].clone()),
            train_ai: leak(train_ai[i].clone()),
            search: leak(search[i].clone()),
            labels: leak(labels[i].clone()),
            ai_train: leak(ai_train[i].clone()),
            ai_input: leak(ai_input[i].clone()),
            search_signal: leak(search_signal[i].clone()),
            use_level: leak(use_level[i].clone()),
            license_url: leak(license_url[i].clone()),
            license_same_host: same_host[i],
            cloudflare_managed: managed[i].expect("cloudflare_managed"),
        };
        // valid is exactly "no problem".
        assert_eq!(valid[i], Some(row.problem.is_none()), "{}:{line}", urls[i]);
        let previous = got.insert((urls[i].clone(), line), show(&urls[i], line, &row));
        assert!(previous.is_none(), "two rows for {}:{line}", urls[i]);
    }
    let want: BTreeMap<(String, i64), String> = want_rows()
        .into_iter()
        .map(|(url, w)| {
            let line = line_of(body_of[url], w.text);
            ((url.to_owned(), line), show(url, line, &w))
        })
        .collect();
    let missing: Vec<&String> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(*v))
        .map(|(_, v)| v)
        .collect();
    let extra: Vec<&String> = got
        .iter()
        .filter(|(k, v)| want.get(*k) != Some(*v))
        .map(|(_, v)| v)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "signals rows differ\nwanted, not written:\n{}\nwritten, not wanted:\n{}",
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        extra
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    );

    // Every problem is also a lint finding on its line (and DisallowAITraining's reading
    // as Disallow is one, though the line is a valid signal).
    let errors = read_table(&out, "errors");
    let findings: BTreeSet<(String, i64, String)> = ids(&errors, "doc_id")
        .into_iter()
        .zip(ints(&errors, "line"))
        .zip(strings(&errors, "code"))
        .filter_map(|((id, line), code)| Some((url_of[&id?].clone(), line?, code?)))
        .collect();
    let mut want_findings: Vec<(String, i64, String)> = want_rows()
        .into_iter()
        .filter_map(|(url, w)| {
            let code = match w.problem? {
                "not_sf_dictionary" => "signal_not_sf_dictionary",
                "outside_group" => "content_usage_outside_group",
                "license_not_absolute" => "license_not_absolute",
                "yes_no_in_content_usage" => "content_usage_yes_no",
                "y_n_in_content_signal" => "content_signal_y_n",
                "legacy_label" => "content_usage_legacy_label",
                "unknown_value" => "signal_unknown_value",
                other => panic!("no code written down for {other}"),
            };
            Some((
                url.to_owned(),
                line_of(body_of[url], w.text),
                code.to_owned(),
            ))
        })
        .collect();
    want_findings.push((
        "https://misc.example/robots.txt".to_owned(),
        line_of(MISC, "DisallowAITraining"),
        "disallow_ai_training_read_as_disallow".to_owned(),
    ));
    for finding in &want_findings {
        assert!(findings.contains(finding), "no lint finding {finding:?}");
    }

    // agents: the effective preferences per (document, agent), worked out by hand from
    // the bodies above (attach 3.1: the agent's groups as robots.cc selects them, the
    // longest matching path, n on ties, nothing where '/' may not be crawled; Content
    // Signals: the agent's groups, else the lines before any group).
    // (usage_train_ai, usage_search, signal_ai_train, mentioned)
    type Prefs = (
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
        bool,
    );
    let mut want_agents: BTreeMap<(&str, &str), Prefs> = BTreeMap::new();
    for agent in ["GPTBot", "ClaudeBot", "CCBot", "Googlebot"] {
        // Cloudflare: GPTBot's own group has no Content-Signal and nothing precedes the
        // groups; the others read the `*` group's ai-train=no.
        let cf = if agent == "GPTBot" {
            (None, None, None, true)
        } else {
            (None, None, Some("no"), false)
        };
        want_agents.insert(("https://cf.example/robots.txt", agent), cf);
        let aipref = match agent {
            // `*`: the pathless line (length 0) matches '/', /ai-ok/ does not.
            "GPTBot" => (Some("n"), None, None, false),
            // Two pathless lines: y and unknown give y; search n.
            "ClaudeBot" => (Some("y"), Some("n"), None, true),
            // Its own group (CCBot/2.0 names it) disallows '/': no preference applies;
            // and `CCBot/2.0` is not a mention of CCBot.
            "CCBot" => (None, None, None, false),
            // The String leaves train-ai unknown; the last search=n; /news/ is longer
            // but does not match '/'.
            _ => (None, Some("n"), None, true),
        };
        want_agents.insert(("https://aipref.example/robots.txt", agent), aipref);
        // `*` only: Train-AI=n is unknown and the line before the groups belongs to none;
        // ai-train comes from the line before the groups (the group's line sets none).
        want_agents.insert(
            ("https://misc.example/robots.txt", agent),
            (None, None, Some("no"), false),
        );
        want_agents.insert(
            ("https://gone.example/robots.txt", agent),
            (None, None, None, false),
        );
        want_agents.insert(
            ("https://star.example/robots.txt", agent),
            (None, None, None, false),
        );
    }
    let a = read_table(&out, "agents");
    let rows = ids(&a, "doc_id")
        .into_iter()
        .zip(strings(&a, "agent"))
        .zip(strings(&a, "usage_train_ai"))
        .zip(strings(&a, "usage_search"))
        .zip(strings(&a, "signal_ai_train"))
        .zip(bools(&a, "mentioned"));
    let mut got_agents = BTreeMap::new();
    for (((((id, agent), train), search), signal), mentioned) in rows {
        let url = url_of[&id.expect("doc_id")].clone();
        got_agents.insert(
            (url, agent.expect("agent")),
            (train, search, signal, mentioned.expect("mentioned")),
        );
    }
    let want_agents: BTreeMap<(String, String), _> = want_agents
        .into_iter()
        .map(|((u, a), (t, s, g, m))| {
            (
                (u.to_owned(), a.to_owned()),
                (
                    t.map(str::to_owned),
                    s.map(str::to_owned),
                    g.map(str::to_owned),
                    m,
                ),
            )
        })
        .collect();
    assert_eq!(got_agents, want_agents);
}

/// An agents row of a parsed document: (agent, named, root_allowed, mentioned,
/// usage_train_ai, signal_ai_train).
type AgentFacts = (String, bool, bool, bool, Option<String>, Option<String>);

/// What `signal_adoption.sql` says a line states (its `says` column), from a row of
/// the signals table.
fn says(kind: &str, row: &BTreeMap<&str, Option<String>>) -> String {
    let or = |name: &str, none: &str| row[name].clone().unwrap_or_else(|| none.to_owned());
    match kind {
        "content-usage" => format!(
            "train-ai={} search={}",
            or("train_ai", "unknown"),
            or("search", "unknown")
        ),
        "content-signal" => format!(
            "ai-train={} search={} ai-input={} use={}",
            or("ai_train", "unset"),
            or("search_signal", "unset"),
            or("ai_input", "unset"),
            or("use", "unset")
        ),
        "license" => match row["license_same_host"].as_deref() {
            Some("true") => "same-host".to_owned(),
            Some("false") => "other-host".to_owned(),
            _ => "unresolved".to_owned(),
        },
        _ => String::new(),
    }
}

/// queries/signal_adoption.sql, own_group_blocks.sql, agent_mentions.sql,
/// signal_contradictions.sql and cloudflare_managed.sql in DuckDB and Spark SQL, against
/// counts made here from the rows of the tables (each host has one capture, so the
/// latest capture per host is every parsed document).
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Java (Spark local) and the venv (pyspark, DuckDB): make test"
)]
fn signal_queries_count_what_the_rows_say() {
    let out = run_bodies("signal-queries");
    let docs = read_table(&out, "documents");
    let parsed: BTreeMap<String, String> = ids(&docs, "doc_id")
        .into_iter()
        .zip(strings(&docs, "host"))
        .zip(ints(&docs, "http_status"))
        .filter(|(_, status)| status.is_some_and(|s| (200..300).contains(&s)))
        .map(|((id, host), _)| (id.expect("doc_id"), host.expect("host")))
        .collect();
    let hosts = parsed.len() as f64;
    assert_eq!(hosts, 4.0);
    let pct = |n: i64, of: f64| (10000.0 * n as f64 / of).round() / 100.0;

    // signal_adoption: (kind, says, valid) -> (hosts, lines).
    let t = read_table(&out, "signals");
    let names = [
        "kind",
        "train_ai",
        "search",
        "ai_train",
        "ai_input",
        "search_signal",
        "use",
    ];
    let columns: Vec<Vec<Option<String>>> = names.iter().map(|n| strings(&t, n)).collect();
    let same_host = bools(&t, "license_same_host");
    let valid = bools(&t, "valid");
    let doc_ids = ids(&t, "doc_id");
    let mut adoption: BTreeMap<(String, String, bool), (BTreeSet<String>, i64)> = BTreeMap::new();
    let mut managed: BTreeSet<String> = BTreeSet::new();
    let mut managed_signal: BTreeSet<String> = BTreeSet::new();
    let cf_flag = bools(&t, "cloudflare_managed");
    for i in 0..doc_ids.len() {
        let host = parsed[doc_ids[i].as_ref().expect("doc_id")].clone();
        let mut row: BTreeMap<&str, Option<String>> = names
            .iter()
            .zip(&columns)
            .map(|(n, c)| (*n, c[i].clone()))
            .collect();
        row.insert("license_same_host", same_host[i].map(|b| b.to_string()));
        let kind = row["kind"].clone().expect("kind");
        if kind == "cloudflare-managed" {
            managed.insert(host.clone());
        }
        if kind == "content-signal" && cf_flag[i] == Some(true) {
            managed_signal.insert(host.clone());
        }
        let entry = adoption
            .entry((kind.clone(), says(&kind, &row), valid[i].expect("valid")))
            .or_default();
        entry.0.insert(host);
        entry.1 += 1;
    }

    // The agents' rows of parsed documents.
    let a = read_table(&out, "agents");
    let agent_rows: Vec<AgentFacts> = ids(&a, "doc_id")
        .into_iter()
        .zip(strings(&a, "agent"))
        .zip(bools(&a, "named"))
        .zip(bools(&a, "root_allowed"))
        .zip(bools(&a, "mentioned"))
        .zip(strings(&a, "usage_train_ai"))
        .zip(strings(&a, "signal_ai_train"))
        .filter(|((((((id, _), _), _), _), _), _)| {
            parsed.contains_key(id.as_ref().expect("doc_id"))
        })
        .map(
            |((((((_, agent), named), root), mentioned), usage), signal)| {
                (
                    agent.expect("agent"),
                    named.expect("named"),
                    root.expect("root_allowed of a parsed document"),
                    mentioned.expect("mentioned"),
                    usage,
                    signal,
                )
            },
        )
        .collect();
    let count = |agent: &str, f: &dyn Fn(&AgentFacts) -> bool| {
        agent_rows.iter().filter(|r| r.0 == agent && f(r)).count() as i64
    };

    let files: Vec<std::path::PathBuf> = SIGNAL_QUERIES
        .iter()
        .map(|n| crate::support::repo().join(format!("queries/{n}.sql")))
        .collect();
    for (engine, results) in crate::support::duckdb_and_spark_results(&out, &files) {
        let rows = |name: &str| crate::support::named_rows(&results[name]);
        let num = |v: &serde_json::Value| v.as_f64().expect("number");

        let got: BTreeMap<(String, String, bool), (i64, i64, f64)> = rows("signal_adoption")
            .iter()
            .map(|r| {
                assert_eq!(r["crawl"], "test-crawl");
                (
                    (
                        r["kind"].as_str().expect("kind").to_owned(),
                        r["says"].as_str().expect("says").to_owned(),
                        r["valid"].as_bool().expect("valid"),
                    ),
                    (
                        num(&r["hosts"]) as i64,
                        num(&r["lines"]) as i64,
                        num(&r["hosts_pct"]),
                    ),
                )
            })
            .collect();
        let want: BTreeMap<(String, String, bool), (i64, i64, f64)> = adoption
            .iter()
            .map(|(k, (h, lines))| {
                (
                    k.clone(),
                    (h.len() as i64, *lines, pct(h.len() as i64, hosts)),
                )
            })
            .collect();
        assert_eq!(got, want, "{engine}: signal_adoption");

        for agent in AGENTS.split(',') {
            let find = |file: &str| {
                rows(file)
                    .into_iter()
                    .find(|r| r["agent"] == agent)
                    .unwrap_or_else(|| panic!("{engine}: {file} has no row for {agent}"))
            };
            let r = find("own_group_blocks");
            let own = count(agent, &|r| r.1 && !r.2);
            let any = count(agent, &|r| !r.2);
            assert_eq!(
                (
                    num(&r["hosts"]),
                    num(&r["own_group_blocks"]),
                    num(&r["any_block"])
                ),
                (hosts, own as f64, any as f64),
                "{engine}: own_group_blocks for {agent}"
            );
            assert_eq!(num(&r["own_group_pct"]), pct(own, hosts));
            let r = find("agent_mentions");
            let mentioned = count(agent, &|r| r.3);
            let named = count(agent, &|r| r.1);
            assert_eq!(
                (
                    num(&r["mentioned"]),
                    num(&r["named"]),
                    num(&r["mentioned_pct"])
                ),
                (mentioned as f64, named as f64, pct(mentioned, hosts)),
                "{engine}: agent_mentions for {agent}"
            );
            if agent == "Googlebot" {
                assert!(rows("signal_contradictions")
                    .iter()
                    .all(|r| r["agent"] != agent));
                continue;
            }
            let refuses =
                |r: &AgentFacts| r.4.as_deref() == Some("n") || r.5.as_deref() == Some("no");
            let r = find("signal_contradictions");
            assert_eq!(
                (
                    num(&r["refuse_training"]),
                    num(&r["refuse_but_crawl"]),
                    num(&r["allow_but_block"])
                ),
                (
                    count(agent, &refuses) as f64,
                    count(agent, &|r| refuses(r) && r.2) as f64,
                    count(agent, &|r| r.5.as_deref() == Some("yes") && !r.2) as f64
                ),
                "{engine}: signal_contradictions for {agent}"
            );
        }

        let cf = rows("cloudflare_managed");
        assert_eq!(cf.len(), 1, "{engine}");
        assert_eq!(
            (
                num(&cf[0]["hosts"]),
                num(&cf[0]["managed"]),
                num(&cf[0]["managed_with_signal"])
            ),
            (hosts, managed.len() as f64, managed_signal.len() as f64),
            "{engine}: cloudflare_managed"
        );
    }
    // The bodies give each count something to find.
    assert_eq!(managed.len(), 1);
    assert!(agent_rows.iter().any(|r| r.1 && !r.2) && agent_rows.iter().any(|r| r.3));
    assert!(agent_rows.iter().any(|r| !r.1 && !r.2), "a block by `*`");
}
