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
    /// What a capture's HTTP status means to Google's crawlers: the one definition that
    /// `agents.classification` and `sites --status-semantics google` both follow
    /// (Google Search Central, "How Google interprets the robots.txt specification",
    /// handling of errors and HTTP status codes). 2xx: the body is parsed; 3xx: the
    /// robots.txt is elsewhere; 4xx but 429: as if there were no robots.txt; 429 and
    /// 5xx: a server error, everything disallowed; any other code (1xx, 6xx and up) is
    /// an invalid response, which Google treats as a server error. No status (a CSV
    /// dump of bodies) is a 2xx. Never [`StatusOutcome::Unknown`]: that is a capture
    /// with no status to read at all (a revisit, a CSV status cell that does not parse).
    pub fn google(status: Option<u16>) -> Self {
        match status {
            None | Some(200..=299) => StatusOutcome::Parse,
            Some(300..=399) => StatusOutcome::Redirect,
            Some(429) => StatusOutcome::Unreachable,
            Some(400..=499) => StatusOutcome::NoRobots,
            Some(_) => StatusOutcome::Unreachable,
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
        use StatusOutcome::*;
        let google = |s| StatusOutcome::google(s);
        assert_eq!(google(Some(404)), NoRobots);
        assert_eq!(google(Some(429)), Unreachable);
        assert_eq!(google(Some(503)), Unreachable);
        assert_eq!(google(Some(301)), Redirect);
        assert_eq!(google(None), Parse);
        // Not an HTTP status class: an invalid response, a server error to Google.
        for odd in [0, 100, 199, 600, 999] {
            assert_eq!(google(Some(odd)), Unreachable, "{odd}");
        }
    }
}
