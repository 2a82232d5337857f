//! Yandex's reading (yandex.com/support/webmaster: robots-txt, allow-disallow,
//! user-agent): robots.cc's line splitting and escaping, but
//!
//! - **a blank line ends a group**: rules after it with no user-agent line in front
//!   are ignored (the analyser reports "No User-agent directive in front of rule");
//! - a group naming the robot (`YandexBot`) is used, else a `Yandex` group (every
//!   Yandex robot), else `*`;
//! - rules sorted by prefix length, the longest applicable wins, Allow on a tie;
//! - a file over 500 KB allows everything (read as 500 KiB, Google's same limit);
//! - Crawl-delay has been ignored since 2018-02 (the speed is set in Webmaster).

use super::common::Answer;
use super::family::{Document, Family, Selection};
use crate::agent;
use crate::limits::ROBOTS_PARSE_CAP;
use crate::model::RuleKind;
use crate::pattern::{matches, PatternKind};
use crate::tokenize::{Key, LineKind, Lines};
use crate::url::UrlPath;
use crate::Scope;

struct YandexRule {
    line: u32,
    kind: RuleKind,
    pattern: Vec<u8>,
    pattern_kind: PatternKind,
}

struct YandexGroup {
    /// Product tokens of the group's user-agent lines (empty for `*`).
    tokens: Vec<Vec<u8>>,
    has_star: bool,
    rules: Vec<YandexRule>,
}

/// The file as Yandex reads it.
pub(super) struct YandexRobots {
    /// Over 500 KB: everything allowed.
    oversize: bool,
    groups: Vec<YandexGroup>,
}

impl YandexRobots {
    pub(super) fn parse(body: &[u8]) -> Self {
        if body.len() > ROBOTS_PARSE_CAP {
            return YandexRobots {
                oversize: true,
                groups: Vec::new(),
            };
        }
        let mut groups: Vec<YandexGroup> = Vec::new();
        // Whether the last group still takes lines: a blank line closes it, a rule
        // closes its run of user-agent lines.
        let (mut open, mut after_rule) = (false, false);
        for line in Lines::new(body) {
            let directive = match line.kind {
                LineKind::Empty => {
                    open = false;
                    continue;
                }
                LineKind::Directive(d) => d,
                LineKind::Comment | LineKind::Unparsed => continue,
            };
            match directive.key {
                Key::UserAgent => {
                    if !open || after_rule {
                        groups.push(YandexGroup {
                            tokens: Vec::new(),
                            has_star: false,
                            rules: Vec::new(),
                        });
                        (open, after_rule) = (true, false);
                    }
                    if let Some(group) = groups.last_mut() {
                        if agent::is_star(directive.value) {
                            group.has_star = true;
                        } else {
                            group
                                .tokens
                                .push(agent::product_token(directive.value).to_vec());
                        }
                    }
                }
                Key::Allow | Key::Disallow if open => {
                    let kind = if directive.key == Key::Allow {
                        RuleKind::Allow
                    } else {
                        RuleKind::Disallow
                    };
                    if let Some(group) = groups.last_mut() {
                        group.rules.push(YandexRule {
                            line: line.number,
                            kind,
                            pattern_kind: PatternKind::of(&directive.pattern),
                            pattern: directive.pattern.into_owned(),
                        });
                    }
                    after_rule = true;
                }
                _ => {}
            }
        }
        YandexRobots {
            oversize: false,
            groups,
        }
    }

    fn names(group: &YandexGroup, token: &[u8]) -> bool {
        group.tokens.iter().any(|t| t.eq_ignore_ascii_case(token))
    }

    pub(super) fn answer(&self, agent: &str, url: &str) -> Answer {
        let Some((scope, token)) = self.select(agent.as_bytes()) else {
            return Answer::no_rule(Scope::None);
        };
        let path = UrlPath::new(url.as_bytes());
        match self.best_rule(token, path.as_bytes()) {
            Some(rule) => Answer::decided(
                rule.kind,
                rule.line,
                String::from_utf8_lossy(&rule.pattern).into_owned(),
                scope,
            ),
            None => Answer::no_rule(scope),
        }
    }

    /// What the rules are matched against: `url`'s path and query, as robots.cc takes
    /// them. The same for every agent, so a caller asking many agents about one URL
    /// computes it once.
    pub(super) fn request_path(url: &str) -> Vec<u8> {
        UrlPath::new(url.as_bytes()).as_bytes().to_vec()
    }

    /// [`YandexRobots::answer`]'s verdict for every path of `paths`
    /// ([`YandexRobots::request_path`]s), the groups chosen once for `agent`.
    pub(super) fn allowed_paths<'p>(
        &'p self,
        agent: &'p str,
        paths: impl IntoIterator<Item = &'p Vec<u8>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        let selected = self.select(agent.as_bytes());
        paths.into_iter().map(move |path| match selected {
            Some((_, token)) => self
                .best_rule(token, path)
                .is_none_or(|rule| rule.kind == RuleKind::Allow),
            None => true,
        })
    }

    /// Which groups answer `agent`, with the scope: agents with the same selection get the
    /// same answers.
    pub(super) fn selection_id(&self, agent: &str) -> Vec<usize> {
        let Some((scope, token)) = self.select(agent.as_bytes()) else {
            return Vec::new();
        };
        let groups = self.groups.iter().enumerate().filter(|(_, g)| match token {
            Some(token) => Self::names(g, token),
            None => g.has_star,
        });
        std::iter::once(scope as usize + 1)
            .chain(groups.map(|(i, _)| i))
            .collect()
    }

    /// The groups `agent` reads, as the scope and the token naming them (`None`: the `*`
    /// groups): those naming the robot, else `Yandex` ones (for a Yandex robot), else
    /// `*`. `None` when no group applies, or the file is over the size limit.
    fn select<'t>(&self, agent: &'t [u8]) -> Option<(Scope, Option<&'t [u8]>)> {
        if self.oversize {
            return None;
        }
        let yandex_robot = agent.len() >= 6 && agent[..6].eq_ignore_ascii_case(b"yandex");
        let named = |token: &[u8]| self.groups.iter().any(|g| Self::names(g, token));
        if named(agent) {
            Some((Scope::Named, Some(agent)))
        } else if yandex_robot && named(b"Yandex") {
            Some((Scope::Fallback, Some(b"Yandex")))
        } else if self.groups.iter().any(|g| g.has_star) {
            Some((Scope::Star, None))
        } else {
            None
        }
    }

    /// The longest matching rule of the groups `token` names (Allow on equal length).
    fn best_rule(&self, token: Option<&[u8]>, path: &[u8]) -> Option<&YandexRule> {
        let applies = |g: &YandexGroup| match token {
            Some(token) => Self::names(g, token),
            None => g.has_star,
        };
        let mut best: Option<&YandexRule> = None;
        for rule in self
            .groups
            .iter()
            .filter(|g| applies(g))
            .flat_map(|g| &g.rules)
        {
            if rule.pattern.is_empty() || !matches(rule.pattern_kind, &rule.pattern, path) {
                continue;
            }
            let better = best.is_none_or(|held| {
                rule.pattern.len() > held.pattern.len()
                    || (rule.pattern.len() == held.pattern.len()
                        && rule.kind == RuleKind::Allow
                        && held.kind == RuleKind::Disallow)
            });
            if better {
                best = Some(rule);
            }
        }
        best
    }
}

/// `yandex`: Crawl-delay ignored since 2018-02.
impl Family for YandexRobots {
    const NAME: &'static str = "yandex";
    const HOW_IT_DIFFERS: &'static str =
        "a blank line ends a group; Yandex groups serve every Yandex robot";
    type Path = Vec<u8>;

    fn read(doc: Document<'_, '_>) -> Self {
        YandexRobots::parse(doc.body)
    }

    fn answer(&self, _doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        YandexRobots::answer(self, agent, url)
    }

    fn selection(&self, _doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        Some(Selection::Several(self.selection_id(agent)))
    }

    fn request_path(&self, url: &str) -> Vec<u8> {
        YandexRobots::request_path(url)
    }

    fn allowed_paths<'p>(
        &'p self,
        _doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p Vec<u8>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        YandexRobots::allowed_paths(self, agent, paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(body: &str, agent: &str, path: &str) -> Answer {
        YandexRobots::parse(body.as_bytes()).answer(agent, &format!("https://example.com{path}"))
    }

    #[test]
    fn yandex_blank_line_ends_a_group() {
        // yandex.com/support/webmaster/robot-workings/user-agent: "No User-agent
        // directive in front of rule" for rules after an empty line.
        let body = "User-agent: *\nDisallow: /a\n\nDisallow: /b\n";
        assert!(!ask(body, "YandexBot", "/a").allowed);
        assert!(ask(body, "YandexBot", "/b").allowed);
    }

    #[test]
    fn yandex_group_serves_every_yandex_robot_unless_one_is_named() {
        // yandex.com/support/webmaster/robot-workings/user-agent.
        let body = "User-agent: Yandex\nDisallow: /y\n\nUser-agent: YandexImages\nDisallow: /i\n\nUser-agent: *\nDisallow: /\n";
        let a = ask(body, "YandexBot", "/i");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::Fallback);
        assert!(!ask(body, "YandexBot", "/y").allowed);
        assert!(ask(body, "YandexImages", "/y").allowed);
        assert!(!ask(body, "YandexImages", "/i").allowed);
        assert!(!ask(body, "Googlebot", "/x").allowed);
    }

    #[test]
    fn yandex_longest_prefix_wins_allow_on_tie() {
        // yandex.com/support/webmaster/robot-workings/allow-disallow: sorted by prefix
        // length; Allow wins a conflict of equal length.
        let body = "User-agent: Yandex\nAllow: /catalog\nDisallow: /\nDisallow: /catalo*\n";
        let a = ask(body, "YandexBot", "/catalog/x");
        assert!(a.allowed);
        assert_eq!(a.line, 2);
        assert!(!ask(body, "YandexBot", "/other").allowed);
        assert!(!ask("User-agent: *\nDisallow: /*.pdf$\n", "YandexBot", "/a.pdf").allowed);
    }

    #[test]
    fn yandex_oversize_file_allows_everything() {
        // yandex.com/support/webmaster/controlling-robot/robots-txt: over 500 KB the
        // file is considered fully permissive.
        let mut body = "User-agent: *\nDisallow: /\n".to_owned();
        body.push_str(&"#".repeat(ROBOTS_PARSE_CAP));
        assert!(ask(&body, "YandexBot", "/x").allowed);
        assert!(!ask("User-agent: *\nDisallow: /\n", "YandexBot", "/x").allowed);
    }
}
