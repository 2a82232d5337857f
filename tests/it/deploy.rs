//! The deployment examples work: `deploy/k8s-indexed-job.yaml` (a Kubernetes Indexed
//! Job) and `deploy/aws-batch-array.json` (an AWS Batch array job, with its job
//! definition) are parsed, checked for the settings that make them retry on 75 and fail
//! fast on 2, and their exact command is run here once per index with the engine's
//! index variable set. The union of the shards must equal a full run byte for byte,
//! and `status` must then find the dataset complete.
//!
//! What is substituted to run them here, and only that: the `INPUTS` variable (an
//! `s3://` list) becomes a local list of local inputs, and `OUT` (an `s3://` prefix)
//! becomes a local directory; the image's `robots-census` on PATH is the binary under
//! test. The command, its flags and the other variables are used as written.
//!
//! The steps after the run (`deploy/k8s-sites-job.yaml`, `deploy/k8s-changes-job.yaml`,
//! `deploy/aws-batch-sites-array.json`) run the same way, once per index, on a copy of
//! the full run: their union must equal `sites` and `changes --consecutive` run on one
//! machine, file for file. Their `--spill-dir` (the pod's volume) becomes a local
//! directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::spark::{assert_same_dataset, crawl_inputs};
use crate::support::{bin, python, repo, scratch, wheel};

/// A deploy file as JSON (YAML read by PyYAML from the venv).
fn load(name: &str) -> Value {
    let path = repo().join("deploy").join(name);
    if name.ends_with(".json") {
        return serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
    }
    let output = Command::new(python())
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
        ])
        .arg(&path)
        .output()
        .expect("python");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("YAML as JSON")
}

/// `[{name, value}]` as a map.
fn env_map(list: &Value) -> BTreeMap<String, String> {
    list.as_array()
        .expect("env list")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().expect("name").to_owned(),
                e["value"].as_str().expect("value").to_owned(),
            )
        })
        .collect()
}

fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("list")
        .iter()
        .map(|s| s.as_str().expect("string").to_owned())
        .collect()
}

/// Twelve inputs of two crawls and one missing file (an `errors` row, exit 1), their
/// list, and a full single-machine run of that list.
struct Fixture {
    dir: PathBuf,
    list: PathBuf,
    full: PathBuf,
    path: std::ffi::OsString,
}

fn fixture(name: &str) -> Fixture {
    let dir = scratch(name);
    let mut inputs: Vec<String> = crawl_inputs(&dir, &[3, 4, 2, 5, 1, 3, 6, 2, 3, 4, 2, 1])
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    inputs.push(dir.join("in/missing.warc.gz").display().to_string());
    let list = dir.join("inputs.paths");
    std::fs::write(&list, inputs.join("\n") + "\n").expect("list");
    let full = dir.join("full");
    let run = bin()
        .args(["run", "--quiet", "--inputs-from"])
        .arg(&list)
        .arg("--out")
        .arg(&full)
        .output()
        .expect("full run");
    assert_eq!(
        run.status.code(),
        Some(1),
        "the missing input makes the full run exit 1: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The image's PATH: a directory holding robots-census, first.
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir).expect("bin dir");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_robots-census"),
        bin_dir.join("robots-census"),
    )
    .expect("symlink");
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    Fixture {
        dir,
        list,
        full,
        path,
    }
}

/// Runs `argv` with `env` once per index `0..shards`, `index_var` set to the index, the
/// s3:// `INPUTS` and `OUT` replaced by local ones; then `status` on the output.
fn run_every_index(
    f: &Fixture,
    argv: &[String],
    env: &BTreeMap<String, String>,
    index_var: &str,
    shards: usize,
) -> PathBuf {
    let out = f.dir.join("out");
    for name in ["INPUTS", "OUT"] {
        assert!(env[name].starts_with("s3://"), "{name} = {}", env[name]);
    }
    for index in 0..shards {
        let output = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(env)
            .env("INPUTS", &f.list)
            .env("OUT", &out)
            .env("PATH", &f.path)
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("AWS_BATCH_JOB_ARRAY_INDEX")
            .env(index_var, index.to_string())
            .output()
            .expect("run the deploy command");
        assert_eq!(
            output.status.code(),
            Some(0),
            "index {index}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let status = bin().arg("status").arg(&out).output().expect("status");
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    let success: Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).expect("_SUCCESS"))
            .expect("_SUCCESS JSON");
    assert_eq!(success["tasks"], 13);
    assert_eq!(success["inputs"], 13);
    assert_eq!(success["documents"], 36);
    out
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (PyYAML reads deploy/k8s-indexed-job.yaml): make test"
)]
fn k8s_indexed_job_shards_union_to_a_full_run() {
    let job = load("k8s-indexed-job.yaml");
    assert_eq!(job["apiVersion"], "batch/v1");
    assert_eq!(job["kind"], "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never", "podFailurePolicy needs it");
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1);
    let container = &containers[0];
    let rules = spec["podFailurePolicy"]["rules"]
        .as_array()
        .expect("podFailurePolicy rules");
    let rule_for = |code: i64| {
        rules
            .iter()
            .find(|r| {
                r["onExitCodes"]["operator"] == "In"
                    && r["onExitCodes"]["values"]
                        .as_array()
                        .is_some_and(|v| v.contains(&code.into()))
            })
            .unwrap_or_else(|| panic!("no rule for exit code {code}"))
    };
    assert_eq!(rule_for(2)["action"], "FailJob");
    assert_eq!(rule_for(75)["action"], "Count", "75 is retried");
    for code in [2, 75] {
        assert_eq!(
            rule_for(code)["onExitCodes"]["containerName"],
            container["name"]
        );
    }
    assert!(spec["backoffLimitPerIndex"]
        .as_u64()
        .is_some_and(|n| n >= 1));

    let env = env_map(&container["env"]);
    let shards: usize = env["SHARDS"].parse().expect("SHARDS");
    assert_eq!(spec["completions"], shards, "one index per shard");
    assert!(spec["parallelism"]
        .as_u64()
        .is_some_and(|p| p as usize <= shards));
    let argv: Vec<String> = strings(&container["command"])
        .into_iter()
        .chain(strings(&container["args"]))
        .collect();
    assert!(
        argv.iter().any(|a| a.contains("--shard \"auto/$SHARDS\"")),
        "{argv:?}"
    );

    let f = fixture("deploy-k8s");
    let out = run_every_index(&f, &argv, &env, "JOB_COMPLETION_INDEX", shards);
    assert_same_dataset(&out, &f.full);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (botocore's AWS Batch API model): make test"
)]
fn aws_batch_array_shards_union_to_a_full_run() {
    let submit = load("aws-batch-array.json");
    let definition = load("aws-batch-job-definition.json");
    // Both are valid requests of the Batch API (botocore's service model).
    let check = Command::new(python())
        .args([
            "-c",
            r#"
import json, sys
import botocore.session
from botocore.validate import validate_parameters
model = botocore.session.get_session().get_service_model("batch")
for op, path in (("SubmitJob", sys.argv[1]), ("RegisterJobDefinition", sys.argv[2])):
    validate_parameters(json.load(open(path)), model.operation_model(op).input_shape)
"#,
        ])
        .arg(repo().join("deploy/aws-batch-array.json"))
        .arg(repo().join("deploy/aws-batch-job-definition.json"))
        .output()
        .expect("python");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert_eq!(submit["jobDefinition"], definition["jobDefinitionName"]);
    let retry = &submit["retryStrategy"];
    let attempts = retry["attempts"].as_u64().expect("attempts");
    assert!((2..=10).contains(&attempts), "Batch allows 1-10 attempts");
    let on_exit = retry["evaluateOnExit"].as_array().expect("evaluateOnExit");
    assert!(on_exit.len() <= 5, "Batch allows 5 conditions");
    assert_eq!(on_exit[0]["onExitCode"], "75");
    assert_eq!(on_exit[0]["action"], "RETRY");
    assert!(
        on_exit
            .iter()
            .any(|c| c["onReason"] == "*" && c["action"] == "EXIT"),
        "everything else (2 above all) is not retried"
    );

    let overrides = &submit["containerOverrides"];
    let env = env_map(&overrides["environment"]);
    let shards: usize = env["SHARDS"].parse().expect("SHARDS");
    assert_eq!(submit["arrayProperties"]["size"], shards);
    assert!(
        (2..=10_000).contains(&shards),
        "Batch arrays hold 2-10,000 children"
    );
    let argv = strings(&overrides["command"]);

    let f = fixture("deploy-batch");
    let out = run_every_index(&f, &argv, &env, "AWS_BATCH_JOB_ARRAY_INDEX", shards);
    assert_same_dataset(&out, &f.full);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the wheel `make wheel` puts in dist/ and the venv's Python: make test"
)]
fn wheel_installs_robots_census_on_path() {
    let wheel = wheel();
    let dir = scratch("wheel");
    let venv = dir.join("venv");
    let made = Command::new(python())
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .expect("python -m venv");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // No index: the wheel needs nothing from PyPI.
    let pip = Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--no-index",
            "--disable-pip-version-check",
            "--quiet",
        ])
        .arg(&wheel)
        .output()
        .expect("pip install");
    assert!(
        pip.status.success(),
        "{}",
        String::from_utf8_lossy(&pip.stderr)
    );
    // The same wheel holds the Python module: importable in the fresh venv, with
    // nothing else installed (tests/it/python.rs checks its answers), and its `run`
    // finds the binary the wheel installed in the venv, not one elsewhere on PATH.
    let installed = venv.join("bin/robots-census");
    let module = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import robots_census as rc; r = rc.RobotsTxt(b'User-agent: *\\nDisallow: /x\\n'); \
             print(rc.__version__, r.allowed('a', '/x'), r.allowed('a', '/y'), r.explain('a', '/x').line); \
             print(rc._cli.find_bin())",
        ])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("python -c 'import robots_census'");
    assert_eq!(
        String::from_utf8_lossy(&module.stdout).trim(),
        format!(
            "{} False True 2\n{}",
            env!("CARGO_PKG_VERSION"),
            installed.display()
        ),
        "{}",
        String::from_utf8_lossy(&module.stderr)
    );
    let version = Command::new(&installed)
        .arg("--version")
        .output()
        .expect("robots-census --version");
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("robots-census {}", env!("CARGO_PKG_VERSION"))
    );
    let sample = repo().join("data-samples/cc-robotstxt-sample.warc.gz");
    let run = |program: &Path, out: &Path| {
        Command::new(program)
            .arg("run")
            .arg(&sample)
            .arg("--out")
            .arg(out)
            .arg("--quiet")
            .output()
            .expect("run")
    };
    let from_wheel = run(&installed, &dir.join("wheel-out"));
    assert_eq!(
        from_wheel.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&from_wheel.stderr)
    );
    let built = run(
        Path::new(env!("CARGO_BIN_EXE_robots-census")),
        &dir.join("built-out"),
    );
    assert_eq!(built.status.code(), Some(0));
    // Same source, same bytes: a difference means dist/ holds a stale wheel (`make wheel`).
    assert_same_dataset(&dir.join("wheel-out"), &dir.join("built-out"));
}

/// Runs a step's deploy command once per index on `out` (its `OUT`), with `--spill-dir`
/// pointed at a local directory, and expects exit 0 from each.
fn run_step_every_index(
    f: &Fixture,
    argv: &[String],
    env: &BTreeMap<String, String>,
    index_var: &str,
    shards: usize,
    out: &Path,
) {
    assert!(env["OUT"].starts_with("s3://"), "OUT = {}", env["OUT"]);
    let spill = f.dir.join("spill");
    std::fs::create_dir_all(&spill).expect("spill dir");
    let argv: Vec<String> = argv
        .iter()
        .map(|a| {
            a.replace(
                "--spill-dir /spill",
                &format!("--spill-dir {}", spill.display()),
            )
            .replace(
                "--spill-dir /tmp",
                &format!("--spill-dir {}", spill.display()),
            )
        })
        .collect();
    assert!(
        argv.iter().any(|a| a.contains("--spill-dir")),
        "the step spills to the machine's disk: {argv:?}"
    );
    for index in 0..shards {
        let output = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(env)
            .env("OUT", out)
            .env("PATH", &f.path)
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("AWS_BATCH_JOB_ARRAY_INDEX")
            .env(index_var, index.to_string())
            .output()
            .expect("run the deploy command");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{argv:?} index {index}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(
        std::fs::read_dir(&spill).expect("spill dir").count(),
        0,
        "the spill is removed after each step"
    );
}

/// `status --step STEP` on `out`: exit 0 and `<out>/<step>/_SUCCESS` written.
fn step_complete(out: &Path, step: &str) {
    let status = bin()
        .args(["status", "--step", step])
        .arg(out)
        .output()
        .expect("status");
    assert_eq!(
        status.status.code(),
        Some(0),
        "status --step {step}: {}{}",
        String::from_utf8_lossy(&status.stdout),
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(out.join(step).join("_SUCCESS").is_file());
}

/// The Kubernetes Indexed Job of a step: one index per crawl (or pair), 2 fails the job.
fn indexed_step_job(file: &str, count_var: &str) -> (Vec<String>, BTreeMap<String, String>, usize) {
    let job = load(file);
    assert_eq!(job["kind"], "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never", "podFailurePolicy needs it");
    let container = &pod["containers"][0];
    let fail = spec["podFailurePolicy"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["action"] == "FailJob")
        .expect("a FailJob rule");
    assert_eq!(fail["onExitCodes"]["values"], serde_json::json!([2]));
    assert_eq!(fail["onExitCodes"]["containerName"], container["name"]);
    let env = env_map(&container["env"]);
    let count: usize = env[count_var].parse().expect("count");
    assert_eq!(spec["completions"], count, "one index per {count_var}");
    let argv = strings(&container["command"])
        .into_iter()
        .chain(strings(&container["args"]))
        .collect();
    (argv, env, count)
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (PyYAML for deploy/k8s-*-job.yaml, botocore's AWS Batch API model): make test"
)]
fn the_step_jobs_decide_what_one_machine_decides() {
    let f = fixture("deploy-steps");
    let copy = |name: &str| {
        let out = f.dir.join(name);
        for entry in walkdir::WalkDir::new(&f.full).into_iter().flatten() {
            let target = out.join(entry.path().strip_prefix(&f.full).expect("inside"));
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).expect("mkdir");
            } else {
                std::fs::copy(entry.path(), &target).expect("copy");
            }
        }
        out
    };
    // One machine: every crawl, then every consecutive pair.
    let one = copy("one");
    for args in [&["sites", "-q"][..], &["changes", "--consecutive", "-q"]] {
        let output = bin()
            .args(&args[..1])
            .arg(&one)
            .args(&args[1..])
            .output()
            .expect("step");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    step_complete(&one, "sites");
    step_complete(&one, "changes");
    let partitions = |out: &Path, table: &str| -> usize {
        std::fs::read_dir(out.join(table))
            .expect("table dir")
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .count()
    };
    assert_eq!(partitions(&one, "sites"), 2, "the fixture holds two crawls");
    assert_eq!(partitions(&one, "changes"), 1, "one consecutive pair");
    let only_steps = |out: &Path| -> BTreeMap<String, Vec<u8>> {
        crate::spark::dataset_files(out)
            .into_iter()
            .filter(|(name, _)| name.starts_with("sites/") || name.starts_with("changes/"))
            .collect()
    };
    let want = only_steps(&one);

    // Kubernetes: the sites job, then the changes job, as their comments run them.
    let k8s = copy("k8s");
    let (argv, env, crawls) = indexed_step_job("k8s-sites-job.yaml", "CRAWLS");
    run_step_every_index(&f, &argv, &env, "JOB_COMPLETION_INDEX", crawls, &k8s);
    step_complete(&k8s, "sites");
    let (argv, env, pairs) = indexed_step_job("k8s-changes-job.yaml", "PAIRS");
    assert_eq!(pairs + 1, crawls, "one pair per consecutive crawls");
    run_step_every_index(&f, &argv, &env, "JOB_COMPLETION_INDEX", pairs, &k8s);
    step_complete(&k8s, "changes");
    let got = only_steps(&k8s);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "k8s: {name} differs");
    }

    // AWS Batch: the sites array, a valid SubmitJob request.
    let submit = load("aws-batch-sites-array.json");
    let check = Command::new(python())
        .args([
            "-c",
            r#"
import json, sys
import botocore.session
from botocore.validate import validate_parameters
model = botocore.session.get_session().get_service_model("batch")
validate_parameters(json.load(open(sys.argv[1])), model.operation_model("SubmitJob").input_shape)
"#,
        ])
        .arg(repo().join("deploy/aws-batch-sites-array.json"))
        .output()
        .expect("python");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let overrides = &submit["containerOverrides"];
    let env = env_map(&overrides["environment"]);
    let crawls: usize = env["CRAWLS"].parse().expect("CRAWLS");
    assert_eq!(submit["arrayProperties"]["size"], crawls);
    let batch = copy("batch");
    run_step_every_index(
        &f,
        &strings(&overrides["command"]),
        &env,
        "AWS_BATCH_JOB_ARRAY_INDEX",
        crawls,
        &batch,
    );
    step_complete(&batch, "sites");
    let got = only_steps(&batch);
    let want_sites: BTreeMap<&String, &Vec<u8>> = want
        .iter()
        .filter(|(n, _)| n.starts_with("sites/"))
        .collect();
    let got_sites: BTreeMap<&String, &Vec<u8>> = got.iter().collect();
    assert_eq!(got_sites, want_sites, "batch: the sites table");
}
