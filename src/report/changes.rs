//! The report's crawl-over-crawl section: per agent and consecutive pair of crawls,
//! sites that started and stopped fully blocking it (the rows of
//! `queries/changes_by_agent.sql`).

use maud::{html, Markup};
use serde_json::json;

use super::charts::{
    diverging, heatmap, short_crawls, Cell as HeatCell, HeatRow, Heatmap, Scale, PALETTE,
};
use super::html::{appendix, caption, cell, int, key, section, th, Layout};
use super::purposes::{purpose, Purpose};
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

/// Agents drawn in the top movers' chart.
const TOP_MOVERS: usize = 15;

/// The section, or `None` for a dataset of fewer than two crawls (nothing to compare).
/// With two or more crawls but no row (no site in two consecutive crawls), the
/// section says so. Only agents that changed are drawn: the latest pair's top movers
/// as bars, and with more pairs every pair's net change as a heatmap; what is left
/// out is named in a sentence.
pub(super) fn changes_section(changes: &[Change], crawls: &[String]) -> Option<Markup> {
    if crawls.len() < 2 {
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
    let moved = |c: &&Change| c.blocks_added > 0 || c.blocks_removed > 0;
    let Movers {
        from,
        to: last_to,
        rows: pair_rows,
        moved: mut top,
    } = latest_movers(changes)?;
    let changed = top.len();
    let more = changed.saturating_sub(TOP_MOVERS);
    top.truncate(TOP_MOVERS);
    let bars: Vec<(String, f64, f64)> = top
        .iter()
        .map(|a| {
            (
                a.agent.clone(),
                a.blocks_removed as f64,
                a.blocks_added as f64,
            )
        })
        .collect();
    let movers = if bars.is_empty() {
        html! { p class="note" { "No agent gained or lost a full block between " (from) " and " (last_to) "." } }
    } else {
        html! {
            h3 { "Top movers, " (from) " → " (last_to) }
            (diverging(
                "chart-changes",
                &format!("Sites that stopped (left) and started (right) fully blocking each agent, {from} to {last_to}"),
                &bars,
                ("blocks removed", "blocks added"),
                (PALETTE[1], PALETTE[0]),
            ))
            p class="note" {
                (changed) " of " (pair_rows) " agents changed"
                @if more > 0 { " (the " (TOP_MOVERS) " biggest drawn, " (more) " more in the table)" }
                @if top.iter().all(|c| c.blocks_removed == 0) { "; no agent lost a block" }
                @if top.iter().all(|c| c.blocks_added == 0) { "; no agent gained a block" }
                "."
            }
        }
    };
    let net = net_heatmap(changes, crawls);
    // Agents with no change in any pair: named, not drawn.
    let mut still: Vec<&str> = changes.iter().map(|c| c.agent.as_str()).collect();
    still.sort_unstable();
    still.dedup();
    still.retain(|a| !changes.iter().any(|c| c.agent == *a && moved(&c)));
    // Agent by agent, each agent's pairs in crawl order (as the blocking section).
    let mut rows: Vec<&Change> = changes.iter().collect();
    rows.sort_by(|x, y| (&x.agent, &x.from_crawl).cmp(&(&y.agent, &y.from_crawl)));
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
    let charts = html! {
        (movers)
        @if let Some(net) = net { h3 { "Net change in every pair of consecutive crawls (agents that changed)" } (net) }
        @if !still.is_empty() {
            p class="note" { "No change in any pair, not drawn: " (still.join(", ")) "." }
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
        charts,
        appendix(rows.len(), table),
    ))
}

/// The latest pair of consecutive crawls with rows (sites in common) and its agents
/// that gained or lost a block: what the top movers' chart and the headline show.
pub(super) struct Movers<'a> {
    pub from: &'a str,
    pub to: &'a str,
    /// The pair's rows (every agent, changed or not).
    pub rows: usize,
    /// Biggest net change first, then most blocks added and removed, then by name.
    pub moved: Vec<&'a Change>,
}

/// [`Movers`] of the query's rows; `None` when there is none.
pub(super) fn latest_movers(changes: &[Change]) -> Option<Movers<'_>> {
    let last = changes.iter().max_by(|x, y| x.to_crawl.cmp(&y.to_crawl))?;
    let pair: Vec<&Change> = changes
        .iter()
        .filter(|c| c.to_crawl == last.to_crawl)
        .collect();
    let mut moved: Vec<&Change> = pair
        .iter()
        .copied()
        .filter(|c| c.blocks_added > 0 || c.blocks_removed > 0)
        .collect();
    moved.sort_by(|x, y| {
        y.net
            .unsigned_abs()
            .cmp(&x.net.unsigned_abs())
            .then_with(|| {
                (y.blocks_added + y.blocks_removed).cmp(&(x.blocks_added + x.blocks_removed))
            })
            .then_with(|| x.agent.cmp(&y.agent))
    });
    Some(Movers {
        from: &last.from_crawl,
        to: &last.to_crawl,
        rows: pair.len(),
        moved,
    })
}

/// Net change per agent (rows, agents that changed in some pair, grouped by purpose
/// and by their total movement) and pair (columns, named by the later crawl); `None`
/// with a single pair, which the top movers' bars show whole.
fn net_heatmap(changes: &[Change], crawls: &[String]) -> Option<Markup> {
    let mut pairs: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| (c.from_crawl.as_str(), c.to_crawl.as_str()))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    if pairs.len() < 2 {
        return None;
    }
    let (short, _) = short_crawls(crawls);
    let label = |crawl: &str| {
        crawls
            .iter()
            .position(|c| c == crawl)
            .map_or_else(|| crawl.to_owned(), |i| format!("→{}", short[i]))
    };
    let columns: Vec<String> = pairs.iter().map(|(_, to)| label(to)).collect();
    let mut movement: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for c in changes {
        *movement.entry(c.agent.as_str()).or_default() += c.blocks_added + c.blocks_removed;
    }
    let max = changes
        .iter()
        .map(|c| c.net.unsigned_abs())
        .max()
        .unwrap_or(0) as f64;
    let mut rows = Vec::new();
    for p in Purpose::ALL {
        let mut agents: Vec<(&str, u64)> = movement
            .iter()
            .filter(|(a, n)| **n > 0 && purpose(a) == p)
            .map(|(a, n)| (*a, *n))
            .collect();
        if agents.is_empty() {
            continue;
        }
        agents.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(y.0)));
        rows.push(HeatRow::Heading(p.name().to_owned()));
        for (agent, _) in agents {
            let cells = pairs
                .iter()
                .map(|(from, to)| {
                    let c = changes
                        .iter()
                        .find(|c| c.agent == agent && c.from_crawl == *from && c.to_crawl == *to)?;
                    Some(HeatCell {
                        value: c.net as f64,
                        text: if c.net == 0 {
                            "0".to_owned()
                        } else {
                            signed_plus(c.net)
                        },
                        tip: format!(
                            "{agent}, {from} → {to}: {} added, {} removed, net {}",
                            int(c.blocks_added),
                            int(c.blocks_removed),
                            signed(c.net)
                        ),
                    })
                })
                .collect();
            rows.push(HeatRow::Cells(agent.to_owned(), cells));
        }
    }
    let scale = Scale::signed(
        "Net change in sites fully blocking the agent (blue: more blocks, orange: fewer):",
        max,
    );
    Some(heatmap(&Heatmap {
        id: "chart-changes-net",
        title: "Net change in sites fully blocking each agent, per pair of consecutive crawls",
        columns: &columns,
        rows: &rows,
        scale: &scale,
    }))
}

/// A signed count with a plus for gains (a heatmap cell).
fn signed_plus(n: i64) -> String {
    if n > 0 {
        format!("+{}", int(n.unsigned_abs()))
    } else {
        signed(n)
    }
}

/// A count that may be negative, with thousands separators.
pub(super) fn signed(n: i64) -> String {
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
