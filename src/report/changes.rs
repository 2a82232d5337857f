//! The report's crawl-over-crawl section: per agent and consecutive pair of crawls,
//! sites that started and stopped fully blocking it, from the changes step's
//! summaries ([`crate::changes::consecutive`], which equals
//! `queries/changes_by_agent.sql`).

use maud::{html, Markup};
use serde_json::json;

use super::charts::{diverging, PALETTE};
use super::html::{caption, cell, int, key, section, th, Layout};
use crate::changes::Summary;

/// The section, or `None` for a dataset of fewer than two crawls (nothing to compare).
pub(super) fn changes_section(pairs: &[Summary]) -> Option<Markup> {
    if pairs.is_empty() {
        return None;
    }
    // Agent by agent, each agent's pairs in crawl order (as the blocking section).
    let mut rows: Vec<(&Summary, &crate::changes::AgentSummary)> = pairs
        .iter()
        .flat_map(|s| s.agents.iter().map(move |a| (s, a)))
        .collect();
    rows.sort_by(|x, y| (&x.1.agent, &x.0.from_crawl).cmp(&(&y.1.agent, &y.0.from_crawl)));
    let bars: Vec<(String, f64, f64)> = rows
        .iter()
        .map(|(s, a)| {
            (
                format!("{} · {}", a.agent, s.to_crawl),
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
                @for (s, a) in &rows {
                    tr data-key=(key(json!({"from_crawl": s.from_crawl, "to_crawl": s.to_crawl, "agent": a.agent}))) {
                        th scope="row" data-col="agent" { (a.agent) }
                        td data-col="from_crawl" { (s.from_crawl) }
                        td data-col="to_crawl" { (s.to_crawl) }
                        (cell("blocks_added", int(a.blocks_added)))
                        (cell("blocks_removed", int(a.blocks_removed)))
                        (cell("net", signed(a.net)))
                    }
                }
            }
        }
    };
    let note = html! {
        "Over sites present in both crawls of a pair (any status class but “No robots.txt capture”): a block is added when the site fully blocks the agent in the later crawl and did not in the earlier, removed in the opposite case (“fully” as in the blocking section). "
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
