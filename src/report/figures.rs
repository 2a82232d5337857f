//! The report's per-host sections (tokens, sitemaps, crawl-delays, lint findings,
//! sizes): each a chart and the table of the query it reproduces, from [`Hosts`](super::hosts::Hosts).

use maud::{html, Markup};
use serde_json::json;

use super::charts::{hbars, vbars, Bar, PALETTE};
use super::hosts::{Delay, Lint, Measure, Size, Token, DELAY_BUCKETS};
use super::html::{caption, cell, clean, int, key, num, pct, section, th, Layout};

/// Rows shown of the long lists (tokens, crawl-delay tokens).
const TOP_TOKENS: usize = 20;
const TOP_DELAY_TOKENS: usize = 10;

pub(super) fn tokens_section(tokens: &[Token]) -> Markup {
    let shown = &tokens[..tokens.len().min(TOP_TOKENS)];
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
    let note = html! { "The " (shown.len()) " tokens named by the most hosts (of " (tokens.len()) " listed by the query), over each host's latest parsed robots.txt; “*” is the global group." };
    section(
        "tokens",
        "Most named user-agent tokens",
        Layout::Beside,
        note,
        chart,
        table,
    )
}

pub(super) fn sitemaps_section(sitemaps: &[Measure]) -> Markup {
    let bars: Vec<Bar> = sitemaps
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
                @for m in sitemaps {
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

pub(super) fn delays_section(delays: &[Delay]) -> Markup {
    let any = delays.iter().find(|d| d.token == "(any)");
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
    let shown = &delays[..delays.len().min(TOP_DELAY_TOKENS + 1)];
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

pub(super) fn lint_section(lint: &[Lint]) -> Markup {
    let bars: Vec<Bar> = lint
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
                (th("hosts", "Hosts")) (th("latest_hosts", "Latest hosts")) (th("example", "Example line")) th scope="col" { "Bytes" }
            } }
            tbody {
                @for l in lint {
                    tr data-key=(key(json!({"code": l.code, "severity": l.severity}))) {
                        th scope="row" data-col="code" { (clean(&l.code)) }
                        td data-col="severity" { (l.severity) }
                        (cell("documents", int(l.documents))) (cell("findings", int(l.findings)))
                        (cell("hosts", int(l.hosts))) (cell("latest_hosts", int(l.latest_hosts)))
                        td class="example" data-col="example" { code { (clean(l.example.as_deref().unwrap_or(""))) } }
                        td data-derived="encoding" { (encoding(l.example.as_deref().unwrap_or(""))) }
                    }
                }
            }
        }
    };
    let note = html! { "Bars: red errors, orange warnings, blue notes. Codes are listed in schemas/README.md. Captures count every fetch; latest hosts count each host's latest capture once. The example is the smallest excerpt of the code; an excerpt that is not UTF-8 text shows its bytes as " code { "\\xNN" } " (errors.excerpt), and “Bytes” names what they are." };
    section(
        "lint",
        "Lint findings by code",
        Layout::Below,
        note,
        chart,
        table,
    )
}

/// What the bytes of an example are, as `errors.excerpt` shows them: a UTF-16 body
/// by its byte order mark; bytes that are not UTF-8 (an escape of 0x80 or more);
/// UTF-8 text with control characters escaped (line breaks of a body-level excerpt,
/// NULs); or plain UTF-8 text.
fn encoding(example: &str) -> &'static str {
    if example.starts_with(r"\xff\xfe") {
        return "UTF-16LE (byte order mark FF FE), shown as bytes";
    }
    if example.starts_with(r"\xfe\xff") {
        return "UTF-16BE (byte order mark FE FF), shown as bytes";
    }
    let escapes = escapes(example);
    if escapes.iter().any(|&b| b >= 0x80) {
        "not UTF-8 text, shown as bytes"
    } else if !escapes.is_empty() {
        "UTF-8 text, control characters as \\xNN"
    } else {
        "UTF-8 text"
    }
}

/// The bytes written as `\xNN` in an excerpt that was escaped (where a backslash of
/// the text is doubled), but for printable ASCII: a text left as it was may hold
/// `\x41` as written, never a control character or a byte past ASCII.
fn escapes(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'\\', b'\\') => i += 2,
            (b'\\', b'x') if i + 3 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) if !(0x20..0x7f).contains(&v) => {
                        out.push(v);
                        i += 4;
                    }
                    _ => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

pub(super) fn sizes_section(sizes: &[Size]) -> Markup {
    let bars: Vec<Bar> = sizes
        .iter()
        .map(|s| Bar {
            label: s.bucket.to_owned(),
            value: s.parsed_captures as f64,
            text: int(s.parsed_captures),
            color: None,
        })
        .collect();
    let cut = sizes
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
                @for s in sizes {
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
    fn examples_name_their_bytes() {
        assert_eq!(
            encoding(r"\xff\xfeU\x00s\x00"),
            "UTF-16LE (byte order mark FF FE), shown as bytes"
        );
        assert_eq!(
            encoding(r"\xfe\xff\x00U"),
            "UTF-16BE (byte order mark FE FF), shown as bytes"
        );
        assert_eq!(
            encoding(r"Disallow: /caf\xe9/"),
            "not UTF-8 text, shown as bytes"
        );
        assert_eq!(
            encoding(r"<html>\x0a<body>"),
            "UTF-8 text, control characters as \\xNN"
        );
        assert_eq!(encoding("Disallow: /a"), "UTF-8 text");
        // A backslash of escaped text is doubled; a printable escape is text as written.
        assert_eq!(
            encoding(r"a\\xe9\x0a"),
            "UTF-8 text, control characters as \\xNN"
        );
        assert_eq!(encoding(r"Disallow: /\x41"), "UTF-8 text");
    }
}
