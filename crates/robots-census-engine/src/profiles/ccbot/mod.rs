//! CCBot (Common Crawl): Apache Nutch (Common Crawl's fork, `commoncrawl/nutch`, snapshot
//! HEAD 8ec6739 of 2025-09-18) calling crawler-commons' `SimpleRobotRulesParser`
//! (`ivy/ivy.xml`: `crawler-commons 1.6-SNAPSHOT`, built from Common Crawl's
//! `commoncrawl/crawler-commons` branch `commons-io-downgrade` = the `crawler-commons-1.6`
//! release commit ce0fcb3 plus a commons-io downgrade that touches no robots or URL code; this
//! port follows that 1.6 code).
//!
//! Source files followed (crawler-commons): `robots/SimpleRobotRulesParser.java` (group
//! selection and crawl-delay collection here; decoding, line splitting and the tokenizer in
//! `text`; Crawl-delay numbers in `java`), `robots/SimpleRobotRules.java` (rule sorting,
//! precedence and the index.htm quirk here; the wildcard matcher in `matcher`; URL path
//! extraction in `normalize`), `filters/basic/BasicURLNormalizer.java` (`unescapePath`/
//! `escapePath`, the %-normalisation of BOTH rules and URLs, in `normalize`). Nutch:
//! `protocol/RobotRulesParser.java` (agent names, parser set-up),
//! `lib-http/.../HttpRobotRulesParser.java` (status codes), `fetcher/FetcherThread.java`
//! (`isAllowed(url.toString())`, crawl-delay limits), `conf/nutch-default.xml` (defaults).
//!
//! How Nutch calls the library (and so how this module behaves):
//! * one shared `SimpleRobotRulesParser` with `setMaxCrawlDelay(Long.MAX_VALUE)`
//!   (RobotRulesParser.java static block), so the library's own "crawl-delay > 300 s =>
//!   disallow all" rule never fires; Nutch's fetcher applies its own limit instead (see
//!   [`MAX_CRAWL_DELAY_SECS`], [`CcbotRobots::crawl_delay_blocks`]).
//! * exact user-agent matching (the library default, RFC 9309 mode); the agent names are the
//!   set `{ http.agent.name.trim().toLowerCase() }` (plus `http.robots.agents`, empty by
//!   default); `*` is dropped, giving the empty set = "use the `*` group". `answer(agent, ..)`
//!   treats `agent` as `http.agent.name`: the WHOLE string (not split at spaces or `/`) lower-cased.
//!   So "Mozilla/5.0 (compatible; GPTBot/1.0)" only matches a `User-agent:` line with exactly that
//!   text, never the `GPTBot` group.
//! * `rules.isAllowed(String url)`: the URL string goes through `new java.net.URI(url).toURL()`;
//!   ANY exception (space, `|`, `^`, `{`, a bare `%`, NUL, ... anywhere in the URL, a relative
//!   URL, an unknown scheme) makes the library check the path `/` instead (`getPath` catch).
//!
//! Behaviours worth knowing (all ported, each has a test):
//! * Body: empty => allow all. BOM: UTF-8 BOM skipped, UTF-16LE/BE BOMs select that decoding,
//!   otherwise UTF-8 (invalid bytes become U+FFFD). Nutch cuts the body at `http.content.limit`
//!   = 1 MiB first ([`NUTCH_HTTP_CONTENT_LIMIT`]).
//! * If the body contains `<html>`/`<head>`/`<body>` (or the Content-Type is `text/html`) and
//!   no `user-agent:` anywhere: allow all. With a `user-agent:` it strips `<...>` tags per line.
//! * Lines split at `\n`, `\r`, U+0085, U+2028, U+2029 (`StringTokenizer`); `#` starts a comment
//!   anywhere; Java `trim()` (all chars <= U+0020).
//! * Directive names are matched as prefixes, with ~30 typo spellings (`useragent`, `disalow`,
//!   `crawl delay`, ...), followed by `:` or by blanks only (`Disallow /x` works).
//! * Group logic (`handleUserAgent`): a `User-agent` line after an Allow/Disallow starts a new
//!   group; Crawl-delay and unknown lines do NOT end the agent list. All groups naming the agent
//!   are merged; `*` groups are merged too but dropped once a named group matches, and `*`
//!   groups after the first named match are ignored. A `User-agent` value matches when it equals
//!   the lower-cased agent, or when it is not a pure product token (`[a-zA-Z_-]+`) and its
//!   leading `[a-zA-Z_-]+` run equals the agent (`CCBot/2.0`, `ccbot2`, `ccbot*` all match
//!   `ccbot`; `ccbot-news` does not).
//! * Only the first Crawl-delay after a matching User-agent line counts; several matching
//!   groups: the smallest wins, a named group's value beats `*`. `0.5` => 500 ms (a `.` selects
//!   `Double.parseDouble`, else `Integer.parseInt`, which rejects > 2^31-1).
//! * Rules: value %-normalised (`%xx` of unreserved ASCII decoded, other escapes upper-cased,
//!   non-ASCII and unsafe ASCII %-encoded, `*` and `$` kept as operators); empty values ignored.
//!   The URL's path+query gets the same normalisation, and literal `*`/`$` in the URL become
//!   `%2A`/`%24`, so a rule `%2A` matches a URL `*` and a rule `$` mid-pattern never matches.
//! * Precedence: the longest matching pattern (its length counted with `*` and `$`) wins; ties
//!   go to Allow. `/robots.txt` is always allowed.
//! * Matching (`SimpleRobotRules.ruleMatches`) is greedy-left and never backtracks: after a
//!   `*` the next literal piece is taken at its FIRST occurrence, so `/*.php$` does not match
//!   `/a.php.php`; a pattern ending in `*` (even `*$`) matches at once.
//! * A rule ending in `index.htm`/`index.html` that does not match also tries
//!   `<text before the first "index.htm">$` (Google's robots.cc quirk), with that pattern's length.
//!
//! Not ported (answer `/` is checked instead, as for any URL Java rejects): `jar:` URLs and
//! the `url:` prefix `java.net.URL` strips; hex-float Crawl-delays are computed in f64 without
//! Java's exact rounding of very long mantissas.
//!
//! Checked against crawler-commons 1.6 itself (compiled from the release tag with no-op logging
//! stubs, called as Nutch calls it; scratch crate `oracle/` + `diff/`): 12,873 bodies (all 6,873
//! corpus files, 3,000 generated and 3,000 fuzzed bodies), 9,277,760 questions, 0 disagreements
//! in `allowed`, crawl-delay and `crawl_delay_blocks`.
//!
//! Line numbers (`Answer::line`) count physical lines: `\r\n`, `\n`, `\r`, U+0085, U+2028 and
//! U+2029 each end one line (the library itself keeps no line numbers).

mod java;
mod matcher;
mod normalize;
mod text;

use super::common::Answer;
use super::family::{self, Document, Family};
use crate::{RuleKind, Scope};
use java::parse_crawl_delay;
use matcher::{find_sub, rule_matches, rule_matches_parts};
use normalize::{normalize_path_directive, url_path_for_matching};
use std::collections::HashMap;
use text::{
    contains_ci_ascii, contains_simple_html, decode_body, is_valid_product_token, java_trim,
    leading_product_token, split_lines, strip_tags, tokenize, Directive,
};

/// Nutch `fetcher.max.crawl.delay` default (conf/nutch-default.xml: `<value>30</value>`, "If the
/// Crawl-Delay in robots.txt is set to greater than this value (in seconds) then the fetcher will
/// skip this page ... If set to -1 the fetcher will never skip such pages"). FetcherThread.java
/// reads it as `conf.getInt("fetcher.max.crawl.delay", 30) * 1000` ms and skips the URL (status
/// ROBOTS_DENIED, counter `robots_denied_maxcrawldelay`) when
/// `rules.getCrawlDelay() > 0 && rules.getCrawlDelay() > maxCrawlDelay && maxCrawlDelay >= 0`.
pub(super) const MAX_CRAWL_DELAY_SECS: f64 = 30.0;

/// Nutch `http.content.limit` default (1 MiB, conf/nutch-default.xml): the protocol plugins
/// (protocol-http HttpResponse, protocol-okhttp) truncate every response body, robots.txt
/// included, to this many bytes before crawler-commons sees it.
pub(super) const NUTCH_HTTP_CONTENT_LIMIT: usize = 1_048_576;

/// `BaseRobotRules.UNSET_CRAWL_DELAY` = `Long.MIN_VALUE`.
const UNSET_CRAWL_DELAY: i64 = i64::MIN;

/// One Allow/Disallow rule as `SimpleRobotRules.RobotRule` keeps it.
#[derive(Debug, Clone)]
struct Rule {
    /// The normalised pattern (`normalizePathDirective`), ASCII only.
    path: String,
    allow: bool,
    line: u32,
}

/// The rules and crawl-delay `parseContent` would return for one set of agent names.
#[derive(Debug, Clone)]
struct Selection {
    /// Indices into `CcbotRobots::rules` (which are kept in `sortRules()` order), ascending.
    rules: Vec<u32>,
    /// Milliseconds, `UNSET_CRAWL_DELAY` when unset.
    crawl_delay_ms: i64,
    scope: Scope,
}

/// The tokens of the body that can change the parse state (`SimpleRobotRulesParser.parseContent`
/// switch); Sitemap, Host, unknown and malformed lines change nothing and are dropped.
#[derive(Debug, Clone)]
enum Tok {
    /// Index into `ua_names`.
    UserAgent(u32),
    /// `rule`: index of the (file-order) rule, `None` for an empty value (ignored, but the line
    /// still ends the list of User-agent lines).
    Rule { rule: Option<u32> },
    /// `None`: empty or unparsable value (still stops the group's crawl-delay collection).
    CrawlDelay(Option<i64>),
}

/// The file as CCBot (Nutch + crawler-commons 1.6) reads it: built once per body, then asked any
/// number of questions.
#[derive(Debug, Clone)]
pub(super) struct CcbotRobots {
    /// `RobotRulesMode.ALLOW_ALL` (empty body, or HTML without `user-agent:`).
    allow_all: bool,
    /// All rules of the file, in `SimpleRobotRules.sortRules()` order (longest first, Allow
    /// before Disallow on equal length, file order otherwise: Java's sorted() is stable).
    rules: Vec<Rule>,
    /// Selection for an agent named by no User-agent line (and for `*` / the empty agent).
    fallback: Selection,
    /// Selection for each lower-cased agent name some User-agent line matches.
    named: HashMap<String, Selection>,
}

impl CcbotRobots {
    /// `body`: the raw bytes of the robots.txt response (Nutch passes `response.getContent()`
    /// untouched, the library decodes). Same as `parse_with_content_type(body, None)`.
    pub(super) fn parse(body: &[u8]) -> Self {
        Self::parse_with_content_type(body, None)
    }

    /// `content_type`: the response's `Content-Type` header (Nutch passes
    /// `response.getHeader("Content-Type")`). It matters only when it starts with `text/html`
    /// (case-insensitive): then a body without any `user-agent:` is read as "allow all" even
    /// without `<html>`/`<head>`/`<body>` tags, and tags are stripped from the lines.
    pub(super) fn parse_with_content_type(body: &[u8], content_type: Option<&str>) -> Self {
        let body = &body[..body.len().min(NUTCH_HTTP_CONTENT_LIMIT)];
        if body.is_empty() {
            // "If there's nothing there, treat it like we have no restrictions."
            return Self::allow_all_rules();
        }
        let text = decode_body(body);

        // SimpleRobotRulesParser: isHtmlType || SIMPLE_HTML_PATTERN.find(), then
        // USER_AGENT_PATTERN "(?i)user-agent:" decides between allow-all and tag stripping.
        let is_html_type = content_type
            .map(|ct| ct.to_lowercase().starts_with("text/html"))
            .unwrap_or(false);
        let mut has_html = false;
        if is_html_type || contains_simple_html(&text) {
            if !contains_ci_ascii(text.as_bytes(), b"user-agent:") {
                return Self::allow_all_rules();
            }
            has_html = true;
        }

        let mut toks: Vec<Tok> = Vec::new();
        let mut ua_names: Vec<String> = Vec::new();
        let mut file_rules: Vec<Rule> = Vec::new();
        let mut stripped: String;
        for (line_no, raw) in split_lines(&text) {
            let mut line: &str = raw;
            if has_html {
                stripped = strip_tags(line);
                line = &stripped;
            }
            if let Some(h) = line.find('#') {
                line = &line[..h];
            }
            let line = java_trim(line);
            if line.is_empty() {
                continue;
            }
            match tokenize(line) {
                Some((Directive::UserAgent, data)) => {
                    // handleUserAgent: token.getData().trim().toLowerCase(Locale.ROOT)
                    ua_names.push(java_trim(data).to_lowercase());
                    toks.push(Tok::UserAgent((ua_names.len() - 1) as u32));
                }
                Some((dir @ (Directive::Disallow | Directive::Allow), data)) => {
                    let allow = dir == Directive::Allow;
                    let path = normalize_path_directive(data);
                    let rule = if path.is_empty() {
                        None
                    } else {
                        file_rules.push(Rule {
                            path,
                            allow,
                            line: line_no,
                        });
                        Some((file_rules.len() - 1) as u32)
                    };
                    toks.push(Tok::Rule { rule });
                }
                Some((Directive::CrawlDelay, data)) => {
                    toks.push(Tok::CrawlDelay(parse_crawl_delay(data)));
                }
                None => {}
            }
        }

        // sortRules(): stable sort, longest pattern first, Allow first on equal length.
        let mut order: Vec<u32> = (0..file_rules.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&file_rules[a as usize], &file_rules[b as usize]);
            rb.path
                .len()
                .cmp(&ra.path.len())
                .then(rb.allow.cmp(&ra.allow))
        });
        let mut rank = vec![0u32; file_rules.len()];
        for (pos, &id) in order.iter().enumerate() {
            rank[id as usize] = pos as u32;
        }
        let rules: Vec<Rule> = order
            .iter()
            .map(|&id| file_rules[id as usize].clone())
            .collect();

        // Agents named by no User-agent line all get the same answer: replay once without matches.
        let fallback = replay(&toks, &ua_names, &rank, None);

        // Every lower-cased name that some User-agent line matches: the line's value itself, and,
        // when it is not a valid product token, its leading [a-zA-Z_-]+ run
        // (userAgentProductTokenPartialMatch).
        let mut matching: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, name) in ua_names.iter().enumerate() {
            if name.is_empty() || name == "*" {
                continue;
            }
            matching.entry(name.clone()).or_default().push(i as u32);
            if !is_valid_product_token(name) {
                let lead = leading_product_token(name);
                if !lead.is_empty() {
                    matching.entry(lead.to_string()).or_default().push(i as u32);
                }
            }
        }
        let mut named = HashMap::with_capacity(matching.len());
        for (name, positions) in matching {
            let sel = replay(&toks, &ua_names, &rank, Some(&positions));
            named.insert(name, sel);
        }

        CcbotRobots {
            allow_all: false,
            rules,
            fallback,
            named,
        }
    }

    fn allow_all_rules() -> Self {
        CcbotRobots {
            allow_all: true,
            rules: Vec::new(),
            fallback: Selection {
                rules: Vec::new(),
                crawl_delay_ms: UNSET_CRAWL_DELAY,
                scope: Scope::None,
            },
            named: HashMap::new(),
        }
    }

    /// The selection `parseContent(url, body, ct, agentNames)` returns for Nutch's agent names
    /// built from `agent` (RobotRulesParser.setConf: trim, `*` => empty set, toLowerCase).
    fn selection(&self, agent: &str) -> &Selection {
        let a = java_trim(agent);
        if a.is_empty() || a == "*" || self.named.is_empty() {
            return &self.fallback;
        }
        let mut buf = [0u8; 64];
        let found = if a.is_ascii() && a.len() <= buf.len() {
            let b = &mut buf[..a.len()];
            b.copy_from_slice(a.as_bytes());
            b.make_ascii_lowercase();
            std::str::from_utf8(b).ok().and_then(|k| self.named.get(k))
        } else {
            self.named.get(&a.to_lowercase())
        };
        found.unwrap_or(&self.fallback)
    }

    /// Which rules answer `agent` (the address of their selection): agents with the same
    /// one get the same answers.
    pub(super) fn selection_id(&self, agent: &str) -> usize {
        std::ptr::from_ref(self.selection(agent)) as usize
    }

    /// May `agent` fetch `url`? (`SimpleRobotRules.isAllowed(String)` on the rules selected for
    /// `agent`.)
    pub(super) fn answer(&self, agent: &str, url: &str) -> Answer {
        if self.allow_all {
            return Answer::no_rule(Scope::None);
        }
        let sel = self.selection(agent);
        self.answer_path(sel, &url_path_for_matching(url))
    }

    /// What the rules are matched with: `url`'s path and query as `isAllowed` normalises
    /// them. The same for every agent, so a caller asking many agents about one URL
    /// computes it once.
    pub(super) fn request_path(url: &str) -> String {
        url_path_for_matching(url)
    }

    /// `isAllowed` for every path of `paths` ([`CcbotRobots::request_path`]s), the
    /// rules chosen once for `agent`.
    pub(super) fn allowed_paths<'p>(
        &'p self,
        agent: &str,
        paths: impl IntoIterator<Item = &'p String> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        let sel = self.selection(agent);
        paths
            .into_iter()
            .map(move |path| self.allow_all || self.answer_path(sel, path).allowed)
    }

    fn answer_path(&self, sel: &Selection, path: &str) -> Answer {
        // isAllowedPath: "Always allow robots.txt" (exact path, no query).
        if path == "/robots.txt" {
            return Answer::no_rule(sel.scope);
        }
        let text = path.as_bytes();
        let mut longest: i64 = i32::MIN as i64;
        let mut allowed = true;
        let mut decider: Option<usize> = None;
        for &ri in &sel.rules {
            let rule = &self.rules[ri as usize];
            let p = rule.path.as_bytes();
            // The rules come longest first (sortRules) and no match is longer than its
            // pattern (the index.htm form is shorter): once a pattern is shorter than the
            // longest match, no later rule can change the answer.
            if (p.len() as i64) < longest {
                break;
            }
            let mut ml = rule_matches(text, p);
            if ml < 0 {
                // The index.htm(l) special case: try "<pattern up to the first index.htm>$".
                if p.ends_with(b"index.htm") || p.ends_with(b"index.html") {
                    let cut = find_sub(p, b"index.htm").unwrap_or(0);
                    ml = rule_matches_parts(text, &p[..cut], true);
                    if ml < 0 {
                        continue;
                    }
                } else {
                    continue;
                }
            }
            if longest < ml {
                longest = ml;
                allowed = rule.allow;
                decider = Some(ri as usize);
            } else if longest == ml {
                if !allowed && rule.allow {
                    decider = Some(ri as usize);
                }
                allowed |= rule.allow;
            }
        }
        match decider {
            None => Answer::no_rule(sel.scope),
            Some(i) => {
                let r = &self.rules[i];
                // The decider is an Allow exactly when an Allow is among the longest
                // matches (the loop above switches to the first such Allow).
                debug_assert_eq!(allowed, r.allow);
                Answer::decided(RuleKind::of(r.allow), r.line, r.path.clone(), sel.scope)
            }
        }
    }

    /// The crawl-delay in seconds Nutch takes from the file for `agent`: the library's value
    /// (ms / 1000) when it is > 0 (FetcherThread only uses `getCrawlDelay() > 0`; unset, zero,
    /// negative and unparsable values give `None`). Nutch then raises it to at least
    /// `fetcher.min.crawl.delay` (default `${fetcher.server.delay}` = 5.0 s,
    /// conf/nutch-default.xml) and skips the host's URLs when it exceeds
    /// [`MAX_CRAWL_DELAY_SECS`] (see [`Self::crawl_delay_blocks`]); neither is applied here.
    pub(super) fn crawl_delay(&self, agent: &str) -> Option<f64> {
        if self.allow_all {
            return None;
        }
        let ms = self.selection(agent).crawl_delay_ms;
        if ms > 0 {
            Some(ms as f64 / 1000.0)
        } else {
            None
        }
    }

    /// Does Nutch's fetcher refuse `agent`'s URLs on this host because of the Crawl-delay?
    /// FetcherThread.java: `if (rules.getCrawlDelay() > 0) { if (rules.getCrawlDelay() >
    /// maxCrawlDelay && maxCrawlDelay >= 0) { ... skipping` with `maxCrawlDelay` = 30 000 ms
    /// (`fetcher.max.crawl.delay` = 30 s; -1 would disable the check). Strictly greater: 30 s
    /// exactly is fetched, 30.001 s is not. The check comes after the allow/deny check.
    pub(super) fn crawl_delay_blocks(&self, agent: &str) -> bool {
        if self.allow_all {
            return false;
        }
        let ms = self.selection(agent).crawl_delay_ms;
        let max_ms = (MAX_CRAWL_DELAY_SECS as i64) * 1000;
        ms > 0 && ms > max_ms && max_ms >= 0
    }
}

// ---------------------------------------------------------------------------------------------
// Group selection: SimpleRobotRulesParser.ParseState + handleUserAgent/handleAllow/
// handleDisallow/handleCrawlDelay, replayed over the tokens for one set of agent names.
// ---------------------------------------------------------------------------------------------

struct ParseState {
    matched_real_name: bool,
    matched_wildcard: bool,
    adding_rules: bool,
    adding_crawl_delay: bool,
    finished_agent_fields: bool,
    crawl_delay_set_real_name: bool,
    rules: Vec<u32>,
    crawl_delay: i64,
}

impl ParseState {
    /// ParseState.setCrawlDelay
    fn set_crawl_delay(&mut self, delay: i64) {
        if self.matched_real_name {
            if self.crawl_delay_set_real_name && self.adding_crawl_delay {
                // defined twice for the agent: the shortest wins
                if self.crawl_delay > delay {
                    self.crawl_delay = delay;
                }
            } else {
                self.crawl_delay = delay;
            }
            self.crawl_delay_set_real_name = true;
        } else if self.crawl_delay == UNSET_CRAWL_DELAY || self.crawl_delay > delay {
            self.crawl_delay = delay;
        }
    }
}

/// Replay the parse for one agent name. `matches`: the (sorted) User-agent token indices whose
/// value matches the name, `None` for a name no line matches.
///
/// Before the first matching User-agent line the state does not depend on the name, and at that
/// line it is always the same (rules and crawl-delay of `*` groups are cleared because
/// `matchedWildcard` must be set if any were collected), so a named replay starts there. It
/// stops once past the last matching line with nothing being collected any more (only a
/// matching line could switch collection back on: `*` is ignored after a named match).
fn replay(toks: &[Tok], ua_names: &[String], rank: &[u32], matches: Option<&[u32]>) -> Selection {
    let mut st = ParseState {
        matched_real_name: false,
        matched_wildcard: false,
        adding_rules: false,
        adding_crawl_delay: false,
        finished_agent_fields: false,
        crawl_delay_set_real_name: false,
        rules: Vec::new(),
        crawl_delay: UNSET_CRAWL_DELAY,
    };
    let mut start = 0usize;
    let mut next_match = 0usize;
    let last_match = matches.and_then(|m| m.last().copied());
    if let Some(m) = matches {
        if let Some(&first) = m.first() {
            // Locate the token of the first matching User-agent line.
            start = toks
                .iter()
                .position(|t| matches!(t, Tok::UserAgent(u) if *u == first))
                .unwrap_or(toks.len());
        }
    }
    for tok in &toks[start..] {
        match *tok {
            Tok::UserAgent(u) => {
                if st.adding_rules && st.finished_agent_fields {
                    st.adding_rules = false;
                    st.adding_crawl_delay = false;
                }
                st.finished_agent_fields = false;
                let is_match = match matches {
                    Some(m) if next_match < m.len() && m[next_match] == u => {
                        next_match += 1;
                        true
                    }
                    _ => false,
                };
                let name = &ua_names[u as usize];
                if name.is_empty() {
                    // ignore empty names
                } else if name == "*" && !st.matched_real_name {
                    st.matched_wildcard = true;
                    st.adding_rules = true;
                    st.adding_crawl_delay = true;
                } else if is_match {
                    if st.matched_wildcard {
                        st.rules.clear();
                        st.crawl_delay = UNSET_CRAWL_DELAY;
                    }
                    st.matched_real_name = true;
                    st.adding_rules = true;
                    st.adding_crawl_delay = true;
                    st.matched_wildcard = false;
                }
            }
            Tok::Rule { rule } => {
                st.finished_agent_fields = true;
                if st.adding_rules {
                    if let Some(r) = rule {
                        st.rules.push(rank[r as usize]);
                    }
                }
            }
            Tok::CrawlDelay(v) => {
                if st.adding_crawl_delay {
                    if let Some(d) = v {
                        st.set_crawl_delay(d);
                    }
                }
                st.adding_crawl_delay = false;
            }
        }
        if let (Some(m), Some(_)) = (matches, last_match) {
            if next_match >= m.len() && !st.adding_rules && !st.adding_crawl_delay {
                break;
            }
        }
    }
    st.rules.sort_unstable();
    let scope = if st.matched_real_name {
        Scope::Named
    } else if st.matched_wildcard {
        Scope::Star
    } else {
        Scope::None
    };
    Selection {
        rules: st.rules,
        crawl_delay_ms: st.crawl_delay,
        scope,
    }
}

impl Family for CcbotRobots {
    const NAME: &'static str = "ccbot";
    const HOW_IT_DIFFERS: &'static str =
        "crawler-commons: exact agent name, escapes normalised, wildcards without backtracking";
    const READS_CRAWL_DELAY: bool = true;
    type Path = String;

    fn read(doc: Document<'_, '_>) -> Self {
        CcbotRobots::parse(doc.body)
    }

    fn answer(&self, _doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        CcbotRobots::answer(self, agent, url)
    }

    fn crawl_delay(&self, _doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        CcbotRobots::crawl_delay(self, agent)
    }

    fn crawl_delay_blocks(&self, agent: &str) -> bool {
        CcbotRobots::crawl_delay_blocks(self, agent)
    }

    fn selection(&self, _doc: Document<'_, '_>, agent: &str) -> Option<family::Selection> {
        Some(family::Selection::One(self.selection_id(agent)))
    }

    fn request_path(&self, url: &str) -> String {
        CcbotRobots::request_path(url)
    }

    fn allowed_paths<'p>(
        &'p self,
        _doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p String> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        CcbotRobots::allowed_paths(self, agent, paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRLF: &str = "\r\n";

    fn allowed(body: &str, agent: &str, url: &str) -> bool {
        CcbotRobots::parse(body.as_bytes())
            .answer(agent, url)
            .allowed
    }

    fn delay_ms(body: &str, agent: &str) -> i64 {
        let r = CcbotRobots::parse(body.as_bytes());
        if r.allow_all {
            return UNSET_CRAWL_DELAY;
        }
        r.selection(agent).crawl_delay_ms
    }

    // ---- crawler-commons SimpleRobotRulesParserTest ports (crawler-commons-1.6 tag) ----

    /// SimpleRobotRulesParserTest.testEmptyRules
    #[test]
    fn cc_empty_rules() {
        assert!(allowed("", "anybot", "http://www.domain.com/anypage.html"));
        assert_eq!(
            CcbotRobots::parse(b"")
                .answer("anybot", "http://x.com/")
                .scope,
            Scope::None
        );
    }

    /// SimpleRobotRulesParserTest.testQueryParamInDisallow
    #[test]
    fn cc_query_param_in_disallow() {
        let body = "User-agent: *\r\nDisallow: /index.cfm?fuseaction=sitesearch.results*";
        assert!(!allowed(body, "anybot", "http://searchservice.domain.com/index.cfm?fuseaction=sitesearch.results&type=People&qry=california&pg=2"));
    }

    /// SimpleRobotRulesParserTest.testGooglePatternMatching1
    #[test]
    fn cc_google_pattern_matching_1() {
        for body in [
            "User-agent: *\r\nDisallow: /fish\r\n",
            "User-agent: *\r\nDisallow: /fish*\r\n",
        ] {
            for (exp, u) in [
                (false, "http://www.fict.com/fish"),
                (false, "http://www.fict.com/fish.html"),
                (false, "http://www.fict.com/fish/salmon.html"),
                (false, "http://www.fict.com/fishheads"),
                (false, "http://www.fict.com/fishheads/yummy.html"),
                (false, "http://www.fict.com/fish.php?id=anything"),
                (true, "http://www.fict.com/Fish.asp"),
                (true, "http://www.fict.com/catfish"),
                (true, "http://www.fict.com/?id=fish"),
                (true, "http://www.fict.com/fis"),
            ] {
                assert_eq!(allowed(body, "anybot", u), exp, "{body:?} {u}");
            }
        }
    }

    /// SimpleRobotRulesParserTest.testGooglePatternMatching2
    #[test]
    fn cc_google_pattern_matching_2() {
        let body = "User-agent: *\r\nDisallow: /fish/\r\n";
        for (exp, u) in [
            (false, "http://www.fict.com/fish/"),
            (false, "http://www.fict.com/fish/?id=anything"),
            (false, "http://www.fict.com/fish/salmon.htm"),
            (true, "http://www.fict.com/fish"),
            (true, "http://www.fict.com/fish.html"),
            (true, "http://www.fict.com/Fish/Salmon.asp"),
        ] {
            assert_eq!(allowed(body, "anybot", u), exp, "{u}");
        }
    }

    /// SimpleRobotRulesParserTest.testGooglePatternMatching3
    #[test]
    fn cc_google_pattern_matching_3() {
        let body = "User-agent: *\r\nDisallow: /*.php\r\n";
        for (exp, u) in [
            (false, "http://www.fict.com/filename.php"),
            (false, "http://www.fict.com/folder/filename.php"),
            (false, "http://www.fict.com/folder/filename.php?parameters"),
            (false, "http://www.fict.com/folder/any.php.file.html"),
            (false, "http://www.fict.com/filename.php/"),
            (true, "http://www.fict.com/"),
            (true, "http://www.fict.com/windows.PHP"),
        ] {
            assert_eq!(allowed(body, "anybot", u), exp, "{u}");
        }
    }

    /// SimpleRobotRulesParserTest.testGooglePatternMatching4
    #[test]
    fn cc_google_pattern_matching_4() {
        let body = "User-agent: *\r\nDisallow: /*.php$\r\n";
        for (exp, u) in [
            (false, "http://www.fict.com/filename.php"),
            (false, "http://www.fict.com/folder/filename.php"),
            (true, "http://www.fict.com/filename.php?parameters"),
            (true, "http://www.fict.com/filename.php/"),
            (true, "http://www.fict.com/filename.php5"),
            (true, "http://www.fict.com/windows.PHP"),
        ] {
            assert_eq!(allowed(body, "anybot", u), exp, "{u}");
        }
    }

    /// SimpleRobotRulesParserTest.testGooglePatternMatching5 and 6
    #[test]
    fn cc_google_pattern_matching_5_6() {
        let body = "User-agent: *\r\nDisallow: /fish*.php\r\n";
        assert!(!allowed(body, "anybot", "http://www.fict.com/fish.php"));
        assert!(!allowed(
            body,
            "anybot",
            "http://www.fict.com/fishheads/catfish.php?parameters"
        ));
        assert!(allowed(body, "anybot", "http://www.fict.com/Fish.PHP"));
        let body = "User-agent: *\r\nDisallow: /*fish*.php\r\n";
        assert!(!allowed(body, "anybot", "http://www.fict.com/fish.php"));
        assert!(!allowed(
            body,
            "anybot",
            "http://www.fict.com/superfishheads/catfish.php?parameters"
        ));
        assert!(allowed(
            body,
            "anybot",
            "http://www.fict.com/fishheads/catfish.htm"
        ));
    }

    /// SimpleRobotRulesParserTest.testCommentedOutLines
    #[test]
    fn cc_commented_out_lines() {
        let body = "#user-agent: testAgent\n\n#allow: /index.html\n#allow: /test\n\n#user-agent: test\n\n#allow: /index.html\n#disallow: /test\n\n#user-agent: someAgent\n\n#disallow: /index.html\n#disallow: /test\n\n";
        assert!(allowed(
            body,
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testRobotsTxtAlwaysAllowed (SimpleRobotRules.isAllowedPath)
    #[test]
    fn cc_robots_txt_always_allowed() {
        let body = "User-agent: *\r\nDisallow: /";
        let r = CcbotRobots::parse(body.as_bytes());
        let a = r.answer("any-darn-crawler", "http://www.domain.com/robots.txt");
        assert!(a.allowed);
        assert_eq!(a.line, 0);
        // only the exact path: with a query it is an ordinary URL
        assert!(
            !r.answer("x", "http://www.domain.com/robots.txt?x=1")
                .allowed
        );
    }

    /// SimpleRobotRulesParserTest.testAgentNotListed
    #[test]
    fn cc_agent_not_listed() {
        let body = "User-agent: crawler1\r\nDisallow: /index.html\r\nAllow: /\r\n\r\nUser-agent: crawler2\r\nDisallow: /";
        assert!(allowed(
            body,
            "crawler3",
            "http://www.domain.com/anypage.html"
        ));
        assert!(allowed(
            body,
            "crawler3",
            "http://www.domain.com/index.html"
        ));
        assert_eq!(
            CcbotRobots::parse(body.as_bytes())
                .answer("crawler3", "http://d.com/")
                .scope,
            Scope::None
        );
    }

    /// SimpleRobotRulesParserTest.testNonAsciiEncoding
    #[test]
    fn cc_non_ascii_encoding() {
        let body = "User-agent: * # \u{A2} \u{20B5}\r\nDisallow:";
        assert!(allowed(
            body,
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testUnicodeUnescapedPaths (UTF-8 and ISO-8859-1 bodies)
    #[test]
    fn cc_unicode_unescaped_paths() {
        let body = "User-agent: *\r\nDisallow: /bücher/\r\nDisallow: /k%C3%B6nyvek/\r\n\r\nUser-agent: GoodBot\r\nAllow: /";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(r.answer("mybot", "https://www.example.com/").allowed);
        assert!(
            !r.answer("mybot", "https://www.example.com/b%C3%BCcher/book1.html")
                .allowed
        );
        assert!(
            !r.answer("mybot", "https://www.example.com/bücher/book2.html")
                .allowed
        );
        assert!(
            !r.answer("mybot", "https://www.example.com/k%C3%B6nyvek/book1.html")
                .allowed
        );
        assert!(
            !r.answer("mybot", "https://www.example.com/könyvek/book2.html")
                .allowed
        );
        // ISO-8859-1 bytes: invalid UTF-8 is replaced, only that rule is affected
        let latin1: Vec<u8> = body.chars().map(|c| c as u32 as u8).collect();
        let r = CcbotRobots::parse(&latin1);
        assert!(r.answer("goodbot", "https://www.example.com/").allowed);
        assert!(
            r.answer("goodbot", "https://www.example.com/b%C3%BCcher/book1.html")
                .allowed
        );
        assert!(r.answer("mybot", "https://www.example.com/").allowed);
        assert!(
            !r.answer("mybot", "https://www.example.com/k%C3%B6nyvek/book1.html")
                .allowed
        );
        assert!(
            !r.answer("mybot", "https://www.example.com/könyvek/book2.html")
                .allowed
        );
    }

    /// SimpleRobotRulesParserTest.testEscapedPaths (all CSV rows)
    #[test]
    fn cc_escaped_paths() {
        let rows: &[(bool, &str, &str)] = &[
            (true, "/*%20", "https://www.example.com/"),
            (false, "/*%20", "https://www.example.com/foobar%20/"),
            (true, "/*%20", "https://www.example.com/foobar/"),
            (true, "/*%2F*", "https://www.example.com/path/index.html"),
            (
                false,
                "/*%2F*",
                "https://www.example.com/topic/9%2F11/index.html",
            ),
            (
                false,
                "/topic/9%2F11/",
                "https://www.example.com/topic/9%2F11/index.html",
            ),
            (
                false,
                "/topic/9%2F11/",
                "https://www.example.com/topic/9%2f11/index.html",
            ),
            (
                false,
                "/q?*mime=application%2Fpdf",
                "https://www.example.com/q?mime=application%2Fpdf",
            ),
            (false, "/$", "https://www.example.com/"),
            (true, "/$", "https://www.example.com/foobar"),
            (true, "/%24", "https://www.example.com/"),
            (false, "/%24", "https://www.example.com/%24100"),
            (false, "/%24", "https://www.example.com/$100"),
            (
                true,
                "/search/%2A/",
                "https://www.example.com/search/foobar/",
            ),
            (false, "/search/%2A/", "https://www.example.com/search/%2A/"),
            (false, "/search/%2A/", "https://www.example.com/search/%2a/"),
            (false, "/search/%2a/", "https://www.example.com/search/%2a/"),
            (false, "/search/%2a/", "https://www.example.com/search/*/"),
            (
                false,
                "/search/*/",
                "https://www.example.com/search/foobar/",
            ),
            (
                false,
                "/foo/bar?baz=quz",
                "https://www.example.com/foo/bar?baz=quz",
            ),
            (
                false,
                "/foo/bar?baz=https://foo.bar",
                "https://www.example.com/foo/bar?baz=https://foo.bar",
            ),
            (
                false,
                "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
                "https://www.example.com/foo/bar?baz=https%3A%2F%2Ffoo.bar",
            ),
            (
                false,
                "/foo/bar/\u{30C4}",
                "https://www.example.com/foo/bar/%E3%83%84",
            ),
            (
                false,
                "/foo/bar/%E3%83%84",
                "https://www.example.com/foo/bar/%E3%83%84",
            ),
            (
                false,
                "/foo/bar/%62%61%7A",
                "https://www.example.com/foo/bar/baz",
            ),
            (
                false,
                "/path/file-with-a-%2A.html",
                "https://www.example.com/path/file-with-a-*.html",
            ),
            (
                true,
                "/path/file-with-a-%2A.html",
                "https://www.example.com/path/file-with-a-foo.html",
            ),
            (
                false,
                "/path/file-with-a-%2A.html",
                "https://www.example.com/path/file-with-a-%2A.html",
            ),
            (false, "/path/foo-%24", "https://www.example.com/path/foo-$"),
            (true, "/path/foo-%24", "https://www.example.com/path/foo-"),
            (
                false,
                "/path/foo-%24",
                "https://www.example.com/path/foo-%24",
            ),
        ];
        for &(exp, rule, url) in rows {
            let body = format!("User-agent: *{CRLF}Disallow: {rule}{CRLF}Allow: /");
            assert_eq!(
                allowed(&body, "mybot", url),
                exp,
                "Disallow: {rule} vs {url}"
            );
        }
    }

    /// SimpleRobotRulesParserTest.testSimplestAllowAll / testEmptyDisallow / testEmptyAllow
    #[test]
    fn cc_empty_values_allow_all() {
        assert!(allowed(
            "User-agent: *\r\nDisallow:",
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
        assert!(allowed(
            "User-agent: *\r\nAllow:",
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testDisallowWithQueryOnly (no path => "/")
    #[test]
    fn cc_disallow_with_query_only() {
        let body = "User-agent: *\r\nDisallow: /";
        assert!(!allowed(body, "anybot", "http://www.example.com"));
        assert!(!allowed(body, "anybot", "http://www.example.com?q=a"));
    }

    /// SimpleRobotRulesParserTest.testMixedEndings2 / testRfpCases2 (agent "Unknown/1.0"; in
    /// exact mode it matches no group) – includes U+0085 as a line break.
    #[test]
    fn cc_mixed_endings_and_rfp_wildcard() {
        let body = "# /robots.txt for http://www.fict.org/\r\n# comments to webmaster@fict.org\n\rUser-agent: unhipbot\nDisallow: /\r\r\nUser-agent: webcrawler\nUser-agent: excite\rDisallow: \u{85}\rUser-agent: *\r\nDisallow: /org/plans.html\nAllow: /org/\rAllow: /serv\r\nAllow: /~mak\nDisallow: /\r\n";
        for (exp, u) in [
            (false, "http://www.fict.org/"),
            (false, "http://www.fict.org/index.html"),
            (true, "http://www.fict.org/robots.txt"),
            (true, "http://www.fict.org/server.html"),
            (true, "http://www.fict.org/services/fast.html"),
            (true, "http://www.fict.org/services/slow.html"),
            (false, "http://www.fict.org/orgo.gif"),
            (true, "http://www.fict.org/org/about.html"),
            (false, "http://www.fict.org/org/plans.html"),
            (false, "http://www.fict.org/%7Ejim/jim.html"),
            (true, "http://www.fict.org/%7Emak/mak.html"),
        ] {
            assert_eq!(allowed(body, "Unknown/1.0", u), exp, "{u}");
        }
        // the named groups, as single product tokens
        assert!(!allowed(
            body,
            "unhipbot",
            "http://www.fict.org/server.html"
        ));
        assert!(allowed(
            body,
            "webcrawler",
            "http://www.fict.org/org/plans.html"
        ));
        assert!(allowed(body, "excite", "http://www.fict.org/"));
    }

    /// SimpleRobotRulesParserTest.testNutchCases (Agent1, exact) and testNutchCases3 (Agent5)
    #[test]
    fn cc_nutch_cases() {
        let body = "User-Agent: Agent1 #foo\rDisallow: /a\rDisallow: /b/a\r#Disallow: /c\r\r\rUser-Agent: Agent2 Agent3#foo\rUser-Agent: Agent4\rDisallow: /d\rDisallow: /e/d/\r\rUser-Agent: *\rDisallow: /foo/bar/\r";
        let cases = [
            ("/a", false, true),
            ("/a/", false, true),
            ("/a/bloh/foo.html", false, true),
            ("/b", true, true),
            ("/b/a", false, true),
            ("/b/a/index.html", false, true),
            ("/b/b/foo.html", true, true),
            ("/c", true, true),
            ("/c/a", true, true),
            ("/c/a/index.html", true, true),
            ("/c/b/foo.html", true, true),
            ("/d", true, true),
            ("/d/a", true, true),
            ("/e/a/index.html", true, true),
            ("/e/d", true, true),
            ("/e/d/foo.html", true, true),
            ("/e/doh.html", true, true),
            ("/f/index.html", true, true),
            ("/foo/bar/baz.html", true, false),
            ("/f/", true, true),
        ];
        for (p, agent1, agent5) in cases {
            let u = format!("http://www.domain.com{p}");
            assert_eq!(allowed(body, "Agent1", &u), agent1, "Agent1 {p}");
            assert_eq!(allowed(body, "Agent5", &u), agent5, "Agent5 {p}");
        }
        // exact mode: "Agent2 Agent3" is not a product token; its leading token is "agent"
        // (digits stop it), so Agent2 does not match it, but Agent4 matches its own line.
        assert!(allowed(body, "Agent2", "http://www.domain.com/d"));
        assert!(!allowed(body, "Agent4", "http://www.domain.com/d"));
        assert!(!allowed(body, "Agent", "http://www.domain.com/d"));
    }

    /// SimpleRobotRulesParserTest.testHtmlMarkupInRobotsTxt
    #[test]
    fn cc_html_markup_in_robots_txt() {
        let body = "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\"><HTML>\n<HEAD>\n<TITLE>/robots.txt</TITLE>\n</HEAD>\n<BODY>\nUser-agent: mybot<BR>\nDisallow: <BR>\nCrawl-Delay: 10<BR>\n\nUser-agent: *<BR>\nDisallow: /<BR>\nCrawl-Delay: 30<BR>\n\n</BODY>\n</HTML>\n";
        assert!(allowed(body, "mybot", "http://www.domain.com/index.html"));
        assert_eq!(delay_ms(body, "mybot"), 10000);
        assert!(!allowed(
            body,
            "bogusbot",
            "http://www.domain.com/index.html"
        ));
        assert_eq!(delay_ms(body, "bogusbot"), 30000);
    }

    /// SimpleRobotRulesParserTest.testIgnoreOfHtml
    #[test]
    fn cc_ignore_of_html() {
        let body = "<HTML><HEAD><TITLE>Site under Maintenance</TITLE></HTML>";
        assert!(allowed(body, "anybot", "http://www.domain.com/"));
        // and the text/html content type alone triggers it too (isHtmlType)
        let r = CcbotRobots::parse_with_content_type(
            b"Disallow: /\n",
            Some("Text/HTML; charset=utf-8"),
        );
        assert!(r.answer("anybot", "http://d.com/x").allowed);
        let r = CcbotRobots::parse_with_content_type(
            b"User-agent: *\nDisallow: /<b>x</b>\n",
            Some("text/html"),
        );
        assert!(!r.answer("anybot", "http://d.com/x").allowed);
    }

    /// SimpleRobotRulesParserTest.testHeritrixCases (single-token agents, exact mode)
    #[test]
    fn cc_heritrix_cases() {
        let body = "User-agent: *\nDisallow: /cgi-bin/\nDisallow: /details/software\n\nUser-agent: denybot\nDisallow: /\n\nUser-agent: allowbot1\nDisallow: \n\nUser-agent: allowbot2\nDisallow: /foo\nAllow: /\n\nUser-agent: delaybot\nDisallow: /\nCrawl-Delay: 20\nAllow: /images/\n";
        assert!(allowed(body, "allowbot1", "http://www.domain.com/path"));
        assert!(allowed(body, "allowbot2", "http://www.domain.com/path"));
        assert!(!allowed(body, "allowbot2", "http://www.domain.com/foo"));
        assert!(!allowed(body, "denybot", "http://www.domain.com/"));
        assert_eq!(delay_ms(body, "denybot"), UNSET_CRAWL_DELAY);
        assert!(allowed(body, "anonbot", "http://www.domain.com/path"));
        assert!(!allowed(
            body,
            "anonbot",
            "http://www.domain.com/cgi-bin/foo.pl"
        ));
        assert_eq!(delay_ms(body, "delaybot"), 20000);
        // Nutch does not split http.agent.name: the whole string is one (unmatched) name
        assert!(allowed(
            body,
            "Mozilla denybot 99.9",
            "http://www.domain.com/path"
        ));
    }

    /// SimpleRobotRulesParserTest.testCaseSensitivePaths
    #[test]
    fn cc_case_sensitive_paths() {
        let body = "User-agent: *\r\nAllow: /AnyPage.html\r\nAllow: /somepage.html\r\nDisallow: /";
        assert!(allowed(
            body,
            "anybot",
            "http://www.domain.com/AnyPage.html"
        ));
        assert!(!allowed(
            body,
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
        assert!(allowed(
            body,
            "anybot",
            "http://www.domain.com/somepage.html"
        ));
        assert!(!allowed(
            body,
            "anybot",
            "http://www.domain.com/SomePage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testEmptyDisallowLowestPrecedence
    #[test]
    fn cc_empty_disallow_lowest_precedence() {
        for body in [
            "User-agent: *\r\nDisallow: /disallowed/\r\nAllow: /allowed/\r\nDisallow: ",
            "User-agent: *\r\nDisallow: /disallowed/\r\nAllow: /allowed/\r\nUser-agent: *\r\nDisallow: ",
        ] {
            assert!(allowed(body, "anybot", "http://www.example.com/"));
            assert!(allowed(body, "anybot", "http://www.example.com/anypage.html"));
            assert!(!allowed(body, "anybot", "http://www.example.com/disallowed/index.html"));
            assert!(allowed(body, "anybot", "http://www.example.com/allowed/index.html"));
        }
    }

    /// SimpleRobotRulesParserTest.testMultiWildcard: `*` groups merge.
    #[test]
    fn cc_multi_wildcard() {
        let body = "User-agent: *\r\nDisallow: /index.html\r\nAllow: /\r\n\r\nUser-agent: *\r\nDisallow: /";
        assert!(!allowed(body, "anybot", "http://www.domain.com/index.html"));
        assert!(allowed(
            body,
            "anybot",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testMultiMatches: a prefix name ("crawler") does not match.
    #[test]
    fn cc_multi_matches() {
        let body = "User-agent: crawlerbot\r\nDisallow: /index.html\r\nAllow: /\r\n\r\nUser-agent: crawler\r\nDisallow: /";
        assert!(!allowed(
            body,
            "crawlerbot",
            "http://www.domain.com/index.html"
        ));
        assert!(allowed(
            body,
            "crawlerbot",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testMultiWordAgentName ("Download Ninja" as one name)
    #[test]
    fn cc_multi_word_agent_name() {
        let body = "User-agent: Download Ninja\r\nDisallow: /index.html\r\nAllow: /";
        assert!(!allowed(
            body,
            "Download Ninja",
            "http://www.domain.com/index.html"
        ));
        assert!(allowed(
            body,
            "Download Ninja",
            "http://www.domain.com/anypage.html"
        ));
        // and its leading token "download" matches too (not a valid product token)
        assert!(!allowed(
            body,
            "download",
            "http://www.domain.com/index.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testAgentTokenMatch: "foo/1.2" and "foo bar" match "foo".
    #[test]
    fn cc_agent_token_match() {
        for body in [
            "User-agent: foo/1.2\r\nDisallow: /index.html\r\nAllow: /",
            "User-agent: foo bar\r\nDisallow: /index.html\r\nAllow: /",
        ] {
            assert!(!allowed(body, "foo", "http://www.domain.com/index.html"));
            assert!(allowed(body, "foo", "http://www.domain.com/anypage.html"));
        }
    }

    /// SimpleRobotRulesParserTest.testUnsupportedFields: unknown lines do not end a group.
    #[test]
    fn cc_unsupported_fields() {
        let body = "User-agent: crawler1\r\nDisallow: /index.html\r\nAllow: /\r\nnewfield: 234\r\nUser-agent: crawler2\r\nDisallow: /";
        assert!(!allowed(
            body,
            "crawler2",
            "http://www.domain.com/anypage.html"
        ));
        assert!(allowed(
            body,
            "crawler1",
            "http://www.domain.com/anypage.html"
        ));
    }

    /// SimpleRobotRulesParserTest.testCrawlDelay
    #[test]
    fn cc_crawl_delay() {
        let body = "User-agent: bixo\rCrawl-delay: 10\rUser-agent: foobot\rCrawl-delay: 20\rUser-agent: *\rDisallow:/baz\r";
        assert_eq!(delay_ms(body, "bixo"), 10000);
        let body = "User-agent: foobot\rCrawl-delay: 20\rUser-agent: *\rDisallow:/baz\r";
        assert_eq!(delay_ms(body, "bixo"), UNSET_CRAWL_DELAY);
        assert_eq!(
            CcbotRobots::parse(body.as_bytes()).crawl_delay("bixo"),
            None
        );
    }

    /// SimpleRobotRulesParserTest.testBigCrawlDelay expects "disallow all" with the library's
    /// default max (300 s); Nutch sets `setMaxCrawlDelay(Long.MAX_VALUE)` (RobotRulesParser.java),
    /// so the rules stay as written and the fetcher's 30 s limit blocks instead.
    #[test]
    fn nutch_big_crawl_delay_does_not_disallow_but_blocks() {
        let body = "User-agent: *\rCrawl-delay: 3600\rDisallow:\r";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(r.answer("bixo", "http://www.domain.com/").allowed);
        assert_eq!(r.crawl_delay("bixo"), Some(3600.0));
        assert!(r.crawl_delay_blocks("bixo"));
    }

    /// FetcherThread.java: `getCrawlDelay() > maxCrawlDelay` is strict, 30 s is still fetched.
    #[test]
    fn nutch_crawl_delay_block_threshold() {
        let r = CcbotRobots::parse(b"User-agent: *\nCrawl-delay: 30\n");
        assert!(!r.crawl_delay_blocks("ccbot"));
        let r = CcbotRobots::parse(b"User-agent: *\nCrawl-delay: 30.001\n");
        assert!(r.crawl_delay_blocks("ccbot"));
        let r = CcbotRobots::parse(b"User-agent: *\nCrawl-delay: -40\n");
        assert!(!r.crawl_delay_blocks("ccbot"));
        assert_eq!(r.crawl_delay("ccbot"), None);
    }

    /// SimpleRobotRulesParserTest.testBrokenKrugleRobotsTxtFile (exact-mode rows)
    #[test]
    fn cc_broken_krugle() {
        let body = "User-agent: *\rDisallow: /maintenance.html\rDisallow: /perl/\rDisallow: /cgi-bin/\rDisallow: /examples/\rCrawl-delay: 3\r\rUser-agent: googlebot\rCrawl-delay: 1\r\rUser-agent: qihoobot\rDisallow: /";
        assert_eq!(delay_ms(body, "googlebot"), 1000);
        assert!(!allowed(
            body,
            "googlebot",
            "http://www.krugle.com/examples/index.html"
        ));
        assert!(!allowed(body, "googlebot", "http://www.krugle.com/"));
        assert_eq!(delay_ms(body, "qihoobot"), UNSET_CRAWL_DELAY);
        assert!(!allowed(body, "qihoobot", "http://www.krugle.com/"));
        assert_eq!(delay_ms(body, "anybot"), 3000);
        assert!(!allowed(
            body,
            "anybot",
            "http://www.krugle.com/examples/index.html"
        ));
        assert!(allowed(body, "anybot", "http://www.krugle.com/"));
    }

    /// SimpleRobotRulesParserTest.testSelectCrawlDelayGroup
    #[test]
    fn cc_select_crawl_delay_group() {
        let body = "User-Agent: bingbot\r\nCrawl-delay: 1\r\n\r\nUser-Agent: msnbot\r\nCrawl-delay: 2\r\n\r\nUser-Agent: pinterestbot\r\nCrawl-delay: 0.2\r\n\r\nUser-agent: *\r\nDisallow: /login\r\nSitemap: http://www.example.com/sitemap.xml\r\nDisallow: /assets/";
        for (agent, d) in [
            ("bingbot", 1000),
            ("msnbot", 2000),
            ("anybot", UNSET_CRAWL_DELAY),
        ] {
            assert_eq!(delay_ms(body, agent), d, "{agent}");
            assert!(!allowed(body, agent, "http://www.example.com/login"));
            assert!(!allowed(body, agent, "http://www.example.com/assets/"));
            assert!(allowed(body, agent, "http://www.example.com/"));
        }
    }

    /// SimpleRobotRulesParserTest.testRobotsWithUTF8BOM / UTF16LEBOM / UTF16BEBOM
    #[test]
    fn cc_boms() {
        let text = "User-agent: *\nDisallow: /profile\n";
        let mut utf8 = vec![0xEF, 0xBB, 0xBF];
        utf8.extend_from_slice(text.as_bytes());
        let mut le = vec![0xFF, 0xFE];
        let mut be = vec![0xFE, 0xFF];
        for u in text.encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
            be.extend_from_slice(&u.to_be_bytes());
        }
        for body in [utf8, le, be] {
            let r = CcbotRobots::parse(&body);
            assert!(!r.answer("foobot", "http://www.domain.com/profile").allowed);
        }
        // without a BOM UTF-16 is read as UTF-8 and means nothing
        let mut nobom = Vec::new();
        for u in text.encode_utf16() {
            nobom.extend_from_slice(&u.to_le_bytes());
        }
        assert!(
            CcbotRobots::parse(&nobom)
                .answer("foobot", "http://www.domain.com/profile")
                .allowed
        );
    }

    /// SimpleRobotRulesParserTest.testFloatingPointCrawlDelay
    #[test]
    fn cc_floating_point_crawl_delay() {
        assert_eq!(
            delay_ms("User-agent: *\rCrawl-delay: 0.5\rDisallow:\r", "bixo"),
            500
        );
        assert_eq!(
            CcbotRobots::parse(b"User-agent: *\rCrawl-delay: 0.5\r").crawl_delay("bixo"),
            Some(0.5)
        );
    }

    /// SimpleRobotRulesParserTest.testAllowBeforeDisallow: equal length => Allow.
    #[test]
    fn cc_allow_before_disallow() {
        let body = "User-agent: *\r\nDisallow: /fish\r\nAllow: /fish\r\n";
        let a = CcbotRobots::parse(body.as_bytes()).answer("anybot", "http://www.fict.com/fish");
        assert!(a.allowed);
        assert_eq!(a.directive, Some(RuleKind::Allow));
        assert_eq!(a.line, 3);
    }

    /// SimpleRobotRulesParserTest.testSpacesInMultipleUserAgentNames (exact mode: "one, two,
    /// three" is not a token; its leading token "one" matches "One" only)
    #[test]
    fn cc_spaces_in_multiple_user_agent_names() {
        let body =
            "User-agent: One, Two, Three\r\nDisallow: /\r\n\r\nUser-agent: *\r\nAllow: /\r\n";
        assert!(!allowed(body, "One", "http://www.fict.com/fish"));
        assert!(allowed(body, "Two", "http://www.fict.com/fish"));
        assert!(allowed(body, "anybot", "http://www.fict.com/fish"));
    }

    /// SimpleRobotRulesParserTest.testMatchingOfUserAgentNamesIndependentFromSequentialOrder
    #[test]
    fn cc_user_agent_order_independent() {
        let b1 = "User-agent: crawlerbot\nDisallow: /foo/bar\n";
        let b2 = "User-agent: crawler\nAllow: /foo/bar\n";
        for body in [format!("{b1}\n{b2}"), format!("{b2}\n{b1}")] {
            assert!(!allowed(&body, "crawlerbot", "https://example.com/foo/bar"));
            assert!(allowed(&body, "crawler", "https://example.com/foo/bar"));
        }
    }

    /// SimpleRobotRulesParserTest.testMatchingUserAgentNamesHttpHeader (exact mode rows)
    #[test]
    fn cc_matching_user_agent_http_header() {
        let body = "User-agent: Mozilla/5.0 (compatible; Butterfly/1.0; +http://labs.topsy.com/butterfly/) Gecko/2009032608 Firefox/3.0.8\nDisallow: /";
        assert!(allowed(body, "butterfly", "http://example.org/"));
        assert!(!allowed(body, "Mozilla/5.0 (compatible; Butterfly/1.0; +http://labs.topsy.com/butterfly/) Gecko/2009032608 Firefox/3.0.8", "http://example.org/"));
        assert!(allowed(
            body,
            "mozilla/5.0 (compatible; mybot/1.0)",
            "http://example.org/"
        ));
        // leading token of the line is "mozilla"
        assert!(!allowed(body, "Mozilla", "http://example.org/"));
    }

    /// SimpleRobotRulesParserTest.testExamplesRobotsTxtRFC9309 (rule-group-merging part)
    #[test]
    fn cc_rfc9309_group_merging() {
        // src/test/resources/robots/rfc9309-example-rule-group-merging.txt
        let body = "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n\nuser-agent: BazBot\ndisallow: /baz\n";
        for p in ["/foo", "/bar", "/baz"] {
            assert!(!allowed(
                body,
                "examplebot",
                &format!("https://example.org{p}")
            ));
        }
        assert!(!allowed(body, "anyotherbot", "https://example.org/foo"));
        assert!(allowed(body, "anyotherbot", "https://example.org/baz"));
        assert!(allowed(body, "bazbot", "https://example.org/foo"));
        assert!(!allowed(body, "bazbot", "https://example.org/baz"));
    }

    /// SimpleRobotRulesParserTest.testAPIemptyUserAgentList ("*" / "" => the `*` group)
    #[test]
    fn cc_empty_user_agent_list() {
        let body = "User-agent: *\r\nAllow: /allowed/\r\nDisallow: /\r\nUser-agent: allowedbot\r\nAllow: /";
        for agent in ["*", "", "anybot"] {
            assert!(allowed(
                body,
                agent,
                "https://www.example.com/allowed/page.html"
            ));
            assert!(!allowed(body, agent, "https://www.example.com/"));
        }
        assert!(allowed(body, "allowedbot", "https://www.example.com/"));
        assert!(allowed(body, "AllowedBot", "https://www.example.com/"));
    }

    /// SimpleRobotRulesParserTest.testMatchedWildcard: a named group clears the `*` rules.
    #[test]
    fn cc_matched_wildcard() {
        let body = "User-agent: *\r\nAllow: /\r\nUser-agent: anybot\r\nDisallow: /search";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(r.answer("foobot", "https://www.example.com/search").allowed);
        assert_eq!(
            r.answer("foobot", "https://www.example.com/search").scope,
            Scope::Star
        );
        let a = r.answer("anybot", "https://www.example.com/search");
        assert!(!a.allowed);
        assert_eq!(a.scope, Scope::Named);
        assert_eq!(a.line, 4);
        assert!(r.answer("anybot", "https://www.example.com/home").allowed);
    }

    /// SimpleRobotRulesParserTest.testDirectiveTypos-style: typo prefixes and blank separators.
    #[test]
    fn cc_directive_typos_and_blank_separator() {
        let body = "useragent: a\ndisalow: /x\n\nuser agent: b\ndissallow /y\n\nUser-Agents: c\ncrawl delay: 7\ndisallows: /z\n";
        assert!(!allowed(body, "a", "http://d.com/x"));
        assert!(!allowed(body, "b", "http://d.com/y"));
        assert!(!allowed(body, "c", "http://d.com/z"));
        assert_eq!(delay_ms(body, "c"), 7000);
        // "Disallowed: /q" is not a directive (prefix followed by a letter)
        assert!(allowed(
            "User-agent: *\nDisallowed: /q\n",
            "x",
            "http://d.com/q"
        ));
    }

    // ---- behaviours from the source, not covered by a crawler-commons test ----

    /// ruleMatches never backtracks: the piece after `*` is taken at its first occurrence.
    #[test]
    fn matcher_is_non_backtracking() {
        let body = "User-agent: *\nDisallow: /*.php$\n";
        assert!(!allowed(body, "x", "http://d.com/a.php"));
        assert!(allowed(body, "x", "http://d.com/a.php.php"));
        assert!(allowed(body, "x", "http://d.com/a.php?x.php"));
        // a trailing "*$" matches anything
        assert!(!allowed(
            "User-agent: *\nDisallow: /a*$\n",
            "x",
            "http://d.com/abc"
        ));
    }

    /// `$` only anchors at the end; mid-pattern it is literal and URL `$` is %24 => never matches.
    #[test]
    fn dollar_mid_pattern_never_matches() {
        let body = "User-agent: *\nDisallow: /a$b\n";
        assert!(allowed(body, "x", "http://d.com/a$b"));
        assert!(allowed(body, "x", "http://d.com/a%24b"));
    }

    /// isAllowedPath: the index.htm(l) quirk lets "Allow: /dir/index.html" allow "/dir/".
    #[test]
    fn index_html_special_case() {
        let body = "User-agent: *\nDisallow: /\nAllow: /dir/index.html\n";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(r.answer("x", "http://d.com/dir/").allowed);
        assert!(r.answer("x", "http://d.com/dir/index.html").allowed);
        assert!(!r.answer("x", "http://d.com/dir/other").allowed);
        let a = r.answer("x", "http://d.com/dir/");
        assert_eq!(a.pattern.as_deref(), Some("/dir/index.html"));
        assert_eq!(a.line, 3);
    }

    /// Precedence counts the pattern length with `*`/`$`, so a longer wildcard pattern wins.
    #[test]
    fn longest_pattern_including_wildcards_wins() {
        let body = "User-agent: *\nAllow: /page\nDisallow: /*age\n";
        // "/*age" (5) vs "/page" (5): tie => Allow
        assert!(allowed(body, "x", "http://d.com/page"));
        let body = "User-agent: *\nAllow: /page\nDisallow: /**age\n";
        assert!(!allowed(body, "x", "http://d.com/page"));
    }

    /// A User-agent line after Crawl-delay (not after a rule) does not close the group.
    #[test]
    fn crawl_delay_does_not_end_agent_list() {
        let body = "User-agent: ccbot\nCrawl-delay: 5\nUser-agent: other\nDisallow: /private\n";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(!r.answer("CCBot", "http://d.com/private").allowed);
        assert!(!r.answer("other", "http://d.com/private").allowed);
        assert_eq!(r.crawl_delay("CCBot"), Some(5.0));
        // only the first Crawl-delay after the User-agent line counts
        let r = CcbotRobots::parse(b"User-agent: ccbot\nCrawl-delay: 5\nCrawl-delay: 1\n");
        assert_eq!(r.crawl_delay("ccbot"), Some(5.0));
    }

    /// Named groups merge and the smallest crawl-delay wins; a later `*` group is ignored.
    #[test]
    fn named_groups_merge_and_later_star_ignored() {
        let body = "User-agent: CCBot\nDisallow: /a\nCrawl-delay: 9\n\nUser-agent: *\nDisallow: /b\nCrawl-delay: 1\n\nUser-agent: ccbot\nDisallow: /c\nCrawl-delay: 4\n";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(!r.answer("CCBot", "http://d.com/a").allowed);
        assert!(r.answer("CCBot", "http://d.com/b").allowed);
        assert!(!r.answer("CCBot", "http://d.com/c").allowed);
        assert_eq!(r.crawl_delay("CCBot"), Some(4.0));
        assert_eq!(r.crawl_delay("other"), Some(1.0));
    }

    /// Rules before any User-agent line are ignored (addingRules starts false).
    #[test]
    fn rules_before_user_agent_ignored() {
        let body = "Disallow: /\nUser-agent: *\nDisallow: /x\n";
        assert!(allowed(body, "x", "http://d.com/y"));
        assert!(!allowed(body, "x", "http://d.com/x"));
    }

    /// Product-token prefix rule: "ccbot2", "CCBot/2.0", "ccbot*" match ccbot; "ccbot-x" not.
    #[test]
    fn user_agent_leading_token_rule() {
        for ua in ["ccbot2", "CCBot/2.0", "ccbot*", "CCBot 2.0"] {
            let body = format!("User-agent: {ua}\nDisallow: /\n");
            assert!(!allowed(&body, "CCBot", "http://d.com/"), "{ua}");
        }
        assert!(allowed(
            "User-agent: ccbot-x\nDisallow: /\n",
            "CCBot",
            "http://d.com/"
        ));
        // the agent passed as a UA string matches nothing
        assert!(allowed(
            "User-agent: CCBot\nDisallow: /\n",
            "CCBot/2.0",
            "http://d.com/"
        ));
    }

    /// getPath: java.net.URI failures (space, `|`, bad `%`, relative URL) check "/" instead.
    #[test]
    fn url_parse_failure_checks_root() {
        let body = "User-agent: *\nDisallow: /a\n";
        assert!(allowed(body, "x", "http://d.com/a b"));
        assert!(allowed(body, "x", "http://d.com/a|b"));
        assert!(allowed(body, "x", "http://d.com/a%zz"));
        assert!(allowed(body, "x", "/a/relative"));
        assert!(!allowed(body, "x", "http://d.com/a#frag"));
        assert!(!allowed(
            "User-agent: *\nDisallow: /\n",
            "x",
            "http://d.com/a b"
        ));
    }

    /// Comments, CR/LF/CRLF and U+2028 split lines; blank lines do not end a group.
    #[test]
    fn line_splitting_and_comments() {
        let body = "User-agent: *\u{2028}Disallow: /a # comment\r\n\r\nDisallow: /b\rAllow: /a/b\n";
        let r = CcbotRobots::parse(body.as_bytes());
        assert!(!r.answer("x", "http://d.com/a").allowed);
        assert!(!r.answer("x", "http://d.com/b").allowed);
        let a = r.answer("x", "http://d.com/a/b");
        assert!(a.allowed);
        assert_eq!(a.line, 5);
    }

    /// Crawl-delay number parsing: Integer.parseInt vs Double.parseDouble.
    #[test]
    fn crawl_delay_number_forms() {
        for (v, exp) in [
            ("10", 10000),
            ("+3", 3000),
            ("1.5", 1500),
            ("1.", 1000),
            (".25", 250),
            ("2.5e1", 25000),
            ("1.5d", 1500),
            ("0x1.8p1", 3000),
            ("\u{0663}", 3000),
        ] {
            assert_eq!(
                delay_ms(&format!("User-agent: *\nCrawl-delay: {v}\n"), "x"),
                exp,
                "{v}"
            );
        }
        for v in ["abc", "1,5", "3000000000", "1e3", "10s"] {
            assert_eq!(
                delay_ms(&format!("User-agent: *\nCrawl-delay: {v}\n"), "x"),
                UNSET_CRAWL_DELAY,
                "{v}"
            );
        }
    }

    /// Body size: Nutch's http.content.limit truncates at 1 MiB before parsing.
    #[test]
    fn content_limit_truncates() {
        let mut body = b"User-agent: *\n".to_vec();
        body.resize(NUTCH_HTTP_CONTENT_LIMIT, b' ');
        body.extend_from_slice(b"\nDisallow: /\n");
        assert!(
            CcbotRobots::parse(&body)
                .answer("x", "http://d.com/")
                .allowed
        );
    }

    /// Never panics on odd input.
    #[test]
    fn no_panic_on_garbage() {
        let bodies: [&[u8]; 6] = [
            b"\xff\xfe\x00",
            b"\xfe\xff\xd8\x00",
            b"User-agent: *\nDisallow: %\n",
            b"<html>user-agent:<",
            b"User-agent: *\nDisallow: /\xe9*$\n",
            b"\r\n\r",
        ];
        for b in bodies {
            let r = CcbotRobots::parse(b);
            for u in [
                "",
                "http://",
                "http://[::1",
                "http://h:99999999999/",
                "http:x",
                "http://d.com/%",
                "\u{e9}",
            ] {
                let _ = r.answer("x", u);
                let _ = r.answer("\u{130}", u);
            }
        }
    }
}
