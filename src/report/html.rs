//! The report page: one self-contained HTML document (inline CSS and SVG, no script,
//! nothing fetched), one section per subject: its charts, and its numbers in a table
//! beside or below them (collapsed in a `<details>` appendix when long). The sections
//! of many crawls and agents have files of their own (summary, blocking, changes,
//! readings, ai_use; figures.rs the per-host ones); this file holds the page and the pieces
//! they share.
//!
//! Every table says which query of `queries/` it reproduces (`data-query`), every row
//! its key columns as JSON (`data-key`), every number cell the query column it holds
//! (`data-col`, and `data-key` for pivoted cells): tests/it/report.rs compares the
//! visible numbers with the query results cell by cell.

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::json;

use super::charts::{stacked, Series};
use super::crawls::Crawls;
use super::figures;
use super::hosts::Hosts;
use super::queries;
use super::Methodology;
use crate::sites::{PerClass, StatusClass};

/// Colours of the eight status classes, in [`StatusClass::ALL`] order.
const CLASS_COLORS: PerClass<&str> = [
    "#BBBBBB", "#D55E00", "#E69F00", "#F0E442", "#CC79A7", "#8C6D1F", "#56B4E9", "#0072B2",
];

const CSS: &str = include_str!("report.css");

/// An integer with thousands separators.
pub fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A percentage as the queries round it (two decimals); an em dash for none.
pub fn pct(p: Option<f64>) -> String {
    p.map_or_else(|| "—".to_owned(), |p| format!("{p:.2}"))
}

/// A number of seconds: up to three decimals, trailing zeros dropped.
pub fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Text for the page: C0 controls but tab and line feed (invalid in HTML, or a CR
/// the parser would turn into a line feed) as their Unicode control pictures (a CR
/// as ␍), other controls and noncharacters as U+FFFD.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c as u32 {
            0x09 | 0x0A => c,
            n @ 0x00..=0x1F => char::from_u32(0x2400 + n).unwrap_or('\u{FFFD}'),
            0x7F => '\u{2421}',
            _ if c.is_control() || is_noncharacter(c) => '\u{FFFD}',
            _ => c,
        })
        .collect()
}

fn is_noncharacter(c: char) -> bool {
    let c = c as u32;
    (0xFDD0..=0xFDEF).contains(&c) || (c & 0xFFFE) == 0xFFFE
}

pub(super) fn key(value: serde_json::Value) -> String {
    value.to_string()
}

/// A header cell naming the query column it shows.
pub(super) fn th(col: &str, label: &str) -> Markup {
    html! { th scope="col" data-col=(col) { (label) } }
}

pub(super) fn cell(col: &str, text: String) -> Markup {
    html! { td class="num" data-col=(col) { (text) } }
}

/// How a section lays out its chart and table.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Layout {
    /// Chart and table side by side (narrow tables).
    Beside,
    /// Table below the chart (wide tables).
    Below,
}

/// Tables longer than this go into a collapsed appendix under their chart.
const APPENDIX_ROWS: usize = 12;

/// A section's table: as it is when short, else in a collapsed `<details>` (the
/// charts stay on the page; the numbers are one click away and print when opened).
pub(super) fn appendix(rows: usize, table: Markup) -> Markup {
    if rows <= APPENDIX_ROWS {
        return table;
    }
    html! {
        details class="appendix" {
            summary { "The numbers: " (int(rows as u64)) " rows" }
            (table)
        }
    }
}

/// One section: heading, chart(s), table, note.
pub(super) fn section(
    id: &str,
    heading: &str,
    layout: Layout,
    note: Markup,
    charts: Markup,
    table: Markup,
) -> Markup {
    html! {
        section id=(id) class=[(layout == Layout::Below).then_some("stack")] {
            h2 { (heading) }
            div class="pair" {
                div class="charts" { (charts) }
                div class="table" { (table) }
            }
            p class="note" { (note) }
        }
    }
}

/// The whole page.
pub fn page(
    m: &Methodology,
    c: &Crawls,
    changes: &[super::changes::Change],
    readings: &super::hosts::Section<super::readings::Sensitivity>,
    ai_use: &super::ai_use::AiUse,
    h: &Hosts,
) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "robots.txt census report" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 { "robots.txt census report" }
                    p class="sub" {
                        (c.crawls.len()) " crawl" @if c.crawls.len() != 1 { "s" } ": "
                        (c.crawls.join(", ")) " · " (int(h.robots_captures)) " robots.txt captures · "
                        @if let Some(n) = h.parsed_hosts { (int(n)) " hosts with a robots.txt · " }
                        "robots-census " (env!("CARGO_PKG_VERSION"))
                    }
                }
                section id="methodology" {
                    h2 { "Methodology" }
                    p { (methodology(m, c)) }
                }
                (super::summary::summary_section(c, changes))
                (status_section(c))
                (super::blocking::blocking_section(c))
                @if let Some(section) = super::changes::changes_section(changes, &c.crawls) { (section) }
                (or_missing(readings, "readings", "Where crawlers read files differently", &queries::READINGS, super::readings::readings_section))
                (super::ai_use::ai_use_section(ai_use))
                (or_missing(&h.tokens, "tokens", "Most named user-agent tokens", &queries::TOKENS, figures::tokens_section))
                (or_missing(&h.sitemaps, "sitemaps", "Sitemap adoption", &queries::SITEMAPS, figures::sitemaps_section))
                (or_missing(&h.delays, "delays", "Crawl-delay values", &queries::DELAYS, figures::delays_section))
                (or_missing(&h.lint, "lint", "Lint findings by code", &queries::LINT, figures::lint_section))
                (or_missing(&h.sizes, "sizes", "Size distribution", &queries::SIZES, figures::sizes_section))
            }
        }
    };
    markup.into_string()
}

/// A per-host section, or in its place why its query could not run (a table the run
/// did not write) and what to do.
fn or_missing<T>(
    rows: &super::hosts::Section<T>,
    id: &str,
    heading: &str,
    query: &queries::Query,
    draw: fn(&[T]) -> Markup,
) -> Markup {
    match rows {
        Ok(rows) => draw(rows),
        Err(why) => html! {
            section id=(id) class="missing" {
                h2 { (heading) }
                p class="note" {
                    "Not drawn: " span class="q" { "queries/" (query.name) ".sql" } " cannot run without its tables (" (why) ")."
                }
            }
        },
    }
}

fn methodology(m: &Methodology, c: &Crawls) -> Markup {
    html! {
        "Per-crawl figures (status classes, agent blocking) count sites from the "
        code { "sites" } " table: one deciding capture per crawl and site — the latest capture of each URL, redirects followed inside the crawl for up to 5 hops, and Common Crawl's precedence between a site's robots.txt URLs — with the site key "
        strong { (c.site_keys) } ", status semantics " strong { (c.semantics) } ", "
        @if c.ranked_sites > 0 { "ranked sites from the " code { "--ranks" } " list included with the unranked ones" } @else { "no rank list" }
        " and the agents " strong { (c.agents.join(", ")) } ". "
        @if m.ran_sites { "The report ran the sites step with these options (replacing " code { "OUT/sites" } "). " }
        @else { "The report reused the stored sites table, made with these options. " }
        "A site is fully blocked for an agent when its deciding capture is a robots.txt (class “Robots.txt with rules” or “no rules”) and Google's parser disallows the site root "
        code { "/" } "; partially when " code { "/" } " is allowed but some probed path is not; “named” when a group names the agent, “*” when only the global group applies; shares are of sites with a robots.txt. "
        "The other figures are per host over the whole dataset (" (m.out) "): each host's latest robots.txt capture (greatest fetch time, then document id), counting hosts whose latest capture is a parsed robots.txt (2xx, or a CSV row with a body); user-agents are robots.cc product tokens; crawl-delays are the first numeric value of each group; lint findings and sizes count captures as noted. "
        "Each table reproduces a query of " code { "queries/" } " (named in its caption) on the same tables; Google ignores every byte past 500 KiB (512,000 bytes)."
    }
}

pub(super) fn caption(text: &str, query: &str) -> Markup {
    html! { caption { (text) " " span class="q" { "(queries/" (query) ".sql)" } } }
}

fn status_section(c: &Crawls) -> Markup {
    let series: Vec<Series> = StatusClass::ALL
        .iter()
        .zip(CLASS_COLORS)
        .map(|(s, color)| Series {
            name: s.as_str(),
            color,
        })
        .collect();
    let rows: Vec<(String, Vec<f64>)> = c
        .status
        .iter()
        .map(|(crawl, counts)| {
            let total = counts.iter().sum::<u64>().max(1) as f64;
            let shares = counts.iter().map(|&n| 100.0 * n as f64 / total).collect();
            (crawl.clone(), shares)
        })
        .collect();
    let chart = stacked(
        "chart-status",
        "Sites per status class and crawl, percent of the crawl's sites",
        &rows,
        &series,
        100.0,
        "%",
    );
    let table = html! {
        table id="t-status" data-query="site_status_by_crawl" {
            (caption("Sites per status class and crawl", "site_status_by_crawl"))
            thead { tr {
                th scope="col" data-col="crawl" { "Crawl" }
                @for s in StatusClass::ALL { th scope="col" data-col="sites" { (s.as_str()) } }
                th scope="col" { "All sites" }
            } }
            tbody {
                @for (crawl, counts) in &c.status {
                    tr data-key=(key(json!({"crawl": crawl}))) {
                        th scope="row" data-col="crawl" { (crawl) }
                        @for (s, n) in StatusClass::ALL.iter().zip(counts) {
                            td class="num" data-col="sites" data-key=(key(json!({"status_class": s.as_str()}))) { (int(*n)) }
                        }
                        td class="num" data-derived="sum" { (int(counts.iter().sum())) }
                    }
                }
            }
        }
    };
    let note = html! { "Common Crawl's eight classes of a site's deciding capture. “No robots.txt capture” appears only for ranked sites (" code { "--ranks" } ")." };
    section(
        "status",
        "Status classes per crawl",
        Layout::Below,
        note,
        chart,
        appendix(c.status.len(), table),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_queries_print_them() {
        assert_eq!(int(0), "0");
        assert_eq!(int(1234567), "1,234,567");
        assert_eq!(int(100), "100");
        assert_eq!(pct(Some(5.0)), "5.00");
        assert_eq!(pct(None), "—");
        assert_eq!(num(10.0), "10");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(2.125), "2.125");
    }

    #[test]
    fn control_characters_are_replaced() {
        assert_eq!(
            clean("a\u{0}b\r\n\tc\u{FFFF}\u{85}"),
            "a\u{2400}b\u{240D}\n\tc\u{FFFD}\u{FFFD}"
        );
    }
}
