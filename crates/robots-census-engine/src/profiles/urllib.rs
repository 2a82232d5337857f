//! Python's `urllib.robotparser` as shipped in CPython <= 3.12 (ported from 3.11.7's
//! Lib/urllib/robotparser.py, the Python of these machines), still the default in
//! most deployed Pythons. It differs from robots.cc almost everywhere:
//!
//! - lines are `str.splitlines()` of the decoded body (also VT, FF, U+0085, U+2028 ...);
//!   a truly empty line ends the group being read (`parse`, states 1 and 2);
//! - a group applies when one of its user-agent values, lower-cased, is a
//!   **substring** of the caller's name cut at `/` (`Entry.applies_to`), so an empty
//!   `User-agent:` applies to everyone; the first such group in file order wins and
//!   the first `*` group is kept for last;
//! - the **first matching line** in file order decides (`Entry.allowance`); `*` and
//!   `$` are literal; a rule matches by prefix after both sides are unquoted,
//!   re-parsed and quoted (`RuleLine.__init__`, `can_fetch`);
//! - `Disallow:` with an empty value is an Allow of everything;
//! - a crawl-delay (or request-rate) line closes the user-agent run like a rule.

use super::common::Answer;
use super::cpython::{py_strip, quote, splitlines, unquote, urlparse, urlunparse, Parsed};
use super::family::{Document, Family, Selection};
use crate::model::lossy_text;
use crate::{RuleKind, Scope};

struct RuleLine {
    line: u32,
    /// `quote(urlunparse(urlparse(unquote(value))))`.
    path: String,
    allowance: bool,
}

#[derive(Default)]
struct Entry {
    /// The values as written after `unquote`, lower-cased (what `applies_to` compares).
    useragents: Vec<String>,
    rules: Vec<RuleLine>,
    delay: Option<f64>,
}

impl Entry {
    fn applies_to(&self, useragent: &str) -> bool {
        self.useragents
            .iter()
            .any(|agent| agent == "*" || useragent.contains(agent.as_str()))
    }

    /// The first rule line that applies to `path`.
    fn first_match(&self, path: &str) -> Option<&RuleLine> {
        self.rules
            .iter()
            .find(|r| r.path == "*" || path.starts_with(&r.path))
    }

    fn allowance(&self, path: &str, scope: Scope) -> Answer {
        match self.first_match(path) {
            Some(rule) => Answer::decided(
                RuleKind::of(rule.allowance),
                rule.line,
                rule.path.clone(),
                scope,
            ),
            None => Answer::no_rule(scope),
        }
    }
}

/// The file as `urllib.robotparser` reads it.
pub(super) struct UrllibRobots {
    entries: Vec<Entry>,
    default_entry: Option<Entry>,
}

/// `quote(urlunparse(urlparse(value)))` of `RuleLine.__init__`. For a value with
/// nothing `urlparse` splits on or removes (no `:` `;` `?` `#`, no tab, CR or LF, no
/// leading `//` or C0/space) the round trip gives the value back, so it is only quoted.
fn rule_path(value: &str) -> String {
    let plain = !value.starts_with("//")
        && !value.starts_with(|c: char| c <= ' ')
        && !value
            .bytes()
            .any(|b| matches!(b, b':' | b';' | b'?' | b'#' | b'\t' | b'\r' | b'\n'));
    if plain {
        quote(value)
    } else {
        quote(&urlunparse(&urlparse(value)))
    }
}

/// The keys `parse` acts on.
const KEYS: [&str; 6] = [
    "user-agent",
    "disallow",
    "allow",
    "crawl-delay",
    "request-rate",
    "sitemap",
];

impl UrllibRobots {
    /// `RobotFileParser.parse(text.splitlines())`.
    pub(super) fn parse(text: &str) -> Self {
        let mut robots = UrllibRobots {
            entries: Vec::new(),
            default_entry: None,
        };
        // 0: start; 1: saw user-agent; 2: saw a rule (or delay, rate).
        let mut state = 0u8;
        let mut entry = Entry::default();
        for (index, raw) in splitlines(text).enumerate() {
            let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            if raw.is_empty() {
                if state == 2 {
                    robots.add_entry(std::mem::take(&mut entry));
                } else {
                    entry = Entry::default();
                }
                state = 0;
            }
            let line = py_strip(raw.split('#').next().unwrap_or_default());
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            // `key.strip().lower()`: no non-ASCII character lower-cases into the ASCII
            // of these keys (the Kelvin sign's `k` is in none), so an ASCII
            // case-insensitive comparison is the same test without the allocation.
            let key = py_strip(key);
            let key = KEYS
                .iter()
                .find(|k| key.eq_ignore_ascii_case(k))
                .copied()
                .unwrap_or("");
            let value = unquote(py_strip(value));
            match key {
                "user-agent" => {
                    if state == 2 {
                        robots.add_entry(std::mem::take(&mut entry));
                    }
                    entry.useragents.push(value.to_lowercase());
                    state = 1;
                }
                "disallow" | "allow" if state != 0 => {
                    // "an empty value means allow all"
                    let allowance = key == "allow" || value.is_empty();
                    entry.rules.push(RuleLine {
                        line: number,
                        path: rule_path(&value),
                        allowance,
                    });
                    state = 2;
                }
                "crawl-delay" if state != 0 => {
                    let digits = py_strip(&value);
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        entry.delay = digits.parse::<f64>().ok();
                    }
                    state = 2;
                }
                "request-rate" if state != 0 => state = 2,
                _ => {}
            }
        }
        if state == 2 {
            robots.add_entry(entry);
        }
        robots
    }

    fn add_entry(&mut self, entry: Entry) {
        if entry.useragents.iter().any(|a| a == "*") {
            // "the default entry is considered last"; the first one wins.
            if self.default_entry.is_none() {
                self.default_entry = Some(entry);
            }
        } else {
            self.entries.push(entry);
        }
    }

    /// The group `can_fetch` reads for `agent`, and its scope.
    fn entry_for(&self, agent: &str) -> Option<(&Entry, Scope)> {
        let useragent = agent.split('/').next().unwrap_or_default().to_lowercase();
        self.entries
            .iter()
            .find(|e| e.applies_to(&useragent))
            .map(|e| (e, Scope::Named))
            .or_else(|| self.default_entry.as_ref().map(|e| (e, Scope::Star)))
    }

    /// Which entry answers `agent` (its address; 0: none): agents with the same one get
    /// the same answers.
    pub(super) fn selection_id(&self, agent: &str) -> usize {
        self.entry_for(agent)
            .map_or(0, |(entry, _)| std::ptr::from_ref(entry) as usize)
    }

    /// `can_fetch(agent, url)`.
    pub(super) fn answer(&self, agent: &str, url: &str) -> Answer {
        let path = Self::request_path(url);
        match self.entry_for(agent) {
            Some((entry, scope)) => entry.allowance(&path, scope),
            None => Answer::no_rule(Scope::None),
        }
    }

    /// What `can_fetch` compares the rules with: `url` unquoted, its path, params, query
    /// and fragment re-joined, then quoted (`/` when empty). The same for every agent, so
    /// a caller asking many agents about one URL computes it once.
    pub(super) fn request_path(url: &str) -> String {
        let parsed = urlparse(&unquote(url));
        let path = quote(&urlunparse(&Parsed {
            scheme: String::new(),
            netloc: String::new(),
            ..parsed
        }));
        if path.is_empty() {
            "/".to_owned()
        } else {
            path
        }
    }

    /// `can_fetch` for every path of `paths` ([`UrllibRobots::request_path`]s), the
    /// group chosen once for `agent`.
    pub(super) fn allowed_paths<'p>(
        &'p self,
        agent: &str,
        paths: impl IntoIterator<Item = &'p String> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        let entry = self.entry_for(agent).map(|(e, _)| e);
        paths.into_iter().map(move |path| {
            entry
                .and_then(|e| e.first_match(path))
                .is_none_or(|r| r.allowance)
        })
    }

    /// `crawl_delay(agent)`.
    pub(super) fn crawl_delay(&self, agent: &str) -> Option<f64> {
        self.entry_for(agent).and_then(|(e, _)| e.delay)
    }
}

impl Family for UrllibRobots {
    const NAME: &'static str = "urllib";
    const HOW_IT_DIFFERS: &'static str =
        "agent matched as a substring, first matching line, no wildcards, a blank line ends a group";
    const READS_CRAWL_DELAY: bool = true;
    type Path = String;

    fn read(doc: Document<'_, '_>) -> Self {
        // CPython's `read()` decodes strictly and raises on invalid UTF-8: such a file
        // is never parsed at all. We read it decoded with U+FFFD instead, the nearest
        // answer that still says something (noted in the README's profile table).
        UrllibRobots::parse(&lossy_text(doc.body))
    }

    fn answer(&self, _doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        UrllibRobots::answer(self, agent, url)
    }

    fn crawl_delay(&self, _doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        UrllibRobots::crawl_delay(self, agent)
    }

    fn selection(&self, _doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        Some(Selection::One(self.selection_id(agent)))
    }

    fn request_path(&self, url: &str) -> String {
        UrllibRobots::request_path(url)
    }

    fn allowed_paths<'p>(
        &'p self,
        _doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p String> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        UrllibRobots::allowed_paths(self, agent, paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(body: &str, agent: &str, path: &str) -> Answer {
        UrllibRobots::parse(body).answer(agent, &format!("https://example.com{path}"))
    }

    #[test]
    fn urllib_agent_is_a_substring_of_the_callers_name() {
        // Entry.applies_to: `agent in useragent`, useragent cut at '/'.
        let body = "User-agent: bot\nDisallow: /\n";
        assert!(!ask(body, "GPTBot/1.0", "/x").allowed);
        assert!(!ask(body, "bingbot", "/x").allowed);
        assert!(ask(body, "crawler", "/x").allowed);
        // An empty user-agent value is a substring of every name.
        assert!(!ask("User-agent:\nDisallow: /\n", "anything", "/x").allowed);
    }

    #[test]
    fn urllib_first_matching_line_decides() {
        // Entry.allowance: the first RuleLine that applies.
        let body = "User-agent: *\nDisallow: /a\nAllow: /a/b\n";
        let a = ask(body, "x", "/a/b");
        assert!(!a.allowed);
        assert_eq!(a.line, 2);
    }

    #[test]
    fn urllib_wildcards_are_literal() {
        let body = "User-agent: *\nDisallow: /*.pdf\n";
        assert!(ask(body, "x", "/a.pdf").allowed);
        assert!(!ask(body, "x", "/*.pdf").allowed);
        // Except a path of exactly `*`... which quote() turns into %2A: never matched.
        assert!(ask("User-agent: *\nDisallow: *\n", "x", "/a").allowed);
    }

    #[test]
    fn urllib_blank_line_drops_user_agents_without_rules() {
        // parse(): an empty line in state 1 starts a new Entry.
        let body = "User-agent: GPTBot\n\nDisallow: /\n";
        assert!(ask(body, "GPTBot", "/x").allowed);
        // A line of spaces is not empty to `if not line`.
        assert!(!ask("User-agent: GPTBot\n  \nDisallow: /\n", "GPTBot", "/x").allowed);
    }

    #[test]
    fn urllib_first_star_group_is_kept_for_last() {
        let body = "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: bot\nAllow: /\n";
        assert!(!ask(body, "x", "/a").allowed);
        assert!(ask(body, "x", "/b").allowed);
        let named = ask(body, "bot", "/a");
        assert!(named.allowed && named.scope == Scope::Named);
    }

    #[test]
    fn urllib_empty_disallow_allows_and_escapes_compare_quoted() {
        assert!(ask("User-agent: *\nDisallow:\nDisallow: /\n", "x", "/a").allowed);
        // Both sides unquoted then quoted: %7e == ~ == %7E.
        let body = "User-agent: *\nDisallow: /%7euser\n";
        assert!(!ask(body, "x", "/~user/").allowed);
        assert!(!ask(body, "x", "/%7Euser/").allowed);
    }

    #[test]
    fn urllib_crawl_delay_closes_the_user_agent_run() {
        // `crawl-delay` sets state 2, so the next user-agent line starts a new entry.
        let body = "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n";
        let robots = UrllibRobots::parse(body);
        assert_eq!(robots.crawl_delay("a"), Some(5.0));
        assert!(robots.answer("a", "https://e.com/x").allowed);
        assert!(!robots.answer("b", "https://e.com/x").allowed);
        assert_eq!(robots.crawl_delay("b"), None);
    }

    #[test]
    fn urllib_rules_before_any_user_agent_are_dropped_and_lines_split_like_python() {
        assert!(ask("Disallow: /\n", "x", "/a").allowed);
        // U+2028 is a line break to str.splitlines().
        let body = "User-agent: *\u{2028}Disallow: /p\n";
        let a = ask(body, "x", "/p");
        assert!(!a.allowed);
        assert_eq!(a.line, 2);
    }
}
