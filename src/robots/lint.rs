//! Lint findings: what a careful SEO auditor would flag in a robots.txt.
//!
//! Every finding has a stable [`Code`] (its `snake_case` name is the public
//! contract, listed in `schemas/README.md`), a severity, the line (0 for the body
//! as a whole) and an excerpt borrowed from the body. The parser calls the checks
//! here during its one pass; nothing here parses again.

use super::agent;
use super::model::{Group, Rule, RuleKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => ($name:literal, $severity:ident, $message:literal),)*) => {
        /// A lint finding's kind.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The number of codes (discriminants are `0..COUNT`).
            pub const COUNT: usize = Code::ALL.len();

            /// The stable code written to the `errors` table.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            pub fn message(self) -> &'static str {
                match self { $(Code::$variant => $message,)* }
            }
        }
    };
}

codes! {
    BodyOver500Kib => ("body_over_500kib", Warning, "body is over 500 KiB: Google ignores everything after byte 512,000"),
    Utf16Body => ("utf16_body", Error, "body starts with a UTF-16 byte order mark: Google reads it as bytes and finds no rules"),
    HtmlBody => ("html_body", Error, "body looks like an HTML page, not a robots.txt"),
    InvalidUtf8 => ("invalid_utf8", Warning, "line is not valid UTF-8 (RFC 9309 requires UTF-8)"),
    Utf8Bom => ("utf8_bom", Info, "body starts with a UTF-8 byte order mark (skipped by Google)"),
    NulByte => ("nul_byte", Warning, "NUL byte: Google ignores the rest of the line"),
    LineTooLong => ("line_too_long", Warning, "line longer than 16,663 bytes: Google drops the rest"),
    UnparsedLine => ("unparsed_line", Warning, "line is not `key: value` and is ignored"),
    MissingColon => ("missing_colon", Warning, "no ':' after the key (Google accepts it, other parsers may not)"),
    MisspelledKey => ("misspelled_key", Warning, "misspelled key, accepted by Google only"),
    KeyPrefixOnly => ("key_prefix_match", Warning, "key has extra characters after the directive name; Google matches it by prefix"),
    UnknownKey => ("unknown_key", Warning, "unknown key, ignored by Google"),
    IgnoredDirective => ("ignored_by_google", Info, "directive not supported by Google (other crawlers may honour it)"),
    RuleOutsideGroup => ("rule_outside_group", Error, "allow/disallow before any user-agent line is ignored"),
    EmptyUserAgent => ("empty_user_agent", Error, "user-agent line with no value"),
    UserAgentNotToken => ("user_agent_not_product_token", Warning, "user-agent value is not a plain product token; Google matches only its leading [A-Za-z_-] part"),
    PatternStart => ("pattern_not_starting_with_slash", Warning, "pattern does not start with '/' or '*'"),
    DollarNotAtEnd => ("dollar_not_at_end", Warning, "'$' is only special at the end of a pattern; here it matches a literal '$'"),
    SitemapNotAbsolute => ("sitemap_not_absolute_url", Warning, "sitemap is not an absolute http(s) or ftp URL"),
    CrawlDelayNotNumber => ("crawl_delay_not_number", Warning, "crawl-delay value is not a number of seconds"),
    MultipleStarGroups => ("multiple_star_groups", Warning, "more than one `User-agent: *` group (Google merges them)"),
    AllowDisallowConflict => ("allow_disallow_conflict", Warning, "the same pattern is both allowed and disallowed in one group (allow wins)"),
    DuplicateRule => ("duplicate_rule", Info, "rule repeated verbatim in the same group"),
    StarDisallowsAll => ("star_disallows_all", Info, "`Disallow: /` for `*`: the whole site is blocked for crawlers without their own group"),
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding<'a> {
    /// Line number as robots.cc counts; 0 for the body as a whole.
    pub line: u32,
    pub code: Code,
    /// The line's bytes (or the start of the body), as kept by the parser.
    pub excerpt: &'a [u8],
}

/// The excerpt as every output shows it (the errors table, `lint`, `audit`): at most
/// [`EXCERPT_LEN`](crate::limits::EXCERPT_LEN) bytes, cut back to the start of a UTF-8
/// character the cut would split. (The table cut bytes and `lint` cut characters, so a
/// non-ASCII line had two different excerpts.)
pub fn cut_excerpt(bytes: &[u8]) -> &[u8] {
    let cap = crate::limits::EXCERPT_LEN;
    if bytes.len() <= cap {
        return bytes;
    }
    let is_continuation = |b: u8| b & 0xC0 == 0x80;
    let mut start = cap;
    while start > cap.saturating_sub(3) && bytes.get(start).copied().is_some_and(is_continuation) {
        start -= 1;
    }
    // Only a valid character's lead byte moves the cut; invalid bytes are cut as they lie.
    let lead = bytes.get(start).copied().unwrap_or(0);
    let end = if start < cap && lead >= 0xC0 {
        start
    } else {
        cap
    };
    &bytes[..end]
}

/// Case-insensitive search of `needle` in the first `window` bytes of `body`.
fn contains_ignore_case(body: &[u8], needle: &[u8], window: usize) -> bool {
    let hay = &body[..body.len().min(window)];
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// An HTML page served as robots.txt: it starts with '<' and carries a telling tag early.
pub fn looks_like_html(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    let Some(start) = start else { return false };
    let body = &body[start..];
    body.first() == Some(&b'<')
        && [
            &b"<html"[..],
            b"<!doctype html",
            b"<head",
            b"<body",
            b"<title",
        ]
        .iter()
        .any(|tag| contains_ignore_case(body, tag, 4096))
}

/// Whether a sitemap value is an absolute http, https or ftp URL with a host.
pub fn is_absolute_sitemap_url(url: &[u8]) -> bool {
    let rest = [&b"http://"[..], b"https://", b"ftp://"]
        .iter()
        .find(|scheme| url.len() > scheme.len() && url[..scheme.len()].eq_ignore_ascii_case(scheme))
        .map(|scheme| &url[scheme.len()..]);
    match rest {
        Some(rest) => {
            let host_end = rest
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'#'))
                .unwrap_or(rest.len());
            host_end > 0
                && !rest
                    .iter()
                    .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        }
        None => false,
    }
}

/// Parses a crawl-delay value as seconds (`10`, `0.5`). Google ignores the
/// directive; Bing and Yandex read it as a number.
pub fn parse_crawl_delay(value: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(value).ok()?;
    let seconds: f64 = text.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
}

/// Findings for one user-agent line.
pub fn check_user_agent(value: &[u8], out: &mut Vec<Code>) {
    if value.is_empty() {
        out.push(Code::EmptyUserAgent);
    } else if agent::is_star(value) {
        if value.len() > 1 {
            out.push(Code::UserAgentNotToken);
        }
    } else if agent::product_token(value) != value {
        out.push(Code::UserAgentNotToken);
    }
}

/// Findings for one allow/disallow value (as written).
pub fn check_pattern(value: &[u8], out: &mut Vec<Code>) {
    if !value.is_empty() && !matches!(value[0], b'/' | b'*') {
        out.push(Code::PatternStart);
    }
    if let Some(i) = memchr::memchr(b'$', value) {
        if i + 1 != value.len() {
            out.push(Code::DollarNotAtEnd);
        }
    }
}

/// Findings that need a whole group: conflicts, duplicates, whole-site blocks.
/// Pushes (line, code) pairs.
pub fn check_group(group: &Group, rules: &[Rule<'_>], out: &mut Vec<(u32, Code)>) {
    if group.has_star {
        if let Some(rule) = rules
            .iter()
            .find(|r| r.kind == RuleKind::Disallow && &*r.pattern == b"/")
        {
            out.push((rule.line, Code::StarDisallowsAll));
        }
    }
    if rules.len() < 2 {
        return;
    }
    let mut sorted: Vec<&Rule<'_>> = rules.iter().filter(|r| !r.pattern.is_empty()).collect();
    // Lines are unique, so the order is total and an unstable sort is deterministic.
    sorted.sort_unstable_by(|a, b| {
        (a.pattern.cmp(&b.pattern))
            .then(a.kind.cmp(&b.kind))
            .then(a.line.cmp(&b.line))
    });
    for pair in sorted.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.pattern != b.pattern {
            continue;
        }
        if a.kind == b.kind {
            out.push((b.line, Code::DuplicateRule));
        } else {
            out.push((b.line.max(a.line), Code::AllowDisallowConflict));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_cut_in_bytes_on_a_character_boundary() {
        let cap = crate::limits::EXCERPT_LEN;
        let ascii = vec![b'a'; cap + 10];
        assert_eq!(cut_excerpt(&ascii).len(), cap);
        // 'é' (2 bytes) straddling the cap is left out whole, not cut in two.
        let mut straddle = vec![b'a'; cap - 1];
        straddle.extend_from_slice("é and more".as_bytes());
        assert_eq!(cut_excerpt(&straddle), &straddle[..cap - 1]);
        // A 4-byte character ending exactly at the cap stays.
        let mut exact = vec![b'a'; cap - 4];
        exact.extend_from_slice("😀tail".as_bytes());
        assert_eq!(cut_excerpt(&exact).len(), cap);
        // Bytes that are not UTF-8 are cut where they lie.
        let binary = vec![0x80u8; cap + 5];
        assert_eq!(cut_excerpt(&binary).len(), cap);
    }

    #[test]
    fn codes_are_unique_snake_case() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert!(names.iter().all(|n| n
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
    }

    #[test]
    fn html_detection() {
        assert!(looks_like_html(b"\n<!DOCTYPE html><html>"));
        assert!(looks_like_html(b"<HTML><HEAD><TITLE>404"));
        assert!(!looks_like_html(b"User-agent: *\n# <html>"));
        assert!(!looks_like_html(b"<not robots>"));
    }

    #[test]
    fn sitemap_urls() {
        assert!(is_absolute_sitemap_url(b"https://example.com/sitemap.xml"));
        assert!(is_absolute_sitemap_url(b"HTTP://example.com"));
        assert!(is_absolute_sitemap_url(b"ftp://example.com/s.xml"));
        assert!(!is_absolute_sitemap_url(b"/sitemap.xml"));
        assert!(!is_absolute_sitemap_url(b"https:///x"));
        assert!(!is_absolute_sitemap_url(b"https://exa mple.com/"));
        assert!(!is_absolute_sitemap_url(b"www.example.com/sitemap.xml"));
    }

    #[test]
    fn crawl_delays() {
        assert_eq!(parse_crawl_delay(b"10"), Some(10.0));
        assert_eq!(parse_crawl_delay(b"0.5"), Some(0.5));
        assert_eq!(parse_crawl_delay(b"ten"), None);
        assert_eq!(parse_crawl_delay(b"-1"), None);
        assert_eq!(parse_crawl_delay(b"NaN"), None);
    }
}
