//! One task, start to manifest: its inputs in order into one part per (table, crawl),
//! committed, then the manifest; skipped by `--resume` when its manifest is there.
//! This is where a part is committed.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use super::slots::Slots;
use super::stream::{open_source, read_input, record_unreadable};
use super::{should_stop, PipelineError};
use crate::config::RunConfig;
use crate::input::Unreadable;
use crate::output::dataset::{InputReport, PartFile, Task, TaskManifest, FORMAT_VERSION};
use crate::output::{commit_parts, ClosedParts, OutputError, PartWriter, TableSet};
use crate::progress::Progress;
use crate::store::Stores;

/// The part writers of one task, one per crawl its inputs belong to.
pub(super) struct TaskWriters<'a> {
    out: &'a Path,
    task: &'a str,
    tables: TableSet,
    by_crawl: BTreeMap<String, PartWriter>,
}

impl<'a> TaskWriters<'a> {
    fn new(out: &'a Path, task: &'a str, tables: TableSet) -> Self {
        TaskWriters {
            out,
            task,
            tables,
            by_crawl: BTreeMap::new(),
        }
    }

    /// The writer of `crawl`'s parts, opened on first use.
    pub(super) fn for_crawl(&mut self, crawl: &str) -> Result<&mut PartWriter, OutputError> {
        if !self.by_crawl.contains_key(crawl) {
            let writer = PartWriter::create(self.out, self.task, crawl, self.tables)?;
            self.by_crawl.insert(crawl.to_owned(), writer);
        }
        self.by_crawl.get_mut(crawl).ok_or_else(|| OutputError::Io {
            path: self.out.to_owned(),
            source: std::io::Error::other("part writer vanished"),
        })
    }

    /// Drops every part written so far (their temporary files go with them).
    fn abandon(self) {
        drop(self);
    }

    /// Closes and fsyncs every part of every crawl, then puts them all in place at
    /// once ([`commit_parts`]): an error leaves none of them renamed.
    fn commit(self) -> Result<Vec<PartFile>, OutputError> {
        let mut closed = ClosedParts::default();
        for (_, writer) in self.by_crawl {
            closed.extend(writer.close()?);
        }
        commit_parts(self.out, self.task, closed)
    }
}

/// What became of a task.
pub(super) struct TaskOutcome {
    pub manifest: TaskManifest,
    pub resumed: bool,
}

/// A task read: done already (`--resume` found its manifest), or its parts written
/// and waiting for [`commit_task`].
pub(super) enum TaskRead<'a> {
    Done(TaskOutcome),
    /// The parts written, the inputs' reports, and the files an earlier committed
    /// attempt of the task listed in its manifest (a transient failure being retried),
    /// which [`commit_task`] removes where this attempt does not rewrite them.
    Written(TaskWriters<'a>, Vec<InputReport>, Vec<PartFile>),
}

/// Reads one task's inputs into its parts, or takes its manifest when `--resume`
/// finds it done with the same settings and nothing to retry. Runs on a worker
/// slot's thread: each input is opened there (its first request, retries and
/// `Retry-After` waits included) and read on `pool` when `slots` lets it, so a wait
/// for a server holds no thread the CPU work needs. [`commit_task`] is the task's
/// other I/O wait.
pub(super) fn read_task<'a>(
    config: &'a RunConfig,
    stores: Option<&Stores>,
    (pool, slots): (&rayon::ThreadPool, &Slots),
    task: &'a Task,
    progress: &Progress,
) -> Result<TaskRead<'a>, PipelineError> {
    let mut earlier = Vec::new();
    if config.prepare.resume {
        // A manifest that cannot be read leaves the task not done: it is run again,
        // which writes the same parts and a new manifest.
        let manifest = config.out.read_manifest(&task.name).unwrap_or_else(|e| {
            progress.warn(&format!("{e}: task {} is run again", task.name));
            None
        });
        if let Some(manifest) = manifest {
            if manifest.fingerprint == config.settings.fingerprint() && !manifest.needs_retry() {
                let (bytes, docs) = manifest
                    .inputs
                    .iter()
                    .fold((0, 0), |(b, d), i| (b + i.bytes, d + i.documents));
                progress.advance(bytes, docs);
                return Ok(TaskRead::Done(TaskOutcome {
                    manifest,
                    resumed: true,
                }));
            }
            earlier = manifest.files;
        }
    }
    // On S3, an attempt killed between its first upload and its manifest left parts no
    // manifest names; its attempt record names them, so this attempt removes them too.
    for part in config.out.attempted(&task.name)? {
        if !earlier.iter().any(|e| e.path == part.path) {
            earlier.push(part);
        }
    }
    // A remote input cut short for good leaves rows that must not be kept: the task
    // starts again with that input as one error row (at most once per input).
    let mut failed: BTreeMap<&str, Unreadable> = BTreeMap::new();
    let (writers, reports) = 'attempt: loop {
        let mut writers = TaskWriters::new(config.out.local_dir(), &task.name, config.tables);
        let mut reports = Vec::with_capacity(task.inputs.len());
        for source in &task.inputs {
            if should_stop() {
                return Err(PipelineError::Interrupted);
            }
            let mut report = InputReport {
                source: source.clone(),
                ..Default::default()
            };
            if let Some(unreadable) = failed.get(source.as_str()) {
                record_unreadable(config, source, unreadable, &mut writers, &mut report)?;
                reports.push(report);
                continue;
            }
            let read = catch_unwind(AssertUnwindSafe(|| {
                let opened = open_source(config, stores, source);
                slots.read(|| {
                    pool.install(|| {
                        read_input(config, source, opened, &mut writers, &mut report, progress)
                    })
                })
            }));
            match read {
                Ok(Ok(None)) => {}
                Ok(Ok(Some(cut))) => {
                    failed.insert(source, Unreadable::from(&cut));
                    writers.abandon();
                    continue 'attempt;
                }
                Ok(Err(e)) => return Err(e),
                // A bug met on one input is that input's error row; the run goes on. The
                // panic may have left a builder or a Parquet writer half-way (it can come
                // from any stage: read, build or encode), so nothing this attempt wrote is
                // trusted: the task starts again with the input as one error row.
                Err(panic) => {
                    failed.insert(source, panicked(&*panic));
                    writers.abandon();
                    continue 'attempt;
                }
            }
            reports.push(report);
        }
        break (writers, reports);
    };
    Ok(TaskRead::Written(writers, reports, earlier))
}

/// Commits a read task's parts (fsync, rename; one PUT each on S3), then writes its
/// manifest: the task is done.
pub(super) fn commit_task(
    config: &RunConfig,
    task: &Task,
    writers: TaskWriters<'_>,
    reports: Vec<InputReport>,
    earlier: Vec<PartFile>,
) -> Result<TaskOutcome, PipelineError> {
    let fingerprint = config.settings.fingerprint();
    let files = writers.commit()?;
    // On S3, each part is PUT now (locally they are in place already), then the
    // parts of an earlier attempt that this one did not rewrite (another crawl
    // partition) are deleted; the manifest comes after all of that. The attempt
    // record written first lists both, so a crash in between leaves it (and the
    // earlier manifest), and the next resume removes what this attempt left.
    let stale: Vec<PartFile> = earlier
        .into_iter()
        .filter(|old| !files.iter().any(|new| new.path == old.path))
        .collect();
    config
        .out
        .begin_attempt(&task.name, &files.iter().chain(&stale).collect::<Vec<_>>())?;
    config.out.publish(&files)?;
    config.out.remove_published(&stale)?;
    abort_point(task);
    let mut rows = BTreeMap::new();
    for file in &files {
        *rows.entry(file.table.clone()).or_default() += file.rows;
    }
    let manifest = TaskManifest {
        format_version: FORMAT_VERSION,
        task: task.name.clone(),
        index: task.index,
        fingerprint,
        inputs: reports,
        rows,
        files,
    };
    config.out.write_manifest(&manifest)?;
    config.out.end_attempt(&task.name)?;
    Ok(TaskOutcome {
        manifest,
        resumed: false,
    })
}

/// A test aid (cargo feature `fault-injection`): the process aborts after publishing the
/// parts of the task holding an input whose name contains
/// `ROBOTS_CENSUS_ABORT_BEFORE_MANIFEST`, before its manifest: a machine lost mid-commit.
#[cfg(feature = "fault-injection")]
fn abort_point(task: &Task) {
    if let Ok(needle) = std::env::var("ROBOTS_CENSUS_ABORT_BEFORE_MANIFEST") {
        if task.inputs.iter().any(|i| i.contains(&needle)) {
            std::process::abort();
        }
    }
}

/// Without `fault-injection`, the environment variable does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
fn abort_point(_task: &Task) {}

/// The input-level `errors` row of a panic while reading an input.
fn panicked(panic: &(dyn std::any::Any + Send)) -> Unreadable {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    Unreadable {
        code: super::INTERNAL_PANIC,
        message: format!(
            "internal error while reading this input (a bug: please report it); none of its \
             rows are kept: {what}"
        ),
        retry: false,
        offset: None,
        stream_offset: None,
    }
}
