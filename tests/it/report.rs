//! `robots-census report` on a multi-crawl dataset: the sites test's generated three
//! crawls (tests/sites/make_corpus.py), the bundled Common Crawl sample (a fourth crawl,
//! real files: lint findings, sitemaps, crawl-delays) and a CSV row with a 600,000-byte
//! robots.txt (past the 500 KiB cut), and CSV rows with AI-use signals that contradict
//! their rules. Checks that every number of the page equals the
//! result of the query of queries/ its table names (DuckDB, cell by cell), that the
//! HTML parses without errors (html5lib) and holds no script or external reference,
//! and that headless Chromium renders every chart with a non-zero size.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use crate::support::{
    bin, chromium, named_rows, python, repo, run_queries, run_with_timeout, scratch,
};

/// The queries the report reproduces (tests/it/queries.rs checks that every file of
/// queries/ is checked somewhere).
pub const REPORT_QUERIES: [&str; 2] = ["site_status_by_crawl", "agent_blocking_by_crawl"];

/// Table id of the page -> the query it must equal.
const TABLES: [(&str, &str); 14] = [
    ("t-status", "site_status_by_crawl"),
    ("t-blocking", "agent_blocking_by_crawl"),
    ("t-changes", "changes_by_agent"),
    ("t-readings", "profile_sensitivity"),
    ("t-signal-adoption", "signal_adoption"),
    ("t-signal-contradictions", "signal_contradictions"),
    ("t-tokens", "top_user_agents"),
    ("t-sitemaps", "sitemap_adoption"),
    ("t-delays", "crawl_delay"),
    ("t-lint", "lint_findings"),
    ("t-sizes", "size_distribution"),
    // The headline: a few rows of these queries (each row must equal its query row).
    ("t-glance-sites", "agent_blocking_by_crawl"),
    ("t-glance-ai", "agent_blocking_by_crawl"),
    ("t-glance-changes", "changes_by_agent"),
];

/// The charts of the default report, in page order: one small multiple per agent
/// (chart-trend-1..4) after the blocking heatmap.
const CHARTS: [&str; 15] = [
    "chart-status",
    "chart-blocking",
    "chart-trend-1",
    "chart-trend-2",
    "chart-trend-3",
    "chart-trend-4",
    "chart-changes",
    "chart-changes-net",
    "chart-readings",
    "chart-signals",
    "chart-tokens",
    "chart-sitemaps",
    "chart-delays",
    "chart-lint",
    "chart-sizes",
];

const AGENTS: &str = "GPTBot,CCBot,Googlebot,ClaudeBot";

/// CSV rows whose AI-use signals contradict their rules: Cloudflare's block refusing
/// training to every crawler while `/` is allowed; GPTBot refused training by AIPREF
/// but let in, CCBot allowed training by Content-Signal but kept out; a Content-Usage
/// spelled yes (invalid) and a reservation comment; ClaudeBot refused training and
/// kept out (no contradiction).
const SIGNAL_ROWS: &str = "\
https://signals-a.example/robots.txt,200,\"# BEGIN Cloudflare Managed content\nUser-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n# END Cloudflare Managed Content\n\"
https://signals-b.example/robots.txt,200,\"User-agent: GPTBot\nContent-Usage: train-ai=n\nDisallow: /private/\n\nUser-agent: CCBot\nContent-Signal: ai-train=yes\nDisallow: /\nLicense: https://rsl.example/license.xml\n\"
https://signals-c.example/robots.txt,200,\"User-agent: *\nContent-Usage: train-ai=yes\nDisallow:\n# rights reserved under Directive (EU) 2019/790\n\"
https://signals-d.example/robots.txt,200,\"User-agent: ClaudeBot\nContent-Signal: ai-train=no\nDisallow: /\n\"
";

/// A dataset directory holding `out/` and the generated corpus.
struct Dataset {
    dir: PathBuf,
    corpus: PathBuf,
}

/// Generates the inputs and runs `run` into `<scratch>/<name>/out`.
fn dataset(name: &str) -> Dataset {
    let dir = scratch(name);
    let corpus = dir.join("corpus");
    let made = Command::new(python())
        .arg(repo().join("tests/sites/make_corpus.py"))
        .arg(&corpus)
        .output()
        .expect("run make_corpus.py");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // One robots.txt past Google's 500 KiB cut, as a CSV row.
    let mut body = String::from("User-agent: *\nDisallow: /private/\n");
    while body.len() < 600_000 {
        body.push_str("Disallow: /a-long-path-that-repeats-to-make-the-file-big/\n");
    }
    let csv = dir.join("big.csv");
    std::fs::write(
        &csv,
        format!("url,status,body\nhttps://big.example/robots.txt,200,\"{body}\"\n{SIGNAL_ROWS}"),
    )
    .expect("write big.csv");
    let status = bin()
        .arg("run")
        .arg(corpus.join("crawl-data"))
        .arg(repo().join("data-samples/cc-robotstxt-sample.warc.gz"))
        .arg(&csv)
        // Every interpretation profile: the readings section.
        .args(["--agents", AGENTS, "--profiles", "all", "--quiet", "--out"])
        .arg(dir.join("out"))
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "robots-census run");
    Dataset { dir, corpus }
}

/// `report` over `<dir>/out` with `args`; returns the page's path.
fn report(dir: &Path, args: &[&str]) -> PathBuf {
    report_to(dir, "report.html", args).0
}

/// `report` over `<dir>/out` with `args` into `<dir>/<name>`, which must exit 0;
/// returns the page's path and the report's stderr.
fn report_to(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, String) {
    let page = dir.join(name);
    let output = bin()
        .arg("report")
        .arg(dir.join("out"))
        .arg("-o")
        .arg(&page)
        .args(args)
        .output()
        .expect("run robots-census report");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "report {args:?}: {stderr}");
    (page, stderr)
}

/// The default dataset and its report (no options: the sites step runs with defaults).
fn default_report() -> &'static (Dataset, PathBuf) {
    static DONE: OnceLock<(Dataset, PathBuf)> = OnceLock::new();
    DONE.get_or_init(|| {
        let d = dataset("report-default");
        let page = report(&d.dir, &[]);
        (d, page)
    })
}

/// tests/report/parse_report.py's JSON for a page.
fn parse(page: &Path) -> Value {
    let output = Command::new(python())
        .arg(repo().join("tests/report/parse_report.py"))
        .arg(page)
        .output()
        .expect("run parse_report.py");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("parse_report JSON")
}

type QueryRows = Vec<BTreeMap<String, Value>>;

/// Runs queries/<name>.sql with DuckDB in `dir` (which holds out/): rows by column name.
fn queries(dir: &Path, names: &[&str]) -> BTreeMap<String, QueryRows> {
    run_queries(dir, names)
        .into_iter()
        .map(|(name, result)| (name, named_rows(&result)))
        .collect()
}

/// What the page shows for a query value: C0 controls but tab and line feed as
/// control pictures, other
/// controls and noncharacters as U+FFFD (as the report writes them, since HTML has no
/// place for them), nulls as nothing, booleans as yes and no.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
        Value::String(s) => s
            .chars()
            .map(|c| match c as u32 {
                0x09 | 0x0A => c,
                n @ 0x00..=0x1F => char::from_u32(0x2400 + n).expect("control picture"),
                0x7F => '\u{2421}',
                n if c.is_control() || (0xFDD0..=0xFDEF).contains(&n) || (n & 0xFFFE) == 0xFFFE => {
                    '\u{FFFD}'
                }
                _ => c,
            })
            .collect::<String>()
            .trim()
            .to_owned(),
        other => other.to_string(),
    }
}

/// Whether a cell's text shows the query value: integers exactly, other numbers
/// within the report's rounding (two decimals for percentages, three for seconds),
/// strings exactly.
fn agrees(text: &str, want: &Value) -> bool {
    match want {
        Value::Number(n) => {
            let have: Option<f64> = text.replace([',', '%'], "").parse().ok();
            match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => have == Some(i as f64),
                (None, Some(f)) => have.is_some_and(|h| (h - f).abs() <= 0.0051),
                _ => false,
            }
        }
        Value::Null => text.is_empty() || text == "—",
        other => text == shown(other),
    }
}

/// The number of a cell of `row` whose data-col is `col` (and whose own key has
/// `key_value` among its values, when given).
fn number_in(row: &Value, col: &str, key_value: Option<&Value>) -> f64 {
    let cells = row["cells"].as_array().expect("cells");
    let cell = cells
        .iter()
        .find(|c| {
            c["col"] == col
                && key_value.is_none_or(|v| {
                    c["key"]
                        .as_object()
                        .is_some_and(|k| k.values().any(|x| x == v))
                })
        })
        .unwrap_or_else(|| panic!("no {col} cell in {row}"));
    let text = cell["text"]
        .as_str()
        .expect("text")
        .replace([',', '%', '+'], "");
    text.parse()
        .unwrap_or_else(|_| panic!("{col}: {text:?} is not a number"))
}

/// Checks a headline cell computed from other cells of its row (the share of sites
/// with a robots.txt, the change of a percentage between two crawls); false for
/// other cells.
fn derived_agrees(table: &str, row: &Value, cell: &Value) -> bool {
    let text = cell["text"]
        .as_str()
        .expect("text")
        .replace(['%', '+', ','], "");
    match cell["derived"].as_str() {
        Some("share") => {
            let (n, d) = (
                number_in(row, "robots_sites", None),
                number_in(row, "sites", None),
            );
            let want = 100.0 * n / d;
            let have: f64 = text.parse().expect("share");
            assert!(
                (have - want).abs() <= 0.051,
                "{table}: share {have}, want {want:.3}"
            );
            true
        }
        Some("difference") => {
            let crawls: Vec<Value> = row["cells"]
                .as_array()
                .expect("cells")
                .iter()
                .filter(|c| c["col"] == "fully_pct")
                .map(|c| c["key"]["crawl"].clone())
                .collect();
            let [later, earlier] = crawls.as_slice() else {
                panic!("{table}: a difference needs two fully_pct cells: {row}");
            };
            let want = number_in(row, "fully_pct", Some(later))
                - number_in(row, "fully_pct", Some(earlier));
            let have: f64 = text.parse().expect("difference");
            assert!(
                (have - want).abs() <= 0.0051,
                "{table}: difference {have}, want {want:.3}"
            );
            true
        }
        Some("encoding") => {
            // What the example's bytes are, read from the example as errors.excerpt
            // writes it (tests/it/pipeline.rs checks that rule).
            let example = row["cells"]
                .as_array()
                .expect("cells")
                .iter()
                .find(|c| c["col"] == "example")
                .and_then(|c| c["text"].as_str())
                .expect("example cell");
            // The bytes written as \xNN, backslashes of escaped text being doubled;
            // printable ASCII escapes are text as written.
            let mut escaped = Vec::new();
            let mut rest = example;
            while let Some(at) = rest.find('\\') {
                rest = &rest[at..];
                if let Some(after) = rest.strip_prefix("\\\\") {
                    rest = after;
                    continue;
                }
                match rest.get(2..4).map(|h| u8::from_str_radix(h, 16)) {
                    Some(Ok(v))
                        if rest.as_bytes().get(1) == Some(&b'x') && !(0x20..0x7f).contains(&v) =>
                    {
                        escaped.push(v);
                        rest = &rest[4..];
                    }
                    _ => rest = &rest[1..],
                }
            }
            let want = match example {
                e if e.starts_with(r"\xff\xfe") => {
                    "UTF-16LE (byte order mark FF FE), shown as bytes"
                }
                e if e.starts_with(r"\xfe\xff") => {
                    "UTF-16BE (byte order mark FE FF), shown as bytes"
                }
                _ if escaped.iter().any(|&v| v >= 0x80) => "not UTF-8 text, shown as bytes",
                _ if !escaped.is_empty() => r"UTF-8 text, control characters as \xNN",
                _ => "UTF-8 text",
            };
            assert_eq!(cell["text"], want, "{table}: the bytes of {example:?}");
            true
        }
        _ => false,
    }
}

/// Compares every numbered cell of the page's tables with the queries' results;
/// returns how many cells were compared.
fn compare(page: &Value, results: &BTreeMap<String, QueryRows>, tables: &[(&str, &str)]) -> usize {
    let mut compared = 0;
    for &(table, query) in tables {
        let t = &page["tables"][table];
        assert_eq!(t["query"], query, "{table}: data-query");
        let want = &results[query];
        let rows = t["rows"].as_array().expect("rows");
        assert!(!rows.is_empty(), "{table}: no rows");
        let mut seen = Vec::new();
        for row in rows {
            let row_key = row["key"].as_object().expect("key");
            for cell in row["cells"].as_array().expect("cells") {
                let text = cell["text"].as_str().expect("text");
                let Some(col) = cell["col"].as_str() else {
                    if derived_agrees(table, row, cell) {
                        continue;
                    }
                    // A derived cell: the row's sum.
                    assert_eq!(cell["derived"], "sum", "{table}: a cell without data-col");
                    let sum: u64 = row["cells"]
                        .as_array()
                        .expect("cells")
                        .iter()
                        .filter(|c| c["col"] == "sites")
                        .map(|c| {
                            c["text"]
                                .as_str()
                                .expect("text")
                                .replace(',', "")
                                .parse::<u64>()
                                .expect("count")
                        })
                        .sum();
                    assert_eq!(text.replace(',', ""), sum.to_string(), "{table}: row sum");
                    continue;
                };
                let mut key = row_key.clone();
                if let Some(extra) = cell["key"].as_object() {
                    key.extend(extra.clone());
                }
                // A key cell shows its key.
                if cell["key"].is_null() {
                    if let Some(v) = key.get(col) {
                        assert_eq!(text, shown(v), "{table} {key:?}: key cell {col}");
                        continue;
                    }
                }
                let matching: Vec<&BTreeMap<String, Value>> = want
                    .iter()
                    .filter(|r| key.iter().all(|(k, v)| r.get(k) == Some(v)))
                    .collect();
                match matching.as_slice() {
                    [r] => {
                        let v = r
                            .get(col)
                            .unwrap_or_else(|| panic!("{query} has no column {col}"));
                        assert!(
                            agrees(text, v),
                            "{table} {key:?} {col}: page {text:?}, query {v}"
                        );
                        compared += 1;
                        seen.push(key.clone());
                    }
                    // A pivoted cell of a group the query has no row for: a count of zero.
                    [] => assert_eq!(text, "0", "{table} {key:?} {col}: no query row"),
                    _ => panic!("{table} {key:?}: several query rows"),
                }
            }
        }
        // Every query row is on the page (the long lists: the first rows, in order).
        seen.dedup();
        let names: Vec<String> = seen.first().expect("a row").keys().cloned().collect();
        let keys_of = |r: &BTreeMap<String, Value>| -> serde_json::Map<String, Value> {
            names.iter().map(|k| (k.clone(), r[k].clone())).collect()
        };
        if table.starts_with("t-glance-") {
            // The headline picks rows (each checked above), in its own order.
            assert!(!seen.is_empty(), "{table}: no row");
        } else if let "t-tokens" | "t-delays" = table {
            let n = seen.len();
            assert!(n >= 2, "{table}: {n} rows");
            let head: Vec<_> = want[..n].iter().map(keys_of).collect();
            assert_eq!(seen, head, "{table}: the query's first {n} rows in order");
        } else {
            let mut all: Vec<_> = want.iter().map(keys_of).collect();
            let order = |v: &mut Vec<serde_json::Map<String, Value>>| {
                v.sort_by_key(|m| Value::Object(m.clone()).to_string())
            };
            if let "t-status" | "t-blocking" | "t-changes" = table {
                // Pivoted / grouped by agent on the page: compared as sets.
                order(&mut all);
                order(&mut seen);
            }
            assert_eq!(seen, all, "{table}: the query's rows");
        }
    }
    compared
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, html5lib, DuckDB): make test"
)]
fn report_numbers_equal_the_queries() {
    let (d, page) = default_report();
    let names: Vec<&str> = TABLES.iter().map(|(_, q)| *q).collect();
    let results = queries(&d.dir, &names);
    let parsed = parse(page);
    let compared = compare(&parsed, &results, &TABLES);
    // The dataset is not trivial: four crawls, several lint codes, the big file.
    assert_eq!(
        parsed["tables"]["t-status"]["rows"]
            .as_array()
            .map(Vec::len),
        Some(5)
    );
    assert!(
        results["lint_findings"].len() >= 3,
        "{:?}",
        results["lint_findings"]
    );
    let over = results["size_distribution"]
        .iter()
        .find(|r| r["bucket"] == "over 500 KiB")
        .expect("bucket");
    // Three files of the bundled sample and the generated 600,000-byte CSV row.
    assert_eq!(over["captures"], 4, "{over:?}");
    assert!(compared > 200, "{compared} cells compared");
    // The AI-use section: every kind of the signal rows, and both contradictions in
    // the crawl of the CSV rows.
    let kinds: std::collections::BTreeSet<&str> = results["signal_adoption"]
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "cloudflare-managed",
            "content-signal",
            "content-usage",
            "license",
            "tdm-comment"
        ]
    );
    assert!(results["signal_adoption"]
        .iter()
        .any(|r| r["kind"] == "content-usage" && r["valid"] == false));
    let unknown = |agent: &str| {
        results["signal_contradictions"]
            .iter()
            .find(|r| r["crawl"] == "unknown" && r["agent"] == agent)
            .unwrap_or_else(|| panic!("no row for {agent}"))
            .clone()
    };
    // GPTBot: signals-a (Content-Signal via *) and signals-b (its own Content-Usage).
    assert_eq!(unknown("GPTBot")["refuse_but_crawl"], 2);
    assert_eq!(unknown("CCBot")["allow_but_block"], 1);
    // ClaudeBot: signals-a lets it crawl, signals-d refuses training and blocks it.
    assert_eq!(unknown("ClaudeBot")["refuse_training"], 2);
    assert_eq!(unknown("ClaudeBot")["refuse_but_crawl"], 1);
    let mut broken = parsed.clone();
    let row = &mut broken["tables"]["t-signal-contradictions"]["rows"][0]["cells"][3];
    assert_eq!(row["col"], "refuse_training");
    row["text"] = Value::from("999999");
    assert!(std::panic::catch_unwind(|| compare(&broken, &results, &TABLES)).is_err());
    // The comparison fails on a wrong number: one count changed in a copy of the page.
    let mut broken = parsed.clone();
    let cell = &mut broken["tables"]["t-lint"]["rows"][0]["cells"][2];
    assert_eq!(cell["col"], "documents");
    cell["text"] = Value::from("999999");
    assert!(std::panic::catch_unwind(|| compare(&broken, &results, &TABLES)).is_err());
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, html5lib): make test"
)]
fn report_is_self_contained_html_without_parse_errors() {
    let (_, page) = default_report();
    let parsed = parse(page);
    assert_eq!(
        parsed["errors"],
        Value::Array(vec![]),
        "html5lib parse errors"
    );
    assert_eq!(parsed["scripts"], 0, "no script");
    assert_eq!(parsed["external"], Value::Array(vec![]), "no src/href");
    let text = std::fs::read_to_string(page).expect("read page");
    assert!(
        !text.contains("@import") && !text.contains("url("),
        "nothing fetched by CSS"
    );
    assert_eq!(
        parsed["charts"]
            .as_array()
            .expect("charts")
            .iter()
            .map(|c| c.as_str().expect("id"))
            .collect::<Vec<_>>(),
        CHARTS.to_vec()
    );
    for (table, _) in TABLES {
        let t = &parsed["tables"][table];
        assert!(
            t["caption"].as_str().is_some_and(|c| !c.is_empty()),
            "{table}: caption"
        );
        let scopes = t["th_scopes"].as_array().expect("scopes");
        assert!(
            scopes.iter().all(|s| s == "col" || s == "row"),
            "{table}: th scope"
        );
    }
    assert!(text.contains("@media print"), "print styles");
    assert!(
        text.contains("status semantics <strong>rfc9309</strong>"),
        "methodology"
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Chromium (make chromium) and the venv's Python (tests/sites/make_corpus.py): make test"
)]
fn chromium_renders_every_chart_with_a_size() {
    let (d, page) = default_report();
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "/usr/bin/chromium missing: `make chromium` installs it"
    );
    // A copy with a measuring script: each chart's box, written into the DOM.
    let html = std::fs::read_to_string(page).expect("read page");
    let script = "<script>window.addEventListener('load',()=>{const m={};\
        for(const s of document.querySelectorAll('svg.chart')){const r=s.getBoundingClientRect();\
        m[s.id]=[r.width,r.height,s.querySelectorAll('rect,polyline').length];}\
        const p=document.createElement('pre');p.id='measured';p.textContent=JSON.stringify(m);\
        document.body.appendChild(p);});</script>";
    let measured_page = d.dir.join("report-measured.html");
    let mut f = std::fs::File::create(&measured_page).expect("create copy");
    f.write_all(
        html.replace("</body>", &format!("{script}</body>"))
            .as_bytes(),
    )
    .expect("write copy");
    let profile = d.dir.join("chromium-profile-dom");
    let mut cmd = chromium(&profile, 1000);
    cmd.arg("--dump-dom")
        .arg(format!("file://{}", measured_page.display()));
    let (ok, dom) = run_with_timeout(cmd, Duration::from_secs(90));
    assert!(ok, "chromium --dump-dom failed or timed out");
    let dom = String::from_utf8_lossy(&dom);
    let json = dom
        .split("<pre id=\"measured\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no measurement in the DOM: {}", &dom[..dom.len().min(500)]));
    let measured: BTreeMap<String, (f64, f64, usize)> =
        serde_json::from_str(&json.replace("&quot;", "\"")).expect("measurement JSON");
    assert_eq!(measured.keys().map(String::as_str).collect::<Vec<_>>(), {
        let mut c = CHARTS.to_vec();
        c.sort_unstable();
        c
    });
    for (id, (w, h, marks)) in &measured {
        assert!(*w > 100.0 && *h > 30.0, "{id}: rendered {w} x {h}");
        assert!(*marks > 0, "{id}: no bars or lines");
    }
    // And a screenshot of the page itself.
    let png = d.dir.join("report.png");
    let profile = d.dir.join("chromium-profile-png");
    let mut cmd = chromium(&profile, 5600);
    cmd.arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()));
    let (ok, _) = run_with_timeout(cmd, Duration::from_secs(90));
    assert!(ok, "chromium --screenshot failed or timed out");
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 20_000,
        "PNG of {} bytes",
        bytes.len()
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, html5lib, DuckDB): make test"
)]
fn options_rerun_the_sites_step_and_the_page_says_so() {
    let d = dataset("report-options");
    let ranks = d.corpus.join("ranks.csv");
    let page = report(
        &d.dir,
        &[
            "--status-semantics",
            "ccbot",
            "--ranks",
            ranks.to_str().expect("UTF-8 path"),
            "--agents",
            "GPTBot,CCBot",
        ],
    );
    let parsed = parse(&page);
    let results = queries(&d.dir, &REPORT_QUERIES);
    // Under ccbot a 403 is "HTTP forbidden" (under rfc9309, the default, it allows all).
    assert!(results["site_status_by_crawl"]
        .iter()
        .any(|r| r["status_class"] == "HTTP forbidden"));
    let compared = compare(&parsed, &results, &TABLES[..2]);
    assert!(compared > 20);
    let agents: Vec<&str> = parsed["tables"]["t-blocking"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["key"]["agent"].as_str().expect("agent"))
        .collect();
    assert!(agents.iter().all(|a| *a == "GPTBot" || *a == "CCBot") && agents.len() == 10);
    let text = std::fs::read_to_string(&page).expect("page");
    assert!(text.contains("status semantics <strong>ccbot</strong>"));
    assert!(text.contains("The report ran the sites step with these options"));
    // Ranked sites without a capture are in the table.
    assert!(results["site_status_by_crawl"]
        .iter()
        .any(|r| r["status_class"] == "No robots.txt capture"));
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (html5lib, DuckDB): make test"
)]
fn a_run_of_the_agents_subset_gets_a_page_that_names_what_it_cannot_draw() {
    // `run --tables agents` (the AI-blocking study's subset) writes no groups nor
    // sitemaps: the per-crawl sections are drawn, the sections whose queries need the
    // missing tables say so, and the report exits 0.
    let dir = scratch("report-agents-subset");
    let out = dir.join("out");
    let status = bin()
        .arg("run")
        .arg(repo().join("data-samples/cc-robotstxt-sample.warc.gz"))
        .args(["--tables", "agents", "--agents", AGENTS, "--quiet", "--out"])
        .arg(&out)
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "robots-census run");
    let page = report(&dir, &[]);
    let parsed = parse(&page);
    assert_eq!(parsed["errors"], serde_json::json!([]), "html5lib errors");
    let results = queries(&dir, &REPORT_QUERIES);
    assert!(compare(&parsed, &results, &TABLES[..2]) > 10);
    let tables = parsed["tables"].as_object().expect("tables");
    for missing in ["t-tokens", "t-sitemaps", "t-delays"] {
        assert!(
            !tables.contains_key(missing),
            "{missing} drawn without its tables"
        );
    }
    for drawn in ["t-status", "t-blocking", "t-lint", "t-sizes"] {
        assert!(tables.contains_key(drawn), "{drawn} missing");
    }
    // No signals table: the adoption part says so; the contradictions (agents,
    // documents) are drawn and equal their query.
    assert!(!tables.contains_key("t-signal-adoption"));
    let contradictions = queries(&dir, &["signal_contradictions"]);
    assert!(
        compare(
            &parsed,
            &contradictions,
            &[("t-signal-contradictions", "signal_contradictions")]
        ) >= 4
    );
    let text = std::fs::read_to_string(&page).expect("page");
    for (query, table) in [
        ("top_user_agents", "groups"),
        ("sitemap_adoption", "sitemaps"),
        ("crawl_delay", "groups"),
        ("signal_adoption", "signals"),
    ] {
        let note = format!("Not drawn: <span class=\"q\">queries/{query}.sql</span> cannot run without its tables (table {table}: the run that wrote");
        assert!(text.contains(&note), "no note for {query}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/sites/make_corpus.py): make test"
)]
fn a_crawl_without_a_place_in_time_is_named_above_the_headline() {
    // The default dataset's big.csv names no crawl, so its captures are `unknown`,
    // which sorts after the CC-MAIN crawls: the page and stderr say that "latest" and
    // the changes follow name order there, and the exit code stays 0.
    let (d, _) = default_report();
    let (page, stderr) = report_to(&d.dir, "report-order.html", &[]);
    let caveat = "Crawls are in name order, and \"unknown\" is not a Common Crawl crawl id \
                  (CC-MAIN-YYYY-WW), so its place in time is not known";
    assert!(
        stderr.contains(&format!("robots-census: note: {caveat}")),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&page).expect("page");
    let on_page = format!(
        "<p class=\"caveat\" id=\"crawl-order\">{}",
        caveat.replace('"', "&quot;")
    );
    assert!(text.contains(&on_page), "no caveat on the page");
    let glance = text
        .find("<section id=\"summary\">")
        .expect("summary section");
    let first_table = text[glance..].find("<table").expect("a table") + glance;
    let at = text.find(&on_page).expect("caveat");
    assert!(
        glance < at && at < first_table,
        "the caveat comes before the headline's tables"
    );

    // Three Common Crawl crawls only: no caveat.
    let dir = scratch("report-crawl-ids-only");
    let status = bin()
        .arg("run")
        .arg(d.corpus.join("crawl-data"))
        .args(["--agents", AGENTS, "--quiet", "--out"])
        .arg(dir.join("out"))
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "robots-census run");
    let (page, stderr) = report_to(&dir, "report.html", &[]);
    assert!(!stderr.contains("note:"), "{stderr}");
    let text = std::fs::read_to_string(&page).expect("page");
    assert!(text.contains("3 crawls, CC-MAIN-2023-50 to CC-MAIN-2024-33"));
    assert!(
        !text.contains("crawl-order"),
        "a caveat on a page of crawl ids"
    );
}
