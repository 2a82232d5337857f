//! Every table's columns, declared once: name, type, nullability, Parquet layout and
//! the doc line. From each declaration `table!` derives the column list (so the Arrow
//! schema, `schemas/<table>.json` and the column tables of `schemas/README.md`) and a
//! struct of one Arrow builder per column whose `finish` returns the arrays in schema
//! order. Code that fills a table appends to its builders by column name, so a column
//! cannot land in another's place.

use arrow_array::ArrayRef;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
};

use super::schema::{
    Column, ColumnBuilder, IdBuilder, Kind, Room, StringColumn, UtcTimestampBuilder,
};

/// The Arrow builder of a [`Kind`] (its `data_type`).
macro_rules! builder_of {
    (Uuid) => { IdBuilder };
    (Int64) => { Int64Builder };
    (Int32) => { Int32Builder };
    (Float64) => { Float64Builder };
    (Bool) => { BooleanBuilder };
    (Utf8) => { StringColumn };
    (Utf8List) => { ListBuilder<StringBuilder> };
    (TimestampUtc) => { UtcTimestampBuilder };
}

/// Declares one table: `name ["column"]: Kind required|nullable [distinct|sorted|per_file] =>
/// "doc",` per column, in schema order (`["column"]` names a column whose name is no Rust
/// field name, such as `use`). Generates `pub const LIST: &[Column]` (followed by
/// the `+ TAIL` column when given, which has no builder) and `pub struct Name` with a
/// `pub` builder per column (`Default`) and `finish()`, the arrays in schema order.
macro_rules! table {
    (
        $(#[$meta:meta])*
        pub struct $builders:ident => pub const $list:ident $(+ $tail:ident)? {
            $( $name:ident $([$column:literal])? : $kind:ident $null:ident $($layout:ident)? => $doc:expr, )*
        }
    ) => {
        pub const $list: &[Column] = &[
            $( Column::new(table!(@name $name $($column)?), Kind::$kind, table!(@nullable $null), $doc)
                $(.$layout())?, )*
            $( $tail, )?
        ];

        $(#[$meta])*
        #[derive(Default)]
        pub struct $builders {
            $( pub $name: builder_of!($kind), )*
        }

        impl $builders {
            /// The arrays in schema order (without the tail column); the builders are
            /// left empty for the next batch, keeping up to `room`.
            pub fn finish_within(&mut self, room: Room) -> Vec<ArrayRef> {
                vec![ $( ColumnBuilder::finish_within(&mut self.$name, room), )* ]
            }
        }
    };
    (@nullable required) => { false };
    (@nullable nullable) => { true };
    (@name $name:ident) => { stringify!($name) };
    (@name $name:ident $column:literal) => { $column };
}

/// `documents.doc_id`, and the key every table of a run joins on.
const DOC_ID_DOC: &str = "Document id: the first 128 bits of SHA-1(source, NUL, stream_offset), as a UUID. Same input, same id; a collision among 10^10 captures has a chance below 10^-18.";

/// The last column of every table of a run, and its Hive partition (`crawl=<value>`):
/// one value per part file, so the tables' builders leave it out and
/// [`super::rows::Batches`] adds it per batch.
pub const CRAWL: Column = Column::new(
    "crawl",
    Kind::Utf8,
    false,
    "Crawl of the input: its first warcinfo record's isPartOf, else a CC-MAIN-YYYY-WW in its path, else --default-crawl (default `unknown`). Also the partition directory crawl=<value>.",
)
.per_file();

table! {
    /// Builders of the `documents` columns (but `crawl`).
    pub struct Documents => pub const DOCUMENTS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        source: Utf8 required per_file => "Input file, as given on the command line or in --inputs-from.",
        record_kind: Utf8 required => "response, resource, revisit (no body) or csv_row.",
        file_offset: Int64 required => "Byte offset of the record in the input file (start of its gzip member or zstd frame when it starts one; the CSV row's offset).",
        file_length: Int64 nullable => "Bytes to read at file_offset to fetch the record again (its gzip member / zstd frame / plain record); null when not knowable (whole-file gzip).",
        stream_offset: Int64 required => "Offset of the record in the decompressed stream; unique within the input.",
        csv_line: Int64 nullable => "Line of the CSV row in its file.",
        warc_record_id: Utf8 nullable distinct => "WARC-Record-ID.",
        url: Utf8 nullable distinct => "WARC-Target-URI, or the CSV url (https://<host>/robots.txt for a host column).",
        scheme: Utf8 nullable => "Lower-cased URL scheme.",
        host: Utf8 nullable distinct => "URL host as WHATWG URL parsing gives it: lower-cased, IDNA as punycode, no port.",
        port: Int32 nullable => "URL port when it is not the scheme's default.",
        fetch_time: TimestampUtc nullable => "WARC-Date.",
        http_status: Int32 nullable => "HTTP status code of the response (CSV status column).",
        status_class: Utf8 required => "2xx, 3xx, 4xx, 5xx, other, or none (no status: revisit, CSV without status).",
        content_type: Utf8 nullable => "HTTP Content-Type header.",
        payload_type: Utf8 nullable => "WARC-Identified-Payload-Type (the crawler's detected MIME type).",
        crawler_content_encoding: Utf8 nullable => "X-Crawler-Content-Encoding: the original Content-Encoding Common Crawl decoded.",
        warc_truncated: Utf8 nullable => "WARC-Truncated reason (e.g. length: body cut at 1 MiB by the crawler).",
        body_size: Int64 required => "Payload bytes (decoded), counted in full even past what is kept.",
        body_size_is_lower_bound: Bool required => "Decoding stopped at the cap, so body_size is a lower bound.",
        parsed_size: Int64 nullable => "Bytes parsed: min(body_size, 512000); null when the body was not parsed (non-2xx status, revisit).",
        cut_at_500kib: Bool required => "The body is over 512,000 bytes; Google ignores the rest.",
        content_sha1: Utf8 nullable distinct => "Hex SHA-1 of the parsed bytes (at most 512,000); null without a body.",
        utf8_bom: Bool nullable => "Body starts with a UTF-8 byte order mark; null when not parsed (as every parse fact below).",
        valid_utf8: Bool nullable => "Parsed bytes are valid UTF-8 (a character cut in two at the 512,000-byte cut does not count against it).",
        has_nul: Bool nullable => "Parsed bytes contain a NUL.",
        looks_like_html: Bool nullable => "Body looks like an HTML page.",
        n_lines: Int32 nullable => "Lines as robots.cc numbers them (a final empty line counts).",
        n_directives: Int32 nullable => "Lines with a key and a value.",
        n_groups: Int32 nullable => "Groups.",
        n_allow: Int32 nullable => "Allow lines inside groups.",
        n_disallow: Int32 nullable => "Disallow lines inside groups.",
        n_sitemaps: Int32 nullable => "Sitemap lines.",
        n_other: Int32 nullable => "Other directive lines (crawl-delay, host, unknown keys...).",
        n_findings: Int32 nullable => "Lint findings kept for the document (at most 100 per code).",
        registrable_domain: Utf8 nullable distinct => "Registrable domain of the URL's host (Public Suffix List, see psl_version in the manifest): shop.example.co.uk -> example.co.uk; null for IP addresses and bare public suffixes.",
        location: Utf8 nullable distinct => "3xx responses: the Location header (CSV: the location column) resolved to an absolute URL against the capture's URL; null otherwise or when it does not resolve.",
        is_robots_url: Bool required => "The URL is http(s) with the path exactly /robots.txt and no query (Common Crawl's selection of robots.txt captures).",
        url_key: Utf8 nullable distinct => "The URL as the sites step matches URLs: parsed and serialized by WHATWG rules without its fragment (the URL as given when it does not parse); null when url is. Written so SQL can join captures to Location targets without a URL parser.",
        location_key: Utf8 nullable distinct => "location in the url_key form; null when location is.",
        robots_mime: Bool required => "Common Crawl's MIME filter for robots.txt captures passes: payload_type is text/* but text/html, message/rfc822 or plain/text; without one, content_type is absent or contains text not followed by /html (census::site_classes::robots_mime).",
        host_name: Utf8 nullable distinct => "host without a trailing dot (the host name sites are keyed by); null when host is.",
    }
}

table! {
    /// Builders of the `groups` columns (but `crawl`).
    pub struct Groups => pub const GROUPS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        group_index: Int32 required => "0-based position of the group in the file.",
        first_line: Int32 required => "Line of the first user-agent line.",
        last_line: Int32 required => "Line of the last directive of the group.",
        user_agents: Utf8List required => "User-agent values as written.",
        product_tokens: Utf8List required => "What robots.cc matches: each value cut to [A-Za-z_-]*, lower-cased; '*' for the global group.",
        has_star: Bool required => "The group applies to '*'.",
        n_allow: Int32 required => "Allow rules.",
        n_disallow: Int32 required => "Disallow rules.",
        crawl_delay: Float64 nullable => "First numeric crawl-delay of the group, in seconds.",
    }
}

table! {
    /// Builders of the `rules` columns (but `crawl`).
    pub struct Rules => pub const RULES + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        group_index: Int32 nullable => "The group the line belongs to; null before any user-agent line (ignored by Google).",
        line: Int32 required => "Line number.",
        directive: Utf8 required => "allow, disallow, or for other lines the key robots.cc knows but does not use (kUnsupportedTags of google/robotstxt 4af32e5): clean-param, content-signal, content-usage, crawl-delay, domain, host, noarchive, nofollow, noindex, request-rate, revisit-after, visit-time; else unknown.",
        key: Utf8 required => "The key as written.",
        value: Utf8 required distinct => "The value as written.",
        pattern: Utf8 nullable distinct => "Allow/disallow: the percent-escaped pattern robots.cc matches; null for other directives.",
        pattern_length: Int32 nullable => "Length of the escaped pattern: the rule's priority.",
        has_wildcard: Bool required => "Pattern contains '*'.",
        has_end_anchor: Bool required => "Pattern ends with '$'.",
    }
}

table! {
    /// Builders of the `sitemaps` columns (but `crawl`).
    pub struct Sitemaps => pub const SITEMAPS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        line: Int32 required => "Line number.",
        url: Utf8 required distinct => "The sitemap URL as written.",
        is_absolute: Bool required => "An absolute http(s) or ftp URL with a host.",
        host: Utf8 nullable => "Host of the sitemap URL (WHATWG parsing: lower-cased, punycode, no port).",
        same_host: Bool nullable => "Sitemap host equals the robots.txt host; null when either is unknown.",
    }
}

table! {
    /// Builders of the `errors` columns (but `crawl`).
    pub struct Errors => pub const ERRORS + CRAWL {
        doc_id: Uuid nullable => "Document the finding is about; null for input problems that made no document.",
        source: Utf8 required per_file => "Input file (path as given, or the http(s):// or s3:// URL).",
        file_offset: Int64 nullable => "Byte offset in the input file. An input problem: the byte where it was found (inside the record, or the first byte skipped) in a plain input; the start of the gzip member or zstd frame holding it (or the first byte of junk skipped between them) in a compressed input; always a byte of the file, null only for an input that could not be opened or fetched at all. A lint finding: its document's file_offset.",
        stream_offset: Int64 nullable => "An input problem in the data of a compressed input: where it was found in the decompressed stream (for a corrupt gzip member or zstd frame, the decoded position reached: the records before it were kept), as the messages count bytes. Null in a plain input (file_offset is the byte), for junk between members or frames, and for lint findings (see their document's stream_offset).",
        origin: Utf8 required => "lint (robots.txt content) or input (archive / CSV reading).",
        line: Int32 nullable => "robots.txt line (0: the body as a whole) for lint; null for input problems.",
        code: Utf8 required => "Stable code; see schemas/README.md.",
        severity: Utf8 required => "error, warning or info.",
        message: Utf8 required => "Human-readable explanation.",
        excerpt: Utf8 nullable distinct => r"Start of the offending line, or of the body for line 0 (at most 200 bytes, cut on a character boundary). Valid UTF-8 with no control character but tab as it is; otherwise escaped: bytes that are not UTF-8 and those of control characters other than tab (NUL, CR, LF, DEL, C1) as `\xNN`, each backslash as `\\` (a UTF-16LE body: `\xff\xfeU\x00s\x00e\x00r\x00...`).",
    }
}

table! {
    /// Builders of the `verdicts` columns (but `crawl`).
    pub struct Verdicts => pub const VERDICTS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        agent: Utf8 required => "Crawler product token asked.",
        url: Utf8 required => "URL asked.",
        allowed: Bool required => "The answer: robots.cc's, or the profile's reading.",
        line: Int32 required => "Line of the deciding rule (robots.cc matching_line; for a profile, lines counted as its family splits them); 0 when none.",
        directive: Utf8 nullable => "allow or disallow: the deciding rule's directive.",
        pattern: Utf8 nullable => "The deciding rule's pattern (robots.cc's escaped pattern; for a profile, as its family compares it).",
        scope: Utf8 required => "named: a group names the agent; fallback (profiles only): a group the family falls back to; star: the '*' group applied; none: no group applied.",
        profile: Utf8 required => "google (robots.cc), or an interpretation profile of run --profiles: such a run answers every question under each of its profiles, so the table has one row per (question, profile).",
    }
}

table! {
    /// Builders of the `agents` columns (but `crawl`).
    pub struct Agents => pub const AGENTS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        agent: Utf8 required => "Crawler product token.",
        named: Bool required => "A group names the agent explicitly.",
        root_allowed: Bool nullable => "robots.cc allows '/' for the agent; null when the body was not parsed (no_robots, unreachable, redirect, revisit).",
        n_allow: Int32 required => "Non-empty allow rules that apply to the agent.",
        n_disallow: Int32 required => "Non-empty disallow rules that apply to the agent.",
        classification: Utf8 required => "full_disallow, partial_disallow, allowed, no_robots (4xx but 429), unreachable (5xx, 429, and any code outside 2xx-5xx, an invalid response: disallow all as Google reads them; RFC 9309 2.3.1.3 counts 429 as a 4xx), redirect (3xx) or unknown (a revisit, or a status that does not parse). The same meaning as sites --status-semantics google.",
        // Not `distinct`: one document's host on each of its agents' rows, so the
        // dictionary's indices come in runs (agents file 8% smaller, same instructions).
        host: Utf8 nullable => "URL host of the document, as documents.host (so this table can be used alone).",
        probe_class: Utf8 nullable => "The Somesite study's reading of robots.cc's verdicts: full, partial or none from probing '/', every allow/disallow path of the file (one trailing '$' dropped; percent-escaped as robots.cc escapes patterns, the URL a crawler requests) and a dummy path; null when the body was not parsed.",
        cc_class: Utf8 nullable => "Common Crawl's exact-rule-set class of the rules that apply to the agent (its groups, else '*'): disallow_all ({Disallow: /}), allow_all ({Allow: /}, {Allow: *}, {Allow: /*}, {Allow: }, {Disallow: } or none), allow_part, or not_addressed (no group for it nor '*'); null when the body was not parsed.",
        usage_train_ai: Utf8 nullable => "y or n: the AIPREF train-ai preference the file's Content-Usage rules give the agent for '/' (draft-ietf-aipref-attach: the groups robots.cc applies to it, the longest matching path, n on ties); null when unknown, when '/' may not be crawled (no preference applies) or when the body was not parsed.",
        usage_search: Utf8 nullable => "y or n: the same for AIPREF's search category.",
        signal_ai_train: Utf8 nullable => "yes or no: Cloudflare Content-Signal's ai-train as it applies to the agent: the Content-Signal lines of the groups robots.cc applies to it, else those before any group (no wins a disagreement); null when none sets it or the body was not parsed.",
        mentioned: Bool required => "Some user-agent line's value, lower-cased, is the agent's token lower-cased: the Web Almanac's mention (HTTPArchive custom metric robots_txt.js). Unlike named, `GPTBot/1.0` does not mention GPTBot. False when the body was not parsed.",
    }
}

table! {
    /// Builders of the `signals` columns (but `crawl`).
    pub struct Signals => pub const SIGNALS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        line: Int32 required => "Line number (as robots.cc numbers lines).",
        kind: Utf8 required => "content-usage (IETF AIPREF), content-signal (Cloudflare; also its Content-Signals spelling), license (RSL), llm-policy, disallow-ai-training (draft-canel-robots-ai-control), tdm-comment (a comment reserving text-and-data-mining rights: it contains 2019/790, or `article` then blanks then a 4 not followed by a digit, ASCII case-insensitively), or cloudflare-managed (the `# BEGIN Cloudflare Managed content` comment opening Cloudflare's managed block).",
        agents: Utf8List required => "User-agent values (as written) of the group the line lies in; empty before any user-agent line.",
        path: Utf8 nullable => "content-usage: its optional path (a value starting with '/', up to the first blank); disallow-ai-training: its pattern; as written. Null otherwise.",
        value: Utf8 required distinct => "The value as written, comment removed; for the comment kinds the comment's text after '#', trimmed.",
        valid: Bool required => "Every part of the line means something under its specification: no problem.",
        problem: Utf8 nullable => "Why the line is not valid, the first of: not_sf_dictionary (not an RFC 9651 dictionary: every category unknown), empty_value, outside_group (content-usage or disallow-ai-training before any user-agent line: it applies to no crawler), license_not_absolute, yes_no_in_content_usage (yes/no where AIPREF reads only y/n), y_n_in_content_signal (y/n where Cloudflare reads only yes/no), legacy_label (an AIPREF label of drafts before vocab-05), unknown_label, unknown_value. Each is also a lint finding of the errors table.",
        train_ai: Utf8 nullable => "content-usage: y or n, the train-ai preference the line states under the current vocabulary; null when unknown (other Tokens, non-Tokens, absent, or no dictionary).",
        search: Utf8 nullable => "content-usage: y or n for the search category; null when unknown.",
        labels: Utf8 nullable => "content-usage: current (train-ai, search only), legacy (labels of vocab-01 to -04 only: all, bots, train-genai, ai-use, ai-output, tdm, ai, genai, inference), mixed (both); null when it used neither.",
        ai_train: Utf8 nullable => "content-signal: yes or no for ai-train; null when the line does not set it.",
        ai_input: Utf8 nullable => "content-signal: yes or no for ai-input.",
        search_signal: Utf8 nullable => "content-signal: yes or no for search.",
        use_level ["use"]: Utf8 nullable => "content-signal: immediate, reference or full (use=).",
        license_url: Utf8 nullable => "license: the URL resolved against the robots.txt URL (WHATWG); null when it does not parse.",
        license_same_host: Bool nullable => "license: its host is the robots.txt URL's host; null when either has none.",
        cloudflare_managed: Bool required => "The line lies in Cloudflare's managed block (after `# BEGIN Cloudflare Managed content`, before `# END Cloudflare Managed Content`).",
    }
}

table! {
    /// Builders of the `readings` columns (but `crawl`).
    pub struct Readings => pub const READINGS + CRAWL {
        doc_id: Uuid required => DOC_ID_DOC,
        agent: Utf8 required => "Crawler product token (as in the agents table).",
        profile: Utf8 required => "The interpretation profile (run --profiles): google, google-production, rfc9309, bing, yandex, applebot, baidu, ccbot, urllib, protego or robots-parser.",
        root_allowed: Bool required => "The profile's family allows '/' for the agent.",
        probe_class: Utf8 required => "full, partial or none: the Somesite reading of agents.probe_class (same probes: '/', every allow/disallow path of the file, a dummy path) with the profile's verdicts.",
        scope: Utf8 required => "The groups that decided '/': named (the agent's own), fallback (a group the family falls back to, such as Applebot reading the Googlebot group), star ('*') or none.",
        line: Int32 nullable => "Line of the rule that decided '/', lines counted as the family splits them; null when no rule decided.",
        directive: Utf8 nullable => "allow or disallow: the rule that decided '/'; null when none.",
        pattern: Utf8 nullable => "That rule's path as the family compares it (after its own escaping); null when none.",
        crawl_delay: Float64 nullable => "Crawl-delay in seconds the family applies to the agent; null when the family ignores the directive (google, google-production, rfc9309, applebot, baidu, yandex) or the file sets none.",
        crawl_delay_blocks: Bool required => "The family's crawl-delay rule keeps the agent off the site whatever the rules say: ccbot only, a delay over Nutch's fetcher.max.crawl.delay (30 s).",
        interpretation_sensitive: Bool required => "The profiles of the run disagree about this (document, agent): root_allowed or probe_class differs between two of them. The same value on each of the agent's rows.",
        host: Utf8 nullable distinct => "URL host of the document, as documents.host (so this table can be used alone).",
    }
}

table! {
    /// Builders of the `sites` columns.
    pub struct Sites => pub const SITES {
        site: Utf8 required sorted_runs => "The site: the host name, the host name without a leading www., or the registrable domain (see site_key).",
        agent: Utf8 required => "Crawler product token (as in the agents table).",
        status_class: Utf8 required => "Common Crawl's eight classes: No robots.txt capture, HTTP forbidden, HTTP defer visits, HTTP allow all, HTTP redirect not resolved, MIME not a robots.txt, Robots.txt no rules, Robots.txt with rules.",
        google_class: Utf8 nullable => "full, partial or none: agents.probe_class of the deciding capture when it is a success; else what its status means under status_semantics (allow all and unresolved redirects: none; forbidden, defer visits: full); null without a capture.",
        root_allowed: Bool nullable => "robots.cc allows '/' for the agent on the deciding capture; null when it is not a success.",
        cc_class: Utf8 nullable => "agents.cc_class of the deciding capture; null when it is not a success.",
        named: Bool required => "A group of the deciding capture names the agent (false when it is not a success).",
        block: Utf8 nullable => "How the deciding capture restricts the agent when it is a robots.txt file (status class Robots.txt with rules or no rules): full ('/' disallowed), partial ('/' allowed, some probed path disallowed: google_class partial) or none; null when the deciding capture is not a robots.txt file. The one definition changes, the queries and the report read.",
        doc_id: Uuid nullable => "documents.doc_id of the deciding capture (after redirects); null without a capture.",
        url: Utf8 nullable runs => "URL of the deciding capture.",
        start_url: Utf8 nullable runs => "The site's robots.txt URL whose redirect chain led to the deciding capture.",
        http_status: Int32 nullable => "HTTP status of the deciding capture.",
        redirect_hops: Int32 required => "Redirects followed from start_url to the deciding capture (at most 5).",
        captures: Int32 required => "The site's robots.txt URLs in the crawl (latest capture per URL), over http/https/ports and, by site_key, hosts.",
        rank: Int64 nullable => "Best rank of the site's hosts in the --ranks list; null when unranked or without --ranks.",
        top_k: Utf8 nullable => "Smallest top-k stratum holding the rank: 1k, 10k, 50k, 100k, 1M, or 2M (any rank above 1M); strata are cumulative (rank <= k).",
        site_key: Utf8 required => "The --site-key used: host, host-nowww or registrable-domain.",
        status_semantics: Utf8 required => "The --status-semantics used: rfc9309, google, ccbot, yandex, urllib or robots-parser.",
        crawl: Utf8 required per_file => "Crawl (documents.crawl): sites are decided one crawl at a time. Also the partition directory crawl=<value>.",
    }
}

table! {
    /// Builders of the `ranks` columns.
    pub struct Ranks => pub const RANKS {
        rank: Int64 required => "Rank in the list (1 = top).",
        host: Utf8 required distinct => "Host name, lower-cased; its best (lowest) rank when listed twice.",
        host_name: Utf8 required distinct => "host without a port or trailing dot (documents.host_name's form), so SQL can key ranked hosts as sites are keyed.",
        registrable_domain: Utf8 nullable => "Registrable domain of host_name (Public Suffix List, as documents.registrable_domain); null for IP addresses and bare public suffixes.",
    }
}

table! {
    /// Builders of the `changes` columns.
    pub struct Changes => pub const CHANGES {
        site: Utf8 required sorted => "The site (sites.site; both crawls' tables must use the same site_key).",
        change: Utf8 required => "site_appeared, site_disappeared, status_class, block, rule_added, rule_removed, sitemap_added or sitemap_removed.",
        agent: Utf8 nullable => "block: the crawler (sites.agent); rule_added/rule_removed: the group's product token (groups.product_tokens, '*' for the global group); null otherwise.",
        directive: Utf8 nullable => "rule_added/rule_removed: allow or disallow; null otherwise.",
        value: Utf8 nullable => "rule_added/rule_removed: the pattern as robots.cc matches it (rules.pattern); sitemap_added/sitemap_removed: the sitemap URL as written; null otherwise.",
        before: Utf8 nullable => "status_class and site_disappeared: the status class in from_crawl; block: full, partial or none in from_crawl; null otherwise.",
        after: Utf8 nullable => "status_class and site_appeared: the status class in to_crawl; block: full, partial or none in to_crawl; null otherwise.",
        from_crawl: Utf8 required per_file => "The earlier crawl. Also the partition directory from_crawl=<value>.",
        to_crawl: Utf8 required per_file => "The later crawl. Also the partition directory to_crawl=<value>.",
    }
}
