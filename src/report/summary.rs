//! The page's headline: the few numbers a reader came for, each in a small table that
//! names the query it comes from — how many of the latest crawl's sites have a
//! robots.txt, how many fully block the top AI crawlers (and since the first crawl),
//! and the biggest changes of the latest pair of consecutive crawls with sites in common.

use maud::{html, Markup};
use serde_json::json;

use super::blocking::find;
use super::changes::{latest_movers, signed, Change};
use super::crawls::Crawls;
use super::html::{caption, cell, int, key, pct, th};
use super::purposes::purpose;

/// AI crawlers shown in the headline.
const TOP_AI: usize = 5;
/// Agents shown among the biggest changes.
const TOP_CHANGES: usize = 5;

pub(super) fn summary_section(c: &Crawls, changes: &[Change]) -> Markup {
    let (Some(first), Some(latest)) = (c.crawls.first(), c.crawls.last()) else {
        return html! {};
    };
    // The share of sites with a robots.txt: the same for every agent of a crawl, so
    // read from the first agent's rows.
    let sites_row = |crawl: &String| c.agents.first().and_then(|a| find(c, a, crawl));
    let shown_crawls: Vec<&String> = if first == latest {
        vec![latest]
    } else {
        vec![first, latest]
    };
    let sites_table = html! {
        table id="t-glance-sites" class="glance" data-query="agent_blocking_by_crawl" {
            (caption("Sites with a robots.txt", "agent_blocking_by_crawl"))
            thead { tr {
                (th("crawl", "Crawl")) (th("sites", "Sites")) (th("robots_sites", "With a robots.txt")) th scope="col" { "Share" }
            } }
            tbody {
                @for crawl in &shown_crawls {
                    @if let Some(b) = sites_row(crawl) {
                        tr data-key=(key(json!({"crawl": b.crawl, "agent": b.agent}))) {
                            th scope="row" data-col="crawl" { (b.crawl) }
                            (cell("sites", int(b.sites))) (cell("robots_sites", int(b.robots_sites)))
                            td class="num big" data-derived="share" { (share(b.robots_sites, b.sites)) "%" }
                        }
                    }
                }
            }
        }
    };
    // The AI crawlers most blocked in the latest crawl.
    let mut ai: Vec<(&str, f64)> = c
        .agents
        .iter()
        .filter(|a| purpose(a).is_ai())
        .filter_map(|a| Some((a.as_str(), find(c, a, latest)?.fully_pct?)))
        .collect();
    ai.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(y.0)));
    ai.truncate(TOP_AI);
    let ai_table = (!ai.is_empty()).then(|| {
        html! {
            table id="t-glance-ai" class="glance" data-query="agent_blocking_by_crawl" {
                (caption("AI crawlers most often fully blocked", "agent_blocking_by_crawl"))
                thead { tr {
                    (th("agent", "Agent")) (th("fully_pct", &format!("{latest} %")))
                    @if first != latest { (th("fully_pct", &format!("{first} %"))) th scope="col" { "Change (points)" } }
                } }
                tbody {
                    @for (agent, _) in &ai {
                        @let now = find(c, agent, latest).and_then(|b| b.fully_pct);
                        @let then = find(c, agent, first).and_then(|b| b.fully_pct);
                        tr data-key=(key(json!({"agent": agent}))) {
                            th scope="row" data-col="agent" { (agent) }
                            td class="num big" data-col="fully_pct" data-key=(key(json!({"crawl": latest}))) { (pct(now)) }
                            @if first != latest {
                                td class="num" data-col="fully_pct" data-key=(key(json!({"crawl": first}))) { (pct(then)) }
                                td class="num" data-derived="difference" {
                                    @if let (Some(now), Some(then)) = (now, then) { (points(now - then)) } @else { "—" }
                                }
                            }
                        }
                    }
                }
            }
        }
    });
    // The biggest changes of the latest pair of consecutive crawls that has sites in
    // common (the changes section's top movers).
    let movers = latest_movers(changes);
    let pair = movers.as_ref().map(|m| (m.from, m.to));
    let mut moves: Vec<&Change> = movers.map(|m| m.moved).unwrap_or_default();
    moves.truncate(TOP_CHANGES);
    let changes_part = match (c.crawls.len() > 1, pair, moves.is_empty()) {
        (false, ..) => html! {},
        (true, None, _) => html! {
            p class="glance-note" { "No site has a capture in two consecutive crawls: nothing to compare." }
        },
        (true, Some((from, to)), true) => html! {
            p class="glance-note" { "No agent gained or lost a full block between " (from) " and " (to) "." }
        },
        (true, Some((from, to)), false) => html! {
            table id="t-glance-changes" class="glance" data-query="changes_by_agent" {
                (caption(&format!("Biggest changes, {from} → {to}"), "changes_by_agent"))
                thead { tr {
                    (th("agent", "Agent")) (th("blocks_added", "Blocks added")) (th("blocks_removed", "Removed")) (th("net", "Net"))
                } }
                tbody {
                    @for ch in &moves {
                        tr data-key=(key(json!({"from_crawl": ch.from_crawl, "to_crawl": ch.to_crawl, "agent": ch.agent}))) {
                            th scope="row" data-col="agent" { (ch.agent) }
                            (cell("blocks_added", int(ch.blocks_added))) (cell("blocks_removed", int(ch.blocks_removed)))
                            td class="num big" data-col="net" { (signed(ch.net)) }
                        }
                    }
                }
            }
        },
    };
    html! {
        section id="summary" {
            h2 { "At a glance" }
            p class="lede" {
                (c.crawls.len()) " crawl" @if c.crawls.len() != 1 { "s" }
                @if first != latest { ", " (first) " to " (latest) } @else { ", " (latest) }
                ". Percentages are of the crawl's sites whose deciding capture is a robots.txt; “fully blocked”: Google's parser disallows "
                code { "/" } " for the agent."
            }
            @if let Some(caveat) = c.order_caveat() {
                p class="caveat" id="crawl-order" { (caveat) }
            }
            div class="glance-row" {
                div { (sites_table) }
                @if let Some(ai) = ai_table { div { (ai) } }
                @if c.crawls.len() > 1 { div { (changes_part) } }
            }
        }
    }
}

/// `n` of `d` in percent, one decimal (the headline's derived share).
pub fn share(n: u64, d: u64) -> String {
    if d == 0 {
        "—".to_owned()
    } else {
        format!("{:.1}", 100.0 * n as f64 / d as f64)
    }
}

/// A difference of percentages, signed, two decimals.
pub fn points(d: f64) -> String {
    let d = (d * 100.0).round() / 100.0;
    if d > 0.0 {
        format!("+{d:.2}")
    } else if d == 0.0 {
        "0.00".to_owned()
    } else {
        format!("{d:.2}")
    }
}
