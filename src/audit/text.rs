//! The audit as a terminal report: plain lines, one fact per line, stable columns
//! (two spaces between fields) so a test or `grep` can read it back.

use super::{Audit, Contradiction, CrawlerRow, ReadingRow, SignalRow, VerdictRow};
use robots_census_engine::Scope;

/// `DISALLOWED  GPTBot  https://x.com/a  line 4: disallow /a  (named group)`, as `check` prints.
pub fn verdict_line(v: &VerdictRow) -> String {
    let answer = if v.allowed { "ALLOWED" } else { "DISALLOWED" };
    let rule = match (v.directive, &v.pattern) {
        (Some(directive), Some(pattern)) => format!("line {}: {directive} {pattern}", v.line),
        _ => "no matching rule".to_owned(),
    };
    let mut line = format!(
        "{answer:<10}  {}  {}  {rule}  ({})",
        v.agent,
        v.url,
        Scope::describe(v.scope)
    );
    if v.rfc_differs {
        line += &format!("  [RFC 9309 reads line {} differently]", v.line);
    }
    line
}

/// `Googlebot  named: groups at lines 1, 9 (1 allow, 2 disallow)`
pub fn crawler_line(c: &CrawlerRow) -> String {
    let lines = c
        .groups
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let plural = if c.groups.len() == 1 { "" } else { "s" };
    match c.scope {
        Scope::None => format!("{}  none: no group applies, everything allowed", c.agent),
        scope => format!(
            "{}  {}: group{plural} at line{plural} {lines} ({} allow, {} disallow)",
            c.agent,
            if scope == Scope::Named {
                "named"
            } else {
                "'*'"
            },
            c.allow,
            c.disallow
        ),
    }
}

pub fn render(a: &Audit) -> String {
    let mut out = format!(
        "robots.txt audit: {}\n{} bytes, {} lines, {} groups, {} rules, {} sitemaps\n",
        a.file, a.body_len, a.lines, a.groups, a.rules, a.sitemaps
    );
    out += &format!("\nLint findings: {}\n", a.findings.len());
    for f in &a.findings {
        out += &format!(
            "  line {}  {}  {}  {}",
            f.line, f.severity, f.code, f.message
        );
        if !f.excerpt.is_empty() {
            out += &format!("  | {}", f.excerpt);
        }
        out += "\n";
    }
    out += &format!("\nVerdicts: {}\n", a.verdicts.len());
    for v in &a.verdicts {
        out += &format!("  {}\n", verdict_line(v));
    }
    out += &format!("\nGroups each crawler obeys: {}\n", a.crawlers.len());
    for c in &a.crawlers {
        out += &format!("  {}\n", crawler_line(c));
    }
    out += &format!("\nRFC 9309 versus Google: {}\n", a.differences.len());
    if a.differences.is_empty() {
        out += "  none: both read this file the same way\n";
    }
    for d in &a.differences {
        out += &format!(
            "  line {}  {}  Google: {}  RFC 9309: {}\n",
            d.line,
            d.topic.as_str(),
            d.google,
            d.rfc
        );
    }
    out += &format!(
        "\nHow other crawlers read this file: {}\n",
        a.other_readings.len()
    );
    if a.other_readings.is_empty() {
        out += &format!(
            "  none: all {} answers of the other crawler families are Google's\n",
            a.other_asked
        );
    }
    for r in &a.other_readings {
        out += &format!("  {}\n", reading_line(r));
    }
    out += &format!(
        "\nWhat this file says about AI use: {}\n",
        a.ai_use.signals.len()
    );
    if a.ai_use.signals.is_empty() {
        out += &format!("  {NOTHING}\n");
        return out;
    }
    for s in &a.ai_use.signals {
        out += &format!("  {}\n", signal_line(s));
    }
    if a.ai_use.contradictions.is_empty() {
        out += &format!("  {}\n", no_contradiction());
    }
    for c in &a.ai_use.contradictions {
        out += &format!("  contradiction  {}\n", contradiction_line(c));
    }
    out
}

/// The section's one line when the file has no signal.
pub const NOTHING: &str = "nothing: no Content-Usage, Content-Signal, License, LLM-Policy or DisallowAITraining line, no text-and-data-mining reservation, no Cloudflare-managed block";

/// The line saying that no training crawler meets a contradiction.
pub fn no_contradiction() -> String {
    format!(
        "no contradiction with the rules for {}",
        super::TRAINING_CRAWLERS.join(", ")
    )
}

/// Where a signal line applies: its group's user-agents, or `no group`.
pub fn group_of(s: &SignalRow) -> String {
    if s.agents.is_empty() {
        "no group".to_owned()
    } else {
        format!("group {}", s.agents.join(", "))
    }
}

/// `valid`, or `invalid: legacy_label`.
pub fn validity(s: &SignalRow) -> String {
    match s.problem {
        None => "valid".to_owned(),
        Some(problem) => format!("invalid: {problem}"),
    }
}

/// `line 4  content-usage  group *  `train-ai=n`  valid  train-ai=n search=unknown (current labels)`
pub fn signal_line(s: &SignalRow) -> String {
    let mut line = format!(
        "line {}  {}  {}  `{}`  {}  {}",
        s.line,
        s.kind,
        group_of(s),
        s.value,
        validity(s),
        s.meaning
    );
    if s.cloudflare_managed {
        line += "  [Cloudflare-managed]";
    }
    line
}

/// A contradiction's parts: what the signals say, which preferences, what the rules
/// say, and the rule that decided `/`.
pub fn contradiction_parts(c: &Contradiction) -> [String; 4] {
    let (says, rules) = if c.refuses {
        ("refuses training", "robots.cc allows /")
    } else {
        ("allows training", "robots.cc disallows /")
    };
    let rule = match &c.rule {
        Some(rule) => format!("line {}: {rule}", c.line),
        None => "no matching rule".to_owned(),
    };
    [
        says.to_owned(),
        c.signals.join(", "),
        rules.to_owned(),
        rule,
    ]
}

/// `GPTBot  refuses training: Content-Usage train-ai=n  robots.cc allows /: line 2: allow /`
pub fn contradiction_line(c: &Contradiction) -> String {
    let [says, signals, rules, rule] = contradiction_parts(c);
    format!("{}  {says}: {signals}  {rules}: {rule}", c.agent)
}

/// `urllib  ALLOWED  GPTBot  /x  no matching rule  ('*' group)  why: agent matched as a substring ...`
pub fn reading_line(r: &ReadingRow) -> String {
    format!(
        "{}  {}  why: {}",
        r.profile.name(),
        verdict_line(&r.verdict),
        r.profile.how_it_differs()
    )
}
