//! The report's "Where crawlers read files differently" section, when the run asked
//! for interpretation profiles (`run --profiles`): per AI agent, the share of hosts
//! whose latest robots.txt the crawler families' parsers read differently, from
//! `queries/profile_sensitivity.sql`.

use maud::{html, Markup};
use serde_json::json;

use super::charts::{hbars, Bar};
use super::html::{appendix, caption, cell, int, key, pct, section, th, Layout};
use super::purposes::{purpose, Purpose};
use super::queries::{Row, Rows};
use super::ReportError;

/// One row of `profile_sensitivity.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    pub crawl: String,
    pub agent: String,
    pub hosts: u64,
    pub sensitive: u64,
    pub sensitive_pct: Option<f64>,
    pub open_elsewhere: Option<i64>,
    pub closed_elsewhere: Option<i64>,
    pub profiles: u64,
}

impl Sensitivity {
    fn of(row: &Row<'_>) -> Result<Sensitivity, ReportError> {
        Ok(Sensitivity {
            crawl: row.text("crawl")?,
            agent: row.text("agent")?,
            hosts: row.count("hosts")?,
            sensitive: row.count("sensitive")?,
            sensitive_pct: row.float("sensitive_pct")?,
            open_elsewhere: row.int("open_elsewhere")?,
            closed_elsewhere: row.int("closed_elsewhere")?,
            profiles: row.count("profiles")?,
        })
    }
}

/// The query's rows.
pub fn from_rows(rows: &Rows) -> Result<Vec<Sensitivity>, ReportError> {
    rows.map(Sensitivity::of)
}

fn maybe(n: Option<i64>) -> String {
    n.map_or_else(|| "—".to_owned(), |n| int(n.unsigned_abs()))
}

pub(super) fn readings_section(rows: &[Sensitivity]) -> Markup {
    let Some(latest) = rows.iter().map(|r| &r.crawl).max() else {
        return html! {
            section id="readings" {
                h2 { "Where crawlers read files differently" }
                p class="note" { "The readings table has no row (no parsed robots.txt): nothing to compare." }
            }
        };
    };
    // AI agents of the latest crawl, by purpose group, most sensitive first.
    let mut ai: Vec<&Sensitivity> = rows
        .iter()
        .filter(|r| &r.crawl == latest && purpose(&r.agent).is_ai())
        .collect();
    ai.sort_by(|x, y| {
        (purpose(&x.agent) != Purpose::AiTraining)
            .cmp(&(purpose(&y.agent) != Purpose::AiTraining))
            .then_with(|| y.sensitive.cmp(&x.sensitive))
            .then_with(|| x.agent.cmp(&y.agent))
    });
    let bars: Vec<Bar> = ai
        .iter()
        .map(|r| Bar {
            label: r.agent.clone(),
            value: r.sensitive_pct.unwrap_or(0.0),
            text: format!(
                "{}% ({} of {})",
                pct(r.sensitive_pct),
                int(r.sensitive),
                int(r.hosts)
            ),
            color: Some(purpose(&r.agent).color()),
        })
        .collect();
    let profiles = rows.iter().map(|r| r.profiles).max().unwrap_or(0);
    let chart = (!bars.is_empty()).then(|| {
        hbars(
            "chart-readings",
            &format!("Hosts whose robots.txt the crawler families read differently for each AI agent, {latest}, percent"),
            &bars,
            Purpose::AiTraining.color(),
            "%",
        )
    });
    let table = html! {
        table id="t-readings" data-query="profile_sensitivity" {
            (caption("Hosts read differently by the crawler families, per agent", "profile_sensitivity"))
            thead { tr {
                (th("crawl", "Crawl")) (th("agent", "Agent")) (th("hosts", "Hosts")) (th("sensitive", "Read differently"))
                (th("sensitive_pct", "%")) (th("open_elsewhere", "Open elsewhere")) (th("closed_elsewhere", "Closed elsewhere"))
                (th("profiles", "Profiles"))
            } }
            tbody {
                @for r in rows {
                    tr data-key=(key(json!({"crawl": r.crawl, "agent": r.agent}))) {
                        td data-col="crawl" { (r.crawl) }
                        th scope="row" data-col="agent" { (r.agent) }
                        (cell("hosts", int(r.hosts))) (cell("sensitive", int(r.sensitive)))
                        (cell("sensitive_pct", pct(r.sensitive_pct)))
                        (cell("open_elsewhere", maybe(r.open_elsewhere))) (cell("closed_elsewhere", maybe(r.closed_elsewhere)))
                        (cell("profiles", int(r.profiles)))
                    }
                }
            }
        }
    };
    let charts = html! {
        @if let Some(chart) = chart { (chart) }
        @else { p class="note" { "The run asked about no AI agent (ai.robots.txt's list): every agent's row is in the table." } }
    };
    let note = html! {
        "Over each host's latest parsed robots.txt in " (latest) ", read by the run's " (profiles) " interpretation profiles (" code { "run --profiles" } "; "
        code { "readings.interpretation_sensitive" } "): a host counts when two of them disagree about the agent, at "
        code { "/" } " or at another probed path. Open elsewhere: Google's parser blocks " code { "/" } " and another family's lets the agent in; closed elsewhere: the reverse. Bars are coloured by the agent's purpose."
    };
    section(
        "readings",
        "Where crawlers read files differently",
        Layout::Below,
        note,
        charts,
        appendix(rows.len(), table),
    )
}
