//! `robots-census status <OUT>`: which tasks of a dataset are done, the totals of
//! their manifests, and `<OUT>/_SUCCESS` once every task is. What a distributed
//! engine's driver runs after its tasks (see `spark/` and `deploy/`). With `--step
//! sites` or `--step changes`: which crawls (pairs of crawls) the step has decided from
//! this state of the dataset, and `<OUT>/<table>/_SUCCESS` once every one is.

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
    /// made now records.
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
    let mut manifests: Vec<TaskManifest> = Vec::new();
    for task in out.manifest_names()? {
        manifests.extend(out.read_manifest(&task)?);
    }
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

/// The steps after the run whose completion `status --step` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Step {
    /// Every crawl of the documents table has its partition of the sites table.
    Sites,
    /// Every crawl of the sites table is compared with the next (`changes --consecutive`).
    Changes,
}

/// What a step after the run has done, and the contents of `<OUT>/<table>/_SUCCESS`.
#[derive(Debug, Default, Serialize)]
pub struct StepStatus {
    pub step: String,
    /// The crawls (`sites`) or pairs `A -> B` (`changes`) the step must decide.
    pub wanted: Vec<String>,
    /// Those without a part made from this state of the dataset.
    pub missing: Vec<String>,
    /// The run's tasks are all done too (the step read the whole census).
    pub run_complete: bool,
    pub complete: bool,
    pub dataset_state: String,
}

/// What `step` has decided of the dataset at `out`.
pub fn step_status(out: &OutTarget, step: Step) -> Result<StepStatus, String> {
    use crate::output::catalog::{Catalog, Entry};
    use crate::output::Table;
    let run = dataset_status(out)?;
    let catalog = Catalog::open(out).map_err(|e| e.to_string())?;
    // The run's crawls are those with documents; the sites table's, every partition
    // it wrote (a crawl without a robots.txt URL is decided, as no site).
    let crawls_of = |table: Table| match table {
        Table::Sites => catalog.partitions(table),
        _ => catalog.crawls(table),
    };
    let fresh = |table: Table| matches!(catalog.entry(table), Entry::Present(_));
    let (name, wanted, have): (&str, Vec<String>, std::collections::BTreeSet<String>) = match step {
        Step::Sites => {
            let have = if fresh(Table::Sites) {
                crawls_of(Table::Sites)
            } else {
                Default::default()
            };
            (
                "sites",
                crawls_of(Table::Documents).into_iter().collect(),
                have,
            )
        }
        Step::Changes => {
            let crawls: Vec<String> = if fresh(Table::Sites) {
                crawls_of(Table::Sites).into_iter().collect()
            } else {
                Vec::new()
            };
            let pairs = crawls
                .windows(2)
                .map(|w| format!("{} -> {}", w[0], w[1]))
                .collect();
            let have = if fresh(Table::Changes) {
                catalog
                    .parts(Table::Changes)
                    .iter()
                    .filter_map(|p| changes_pair(&p.rel, &crawls))
                    .collect()
            } else {
                Default::default()
            };
            ("changes", pairs, have)
        }
    };
    let missing: Vec<String> = wanted
        .iter()
        .filter(|w| !have.contains(*w))
        .cloned()
        .collect();
    Ok(StepStatus {
        step: name.to_owned(),
        complete: run.complete && missing.is_empty() && !wanted.is_empty(),
        run_complete: run.complete,
        wanted,
        missing,
        dataset_state: run.dataset_state,
    })
}

/// The pair `A -> B` of the changes part `rel`
/// (`changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet`), its crawls among `crawls`.
fn changes_pair(rel: &str, crawls: &[String]) -> Option<String> {
    let value = |key: &str| rel.split('/').find_map(|p| p.strip_prefix(key));
    let name = |v: &str| {
        crawls
            .iter()
            .find(|c| dataset::partition_value(c) == v)
            .cloned()
    };
    Some(format!(
        "{} -> {}",
        name(value("from_crawl=")?)?,
        name(value("to_crawl=")?)?
    ))
}

/// The step's report as text.
pub fn render_step(status: &StepStatus) -> String {
    let mut text = format!(
        "{}: {} of {} {} done{}\n",
        status.step,
        status.wanted.len() - status.missing.len(),
        status.wanted.len(),
        if status.step == "sites" {
            "crawls"
        } else {
            "pairs of consecutive crawls"
        },
        if status.run_complete {
            ""
        } else {
            " (the run is not complete)"
        }
    );
    if !status.missing.is_empty() {
        text += &format!("missing: {}\n", status.missing.join(", "));
    }
    text
}

/// Writes `<OUT>/<table>/_SUCCESS` (the report as JSON) once the step is complete.
pub fn mark_step_complete(out: &OutTarget, status: &StepStatus) -> Result<(), String> {
    if !status.complete {
        return Err(format!("{out}: the {} step is not complete", status.step));
    }
    crate::output::views::write(out).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(status).unwrap_or_default();
    out.write_file(
        &format!("{}/{}", status.step, dataset::SUCCESS_FILE),
        json.as_bytes(),
    )
    .map_err(|e| e.to_string())
}
