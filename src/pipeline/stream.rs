//! One input through the reader, the engine and the encoders: where an input is
//! opened, its crawl decided, and its records turned into rows in chunks.
//!
//! Reading chunk n+1, building the rows of chunk n and encoding chunk n-1 overlap
//! (nested `rayon::join`), so one large input uses every thread too. Chunk and task
//! boundaries depend only on the input and the flags, so the bytes written do not
//! depend on the thread count.

use arrow_array::RecordBatch;
use rayon::prelude::*;

use super::document::{document, problem_row};
use super::task::TaskWriters;
use super::{should_stop, PipelineError};
use crate::census::crawl::crawl_in_path;
use crate::census::headline::Tally;
use crate::config::RunConfig;
use crate::input::{
    open_location, Capture, CaptureReader, Event, InputError, InputProblem, Unreadable,
};
use crate::limits::{
    CHUNK_BYTES, CHUNK_QUESTIONS, CHUNK_RECORDS, SPARE_BODY_CAPACITY, TASK_RECORDS,
};
use crate::output::dataset::InputReport;
use crate::output::{Batches, OutputError, PartWriter, Problem, Table};
use crate::progress::Progress;
use crate::store::{FailureHandle, Location, StoreError, Stores};

/// A record read but not yet turned into rows: a capture, or a problem to record.
enum Item {
    // Boxed so chunks move pointers; the boxes are recycled through the spare pool.
    Capture(Box<Capture>),
    Problem(InputProblem),
}

/// Records per chunk for a run asking `questions` questions of each document.
fn chunk_records(questions: usize) -> usize {
    (CHUNK_QUESTIONS / questions.max(1)).clamp(TASK_RECORDS, CHUNK_RECORDS)
}

/// The crawl an input belongs to: its first warcinfo record's `isPartOf` (read with
/// the first chunk), else a `CC-MAIN-YYYY-WW` in its path, else `--default-crawl`.
fn crawl_of(config: &RunConfig, source: &str, reader: Option<&dyn CaptureReader>) -> String {
    reader
        .and_then(|r| r.crawl())
        .or_else(|| crawl_in_path(source).map(str::to_owned))
        .unwrap_or_else(|| config.default_crawl.clone())
}

/// Writes the one `errors` row of an input that could not be read, counted like a
/// reader's Problem event, so seen = documents + skipped + problems holds.
pub(super) fn record_unreadable(
    config: &RunConfig,
    source: &str,
    unreadable: &Unreadable,
    writers: &mut TaskWriters,
    report: &mut InputReport,
) -> Result<(), PipelineError> {
    if report.crawl.is_empty() {
        report.crawl = crawl_of(config, source, None);
    }
    report.unreadable = true;
    report.transient = unreadable.retry;
    report.problems += 1;
    report.records_seen += 1;
    let mut batches = Batches::new(config.tables, &report.crawl);
    batches.problem(&Problem {
        doc_id: None,
        source,
        file_offset: unreadable.offset,
        stream_offset: unreadable.stream_offset,
        code: unreadable.code,
        message: &unreadable.message,
    });
    writers.for_crawl(&report.crawl)?.write(&mut batches)?;
    Ok(())
}

/// An input opened (a remote object's first request answered, its format sniffed),
/// or why it cannot be read.
pub(super) type Opened = Result<(Box<dyn CaptureReader>, Option<FailureHandle>), Unreadable>;

/// Opens `source`. The caller runs this outside the rayon pool: a remote open may
/// wait seconds (a `Retry-After`, a backoff, a slow first byte), and that wait must
/// not hold one of the threads the other tasks' CPU work needs.
pub(super) fn open_source(config: &RunConfig, stores: Option<&Stores>, source: &str) -> Opened {
    if let Some(why) = config.not_walked.get(source) {
        return Err(Unreadable::from(InputError::Unreadable(why.clone()).at(0)));
    }
    Location::parse(source)
        .map_err(|e| Unreadable::from(&e))
        .and_then(|input| open_location(&input, stores, &config.read))
}

/// Streams every record of the `opened` input `source` into the task's writer for
/// its crawl. Returns the store failure that cut a remote input short, if any: its
/// rows must then not be kept (the task is written again without them).
pub(super) fn read_input(
    config: &RunConfig,
    source: &str,
    opened: Opened,
    writers: &mut TaskWriters,
    report: &mut InputReport,
    progress: &Progress,
) -> Result<Option<StoreError>, PipelineError> {
    let (mut reader, failure) = match opened {
        Ok(opened) => opened,
        Err(unreadable) => {
            record_unreadable(config, source, &unreadable, writers, report)?;
            return Ok(None);
        }
    };
    let chunk = chunk_records(config.questions_per_document());
    let mut spare = Vec::new();
    let mut current = read_chunk(reader.as_mut(), &mut spare, report, chunk)?;
    report.crawl = crawl_of(config, source, Some(reader.as_ref()));
    let writer = writers.for_crawl(&report.crawl)?;
    let mut pending: Option<Built> = None;
    let mut reported = (0, 0);
    // Three stages at once: read chunk n+1, build the rows of chunk n, encode
    // the rows of chunk n-1. Each stage is split into rayon tasks, so a thread
    // that finishes its stage helps with the others instead of waiting.
    while !current.is_empty() || pending.is_some() {
        let (next, (built, written)) = rayon::join(
            || {
                let mut counts = InputReport::default();
                let next = if current.is_empty() {
                    Ok(Vec::new())
                } else {
                    read_chunk(reader.as_mut(), &mut spare, &mut counts, chunk)
                };
                (next, counts)
            },
            || {
                rayon::join(
                    || {
                        (!current.is_empty())
                            .then(|| build_chunk(config, source, &report.crawl, &current))
                    },
                    || write_built(writer, pending.take()),
                )
            },
        );
        let (findings, warnings, tally) = written?;
        report.findings += findings;
        report.warnings += warnings;
        report.headline.add(&config.agents, &tally);
        pending = built.transpose()?;
        let (next, counts) = next;
        report.records_seen += counts.records_seen;
        report.documents += counts.documents;
        report.problems += counts.problems;
        for (kind, n) in counts.skipped {
            *report.skipped.entry(kind).or_default() += n;
        }
        spare.extend(current.drain(..).filter_map(|item| match item {
            Item::Capture(capture) => Some(recycle(capture)),
            Item::Problem(_) => None,
        }));
        current = next?;
        let bytes = reader.bytes_read();
        progress.advance(
            bytes.saturating_sub(reported.0),
            report.documents - reported.1,
        );
        reported = (bytes, report.documents);
    }
    report.bytes = match Location::parse(source) {
        Ok(Location::Local(path)) => {
            std::fs::metadata(path).map_or(reader.bytes_read(), |m| m.len())
        }
        _ => reader.bytes_read(),
    };
    progress.advance(
        report.bytes.saturating_sub(reported.0),
        report.documents - reported.1,
    );
    Ok(failure.and_then(|f| f.get().cloned()))
}

fn write_built(
    writer: &mut PartWriter,
    built: Option<Built>,
) -> Result<(u64, u64, Tally), OutputError> {
    match built {
        Some(rows) => writer
            .write_finished(&rows.sets)
            .map(|()| (rows.findings, rows.warnings, rows.tally)),
        None => Ok((0, 0, Tally::default())),
    }
}

fn recycle(mut capture: Box<Capture>) -> Box<Capture> {
    if capture.body.capacity() > SPARE_BODY_CAPACITY {
        capture.body = Vec::new();
    }
    capture
}

/// Reads up to a chunk of records, counting every event in `report`.
#[expect(
    clippy::vec_box,
    reason = "pooled captures stay boxed: they move between chunks and the pool as pointers"
)]
fn read_chunk(
    reader: &mut dyn CaptureReader,
    spare: &mut Vec<Box<Capture>>,
    report: &mut InputReport,
    records: usize,
) -> Result<Vec<Item>, PipelineError> {
    let mut items = Vec::with_capacity(records);
    let mut bytes = 0;
    while items.len() < records && bytes < CHUNK_BYTES {
        if should_stop() {
            return Err(PipelineError::Interrupted);
        }
        let mut capture = spare.pop().unwrap_or_default();
        capture.clear();
        let Some(event) = reader.next_event(&mut capture) else {
            break;
        };
        report.records_seen += 1;
        match event {
            Event::Capture => {
                report.documents += 1;
                bytes += capture.body.len();
                items.push(Item::Capture(capture));
            }
            // A capture that became no document goes straight back to the pool, so
            // its buffers are reused (request records are half of a Common Crawl file).
            Event::Skipped(kind) => {
                *report.skipped.entry(kind).or_default() += 1;
                spare.push(recycle(capture));
            }
            Event::Problem(problem) => {
                report.problems += 1;
                items.push(Item::Problem(problem));
                spare.push(recycle(capture));
            }
        }
    }
    Ok(items)
}

/// The rows of a chunk, built and not yet written: one set of batches per task,
/// in record order, with the chunk's lint findings, capture warnings and headline counts.
struct Built {
    sets: Vec<Vec<(Table, RecordBatch)>>,
    findings: u64,
    warnings: u64,
    tally: Tally,
}

/// Turns a chunk into rows, in parallel, in fixed-size tasks (so the batches do
/// not depend on the thread count).
fn build_chunk(
    config: &RunConfig,
    source: &str,
    crawl: &str,
    items: &[Item],
) -> Result<Built, PipelineError> {
    let tasks: Vec<Result<_, OutputError>> = items
        .par_chunks(TASK_RECORDS)
        // One set of builders serves the tasks a thread runs in a row: finished
        // builders keep room for the next task's rows (see `ColumnBuilder`).
        .map_init(
            || Batches::new(config.tables, crawl),
            |batches, task| {
                let (mut findings, mut warnings) = (0, 0);
                let mut tally = Tally::new(config.agents.len());
                for item in task {
                    match item {
                        Item::Capture(capture) => {
                            findings +=
                                document(config, source, capture, batches, &mut tally) as u64;
                            warnings += capture.warnings.len() as u64;
                        }
                        Item::Problem(problem) => {
                            batches.problem(&problem_row(source, None, problem))
                        }
                    }
                }
                let finished = batches.finish().map_err(|source| OutputError::Arrow {
                    table: "batch",
                    source,
                })?;
                Ok((finished, findings, warnings, tally))
            },
        )
        .collect();
    let mut built = Built {
        sets: Vec::with_capacity(tasks.len()),
        findings: 0,
        warnings: 0,
        tally: Tally::new(config.agents.len()),
    };
    for task in tasks {
        let (finished, findings, warnings, tally) = task?;
        built.sets.push(finished);
        built.findings += findings;
        built.warnings += warnings;
        built.tally.merge(&tally);
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_questions_shrink_chunks() {
        assert_eq!(chunk_records(30), CHUNK_RECORDS);
        assert_eq!(chunk_records(1000), 200);
        assert_eq!(chunk_records(100_000), TASK_RECORDS);
    }
}
