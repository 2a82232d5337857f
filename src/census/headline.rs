//! The answer `run` ends with: of the parsed robots.txt captures, how many fully block
//! each AI crawler, and how many of those block it by name (a group naming it).
//!
//! "Fully blocks" is the `sites.block = 'full'` meaning applied to one capture: Google's
//! verdict for `/` is disallow. It is counted while the agents rows are made (no second
//! pass), per input, and kept in the task manifest, so a resumed run reports the same.
//! These are captures, not sites: a site captured twice counts twice; the sites step
//! decides one capture per site.

use std::collections::BTreeMap;

use robots_census_engine::Scope;
use serde::{Deserialize, Serialize};

/// One input's counts, as its task manifest keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headline {
    /// Parsed robots.txt captures: a `/robots.txt` URL (`documents.is_robots_url`) whose
    /// body was parsed (2xx, or a CSV row without a status).
    pub parsed: u64,
    /// Per agent: `[captures whose verdict for / is disallow, of those by a named group]`.
    /// Agents never blocked are left out.
    pub blocked: BTreeMap<String, [u64; 2]>,
}

/// The same counts while a chunk is built, by the agent's position in the run's list
/// (nothing allocated per capture).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub parsed: u64,
    blocked: Vec<[u64; 2]>,
}

impl Tally {
    pub fn new(agents: usize) -> Self {
        Tally {
            parsed: 0,
            blocked: vec![[0; 2]; agents],
        }
    }

    /// Counts agent `i`'s reading of one parsed robots.txt capture.
    pub fn count(&mut self, i: usize, root_allowed: bool, scope: Scope) {
        if root_allowed {
            return;
        }
        if let Some(counts) = self.blocked.get_mut(i) {
            counts[0] += 1;
            counts[1] += u64::from(scope == Scope::Named);
        }
    }

    pub fn merge(&mut self, other: &Tally) {
        self.parsed += other.parsed;
        if self.blocked.len() < other.blocked.len() {
            self.blocked.resize(other.blocked.len(), [0; 2]);
        }
        for (mine, theirs) in self.blocked.iter_mut().zip(&other.blocked) {
            mine[0] += theirs[0];
            mine[1] += theirs[1];
        }
    }
}

impl Headline {
    pub fn is_empty(&self) -> bool {
        self.parsed == 0 && self.blocked.is_empty()
    }

    /// Adds a chunk's tally; `agents` is the run's list the tally is indexed by.
    pub fn add(&mut self, agents: &[String], tally: &Tally) {
        self.parsed += tally.parsed;
        for (agent, counts) in agents.iter().zip(&tally.blocked) {
            if counts[0] > 0 {
                let entry = self.blocked.entry(agent.clone()).or_default();
                entry[0] += counts[0];
                entry[1] += counts[1];
            }
        }
    }

    pub fn merge(&mut self, other: &Headline) {
        self.parsed += other.parsed;
        for (agent, counts) in &other.blocked {
            let entry = self.blocked.entry(agent.clone()).or_default();
            entry[0] += counts[0];
            entry[1] += counts[1];
        }
    }

    /// The table printed at the end of `run`: the run's agents that are on `ai` (the
    /// default list's AI part), all of the run's agents when none is, most blocked first.
    pub fn render(&self, run_agents: &[String], ai: &[String], out: &str) -> String {
        let mut agents: Vec<&str> = run_agents
            .iter()
            .map(String::as_str)
            .filter(|a| ai.iter().any(|d| d.eq_ignore_ascii_case(a)))
            .collect();
        let title = if agents.is_empty() {
            agents = run_agents.iter().map(String::as_str).collect();
            "Crawlers"
        } else {
            "AI crawlers"
        };
        let counts = |a: &str| self.blocked.get(a).copied().unwrap_or_default();
        agents.sort_by(|a, b| counts(b).cmp(&counts(a)).then(a.cmp(b)));
        let share = |n: u64| {
            if self.parsed == 0 {
                "-".to_owned()
            } else {
                format!("{:.1}%", 100.0 * n as f64 / self.parsed as f64)
            }
        };
        let width = agents.iter().map(|a| a.len()).max().unwrap_or(0).max(5);
        let mut text = format!(
            "\n{title} blocked, of {} parsed robots.txt captures (captures, not sites: a site \
             captured twice counts twice):\n  {:<width$}  {:>13}  {:>8}\n",
            self.parsed, "agent", "fully blocked", "by name"
        );
        for agent in agents {
            let [full, named] = counts(agent);
            text += &format!(
                "  {agent:<width$}  {:>13}  {:>8}\n",
                share(full),
                share(named)
            );
        }
        text += &format!(
            "fully blocked: Google's verdict for / is disallow; by name: through a group \
             naming the crawler.\nPer site (the deciding capture of each site and crawl): \
             robots-census sites {out}, then\n  robots-census query {out} \
             queries/agent_blocking_by_crawl.sql\n"
        );
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_up_by_agent_name() {
        let agents = vec!["GPTBot".to_owned(), "CCBot".to_owned()];
        let mut a = Tally::new(2);
        a.parsed = 3;
        a.count(0, false, Scope::Named);
        a.count(0, false, Scope::Star);
        a.count(1, true, Scope::Named);
        let mut b = Tally::new(2);
        b.parsed = 1;
        b.count(1, false, Scope::Star);
        a.merge(&b);
        let mut headline = Headline::default();
        headline.add(&agents, &a);
        assert_eq!(headline.parsed, 4);
        assert_eq!(headline.blocked["GPTBot"], [2, 1]);
        assert_eq!(headline.blocked["CCBot"], [1, 0]);
        let mut twice = headline.clone();
        twice.merge(&headline);
        assert_eq!(twice.blocked["GPTBot"], [4, 2]);
    }

    #[test]
    fn the_table_names_ai_crawlers_most_blocked_first() {
        let agents: Vec<String> = ["Googlebot", "ClaudeBot", "GPTBot"]
            .map(str::to_owned)
            .to_vec();
        let ai = crate::verdicts::default_ai_agents();
        let headline = Headline {
            parsed: 8,
            blocked: [
                ("GPTBot".to_owned(), [2, 1]),
                ("Googlebot".to_owned(), [4, 4]),
            ]
            .into(),
        };
        let text = headline.render(&agents, &ai, "out");
        assert!(text.contains("AI crawlers blocked, of 8 parsed robots.txt captures"));
        assert!(!text.contains("Googlebot"), "{text}");
        let gpt = text.find("GPTBot").expect("GPTBot row");
        let claude = text.find("ClaudeBot").expect("ClaudeBot row");
        assert!(gpt < claude, "{text}");
        assert!(text.contains("25.0%") && text.contains("12.5%"), "{text}");
        assert!(text.contains("robots-census sites out"));
        // A run asking only about search crawlers gets them.
        let search = headline.render(&agents[..1], &ai, "out");
        assert!(search.contains("Crawlers blocked") && search.contains("50.0%"));
    }
}
