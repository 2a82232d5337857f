//! Arrow builders for every table: one [`Batches`] collects the rows of a batch
//! of documents, appending straight from the parsed model (no row structs), and
//! `finish` turns them into record batches.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, FixedSizeBinaryBuilder, Float64Builder, Int32Builder, Int64Builder,
    ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};

use crate::robots::model::lossy_text;
use crate::robots::{AgentSummary, Finding, ProbeClass, RobotsTxt, RuleSetClass, Verdict};

use super::schema::{Table, TableSet};

/// A document id: 128 bits, see [`crate::pipeline::doc_id`].
pub type DocId = [u8; 16];

/// Builds a `doc_id` column (a UUID in Parquet, so DuckDB reads it as one).
struct IdBuilder(FixedSizeBinaryBuilder);

impl Default for IdBuilder {
    fn default() -> Self {
        IdBuilder(FixedSizeBinaryBuilder::new(16))
    }
}

impl IdBuilder {
    fn append_value(&mut self, id: DocId) {
        // The width is fixed at 16, so appending 16 bytes cannot fail.
        let _ = self.0.append_value(id);
    }

    fn append_option(&mut self, id: Option<DocId>) {
        match id {
            Some(id) => self.append_value(id),
            None => self.0.append_null(),
        }
    }

    fn finish(&mut self) -> arrow_array::FixedSizeBinaryArray {
        self.0.finish()
    }
}

/// What the tables say about a capture besides its robots.txt: filled by the pipeline.
#[derive(Debug, Clone, Default)]
pub struct DocInfo<'a> {
    pub doc_id: DocId,
    pub source: &'a str,
    pub record_kind: &'static str,
    pub file_offset: u64,
    pub file_length: Option<u64>,
    pub stream_offset: u64,
    pub csv_line: Option<u64>,
    pub record_id: &'a str,
    pub url: &'a str,
    pub scheme: &'a str,
    /// The URL's host (WHATWG: IDNA to punycode, lower-cased), without the port.
    pub host: &'a str,
    /// The URL's port when it is not the scheme's default.
    pub port: Option<u16>,
    pub fetch_time: Option<i64>,
    pub http_status: Option<u16>,
    pub status_class: &'static str,
    pub content_type: &'a str,
    pub payload_type: &'a str,
    pub crawler_content_encoding: &'a str,
    pub warc_truncated: &'a str,
    pub body_size: u64,
    pub body_size_is_lower_bound: bool,
    pub content_sha1: Option<String>,
    pub registrable_domain: Option<&'a str>,
    pub location: Option<String>,
    pub is_robots_url: bool,
}

/// An input problem, as the `errors` table records it.
#[derive(Debug, Clone)]
pub struct Problem<'a> {
    pub doc_id: Option<DocId>,
    pub source: &'a str,
    pub file_offset: Option<u64>,
    pub code: &'a str,
    pub message: &'a str,
}

/// How one document treats one agent (a row of `agents`).
#[derive(Debug, Clone, Copy)]
pub struct AgentRow<'a> {
    pub agent: &'a str,
    pub host: &'a str,
    pub summary: Option<AgentSummary>,
    pub root_allowed: Option<bool>,
    pub classification: &'static str,
    /// `None` when the body was not parsed.
    pub probe_class: Option<ProbeClass>,
    pub cc_class: Option<RuleSetClass>,
}

fn opt_str(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

fn to_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[derive(Default)]
struct Documents {
    doc_id: IdBuilder,
    source: StringBuilder,
    record_kind: StringBuilder,
    file_offset: Int64Builder,
    file_length: Int64Builder,
    stream_offset: Int64Builder,
    csv_line: Int64Builder,
    warc_record_id: StringBuilder,
    url: StringBuilder,
    scheme: StringBuilder,
    host: StringBuilder,
    port: Int32Builder,
    fetch_time: TimestampMicrosecondBuilder,
    http_status: Int32Builder,
    status_class: StringBuilder,
    content_type: StringBuilder,
    payload_type: StringBuilder,
    crawler_content_encoding: StringBuilder,
    warc_truncated: StringBuilder,
    body_size: Int64Builder,
    body_size_is_lower_bound: BooleanBuilder,
    parsed_size: Int64Builder,
    cut_at_500kib: BooleanBuilder,
    content_sha1: StringBuilder,
    utf8_bom: BooleanBuilder,
    valid_utf8: BooleanBuilder,
    has_nul: BooleanBuilder,
    looks_like_html: BooleanBuilder,
    n_lines: Int32Builder,
    n_directives: Int32Builder,
    n_groups: Int32Builder,
    n_allow: Int32Builder,
    n_disallow: Int32Builder,
    n_sitemaps: Int32Builder,
    n_other: Int32Builder,
    n_findings: Int32Builder,
    registrable_domain: StringBuilder,
    location: StringBuilder,
    is_robots_url: BooleanBuilder,
}

impl Documents {
    fn append(&mut self, info: &DocInfo<'_>, doc: Option<&RobotsTxt<'_>>) {
        self.doc_id.append_value(info.doc_id);
        self.source.append_value(info.source);
        self.record_kind.append_value(info.record_kind);
        self.file_offset.append_value(to_i64(info.file_offset));
        self.file_length.append_option(info.file_length.map(to_i64));
        self.stream_offset.append_value(to_i64(info.stream_offset));
        self.csv_line.append_option(info.csv_line.map(to_i64));
        self.warc_record_id.append_option(opt_str(info.record_id));
        self.url.append_option(opt_str(info.url));
        self.scheme.append_option(opt_str(info.scheme));
        self.host.append_option(opt_str(info.host));
        self.port.append_option(info.port.map(i32::from));
        self.fetch_time.append_option(info.fetch_time);
        self.http_status
            .append_option(info.http_status.map(i32::from));
        self.status_class.append_value(info.status_class);
        self.content_type.append_option(opt_str(info.content_type));
        self.payload_type.append_option(opt_str(info.payload_type));
        self.crawler_content_encoding
            .append_option(opt_str(info.crawler_content_encoding));
        self.warc_truncated
            .append_option(opt_str(info.warc_truncated));
        self.body_size.append_value(to_i64(info.body_size));
        self.body_size_is_lower_bound
            .append_value(info.body_size_is_lower_bound);
        self.content_sha1
            .append_option(info.content_sha1.as_deref());
        // Facts about the body as parsed: null when it was not parsed (an error
        // status, a revisit), so no row claims what was never looked at.
        let facts = doc.map(|d| d.facts);
        self.parsed_size
            .append_option(facts.map(|f| to_i64(f.parsed_len as u64)));
        self.cut_at_500kib.append_value(
            facts.is_some_and(|f| f.cut_at_cap)
                || info.body_size > crate::limits::ROBOTS_PARSE_CAP as u64,
        );
        self.utf8_bom.append_option(facts.map(|f| f.utf8_bom));
        self.valid_utf8.append_option(facts.map(|f| f.valid_utf8));
        self.has_nul.append_option(facts.map(|f| f.has_nul));
        self.looks_like_html
            .append_option(facts.map(|f| f.looks_like_html));
        let counts = doc.map(|d| {
            let allow = d
                .rules
                .iter()
                .filter(|r| r.group.is_some() && r.kind == crate::robots::RuleKind::Allow)
                .count();
            let in_groups = d.rules.iter().filter(|r| r.group.is_some()).count();
            [
                d.lines.lines as usize,
                d.lines.directive as usize,
                d.groups.len(),
                allow,
                in_groups - allow,
                d.sitemaps.len(),
                d.others.len(),
                d.findings.len(),
            ]
        });
        let builders = [
            &mut self.n_lines,
            &mut self.n_directives,
            &mut self.n_groups,
            &mut self.n_allow,
            &mut self.n_disallow,
            &mut self.n_sitemaps,
            &mut self.n_other,
            &mut self.n_findings,
        ];
        for (i, builder) in builders.into_iter().enumerate() {
            builder.append_option(counts.map(|c| to_i32(c[i])));
        }
        self.registrable_domain
            .append_option(info.registrable_domain);
        self.location.append_option(info.location.as_deref());
        self.is_robots_url.append_value(info.is_robots_url);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.source.finish()),
            Arc::new(self.record_kind.finish()),
            Arc::new(self.file_offset.finish()),
            Arc::new(self.file_length.finish()),
            Arc::new(self.stream_offset.finish()),
            Arc::new(self.csv_line.finish()),
            Arc::new(self.warc_record_id.finish()),
            Arc::new(self.url.finish()),
            Arc::new(self.scheme.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.port.finish()),
            Arc::new(self.fetch_time.finish().with_timezone("UTC")),
            Arc::new(self.http_status.finish()),
            Arc::new(self.status_class.finish()),
            Arc::new(self.content_type.finish()),
            Arc::new(self.payload_type.finish()),
            Arc::new(self.crawler_content_encoding.finish()),
            Arc::new(self.warc_truncated.finish()),
            Arc::new(self.body_size.finish()),
            Arc::new(self.body_size_is_lower_bound.finish()),
            Arc::new(self.parsed_size.finish()),
            Arc::new(self.cut_at_500kib.finish()),
            Arc::new(self.content_sha1.finish()),
            Arc::new(self.utf8_bom.finish()),
            Arc::new(self.valid_utf8.finish()),
            Arc::new(self.has_nul.finish()),
            Arc::new(self.looks_like_html.finish()),
            Arc::new(self.n_lines.finish()),
            Arc::new(self.n_directives.finish()),
            Arc::new(self.n_groups.finish()),
            Arc::new(self.n_allow.finish()),
            Arc::new(self.n_disallow.finish()),
            Arc::new(self.n_sitemaps.finish()),
            Arc::new(self.n_other.finish()),
            Arc::new(self.n_findings.finish()),
            Arc::new(self.registrable_domain.finish()),
            Arc::new(self.location.finish()),
            Arc::new(self.is_robots_url.finish()),
        ]
    }
}

#[derive(Default)]
struct Groups {
    doc_id: IdBuilder,
    group_index: Int32Builder,
    first_line: Int32Builder,
    last_line: Int32Builder,
    user_agents: ListBuilder<StringBuilder>,
    product_tokens: ListBuilder<StringBuilder>,
    has_star: BooleanBuilder,
    n_allow: Int32Builder,
    n_disallow: Int32Builder,
    crawl_delay: Float64Builder,
}

impl Groups {
    fn append(&mut self, doc_id: DocId, doc: &RobotsTxt<'_>) {
        for (index, group) in doc.groups.iter().enumerate() {
            self.doc_id.append_value(doc_id);
            self.group_index.append_value(to_i32(index));
            self.first_line.append_value(group.first_line as i32);
            self.last_line.append_value(group.last_line as i32);
            for agent in doc.group_agents(group) {
                self.user_agents
                    .values()
                    .append_value(doc.text_of(agent.value));
                let token = if agent.is_star {
                    "*".into()
                } else {
                    doc.text_of(agent.token).to_ascii_lowercase()
                };
                self.product_tokens.values().append_value(token);
            }
            self.user_agents.append(true);
            self.product_tokens.append(true);
            self.has_star.append_value(group.has_star);
            let (allow, disallow) = doc.rule_counts(group);
            self.n_allow.append_value(to_i32(allow));
            self.n_disallow.append_value(to_i32(disallow));
            self.crawl_delay.append_option(group.crawl_delay);
        }
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.group_index.finish()),
            Arc::new(self.first_line.finish()),
            Arc::new(self.last_line.finish()),
            Arc::new(self.user_agents.finish()),
            Arc::new(self.product_tokens.finish()),
            Arc::new(self.has_star.finish()),
            Arc::new(self.n_allow.finish()),
            Arc::new(self.n_disallow.finish()),
            Arc::new(self.crawl_delay.finish()),
        ]
    }
}

#[derive(Default)]
struct Rules {
    doc_id: IdBuilder,
    group_index: Int32Builder,
    line: Int32Builder,
    directive: StringBuilder,
    key: StringBuilder,
    value: StringBuilder,
    pattern: StringBuilder,
    pattern_length: Int32Builder,
    has_wildcard: BooleanBuilder,
    has_end_anchor: BooleanBuilder,
}

impl Rules {
    /// Rules and other directives, merged in line order.
    fn append(&mut self, doc_id: DocId, doc: &RobotsTxt<'_>) {
        let (mut rules, mut others) = (doc.rules.iter().peekable(), doc.others.iter().peekable());
        loop {
            let take_rule = match (rules.peek(), others.peek()) {
                (Some(r), Some(o)) => r.line < o.line,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            self.doc_id.append_value(doc_id);
            if take_rule {
                let Some(rule) = rules.next() else { break };
                self.group_index.append_option(rule.group.map(|g| g as i32));
                self.line.append_value(rule.line as i32);
                self.directive.append_value(rule.kind.as_str());
                self.key.append_value(doc.text_of(key_of(rule.text)));
                self.value.append_value(doc.text_of(rule.value));
                self.pattern.append_value(doc.text_of(&rule.pattern));
                self.pattern_length.append_value(to_i32(rule.pattern.len()));
                self.has_wildcard.append_value(rule.has_wildcard());
                self.has_end_anchor.append_value(rule.has_end_anchor());
            } else {
                let Some(other) = others.next() else { break };
                self.group_index
                    .append_option(other.group.map(|g| g as i32));
                self.line.append_value(other.line as i32);
                self.directive.append_value(other.key.as_str());
                self.key.append_value(doc.text_of(other.key_text));
                self.value.append_value(doc.text_of(other.value));
                self.pattern.append_null();
                self.pattern_length.append_null();
                self.has_wildcard.append_value(false);
                self.has_end_anchor.append_value(false);
            }
        }
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.group_index.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.directive.finish()),
            Arc::new(self.key.finish()),
            Arc::new(self.value.finish()),
            Arc::new(self.pattern.finish()),
            Arc::new(self.pattern_length.finish()),
            Arc::new(self.has_wildcard.finish()),
            Arc::new(self.has_end_anchor.finish()),
        ]
    }
}

/// The key of a directive line as written (before ':' or the first blank).
fn key_of(text: &[u8]) -> &[u8] {
    let text = crate::robots::tokenize::trim(text);
    let end = text
        .iter()
        .position(|b| matches!(b, b':' | b' ' | b'\t'))
        .unwrap_or(text.len());
    crate::robots::tokenize::trim(&text[..end])
}

#[derive(Default)]
struct Sitemaps {
    doc_id: IdBuilder,
    line: Int32Builder,
    url: StringBuilder,
    is_absolute: BooleanBuilder,
    host: StringBuilder,
    same_host: BooleanBuilder,
}

impl Sitemaps {
    fn append(&mut self, doc_id: DocId, doc_host: &str, doc: &RobotsTxt<'_>) {
        for sitemap in &doc.sitemaps {
            let url = doc.text_of(sitemap.url);
            let absolute = crate::robots::lint::is_absolute_sitemap_url(sitemap.url);
            let host = absolute.then(|| super::url_host(&url)).flatten();
            self.doc_id.append_value(doc_id);
            self.line.append_value(sitemap.line as i32);
            self.url.append_value(&url);
            self.is_absolute.append_value(absolute);
            self.host.append_option(host.as_deref());
            self.same_host.append_option(match (&host, doc_host) {
                (Some(h), d) if !d.is_empty() => Some(h == d),
                _ => None,
            });
        }
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.url.finish()),
            Arc::new(self.is_absolute.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.same_host.finish()),
        ]
    }
}

#[derive(Default)]
struct Errors {
    doc_id: IdBuilder,
    source: StringBuilder,
    file_offset: Int64Builder,
    origin: StringBuilder,
    line: Int32Builder,
    code: StringBuilder,
    severity: StringBuilder,
    message: StringBuilder,
    excerpt: StringBuilder,
}

impl Errors {
    fn append_findings(&mut self, info: &DocInfo<'_>, findings: &[Finding<'_>]) {
        for f in findings {
            self.doc_id.append_value(info.doc_id);
            self.source.append_value(info.source);
            self.file_offset.append_value(to_i64(info.file_offset));
            self.origin.append_value("lint");
            self.line.append_value(f.line as i32);
            self.code.append_value(f.code.as_str());
            self.severity.append_value(f.code.severity().as_str());
            self.message.append_value(f.code.message());
            self.excerpt
                .append_value(lossy_text(crate::robots::lint::cut_excerpt(f.excerpt)));
        }
    }

    fn append_problem(&mut self, p: &Problem<'_>) {
        self.doc_id.append_option(p.doc_id);
        self.source.append_value(p.source);
        self.file_offset.append_option(p.file_offset.map(to_i64));
        self.origin.append_value("input");
        self.line.append_null();
        self.code.append_value(p.code);
        self.severity.append_value("error");
        self.message.append_value(p.message);
        self.excerpt.append_null();
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.source.finish()),
            Arc::new(self.file_offset.finish()),
            Arc::new(self.origin.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.code.finish()),
            Arc::new(self.severity.finish()),
            Arc::new(self.message.finish()),
            Arc::new(self.excerpt.finish()),
        ]
    }
}

#[derive(Default)]
struct Verdicts {
    doc_id: IdBuilder,
    agent: StringBuilder,
    url: StringBuilder,
    allowed: BooleanBuilder,
    line: Int32Builder,
    directive: StringBuilder,
    pattern: StringBuilder,
    scope: StringBuilder,
}

impl Verdicts {
    fn append(&mut self, doc_id: DocId, agent: &str, url: &str, v: &Verdict<'_>) {
        self.doc_id.append_value(doc_id);
        self.agent.append_value(agent);
        self.url.append_value(url);
        self.allowed.append_value(v.allowed);
        self.line.append_value(v.line as i32);
        self.directive
            .append_option(v.directive().map(|d| d.as_str()));
        self.pattern.append_option(v.pattern().map(lossy_text));
        self.scope.append_value(v.scope.as_str());
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.url.finish()),
            Arc::new(self.allowed.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.directive.finish()),
            Arc::new(self.pattern.finish()),
            Arc::new(self.scope.finish()),
        ]
    }
}

#[derive(Default)]
struct Agents {
    doc_id: IdBuilder,
    agent: StringBuilder,
    named: BooleanBuilder,
    root_allowed: BooleanBuilder,
    n_allow: Int32Builder,
    n_disallow: Int32Builder,
    classification: StringBuilder,
    host: StringBuilder,
    probe_class: StringBuilder,
    cc_class: StringBuilder,
}

impl Agents {
    fn append(&mut self, doc_id: DocId, row: &AgentRow<'_>) {
        self.doc_id.append_value(doc_id);
        self.agent.append_value(row.agent);
        let summary = row.summary;
        self.named
            .append_value(summary.is_some_and(|s| s.scope == crate::robots::Scope::Named));
        self.root_allowed.append_option(row.root_allowed);
        self.n_allow
            .append_value(to_i32(summary.map_or(0, |s| s.allow_rules)));
        self.n_disallow
            .append_value(to_i32(summary.map_or(0, |s| s.disallow_rules)));
        self.classification.append_value(row.classification);
        self.host.append_option(opt_str(row.host));
        self.probe_class
            .append_option(row.probe_class.map(ProbeClass::as_str));
        self.cc_class
            .append_option(row.cc_class.map(RuleSetClass::as_str));
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.doc_id.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.named.finish()),
            Arc::new(self.root_allowed.finish()),
            Arc::new(self.n_allow.finish()),
            Arc::new(self.n_disallow.finish()),
            Arc::new(self.classification.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.probe_class.finish()),
            Arc::new(self.cc_class.finish()),
        ]
    }
}

/// The rows of every table for a batch of documents. Tables left out of the
/// run's [`TableSet`] get no rows (and cost nothing).
#[derive(Default)]
pub struct Batches {
    tables: TableSet,
    /// The `crawl` column's value for every row of this batch.
    crawl: String,
    documents: Documents,
    groups: Groups,
    rules: Rules,
    sitemaps: Sitemaps,
    errors: Errors,
    verdicts: Verdicts,
    agents: Agents,
    rows: usize,
}

impl Batches {
    /// Builders for the tables of `tables`, every row of them from `crawl`.
    pub fn new(tables: TableSet, crawl: &str) -> Self {
        Batches {
            tables,
            crawl: crawl.to_owned(),
            ..Default::default()
        }
    }

    /// Whether this run writes `table`.
    pub fn wants(&self, table: Table) -> bool {
        self.tables.contains(table)
    }

    /// Rows appended since the last `finish`, over all tables.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// A document and everything its robots.txt says (`doc` is `None` when
    /// there was no body to parse: revisits, error statuses).
    pub fn document(&mut self, info: &DocInfo<'_>, doc: Option<&RobotsTxt<'_>>) {
        self.documents.append(info, doc);
        self.rows += 1;
        if let Some(doc) = doc {
            if self.wants(Table::Groups) {
                self.groups.append(info.doc_id, doc);
                self.rows += doc.groups.len();
            }
            if self.wants(Table::Rules) {
                self.rules.append(info.doc_id, doc);
                self.rows += doc.rules.len() + doc.others.len();
            }
            if self.wants(Table::Sitemaps) {
                self.sitemaps.append(info.doc_id, info.host, doc);
                self.rows += doc.sitemaps.len();
            }
            self.errors.append_findings(info, &doc.findings);
            self.rows += doc.findings.len();
        }
    }

    pub fn verdict(&mut self, doc_id: DocId, agent: &str, url: &str, verdict: &Verdict<'_>) {
        if self.wants(Table::Verdicts) {
            self.verdicts.append(doc_id, agent, url, verdict);
            self.rows += 1;
        }
    }

    pub fn agent(&mut self, doc_id: DocId, row: &AgentRow<'_>) {
        if self.wants(Table::Agents) {
            self.agents.append(doc_id, row);
            self.rows += 1;
        }
    }

    pub fn problem(&mut self, problem: &Problem<'_>) {
        self.errors.append_problem(problem);
        self.rows += 1;
    }

    /// One record batch per table, in [`Table::ALL`] order; the builders are left empty for reuse.
    pub fn finish(&mut self) -> Result<Vec<(Table, RecordBatch)>, arrow_schema::ArrowError> {
        self.rows = 0;
        let columns = [
            self.documents.finish(),
            self.groups.finish(),
            self.rules.finish(),
            self.sitemaps.finish(),
            self.errors.finish(),
            self.verdicts.finish(),
            self.agents.finish(),
        ];
        Table::ALL
            .into_iter()
            .zip(columns)
            .map(|(table, mut columns)| {
                // Every table ends with `crawl`, one value per batch: built here,
                // not appended row by row.
                let rows = columns.first().map_or(0, |c| c.len());
                let crawl = StringArray::from_iter_values(std::iter::repeat_n(&self.crawl, rows));
                columns.push(Arc::new(crawl));
                Ok((table, RecordBatch::try_new(table.schema(), columns)?))
            })
            .collect()
    }
}
