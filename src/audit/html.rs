//! The audit as one self-contained HTML page: inline CSS, no script, no fetched
//! font or image, so it opens from a mail attachment and prints cleanly. The same
//! sections as the terminal report, each a captioned table. Written by hand: seven
//! tables of escaped text need no template engine.

use std::fmt::Write;

use super::text::{contradiction_parts, group_of, no_contradiction, validity, NOTHING};
use super::{AiUse, Audit, VerdictRow};
use robots_census_engine::Scope;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:0 0 2em 0}\
caption{text-align:left;font-weight:bold;font-size:1.2em;padding:.4em 0}\
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}\
th{background:#eee}code{font-family:ui-monospace,monospace}\
.disallowed{color:#a00;font-weight:bold}.allowed{color:#070}\
.error{color:#a00}.warning{color:#a60}\
@media print{body{margin:0}table{page-break-inside:auto}tr{page-break-inside:avoid}}";

/// Text escaped for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A table with a caption, a header row and `rows` of already-escaped cells.
fn table(out: &mut String, id: &str, caption: &str, header: &[&str], rows: &[Vec<String>]) {
    let _ = write!(
        out,
        "<table id=\"{id}\">\n<caption>{}</caption>\n<thead><tr>",
        escape(caption)
    );
    for h in header {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The cells of one answer: agent, URL, verdict, line, rule, scope (escaped).
fn verdict_cells(v: &VerdictRow) -> Vec<String> {
    let (class, answer) = if v.allowed {
        ("allowed", "ALLOWED")
    } else {
        ("disallowed", "DISALLOWED")
    };
    let rule = match (v.directive, &v.pattern) {
        (Some(d), Some(p)) => format!("{d} <code>{}</code>", escape(p)),
        _ => "no matching rule".to_owned(),
    };
    vec![
        escape(&v.agent),
        format!("<code>{}</code>", escape(&v.url)),
        format!("<span class=\"{class}\">{answer}</span>"),
        v.line.to_string(),
        rule,
        escape(v.scope.describe()),
    ]
}

pub fn render(a: &Audit) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>robots.txt audit: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>robots.txt audit: <code>{}</code></h1>\n\
         <p>{} bytes, {} lines, {} groups, {} rules, {} sitemaps. Verdicts are those of \
         Google's parser (robots.cc), 500 KiB cut included.</p>\n",
        escape(&a.file),
        escape(&a.file),
        a.body_len,
        a.lines,
        a.groups,
        a.rules,
        a.sitemaps
    );
    let findings: Vec<Vec<String>> = a
        .findings
        .iter()
        .map(|f| {
            vec![
                f.line.to_string(),
                format!("<span class=\"{0}\">{0}</span>", f.severity),
                format!("<code>{}</code>", f.code),
                escape(f.message),
                format!("<code>{}</code>", escape(&f.excerpt)),
            ]
        })
        .collect();
    table(
        &mut out,
        "findings",
        &format!("Lint findings: {}", a.findings.len()),
        &["line", "severity", "code", "message", "excerpt"],
        &findings,
    );
    let verdicts: Vec<Vec<String>> = a
        .verdicts
        .iter()
        .map(|v| {
            let mut cells = verdict_cells(v);
            cells.push(if v.rfc_differs { "differs" } else { "same" }.to_owned());
            cells
        })
        .collect();
    table(
        &mut out,
        "verdicts",
        &format!("Verdicts: {}", a.verdicts.len()),
        &[
            "agent", "URL", "verdict", "line", "rule", "scope", "RFC 9309",
        ],
        &verdicts,
    );
    let crawlers: Vec<Vec<String>> = a
        .crawlers
        .iter()
        .map(|c| {
            let lines = c
                .groups
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            vec![
                escape(&c.agent),
                match c.scope {
                    Scope::Named => "named",
                    Scope::Fallback => "fallback",
                    Scope::Star => "'*'",
                    Scope::None => "none",
                }
                .to_owned(),
                lines,
                c.allow.to_string(),
                c.disallow.to_string(),
            ]
        })
        .collect();
    table(
        &mut out,
        "crawlers",
        &format!("Groups each crawler obeys: {}", a.crawlers.len()),
        &["agent", "obeys", "group lines", "allow", "disallow"],
        &crawlers,
    );
    let differences: Vec<Vec<String>> = a
        .differences
        .iter()
        .map(|d| {
            vec![
                d.line.to_string(),
                escape(d.topic.as_str()),
                escape(&d.google),
                escape(&d.rfc),
            ]
        })
        .collect();
    table(
        &mut out,
        "differences",
        &format!("RFC 9309 versus Google: {}", a.differences.len()),
        &["line", "topic", "Google", "RFC 9309"],
        &differences,
    );
    let readings: Vec<Vec<String>> = a
        .other_readings
        .iter()
        .map(|r| {
            let mut cells = vec![escape(r.profile.name())];
            cells.extend(verdict_cells(&r.verdict));
            cells.push(escape(r.profile.how_it_differs()));
            cells
        })
        .collect();
    table(
        &mut out,
        "other-readings",
        &format!(
            "How other crawlers read this file: {} of {} answers differ from Google's",
            a.other_readings.len(),
            a.other_asked
        ),
        &[
            "profile", "agent", "URL", "verdict", "line", "rule", "scope", "why",
        ],
        &readings,
    );
    ai_use(&mut out, &a.ai_use);
    out.push_str("</body>\n</html>\n");
    out
}

/// "What this file says about AI use": the signal lines, then the contradictions with
/// the rules; a file without signals gets one row saying so.
fn ai_use(out: &mut String, ai: &AiUse) {
    let header = [
        "line",
        "kind",
        "group",
        "value",
        "valid",
        "what it says",
        "Cloudflare-managed",
    ];
    let mut rows: Vec<Vec<String>> = ai
        .signals
        .iter()
        .map(|s| {
            vec![
                s.line.to_string(),
                escape(s.kind),
                escape(&group_of(s)),
                format!("<code>{}</code>", escape(&s.value)),
                escape(&validity(s)),
                escape(&s.meaning),
                if s.cloudflare_managed { "yes" } else { "no" }.to_owned(),
            ]
        })
        .collect();
    if rows.is_empty() {
        rows.push(vec![escape(NOTHING)]);
    }
    table(
        out,
        "ai-signals",
        &format!("What this file says about AI use: {}", ai.signals.len()),
        &header,
        &rows,
    );
    if ai.signals.is_empty() {
        return;
    }
    let mut rows: Vec<Vec<String>> = ai
        .contradictions
        .iter()
        .map(|c| {
            let mut cells = vec![escape(c.agent)];
            cells.extend(contradiction_parts(c).iter().map(|p| escape(p)));
            cells
        })
        .collect();
    if rows.is_empty() {
        rows.push(vec![escape(&no_contradiction())]);
    }
    table(
        out,
        "ai-contradictions",
        &format!(
            "AI-use signals against the rules: {}",
            ai.contradictions.len()
        ),
        &[
            "agent",
            "the signals",
            "preferences",
            "the rules",
            "deciding rule",
        ],
        &rows,
    );
}
