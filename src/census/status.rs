//! What a capture's HTTP status and its parsed robots.txt mean for a crawler: the
//! `documents.status_class` column, and the `agents.classification` column.

use robots_census_engine::{AgentSummary, RobotsTxt, Scope};

/// How a capture's HTTP status frames its robots.txt (RFC 9309 section 2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusOutcome {
    /// 2xx, or no status (a CSV dump of bodies): the body is parsed.
    Parse,
    /// 3xx: the robots.txt is elsewhere.
    Redirect,
    /// 4xx other than 429: no robots.txt, everything allowed.
    NoRobots,
    /// 5xx and 429: unreachable, everything disallowed.
    Unreachable,
    /// A revisit record or an odd status: nothing can be said.
    Unknown,
}

impl StatusOutcome {
    pub fn of(status: Option<u16>, has_body: bool) -> Self {
        match status {
            None if has_body => StatusOutcome::Parse,
            None => StatusOutcome::Unknown,
            Some(200..=299) => StatusOutcome::Parse,
            Some(300..=399) => StatusOutcome::Redirect,
            Some(429) => StatusOutcome::Unreachable,
            Some(400..=499) => StatusOutcome::NoRobots,
            Some(500..=599) => StatusOutcome::Unreachable,
            Some(_) => StatusOutcome::Unknown,
        }
    }

    pub fn classification(self) -> &'static str {
        match self {
            StatusOutcome::Parse => "allowed",
            StatusOutcome::Redirect => "redirect",
            StatusOutcome::NoRobots => "no_robots",
            StatusOutcome::Unreachable => "unreachable",
            StatusOutcome::Unknown => "unknown",
        }
    }
}

/// The `status_class` column.
pub fn status_class(status: Option<u16>) -> &'static str {
    match status {
        None => "none",
        Some(200..=299) => "2xx",
        Some(300..=399) => "3xx",
        Some(400..=499) => "4xx",
        Some(500..=599) => "5xx",
        Some(_) => "other",
    }
}

/// How a parsed document treats `agent`: its summary, whether `/` is allowed,
/// and the classification.
pub fn classify(doc: &RobotsTxt<'_>, agent: &str) -> (AgentSummary, bool, &'static str) {
    let summary = doc.agent_summary(agent.as_bytes());
    let root_allowed = doc.verdict(agent.as_bytes(), b"/").allowed;
    let class = classification(&summary, root_allowed);
    (summary, root_allowed, class)
}

/// The `agents.classification` of an agent given its summary and whether `/` is allowed.
pub fn classification(summary: &AgentSummary, root_allowed: bool) -> &'static str {
    if summary.scope == Scope::None {
        "allowed"
    } else if !root_allowed && summary.allow_rules == 0 {
        "full_disallow"
    } else if !root_allowed || summary.disallow_rules > 0 {
        "partial_disallow"
    } else {
        "allowed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        let doc = RobotsTxt::parse(b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /private\n\nUser-agent: ClaudeBot\nDisallow: /\nAllow: /public\n");
        assert_eq!(classify(&doc, "GPTBot").2, "full_disallow");
        assert_eq!(classify(&doc, "CCBot").2, "partial_disallow");
        assert_eq!(classify(&doc, "ClaudeBot").2, "partial_disallow");
        assert_eq!(classify(&doc, "Googlebot").2, "allowed");
        assert!(classify(&doc, "GPTBot").0.scope == Scope::Named);
    }

    #[test]
    fn status_outcomes() {
        assert_eq!(StatusOutcome::of(Some(404), true), StatusOutcome::NoRobots);
        assert_eq!(
            StatusOutcome::of(Some(429), true),
            StatusOutcome::Unreachable
        );
        assert_eq!(
            StatusOutcome::of(Some(503), false),
            StatusOutcome::Unreachable
        );
        assert_eq!(StatusOutcome::of(Some(301), true), StatusOutcome::Redirect);
        assert_eq!(StatusOutcome::of(None, true), StatusOutcome::Parse);
    }
}
