//! The dataset a run writes: tasks, crawl partitions, manifests, the commit
//! protocol under concurrent and resumed runs, and which inputs a run reads.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{
    bin, gz_record, http_block, input_reports, parts, read_table, scratch, strings, table_rows,
    TABLES,
};

fn run(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> Output {
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

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A `.warc.gz` with a warcinfo record naming `crawl` (when given) and `n` responses.
fn warc(path: &Path, crawl: Option<&str>, n: usize, tag: &str) {
    let mut file = Vec::new();
    if let Some(crawl) = crawl {
        let fields = format!("software: test\r\nisPartOf: {crawl}\r\n");
        file.extend(gz_record("warcinfo", "", fields.as_bytes()));
    }
    for i in 0..n {
        let body = format!("User-agent: GPTBot\nDisallow: /{tag}{i}\n\nUser-agent: *\nAllow: /\n");
        file.extend(gz_record(
            "response",
            &format!("https://{tag}{i}.example/robots.txt"),
            &http_block(200, body.as_bytes()),
        ));
    }
    std::fs::write(path, file).expect("write warc");
}

/// Eight small inputs of two crawls, one named by warcinfo and one by path.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let root = dir.join("in");
    std::fs::create_dir_all(root.join("CC-MAIN-2024-10")).expect("dirs");
    let mut paths = Vec::new();
    for i in 0..4 {
        let p = root.join(format!("a{i}.warc.gz"));
        warc(&p, Some("CC-MAIN-2023-50"), 5, &format!("a{i}x"));
        paths.push(p);
        let p = root.join(format!("CC-MAIN-2024-10/b{i}.warc.gz"));
        warc(&p, None, 3, &format!("b{i}x"));
        paths.push(p);
    }
    paths.sort();
    paths
}

#[test]
fn tasks_group_inputs_and_crawls_partition_every_table() {
    let dir = scratch("dataset-tasks");
    let inputs = inputs(&dir);
    let per_input = dir.join("k1");
    let per_three = dir.join("k3");
    assert_eq!(run(&inputs, &per_input, &[]).status.code(), Some(0));
    let out = run(&inputs, &per_three, &["--inputs-per-task", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 8 inputs, 3 per task: 3 tasks, 3 manifests; the first task holds a0, a1 and
    // a2 (sorted list: `in/CC-MAIN-2024-10/...` sorts before `in/a0...`).
    let manifests: Vec<_> = std::fs::read_dir(per_three.join("_manifests"))
        .expect("manifests")
        .flatten()
        .collect();
    assert_eq!(manifests.len(), 3);
    let reports = input_reports(&per_three);
    assert_eq!(reports.len(), 8);
    for r in &reports {
        let source = r["source"].as_str().expect("source");
        let want = if source.contains("/a") {
            "CC-MAIN-2023-50"
        } else {
            "CC-MAIN-2024-10"
        };
        assert_eq!(r["crawl"], want, "{source}");
    }
    // Every table is partitioned by crawl, and its `crawl` column agrees.
    for table in TABLES {
        for part in parts(&per_three, table) {
            let dir_name = part
                .parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .expect("partition dir");
            let batches = crate::support::read_table_file(&part);
            for crawl in strings(&batches, "crawl") {
                assert_eq!(format!("crawl={}", crawl.expect("crawl")), dir_name);
            }
        }
    }
    // Task 1 (inputs 3..6) spans both crawls: one part per crawl for it.
    let docs: Vec<String> = parts(&per_three, "documents")
        .iter()
        .map(|p| {
            p.strip_prefix(&per_three)
                .expect("in out")
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(docs.len(), 4, "{docs:?}");
    assert_eq!(docs.iter().filter(|d| d.contains("task-00001-")).count(), 2);
    // Same rows whatever the task size.
    for table in TABLES {
        assert_eq!(
            table_rows(&per_input, table),
            table_rows(&per_three, table),
            "{table}: rows depend on --inputs-per-task"
        );
    }
    assert_eq!(read_table(&per_three, "documents").len(), 4);
    let documents: usize = read_table(&per_three, "documents")
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(documents, 4 * 5 + 4 * 3);
}

#[test]
fn resume_under_other_settings_is_refused_naming_them() {
    let dir = scratch("dataset-settings");
    let inputs = inputs(&dir);
    let out = dir.join("out");
    assert_eq!(
        run(&inputs, &out, &["--agents", "GPTBot"]).status.code(),
        Some(0)
    );
    let again = run(&inputs, &out, &["--agents", "CCBot", "--resume"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("agents"), "{}", stderr(&again));
    let tables = run(
        &inputs,
        &out,
        &["--agents", "GPTBot", "--tables", "agents", "--resume"],
    );
    assert_eq!(tables.status.code(), Some(2));
    assert!(stderr(&tables).contains("tables"), "{}", stderr(&tables));
    let fewer = run(&inputs[..3], &out, &["--agents", "GPTBot", "--resume"]);
    assert_eq!(fewer.status.code(), Some(2));
    assert!(stderr(&fewer).contains("inputs"), "{}", stderr(&fewer));
    // The same settings resume (nothing to do) and keep every row.
    let before = table_rows(&out, "agents");
    let same = run(&inputs, &out, &["--agents", "GPTBot", "--resume"]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert_eq!(table_rows(&out, "agents"), before);
}

/// Two `--resume` runs at once on one output (and a third afterwards) leave exactly
/// the files of one clean run: temporaries are per process, renames are atomic.
#[test]
fn concurrent_resumes_leave_the_bytes_of_one_run() {
    let dir = scratch("dataset-concurrent");
    let inputs = inputs(&dir);
    let reference = dir.join("reference");
    assert_eq!(run(&inputs, &reference, &[]).status.code(), Some(0));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).expect("out");
    for _ in 0..3 {
        let spawn = || {
            bin()
                .arg("run")
                .args(&inputs)
                .arg("--out")
                .arg(&out)
                .args(["--quiet", "--resume", "--threads", "1"])
                .spawn()
                .expect("spawn")
        };
        let (mut a, mut b) = (spawn(), spawn());
        assert_eq!(a.wait().expect("wait").code(), Some(0));
        assert_eq!(b.wait().expect("wait").code(), Some(0));
    }
    assert_eq!(crate::support::tree(&out), crate::support::tree(&reference));
}

#[test]
fn an_input_named_twice_is_read_once() {
    let dir = scratch("dataset-twice");
    let inputs = inputs(&dir);
    let first = inputs[0].clone();
    let link = dir.join("link.warc.gz");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&first, &link).expect("symlink");
    let dotted = first
        .parent()
        .expect("parent")
        .join(".")
        .join(first.file_name().expect("name"));
    let out = dir.join("out");
    let output = run(&[first.clone(), first.clone(), dotted, link], &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reports = input_reports(&out);
    assert_eq!(reports.len(), 1, "one input, read once");
    assert_eq!(reports[0]["source"], first.to_string_lossy().as_ref());
}

#[test]
fn walks_end_on_link_cycles_and_skip_the_output_and_fifos() {
    let dir = scratch("dataset-walk");
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("sub")).expect("dirs");
    warc(&tree.join("sub/one.warc.gz"), None, 2, "w");
    std::os::unix::fs::symlink(".", tree.join("me")).expect("link");
    std::os::unix::fs::symlink("..", tree.join("sub/up")).expect("link");
    let fifo = tree.join("pipe.warc");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let out = tree.join("out");
    // The first run writes its output inside the walked tree; the second must not
    // read it back as inputs.
    for extra in [&[][..], &["--overwrite"][..]] {
        let output = bin()
            .arg("run")
            .arg(&tree)
            .arg("--out")
            .arg(&out)
            .arg("--quiet")
            .args(extra)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let reports = input_reports(&out);
        let sources: Vec<&str> = reports
            .iter()
            .map(|r| r["source"].as_str().expect("source"))
            .collect();
        assert_eq!(sources.len(), 1, "{sources:?}");
        assert!(sources[0].ends_with("sub/one.warc.gz"));
    }
    // A FIFO named on the command line is an error row, not a hang.
    let output = run(std::slice::from_ref(&fifo), &dir.join("fifo-out"), &[]);
    assert_eq!(output.status.code(), Some(1));
    let errors = read_table(&dir.join("fifo-out"), "errors");
    let messages = strings(&errors, "message");
    assert!(
        messages[0]
            .as_deref()
            .is_some_and(|m| m.contains("not a regular file")),
        "{messages:?}"
    );
}

// Needs the binary's `fault-injection` feature (`make test` builds it).
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_on_one_input_is_its_error_row_and_the_run_goes_on() {
    let dir = scratch("dataset-panic");
    let inputs = inputs(&dir);
    let out = dir.join("out");
    let output = bin()
        .arg("run")
        .args(&inputs)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .env(
            "ROBOTS_CENSUS_PANIC_ON_URL",
            "https://a1x2.example/robots.txt",
        )
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let errors = read_table(&out, "errors");
    let codes = strings(&errors, "code");
    let sources = strings(&errors, "source");
    let at: Vec<usize> = (0..codes.len())
        .filter(|&i| codes[i].as_deref() == Some("internal_panic"))
        .collect();
    assert_eq!(at.len(), 1, "{codes:?}");
    assert!(sources[at[0]]
        .as_deref()
        .is_some_and(|s| s.ends_with("a1.warc.gz")));
    // The panicking input's task started again with it as that one row: none of its
    // rows (written before the panic by a writer the panic may have left half-way)
    // are kept. Every other input is complete.
    assert_eq!(
        sources
            .iter()
            .flatten()
            .filter(|s| s.ends_with("a1.warc.gz"))
            .count(),
        1,
        "{sources:?}"
    );
    let documents = read_table(&out, "documents");
    assert!(!strings(&documents, "source")
        .iter()
        .flatten()
        .any(|s| s.ends_with("a1.warc.gz")));
    let reports = input_reports(&out);
    assert_eq!(reports.len(), 8);
    for r in &reports {
        let source = r["source"].as_str().expect("source");
        let panicked = source.ends_with("a1.warc.gz");
        assert_eq!(r["problems"], u64::from(panicked), "{source}");
        assert_eq!(r["unreadable"], panicked, "{source}");
        if !panicked {
            assert!(r["documents"].as_u64().unwrap_or(0) > 0, "{source}");
        }
    }
}

#[test]
fn too_many_questions_per_document_is_a_usage_error() {
    let dir = scratch("dataset-questions");
    let inputs = inputs(&dir);
    let paths: Vec<String> = (0..2000).map(|i| format!("/p{i}")).collect();
    let output = run(
        &inputs,
        &dir.join("out"),
        &["--agents", "a,b,c,d,e,f", "--paths", &paths.join(",")],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("12000 questions per document"),
        "{}",
        stderr(&output)
    );
    // Issue 22: paths + urls_per_host wrapped around to a count that passed the check.
    let urls = dir.join("urls.txt");
    std::fs::write(&urls, "https://a0x0.example/x\n").expect("urls");
    let huge = (usize::MAX - 1).to_string();
    let output = run(
        &inputs,
        &dir.join("out-wrap"),
        &[
            "--paths",
            "/,/a",
            "--urls",
            urls.to_str().expect("utf-8 path"),
            "--urls-per-host",
            &huge,
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("questions per document"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn unparsed_documents_have_null_parse_facts() {
    let dir = scratch("dataset-null-facts");
    let path = dir.join("statuses.warc.gz");
    let mut file = Vec::new();
    for (i, status) in [200u16, 404, 503, 301].into_iter().enumerate() {
        file.extend(gz_record(
            "response",
            &format!("https://s{i}.example/robots.txt"),
            &http_block(status, b"<html>not here</html>\n"),
        ));
    }
    std::fs::write(&path, file).expect("write");
    let out = dir.join("out");
    assert_eq!(run(&[path], &out, &[]).status.code(), Some(0));
    let docs = read_table(&out, "documents");
    let statuses = crate::support::ints(&docs, "http_status");
    let html = crate::support::bools(&docs, "looks_like_html");
    let utf8 = crate::support::bools(&docs, "valid_utf8");
    let size = crate::support::ints(&docs, "parsed_size");
    let groups = crate::support::ints(&docs, "n_groups");
    for i in 0..statuses.len() {
        if statuses[i] == Some(200) {
            assert_eq!(
                (html[i], utf8[i], size[i], groups[i]),
                (Some(true), Some(true), Some(22), Some(0))
            );
        } else {
            assert_eq!(
                (html[i], utf8[i], size[i], groups[i]),
                (None, None, None, None),
                "status {:?}",
                statuses[i]
            );
        }
    }
}

/// Shards `i/3` (and `auto/3` from the engines' index variables) write disjoint
/// tasks whose union is one full run, byte for byte; `status` reports the missing
/// tasks until the last shard, then writes `_SUCCESS` with the totals.
#[test]
fn shards_union_to_a_full_run_and_status_tracks_them() {
    let dir = scratch("dataset-shards");
    let inputs = inputs(&dir);
    let full = dir.join("full");
    assert_eq!(run(&inputs, &full, &[]).status.code(), Some(0));
    let out = dir.join("sharded");
    let status = |json: bool| {
        let mut cmd = bin();
        cmd.arg("status").arg(&out);
        if json {
            cmd.arg("--json");
        }
        cmd.output().expect("status")
    };
    let shard = |index: &str, var: Option<&str>| {
        let mut cmd = bin();
        cmd.arg("run")
            .args(&inputs)
            .arg("--out")
            .arg(&out)
            .arg("--quiet")
            .args(["--shard", index])
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("AWS_BATCH_JOB_ARRAY_INDEX");
        if let Some((name, value)) = var.and_then(|v| v.split_once('=')) {
            cmd.env(name, value);
        }
        cmd.output().expect("shard")
    };
    let unset = shard("auto/3", None);
    assert_eq!(unset.status.code(), Some(2));
    assert!(stderr(&unset).contains("JOB_COMPLETION_INDEX"));
    assert_eq!(shard("3/3", None).status.code(), Some(2));
    assert_eq!(status(false).status.code(), Some(2), "no dataset yet");

    assert_eq!(shard("0/3", None).status.code(), Some(0));
    let partial = status(true);
    assert_eq!(partial.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&partial.stdout).expect("json");
    // 8 tasks of one input: shard 0 holds tasks 0, 3, 6.
    assert_eq!(report["tasks"], 8);
    assert_eq!(report["done"], 3);
    assert_eq!(report["missing_tasks"], serde_json::json!([1, 2, 4, 5, 7]));
    assert!(!out.join("_SUCCESS").exists());

    assert_eq!(
        shard("auto/3", Some("JOB_COMPLETION_INDEX=1"))
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        shard("auto/3", Some("AWS_BATCH_JOB_ARRAY_INDEX=2"))
            .status
            .code(),
        Some(0)
    );
    let done = status(true);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let success: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).expect("_SUCCESS"))
            .expect("json");
    assert_eq!(success["complete"], true);
    assert_eq!(success["documents"], 32);
    assert_eq!(success["inputs"], 8);
    let mut sharded = crate::support::tree(&out);
    assert!(sharded.remove("_SUCCESS").is_some());
    assert_eq!(
        sharded,
        crate::support::tree(&full),
        "union of shards = full run"
    );
}

/// Can this machine run a command in a new PID namespace (root, util-linux `unshare`)?
fn pid_namespaces_available() -> bool {
    std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn two_machines_sharing_one_out_do_not_delete_each_others_parts() {
    // Issue 22: a start removed every temporary whose PID was not alive in *its own*
    // /proc. Two machines writing shards into one directory on a shared file system (two
    // PID namespaces here, where each run is PID 1 or near) deleted each other's
    // in-flight parts: "cannot write .../task-....parquet: No such file or directory".
    if !pid_namespaces_available() {
        eprintln!(
            "skipped: `unshare --pid --fork --mount-proc` is not available here (needs root)"
        );
        return;
    }
    let dir = scratch("dataset-two-machines");
    let root = dir.join("in");
    std::fs::create_dir_all(&root).expect("dirs");
    let inputs: Vec<PathBuf> = (0..24)
        .map(|i| {
            let p = root.join(format!("m{i:02}.warc.gz"));
            warc(&p, Some("CC-MAIN-2024-10"), 1500, &format!("m{i}x"));
            p
        })
        .collect();
    let full = dir.join("full");
    let flags = ["--threads", "1", "--inputs-per-task", "1"];
    let reference = run(&inputs, &full, &flags);
    assert_eq!(reference.status.code(), Some(0), "{}", stderr(&reference));
    let out = dir.join("shared-out");
    std::fs::create_dir_all(&out).expect("out");
    let machine = |shard: &str| {
        std::process::Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc"])
            .arg(env!("CARGO_BIN_EXE_robots-census"))
            .arg("run")
            .args(&inputs)
            .arg("--out")
            .arg(&out)
            .args(flags)
            .args(["--quiet", "--resume", "--shard", shard])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn unshare")
    };
    let a = machine("0/2");
    // The second machine starts while the first has parts in flight.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let in_flight = || {
        walkdir::WalkDir::new(&out)
            .into_iter()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
    };
    while !in_flight() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let b = machine("1/2");
    for (name, child) in [("shard 0/2", a), ("shard 1/2", b)] {
        let output = child.wait_with_output().expect("wait");
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
    }
    let status = bin().arg("status").arg(&out).output().expect("status");
    assert_eq!(status.status.code(), Some(0), "{}", stderr(&status));
    let mut union = crate::support::tree(&out);
    assert!(union.remove("_SUCCESS").is_some());
    assert_eq!(
        union,
        crate::support::tree(&full),
        "union of the machines = one run"
    );
}

/// The task names of a finished run, from its manifests, in order.
fn task_names(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("_manifests"))
        .expect("manifests")
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_resumed_task_removes_what_an_earlier_attempt_wrote_under_another_crawl() {
    // Issue 22: an attempt that exited 75 before reading the warcinfo record wrote its
    // parts under crawl=unknown (with its error row); the resumed task wrote crawl=<real>
    // beside them, and a glob over errors/*/*.parquet still read the stale row.
    let dir = scratch("dataset-stale-attempt");
    let inputs = inputs(&dir);
    let reference = dir.join("reference");
    assert_eq!(run(&inputs, &reference, &[]).status.code(), Some(0));
    let out = dir.join("out");
    assert_eq!(run(&inputs, &out, &[]).status.code(), Some(0));
    // Task 0 as an earlier, failed attempt left it: parts under crawl=unknown, no manifest.
    let task = task_names(&out).remove(0);
    let mut planted = Vec::new();
    for table in TABLES {
        let stale_dir = out.join(table).join("crawl=unknown");
        std::fs::create_dir_all(&stale_dir).expect("mkdir");
        let from = crate::support::parts(&out, table)
            .into_iter()
            .find(|p| p.to_string_lossy().contains(&task))
            .expect("a part of task 0");
        let stale = stale_dir.join(from.file_name().expect("name"));
        std::fs::copy(&from, &stale).expect("copy");
        planted.push(stale);
    }
    std::fs::remove_file(out.join("_manifests").join(format!("{task}.json"))).expect("rm");
    let resumed = run(&inputs, &out, &["--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    for stale in &planted {
        assert!(
            !stale.exists(),
            "{} is left from the earlier attempt",
            stale.display()
        );
    }
    for table in TABLES {
        // The emptied crawl=unknown directories may stay; no part file may.
        let _ = std::fs::remove_dir(out.join(table).join("crawl=unknown"));
    }
    assert_eq!(crate::support::tree(&out), crate::support::tree(&reference));
}

#[test]
fn a_task_whose_commit_fails_leaves_none_of_its_parts_in_place() {
    // Issue 22: parts were renamed one by one; an error at part k left parts 1..k-1 in
    // place with no manifest, where a glob over the tables reads them.
    let dir = scratch("dataset-half-commit");
    let inputs = inputs(&dir);
    let reference = dir.join("reference");
    assert_eq!(run(&inputs, &reference, &[]).status.code(), Some(0));
    let task = task_names(&reference).remove(0);
    let rules_part = crate::support::parts(&reference, "rules")
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&task))
        .expect("a rules part of task 0");
    let out = dir.join("out");
    // A directory where task 0's rules part must go: its rename fails.
    let blocker = out.join(rules_part.strip_prefix(&reference).expect("relative"));
    std::fs::create_dir_all(blocker.join("in-the-way")).expect("blocker");
    let failed = run(&inputs, &out, &["--threads", "1", "--resume"]);
    assert_eq!(failed.status.code(), Some(2), "{}", stderr(&failed));
    assert!(stderr(&failed).contains(&task), "{}", stderr(&failed));
    for entry in walkdir::WalkDir::new(&out).into_iter().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            !(name.starts_with(&task) && entry.file_type().is_file()),
            "{} is in place although its task did not commit",
            entry.path().display()
        );
        assert!(
            !name.ends_with(".tmp"),
            "{} left behind",
            entry.path().display()
        );
    }
    assert!(!out.join("_manifests").join(format!("{task}.json")).exists());
}
