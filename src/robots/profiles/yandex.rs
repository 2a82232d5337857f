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
use crate::limits::ROBOTS_PARSE_CAP;
use crate::robots::agent;
use crate::robots::model::RuleKind;
use crate::robots::pattern::{matches, PatternKind};
use crate::robots::tokenize::{Key, LineKind, Lines};
use crate::robots::url::UrlPath;
use crate::robots::Scope;

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
pub struct YandexRobots {
    /// Over 500 KB: everything allowed.
    oversize: bool,
    groups: Vec<YandexGroup>,
}

impl YandexRobots {
    pub fn parse(body: &[u8]) -> Self {
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

    pub fn answer(&self, agent: &str, url: &str) -> Answer {
        if self.oversize {
            return Answer::no_rule(Scope::None);
        }
        let agent = agent.as_bytes();
        let yandex_robot = agent.len() >= 6 && agent[..6].eq_ignore_ascii_case(b"yandex");
        // The groups read: those naming the robot, else `Yandex` ones (for a Yandex
        // robot), else `*`.
        let named = |token: &[u8]| self.groups.iter().any(|g| Self::names(g, token));
        let (scope, token): (Scope, Option<&[u8]>) = if named(agent) {
            (Scope::Named, Some(agent))
        } else if yandex_robot && named(b"Yandex") {
            (Scope::Fallback, Some(b"Yandex"))
        } else if self.groups.iter().any(|g| g.has_star) {
            (Scope::Star, None)
        } else {
            return Answer::no_rule(Scope::None);
        };
        let applies = |g: &YandexGroup| match token {
            Some(token) => Self::names(g, token),
            None => g.has_star,
        };
        let path = UrlPath::new(url.as_bytes());
        let path = path.as_bytes();
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
        match best {
            Some(rule) => Answer::decided(
                rule.kind,
                rule.line,
                String::from_utf8_lossy(&rule.pattern).into_owned(),
                scope,
            ),
            None => Answer::no_rule(scope),
        }
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
