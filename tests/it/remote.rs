//! Remote inputs end to end: robots-census reads over HTTP and S3 from servers each
//! test starts on 127.0.0.1 (tests/servers/fault_http.py, a fault-injecting file
//! server; tests/servers/moto_s3.py, moto's S3), and must give exactly the rows of a
//! local run of the same files, retry what the real services throw, record what is
//! final, and keep to `--max-requests`.
//!
//! Tables are compared by content: every row as text without `source` and `doc_id`
//! (both name the input, which differs between a local and a remote run), sorted.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use crate::support::{
    bin, ids, input_reports, ints, python, read_table, repo, scratch, shared, strings, TABLES,
};

/// Servers end by themselves after this many seconds, whatever the test does.
const SERVER_TIME_LIMIT: &str = "300";

fn user_agent() -> String {
    format!("robots-census/{}", env!("CARGO_PKG_VERSION"))
}

/// A server process this test started; killed (by its own handle) when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
}

impl Server {
    /// Starts `cmd` and reads the `PORT <n>` line it prints once it listens.
    fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start test server");
        let stdout = child.stdout.take().expect("server stdout");
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let Some(port) = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
        else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("test server did not start (said {line:?})");
        };
        Server { child, port }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// One control request (HTTP/1.0, so the server closes after answering).
    fn control(&self, method: &str, path: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        write!(
            stream,
            "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("answer");
        answer
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default()
    }

    pub(crate) fn set_faults(&self, faults: serde_json::Value) {
        self.control("POST", "/_faults", &faults.to_string());
    }

    pub(crate) fn reset_stats(&self) {
        self.control("POST", "/_reset", "");
    }

    /// `{requests, peak, log: [{method, path, range, if_match, user_agent, time, status, etag}]}`.
    pub(crate) fn stats(&self) -> serde_json::Value {
        serde_json::from_str(&self.control("GET", "/_stats", "")).expect("stats JSON")
    }

    /// The requests to `path`, in order.
    pub(crate) fn requests_to(&self, path: &str) -> Vec<serde_json::Value> {
        let stats = self.stats();
        let mut log: Vec<serde_json::Value> = stats["log"]
            .as_array()
            .expect("log")
            .iter()
            .filter(|e| e["path"] == format!("/{path}"))
            .cloned()
            .collect();
        log.sort_by(|a, b| {
            a["time"]
                .as_f64()
                .partial_cmp(&b["time"].as_f64())
                .expect("time")
        });
        log
    }

    /// The statuses answered to `path`, in order (negated when the body was cut on purpose).
    pub(crate) fn statuses_of(&self, path: &str) -> Vec<i64> {
        self.requests_to(path)
            .iter()
            .map(|e| e["status"].as_i64().expect("status"))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn fault_server(root: &Path) -> Server {
    let mut cmd = Command::new(python());
    cmd.arg(repo().join("tests/servers/fault_http.py"))
        .arg("--root")
        .arg(root)
        .args(["--time-limit", SERVER_TIME_LIMIT]);
    Server::spawn(cmd)
}

/// moto's S3 with `bucket` holding `objects` (key, local file).
pub(crate) fn moto_server(bucket: &str, objects: &[(String, PathBuf)]) -> Server {
    let mut cmd = Command::new(python());
    cmd.arg(repo().join("tests/servers/moto_s3.py")).args([
        "--bucket",
        bucket,
        "--time-limit",
        SERVER_TIME_LIMIT,
    ]);
    for (key, file) in objects {
        cmd.arg("--put").arg(format!("{key}={}", file.display()));
    }
    Server::spawn(cmd)
}

/// The input files: the bundled samples and real WARC samples of ../shared (a
/// truncated gzip, a per-record zstd WARC, a WARC whose lengths lie), so damaged
/// data must read the same remotely as locally.
pub(crate) fn sample_files() -> Vec<PathBuf> {
    let warc = shared().join("corpus/warc");
    let mut files = clean_files();
    files.extend([
        warc.join("chatnoir-eu__chatnoir-resiliparse/clipped.warc.gz"),
        warc.join("derived/warcfile.per-record.warc.zst"),
        warc.join("webrecorder__warcio/example-trunc.warc"),
    ]);
    files
}

/// The clean samples only, the bundled ones of data-samples/ (a run of them exits 0;
/// nothing of ../shared).
pub(crate) fn clean_files() -> Vec<PathBuf> {
    vec![
        repo().join("data-samples/cc-robotstxt-sample.warc.gz"),
        repo().join("data-samples/IAH-urls-wget.warc.gz"),
        repo().join("data-samples/robots-dump.csv.gz"),
    ]
}

const CRAWL: &str = "CC-MAIN-2024-22";

/// Copies `files` under `<dir>/srv/crawl-data/<crawl>/robotstxt/`, writes the list of
/// their relative paths (Common Crawl's form) as `<dir>/srv/paths.txt`, and returns
/// (served root, relative paths).
pub(crate) fn serve_tree(dir: &Path, files: &[PathBuf]) -> (PathBuf, Vec<String>) {
    let root = dir.join("srv");
    let sub = format!("crawl-data/{CRAWL}/robotstxt");
    std::fs::create_dir_all(root.join(&sub)).expect("mkdir");
    let mut rel = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        std::fs::copy(file, root.join(&sub).join(&name)).expect("copy");
        rel.push(format!("{sub}/{name}"));
    }
    let list = format!("# robotstxt paths\n{}\n", rel.join("\n"));
    std::fs::write(root.join("paths.txt"), list).expect("write list");
    (root, rel)
}

/// A few agents keep the verdict tables small; the comparison covers every table.
pub(crate) const AGENTS: &str = "GPTBot,Googlebot,CCBot";

pub(crate) fn census(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = bin();
    cmd.arg("run").args(args).args(["--agents", AGENTS, "-q"]);
    // Hermetic: no AWS setting of the machine leaks in.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("AWS_") {
            cmd.env_remove(key);
        }
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    let output = cmd.output().expect("run robots-census");
    eprintln!(
        "robots-census {args:?}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The local run of the served files, the reference every remote run must equal.
pub(crate) fn local_run(dir: &Path, root: &Path, rel: &[String]) -> (PathBuf, Option<i32>) {
    let out = dir.join("out-local");
    let inputs: Vec<String> = rel
        .iter()
        .map(|r| root.join(r).display().to_string())
        .collect();
    let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let out_arg = out.display().to_string();
    args.extend(["--out", &out_arg]);
    let output = census(&args, &[]);
    (out, output.status.code())
}

/// Every row of `table` as text, without `source` and `doc_id`, sorted.
fn rows(out: &Path, table: &str) -> Vec<String> {
    let mut rows = Vec::new();
    for batch in read_table(out, table) {
        let schema = batch.schema();
        let keep: Vec<usize> = (0..batch.num_columns())
            .filter(|&i| !matches!(schema.field(i).name().as_str(), "source" | "doc_id"))
            .collect();
        for r in 0..batch.num_rows() {
            let cells: Vec<String> = keep
                .iter()
                .map(|&c| format!("{:?}", batch.column(c).slice(r, 1)))
                .collect();
            rows.push(cells.join(" | "));
        }
    }
    rows.sort();
    rows
}

pub(crate) fn assert_same_rows(expected: &Path, actual: &Path) {
    for table in TABLES {
        let (want, got) = (rows(expected, table), rows(actual, table));
        assert_eq!(want.len(), got.len(), "{table}: row count");
        assert!(want == got, "{table}: rows differ");
    }
    assert!(
        !rows(expected, "documents").is_empty(),
        "a comparison of nothing"
    );
}

/// The sources of a table, with their row counts.
fn sources(out: &Path, table: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for source in strings(&read_table(out, table), "source") {
        *counts.entry(source.unwrap_or_default()).or_default() += 1;
    }
    counts
}

/// Every source named in `documents` or `errors`, sorted.
fn all_sources(out: &Path) -> Vec<String> {
    let mut all = sources(out, "documents");
    all.extend(sources(out, "errors"));
    all.into_keys().collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The input-level errors rows (no doc_id) as (source, code).
fn input_errors(out: &Path) -> Vec<(String, String)> {
    let batches = read_table(out, "errors");
    let doc_ids = ids(&batches, "doc_id");
    let offsets = ints(&batches, "file_offset");
    let sources = strings(&batches, "source");
    let codes = strings(&batches, "code");
    let mut rows: Vec<(String, String)> = (0..codes.len())
        .filter(|&i| doc_ids[i].is_none() && offsets[i].is_none())
        .map(|i| {
            (
                sources[i].clone().unwrap_or_default(),
                codes[i].clone().unwrap_or_default(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The manifest report of the input `source` (from its task's manifest).
fn manifest_of(out: &Path, source: &str) -> serde_json::Value {
    input_reports(out)
        .into_iter()
        .find(|report| report["source"] == source)
        .unwrap_or_else(|| panic!("no manifest report for {source}"))
}

pub(crate) fn path_arg(p: &Path) -> String {
    p.display().to_string()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (damaged WARC samples) and the venv's Python (tests/servers/fault_http.py): make test"
)]
fn http_paths_list_gives_the_rows_of_a_local_run() {
    let dir = scratch("remote_http_list");
    let (root, rel) = serve_tree(&dir, &sample_files());
    let (local, local_code) = local_run(&dir, &root, &rel);
    let server = fault_server(&root);
    let out = dir.join("out-http");
    let output = census(
        &[
            "--inputs-from",
            &server.url("paths.txt"),
            "--input-base-url",
            &server.url(""),
            "--out",
            &path_arg(&out),
        ],
        &[],
    );
    assert_eq!(output.status.code(), local_code);
    assert_same_rows(&local, &out);
    let want: Vec<String> = rel.iter().map(|r| server.url(r)).collect();
    assert_eq!(all_sources(&out), sorted(want), "sources are the URLs");
    // One plain GET per object, each naming robots-census and its version.
    let stats = server.stats();
    let log = stats["log"].as_array().expect("log");
    assert_eq!(log.len(), rel.len() + 1, "the list and each input once");
    for entry in log {
        assert_eq!(entry["user_agent"], user_agent());
        assert_eq!(entry["method"], "GET");
        assert!(entry["range"].is_null(), "{entry}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (damaged WARC samples) and the venv (moto S3 server): make test"
)]
fn s3_gzip_paths_list_via_crawl_gives_the_rows_of_a_local_run() {
    let dir = scratch("remote_s3_list");
    let (root, rel) = serve_tree(&dir, &sample_files());
    let (local, local_code) = local_run(&dir, &root, &rel);
    // Common Crawl's form: crawl-data/<crawl>/robotstxt.paths.gz, gzip-compressed.
    let list_gz = dir.join("robotstxt.paths.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(rel.join("\n").as_bytes()).expect("gzip");
    std::fs::write(&list_gz, gz.finish().expect("gzip")).expect("write");
    let mut objects: Vec<(String, PathBuf)> =
        rel.iter().map(|r| (r.clone(), root.join(r))).collect();
    objects.push((format!("crawl-data/{CRAWL}/robotstxt.paths.gz"), list_gz));
    let s3 = moto_server("cc-test", &objects);
    let env = [
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{}", s3.port)),
        ("AWS_ALLOW_HTTP", "true".to_owned()),
        ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ];
    let out = dir.join("out-s3");
    let output = census(
        &[
            "--crawl",
            CRAWL,
            "--input-base-url",
            "s3://cc-test/",
            "--out",
            &path_arg(&out),
        ],
        &env,
    );
    assert_eq!(output.status.code(), local_code);
    assert_same_rows(&local, &out);
    let want: Vec<String> = rel.iter().map(|r| format!("s3://cc-test/{r}")).collect();
    assert_eq!(all_sources(&out), sorted(want));
    // A key that is not there is final at once, like a missing local file.
    let missing = dir.join("out-s3-missing");
    let output = census(
        &[
            "s3://cc-test/crawl-data/nothing-here.warc.gz",
            "--out",
            &path_arg(&missing),
        ],
        &env,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        input_errors(&missing),
        vec![(
            "s3://cc-test/crawl-data/nothing-here.warc.gz".to_owned(),
            "remote_not_found".to_owned()
        )]
    );
}

/// A clean local run and a server over the same files, for the fault tests.
struct Fixture {
    dir: PathBuf,
    rel: Vec<String>,
    local: PathBuf,
    local_code: Option<i32>,
    server: Server,
}

fn fixture(name: &str, files: &[PathBuf]) -> Fixture {
    let dir = scratch(name);
    let (root, rel) = serve_tree(&dir, files);
    let (local, local_code) = local_run(&dir, &root, &rel);
    let server = fault_server(&root);
    Fixture {
        dir,
        rel,
        local,
        local_code,
        server,
    }
}

impl Fixture {
    fn run(&self, out: &str, extra: &[&str]) -> (PathBuf, Output) {
        let out = self.dir.join(out);
        let (list, base) = (self.server.url("paths.txt"), self.server.url(""));
        let mut args = vec!["--inputs-from", &list, "--input-base-url", &base];
        let out_arg = path_arg(&out);
        args.extend(["--out", &out_arg]);
        args.extend(extra);
        let output = census(&args, &[]);
        (out, output)
    }

    fn name(&self, i: usize) -> &str {
        &self.rel[i]
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (damaged WARC samples) and the venv's Python (tests/servers/fault_http.py): make test"
)]
fn transient_faults_are_retried_and_the_rows_equal_a_clean_run() {
    let f = fixture("remote_faults", &sample_files());
    let cut = 300_000;
    f.server.set_faults(serde_json::json!({
        format!("/{}", f.name(0)): [{"kind": "drop", "bytes": cut}],
        format!("/{}", f.name(1)): [{"kind": "slowdown", "retry_after": 3}],
        format!("/{}", f.name(2)): [{"kind": "429", "retry_after": 1}, {"kind": "500"}],
        format!("/{}", f.name(3)): [{"kind": "cloudfront403", "times": 2}],
        format!("/{}", f.name(4)): [{"kind": "stall", "bytes": 50_000, "seconds": 8}],
    }));
    let (out, output) = f.run("out", &["--io-timeout", "2", "--retry-budget", "60"]);
    assert_eq!(output.status.code(), f.local_code);
    assert_same_rows(&f.local, &out);
    assert!(
        input_errors(&out)
            .iter()
            .all(|(_, code)| !code.starts_with("remote_")),
        "{:?}",
        input_errors(&out)
    );

    let statuses = |i: usize| f.server.statuses_of(f.name(i));
    // The cut body was continued with a Range request pinned to the first ETag, and
    // the object was never fetched whole a second time.
    for (i, at) in [(0, cut), (4, 50_000)] {
        let log = f.server.requests_to(f.name(i));
        assert_eq!(statuses(i), vec![-200, 206], "{}", f.name(i));
        assert!(log[0]["range"].is_null());
        assert_eq!(log[1]["range"], format!("bytes={at}-"));
        assert_eq!(log[1]["if_match"], log[0]["etag"]);
    }
    assert_eq!(statuses(1), vec![503, 200]);
    assert_eq!(statuses(2), vec![429, 500, 200]);
    assert_eq!(statuses(3), vec![403, 403, 200]);
    assert_eq!(statuses(5), vec![200]);
    // Retry-After: 3 was honoured (the first backoff alone is at most 1.5 s).
    let log = f.server.requests_to(f.name(1));
    let gap = log[1]["time"].as_f64().expect("t") - log[0]["time"].as_f64().expect("t");
    assert!(gap >= 2.9, "retried after {gap:.2}s despite Retry-After: 3");
    for entry in f.server.stats()["log"].as_array().expect("log") {
        assert_eq!(entry["user_agent"], user_agent());
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn a_spent_retry_budget_is_an_error_row_and_resume_completes_the_input() {
    let f = fixture("remote_budget", &clean_files());
    assert_eq!(f.local_code, Some(0));
    let throttled = f.name(1).to_owned();
    f.server.set_faults(serde_json::json!({
        format!("/{throttled}"): [{"kind": "slowdown", "retry_after": 1, "times": -1}],
    }));
    let (out, output) = f.run("out", &["--retry-budget", "3"]);
    // 75 (EX_TEMPFAIL): worth running again, unlike a final error's 1.
    assert_eq!(output.status.code(), Some(75));
    let source = f.server.url(&throttled);
    assert_eq!(
        input_errors(&out),
        vec![(source.clone(), "remote_retries_exhausted".to_owned())]
    );
    assert!(!sources(&out, "documents").contains_key(&source));
    let manifest = manifest_of(&out, &source);
    assert_eq!(manifest["transient"], true);
    assert_eq!(manifest["unreadable"], true);
    // Retried, within a 3 s budget of waits of at least 1 s.
    let tries = f.server.requests_to(&throttled).len();
    assert!((2..=4).contains(&tries), "{tries} requests");

    // The service recovers; --resume reads only the input that failed.
    f.server.set_faults(serde_json::json!({}));
    f.server.reset_stats();
    let resumed = census(
        &[
            "--inputs-from",
            &f.server.url("paths.txt"),
            "--input-base-url",
            &f.server.url(""),
            "--out",
            &path_arg(&out),
            "--resume",
        ],
        &[],
    );
    assert_eq!(resumed.status.code(), Some(0));
    assert_same_rows(&f.local, &out);
    assert_eq!(f.server.requests_to(&throttled).len(), 1);
    assert_eq!(
        f.server.requests_to(f.name(0)).len(),
        0,
        "done inputs are skipped"
    );
    assert_eq!(manifest_of(&out, &source)["transient"], false);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn not_found_and_access_denied_are_final_at_once() {
    let f = fixture("remote_final", &clean_files());
    let denied = f.name(0).to_owned();
    f.server.set_faults(serde_json::json!({
        format!("/{denied}"): [{"kind": "denied", "times": -1}],
    }));
    let missing = "crawl-data/gone.warc.gz";
    std::fs::write(
        f.dir.join("srv/paths.txt"),
        format!("{}\n{missing}\n", f.rel.join("\n")),
    )
    .expect("list");
    let started = std::time::Instant::now();
    let (out, output) = f.run("out", &["--retry-budget", "60"]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(1));
    let (denied_url, missing_url) = (f.server.url(&denied), f.server.url(missing));
    let mut want = vec![
        (denied_url.clone(), "remote_access_denied".to_owned()),
        (missing_url.clone(), "remote_not_found".to_owned()),
    ];
    want.sort();
    assert_eq!(input_errors(&out), want);
    // The error pages never reached the reader: no document, no other errors row.
    for url in [&denied_url, &missing_url] {
        assert!(!sources(&out, "documents").contains_key(url));
        assert_eq!(sources(&out, "errors").get(url), Some(&1));
    }
    assert_eq!(f.server.requests_to(&denied).len(), 1);
    assert_eq!(f.server.requests_to(missing).len(), 1);
    assert_eq!(manifest_of(&out, &denied_url)["transient"], false);
    // Final means final: --resume does not ask again.
    let resumed = census(
        &[
            "--inputs-from",
            &f.server.url("paths.txt"),
            "--input-base-url",
            &f.server.url(""),
            "--out",
            &path_arg(&out),
            "--resume",
        ],
        &[],
    );
    assert_eq!(resumed.status.code(), Some(1));
    assert_eq!(f.server.requests_to(&denied).len(), 1);
    assert_eq!(f.server.requests_to(missing).len(), 1);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn an_object_that_changes_mid_stream_is_an_error_row_not_a_mix() {
    let f = fixture("remote_changed", &clean_files());
    let changing = f.name(0).to_owned();
    f.server.set_faults(serde_json::json!({
        format!("/{changing}"): [{"kind": "change", "bytes": 300_000}],
    }));
    let (out, output) = f.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let source = f.server.url(&changing);
    assert_eq!(
        input_errors(&out),
        vec![(source.clone(), "remote_object_changed".to_owned())]
    );
    // Nothing of either version is kept: no document, and no errors row but the one.
    assert!(!sources(&out, "documents").contains_key(&source));
    assert_eq!(sources(&out, "errors").get(&source), Some(&1));
    let log = f.server.requests_to(&changing);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1]["if_match"], log[0]["etag"]);
    assert_eq!(log[1]["status"], 412);
    assert_eq!(manifest_of(&out, &source)["transient"], false);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn a_continuation_with_other_bytes_or_none_is_a_final_error_row() {
    // A cut body continued with a Range request: a 206 whose Content-Range starts
    // elsewhere than asked is other bytes than the first response's (the object
    // changed, or the server is broken), `remote_object_changed` as README says; a
    // server that ignores Range (200, whole object) is `remote_failed`. Both final,
    // nothing of the input kept.
    let f = fixture("remote_bad_range", &clean_files());
    let (shifted, ignored) = (f.name(0).to_owned(), f.name(1).to_owned());
    f.server.set_faults(serde_json::json!({
        format!("/{shifted}"): [{"kind": "drop", "bytes": 1000}, {"kind": "bad_range", "shift": 7}],
        format!("/{ignored}"): [{"kind": "drop", "bytes": 1000}, {"kind": "ignore_range"}],
    }));
    let (out, output) = f.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let (shifted_url, ignored_url) = (f.server.url(&shifted), f.server.url(&ignored));
    let mut want = vec![
        (shifted_url.clone(), "remote_object_changed".to_owned()),
        (ignored_url.clone(), "remote_failed".to_owned()),
    ];
    want.sort();
    assert_eq!(input_errors(&out), want);
    for (url, name) in [(&shifted_url, &shifted), (&ignored_url, &ignored)] {
        assert!(!sources(&out, "documents").contains_key(url), "{name}");
        assert_eq!(sources(&out, "errors").get(url), Some(&1), "{name}");
        assert_eq!(manifest_of(&out, url)["transient"], false, "{name}");
        let log = f.server.requests_to(name);
        assert_eq!(log.len(), 2, "{name}: the first GET and one continuation");
        assert_eq!(log[1]["range"], "bytes=1000-", "{name}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn max_requests_caps_the_requests_in_flight() {
    let dir = scratch("remote_max_requests");
    let sample = repo().join("data-samples/IAH-urls-wget.warc.gz");
    let copies: Vec<PathBuf> = (0..10)
        .map(|i| {
            let copy = dir.join(format!("c{i:02}.warc.gz"));
            std::fs::copy(&sample, &copy).expect("copy");
            copy
        })
        .collect();
    let f = fixture("remote_max_requests_run", &copies);
    // Every body takes a second, so requests overlap as much as they are allowed to.
    f.server.set_faults(serde_json::json!({
        "*": [{"kind": "slow", "seconds": 1, "times": -1}],
    }));
    let (out, output) = f.run("out-2", &["-j", "4", "--max-requests", "2"]);
    assert_eq!(output.status.code(), Some(0));
    assert_same_rows(&f.local, &out);
    let peak = f.server.stats()["peak"].as_i64().expect("peak");
    assert_eq!(peak, 2, "--max-requests 2 with 4 threads");
    // The same run allowed 4 requests does overlap more: the cap is what held it at 2.
    f.server.reset_stats();
    let (_, output) = f.run("out-4", &["-j", "4", "--max-requests", "4"]);
    assert_eq!(output.status.code(), Some(0));
    let peak = f.server.stats()["peak"].as_i64().expect("peak");
    assert!(peak >= 3, "peak {peak} with --max-requests 4");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn a_throttled_input_does_not_hold_up_the_others() {
    let f = fixture("remote_throttled_overlap", &clean_files());
    assert_eq!(f.local_code, Some(0));
    let throttled = f.name(0).to_owned();
    f.server.set_faults(serde_json::json!({
        format!("/{throttled}"): [{"kind": "slowdown", "retry_after": 5}],
    }));
    // One thread: if the Retry-After wait held it, no other input could be read
    // until the throttled one was.
    let (out, output) = f.run("out", &["-j", "1"]);
    assert_eq!(output.status.code(), Some(0));
    assert_same_rows(&f.local, &out);
    let time = |e: &serde_json::Value| e["time"].as_f64().expect("time");
    let log = f.server.requests_to(&throttled);
    assert_eq!(log.len(), 2, "one 503, one retry");
    let (throttled_at, retried_at) = (time(&log[0]), time(&log[1]));
    let others: Vec<f64> = (1..f.rel.len())
        .flat_map(|i| f.server.requests_to(f.name(i)))
        .map(|e| time(&e))
        .collect();
    assert_eq!(others.len(), f.rel.len() - 1);
    // The slots open their inputs at once, so the others may reach the server just
    // before or just after the throttled one: what matters is that none waited for
    // its retry (a wait held on the one reading thread would put them all after it).
    assert!(
        others.iter().all(|&t| t < retried_at),
        "an input was requested only after the throttled one's retry ({:.3} .. {:.3}): \
         {others:?}",
        throttled_at,
        retried_at
    );
    assert!(
        retried_at - throttled_at >= 4.5,
        "Retry-After 5 s was honoured"
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn cut_bodies_are_continued_with_a_single_request_allowed() {
    // Each input is opened before a pool thread is free to read it; with one request
    // allowed, a reader whose body was cut must still get the permit for its Range
    // continuation (a stall here used to end as remote_retries_exhausted).
    let f = fixture("remote_cut_one_request", &clean_files());
    let faults: serde_json::Map<String, serde_json::Value> = f
        .rel
        .iter()
        .map(|name| (format!("/{name}"), serde_json::json!([{"kind": "drop"}])))
        .collect();
    f.server.set_faults(serde_json::Value::Object(faults));
    let (out, output) = f.run(
        "out",
        &[
            "-j",
            "1",
            "--max-requests",
            "1",
            "--io-timeout",
            "5",
            "--retry-budget",
            "30",
        ],
    );
    assert_eq!(output.status.code(), f.local_code, "{output:?}");
    assert_same_rows(&f.local, &out);
    for name in &f.rel {
        assert_eq!(f.server.statuses_of(name), vec![-200, 206], "{name}");
    }
}

/// The store API the output side will use (PUT, GET, LIST, DELETE), on moto's S3 and
/// on the local file system, which must behave alike.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (moto S3 server, boto3): make test"
)]
fn store_api_puts_gets_lists_and_deletes_on_s3_and_locally() {
    use robots_census::internals::{Location, StoreOptions, Stores};
    let dir = scratch("remote_store_api");
    let s3 = moto_server("out-test", &[]);
    // Only this test builds S3 clients in this process; the binaries the other tests
    // run get their AWS settings explicitly (see `census`).
    std::env::set_var("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{}", s3.port));
    std::env::set_var("AWS_ALLOW_HTTP", "true");
    std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
    std::env::set_var("AWS_REGION", "us-east-1");
    let stores = Stores::new(StoreOptions::default()).expect("stores");
    let local_base = format!("{}/", dir.join("local").display());
    for base in ["s3://out-test/run1/", local_base.as_str()] {
        let base = Location::parse(base).expect("base");
        let at = |rel: &str| Location::resolve(rel, Some(&base)).expect("resolve");
        // Objects are written through the store; local files by the output itself (a
        // temporary name, fsync, rename), and the store refuses to write them.
        let put = |loc: &Location, bytes: bytes::Bytes| match loc {
            Location::Local(path) => {
                let refused = stores.put(loc, bytes.clone()).expect_err("local put");
                assert!(refused.to_string().contains("local path"), "{refused}");
                std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
                std::fs::write(path, &bytes).expect("write");
            }
            _ => stores.put(loc, bytes).expect("put"),
        };
        assert_eq!(stores.list(&at("documents")).expect("list nothing"), vec![]);
        let (a, b) = (at("documents/a.parquet"), at("documents/b.parquet"));
        let body = bytes::Bytes::from(vec![7u8; 100_000]);
        put(&a, body.clone());
        put(&b, bytes::Bytes::from_static(b"b"));
        assert_eq!(
            stores.get_opt(&a).expect("get a").as_deref(),
            Some(&body[..])
        );
        assert_eq!(stores.read_all(&b).expect("read b"), b"b");
        assert_eq!(
            stores.get_opt(&at("documents/none")).expect("get none"),
            None
        );
        assert_eq!(
            stores.list(&at("documents")).expect("list"),
            vec![a.clone(), b.clone()]
        );
        stores.delete(&a).expect("delete a");
        stores
            .delete(&a)
            .expect("deleting what is gone is no error");
        assert_eq!(stores.get_opt(&a).expect("get deleted"), None);
        assert_eq!(stores.list(&at("documents")).expect("list"), vec![b]);
        let err = stores.read_all(&at("documents/none")).expect_err("missing");
        assert_eq!(err.code(), "remote_not_found");
        assert!(!err.is_transient());
        // A file larger than the part size goes up in parts (how `publish` sends a big
        // task part), a small one in one PUT; both read back byte for byte.
        let big: Vec<u8> = (0..12 << 20).map(|i: u32| (i % 251) as u8).collect();
        let source = dir.join("big.bin");
        std::fs::write(&source, &big).expect("write big.bin");
        let (c, d) = (at("documents/c.parquet"), at("documents/d.parquet"));
        if let (Location::Local(c_path), Location::Local(d_path)) = (&c, &d) {
            assert!(
                stores.put_file(&c, &source, 5 << 20).is_err(),
                "local put_file"
            );
            std::fs::copy(&source, c_path).expect("copy c");
            std::fs::copy(&source, d_path).expect("copy d");
        } else {
            stores.put_file(&c, &source, 5 << 20).expect("put_file c");
            stores.put_file(&d, &source, 16 << 20).expect("put_file d");
        }
        for object in [&c, &d] {
            assert!(
                stores.read_all(object).expect("read back") == big,
                "{object}"
            );
        }
        if let Location::S3 { bucket, .. } = &base {
            // S3 gives a multipart object the ETag "<md5 of the parts' md5s>-<parts>".
            let etag = |key: &str| {
                let out = std::process::Command::new(python())
                    .args(["-c", HEAD_ETAG, &s3.port.to_string(), bucket, key])
                    .output()
                    .expect("run boto3 head_object");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8_lossy(&out.stdout).trim().to_owned()
            };
            assert!(
                etag("run1/documents/c.parquet").ends_with("-3\""),
                "5+5+2 MiB parts"
            );
            assert!(!etag("run1/documents/d.parquet").contains('-'), "one PUT");
        }
    }
}

/// Prints the ETag of s3://BUCKET/KEY on moto (argv: port, bucket, key).
const HEAD_ETAG: &str = r#"
import sys, boto3
port, bucket, key = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:" + port, aws_access_key_id="testing",
                  aws_secret_access_key="testing", region_name="us-east-1")
print(s3.head_object(Bucket=bucket, Key=key)["ETag"])
"#;
