//! The %-normalisation crawler-commons 1.6 applies to both sides of a comparison:
//! `filters/basic/BasicURLNormalizer.java` (`unescapePath`/`escapePath`) on rule values
//! (`SimpleRobotRules.normalizePathDirective`) and on URLs (`SimpleRobotRules.getPath`), plus the
//! `java.net.URI` / `java.net.URL` parsing `getPath` relies on (a URL Java rejects checks `/`).

use super::java::java_parse_int;
use super::text::java_trim;

/// RFC 3986 unreserved: decoded when found %-encoded (`unescapedCharacters`).
fn is_unescaped_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_' || c == b'~'
}

/// Always %-encoded (`escapedCharacters`): controls, space, `"#<>[]^`{|}` and DEL.
fn is_escaped_char(c: u8) -> bool {
    c <= 0x1F
        || matches!(
            c,
            b' ' | b'"'
                | b'#'
                | b'<'
                | b'>'
                | b'['
                | b']'
                | b'^'
                | b'`'
                | b'{'
                | b'|'
                | b'}'
                | 0x7F
        )
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// `unescapePath`: each `%XX` (regex `%([0-9A-Fa-f]{2})`, left to right, non-overlapping) is
/// decoded when it is unreserved ASCII, otherwise kept upper-cased.
fn unescape_path(path: &str) -> String {
    let b = path.as_bytes();
    // Most paths have no `%`: one copy.
    let Some(mut i) = memchr::memchr(b'%', b) else {
        return path.to_owned();
    };
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..i]);
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex_val(b[i + 1]), hex_val(b[i + 2])) {
                let v = h * 16 + l;
                if v < 128 && is_unescaped_char(v) {
                    out.push(v);
                } else {
                    out.push(b'%');
                    out.push(b[i + 1].to_ascii_uppercase());
                    out.push(b[i + 2].to_ascii_uppercase());
                }
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    // Only ASCII bytes were replaced by ASCII bytes: still valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// `escapePath(path, extra)`: UTF-8 bytes >= 0x80, `escapedCharacters` and `extra` bytes become
/// `%XX`; a `%` stays when two hex digits follow, else becomes `%25`.
fn escape_path(path: &str, escape_star_dollar: bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let b = path.as_bytes();
    let escaped =
        |c: u8| c >= 0x80 || is_escaped_char(c) || (escape_star_dollar && (c == b'*' || c == b'$'));
    // The bytes before the first that may change are copied at once (most paths: all).
    let Some(mut i) = b.iter().position(|&c| c == b'%' || escaped(c)) else {
        return path.to_owned();
    };
    let mut out = String::with_capacity(b.len() + 8);
    out.push_str(&path[..i]);
    while i < b.len() {
        let c = b[i];
        if escaped(c) {
            out.push('%');
            out.push(HEX[(c >> 4) as usize] as char);
            out.push(HEX[(c & 15) as usize] as char);
        } else if c == b'%' {
            if i + 2 >= b.len() {
                out.push_str("%25");
            } else if hex_val(b[i + 1]).is_some() && hex_val(b[i + 2]).is_some() {
                out.push('%');
                out.push(b[i + 1] as char);
                out.push(b[i + 2] as char);
                i += 2;
            } else {
                out.push_str("%25");
            }
        } else {
            out.push(c as char);
        }
        i += 1;
    }
    out
}

/// `normalizePathDirective`: `SimpleRobotRules.escapePath(path.trim(), null)`.
pub(super) fn normalize_path_directive(path: &str) -> String {
    escape_path(&unescape_path(java_trim(path)), false)
}

// ---------------------------------------------------------------------------------------------
// URL side: SimpleRobotRules.getPath(String url, true)
// ---------------------------------------------------------------------------------------------

/// `getPath(url, true)`: `new URI(url).toURL()`, path (empty => `/`) + `?` + query, then
/// `escapePath(unescapePath(..), {'*','$'})`. Any exception => `/`.
pub(super) fn url_path_for_matching(url: &str) -> String {
    match java_url_path_query(url) {
        Some((path, query)) => {
            let path = if path.is_empty() { "/" } else { path };
            let joined;
            let pq: &str = match query {
                Some(q) => {
                    joined = format!("{}?{}", path, q);
                    &joined
                }
                None => path,
            };
            escape_path(&unescape_path(pq), true)
        }
        None => "/".to_string(),
    }
}

/// java.net.URI character classes (URI.java's L_*/H_* masks), ASCII part.
fn uri_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
        )
}
fn uri_reserved(c: u8) -> bool {
    matches!(
        c,
        b';' | b'/' | b'?' | b':' | b'@' | b'&' | b'=' | b'+' | b'$' | b',' | b'[' | b']'
    )
}
fn uri_uric(c: u8) -> bool {
    uri_reserved(c) || uri_unreserved(c)
}
fn uri_path_char(c: u8) -> bool {
    uri_unreserved(c)
        || matches!(
            c,
            b':' | b'@' | b'&' | b'=' | b'+' | b'$' | b',' | b';' | b'/'
        )
}
fn uri_authority_char(c: u8) -> bool {
    // L_SERVER (userinfo | alphanum | "-.:@[]") united with L_REG_NAME ("$,;:@&=+" | unreserved)
    uri_unreserved(c) || b";:&=+$,@[]".contains(&c)
}

/// `Character.isSpaceChar` (Zs, Zl, Zp).
fn java_is_space_char(c: char) -> bool {
    matches!(
        c,
        '\u{20}' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// URI.Parser.checkChars/scanEscape: every char of `s` is allowed by `ascii_ok`, a valid `%XX`
/// escape, or a visible non-ASCII char (`c > 128 && !isSpaceChar && !isISOControl`).
fn uri_check(s: &str, ascii_ok: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x80 {
            if c != 0 && ascii_ok(c) {
                i += 1;
            } else if c == b'%'
                && i + 2 < b.len()
                && hex_val(b[i + 1]).is_some()
                && hex_val(b[i + 2]).is_some()
            {
                i += 3;
            } else {
                return false;
            }
        } else {
            let ch = match s[i..].chars().next() {
                Some(ch) => ch,
                None => return false,
            };
            let cp = ch as u32;
            if cp <= 128 || (0x7F..=0x9F).contains(&cp) || java_is_space_char(ch) {
                return false;
            }
            i += ch.len_utf8();
        }
    }
    true
}

/// Raw path and query of `new URI(url).toURL()`, `None` when Java throws.
fn java_url_path_query(url: &str) -> Option<(&str, Option<&str>)> {
    let b = url.as_bytes();
    // scheme: scan(0, n, "/?#", ":")
    let colon = b
        .iter()
        .position(|&c| matches!(c, b'/' | b'?' | b'#' | b':'))?;
    if b[colon] != b':' || colon == 0 {
        return None; // relative URI: toURL() throws "URI is not absolute"
    }
    let scheme = &url[..colon];
    if !b[0].is_ascii_alphabetic()
        || !scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
    {
        return None;
    }
    // URL needs a protocol handler (JDK 17: http, https, ftp, file, mailto, jrt parse like this;
    // `jar:` needs "!/" and its own parser, and the `url:` prefix trick are not ported: "/").
    let known = ["http", "https", "ftp", "file", "mailto", "jrt"];
    if !known.iter().any(|k| scheme.eq_ignore_ascii_case(k)) {
        return None;
    }
    let rest = &url[colon + 1..];
    // fragment: first '#', its text must be uric
    let (body, frag) = match rest.find('#') {
        Some(h) => (&rest[..h], Some(&rest[h + 1..])),
        None => (rest, None),
    };
    if let Some(f) = frag {
        if !uri_check(f, uri_uric) {
            return None;
        }
    }
    if !body.starts_with('/') {
        // opaque URI ("http:foo"): the scheme-specific part must be non-empty uric; URL then
        // reads everything before the first '?' as the path.
        if body.is_empty() || !uri_check(body, uri_uric) {
            return None;
        }
        return Some(match body.find('?') {
            Some(q) => (&body[..q], Some(&body[q + 1..])),
            None => (body, None),
        });
    }
    // hierarchical
    let (before_q, query) = match body.find('?') {
        Some(q) => (&body[..q], Some(&body[q + 1..])),
        None => (body, None),
    };
    if let Some(q) = query {
        if !uri_check(q, uri_uric) {
            return None;
        }
    }
    let mut path = before_q;
    if let Some(after) = before_q.strip_prefix("//") {
        let auth_end = after.find('/').unwrap_or(after.len());
        let authority = &after[..auth_end];
        if authority.is_empty() {
            if auth_end == after.len() && query.is_none() && frag.is_none() {
                return None; // "http://" : expected authority
            }
        } else if !check_authority(authority) {
            return None;
        }
        path = &after[auth_end..];
    }
    if !uri_check(path, uri_path_char) {
        return None;
    }
    // java.net.URL: "////x" is a UNC name, no authority, path "////x".
    if before_q.starts_with("////") {
        path = before_q;
    }
    Some((path, query))
}

/// URI.parseAuthority (server-based or registry-based) and URLStreamHandler.parseURL's host and
/// port checks.
fn check_authority(a: &str) -> bool {
    if !uri_check(a, uri_authority_char) {
        return false;
    }
    let has_bracket = a.contains('[') || a.contains(']');
    // URL: more than one '@' => no host (no further checks)
    let ats = a.matches('@').count();
    if ats > 1 {
        return !has_bracket;
    }
    let host = match a.find('@') {
        Some(i) => &a[i + 1..],
        None => a,
    };
    if host.starts_with('[') {
        let close = match host.find(']') {
            Some(c) if c > 2 => c,
            _ => return false,
        };
        if !is_ipv6_literal(&host[1..close]) {
            return false;
        }
        let after = &host[close + 1..];
        if after.is_empty() {
            return true;
        }
        let port = match after.strip_prefix(':') {
            Some(p) => p,
            None => return false,
        };
        return port.is_empty() || port.bytes().all(|c| c.is_ascii_digit());
    }
    if has_bracket {
        return false;
    }
    match host.find(':') {
        Some(i) => {
            let port = &host[i + 1..];
            if port.is_empty() {
                return true;
            }
            match java_parse_int(port) {
                Some(p) => p >= -1,
                None => false,
            }
        }
        None => true,
    }
}

fn is_ipv6_literal(s: &str) -> bool {
    let s = match s.find('%') {
        Some(i) => &s[..i],
        None => s,
    };
    if s.is_empty() || !s.contains(':') {
        return false;
    }
    let parts: Vec<&str> = s.split("::").collect();
    if parts.len() > 2 {
        return false;
    }
    let mut groups = 0;
    for (pi, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let segs: Vec<&str> = part.split(':').collect();
        for (si, seg) in segs.iter().enumerate() {
            let last = pi == parts.len() - 1 && si == segs.len() - 1;
            if last && seg.contains('.') {
                let oct: Vec<&str> = seg.split('.').collect();
                if oct.len() != 4
                    || !oct.iter().all(|o| {
                        !o.is_empty()
                            && o.len() <= 3
                            && o.bytes().all(|c| c.is_ascii_digit())
                            && o.parse::<u32>().map(|v| v <= 255).unwrap_or(false)
                    })
                {
                    return false;
                }
                groups += 2;
            } else {
                if seg.is_empty() || seg.len() > 4 || !seg.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return false;
                }
                groups += 1;
            }
        }
    }
    if parts.len() == 2 {
        groups < 8
    } else {
        groups == 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // The two functions as first ported, a push per byte: what the copies of their
    // unchanged runs are held to.
    fn unescape_path_by_bytes(path: &str) -> String {
        let b = path.as_bytes();
        let mut out: Vec<u8> = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' && i + 2 < b.len() {
                if let (Some(h), Some(l)) = (hex_val(b[i + 1]), hex_val(b[i + 2])) {
                    let v = h * 16 + l;
                    if v < 128 && is_unescaped_char(v) {
                        out.push(v);
                    } else {
                        out.push(b'%');
                        out.push(b[i + 1].to_ascii_uppercase());
                        out.push(b[i + 2].to_ascii_uppercase());
                    }
                    i += 3;
                    continue;
                }
            }
            out.push(b[i]);
            i += 1;
        }
        // Only ASCII bytes were replaced by ASCII bytes: still valid UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }
    fn escape_path_by_bytes(path: &str, escape_star_dollar: bool) -> String {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let b = path.as_bytes();
        let mut out = String::with_capacity(b.len() + 8);
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c >= 0x80 || is_escaped_char(c) || (escape_star_dollar && (c == b'*' || c == b'$')) {
                out.push('%');
                out.push(HEX[(c >> 4) as usize] as char);
                out.push(HEX[(c & 15) as usize] as char);
            } else if c == b'%' {
                if i + 2 >= b.len() {
                    out.push_str("%25");
                } else if hex_val(b[i + 1]).is_some() && hex_val(b[i + 2]).is_some() {
                    out.push('%');
                    out.push(b[i + 1] as char);
                    out.push(b[i + 2] as char);
                    i += 2;
                } else {
                    out.push_str("%25");
                }
            } else {
                out.push(c as char);
            }
            i += 1;
        }
        out
    }

    proptest! {
        #[test]
        fn escaping_copies_unchanged_runs_as_the_bytewise_port(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("%"), Just("%4"), Just("%41"), Just("%7e"), Just("%2F"), Just("%zz"),
                    Just("%C3%A9"), Just("a"), Just("/"), Just("*"), Just("$"), Just(" "),
                    Just("é"), Just("#"), Just("^"), Just("\u{7f}"), Just("\t"), Just("~"),
                ],
                0..16,
            ),
            star_dollar in any::<bool>(),
        ) {
            let path: String = pieces.concat();
            prop_assert_eq!(unescape_path(&path), unescape_path_by_bytes(&path));
            prop_assert_eq!(
                escape_path(&path, star_dollar),
                escape_path_by_bytes(&path, star_dollar)
            );
        }
    }

    /// escapePath/unescapePath on both sides.
    #[test]
    fn percent_normalisation() {
        assert_eq!(normalize_path_directive("/a%2fb%7e%41"), "/a%2Fb~A");
        assert_eq!(normalize_path_directive("/é x%"), "/%C3%A9%20x%25");
        assert_eq!(
            url_path_for_matching("http://d.com/a*b$c?q=%7e"),
            "/a%2Ab%24c?q=~"
        );
        assert_eq!(url_path_for_matching("http://d.com"), "/");
        assert_eq!(url_path_for_matching("http://d.com?x"), "/?x");
        assert_eq!(
            url_path_for_matching("https://d.com/caf\u{e9}"),
            "/caf%C3%A9"
        );
    }
}
