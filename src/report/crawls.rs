//! The per-crawl numbers of the report, from the `sites` table (one deciding capture
//! per crawl and site, under the sites step's options): the rows of
//! `queries/site_status_by_crawl.sql` and `queries/agent_blocking_by_crawl.sql`, and
//! what the report's header query says of the table's options.

use std::collections::BTreeMap;

use super::queries::{Row, Rows};
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
    /// Percent of `robots_sites`, as the query rounds them; null without a robots.txt.
    pub fully_pct: Option<f64>,
    pub partially_pct: Option<f64>,
}

impl Blocking {
    fn of(row: &Row<'_>) -> Result<Blocking, ReportError> {
        Ok(Blocking {
            crawl: row.text("crawl")?,
            agent: row.text("agent")?,
            sites: row.count("sites")?,
            robots_sites: row.count("robots_sites")?,
            fully: row.count("fully")?,
            fully_named: row.count("fully_named")?,
            fully_star: row.count("fully_star")?,
            partially: row.count("partially")?,
            partially_named: row.count("partially_named")?,
            partially_star: row.count("partially_star")?,
            fully_pct: row.float("fully_pct")?,
            partially_pct: row.float("partially_pct")?,
        })
    }
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
    /// distinct value, comma-separated, so a table mixing runs shows it.
    pub site_keys: String,
    pub semantics: String,
    /// Sites with a rank (the table was made with `--ranks`).
    pub ranked_sites: u64,
}

impl Crawls {
    /// The crawls whose names are not Common Crawl ids (`CC-MAIN-YYYY-WW`, which sort
    /// by time), when there are two crawls or more: their place in time is not known,
    /// so "first", "latest" and every change between crawls follow name order only.
    /// (`run --default-crawl` names the crawl of inputs that carry none: `unknown`.)
    pub fn untimed(&self) -> Vec<&str> {
        if self.crawls.len() < 2 {
            return Vec::new();
        }
        self.crawls
            .iter()
            .filter(|c| !crate::census::crawl::is_crawl_id(c))
            .map(String::as_str)
            .collect()
    }

    /// What [`Crawls::untimed`] means for the page, in one sentence; `None` when every
    /// crawl is a Common Crawl id (or there is one crawl).
    pub fn order_caveat(&self) -> Option<String> {
        let untimed = self.untimed();
        let (first, rest) = untimed.split_first()?;
        let names = rest
            .iter()
            .fold(format!("\"{first}\""), |all, c| format!("{all}, \"{c}\""));
        let (is, its) = if rest.is_empty() {
            ("is", "its")
        } else {
            ("are", "their")
        };
        Some(format!(
            "Crawls are in name order, and {names} {is} not a Common Crawl crawl id \
             (CC-MAIN-YYYY-WW), so {its} place in time is not known: \"first\", \"latest\" \
             and every change between crawls on this page follow name order, not time. \
             Name the crawl of such inputs with run --default-crawl CC-MAIN-YYYY-WW."
        ))
    }
}

/// The per-crawl numbers from the results of `site_status_by_crawl`,
/// `agent_blocking_by_crawl` and the header query.
pub fn from_rows(status: &Rows, blocking: &Rows, header: &Rows) -> Result<Crawls, ReportError> {
    let mut classes: BTreeMap<String, PerClass<u64>> = BTreeMap::new();
    status.each(|row| {
        let class = row.text("status_class")?;
        let Some(index) = StatusClass::ALL.iter().position(|c| c.as_str() == class) else {
            return Err(ReportError::Value {
                table: "sites",
                column: "status_class",
                value: class,
            });
        };
        classes.entry(row.text("crawl")?).or_default()[index] = row.count("sites")?;
        Ok(())
    })?;
    let mut crawls = Crawls {
        crawls: classes.keys().cloned().collect(),
        status: classes.into_iter().collect(),
        blocking: blocking.map(Blocking::of)?,
        ..Crawls::default()
    };
    let mut agents: Vec<String> = crawls.blocking.iter().map(|b| b.agent.clone()).collect();
    agents.sort_unstable();
    agents.dedup();
    crawls.agents = agents;
    header.each(|row| {
        crawls.site_keys = row.text("site_keys")?;
        crawls.semantics = row.text("semantics")?;
        crawls.ranked_sites = row.count("ranked_sites")?;
        Ok(())
    })?;
    Ok(crawls)
}

#[cfg(test)]
mod tests {
    use super::Crawls;

    fn of(names: &[&str]) -> Crawls {
        Crawls {
            crawls: names.iter().map(|n| (*n).to_owned()).collect(),
            ..Crawls::default()
        }
    }

    #[test]
    fn only_names_that_are_not_crawl_ids_have_no_place_in_time() {
        assert_eq!(
            of(&["CC-MAIN-2024-10", "CC-MAIN-2025-43"]).order_caveat(),
            None
        );
        // One crawl: nothing is ordered.
        assert_eq!(of(&["unknown"]).order_caveat(), None);
        let mixed = of(&["CC-MAIN-2024-10", "CC-MAIN-2024-10-extra", "unknown"]);
        assert_eq!(mixed.untimed(), ["CC-MAIN-2024-10-extra", "unknown"]);
        let caveat = mixed.order_caveat().expect("a caveat");
        assert!(
            caveat.starts_with(
                "Crawls are in name order, and \"CC-MAIN-2024-10-extra\", \"unknown\" are not"
            ),
            "{caveat}"
        );
        let one = of(&["CC-MAIN-2024-10", "unknown"]).order_caveat();
        assert!(one.is_some_and(|c| c.contains("\"unknown\" is not a Common Crawl crawl id")));
    }
}
