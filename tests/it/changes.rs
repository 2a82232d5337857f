//! `robots-census changes` and `queries/changes_by_agent.sql` on the multi-crawl corpus
//! of the sites tests (tests/sites/make_corpus.py), compared with changes computed
//! independently (tests/sites/expect_changes.py: the expected sites rows of expect.py,
//! and rule lines and sitemaps read from the deciding bodies with Google's parser), and
//! with each other.

use std::process::Command;

use serde_json::Value;

use crate::sites::{census, corpus, rows, sites_ok};
use crate::support::{bin, python, repo, run_queries};

/// The query checked here (tests/it/queries.rs checks that every query is checked somewhere).
pub const CHANGES_QUERIES: [&str; 1] = ["changes_by_agent"];

fn expected() -> Value {
    let output = Command::new(python())
        .arg(repo().join("tests/sites/expect_changes.py"))
        .arg(corpus().dir.join("truth.json"))
        .args(["host", "rfc9309", "ranks"])
        .output()
        .expect("run expect_changes.py");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("expected JSON")
}

const COLUMNS: [&str; 7] = [
    "site",
    "change",
    "agent",
    "directive",
    "value",
    "before",
    "after",
];

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py; jwm-robotstxt for expect.py and expect_changes.py; DuckDB): make test"
)]
fn changes_and_query_match_independent_expectations_and_each_other() {
    let out = census("changes");
    let ranks = corpus().dir.join("ranks.csv");
    sites_ok(
        &out,
        &["-q", "--ranks", ranks.to_str().expect("UTF-8 path")],
    );
    let expected = expected();
    let pairs = expected["pairs"].as_object().expect("pairs");
    assert_eq!(pairs.len(), 3, "two consecutive pairs and first -> last");
    let mut kinds = std::collections::BTreeSet::new();
    for (pair, want) in pairs {
        let (from, to) = pair.split_once('|').expect("A|B");
        let output = bin()
            .args(["changes", "--json", "--from", from, "--to", to])
            .arg(&out)
            .output()
            .expect("run robots-census changes");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let summary: Value = serde_json::from_slice(&output.stdout).expect("summary JSON");
        assert_eq!(summary, want["summary"], "{pair}: summary");

        let dir = out
            .join("changes")
            .join(format!("from_crawl={from}"))
            .join(format!("to_crawl={to}"));
        assert!(dir.join("part-0.parquet").is_file(), "{}", dir.display());
        let have = rows(&dir);
        let want_rows = want["changes"].as_array().expect("changes");
        assert!(!want_rows.is_empty(), "{pair}: the corpus has changes");
        assert_eq!(have.len(), want_rows.len(), "{pair}: change rows");
        for (i, (h, w)) in have.iter().zip(want_rows).enumerate() {
            let h_values: Vec<&Value> = COLUMNS.iter().map(|c| &h[*c]).collect();
            let w_values: Vec<&Value> = w.as_array().expect("row").iter().collect();
            assert_eq!(h_values, w_values, "{pair}: row {i}");
            assert_eq!(h["from_crawl"], from);
            assert_eq!(h["to_crawl"], to);
            kinds.insert(h["change"].as_str().unwrap_or_default().to_owned());
        }
        spilled_the_same(&out, (from, to), &dir.join("part-0.parquet"), &summary);
    }
    // Every kind of change occurs in the corpus.
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "block",
            "rule_added",
            "rule_removed",
            "site_appeared",
            "site_disappeared",
            "sitemap_added",
            "sitemap_removed",
            "status_class"
        ]
    );

    // The query over every consecutive pair.
    let dir = out.parent().expect("dir").to_owned();
    let results = run_queries(&dir, &CHANGES_QUERIES);
    let have = &results["changes_by_agent"];
    assert_eq!(have["columns"], expected["query"]["columns"]);
    assert_eq!(have["rows"], expected["query"]["rows"]);
    assert!(have["rows"]
        .as_array()
        .is_some_and(|r| r.iter().any(|row| row[3] != 0 || row[4] != 0)));

    // The command and the query agree: each consecutive pair's summary per agent (read
    // back from the command's JSON above; the report shows the query's rows).
    let crawls = robots_census::internals::crawls(&out).expect("crawls");
    let mut from_command = Vec::new();
    for pair in crawls.windows(2) {
        let summary = &pairs[&format!("{}|{}", pair[0], pair[1])]["summary"];
        for a in summary["agents"].as_array().expect("agents") {
            from_command.push(serde_json::json!([
                pair[0],
                pair[1],
                a["agent"],
                a["blocks_added"],
                a["blocks_removed"],
                a["net"]
            ]));
        }
    }
    assert_eq!(Value::from(from_command), have["rows"]);
}

/// `changes --memory-limit` small enough to spill writes the bytes the comparison in
/// memory wrote (`part`, read before) and prints the same summary (`summary`).
fn spilled_the_same(
    out: &std::path::Path,
    (from, to): (&str, &str),
    part: &std::path::Path,
    summary: &Value,
) {
    let in_memory = std::fs::read(part).expect("the part written in memory");
    let mut buckets_seen = Vec::new();
    for limit in ["3KiB", "12KiB"] {
        let changes = |json: bool| {
            let output = bin()
                .args([
                    "changes",
                    "--from",
                    from,
                    "--to",
                    to,
                    "--memory-limit",
                    limit,
                ])
                .args(json.then_some("--json"))
                .arg(out)
                .output()
                .expect("run robots-census changes");
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            assert_eq!(
                output.status.code(),
                Some(0),
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            stdout
        };
        let json: Value = serde_json::from_str(&changes(true)).expect("summary JSON");
        assert_eq!(&json, summary, "{from} -> {to} at {limit}: summary");
        assert!(
            std::fs::read(part).expect("part") == in_memory,
            "{from} -> {to} at {limit}: the same bytes as in memory"
        );
        let text = changes(false);
        let buckets: usize = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("spilled to ")?
                    .strip_suffix(" buckets (--memory-limit)")?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("{from} -> {to} at {limit}: no buckets line in {text}"));
        buckets_seen.push(buckets);
    }
    // The small limit spills to more buckets than the larger one, and both to several.
    assert!(
        buckets_seen[0] > buckets_seen[1] && buckets_seen[1] >= 2,
        "{from} -> {to}: buckets {buckets_seen:?}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, and expect.py with jwm-robotstxt, which build the corpus): make test"
)]
fn changes_usage_errors_exit_2() {
    let out = census("changes-usage");
    let no_sites = bin()
        .args([
            "changes",
            "--from",
            "CC-MAIN-2023-50",
            "--to",
            "CC-MAIN-2024-10",
        ])
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(no_sites.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_sites.stderr).contains("holds no sites table"));
    sites_ok(&out, &["-q"]);
    let unknown = bin()
        .args([
            "changes",
            "--from",
            "CC-MAIN-2023-50",
            "--to",
            "CC-MAIN-2099-01",
        ])
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(unknown.status.code(), Some(2));
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        message.contains("\"CC-MAIN-2099-01\" is not in the sites table")
            && message.contains("CC-MAIN-2024-33"),
        "{message}"
    );
    let same = bin()
        .args([
            "changes",
            "--from",
            "CC-MAIN-2023-50",
            "--to",
            "CC-MAIN-2023-50",
        ])
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(same.status.code(), Some(2));
    let bad_limit = bin()
        .args([
            "changes",
            "--from",
            "CC-MAIN-2023-50",
            "--to",
            "CC-MAIN-2024-10",
        ])
        .args(["--memory-limit", "lots"])
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(bad_limit.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad_limit.stderr);
    assert!(
        stderr.contains("--memory-limit") && stderr.contains("\"lots\""),
        "{stderr}"
    );
    assert!(!out.join("changes").exists(), "nothing written on errors");
}

/// tests/reference/changes.sql, an independent reference of the changes step's rules in
/// SQL, gives the step's rows in the step's order, in the embedded engine (`robots-census
/// query`) and in DuckDB, for every pair of the three crawls (both directions of the
/// first and last), over a sites table with ranked sites without a capture, a site key
/// that merges hosts and CCBot's status semantics. Every kind of change occurs.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, expect.py with jwm-robotstxt, DuckDB): make test"
)]
fn the_sql_reference_gives_the_change_rows() {
    let out = census("changes-sql-step");
    let ranks = corpus().dir.join("ranks.csv");
    sites_ok(
        &out,
        &[
            "-q",
            "--ranks",
            ranks.to_str().expect("UTF-8 path"),
            "--site-key",
            "host-nowww",
            "--status-semantics",
            "ccbot",
        ],
    );
    let step = std::fs::read_to_string(repo().join("tests/reference/changes.sql"))
        .expect("tests/reference/changes.sql");
    let steps = out.parent().expect("out has a parent").join("steps");
    std::fs::create_dir_all(&steps).expect("mkdir steps");
    let pairs = [
        ("CC-MAIN-2023-50", "CC-MAIN-2024-10"),
        ("CC-MAIN-2024-10", "CC-MAIN-2024-33"),
        ("CC-MAIN-2023-50", "CC-MAIN-2024-33"),
        ("CC-MAIN-2024-33", "CC-MAIN-2023-50"),
    ];
    let (mut files, mut wants) = (Vec::new(), Vec::new());
    let mut kinds = std::collections::BTreeSet::new();
    for (n, (from, to)) in pairs.into_iter().enumerate() {
        let status = bin()
            .args(["changes", "--from", from, "--to", to])
            .arg(&out)
            .output()
            .expect("run robots-census changes");
        assert_eq!(status.status.code(), Some(0), "changes {from} {to}");
        // The Rust step's file, in its order; null columns left out, as arrow-json (the
        // embedded engine's --format json) leaves them.
        let dir = out
            .join("changes")
            .join(format!("from_crawl={from}"))
            .join(format!("to_crawl={to}"));
        let want: Vec<serde_json::Map<String, Value>> = rows(&dir)
            .into_iter()
            .map(|row| row.into_iter().filter(|(_, v)| !v.is_null()).collect())
            .collect();
        assert!(!want.is_empty(), "{from} -> {to}: the Rust step wrote rows");
        kinds.extend(want.iter().map(|r| r["change"].to_string()));
        let file = steps.join(format!("changes{n}.sql"));
        std::fs::write(
            &file,
            format!(
                "CREATE OR REPLACE VIEW changes_options AS SELECT '{from}' AS from_crawl, \
                 '{to}' AS to_crawl;\n{step}"
            ),
        )
        .expect("write a step file");
        let have = crate::sites::query_rows(&out, &[file.to_str().expect("UTF-8 path")]);
        assert_eq!(have.len(), want.len(), "{from} -> {to}: rows");
        for (i, (h, w)) in have.iter().zip(&want).enumerate() {
            assert_eq!(h.as_object(), Some(w), "{from} -> {to}: row {i}");
        }
        files.push(file);
        wants.push((format!("{from} -> {to}"), want));
    }
    assert_eq!(kinds.len(), 8, "every kind of change occurs: {kinds:?}");
    // DuckDB (through the dataset's _views.sql), running every file in one session,
    // against the step's rows.
    for (engine, results) in [("DuckDB", crate::support::duckdb_results(&out, &files))] {
        assert_eq!(results.len(), files.len(), "{engine}: every file ran");
        for (n, (pair, want)) in wants.iter().enumerate() {
            crate::support::same_rows(pair, engine, &results[&format!("changes{n}")], want);
        }
    }
}
