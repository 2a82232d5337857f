//! The report's crawl-over-crawl section: per agent and consecutive pair of crawls,
//! sites that started and stopped fully blocking it (the rows of
//! `queries/changes_by_agent.sql`).

use maud::{html, Markup};
use serde_json::json;

use super::charts::{diverging, PALETTE};
use super::html::{caption, cell, int, key, section, th, Layout};
use super::queries::{Row, Rows};
use super::ReportError;

/// One row of `changes_by_agent.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub from_crawl: String,
    pub to_crawl: String,
    pub agent: String,
    pub blocks_added: u64,
    pub blocks_removed: u64,
    pub net: i64,
}

impl Change {
    fn of(row: &Row<'_>) -> Result<Change, ReportError> {
        Ok(Change {
            from_crawl: row.text("from_crawl")?,
            to_crawl: row.text("to_crawl")?,
            agent: row.text("agent")?,
            blocks_added: row.count("blocks_added")?,
            blocks_removed: row.count("blocks_removed")?,
            net: row.int("net")?.unwrap_or(0),
        })
    }
}

/// The query's rows.
pub fn from_rows(rows: &Rows) -> Result<Vec<Change>, ReportError> {
    rows.map(Change::of)
}

/// The section, or `None` for a dataset of fewer than two crawls (nothing to compare).
/// With two or more crawls but no row (no site in two consecutive crawls), the
/// section says so.
pub(super) fn changes_section(changes: &[Change], crawls: usize) -> Option<Markup> {
    if crawls < 2 {
        return None;
    }
    if changes.is_empty() {
        return Some(html! {
            section id="changes" {
                h2 { "Changes between crawls" }
                p class="note" {
                    "No site has a capture in two consecutive crawls, so there is nothing to compare ("
                    span class="q" { "queries/changes_by_agent.sql" } " returns no row)."
                }
            }
        });
    }
    // Agent by agent, each agent's pairs in crawl order (as the blocking section).
    let mut rows: Vec<&Change> = changes.iter().collect();
    rows.sort_by(|x, y| (&x.agent, &x.from_crawl).cmp(&(&y.agent, &y.from_crawl)));
    let bars: Vec<(String, f64, f64)> = rows
        .iter()
        .map(|a| {
            (
                format!("{} · {}", a.agent, a.to_crawl),
                a.blocks_removed as f64,
                a.blocks_added as f64,
            )
        })
        .collect();
    let chart = diverging(
        "chart-changes",
        "Sites that stopped (left) and started (right) fully blocking each agent, since the previous crawl",
        &bars,
        ("blocks removed", "blocks added"),
        (PALETTE[1], PALETTE[0]),
    );
    let table = html! {
        table id="t-changes" data-query="changes_by_agent" {
            (caption("Blocks added and removed per agent between consecutive crawls", "changes_by_agent"))
            thead { tr {
                (th("agent", "Agent")) (th("from_crawl", "From")) (th("to_crawl", "To"))
                (th("blocks_added", "Blocks added")) (th("blocks_removed", "Blocks removed")) (th("net", "Net"))
            } }
            tbody {
                @for a in &rows {
                    tr data-key=(key(json!({"from_crawl": a.from_crawl, "to_crawl": a.to_crawl, "agent": a.agent}))) {
                        th scope="row" data-col="agent" { (a.agent) }
                        td data-col="from_crawl" { (a.from_crawl) }
                        td data-col="to_crawl" { (a.to_crawl) }
                        (cell("blocks_added", int(a.blocks_added)))
                        (cell("blocks_removed", int(a.blocks_removed)))
                        (cell("net", signed(a.net)))
                    }
                }
            }
        }
    };
    let note = html! {
        "Over sites present in both crawls of a pair (any status class but “No robots.txt capture”): a block is added when the site fully blocks the agent in the later crawl and did not in the earlier, removed in the opposite case (“fully” as in the blocking section); a pair of crawls with no site in common has no row. "
        code { "robots-census changes OUT --from A --to B" } " lists the sites, rule lines and sitemaps behind each number."
    };
    Some(section(
        "changes",
        "Changes between crawls",
        Layout::Below,
        note,
        chart,
        table,
    ))
}

/// A count that may be negative, with thousands separators.
fn signed(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}", int(n.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_counts_keep_their_sign() {
        assert_eq!(signed(-1234), "-1,234");
        assert_eq!(signed(0), "0");
        assert_eq!(signed(12), "12");
    }
}
