//! Bytes to directives, exactly as robots.cc's `RobotsTxtParser` splits them.
//!
//! This is the lexer of the engine: it knows nothing of groups or matching. It walks
//! the body once, yields one [`Line`] per line robots.cc would emit (same numbering),
//! and classifies each into a [`Key`] and a value, borrowing from the body. Values of
//! allow/disallow (and unknown keys) are percent-escaped the way robots.cc does
//! before matching; the escaped form is borrowed unless escaping changed a byte.

use std::borrow::Cow;

use memchr::{memchr2, memchr3};

use crate::limits::MAX_LINE_LEN;

const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The directive a key names, after robots.cc's prefix and typo rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    UserAgent,
    Allow,
    Disallow,
    Sitemap,
    /// Any other key; Google ignores it, the census records it.
    Unknown,
}

/// How a key was recognised, for lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum KeySpelling {
    /// The key is exactly the directive name (case-insensitively).
    #[default]
    Exact,
    /// One of robots.cc's accepted typos (`useragent`, `dissallow`, `site-map`, ...).
    AcceptedTypo,
    /// The key only starts with the directive name (`Disallowed`, `User-agents`).
    Prefix,
}

/// What a line held, after comment stripping and key/value splitting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineKind<'a> {
    /// Nothing but whitespace.
    Empty,
    /// Only a comment.
    Comment,
    /// Text robots.cc could not split into key and value (no separator, or more
    /// than two words without a colon, or an empty key).
    Unparsed,
    Directive(Directive<'a>),
}

/// A `key: value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Directive<'a> {
    pub key: Key,
    /// The key as written, whitespace-stripped.
    pub key_text: &'a [u8],
    pub spelling: KeySpelling,
    /// The value as written, whitespace-stripped, comment removed.
    pub value: &'a [u8],
    /// The value robots.cc hands to its handler: percent-escaped for every key but
    /// user-agent and sitemap.
    pub pattern: Cow<'a, [u8]>,
    /// No ':' was present; whitespace separated exactly two words.
    pub missing_colon: bool,
}

/// One line, numbered as robots.cc numbers it (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub number: u32,
    /// Byte offset of the line in the parsed body.
    pub offset: usize,
    /// The line as robots.cc keeps it: at most [`MAX_LINE_LEN`] bytes, up to the first NUL.
    pub text: &'a [u8],
    /// Bytes were dropped past [`MAX_LINE_LEN`].
    pub too_long: bool,
    /// A NUL byte ended the line's content early.
    pub has_nul: bool,
    pub has_comment: bool,
    /// What follows the line's first '#' (empty without one): the signals read the
    /// Cloudflare markers and the text-and-data-mining reservations here.
    pub comment: &'a [u8],
    pub kind: LineKind<'a>,
}

/// Number of leading bytes robots.cc skips as (a prefix of) a UTF-8 BOM.
pub(crate) fn bom_len(body: &[u8]) -> usize {
    body.iter()
        .zip(UTF8_BOM)
        .take_while(|(b, m)| **b == *m)
        .count()
}

/// Iterator over the lines of a body; see the module docs.
pub(crate) struct Lines<'a> {
    body: &'a [u8],
    pos: usize,
    number: u32,
    last_was_cr: bool,
    done: bool,
    /// The body holds a NUL somewhere: only then is each line searched for one.
    /// Almost no file does, and one search of the body costs less than a search
    /// per line (the lexer is a tenth of a `run`'s time).
    any_nul: bool,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(body: &'a [u8]) -> Self {
        Lines {
            body,
            pos: bom_len(body),
            number: 0,
            last_was_cr: false,
            done: false,
            any_nul: memchr::memchr(0, body).is_some(),
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        while !self.done {
            let start = self.pos;
            let rest = &self.body[start..];
            // One search finds the line's end, or its first '#' and then its end: a
            // line is searched once whether or not it has a comment.
            let (end, hash) = match memchr3(b'\n', b'\r', b'#', rest) {
                Some(h) if rest[h] == b'#' => {
                    let after = rest.get(h + 1..).unwrap_or_default();
                    let end = memchr2(b'\n', b'\r', after).map_or(rest.len(), |i| h + 1 + i);
                    (end, Some(h))
                }
                Some(i) => (i, None),
                None => (rest.len(), None),
            };
            let (raw, ending) = (&rest[..end], rest.get(end).copied());
            count_work!(raw.len() + 1);
            match ending {
                Some(ch) => {
                    self.pos = start + raw.len() + 1;
                    // The LF of a CRLF pair ends no line of its own.
                    let crlf_continuation = raw.is_empty() && self.last_was_cr && ch == b'\n';
                    self.last_was_cr = ch == b'\r';
                    if crlf_continuation {
                        continue;
                    }
                }
                // robots.cc always emits a final line, even an empty one.
                None => self.done = true,
            }
            self.number += 1;
            return Some(split_line(self.number, start, raw, hash, self.any_nul));
        }
        None
    }
}

/// One line of `raw` bytes: `hash` is the position of its first '#', if any;
/// `may_hold_nul` says whether it must be searched for a NUL.
fn split_line(
    number: u32,
    offset: usize,
    raw: &[u8],
    hash: Option<usize>,
    may_hold_nul: bool,
) -> Line<'_> {
    let too_long = raw.len() > MAX_LINE_LEN;
    let kept = &raw[..raw.len().min(MAX_LINE_LEN)];
    let nul = if may_hold_nul {
        memchr::memchr(0, kept)
    } else {
        None
    };
    let (text, has_nul) = match nul {
        Some(i) => (&kept[..i], true),
        None => (kept, false),
    };
    // The line's first '#' is the text's first when it lies inside the text; past it
    // (the line cut at a NUL or at MAX_LINE_LEN), the text holds no '#'.
    let (content, comment) = match hash {
        Some(i) if i < text.len() => (&text[..i], Some(&text[i + 1..])),
        _ => (text, None),
    };
    let has_comment = comment.is_some();
    let kind = classify(content, has_comment);
    Line {
        number,
        offset,
        text,
        too_long,
        has_nul,
        has_comment,
        comment: comment.unwrap_or_default(),
        kind,
    }
}

/// absl::ascii_isspace: the whitespace robots.cc strips.
pub(crate) fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !is_ascii_space(*b))
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !is_ascii_space(*b))
        .map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// robots.cc's `GetKeyAndValueFrom`: `<key>[ \t]*:[ \t]*<value>`, or two words.
fn classify(content: &[u8], has_comment: bool) -> LineKind<'_> {
    let line = trim(content);
    if line.is_empty() {
        return if has_comment {
            LineKind::Comment
        } else {
            LineKind::Empty
        };
    }
    let (sep, missing_colon) = match memchr::memchr(b':', line) {
        Some(i) => (i, false),
        None => {
            // Google accepts whitespace for a forgotten colon, but only between
            // exactly two words.
            let Some(i) = line.iter().position(|b| is_blank(*b)) else {
                return LineKind::Unparsed;
            };
            let value_start = line[i..]
                .iter()
                .position(|b| !is_blank(*b))
                .map_or(line.len(), |j| i + j);
            if line[value_start..].iter().any(|b| is_blank(*b)) {
                return LineKind::Unparsed;
            }
            (i, true)
        }
    };
    let key_text = trim(&line[..sep]);
    if key_text.is_empty() {
        return LineKind::Unparsed;
    }
    let value = trim(&line[sep + 1..]);
    let (key, spelling) = parse_key(key_text);
    let pattern = match key {
        Key::UserAgent | Key::Sitemap => Cow::Borrowed(value),
        Key::Allow | Key::Disallow | Key::Unknown => escape_pattern(value),
    };
    LineKind::Directive(Directive {
        key,
        key_text,
        spelling,
        value,
        pattern,
        missing_colon,
    })
}

// Inlined where `prefix` is a constant (see [`spelled`]); a call compares byte by byte.
#[inline(always)]
fn starts_with_ignore_case(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// robots.cc's `Key::Parse`, which tries user-agent, allow, disallow and sitemap in
/// turn, each spelling and then its accepted typos. Every key and each of its typos
/// begin with the key's own letter, so the key's first byte leaves one candidate: the
/// answer of trying them all, found by comparing with one key's spellings only (every
/// line of a body has its key looked up).
pub(crate) fn parse_key(key: &[u8]) -> (Key, KeySpelling) {
    match key.first().map(u8::to_ascii_lowercase) {
        Some(b'u') => spelled(
            key,
            Key::UserAgent,
            "user-agent",
            &["useragent", "user agent"],
        ),
        Some(b'a') => spelled(key, Key::Allow, "allow", &[]),
        Some(b'd') => spelled(
            key,
            Key::Disallow,
            "disallow",
            &["dissallow", "dissalow", "disalow", "diasllow", "disallaw"],
        ),
        Some(b's') => spelled(key, Key::Sitemap, "sitemap", &["site-map"]),
        _ => (Key::Unknown, KeySpelling::Exact),
    }
}

/// `key` as `kind`: spelled `name` (exactly or as a prefix of it) or one of `typos`.
/// Inlined in each arm of [`parse_key`], where the names are constants the
/// comparisons unroll on.
#[inline(always)]
fn spelled(key: &[u8], kind: Key, name: &str, typos: &[&str]) -> (Key, KeySpelling) {
    if starts_with_ignore_case(key, name) {
        let spelling = if key.len() == name.len() {
            KeySpelling::Exact
        } else {
            KeySpelling::Prefix
        };
        return (kind, spelling);
    }
    if typos.iter().any(|typo| starts_with_ignore_case(key, typo)) {
        return (kind, KeySpelling::AcceptedTypo);
    }
    (Key::Unknown, KeySpelling::Exact)
}

/// robots.cc's `MaybeEscapePattern`: bytes >= 0x80 become `%XX`, existing `%xx`
/// escapes are upper-cased; everything else is kept. Borrows when nothing changes.
pub(crate) fn escape_pattern(src: &[u8]) -> Cow<'_, [u8]> {
    // Most patterns are plain ASCII without escapes: decide that at memchr speed.
    if src.is_ascii() && memchr::memchr(b'%', src).is_none() {
        return Cow::Borrowed(src);
    }
    let is_escape = |i: usize| {
        src[i] == b'%'
            && src.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && src.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    };
    let mut needs_change = false;
    let mut i = 0;
    while i < src.len() {
        if is_escape(i) {
            needs_change |= src[i + 1].is_ascii_lowercase() || src[i + 2].is_ascii_lowercase();
            i += 3;
        } else {
            needs_change |= src[i] >= 0x80;
            i += 1;
        }
    }
    if !needs_change {
        return Cow::Borrowed(src);
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(src.len() + 16);
    let mut i = 0;
    while i < src.len() {
        if is_escape(i) {
            out.extend_from_slice(&[
                b'%',
                src[i + 1].to_ascii_uppercase(),
                src[i + 2].to_ascii_uppercase(),
            ]);
            i += 3;
        } else {
            let b = src[i];
            if b >= 0x80 {
                out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
            } else {
                out.push(b);
            }
            i += 1;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &[u8]) -> Vec<Line<'_>> {
        Lines::new(body).collect()
    }

    fn directive<'a>(line: &'a Line<'a>) -> &'a Directive<'a> {
        match &line.kind {
            LineKind::Directive(d) => d,
            other => panic!("expected a directive, got {other:?}"),
        }
    }

    /// The lexer before lines were searched once: three searches a line (end, NUL, '#').
    fn lines_by_three_searches(body: &[u8]) -> Vec<Line<'_>> {
        let (mut out, mut pos, mut last_was_cr) = (Vec::new(), bom_len(body), false);
        loop {
            let rest = &body[pos..];
            let (raw, ending) = match memchr2(b'\n', b'\r', rest) {
                Some(i) => (&rest[..i], Some(rest[i])),
                None => (rest, None),
            };
            let start = pos;
            if let Some(ch) = ending {
                pos = start + raw.len() + 1;
                let continuation = raw.is_empty() && last_was_cr && ch == b'\n';
                last_was_cr = ch == b'\r';
                if continuation {
                    continue;
                }
            }
            let kept = &raw[..raw.len().min(MAX_LINE_LEN)];
            let (text, has_nul) = match memchr::memchr(0, kept) {
                Some(i) => (&kept[..i], true),
                None => (kept, false),
            };
            let (content, comment) = match memchr::memchr(b'#', text) {
                Some(i) => (&text[..i], Some(&text[i + 1..])),
                None => (text, None),
            };
            let has_comment = comment.is_some();
            out.push(Line {
                number: out.len() as u32 + 1,
                offset: start,
                text,
                too_long: raw.len() > MAX_LINE_LEN,
                has_nul,
                has_comment,
                comment: comment.unwrap_or_default(),
                kind: classify(content, has_comment),
            });
            if ending.is_none() {
                return out;
            }
        }
    }

    proptest::proptest! {
        /// Lines found in one search each are the lines of three searches each, on
        /// bodies of line ends, '#', NULs and text, with lines past MAX_LINE_LEN.
        #[test]
        fn one_search_a_line_finds_what_three_found(
            pieces in proptest::collection::vec((0..9u8, 0..3usize), 0..80),
        ) {
            let mut body = Vec::new();
            for (piece, n) in pieces {
                match piece {
                    0 => body.push(b'\n'),
                    1 => body.push(b'\r'),
                    2 => body.push(b'#'),
                    3 => body.push(0),
                    4 => body.extend_from_slice(b"Disallow: /a"),
                    5 => body.extend_from_slice(b"user-agent : x"),
                    6 => body.push(b' '),
                    7 => body.extend_from_slice(b"\xEF\xBB\xBF"),
                    // Around the cut: a '#' just inside, at, or just past it.
                    _ => body.resize(body.len() + MAX_LINE_LEN - 1 + n, b'a'),
                }
            }
            proptest::prop_assert_eq!(lines(&body), lines_by_three_searches(&body));
        }
    }

    /// Which of `names` `key` starts with (case-insensitively), and whether it is exactly it.
    fn match_names(key: &[u8], names: &[&str]) -> Option<bool> {
        names
            .iter()
            .find(|n| starts_with_ignore_case(key, n))
            .map(|n| key.len() == n.len())
    }

    /// `parse_key` as robots.cc writes it: every key in turn, then its typos.
    fn parse_key_trying_every_key(key: &[u8]) -> (Key, KeySpelling) {
        const KEYS: [(Key, &str, &[&str]); 4] = [
            (Key::UserAgent, "user-agent", &["useragent", "user agent"]),
            (Key::Allow, "allow", &[]),
            (
                Key::Disallow,
                "disallow",
                &["dissallow", "dissalow", "disalow", "diasllow", "disallaw"],
            ),
            (Key::Sitemap, "sitemap", &["site-map"]),
        ];
        for (kind, name, typos) in KEYS {
            if let Some(exact) = match_names(key, &[name]) {
                let spelling = if exact {
                    KeySpelling::Exact
                } else {
                    KeySpelling::Prefix
                };
                return (kind, spelling);
            }
            if match_names(key, typos).is_some() {
                return (kind, KeySpelling::AcceptedTypo);
            }
        }
        (Key::Unknown, KeySpelling::Exact)
    }

    proptest::proptest! {
        /// The first-letter dispatch answers as trying every key in turn: on every
        /// spelling and typo, cut, extended and in mixed case, and on other keys.
        #[test]
        fn parse_key_answers_as_trying_every_key(
            which in 0..12usize,
            cut in 0..12usize,
            tail in "[a-zA-Z -]{0,4}",
            upper in proptest::collection::vec(proptest::bool::ANY, 12),
            other in "[ -~]{0,12}",
        ) {
            const SPELLINGS: [&str; 11] = [
                "user-agent", "useragent", "user agent", "allow", "disallow", "dissallow",
                "dissalow", "disalow", "diasllow", "disallaw", "sitemap",
            ];
            let mut key: Vec<u8> = match SPELLINGS.get(which) {
                Some(s) => s.as_bytes()[..cut.min(s.len())].to_vec(),
                None => b"site-map".to_vec(),
            };
            key.extend_from_slice(tail.as_bytes());
            for (b, up) in key.iter_mut().zip(&upper) {
                if *up {
                    b.make_ascii_uppercase();
                }
            }
            proptest::prop_assert_eq!(parse_key(&key), parse_key_trying_every_key(&key));
            proptest::prop_assert_eq!(
                parse_key(other.as_bytes()),
                parse_key_trying_every_key(other.as_bytes())
            );
        }
    }

    #[test]
    fn google_line_endings_cr_lf_crlf_and_final_line() {
        let ls = lines(b"a:1\rb:2\nc:3\r\nd:4");
        assert_eq!(
            ls.iter().map(|l| l.number).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        assert_eq!(ls[3].text, b"d:4");
        // A trailing newline still yields an (empty) final line, as robots.cc counts.
        assert_eq!(lines(b"a:1\n").len(), 2);
        // CR CR LF is two lines: the LF after an empty CR line is a continuation.
        assert_eq!(lines(b"a:1\r\r\nb:2").len(), 3);
        assert_eq!(lines(b"").len(), 1);
    }

    #[test]
    fn google_bom_prefix_is_skipped() {
        assert_eq!(bom_len(b"\xEF\xBB\xBFUser-agent: *"), 3);
        assert_eq!(bom_len(b"\xEF\xBBUser-agent: *"), 2);
        assert_eq!(bom_len(b"\xEFUser"), 1);
        assert_eq!(bom_len(b"User"), 0);
        let ls = lines(b"\xEF\xBB\xBFUser-agent: *\nDisallow: /");
        assert_eq!(directive(&ls[0]).key, Key::UserAgent);
    }

    #[test]
    fn google_line_cut_at_16663_bytes() {
        let mut body = b"Disallow: /".to_vec();
        body.resize(20_000, b'a');
        let ls = lines(&body);
        assert!(ls[0].too_long);
        assert_eq!(ls[0].text.len(), MAX_LINE_LEN);
        assert_eq!(
            directive(&ls[0]).value.len(),
            MAX_LINE_LEN - "Disallow: ".len()
        );
    }

    #[test]
    fn google_comment_past_the_line_cut_is_not_seen() {
        // robots.cc cuts the line first: a '#' beyond MAX_LINE_LEN marks no comment.
        let mut body = vec![b'a'; MAX_LINE_LEN];
        body.extend_from_slice(b"#x\nb");
        let ls = lines(&body);
        assert!(ls[0].too_long && !ls[0].has_comment);
        assert_eq!(ls[0].text.len(), MAX_LINE_LEN);
        // One byte earlier, it is the last byte kept.
        body.remove(0);
        let ls = lines(&body);
        assert!(ls[0].too_long && ls[0].has_comment);
        assert_eq!(ls[0].text.len(), MAX_LINE_LEN);
        assert_eq!((ls.len(), ls[1].text), (2, &b"b"[..]));
    }

    #[test]
    fn google_nul_ends_line_content() {
        let ls = lines(b"Disallow: /a\0/b\nAllow: /c");
        assert!(ls[0].has_nul);
        assert_eq!(directive(&ls[0]).value, b"/a");
    }

    #[test]
    fn rfc_2_1_comments_and_whitespace() {
        let ls = lines(b"  Disallow :  /x  # comment\n# only\n   \n");
        let d = directive(&ls[0]);
        assert_eq!((d.key, d.value), (Key::Disallow, &b"/x"[..]));
        assert_eq!(ls[1].kind, LineKind::Comment);
        assert_eq!(ls[2].kind, LineKind::Empty);
        // The comment's text, after its first '#', for the signals.
        assert_eq!(
            (ls[0].comment, ls[1].comment),
            (&b" comment"[..], &b" only"[..])
        );
        assert_eq!(ls[2].comment, b"");
        let ls = lines(
            b"Allow: /a#b#c
#",
        );
        assert_eq!((ls[0].comment, ls[1].comment), (&b"b#c"[..], &b""[..]));
        assert!(ls[1].has_comment);
    }

    #[test]
    fn google_missing_colon_only_with_two_words() {
        let ls = lines(b"Disallow /x\nDisallow /x /y\nDisallow\n: /z");
        let d = directive(&ls[0]);
        assert!(d.missing_colon);
        assert_eq!(d.value, b"/x");
        assert_eq!(ls[1].kind, LineKind::Unparsed);
        assert_eq!(ls[2].kind, LineKind::Unparsed);
        assert_eq!(ls[3].kind, LineKind::Unparsed);
    }

    #[test]
    fn google_keys_by_prefix_and_typos() {
        assert_eq!(
            parse_key(b"USER-AGENT"),
            (Key::UserAgent, KeySpelling::Exact)
        );
        assert_eq!(
            parse_key(b"useragent"),
            (Key::UserAgent, KeySpelling::AcceptedTypo)
        );
        assert_eq!(
            parse_key(b"user agent"),
            (Key::UserAgent, KeySpelling::AcceptedTypo)
        );
        assert_eq!(
            parse_key(b"Disallowed"),
            (Key::Disallow, KeySpelling::Prefix)
        );
        for typo in ["dissallow", "dissalow", "disalow", "diasllow", "disallaw"] {
            assert_eq!(
                parse_key(typo.as_bytes()),
                (Key::Disallow, KeySpelling::AcceptedTypo)
            );
        }
        assert_eq!(
            parse_key(b"site-map"),
            (Key::Sitemap, KeySpelling::AcceptedTypo)
        );
        assert_eq!(parse_key(b"Allow"), (Key::Allow, KeySpelling::Exact));
        assert_eq!(
            parse_key(b"crawl-delay"),
            (Key::Unknown, KeySpelling::Exact)
        );
    }

    #[test]
    fn google_pattern_escaping() {
        assert_eq!(&*escape_pattern(b"/a%2fb"), b"/a%2Fb");
        assert_eq!(&*escape_pattern("/ä".as_bytes()), b"/%C3%A4");
        assert_eq!(&*escape_pattern(b"/100%"), b"/100%");
        assert_eq!(&*escape_pattern(b"/%zz%4"), b"/%zz%4");
        assert!(matches!(escape_pattern(b"/plain%2F"), Cow::Borrowed(_)));
        assert!(matches!(
            escape_pattern(b"/plain/path?q=1"),
            Cow::Borrowed(_)
        ));
        let ls = lines("User-agent: bötchen\nSitemap: http://x/ä".as_bytes());
        assert_eq!(&*directive(&ls[0]).pattern, "bötchen".as_bytes());
        assert_eq!(&*directive(&ls[1]).pattern, "http://x/ä".as_bytes());
    }
}
