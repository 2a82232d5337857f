//! `robots-census status <OUT>`: which tasks of a dataset are done, the totals of
//! their manifests, and `<OUT>/_SUCCESS` once every task is. What a distributed
//! engine's driver runs after its tasks (see `spark/` and `deploy/`).

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde::Serialize;

use crate::output::dataset::{self, TaskManifest};
use crate::output::OutTarget;
use crate::store::StoreOptions;

/// Arguments of `robots-census status`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes:\n  0  every task is done (and _SUCCESS was written)\n  1  some tasks are missing or must be retried\n  2  not a dataset, or it cannot be read"
)]
pub struct StatusArgs {
    /// The dataset (the --out of `run`): a directory or s3://bucket/prefix.
    #[arg(value_name = "DIR|s3://BUCKET/PREFIX")]
    pub out: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The report, and the contents of `_SUCCESS`.
#[derive(Debug, Default, Serialize)]
pub struct Status {
    pub tasks: usize,
    pub done: usize,
    pub failed: usize,
    pub missing: usize,
    /// Indices of tasks without a manifest (at most 100 listed).
    pub missing_tasks: Vec<usize>,
    /// Names of tasks whose manifest asks for a retry.
    pub failed_tasks: Vec<String>,
    pub complete: bool,
    pub inputs: u64,
    pub records_seen: u64,
    pub documents: u64,
    pub problems: u64,
    pub rows: BTreeMap<String, u64>,
    pub fingerprint: String,
}

/// Reads the dataset's settings and manifests.
pub fn dataset_status(out: &OutTarget) -> Result<Status, String> {
    let meta = out
        .read_meta()?
        .ok_or_else(|| format!("{out}: no {} (not a dataset)", dataset::DATASET_FILE))?;
    let mut status = Status {
        tasks: meta.tasks,
        fingerprint: meta.fingerprint.clone(),
        ..Default::default()
    };
    let mut seen = vec![false; meta.tasks];
    for task in out.manifest_names()? {
        let Some(manifest) = out.read_manifest(&task) else {
            continue;
        };
        if manifest.fingerprint != meta.fingerprint || manifest.index >= meta.tasks {
            continue;
        }
        seen[manifest.index] = true;
        if manifest.needs_retry() {
            status.failed += 1;
            status.failed_tasks.push(manifest.task.clone());
        } else {
            status.done += 1;
        }
        add_totals(&mut status, &manifest);
    }
    let missing: Vec<usize> = (0..meta.tasks).filter(|&i| !seen[i]).collect();
    status.missing = missing.len();
    status.missing_tasks = missing.into_iter().take(100).collect();
    status.failed_tasks.sort();
    status.complete = status.done == status.tasks;
    Ok(status)
}

fn add_totals(status: &mut Status, manifest: &TaskManifest) {
    for input in &manifest.inputs {
        status.inputs += 1;
        status.records_seen += input.records_seen;
        status.documents += input.documents;
        status.problems += input.problems;
    }
    for (table, rows) in &manifest.rows {
        *status.rows.entry(table.clone()).or_default() += rows;
    }
}

/// The `status` command.
pub fn status(args: &StatusArgs) -> ExitCode {
    let (out, status) = match OutTarget::parse(&args.out, StoreOptions::default(), None)
        .map_err(|e| e.to_string())
        .and_then(|out| dataset_status(&out).map(|status| (out, status)))
    {
        Ok(found) => found,
        Err(e) => {
            eprintln!("robots-census status: {e}");
            return ExitCode::from(2);
        }
    };
    let json = serde_json::to_string_pretty(&status).unwrap_or_default();
    if args.json {
        println!("{json}");
    } else {
        println!(
            "tasks: {} done, {} to retry, {} missing of {}\ninputs: {}, records: {}, documents: {}, input problems: {}",
            status.done, status.failed, status.missing, status.tasks,
            status.inputs, status.records_seen, status.documents, status.problems
        );
        if !status.missing_tasks.is_empty() {
            println!("missing task indices: {:?}", status.missing_tasks);
        }
        if !status.failed_tasks.is_empty() {
            println!("tasks to retry: {:?}", status.failed_tasks);
        }
    }
    if !status.complete {
        if !args.json {
            println!("incomplete");
        }
        return ExitCode::from(1);
    }
    // "complete" is said only once _SUCCESS is really there.
    if let Err(e) = out.write_file(dataset::SUCCESS_FILE, json.as_bytes()) {
        eprintln!("robots-census status: {e}");
        return ExitCode::from(2);
    }
    if !args.json {
        println!("complete: _SUCCESS written");
    }
    ExitCode::SUCCESS
}
