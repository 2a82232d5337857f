//! One capture into rows: the `documents` row, and when its status says the body is a
//! robots.txt, one parse of it feeding groups, rules, sitemaps, lint findings,
//! verdicts and agent classifications. Column values come from [`crate::census`];
//! this module gathers them for [`crate::output::rows`] to append.

use robots_census_engine::{Interpretations, Profile, RobotsTxt, UrlPath, Usage, Verdict};

use crate::census::headline::Tally;
use crate::census::readings::{readings, Reading};
use crate::census::site_classes;
use crate::census::status::{classification, status_class, StatusOutcome};
use crate::census::urls::{self, authority, url_parts_of};
use crate::config::RunConfig;
use crate::input::{Capture, CaptureKind, InputProblem};
use crate::output::rows::DocId;
use crate::output::{AgentRow, Batches, DocInfo, Problem, ProfileVerdict, Table};

/// `doc_id`: the first 128 bits of SHA-1(source, NUL, stream offset). Stable for the
/// same capture of the same input; with 10^10 captures (100 crawls of 90 million)
/// the chance of any collision is about 10^20 / 2^129, below 10^-18.
pub fn doc_id(source: &str, stream_offset: u64) -> DocId {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    h.update(source.as_bytes());
    h.update([0]);
    h.update(stream_offset.to_string().as_bytes());
    let d = h.finalize();
    let mut id = [0u8; 16];
    id.copy_from_slice(&d[..16]);
    id
}

/// The `errors` row of a reader's problem at its offset.
pub fn problem_row<'a>(
    source: &'a str,
    doc_id: Option<DocId>,
    problem: &'a InputProblem,
) -> Problem<'a> {
    Problem {
        doc_id,
        source,
        file_offset: Some(problem.offset),
        stream_offset: problem.stream_offset,
        code: problem.code,
        message: &problem.message,
    }
}

/// An empty header value as absent, as the documents table stores it.
fn opt_str(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
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
/// rows, verdicts and agent classifications, counted in `tally` for the run's
/// headline. Returns the number of findings.
pub fn document(
    config: &RunConfig,
    source: &str,
    capture: &Capture,
    batches: &mut Batches,
    tally: &mut Tally,
) -> usize {
    let doc_id = doc_id(source, capture.stream_offset);
    panic_point(&capture.target_uri);
    // Parsed once for the URL parts, `is_robots_url` and the `Location` base.
    let parsed = url::Url::parse(&capture.target_uri).ok();
    let (scheme, host, port) = url_parts_of(parsed.as_ref());
    let has_body = capture.kind != CaptureKind::Revisit;
    // A status that does not parse is no evidence of a 2xx: the body is not classified.
    let outcome = if has_body && !capture.status_invalid {
        StatusOutcome::google(capture.http_status)
    } else {
        StatusOutcome::Unknown
    };
    let location = capture
        .http_status
        .is_some_and(|s| (300..400).contains(&s))
        .then(|| {
            let base = parsed.as_ref()?;
            urls::resolve_location_against(base, &capture.http_location)
        })
        .flatten();
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
        port,
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
        registrable_domain: urls::registrable_domain(&host),
        location_key: location.as_deref().map(urls::lookup_key),
        location,
        is_robots_url: parsed.as_ref().is_some_and(urls::is_robots_parsed),
        // The sites step's inputs that SQL cannot compute alike in every engine (a
        // WHATWG URL serialisation, the MIME filter's substring rule): computed here,
        // once, so the step can be plain SQL over the tables.
        url_key: (!capture.target_uri.is_empty()).then(|| match &parsed {
            Some(parsed) => urls::lookup_key_of(parsed).to_owned(),
            None => capture.target_uri.clone(),
        }),
        robots_mime: site_classes::robots_mime(
            opt_str(&capture.identified_payload_type),
            opt_str(&capture.http_content_type),
        ),
        host_name: (!host.is_empty()).then(|| urls::host_name(&host)),
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
                usage: Usage::default(),
                signal_ai_train: None,
                mentioned: false,
            };
            batches.agent(doc_id, &row);
        }
        return 0;
    }
    let doc = RobotsTxt::parse(&capture.body);
    batches.document(&info, Some(&doc));
    // The URLs are asked only for the verdicts table: the agents table needs `/` alone.
    let urls = if batches.wants(Table::Verdicts) {
        config.urls.urls_for(&scheme, &authority(&host, port))
    } else {
        Vec::new()
    };
    // The headline reads the agents rows: counted when they are made.
    let tally = (info.is_robots_url && batches.wants(Table::Agents)).then(|| {
        tally.parsed += 1;
        tally
    });
    if batches.wants(Table::Verdicts) || batches.wants(Table::Agents) {
        ask_agents(config, doc_id, &host, &doc, &urls, batches, tally);
    }
    if batches.wants(Table::Readings) {
        ask_profiles(config, doc_id, &host, &capture.body, &doc, &urls, batches);
    }
    doc.findings.len()
}

/// The `readings` rows of a parsed document (every profile of the run, every agent),
/// and, with the verdicts table, every question of `urls` under each profile but
/// Google's (whose rows `ask_agents` wrote). Each family's own parse of the body is
/// built once, on its first question.
fn ask_profiles(
    config: &RunConfig,
    doc_id: DocId,
    host: &str,
    body: &[u8],
    doc: &RobotsTxt<'_>,
    urls: &[String],
    batches: &mut Batches,
) {
    let reads = Interpretations::new(body, doc);
    if batches.wants(Table::Verdicts) {
        for &profile in config.profiles.iter().filter(|p| **p != Profile::Google) {
            for agent in &config.agents {
                for url in urls {
                    let answer = reads.answer(profile, agent, url);
                    let row = ProfileVerdict {
                        agent,
                        url,
                        profile,
                        answer: &answer,
                    };
                    batches.profile_verdict(doc_id, &row);
                }
            }
        }
    }
    // Agents no group of the file can name are read alike by every family: their
    // readings are computed once.
    let mut unaddressed: Option<Vec<Reading>> = None;
    for agent in &config.agents {
        if reads.addresses(agent) {
            for reading in readings(&reads, &config.profiles, agent) {
                batches.reading(doc_id, host, agent, &reading);
            }
            continue;
        }
        let shared = unaddressed.get_or_insert_with(|| readings(&reads, &config.profiles, agent));
        for reading in shared.iter() {
            batches.reading(doc_id, host, agent, reading);
        }
    }
}

/// The `verdicts` and `agents` rows of a parsed document (`urls` is empty when the
/// run writes no verdicts). Every agent that no group names gets the `*` group's
/// answers, so those are computed once and shared; `/` is asked once per agent even
/// when it is also a sampled URL.
fn ask_agents(
    config: &RunConfig,
    doc_id: DocId,
    host: &str,
    doc: &RobotsTxt<'_>,
    urls: &[String],
    batches: &mut Batches,
    mut tally: Option<&mut Tally>,
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
        // The AI-use preferences for `/` (nothing to work out in a file without signals).
        let signals = wants_classes.then(|| {
            let usage = doc.usage_for(agent.as_bytes(), &UrlPath::new(b"/"));
            (usage, doc.content_signals_for(agent.as_bytes()).ai_train)
        });
        (verdicts, summary, root_allowed, class, classes, signals)
    };
    let mut unnamed = None;
    for (i, agent) in config.agents.iter().enumerate() {
        let named;
        let (verdicts, summary, root_allowed, class, classes, signals) =
            if doc.names_agent(agent.as_bytes()) {
                named = answer(agent);
                &named
            } else {
                unnamed.get_or_insert_with(|| answer(agent))
            };
        for (url, verdict) in urls.iter().zip(verdicts) {
            batches.verdict(doc_id, agent, url, verdict);
        }
        if let Some(tally) = tally.as_deref_mut() {
            tally.count(i, *root_allowed, summary.scope);
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
                usage: signals.map(|s| s.0).unwrap_or_default(),
                signal_ai_train: signals.and_then(|s| s.1),
                mentioned: wants_classes && doc.mentions_agent(agent.as_bytes()),
            },
        );
    }
}

/// A test aid (cargo feature `fault-injection`, which `make test` builds): a capture
/// whose URL equals `ROBOTS_CENSUS_PANIC_ON_URL` panics, so the tests can show that a
/// bug met on one input becomes that input's error row.
#[cfg(feature = "fault-injection")]
fn panic_point(url: &str) {
    static TARGET: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let target = TARGET.get_or_init(|| std::env::var("ROBOTS_CENSUS_PANIC_ON_URL").ok());
    if target.as_deref() == Some(url) {
        panic!("ROBOTS_CENSUS_PANIC_ON_URL reached at {url}");
    }
}

/// Without `fault-injection`, the environment variable does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
fn panic_point(_url: &str) {}

/// Lower-case hex of the SHA-1 of `bytes`. Written a nibble at a time: `format!`'s
/// machinery per byte was a quarter of this column's cost.
fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = sha1::Sha1::digest(bytes);
    let mut s = String::with_capacity(2 * digest.len());
    for b in digest {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

/// WARC-Date (an RFC 3339 / ISO 8601 timestamp, `YYYY-MM-DDThh:mm:ss[.fraction]Z`)
/// as microseconds since the epoch; `None` when it does not parse.
pub fn parse_warc_date(date: &str) -> Option<i64> {
    let ts: jiff::Timestamp = date.trim().parse().ok()?;
    Some(ts.as_microsecond())
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
        assert_eq!(parse_warc_date("2024-13-01T00:00:00Z"), None);
    }

    #[test]
    fn content_sha1_is_lower_case_hex() {
        // sha1sum of the empty input and of "abc" (FIPS 180-1's example).
        assert_eq!(sha1_hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    }

    #[test]
    fn doc_ids_are_stable_and_distinct() {
        assert_eq!(doc_id("a.warc.gz", 0), doc_id("a.warc.gz", 0));
        assert_ne!(doc_id("a.warc.gz", 0), doc_id("a.warc.gz", 1));
        assert_ne!(doc_id("a.warc.gz", 1), doc_id("b.warc.gz", 1));
    }
}
