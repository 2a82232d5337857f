//! Which (agent, URL) questions each document is asked, and how a document
//! treats an agent overall (the `agents` table's classification).
//!
//! Sampling is deterministic: the URLs of a host are ranked by a hash of
//! (seed, URL) and the first N kept, so the same inputs and flags give the same
//! rows on any thread count or machine.

use std::collections::HashMap;

use crate::robots::{AgentSummary, RobotsTxt, Scope};

/// The bundled default agent list (data, not code).
pub const DEFAULT_AGENTS: &str = include_str!("default_agents.txt");

/// Agent tokens from a list file's text: one per line, '#' comments, blanks skipped.
pub fn parse_agent_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The agents of an `--agents` argument: a comma-separated list, or `@FILE`, a list
/// file ([`parse_agent_list`]) read with `read` (so each command reports an unreadable
/// file with its own error). An empty result is the caller's to refuse.
pub fn agent_arg<E>(
    arg: &str,
    read: impl FnOnce(&std::path::Path) -> Result<String, E>,
) -> Result<Vec<String>, E> {
    Ok(match arg.strip_prefix('@') {
        Some(file) => parse_agent_list(&read(std::path::Path::new(file))?),
        None => arg
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// The questions asked of every document.
#[derive(Debug, Clone, Default)]
pub struct UrlPlan {
    /// Paths asked on every host (`/` by default).
    pub paths: Vec<String>,
    /// Sampled URLs per lower-cased host.
    pub by_host: HashMap<String, Vec<String>>,
}

impl UrlPlan {
    /// Builds the plan from a URL list (one URL per line, or a CSV whose header
    /// has a `url` column), keeping at most `per_host` URLs per host by seeded hash.
    pub fn new(paths: Vec<String>, urls: &[String], per_host: Option<usize>, seed: u64) -> Self {
        let mut by_host: HashMap<String, Vec<String>> = HashMap::new();
        for url in urls {
            if let Some(host) = crate::output::url_authority(url) {
                by_host.entry(host).or_default().push(url.clone());
            }
        }
        for list in by_host.values_mut() {
            list.sort_by_cached_key(|u| (rank(seed, u), u.clone()));
            list.dedup();
            if let Some(n) = per_host {
                list.truncate(n);
            }
        }
        UrlPlan { paths, by_host }
    }

    /// The URLs to ask about a document fetched from `scheme://host`.
    pub fn urls_for(&self, scheme: &str, host: &str) -> Vec<String> {
        let base = if host.is_empty() {
            String::new()
        } else {
            format!(
                "{}://{host}",
                if scheme.is_empty() { "http" } else { scheme }
            )
        };
        let mut urls: Vec<String> = self.paths.iter().map(|p| format!("{base}{p}")).collect();
        if let Some(list) = self.by_host.get(host) {
            urls.extend(list.iter().cloned());
        }
        urls
    }
}

fn rank(seed: u64, url: &str) -> u64 {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    h.update(seed.to_le_bytes());
    h.update(url.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// Parses a URL list: one URL per line, or CSV with a `url` column.
pub fn read_url_list(text: &str) -> std::io::Result<Vec<String>> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let is_csv = header
        .split(',')
        .any(|c| c.trim().trim_matches('"').eq_ignore_ascii_case("url"))
        && !header.contains("://");
    if !is_csv {
        return Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect());
    }
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let column = reader
        .headers()
        .map_err(std::io::Error::other)?
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case("url"))
        .unwrap_or(0);
    let mut urls = Vec::new();
    for record in reader.records() {
        // A bad row (wrong field count, bad quoting) is an error naming its line, never
        // a URL silently left out of the sample.
        let record = record.map_err(std::io::Error::other)?;
        if let Some(url) = record.get(column).map(str::trim).filter(|u| !u.is_empty()) {
            urls.push(url.to_owned());
        }
    }
    Ok(urls)
}

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
    fn a_bad_row_of_a_csv_url_list_is_an_error_naming_its_line() {
        let good = "id,url\n1,https://a.example/x\n2, \n";
        assert_eq!(read_url_list(good).unwrap(), ["https://a.example/x"]);
        // Issue 22: rows that do not parse were dropped without a word.
        let bad = "id,url\n1,https://a.example/x\n2,https://b.example/,extra\n";
        let err = read_url_list(bad).expect_err("a ragged row");
        assert!(err.to_string().contains("line: 3"), "{err}");
    }

    #[test]
    fn agent_args_are_lists_or_files() {
        let no_file = |_: &std::path::Path| -> Result<String, String> { Err("unread".into()) };
        assert_eq!(
            agent_arg(" GPTBot, ,CCBot ", no_file),
            Ok(vec!["GPTBot".to_owned(), "CCBot".to_owned()])
        );
        let file = |p: &std::path::Path| -> Result<String, String> {
            assert_eq!(p, std::path::Path::new("ai.txt"));
            Ok("# AI crawlers\nGPTBot\n\nClaudeBot # Anthropic\n".into())
        };
        assert_eq!(
            agent_arg("@ai.txt", file),
            Ok(vec!["GPTBot".to_owned(), "ClaudeBot".to_owned()])
        );
        assert_eq!(agent_arg("@missing.txt", no_file), Err("unread".into()));
    }

    #[test]
    fn default_agents_parse() {
        let agents = parse_agent_list(DEFAULT_AGENTS);
        assert!(agents.contains(&"GPTBot".to_owned()) && agents.contains(&"Googlebot".to_owned()));
        assert!(agents.iter().all(|a| !a.contains('#') && !a.is_empty()));
    }

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

    #[test]
    fn sampling_is_deterministic_and_bounded() {
        let urls: Vec<String> = (0..50).map(|i| format!("https://a.com/p{i}")).collect();
        let a = UrlPlan::new(vec!["/".into()], &urls, Some(5), 7);
        let b = UrlPlan::new(vec!["/".into()], &urls, Some(5), 7);
        assert_eq!(a.by_host["a.com"], b.by_host["a.com"]);
        assert_eq!(a.by_host["a.com"].len(), 5);
        assert_eq!(a.urls_for("https", "a.com")[0], "https://a.com/");
        assert_eq!(a.urls_for("https", "a.com").len(), 6);
    }
}
