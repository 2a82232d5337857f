//! The output tables' schemas, defined once: Arrow types for the writers, and the
//! column descriptions that `schemas/<table>.json` publishes (a test keeps the two equal).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

/// The tables, in the order the pipeline writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Documents,
    Groups,
    Rules,
    Sitemaps,
    Errors,
    Verdicts,
    Agents,
    /// Written by `robots-census sites`, not by `run`.
    Sites,
    /// The ranked host list `sites --ranks` stores in the dataset.
    Ranks,
    /// Written by `robots-census changes`: what changed per site between two crawls.
    Changes,
}

impl Table {
    /// The tables `run` writes.
    pub const ALL: [Table; 7] = [
        Table::Documents,
        Table::Groups,
        Table::Rules,
        Table::Sitemaps,
        Table::Errors,
        Table::Verdicts,
        Table::Agents,
    ];

    /// Tables derived from the run's tables by later steps (`sites`).
    pub const DERIVED: [Table; 3] = [Table::Sites, Table::Ranks, Table::Changes];

    pub fn name(self) -> &'static str {
        match self {
            Table::Documents => "documents",
            Table::Groups => "groups",
            Table::Rules => "rules",
            Table::Sitemaps => "sitemaps",
            Table::Errors => "errors",
            Table::Verdicts => "verdicts",
            Table::Agents => "agents",
            Table::Sites => "sites",
            Table::Ranks => "ranks",
            Table::Changes => "changes",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Table::Documents => "One row per robots.txt capture (WARC response/resource/revisit record or CSV row).",
            Table::Groups => "One row per group: a run of user-agent lines and the rules after them.",
            Table::Rules => "One row per allow/disallow line, and per other directive line (crawl-delay, host, unknown keys, ...).",
            Table::Sitemaps => "One row per Sitemap line.",
            Table::Errors => "Lint findings of the engine (origin = lint) and input problems of the pipeline (origin = input).",
            Table::Verdicts => "One row per (document, agent, URL) asked: robots.cc's answer from the parsed model.",
            Table::Agents => "One row per (document, agent): how the document treats that crawler.",
            Table::Sites => "One row per (crawl, site, agent): the capture that decides for the site in that crawl, and what it says (robots-census sites).",
            Table::Ranks => "The ranked host list given to `sites --ranks`, one row per host.",
            Table::Changes => "One row per change of a site between two crawls of the sites table: status class, an agent's block, a rule line, a sitemap, or the site appearing or disappearing (robots-census changes).",
        }
    }

    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Documents => DOCUMENTS,
            Table::Groups => GROUPS,
            Table::Rules => RULES,
            Table::Sitemaps => SITEMAPS,
            Table::Errors => ERRORS,
            Table::Verdicts => VERDICTS,
            Table::Agents => AGENTS,
            Table::Sites => SITES,
            Table::Ranks => RANKS,
            Table::Changes => CHANGES,
        }
    }

    pub fn schema(self) -> SchemaRef {
        let fields: Vec<Field> = self.columns().iter().map(Column::field).collect();
        Arc::new(Schema::new(fields))
    }
}

/// Which tables a run writes. `documents` and `errors` are always in it: every
/// other table joins on `documents.doc_id`, and input problems must not be lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSet(u16);

impl TableSet {
    pub const ALL: TableSet = TableSet((1 << Table::ALL.len()) - 1);
    const REQUIRED: TableSet =
        TableSet((1 << Table::Documents as u16) | (1 << Table::Errors as u16));

    pub fn contains(self, table: Table) -> bool {
        self.0 & (1 << table as u16) != 0
    }

    /// The names of the tables in the set, in [`Table::ALL`] order.
    pub fn names(self) -> Vec<&'static str> {
        Table::ALL
            .into_iter()
            .filter(|t| self.contains(*t))
            .map(Table::name)
            .collect()
    }

    /// The required tables plus the comma-separated names in `list`.
    pub fn parse(list: &str) -> Result<TableSet, String> {
        let mut set = TableSet::REQUIRED;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            // Only the run's tables: derived ones are written by their own step.
            let table = Table::ALL
                .into_iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| name.to_owned())?;
            set.0 |= 1 << table as u16;
        }
        Ok(set)
    }
}

impl Default for TableSet {
    fn default() -> Self {
        TableSet::ALL
    }
}

/// Column types, mapped to Arrow (and so to Parquet and DuckDB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 16 bytes, a UUID in Parquet (DuckDB reads it as `UUID`).
    Uuid,
    Int64,
    Int32,
    Float64,
    Bool,
    Utf8,
    Utf8List,
    TimestampUtc,
}

impl Kind {
    pub fn data_type(self) -> DataType {
        match self {
            Kind::Uuid => DataType::FixedSizeBinary(16),
            Kind::Int64 => DataType::Int64,
            Kind::Int32 => DataType::Int32,
            Kind::Float64 => DataType::Float64,
            Kind::Bool => DataType::Boolean,
            Kind::Utf8 => DataType::Utf8,
            Kind::Utf8List => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            Kind::TimestampUtc => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Uuid => "uuid",
            Kind::Int64 => "int64",
            Kind::Int32 => "int32",
            Kind::Float64 => "float64",
            Kind::Bool => "bool",
            Kind::Utf8 => "string",
            Kind::Utf8List => "list<string>",
            Kind::TimestampUtc => "timestamp[us, UTC]",
        }
    }
}

/// One column: name, type, nullability, what it means, and how it is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    pub doc: &'static str,
    pub layout: Layout,
}

/// How a column is encoded in Parquet, chosen by what its values look like. Each
/// choice was measured on the bench's `cc.warc.gz` (see BENCHMARKS.md): a dictionary
/// or min/max statistics that help no reader cost several percent of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Numbers, booleans, timestamps: plain pages (zstd finds the repeats) with
    /// min/max statistics, which are cheap for them and let readers skip row groups.
    /// Interning integers in a dictionary cost ~4% of a run and made the files larger.
    Number,
    /// A few strings repeated on every row (agents, codes, directives): dictionary,
    /// no min/max. Every row group holds the whole domain, so min/max prune nothing.
    Repeated,
    /// One value per part file (`source`): dictionary and min/max, so a query on one
    /// input skips the part files of the others.
    PerFile,
    /// Mostly distinct strings (URLs, hashes, rule values): plain pages, no
    /// statistics. A dictionary would overflow and fall back to plain anyway.
    Distinct,
}

impl Layout {
    pub fn dictionary(self) -> bool {
        matches!(self, Layout::Repeated | Layout::PerFile)
    }

    pub fn statistics(self) -> bool {
        matches!(self, Layout::Number | Layout::PerFile)
    }
}

impl Column {
    /// The same column, laid out as mostly distinct strings.
    const fn distinct(self) -> Column {
        Column {
            layout: Layout::Distinct,
            ..self
        }
    }

    /// The same column, laid out as one value per part file.
    const fn per_file(self) -> Column {
        Column {
            layout: Layout::PerFile,
            ..self
        }
    }

    pub fn field(&self) -> Field {
        let field = Field::new(self.name, self.kind.data_type(), self.nullable);
        match self.kind {
            Kind::Uuid => field.with_extension_type(arrow_schema::extension::Uuid),
            _ => field,
        }
    }
}

/// A column with the layout its kind implies: strings repeated, the rest numbers.
const fn col(name: &'static str, kind: Kind, nullable: bool, doc: &'static str) -> Column {
    let layout = match kind {
        Kind::Utf8 | Kind::Utf8List => Layout::Repeated,
        Kind::Uuid => Layout::Distinct,
        Kind::Int64 | Kind::Int32 | Kind::Float64 | Kind::Bool | Kind::TimestampUtc => {
            Layout::Number
        }
    };
    Column {
        name,
        kind,
        nullable,
        doc,
        layout,
    }
}

use Kind::*;

const DOC_ID: Column = col(
    "doc_id",
    Uuid,
    false,
    "Document id: the first 128 bits of SHA-1(source, NUL, stream_offset), as a UUID. Same input, same id; a collision among 10^10 captures has a chance below 10^-18.",
);

/// The last column of every table, and its Hive partition (`crawl=<value>`).
const CRAWL: Column = col(
    "crawl",
    Utf8,
    false,
    "Crawl of the input: its first warcinfo record's isPartOf, else a CC-MAIN-YYYY-WW in its path, else --default-crawl (default `unknown`). Also the partition directory crawl=<value>.",
)
.per_file();

pub const DOCUMENTS: &[Column] = &[
    DOC_ID,
    col("source", Utf8, false, "Input file, as given on the command line or in --inputs-from.").per_file(),
    col("record_kind", Utf8, false, "response, resource, revisit (no body) or csv_row."),
    col("file_offset", Int64, false, "Byte offset of the record in the input file (start of its gzip member or zstd frame when it starts one; the CSV row's offset)."),
    col("file_length", Int64, true, "Bytes to read at file_offset to fetch the record again (its gzip member / zstd frame / plain record); null when not knowable (whole-file gzip)."),
    col("stream_offset", Int64, false, "Offset of the record in the decompressed stream; unique within the input."),
    col("csv_line", Int64, true, "Line of the CSV row in its file."),
    col("warc_record_id", Utf8, true, "WARC-Record-ID.").distinct(),
    col("url", Utf8, true, "WARC-Target-URI, or the CSV url (https://<host>/robots.txt for a host column).").distinct(),
    col("scheme", Utf8, true, "Lower-cased URL scheme."),
    col("host", Utf8, true, "URL host as WHATWG URL parsing gives it: lower-cased, IDNA as punycode, no port.").distinct(),
    col("port", Int32, true, "URL port when it is not the scheme's default."),
    col("fetch_time", TimestampUtc, true, "WARC-Date."),
    col("http_status", Int32, true, "HTTP status code of the response (CSV status column)."),
    col("status_class", Utf8, false, "2xx, 3xx, 4xx, 5xx, other, or none (no status: revisit, CSV without status)."),
    col("content_type", Utf8, true, "HTTP Content-Type header."),
    col("payload_type", Utf8, true, "WARC-Identified-Payload-Type (the crawler's detected MIME type)."),
    col("crawler_content_encoding", Utf8, true, "X-Crawler-Content-Encoding: the original Content-Encoding Common Crawl decoded."),
    col("warc_truncated", Utf8, true, "WARC-Truncated reason (e.g. length: body cut at 1 MiB by the crawler)."),
    col("body_size", Int64, false, "Payload bytes (decoded), counted in full even past what is kept."),
    col("body_size_is_lower_bound", Bool, false, "Decoding stopped at the cap, so body_size is a lower bound."),
    col("parsed_size", Int64, true, "Bytes parsed: min(body_size, 512000); null when the body was not parsed (non-2xx status, revisit)."),
    col("cut_at_500kib", Bool, false, "The body is over 512,000 bytes; Google ignores the rest."),
    col("content_sha1", Utf8, true, "Hex SHA-1 of the parsed bytes (at most 512,000); null without a body.").distinct(),
    col("utf8_bom", Bool, true, "Body starts with a UTF-8 byte order mark; null when not parsed (as every parse fact below)."),
    col("valid_utf8", Bool, true, "Parsed bytes are valid UTF-8 (a character cut in two at the 512,000-byte cut does not count against it)."),
    col("has_nul", Bool, true, "Parsed bytes contain a NUL."),
    col("looks_like_html", Bool, true, "Body looks like an HTML page."),
    col("n_lines", Int32, true, "Lines as robots.cc numbers them (a final empty line counts)."),
    col("n_directives", Int32, true, "Lines with a key and a value."),
    col("n_groups", Int32, true, "Groups."),
    col("n_allow", Int32, true, "Allow lines inside groups."),
    col("n_disallow", Int32, true, "Disallow lines inside groups."),
    col("n_sitemaps", Int32, true, "Sitemap lines."),
    col("n_other", Int32, true, "Other directive lines (crawl-delay, host, unknown keys...)."),
    col("n_findings", Int32, true, "Lint findings kept for the document (at most 100 per code)."),
    col("registrable_domain", Utf8, true, "Registrable domain of the URL's host (Public Suffix List, see psl_version in the manifest): shop.example.co.uk -> example.co.uk; null for IP addresses and bare public suffixes.").distinct(),
    col("location", Utf8, true, "3xx responses: the Location header resolved to an absolute URL against the capture's URL; null otherwise or when it does not resolve.").distinct(),
    col("is_robots_url", Bool, false, "The URL is http(s) with the path exactly /robots.txt and no query (Common Crawl's selection of robots.txt captures)."),
    CRAWL,
];

pub const GROUPS: &[Column] = &[
    DOC_ID,
    col("group_index", Int32, false, "0-based position of the group in the file."),
    col("first_line", Int32, false, "Line of the first user-agent line."),
    col("last_line", Int32, false, "Line of the last directive of the group."),
    col("user_agents", Utf8List, false, "User-agent values as written."),
    col("product_tokens", Utf8List, false, "What robots.cc matches: each value cut to [A-Za-z_-]*, lower-cased; '*' for the global group."),
    col("has_star", Bool, false, "The group applies to '*'."),
    col("n_allow", Int32, false, "Allow rules."),
    col("n_disallow", Int32, false, "Disallow rules."),
    col("crawl_delay", Float64, true, "First numeric crawl-delay of the group, in seconds."),
    CRAWL,
];

pub const RULES: &[Column] = &[
    DOC_ID,
    col("group_index", Int32, true, "The group the line belongs to; null before any user-agent line (ignored by Google)."),
    col("line", Int32, false, "Line number."),
    col("directive", Utf8, false, "allow, disallow, crawl-delay, request-rate, visit-time, host, clean-param, noindex, content-signal, or unknown."),
    col("key", Utf8, false, "The key as written."),
    col("value", Utf8, false, "The value as written.").distinct(),
    col("pattern", Utf8, true, "Allow/disallow: the percent-escaped pattern robots.cc matches; null for other directives.").distinct(),
    col("pattern_length", Int32, true, "Length of the escaped pattern: the rule's priority."),
    col("has_wildcard", Bool, false, "Pattern contains '*'."),
    col("has_end_anchor", Bool, false, "Pattern ends with '$'."),
    CRAWL,
];

pub const SITEMAPS: &[Column] = &[
    DOC_ID,
    col("line", Int32, false, "Line number."),
    col("url", Utf8, false, "The sitemap URL as written.").distinct(),
    col(
        "is_absolute",
        Bool,
        false,
        "An absolute http(s) or ftp URL with a host.",
    ),
    col(
        "host",
        Utf8,
        true,
        "Host of the sitemap URL (WHATWG parsing: lower-cased, punycode, no port).",
    ),
    col(
        "same_host",
        Bool,
        true,
        "Sitemap host equals the robots.txt host; null when either is unknown.",
    ),
    CRAWL,
];

pub const ERRORS: &[Column] = &[
    col(
        "doc_id",
        Uuid,
        true,
        "Document the finding is about; null for input problems that made no document.",
    ),
    col("source", Utf8, false, "Input file.").per_file(),
    col(
        "file_offset",
        Int64,
        true,
        "Byte offset in the input file (of the record, or where the problem was found; in a compressed input, the start of the gzip member or zstd frame holding it).",
    ),
    col(
        "origin",
        Utf8,
        false,
        "lint (robots.txt content) or input (archive / CSV reading).",
    ),
    col(
        "line",
        Int32,
        true,
        "robots.txt line (0: the body as a whole) for lint; null for input problems.",
    ),
    col("code", Utf8, false, "Stable code; see schemas/README.md."),
    col("severity", Utf8, false, "error, warning or info."),
    col("message", Utf8, false, "Human-readable explanation."),
    col(
        "excerpt",
        Utf8,
        true,
        "Start of the offending line (at most 200 bytes).",
    )
    .distinct(),
    CRAWL,
];

pub const VERDICTS: &[Column] = &[
    DOC_ID,
    col("agent", Utf8, false, "Crawler product token asked."),
    col("url", Utf8, false, "URL asked."),
    col("allowed", Bool, false, "robots.cc's answer."),
    col(
        "line",
        Int32,
        false,
        "Line of the deciding rule (robots.cc matching_line); 0 when none.",
    ),
    col(
        "directive",
        Utf8,
        true,
        "allow or disallow: the deciding rule's directive.",
    ),
    col(
        "pattern",
        Utf8,
        true,
        "The deciding rule's escaped pattern.",
    ),
    col(
        "scope",
        Utf8,
        false,
        "named: a group names the agent; star: the '*' group applied; none: no group applied.",
    ),
    CRAWL,
];

pub const AGENTS: &[Column] = &[
    DOC_ID,
    col("agent", Utf8, false, "Crawler product token."),
    col("named", Bool, false, "A group names the agent explicitly."),
    col("root_allowed", Bool, true, "robots.cc allows '/' for the agent; null when the body was not parsed (no_robots, unreachable, redirect, revisit)."),
    col("n_allow", Int32, false, "Non-empty allow rules that apply to the agent."),
    col("n_disallow", Int32, false, "Non-empty disallow rules that apply to the agent."),
    col("classification", Utf8, false, "full_disallow, partial_disallow, allowed, no_robots (4xx but 429), unreachable (5xx, 429: RFC 9309 disallow-all), redirect (3xx) or unknown (revisit, no status)."),
    col("host", Utf8, true, "URL host of the document, as documents.host (so this table can be used alone).").distinct(),
    col("probe_class", Utf8, true, "The Somesite study's reading of robots.cc's verdicts: full, partial or none from probing '/', every allow/disallow path of the file (one trailing '$' dropped) and a dummy path; null when the body was not parsed."),
    col("cc_class", Utf8, true, "Common Crawl's exact-rule-set class of the rules that apply to the agent (its groups, else '*'): disallow_all ({Disallow: /}), allow_all ({Allow: /}, {Allow: *}, {Allow: /*}, {Allow: }, {Disallow: } or none), allow_part, or not_addressed (no group for it nor '*'); null when the body was not parsed."),
    CRAWL,
];

pub const SITES: &[Column] = &[
    col("site", Utf8, false, "The site: the host name, the host name without a leading www., or the registrable domain (see site_key).").distinct(),
    col("agent", Utf8, false, "Crawler product token (as in the agents table)."),
    col("status_class", Utf8, false, "Common Crawl's eight classes: No robots.txt capture, HTTP forbidden, HTTP defer visits, HTTP allow all, HTTP redirect not resolved, MIME not a robots.txt, Robots.txt no rules, Robots.txt with rules."),
    col("google_class", Utf8, true, "full, partial or none: agents.probe_class of the deciding capture when it is a success; else what its status means under status_semantics (allow all and unresolved redirects: none; forbidden, defer visits: full); null without a capture."),
    col("root_allowed", Bool, true, "robots.cc allows '/' for the agent on the deciding capture; null when it is not a success."),
    col("cc_class", Utf8, true, "agents.cc_class of the deciding capture; null when it is not a success."),
    col("named", Bool, false, "A group of the deciding capture names the agent (false when it is not a success)."),
    col("doc_id", Uuid, true, "documents.doc_id of the deciding capture (after redirects); null without a capture."),
    col("url", Utf8, true, "URL of the deciding capture.").distinct(),
    col("start_url", Utf8, true, "The site's robots.txt URL whose redirect chain led to the deciding capture.").distinct(),
    col("http_status", Int32, true, "HTTP status of the deciding capture."),
    col("redirect_hops", Int32, false, "Redirects followed from start_url to the deciding capture (at most 5)."),
    col("captures", Int32, false, "The site's robots.txt URLs in the crawl (latest capture per URL), over http/https/ports and, by site_key, hosts."),
    col("rank", Int64, true, "Best rank of the site's hosts in the --ranks list; null when unranked or without --ranks."),
    col("top_k", Utf8, true, "Smallest top-k stratum holding the rank: 1k, 10k, 50k, 100k, 1M, or 2M (any rank above 1M); strata are cumulative (rank <= k)."),
    col("site_key", Utf8, false, "The --site-key used: host, host-nowww or registrable-domain."),
    col("status_semantics", Utf8, false, "The --status-semantics used: rfc9309 or ccbot."),
    col("crawl", Utf8, false, "Crawl (documents.crawl): sites are decided one crawl at a time. Also the partition directory crawl=<value>.").per_file(),
];

pub const RANKS: &[Column] = &[
    col("rank", Int64, false, "Rank in the list (1 = top)."),
    col(
        "host",
        Utf8,
        false,
        "Host name, lower-cased; its best (lowest) rank when listed twice.",
    )
    .distinct(),
];

pub const CHANGES: &[Column] = &[
    col("site", Utf8, false, "The site (sites.site; both crawls' tables must use the same site_key).").distinct(),
    col("change", Utf8, false, "site_appeared, site_disappeared, status_class, block, rule_added, rule_removed, sitemap_added or sitemap_removed."),
    col("agent", Utf8, true, "block: the crawler (sites.agent); rule_added/rule_removed: the group's product token (groups.product_tokens, '*' for the global group); null otherwise."),
    col("directive", Utf8, true, "rule_added/rule_removed: allow or disallow; null otherwise."),
    col("value", Utf8, true, "rule_added/rule_removed: the pattern as robots.cc matches it (rules.pattern); sitemap_added/sitemap_removed: the sitemap URL as written; null otherwise."),
    col("before", Utf8, true, "status_class and site_disappeared: the status class in from_crawl; block: full, partial or none in from_crawl; null otherwise."),
    col("after", Utf8, true, "status_class and site_appeared: the status class in to_crawl; block: full, partial or none in to_crawl; null otherwise."),
    col("from_crawl", Utf8, false, "The earlier crawl. Also the partition directory from_crawl=<value>.").per_file(),
    col("to_crawl", Utf8, false, "The later crawl. Also the partition directory to_crawl=<value>.").per_file(),
];

/// `schemas/<table>.json`: the published form of a table's schema.
pub fn schema_json(table: Table) -> serde_json::Value {
    let columns: Vec<serde_json::Value> = table
        .columns()
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "type": c.kind.name(), "nullable": c.nullable, "description": c.doc}))
        .collect();
    serde_json::json!({"table": table.name(), "description": table.description(), "columns": columns})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sets_always_hold_documents_and_errors() {
        let set = TableSet::parse("agents, verdicts").expect("known names");
        for table in [
            Table::Documents,
            Table::Errors,
            Table::Agents,
            Table::Verdicts,
        ] {
            assert!(set.contains(table), "{table:?}");
        }
        for table in [Table::Groups, Table::Rules, Table::Sitemaps] {
            assert!(!set.contains(table), "{table:?}");
        }
        assert_eq!(TableSet::parse("rule").unwrap_err(), "rule");
        assert!(Table::ALL.iter().all(|t| TableSet::ALL.contains(*t)));
    }
}
