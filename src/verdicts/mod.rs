//! Which (agent, URL) questions each document is asked: the agent list, and the
//! paths and sampled URLs per host. (What the answers mean for the `agents` table is
//! [`crate::census::status`].)
//!
//! Sampling is deterministic: the URLs of a host are ranked by a hash of
//! (seed, URL) and the first N kept, so the same inputs and flags give the same
//! rows on any thread count or machine.

use std::collections::HashMap;

/// The bundled default agent list (data, not code).
pub const DEFAULT_AGENTS: &str = include_str!("default_agents.txt");

/// The AI part of the default list: its tokens from the `# AI crawlers` comment on
/// (training crawlers, AI search and assistants' fetchers), the crawlers `run`'s
/// end-of-run headline is about.
pub fn default_ai_agents() -> Vec<String> {
    let ai = DEFAULT_AGENTS
        .find("\n# AI crawlers")
        .map_or("", |start| &DEFAULT_AGENTS[start..]);
    parse_agent_list(ai)
}

/// Agent tokens from a list file's text: one per line, '#' comments, blanks skipped.
pub fn parse_agent_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An `--agents` argument as given: product tokens (a comma-separated list), or
/// `@FILE`, a list file ([`parse_agent_list`]) read when the step starts, not when
/// the command line is parsed. An empty list is the step's to refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentsArg {
    Tokens(Vec<String>),
    File(std::path::PathBuf),
}

impl AgentsArg {
    pub fn parse(arg: &str) -> Self {
        match arg.strip_prefix('@') {
            Some(file) => AgentsArg::File(file.into()),
            None => AgentsArg::Tokens(
                arg.split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
        }
    }

    /// The tokens, the list file read; an unreadable file is returned with its path.
    pub fn resolve(&self) -> Result<Vec<String>, (std::path::PathBuf, std::io::Error)> {
        match self {
            AgentsArg::Tokens(tokens) => Ok(tokens.clone()),
            AgentsArg::File(path) => std::fs::read_to_string(path)
                .map(|text| parse_agent_list(&text))
                .map_err(|e| (path.clone(), e)),
        }
    }
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
            if let Some(host) = crate::census::urls::url_authority(url) {
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
        // `concat`, not `format!`: this runs for every parsed document.
        let base = if host.is_empty() {
            String::new()
        } else {
            [if scheme.is_empty() { "http" } else { scheme }, "://", host].concat()
        };
        let mut urls: Vec<String> = self
            .paths
            .iter()
            .map(|p| [&base, p.as_str()].concat())
            .collect();
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
        let tokens = AgentsArg::parse(" GPTBot, ,CCBot ");
        assert_eq!(
            tokens,
            AgentsArg::Tokens(vec!["GPTBot".into(), "CCBot".into()])
        );
        assert_eq!(
            tokens.resolve().ok(),
            Some(vec!["GPTBot".into(), "CCBot".into()])
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let list = dir.path().join("ai.txt");
        std::fs::write(&list, "# AI crawlers\nGPTBot\n\nClaudeBot # Anthropic\n").expect("write");
        let file = AgentsArg::parse(&format!("@{}", list.display()));
        assert_eq!(file, AgentsArg::File(list.clone()));
        assert_eq!(
            file.resolve().ok(),
            Some(vec!["GPTBot".into(), "ClaudeBot".into()])
        );
        let missing = AgentsArg::parse(&format!("@{}", dir.path().join("missing.txt").display()));
        let (path, _) = missing.resolve().expect_err("no such file");
        assert_eq!(path, dir.path().join("missing.txt"));
        // Nothing is read when the argument is parsed.
        assert!(matches!(
            AgentsArg::parse("@/nonexistent/list"),
            AgentsArg::File(_)
        ));
    }

    #[test]
    fn default_agents_parse() {
        let agents = parse_agent_list(DEFAULT_AGENTS);
        assert!(agents.contains(&"GPTBot".to_owned()) && agents.contains(&"Googlebot".to_owned()));
        assert!(agents.iter().all(|a| !a.contains('#') && !a.is_empty()));
        // The AI part: the list's tail from the AI crawlers on, no search crawler.
        let ai = default_ai_agents();
        let has = |token: &str| ai.iter().any(|a| a == token);
        assert!(has("GPTBot") && has("ClaudeBot") && has("CCBot"));
        assert!(!has("Googlebot") && !has("Bingbot"));
        assert_eq!(agents[agents.len() - ai.len()..], ai[..]);
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

    #[test]
    fn urls_default_to_http_and_need_a_host() {
        let plan = UrlPlan::new(vec!["/".into(), "/x?y".into()], &[], None, 7);
        assert_eq!(
            plan.urls_for("", "b.org:8080"),
            ["http://b.org:8080/", "http://b.org:8080/x?y"]
        );
        assert_eq!(plan.urls_for("https", "b.org")[1], "https://b.org/x?y");
        // No host: the paths alone, as the verdicts of a capture without a URL ask them.
        assert_eq!(plan.urls_for("https", ""), ["/", "/x?y"]);
    }
}
