//! The report's agent-blocking section: agents by crawl as a heatmap (agents grouped
//! by purpose, sorted by their latest value) and as small multiples (one small line
//! chart per agent, one scale), with the rows of `agent_blocking_by_crawl.sql` in a
//! collapsed appendix.

use maud::{html, Markup};
use serde_json::json;

use super::charts::{
    heatmap, nice, short_crawls, small_multiple, Cell, HeatRow, Heatmap, Scale, Trend,
};
use super::crawls::{Blocking, Crawls};
use super::html::{appendix, caption, cell, int, key, pct, section, th, Layout};
use super::purposes::{purpose, Purpose};

/// The agents in page order: by purpose group, then by their latest value (highest
/// first; agents without one last), then by name.
pub(super) fn ordered(c: &Crawls) -> Vec<(Purpose, Vec<&str>)> {
    let latest = |agent: &str| -> Option<f64> {
        c.crawls
            .iter()
            .rev()
            .find_map(|crawl| find(c, agent, crawl).and_then(|b| b.fully_pct))
    };
    Purpose::ALL
        .into_iter()
        .filter_map(|p| {
            let mut agents: Vec<&str> = c
                .agents
                .iter()
                .map(String::as_str)
                .filter(|a| purpose(a) == p)
                .collect();
            agents.sort_by(|a, b| {
                let (x, y) = (latest(a), latest(b));
                y.partial_cmp(&x)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a.cmp(b))
            });
            (!agents.is_empty()).then_some((p, agents))
        })
        .collect()
}

pub(super) fn find<'c>(c: &'c Crawls, agent: &str, crawl: &str) -> Option<&'c Blocking> {
    c.blocking
        .iter()
        .find(|b| b.agent == agent && b.crawl == crawl)
}

/// A percentage as a heatmap cell shows it: one decimal below 10, whole above.
fn short_pct(p: f64) -> String {
    let tenths = (p * 10.0).round() / 10.0;
    if tenths < 10.0 {
        format!("{tenths:.1}")
    } else {
        format!("{p:.0}")
    }
}

fn tip(b: &Blocking) -> String {
    format!(
        "{}, {}: {}% fully blocked ({} of {} sites with a robots.txt; named {}, via * {}), {}% partially",
        b.agent,
        b.crawl,
        pct(b.fully_pct),
        int(b.fully),
        int(b.robots_sites),
        int(b.fully_named),
        int(b.fully_star),
        pct(b.partially_pct),
    )
}

pub(super) fn blocking_section(c: &Crawls) -> Markup {
    let groups = ordered(c);
    let (columns, prefix) = short_crawls(&c.crawls);
    let mut rows = Vec::new();
    for (p, agents) in &groups {
        rows.push(HeatRow::Heading(p.name().to_owned()));
        for agent in agents {
            let cells = c
                .crawls
                .iter()
                .map(|crawl| {
                    let b = find(c, agent, crawl)?;
                    let value = b.fully_pct?;
                    Some(Cell {
                        value,
                        text: short_pct(value),
                        tip: tip(b),
                    })
                })
                .collect();
            rows.push(HeatRow::Cells((*agent).to_owned(), cells));
        }
    }
    let scale = Scale::percent("Percent of sites with a robots.txt that fully block the agent:");
    let map = heatmap(&Heatmap {
        id: "chart-blocking",
        title:
            "Sites fully blocking each agent, percent of sites with a robots.txt, agent by crawl",
        columns: &columns,
        rows: &rows,
        scale: &scale,
    });
    let crawls_note = if prefix.is_empty() {
        String::new()
    } else {
        format!(" Crawls are named without their “{prefix}” prefix.")
    };
    let trends = (c.crawls.len() > 1).then(|| small_multiples(c, &groups, &columns));
    let charts = html! {
        (map)
        @if let Some(trends) = trends {
            h3 { "Fully blocked over time, one chart per agent (same scale)" }
            (trends)
        }
    };
    let table = html! {
        table id="t-blocking" data-query="agent_blocking_by_crawl" {
            (caption("Sites blocking each agent, per crawl", "agent_blocking_by_crawl"))
            thead { tr {
                (th("agent", "Agent")) (th("crawl", "Crawl")) (th("robots_sites", "Sites with robots.txt"))
                (th("fully", "Fully")) (th("fully_named", "named")) (th("fully_star", "via *")) (th("fully_pct", "Fully %"))
                (th("partially", "Partially")) (th("partially_named", "named")) (th("partially_star", "via *")) (th("partially_pct", "Partially %"))
            } }
            tbody {
                @for (_, agents) in &groups {
                    @for agent in agents {
                        @for b in c.blocking.iter().filter(|b| b.agent == *agent) {
                            tr data-key=(key(json!({"crawl": b.crawl, "agent": b.agent}))) {
                                th scope="row" data-col="agent" { (b.agent) }
                                td data-col="crawl" { (b.crawl) }
                                (cell("robots_sites", int(b.robots_sites)))
                                (cell("fully", int(b.fully))) (cell("fully_named", int(b.fully_named)))
                                (cell("fully_star", int(b.fully_star))) (cell("fully_pct", pct(b.fully_pct)))
                                (cell("partially", int(b.partially))) (cell("partially_named", int(b.partially_named)))
                                (cell("partially_star", int(b.partially_star))) (cell("partially_pct", pct(b.partially_pct)))
                            }
                        }
                    }
                }
            }
        }
    };
    let note = html! {
        "Each cell: percent of the crawl's sites whose deciding capture is a robots.txt that fully blocks the agent (Google's parser disallows "
        code { "/" } "), darker for more; “·” where the crawl has no such site. Agents are grouped by purpose (ai.robots.txt's descriptions and the default agent list) and sorted by their latest value. Sites that answer 5xx or 429 (unreachable: Google disallows all; RFC 9309 only for 5xx) are not counted as blocking. Partial blocks and named versus “*” blocks are in the table."
        (crawls_note)
    };
    section(
        "blocking",
        "Agent blocking per crawl",
        Layout::Below,
        note,
        charts,
        appendix(c.blocking.len(), table),
    )
}

/// One small chart per agent, grouped as the heatmap, each in its group's colour.
fn small_multiples(c: &Crawls, groups: &[(Purpose, Vec<&str>)], columns: &[String]) -> Markup {
    let top = c
        .blocking
        .iter()
        .filter_map(|b| b.fully_pct)
        .fold(0.0f64, f64::max)
        .min(100.0);
    let scale = nice(top);
    let mut k = 0;
    html! {
        @for (p, agents) in groups {
            div class="multiples" {
                h4 { span class="swatch" style={ "background:" (p.color()) } {} (p.name()) }
                div class="grid" {
                    @for agent in agents {
                        @let values: Vec<Option<f64>> = c.crawls.iter()
                            .map(|crawl| find(c, agent, crawl).and_then(|b| b.fully_pct)).collect();
                        @let id = { k += 1; format!("chart-trend-{k}") };
                        (small_multiple(&Trend {
                            id: &id,
                            name: agent,
                            x_labels: columns,
                            values: &values,
                            scale,
                            unit: "%",
                            color: p.color(),
                        }))
                    }
                }
            }
        }
    }
}
