//! robots-parser 3.0.1 (npm, by Sam Clarke), the parser under the Browsertrix crawler
//! (`src/util/robots.ts`) and Crawlee (`@crawlee/utils` `RobotsTxtFile`).
//!
//! Follows `Robots.js` of the published 3.0.1 package line by line: `parseRobots`,
//! `removeComments`, `splitLine`, `trimLine`, `formatUserAgent`, `normaliseEncoding`,
//! `urlEncodeToUpper`, `matches`, `findRule`, `parseUrl`, `Robots.prototype._getRule`,
//! `isAllowed`, `getMatchingLineNumber` and `getCrawlDelay`. Its own `test/Robots.js` was
//! read for behaviours. What this family does that most parsers do not:
//!
//! * **No groups, only agent keys.** `parseRobots` keeps a list of "current" user-agents;
//!   a `User-agent` line clears it only when the previous *keyed* line was not a
//!   `User-agent` line (`isNoneUserAgentState`). Every Allow/Disallow/Crawl-delay is
//!   appended to *every* current agent's list (`addRule`), so duplicate groups for one agent
//!   merge in file order. Blank lines, comment-only lines and lines without `:` are
//!   skipped *without* touching that state: `User-agent: a`, blank, `User-agent: b` stacks
//!   a and b. Any other keyed line (Sitemap, Host, unknown keys, even `Disallow:` with
//!   empty value) ends the stacking.
//! * **An agent "has a group" only once a rule or crawl-delay line was filed under it**
//!   (`addRule`/`setCrawlDelay` create `rules[ua]`, even for an empty `Disallow:` or an
//!   invalid delay); a `User-agent` line alone creates nothing, so such an agent falls back
//!   to `*`.
//! * **Agent matching is exact equality** of `formatUserAgent` forms: lower-cased, cut at
//!   the first `/`, trimmed — applied both to file lines and to the caller's agent.
//!   `Googlebot-News` does not read the `googlebot` group; `Mozilla/5.0 (compatible;
//!   GPTBot/1.0)` becomes `mozilla`. An empty caller agent means `*` (`ua || '*'`).
//!   Whole-agent fallback is to the `*` key only.
//! * **Rules before any user-agent are dropped** (the current-agent list is empty).
//! * **Lines** split on `\r\n`, `\r` or `\n`; the comment is cut at the first `#` before
//!   the line is split at its first `:`; key and value are trimmed with JavaScript's
//!   `String.prototype.trim` (which removes U+FEFF, so a BOM before the first key is
//!   harmless whether or not the caller stripped it, and does not remove U+0085).
//!   Line numbers are 1-based indexes in that split.
//! * **Escaping.** Rule values go through `encodeURI` with `%` left alone, then every
//!   `%xx` is upper-cased (`normaliseEncoding`). The URL is parsed with the WHATWG URL
//!   parser (here the `url` crate, which implements the same standard) against the base
//!   `http://robots-relative.samclarke.com/`; its `pathname + search` is only `%xx`
//!   upper-cased — never decoded and never re-encoded with `encodeURI`. So `Disallow:
//!   /a|b` (pattern `/a%7Cb`) does not block `/a|b` (WHATWG leaves `|` raw), and
//!   `/%7e` in a rule never matches `/~` in a URL. `?` alone gives an empty `search`,
//!   the fragment is dropped, dot segments (also `%2e`) are resolved.
//! * **Matching** (`matches`, a port of robots.cc's): `*` anywhere, `$` only as the last
//!   pattern character (elsewhere literal); prefix match otherwise; case-sensitive.
//!   **Precedence** (`findRule`): the longest pattern (in its escaped form) wins; on equal
//!   length Allow beats Disallow; among equals the earliest line wins.
//! * **Crawl-delay** is JavaScript `Number(value)`: empty value gives 0, hex `0x10` gives 16,
//!   `Infinity` is accepted, `5s` is NaN and ignored (but still creates the agent's entry);
//!   a later valid value overwrites. No fallback to `*` when the agent has an entry without
//!   a delay.
//!
//! **Outside the library's own answers.** `_getRule` returns `undefined` (so `isAllowed`
//! returns `undefined`) when the URL does not parse, or when its protocol/hostname/port
//! differ from the robots.txt URL's. `answer` assumes the file is the URL's own origin's
//! robots.txt, so the second case only remains for URLs whose origin cannot have a
//! robots.txt of the same protocol: schemes other than the WHATWG special, non-`file`
//! ones (http, https, ws, wss, ftp), e.g. `mailto:`, `blob:`, `file:`. For those and for
//! unparsable URLs this profile answers allowed, no rule, `Scope::None`: that is what
//! Crawlee's `RobotsTxtFile.isAllowed` does (`this.robots.isAllowed(url, userAgent) ??
//! true`). Browsertrix asks `isDisallowed` (`!isAllowed`, so `undefined` would mean
//! disallowed) but builds the robots URL from `new URL(url).origin`, which makes the check
//! pass for every http(s) URL it crawls. Relative URL strings are resolved against the
//! library's base host, exactly as the library does (the check then passes).
//! Browsertrix also decodes at most the first 100,000 bytes of the body; that cap is the
//! caller's concern, not this parser's.
//!
//! **Known differences from the JavaScript**: lower-casing of agents uses Rust's Unicode
//! tables, not V8's (identical for all but characters new in one Unicode version); host
//! parsing (IDNA) is the `url` crate's, which only matters for whether a URL parses at all.
use super::common::Answer;
use super::family::{Document, Family, Selection};
use crate::model::lossy_text;
use crate::{RuleKind, Scope};

use std::collections::HashMap;

/// The base URL `parseUrl` in Robots.js resolves relative URLs against.
const RELATIVE_BASE: &str = "http://robots-relative.samclarke.com/";

/// One Allow/Disallow line, as `addRule` stores it.
#[derive(Debug, Clone)]
struct Rule {
    /// `normaliseEncoding(value)`: always ASCII (encodeURI escapes all non-ASCII).
    pattern: String,
    allow: bool,
    /// 1-based line number (`i + 1` in `parseRobots`).
    line: u32,
}

/// What `this._rules[userAgent]` holds: the rule list (as indices into the shared rule
/// vector) and the `crawlDelay` property set on that array.
#[derive(Debug, Clone, Default)]
struct AgentEntry {
    rules: Vec<u32>,
    crawl_delay: Option<f64>,
}

/// The file as robots-parser 3.0.1 reads it: built once per body, then asked any number of
/// questions.
pub(super) struct RobotsParserRobots {
    rules: Vec<Rule>,
    /// Keyed by `formatUserAgent(value)` of the file's user-agent lines.
    agents: HashMap<String, AgentEntry>,
    base: Option<url::Url>,
}

/// JavaScript `WhiteSpace` and `LineTerminator` code points: what `String.prototype.trim`
/// removes (ECMA-262 TrimString). Unlike `char::is_whitespace`: includes U+FEFF, excludes
/// U+0085.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `formatUserAgent`: lower-case, cut at the first `/`, trim.
fn format_user_agent(ua: &str) -> String {
    // Lower-casing never creates or removes '/', so cutting first is equivalent.
    let cut = match ua.find('/') {
        Some(i) => &ua[..i],
        None => ua,
    };
    let lower = if cut.is_ascii() {
        cut.to_ascii_lowercase()
    } else {
        cut.to_lowercase()
    };
    let trimmed = js_trim(&lower);
    if trimmed.len() == lower.len() {
        lower
    } else {
        trimmed.to_string()
    }
}

/// Characters `encodeURI` leaves alone (uriReserved, uriUnescaped and `#`), plus `%`,
/// which `normaliseEncoding` restores with `.replace(/%25/g, '%')`.
fn keep_in_encode_uri(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'_'
                | b'.'
                | b'!'
                | b'~'
                | b'*'
                | b'\''
                | b'('
                | b')'
                | b';'
                | b'/'
                | b'?'
                | b':'
                | b'@'
                | b'&'
                | b'='
                | b'+'
                | b'$'
                | b','
                | b'#'
                | b'%'
        )
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// `normaliseEncoding`: `urlEncodeToUpper(encodeURI(path).replace(/%25/g, '%'))`.
/// encodeURI only throws on lone surrogates, which a Rust `&str` cannot hold.
fn normalise_encoding(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    for &b in path.as_bytes() {
        if keep_in_encode_uri(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX_UPPER[(b >> 4) as usize] as char);
            out.push(HEX_UPPER[(b & 15) as usize] as char);
        }
    }
    url_encode_to_upper_in_place(&mut out);
    out
}

/// `urlEncodeToUpper`: `path.replace(/%[0-9a-fA-F]{2}/g, m => m.toUpperCase())`, scanning
/// left to right without overlap exactly as a global regex replace does.
fn url_encode_to_upper_in_place(s: &mut String) {
    let mut i = 0;
    while i + 2 < s.len() {
        let b = s.as_bytes();
        if b[i] == b'%' && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() {
            // Both are ASCII, so i+1..i+3 lies on char boundaries.
            s[i + 1..i + 3].make_ascii_uppercase();
            i += 3;
        } else {
            i += 1;
        }
    }
}

/// JavaScript `Number(str)` (ECMA-262 StringToNumber), as `setCrawlDelay` applies it.
/// Returns NaN for anything that is not a StringNumericLiteral.
fn js_number(s: &str) -> f64 {
    let s = js_trim(s);
    if s.is_empty() {
        return 0.0;
    }
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        let radix = match b[1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            b'b' | b'B' => 2,
            _ => 0,
        };
        if radix != 0 {
            let digits = &s[2..];
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            let digits = digits.trim_start_matches('0');
            // Exact (correctly rounded) while the value fits 128 bits; beyond that (a
            // crawl-delay above 3.4e38 s) plain accumulation, possibly 1 ulp off.
            let mut acc: u128 = 0;
            let mut approx: f64 = 0.0;
            let mut exact = true;
            for c in digits.chars() {
                let d = c.to_digit(radix).unwrap_or(0);
                approx = approx * radix as f64 + d as f64;
                if exact {
                    match acc
                        .checked_mul(radix as u128)
                        .and_then(|v| v.checked_add(d as u128))
                    {
                        Some(v) => acc = v,
                        None => exact = false,
                    }
                }
            }
            return if exact { acc as f64 } else { approx };
        }
    }
    match s {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    // StrDecimalLiteral: [+-] (digits [. digits?] | . digits) [(e|E) [+-] digits]
    let mut i = 0;
    if b[0] == b'+' || b[0] == b'-' {
        i = 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut n_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        n_digits += i - frac_start;
    }
    if n_digits == 0 {
        return f64::NAN;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return f64::NAN;
        }
    }
    if i != b.len() {
        return f64::NAN;
    }
    // Validated above; Rust's parser accepts this grammar and rounds correctly.
    s.parse::<f64>().unwrap_or(f64::NAN)
}

/// `matches(pattern, path)` of Robots.js (a port of robots.cc's matcher). `lengths` is a
/// scratch buffer reused across calls. Both strings are ASCII here, so bytes are UTF-16
/// code units.
fn matches(pattern: &[u8], path: &[u8], lengths: &mut Vec<usize>) -> bool {
    lengths.clear();
    lengths.resize(path.len() + 1, 0);
    let mut num = 1usize;
    lengths[0] = 0;
    for p in 0..pattern.len() {
        let pc = pattern[p];
        // `$` is special only as the last pattern character.
        if pc == b'$' && p + 1 == pattern.len() {
            return lengths[num - 1] == path.len();
        }
        if pc == b'*' {
            num = path.len() - lengths[0] + 1;
            for i in 1..num {
                lengths[i] = lengths[i - 1] + 1;
            }
        } else {
            let mut num_matches = 0;
            for i in 0..num {
                let l = lengths[i];
                if l < path.len() && path[l] == pc {
                    lengths[num_matches] = l + 1;
                    num_matches += 1;
                }
            }
            if num_matches == 0 {
                return false;
            }
            num = num_matches;
        }
    }
    true
}

/// Special schemes (WHATWG) other than `file`: the only ones whose `origin` is a tuple, so
/// the robots.txt URL built from it has the same protocol/hostname/port as the URL and
/// `_getRule`'s same-origin check passes.
fn origin_has_robots(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp")
}

impl RobotsParserRobots {
    /// `text`: the body as the family's fetch path decodes it (UTF-8 with replacement
    /// characters, as fetch's `response.text()` / `TextDecoder` does). A leading BOM may be
    /// present or not: the library's `trim` removes it either way.
    pub(super) fn parse(text: &str) -> Self {
        let mut rules: Vec<Rule> = Vec::new();
        let mut agents: HashMap<String, AgentEntry> = HashMap::new();
        let mut current: Vec<String> = Vec::new();
        let mut none_user_agent_state = true;

        let bytes = text.as_bytes();
        let mut start = 0usize;
        let mut line_no: u32 = 0;
        loop {
            // contents.split(/\r\n|\r|\n/)
            let (end, next) = match memchr::memchr2(b'\r', b'\n', &bytes[start..]) {
                Some(off) => {
                    let e = start + off;
                    if bytes[e] == b'\r' && bytes.get(e + 1) == Some(&b'\n') {
                        (e, e + 2)
                    } else {
                        (e, e + 1)
                    }
                }
                None => (bytes.len(), usize::MAX),
            };
            line_no = line_no.saturating_add(1);
            let raw = &text[start..end];
            Self::parse_line(
                raw,
                line_no,
                &mut rules,
                &mut agents,
                &mut current,
                &mut none_user_agent_state,
            );
            if next == usize::MAX {
                break;
            }
            start = next;
        }

        RobotsParserRobots {
            rules,
            agents,
            base: url::Url::parse(RELATIVE_BASE).ok(),
        }
    }

    fn parse_line(
        raw: &str,
        line_no: u32,
        rules: &mut Vec<Rule>,
        agents: &mut HashMap<String, AgentEntry>,
        current: &mut Vec<String>,
        none_user_agent_state: &mut bool,
    ) {
        // removeComments: cut at the first '#'.
        let line = match raw.find('#') {
            Some(i) => &raw[..i],
            None => raw,
        };
        // splitLine: null for an empty line or one without ':'.
        let colon = match line.find(':') {
            Some(i) if !line.is_empty() => i,
            _ => return,
        };
        // trimLine on both halves; `if (!line || !line[0]) continue;` skips an empty key
        // *before* isNoneUserAgentState is updated.
        let key = js_trim(&line[..colon]);
        let value = js_trim(&line[colon + 1..]);
        if key.is_empty() {
            return;
        }
        // `line[0].toLowerCase()` compared with ASCII names: no non-ASCII character
        // lower-cases to a letter of these names (U+212A KELVIN SIGN gives 'k', absent
        // from all of them), so an ASCII case-insensitive compare is exact.
        let is_ua = key.eq_ignore_ascii_case("user-agent");
        if is_ua {
            if *none_user_agent_state {
                current.clear();
            }
            if !value.is_empty() {
                let ua = format_user_agent(value);
                if !current.contains(&ua) {
                    // A duplicate would only file each rule twice; findRule's answer is
                    // unchanged by identical duplicates.
                    current.push(ua);
                }
            }
        } else if key.eq_ignore_ascii_case("disallow") || key.eq_ignore_ascii_case("allow") {
            let allow = key.len() == 5;
            // addRule: every current agent gets an entry even when the value is empty.
            let idx = if value.is_empty() || current.is_empty() {
                None
            } else {
                rules.push(Rule {
                    pattern: normalise_encoding(value),
                    allow,
                    line: line_no,
                });
                Some((rules.len() - 1) as u32)
            };
            for ua in current.iter() {
                let entry = agents.entry(ua.clone()).or_default();
                if let Some(i) = idx {
                    entry.rules.push(i);
                }
            }
        } else if key.eq_ignore_ascii_case("crawl-delay") {
            // setCrawlDelay: Number(null) is 0, so an empty value sets 0; NaN is skipped
            // but the entry is still created.
            let delay = js_number(value);
            for ua in current.iter() {
                let entry = agents.entry(ua.clone()).or_default();
                if !delay.is_nan() {
                    entry.crawl_delay = Some(delay);
                }
            }
        }
        // Sitemap and Host only feed getSitemaps/getPreferredHost; every keyed line other
        // than User-agent (known or not) ends user-agent stacking.
        *none_user_agent_state = !is_ua;
    }

    /// `this._rules[userAgent] || this._rules['*']` with the scope it stands for.
    fn entry_for(&self, agent: &str) -> (Option<&AgentEntry>, Scope) {
        // `formatUserAgent(ua || '*')`
        let ua = format_user_agent(if agent.is_empty() { "*" } else { agent });
        if let Some(e) = self.agents.get(ua.as_str()) {
            let scope = if ua == "*" { Scope::Star } else { Scope::Named };
            return (Some(e), scope);
        }
        match self.agents.get("*") {
            Some(e) => (Some(e), Scope::Star),
            None => (None, Scope::None),
        }
    }

    /// Which entry answers `agent` (its address; 0: none): agents with the same one get
    /// the same answers.
    pub(super) fn selection_id(&self, agent: &str) -> usize {
        self.entry_for(agent)
            .0
            .map_or(0, |entry| std::ptr::from_ref(entry) as usize)
    }

    /// May `agent` fetch `url`? `isAllowed(url, agent)` with the robots.txt URL taken to
    /// be `url`'s own origin's; `line` is `getMatchingLineNumber` (its -1 is 0 here).
    pub(super) fn answer(&self, agent: &str, url: &str) -> Answer {
        let Some(path) = self.request_path(url) else {
            // `_getRule` returns undefined; see the module doc (Crawlee: `?? true`).
            return Answer::no_rule(Scope::None);
        };
        let (entry, scope) = self.entry_for(agent);
        match entry.and_then(|e| self.find_rule(e, &path)) {
            Some(r) => Answer::decided(RuleKind::of(r.allow), r.line, r.pattern.clone(), scope),
            None => Answer::no_rule(scope),
        }
    }

    /// What `isAllowed` matches the rules against: `urlEncodeToUpper(pathname + search)`
    /// of `url`, or none when robots-parser answers without a rule whatever the file says
    /// (a URL it cannot parse, a scheme with no robots.txt). The same for every agent, so
    /// a caller asking many agents about one URL computes it once.
    pub(super) fn request_path(&self, url: &str) -> Option<String> {
        // parseUrl: new URL(url, 'http://robots-relative.samclarke.com/')
        let parsed = url::Url::options()
            .base_url(self.base.as_ref())
            .parse(url)
            .ok()?;
        if !origin_has_robots(parsed.scheme()) {
            return None;
        }
        // urlEncodeToUpper(parsedUrl.pathname + parsedUrl.search); `search` is "" for an
        // empty query.
        let mut path = String::with_capacity(url.len() + 1);
        path.push_str(parsed.path());
        if let Some(q) = parsed.query() {
            if !q.is_empty() {
                path.push('?');
                path.push_str(q);
            }
        }
        url_encode_to_upper_in_place(&mut path);
        Some(path)
    }

    /// `isAllowed` for every path of `paths` ([`RobotsParserRobots::request_path`]s),
    /// the entry chosen once for `agent`.
    pub(super) fn allowed_paths<'p>(
        &'p self,
        agent: &str,
        paths: impl IntoIterator<Item = &'p Option<String>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        let entry = self.entry_for(agent).0;
        paths.into_iter().map(move |path| match (entry, path) {
            (Some(entry), Some(path)) => self.find_rule(entry, path).is_none_or(|r| r.allow),
            _ => true,
        })
    }

    /// findRule: the longest matching pattern of `entry`; on equal length Allow over
    /// Disallow, else the first.
    fn find_rule(&self, entry: &AgentEntry, path: &str) -> Option<&Rule> {
        let mut lengths: Vec<usize> = Vec::with_capacity(path.len() + 1);
        let mut best: Option<&Rule> = None;
        for &i in &entry.rules {
            let rule = match self.rules.get(i as usize) {
                Some(r) => r,
                None => continue,
            };
            if !matches(rule.pattern.as_bytes(), path.as_bytes(), &mut lengths) {
                continue;
            }
            best = match best {
                None => Some(rule),
                Some(m) if rule.pattern.len() > m.pattern.len() => Some(rule),
                Some(m) if rule.pattern.len() == m.pattern.len() && rule.allow && !m.allow => {
                    Some(rule)
                }
                keep => keep,
            };
        }
        best
    }

    /// The crawl-delay in seconds robots-parser gives `agent` (`getCrawlDelay`): the
    /// agent's own entry's last valid delay, else (only when the agent has no entry at all)
    /// the `*` entry's. May be 0, negative or infinite, as JavaScript `Number` parsed it.
    pub(super) fn crawl_delay(&self, agent: &str) -> Option<f64> {
        self.entry_for(agent).0.and_then(|e| e.crawl_delay)
    }
}

impl Family for RobotsParserRobots {
    const NAME: &'static str = "robots-parser";
    const HOW_IT_DIFFERS: &'static str =
        "exact agent name cut at '/'; rules escaped with encodeURI";
    const READS_CRAWL_DELAY: bool = true;
    type Path = Option<String>;

    fn read(doc: Document<'_, '_>) -> Self {
        // fetch's `Response.text()`: UTF-8 with U+FFFD for invalid sequences.
        RobotsParserRobots::parse(&lossy_text(doc.body))
    }

    fn answer(&self, _doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        RobotsParserRobots::answer(self, agent, url)
    }

    fn crawl_delay(&self, _doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        RobotsParserRobots::crawl_delay(self, agent)
    }

    fn selection(&self, _doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        Some(Selection::One(self.selection_id(agent)))
    }

    fn request_path(&self, url: &str) -> Option<String> {
        RobotsParserRobots::request_path(self, url)
    }

    fn allowed_paths<'p>(
        &'p self,
        _doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p Option<String>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        RobotsParserRobots::allowed_paths(self, agent, paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ans(body: &str, agent: &str, url: &str) -> Answer {
        RobotsParserRobots::parse(body).answer(agent, url)
    }

    // test/Robots.js "should return the line number of the matching directive".
    #[test]
    fn line_numbers_follow_library_test() {
        let body = "\nUser-agent: *\n\nDisallow: /fish/\nDisallow: /test.html\nAllow: /fish/test.html\nAllow: /test.html\n\nUser-agent: a\nallow: /\n\nUser-agent: b\ndisallow: /test\ndisallow: /t*t\n\nUser-agent: c\nDisallow: /fish*.php\nAllow: /fish/index.php";
        let r = RobotsParserRobots::parse(body);
        let u = |p: &str| format!("http://www.example.com{p}");
        assert_eq!(r.answer("", &u("/fish")).line, 0);
        assert_eq!(r.answer("", &u("/fish/test.html")).line, 6);
        assert_eq!(r.answer("", &u("/Test.html")).line, 0);
        assert_eq!(r.answer("", &u("/fish/index.php")).line, 4);
        assert_eq!(r.answer("", &u("/fish/")).line, 4);
        assert_eq!(r.answer("", &u("/test.html")).line, 7);
        assert_eq!(r.answer("a", &u("/test.html")).line, 10);
        assert_eq!(r.answer("c", &u("/fish.php")).line, 17);
        assert_eq!(r.answer("c", &u("/fish/index.php")).line, 18);
    }

    // parseRobots: blank lines do not touch isNoneUserAgentState, so agents stack across them.
    #[test]
    fn blank_line_does_not_end_user_agent_stack() {
        let body = "User-agent: a\n\nUser-agent: b\nDisallow: /x\n";
        assert!(!ans(body, "a", "https://e.com/x").allowed);
        assert!(!ans(body, "b", "https://e.com/x").allowed);
    }

    // parseRobots: any keyed non-User-agent line (even unknown) ends the stack.
    #[test]
    fn unknown_directive_ends_user_agent_stack() {
        let body = "User-agent: a\nFoo: bar\nUser-agent: b\nDisallow: /x\n";
        let a = ans(body, "a", "https://e.com/x");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::None);
        assert!(!ans(body, "b", "https://e.com/x").allowed);
    }

    // addRule appends to every current agent's list: duplicate groups merge.
    #[test]
    fn duplicate_groups_merge() {
        let body = "User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: A\nAllow: /x/ok\n";
        let r = RobotsParserRobots::parse(body);
        assert!(!r.answer("a", "https://e.com/x/no").allowed);
        let ok = r.answer("a", "https://e.com/x/ok");
        assert!(ok.allowed);
        assert_eq!(ok.line, 8);
    }

    // formatUserAgent: exact equality after lower-case / cut at '/' / trim; no prefixes.
    #[test]
    fn agent_match_is_exact_after_format() {
        let body = "User-agent: Googlebot/2.1\nDisallow: /g\n\nUser-agent: *\nDisallow: /s\n";
        let r = RobotsParserRobots::parse(body);
        assert_eq!(r.answer("GOOGLEBOT", "https://e.com/g").scope, Scope::Named);
        assert!(!r.answer("googlebot/9 (x)", "https://e.com/g").allowed);
        let news = r.answer("Googlebot-News", "https://e.com/g");
        assert!(news.allowed);
        assert_eq!(news.scope, Scope::Star);
        let moz = r.answer("Mozilla/5.0 (compatible; Googlebot/2.1)", "https://e.com/s");
        assert_eq!(moz.scope, Scope::Star);
        assert!(!moz.allowed);
    }

    // `formatUserAgent(ua || '*')`: empty agent is '*'.
    #[test]
    fn empty_agent_is_star() {
        let body = "User-agent: *\nDisallow: /\n";
        let a = ans(body, "", "https://e.com/x");
        assert!(!a.allowed);
        assert_eq!(a.scope, Scope::Star);
    }

    // addRule/setCrawlDelay create the entry; a bare User-agent line does not.
    #[test]
    fn agent_without_rules_falls_back_to_star() {
        let body = "User-agent: b\n\nUser-agent: *\nDisallow: /x\n";
        // b stacks with * here (blank line), so use Sitemap to separate.
        let body2 = "User-agent: b\nSitemap: /s.xml\nUser-agent: *\nDisallow: /x\n";
        assert!(!ans(body, "b", "https://e.com/x").allowed);
        let a = ans(body2, "b", "https://e.com/x");
        assert!(!a.allowed);
        assert_eq!(a.scope, Scope::Star);
        // Empty Disallow creates b's entry: b no longer falls back.
        let body3 = "User-agent: b\nDisallow:\nUser-agent: *\nDisallow: /x\n";
        let a = ans(body3, "b", "https://e.com/x");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::Named);
    }

    // test/Robots.js "should ignore rules that are not in a group".
    #[test]
    fn rules_before_user_agent_are_dropped() {
        let a = ans("Disallow: /secret.html\n", "", "https://e.com/secret.html");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::None);
    }

    // test/Robots.js "should ignore empty user-agent lines": `User-agent:` clears the list.
    #[test]
    fn empty_user_agent_line_clears_group() {
        let body = "User-agent: *\nDisallow: /a\nUser-agent:\nDisallow: /b\n";
        assert!(!ans(body, "*", "https://e.com/a").allowed);
        assert!(ans(body, "*", "https://e.com/b").allowed);
    }

    // parseRobots: split on /\r\n|\r|\n/; line numbers count that way.
    #[test]
    fn cr_crlf_lf_line_ends() {
        let body = "User-agent: *\rDisallow: /a\r\nDisallow: /b\nDisallow: /c";
        let r = RobotsParserRobots::parse(body);
        assert_eq!(r.answer("x", "https://e.com/a").line, 2);
        assert_eq!(r.answer("x", "https://e.com/b").line, 3);
        assert_eq!(r.answer("x", "https://e.com/c").line, 4);
    }

    // removeComments runs before splitLine; trimLine uses JS trim, which removes a BOM.
    #[test]
    fn comments_and_bom() {
        let body = "\u{feff}User-agent: * # all\nDisallow: /a#b\n# Disallow: /c\n";
        let r = RobotsParserRobots::parse(body);
        let a = r.answer("x", "https://e.com/a/z");
        assert!(!a.allowed);
        assert_eq!(a.pattern.as_deref(), Some("/a"));
        assert!(r.answer("x", "https://e.com/c").allowed);
    }

    // findRule: longest wins; equal length, Allow wins.
    #[test]
    fn precedence_longest_then_allow() {
        let body = "User-agent: *\nDisallow: /page\nAllow: /pag*\nAllow: /p\n";
        let a = ans(body, "x", "https://e.com/page");
        assert!(a.allowed);
        assert_eq!(a.line, 3);
        let body = "User-agent: *\nAllow: /p\nDisallow: /page/\n";
        assert!(!ans(body, "x", "https://e.com/page/x").allowed);
    }

    // matches: '$' only at the end; '*' anywhere; '$' elsewhere literal.
    #[test]
    fn wildcard_and_dollar() {
        let body = "User-agent: *\nDisallow: /*.php$\nDisallow: /a$b\n";
        let r = RobotsParserRobots::parse(body);
        assert!(!r.answer("x", "https://e.com/x/y.php").allowed);
        assert!(r.answer("x", "https://e.com/x/y.php?q").allowed);
        assert!(!r.answer("x", "https://e.com/a$b").allowed);
        assert!(r.answer("x", "https://e.com/ab").allowed);
    }

    // normaliseEncoding vs. URL side (only urlEncodeToUpper): test/Robots.js "should handle
    // Unicode and urlencoded paths".
    #[test]
    fn percent_encoding_both_sides() {
        let body =
            "User-agent: *\nDisallow: /%e2%9d%83\nDisallow: /π\nDisallow: /%a%a\nDisallow: /a|b\n";
        let r = RobotsParserRobots::parse(body);
        assert!(!r.answer("x", "http://e.com/❃").allowed);
        assert!(!r.answer("x", "http://e.com/%e2%9d%83/x").allowed);
        assert!(!r.answer("x", "http://e.com/%CF%80").allowed);
        assert!(!r.answer("x", "http://e.com/%a%a").allowed);
        // pattern is /a%7Cb; WHATWG leaves '|' raw in the path.
        assert!(r.answer("x", "http://e.com/a|b").allowed);
        assert!(!r.answer("x", "http://e.com/a%7cb").allowed);
    }

    // parseUrl: `search` is "" for a bare '?', fragment dropped, dot segments resolved.
    #[test]
    fn url_normalisation() {
        let body = "User-agent: *\nDisallow: /a$\nDisallow: /b?\n";
        let r = RobotsParserRobots::parse(body);
        assert!(!r.answer("x", "https://e.com/a?").allowed);
        assert!(!r.answer("x", "https://e.com/a#frag").allowed);
        assert!(!r.answer("x", "https://e.com/x/%2e%2E/a").allowed);
        assert!(r.answer("x", "https://e.com/b?").allowed);
        assert!(!r.answer("x", "https://e.com/b?q").allowed);
    }

    // _getRule returns undefined for unparsable URLs and other origins; Crawlee: `?? true`.
    #[test]
    fn unparsable_or_non_http_url_is_allowed_without_rule() {
        let body = "User-agent: *\nDisallow: /\n";
        let r = RobotsParserRobots::parse(body);
        let a = r.answer("x", "http://ex ample.com/");
        assert!(a.allowed);
        assert_eq!((a.line, a.scope), (0, Scope::None));
        assert!(r.answer("x", "mailto:a@b.c").allowed);
        assert!(r.answer("x", "file:///etc").allowed);
        // relative URLs resolve against the library's own base and are answered.
        assert!(!r.answer("x", "/relative").allowed);
    }

    // setCrawlDelay: Number(); test/Robots.js "should fallback to * when a UA has no rules".
    #[test]
    fn crawl_delay_number_semantics_and_fallback() {
        let body = "user-agent: *\ncrawl-delay: 1\nuser-agent: b\ncrawl-delay: 12\nuser-agent: c\nuser-agent: d\ncrawl-delay: 10\nuser-agent: e\ncrawl-delay: 0x10\nuser-agent: f\ncrawl-delay:\nuser-agent: g\ncrawl-delay: 5s\nuser-agent: h\ndisallow:\n";
        let r = RobotsParserRobots::parse(body);
        assert_eq!(r.crawl_delay("should-fall-back/1.0"), Some(1.0));
        assert_eq!(r.crawl_delay("d/12"), Some(10.0));
        assert_eq!(r.crawl_delay("b / 1.0"), Some(12.0));
        assert_eq!(r.crawl_delay("e"), Some(16.0));
        assert_eq!(r.crawl_delay("f"), Some(0.0));
        assert_eq!(r.crawl_delay("g"), None);
        assert_eq!(r.crawl_delay("h"), None);
        assert_eq!(r.crawl_delay(""), Some(1.0));
    }

    #[test]
    fn js_number_grammar() {
        assert_eq!(js_number("5."), 5.0);
        assert_eq!(js_number(".5"), 0.5);
        assert_eq!(js_number("+.5e-1"), 0.05);
        assert_eq!(js_number("Infinity"), f64::INFINITY);
        assert!(js_number("infinity").is_nan());
        assert!(js_number("-0x10").is_nan());
        assert!(js_number(".").is_nan());
        assert!(js_number("1e").is_nan());
        assert!(js_number("1_0").is_nan());
        assert_eq!(js_number("0b101"), 5.0);
        assert_eq!(js_number("00012"), 12.0);
    }

    // parseRobots: Crawl-delay is a keyed non-User-agent line, so between two User-agent
    // lines it ends the stack (the second starts a new list).
    #[test]
    fn crawl_delay_between_user_agents_ends_stack() {
        let body = "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n";
        let r = RobotsParserRobots::parse(body);
        assert!(r.answer("a", "https://e.com/x").allowed);
        assert_eq!(r.crawl_delay("a"), Some(3.0));
        assert_eq!(r.crawl_delay("b"), None);
        assert!(!r.answer("b", "https://e.com/x").allowed);
    }

    // test/Robots.js "should handle large wildcards efficiently".
    #[test]
    fn large_wildcard_pattern() {
        let body = format!("User-agent: *\nDisallow: /{}.html\n", "*".repeat(2048));
        let r = RobotsParserRobots::parse(&body);
        let long = format!("http://e.com/{}folder/index.php", "sub".repeat(2048));
        assert!(r.answer("x", &long).allowed);
        assert!(!r.answer("x", "http://e.com/secret.html").allowed);
    }

    #[test]
    fn never_panics_on_odd_input() {
        let r =
            RobotsParserRobots::parse("\u{fffd}:\u{fffd}\n:\n::\nuser-agent:é/\ndisallow:é%\r\r\n");
        let _ = r.answer("é", "https://e.com/é%");
        let _ = r.answer("\u{2028}", "");
        let _ = r.answer("x", "%%%");
        let _ = r.crawl_delay("é");
    }
}
