//! `robots-census status <OUT>`: which tasks of a dataset are done, the totals of
//! their manifests, and `<OUT>/_SUCCESS` once every task is. What a distributed
//! engine's driver runs after its tasks (see `spark/` and `deploy/`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::output::catalog::DatasetState;
use crate::output::dataset::{self, TaskManifest};
use crate::output::OutTarget;

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
    /// The state of the run's tables ([`DatasetState::stamp`]) that a derived table
    /// made now records: what the Spark SQL step writes in `<table>/_state.json`.
    pub dataset_state: String,
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
    let manifests: Vec<TaskManifest> = out
        .manifest_names()?
        .iter()
        .filter_map(|task| out.read_manifest(task))
        .collect();
    for manifest in &manifests {
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
        add_totals(&mut status, manifest);
    }
    let missing: Vec<usize> = (0..meta.tasks).filter(|&i| !seen[i]).collect();
    status.missing = missing.len();
    status.missing_tasks = missing.into_iter().take(100).collect();
    status.failed_tasks.sort();
    status.complete = status.done == status.tasks;
    status.dataset_state = DatasetState::of(&meta, &manifests).stamp();
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

/// The report as text, one fact per line.
pub fn render(status: &Status) -> String {
    let mut text = format!(
        "tasks: {} done, {} to retry, {} missing of {}\ninputs: {}, records: {}, documents: {}, input problems: {}\n",
        status.done, status.failed, status.missing, status.tasks,
        status.inputs, status.records_seen, status.documents, status.problems
    );
    if !status.missing_tasks.is_empty() {
        text += &format!("missing task indices: {:?}\n", status.missing_tasks);
    }
    if !status.failed_tasks.is_empty() {
        text += &format!("tasks to retry: {:?}\n", status.failed_tasks);
    }
    text
}

/// Writes `<OUT>/_SUCCESS` (the report as JSON) for a complete dataset; refuses an
/// incomplete one, so "complete" is said only once the marker is really there.
pub fn mark_complete(out: &OutTarget, status: &Status) -> Result<(), String> {
    if !status.complete {
        return Err(format!(
            "{out}: {} of {} tasks done",
            status.done, status.tasks
        ));
    }
    // Every task is done: the views name them all.
    crate::output::views::write(out).map_err(|e| e.to_string())?;
    out.write_file(dataset::SUCCESS_FILE, status.to_json().as_bytes())
        .map_err(|e| e.to_string())
}

impl Status {
    /// The report as pretty JSON (what `--json` prints and `_SUCCESS` holds).
    pub fn to_json(&self) -> String {
        // A struct of numbers, strings and string-keyed maps always serializes.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
