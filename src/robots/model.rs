//! The compiled, immutable model of one robots.txt: what the parser builds in its
//! single pass, and what every table and verdict is read from.
//!
//! It borrows from the body it was parsed from; only percent-escaped patterns that
//! differ from the bytes as written are owned.

use std::borrow::Cow;

use super::lint::Finding;
use super::pattern::PatternKind;

/// Allow or disallow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    Allow,
    Disallow,
}

impl RuleKind {
    /// Allow for `true`, Disallow for `false`.
    pub fn of(allow: bool) -> Self {
        if allow {
            RuleKind::Allow
        } else {
            RuleKind::Disallow
        }
    }

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
    pub line: u32,
    /// The whole line as the parser kept it (for excerpts).
    pub text: &'a [u8],
    /// The value as written.
    pub value: &'a [u8],
    /// What robots.cc compares: the value cut to `[A-Za-z_-]*` (empty for `*`).
    pub token: &'a [u8],
    /// The line names the global group (`*`, or `*` then whitespace).
    pub is_star: bool,
    pub group: u32,
}

impl AgentLine<'_> {
    /// Whether this line names `agent` explicitly (a `*` line names no one).
    pub fn names(&self, agent: &[u8]) -> bool {
        !self.is_star && super::agent::token_matches(self.token, agent)
    }
}

/// A run of user-agent lines and the rules that follow them, up to the next
/// user-agent line after a rule. Groups naming the same agent are kept apart here
/// and merged when matching, as robots.cc does.
#[derive(Debug, Clone)]
pub struct Group {
    pub first_line: u32,
    /// Last line of a directive that belongs to the group.
    pub last_line: u32,
    /// Indexes into [`RobotsTxt::agents`].
    pub agents: std::ops::Range<usize>,
    /// Indexes into [`RobotsTxt::rules`].
    pub rules: std::ops::Range<usize>,
    pub has_star: bool,
    /// The first crawl-delay of the group that parses as a number of seconds.
    pub crawl_delay: Option<f64>,
}

/// An allow or disallow line.
#[derive(Debug, Clone)]
pub struct Rule<'a> {
    pub line: u32,
    /// The whole line as the parser kept it (for excerpts).
    pub text: &'a [u8],
    pub kind: RuleKind,
    /// `None` for a rule before any user-agent line: robots.cc ignores it.
    pub group: Option<u32>,
    /// The value as written.
    pub value: &'a [u8],
    /// The percent-escaped pattern robots.cc matches; its length is the priority.
    pub pattern: Cow<'a, [u8]>,
    pub pattern_kind: PatternKind,
    /// For an Allow whose last segment starts with `index.htm`: the length of the
    /// pattern prefix up to and including that '/'. robots.cc also allows
    /// `prefix$` (the directory itself) with that priority plus one.
    pub index_prefix: Option<usize>,
}

impl Rule<'_> {
    pub fn has_wildcard(&self) -> bool {
        matches!(self.pattern_kind, PatternKind::Wildcard { .. })
    }

    pub fn has_end_anchor(&self) -> bool {
        self.pattern.last() == Some(&b'$')
    }
}

/// A `Sitemap:` line (sitemaps belong to no group).
#[derive(Debug, Clone)]
pub struct Sitemap<'a> {
    pub line: u32,
    pub url: &'a [u8],
    /// [`crate::robots::lint::is_absolute_sitemap_url`] of `url`: the lint's
    /// `sitemap_not_absolute` and the sitemaps table's `is_absolute` read it from here.
    pub is_absolute: bool,
}

/// Directives Google ignores for matching but the census records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OtherKey {
    CrawlDelay,
    RequestRate,
    VisitTime,
    Host,
    CleanParam,
    Noindex,
    ContentSignal,
    /// Any other key, kept verbatim in [`Other::key`].
    Unknown,
}

impl OtherKey {
    pub fn of(key: &[u8]) -> Self {
        const NAMES: [(&str, OtherKey); 8] = [
            ("crawl-delay", OtherKey::CrawlDelay),
            ("request-rate", OtherKey::RequestRate),
            ("visit-time", OtherKey::VisitTime),
            ("host", OtherKey::Host),
            ("clean-param", OtherKey::CleanParam),
            ("noindex", OtherKey::Noindex),
            ("content-signal", OtherKey::ContentSignal),
            ("content-signals", OtherKey::ContentSignal),
        ];
        NAMES
            .iter()
            .find(|(name, _)| key.eq_ignore_ascii_case(name.as_bytes()))
            .map_or(OtherKey::Unknown, |(_, k)| *k)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OtherKey::CrawlDelay => "crawl-delay",
            OtherKey::RequestRate => "request-rate",
            OtherKey::VisitTime => "visit-time",
            OtherKey::Host => "host",
            OtherKey::CleanParam => "clean-param",
            OtherKey::Noindex => "noindex",
            OtherKey::ContentSignal => "content-signal",
            OtherKey::Unknown => "unknown",
        }
    }
}

/// A line with a key robots.cc does not know.
#[derive(Debug, Clone)]
pub struct Other<'a> {
    pub line: u32,
    pub key: OtherKey,
    /// The key as written.
    pub key_text: &'a [u8],
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
    pub cut_at_cap: bool,
    pub utf8_bom: bool,
    pub utf16_bom: bool,
    /// The parsed bytes are valid UTF-8 (a character cut in two by the 500 KiB cut, at
    /// the very end, does not count against it).
    pub valid_utf8: bool,
    pub has_nul: bool,
    pub looks_like_html: bool,
}

/// Line counts of the parsed body, numbered as robots.cc numbers lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub lines: u32,
    pub empty: u32,
    pub comment: u32,
    pub directive: u32,
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
pub fn lossy_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A parsed robots.txt. Build with [`RobotsTxt::parse`]; ask with
/// [`RobotsTxt::verdict`].
#[derive(Debug, Clone)]
pub struct RobotsTxt<'a> {
    pub facts: BodyFacts,
    /// The parsed bytes as text, when they are valid UTF-8 (checked once, here).
    pub text: Option<&'a str>,
    pub lines: LineCounts,
    pub groups: Vec<Group>,
    pub agents: Vec<AgentLine<'a>>,
    pub rules: Vec<Rule<'a>>,
    pub sitemaps: Vec<Sitemap<'a>>,
    pub others: Vec<Other<'a>>,
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

    pub fn group_agents(&self, group: &Group) -> &[AgentLine<'a>] {
        &self.agents[group.agents.clone()]
    }

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

    pub fn has_star_group(&self) -> bool {
        self.groups.iter().any(|g| g.has_star)
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
