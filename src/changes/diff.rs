//! Comparing two crawls of the `sites` table, site by site in name order: which sites
//! appeared or disappeared, and for sites present in both, status-class changes, each
//! agent's block state, rule lines and sitemaps. Pure: tables in, change rows and a
//! summary out.

use std::collections::BTreeSet;

use serde::Serialize;

use super::read::{is_robots, Block, CrawlSites, RuleLine, SiteState};
use super::ChangesError;
use crate::output::ids::{IdMap, SortedIds};

/// One row of the `changes` table (the crawls are per file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub site: Box<str>,
    pub change: &'static str,
    pub agent: Option<Box<str>>,
    pub directive: Option<&'static str>,
    pub value: Option<Box<str>>,
    pub before: Option<&'static str>,
    pub after: Option<&'static str>,
}

impl Change {
    fn new(site: &str, change: &'static str) -> Change {
        Change {
            site: site.into(),
            change,
            agent: None,
            directive: None,
            value: None,
            before: None,
            after: None,
        }
    }
}

/// Blocks of one agent between two crawls, over sites present in both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgentSummary {
    pub agent: String,
    /// Sites that fully block the agent in the later crawl and did not in the earlier.
    pub blocks_added: u64,
    /// Sites that fully blocked it in the earlier crawl and do not in the later.
    pub blocks_removed: u64,
    /// `blocks_added - blocks_removed`.
    pub net: i64,
    /// Sites newly partially blocking it (from none or full).
    pub partial_added: u64,
    /// Sites newly blocking it neither fully nor partially (from full or partial).
    pub unblocked: u64,
}

/// What changed between two crawls, in counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub from_crawl: String,
    pub to_crawl: String,
    pub site_key: String,
    pub status_semantics: String,
    /// Sites present (any class but "No robots.txt capture") in each crawl, and in both.
    pub sites_from: u64,
    pub sites_to: u64,
    pub sites_in_both: u64,
    pub appeared: u64,
    pub disappeared: u64,
    pub status_changes: u64,
    pub rules_added: u64,
    pub rules_removed: u64,
    pub sitemaps_added: u64,
    pub sitemaps_removed: u64,
    pub agents: Vec<AgentSummary>,
    /// Passes the comparison took (`--memory-limit`); not part of the JSON, which
    /// depends on the crawls alone.
    #[serde(skip)]
    pub passes: usize,
}

/// Rule lines and sitemaps of the deciding captures of one crawl.
#[derive(Debug, Default)]
pub struct Lines {
    pub rules: IdMap<BTreeSet<RuleLine>>,
    pub sitemaps: IdMap<BTreeSet<Box<str>>>,
}

/// The deciding captures whose lines are compared: robots.txt files of sites present
/// in both crawls and a robots.txt file in both (a change to or from another class is a
/// status_class change, not the removal or addition of every line).
pub fn compared_docs(a: &CrawlSites, b: &CrawlSites) -> (SortedIds, SortedIds) {
    let (mut from, mut to) = (Vec::new(), Vec::new());
    for (site, x) in &a.sites {
        let Some(y) = b.sites.get(site) else { continue };
        if let (true, true, Some(dx), Some(dy)) =
            (is_robots(x.class), is_robots(y.class), x.doc_id, y.doc_id)
        {
            from.push(dx);
            to.push(dy);
        }
    }
    (SortedIds::new(from), SortedIds::new(to))
}

/// The agents of both tables, in name order, with their index in each.
fn common_agents<'a>(a: &'a CrawlSites, b: &CrawlSites) -> Vec<(&'a str, usize, usize)> {
    let mut agents: Vec<(&str, usize, usize)> = a
        .agents
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let j = b.agents.iter().position(|n| n == name)?;
            Some((name.as_str(), i, j))
        })
        .collect();
    agents.sort_unstable();
    agents
}

/// Where change rows go as they are found (a Parquet writer, a vector, or nowhere),
/// so a comparison never holds all its rows at once.
pub type Sink<'s> = dyn FnMut(Change) -> Result<(), ChangesError> + 's;

/// Every change between `a` (earlier) and `b` (later), sites in name order, handed to
/// `sink`; returns the summary.
pub fn compare(
    a: &CrawlSites,
    b: &CrawlSites,
    la: &Lines,
    lb: &Lines,
    sink: &mut Sink<'_>,
) -> Result<Summary, ChangesError> {
    let agents = common_agents(a, b);
    let mut summary = Summary {
        from_crawl: a.crawl.clone(),
        to_crawl: b.crawl.clone(),
        site_key: a.site_key.clone(),
        status_semantics: a.semantics.clone(),
        agents: agents
            .iter()
            .map(|(name, _, _)| AgentSummary {
                agent: (*name).to_owned(),
                ..AgentSummary::default()
            })
            .collect(),
        ..Summary::default()
    };
    let mut names: Vec<&str> = a.sites.keys().chain(b.sites.keys()).map(|s| &**s).collect();
    names.sort_unstable();
    names.dedup();
    for site in names {
        let x = a.sites.get(site).filter(|s| s.present());
        let y = b.sites.get(site).filter(|s| s.present());
        summary.sites_from += u64::from(x.is_some());
        summary.sites_to += u64::from(y.is_some());
        match (x, y) {
            (None, None) => {}
            (None, Some(y)) => {
                summary.appeared += 1;
                sink(Change {
                    after: Some(y.class.as_str()),
                    ..Change::new(site, "site_appeared")
                })?;
            }
            (Some(x), None) => {
                summary.disappeared += 1;
                sink(Change {
                    before: Some(x.class.as_str()),
                    ..Change::new(site, "site_disappeared")
                })?;
            }
            (Some(x), Some(y)) => {
                summary.sites_in_both += 1;
                let pair = Pair { site, x, y };
                pair.status(&mut summary, sink)?;
                pair.blocks(&agents, &mut summary, sink)?;
                pair.lines(la, lb, &mut summary, sink)?;
            }
        }
    }
    Ok(summary)
}

/// One site present in both crawls.
struct Pair<'a> {
    site: &'a str,
    x: &'a SiteState,
    y: &'a SiteState,
}

impl Pair<'_> {
    fn status(&self, summary: &mut Summary, sink: &mut Sink<'_>) -> Result<(), ChangesError> {
        if self.x.class != self.y.class {
            summary.status_changes += 1;
            sink(Change {
                before: Some(self.x.class.as_str()),
                after: Some(self.y.class.as_str()),
                ..Change::new(self.site, "status_class")
            })?;
        }
        Ok(())
    }

    fn blocks(
        &self,
        agents: &[(&str, usize, usize)],
        summary: &mut Summary,
        sink: &mut Sink<'_>,
    ) -> Result<(), ChangesError> {
        for (k, (agent, i, j)) in agents.iter().enumerate() {
            let was = self.x.blocks.get(*i).copied().flatten();
            let now = self.y.blocks.get(*j).copied().flatten();
            let (Some(was), Some(now)) = (was, now) else {
                continue;
            };
            if was == now {
                continue;
            }
            summary.agents[k].add(&AgentSummary {
                blocks_added: u64::from(now == Block::Full),
                blocks_removed: u64::from(was == Block::Full),
                partial_added: u64::from(now == Block::Partial),
                unblocked: u64::from(now == Block::None),
                ..AgentSummary::default()
            });
            sink(Change {
                agent: Some((*agent).into()),
                before: Some(was.as_str()),
                after: Some(now.as_str()),
                ..Change::new(self.site, "block")
            })?;
        }
        Ok(())
    }

    fn lines(
        &self,
        la: &Lines,
        lb: &Lines,
        summary: &mut Summary,
        sink: &mut Sink<'_>,
    ) -> Result<(), ChangesError> {
        let (true, true, Some(dx), Some(dy)) = (
            is_robots(self.x.class),
            is_robots(self.y.class),
            self.x.doc_id,
            self.y.doc_id,
        ) else {
            return Ok(());
        };
        let empty_rules = BTreeSet::new();
        let (rx, ry) = (
            la.rules.get(&dx).unwrap_or(&empty_rules),
            lb.rules.get(&dy).unwrap_or(&empty_rules),
        );
        // Removed before added, each in (agent, directive, pattern) order.
        for (kind, set, other) in [("rule_removed", rx, ry), ("rule_added", ry, rx)] {
            for (agent, directive, pattern) in set.difference(other) {
                if kind == "rule_added" {
                    summary.rules_added += 1;
                } else {
                    summary.rules_removed += 1;
                }
                sink(Change {
                    agent: Some(agent.clone()),
                    directive: Some(directive),
                    value: Some(pattern.clone()),
                    ..Change::new(self.site, kind)
                })?;
            }
        }
        let empty_maps = BTreeSet::new();
        let (mx, my) = (
            la.sitemaps.get(&dx).unwrap_or(&empty_maps),
            lb.sitemaps.get(&dy).unwrap_or(&empty_maps),
        );
        for (kind, set, other) in [("sitemap_removed", mx, my), ("sitemap_added", my, mx)] {
            for url in set.difference(other) {
                if kind == "sitemap_added" {
                    summary.sitemaps_added += 1;
                } else {
                    summary.sitemaps_removed += 1;
                }
                sink(Change {
                    value: Some(url.clone()),
                    ..Change::new(self.site, kind)
                })?;
            }
        }
        Ok(())
    }
}

impl AgentSummary {
    fn add(&mut self, other: &AgentSummary) {
        self.blocks_added += other.blocks_added;
        self.blocks_removed += other.blocks_removed;
        self.partial_added += other.partial_added;
        self.unblocked += other.unblocked;
        self.net = i64::try_from(self.blocks_added).unwrap_or(i64::MAX)
            - i64::try_from(self.blocks_removed).unwrap_or(i64::MAX);
    }
}

impl Summary {
    /// Adds the counts of `pass`, the summary of another range of sites of the same
    /// comparison; agents are matched by name and kept in name order.
    pub fn add(&mut self, pass: Summary) {
        self.sites_from += pass.sites_from;
        self.sites_to += pass.sites_to;
        self.sites_in_both += pass.sites_in_both;
        self.appeared += pass.appeared;
        self.disappeared += pass.disappeared;
        self.status_changes += pass.status_changes;
        self.rules_added += pass.rules_added;
        self.rules_removed += pass.rules_removed;
        self.sitemaps_added += pass.sitemaps_added;
        self.sitemaps_removed += pass.sitemaps_removed;
        for agent in &pass.agents {
            self.agent(&agent.agent).add(agent);
        }
    }

    /// Makes every agent of `names` listed (with no counts when no pass had it in
    /// both crawls): a comparison lists the agents both crawls' tables have.
    pub fn list_agents<'a>(&mut self, names: impl Iterator<Item = &'a String>) {
        for name in names {
            self.agent(name);
        }
    }

    /// The entry of `name`, added in name order when missing.
    fn agent(&mut self, name: &str) -> &mut AgentSummary {
        let i = match self.agents.binary_search_by(|a| a.agent.as_str().cmp(name)) {
            Ok(i) => i,
            Err(i) => {
                self.agents.insert(
                    i,
                    AgentSummary {
                        agent: name.to_owned(),
                        ..AgentSummary::default()
                    },
                );
                i
            }
        };
        &mut self.agents[i]
    }

    /// The terminal form: counts, then one line per agent.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{} -> {} (site key {}, {}): {} sites in {}, {} in {}, {} in both; {} appeared, {} disappeared\n\
             sites in both: {} status-class changes; rule lines +{} -{}; sitemaps +{} -{}\n",
            self.from_crawl,
            self.to_crawl,
            self.site_key,
            self.status_semantics,
            self.sites_from,
            self.from_crawl,
            self.sites_to,
            self.to_crawl,
            self.sites_in_both,
            self.appeared,
            self.disappeared,
            self.status_changes,
            self.rules_added,
            self.rules_removed,
            self.sitemaps_added,
            self.sitemaps_removed,
        );
        if self.passes > 1 {
            out += &format!("compared in {} passes (--memory-limit)\n", self.passes);
        }
        let width = self
            .agents
            .iter()
            .map(|a| a.agent.len())
            .chain([5])
            .max()
            .unwrap_or(5);
        out += &format!(
            "{:<width$}  {:>12}  {:>14}  {:>6}  {:>13}  {:>9}\n",
            "agent", "blocks_added", "blocks_removed", "net", "partial_added", "unblocked"
        );
        for a in &self.agents {
            out += &format!(
                "{:<width$}  {:>12}  {:>14}  {:>6}  {:>13}  {:>9}\n",
                a.agent, a.blocks_added, a.blocks_removed, a.net, a.partial_added, a.unblocked
            );
        }
        out
    }
}
