//! Reading the body the way crawler-commons 1.6 `robots/SimpleRobotRulesParser.java`
//! (`parseContent`, `tokenize`) does before any group logic: BOM / UTF-16 decoding, the HTML
//! check and `<...>` stripping, `StringTokenizer` line splitting, Java `String.trim()`, the
//! directive tokenizer with its typo prefixes, and the user-agent product-token matchers.

use super::super::common::unicode_break_at;
use crate::model::lossy_text;

/// parseContent: UTF-8 BOM (EF BB BF) skipped; FF FE => UTF-16LE; FE FF => UTF-16BE; else UTF-8.
/// Java's decoders replace malformed input with U+FFFD, as the lossy decoders here do.
pub(super) fn decode_body(body: &[u8]) -> String {
    if body.len() >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF {
        return lossy_text(&body[3..]).into_owned();
    }
    if body.len() >= 2 && body[0] == 0xFF && body[1] == 0xFE {
        return decode_utf16(&body[2..], false);
    }
    if body.len() >= 2 && body[0] == 0xFE && body[1] == 0xFF {
        return decode_utf16(&body[2..], true);
    }
    lossy_text(body).into_owned()
}

fn decode_utf16(b: &[u8], big_endian: bool) -> String {
    let units = b.chunks_exact(2).map(|c| {
        if big_endian {
            u16::from_be_bytes([c[0], c[1]])
        } else {
            u16::from_le_bytes([c[0], c[1]])
        }
    });
    let mut s: String = char::decode_utf16(units)
        .map(|r| r.unwrap_or('\u{FFFD}'))
        .collect();
    if b.len() % 2 == 1 {
        s.push('\u{FFFD}');
    }
    s
}

/// `SIMPLE_HTML_PATTERN = (?is)<(html|head|body)\s*>` (find anywhere; `\s` = [ \t\n\x0B\f\r]).
pub(super) fn contains_simple_html(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let p = i + off + 1;
        if p + 4 <= b.len() {
            let w = &b[p..p + 4];
            if w.eq_ignore_ascii_case(b"html")
                || w.eq_ignore_ascii_case(b"head")
                || w.eq_ignore_ascii_case(b"body")
            {
                let mut q = p + 4;
                while q < b.len() && matches!(b[q], b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') {
                    q += 1;
                }
                if q < b.len() && b[q] == b'>' {
                    return true;
                }
            }
        }
        i = p;
    }
    false
}

/// ASCII case-insensitive substring search (Java `(?i)` without UNICODE_CASE).
pub(super) fn contains_ci_ascii(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() || hay.len() < needle.len() {
        return needle.is_empty();
    }
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// `new StringTokenizer(content, "\n\r\u0085\u2028\u2029")`: empty tokens are skipped. Each
/// line comes with its physical line number (`\r\n` counted once).
pub(super) fn split_lines(text: &str) -> Vec<(u32, &str)> {
    // Byte by byte, not char by char (every body of the profile passes here): the
    // delimiters are `\n`, `\r` and the UTF-8 of U+0085 (`C2 85`), U+2028 and U+2029
    // (`E2 80 A8`, `E2 80 A9`), whose lead bytes begin chars in a `str`.
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line_no: u32 = 1;
    let (mut start, mut from) = (0usize, 0usize);
    while let Some(found) = b[from..]
        .iter()
        .position(|&c| matches!(c, b'\n' | b'\r' | 0xc2 | 0xe2))
    {
        let at = from + found;
        let length = match b[at] {
            b'\n' | b'\r' => 1,
            _ => unicode_break_at(b, at),
        };
        if length == 0 {
            from = at + 1;
            continue;
        }
        if start < at {
            out.push((line_no, &text[start..at]));
        }
        if !(b[at] == b'\n' && at > 0 && b[at - 1] == b'\r') {
            line_no = line_no.saturating_add(1);
        }
        start = at + length;
        from = start;
    }
    if start < text.len() {
        out.push((line_no, &text[start..]));
    }
    out
}

/// `line.replaceAll("<[^>]+>", "")`.
pub(super) fn strip_tags(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0usize;
    let mut copied = 0usize;
    while i < b.len() {
        if b[i] == b'<' && i + 1 < b.len() && b[i + 1] != b'>' {
            match memchr::memchr(b'>', &b[i + 1..]) {
                Some(off) => {
                    let end = i + 1 + off; // index of '>'
                    out.push_str(&line[copied..i]);
                    i = end + 1;
                    copied = i;
                    continue;
                }
                None => break, // no '>' later: no further match possible
            }
        }
        i += 1;
    }
    out.push_str(&line[copied..]);
    out
}

/// Java `String.trim()`: strips every char <= U+0020 at both ends.
pub(super) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Directive {
    UserAgent,
    Disallow,
    Allow,
    CrawlDelay,
}

/// The DIRECTIVE_PREFIX entries whose tokens change the parse state. The others (sitemap(s),
/// host, no-index, acap-*, request-rate, visit-time, robot-version, comment, http(s)) are
/// ignored by parseContent; no line can be valid for one of them and one of these at once (when
/// one prefix extends another, the extension starts with a letter, which fails the separator).
const PREFIXES: &[(&str, Directive)] = &[
    ("user-agent", Directive::UserAgent),
    ("useragent", Directive::UserAgent),
    ("useg-agent", Directive::UserAgent),
    ("ser-agent", Directive::UserAgent),
    ("users-agent", Directive::UserAgent),
    ("user agent", Directive::UserAgent),
    ("user-agnet", Directive::UserAgent),
    ("user-agents", Directive::UserAgent),
    ("disallow", Directive::Disallow),
    ("desallow", Directive::Disallow),
    ("dissallow", Directive::Disallow),
    ("dissalow", Directive::Disallow),
    ("disalow", Directive::Disallow),
    ("dssalow", Directive::Disallow),
    ("dsallow", Directive::Disallow),
    ("diasllow", Directive::Disallow),
    ("disallaw", Directive::Disallow),
    ("diallow", Directive::Disallow),
    ("disallows", Directive::Disallow),
    ("disllow", Directive::Disallow),
    ("allow", Directive::Allow),
    ("crawl-delay", Directive::CrawlDelay),
    ("crawl delay", Directive::CrawlDelay),
    ("clawl-delay", Directive::CrawlDelay),
    ("craw-delay", Directive::CrawlDelay),
    ("crawl-deley", Directive::CrawlDelay),
];

/// `tokenize(line)`: a known prefix (case-insensitive), then `[ \t]*:[ \t]*(.*)` or
/// `[ \t]+(.*)`; the data is Java-trimmed. (`toLowerCase(Locale.ROOT)` can only produce the
/// ASCII letters of these prefixes from ASCII letters, so an ASCII comparison is exact.)
pub(super) fn tokenize(line: &str) -> Option<(Directive, &str)> {
    let b = line.as_bytes();
    for &(prefix, dir) in PREFIXES {
        let p = prefix.as_bytes();
        if b.len() < p.len() || !b[..p.len()].eq_ignore_ascii_case(p) {
            continue;
        }
        let rest = &line[p.len()..];
        if let Some(data) = directive_data(rest) {
            return Some((dir, java_trim(data)));
        }
    }
    None
}

fn directive_data(rest: &str) -> Option<&str> {
    let b = rest.as_bytes();
    // COLON_DIRECTIVE_DELIMITER [ \t]*:[ \t]*(.*)
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i < b.len() && b[i] == b':' {
        return Some(&rest[i + 1..]);
    }
    // BLANK_DIRECTIVE_DELIMITER [ \t]+(.*)
    if i > 0 {
        return Some(&rest[i..]);
    }
    None
}

/// `USER_AGENT_PRODUCT_TOKEN_MATCHER.matches()`: `[a-zA-Z_-]+`.
pub(super) fn is_valid_product_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_token_byte)
}

/// `USER_AGENT_PRODUCT_TOKEN_MATCHER.lookingAt()` group (may be empty = no match).
pub(super) fn leading_product_token(s: &str) -> &str {
    let n = s.bytes().take_while(|&c| is_token_byte(c)).count();
    &s[..n]
}

fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `split_lines` as first ported, char by char: what it is held to.
    fn split_lines_by_chars(text: &str) -> Vec<(u32, &str)> {
        let mut out = Vec::new();
        let mut line_no: u32 = 1;
        let mut start = 0usize;
        let mut prev_cr = false;
        for (i, c) in text.char_indices() {
            let is_delim = matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
            if is_delim {
                if start < i {
                    out.push((line_no, &text[start..i]));
                }
                if !(c == '\n' && prev_cr) {
                    line_no = line_no.saturating_add(1);
                }
                start = i + c.len_utf8();
            }
            prev_cr = c == '\r';
        }
        if start < text.len() {
            out.push((line_no, &text[start..]));
        }
        out
    }

    proptest! {
        #[test]
        fn split_lines_splits_where_the_chars_do(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("\n"), Just("\r"), Just("\r\n"), Just("\u{85}"), Just("\u{2028}"),
                    Just("\u{2029}"), Just("\u{2027}"), Just("\u{202a}"), Just("\u{84}"),
                    Just("\u{c5}"), Just("\u{2080}"), Just("\x0b"), Just("a"), Just("é"),
                    Just(" "),
                ],
                0..24,
            )
        ) {
            let text: String = pieces.concat();
            prop_assert_eq!(split_lines(&text), split_lines_by_chars(&text));
        }
    }

    /// Line numbering of `line_splitting_and_comments` and the tokenizer cases of
    /// `cc_directive_typos_and_blank_separator` (mod.rs), on the helpers alone.
    #[test]
    fn split_lines_and_tokenize_direct() {
        let body = "User-agent: *\u{2028}Disallow: /a # comment\r\n\r\nDisallow: /b\rAllow: /a/b\n";
        assert_eq!(
            split_lines(body),
            vec![
                (1, "User-agent: *"),
                (2, "Disallow: /a # comment"),
                (4, "Disallow: /b"),
                (5, "Allow: /a/b"),
            ]
        );
        assert_eq!(tokenize("dissallow /y"), Some((Directive::Disallow, "/y")));
        assert_eq!(
            tokenize("crawl delay: 7"),
            Some((Directive::CrawlDelay, "7"))
        );
        assert_eq!(
            tokenize("User-Agents: c"),
            Some((Directive::UserAgent, "c"))
        );
        assert_eq!(tokenize("Disallowed: /q"), None);
        assert_eq!(strip_tags("Disallow: /<b>x</b>"), "Disallow: /x");
        assert_eq!(leading_product_token("ccbot2"), "ccbot");
        assert!(is_valid_product_token("ccbot-x"));
        assert!(!is_valid_product_token("ccbot/2.0"));
    }
}
