//! The rows of a run's tables: one [`Batches`] collects the rows of a batch of
//! documents, appending to each table's builders ([`super::tables`]) straight from
//! the parsed model and the values [`crate::census`] derives, and `finish` turns
//! them into record batches. Nothing is decided here; values are only appended.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch, StringArray};
use robots_census_engine::{
    license_target, lossy_text, shown_excerpt, AgentSummary, Answer, Finding, Pref, ProbeClass,
    Profile, RobotsTxt, RuleSetClass, SignalKind, Usage, Verdict,
};

use crate::census::document::{cut_at_500kib, Counts, SitemapFacts};

use super::schema::{Room, Table, TableSet};
use super::tables::{
    Agents, Documents, Errors, Groups, Readings, Rules, Signals, Sitemaps, Verdicts,
};
use crate::census::readings::Reading;

/// A document id: 128 bits, see `pipeline::document::doc_id`.
pub type DocId = [u8; 16];

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
    /// [`crate::census::urls::lookup_key`] of `url`; `None` without a URL.
    pub url_key: Option<String>,
    /// [`crate::census::urls::lookup_key`] of `location`.
    pub location_key: Option<String>,
    /// [`crate::census::site_classes::robots_mime`] of the payload and content types.
    pub robots_mime: bool,
    /// [`crate::census::urls::host_name`] of `host`; `None` without a host.
    pub host_name: Option<&'a str>,
}

/// An input problem, as the `errors` table records it.
#[derive(Debug, Clone)]
pub struct Problem<'a> {
    pub doc_id: Option<DocId>,
    pub source: &'a str,
    pub file_offset: Option<u64>,
    /// Where the problem is in the decompressed stream of a compressed input.
    pub stream_offset: Option<u64>,
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
    /// AIPREF's preferences for `/` ([`RobotsTxt::usage_for`]); all unknown when the
    /// body was not parsed.
    pub usage: Usage,
    /// Content-Signal's ai-train for the agent ([`RobotsTxt::content_signals_for`]).
    pub signal_ai_train: Option<bool>,
    /// [`RobotsTxt::mentions_agent`]; false when the body was not parsed.
    pub mentioned: bool,
}

/// `yes` or `no`, as Content Signals write them.
fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
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
        self.cut_at_500kib
            .append_value(cut_at_500kib(doc, info.body_size));
        self.utf8_bom.append_option(facts.map(|f| f.utf8_bom));
        self.valid_utf8.append_option(facts.map(|f| f.valid_utf8));
        self.has_nul.append_option(facts.map(|f| f.has_nul));
        self.looks_like_html
            .append_option(facts.map(|f| f.looks_like_html));
        let counts = doc.map(Counts::of);
        let count = |n: fn(&Counts) -> usize| counts.as_ref().map(|c| to_i32(n(c)));
        self.n_lines.append_option(count(|c| c.lines));
        self.n_directives.append_option(count(|c| c.directives));
        self.n_groups.append_option(count(|c| c.groups));
        self.n_allow.append_option(count(|c| c.allow));
        self.n_disallow.append_option(count(|c| c.disallow));
        self.n_sitemaps.append_option(count(|c| c.sitemaps));
        self.n_other.append_option(count(|c| c.other));
        self.n_findings.append_option(count(|c| c.findings));
        self.registrable_domain
            .append_option(info.registrable_domain);
        self.location.append_option(info.location.as_deref());
        self.is_robots_url.append_value(info.is_robots_url);
        self.url_key.append_option(info.url_key.as_deref());
        self.location_key
            .append_option(info.location_key.as_deref());
        self.robots_mime.append_value(info.robots_mime);
        self.host_name.append_option(info.host_name);
    }
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
                self.product_tokens
                    .values()
                    .append_value(doc.product_token(agent));
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
                self.key.append_value(doc.text_of(rule.key()));
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
}

impl Sitemaps {
    fn append(&mut self, doc_id: DocId, doc_host: &str, doc: &RobotsTxt<'_>) {
        for sitemap in &doc.sitemaps {
            let url = doc.text_of(sitemap.url);
            let facts = SitemapFacts::of(sitemap, &url, doc_host);
            self.doc_id.append_value(doc_id);
            self.line.append_value(sitemap.line as i32);
            self.url.append_value(&url);
            self.is_absolute.append_value(facts.is_absolute);
            self.host.append_option(facts.host.as_deref());
            self.same_host.append_option(facts.same_host);
        }
    }
}

impl Errors {
    fn append_findings(&mut self, info: &DocInfo<'_>, findings: &[Finding<'_>]) {
        for f in findings {
            self.doc_id.append_value(info.doc_id);
            self.source.append_value(info.source);
            self.file_offset.append_value(to_i64(info.file_offset));
            self.stream_offset.append_null();
            self.origin.append_value("lint");
            self.line.append_value(f.line as i32);
            self.code.append_value(f.code.as_str());
            self.severity.append_value(f.code.severity().as_str());
            self.message.append_value(f.code.message());
            self.excerpt.append_value(shown_excerpt(f.excerpt));
        }
    }

    fn append_problem(&mut self, p: &Problem<'_>) {
        self.doc_id.append_option(p.doc_id);
        self.source.append_value(p.source);
        self.file_offset.append_option(p.file_offset.map(to_i64));
        self.stream_offset
            .append_option(p.stream_offset.map(to_i64));
        self.origin.append_value("input");
        self.line.append_null();
        self.code.append_value(p.code);
        self.severity.append_value("error");
        self.message.append_value(p.message);
        self.excerpt.append_null();
    }
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
        self.profile.append_value(Profile::Google.name());
    }

    fn append_answer(&mut self, doc_id: DocId, q: &ProfileVerdict<'_>) {
        let a = q.answer;
        self.doc_id.append_value(doc_id);
        self.agent.append_value(q.agent);
        self.url.append_value(q.url);
        self.allowed.append_value(a.allowed);
        self.line.append_value(to_i32(a.line as usize));
        self.directive
            .append_option(a.directive.map(|d| d.as_str()));
        self.pattern.append_option(a.pattern.as_deref());
        self.scope.append_value(a.scope.as_str());
        self.profile.append_value(q.profile.name());
    }
}

/// One question answered under an interpretation profile (a row of `verdicts`).
#[derive(Debug, Clone, Copy)]
pub struct ProfileVerdict<'a> {
    pub agent: &'a str,
    pub url: &'a str,
    pub profile: Profile,
    pub answer: &'a Answer,
}

impl Agents {
    fn append(&mut self, doc_id: DocId, row: &AgentRow<'_>) {
        self.doc_id.append_value(doc_id);
        self.agent.append_value(row.agent);
        let summary = row.summary;
        self.named
            .append_value(summary.is_some_and(|s| s.scope == robots_census_engine::Scope::Named));
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
        self.usage_train_ai
            .append_option(row.usage.train_ai.map(Pref::as_str));
        self.usage_search
            .append_option(row.usage.search.map(Pref::as_str));
        self.signal_ai_train
            .append_option(row.signal_ai_train.map(yes_no));
        self.mentioned.append_value(row.mentioned);
    }
}

impl Signals {
    /// One row per signal of `doc`; `url` is the robots.txt URL License values resolve
    /// against.
    fn append(&mut self, doc_id: DocId, url: &str, doc: &RobotsTxt<'_>) {
        for signal in &doc.signals {
            self.doc_id.append_value(doc_id);
            self.line.append_value(signal.line as i32);
            self.kind.append_value(signal.kind.as_str());
            for agent in doc.signal_agents(signal) {
                self.agents.values().append_value(doc.text_of(agent.value));
            }
            self.agents.append(true);
            self.path.append_option(signal.path.map(|p| doc.text_of(p)));
            self.value.append_value(doc.text_of(signal.value));
            self.valid.append_value(signal.is_valid());
            self.problem
                .append_option(signal.problem().map(|p| p.as_str()));
            let usage = signal.kind == SignalKind::ContentUsage;
            self.train_ai
                .append_option(signal.usage.train_ai.filter(|_| usage).map(Pref::as_str));
            self.search
                .append_option(signal.usage.search.filter(|_| usage).map(Pref::as_str));
            self.labels.append_option(signal.labels.map(|l| l.as_str()));
            let s = &signal.content_signals;
            self.ai_train.append_option(s.ai_train.map(yes_no));
            self.ai_input.append_option(s.ai_input.map(yes_no));
            self.search_signal.append_option(s.search.map(yes_no));
            self.use_level
                .append_option(s.use_level.map(|u| u.as_str()));
            let license =
                (signal.kind == SignalKind::License).then(|| license_target(signal.value, url));
            self.license_url
                .append_option(license.as_ref().and_then(|l| l.url.as_deref()));
            self.license_same_host
                .append_option(license.and_then(|l| l.same_host));
            self.cloudflare_managed
                .append_value(signal.cloudflare_managed);
        }
    }
}

impl Readings {
    fn append(&mut self, doc_id: DocId, host: &str, agent: &str, reading: &Reading) {
        self.doc_id.append_value(doc_id);
        self.agent.append_value(agent);
        self.profile.append_value(reading.profile.name());
        let root = &reading.root;
        self.root_allowed.append_value(root.allowed);
        self.probe_class.append_value(reading.probe_class.as_str());
        self.scope.append_value(root.scope.as_str());
        self.line
            .append_option((root.line > 0).then(|| to_i32(root.line as usize)));
        self.directive
            .append_option(root.directive.map(|d| d.as_str()));
        self.pattern.append_option(root.pattern.as_deref());
        self.crawl_delay.append_option(reading.crawl_delay);
        self.crawl_delay_blocks
            .append_value(reading.crawl_delay_blocks);
        self.interpretation_sensitive
            .append_value(reading.interpretation_sensitive);
        self.host.append_option(opt_str(host));
    }
}

/// The rows of every table for a batch of documents. Tables left out of the
/// run's [`TableSet`] get no rows (and cost nothing).
#[derive(Default)]
pub struct Batches {
    tables: TableSet,
    /// The `crawl` column's value for every row of this batch.
    crawl: String,
    /// `crawl` repeated, as long as the longest batch so far: each batch's `crawl`
    /// column is a slice of it.
    crawl_column: Option<StringArray>,
    documents: Documents,
    groups: Groups,
    rules: Rules,
    sitemaps: Sitemaps,
    errors: Errors,
    verdicts: Verdicts,
    agents: Agents,
    readings: Readings,
    signals: Signals,
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

    /// A document and everything its robots.txt says (`doc` is `None` when
    /// there was no body to parse: revisits, error statuses).
    pub fn document(&mut self, info: &DocInfo<'_>, doc: Option<&RobotsTxt<'_>>) {
        self.documents.append(info, doc);
        if let Some(doc) = doc {
            if self.wants(Table::Groups) {
                self.groups.append(info.doc_id, doc);
            }
            if self.wants(Table::Rules) {
                self.rules.append(info.doc_id, doc);
            }
            if self.wants(Table::Sitemaps) {
                self.sitemaps.append(info.doc_id, info.host, doc);
            }
            if self.wants(Table::Signals) {
                self.signals.append(info.doc_id, info.url, doc);
            }
            self.errors.append_findings(info, &doc.findings);
        }
    }

    pub fn verdict(&mut self, doc_id: DocId, agent: &str, url: &str, verdict: &Verdict<'_>) {
        if self.wants(Table::Verdicts) {
            self.verdicts.append(doc_id, agent, url, verdict);
        }
    }

    /// A question answered under a profile other than Google's.
    pub fn profile_verdict(&mut self, doc_id: DocId, row: &ProfileVerdict<'_>) {
        if self.wants(Table::Verdicts) {
            self.verdicts.append_answer(doc_id, row);
        }
    }

    pub fn agent(&mut self, doc_id: DocId, row: &AgentRow<'_>) {
        if self.wants(Table::Agents) {
            self.agents.append(doc_id, row);
        }
    }

    /// One profile's reading of a parsed document for `agent`.
    pub fn reading(&mut self, doc_id: DocId, host: &str, agent: &str, reading: &Reading) {
        if self.wants(Table::Readings) {
            self.readings.append(doc_id, host, agent, reading);
        }
    }

    pub fn problem(&mut self, problem: &Problem<'_>) {
        self.errors.append_problem(problem);
    }

    /// One record batch per table of the run, in [`Table::ALL`] order; the builders are
    /// left empty for reuse. The tables `--tables` left out have no batch: their
    /// builders hold no rows, and finishing them was work done for nothing.
    pub fn finish(&mut self) -> Result<Vec<(Table, RecordBatch)>, arrow_schema::ArrowError> {
        let tables = self.tables;
        macro_rules! finish_if {
            ($tables:expr, $table:expr, $builders:expr) => {
                if $tables.contains($table) {
                    $builders.finish_within(Room::RUN)
                } else {
                    Vec::new()
                }
            };
        }
        let columns = [
            self.documents.finish_within(Room::RUN),
            finish_if!(tables, Table::Groups, self.groups),
            finish_if!(tables, Table::Rules, self.rules),
            finish_if!(tables, Table::Sitemaps, self.sitemaps),
            self.errors.finish_within(Room::RUN),
            finish_if!(tables, Table::Verdicts, self.verdicts),
            finish_if!(tables, Table::Agents, self.agents),
            finish_if!(tables, Table::Readings, self.readings),
            finish_if!(tables, Table::Signals, self.signals),
        ];
        // Every table ends with `crawl`, one value per batch: a slice of one column of
        // the value repeated, made again only when a batch is longer than it.
        let longest = columns
            .iter()
            .map(|c| c.first().map_or(0, |c| c.len()))
            .max()
            .unwrap_or(0);
        let crawl = match self.crawl_column.take() {
            Some(column) if column.len() >= longest => column,
            _ => StringArray::from_iter_values(std::iter::repeat_n(
                &self.crawl,
                longest.next_power_of_two(),
            )),
        };
        let crawl = self.crawl_column.insert(crawl);
        Table::ALL
            .into_iter()
            .zip(columns)
            .filter(|(table, _)| tables.contains(*table))
            .map(|(table, mut columns)| {
                let rows = columns.first().map_or(0, |c| c.len());
                columns.push(Arc::new(crawl.slice(0, rows)));
                Ok((table, RecordBatch::try_new(table.schema(), columns)?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    //! Issue 26: a row with distinct values in every column goes through the builders,
    //! a Parquet file and back, and each value is read by its column's name.

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampMicrosecondType};
    use arrow_schema::DataType;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;

    use std::collections::HashMap;

    use super::*;
    use robots_census_engine::Scope;

    /// The body: every count of the documents table a different number.
    const BODY: &[u8] = b"User-agent: a\nDisallow: /d1\nDisallow: /d2\nDisallow: /d3\n\
Disallow: /d4\nDisallow: /d5\nAllow: /a1\nUser-agent: b\nAllow: /a2\nAllow: /a3*$\n\
Crawl-delay: 5\nSitemap: https://maps.example/s.xml\nHost: x\nClean-param: y\nFoo: bar\n";

    /// `batch` written to Parquet with the table's properties and read back.
    fn round_trip(table: Table, batch: &RecordBatch) -> RecordBatch {
        // A table with no row (signals of a file without any) has no batch to read back.
        if batch.num_rows() == 0 {
            assert_eq!(batch.schema(), table.schema(), "{table:?}");
            return batch.clone();
        }
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(
            &mut file,
            table.schema(),
            Some(crate::output::properties(table)),
        )
        .expect("writer");
        writer.write(batch).expect("write");
        writer.close().expect("close");
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(file))
            .expect("footer")
            .build()
            .expect("reader");
        let read = reader.next().expect("a batch").expect("readable");
        assert_eq!(read.schema(), table.schema(), "{table:?}");
        read
    }

    /// One cell, read by column name, as text (`None` for null) whatever its type.
    fn cell(batch: &RecordBatch, name: &str, row: usize) -> Option<String> {
        let column = batch
            .column_by_name(name)
            .unwrap_or_else(|| panic!("no column {name}"));
        if column.is_null(row) {
            return None;
        }
        Some(match column.data_type() {
            DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
            DataType::Int32 => column.as_primitive::<Int32Type>().value(row).to_string(),
            DataType::Int64 => column.as_primitive::<Int64Type>().value(row).to_string(),
            DataType::Float64 => column.as_primitive::<Float64Type>().value(row).to_string(),
            DataType::Boolean => column.as_boolean().value(row).to_string(),
            DataType::Timestamp(..) => column
                .as_primitive::<TimestampMicrosecondType>()
                .value(row)
                .to_string(),
            DataType::FixedSizeBinary(16) => {
                format!("{:?}", column.as_fixed_size_binary().value(row))
            }
            DataType::List(_) => {
                let list = column.as_list::<i32>().value(row);
                let items: Vec<&str> = list.as_string::<i32>().iter().flatten().collect();
                items.join("|")
            }
            other => panic!("column {name}: unexpected type {other}"),
        })
    }

    /// Every (column, value) of `expected` in row `row` of `batch`, and every column
    /// of the table named in `expected`.
    fn check(table: Table, batch: &RecordBatch, row: usize, expected: &[(&str, Option<&str>)]) {
        for column in table.columns() {
            assert!(
                expected.iter().any(|(name, _)| *name == column.name),
                "{table:?}: column {} not checked",
                column.name
            );
        }
        for (name, want) in expected {
            assert_eq!(
                cell(batch, name, row).as_deref(),
                *want,
                "{table:?} row {row} column {name}"
            );
        }
    }

    fn id(n: u8) -> String {
        format!("{:?}", [n; 16])
    }

    /// A document's facts with every optional one set.
    fn info() -> DocInfo<'static> {
        DocInfo {
            doc_id: [7; 16],
            source: "in/a.warc.gz",
            record_kind: "response",
            file_offset: 11,
            file_length: Some(22),
            stream_offset: 33,
            csv_line: Some(44),
            record_id: "<urn:uuid:r1>",
            url: "https://www.example.com:8443/robots.txt",
            scheme: "https",
            host: "www.example.com",
            port: Some(8443),
            fetch_time: Some(1_700_000_000_000_055),
            http_status: Some(203),
            status_class: "2xx",
            content_type: "text/plain",
            payload_type: "text/x-robots",
            crawler_content_encoding: "br",
            warc_truncated: "length",
            body_size: 66,
            body_size_is_lower_bound: true,
            content_sha1: Some("5ha1".to_owned()),
            registrable_domain: Some("example.com"),
            location: Some("https://moved.example/robots.txt".to_owned()),
            is_robots_url: false,
            url_key: Some("https://www.example.com:8443/robots.txt".to_owned()),
            location_key: Some("https://moved.example/robots.txt".to_owned()),
            robots_mime: true,
            host_name: Some("www.example.com"),
        }
    }

    #[test]
    fn every_column_reads_back_by_name() {
        let doc = RobotsTxt::parse(BODY);
        let info = info();
        let mut batches = Batches::new(TableSet::ALL, "CC-MAIN-2026-01");
        batches.document(&info, Some(&doc));
        let verdict = doc.verdict(b"a", b"/d3/x");
        batches.verdict(info.doc_id, "a", "/d3/x", &verdict);
        batches.agent(
            info.doc_id,
            &AgentRow {
                agent: "b",
                host: "host.example",
                summary: Some(doc.agent_summary(b"b")),
                root_allowed: Some(true),
                classification: "partial_disallow",
                probe_class: Some(ProbeClass::Partial),
                cc_class: Some(RuleSetClass::AllowPart),
                usage: Usage {
                    train_ai: Some(Pref::Disallow),
                    search: None,
                },
                signal_ai_train: Some(true),
                mentioned: true,
            },
        );
        let urllib_answer = robots_census_engine::Answer {
            allowed: true,
            line: 3,
            pattern: Some("/q".to_owned()),
            directive: Some(robots_census_engine::RuleKind::Allow),
            scope: Scope::Star,
        };
        batches.profile_verdict(
            info.doc_id,
            &ProfileVerdict {
                agent: "c",
                url: "/q/x",
                profile: robots_census_engine::Profile::Urllib,
                answer: &urllib_answer,
            },
        );
        batches.reading(
            info.doc_id,
            "host.example",
            "a",
            &Reading {
                profile: robots_census_engine::Profile::Urllib,
                root: robots_census_engine::Answer {
                    allowed: false,
                    line: 9,
                    pattern: Some("/p".to_owned()),
                    directive: Some(robots_census_engine::RuleKind::Disallow),
                    scope: Scope::Fallback,
                },
                probe_class: ProbeClass::Full,
                crawl_delay: Some(2.5),
                crawl_delay_blocks: true,
                interpretation_sensitive: true,
            },
        );
        batches.problem(&Problem {
            doc_id: None,
            source: "in/b.warc.gz",
            file_offset: Some(77),
            stream_offset: Some(5077),
            code: "warc_bad_header",
            message: "no WARC/1.x line",
        });
        let lint = doc.findings.len();
        let tables: HashMap<Table, RecordBatch> = batches
            .finish()
            .expect("batches")
            .into_iter()
            .map(|(table, batch)| (table, round_trip(table, &batch)))
            .collect();
        let crawl = ("crawl", Some("CC-MAIN-2026-01"));
        let docid = id(7);

        let documents = &tables[&Table::Documents];
        assert_eq!(documents.num_rows(), 1);
        let parsed = BODY.len().to_string();
        let lint_s = lint.to_string();
        check(
            Table::Documents,
            documents,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("source", Some("in/a.warc.gz")),
                ("record_kind", Some("response")),
                ("file_offset", Some("11")),
                ("file_length", Some("22")),
                ("stream_offset", Some("33")),
                ("csv_line", Some("44")),
                ("warc_record_id", Some("<urn:uuid:r1>")),
                ("url", Some("https://www.example.com:8443/robots.txt")),
                ("scheme", Some("https")),
                ("host", Some("www.example.com")),
                ("port", Some("8443")),
                ("fetch_time", Some("1700000000000055")),
                ("http_status", Some("203")),
                ("status_class", Some("2xx")),
                ("content_type", Some("text/plain")),
                ("payload_type", Some("text/x-robots")),
                ("crawler_content_encoding", Some("br")),
                ("warc_truncated", Some("length")),
                ("body_size", Some("66")),
                ("body_size_is_lower_bound", Some("true")),
                ("parsed_size", Some(&parsed)),
                ("cut_at_500kib", Some("false")),
                ("content_sha1", Some("5ha1")),
                ("utf8_bom", Some("false")),
                ("valid_utf8", Some("true")),
                ("has_nul", Some("false")),
                ("looks_like_html", Some("false")),
                // 15 lines and the empty line after the last newline.
                ("n_lines", Some("16")),
                ("n_directives", Some("15")),
                ("n_groups", Some("2")),
                ("n_allow", Some("3")),
                ("n_disallow", Some("5")),
                ("n_sitemaps", Some("1")),
                // crawl-delay, host, clean-param and the unknown key foo.
                ("n_other", Some("4")),
                ("n_findings", Some(&lint_s)),
                ("registrable_domain", Some("example.com")),
                ("location", Some("https://moved.example/robots.txt")),
                ("is_robots_url", Some("false")),
                ("url_key", Some("https://www.example.com:8443/robots.txt")),
                ("location_key", Some("https://moved.example/robots.txt")),
                ("robots_mime", Some("true")),
                ("host_name", Some("www.example.com")),
                crawl,
            ],
        );

        let groups = &tables[&Table::Groups];
        assert_eq!(groups.num_rows(), 2);
        check(
            Table::Groups,
            groups,
            1,
            &[
                ("doc_id", Some(&docid)),
                ("group_index", Some("1")),
                ("first_line", Some("8")),
                // Other directives (foo: bar, line 15) belong to the group too.
                ("last_line", Some("15")),
                ("user_agents", Some("b")),
                ("product_tokens", Some("b")),
                ("has_star", Some("false")),
                ("n_allow", Some("2")),
                ("n_disallow", Some("0")),
                ("crawl_delay", Some("5")),
                crawl,
            ],
        );
        assert_eq!(cell(groups, "n_disallow", 0).as_deref(), Some("5"));

        let rules = &tables[&Table::Rules];
        // 8 allow/disallow lines and 4 other directives, in line order (a sitemap is
        // not a rule).
        assert_eq!(rules.num_rows(), 12);
        check(
            Table::Rules,
            rules,
            7,
            &[
                ("doc_id", Some(&docid)),
                ("group_index", Some("1")),
                ("line", Some("10")),
                ("directive", Some("allow")),
                ("key", Some("Allow")),
                ("value", Some("/a3*$")),
                ("pattern", Some("/a3*$")),
                ("pattern_length", Some("5")),
                ("has_wildcard", Some("true")),
                ("has_end_anchor", Some("true")),
                crawl,
            ],
        );
        check(
            Table::Rules,
            rules,
            11,
            &[
                ("doc_id", Some(&docid)),
                ("group_index", Some("1")),
                ("line", Some("15")),
                ("directive", Some("unknown")),
                ("key", Some("Foo")),
                ("value", Some("bar")),
                ("pattern", None),
                ("pattern_length", None),
                ("has_wildcard", Some("false")),
                ("has_end_anchor", Some("false")),
                crawl,
            ],
        );

        let sitemaps = &tables[&Table::Sitemaps];
        check(
            Table::Sitemaps,
            sitemaps,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("line", Some("12")),
                ("url", Some("https://maps.example/s.xml")),
                ("is_absolute", Some("true")),
                ("host", Some("maps.example")),
                ("same_host", Some("false")),
                crawl,
            ],
        );

        let verdicts = &tables[&Table::Verdicts];
        check(
            Table::Verdicts,
            verdicts,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("agent", Some("a")),
                ("url", Some("/d3/x")),
                ("allowed", Some("false")),
                ("line", Some("4")),
                ("directive", Some("disallow")),
                ("pattern", Some("/d3")),
                ("scope", Some(Scope::Named.as_str())),
                ("profile", Some("google")),
                crawl,
            ],
        );

        check(
            Table::Verdicts,
            verdicts,
            1,
            &[
                ("doc_id", Some(&docid)),
                ("agent", Some("c")),
                ("url", Some("/q/x")),
                ("allowed", Some("true")),
                ("line", Some("3")),
                ("directive", Some("allow")),
                ("pattern", Some("/q")),
                ("scope", Some("star")),
                ("profile", Some("urllib")),
                crawl,
            ],
        );

        let agents = &tables[&Table::Agents];
        check(
            Table::Agents,
            agents,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("agent", Some("b")),
                ("named", Some("true")),
                ("root_allowed", Some("true")),
                ("n_allow", Some("2")),
                ("n_disallow", Some("0")),
                ("classification", Some("partial_disallow")),
                ("host", Some("host.example")),
                ("probe_class", Some(ProbeClass::Partial.as_str())),
                ("cc_class", Some(RuleSetClass::AllowPart.as_str())),
                ("usage_train_ai", Some("n")),
                ("usage_search", None),
                ("signal_ai_train", Some("yes")),
                ("mentioned", Some("true")),
                crawl,
            ],
        );

        let readings = &tables[&Table::Readings];
        check(
            Table::Readings,
            readings,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("agent", Some("a")),
                ("profile", Some("urllib")),
                ("root_allowed", Some("false")),
                ("probe_class", Some("full")),
                ("scope", Some("fallback")),
                ("line", Some("9")),
                ("directive", Some("disallow")),
                ("pattern", Some("/p")),
                ("crawl_delay", Some("2.5")),
                ("crawl_delay_blocks", Some("true")),
                ("interpretation_sensitive", Some("true")),
                ("host", Some("host.example")),
                crawl,
            ],
        );

        // The lint findings first, then the input problem.
        let errors = &tables[&Table::Errors];
        assert_eq!(errors.num_rows(), lint + 1);
        check(
            Table::Errors,
            errors,
            lint,
            &[
                ("doc_id", None),
                ("source", Some("in/b.warc.gz")),
                ("file_offset", Some("77")),
                ("stream_offset", Some("5077")),
                ("origin", Some("input")),
                ("line", None),
                ("code", Some("warc_bad_header")),
                ("severity", Some("error")),
                ("message", Some("no WARC/1.x line")),
                ("excerpt", None),
                crawl,
            ],
        );
        let finding = doc.findings.first().expect("the unknown key is a finding");
        let line = finding.line.to_string();
        check(
            Table::Errors,
            errors,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("source", Some("in/a.warc.gz")),
                ("file_offset", Some("11")),
                ("stream_offset", None),
                ("origin", Some("lint")),
                ("line", Some(&line)),
                ("code", Some(finding.code.as_str())),
                ("severity", Some(finding.code.severity().as_str())),
                ("message", Some(finding.code.message())),
                ("excerpt", Some(&shown_excerpt(finding.excerpt))),
                crawl,
            ],
        );
    }

    /// The `crawl` column is a slice of one column kept between batches: each batch's
    /// holds its own row count of the value, whether the batch before was longer or
    /// shorter, and for tables with no rows it is empty.
    #[test]
    fn crawl_column_fits_every_batch() {
        let mut batches = Batches::new(TableSet::DEFAULT, "CC-MAIN-2026-01");
        for rows in [3, 40, 1, 0, 65] {
            for i in 0..rows {
                batches.problem(&Problem {
                    doc_id: None,
                    source: "in.warc.gz",
                    file_offset: Some(i),
                    stream_offset: None,
                    code: "warc_truncated",
                    message: "m",
                });
            }
            for (table, batch) in batches.finish().expect("finish") {
                let crawl = batch
                    .column_by_name("crawl")
                    .expect("crawl column")
                    .as_string::<i32>();
                let expected = if table == Table::Errors {
                    rows as usize
                } else {
                    0
                };
                assert_eq!(
                    (crawl.len(), batch.num_rows()),
                    (expected, expected),
                    "{table:?}"
                );
                assert!(
                    crawl.iter().all(|v| v == Some("CC-MAIN-2026-01")),
                    "{table:?}"
                );
            }
        }
    }

    #[test]
    fn signals_rows_read_back_by_name() {
        // Line 1 before any group; lines 5 to 8 in Cloudflare's block, in the group.
        let body = b"License: /l.xml\n# text and data mining reserved: Directive (EU) 2019/790\nUser-agent: a\nUser-agent: B\n# BEGIN Cloudflare Managed content\nContent-Usage: /p train-ai=n, bots=y\nContent-Signal: ai-train=no, ai-input=yes, search=yes, use=full\nLLM-Policy: https://x.example/llms.txt\n# END Cloudflare Managed Content\nDisallow: /\n";
        let doc = RobotsTxt::parse(body);
        let info = info();
        let mut batches = Batches::new(TableSet::parse("signals").expect("list"), "C");
        batches.document(&info, Some(&doc));
        let tables: HashMap<Table, RecordBatch> = batches
            .finish()
            .expect("batches")
            .into_iter()
            .map(|(table, batch)| (table, round_trip(table, &batch)))
            .collect();
        let signals = &tables[&Table::Signals];
        let docid = id(7);
        let crawl = ("crawl", Some("C"));
        assert_eq!(signals.num_rows(), 6);
        let none = |name| (name, None);
        check(
            Table::Signals,
            signals,
            0,
            &[
                ("doc_id", Some(&docid)),
                ("line", Some("1")),
                ("kind", Some("license")),
                ("agents", Some("")),
                none("path"),
                ("value", Some("/l.xml")),
                ("valid", Some("false")),
                ("problem", Some("license_not_absolute")),
                none("train_ai"),
                none("search"),
                none("labels"),
                none("ai_train"),
                none("ai_input"),
                none("search_signal"),
                none("use"),
                ("license_url", Some("https://www.example.com:8443/l.xml")),
                ("license_same_host", Some("true")),
                ("cloudflare_managed", Some("false")),
                crawl,
            ],
        );
        check(
            Table::Signals,
            signals,
            1,
            &[
                ("doc_id", Some(&docid)),
                ("line", Some("2")),
                ("kind", Some("tdm-comment")),
                ("agents", Some("")),
                none("path"),
                (
                    "value",
                    Some("text and data mining reserved: Directive (EU) 2019/790"),
                ),
                ("valid", Some("true")),
                none("problem"),
                none("train_ai"),
                none("search"),
                none("labels"),
                none("ai_train"),
                none("ai_input"),
                none("search_signal"),
                none("use"),
                none("license_url"),
                none("license_same_host"),
                ("cloudflare_managed", Some("false")),
                crawl,
            ],
        );
        assert_eq!(
            cell(signals, "kind", 2).as_deref(),
            Some("cloudflare-managed")
        );
        check(
            Table::Signals,
            signals,
            3,
            &[
                ("doc_id", Some(&docid)),
                ("line", Some("6")),
                ("kind", Some("content-usage")),
                ("agents", Some("a|B")),
                ("path", Some("/p")),
                ("value", Some("/p train-ai=n, bots=y")),
                ("valid", Some("false")),
                ("problem", Some("legacy_label")),
                ("train_ai", Some("n")),
                none("search"),
                ("labels", Some("mixed")),
                none("ai_train"),
                none("ai_input"),
                none("search_signal"),
                none("use"),
                none("license_url"),
                none("license_same_host"),
                ("cloudflare_managed", Some("true")),
                crawl,
            ],
        );
        check(
            Table::Signals,
            signals,
            4,
            &[
                ("doc_id", Some(&docid)),
                ("line", Some("7")),
                ("kind", Some("content-signal")),
                ("agents", Some("a|B")),
                none("path"),
                (
                    "value",
                    Some("ai-train=no, ai-input=yes, search=yes, use=full"),
                ),
                ("valid", Some("true")),
                none("problem"),
                none("train_ai"),
                none("search"),
                none("labels"),
                ("ai_train", Some("no")),
                ("ai_input", Some("yes")),
                ("search_signal", Some("yes")),
                ("use", Some("full")),
                none("license_url"),
                none("license_same_host"),
                ("cloudflare_managed", Some("true")),
                crawl,
            ],
        );
        assert_eq!(cell(signals, "kind", 5).as_deref(), Some("llm-policy"));
    }

    #[test]
    fn only_the_runs_tables_are_finished() {
        let tables = TableSet::parse("agents").expect("table list");
        let mut batches = Batches::new(tables, "CC-MAIN-2026-01");
        let finished: Vec<Table> = batches
            .finish()
            .expect("finish")
            .into_iter()
            .map(|(table, _)| table)
            .collect();
        assert_eq!(finished, [Table::Documents, Table::Errors, Table::Agents]);
        let mut all = Batches::new(TableSet::DEFAULT, "CC-MAIN-2026-01");
        let finished = all.finish().expect("finish");
        let expected: Vec<Table> = Table::ALL
            .into_iter()
            .filter(|t| TableSet::DEFAULT.contains(*t))
            .collect();
        assert_eq!(
            finished.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            expected
        );
    }
}
