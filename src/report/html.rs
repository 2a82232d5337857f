//! The report page: one self-contained HTML document (inline CSS and SVG, no script,
//! nothing fetched), one section per chart with its numbers in a table beside it.
//!
//! Every table says which query of `queries/` it reproduces (`data-query`), every row
//! its key columns as JSON (`data-key`), every number cell the query column it holds
//! (`data-col`, and `data-key` for pivoted cells): tests/it/report.rs compares the
//! visible numbers with the query results cell by cell.

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::json;

use super::charts::{hbars, lines, stacked, vbars, Bar, Series, PALETTE};
use super::crawls::Crawls;
use super::hosts::{Hosts, DELAY_BUCKETS};
use super::Methodology;
use crate::sites::StatusClass;

/// Rows shown of the long lists (tokens, crawl-delay tokens).
const TOP_TOKENS: usize = 20;
const TOP_DELAY_TOKENS: usize = 10;

/// Colours of the eight status classes, in [`StatusClass::ALL`] order.
const CLASS_COLORS: [&str; 8] = [
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

/// Text for the page: C0 controls (invalid in HTML) as their Unicode control
/// pictures (a CR as ␍), other controls and noncharacters as U+FFFD.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c as u32 {
            0x09 => c,
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

fn key(value: serde_json::Value) -> String {
    value.to_string()
}

/// A header cell naming the query column it shows.
fn th(col: &str, label: &str) -> Markup {
    html! { th scope="col" data-col=(col) { (label) } }
}

fn cell(col: &str, text: String) -> Markup {
    html! { td class="num" data-col=(col) { (text) } }
}

/// How a section lays out its chart and table.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    /// Chart and table side by side (narrow tables).
    Beside,
    /// Table below the chart (wide tables).
    Below,
}

/// One section: heading, chart(s), table, note.
fn section(
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
pub fn page(m: &Methodology, c: &Crawls, h: &Hosts) -> String {
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
                        (int(h.parsed_hosts)) " hosts with a robots.txt · robots-census " (env!("CARGO_PKG_VERSION"))
                    }
                }
                section id="methodology" {
                    h2 { "Methodology" }
                    p { (methodology(m, c)) }
                }
                (status_section(c))
                (blocking_section(c))
                (tokens_section(h))
                (sitemaps_section(h))
                (delays_section(h))
                (lint_section(h))
                (sizes_section(h))
            }
        }
    };
    markup.into_string()
}

fn methodology(m: &Methodology, c: &Crawls) -> Markup {
    let list = |set: &std::collections::BTreeSet<String>| {
        set.iter().cloned().collect::<Vec<_>>().join(", ")
    };
    html! {
        "Per-crawl figures (status classes, agent blocking) count sites from the "
        code { "sites" } " table: one deciding capture per crawl and site — the latest capture of each URL, redirects followed inside the crawl for up to 5 hops, and Common Crawl's precedence between a site's robots.txt URLs — with the site key "
        strong { (list(&c.site_keys)) } ", status semantics " strong { (list(&c.semantics)) } ", "
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

fn caption(text: &str, query: &str) -> Markup {
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
        table,
    )
}

fn blocking_section(c: &Crawls) -> Markup {
    let series = [
        Series {
            name: "fully, named",
            color: PALETTE[3],
        },
        Series {
            name: "fully, via *",
            color: "#F4A582",
        },
        Series {
            name: "partially, named",
            color: PALETTE[0],
        },
        Series {
            name: "partially, via *",
            color: "#92C5DE",
        },
    ];
    let share = |n: u64, d: u64| {
        if d == 0 {
            0.0
        } else {
            100.0 * n as f64 / d as f64
        }
    };
    let rows: Vec<(String, Vec<f64>)> = c
        .agents
        .iter()
        .flat_map(|agent| c.blocking.iter().filter(move |b| &b.agent == agent))
        .map(|b| {
            let d = b.robots_sites;
            (
                format!("{} · {}", b.agent, b.crawl),
                vec![
                    share(b.fully_named, d),
                    share(b.fully_star, d),
                    share(b.partially_named, d),
                    share(b.partially_star, d),
                ],
            )
        })
        .collect();
    let max = rows
        .iter()
        .map(|(_, v)| v.iter().sum::<f64>())
        .fold(0.0, f64::max);
    let max = max.min(100.0);
    let bars = stacked(
        "chart-blocking",
        "Agent blocking per crawl, percent of sites with a robots.txt",
        &rows,
        &series,
        max,
        "%",
    );
    let trend = (c.crawls.len() > 1).then(|| {
        let series: Vec<(Series, Vec<Option<f64>>)> = c
            .agents
            .iter()
            .enumerate()
            .map(|(k, agent)| {
                let values = c
                    .crawls
                    .iter()
                    .map(|crawl| {
                        c.blocking
                            .iter()
                            .find(|b| &b.agent == agent && &b.crawl == crawl)
                            .and_then(|b| b.fully_pct())
                    })
                    .collect();
                (
                    Series {
                        name: agent,
                        color: PALETTE[k % PALETTE.len()],
                    },
                    values,
                )
            })
            .collect();
        let top = series
            .iter()
            .flat_map(|(_, v)| v.iter().flatten())
            .fold(0.0f64, |a, &b| a.max(b));
        let top = top.min(100.0);
        lines(
            "chart-blocking-trend",
            "Sites fully blocking each agent, percent of sites with a robots.txt, per crawl",
            &c.crawls,
            &series,
            top,
            "%",
        )
    });
    let charts = html! {
        (bars)
        @if let Some(trend) = trend { h3 { "Fully blocked, one line per agent" } (trend) }
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
                @for agent in &c.agents {
                    @for b in c.blocking.iter().filter(|b| &b.agent == agent) {
                        tr data-key=(key(json!({"crawl": b.crawl, "agent": b.agent}))) {
                            th scope="row" data-col="agent" { (b.agent) }
                            td data-col="crawl" { (b.crawl) }
                            (cell("robots_sites", int(b.robots_sites)))
                            (cell("fully", int(b.fully))) (cell("fully_named", int(b.fully_named)))
                            (cell("fully_star", int(b.fully_star))) (cell("fully_pct", pct(b.fully_pct())))
                            (cell("partially", int(b.partially))) (cell("partially_named", int(b.partially_named)))
                            (cell("partially_star", int(b.partially_star))) (cell("partially_pct", pct(b.partially_pct())))
                        }
                    }
                }
            }
        }
    };
    let note = html! { "Percent of sites whose deciding capture is a robots.txt. Sites that answer 5xx or 429 (unreachable: RFC 9309 says disallow all) are not counted as blocking." };
    section(
        "blocking",
        "Agent blocking per crawl",
        Layout::Below,
        note,
        charts,
        table,
    )
}

fn tokens_section(h: &Hosts) -> Markup {
    let shown = &h.tokens[..h.tokens.len().min(TOP_TOKENS)];
    let bars: Vec<Bar> = shown
        .iter()
        .map(|t| Bar {
            label: if t.token.is_empty() {
                "(empty)".to_owned()
            } else {
                clean(&t.token)
            },
            value: t.hosts as f64,
            text: int(t.hosts),
            color: None,
        })
        .collect();
    let chart = hbars(
        "chart-tokens",
        "Hosts naming each user-agent token",
        &bars,
        PALETTE[0],
        "",
    );
    let table = html! {
        table id="t-tokens" data-query="top_user_agents" {
            (caption("Most named user-agent tokens (hosts)", "top_user_agents"))
            thead { tr {
                (th("product_token", "Token")) (th("hosts", "Hosts")) (th("hosts_pct", "% of hosts"))
                (th("groups", "Groups")) (th("example_value", "Example value"))
            } }
            tbody {
                @for t in shown {
                    tr data-key=(key(json!({"product_token": t.token}))) {
                        th scope="row" data-col="product_token" { (clean(&t.token)) }
                        (cell("hosts", int(t.hosts))) (cell("hosts_pct", pct(t.hosts_pct))) (cell("groups", int(t.groups)))
                        td data-col="example_value" { code { (clean(&t.example)) } }
                    }
                }
            }
        }
    };
    let note = html! { "The " (shown.len()) " tokens named by the most hosts (of " (h.tokens.len()) " listed by the query), over each host's latest parsed robots.txt; “*” is the global group." };
    section(
        "tokens",
        "Most named user-agent tokens",
        Layout::Beside,
        note,
        chart,
        table,
    )
}

fn sitemaps_section(h: &Hosts) -> Markup {
    let bars: Vec<Bar> = h
        .sitemaps
        .iter()
        .skip(1)
        .map(|m| Bar {
            label: m.measure.replace('_', " "),
            value: m.hosts_pct.unwrap_or(0.0),
            text: format!("{}%", pct(m.hosts_pct)),
            color: None,
        })
        .collect();
    let chart = hbars(
        "chart-sitemaps",
        "Hosts announcing sitemaps, percent of hosts with a robots.txt",
        &bars,
        PALETTE[2],
        "%",
    );
    let table = html! {
        table id="t-sitemaps" data-query="sitemap_adoption" {
            (caption("Sitemap adoption (hosts)", "sitemap_adoption"))
            thead { tr {
                (th("measure", "Measure")) (th("hosts", "Hosts")) (th("hosts_pct", "% of hosts")) (th("sitemap_lines", "Sitemap lines"))
            } }
            tbody {
                @for m in &h.sitemaps {
                    tr data-key=(key(json!({"measure": m.measure}))) {
                        th scope="row" data-col="measure" { (m.measure) }
                        (cell("hosts", int(m.hosts))) (cell("hosts_pct", pct(m.hosts_pct))) (cell("sitemap_lines", int(m.lines)))
                    }
                }
            }
        }
    };
    let note = html! { "Absolute: an http(s) or ftp URL with a host. Same host compares the sitemap's host with the robots.txt's exactly (www. differs)." };
    section(
        "sitemaps",
        "Sitemap adoption",
        Layout::Beside,
        note,
        chart,
        table,
    )
}

fn delays_section(h: &Hosts) -> Markup {
    let any = h.delays.iter().find(|d| d.token == "(any)");
    let bars: Vec<Bar> = DELAY_BUCKETS
        .iter()
        .enumerate()
        .map(|(i, (_, label))| {
            let n = any.map_or(0, |d| d.buckets[i]);
            Bar {
                label: (*label).to_owned(),
                value: n as f64,
                text: int(n),
                color: None,
            }
        })
        .collect();
    let chart = vbars(
        "chart-delays",
        "Groups with a crawl-delay, by value",
        &bars,
        None,
        false,
    );
    let shown = &h.delays[..h.delays.len().min(TOP_DELAY_TOKENS + 1)];
    let table = html! {
        table id="t-delays" data-query="crawl_delay" {
            (caption("Crawl-delay values by token (seconds)", "crawl_delay"))
            thead { tr {
                (th("product_token", "Token")) (th("hosts", "Hosts")) (th("groups", "Groups"))
                (th("min_s", "Min")) (th("median_s", "Median")) (th("max_s", "Max"))
                @for (col, label) in DELAY_BUCKETS { (th(col, label)) }
            } }
            tbody {
                @for d in shown {
                    tr data-key=(key(json!({"product_token": d.token}))) {
                        th scope="row" data-col="product_token" { (clean(&d.token)) }
                        (cell("hosts", int(d.hosts))) (cell("groups", int(d.groups)))
                        (cell("min_s", num(d.min))) (cell("median_s", num(d.median))) (cell("max_s", num(d.max)))
                        @for (i, (col, _)) in DELAY_BUCKETS.iter().enumerate() { (cell(col, int(d.buckets[i]))) }
                    }
                }
            }
        }
    };
    let note = html! { "Groups with a numeric crawl-delay, over each host's latest parsed robots.txt; the chart is the “(any)” row. Google ignores crawl-delay; Bing and Yandex honour it." };
    section(
        "delays",
        "Crawl-delay values",
        Layout::Below,
        note,
        chart,
        table,
    )
}

fn lint_section(h: &Hosts) -> Markup {
    let bars: Vec<Bar> = h
        .lint
        .iter()
        .map(|l| Bar {
            label: clean(&l.code),
            value: l.documents as f64,
            text: int(l.documents),
            color: Some(match l.severity.as_str() {
                "error" => PALETTE[3],
                "warning" => PALETTE[1],
                _ => PALETTE[0],
            }),
        })
        .collect();
    let chart = hbars(
        "chart-lint",
        "robots.txt captures with each lint finding",
        &bars,
        PALETTE[3],
        "",
    );
    let table = html! {
        table id="t-lint" data-query="lint_findings" {
            (caption("Lint findings by code", "lint_findings"))
            thead { tr {
                (th("code", "Code")) (th("severity", "Severity")) (th("documents", "Captures")) (th("findings", "Findings"))
                (th("hosts", "Hosts")) (th("latest_hosts", "Latest hosts")) (th("example", "Example line"))
            } }
            tbody {
                @for l in &h.lint {
                    tr data-key=(key(json!({"code": l.code, "severity": l.severity}))) {
                        th scope="row" data-col="code" { (clean(&l.code)) }
                        td data-col="severity" { (l.severity) }
                        (cell("documents", int(l.documents))) (cell("findings", int(l.findings)))
                        (cell("hosts", int(l.hosts))) (cell("latest_hosts", int(l.latest_hosts)))
                        td class="example" data-col="example" { code { (clean(l.example.as_deref().unwrap_or(""))) } }
                    }
                }
            }
        }
    };
    let note = html! { "Bars: red errors, orange warnings, blue notes. Codes are listed in schemas/README.md. Captures count every fetch; latest hosts count each host's latest capture once. The example is the smallest excerpt of the code." };
    section(
        "lint",
        "Lint findings by code",
        Layout::Below,
        note,
        chart,
        table,
    )
}

fn sizes_section(h: &Hosts) -> Markup {
    let bars: Vec<Bar> = h
        .sizes
        .iter()
        .map(|s| Bar {
            label: s.bucket.to_owned(),
            value: s.parsed_captures as f64,
            text: int(s.parsed_captures),
            color: None,
        })
        .collect();
    let cut = h
        .sizes
        .len()
        .checked_sub(2)
        .map(|i| (i, "500 KiB cut (512,000 bytes) →"));
    let chart = vbars(
        "chart-sizes",
        "robots.txt files by body size, with Google's 500 KiB cut",
        &bars,
        cut,
        true,
    );
    let bound = |b: Option<i64>| b.map_or_else(|| "—".to_owned(), |b| int(b.unsigned_abs()));
    let table = html! {
        table id="t-sizes" data-query="size_distribution" {
            (caption("Body sizes of robots.txt captures", "size_distribution"))
            thead { tr {
                (th("bucket", "Size")) (th("min_bytes", "From (bytes)")) (th("max_bytes", "To (bytes)"))
                (th("captures", "Captures")) (th("parsed_captures", "2xx files")) (th("latest_hosts", "Latest hosts")) (th("lower_bound", "Lower bound"))
            } }
            tbody {
                @for s in &h.sizes {
                    tr data-key=(key(json!({"bucket": s.bucket}))) {
                        th scope="row" data-col="bucket" { (s.bucket) }
                        (cell("min_bytes", int(s.min.unsigned_abs()))) (cell("max_bytes", bound(s.max)))
                        (cell("captures", int(s.captures))) (cell("parsed_captures", int(s.parsed_captures)))
                        (cell("latest_hosts", int(s.latest_hosts))) (cell("lower_bound", int(s.lower_bound)))
                    }
                }
            }
        }
    };
    let note = html! { "The chart counts 2xx files (and CSV rows); Google reads the first 512,000 bytes and ignores the rest, so rules past the cut never apply. Lower bound: the size was cut by the crawler or the decoder." };
    section(
        "sizes",
        "Size distribution",
        Layout::Beside,
        note,
        chart,
        table,
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
            clean("a\u{0}b\u{b}\tc\u{FFFF}"),
            "a\u{FFFD}b\u{FFFD}\tc\u{FFFD}"
        );
    }
}
