//! The questions asked about one body: agents taken from its own user-agent lines
//! and odd ones, and URLs aimed at its rules, built from each pattern (prefix,
//! prefix plus more, wildcards filled, with and without `$`, cut short, escaped
//! and unescaped, the `index.htm` directory forms) plus fixed odd URLs.
//!
//! The body is scanned here with a deliberately loose reading of its own (not
//! the engine's tokenizer), so a tokenizer bug cannot hide a rule from the test.

use std::collections::HashSet;

use super::rng::Rng;

/// Agents asked about every body besides its own: case variants, a full
/// user-agent string (never matches: robots.cc compares the token as given), the
/// empty agent, tokens with digits, non-ASCII, a NUL.
const ODD_AGENTS: &[&[u8]] = &[
    b"FooBot",
    b"foobot",
    b"FOOBOT",
    b"Googlebot",
    b"Googlebot/2.1",
    b"googlebot-news",
    b"",
    b" ",
    b"*",
    b"UnknownBot",
    b"bot2",
    b"Foo Bot",
    b"Foo_Bot",
    b"a",
    b"in",
    b"BarBot",
    b"B\xc3\xa4rBot",
    b"FooBot\0",
];

const FIXED_URLS: &[&[u8]] = &[
    b"",
    b"https://example.com",
    b"https://example.com/",
    b"/",
    b"https://example.com/index.html",
    b"https://example.com/index.htm",
    b"https://example.com/in/",
    b"http://example.com?q",
    b"https://example.com;p",
    b"https://example.com/a$b",
    b"https://example.com/#x",
    b"a://b/c",
    b"/a%2Fb",
    b"/a\0b",
    b"https://example.com/\xc3\xa9",
    b"https://example.com/%C3%A9",
    b"//example.com/a/b",
    b"https://example.com/*",
    b"https://example.com:8080/a",
    b"HTTPS://EXAMPLE.COM/A",
    b"ftp://x;y/z",
    b"?x",
    b"#x",
    b"http:/x/y",
    b":///x",
    b"https://example.com/a?b=/c://d",
];

/// What stands in for a `*` when a URL is built from a pattern.
const FILLERS: &[&[u8]] = &[b"", b"x", b"/in/", b"a/b", b"index.html"];
const SUFFIXES: &[&[u8]] = &[b"x", b"/", b"/index.html", b"?a=1", b".php", b"$", b"%2F"];

pub struct Questions {
    pub agents: Vec<Vec<u8>>,
    pub urls: Vec<Vec<u8>>,
}

/// User-agent values and rule values of `body`, each once, in file order.
struct Scanned<'a> {
    agents: Vec<&'a [u8]>,
    values: Vec<&'a [u8]>,
}

/// A loose reading: any line with a ':' (or a blank) whose key mentions "agent"
/// gives an agent; one mentioning "allow" or starting with "dis" a rule value.
fn scan(body: &[u8]) -> Scanned<'_> {
    let (mut agents, mut values) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for line in body.split(|b| *b == b'\n' || *b == b'\r') {
        let line = line[..line.iter().position(|b| *b == b'#').unwrap_or(line.len())].trim_ascii();
        let Some(sep) = line
            .iter()
            .position(|b| *b == b':')
            .or_else(|| line.iter().position(|b| *b == b' ' || *b == b'\t'))
        else {
            continue;
        };
        let key = line[..sep].trim_ascii().to_ascii_lowercase();
        let value = line[sep + 1..].trim_ascii();
        let is_agent = key.windows(5).any(|w| w == b"agent");
        let is_rule = key.windows(5).any(|w| w == b"allow") || key.starts_with(b"dis");
        if (is_agent || is_rule) && seen.insert((is_agent, value)) {
            if is_agent {
                agents.push(value);
            } else {
                values.push(value);
            }
        }
    }
    Scanned { agents, values }
}

/// Up to `agents` agents and about `urls` URLs for `body`; `aims` are rule
/// values to aim at first.
pub fn questions(
    rng: &mut Rng,
    body: &[u8],
    aims: &[Vec<u8>],
    agents: usize,
    urls: usize,
) -> Questions {
    let scanned = scan(body);
    let mut asked_agents: Vec<Vec<u8>> = Vec::new();
    let own = scanned.agents.len().min(agents.div_ceil(2));
    for _ in 0..own {
        let value = rng.choose(&scanned.agents);
        asked_agents.push(agent_from(rng, value));
    }
    while asked_agents.len() < agents {
        asked_agents.push(rng.choose(ODD_AGENTS).to_vec());
    }

    let mut asked_urls: Vec<Vec<u8>> = Vec::new();
    for aim in aims {
        for _ in 0..3 {
            let path = aimed_path(rng, aim);
            asked_urls.push(wrap(rng, path));
        }
    }
    let fixed = (urls / 6).max(1);
    while asked_urls.len() + fixed < urls && !scanned.values.is_empty() {
        let value = rng.choose(&scanned.values);
        let path = aimed_path(rng, value);
        asked_urls.push(wrap(rng, path));
    }
    while asked_urls.len() < urls {
        asked_urls.push(rng.choose(FIXED_URLS).to_vec());
    }
    Questions {
        agents: asked_agents,
        urls: asked_urls,
    }
}

/// An agent from a user-agent value: as written, its product token, or that
/// token in another case.
fn agent_from(rng: &mut Rng, value: &[u8]) -> Vec<u8> {
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphabetic() || *b == b'-' || *b == b'_'))
        .unwrap_or(value.len());
    let token = &value[..end];
    match rng.below(6) {
        0 => value.to_vec(),
        1 => token.to_ascii_lowercase(),
        2 => token.to_ascii_uppercase(),
        _ => token.to_vec(),
    }
}

/// A path aimed at (or just beside) the rule `value` as written.
fn aimed_path(rng: &mut Rng, value: &[u8]) -> Vec<u8> {
    let filled = fill_stars(rng, value);
    let bare = filled.strip_suffix(b"$").unwrap_or(&filled).to_vec();
    let mut path = match rng.below(14) {
        0 | 1 => bare,
        2 => filled,
        3 | 4 => [&bare[..], rng.choose(SUFFIXES)].concat(),
        5 => {
            let keep = rng.below(bare.len() + 1);
            bare[..keep].to_vec()
        }
        6 => escape_non_ascii(&bare, rng.chance(50)),
        7 => unescape(&bare),
        8 => toggle_escape_case(&bare),
        9 | 10 => index_form(rng, value),
        11 => {
            let end = value
                .iter()
                .position(|b| *b == b'*' || *b == b'$')
                .unwrap_or(value.len());
            value[..end].to_vec()
        }
        12 => bare.to_ascii_uppercase(),
        _ => [&bare[..], rng.choose(FILLERS), rng.choose(SUFFIXES)].concat(),
    };
    if path.first() != Some(&b'/') && rng.chance(80) {
        path.insert(0, b'/');
    }
    path
}

/// `value` with each `*` replaced by a filler.
fn fill_stars(rng: &mut Rng, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 8);
    for &b in value {
        if b == b'*' {
            out.extend_from_slice(rng.choose(FILLERS));
        } else {
            out.push(b);
        }
    }
    out
}

/// The directory forms of an `index.htm` pattern: its prefix up to the last '/'
/// alone or followed by `index.htm`, `index.html` or more.
fn index_form(rng: &mut Rng, value: &[u8]) -> Vec<u8> {
    let filled = fill_stars(rng, value);
    let dir = match filled.iter().rposition(|b| *b == b'/') {
        Some(slash) => &filled[..=slash],
        None => &filled[..],
    };
    let tail: &[u8] = rng.choose(&[
        &b""[..],
        b"index.htm",
        b"index.html",
        b"index.html?x",
        b"x/",
    ]);
    [dir, tail].concat()
}

/// Bytes >= 0x80 as `%XX` (or `%xx`), the way a crawler escapes a URL.
fn escape_non_ascii(path: &[u8], upper: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() * 3);
    for &b in path {
        if b >= 0x80 {
            let hex = if upper {
                format!("%{b:02X}")
            } else {
                format!("%{b:02x}")
            };
            out.extend_from_slice(hex.as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

/// Valid `%XX` escapes decoded to raw bytes.
fn unescape(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        let hex = path
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (path[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// The hex digits of every `%xx` escape in the other case.
fn toggle_escape_case(path: &[u8]) -> Vec<u8> {
    let mut out = path.to_vec();
    for i in 0..out.len() {
        if out[i] == b'%' {
            for j in i + 1..(i + 3).min(out.len()) {
                out[j] = if out[j].is_ascii_uppercase() {
                    out[j].to_ascii_lowercase()
                } else {
                    out[j].to_ascii_uppercase()
                };
            }
        }
    }
    out
}

/// A path as a URL: mostly absolute, sometimes bare, schemeless, with a fragment.
fn wrap(rng: &mut Rng, path: Vec<u8>) -> Vec<u8> {
    let (before, after): (&[u8], &[u8]) = match rng.below(20) {
        0..=13 => (b"https://example.com", b""),
        14 | 15 => (b"", b""),
        16 | 17 => (b"http://example.com", b"#frag"),
        18 => (b"//example.com", b""),
        _ => (b"example.com", b"?q=1"),
    };
    [before, &path[..], after].concat()
}

#[test]
fn scan_reads_agents_and_rule_values_loosely() {
    let body =
        b"User-agent: FooBot\r\nDisallowed /a # c\nallow: /b*$\nuser agent: *\nSitemap: /s\n";
    let s = scan(body);
    assert_eq!(s.agents, [&b"FooBot"[..], b"*"]);
    assert_eq!(s.values, [&b"/a"[..], b"/b*$"]);
}

#[test]
fn url_helpers() {
    assert_eq!(escape_non_ascii(b"/\xc3\xa9", false), b"/%c3%a9");
    assert_eq!(unescape(b"/%C3%a9%zz%4"), b"/\xc3\xa9%zz%4");
    assert_eq!(toggle_escape_case(b"/%e3x%C3"), b"/%E3x%c3");
}
