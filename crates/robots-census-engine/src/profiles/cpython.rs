//! The parts of CPython 3.11's standard library that the `urllib` and `protego`
//! profiles reach on every line, rule path and URL, ported line by line so that they
//! compare the same strings Python does: `str.isspace`, `str.strip`, `str.splitlines`
//! (Objects/unicodeobject.c) and `urllib.parse`'s `quote`, `unquote`, `urlparse` and
//! `urlunparse` (Lib/urllib/parse.py). Only what those parsers reach is here.

use super::common::unicode_break_at;

/// `str.isspace()` in CPython 3.11 (what `strip()` and `split()` with no argument use).
pub(super) fn py_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{1c}'..='\u{1f}' | ' ' | '\u{85}' | '\u{a0}'
            | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}'
            | '\u{205f}' | '\u{3000}'
    )
}

/// `str.strip()`.
pub(super) fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// The bytes that may begin one of `str.splitlines()`'s line boundaries in UTF-8: the
/// ASCII ones, and the lead bytes of U+0085 (`C2 85`) and U+2028, U+2029 (`E2 80 A8`,
/// `E2 80 A9`).
const MAY_BREAK: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let starts = [b'\n', b'\r', 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0xc2, 0xe2];
    while i < starts.len() {
        table[starts[i] as usize] = true;
        i += 1;
    }
    table
};

/// Where the first line boundary of `text` is, and its length in bytes (`\r\n` is one).
/// Byte by byte rather than char by char: every body of the urllib and protego
/// profiles goes through here, and a byte scan finds every break without decoding a
/// char (U+0085, U+2028 and U+2029 by their lead bytes, the others are ASCII).
fn next_break(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = bytes[from..]
        .iter()
        .position(|&b| MAY_BREAK[usize::from(b)])
    {
        let at = from + found;
        let length = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => 2,
            0xc2 | 0xe2 => unicode_break_at(bytes, at),
            _ => 1,
        };
        if length > 0 {
            return Some((at, length));
        }
        from = at + 1;
    }
    None
}

/// `str.splitlines()`: `\r\n` is one break; no empty last line after a final break.
pub(super) fn splitlines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let line;
        (line, rest) = match next_break(rest) {
            Some((at, length)) => (&rest[..at], &rest[at + length..]),
            None => (rest, ""),
        };
        Some(line)
    })
}

/// `urllib.parse.uses_netloc` (3.11).
const USES_NETLOC: [&str; 26] = [
    "", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
    "snews", "prospero", "rtsp", "rtsps", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git",
    "git+ssh", "ws", "wss",
];

/// `urllib.parse.uses_params` (3.11).
const USES_PARAMS: [&str; 16] = [
    "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu",
    "sip", "sips", "mms", "sftp", "tel",
];

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `unquote(s)`: `%XX` escapes decoded, each run of decoded bytes read as UTF-8 with
/// U+FFFD for invalid sequences (`errors="replace"`); a `%` not followed by two hex
/// digits stays as written.
pub(super) fn unquote(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut run: Vec<u8> = Vec::new();
    let mut i = 0;
    let mut plain_start = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                // Plain text before this escape ends any run: flush both in order.
                if plain_start < i {
                    out.push_str(&String::from_utf8_lossy(&run));
                    run.clear();
                    out.push_str(&s[plain_start..i]);
                }
                run.push(h * 16 + l);
                i += 3;
                plain_start = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&String::from_utf8_lossy(&run));
    out.push_str(&s[plain_start..]);
    out
}

/// `quote(s, safe="/")`: UTF-8 bytes outside `A-Za-z0-9_.-~/` as upper-case `%XX`.
pub(super) fn quote(s: &str) -> String {
    let safe = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'~' | b'/');
    // Most rule paths need no escape: one copy instead of a push per byte.
    let Some(first) = s.bytes().position(|b| !safe(b)) else {
        return s.to_owned();
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for &b in &s.as_bytes()[first..] {
        if safe(b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
    out
}

/// `urlparse`'s six parts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Parsed {
    pub scheme: String,
    pub netloc: String,
    pub path: String,
    pub params: String,
    pub query: String,
    pub fragment: String,
}

fn is_scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// `urlparse(url)`. Python raises `ValueError` on an unbalanced `[` in the netloc;
/// robotparser would then fail on the whole file. Here the netloc is kept as is.
pub(super) fn urlparse(url: &str) -> Parsed {
    // urlsplit: strip leading C0 controls and space, remove tab, CR, LF.
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut rest: &str = &url;
    let mut parts = Parsed::default();
    if let Some(i) = rest.find(':') {
        let candidate = &rest[..i];
        if i > 0
            && candidate.starts_with(|c: char| c.is_ascii_alphabetic())
            && candidate.chars().all(is_scheme_char)
        {
            parts.scheme = candidate.to_ascii_lowercase();
            rest = &rest[i + 1..];
        }
    }
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        parts.netloc = after[..end].to_owned();
        rest = &after[end..];
    }
    if let Some((before, fragment)) = rest.split_once('#') {
        parts.fragment = fragment.to_owned();
        rest = before;
    }
    if let Some((before, query)) = rest.split_once('?') {
        parts.query = query.to_owned();
        rest = before;
    }
    // urlparse: params after the last path segment's ';'.
    if USES_PARAMS.contains(&parts.scheme.as_str()) && rest.contains(';') {
        let cut = match rest.rfind('/') {
            Some(slash) => rest[slash..].find(';').map(|i| i + slash),
            None => rest.find(';'),
        };
        if let Some(i) = cut {
            parts.params = rest[i + 1..].to_owned();
            rest = &rest[..i];
        }
    }
    parts.path = rest.to_owned();
    parts
}

/// `urlunparse(parts)`.
pub(super) fn urlunparse(parts: &Parsed) -> String {
    let mut url = parts.path.clone();
    if !parts.params.is_empty() {
        url = format!("{url};{}", parts.params);
    }
    let scheme = parts.scheme.as_str();
    if !parts.netloc.is_empty()
        || (!scheme.is_empty() && USES_NETLOC.contains(&scheme) && !url.starts_with("//"))
    {
        if !url.is_empty() && !url.starts_with('/') {
            url.insert(0, '/');
        }
        url = format!("//{}{url}", parts.netloc);
    }
    if !scheme.is_empty() {
        url = format!("{scheme}:{url}");
    }
    if !parts.query.is_empty() {
        url = format!("{url}?{}", parts.query);
    }
    if !parts.fragment.is_empty() {
        url = format!("{url}#{}", parts.fragment);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `str.splitlines()`'s line boundaries.
    fn is_line_break(c: char) -> bool {
        matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        )
    }

    /// `str.splitlines()` as first written here, char by char: what `splitlines` is
    /// held to.
    fn splitlines_by_chars(text: &str) -> Vec<&str> {
        let mut lines = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find(is_line_break) {
                Some(i) => {
                    lines.push(&rest[..i]);
                    let brk = &rest[i..];
                    let skip = if brk.starts_with("\r\n") {
                        2
                    } else {
                        brk.chars().next().map_or(1, char::len_utf8)
                    };
                    rest = &rest[i + skip..];
                }
                None => {
                    lines.push(rest);
                    rest = "";
                }
            }
        }
        lines
    }

    proptest! {
        #[test]
        fn splitlines_splits_where_the_chars_break(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("\n"), Just("\r"), Just("\r\n"), Just("\x0b"), Just("\x0c"),
                    Just("\x1c"), Just("\x1d"), Just("\x1e"), Just("\x1f"), Just("\u{85}"),
                    Just("\u{2028}"), Just("\u{2029}"), Just("\u{202a}"), Just("\u{2027}"),
                    Just("\u{84}"), Just("\u{c5}"), Just("\u{e000}"), Just("\u{2080}"),
                    Just("a"), Just(" "), Just("é"), Just("\u{1F600}"),
                ],
                0..24,
            )
        ) {
            let text: String = pieces.concat();
            prop_assert_eq!(splitlines(&text).collect::<Vec<_>>(), splitlines_by_chars(&text));
        }
    }

    #[test]
    fn splitlines_and_strip_as_python() {
        assert_eq!(
            splitlines("a\r\nb\rc\n\nd\u{2028}e\x0bf\n").collect::<Vec<_>>(),
            ["a", "b", "c", "", "d", "e", "f"]
        );
        assert_eq!(py_strip("\x1c\u{3000} x \u{85}"), "x");
        assert!(!py_space('\u{200b}'));
    }

    #[test]
    fn unquote_as_python() {
        assert_eq!(unquote("abc%20def"), "abc def");
        assert_eq!(unquote("%C3%A9t%C3%A9"), "été");
        assert_eq!(unquote("%C3x"), "\u{FFFD}x");
        assert_eq!(unquote("100%"), "100%");
        assert_eq!(unquote("%zz%4"), "%zz%4");
        assert_eq!(unquote("é%41"), "éA");
    }

    #[test]
    fn quote_as_python() {
        assert_eq!(quote("/a b/é?x=1"), "/a%20b/%C3%A9%3Fx%3D1");
        assert_eq!(quote("-_.~/"), "-_.~/");
        assert_eq!(quote("*$"), "%2A%24");
    }

    #[test]
    fn urlparse_round_trips_as_python() {
        // Outputs of CPython 3.11.7's urlunparse(urlparse(x)).
        for (input, want) in [
            ("/a?b", "/a?b"),
            ("/a?", "/a"),
            ("/a#", "/a"),
            ("/a;b", "/a;b"),
            ("/a;", "/a"),
            ("/x;p/y", "/x;p/y"),
            ("HTTP://Host/p", "http://Host/p"),
            ("http:/x", "http:///x"),
            ("//host/path", "//host/path"),
            ("foo:bar", "foo:bar"),
            ("*.php", "*.php"),
            ("  /lead", "/lead"),
            ("/t\tab", "/tab"),
        ] {
            assert_eq!(urlunparse(&urlparse(input)), want, "{input:?}");
        }
        let p = urlparse("https://example.com/a/b;p?q=1#f");
        assert_eq!(
            (p.scheme.as_str(), p.netloc.as_str(), p.path.as_str()),
            ("https", "example.com", "/a/b")
        );
        assert_eq!(
            (p.params.as_str(), p.query.as_str(), p.fragment.as_str()),
            ("p", "q=1", "f")
        );
    }
}
