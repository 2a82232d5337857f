//! Lint findings: what a careful SEO auditor would flag in a robots.txt.
//!
//! Every finding has a stable [`Code`] (its `snake_case` name is the public
//! contract, listed in `schemas/README.md`), a severity, the line (0 for the body
//! as a whole) and an excerpt borrowed from the body. The parser calls the checks
//! here during its one pass; nothing here parses again.

use std::borrow::Cow;

use super::agent;
use super::model::{Group, Rule, RuleKind};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Google reads the file otherwise than its author meant (or reads nothing).
    Error,
    /// Google copes, other parsers may not, or part of a line is lost.
    Warning,
    /// Worth knowing; nothing is lost.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
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
        /// A lint finding's kind: its stable name ([`Code::as_str`]), severity and
        /// message. The parse fills [`RobotsTxt::findings`](crate::RobotsTxt::findings).
        ///
        /// ```
        /// use robots_census_engine::{Code, RobotsTxt, Severity};
        ///
        /// let doc = RobotsTxt::parse(b"Disallow: /x\nUser-agent: *\nDisalow: /y\n");
        /// let found: Vec<(u32, Code)> = doc.findings.iter().map(|f| (f.line, f.code)).collect();
        /// assert_eq!(found, [(1, Code::RuleOutsideGroup), (3, Code::MisspelledKey)]);
        /// assert_eq!(Code::RuleOutsideGroup.as_str(), "rule_outside_group");
        /// assert_eq!(Code::MisspelledKey.severity(), Severity::Warning);
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $(#[doc = $message] $variant,)* }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The number of codes (discriminants are `0..COUNT`).
            pub const COUNT: usize = Code::ALL.len();

            /// The stable code written to the `errors` table.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// How much a finding of this code matters.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// What the finding means, in one sentence.
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
    SignalNotDictionary => ("signal_not_sf_dictionary", Warning, "Content-Usage or Content-Signal value is not an RFC 9651 dictionary (keys are lower-case: `train-ai=n`): a reader takes every category as unknown"),
    SignalEmptyValue => ("signal_empty_value", Warning, "AI-use signal with no value: a reader finds no preference in it"),
    ContentUsageOutsideGroup => ("content_usage_outside_group", Warning, "Content-Usage (or DisallowAITraining) before any user-agent line: the rule belongs to a group, so a reader applies it to no crawler"),
    LicenseNotAbsolute => ("license_not_absolute", Warning, "License is not an absolute URL: RSL asks for one; a reader may resolve it against the robots.txt URL or ignore it"),
    ContentUsageYesNo => ("content_usage_yes_no", Warning, "Content-Usage preference spelled yes/no: only the tokens `y` and `n` count, so a reader takes the category as unknown"),
    ContentSignalYN => ("content_signal_y_n", Warning, "Content-Signal spelled y/n: Cloudflare's policy reads only `yes` and `no`, so a reader takes the signal as not set"),
    ContentUsageLegacyLabel => ("content_usage_legacy_label", Warning, "Content-Usage label of an earlier AIPREF draft (all, bots, train-genai, ai-use, ai-output, tdm, ai, genai, inference): a reader of the current vocabulary (train-ai, search) ignores it"),
    SignalUnknownLabel => ("signal_unknown_label", Warning, "AI-use signal key no vocabulary defines (a typo such as ai_train?): a reader ignores it"),
    SignalUnknownValue => ("signal_unknown_value", Warning, "AI-use signal value that is none of its allowed tokens: a reader takes it as not set"),
    DisallowAiTrainingIsDisallow => ("disallow_ai_training_read_as_disallow", Warning, "DisallowAITraining starts with `Disallow`: Google (robots.cc) reads it as a Disallow rule and stops crawling the path for every crawler of the group, not only training"),
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding<'a> {
    /// Line number as robots.cc counts; 0 for the body as a whole.
    pub line: u32,
    /// What was found.
    pub code: Code,
    /// The line's bytes (or the start of the body), as kept by the parser.
    pub excerpt: &'a [u8],
}

/// The excerpt as every output shows it (the errors table, `lint`, `audit`): at most
/// [`EXCERPT_LEN`](crate::limits::EXCERPT_LEN) bytes, cut back to the start of a UTF-8
/// character the cut would split. (The table cut bytes and `lint` cut characters, so a
/// non-ASCII line had two different excerpts.)
pub(crate) fn cut_excerpt(bytes: &[u8]) -> &[u8] {
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

/// A finding's excerpt as every text output shows it (the census's `errors.excerpt`
/// column, `lint`, `audit`, the Python module): at most
/// [`EXCERPT_LEN`](crate::limits::EXCERPT_LEN) bytes, cut back to the start of a
/// character the cut would split, as one line of text. Valid UTF-8 without control
/// characters (tab aside) is the text itself, borrowed; anything else is escaped: a
/// backslash as `\\`, every byte that is not UTF-8 or is a control character as `\xNN`.
///
/// ```
/// use robots_census_engine::shown_excerpt;
///
/// assert_eq!(shown_excerpt(b"Disallow: /caf\xc3\xa9"), "Disallow: /caf\u{e9}");
/// assert_eq!(shown_excerpt(b"Disallow: /caf\xe9"), "Disallow: /caf\\xe9");
/// assert_eq!(shown_excerpt(&[b'a'; 300]).len(), 200);
/// ```
pub fn shown_excerpt(bytes: &[u8]) -> Cow<'_, str> {
    excerpt_text(cut_excerpt(bytes))
}

/// Bytes as one line of text that shows what the bytes were (lossy decoding turned a
/// UTF-16 body into U+FFFD and NULs). Valid UTF-8 with no control character other than
/// tab is the text itself, borrowed. Anything else (a UTF-16 or Latin-1 body, binary, a
/// NUL, a body-level excerpt spanning lines: one excerpt is one line of `lint` and
/// `audit` output) is escaped: each UTF-8 character as itself
/// when it is tab or not a control character, a backslash as `\\`, and every other
/// byte as `\xNN` (two lowercase hex digits): bytes that are not UTF-8, C0 controls
/// (NUL, CR, LF, ...), DEL and both bytes of a C1 control. So a UTF-16LE body reads
/// `\xff\xfeU\x00s\x00e\x00r\x00...` and a Latin-1 line `Disallow: /caf\xe9/`.
///
/// A text left as it was may hold `\x` as written; in an escaped one every backslash
/// is doubled.
pub(crate) fn excerpt_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !has_escaped(text) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(bytes.len() * 2);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else if is_escaped(c) {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    push_hex(&mut out, b);
                }
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            push_hex(&mut out, b);
        }
    }
    Cow::Owned(out)
}

/// A character [`excerpt_text`] writes as `\xNN` bytes: C0, DEL and C1 controls, but tab.
fn is_escaped(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// Whether `text` holds a character [`is_escaped`] picks, found byte by byte rather
/// than by decoding characters, since every finding's excerpt is checked. In UTF-8 the
/// C1 controls, U+0080 to U+009F, are exactly 0xC2 followed by 0x80-0x9F.
fn has_escaped(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        (b < 0x20 && b != b'\t')
            || b == 0x7f
            || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

/// Appends `\xNN` for `byte`.
fn push_hex(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\x");
    out.push(char::from(HEX[usize::from(byte >> 4)]));
    out.push(char::from(HEX[usize::from(byte & 0x0f)]));
}

/// Case-insensitive search of `needle` in the first `window` bytes of `body`.
fn contains_ignore_case(body: &[u8], needle: &[u8], window: usize) -> bool {
    let hay = &body[..body.len().min(window)];
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// An HTML page served as robots.txt: it starts with '<' and carries a telling tag early.
pub(crate) fn looks_like_html(body: &[u8]) -> bool {
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
pub(crate) fn is_absolute_sitemap_url(url: &[u8]) -> bool {
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
            // ASCII whitespace and controls: every byte up to the space, and DEL.
            host_end > 0 && !rest.iter().any(|&b| b <= b' ' || b == 0x7f)
        }
        None => false,
    }
}

/// Parses a crawl-delay value as seconds (`10`, `0.5`). Google ignores the
/// directive; Bing and Yandex read it as a number.
pub(crate) fn parse_crawl_delay(value: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(value).ok()?;
    let seconds: f64 = text.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
}

/// Findings for one user-agent line.
pub(crate) fn check_user_agent(value: &[u8], out: &mut Vec<Code>) {
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
pub(crate) fn check_pattern(value: &[u8], out: &mut Vec<Code>) {
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
pub(crate) fn check_group(
    group: &Group,
    rules: &[Rule<'_>],
    hashed: &mut Vec<u64>,
    out: &mut Vec<(u32, Code)>,
) {
    count_work!(rules.len());
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
    // Only rules whose pattern occurs twice can pair up. They are found by a hash of the
    // pattern (integers sorted, no byte comparisons), so a group without a repeated
    // pattern, the common case, costs no sort of the patterns. A collision only adds
    // rules the loop below tells apart by their patterns.
    // Each rule is one integer, the high half of its hash over its index (a body under
    // the 500 KiB cap has far fewer than 2^32 rules), so the sort compares plain
    // integers. `hashed` is the caller's, reused from group to group.
    const INDEX: u64 = u32::MAX as u64;
    hashed.clear();
    // The filter hides the count from `extend`: room for every rule, at once.
    hashed.reserve(rules.len());
    hashed.extend(
        rules
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.pattern.is_empty())
            .map(|(i, r)| (pattern_hash(&r.pattern) & !INDEX) | (i as u64 & INDEX)),
    );
    hashed.sort_unstable();
    let repeated = hashed
        .chunk_by(|a, b| (a & !INDEX) == (b & !INDEX))
        .filter(|same| same.len() > 1)
        .flatten()
        .map(|&key| &rules[(key & INDEX) as usize])
        .collect();
    // Rules of one pattern sort next to each other whether or not the others are in the
    // list, so the pairs, and the order of the findings, are those of sorting every rule.
    pair_findings(repeated, out);
}

/// A pattern's hash for [`check_group`]: FxHash, cheaper than XXH64 on the short
/// patterns of robots.txt rules, and every rule of every group is hashed. Its quality
/// only decides how many rules are sorted, never which findings are made.
fn pattern_hash(pattern: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(pattern);
    hasher.finish()
}

/// Duplicates and allow/disallow conflicts among `rules`: sorted by pattern, kind and
/// line, each two neighbours with the same pattern are one finding.
fn pair_findings(mut rules: Vec<&Rule<'_>>, out: &mut Vec<(u32, Code)>) {
    // Lines are unique, so the order is total and an unstable sort is deterministic.
    rules.sort_unstable_by(|a, b| {
        (a.pattern.cmp(&b.pattern))
            .then(a.kind.cmp(&b.kind))
            .then(a.line.cmp(&b.line))
    });
    for pair in rules.windows(2) {
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
    use proptest::strategy::Strategy as _;

    /// `check_group` as it was before the hash: every rule with a pattern paired up.
    fn check_group_by_sorting(rules: &[Rule<'_>]) -> Vec<(u32, Code)> {
        let mut out = Vec::new();
        pair_findings(
            rules.iter().filter(|r| !r.pattern.is_empty()).collect(),
            &mut out,
        );
        out
    }

    proptest::proptest! {
        /// Pairing only the rules whose pattern hash repeats gives the duplicate and
        /// conflict findings, in the order (the first 100 per code are kept), of pairing
        /// every rule of the group.
        #[test]
        fn repeated_patterns_are_found_as_by_sorting_every_rule(
            lines in proptest::collection::vec((0..4u8, 0..12u8), 0..60),
        ) {
            let mut body = String::from("User-agent: a\n");
            for (kind, path) in &lines {
                match kind {
                    0 => body.push_str(&format!("Allow: /p{path}\n")),
                    1 => body.push_str(&format!("Disallow: /p{path}\n")),
                    2 => body.push_str(&format!("Disallow: /p{}*x\n", path % 3)),
                    // A new group after rules: the scratch passes from group to group.
                    _ => body.push_str(&format!("User-agent: b{path}\n")),
                }
            }
            let doc = crate::RobotsTxt::parse(body.as_bytes());
            // One scratch for every group, as the parser passes it.
            let mut hashed = Vec::new();
            for group in &doc.groups {
                let rules = doc.group_rules(group);
                let mut found = Vec::new();
                check_group(group, rules, &mut hashed, &mut found);
                proptest::prop_assert_eq!(found, check_group_by_sorting(rules));
            }
        }
    }

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

    /// `text` as UTF-16 code units, little- or big-endian.
    fn utf16(text: &str, little: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| {
                if little {
                    u.to_le_bytes()
                } else {
                    u.to_be_bytes()
                }
            })
            .collect()
    }

    proptest::proptest! {
        /// The byte scan finds what decoding every character finds.
        #[test]
        fn escaped_characters_are_found_byte_by_byte(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    0u32..0x200,
                    0x7f0u32..0x810,
                    proptest::prelude::any::<char>().prop_map(u32::from),
                ],
                0..12,
            ),
        ) {
            let text: String = chars.into_iter().filter_map(char::from_u32).collect();
            proptest::prop_assert_eq!(has_escaped(&text), text.chars().any(is_escaped));
        }
    }

    #[test]
    fn excerpt_text_escapes_utf16_bodies_byte_by_byte() {
        let le = utf16("\u{feff}User-agent: *\n", true);
        assert_eq!(
            excerpt_text(&le),
            "\\xff\\xfeU\\x00s\\x00e\\x00r\\x00-\\x00a\\x00g\\x00e\\x00n\\x00t\\x00:\\x00 \\x00*\\x00\\x0a\\x00"
        );
        let be = utf16("\u{feff}User", false);
        assert_eq!(excerpt_text(&be), "\\xfe\\xff\\x00U\\x00s\\x00e\\x00r");
    }

    #[test]
    fn excerpt_text_escapes_latin1_nul_and_controls() {
        assert_eq!(excerpt_text(b"Disallow: /caf\xe9/"), "Disallow: /caf\\xe9/");
        assert_eq!(excerpt_text(b"Disallow: /a\0b"), "Disallow: /a\\x00b");
        assert_eq!(excerpt_text(b"a\r\nb\x7f"), "a\\x0d\\x0ab\\x7f");
        // A C1 control is valid UTF-8 (U+0085) but shown as its two bytes.
        assert_eq!(excerpt_text("x\u{85}y".as_bytes()), "x\\xc2\\x85y");
        // A truncated sequence is escaped byte by byte; the character after it is kept.
        assert_eq!(excerpt_text(b"\xe2\x82/\xc3\xa9"), "\\xe2\\x82/\u{e9}");
    }

    #[test]
    fn excerpt_text_doubles_backslashes_only_when_it_escapes() {
        assert_eq!(
            excerpt_text(b"Disallow: /a\\b\xff"),
            "Disallow: /a\\\\b\\xff"
        );
        assert_eq!(excerpt_text(b"Disallow: /a\\b"), "Disallow: /a\\b");
        assert_eq!(excerpt_text(b"a\tb\0\\"), "a\tb\\x00\\\\");
    }

    #[test]
    fn excerpt_text_borrows_plain_text_tabs_and_emoji() {
        for text in [
            "Disallow: /private",
            "User-agent:\t*",
            "Disallow: /caf\u{e9}/😀",
            "",
        ] {
            let shown = excerpt_text(text.as_bytes());
            assert!(matches!(shown, Cow::Borrowed(t) if t == text), "{text:?}");
        }
        // Kept as itself in an escaped excerpt too.
        assert_eq!(excerpt_text("😀\0".as_bytes()), "😀\\x00");
    }

    #[test]
    fn shown_excerpt_cuts_then_escapes() {
        let cap = crate::limits::EXCERPT_LEN;
        let body = utf16(&"User-agent: *\n".repeat(20), true);
        let shown = shown_excerpt(&body);
        assert!(shown.starts_with("U\\x00s\\x00"), "{shown}");
        // 200 bytes: 100 characters, each followed by its NUL.
        assert_eq!(shown.matches("\\x00").count(), cap / 2);
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
    fn sitemap_url_bytes_refused_are_ascii_whitespace_and_controls() {
        for b in 0..=255u8 {
            let url = [b"https://example.com/a".as_slice(), &[b]].concat();
            let refused = b.is_ascii_whitespace() || b.is_ascii_control();
            assert_eq!(is_absolute_sitemap_url(&url), !refused, "byte {b:#04x}");
        }
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
