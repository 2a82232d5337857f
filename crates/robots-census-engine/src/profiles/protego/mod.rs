//! Protego 0.7.0 (Scrapy's default robots.txt parser, `scrapy.robotstxt.ProtegoRobotParser`),
//! ported from the installed library's own source: `protego/_protego.py` (`Protego.parse`,
//! `_parse_robotstxt`, `_extract_directive`, `_get_matching_rule_set`, `can_fetch`,
//! `crawl_delay`), `protego/_ruleset.py` (`_RuleSet.applies_to`, `allow`, `disallow`,
//! `finalize_rules`, `can_fetch`, the `crawl_delay` setter), `protego/_urlpattern.py`
//! (`_URLPattern.match`) and `protego/_utils.py` (`_unquote`, `_quote`, `_quote_path`,
//! `_quote_pattern`), plus the parts of CPython 3.11.7 it leans on (`str.splitlines`,
//! `str.strip`/`split`/`lower`/`isalnum`, `urllib.parse.urlsplit`/`urlparse`/`quote`, `float()`).
//!
//! Input: Scrapy decodes the body with `body.decode('utf-8', errors='ignore')` and hands the
//! `str` to `Protego.parse`; the caller does that decoding and passes `&str`. A UTF-8 BOM
//! survives that decoding (the `utf-8` codec, unlike `utf-8-sig`, keeps U+FEFF) and Python's
//! `strip()` does not remove it, so a BOM glued to the first line turns that line into an
//! unknown directive (`"\u{feff}user-agent"`), exactly as Protego does.
//!
//! What Protego does that most parsers do not (all followed here, see the tests):
//! * Lines are split with Python's `str.splitlines()` (also on `\v`, `\f`, `\x1c`-`\x1e`,
//!   U+0085, U+2028, U+2029), and line numbers count those pieces.
//! * A directive may be written `field: value` or, failing that, `field value` (whitespace
//!   separated, multi-word aliases such as `user agent`, `crawl delay`); several misspellings
//!   of `disallow` are accepted.
//! * Groups: a user-agent line ends the current group only if the previous non-site-wide
//!   directive (any directive, even unknown, even with an empty value; not Sitemap/Host)
//!   was not a user-agent line. Groups for the same agent token merge.
//! * Agent matching (`applies_to`): the lower-cased group token is searched *inside* the
//!   lower-cased caller agent, accepted at a position not preceded by an alphanumeric, `-` or
//!   `_`; the score is the token's length in characters, `*` scores 1, the first group (in
//!   order of first appearance) with the highest score wins. So a group `google` applies to
//!   `Googlebot`, and `googlebot` applies to `Googlebot-News` when no longer token matches.
//!   A user-agent value with `*` inside also registers the token with the `*`s removed.
//! * Rules: both sides are %-normalized (`_quote_pattern` / `_quote_path`): escapes are decoded
//!   except `%2F`, `%25` (and `%2A` in patterns), then everything outside
//!   `A-Za-z0-9_.-~/%=` (plus `*` in patterns) is %-encoded in upper case. A `?` in the URL is
//!   therefore compared as `%3F`. A `$` that is not last is a literal; any value containing `$`
//!   additionally adds a rule with every `$` as a literal `%24`. `Allow: .../index.html` also
//!   allows `.../` exactly. Precedence: longest (normalized) pattern first, Allow before
//!   Disallow at equal length, then file order; the first matching rule decides.
//! * `/robots.txt` itself is always allowed (`Protego.can_fetch`).
//!
//! Deliberate differences (none changes `allowed` for a URL Scrapy can request):
//! * `urlsplit` raises `ValueError` for some malformed authorities (an unbalanced `[`/`]`, a
//!   bad bracketed IPv6 host, a non-ASCII host that NFKC-normalizes to `/?#@:`); Protego then
//!   raises from `can_fetch`. Scrapy cannot build a `Request` for such a URL, so this port
//!   does not model the exception and answers from the path as if the split had succeeded.
//! * Unicode tables come from Rust's `char` (lower-casing, alphanumerics), not from CPython's
//!   Unicode 14 database; they differ only for non-ASCII agent names (e.g. Rust counts
//!   combining marks with the Alphabetic property as alphanumeric, Python's `isalnum` does not).
//! * For `/robots.txt` Protego answers before choosing a group; the answer here still reports
//!   the group that would apply as `scope` (line 0, no pattern).
mod text;

use self::text::{is_robots_txt, parse_delay, quote_path, quote_pattern};
use super::common::Answer;
use super::cpython::{py_space, py_strip, splitlines};
use super::family::{Document, Family, Selection};
use crate::{RuleKind, Scope};
use std::borrow::Cow;
use std::collections::HashMap;

/// The file as protego 0.7.0 reads it: built once per body, then asked any number of questions.
pub(super) struct ProtegoRobots {
    /// Every rule created, shared by the rule sets that received it.
    rules: Vec<Rule>,
    /// Rule sets in the order their agent token first appeared (Python dict order), which
    /// decides ties in `_get_matching_rule_set` (`max` keeps the first maximum).
    sets: Vec<RuleSet>,
}

struct Rule {
    kind: RuleKind,
    /// 1-based line as `str.splitlines()` counts.
    line: u32,
    /// The normalized pattern (`_URLPattern._pattern`), always ASCII.
    pattern: String,
    /// Pattern split at `*` runs (trailing `$` removed), when it contains `*`.
    parts: Vec<(usize, usize)>,
    has_star: bool,
    /// `_URLPattern._contains_dollar`: the pattern ends with `$`.
    anchored: bool,
}

struct RuleSet {
    /// The lower-cased agent token (`_RuleSet.user_agent`).
    agent: String,
    /// `len(self.user_agent)` in Python: characters, not bytes.
    score: usize,
    /// Indices into `rules`, in `finalize_rules` order.
    rules: Vec<u32>,
    crawl_delay: Option<f64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    /// Sitemap and Host: `_SITE_WIDE_DIRECTIVES`, which neither need a group nor end one.
    SiteWide,
    /// Request-rate, Visit-time and unknown fields: they count as "a rule" for grouping.
    Other,
}

/// `_is_valid_directive_field` plus the dispatch in `_parse_robotstxt`.
fn classify(field: &str) -> Option<Field> {
    Some(match field {
        "user-agent" | "useragent" | "user agent" => Field::UserAgent,
        "allow" => Field::Allow,
        "disallow" | "dissallow" | "dissalow" | "disalow" | "diasllow" | "disallaw" => {
            Field::Disallow
        }
        "crawl-delay" | "crawl delay" => Field::CrawlDelay,
        "sitemap" | "sitemaps" | "site-map" | "host" => Field::SiteWide,
        "request-rate" | "request rate" | "visit-time" | "visit time" => Field::Other,
        _ => return None,
    })
}

/// `text.lower()`, borrowed when it changes nothing (most fields and agents are
/// lower-case ASCII already).
fn lowercase(text: &str) -> Cow<'_, str> {
    if text
        .bytes()
        .any(|c| !c.is_ascii() || c.is_ascii_uppercase())
    {
        Cow::Owned(text.to_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// `_extract_directive(line)` for a stripped, non-empty, comment-free line.
/// Returns the field's class and the value (`None`: the line is not a directive at all).
fn extract_directive(line: &str) -> Option<(Field, Cow<'_, str>)> {
    let mut colon_form: Option<Cow<'_, str>> = None;
    if let Some(pos) = line.find(':') {
        let field = lowercase(py_strip(&line[..pos]));
        let raw_value = &line[pos + 1..];
        let value = py_strip(raw_value);
        if let Some(f) = classify(&field) {
            return Some((f, Cow::Borrowed(value)));
        }
        // Unknown field whose colon reads as a separator: keep it as an unknown directive.
        if raw_value.chars().next().is_none_or(py_space) {
            return Some((Field::Other, Cow::Borrowed(value)));
        }
        colon_form = Some(Cow::Borrowed(value));
    }
    // Second chance: "<field> <value>" with whitespace, the field being one or two words
    // (`_MAX_DIRECTIVE_WORDS` is 2); the value is the remaining words joined by one space.
    let words: Vec<&str> = line.split(py_space).filter(|w| !w.is_empty()).collect();
    for count in 1..=2usize {
        let n = count.min(words.len());
        let candidate = words[..n].join(" ").to_lowercase();
        if let Some(f) = classify(&candidate) {
            return Some((f, Cow::Owned(words[n..].join(" "))));
        }
    }
    colon_form.map(|v| (Field::Other, v))
}

impl Rule {
    fn new(kind: RuleKind, line: u32, pattern: String) -> Rule {
        let has_star = pattern.contains('*');
        let anchored = pattern.ends_with('$');
        let mut parts = Vec::new();
        if has_star {
            // _prepare_wildcard_parts: drop the trailing "$", collapse "*" runs, split at "*".
            let body = if anchored {
                &pattern[..pattern.len() - 1]
            } else {
                &pattern[..]
            };
            let mut start = 0;
            let bytes = body.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'*' {
                    parts.push((start, i));
                    while i < bytes.len() && bytes[i] == b'*' {
                        i += 1;
                    }
                    start = i;
                } else {
                    i += 1;
                }
            }
            parts.push((start, bytes.len()));
        }
        Rule {
            kind,
            line,
            pattern,
            parts,
            has_star,
            anchored,
        }
    }

    /// `_URLPattern.match(url)`.
    fn matches(&self, url: &[u8]) -> bool {
        let p = self.pattern.as_bytes();
        if !self.has_star {
            if !self.anchored {
                return url.starts_with(p);
            }
            return url == &p[..p.len() - 1];
        }
        let part = |k: usize| {
            let (a, b) = self.parts[k];
            &p[a..b]
        };
        let first = part(0);
        if !url.starts_with(first) {
            return false;
        }
        let mut pos = first.len();
        let n = self.parts.len();
        for k in 1..n.saturating_sub(1) {
            match find_from(url, part(k), pos) {
                Some(idx) => pos = idx + part(k).len(),
                None => return false,
            }
        }
        let last = part(n - 1);
        if self.anchored {
            return url.len() >= last.len() + pos && url.ends_with(last);
        }
        if last.is_empty() {
            return true;
        }
        find_from(url, last, pos).is_some()
    }
}

fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    memchr::memmem::find(&hay[from..], needle).map(|i| i + from)
}

/// `_RuleSet.applies_to(robotname)`, `robotname` already stripped and lower-cased.
fn applies_to(set: &RuleSet, robotname: &str) -> usize {
    if set.agent == "*" {
        return 1;
    }
    let mut from = 0;
    while let Some(rel) = robotname
        .get(from..)
        .and_then(|s| find_short(s, &set.agent))
    {
        let idx = from + rel;
        // Token boundary: not preceded by an alphanumeric, "-" or "_" (nothing is checked after).
        match robotname[..idx].chars().next_back() {
            None => return set.score,
            Some(c) if !(c.is_alphanumeric() || c == '-' || c == '_') => return set.score,
            _ => {}
        }
        // find(..., index + 1): advance one character.
        from = idx + robotname[idx..].chars().next().map_or(1, char::len_utf8);
    }
    0
}

/// `haystack.find(needle)` for the short names compared here, window by window:
/// `str::find` builds a searcher per call, set-up that names this short do not repay
/// (this runs once per rule set per agent asked). A match of UTF-8 in UTF-8 starts
/// on a char boundary.
fn find_short(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
}

impl ProtegoRobots {
    /// `text`: the body as Scrapy decodes it, `body.decode('utf-8', errors='ignore')`.
    pub(super) fn parse(text: &str) -> Self {
        let mut me = ProtegoRobots {
            rules: Vec::new(),
            sets: Vec::new(),
        };
        let mut by_agent: HashMap<String, usize> = HashMap::new();
        let mut current: Vec<usize> = Vec::new();
        // previous_rule_field: None, Some(true) for a user-agent line, Some(false) otherwise.
        let mut previous_was_ua: Option<bool> = None;
        for (n, raw) in splitlines(text).enumerate() {
            let lineno = u32::try_from(n + 1).unwrap_or(u32::MAX);
            // Everything from the first "#" is a comment, wherever it is.
            let line = match raw.find('#') {
                Some(h) => &raw[..h],
                None => raw,
            };
            let line = py_strip(line);
            if line.is_empty() {
                continue;
            }
            let Some((field, value)) = extract_directive(line) else {
                continue;
            };
            // A user-agent line, even without a value, ends the previous group.
            if field == Field::UserAgent && previous_was_ua == Some(false) {
                current.clear();
            }
            if field != Field::SiteWide {
                previous_was_ua = Some(field == Field::UserAgent);
            }
            if value.is_empty() {
                continue;
            }
            if current.is_empty() && field != Field::UserAgent && field != Field::SiteWide {
                continue;
            }
            match field {
                Field::UserAgent => {
                    let ua = py_strip(&value).to_lowercase();
                    let without = if ua != "*" && ua.contains('*') {
                        Some(ua.replace('*', ""))
                    } else {
                        None
                    };
                    for token in std::iter::once(ua).chain(without) {
                        if token.is_empty() {
                            continue;
                        }
                        match by_agent.get(&token) {
                            Some(&idx) => {
                                if !current.contains(&idx) {
                                    current.push(idx);
                                }
                            }
                            None => {
                                let idx = me.sets.len();
                                me.sets.push(RuleSet {
                                    score: token.chars().count(),
                                    agent: token.clone(),
                                    rules: Vec::new(),
                                    crawl_delay: None,
                                });
                                by_agent.insert(token, idx);
                                current.push(idx);
                            }
                        }
                    }
                }
                Field::Allow | Field::Disallow => {
                    let kind = if field == Field::Allow {
                        RuleKind::Allow
                    } else {
                        RuleKind::Disallow
                    };
                    let first = me.rules.len();
                    me.add_rules(kind, &value, lineno);
                    let created = me.rules.len();
                    for &s in &current {
                        me.sets[s].rules.extend((first..created).map(|r| r as u32));
                    }
                }
                Field::CrawlDelay => {
                    if let Some(d) = parse_delay(&value) {
                        for &s in &current {
                            me.sets[s].crawl_delay = Some(d);
                        }
                    }
                }
                Field::SiteWide | Field::Other => {}
            }
        }
        // finalize_rules: sort by (len(pattern), is_allow) descending; Python's sort is stable
        // (also with reverse=True), so equal keys keep file order.
        let rules = &me.rules;
        for set in &mut me.sets {
            set.rules.sort_by(|&a, &b| {
                let (ra, rb) = (&rules[a as usize], &rules[b as usize]);
                let ka = (ra.pattern.len(), ra.kind == RuleKind::Allow);
                let kb = (rb.pattern.len(), rb.kind == RuleKind::Allow);
                kb.cmp(&ka)
            });
        }
        me
    }

    /// `_RuleSet.allow` / `_RuleSet.disallow` for one value: a value with "$" first adds the
    /// rule with every "$" as a literal (`%24`), then the value itself; `Allow: .../index.html`
    /// also adds `Allow: .../$`.
    fn add_rules(&mut self, kind: RuleKind, value: &str, line: u32) {
        if value.contains('$') {
            self.add_rules(kind, &value.replace('$', "%24"), line);
        }
        let quoted = quote_pattern(value);
        if quoted.is_empty() {
            return;
        }
        let index_root = if kind == RuleKind::Allow && quoted.ends_with("/index.html") {
            Some(format!("{}$", &quoted[..quoted.len() - "index.html".len()]))
        } else {
            None
        };
        self.rules.push(Rule::new(kind, line, quoted));
        if let Some(p) = index_root {
            self.rules.push(Rule::new(RuleKind::Allow, line, p));
        }
    }

    /// `_get_matching_rule_set`: the first rule set with the highest score, or none if every
    /// score is 0.
    fn matching_set(&self, agent: &str) -> Option<&RuleSet> {
        let robotname = lowercase(py_strip(agent));
        let mut best: Option<(&RuleSet, usize)> = None;
        for set in &self.sets {
            let score = applies_to(set, &robotname);
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((set, score));
            }
        }
        match best {
            Some((set, s)) if s > 0 => Some(set),
            _ => None,
        }
    }

    /// Which rule set answers `agent` (its address; 0: none): agents with the same one get
    /// the same answers.
    pub(super) fn selection_id(&self, agent: &str) -> usize {
        self.matching_set(agent)
            .map_or(0, |set| std::ptr::from_ref(set) as usize)
    }

    /// May `agent` fetch `url`? (`Protego.can_fetch(url, agent)`.)
    pub(super) fn answer(&self, agent: &str, url: &str) -> Answer {
        let set = self.matching_set(agent);
        let scope = match set {
            None => Scope::None,
            Some(s) if s.agent == "*" => Scope::Star,
            Some(_) => Scope::Named,
        };
        let (Some(set), Some(path)) = (set, Self::request_path(url)) else {
            return Answer::no_rule(scope);
        };
        match self.first_match(set, &path) {
            Some(rule) => Answer::decided(rule.kind, rule.line, rule.pattern.clone(), scope),
            None => Answer::no_rule(scope),
        }
    }

    /// What `can_fetch` matches the rules against: `url`'s quoted path, or none for a
    /// `/robots.txt` URL (always allowed). The same for every agent, so a caller asking
    /// many agents about one URL computes it once.
    pub(super) fn request_path(url: &str) -> Option<String> {
        (!is_robots_txt(url)).then(|| quote_path(url).into_owned())
    }

    /// `can_fetch` for every path of `paths` ([`ProtegoRobots::request_path`]s), the rule
    /// set chosen once for `agent`.
    pub(super) fn allowed_paths<'p>(
        &'p self,
        agent: &str,
        paths: impl IntoIterator<Item = &'p Option<String>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        let set = self.matching_set(agent);
        paths.into_iter().map(move |path| match (set, path) {
            (Some(set), Some(path)) => self
                .first_match(set, path)
                .is_none_or(|rule| rule.kind == RuleKind::Allow),
            _ => true,
        })
    }

    /// The first rule of `set` (in protego's order) that matches `path`.
    fn first_match(&self, set: &RuleSet, path: &str) -> Option<&Rule> {
        let path = path.as_bytes();
        set.rules
            .iter()
            .map(|&r| &self.rules[r as usize])
            .find(|rule| rule.matches(path))
    }

    /// The crawl-delay in seconds protego applies to `agent` (`Protego.crawl_delay`): the last
    /// valid value given in the matched group, or none.
    pub(super) fn crawl_delay(&self, agent: &str) -> Option<f64> {
        self.matching_set(agent).and_then(|s| s.crawl_delay)
    }
}

impl Family for ProtegoRobots {
    const NAME: &'static str = "protego";
    const HOW_IT_DIFFERS: &'static str =
        "agent found inside the crawler's name; crawl-delay and unknown keys end a group";
    const READS_CRAWL_DELAY: bool = true;
    type Path = Option<String>;

    fn read(doc: Document<'_, '_>) -> Self {
        // Scrapy's `decode_robotstxt`: UTF-8 with errors ignored.
        ProtegoRobots::parse(&utf8_ignoring_errors(doc.body))
    }

    fn answer(&self, _doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        ProtegoRobots::answer(self, agent, url)
    }

    fn crawl_delay(&self, _doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        ProtegoRobots::crawl_delay(self, agent)
    }

    fn selection(&self, _doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        Some(Selection::One(self.selection_id(agent)))
    }

    fn request_path(&self, url: &str) -> Option<String> {
        ProtegoRobots::request_path(url)
    }

    fn allowed_paths<'p>(
        &'p self,
        _doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p Option<String>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        ProtegoRobots::allowed_paths(self, agent, paths)
    }
}

/// `bytes` as UTF-8 with every invalid sequence dropped (Python's `errors="ignore"`):
/// borrowed when there is none, as in most bodies (`from_utf8` checks them faster than
/// the chunks do).
fn utf8_ignoring_errors(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignoring_errors_drops_invalid_bytes() {
        assert_eq!(utf8_ignoring_errors(b"a\xffb\xc3\xa9"), "ab\u{e9}");
    }
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn find_short_finds_what_str_find_does(
            haystack in "[ab\u{e9}\u{1F600}-]{0,12}",
            needle in "[ab\u{e9}\u{1F600}-]{0,4}",
        ) {
            prop_assert_eq!(find_short(&haystack, &needle), haystack.find(needle.as_str()));
        }
    }

    fn ask(body: &str, agent: &str, url: &str) -> Answer {
        ProtegoRobots::parse(body).answer(agent, url)
    }
    fn allowed(body: &str, agent: &str, url: &str) -> bool {
        ask(body, agent, url).allowed
    }

    // _RuleSet.finalize_rules: longest pattern first, Allow before Disallow at equal length.
    #[test]
    fn longest_pattern_wins_and_allow_wins_ties() {
        let body = "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /x\nAllow: /x\n";
        let a = ask(body, "bot", "https://e.com/a/b/c");
        assert!(a.allowed);
        assert_eq!((a.line, a.pattern.as_deref()), (3, Some("/a/b")));
        assert!(!allowed(body, "bot", "https://e.com/a/c"));
        let t = ask(body, "bot", "https://e.com/x");
        assert!(t.allowed);
        assert_eq!(t.line, 5);
        assert_eq!(t.directive, Some(RuleKind::Allow));
    }

    // _RuleSet.applies_to: the token is searched inside the caller's agent, at a boundary not
    // preceded by an alphanumeric, "-" or "_"; nothing is checked after it (prefix match).
    #[test]
    fn agent_token_matches_as_prefix_at_a_boundary() {
        let body = "User-agent: google\nDisallow: /g\n\nUser-agent: bot\nDisallow: /b\n";
        assert!(!allowed(body, "Googlebot", "https://e.com/g"));
        assert!(!allowed(
            body,
            "Mozilla/5.0 (compatible; bot/1.0)",
            "https://e.com/b"
        ));
        // "bot" inside "robot" is preceded by "o": no match, so no group applies.
        let a = ask(body, "robot", "https://e.com/b");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::None);
        assert!(allowed(body, "my-bot", "https://e.com/b"));
        assert!(allowed(body, "x_bot", "https://e.com/b"));
    }

    // _get_matching_rule_set: the score is len(token); the longest matching token wins.
    #[test]
    fn longest_matching_token_wins() {
        let body =
            "User-agent: googlebot\nDisallow: /a\n\nUser-agent: googlebot-news\nDisallow: /n\n";
        assert!(allowed(body, "Googlebot-News", "https://e.com/a"));
        assert!(!allowed(body, "Googlebot-News", "https://e.com/n"));
        assert!(!allowed(body, "Googlebot-Image", "https://e.com/a"));
    }

    // _get_matching_rule_set uses max(), which keeps the first maximum: a one-letter token ties
    // with "*" (score 1) and the group seen first wins.
    #[test]
    fn score_ties_go_to_the_first_group_in_file_order() {
        let star_first = "User-agent: *\nDisallow: /s\n\nUser-agent: a\nDisallow: /a\n";
        let a = ask(star_first, "a", "https://e.com/s");
        assert!(!a.allowed);
        assert_eq!(a.scope, Scope::Star);
        let named_first = "User-agent: a\nDisallow: /a\n\nUser-agent: *\nDisallow: /s\n";
        let b = ask(named_first, "a", "https://e.com/a");
        assert!(!b.allowed);
        assert_eq!(b.scope, Scope::Named);
    }

    // _parse_robotstxt: a user-agent line ends the group only after a non-user-agent field;
    // unknown fields and empty values count, Sitemap/Host do not.
    #[test]
    fn group_boundaries_follow_previous_field() {
        let stacked = "User-agent: a\nSitemap: https://e.com/s.xml\nUser-agent: b\nDisallow: /x\n";
        assert!(!allowed(stacked, "a", "https://e.com/x"));
        let unknown = "User-agent: a\nFoo: bar\nUser-agent: b\nDisallow: /x\n";
        assert!(allowed(unknown, "a", "https://e.com/x"));
        let empty = "User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /x\n";
        assert!(allowed(empty, "a", "https://e.com/x"));
        // A blank line does not end a group.
        let blank = "User-agent: a\n\nDisallow: /x\n";
        assert!(!allowed(blank, "a", "https://e.com/x"));
        // Crawl-delay between user-agent lines ends the stack.
        let delay = "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n";
        assert!(allowed(delay, "a", "https://e.com/x"));
        assert_eq!(ProtegoRobots::parse(delay).crawl_delay("a"), Some(3.0));
    }

    // _parse_robotstxt: rules before any user-agent line are dropped; an empty user-agent line
    // still resets the group, so the rules after it are dropped too.
    #[test]
    fn rules_without_a_group_are_ignored() {
        let body = "Disallow: /\nUser-agent: a\nDisallow: /x\nUser-agent:\nDisallow: /y\n";
        assert!(allowed(body, "a", "https://e.com/"));
        assert!(!allowed(body, "a", "https://e.com/x"));
        assert!(allowed(body, "a", "https://e.com/y"));
    }

    // _parse_robotstxt: a second group for the same token merges into the first rule set.
    #[test]
    fn duplicate_groups_merge() {
        let body = "User-agent: a\nDisallow: /x\n\nUser-agent: b\nAllow: /\n\nUser-agent: A\nDisallow: /y\n";
        let r = ProtegoRobots::parse(body);
        assert!(!r.answer("a", "https://e.com/x").allowed);
        let y = r.answer("a", "https://e.com/y");
        assert!(!y.allowed);
        assert_eq!(y.line, 8);
    }

    // _URLPattern.match / _prepare_wildcard_parts: "*" runs, anchored "$" with wildcards.
    #[test]
    fn wildcards_and_end_anchor() {
        let body = "User-agent: *\nDisallow: /*.php$\nDisallow: /a**b\nDisallow: /exact$\n";
        assert!(!allowed(body, "x", "https://e.com/d/i.php"));
        assert!(allowed(body, "x", "https://e.com/d/i.php5"));
        assert!(!allowed(body, "x", "https://e.com/a/x/b"));
        assert!(!allowed(body, "x", "https://e.com/exact"));
        assert!(allowed(body, "x", "https://e.com/exact/"));
    }

    // _RuleSet.disallow: a value with "$" also adds a rule where every "$" is a literal %24,
    // so "/a$" blocks "/a" exactly and also "/a$..." (the URL's "$" is quoted to %24).
    #[test]
    fn dollar_value_also_adds_a_literal_dollar_rule() {
        let body = "User-agent: *\nDisallow: /a$\n";
        assert!(!allowed(body, "x", "https://e.com/a"));
        let lit = ask(body, "x", "https://e.com/a$b");
        assert!(!lit.allowed);
        assert_eq!(lit.pattern.as_deref(), Some("/a%24"));
        assert!(allowed(body, "x", "https://e.com/ab"));
        // A "$" that is not last is an ordinary character.
        let mid = "User-agent: *\nDisallow: /a$b\n";
        assert!(!allowed(mid, "x", "https://e.com/a%24b"));
    }

    // _utils._quote_path/_quote_pattern: escapes normalized on both sides except %2F and %25;
    // "=" and "%3D" compare equal; "~" and "%7e" compare equal; case of hex does not matter.
    #[test]
    fn percent_escapes_are_normalized_on_both_sides() {
        let body = "User-agent: *\nDisallow: /%7euser\nDisallow: /a%2fb\nDisallow: /k%3Dv\nDisallow: /caf%c3%a9\n";
        assert!(!allowed(body, "x", "https://e.com/~user"));
        assert!(!allowed(body, "x", "https://e.com/%7Euser"));
        assert!(!allowed(body, "x", "https://e.com/a%2Fb"));
        assert!(allowed(body, "x", "https://e.com/a/b"));
        assert!(!allowed(body, "x", "https://e.com/k=v"));
        assert!(!allowed(body, "x", "https://e.com/café"));
        assert_eq!(quote_path("https://e.com/%ff"), "/%EF%BF%BD");
    }

    // _quote_path: the query is part of the compared string, its "?" becomes %3F; the fragment
    // is dropped; an empty path becomes "/".
    #[test]
    fn query_and_fragment_handling() {
        assert_eq!(quote_path("https://e.com/a?b=1#f"), "/a%3Fb=1");
        assert_eq!(quote_path("https://e.com"), "/");
        assert_eq!(quote_path("https://e.com/a?"), "/a%3F");
        let body = "User-agent: *\nDisallow: /*?\n";
        assert!(!allowed(body, "x", "https://e.com/p?q"));
        assert!(allowed(body, "x", "https://e.com/p#?"));
    }

    // _RuleSet.allow: "Allow: /d/index.html" also allows "/d/" exactly.
    #[test]
    fn allow_index_html_allows_the_directory() {
        let body = "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n";
        assert!(allowed(body, "x", "https://e.com/d/"));
        assert!(!allowed(body, "x", "https://e.com/d/other"));
        assert_eq!(
            ask(body, "x", "https://e.com/d/").pattern.as_deref(),
            Some("/d/$")
        );
    }

    // Protego.can_fetch: /robots.txt itself is always allowed (urlparse path, params cut).
    #[test]
    fn robots_txt_is_always_allowed() {
        let body = "User-agent: *\nDisallow: /\n";
        assert!(allowed(body, "x", "https://e.com/robots.txt"));
        assert!(allowed(body, "x", "https://e.com/robots.txt;p"));
        assert!(allowed(body, "x", "https://e.com/robots.txt?x"));
        assert!(!allowed(body, "x", "https://e.com/a/robots.txt"));
    }

    // _parse_robotstxt: "#" starts a comment anywhere, even inside a path.
    #[test]
    fn comments_cut_values() {
        let body = "User-agent: * # all\nDisallow: /a#b\n";
        let a = ask(body, "x", "https://e.com/ab");
        assert!(!a.allowed);
        assert_eq!(a.pattern.as_deref(), Some("/a"));
    }

    // str.splitlines(): CR, CRLF, LF, \v, \f, U+2028 all end lines; line numbers count them.
    #[test]
    fn line_splitting_like_python_splitlines() {
        let body =
            "User-agent: *\r\nDisallow: /a\rDisallow: /b\u{b}Disallow: /c\u{2028}Disallow: /d\n";
        let r = ProtegoRobots::parse(body);
        assert_eq!(r.answer("x", "https://e.com/a").line, 2);
        assert_eq!(r.answer("x", "https://e.com/b").line, 3);
        assert_eq!(r.answer("x", "https://e.com/c").line, 4);
        assert_eq!(r.answer("x", "https://e.com/d").line, 5);
    }

    // A BOM is kept by the utf-8 codec and not stripped: the first line becomes an unknown
    // field "\ufeffuser-agent", so its group never starts.
    #[test]
    fn bom_breaks_the_first_line() {
        let body = "\u{feff}User-agent: *\nDisallow: /\n";
        let a = ask(body, "x", "https://e.com/");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::None);
    }

    // _extract_directive: "field value" without a colon, multi-word aliases, misspellings,
    // and a field whose colon is not followed by whitespace getting a second chance.
    #[test]
    fn lenient_directive_forms() {
        let body = "User agent foo\nDisalow /a\nDisallow /b:c\nuseragent: bar\nDiasllow: /x\n";
        assert!(!allowed(body, "foo", "https://e.com/a"));
        assert!(!allowed(body, "foo", "https://e.com/b%3Ac"));
        assert!(!allowed(body, "bar", "https://e.com/x"));
        // "Disallow /a: b": unknown field "disallow /a", ignored.
        assert!(allowed(
            "User-agent: *\nDisallow /a: b\n",
            "x",
            "https://e.com/a"
        ));
    }

    // _parse_robotstxt: a user-agent with "*" inside also registers it without the "*"s.
    #[test]
    fn user_agent_with_star_inside_registers_stripped_token() {
        let body = "User-agent: foo*\nDisallow: /f\n";
        assert!(!allowed(body, "foobot", "https://e.com/f"));
        assert_eq!(ask(body, "foobot", "https://e.com/f").scope, Scope::Named);
    }

    // _RuleSet.crawl_delay setter: float(), finite and >= 0, last valid value wins.
    #[test]
    fn crawl_delay_parsing() {
        let d = |v: &str| {
            ProtegoRobots::parse(&format!(
                "User-agent: *\nCrawl-delay: 4\nCrawl-delay: {v}\n"
            ))
            .crawl_delay("x")
        };
        assert_eq!(d("1.5"), Some(1.5));
        assert_eq!(d("1_0"), Some(10.0));
        assert_eq!(d(".5"), Some(0.5));
        assert_eq!(d("3."), Some(3.0));
        assert_eq!(d("1e2"), Some(100.0));
        assert_eq!(d("\u{ff15}"), Some(5.0));
        assert_eq!(d("-1"), Some(4.0));
        assert_eq!(d("inf"), Some(4.0));
        assert_eq!(d("1_"), Some(4.0));
        assert_eq!(d("5s"), Some(4.0));
        assert_eq!(
            ProtegoRobots::parse("User-agent: a\nDisallow: /\n").crawl_delay("b"),
            None
        );
    }

    // _quote_pattern: an absolute-URL rule becomes a path containing that URL.
    #[test]
    fn absolute_url_rule_is_a_path() {
        let body = "User-agent: *\nDisallow: http://e.com/a\n";
        assert!(allowed(body, "x", "http://e.com/a"));
        assert!(!allowed(body, "x", "https://e.com/http://e.com/a"));
    }

    // Never panic on odd input.
    #[test]
    fn odd_inputs_do_not_panic() {
        let body =
            "User-agent: \u{e9}*\u{0}\nDisallow: %\nAllow: %e\nDisallow: $\nDisallow: *$\n\u{85}";
        let r = ProtegoRobots::parse(body);
        for u in ["", "%", "http://[x/a?b", "\u{e9}", "x:", "//", "/%e"] {
            for a in ["", "\u{e9}", "*", "\u{130}"] {
                let _ = r.answer(a, u);
                let _ = r.crawl_delay(a);
            }
        }
    }
}
