//! The per-crawl numbers of the report, from the `sites` table (one deciding capture
//! per crawl and site, under the sites step's options): status classes per crawl
//! (`queries/site_status_by_crawl.sql`) and agent blocking per crawl
//! (`queries/agent_blocking_by_crawl.sql`). Each definition below is the query's.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use super::read::for_each_row;
use super::ReportError;
use crate::sites::{PerClass, StatusClass};

/// One crawl and agent: sites with a capture, and how the agent is restricted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocking {
    pub crawl: String,
    pub agent: String,
    /// Sites with a capture (every class but "No robots.txt capture").
    pub sites: u64,
    /// Sites whose deciding capture is a robots.txt ("Robots.txt with/no rules").
    pub robots_sites: u64,
    pub fully: u64,
    pub fully_named: u64,
    pub fully_star: u64,
    pub partially: u64,
    pub partially_named: u64,
    pub partially_star: u64,
}

impl Blocking {
    pub fn fully_pct(&self) -> Option<f64> {
        pct(self.fully, self.robots_sites)
    }
    pub fn partially_pct(&self) -> Option<f64> {
        pct(self.partially, self.robots_sites)
    }
}

/// `round(100.0 * n / nullif(d, 0), 2)` as DuckDB computes it.
pub fn pct(n: u64, d: u64) -> Option<f64> {
    (d > 0).then(|| round2(100.0 * n as f64 / d as f64))
}

/// Rounding to two decimals, half away from zero (DuckDB's `round`).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// What the sites table says, per crawl.
#[derive(Debug, Default)]
pub struct Crawls {
    /// Crawl names in order.
    pub crawls: Vec<String>,
    /// Per crawl: distinct sites per status class, in [`StatusClass::ALL`] order.
    pub status: Vec<(String, PerClass<u64>)>,
    /// Per crawl and agent, crawls in order, agents in name order.
    pub blocking: Vec<Blocking>,
    /// Agents in name order.
    pub agents: Vec<String>,
    /// The options the table records (`site_key`, `status_semantics`): every
    /// distinct value, so a table mixing runs shows it.
    pub site_keys: BTreeSet<String>,
    pub semantics: BTreeSet<String>,
    /// Sites with a rank (the table was made with `--ranks`).
    pub ranked_sites: u64,
}

/// Reads `<out>/sites` into the per-crawl numbers.
pub fn read(out: &Path) -> Result<Crawls, ReportError> {
    let mut classes: BTreeMap<String, PerClass<HashSet<String>>> = BTreeMap::new();
    let mut blocking: BTreeMap<(String, String), Blocking> = BTreeMap::new();
    let mut crawls = Crawls::default();
    let mut ranked: HashSet<(String, String)> = HashSet::new();
    let columns = [
        "crawl",
        "site",
        "agent",
        "status_class",
        "google_class",
        "root_allowed",
        "named",
        "rank",
        "site_key",
        "status_semantics",
    ];
    for_each_row(out, "sites", &columns, |row| {
        let crawl = row.str("crawl")?.unwrap_or_default();
        let site = row.str("site")?.unwrap_or_default();
        let agent = row.str("agent")?.unwrap_or_default();
        let class = row.str("status_class")?.unwrap_or_default();
        let Some(index) = StatusClass::ALL.iter().position(|c| c.as_str() == class) else {
            return Err(ReportError::Value {
                table: "sites",
                column: "status_class",
                value: class.to_owned(),
            });
        };
        for (set, column) in [
            (&mut crawls.site_keys, "site_key"),
            (&mut crawls.semantics, "status_semantics"),
        ] {
            if let Some(v) = row.str(column)? {
                if !set.contains(v) {
                    set.insert(v.to_owned());
                }
            }
        }
        let per_crawl = classes.entry(crawl.to_owned()).or_default();
        if !per_crawl[index].contains(site) {
            per_crawl[index].insert(site.to_owned());
        }
        if row.int("rank")?.is_some() {
            ranked.insert((crawl.to_owned(), site.to_owned()));
        }
        if StatusClass::ALL[index] == StatusClass::NoCapture {
            return Ok(());
        }
        let b = blocking
            .entry((crawl.to_owned(), agent.to_owned()))
            .or_insert_with(|| Blocking {
                crawl: crawl.to_owned(),
                agent: agent.to_owned(),
                ..Blocking::default()
            });
        b.sites += 1;
        let is_robots = matches!(
            StatusClass::ALL[index],
            StatusClass::WithRules | StatusClass::NoRules
        );
        if !is_robots {
            return Ok(());
        }
        b.robots_sites += 1;
        let named = row.bool("named")?.unwrap_or(false);
        // SQL's three-valued logic: a null root_allowed counts in neither column.
        match row.bool("root_allowed")? {
            Some(false) => {
                b.fully += 1;
                *if named {
                    &mut b.fully_named
                } else {
                    &mut b.fully_star
                } += 1;
            }
            Some(true) if row.str("google_class")? == Some("partial") => {
                b.partially += 1;
                *if named {
                    &mut b.partially_named
                } else {
                    &mut b.partially_star
                } += 1;
            }
            _ => {}
        }
        Ok(())
    })?;
    crawls.crawls = classes.keys().cloned().collect();
    crawls.status = classes
        .into_iter()
        .map(|(crawl, sets)| (crawl, sets.map(|s| s.len() as u64)))
        .collect();
    let agents: BTreeSet<String> = blocking.keys().map(|(_, a)| a.clone()).collect();
    crawls.agents = agents.into_iter().collect();
    crawls.blocking = blocking.into_values().collect();
    crawls.ranked_sites = ranked.len() as u64;
    Ok(crawls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_like_duckdb() {
        assert_eq!(pct(1, 3), Some(33.33));
        assert_eq!(pct(2, 3), Some(66.67));
        assert_eq!(pct(1, 0), None);
        assert_eq!(round2(0.125), 0.13);
    }
}
