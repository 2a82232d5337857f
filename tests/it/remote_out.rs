//! Remote runs and the commit protocol: `--out s3://` (moto's S3) must hold the very
//! bytes a local `--out` gets, refuse what a local output refuses, and report through
//! `status`; a remote run (inputs over tests/servers/fault_http.py) killed with
//! SIGKILL and then `--resume`d must equal a clean run and leave no temporary file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::remote::{
    assert_same_rows, census, clean_files, fault_server, local_run, moto_server, path_arg,
    sample_files, serve_tree, Server, AGENTS,
};
use crate::support::{bin, python, read_table, repo, scratch, tree, TABLES};

/// moto's credentials and endpoint, for robots-census and for the download helper.
fn s3_env(port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".to_owned()),
        ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ]
}

/// Copies every object under `s3://bucket/prefix/` into `dest` (boto3, from the venv),
/// so the S3 dataset can be compared file by file with a local one.
fn download(port: u16, bucket: &str, prefix: &str, dest: &Path) {
    const SCRIPT: &str = r#"
import os, sys, boto3
port, bucket, prefix, dest = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:" + port, aws_access_key_id="testing",
                  aws_secret_access_key="testing", region_name="us-east-1")
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/"):
    for obj in page.get("Contents", []):
        rel = obj["Key"][len(prefix) + 1:]
        path = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        s3.download_file(bucket, obj["Key"], path)
"#;
    let status = Command::new(python())
        .args(["-c", SCRIPT, &port.to_string(), bucket, prefix])
        .arg(dest)
        .status()
        .expect("run the download helper");
    assert!(status.success(), "download from moto failed");
}

/// `robots-census status <out>` with `env`.
fn status(out: &str, env: &[(&str, String)]) -> Output {
    let mut cmd = bin();
    cmd.args(["status", out]);
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().expect("run status")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Files (and directories) anywhere under `dir` whose name ends in `.tmp`.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .map(|e| e.into_path())
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (damaged WARC samples) and the venv (moto S3 server, boto3): make test"
)]
fn s3_output_holds_the_bytes_of_a_local_output() {
    let dir = scratch("remote_out_s3");
    let (root, rel) = serve_tree(&dir, &sample_files());
    let inputs: Vec<String> = rel.iter().map(|r| path_arg(&root.join(r))).collect();
    let s3 = moto_server("out-test", &[]);
    // Staging directories go under a TMPDIR of this test's own, to check them.
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("mkdir tmp");
    let mut env = s3_env(s3.port);
    env.push(("TMPDIR", path_arg(&tmp)));
    let run = |out: &str, extra: &[&str]| {
        let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
        args.extend(["--out", out, "--inputs-per-task", "2"]);
        args.extend(extra);
        census(&args, &env)
    };
    let local = dir.join("out-local");
    let local_code = run(&path_arg(&local), &[]).status.code();
    let url = "s3://out-test/datasets/one";
    let output = run(url, &[]);
    assert_eq!(output.status.code(), local_code);
    assert!(local_code.is_some_and(|c| c <= 1), "{local_code:?}");

    // Every file, byte for byte: parts, manifests and _dataset.json.
    let copy = dir.join("out-s3-copy");
    download(s3.port, "out-test", "datasets/one", &copy);
    let (want, got) = (tree(&local), tree(&copy));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "the same files"
    );
    let parts = want.keys().filter(|k| k.ends_with(".parquet")).count();
    assert!(parts >= 3 * 7, "3 tasks x 7 tables at least, got {parts}");
    assert_eq!(
        want.keys().filter(|k| k.starts_with("_manifests/")).count(),
        3
    );
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "{name} differs");
    }
    assert_eq!(temporaries(&tmp), Vec::<PathBuf>::new(), "staging left");

    // `query` reads the S3 dataset as it reads the local one.
    let query = |out: &str, sql: &[&str]| {
        let mut cmd = bin();
        cmd.args(["query", out, "--format", "csv"]).args(sql);
        for (key, value) in &env {
            cmd.env(key, value);
        }
        cmd.output().expect("run query")
    };
    let counts = TABLES
        .iter()
        .map(|t| format!("(SELECT count(*) FROM {t}) AS {t}"))
        .collect::<Vec<_>>()
        .join(", ");
    let counts = format!("SELECT {counts}");
    let on_s3 = query(url, &["-e", &counts]);
    assert_eq!(on_s3.status.code(), Some(0), "{}", stderr(&on_s3));
    // The counts, from the local Parquet files read with the parquet crate.
    let want_counts: Vec<String> = TABLES
        .iter()
        .map(|t| {
            let rows: usize = read_table(&local, t).iter().map(|b| b.num_rows()).sum();
            rows.to_string()
        })
        .collect();
    assert_ne!(want_counts[0], "0", "documents has rows");
    assert_eq!(
        String::from_utf8_lossy(&on_s3.stdout),
        format!("{}\n{}\n", TABLES.join(","), want_counts.join(","))
    );
    let file = repo().join("queries/status_distribution.sql");
    let file = path_arg(&file);
    let (on_s3, here) = (query(url, &[&file]), query(&path_arg(&local), &[&file]));
    assert_eq!(on_s3.status.code(), Some(0), "{}", stderr(&on_s3));
    assert_eq!(here.status.code(), Some(0), "{}", stderr(&here));
    assert!(
        on_s3.stdout.len() > 100,
        "{}",
        String::from_utf8_lossy(&here.stdout)
    );
    assert!(
        on_s3.stdout == here.stdout,
        "status_distribution.sql differs on S3"
    );
    // A bucket that is not there: one line naming it, exit 2.
    let missing = query("s3://no-such-bucket/ds", &["-e", "SELECT 1"]);
    assert_eq!(missing.status.code(), Some(2));
    let message = stderr(&missing);
    assert!(
        message.contains("s3://no-such-bucket/ds") && message.trim_end().lines().count() == 1,
        "{message}"
    );

    // The same refusals as locally.
    let again = run(url, &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already holds tables"),
        "{}",
        stderr(&again)
    );
    let differ = run(url, &["--resume", "--paths", "/,/private"]);
    assert_eq!(differ.status.code(), Some(2));
    assert!(
        stderr(&differ).contains("other settings (paths)"),
        "{}",
        stderr(&differ)
    );
    // --resume with the same flags finds every task done and changes nothing.
    let resumed = run(url, &["--resume"]);
    assert_eq!(resumed.status.code(), local_code);
    let copy2 = dir.join("out-s3-copy2");
    download(s3.port, "out-test", "datasets/one", &copy2);
    assert!(
        tree(&copy2) == got,
        "a resume of a finished dataset rewrote it"
    );

    // status reads the manifests from S3 and writes _SUCCESS there.
    let report = status(url, &env);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let stdout = String::from_utf8_lossy(&report.stdout).into_owned();
    assert!(
        stdout.contains("tasks: 3 done, 0 to retry, 0 missing of 3"),
        "{stdout}"
    );
    let copy3 = dir.join("out-s3-copy3");
    download(s3.port, "out-test", "datasets/one", &copy3);
    let success: serde_json::Value =
        serde_json::from_slice(&std::fs::read(copy3.join("_SUCCESS")).expect("_SUCCESS"))
            .expect("_SUCCESS is JSON");
    assert_eq!(success["done"], 3);
    assert_eq!(success["complete"], true);

    // --overwrite replaces it (same bytes again); http(s) is not an output.
    let overwritten = run(url, &["--overwrite"]);
    assert_eq!(overwritten.status.code(), local_code);
    let copy4 = dir.join("out-s3-copy4");
    download(s3.port, "out-test", "datasets/one", &copy4);
    assert!(tree(&copy4) == want, "--overwrite gave other bytes");
    let http = run("http://127.0.0.1:9/out", &[]);
    assert_eq!(http.status.code(), Some(2));
    assert!(
        stderr(&http).contains("cannot be an output"),
        "{}",
        stderr(&http)
    );
    assert_eq!(temporaries(&tmp), Vec::<PathBuf>::new(), "staging left");
}

/// The setup of the S3 resume tests: the clean files served over HTTP with
/// cc-robotstxt-sample.warc.gz throttled for good (served under crawl-data/CC-MAIN-2024-22/,
/// its warcinfo says CC-MAIN-2026-48), a local run of the same files to compare with, and
/// a moto bucket for `--out s3://<bucket>/ds`.
struct ThrottledToS3 {
    dir: PathBuf,
    local: PathBuf,
    server: Server,
    s3: Server,
    bucket: &'static str,
    env: Vec<(&'static str, String)>,
}

impl ThrottledToS3 {
    fn new(name: &str, bucket: &'static str) -> Self {
        let dir = scratch(name);
        let (root, rel) = serve_tree(&dir, &clean_files());
        let (local, local_code) = local_run(&dir, &root, &rel);
        assert_eq!(local_code, Some(0));
        let server = fault_server(&root);
        let throttled = rel
            .iter()
            .find(|r| r.ends_with("cc-robotstxt-sample.warc.gz"))
            .expect("sample served");
        server.set_faults(serde_json::json!({
            format!("/{throttled}"): [{"kind": "slowdown", "retry_after": 1, "times": -1}],
        }));
        let s3 = moto_server(bucket, &[]);
        let env = s3_env(s3.port);
        ThrottledToS3 {
            dir,
            local,
            server,
            s3,
            bucket,
            env,
        }
    }

    /// `run` of the served list into the bucket, with `extra` flags and environment `env`.
    fn run(&self, extra: &[&str], env: &[(&str, String)]) -> Output {
        let (list, base) = (self.server.url("paths.txt"), self.server.url(""));
        let url = format!("s3://{}/ds", self.bucket);
        let mut args = vec![
            "--inputs-from",
            &list,
            "--input-base-url",
            &base,
            "--out",
            &url,
        ];
        args.extend(extra);
        census(&args, env)
    }

    /// The dataset as it is on S3 now, copied into `<dir>/<name>`.
    fn download(&self, name: &str) -> PathBuf {
        let dest = self.dir.join(name);
        download(self.s3.port, self.bucket, "ds", &dest);
        dest
    }

    /// The S3 dataset `out` has the part files of the local run (task names end in a
    /// hash of the sources, which differ: paths there, URLs here) and the same rows.
    fn assert_equals_local(&self, out: &Path) {
        let parts = |t: std::collections::BTreeMap<String, Vec<u8>>| -> Vec<String> {
            t.into_keys()
                .filter(|k| k.ends_with(".parquet"))
                .map(|k| match k.rsplit_once('-') {
                    Some((task, _hash)) => task.to_owned(),
                    None => k,
                })
                .collect()
        };
        assert_eq!(parts(tree(out)), parts(tree(&self.local)));
        assert_same_rows(&self.local, out);
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (moto S3 server, boto3; tests/servers/fault_http.py): make test"
)]
fn a_resumed_s3_task_deletes_its_earlier_parts_under_another_crawl() {
    // Throttled for good, the sample's task is committed with one
    // remote_retries_exhausted row under the path's crawl (exit 75); resumed, its rows
    // go under the warcinfo's crawl. The first attempt's part under CC-MAIN-2024-22
    // must be gone from S3, or the dataset would keep the failure beside the rows.
    let t = ThrottledToS3::new("remote_out_stale", "stale-test");
    let failed = t.run(&["--retry-budget", "3"], &t.env);
    assert_eq!(failed.status.code(), Some(75), "{}", stderr(&failed));
    let stale: Vec<String> = tree(&t.download("first"))
        .into_keys()
        .filter(|k| k.contains("crawl=CC-MAIN-2024-22/") && k.starts_with("errors/"))
        .collect();
    assert!(
        !stale.is_empty(),
        "the failure's errors part under the path's crawl"
    );

    t.server.set_faults(serde_json::json!({}));
    let resumed = t.run(&["--resume"], &t.env);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    t.assert_equals_local(&t.download("second"));
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (moto S3 server, boto3; tests/servers/fault_http.py): make test"
)]
fn an_s3_attempt_killed_before_its_manifest_leaves_no_part_behind() {
    // Issue 22: an S3 attempt killed after uploading its parts and before its manifest
    // left parts no manifest names; when the next attempt writes another crawl partition
    // (here: the throttled input's rows go under its warcinfo's crawl, not the path's),
    // they stayed beside the new ones. The attempt record written before the uploads
    // names them, and the resumed task deletes them.
    let t = ThrottledToS3::new("remote_out_killed_commit", "killed-commit");
    let mut kill_env = t.env.clone();
    kill_env.push((
        "ROBOTS_CENSUS_ABORT_BEFORE_MANIFEST",
        "cc-robotstxt-sample".to_owned(),
    ));
    let killed = t.run(&["--retry-budget", "3", "--threads", "1"], &kill_env);
    assert!(!killed.status.success(), "{}", stderr(&killed));
    let mut first = tree(&t.download("first"));
    let keys: Vec<String> = first.keys().cloned().collect();
    let records: Vec<&String> = keys
        .iter()
        .filter(|k| k.starts_with("_attempts/"))
        .collect();
    assert_eq!(records.len(), 1, "one attempt was cut: {keys:?}");
    let task = records[0]
        .trim_start_matches("_attempts/")
        .trim_end_matches(".json")
        .to_owned();
    assert!(
        !keys.contains(&format!("_manifests/{task}.json")),
        "killed before its manifest: {keys:?}"
    );
    let orphans: Vec<String> = keys
        .iter()
        .filter(|k| k.ends_with(&format!("/{task}.parquet")))
        .cloned()
        .collect();
    assert!(!orphans.is_empty(), "its parts were uploaded: {keys:?}");
    assert!(
        orphans
            .iter()
            .all(|k| k.contains("/crawl=CC-MAIN-2024-22/")),
        "under the path's crawl: {orphans:?}"
    );
    let record = String::from_utf8(first.remove(records[0].as_str()).unwrap()).unwrap();
    for orphan in &orphans {
        assert!(record.contains(orphan.as_str()), "{orphan} not in {record}");
    }

    t.server.set_faults(serde_json::json!({}));
    let resumed = t.run(&["--resume"], &t.env);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let second = t.download("second");
    let after = tree(&second);
    for orphan in &orphans {
        assert!(
            !after.contains_key(orphan.as_str()),
            "{orphan} is still there"
        );
    }
    assert!(
        !after.keys().any(|k| k.starts_with("_attempts/")),
        "no attempt record is left once every manifest is written"
    );
    t.assert_equals_local(&second);
}

/// The manifests present under `out`.
fn manifests(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("_manifests"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// Whether the fault server's log entry `e` is a request for `path`.
fn is_request_to(e: &serde_json::Value, path: &str) -> bool {
    e["path"].as_str() == Some(path)
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv's Python (tests/servers/fault_http.py, the fault-injecting HTTP server): make test"
)]
fn a_remote_run_killed_with_sigkill_then_resumed_equals_a_clean_run() {
    let dir = scratch("remote_out_sigkill");
    let (root, rel) = serve_tree(&dir, &clean_files());
    // 3 agents x 800 paths per document make chunks of ~80 records (see
    // stream::chunk_records), so the 300-capture sample is several chunks and its
    // task has temporary parts on disk well before it commits.
    let paths: Vec<String> = (0..800).map(|i| format!("/p{i}")).collect();
    let paths = paths.join(",");
    let common = ["--inputs-per-task", "1", "-j", "1", "--paths", &paths];
    let local = dir.join("out-local");
    let mut args: Vec<String> = rel.iter().map(|r| path_arg(&root.join(r))).collect();
    args.extend(["--out".to_owned(), path_arg(&local)]);
    args.extend(common.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let local_code = census(&args, &[]).status.code();

    let server = fault_server(&root);
    // The 304-capture sample (the one input of many chunks) comes in 4 pieces over
    // 20 s; the other two at once. They commit while the sample's task has parts on
    // disk for ~10 s, and the kill below waits for that state instead of racing a
    // window of milliseconds (when every input was slow, all three tasks committed
    // within ~40 ms of each other).
    let slow = format!("/{}", rel[0]);
    assert!(slow.ends_with("cc-robotstxt-sample.warc.gz"), "{rel:?}");
    server.set_faults(serde_json::json!({
        slow: [{"kind": "slow", "seconds": 20, "times": -1}],
    }));
    let out = dir.join("out-killed");
    let (list, base, out_arg) = (server.url("paths.txt"), server.url(""), path_arg(&out));
    let mut remote = vec![
        "--inputs-from",
        &list,
        "--input-base-url",
        &base,
        "--out",
        &out_arg,
    ];
    remote.extend(common);
    let stderr_path = dir.join("killed-run.stderr");
    let stderr = std::fs::File::create(&stderr_path).expect("stderr file");
    let mut child = bin()
        .arg("run")
        .args(&remote)
        .args(["--agents", AGENTS, "-q"])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("start the run");
    // Kill it once the two fast tasks are committed and the slow one has temporary parts.
    let deadline = Instant::now() + Duration::from_secs(120);
    while manifests(&out).len() != rel.len() - 1 || temporaries(&out).is_empty() {
        assert!(Instant::now() < deadline, "no task finished in 120 s");
        if let Some(status) = child.try_wait().expect("poll") {
            panic!(
                "the run ended ({status}) before it could be killed; manifests {:?}, stderr:\n{}",
                manifests(&out),
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().expect("SIGKILL");
    let killed = child.wait().expect("wait");
    assert_eq!(killed.code(), None, "killed by a signal");
    let done_before = manifests(&out);
    assert!(
        done_before.len() == rel.len() - 1,
        "killed mid-run: {done_before:?} of {} tasks",
        rel.len()
    );
    let leftovers = temporaries(&out);
    assert!(!leftovers.is_empty(), "temporaries of the killed task");

    // Resume, faults off: only the unfinished tasks are read again.
    server.set_faults(serde_json::json!({}));
    server.reset_stats();
    remote.push("--resume");
    let output = census(&remote, &[]);
    assert_eq!(output.status.code(), local_code);
    assert_same_rows(&local, &out);
    assert_eq!(manifests(&out).len(), rel.len());
    assert_eq!(temporaries(&out), Vec::<PathBuf>::new(), "temporaries left");
    // The log may still hold the killed run's last request (it ended after the
    // reset): the resumed run's requests start with its list.
    let mut log: Vec<serde_json::Value> = server.stats()["log"].as_array().expect("log").clone();
    log.sort_by(|a, b| {
        a["time"]
            .as_f64()
            .partial_cmp(&b["time"].as_f64())
            .expect("time")
    });
    let start = log
        .iter()
        .position(|e| is_request_to(e, "/paths.txt"))
        .expect("the resumed run read its list");
    let requested = &log[start..];
    for manifest in &done_before {
        let text =
            std::fs::read_to_string(out.join("_manifests").join(manifest)).expect("manifest");
        let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        for input in manifest["inputs"].as_array().expect("inputs") {
            let source = input["source"].as_str().expect("source");
            let path = source.trim_start_matches(base.trim_end_matches('/'));
            assert!(
                !requested.iter().any(|e| is_request_to(e, path)),
                "{path} was read again though its task was done"
            );
        }
    }
    assert_eq!(
        requested.len(),
        1 + rel.len() - done_before.len(),
        "the list, then each unfinished input once: {requested:?}"
    );
}

/// `sites` and `changes` on an S3 dataset (moto) write the very files they write on a
/// local copy of it, one crawl at a time as machines of a cluster would (`--shard`),
/// `query` reads them there, and `status --step` says when every crawl is decided.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (damaged WARC samples) and the venv (moto S3 server, boto3): make test"
)]
fn the_steps_after_the_run_work_on_an_s3_dataset() {
    let dir = scratch("remote_out_steps");
    let (root, rel) = serve_tree(&dir, &sample_files());
    let inputs: Vec<String> = rel.iter().map(|r| path_arg(&root.join(r))).collect();
    let s3 = moto_server("steps-test", &[]);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("mkdir tmp");
    let mut env = s3_env(s3.port);
    env.push(("TMPDIR", path_arg(&tmp)));
    let robots = |args: &[&str]| {
        let mut cmd = bin();
        cmd.args(args);
        for (key, value) in &env {
            cmd.env(key, value);
        }
        cmd.output().expect("robots-census runs")
    };
    let url = "s3://steps-test/study";
    let local = dir.join("out-local");
    let local_s = path_arg(&local);
    for out in [local_s.as_str(), url] {
        let mut args: Vec<&str> = vec!["run"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(["--out", out, "--inputs-per-task", "2", "--quiet"]);
        let output = robots(&args);
        assert!(
            output.status.code().is_some_and(|c| c <= 1),
            "run {out}: {}",
            stderr(&output)
        );
        // Not decided yet.
        assert_eq!(
            robots(&["status", out, "--step", "sites"]).status.code(),
            Some(1)
        );
        // One crawl per "machine", as the Indexed Job of deploy/ runs them.
        for shard in ["0/2", "1/2"] {
            let output = robots(&["sites", out, "--shard", shard, "--quiet"]);
            assert_eq!(
                output.status.code(),
                Some(0),
                "sites {out} {shard}: {}",
                stderr(&output)
            );
        }
        let output = robots(&["status", out, "--step", "sites"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
        let output = robots(&["changes", out, "--consecutive", "--quiet"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "changes {out}: {}",
            stderr(&output)
        );
        let output = robots(&["status", out, "--step", "changes"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
    let copy = dir.join("out-s3-copy");
    download(s3.port, "steps-test", "study", &copy);
    let (want, got) = (tree(&local), tree(&copy));
    for table in ["sites/", "changes/"] {
        let names = |t: &std::collections::BTreeMap<String, Vec<u8>>| -> Vec<String> {
            t.keys().filter(|k| k.starts_with(table)).cloned().collect()
        };
        assert_eq!(names(&want), names(&got), "{table}: the same files");
        assert!(
            names(&want).iter().any(|k| k.ends_with(".parquet")),
            "{table} has parts"
        );
        for name in names(&want).iter().filter(|k| k.ends_with(".parquet")) {
            assert!(got[name] == want[name], "{name} differs");
        }
    }
    let count = |out: &str| {
        let output = robots(&[
            "query",
            out,
            "--format",
            "csv",
            "-e",
            "SELECT count(*) AS n FROM sites",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(
        count(url),
        count(&local_s),
        "query reads the S3 sites table"
    );
    assert_eq!(
        temporaries(&tmp),
        Vec::<PathBuf>::new(),
        "staging and spill left behind"
    );
}
