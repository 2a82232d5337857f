//! `robots-census sites` on a generated multi-crawl corpus (tests/sites/make_corpus.py:
//! 3 crawls, rules added and removed, http+https, refetches, 301 chains of 1, 5 and 6
//! hops, a cross-host redirect to www., a redirect never captured, 204/401/403/404/410/
//! 429/503, HTML with 200, subdomains under example.co.uk ...), compared row by row
//! with tables computed independently (tests/sites/expect.py: plain Python over the
//! generator's ground truth, Google's parser for verdicts) under every option
//! combination; then the three published shapes in queries/ through DuckDB.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::support::{bin, files_with_extension, python, repo, run_queries, scratch};

/// The queries checked here (tests/it/queries.rs checks the others).
pub const SITES_QUERIES: [&str; 3] = [
    "agent_restrictions_by_crawl",
    "agents_named_by_year",
    "cc_status_classes",
];

const AGENTS: &str = "GPTBot,CCBot,Googlebot,ClaudeBot";

/// The generated corpus and the expectations, made once for all tests.
pub struct Corpus {
    pub dir: PathBuf,
    pub expected: Value,
}

pub fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = scratch("sites-corpus");
        let made = Command::new(python())
            .arg(repo().join("tests/sites/make_corpus.py"))
            .arg(&dir)
            .output()
            .expect("run make_corpus.py");
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let expected = Command::new(python())
            .arg(repo().join("tests/sites/expect.py"))
            .arg(dir.join("truth.json"))
            .output()
            .expect("run expect.py");
        assert!(
            expected.status.success(),
            "{}",
            String::from_utf8_lossy(&expected.stderr)
        );
        let expected = serde_json::from_slice(&expected.stdout).expect("expected JSON");
        Corpus { dir, expected }
    })
}

/// `run` over the corpus into a fresh `<scratch>/<name>/out`.
pub fn census(name: &str) -> PathBuf {
    let out = scratch(name).join("out");
    let status = bin()
        .arg("run")
        .arg(corpus().dir.join("crawl-data"))
        .args(["--agents", AGENTS, "--quiet", "--out"])
        .arg(&out)
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "robots-census run");
    out
}

fn sites(out: &Path, args: &[&str]) -> Output {
    bin()
        .arg("sites")
        .arg(out)
        .args(args)
        .output()
        .expect("run robots-census sites")
}

pub fn sites_ok(out: &Path, args: &[&str]) {
    let output = sites(out, args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "sites {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The sites table's part files under `out`: each path (relative to `out`) and its bytes.
fn sites_parts(out: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_with_extension(&out.join("sites"), "parquet")
        .into_iter()
        .map(|p| {
            (
                p.strip_prefix(out).expect("under out").to_owned(),
                std::fs::read(&p).expect("read"),
            )
        })
        .collect()
}

fn value(column: &dyn Array, i: usize) -> Value {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    if column.is_null(i) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Utf8 => Value::from(column.as_string::<i32>().value(i)),
        DataType::Int64 => Value::from(column.as_primitive::<Int64Type>().value(i)),
        DataType::Int32 => Value::from(column.as_primitive::<Int32Type>().value(i)),
        DataType::Boolean => Value::from(column.as_boolean().value(i)),
        // doc_id: 16 bytes, compared as hex.
        DataType::FixedSizeBinary(_) => Value::from(
            column
                .as_fixed_size_binary()
                .value(i)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>(),
        ),
        other => Value::from(format!("{other}")),
    }
}

/// The rows of every Parquet file under `dir`, as column -> JSON value.
pub fn rows(dir: &Path) -> Vec<BTreeMap<String, Value>> {
    let mut rows = Vec::new();
    for path in files_with_extension(dir, "parquet") {
        let file = std::fs::File::open(&path).expect("open part");
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .expect("parquet footer")
            .build()
            .expect("reader");
        for batch in reader {
            let batch: RecordBatch = batch.expect("batch");
            let schema = batch.schema();
            for i in 0..batch.num_rows() {
                rows.push(
                    schema
                        .fields()
                        .iter()
                        .zip(batch.columns())
                        .map(|(f, c)| (f.name().clone(), value(c.as_ref(), i)))
                        .collect(),
                );
            }
        }
    }
    rows
}

fn key(row: &BTreeMap<String, Value>) -> String {
    ["crawl", "site", "agent"]
        .map(|c| row[c].as_str().unwrap_or_default().to_owned())
        .join("|")
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py; expect.py with jwm-robotstxt, Google's parser): make test"
)]
fn sites_match_independent_expectations_under_every_option() {
    let out = census("sites-options");
    let url_of: HashMap<String, String> = rows(&out.join("documents"))
        .iter()
        .map(|r| {
            (
                r["doc_id"].as_str().expect("doc_id").to_owned(),
                r["url"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = corpus().expected["sites"].as_object().expect("sites");
    assert_eq!(
        expected.len(),
        12,
        "3 site keys x 2 semantics x with/without ranks"
    );
    let ranks = corpus().dir.join("ranks.csv");
    for (combo, want) in expected {
        let parts: Vec<&str> = combo.split('|').collect();
        let mut args = vec![
            "--quiet",
            "--site-key",
            parts[0],
            "--status-semantics",
            parts[1],
        ];
        if parts[2] == "ranks" {
            args.extend(["--ranks", ranks.to_str().expect("UTF-8 path")]);
        }
        sites_ok(&out, &args);
        let have: BTreeMap<String, BTreeMap<String, Value>> = rows(&out.join("sites"))
            .into_iter()
            .map(|r| (key(&r), r))
            .collect();
        let want: BTreeMap<String, &serde_json::Map<String, Value>> = want
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                let r = r.as_object().expect("row");
                let k = ["crawl", "site", "agent"]
                    .map(|c| r[c].as_str().unwrap_or_default().to_owned())
                    .join("|");
                (k, r)
            })
            .collect();
        assert_eq!(
            have.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{combo}: (crawl, site, agent) rows"
        );
        for (k, w) in &want {
            let h = &have[k];
            for (column, value) in w.iter() {
                assert_eq!(&h[column], value, "{combo}: {k}: column {column}");
            }
            // doc_id, which Python cannot know, is the capture with that URL.
            match h["doc_id"].as_str() {
                Some(id) => assert_eq!(
                    Some(&url_of[id]),
                    h["url"].as_str().map(str::to_owned).as_ref(),
                    "{combo}: {k}"
                ),
                None => assert_eq!(h["status_class"], "No robots.txt capture", "{combo}: {k}"),
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, and expect.py with jwm-robotstxt, which build the corpus): make test"
)]
fn documents_carry_the_columns_the_sites_step_reads() {
    let out = census("sites-documents");
    let have = rows(&out.join("documents"));
    let want = corpus().expected["documents"]
        .as_array()
        .expect("documents");
    assert_eq!(have.len(), want.len(), "one documents row per capture");
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    // A URL repeats within a crawl only for refetches, which agree on these columns.
    let by_url: BTreeMap<(String, String), &BTreeMap<String, Value>> = have
        .iter()
        .map(|r| ((text(&r["url"]), text(&r["crawl"])), r))
        .collect();
    for w in want {
        let k = (text(&w["url"]), text(&w["crawl"]));
        let h = by_url
            .get(&k)
            .unwrap_or_else(|| panic!("no documents row for {k:?}"));
        for column in [
            "crawl",
            "location",
            "registrable_domain",
            "is_robots_url",
            "url_key",
            "location_key",
            "host_name",
        ] {
            assert_eq!(h[column], w[column], "{k:?}: {column}");
        }
    }
    // Refetches of a URL may differ in their types: robots_mime is compared per
    // capture, as counts of (url, crawl, robots_mime).
    let tally = |rows: Vec<(&Value, &Value, &Value)>| {
        let mut counts: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for (url, crawl, mime) in rows {
            *counts
                .entry((text(url), text(crawl), mime.to_string()))
                .or_default() += 1;
        }
        counts
    };
    assert_eq!(
        tally(
            have.iter()
                .map(|r| (&r["url"], &r["crawl"], &r["robots_mime"]))
                .collect()
        ),
        tally(
            want.iter()
                .map(|w| (&w["url"], &w["crawl"], &w["robots_mime"]))
                .collect()
        ),
        "robots_mime per capture"
    );
    assert!(
        have.iter().any(|r| r["robots_mime"] == false),
        "the corpus has captures the MIME filter rejects"
    );
    // The relative Location was resolved against the capture's URL.
    assert!(have
        .iter()
        .any(|r| r["location"] == "http://chain1.example.net/robots-v2.txt"));
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, and expect.py with jwm-robotstxt, which build the corpus): make test"
)]
fn sites_output_is_deterministic_and_replaces_the_old_table() {
    let out = census("sites-determinism");
    let ranks = corpus().dir.join("ranks.csv");
    let ranks = ranks.to_str().expect("UTF-8 path");
    sites_ok(
        &out,
        &["-q", "--ranks", ranks, "--status-semantics", "ccbot"],
    );
    let first = sites_parts(&out);
    assert_eq!(first.len(), 3, "one part per crawl");
    assert!(
        first[0]
            .0
            .ends_with("sites/crawl=CC-MAIN-2023-50/part-0.parquet"),
        "{:?}",
        first[0].0
    );
    sites_ok(
        &out,
        &["-q", "--ranks", ranks, "--status-semantics", "ccbot"],
    );
    assert_eq!(
        first,
        sites_parts(&out),
        "same tables and options, same bytes"
    );
    // The dataset named by a relative path, as users type it: same bytes (the agents part
    // beside each documents part was once looked up under the path as given, which never
    // matched the catalog's canonical paths, and the step failed with "no agents table").
    let relative = bin()
        .current_dir(out.parent().expect("out has a parent"))
        .args(["sites", "out", "-q", "--ranks", ranks])
        .args(["--status-semantics", "ccbot"])
        .output()
        .expect("run robots-census sites");
    assert_eq!(
        relative.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&relative.stderr)
    );
    assert_eq!(
        first,
        sites_parts(&out),
        "a relative OUT gives the same bytes"
    );
    // The ranks list is in the dataset, sorted by rank.
    let stored = rows(&out.join("ranks"));
    assert_eq!(stored.len(), 31);
    assert_eq!(
        (stored[0]["rank"].as_i64(), stored[0]["host"].as_str()),
        (Some(1), Some("changing.example.com"))
    );
    // With the site keys' inputs a SQL step keys ranked hosts by.
    assert_eq!(
        (
            stored[0]["host_name"].as_str(),
            stored[0]["registrable_domain"].as_str()
        ),
        (Some("changing.example.com"), Some("example.com"))
    );
    assert!(stored.iter().all(|r| r["host_name"] == r["host"]));
    // Each column is written with the dictionary and statistics its Layout names.
    for (table, dir) in [
        (robots_census::internals::Table::Sites, "sites"),
        (robots_census::internals::Table::Ranks, "ranks"),
    ] {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        for part in files_with_extension(&out.join(dir), "parquet") {
            let reader = SerializedFileReader::new(std::fs::File::open(&part).expect("open"))
                .expect("parquet footer");
            for group in reader.metadata().row_groups() {
                assert_eq!(group.num_columns(), table.columns().len());
                for (chunk, column) in group.columns().iter().zip(table.columns()) {
                    let dictionary = chunk
                        .encodings()
                        .any(|e| e == parquet::basic::Encoding::RLE_DICTIONARY);
                    assert_eq!(
                        dictionary,
                        column.layout.dictionary(),
                        "{dir}.{}",
                        column.name
                    );
                    assert_eq!(
                        chunk.statistics().is_some(),
                        column.layout.statistics(),
                        "{dir}.{}",
                        column.name
                    );
                }
            }
        }
    }
    // A new run replaces every partition: no rows of the old options remain.
    sites_ok(&out, &["-q", "--site-key", "registrable-domain"]);
    let now = rows(&out.join("sites"));
    assert!(now
        .iter()
        .all(|r| r["site_key"] == "registrable-domain" && r["rank"].is_null()));
    assert!(!out
        .read_dir()
        .expect("out")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with(".sites")));
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, and expect.py with jwm-robotstxt, which build the corpus): make test"
)]
fn sites_spilled_to_buckets_write_the_same_bytes() {
    // A --memory-limit of a few captures spills each crawl to many buckets; the corpus's
    // redirect chains cross them (to www., 5 and 6 hops), and the table must not change
    // by a byte.
    let out = census("sites-buckets");
    let ranks = corpus().dir.join("ranks.csv");
    let ranks = ranks.to_str().expect("UTF-8 path");
    for key in ["host", "host-nowww", "registrable-domain"] {
        let args = ["--ranks", ranks, "--site-key", key];
        sites_ok(&out, &[&args[..], &["-q"]].concat());
        let whole = sites_parts(&out);
        assert_eq!(whole.len(), 3, "{key}: one part per crawl");
        for (limit, least) in [("2KiB", 3), ("16KiB", 2)] {
            let output = sites(&out, &[&args[..], &["--memory-limit", limit]].concat());
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{key} {limit}: {stderr}");
            let buckets: Vec<usize> = stderr
                .lines()
                .filter_map(|l| {
                    l.split(" buckets (--memory-limit)")
                        .next()
                        .filter(|head| head.len() < l.len())?
                        .rsplit(' ')
                        .next()?
                        .parse()
                        .ok()
                })
                .collect();
            assert_eq!(
                buckets.len(),
                3,
                "{key} {limit}: buckets per crawl in {stderr}"
            );
            assert!(
                buckets.iter().all(|&n| n >= least),
                "{key} {limit}: {buckets:?}"
            );
            assert!(
                whole == sites_parts(&out),
                "{key} {limit}: the same bytes as in memory"
            );
        }
    }
    let output = sites(&out, &["--memory-limit", "lots"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--memory-limit") && stderr.contains("\"lots\""),
        "{stderr}"
    );
}

#[test]
fn csv_redirects_are_followed_through_the_location_column() {
    // a.example's robots.txt moved to another site's; c.example's to a relative URL.
    let dir = scratch("sites-csv-location");
    let csv = dir.join("CC-MAIN-2026-09.csv");
    std::fs::write(
        &csv,
        "url,status,location,body\n\
         http://a.example/robots.txt,301,https://b.example/robots.txt,\n\
         https://b.example/robots.txt,200,,\"User-agent: *\nDisallow: /\"\n\
         http://c.example/robots.txt,302,/moved.txt,\n\
         http://c.example/moved.txt,200,,\"User-agent: GPTBot\nDisallow: /\"\n",
    )
    .expect("write CSV");
    let by_site = |out: &Path| -> BTreeMap<String, (String, String, i64, String)> {
        rows(&out.join("sites"))
            .into_iter()
            .map(|r| {
                let text = |c: &str| r[c].as_str().unwrap_or("").to_owned();
                let hops = r["redirect_hops"].as_i64().expect("hops");
                (
                    text("site"),
                    (text("start_url"), text("url"), hops, text("status_class")),
                )
            })
            .collect()
    };
    let run_and_decide = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let output = bin()
            .arg("run")
            .arg(&csv)
            .args(["--quiet", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .expect("run robots-census");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        sites_ok(&out, &["-q", "--agents", "GPTBot"]);
        out
    };
    let out = run_and_decide("with", &[]);
    let moved = rows(&out.join("documents"))
        .into_iter()
        .filter(|r| r["http_status"].as_i64().is_some_and(|s| s / 100 == 3))
        .map(|r| r["location"].as_str().unwrap_or("").to_owned())
        .collect::<std::collections::BTreeSet<_>>();
    let want = ["http://c.example/moved.txt", "https://b.example/robots.txt"];
    assert_eq!(moved, want.iter().map(|s| s.to_string()).collect());
    let rules = "Robots.txt with rules".to_owned();
    let row = |start: &str, url: &str, hops| (start.into(), url.into(), hops, rules.clone());
    let decided = by_site(&out);
    assert_eq!(
        decided["a.example"],
        row(
            "http://a.example/robots.txt",
            "https://b.example/robots.txt",
            1
        )
    );
    assert_eq!(
        decided["b.example"],
        row(
            "https://b.example/robots.txt",
            "https://b.example/robots.txt",
            0
        )
    );
    assert_eq!(
        decided["c.example"],
        row(
            "http://c.example/robots.txt",
            "http://c.example/moved.txt",
            1
        )
    );
    // Spilled to buckets (a.example's bucket looks up b.example's capture it redirects to):
    // the same bytes.
    let whole = sites_parts(&out);
    sites_ok(
        &out,
        &["-q", "--agents", "GPTBot", "--memory-limit", "1KiB"],
    );
    assert!(
        whole == sites_parts(&out),
        "the same bytes spilled to buckets"
    );
    // Without the column (another name asked for), the redirects have nowhere to go.
    let out = run_and_decide("without", &["--csv-location-column", "moved_to"]);
    let decided = by_site(&out);
    assert_eq!(decided["a.example"].3, "HTTP redirect not resolved");
    assert_eq!(decided["a.example"].2, 0);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, and expect.py with jwm-robotstxt, which build the corpus): make test"
)]
fn sites_agents_option_and_usage_errors() {
    let out = census("sites-usage");
    sites_ok(&out, &["-q", "--agents", "GPTBot"]);
    let only = rows(&out.join("sites"));
    assert!(!only.is_empty() && only.iter().all(|r| r["agent"] == "GPTBot"));

    let unknown = sites(&out, &["--agents", "NoSuchBot"]);
    assert_eq!(unknown.status.code(), Some(2));
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        message.contains("\"NoSuchBot\" is not in the agents table"),
        "{message}"
    );

    let missing = sites(&out.join("nothing-here"), &[]);
    assert_eq!(missing.status.code(), Some(2));
    let why = String::from_utf8_lossy(&missing.stderr);
    assert!(
        why.contains("is not a robots-census dataset") && why.contains("robots-census run"),
        "{why}"
    );

    // Bad lines of a ranks file are named and skipped; the step finishes with exit 1.
    let bad = out.parent().expect("dir").join("bad-ranks.csv");
    std::fs::write(&bad, "1,changing.example.com\nnot a line\n3,\n").expect("write ranks");
    let skipped = sites(&out, &["-q", "--ranks", bad.to_str().expect("UTF-8")]);
    assert_eq!(skipped.status.code(), Some(1));
    let message = String::from_utf8_lossy(&skipped.stderr);
    assert!(
        message.contains("bad-ranks.csv:2: not a rank,host line"),
        "{message}"
    );
    assert!(message.contains("bad-ranks.csv:3:"), "{message}");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reference (Common Crawl's published status counts) and the venv (tests/sites/make_corpus.py, jwm-robotstxt, DuckDB): make test"
)]
fn queries_reproduce_the_published_shapes() {
    let out = census("sites-queries");
    let dir = out.parent().expect("dir").to_owned();
    let ranks = corpus().dir.join("ranks.csv");
    let ranks = ranks.to_str().expect("UTF-8 path");
    let expected = &corpus().expected["queries"];
    // Common Crawl's table and its user-agents table: ranks, host, ccbot.
    sites_ok(
        &out,
        &["-q", "--ranks", ranks, "--status-semantics", "ccbot"],
    );
    let mut results = run_queries(&dir, &["cc_status_classes", "agents_named_by_year"]);
    // The Somesite shape: ranks and the default options.
    sites_ok(&out, &["-q", "--ranks", ranks]);
    results.extend(run_queries(&dir, &["agent_restrictions_by_crawl"]));
    assert_eq!(
        results.keys().map(String::as_str).collect::<Vec<_>>(),
        SITES_QUERIES.to_vec()
    );
    for name in SITES_QUERIES {
        let (have, want) = (&results[name], &expected[name]);
        assert_eq!(have["columns"], want["columns"], "{name}: columns");
        let (have, want) = (
            have["rows"].as_array().expect("rows"),
            want["rows"].as_array().expect("rows"),
        );
        assert!(!want.is_empty(), "{name}: the expectation has rows");
        for (i, (h, w)) in have.iter().zip(want).enumerate() {
            assert_eq!(h, w, "{name}: row {i}");
        }
        assert_eq!(have.len(), want.len(), "{name}: rows");
    }
    // The first columns are exactly those of Common Crawl's published file.
    let reference = std::fs::read_to_string(
        crate::support::shared()
            .join("reference/robotstxt-experiments__robotstxt-status-counts-topk.csv"),
    )
    .expect("reference CSV");
    let header: Vec<Value> = reference
        .lines()
        .next()
        .expect("header")
        .split(',')
        .map(Value::from)
        .collect();
    assert_eq!(
        results["cc_status_classes"]["columns"]
            .as_array()
            .expect("columns"),
        &header
    );
}

/// The agents table's readings (`probe_class`, `cc_class`, root verdict) on every real
/// body of ../shared/corpus/robots with at most 150 rules, against robots.cc
/// (tests/sites/corpus_classes.py). The oracle probes the values robots.cc's parse
/// callbacks report (escaped), as robots-census probes the escaped patterns, so root and
/// probe class are compared on every body; the exact rule-set class only where escaping
/// changed no value (Common Crawl compares the values as written).
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (real robots.txt bodies) and the venv (jwm-robotstxt, Google's parser, in tests/sites/corpus_classes.py): make test"
)]
fn agent_classes_agree_with_robots_cc_on_the_corpus() {
    let out = scratch("sites-corpus-classes").join("classes.jsonl");
    let made = Command::new(python())
        .arg(repo().join("tests/sites/corpus_classes.py"))
        .arg(crate::support::shared())
        .arg(&out)
        .output()
        .expect("run corpus_classes.py");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (mut bodies, mut compared, mut mismatches) = (0, 0, Vec::new());
    for line in std::fs::read_to_string(&out)
        .expect("oracle output")
        .lines()
    {
        let record: Value = serde_json::from_str(line).expect("JSON line");
        let file = record["file"].as_str().expect("file");
        let body = std::fs::read(crate::support::shared().join("corpus/robots").join(file))
            .expect("corpus body");
        let doc = robots_census_engine::RobotsTxt::parse(&body);
        let values: Vec<&str> = record["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_str().expect("value"))
            .collect();
        let as_written = doc.rules.len() == values.len()
            && doc
                .rules
                .iter()
                .zip(&values)
                .all(|(r, v)| r.value == v.as_bytes());
        let probes = doc.probes();
        bodies += 1;
        compared += usize::from(as_written);
        let root = record["root"].as_str().expect("root").as_bytes();
        for (i, agent) in record["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .enumerate()
        {
            let agent = agent.as_str().expect("agent");
            let (got_root, probe) = doc.probe_class(agent.as_bytes(), &probes);
            let cc = doc.rule_set_class(agent.as_bytes());
            let mut got = vec![
                ("root", got_root.to_string(), (root[i] == b'1').to_string()),
                (
                    "probe",
                    probe.as_str().into(),
                    record["probe"][i].as_str().unwrap_or_default().into(),
                ),
            ];
            if as_written {
                got.push((
                    "cc",
                    cc.as_str().into(),
                    record["cc"][i].as_str().unwrap_or_default().into(),
                ));
            }
            for (what, have, want) in got {
                if have != want {
                    mismatches.push(format!(
                        "{file}: {agent}: {what}: robots-census {have}, robots.cc {want}"
                    ));
                }
            }
        }
    }
    assert!(bodies > 6000, "{bodies} bodies");
    assert!(compared > 6000, "{compared} bodies compared in full");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
}

/// `robots-census query OUT FILE --format json`: its rows, one JSON object a line.
pub(crate) fn query_rows(out: &Path, args: &[&str]) -> Vec<Value> {
    let output = bin()
        .arg("query")
        .arg(out)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run robots-census query");
    assert_eq!(
        output.status.code(),
        Some(0),
        "query {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object"))
        .collect()
}

/// tests/reference/sites.sql, an independent reference of the sites step's rules in
/// SQL, gives the step's rows on the Python-generated corpus (3 crawls, ranks) under
/// every site key and status semantics and an --agents subset: in the embedded engine
/// (`robots-census query`) and in DuckDB, after the same one-row `sites_options` view.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (tests/sites/make_corpus.py, expect.py with jwm-robotstxt, DuckDB): make test"
)]
fn the_sql_reference_gives_the_sites_rows() {
    let out = census("sites-sql-step");
    let step = std::fs::read_to_string(repo().join("tests/reference/sites.sql"))
        .expect("tests/reference/sites.sql");
    let ranks = corpus().dir.join("ranks.csv");
    let ranks = ranks.to_str().expect("UTF-8 path");
    let file = out.parent().expect("out has a parent").join("step.sql");
    let mut combos: Vec<(&str, &str, bool, Option<&str>)> = Vec::new();
    for key in ["host", "host-nowww", "registrable-domain"] {
        for semantics in [
            "rfc9309",
            "google",
            "ccbot",
            "yandex",
            "urllib",
            "robots-parser",
        ] {
            // The first combination writes the ranks table the later ones may ignore.
            combos.push((key, semantics, combos.len() % 2 == 0, None));
        }
    }
    combos.push(("host", "ccbot", true, Some("CCBot,GPTBot")));
    let mut ranked_rows = 0;
    let steps = out.parent().expect("out has a parent").join("steps");
    std::fs::create_dir_all(&steps).expect("mkdir steps");
    let (mut files, mut wants) = (Vec::new(), Vec::new());
    for (n, &(key, semantics, with_ranks, agents)) in combos.iter().enumerate() {
        let mut args = vec![
            "--quiet",
            "--site-key",
            key,
            "--status-semantics",
            semantics,
        ];
        if with_ranks {
            args.extend(["--ranks", ranks]);
        }
        if let Some(agents) = agents {
            args.extend(["--agents", agents]);
        }
        sites_ok(&out, &args);
        let want = query_rows(
            &out,
            &["-e", "SELECT * FROM sites ORDER BY crawl, site, agent"],
        );
        let options = format!(
            "CREATE OR REPLACE VIEW sites_options AS SELECT '{key}' AS site_key, \
             '{semantics}' AS status_semantics, {} AS agents, {with_ranks} AS with_ranks;\n",
            agents.map_or("CAST(NULL AS STRING)".to_owned(), |a| format!("'{a}'"))
        );
        std::fs::write(&file, options.clone() + &step).expect("write step.sql");
        let have = query_rows(&out, &[file.to_str().expect("UTF-8 path")]);
        // Kept for DuckDB, which runs every file at the end.
        let kept = steps.join(format!("step{n}.sql"));
        std::fs::write(&kept, options + &step).expect("write a step file");
        files.push(kept);
        let combo = format!("{key}|{semantics}|ranks={with_ranks}|agents={agents:?}");
        assert!(!want.is_empty(), "{combo}: the Rust step wrote rows");
        assert_eq!(have.len(), want.len(), "{combo}: rows");
        for (i, (h, w)) in have.iter().zip(&want).enumerate() {
            assert_eq!(h, w, "{combo}: row {i}");
        }
        ranked_rows += want.iter().filter(|r| !r["rank"].is_null()).count();
        wants.push((combo, want));
    }
    assert!(ranked_rows > 0, "some combinations had ranked sites");
    // DuckDB (through the dataset's _views.sql), running every file in one session,
    // against the step's rows.
    for (engine, results) in [("DuckDB", crate::support::duckdb_results(&out, &files))] {
        assert_eq!(results.len(), files.len(), "{engine}: every file ran");
        for (n, (combo, want)) in wants.iter().enumerate() {
            // The Rust step's table, as the embedded engine read it back.
            let want: Vec<serde_json::Map<String, Value>> = want
                .iter()
                .map(|row| row.as_object().expect("a JSON object").clone())
                .collect();
            crate::support::same_rows(combo, engine, &results[&format!("step{n}")], &want);
        }
    }
}
