//! Random robots.txt bodies from a grammar of what robots.cc accepts and what it
//! almost accepts: several groups of user-agent lines (duplicated, merged, `*`
//! with trailing text, tokens cut at '/', empty) and rules before any of them;
//! keys in every case with robots.cc's accepted typos and near misses, missing
//! colons and odd separators; patterns with `*` and `$` anywhere, valid and
//! invalid %-escapes, non-ASCII bytes, `index.htm`/`index.html` endings; CR, LF
//! and CRLF mixed, BOMs (whole, partial, misplaced), NULs, lines near robots.cc's
//! 16,663-byte cut and bodies across Google's 512,000-byte cut.

use super::rng::Rng;

/// Values of user-agent lines: a few names reused so that groups merge, and
/// everything robots.cc treats specially.
const UA_VALUES: &[&[u8]] = &[
    b"*",
    b"*",
    b"FooBot",
    b"FooBot",
    b"foobot",
    b"FOOBOT",
    b"BarBot",
    b"a",
    b"in",
    b"Googlebot",
    b"Googlebot-News",
    b"googlebot/2.1",
    b"Googlebot/2.1 (+http://www.google.com/bot.html)",
    b"Mozilla/5.0 (compatible; FooBot/1.0)",
    b"* extra",
    b"*\tbots",
    b"*bot",
    b"**",
    b"Foo_Bot",
    b"Foo-Bot",
    b"Foo Bot",
    b"FooBot*",
    b"bot2",
    b"2bot",
    b"",
    b"-",
    b"B\xc3\xa4rBot",
    b"FooBot;",
    b"FooBot,BarBot",
];

const UA_KEYS: &[&[u8]] = &[
    b"User-agent",
    b"User-agent",
    b"user-agent",
    b"USER-AGENT",
    b"User-Agent",
    b"useragent",
    b"user agent",
    b"User-agents",
    b"user_agent",
    b"agent",
    b"User-agen",
];

const ALLOW_KEYS: &[&[u8]] = &[
    b"Allow",
    b"Allow",
    b"allow",
    b"ALLOW",
    b"Allowed",
    b"aLLow",
    b"Alow",
    b"allows-this",
];

const DISALLOW_KEYS: &[&[u8]] = &[
    b"Disallow",
    b"Disallow",
    b"disallow",
    b"DISALLOW",
    b"Disallowed",
    b"dissallow",
    b"dissalow",
    b"disalow",
    b"diasllow",
    b"disallaw",
    b"Dis-allow",
    b"disalloww",
];

const OTHER_KEYS: &[&[u8]] = &[
    b"Sitemap",
    b"site-map",
    b"sitemaps",
    b"Crawl-delay",
    b"Host",
    b"Noindex",
    b"Clean-param",
    b"Content-Signal",
    b"foo",
];

/// Between key and value: mostly a colon with or without blanks, sometimes only
/// whitespace (robots.cc accepts it between exactly two words), sometimes
/// something else.
const COLONS: &[&[u8]] = &[
    b":", b": ", b" : ", b":\t", b"\t:\t", b":  ", b"\x0b:", b":\x0c",
];
const BLANKS: &[&[u8]] = &[b" ", b"\t", b"  ", b" \t"];
const ODD_SEPARATORS: &[&[u8]] = &[b"::", b"=", b";", b"", b": :", b"\xef\xbc\x9a", b" - "];

const INDENTS: &[&[u8]] = &[b"", b"", b"", b"", b" ", b"\t", b"  ", b"\x0b"];
const TRAILING: &[&[u8]] = &[b"", b"", b"", b" ", b"\t", b"\x0c"];
const COMMENTS: &[&[u8]] = &[b" # note", b"#", b"# a: b", b" #/x", b"\t#"];

/// Pieces of patterns: short words so URLs collide with several rules, escapes
/// valid and invalid, non-ASCII bytes, specials.
const WORDS: &[&[u8]] = &[
    b"a",
    b"b",
    b"in",
    b"x",
    b"fish",
    b"index",
    b"ab",
    b".php",
    b".htm",
    b".html",
    b"?",
    b"?q=1",
    b";p",
    b"=",
    b"&",
    b"~",
    b"-",
    b"+",
    b" ",
    b"%41",
    b"%2f",
    b"%2F",
    b"%7e",
    b"%7E",
    b"%e3%81%82",
    b"%E3%81%82",
    b"%zz",
    b"%",
    b"%4",
    b"%%",
    b"%2a",
    b"%24",
    b"\xc3\xa9",
    b"\xff",
    b"\x80",
    b"\xe3\x81\x82",
    b"\t",
];

const ENDINGS: &[&[u8]] = &[
    b"/index.htm",
    b"/index.html",
    b"index.html",
    b"/index.htm$",
    b"/index.html$",
    b"/index.html*",
    b"/index.htmx",
    b"/INDEX.HTM",
    b"/index.htm/",
    b"/index.html?x=1",
    b"/index.%68tm",
    b"*/index.htm",
    b"/index.ht",
];

const JUNK_LINES: &[&[u8]] = &[
    b"<html><body>",
    b"Disallow",
    b": /x",
    b"just some words here",
    b"# comment only",
    b"",
    b"   ",
    b"\t",
    b"User-agent",
    b"Allow /a /b",
    b"\xef\xbb\xbfUser-agent: *",
];

/// A body and the rule values its questions should aim at first (the line
/// straddling a cut, which a scan of a huge body would rarely pick).
pub struct Generated {
    pub body: Vec<u8>,
    pub aims: Vec<Vec<u8>>,
}

/// A rule pattern as written in the file.
pub fn pattern(rng: &mut Rng) -> Vec<u8> {
    let mut p = Vec::new();
    match rng.below(10) {
        0..=5 => p.push(b'/'),
        6 => p.push(b'*'),
        7 => p.extend_from_slice(b"/*"),
        8 => {}
        _ => p.extend_from_slice(rng.choose(WORDS)),
    }
    for _ in 0..rng.range(0, 4) {
        match rng.below(10) {
            0..=4 => p.extend_from_slice(rng.choose(WORDS)),
            5 | 6 => p.push(b'/'),
            7 => p.push(b'*'),
            8 => p.push(b'$'),
            _ => p.extend_from_slice(rng.choose(&[&b"**"[..], b"*$", b"$*", b"/*/", b"$$"])),
        }
    }
    if rng.chance(25) {
        p.extend_from_slice(rng.choose(ENDINGS));
    } else if rng.chance(15) {
        p.push(b'$');
    }
    if rng.chance(4) {
        p.clear();
    }
    p
}

/// A key: the first (canonical) spelling of `keys` most of the time, else any.
fn key(rng: &mut Rng, keys: &[&'static [u8]]) -> &'static [u8] {
    if rng.chance(65) {
        keys[0]
    } else {
        rng.choose(keys)
    }
}

/// `indent key sep value trailing comment`, each part sometimes odd.
fn line(rng: &mut Rng, key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut l = rng.choose(INDENTS).to_vec();
    l.extend_from_slice(key);
    let separators = match rng.below(100) {
        0..=79 => COLONS,
        80..=91 => BLANKS,
        _ => ODD_SEPARATORS,
    };
    l.extend_from_slice(rng.choose(separators));
    l.extend_from_slice(value);
    l.extend_from_slice(rng.choose(TRAILING));
    if rng.chance(12) {
        l.extend_from_slice(rng.choose(COMMENTS));
    }
    l
}

pub fn user_agent_line(rng: &mut Rng) -> Vec<u8> {
    let key = key(rng, UA_KEYS);
    let value = if rng.chance(20) {
        b"*"
    } else {
        rng.choose(UA_VALUES)
    };
    line(rng, key, value)
}

pub fn rule_line(rng: &mut Rng) -> Vec<u8> {
    rule_line_among(rng, &mut Vec::new())
}

/// A rule line whose pattern is often a near copy of one of the body's earlier
/// `patterns` (which it joins): ties and near ties in priority are where
/// longest-match and first-line bugs live.
fn rule_line_among(rng: &mut Rng, patterns: &mut Vec<Vec<u8>>) -> Vec<u8> {
    let key = if rng.chance(45) {
        key(rng, ALLOW_KEYS)
    } else {
        key(rng, DISALLOW_KEYS)
    };
    let value = if !patterns.is_empty() && rng.chance(35) {
        let earlier = rng.pick(patterns).clone();
        sibling(rng, &earlier)
    } else {
        pattern(rng)
    };
    patterns.push(value.clone());
    line(rng, key, &value)
}

/// A pattern of about the same priority as `p`: the same, a byte made `*`,
/// `*` or `$` added or dropped, cut short, its directory plus `index.htm(l)`,
/// a non-ASCII byte written as its escape.
fn sibling(rng: &mut Rng, p: &[u8]) -> Vec<u8> {
    let mut s = p.to_vec();
    match rng.below(8) {
        0 | 1 => {}
        2 => {
            if !s.is_empty() {
                let at = rng.below(s.len());
                s[at] = b'*';
            }
        }
        3 => s.push(rng.choose(b"*$")),
        4 => {
            if let Some(last) = s.pop() {
                if last != b'$' {
                    s.push(b'$');
                }
            }
        }
        5 => s.truncate(rng.below(s.len() + 1)),
        6 => {
            s.truncate(s.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1));
            s.extend_from_slice(rng.choose(&[&b"index.htm"[..], b"index.html", b"/index.htm"]));
        }
        _ => {
            s = s
                .iter()
                .flat_map(|b| {
                    if *b >= 0x80 {
                        format!("%{b:02X}").into_bytes()
                    } else {
                        vec![*b]
                    }
                })
                .collect();
        }
    }
    s
}

/// A line that must not end a run of user-agent lines: sitemap, crawl-delay,
/// unknown keys, comments, blanks, junk.
pub fn other_line(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(50) {
        let key = rng.choose(OTHER_KEYS);
        let value = rng.choose(&[&b"https://example.com/sitemap.xml"[..], b"10", b"/x", b""]);
        line(rng, key, value)
    } else {
        rng.choose(JUNK_LINES).to_vec()
    }
}

/// Any line of the grammar, for mutations that insert one.
pub fn any_line(rng: &mut Rng) -> Vec<u8> {
    match rng.below(10) {
        0..=2 => user_agent_line(rng),
        3..=7 => rule_line(rng),
        8 => other_line(rng),
        _ => long_line(rng),
    }
}

/// A rule or user-agent line within a few bytes of robots.cc's 16,663-byte line
/// cut, its end (an anchor, a distinctive tail, a two-byte character) near the cut.
/// A `*` only near the end: robots.cc's matcher takes time pattern length after
/// the first `*` times path length, and the URLs aimed at this rule are as long.
pub fn long_line(rng: &mut Rng) -> Vec<u8> {
    let target = 16_663 + rng.range(0, 6) - 3;
    let head: &[u8] = rng.choose(&[
        &b"Disallow: /"[..],
        b"Allow: /",
        b"disallow:/",
        b"User-agent: ",
        b"Allow: /a",
    ]);
    let tail: &[u8] = rng.choose(&[
        &b"/tail"[..],
        b"$",
        b"/index.html",
        b"*x",
        b"xyz",
        b"\xc3\xa9",
        b"%e3",
        b"Bot",
        b" # c",
    ]);
    let fill: &[u8] = rng.choose(&[&b"a"[..], b"ab/", b"Foo"]);
    let mut l = head.to_vec();
    while l.len() + tail.len() < target {
        l.push(fill[l.len() % fill.len()]);
    }
    l.extend_from_slice(tail);
    l.truncate(target);
    l
}

/// How lines end in one body.
fn eol(rng: &mut Rng, style: usize) -> &'static [u8] {
    const EOLS: [&[u8]; 5] = [b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r"];
    match style {
        0..=2 => EOLS[style],
        _ => rng.choose(&EOLS),
    }
}

/// One group: a run of user-agent lines (with lines that do not end the run),
/// then rules (with other lines among them).
fn group(rng: &mut Rng, lines: &mut Vec<Vec<u8>>, patterns: &mut Vec<Vec<u8>>) {
    let agents = if rng.chance(8) { 0 } else { rng.range(1, 3) };
    for i in 0..agents {
        if i > 0 && rng.chance(15) {
            lines.push(other_line(rng));
        }
        lines.push(user_agent_line(rng));
    }
    for _ in 0..rng.range(0, 6) {
        if rng.chance(10) {
            lines.push(other_line(rng));
        }
        lines.push(rule_line_among(rng, patterns));
    }
}

/// The lines of a body of a few groups.
fn lines(rng: &mut Rng) -> Vec<Vec<u8>> {
    let (mut lines, mut patterns) = (Vec::new(), Vec::new());
    if rng.chance(15) {
        for _ in 0..rng.range(1, 2) {
            lines.push(rule_line_among(rng, &mut patterns));
        }
    }
    for _ in 0..rng.range(1, 5) {
        group(rng, &mut lines, &mut patterns);
    }
    if rng.chance(20) {
        lines.push(other_line(rng));
    }
    if rng.chance(6) {
        let at = rng.below(lines.len() + 1);
        lines.insert(at, long_line(rng));
    }
    for line in &mut lines {
        if rng.chance(2) {
            let at = rng.below(line.len() + 1);
            line.insert(at, 0);
        }
    }
    lines
}

/// A UTF-8 BOM, whole or cut, sometimes none; robots.cc skips only a prefix of
/// it at the very start.
fn bom(rng: &mut Rng) -> &'static [u8] {
    if rng.chance(85) {
        return b"";
    }
    rng.choose(&[
        &b"\xef\xbb\xbf"[..],
        b"\xef\xbb",
        b"\xef",
        b"\xef\xbb\xbf\xef\xbb\xbf",
        b"\xff\xfe",
        b"\xbb\xbf",
    ])
}

fn join(rng: &mut Rng, lines: &[Vec<u8>], body: &mut Vec<u8>) {
    let style = rng.below(5);
    for (i, line) in lines.iter().enumerate() {
        body.extend_from_slice(line);
        if i + 1 < lines.len() || rng.chance(80) {
            body.extend_from_slice(eol(rng, style));
        }
    }
}

/// A body of a few groups.
pub fn body(rng: &mut Rng) -> Generated {
    let mut body = bom(rng).to_vec();
    let lines = lines(rng);
    join(rng, &lines, &mut body);
    Generated {
        body,
        aims: Vec::new(),
    }
}

/// A body longer than Google's 512,000-byte cut, the cut falling inside a
/// generated line: `head`, filler (comments and rules) up to that line, the line,
/// then more lines that neither parser may see.
pub fn across_the_cut(rng: &mut Rng, head: Vec<u8>) -> Generated {
    const CAP: usize = 512_000;
    let mut body = head;
    body.truncate(CAP / 2);
    let straddler = if rng.chance(30) {
        user_agent_line(rng)
    } else {
        rule_line(rng)
    };
    // The cut may fall anywhere in the line or its end of line (between CR and LF).
    let eol = eol(rng, 3);
    let inside = rng.below(straddler.len() + eol.len() + 1);
    let block: Vec<u8> = [
        &b"# filler: a comment line to reach the cut\n"[..],
        b"Disallow: /filler/zz\n",
        b"Allow: /filler/zz/ok\n",
    ]
    .concat();
    let start = CAP - inside;
    while body.len() + block.len() + 2 < start {
        body.extend_from_slice(&block);
    }
    // One comment line brings the body to exactly `start` (it needs 2 bytes).
    let rest = start - body.len();
    if rest >= 2 {
        body.push(b'#');
        body.resize(start - 1, b'c');
        body.push(b'\n');
    } else {
        body.resize(start, b'\n');
    }
    let aims = vec![value_of(&straddler)];
    body.extend_from_slice(&straddler);
    body.extend_from_slice(eol);
    let tail = lines(rng);
    join(rng, &tail, &mut body);
    Generated { body, aims }
}

/// The value part of a generated `key: value` line (after the first ':' or blank).
fn value_of(line: &[u8]) -> Vec<u8> {
    let at = line
        .iter()
        .position(|b| *b == b':')
        .or_else(|| line.iter().position(|b| *b == b' ' || *b == b'\t'));
    at.map_or_else(Vec::new, |i| line[i + 1..].trim_ascii().to_vec())
}
