//! The run: the input list split into tasks, the tasks run over a thread pool, and
//! the totals a user needs to trust the output.
//!
//! ```text
//! mod.rs       tasks -> worker slots -> Summary
//! task.rs      one task: its inputs, one part per (table, crawl), commit, manifest
//! stream.rs    one input: open, decide its crawl, read / build / encode in chunks
//! document.rs  one capture: the documents row and everything one parse yields
//! slots.rs     how many tasks are in flight, how many read on the pool at once
//! report.rs    the totals and the summary printed at the end
//! ```
//!
//! Each worker slot (a plain thread) takes the next task, opens its inputs one at a
//! time, reads each on the shared rayon pool, which parallelises inside the input,
//! and commits the task. Opening (a remote object's first request, its retries and
//! `Retry-After` waits) and committing (fsyncs, renames, PUTs) wait outside the pool,
//! so those waits overlap the other slots' CPU work; `--threads` + 1 slots read at
//! once (`slots.rs`). Inputs are handed to the pool only by the slots, never spawned
//! from inside it, so the slots bound the tasks (and their buffers) in flight
//! whatever thread of the pool ends up running them.

mod document;
mod report;
mod slots;
mod stream;
mod task;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

pub use report::Summary;

use crate::config::RunConfig;
use crate::limits::PIPELINE_STACK;
use crate::output::dataset::{self, DatasetMeta, Task, FORMAT_VERSION};
use crate::output::OutputError;
use crate::progress::Progress;
use crate::store::{Location, StoreError, Stores};
use slots::Slots;
use task::{commit_task, read_task, TaskOutcome, TaskRead};

/// The `errors.code` of an input whose reading hit a bug (a panic): its task ran
/// again with the input as this one row.
pub const INTERNAL_PANIC: &str = "internal_panic";

/// Set by the Ctrl-C / SIGTERM handler: workers stop at the next record, tasks
/// already committed stay.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Set when a task failed for good (an output error): the other tasks stop at
/// their next record and remove their temporary files.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Whether workers should stop now.
fn should_stop() -> bool {
    INTERRUPTED.load(Ordering::Relaxed) || FAILED.load(Ordering::Relaxed)
}

/// Errors that end a run.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot start {0} worker threads: {1}")]
    Threads(usize, rayon::ThreadPoolBuildError),
    #[error("interrupted")]
    Interrupted,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Runs the whole job: prepares the output, then runs the tasks.
pub fn run(config: &RunConfig) -> Result<Summary, PipelineError> {
    let started = Instant::now();
    config.out.prepare(config.prepare, &config.settings)?;
    let all = dataset::plan_tasks(&config.inputs, config.inputs_per_task);
    write_meta(config, all.len())?;
    let tasks: Vec<Task> = match config.shard {
        Some((i, n)) => all.into_iter().filter(|t| t.index % n == i).collect(),
        None => all,
    };
    // One store handle (runtime, request cap) for every remote input of the run;
    // an S3 output has its own (its PUTs do not wait behind input downloads).
    let remote = config
        .inputs
        .iter()
        .any(|i| Location::parse(i).is_ok_and(|l| l.is_remote()));
    let stores = if remote {
        Some(Stores::new(config.store)?)
    } else {
        None
    };
    let result = run_tasks(config, stores.as_ref(), &tasks, started);
    config.out.clean_staging();
    let summary = result?;
    // The tables by name for DuckDB, as the finished tasks hold them now. Not by a
    // shard: each of N shards would read all N manifests (N^2 reads, GETs on S3); the
    // driver's `status`, run once every shard is done, writes it.
    if config.shard.is_none() {
        crate::output::views::write(&config.out)?;
    }
    Ok(summary)
}

/// Runs `tasks` over the worker slots and sums their manifests.
fn run_tasks(
    config: &RunConfig,
    stores: Option<&Stores>,
    tasks: &[Task],
    started: Instant,
) -> Result<Summary, PipelineError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        // A pool thread waiting for a remote input's bytes runs other pool work meanwhile
        // (store/read.rs), possibly another input's whole read nested on its stack: at
        // most one level per worker slot. Reserved address space, touched only if used.
        .stack_size(PIPELINE_STACK)
        .build()
        .map_err(|e| PipelineError::Threads(config.threads, e))?;
    let size = |t: &Task| -> u64 {
        t.inputs
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum()
    };
    // Each input is stat'ed once (not once per comparison of the sort).
    let sizes: Vec<u64> = tasks.iter().map(size).collect();
    let progress = Progress::new(sizes.iter().sum(), config.quiet);
    // Largest tasks first, so one big input does not start last; results keep task order.
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let next = AtomicUsize::new(0);
    let slots = Slots::new(config.threads, stores);
    let results: Mutex<Vec<Option<Result<TaskOutcome, PipelineError>>>> =
        Mutex::new((0..tasks.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..slots.workers.min(tasks.len()) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                if should_stop() {
                    break;
                }
                // Opens and commits wait on I/O here, outside the pool, so the pool's
                // threads go on with the other tasks' inputs meanwhile.
                let result = read_task(config, stores, (&pool, &slots), &tasks[i], &progress)
                    .and_then(|read| match read {
                        TaskRead::Done(outcome) => Ok(outcome),
                        TaskRead::Written(writers, reports, earlier) => {
                            commit_task(config, &tasks[i], writers, reports, earlier)
                        }
                    });
                if let Err(e) = &result {
                    if !matches!(e, PipelineError::Interrupted) {
                        FAILED.store(true, Ordering::Relaxed);
                    }
                }
                // A poisoned lock still holds every result stored so far: losing them
                // would report a run with failed tasks as an empty success.
                results.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(result);
            });
        }
    });
    progress.finish();
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    // The first real error wins over the interruptions it caused.
    let mut interrupted = false;
    let mut summary = Summary {
        tasks: tasks.len(),
        agents: config.agents.clone(),
        out: config.out.to_string(),
        ..Default::default()
    };
    for result in results {
        match result {
            Some(Ok(outcome)) => {
                summary.tasks_resumed += usize::from(outcome.resumed);
                for (table, rows) in outcome.manifest.rows {
                    *summary.rows.entry(table).or_default() += rows;
                }
                summary
                    .inputs
                    .extend(outcome.manifest.inputs.into_iter().map(|mut r| {
                        r.resumed = outcome.resumed;
                        r
                    }));
            }
            Some(Err(PipelineError::Interrupted)) | None => interrupted = true,
            Some(Err(e)) => return Err(e),
        }
    }
    if interrupted {
        return Err(PipelineError::Interrupted);
    }
    summary.elapsed = started.elapsed();
    if summary.elapsed == Duration::ZERO {
        summary.elapsed = Duration::from_nanos(1);
    }
    Ok(summary)
}

/// Writes `<out>/_dataset.json` unless it is there (config checked that it matches).
fn write_meta(config: &RunConfig, tasks: usize) -> Result<(), PipelineError> {
    let present = config
        .out
        .read_file(dataset::DATASET_FILE)
        .map_err(|detail| OutputError::Io {
            path: dataset::DATASET_FILE.into(),
            source: std::io::Error::other(detail),
        })?;
    if present.is_some() {
        return Ok(());
    }
    let meta = DatasetMeta {
        format_version: FORMAT_VERSION,
        fingerprint: config.settings.fingerprint(),
        settings: config.settings.clone(),
        tasks,
        inputs: config.inputs.len(),
    };
    let json = serde_json::to_vec_pretty(&meta).map_err(|e| OutputError::Io {
        path: dataset::DATASET_FILE.into(),
        source: e.into(),
    })?;
    config.out.write_file(dataset::DATASET_FILE, &json)?;
    Ok(())
}
