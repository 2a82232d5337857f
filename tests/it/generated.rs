//! The `sites` and `changes` steps on crawls generated here, in Rust (no `../shared`,
//! no venv): each compared row by row, column types included, with the independent
//! reference of its rules (tests/reference/*.sql, run by the embedded engine through
//! `robots-census query`), and with itself spilled to many buckets (the same bytes).
//!
//! The crawls have what the rules turn on: ties in fetch time, CSV captures without
//! fetch times (and with status cells that do not parse), redirect chains and loops
//! across hosts and registrable domains, http and https, ports, `www.` hosts,
//! subdomains under a public suffix, an IP address, every HTTP status class and codes
//! outside them, HTML served with 200. A failing case is shrunk by proptest and printed
//! as the list of captures that shows it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use proptest::prelude::*;

use crate::support::{bin, read_table_file, repo};

/// Hosts of the generated crawls: `www.` pairs, a shared registrable domain under a
/// public suffix, a bare public suffix's `www.`, an IP address.
const HOSTS: [&str; 9] = [
    "a.example",
    "www.a.example",
    "b.example",
    "shop.example.co.uk",
    "www.shop.example.co.uk",
    "blog.example.co.uk",
    "www.co.uk",
    "co.uk",
    "10.0.0.1",
];

const PATHS: [&str; 3] = ["/robots.txt", "/robots.txt", "/moved/robots.txt"];

/// Statuses: successes, redirects, every 4xx and 5xx meaning, codes outside them.
const STATUSES: [u16; 18] = [
    200, 200, 200, 204, 301, 302, 307, 400, 401, 403, 404, 410, 429, 500, 503, 0, 150, 999,
];

const AGENTS: &str = "GPTBot,CCBot,ClaudeBot";

/// Robots.txt bodies: blocks of one agent, of every agent, partial, none, empty, HTML.
const BODIES: [&str; 6] = [
    "User-agent: GPTBot\nDisallow: /\n",
    "User-agent: *\nDisallow: /\n",
    "User-agent: *\nDisallow: /private\nUser-agent: CCBot\nAllow: /\n",
    "User-agent: *\nAllow: /\nSitemap: https://a.example/sitemap.xml\n",
    "",
    "<html><body>Not found</body></html>",
];

/// One generated capture.
#[derive(Debug, Clone)]
pub struct Cap {
    /// Which crawl (0 or 1) and, within it, which of two input files.
    crawl: u8,
    file: u8,
    host: u8,
    https: bool,
    port: bool,
    path: u8,
    /// `None`: a CSV row, without a fetch time.
    day: Option<u8>,
    /// An index into [`STATUSES`]; `None` in a CSV row: no status cell, or (with
    /// `bad_status`) one that does not parse.
    status: Option<u8>,
    bad_status: bool,
    /// For a 3xx: the capture whose URL the `Location` names (an index modulo the
    /// crawl's captures), or a URL never captured.
    location: Option<u16>,
    body: u8,
}

impl Cap {
    fn url(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        let port = if self.port { ":8080" } else { "" };
        format!(
            "{scheme}://{}{port}{}",
            HOSTS[self.host as usize % HOSTS.len()],
            PATHS[self.path as usize % PATHS.len()]
        )
    }

    fn status(&self) -> Option<u16> {
        self.status.map(|s| STATUSES[s as usize % STATUSES.len()])
    }

    fn body(&self) -> &'static str {
        BODIES[self.body as usize % BODIES.len()]
    }
}

fn cap() -> impl Strategy<Value = Cap> {
    (
        (
            0u8..2,
            0u8..2,
            0u8..HOSTS.len() as u8,
            any::<bool>(),
            prop::bool::weighted(0.15),
        ),
        (0u8..PATHS.len() as u8, prop::option::weighted(0.85, 0u8..4)),
        (
            prop::option::weighted(0.9, 0u8..STATUSES.len() as u8),
            prop::bool::weighted(0.3),
        ),
        (
            prop::option::weighted(0.8, 0u16..64),
            0u8..BODIES.len() as u8,
        ),
    )
        .prop_map(
            |(
                (crawl, file, host, https, port),
                (path, day),
                (status, bad_status),
                (location, body),
            )| Cap {
                crawl,
                file,
                host,
                https,
                port,
                path,
                day,
                // A WARC record always has a status line.
                status: status.or(day.map(|_| 0)),
                bad_status,
                location,
                body,
            },
        )
}

/// The crawl's name.
fn crawl_name(crawl: u8) -> &'static str {
    ["CC-MAIN-2026-01", "CC-MAIN-2026-05"][crawl as usize % 2]
}

/// Writes the captures as inputs under `dir`: per crawl and file, a WARC file of the
/// captures with a fetch time and a CSV file of those without; returns the input dir.
fn write_inputs(caps: &[Cap], dir: &Path) -> PathBuf {
    let inputs = dir.join("inputs");
    let mut warcs: BTreeMap<(u8, u8), Vec<u8>> = BTreeMap::new();
    let mut csvs: BTreeMap<(u8, u8), csv::Writer<Vec<u8>>> = BTreeMap::new();
    for (i, c) in caps.iter().enumerate() {
        let same: Vec<&Cap> = caps.iter().filter(|o| o.crawl == c.crawl).collect();
        let status = c.status();
        let location = match (status, c.location) {
            (Some(300..=399), Some(target)) => Some(match same.get(target as usize % 20) {
                Some(t) if (target as usize) < 40 => t.url(),
                _ => format!("https://nowhere{target}.example/robots.txt"),
            }),
            _ => None,
        };
        match c.day {
            Some(day) => {
                let warc = warcs.entry((c.crawl, c.file)).or_insert_with(|| {
                    let info = format!("isPartOf: {}\r\n", crawl_name(c.crawl));
                    record(
                        "warcinfo",
                        None,
                        "application/warc-fields",
                        info.as_bytes(),
                        "",
                        i,
                    )
                });
                let mut block = format!("HTTP/1.1 {} X\r\n", status.unwrap_or(200));
                let html = c.body().starts_with("<html>");
                let mime = if html { "text/html" } else { "text/plain" };
                let _ = write!(block, "Content-Type: {mime}\r\n");
                if let Some(location) = &location {
                    let _ = write!(block, "Location: {location}\r\n");
                }
                let _ = write!(
                    block,
                    "Content-Length: {}\r\n\r\n{}",
                    c.body().len(),
                    c.body()
                );
                let date = format!("2026-01-0{}T00:00:00Z", 1 + day % 4);
                warc.extend(record(
                    "response",
                    Some(&c.url()),
                    "application/http; msgtype=response",
                    block.as_bytes(),
                    &date,
                    i,
                ));
            }
            None => {
                let csv = csvs.entry((c.crawl, c.file)).or_insert_with(|| {
                    let mut w = csv::Writer::from_writer(Vec::new());
                    w.write_record(["url", "status", "location", "body"])
                        .expect("a CSV header");
                    w
                });
                let status = match (status, c.bad_status) {
                    (_, true) => "abc".to_owned(),
                    (Some(s), false) => s.to_string(),
                    (None, false) => String::new(),
                };
                csv.write_record([&c.url(), &status, &location.unwrap_or_default(), c.body()])
                    .expect("a CSV row");
            }
        }
    }
    for ((crawl, file), bytes) in warcs {
        let path = inputs
            .join(crawl_name(crawl))
            .join(format!("part-{file}.warc"));
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("made");
        std::fs::write(path, bytes).expect("written");
    }
    for ((crawl, file), csv) in csvs {
        let path = inputs
            .join(crawl_name(crawl))
            .join(format!("dump-{file}.csv"));
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("made");
        std::fs::write(path, csv.into_inner().expect("CSV bytes")).expect("written");
    }
    inputs
}

/// One uncompressed WARC record.
fn record(
    kind: &str,
    uri: Option<&str>,
    content_type: &str,
    block: &[u8],
    date: &str,
    n: usize,
) -> Vec<u8> {
    let mut head = format!("WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012}>\r\n");
    if !date.is_empty() {
        let _ = write!(head, "WARC-Date: {date}\r\n");
    }
    if let Some(uri) = uri {
        let _ = write!(head, "WARC-Target-URI: {uri}\r\n");
    }
    let _ = write!(
        head,
        "Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    );
    let mut out = head.into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// Runs the binary; its stderr when it does not exit 0 or 1.
fn ok(args: &[&str]) -> Result<(), String> {
    let output = bin().args(args).output().expect("robots-census runs");
    match output.status.code() {
        Some(0 | 1) => Ok(()),
        code => Err(format!(
            "robots-census {args:?} exited {code:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

/// `run` over the inputs of `caps` into `<dir>/out`.
fn census(caps: &[Cap], dir: &Path) -> Result<PathBuf, String> {
    let inputs = write_inputs(caps, dir);
    let out = dir.join("out");
    let (inputs, out_s) = (path(&inputs), path(&out));
    ok(&[
        "run",
        &inputs,
        "--out",
        &out_s,
        "--agents",
        AGENTS,
        "--inputs-per-task",
        "1",
        "--quiet",
    ])?;
    Ok(out)
}

fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_owned()
}

/// The columns of a table's batches, with their types, as one list of rows.
fn rows_of(batches: &[RecordBatch]) -> (Vec<(String, DataType)>, Vec<Vec<String>>) {
    use arrow_cast::display::{ArrayFormatter, FormatOptions};
    let Some(first) = batches.first() else {
        return (Vec::new(), Vec::new());
    };
    let columns = first
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), logical(f.data_type())))
        .collect();
    let mut rows = Vec::new();
    for batch in batches {
        let options = FormatOptions::default().with_null("NULL");
        let formatters: Vec<ArrayFormatter<'_>> = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).expect("a formatter"))
            .collect();
        for i in 0..batch.num_rows() {
            rows.push(formatters.iter().map(|f| f.value(i).to_string()).collect());
        }
    }
    (columns, rows)
}

/// A type as the tables mean it: a string is a string whatever its Arrow layout (the
/// engine reads and writes views); every other type must match exactly.
fn logical(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::Dictionary(_, v) => logical(v),
        other => other.clone(),
    }
}

/// Every `*.parquet` under `dir`, in path order.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            found.extend(walk(&p));
        } else {
            found.push(p);
        }
    }
    found
}

/// The reference `file` (tests/reference/) with `options` (a view it reads) run by the
/// embedded engine over `out`: its rows, written as Parquet and read back.
fn reference(out: &Path, file: &str, options: &str) -> Result<Vec<RecordBatch>, String> {
    let sql = options.to_owned()
        + &std::fs::read_to_string(repo().join("tests/reference").join(file))
            .expect("the reference");
    let dir = out.parent().expect("a parent");
    let script = dir.join(format!("{file}.run.sql"));
    std::fs::write(&script, sql).expect("written");
    let result = dir.join(format!("{file}.parquet"));
    ok(&[
        "query",
        &path(out),
        &path(&script),
        "--format",
        "parquet",
        "-o",
        &path(&result),
    ])?;
    Ok(read_table_file(&result))
}

/// The step's table (all its files, in path order) against the reference's rows.
fn same(step: &[RecordBatch], want: &[RecordBatch], what: &str) -> Result<(), String> {
    let (have_columns, have) = rows_of(step);
    let (want_columns, want) = rows_of(want);
    if have.is_empty() && want.is_empty() {
        return Ok(());
    }
    if have_columns != want_columns {
        return Err(format!(
            "{what}: columns differ:\n step      {have_columns:?}\n reference {want_columns:?}"
        ));
    }
    if have.len() != want.len() {
        return Err(format!(
            "{what}: {} rows from the step, {} from the reference",
            have.len(),
            want.len()
        ));
    }
    for (i, (h, w)) in have.iter().zip(&want).enumerate() {
        if h != w {
            let cells: Vec<String> = have_columns
                .iter()
                .zip(h.iter().zip(w))
                .filter(|(_, (a, b))| a != b)
                .map(|((name, _), (a, b))| format!("{name}: step {a:?}, reference {b:?}"))
                .collect();
            return Err(format!(
                "{what}: row {i} differs ({}):\n step      {h:?}\n reference {w:?}",
                cells.join("; ")
            ));
        }
    }
    Ok(())
}

/// One generated case of the sites step under (`key`, `semantics`): against the
/// reference, and spilled to many buckets against itself.
fn sites_case(caps: &[Cap], key: &str, semantics: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = census(caps, dir.path())?;
    let out_s = path(&out);
    let Ok(true) = std::fs::exists(out.join("documents")) else {
        return Ok(());
    };
    // Some hosts ranked (one never captured, some not ranked): the ranked sites with
    // and without captures, and their strata.
    let ranks = dir.path().join("ranks.csv");
    std::fs::write(
        &ranks,
        "1,b.example\n2,never.example\n3,www.shop.example.co.uk\n4,a.example\n5,co.uk\n",
    )
    .map_err(|e| e.to_string())?;
    let ranks = path(&ranks);
    let options = [
        "--site-key",
        key,
        "--status-semantics",
        semantics,
        "--ranks",
        &ranks,
        "--quiet",
    ];
    ok(&[&["sites", &out_s][..], &options].concat())?;
    let files = parquet_files(&out.join("sites"));
    let step: Vec<RecordBatch> = files.iter().flat_map(|f| read_table_file(f)).collect();
    let view = format!(
        "CREATE OR REPLACE VIEW sites_options AS SELECT '{key}' AS site_key, '{semantics}' AS status_semantics, \
         CAST(NULL AS STRING) AS agents, true AS with_ranks;\n"
    );
    let want = reference(&out, "sites.sql", &view)?;
    same(
        &step,
        &want,
        &format!("sites --site-key {key} --status-semantics {semantics}"),
    )?;
    // Spilled to as many buckets as the crawl allows: the same files, byte for byte.
    let bytes: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect();
    ok(&[&["sites", &out_s, "--memory-limit", "8KiB"][..], &options].concat())?;
    for (file, before) in files.iter().zip(&bytes) {
        if std::fs::read(file).map_err(|e| e.to_string())? != *before {
            return Err(format!(
                "{}: other bytes when spilled to buckets",
                file.display()
            ));
        }
    }
    // The changes of the two crawls, when both have sites.
    let crawls: Vec<&str> = [0u8, 1].into_iter().map(crawl_name).collect();
    if crawls
        .iter()
        .all(|c| out.join("sites").join(format!("crawl={c}")).is_dir())
    {
        let from_to = ["--from", crawls[0], "--to", crawls[1], "--quiet"];
        ok(&[&["changes", &out_s][..], &from_to].concat())?;
        let written = parquet_files(&out.join("changes"));
        let step: Vec<RecordBatch> = written.iter().flat_map(|f| read_table_file(f)).collect();
        let view = format!(
            "CREATE OR REPLACE VIEW changes_options AS SELECT '{}' AS from_crawl, '{}' AS to_crawl;\n",
            crawls[0], crawls[1]
        );
        let want = reference(&out, "changes.sql", &view)?;
        same(&step, &want, "changes")?;
        let bytes: Vec<Vec<u8>> = written
            .iter()
            .map(|f| std::fs::read(f).expect("read"))
            .collect();
        ok(&[&["changes", &out_s, "--memory-limit", "8KiB"][..], &from_to].concat())?;
        for (file, before) in written.iter().zip(&bytes) {
            if std::fs::read(file).map_err(|e| e.to_string())? != *before {
                return Err(format!(
                    "{}: other bytes when spilled to buckets",
                    file.display()
                ));
            }
        }
    }
    Ok(())
}

const KEYS: [&str; 3] = ["host", "host-nowww", "registrable-domain"];
const SEMANTICS: [&str; 6] = [
    "rfc9309",
    "google",
    "ccbot",
    "yandex",
    "urllib",
    "robots-parser",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        max_shrink_iters: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The sites and changes steps on generated crawls: the reference's rows, and the
    /// same bytes however many buckets they spill to.
    #[test]
    fn generated_crawls_give_the_reference_rows(
        caps in prop::collection::vec(cap(), 1..60),
        key in 0usize..KEYS.len(),
        semantics in 0usize..SEMANTICS.len(),
    ) {
        if let Err(e) = sites_case(&caps, KEYS[key], SEMANTICS[semantics]) {
            prop_assert!(false, "{e}\nthe crawl ({} captures): {caps:#?}", caps.len());
        }
    }
}

/// What `agents.classification` says of a capture against the status class
/// `sites --status-semantics google` gives its site: the one meaning of a status to
/// Google, in both tables. `unknown` (a status that does not parse) decides nothing.
fn google_class_of(classification: &str) -> Option<&'static str> {
    match classification {
        "allowed" | "full_disallow" | "partial_disallow" => Some("Robots.txt with rules"),
        "no_robots" => Some("HTTP allow all"),
        "unreachable" => Some("HTTP defer visits"),
        "redirect" => Some("HTTP redirect not resolved"),
        _ => None,
    }
}

/// Every status from 0 to 999, none, and one that does not parse, each a host of its
/// own: `agents.classification` and the sites step under Google's semantics agree.
#[test]
fn agents_and_sites_read_every_status_as_google_does() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["url", "status", "body"]).expect("header");
    let mut statuses: Vec<String> = (0..1000).map(|s| s.to_string()).collect();
    statuses.extend([String::new(), "abc".to_owned()]);
    for (i, status) in statuses.iter().enumerate() {
        let url = format!("https://h{i}.example/robots.txt");
        csv.write_record([url.as_str(), status, "User-agent: *\nDisallow: /x\n"])
            .expect("row");
    }
    let input = dir.path().join("statuses.csv");
    std::fs::write(&input, csv.into_inner().expect("bytes")).expect("written");
    let out = dir.path().join("out");
    let (input, out_s) = (path(&input), path(&out));
    ok(&[
        "run", &input, "--out", &out_s, "--agents", "GPTBot", "--quiet",
    ])
    .expect("run");
    ok(&["sites", &out_s, "--status-semantics", "google", "--quiet"]).expect("sites");
    let agents: Vec<RecordBatch> = parquet_files(&out.join("agents"))
        .iter()
        .flat_map(|f| read_table_file(f))
        .collect();
    let documents: Vec<RecordBatch> = parquet_files(&out.join("documents"))
        .iter()
        .flat_map(|f| read_table_file(f))
        .collect();
    let sites: Vec<RecordBatch> = parquet_files(&out.join("sites"))
        .iter()
        .flat_map(|f| read_table_file(f))
        .collect();
    let host_of: BTreeMap<String, String> = crate::support::ids(&documents, "doc_id")
        .into_iter()
        .zip(crate::support::strings(&documents, "host"))
        .filter_map(|(id, host)| Some((id?, host?)))
        .collect();
    let classification: BTreeMap<String, String> = crate::support::ids(&agents, "doc_id")
        .into_iter()
        .zip(crate::support::strings(&agents, "classification"))
        .filter_map(|(id, class)| Some((host_of.get(&id?)?.clone(), class?)))
        .collect();
    let site_class: BTreeMap<String, String> = crate::support::strings(&sites, "site")
        .into_iter()
        .zip(crate::support::strings(&sites, "status_class"))
        .filter_map(|(site, class)| Some((site?, class?)))
        .collect();
    assert_eq!(classification.len(), statuses.len(), "a capture per status");
    let mut checked = 0;
    for (i, status) in statuses.iter().enumerate() {
        let host = format!("h{i}.example");
        let agents_says = classification
            .get(&host)
            .map(String::as_str)
            .unwrap_or("missing");
        let want = google_class_of(agents_says);
        let sites_says = site_class.get(&host).map(String::as_str);
        assert_eq!(
            sites_says, want,
            "status {status:?}: agents.classification {agents_says:?}, sites status_class {sites_says:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 1002);
    // Not vacuous: each meaning occurs.
    for class in [
        "partial_disallow",
        "no_robots",
        "unreachable",
        "redirect",
        "unknown",
    ] {
        assert!(
            classification.values().any(|c| c == class),
            "{class} never met"
        );
    }
}

/// A generated crawl of a few sites over two crawls, run into `<dir>/out`.
fn small_census(dir: &Path) -> PathBuf {
    let caps: Vec<Cap> = (0..24u8)
        .map(|i| Cap {
            crawl: i % 2,
            file: 0,
            host: i % 6,
            https: i % 3 == 0,
            port: false,
            path: 0,
            day: Some(i % 4),
            status: Some(i % 3),
            bad_status: false,
            location: None,
            body: i % 4,
        })
        .collect();
    census(&caps, dir).expect("run")
}

/// A step killed between writing its file whole and renaming it over the old one (the
/// `fault-injection` build aborts there) leaves the old table readable, byte for byte;
/// the next step collects the temporary it left.
#[cfg(feature = "fault-injection")]
#[test]
fn a_step_killed_before_its_rename_leaves_the_old_table() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = small_census(dir.path());
    let out_s = path(&out);
    ok(&["sites", &out_s, "--quiet"]).expect("sites");
    ok(&["changes", &out_s, "--consecutive", "--quiet"]).expect("changes");
    let before = crate::support::tree(&out.join("sites"));
    let changes_before = crate::support::tree(&out.join("changes"));
    for (table, args) in [
        (
            "sites",
            vec![
                "sites",
                &out_s,
                "--site-key",
                "registrable-domain",
                "--quiet",
            ],
        ),
        (
            "changes",
            vec!["changes", &out_s, "--consecutive", "--quiet"],
        ),
    ] {
        let killed = bin()
            .args(&args)
            .env("ROBOTS_CENSUS_ABORT_BEFORE_RENAME", table)
            .output()
            .expect("robots-census runs");
        assert_eq!(
            killed.status.code(),
            None,
            "{table}: killed by the abort, not exited"
        );
        let left: Vec<String> = walk(&out.join(table))
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert_eq!(
            left.len(),
            1,
            "{table}: the new file, whole, under its temporary name: {left:?}"
        );
    }
    assert_eq!(
        crate::support::tree(&out.join("sites"))
            .into_iter()
            .filter(|(k, _)| k.ends_with(".parquet"))
            .collect::<BTreeMap<_, _>>(),
        before,
        "the old sites table, untouched"
    );
    assert_eq!(
        crate::support::tree(&out.join("changes"))
            .into_iter()
            .filter(|(k, _)| k.ends_with(".parquet"))
            .collect::<BTreeMap<_, _>>(),
        changes_before,
        "the old changes table, untouched"
    );
    // Still readable as a table.
    ok(&["query", &out_s, "-e", "SELECT count(*) FROM sites"]).expect("the old table reads");
    // The next step removes what the killed one left.
    ok(&["sites", &out_s, "--quiet"]).expect("sites again");
    assert!(
        !walk(&out)
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".tmp")),
        "no temporary is left"
    );
}

/// A manifest that exists but cannot be parsed stops every reader of the dataset with
/// exit 2 and its name: never a census missing that task's rows.
#[test]
fn a_corrupt_manifest_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = small_census(dir.path());
    let out_s = path(&out);
    let manifest = walk(&out.join("_manifests"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a manifest");
    std::fs::write(&manifest, b"{\"format_version\": 5, \"task\": ").expect("cut");
    let name = manifest
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a name")
        .to_owned();
    for args in [
        vec!["sites", &out_s],
        vec!["changes", &out_s, "--consecutive"],
        vec!["status", &out_s],
        vec!["query", &out_s, "-e", "SELECT count(*) FROM documents"],
    ] {
        let output = bin().args(&args).output().expect("robots-census runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&name),
            "{args:?} names the manifest: {stderr}"
        );
    }
}

/// A path under an input directory that cannot be walked (a symbolic link to nothing)
/// is an input of its own with an `errors` row saying so, and the run exits 1.
#[test]
fn a_path_the_walk_cannot_read_is_an_error_row() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let inputs = dir.path().join("inputs");
    std::fs::create_dir_all(&inputs).expect("made");
    std::fs::write(
        inputs.join("a.csv"),
        "url,body\nhttps://a.example/robots.txt,User-agent: *\n",
    )
    .expect("written");
    std::os::unix::fs::symlink(dir.path().join("nothing-here"), inputs.join("gone"))
        .expect("a link");
    let out = dir.path().join("out");
    let output = bin()
        .args(["run", &path(&inputs), "--out", &path(&out), "--quiet"])
        .output()
        .expect("robots-census runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let errors: Vec<RecordBatch> = parquet_files(&out.join("errors"))
        .iter()
        .flat_map(|f| read_table_file(f))
        .collect();
    let messages = crate::support::strings(&errors, "message");
    let sources = crate::support::strings(&errors, "source");
    let found = sources.iter().zip(&messages).any(|(s, m)| {
        s.as_deref().is_some_and(|s| s.ends_with("gone"))
            && m.as_deref().is_some_and(|m| m.contains("not walked"))
    });
    assert!(
        found,
        "an errors row for the link: {sources:?} {messages:?}"
    );
    let documents: Vec<RecordBatch> = parquet_files(&out.join("documents"))
        .iter()
        .flat_map(|f| read_table_file(f))
        .collect();
    assert_eq!(
        documents.iter().map(RecordBatch::num_rows).sum::<usize>(),
        1,
        "the readable input is read"
    );
}
