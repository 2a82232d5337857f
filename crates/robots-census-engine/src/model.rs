//! The compiled, immutable model of one robots.txt: what the parser builds in its
//! single pass, and what every table and verdict is read from.
//!
//! It borrows from the body it was parsed from; only percent-escaped patterns that
//! differ from the bytes as written are owned.

use std::borrow::Cow;

use crate::lint::Finding;
use crate::pattern::PatternKind;
use crate::tokenize::trim;

/// Allow or disallow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    /// An `Allow:` line.
    Allow,
    /// A `Disallow:` line (or one of its misspellings robots.cc accepts).
    Disallow,
}

impl RuleKind {
    /// Allow for `true`, Disallow for `false`.
    pub(crate) fn of(allow: bool) -> Self {
        if allow {
            RuleKind::Allow
        } else {
            RuleKind::Disallow
        }
    }

    /// `allow` or `disallow`, as the tables and JSON output write it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Disallow => "disallow",
        }
    }
}

/// A `User-agent:` line.
#[derive(Debug, Clone)]
pub struct AgentLine<'a> {
    /// Line number, as robots.cc counts lines (from 1).
    pub line: u32,
    /// The whole line as the parser kept it (for excerpts).
    pub text: &'a [u8],
    /// The value as written.
    pub value: &'a [u8],
    /// What robots.cc compares: the value cut to `[A-Za-z_-]*` (empty for `*`).
    pub token: &'a [u8],
    /// The line names the global group (`*`, or `*` then whitespace).
    pub is_star: bool,
    /// Index of its group in [`RobotsTxt::groups`].
    pub group: u32,
}

impl AgentLine<'_> {
    /// Whether this line names `agent` explicitly (a `*` line names no one).
    pub fn names(&self, agent: &[u8]) -> bool {
        count_work!(1);
        !self.is_star && super::agent::token_matches(self.token, agent)
    }
}

/// A run of user-agent lines and the rules that follow them, up to the next
/// user-agent line after a rule. Groups naming the same agent are kept apart here
/// and merged when matching, as robots.cc does.
#[derive(Debug, Clone)]
pub struct Group {
    /// Line of its first user-agent line.
    pub first_line: u32,
    /// Last line of a directive that belongs to the group.
    pub last_line: u32,
    /// Indexes into [`RobotsTxt::agents`].
    pub agents: std::ops::Range<usize>,
    /// Indexes into [`RobotsTxt::rules`].
    pub rules: std::ops::Range<usize>,
    /// One of its user-agent lines names the global group (`*`).
    pub has_star: bool,
    /// The first crawl-delay of the group that parses as a number of seconds.
    pub crawl_delay: Option<f64>,
}

/// An allow or disallow line.
#[derive(Debug, Clone)]
pub struct Rule<'a> {
    /// Line number, as robots.cc counts lines (from 1).
    pub line: u32,
    /// The whole line as the parser kept it (for excerpts).
    pub text: &'a [u8],
    /// Allow or disallow.
    pub kind: RuleKind,
    /// `None` for a rule before any user-agent line: robots.cc ignores it.
    pub group: Option<u32>,
    /// The value as written.
    pub value: &'a [u8],
    /// The percent-escaped pattern robots.cc matches; its length is the priority.
    pub pattern: Cow<'a, [u8]>,
    pub(crate) pattern_kind: PatternKind,
    /// For an Allow whose last segment starts with `index.htm`: the length of the
    /// pattern prefix up to and including that '/'. robots.cc also allows
    /// `prefix$` (the directory itself) with that priority plus one.
    pub(crate) index_prefix: Option<usize>,
}

impl<'a> Rule<'a> {
    /// The pattern holds a `*`.
    pub fn has_wildcard(&self) -> bool {
        matches!(self.pattern_kind, PatternKind::Wildcard { .. })
    }

    /// The pattern ends with `$`.
    pub fn has_end_anchor(&self) -> bool {
        self.pattern.last() == Some(&b'$')
    }

    /// The key as written on the line (`Disallow`, `disalow`, `ALLOW` ...): its text
    /// before the `:` or the first blank, trimmed as robots.cc trims.
    ///
    /// ```
    /// let doc = robots_census_engine::RobotsTxt::parse(b"User-agent: *\n  disalow /x\n");
    /// assert_eq!(doc.rules[0].key(), b"disalow");
    /// ```
    pub fn key(&self) -> &'a [u8] {
        let text = trim(self.text);
        let end = text
            .iter()
            .position(|b| matches!(b, b':' | b' ' | b'\t'))
            .unwrap_or(text.len());
        trim(&text[..end])
    }
}

/// A `Sitemap:` line (sitemaps belong to no group).
#[derive(Debug, Clone)]
pub struct Sitemap<'a> {
    /// Line number, as robots.cc counts lines (from 1).
    pub line: u32,
    /// The value as written.
    pub url: &'a [u8],
    /// `url` is an absolute http(s) or ftp URL with a host: the lint's
    /// `sitemap_not_absolute_url` and the census's `sitemaps.is_absolute` read it here.
    pub is_absolute: bool,
}

/// The keys robots.cc knows but does not use: `kUnsupportedTags` of google/robotstxt's
/// `reporting_robots.cc` (as of commit 4af32e5, which added content-signal,
/// content-usage, domain, request-rate, revisit-after and visit-time), whose
/// `RobotsParsingReporter` reports such a line as "unused" and any other key as
/// "unknown". The census records every one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OtherKey {
    /// `Clean-param` (Yandex).
    CleanParam,
    /// `Content-Signal` (Cloudflare's Content Signals Policy).
    ContentSignal,
    /// `Content-Usage` (IETF AIPREF).
    ContentUsage,
    /// `Crawl-delay` (Bing, Yandex and others read it; Google does not).
    CrawlDelay,
    /// `Domain`.
    Domain,
    /// `Host` (Yandex's preferred mirror).
    Host,
    /// `Noarchive`.
    Noarchive,
    /// `Nofollow`.
    Nofollow,
    /// `Noindex`.
    Noindex,
    /// `Request-rate`.
    RequestRate,
    /// `Revisit-after`.
    RevisitAfter,
    /// `Visit-time`.
    VisitTime,
    /// Any other key (robots.cc's "unknown"), kept verbatim in [`Other::key_text`].
    Unknown,
}

impl OtherKey {
    /// The known keys, in robots.cc's order (`kUnsupportedTags`).
    const KNOWN: [OtherKey; 12] = [
        OtherKey::CleanParam,
        OtherKey::ContentSignal,
        OtherKey::ContentUsage,
        OtherKey::CrawlDelay,
        OtherKey::Domain,
        OtherKey::Host,
        OtherKey::Noarchive,
        OtherKey::Nofollow,
        OtherKey::Noindex,
        OtherKey::RequestRate,
        OtherKey::RevisitAfter,
        OtherKey::VisitTime,
    ];

    /// The key named by `key` (compared as robots.cc does: the whole key, ASCII
    /// case-insensitively), or [`OtherKey::Unknown`]. `Content-Signals` is unknown to
    /// robots.cc, so it is here too.
    ///
    /// ```
    /// use robots_census_engine::OtherKey;
    /// assert_eq!(OtherKey::of(b"Content-Usage"), OtherKey::ContentUsage);
    /// assert_eq!(OtherKey::of(b"content-signals"), OtherKey::Unknown);
    /// ```
    pub fn of(key: &[u8]) -> Self {
        OtherKey::KNOWN
            .into_iter()
            .find(|k| key.eq_ignore_ascii_case(k.as_str().as_bytes()))
            .unwrap_or(OtherKey::Unknown)
    }

    /// The key's name in lower case; `unknown` for [`OtherKey::Unknown`].
    pub fn as_str(self) -> &'static str {
        match self {
            OtherKey::CleanParam => "clean-param",
            OtherKey::ContentSignal => "content-signal",
            OtherKey::ContentUsage => "content-usage",
            OtherKey::CrawlDelay => "crawl-delay",
            OtherKey::Domain => "domain",
            OtherKey::Host => "host",
            OtherKey::Noarchive => "noarchive",
            OtherKey::Nofollow => "nofollow",
            OtherKey::Noindex => "noindex",
            OtherKey::RequestRate => "request-rate",
            OtherKey::RevisitAfter => "revisit-after",
            OtherKey::VisitTime => "visit-time",
            OtherKey::Unknown => "unknown",
        }
    }
}

/// A line with a key robots.cc does not know.
#[derive(Debug, Clone)]
pub struct Other<'a> {
    /// Line number, as robots.cc counts lines (from 1).
    pub line: u32,
    /// Which key it is.
    pub key: OtherKey,
    /// The key as written.
    pub key_text: &'a [u8],
    /// The value as written.
    pub value: &'a [u8],
    /// The group open when the line was read, if any.
    pub group: Option<u32>,
}

/// Facts about the body as a whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BodyFacts {
    /// Length of the body given, before the 500 KiB cut.
    pub body_len: usize,
    /// Bytes parsed: `min(body_len, ROBOTS_PARSE_CAP)`.
    pub parsed_len: usize,
    /// The body is longer than the cut: the rest was not read.
    pub cut_at_cap: bool,
    /// The body starts with a UTF-8 byte order mark (robots.cc skips it).
    pub utf8_bom: bool,
    /// The body starts with a UTF-16 byte order mark (robots.cc finds no rules).
    pub utf16_bom: bool,
    /// The parsed bytes are valid UTF-8 (a character cut in two by the 500 KiB cut, at
    /// the very end, does not count against it).
    pub valid_utf8: bool,
    /// The parsed bytes hold a NUL.
    pub has_nul: bool,
    /// The body looks like an HTML page (an error page served as robots.txt).
    pub looks_like_html: bool,
}

/// Line counts of the parsed body, numbered as robots.cc numbers lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Every line.
    pub lines: u32,
    /// Lines with nothing but blanks.
    pub empty: u32,
    /// Lines with only a comment.
    pub comment: u32,
    /// `key: value` lines (whatever the key).
    pub directive: u32,
    /// Lines that are none of these: ignored.
    pub unparsed: u32,
}

/// Raw bytes as text, U+FFFD for invalid sequences. `str::from_utf8` first: its
/// ASCII fast path is several times quicker than the lossy decoder on valid text.
pub fn lossy_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Owned raw bytes as text, U+FFFD for invalid sequences: valid UTF-8 (nearly always)
/// becomes the string without a copy.
pub(crate) fn lossy_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A parsed robots.txt. Build with [`RobotsTxt::parse`]; ask with
/// [`RobotsTxt::verdict`].
#[derive(Debug, Clone)]
pub struct RobotsTxt<'a> {
    /// Facts about the body as a whole.
    pub facts: BodyFacts,
    /// The parsed bytes as text, when they are valid UTF-8 (checked once, here).
    pub text: Option<&'a str>,
    /// How many lines of each kind.
    pub lines: LineCounts,
    /// The groups, in file order.
    pub groups: Vec<Group>,
    /// Every user-agent line, in file order (a group's are a range of them).
    pub agents: Vec<AgentLine<'a>>,
    /// Every allow and disallow line, in file order (a group's are a range of them).
    pub rules: Vec<Rule<'a>>,
    /// The Sitemap lines, in file order.
    pub sitemaps: Vec<Sitemap<'a>>,
    /// Lines with other keys, in file order.
    pub others: Vec<Other<'a>>,
    /// The AI-use signal lines and comments, in file order (see [`Signal`](crate::Signal)).
    pub signals: Vec<crate::signals::Signal<'a>>,
    /// The lint: what the parse noticed, in line order (see [`Code`](crate::Code)).
    pub findings: Vec<Finding<'a>>,
}

impl<'a> RobotsTxt<'a> {
    /// `bytes` as text. A slice of a UTF-8 body cut at ASCII delimiters (every
    /// key, value and borrowed pattern is) is borrowed from [`RobotsTxt::text`]
    /// without validating it again; anything else is decoded, invalid sequences
    /// replaced by U+FFFD.
    pub fn text_of<'b>(&'b self, bytes: &'b [u8]) -> Cow<'b, str> {
        if let Some(text) = self.text {
            let start = (bytes.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            let range = start..start.saturating_add(bytes.len());
            if let Some(slice) = text.get(range) {
                if slice.as_ptr() == bytes.as_ptr() {
                    return Cow::Borrowed(slice);
                }
            }
        }
        lossy_text(bytes)
    }

    /// The user-agent lines of `group`.
    pub fn group_agents(&self, group: &Group) -> &[AgentLine<'a>] {
        &self.agents[group.agents.clone()]
    }

    /// The allow and disallow lines of `group`.
    pub fn group_rules(&self, group: &Group) -> &[Rule<'a>] {
        &self.rules[group.rules.clone()]
    }

    /// Whether any group names `agent` explicitly (robots.cc's
    /// `ever_seen_specific_agent`).
    pub fn names_agent(&self, agent: &[u8]) -> bool {
        self.agents.iter().any(|a| a.names(agent))
    }

    /// The groups robots.cc applies to `agent`: those naming it (`named`, which is
    /// [`RobotsTxt::names_agent`], passed in by callers that need it too), else the
    /// `*` groups.
    pub fn groups_for<'s>(
        &'s self,
        agent: &'s [u8],
        named: bool,
    ) -> impl Iterator<Item = &'s Group> + 's {
        self.groups.iter().filter(move |group| {
            if named {
                self.group_agents(group).iter().any(|a| a.names(agent))
            } else {
                group.has_star
            }
        })
    }

    /// Some group names the global group (`*`).
    pub fn has_star_group(&self) -> bool {
        self.groups.iter().any(|g| g.has_star)
    }

    /// What robots.cc matches of a user-agent line ([`AgentLine::token`]), lower-cased;
    /// `*` for a line naming the global group.
    ///
    /// ```
    /// let doc = robots_census_engine::RobotsTxt::parse(b"User-agent: Googlebot/2.1\nUser-agent: *\n");
    /// let tokens: Vec<String> = doc.agents.iter().map(|a| doc.product_token(a)).collect();
    /// assert_eq!(tokens, ["googlebot", "*"]);
    /// ```
    pub fn product_token(&self, agent: &AgentLine<'_>) -> String {
        if agent.is_star {
            "*".into()
        } else {
            self.text_of(agent.token).to_ascii_lowercase()
        }
    }

    /// Rule counts: (allow, disallow) of a group.
    pub fn rule_counts(&self, group: &Group) -> (usize, usize) {
        let rules = self.group_rules(group);
        let allow = rules.iter().filter(|r| r.kind == RuleKind::Allow).count();
        (allow, rules.len() - allow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_cut_at_the_colon_or_blank() {
        let doc = RobotsTxt::parse(b"User-agent: *\n  Disallow: /x\nAllow /y\n\tdisallow\t:5\n");
        let keys: Vec<&[u8]> = doc.rules.iter().map(Rule::key).collect();
        assert_eq!(keys, [&b"Disallow"[..], b"Allow", b"disallow"]);
    }

    #[test]
    fn text_of_borrows_from_a_utf8_body_and_decodes_the_rest() {
        let body = "User-agent: *\nDisallow: /café\nAllow: /ü/x y\n".as_bytes();
        let doc = RobotsTxt::parse(body);
        assert!(doc.text.is_some());
        let value = doc.rules[0].value;
        assert!(matches!(doc.text_of(value), Cow::Borrowed("/café")));
        // The escaped pattern is owned by the rule, not a slice of the body.
        assert_eq!(doc.text_of(&doc.rules[0].pattern), "/caf%C3%A9");
        // A cut inside a character is not a slice of the text: decoded, U+FFFD.
        assert_eq!(doc.text_of(&value[..5]), "/caf\u{FFFD}");

        let latin1 = b"User-agent: *\nDisallow: /caf\xe9\n";
        let doc = RobotsTxt::parse(latin1);
        assert!(doc.text.is_none());
        assert_eq!(doc.text_of(doc.rules[0].value), "/caf\u{FFFD}");
        assert_eq!(doc.text_of(doc.agents[0].value), "*");
    }
}
