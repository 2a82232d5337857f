//! The report's "What sites say about AI use" section: adoption of each AI-use signal
//! per crawl (`queries/signal_adoption.sql`, over the `signals` table) and the sites
//! whose signals contradict their rules for the training crawlers
//! (`queries/signal_contradictions.sql`, over the `agents` table), each a table of the
//! query's rows; the latest crawl's adoption also as bars. A run that did not write a
//! query's tables gets, in that part's place, the sentence the other sections use.

use maud::{html, Markup};
use serde_json::json;

use super::charts::{hbars, Bar, PALETTE};
use super::hosts::Section;
use super::html::{appendix, caption, cell, clean, int, key, pct, section, th, Layout};
use super::queries::{Query, Row, Rows, SIGNAL_ADOPTION, SIGNAL_CONTRADICTIONS};
use super::ReportError;

/// Bars drawn of the latest crawl's adoption rows.
const TOP_BARS: usize = 12;

/// One row of `signal_adoption.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Adoption {
    pub crawl: String,
    pub kind: String,
    pub says: String,
    pub valid: bool,
    pub hosts: u64,
    pub lines: u64,
    pub hosts_pct: Option<f64>,
}

/// One row of `signal_contradictions.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Contradictions {
    pub crawl: String,
    pub agent: String,
    pub hosts: u64,
    pub refuse_training: u64,
    pub refuse_but_crawl: u64,
    pub allow_but_block: u64,
    pub refuse_but_crawl_pct: Option<f64>,
}

/// Both queries' rows, each or why it could not run.
pub struct AiUse {
    pub adoption: Section<Adoption>,
    pub contradictions: Section<Contradictions>,
}

/// The section's numbers from the two queries' results (or why each did not run).
pub fn from_rows(
    adoption: &Result<Rows, String>,
    contradictions: &Result<Rows, String>,
) -> Result<AiUse, ReportError> {
    let adoption = match adoption {
        Ok(rows) => Ok(rows.map(|row| {
            Ok(Adoption {
                crawl: row.text("crawl")?,
                kind: row.text("kind")?,
                says: row.text("says")?,
                valid: row.bool("valid")?.unwrap_or(false),
                hosts: row.count("hosts")?,
                lines: row.count("lines")?,
                hosts_pct: row.float("hosts_pct")?,
            })
        })?),
        Err(why) => Err(why.clone()),
    };
    let contradictions = match contradictions {
        Ok(rows) => Ok(rows.map(contradiction)?),
        Err(why) => Err(why.clone()),
    };
    Ok(AiUse {
        adoption,
        contradictions,
    })
}

fn contradiction(row: &Row<'_>) -> Result<Contradictions, ReportError> {
    Ok(Contradictions {
        crawl: row.text("crawl")?,
        agent: row.text("agent")?,
        hosts: row.count("hosts")?,
        refuse_training: row.count("refuse_training")?,
        refuse_but_crawl: row.count("refuse_but_crawl")?,
        allow_but_block: row.count("allow_but_block")?,
        refuse_but_crawl_pct: row.float("refuse_but_crawl_pct")?,
    })
}

/// A boolean as the page writes it.
fn yes_no(v: bool) -> &'static str {
    if v {
        "yes"
    } else {
        "no"
    }
}

/// In place of a part whose query could not run: the other sections' sentence.
fn missing(query: &Query, why: &str) -> Markup {
    html! {
        p class="note missing" {
            "Not drawn: " span class="q" { "queries/" (query.name) ".sql" } " cannot run without its tables (" (why) ")."
        }
    }
}

fn adoption_chart(rows: &[Adoption]) -> Markup {
    let Some(latest) = rows.iter().map(|r| &r.crawl).max() else {
        return html! { p class="note" { "No host's latest robots.txt has an AI-use signal." } };
    };
    let mut shown: Vec<&Adoption> = rows.iter().filter(|r| &r.crawl == latest).collect();
    shown.sort_by_key(|r| std::cmp::Reverse(r.hosts));
    shown.truncate(TOP_BARS);
    let bars: Vec<Bar> = shown
        .iter()
        .map(|r| Bar {
            label: format!(
                "{}{}{}{}",
                r.kind,
                if r.says.is_empty() { "" } else { " " },
                clean(&r.says),
                if r.valid { "" } else { " (invalid)" }
            ),
            value: r.hosts_pct.unwrap_or(0.0),
            text: format!("{}% ({})", pct(r.hosts_pct), int(r.hosts)),
            color: None,
        })
        .collect();
    hbars(
        "chart-signals",
        &format!(
            "Hosts publishing each AI-use signal, {latest}, percent of hosts with a robots.txt"
        ),
        &bars,
        PALETTE[4],
        "%",
    )
}

fn adoption_table(rows: &[Adoption]) -> Markup {
    let table = html! {
        table id="t-signal-adoption" data-query="signal_adoption" {
            (caption("AI-use signals per crawl, by what they say and whether they are valid", "signal_adoption"))
            thead { tr {
                (th("crawl", "Crawl")) (th("kind", "Kind")) (th("says", "Says")) (th("valid", "Valid"))
                (th("hosts", "Hosts")) (th("lines", "Lines")) (th("hosts_pct", "% of hosts"))
            } }
            tbody {
                @for r in rows {
                    tr data-key=(key(json!({"crawl": r.crawl, "kind": r.kind, "says": r.says, "valid": r.valid}))) {
                        td data-col="crawl" { (r.crawl) }
                        th scope="row" data-col="kind" { (r.kind) }
                        td data-col="says" { code { (clean(&r.says)) } }
                        td data-col="valid" { (yes_no(r.valid)) }
                        (cell("hosts", int(r.hosts))) (cell("lines", int(r.lines))) (cell("hosts_pct", pct(r.hosts_pct)))
                    }
                }
            }
        }
    };
    appendix(rows.len(), table)
}

fn contradictions_table(rows: &[Contradictions]) -> Markup {
    let table = html! {
        table id="t-signal-contradictions" data-query="signal_contradictions" {
            (caption("Signals that contradict the rules, per crawl and training crawler", "signal_contradictions"))
            thead { tr {
                (th("crawl", "Crawl")) (th("agent", "Agent")) (th("hosts", "Hosts"))
                (th("refuse_training", "Refuse training")) (th("refuse_but_crawl", "… but let it crawl /"))
                (th("refuse_but_crawl_pct", "%")) (th("allow_but_block", "Allow training, block /"))
            } }
            tbody {
                @for r in rows {
                    tr data-key=(key(json!({"crawl": r.crawl, "agent": r.agent}))) {
                        td data-col="crawl" { (r.crawl) }
                        th scope="row" data-col="agent" { (r.agent) }
                        (cell("hosts", int(r.hosts))) (cell("refuse_training", int(r.refuse_training)))
                        (cell("refuse_but_crawl", int(r.refuse_but_crawl))) (cell("refuse_but_crawl_pct", pct(r.refuse_but_crawl_pct)))
                        (cell("allow_but_block", int(r.allow_but_block)))
                    }
                }
            }
        }
    };
    appendix(rows.len(), table)
}

pub(super) fn ai_use_section(ai: &AiUse) -> Markup {
    let charts = match &ai.adoption {
        Ok(rows) => adoption_chart(rows),
        Err(why) => missing(&SIGNAL_ADOPTION, why),
    };
    let tables = html! {
        @match &ai.adoption {
            Ok(rows) => (adoption_table(rows)),
            // Said once, where the chart would be.
            Err(_) => {},
        }
        @match &ai.contradictions {
            Ok(rows) => (contradictions_table(rows)),
            Err(why) => (missing(&SIGNAL_CONTRADICTIONS, why)),
        }
    };
    let note = html! {
        "Adoption, from " span class="q" { "queries/signal_adoption.sql" } ": hosts whose latest robots.txt capture in the crawl has a line of each kind (IETF AIPREF "
        code { "Content-Usage" } ", Cloudflare's " code { "Content-Signal" } ", RSL " code { "License" } ", "
        code { "LLM-Policy" } ", " code { "DisallowAITraining" } ", a comment reserving text-and-data-mining rights, Cloudflare's managed block), by what the line says and whether every part of it is valid; a host whose lines say different things counts in each row. "
        "Contradictions, from " span class="q" { "queries/signal_contradictions.sql" } ": of the hosts whose signals refuse training to GPTBot, ClaudeBot or CCBot (AIPREF "
        code { "train-ai=n" } " or Content-Signal " code { "ai-train=no" } " as they apply to the agent), those whose rules let it fetch " code { "/" }
        "; and the hosts whose Content-Signal allows training while Google's parser disallows " code { "/" } "."
    };
    section(
        "ai-use",
        "What sites say about AI use",
        Layout::Below,
        note,
        charts,
        tables,
    )
}
