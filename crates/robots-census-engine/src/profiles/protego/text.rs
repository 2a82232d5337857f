//! The text Protego compares, from `protego/_utils.py` and `_protego.py`: `%`-escapes
//! normalised on both sides (`_unquote`, `_quote`, `_quote_pattern`, `_quote_path` over
//! CPython 3.11's `urllib.parse.urlsplit`), the `/robots.txt` test of `can_fetch`, and
//! crawl-delay values read as Python's `float()` reads them.

use std::borrow::Cow;

use super::super::cpython::py_strip;
use crate::model::lossy_string;

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn hex_val(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// `_quote(value, kept, safe)` = `quote(_unquote(value, ignore=kept), safe=safe)`, appended to
/// `out`. `keep_star` selects the pattern sets (`_PATTERN_KEPT`/`_PATTERN_SAFE`, which add `*`)
/// over the URL sets (`_KEPT` = `/%`, `_SAFE` = `/%=`).
fn quote_into(value: &str, keep_star: bool, out: &mut String) {
    let kept = |b: u8| b == b'/' || b == b'%' || (keep_star && b == b'*');
    // _unquote: escapes of kept characters stay (upper-cased); other valid %xy escapes become
    // the byte; the bytes are then decoded as UTF-8 with errors="replace".
    let decoded: Cow<'_, str> = if !value.contains('%') {
        Cow::Borrowed(value)
    } else {
        let b = value.as_bytes();
        let mut bytes = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' && i + 2 < b.len() && is_hex(b[i + 1]) && is_hex(b[i + 2]) {
                let v = hex_val(b[i + 1]) * 16 + hex_val(b[i + 2]);
                if kept(v) {
                    bytes.push(b'%');
                    bytes.push(b[i + 1].to_ascii_uppercase());
                    bytes.push(b[i + 2].to_ascii_uppercase());
                } else {
                    bytes.push(v);
                }
                i += 3;
                continue;
            }
            bytes.push(b[i]);
            i += 1;
        }
        Cow::Owned(lossy_string(bytes))
    };
    // quote(): bytes outside A-Za-z0-9_.-~ and `safe` become %XX (upper case).
    for &c in decoded.as_bytes() {
        let safe = c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'.' | b'-' | b'~' | b'/' | b'%' | b'=')
            || (keep_star && c == b'*');
        if safe {
            out.push(c as char);
        } else {
            out.push('%');
            out.push(HEX_UPPER[(c >> 4) as usize] as char);
            out.push(HEX_UPPER[(c & 15) as usize] as char);
        }
    }
}

/// `_quote_pattern(pattern)`.
pub(super) fn quote_pattern(pattern: &str) -> String {
    // _QUOTED_PATTERN: [A-Za-z0-9_.~/=*-]+\$? needs no work.
    let body = pattern.strip_suffix('$').unwrap_or(pattern);
    if !body.is_empty()
        && body.bytes().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'~' | b'/' | b'=' | b'*' | b'-')
        })
    {
        return pattern.to_string();
    }
    let mut p: Cow<'_, str> = Cow::Borrowed(pattern);
    // A rule written as an absolute URL is made a path containing that URL.
    if pattern.starts_with("https://") || pattern.starts_with("http://") {
        p = Cow::Owned(format!("/{pattern}"));
    }
    let (rest, anchor) = match p.strip_suffix('$') {
        Some(r) => (r, "$"),
        None => (&*p, ""),
    };
    let mut out = String::with_capacity(rest.len() + 8);
    quote_into(rest, true, &mut out);
    out.push_str(anchor);
    out
}

/// The parts of `urllib.parse.urlsplit(url)` (CPython 3.11.7) this port needs: the lower-cased
/// scheme, the path and the query (`None` when there is no `?`). The fragment is split off.
fn urlsplit(url: &str) -> (String, String, Option<String>) {
    let url = url.trim_start_matches(|c: char| c <= ' ');
    let cleaned: Cow<'_, str> = if url.contains(['\t', '\r', '\n']) {
        Cow::Owned(
            url.chars()
                .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
                .collect(),
        )
    } else {
        Cow::Borrowed(url)
    };
    let mut rest: &str = &cleaned;
    let mut scheme = String::new();
    if let Some(i) = rest.find(':') {
        let cand = &rest[..i];
        if i > 0
            && cand.as_bytes()[0].is_ascii_alphabetic()
            && cand
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
        {
            scheme = cand.to_ascii_lowercase();
            rest = &rest[i + 1..];
        }
    }
    if rest.starts_with("//") {
        let delim = rest[2..]
            .find(['/', '?', '#'])
            .map_or(rest.len(), |d| d + 2);
        rest = &rest[delim..];
    }
    if let Some(h) = rest.find('#') {
        rest = &rest[..h];
    }
    match rest.find('?') {
        Some(q) => (
            scheme,
            rest[..q].to_string(),
            Some(rest[q + 1..].to_string()),
        ),
        None => (scheme, rest.to_string(), None),
    }
}

/// `_quote_path(url)`: the path and query of `url`, normalized for comparison.
pub(super) fn quote_path(url: &str) -> Cow<'_, str> {
    if let Some(p) = quoted_url_fast(url) {
        return Cow::Borrowed(p);
    }
    let url = url.split('#').next().unwrap_or("");
    let (_, mut path, query) = urlsplit(url);
    // "?" in url: a "?" with nothing after it still counts.
    if let Some(q) = query {
        path.push('?');
        path.push_str(&q);
    }
    let mut out = String::with_capacity(path.len() + 8);
    quote_into(&path, false, &mut out);
    if out.starts_with('/') {
        Cow::Owned(out)
    } else {
        Cow::Owned(format!("/{out}"))
    }
}

/// `_QUOTED_URL`: `(?:[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)?(/(?!/)[A-Za-z0-9_.~/=-]*)`
/// fullmatch; returns group 1.
fn quoted_url_fast(url: &str) -> Option<&str> {
    let b = url.as_bytes();
    let start = if b.first() == Some(&b'/') {
        0
    } else {
        if !b.first()?.is_ascii_alphabetic() {
            return None;
        }
        let mut i = 1;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'+' | b'.' | b'-')) {
            i += 1;
        }
        if !b[i..].starts_with(b"://") {
            return None;
        }
        i += 3;
        while i < b.len() && !matches!(b[i], b'/' | b'?' | b'#') {
            i += 1;
        }
        if i >= b.len() || b[i] != b'/' {
            return None;
        }
        i
    };
    if b.get(start + 1) == Some(&b'/') {
        return None;
    }
    if b[start + 1..]
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || b"_.~/=-".contains(&c))
    {
        Some(&url[start..])
    } else {
        None
    }
}

/// `urlparse(url).path == "/robots.txt"` (guarded by `"/robots.txt" in url`), from
/// `Protego.can_fetch`. `urlparse` also cuts `;params` off the last path segment for the
/// schemes in `uses_params`.
pub(super) fn is_robots_txt(url: &str) -> bool {
    if !url.contains("/robots.txt") {
        return false;
    }
    let (scheme, path, _) = urlsplit(url);
    const USES_PARAMS: &[&str] = &[
        "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu",
        "sip", "sips", "mms", "sftp", "tel",
    ];
    let mut p: &str = &path;
    if USES_PARAMS.contains(&scheme.as_str()) && p.contains(';') {
        // _splitparams
        let i = match p.rfind('/') {
            Some(slash) => match p[slash..].find(';') {
                Some(j) => slash + j,
                None => p.len(),
            },
            None => p.find(';').unwrap_or(p.len()),
        };
        p = &p[..i];
    }
    p == "/robots.txt"
}

/// Zero code points of the Unicode 14 `Nd` digit runs: CPython's `float()` reads any decimal
/// digit (`_PyUnicode_TransformDecimalAndSpaceToASCII`), so `Crawl-delay: ５` is 5.0.
const ND_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50,
    0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// The `_RuleSet.crawl_delay` setter: `float(value)`, kept only if finite and `>= 0`
/// (so `-0` is kept as -0.0). `float()` accepts a sign, `1.`, `.5`, exponents, `_` between
/// digits, any Unicode decimal digit and surrounding whitespace; `inf`/`nan` are refused by
/// the `isfinite` check anyway.
pub(super) fn parse_delay(value: &str) -> Option<f64> {
    let mut ascii = String::with_capacity(value.len());
    for c in py_strip(value).chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else if let Some(z) = ND_ZEROS
            .iter()
            .find(|&&z| (c as u32) >= z && (c as u32) < z + 10)
        {
            ascii.push((b'0' + (c as u32 - z) as u8) as char);
        } else {
            return None;
        }
    }
    // _Py_string_to_number_with_underscores: "_" only between two digits.
    let b = ascii.as_bytes();
    let mut clean = String::with_capacity(b.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let prev_digit = i > 0 && b[i - 1].is_ascii_digit();
            let next_digit = b.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            if !prev_digit || !next_digit {
                return None;
            }
        } else {
            clean.push(c as char);
        }
    }
    // Grammar: [+-] (digits [. digits?] | . digits) [(e|E) [+-] digits]
    let s = clean.as_bytes();
    let mut i = 0;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < s.len() && s[i] == b'.' {
        i += 1;
        let f = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - f;
    }
    if digits == 0 {
        return None;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
            i += 1;
        }
        let e = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != s.len() {
        return None;
    }
    let v: f64 = clean.parse().ok()?;
    if v.is_finite() && v >= 0.0 {
        Some(v)
    } else {
        None
    }
}
