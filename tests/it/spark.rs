//! Engines run the binary's tasks: `run --plan` lists them, and
//! `spark/robots_census_spark.py` runs one Spark task per CLI task in Spark local mode
//! `local[2,3]` (two cores, three attempts per task). A wrapper in front of the real
//! binary fails the first attempt of one task with exit 75 and runs another task twice
//! at once; the dataset must still equal a single-machine run, byte for byte and row for
//! row, with `_SUCCESS`. A task exiting 2 fails the job without being retried.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::{bin, gz_record, http_block, python, repo, scratch, table_rows, tree, TABLES};

/// Longest a spark-submit may take here (start-up alone is 15-40 s on a busy 2-core VM).
const SPARK_LIMIT: Duration = Duration::from_secs(480);

/// One Spark application at a time: two JVMs would only slow each other down.
static SPARK: Mutex<()> = Mutex::new(());

/// Small Common Crawl-like `.warc.gz` inputs `in/in-<i>.warc.gz`, `sizes[i]` responses
/// each, the even ones of crawl CC-MAIN-2024-10 (warcinfo) and the odd ones of
/// CC-MAIN-2024-18; returns their absolute paths in sorted order (= task order).
pub(crate) fn crawl_inputs(dir: &Path, sizes: &[usize]) -> Vec<PathBuf> {
    let root = dir.join("in");
    std::fs::create_dir_all(&root).expect("input dir");
    let mut paths = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let crawl = if i % 2 == 0 {
            "CC-MAIN-2024-10"
        } else {
            "CC-MAIN-2024-18"
        };
        let fields = format!("software: test\r\nisPartOf: {crawl}\r\n");
        let mut file = gz_record("warcinfo", "", fields.as_bytes());
        for r in 0..n {
            let host = format!("h{i}-{r}.example");
            let body = format!(
                "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/{r}\nSitemap: https://{host}/s.xml\n"
            );
            let status = if r % 7 == 3 { 404 } else { 200 };
            file.extend(gz_record(
                "response",
                &format!("https://{host}/robots.txt"),
                &http_block(status, body.as_bytes()),
            ));
        }
        let path = root.join(format!("in-{i}.warc.gz"));
        std::fs::write(&path, file).expect("write input");
        paths.push(path);
    }
    paths
}

/// What a bounded child process left: exit code (None when killed by a signal),
/// stdout and stderr.
pub(crate) struct Finished {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` in its own process group with its output in files under `dir`; kills
/// the whole group and fails the test when it runs longer than `limit`.
pub(crate) fn run_bounded(mut cmd: Command, dir: &Path, limit: Duration) -> Finished {
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .process_group(0);
    let mut child = cmd.spawn().expect("spawn");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(format!("-{}", child.id()))
                .status();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            panic!(
                "{cmd:?} ran over {limit:?}; stderr ends:\n{}",
                tail(&stderr, 3000)
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    Finished {
        code: status.code(),
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

pub(crate) fn tail(text: &str, n: usize) -> &str {
    let start = text.len().saturating_sub(n);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..]
}

/// Every file of a dataset but `_SUCCESS` (which only `status` writes).
pub(crate) fn dataset_files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = tree(out);
    files.remove("_SUCCESS");
    files
}

/// Asserts that two datasets are the same: the same files with the same bytes, and
/// (said separately, so a failure shows which) the same rows in every table.
pub(crate) fn assert_same_dataset(got: &Path, want: &Path) {
    for table in TABLES {
        let rows = table_rows(got, table);
        assert_eq!(rows, table_rows(want, table), "rows of {table}");
    }
    let got_files = dataset_files(got);
    let want_files = dataset_files(want);
    assert_eq!(
        got_files.keys().collect::<Vec<_>>(),
        want_files.keys().collect::<Vec<_>>(),
        "file names"
    );
    for (name, bytes) in &want_files {
        assert!(got_files[name] == *bytes, "{name} differs");
    }
}

/// A plain single-machine run of `inputs` into `out`.
fn full_run(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("run")
        .args(inputs)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .expect("run robots-census")
}

#[test]
fn plan_lists_the_tasks_a_run_writes_and_touches_nothing() {
    let dir = scratch("spark-plan");
    let inputs = crawl_inputs(&dir, &[2, 1, 3, 1, 2]);
    let out = dir.join("out");
    let plan = |extra: &[&str]| {
        let output = full_run(
            &inputs,
            &out,
            &[&["--plan", "--inputs-per-task", "2"], extra].concat(),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("utf-8")
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
            .collect::<Vec<_>>()
    };
    let lines = plan(&[]);
    assert!(!out.exists(), "--plan created --out");
    assert_eq!(lines[0]["tasks"], 3);
    assert_eq!(lines[0]["inputs"], 5);
    assert_eq!(lines[0]["inputs_per_task"], 2);
    assert_eq!(lines[0]["out"], out.to_string_lossy().as_ref());
    let tasks = &lines[1..];
    let names: Vec<String> = inputs
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    for (i, chunk) in names.chunks(2).enumerate() {
        assert_eq!(tasks[i]["index"], i);
        assert_eq!(tasks[i]["inputs"], serde_json::json!(chunk));
    }
    assert_eq!(tasks.len(), 3);
    let shard = plan(&["--shard", "1/2"]);
    assert_eq!(shard[0]["tasks"], 3, "the header counts every task");
    assert_eq!(
        &shard[1..],
        &[tasks[1].clone()],
        "shard 1/2 holds task 1 only"
    );

    // A real run writes exactly the planned tasks, under the planned names and settings.
    let ran = full_run(&inputs, &out, &["--inputs-per-task", "2"]);
    assert_eq!(ran.status.code(), Some(0));
    for task in tasks {
        let name = task["name"].as_str().expect("name");
        let manifest: serde_json::Value = serde_json::from_slice(
            &std::fs::read(out.join("_manifests").join(format!("{name}.json"))).expect("manifest"),
        )
        .expect("manifest JSON");
        assert_eq!(manifest["index"], task["index"]);
        assert_eq!(manifest["fingerprint"], lines[0]["fingerprint"]);
        let sources: Vec<&serde_json::Value> = manifest["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .map(|i| &i["source"])
            .collect();
        assert_eq!(
            sources,
            task["inputs"]
                .as_array()
                .expect("inputs")
                .iter()
                .collect::<Vec<_>>()
        );
    }
    assert_eq!(
        std::fs::read_dir(out.join("_manifests"))
            .expect("manifests")
            .count(),
        3
    );
}

/// Which tasks the wrapper disturbs.
#[derive(Default)]
struct Faults {
    /// The first attempt of this task exits 75 without running.
    fail_once: Option<usize>,
    /// This task runs the real binary twice at the same time.
    twice_at_once: Option<usize>,
    /// This task exits 2 without running.
    usage_error: Option<usize>,
}

/// `<dir>/ship/robots-census`: a shell script that stands in for the binary (shipped
/// with `--files`, as a real job ships the binary), logging to `<dir>/log`.
fn wrapper(dir: &Path, faults: &Faults) -> PathBuf {
    let ship = dir.join("ship");
    std::fs::create_dir_all(&ship).expect("ship dir");
    let real = env!("CARGO_BIN_EXE_robots-census");
    let task = |t: Option<usize>| t.map_or("none".to_owned(), |t| t.to_string());
    let script = format!(
        r#"#!/bin/sh
# Test double of robots-census for tests/it/spark.rs.
real='{real}'; state='{state}'
shard=; prev=
for a in "$@"; do [ "$prev" = --shard ] && shard=$a; prev=$a; done
[ -z "$shard" ] && exec "$real" "$@"
task=${{shard%%/*}}
echo "start $task" >> "$state/log"
if [ "$task" = {fail} ] && mkdir "$state/failed-once" 2>/dev/null; then
  echo "injected transient failure" >&2; exit 75
fi
if [ "$task" = {usage} ]; then echo "injected usage error" >&2; exit 2; fi
if [ "$task" = {twice} ]; then
  "$real" "$@" & a=$!
  "$real" "$@" & b=$!
  if kill -0 $a 2>/dev/null && kill -0 $b 2>/dev/null; then echo "both running $task" >> "$state/log"; fi
  wait $a; ca=$?; wait $b; cb=$?
  echo "twice $task exits $ca $cb" >> "$state/log"
  [ $ca -ne 0 ] && exit $ca
  exit $cb
fi
exec "$real" "$@"
"#,
        state = dir.display(),
        fail = task(faults.fail_once),
        usage = task(faults.usage_error),
        twice = task(faults.twice_at_once),
    );
    let path = ship.join("robots-census");
    std::fs::write(&path, script).expect("write wrapper");
    let mut perms = std::fs::metadata(&path).expect("wrapper").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).expect("chmod wrapper");
    path
}

/// `spark-submit --master local[2,3] --files <wrapper> spark/robots_census_spark.py
/// <run args>` from the venv, Spark bound to 127.0.0.1.
fn spark_submit(dir: &Path, shipped: &Path, run_args: &[String]) -> Finished {
    let java = Command::new("java").arg("-version").output();
    assert!(
        java.is_ok_and(|o| o.status.success()),
        "java not found: `make java` installs openjdk-17-jre-headless"
    );
    let python = python();
    let venv_bin = python.parent().expect("venv bin").to_owned();
    let submit = venv_bin.join("spark-submit");
    assert!(
        submit.exists(),
        "{} not found: `make venv` installs pyspark",
        submit.display()
    );
    let path = std::env::join_paths(std::iter::once(venv_bin.clone()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let mut cmd = Command::new(&submit);
    cmd.current_dir(dir)
        .env("PATH", path)
        .env("PYSPARK_PYTHON", &python)
        .env("PYSPARK_DRIVER_PYTHON", &python)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("AWS_BATCH_JOB_ARRAY_INDEX")
        .args(["--master", "local[2,3]"])
        .args(["--conf", "spark.ui.enabled=false"])
        .args(["--conf", "spark.driver.bindAddress=127.0.0.1"])
        .args(["--conf", "spark.driver.host=127.0.0.1"])
        .args(["--conf", "spark.log.level=WARN"])
        .arg("--files")
        .arg(shipped)
        .arg(repo().join("spark/robots_census_spark.py"))
        .args(run_args);
    run_bounded(cmd, dir, SPARK_LIMIT)
}

fn log_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Java (Spark local) and the venv (pyspark): make test"
)]
fn spark_job_equals_one_machine_despite_a_retried_and_a_doubled_task() {
    let _one = SPARK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("spark-job");
    // Task 4 is the largest, so its two copies certainly overlap.
    let sizes = [30, 25, 40, 10, 1500, 20];
    let inputs = crawl_inputs(&dir, &sizes);
    let full = dir.join("full");
    let single = full_run(&inputs, &full, &[]);
    assert_eq!(
        single.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&single.stderr)
    );

    let faults = Faults {
        fail_once: Some(2),
        twice_at_once: Some(4),
        usage_error: None,
    };
    let shipped = wrapper(&dir, &faults);
    let out = dir.join("spark-out");
    let mut args: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    args.extend(["--out".into(), out.display().to_string(), "--quiet".into()]);
    let job = spark_submit(&dir, &shipped, &args);
    assert_eq!(
        job.code,
        Some(0),
        "spark-submit failed:\n{}",
        tail(&job.stderr, 6000)
    );

    let log = log_lines(&dir);
    let starts = |t: usize| log.iter().filter(|l| **l == format!("start {t}")).count();
    assert_eq!(starts(2), 2, "task 2: failed once, retried once: {log:?}");
    assert!(dir.join("failed-once").is_dir());
    assert_eq!(starts(4), 1, "task 4 ran as one Spark attempt: {log:?}");
    assert!(log.contains(&"both running 4".to_owned()), "{log:?}");
    assert!(log.contains(&"twice 4 exits 0 0".to_owned()), "{log:?}");
    for t in [0, 1, 3, 5] {
        assert_eq!(starts(t), 1, "task {t}: {log:?}");
    }

    // The driver's last stdout line: its summary, with `status` inside.
    let summary: serde_json::Value =
        serde_json::from_str(job.stdout.lines().last().expect("a summary line"))
            .expect("summary JSON");
    assert_eq!(summary["tasks"], 6);
    assert_eq!(
        summary["retried"], 1,
        "one task committed on its second attempt"
    );
    assert_eq!(summary["status"]["complete"], true);

    let success: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).expect("_SUCCESS"))
            .expect("_SUCCESS JSON");
    assert_eq!(success["complete"], true);
    assert_eq!(success["tasks"], 6);
    assert_eq!(success["done"], 6);
    assert_eq!(success["documents"], sizes.iter().sum::<usize>());
    assert_same_dataset(&out, &full);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Java (Spark local) and the venv (pyspark): make test"
)]
fn spark_job_fails_at_once_when_a_task_exits_2() {
    let _one = SPARK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("spark-usage");
    let inputs = crawl_inputs(&dir, &[5, 5, 5, 5]);
    let faults = Faults {
        usage_error: Some(1),
        ..Faults::default()
    };
    let shipped = wrapper(&dir, &faults);
    let out = dir.join("spark-out");
    let mut args: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    args.extend(["--out".into(), out.display().to_string(), "--quiet".into()]);
    let job = spark_submit(&dir, &shipped, &args);
    assert_eq!(job.code, Some(2), "{}", tail(&job.stderr, 6000));
    // spark-submit merges the Python driver's stderr into its stdout.
    let said = format!("{}{}", job.stdout, job.stderr);
    assert!(
        said.contains("task 1 (") && said.contains("exited 2 (not retried)"),
        "{}",
        tail(&said, 6000)
    );
    assert!(
        said.contains("injected usage error"),
        "{}",
        tail(&said, 6000)
    );
    let log = log_lines(&dir);
    assert_eq!(
        log.iter().filter(|l| *l == "start 1").count(),
        1,
        "exit 2 is not retried: {log:?}"
    );
    assert!(!out.join("_SUCCESS").exists());
}
