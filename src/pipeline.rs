//! The run: every input through reader -> engine -> verdicts -> part files, with
//! rayon across inputs, and the accounting a user needs to trust the totals.
//!
//! Each input is one task that owns its reader, its builders and its part files,
//! so nothing is shared on the hot path and the output does not depend on the
//! thread count. An input's parts are renamed into place and its manifest written
//! only when the whole input was read.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use rayon::prelude::*;

use crate::config::RunConfig;
use crate::input::{open_input, Capture, CaptureKind, CaptureReader, Event, InputProblem};
use crate::output::{
    self, part_name, AgentRow, Batches, DocInfo, OutputError, PartWriter, Problem, Table,
};
use crate::progress::Progress;
use crate::robots::{RobotsTxt, UrlPath, Verdict};
use crate::sites::urls;
use crate::verdicts::{classification, status_class, StatusOutcome};

/// Set by the Ctrl-C handler: workers stop at the next record, completed inputs stay.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Errors that end a run.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot start {0} worker threads: {1}")]
    Threads(usize, rayon::ThreadPoolBuildError),
    #[error("interrupted")]
    Interrupted,
}

/// What one input held: the per-input manifest.
#[derive(Debug, Clone, Default)]
pub struct InputReport {
    pub source: String,
    pub part: String,
    pub bytes: u64,
    pub records_seen: u64,
    pub documents: u64,
    pub skipped: BTreeMap<String, u64>,
    pub problems: u64,
    /// Warnings on captures that still became documents.
    pub warnings: u64,
    pub unreadable: bool,
    pub resumed: bool,
    pub rows: BTreeMap<&'static str, u64>,
    pub findings: u64,
}

impl InputReport {
    fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    fn manifest(&self, files: &[(Table, u64, std::path::PathBuf)]) -> serde_json::Value {
        serde_json::json!({
            "source": self.source,
            "part": self.part,
            "bytes": self.bytes,
            "records_seen": self.records_seen,
            "documents": self.documents,
            "skipped": self.skipped,
            "skipped_total": self.skipped_total(),
            "problems": self.problems,
            "warnings": self.warnings,
            "unreadable": self.unreadable,
            "findings": self.findings,
            "psl_version": crate::sites::psl_version(),
            "rows": self.rows,
            "files": files.iter().map(|(t, rows, p)| serde_json::json!({"table": t.name(), "rows": rows, "path": p.file_name().map(|n| n.to_string_lossy().into_owned())})).collect::<Vec<_>>(),
        })
    }

    fn from_manifest(source: &str, part: &str, value: &serde_json::Value) -> Self {
        let num = |k: &str| value[k].as_u64().unwrap_or(0);
        let mut report = InputReport {
            source: source.to_owned(),
            part: part.to_owned(),
            bytes: num("bytes"),
            records_seen: num("records_seen"),
            documents: num("documents"),
            problems: num("problems"),
            warnings: num("warnings"),
            unreadable: value["unreadable"].as_bool().unwrap_or(false),
            findings: num("findings"),
            resumed: true,
            ..Default::default()
        };
        if let Some(skipped) = value["skipped"].as_object() {
            report.skipped = skipped
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect();
        }
        if let Some(rows) = value["rows"].as_object() {
            for table in Table::ALL {
                report.rows.insert(
                    table.name(),
                    rows.get(table.name()).and_then(|v| v.as_u64()).unwrap_or(0),
                );
            }
        }
        report
    }
}

/// The totals of a run.
#[derive(Debug, Default)]
pub struct Summary {
    pub inputs: Vec<InputReport>,
    pub elapsed: Duration,
}

impl Summary {
    fn total(&self, f: impl Fn(&InputReport) -> u64) -> u64 {
        self.inputs.iter().map(f).sum()
    }

    /// Whether any input or record was skipped for a problem.
    pub fn had_problems(&self) -> bool {
        self.inputs.iter().any(|r| r.problems > 0 || r.unreadable)
    }

    pub fn render(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-6);
        let docs = self.total(|r| r.documents);
        let bytes = self.total(|r| r.bytes);
        let mut skipped: BTreeMap<&str, u64> = BTreeMap::new();
        for r in &self.inputs {
            for (k, v) in &r.skipped {
                *skipped
                    .entry(if k.is_empty() { "(no type)" } else { k })
                    .or_default() += v;
            }
        }
        let mut out = format!(
            "inputs: {} ({} resumed, {} unreadable)\nrecords: {} seen, {} documents, {} skipped by type {:?}, {} input errors, {} warnings\n",
            self.inputs.len(),
            self.inputs.iter().filter(|r| r.resumed).count(),
            self.inputs.iter().filter(|r| r.unreadable).count(),
            self.total(|r| r.records_seen),
            docs,
            self.total(InputReport::skipped_total),
            skipped,
            self.total(|r| r.problems),
            self.total(|r| r.warnings),
        );
        out += &format!("lint findings: {}\nrows:", self.total(|r| r.findings));
        for table in Table::ALL {
            out += &format!(
                " {}={}",
                table.name(),
                self.total(|r| r.rows.get(table.name()).copied().unwrap_or(0))
            );
        }
        out += &format!(
            "\nelapsed: {:.2}s, {:.0} documents/s, {:.1} MB/s of input\n",
            secs,
            docs as f64 / secs,
            bytes as f64 / secs / 1e6
        );
        out
    }
}

/// Runs the whole job.
pub fn run(config: &RunConfig) -> Result<Summary, PipelineError> {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| PipelineError::Threads(config.threads, e))?;
    let total_bytes = config
        .inputs
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    let progress = Progress::new(total_bytes, config.quiet);
    // Largest inputs first, so one big file does not start last; results keep input order.
    let mut order: Vec<usize> = (0..config.inputs.len()).collect();
    order.sort_by_key(|&i| {
        std::cmp::Reverse(std::fs::metadata(&config.inputs[i]).map_or(0, |m| m.len()))
    });
    let results: Vec<(usize, Result<InputReport, PipelineError>)> = pool.install(|| {
        order
            .par_iter()
            .with_max_len(1)
            .map(|&i| (i, run_input(config, &config.inputs[i], &progress)))
            .collect()
    });
    progress.finish();
    let mut results = results;
    results.sort_by_key(|(i, _)| *i);
    let mut summary = Summary {
        inputs: Vec::with_capacity(results.len()),
        elapsed: Duration::ZERO,
    };
    for (_, result) in results {
        summary.inputs.push(result?);
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// One input, start to manifest; skipped when --resume finds its manifest.
fn run_input(
    config: &RunConfig,
    source: &str,
    progress: &Progress,
) -> Result<InputReport, PipelineError> {
    let part = part_name(source);
    let manifest = output::manifest_path(&config.out, &part);
    if config.resume {
        if let Some(done) = std::fs::read(&manifest)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
        {
            let report = InputReport::from_manifest(source, &part, &done);
            progress.advance(report.bytes, report.documents);
            return Ok(report);
        }
    }
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err(PipelineError::Interrupted);
    }
    let mut writer = PartWriter::create(&config.out, &part, config.tables)?;
    let mut report = InputReport {
        source: source.to_owned(),
        part,
        ..Default::default()
    };
    match read_input(config, source, &mut writer, &mut report, progress) {
        Ok(()) => {}
        Err(e) => {
            writer.abandon();
            return Err(e);
        }
    }
    let files = writer.commit()?;
    for (table, rows, _) in &files {
        report.rows.insert(table.name(), *rows);
    }
    let text = serde_json::to_vec_pretty(&report.manifest(&files)).unwrap_or_default();
    output::write_atomic(&manifest, &text)?;
    Ok(report)
}

/// A record read but not yet turned into rows: a capture, or a problem to record.
enum Item {
    // Boxed so chunks move pointers; the boxes are recycled through the spare pool.
    Capture(Box<Capture>),
    Problem(InputProblem),
}

/// Records per chunk: the unit that is read while the previous one is processed.
const CHUNK_RECORDS: usize = 2048;
/// Body bytes per chunk, so a run of 500 KiB bodies cannot hold much memory.
const CHUNK_BYTES: usize = 16 << 20;
/// Records per rayon task inside a chunk (fixed, so output does not depend on threads).
const TASK_RECORDS: usize = 64;

/// Streams every record of `source` into `writer`. Reading the next chunk of
/// records overlaps with parsing and writing the current one, and a chunk is
/// parsed in parallel, so one large input uses every thread too.
fn read_input(
    config: &RunConfig,
    source: &str,
    writer: &mut PartWriter,
    report: &mut InputReport,
    progress: &Progress,
) -> Result<(), PipelineError> {
    let mut reader = match open_input(Path::new(source), &config.csv) {
        Ok(reader) => reader,
        Err(problem) => {
            // Counted like a reader's Problem event, so seen = documents + skipped + problems holds.
            report.unreadable = true;
            report.problems += 1;
            report.records_seen += 1;
            let mut batches = Batches::new(config.tables);
            batches.problem(&Problem {
                doc_id: None,
                source,
                file_offset: None,
                code: problem.code,
                message: &problem.message,
            });
            writer.write(&mut batches)?;
            return Ok(());
        }
    };
    let mut spare = Vec::new();
    let mut current = read_chunk(reader.as_mut(), &mut spare, report)?;
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
                    read_chunk(reader.as_mut(), &mut spare, &mut counts)
                };
                (next, counts)
            },
            || {
                rayon::join(
                    || (!current.is_empty()).then(|| build_chunk(config, source, &current)),
                    || match pending.take() {
                        Some(rows) => writer
                            .write_finished(&rows.sets)
                            .map(|()| (rows.findings, rows.warnings)),
                        None => Ok((0, 0)),
                    },
                )
            },
        );
        let (findings, warnings) = written?;
        report.findings += findings;
        report.warnings += warnings;
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
    report.bytes = std::fs::metadata(source).map_or(reader.bytes_read(), |m| m.len());
    progress.advance(
        report.bytes.saturating_sub(reported.0),
        report.documents - reported.1,
    );
    Ok(())
}

/// Body capacity a recycled capture may keep: typical robots.txt fit, while the
/// few 500 KiB bodies do not pin half a megabyte each in the spare pool.
const SPARE_BODY_CAPACITY: usize = 64 << 10;

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
) -> Result<Vec<Item>, PipelineError> {
    let mut items = Vec::new();
    let mut bytes = 0;
    while items.len() < CHUNK_RECORDS && bytes < CHUNK_BYTES {
        if INTERRUPTED.load(Ordering::Relaxed) {
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
/// in record order, with the chunk's lint findings and capture warnings.
struct Built {
    sets: Vec<Vec<(Table, RecordBatch)>>,
    findings: u64,
    warnings: u64,
}

/// Turns a chunk into rows, in parallel, in fixed-size tasks (so the batches do
/// not depend on the thread count).
fn build_chunk(config: &RunConfig, source: &str, items: &[Item]) -> Result<Built, PipelineError> {
    let tasks: Vec<Result<_, OutputError>> = items
        .par_chunks(TASK_RECORDS)
        .map(|task| {
            let mut batches = Batches::new(config.tables);
            let (mut findings, mut warnings) = (0, 0);
            for item in task {
                match item {
                    Item::Capture(capture) => {
                        findings += document(config, source, capture, &mut batches) as u64;
                        warnings += capture.warnings.len() as u64;
                    }
                    Item::Problem(problem) => batches.problem(&problem_row(source, None, problem)),
                }
            }
            let finished = batches.finish().map_err(|source| OutputError::Arrow {
                table: "batch",
                source,
            })?;
            Ok((finished, findings, warnings))
        })
        .collect();
    let mut built = Built {
        sets: Vec::with_capacity(tasks.len()),
        findings: 0,
        warnings: 0,
    };
    for task in tasks {
        let (finished, findings, warnings) = task?;
        built.sets.push(finished);
        built.findings += findings;
        built.warnings += warnings;
    }
    Ok(built)
}

/// The `errors` row of a reader's problem at its offset.
fn problem_row<'a>(source: &'a str, doc_id: Option<i64>, problem: &'a InputProblem) -> Problem<'a> {
    Problem {
        doc_id,
        source,
        file_offset: Some(problem.offset),
        code: problem.code,
        message: &problem.message,
    }
}

/// `doc_id`: the first 63 bits of SHA-1(source, NUL, stream offset).
pub fn doc_id(source: &str, stream_offset: u64) -> i64 {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    h.update(source.as_bytes());
    h.update([0]);
    h.update(stream_offset.to_string().as_bytes());
    let d = h.finalize();
    (u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]) >> 1) as i64
}

fn record_kind(kind: CaptureKind) -> &'static str {
    match kind {
        CaptureKind::Response => "response",
        CaptureKind::Resource => "resource",
        CaptureKind::Revisit => "revisit",
        CaptureKind::CsvRow => "csv_row",
    }
}

/// One capture: documents row, and when its status says so, the parsed model's
/// rows, verdicts and agent classifications. Returns the number of findings.
fn document(config: &RunConfig, source: &str, capture: &Capture, batches: &mut Batches) -> usize {
    let doc_id = doc_id(source, capture.stream_offset);
    let (scheme, host) = split_url(&capture.target_uri);
    let has_body = capture.kind != CaptureKind::Revisit;
    let outcome = if has_body {
        StatusOutcome::of(capture.http_status, true)
    } else {
        StatusOutcome::Unknown
    };
    let info = DocInfo {
        doc_id,
        source,
        record_kind: record_kind(capture.kind),
        file_offset: capture.file_offset,
        file_length: (capture.file_length > 0).then_some(capture.file_length),
        stream_offset: capture.stream_offset,
        csv_line: (capture.kind == CaptureKind::CsvRow).then_some(capture.line),
        record_id: &capture.record_id,
        url: &capture.target_uri,
        scheme: &scheme,
        host: &host,
        fetch_time: parse_warc_date(&capture.warc_date),
        http_status: capture.http_status,
        status_class: status_class(capture.http_status),
        content_type: &capture.http_content_type,
        payload_type: &capture.identified_payload_type,
        crawler_content_encoding: &capture.crawler_content_encoding,
        warc_truncated: &capture.warc_truncated,
        body_size: capture.body_size,
        body_size_is_lower_bound: capture.body_size_is_lower_bound,
        content_sha1: has_body.then(|| {
            sha1_hex(&capture.body[..capture.body.len().min(crate::limits::ROBOTS_PARSE_CAP)])
        }),
        crawl: urls::crawl_of_source(source),
        registrable_domain: urls::registrable_domain(&host),
        location: capture
            .http_status
            .is_some_and(|s| (300..400).contains(&s))
            .then(|| urls::resolve_location(&capture.target_uri, &capture.http_location))
            .flatten(),
        is_robots_url: urls::is_robots_url(&capture.target_uri),
    };
    for warning in &capture.warnings {
        batches.problem(&problem_row(source, Some(doc_id), warning));
    }
    if outcome != StatusOutcome::Parse {
        batches.document(&info, None);
        for agent in &config.agents {
            let row = AgentRow {
                agent,
                host: &host,
                summary: None,
                root_allowed: None,
                classification: outcome.classification(),
                probe_class: None,
                cc_class: None,
            };
            batches.agent(doc_id, &row);
        }
        return 0;
    }
    let doc = RobotsTxt::parse(&capture.body);
    batches.document(&info, Some(&doc));
    if batches.wants(Table::Verdicts) || batches.wants(Table::Agents) {
        let urls = config.urls.urls_for(&scheme, &host);
        ask_agents(config, doc_id, &host, &doc, &urls, batches);
    }
    doc.findings.len()
}

/// The `verdicts` and `agents` rows of a parsed document. Every agent that no
/// group names gets the `*` group's answers, so those are computed once and
/// shared; `/` is asked once per agent even when it is also a sampled URL.
fn ask_agents(
    config: &RunConfig,
    doc_id: i64,
    host: &str,
    doc: &RobotsTxt<'_>,
    urls: &[String],
    batches: &mut Batches,
) {
    let paths: Vec<UrlPath<'_>> = urls.iter().map(|u| UrlPath::new(u.as_bytes())).collect();
    let root = paths.iter().position(|p| p.as_bytes() == b"/");
    // The agents table's readings; the probe paths are built only if an agent needs them.
    let wants_classes = batches.wants(Table::Agents);
    let probes = doc.probes();
    let answer = |agent: &str| {
        let verdicts: Vec<Verdict<'_>> = paths
            .iter()
            .map(|path| doc.verdict_for_path(agent.as_bytes(), path))
            .collect();
        let root_allowed = match root {
            Some(i) => verdicts[i].allowed,
            None => doc.verdict(agent.as_bytes(), b"/").allowed,
        };
        let summary = doc.agent_summary(agent.as_bytes());
        let class = classification(&summary, root_allowed);
        let classes = wants_classes.then(|| {
            (
                doc.probe_class(agent.as_bytes(), &probes).1,
                doc.rule_set_class(agent.as_bytes()),
            )
        });
        (verdicts, summary, root_allowed, class, classes)
    };
    let mut unnamed = None;
    for agent in &config.agents {
        let named;
        let (verdicts, summary, root_allowed, class, classes) = if doc.names_agent(agent.as_bytes())
        {
            named = answer(agent);
            &named
        } else {
            unnamed.get_or_insert_with(|| answer(agent))
        };
        for (url, verdict) in urls.iter().zip(verdicts) {
            batches.verdict(doc_id, agent, url, verdict);
        }
        batches.agent(
            doc_id,
            &AgentRow {
                agent,
                host,
                summary: Some(*summary),
                root_allowed: Some(*root_allowed),
                classification: class,
                probe_class: classes.map(|c| c.0),
                cc_class: classes.map(|c| c.1),
            },
        );
    }
}

/// Lower-cased scheme and authority of a URL (empty when it has none).
fn split_url(url: &str) -> (String, String) {
    match url.find("://") {
        Some(i) => (
            url[..i].to_ascii_lowercase(),
            output::url_host(url).unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    }
}

fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest;
    use std::fmt::Write;
    let digest = sha1::Sha1::digest(bytes);
    digest.iter().fold(String::with_capacity(40), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// WARC-Date (`YYYY-MM-DDThh:mm:ss[.fraction]Z`) as microseconds since the epoch.
pub fn parse_warc_date(date: &str) -> Option<i64> {
    let b = date.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        std::str::from_utf8(b.get(r)?).ok()?.parse().ok()
    };
    if b.len() < 20 || b.get(4) != Some(&b'-') || b.get(10) != Some(&b'T') {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let mut micros = 0;
    if b.get(19) == Some(&b'.') {
        let frac: Vec<u8> = b[20..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .copied()
            .collect();
        let digits = frac.len().min(6);
        micros = std::str::from_utf8(&frac[..digits])
            .ok()?
            .parse::<i64>()
            .unwrap_or(0)
            * 10_i64.pow((6 - digits) as u32);
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1_000_000) + micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_dates() {
        assert_eq!(parse_warc_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_warc_date("2024-05-18T01:58:10Z"),
            Some(1_715_997_490_000_000)
        );
        assert_eq!(
            parse_warc_date("2024-05-18T01:58:10.5Z"),
            Some(1_715_997_490_500_000)
        );
        assert_eq!(parse_warc_date("yesterday"), None);
    }

    #[test]
    fn doc_ids_are_stable_and_distinct() {
        assert_eq!(doc_id("a.warc.gz", 0), doc_id("a.warc.gz", 0));
        assert_ne!(doc_id("a.warc.gz", 0), doc_id("a.warc.gz", 1));
        assert!(doc_id("a.warc.gz", 0) >= 0);
    }
}
