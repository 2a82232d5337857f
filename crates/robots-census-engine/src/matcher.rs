//! Verdicts: which rule decides whether an agent may fetch a URL.
//!
//! robots.cc's `RobotsMatcher` in model form. For one agent, groups naming it
//! (merged across the file) feed the "specific" matches, groups with `*` that do
//! not name it feed the "global" matches. In each, the longest matching pattern
//! per directive wins (first in file order among equals); allow wins ties; a
//! specific group, even an empty one, hides the global one. Asking allocates
//! nothing and never parses again.

use super::model::{RobotsTxt, Rule, RuleKind};
use super::pattern::{matches, matches_anchored};
use super::url::UrlPath;

/// Which groups applied to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// At least one group names the agent (the `*` group is then ignored).
    Named,
    /// No group names the agent; a group its family falls back to applied (an
    /// interpretation profile's reading, such as Applebot reading the Googlebot group;
    /// robots.cc itself never answers this).
    Fallback,
    /// No group names the agent; the `*` group applied.
    Star,
    /// Neither: everything is allowed.
    None,
}

impl Scope {
    /// `named`, `fallback`, `star` or `none`, as the tables and JSON write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Named => "named",
            Scope::Fallback => "fallback",
            Scope::Star => "star",
            Scope::None => "none",
        }
    }

    /// How the scope reads in a report line: "named group", "'*' group", ...
    pub fn describe(self) -> &'static str {
        match self {
            Scope::Named => "named group",
            Scope::Fallback => "fallback group",
            Scope::Star => "'*' group",
            Scope::None => "no group",
        }
    }
}

/// The answer to one (agent, URL) question, from [`RobotsTxt::verdict`].
///
/// ```
/// use robots_census_engine::{RobotsTxt, RuleKind, Scope};
///
/// let doc = RobotsTxt::parse(b"User-agent: *\nDisallow: /shop\nAllow: /shop/help\n");
/// let v = doc.verdict(b"Googlebot", b"https://example.com/shop/help/faq");
/// assert!(v.allowed);
/// assert_eq!((v.line, v.directive(), v.pattern()), (3, Some(RuleKind::Allow), Some(&b"/shop/help"[..])));
/// assert_eq!(v.scope, Scope::Star);
/// // No rule matches: allowed, line 0.
/// let v = doc.verdict(b"Googlebot", b"/about");
/// assert!(v.allowed && v.line == 0 && v.rule.is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'m> {
    /// May the agent fetch the URL?
    pub allowed: bool,
    /// robots.cc's `matching_line()`: the line of the deciding rule, 0 when none.
    pub line: u32,
    /// The deciding rule. For an `index.htm` Allow that matched through its
    /// directory form, this is that Allow rule.
    pub rule: Option<&'m Rule<'m>>,
    /// Which groups applied to the agent.
    pub scope: Scope,
}

impl<'m> Verdict<'m> {
    /// The deciding rule's percent-escaped pattern.
    pub fn pattern(&self) -> Option<&'m [u8]> {
        self.rule.map(|r| &*r.pattern)
    }

    /// The deciding rule's directive.
    pub fn directive(&self) -> Option<RuleKind> {
        self.rule.map(|r| r.kind)
    }
}

/// The best match so far for one directive: robots.cc's `Match`.
#[derive(Debug, Clone, Copy)]
struct Best {
    /// Pattern length of the match; -1 when nothing matched.
    priority: i64,
    rule: usize,
}

const NO_MATCH: Best = Best {
    priority: -1,
    rule: usize::MAX,
};

/// Allow and disallow bests for one scope.
#[derive(Debug, Clone, Copy)]
struct Bests {
    allow: Best,
    disallow: Best,
}

impl Bests {
    const NONE: Bests = Bests {
        allow: NO_MATCH,
        disallow: NO_MATCH,
    };

    fn any_positive(&self) -> bool {
        self.allow.priority > 0 || self.disallow.priority > 0
    }

    fn disallowed(&self) -> bool {
        self.disallow.priority > self.allow.priority
    }

    /// Whether these matches, of the scope that applies, disallow: some rule matched
    /// with a positive priority and the disallow match is the higher.
    fn blocks(&self) -> bool {
        self.any_positive() && self.disallowed()
    }

    /// robots.cc's `HigherPriorityMatch(disallow, allow)`: allow on ties.
    fn deciding(&self) -> Best {
        if self.disallow.priority > self.allow.priority {
            self.disallow
        } else {
            self.allow
        }
    }

    fn offer(&mut self, index: usize, rule: &Rule<'_>, path: &[u8]) {
        count_work!(1);
        let best = match rule.kind {
            RuleKind::Allow => &mut self.allow,
            RuleKind::Disallow => &mut self.disallow,
        };
        // No match of this rule can be longer than its pattern: skip the work
        // when even that would not beat the best so far.
        if rule.pattern.len() as i64 <= best.priority {
            return;
        }
        // robots.cc replaces a match only with a strictly higher priority. The
        // `index.htm` directory form has a lower priority than the pattern, so
        // the check above does not settle it.
        if let Some(priority) = priority(rule, path).filter(|p| *p > best.priority) {
            *best = Best {
                priority,
                rule: index,
            };
        }
    }
}

/// The priority with which `rule` matches `path`, if it does.
fn priority(rule: &Rule<'_>, path: &[u8]) -> Option<i64> {
    if matches(rule.pattern_kind, &rule.pattern, path) {
        return Some(rule.pattern.len() as i64);
    }
    let prefix = rule.index_prefix?;
    matches_anchored(&rule.pattern[..prefix], path).then_some(prefix as i64 + 1)
}

impl<'a> RobotsTxt<'a> {
    /// Whether `agent` (a product token such as `Googlebot`, used as given) may
    /// fetch `url` (escaped as crawled), and which rule decided.
    pub fn verdict(&self, agent: &[u8], url: &[u8]) -> Verdict<'_> {
        self.verdict_for_path(agent, &UrlPath::new(url))
    }

    /// [`RobotsTxt::verdict`] for a URL already reduced to its path, to ask many
    /// agents about one URL.
    pub fn verdict_for_path(&self, agent: &[u8], path: &UrlPath<'_>) -> Verdict<'_> {
        let path = path.as_bytes();
        let (mut specific, mut global) = (Bests::NONE, Bests::NONE);
        let (mut named, mut star) = (false, false);
        for group in &self.groups {
            count_work!(1);
            let names_agent = self.group_agents(group).iter().any(|a| a.names(agent));
            let bests = if names_agent {
                named = true;
                &mut specific
            } else if group.has_star {
                star = true;
                &mut global
            } else {
                continue;
            };
            for index in group.rules.clone() {
                bests.offer(index, &self.rules[index], path);
            }
        }
        // A group naming the agent, even one without a matching rule, hides `*`.
        let disallowed = if named {
            specific.blocks()
        } else {
            global.blocks()
        };
        let deciding = if named {
            specific.deciding()
        } else {
            global.deciding()
        };
        let rule = self.rules.get(deciding.rule);
        let scope = match (named, star) {
            (true, _) => Scope::Named,
            (false, true) => Scope::Star,
            (false, false) => Scope::None,
        };
        Verdict {
            allowed: !disallowed,
            line: rule.map_or(0, |r| r.line),
            rule,
            scope,
        }
    }
}

impl RobotsTxt<'_> {
    /// Whether robots.cc allows `path` (already reduced) when `rules` are exactly the
    /// rules of the groups that apply to the agent, in file order: the groups naming
    /// it, else the `*` groups. The same answer as [`RobotsTxt::verdict_for_path`]'s
    /// `allowed`, for callers that ask one agent about many paths.
    pub(super) fn allowed_by(&self, rules: &[&Rule<'_>], path: &[u8]) -> bool {
        let mut bests = Bests::NONE;
        for (index, rule) in rules.iter().enumerate() {
            bests.offer(index, rule, path);
        }
        !bests.blocks()
    }
}

/// What the groups that apply to one agent say, beyond single verdicts: the
/// basis of the `agents` table's full/partial classification.
///
/// ```
/// use robots_census_engine::{AgentSummary, RobotsTxt, Scope};
///
/// let doc = RobotsTxt::parse(b"User-agent: GPTBot\nDisallow: /\nAllow: /public\nDisallow:\n");
/// let summary = doc.agent_summary(b"gptbot");
/// assert_eq!(summary, AgentSummary { scope: Scope::Named, allow_rules: 1, disallow_rules: 1 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentSummary {
    /// Which groups applied to the agent.
    pub scope: Scope,
    /// Allow rules with a non-empty pattern in the applicable groups.
    pub allow_rules: usize,
    /// Disallow rules with a non-empty pattern in the applicable groups.
    pub disallow_rules: usize,
}

impl<'a> RobotsTxt<'a> {
    /// The crawl-delay (seconds) `agent` is asked for: the first numeric `crawl-delay`
    /// of the groups that apply to it (those naming it, else the `*` groups), as Bing
    /// and Yandex read it. Google ignores crawl-delay; robots.cc has no such answer.
    pub fn crawl_delay(&self, agent: &[u8]) -> Option<f64> {
        self.groups_for(agent, self.names_agent(agent))
            .find_map(|group| group.crawl_delay)
    }

    /// The rules that apply to `agent`: the groups naming it, else the `*` groups.
    pub fn agent_summary(&self, agent: &[u8]) -> AgentSummary {
        let named = self.names_agent(agent);
        let (mut allow_rules, mut disallow_rules) = (0, 0);
        for group in self.groups_for(agent, named) {
            for rule in self
                .group_rules(group)
                .iter()
                .filter(|r| !r.pattern.is_empty())
            {
                match rule.kind {
                    RuleKind::Allow => allow_rules += 1,
                    RuleKind::Disallow => disallow_rules += 1,
                }
            }
        }
        let scope = match (named, self.has_star_group()) {
            (true, _) => Scope::Named,
            (false, true) => Scope::Star,
            (false, false) => Scope::None,
        };
        AgentSummary {
            scope,
            allow_rules,
            disallow_rules,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_delay_comes_from_the_groups_that_apply() {
        let doc = RobotsTxt::parse(
            b"User-agent: *\nDisallow: /x\nCrawl-delay: 10\n\nUser-agent: Bingbot\nDisallow: /y\nCrawl-delay: ten\nCrawl-delay: 2.5\n\nUser-agent: GPTBot\nDisallow: /\n",
        );
        assert_eq!(doc.crawl_delay(b"bingbot"), Some(2.5));
        // A crawl-delay is no rule: a user-agent line after it joins the same group,
        // as robots.cc groups them.
        let joined = RobotsTxt::parse(
            b"User-agent: *\nCrawl-delay: 10\nUser-agent: Bingbot\nCrawl-delay: 3\n",
        );
        assert_eq!(joined.crawl_delay(b"bingbot"), Some(10.0));
        assert_eq!(doc.crawl_delay(b"Googlebot"), Some(10.0));
        // A group names GPTBot, so the '*' group's delay is not its.
        assert_eq!(doc.crawl_delay(b"GPTBot"), None);
        assert_eq!(RobotsTxt::parse(b"").crawl_delay(b"x"), None);
    }
}
