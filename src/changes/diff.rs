//! Comparing two crawls of the `sites` table, one site at a time: whether it appeared
//! or disappeared, and for a site present in both, its status-class change, each
//! agent's block, rule lines and sitemaps. Pure: a site's rows and lines in, change
//! rows and counts out.

use serde::Serialize;

use super::lines::Lines;
use super::sites::SiteState;
use super::ChangesError;
use crate::census::site_classes::{Block, StatusClass};
use crate::spill::codec::{put_bytes, put_u64, Reader};
use crate::spill::Chunk;

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

/// The words a change row's fixed cells hold: change kinds, directives, status classes
/// and blocks, so a row read back from a spill file gets the same `&'static str`.
fn word(text: &str) -> Option<&'static str> {
    const WORDS: [&str; 10] = [
        "site_appeared",
        "site_disappeared",
        "status_class",
        "block",
        "rule_added",
        "rule_removed",
        "sitemap_added",
        "sitemap_removed",
        "allow",
        "disallow",
    ];
    WORDS
        .into_iter()
        .chain(StatusClass::ALL.iter().map(|c| c.as_str()))
        .chain([Block::None, Block::Partial, Block::Full].map(Block::as_str))
        .find(|w| *w == text)
}

/// Change rows of sites, each with its site's number: what a comparison holds (or
/// spills) until the sites' line changes join them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbered(pub Vec<(u64, Change)>);

impl Chunk for Numbered {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.0.len() as u64);
        for (seq, c) in &self.0 {
            put_u64(out, *seq);
            put_bytes(out, c.site.as_bytes());
            put_bytes(out, c.change.as_bytes());
            let cells = [
                c.agent.as_deref(),
                c.directive,
                c.value.as_deref(),
                c.before,
                c.after,
            ];
            for cell in cells {
                match cell {
                    Some(text) => {
                        out.push(1);
                        put_bytes(out, text.as_bytes());
                    }
                    None => out.push(0),
                }
            }
        }
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 16));
        let text = |b: &[u8]| {
            std::str::from_utf8(b)
                .map(str::to_owned)
                .map_err(|e| e.to_string())
        };
        for _ in 0..n {
            let seq = r.u64()?;
            let site = text(r.bytes()?)?;
            let change = word(&text(r.bytes()?)?).ok_or("an unknown change kind")?;
            let mut cells: [Option<String>; 5] = Default::default();
            for cell in &mut cells {
                if r.take(1)?[0] == 1 {
                    *cell = Some(text(r.bytes()?)?);
                }
            }
            let [agent, directive, value, before, after] = cells;
            let fixed = |cell: Option<String>| -> Result<Option<&'static str>, String> {
                cell.map(|t| word(&t).ok_or(format!("an unknown cell {t:?}")))
                    .transpose()
            };
            list.push((
                seq,
                Change {
                    site: site.into(),
                    change,
                    agent: agent.map(Into::into),
                    directive: fixed(directive)?,
                    value: value.map(Into::into),
                    before: fixed(before)?,
                    after: fixed(after)?,
                },
            ));
        }
        Ok(Numbered(list))
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
    /// Buckets the comparison was spilled to (`--memory-limit`); not part of the JSON,
    /// which depends on the crawls alone.
    #[serde(skip)]
    pub buckets: usize,
}

/// The agents of both crawls' tables, in name order, with their index in each.
pub fn common_agents<'a>(a: &'a [String], b: &[String]) -> Vec<(&'a str, usize, usize)> {
    let mut agents: Vec<(&str, usize, usize)> = a
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let j = b.iter().position(|n| n == name)?;
            Some((name.as_str(), i, j))
        })
        .collect();
    agents.sort_unstable();
    agents
}

/// Where change rows go as they are found (a Parquet writer, a vector, or nowhere),
/// so a comparison never holds all its rows at once.
pub type Sink<'s> = dyn FnMut(Change) -> Result<(), ChangesError> + 's;

/// The changes of one site that its two `sites` rows alone decide, handed to `sink`:
/// it appeared or disappeared, or, present in both, its status class and each agent's
/// block (`agents`: [`common_agents`]). `x` and `y` are its states in the earlier and
/// the later crawl (`None`: no row).
pub fn site_changes(
    site: &str,
    x: Option<&SiteState>,
    y: Option<&SiteState>,
    agents: &[(&str, usize, usize)],
    summary: &mut Summary,
    sink: &mut Sink<'_>,
) -> Result<(), ChangesError> {
    let x = x.filter(|s| s.present());
    let y = y.filter(|s| s.present());
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
            pair.status(summary, sink)?;
            pair.blocks(agents, summary, sink)?;
        }
    }
    Ok(())
}

/// The rule lines and sitemaps that differ between the deciding robots.txt files of a
/// site present in both crawls (`lx`: the earlier's lines, `ly`: the later's): removed
/// before added, each in (agent, directive, pattern) order, then sitemaps likewise.
pub fn line_changes(
    site: &str,
    lx: &Lines,
    ly: &Lines,
    summary: &mut Summary,
    sink: &mut Sink<'_>,
) -> Result<(), ChangesError> {
    for (kind, set, other) in [
        ("rule_removed", &lx.rules, &ly.rules),
        ("rule_added", &ly.rules, &lx.rules),
    ] {
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
                ..Change::new(site, kind)
            })?;
        }
    }
    for (kind, set, other) in [
        ("sitemap_removed", &lx.sitemaps, &ly.sitemaps),
        ("sitemap_added", &ly.sitemaps, &lx.sitemaps),
    ] {
        for url in set.difference(other) {
            if kind == "sitemap_added" {
                summary.sitemaps_added += 1;
            } else {
                summary.sitemaps_removed += 1;
            }
            sink(Change {
                value: Some(url.clone()),
                ..Change::new(site, kind)
            })?;
        }
    }
    Ok(())
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
        if self.buckets > 1 {
            out += &format!("spilled to {} buckets (--memory-limit)\n", self.buckets);
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
