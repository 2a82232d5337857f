//! `check` and `lint`: the engine for people, one robots.txt at a time.
//!
//! A file (or stdin) in, one parse with [`RobotsTxt::parse`], then lines out:
//! verdicts for `check`, findings for `lint`. Everything here is printing; the
//! answers come from [`RobotsTxt::verdict`] and [`RobotsTxt::findings`].

use std::io::{self, Write};

use robots_census_engine::{
    Answer, Finding, Interpretations, Pref, Profile, RobotsTxt, Scope, Severity, UrlPath, UseLevel,
    Verdict,
};
use serde_json::json;

/// The questions of one `check`: every agent is asked every URL, as given (bytes).
#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub agents: Vec<Vec<u8>>,
    pub urls: Vec<Vec<u8>>,
    /// One JSON object per line instead of the aligned text.
    pub json: bool,
    /// The families whose reading is asked (`--profile`); `None`: Google's alone, in
    /// the format without a profile column.
    pub profiles: Option<Vec<Profile>>,
}

/// Writes one line per (agent, URL) answer, or per (profile, agent, URL) with
/// profiles; returns whether every answer was allowed.
pub fn check(body: &[u8], options: &CheckOptions, out: &mut dyn Write) -> io::Result<bool> {
    let doc = RobotsTxt::parse(body);
    if let Some(profiles) = &options.profiles {
        return check_profiles(body, &doc, profiles, options, out);
    }
    let mut all_allowed = true;
    for agent in &options.agents {
        for url in &options.urls {
            let verdict = doc.verdict(agent, url);
            all_allowed &= verdict.allowed;
            let line = if options.json {
                verdict_json(&doc, agent, url, &verdict)
            } else {
                verdict_text(agent, url, &verdict)
            };
            writeln!(out, "{line}")?;
        }
    }
    Ok(all_allowed)
}

fn check_profiles(
    body: &[u8],
    doc: &RobotsTxt<'_>,
    profiles: &[Profile],
    options: &CheckOptions,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let reads = Interpretations::new(body, doc);
    let mut all_allowed = true;
    for &profile in profiles {
        for agent in &options.agents {
            let agent = lossy(agent);
            for url in &options.urls {
                let url = lossy(url);
                let answer = reads.answer(profile, &agent, &url);
                all_allowed &= answer.allowed;
                let line = if options.json {
                    answer_json(profile, &agent, &url, &answer)
                } else {
                    answer_text(profile, &agent, &url, &answer)
                };
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(all_allowed)
}

/// `DISALLOWED  urllib  GPTBot  https://x.com/private  line 4: disallow /private  (named group)`
fn answer_text(profile: Profile, agent: &str, url: &str, answer: &Answer) -> String {
    let verdict = if answer.allowed {
        "ALLOWED"
    } else {
        "DISALLOWED"
    };
    let rule = match (answer.directive, &answer.pattern) {
        (Some(directive), Some(pattern)) => {
            format!("line {}: {} {pattern}", answer.line, directive.as_str())
        }
        _ => "no matching rule".to_owned(),
    };
    format!(
        "{verdict:<10}  {:<17}  {agent}  {url}  {rule}  ({})",
        profile.name(),
        answer.scope.describe()
    )
}

fn answer_json(profile: Profile, agent: &str, url: &str, answer: &Answer) -> String {
    json!({
        "profile": profile.name(),
        "agent": agent,
        "url": url,
        "allowed": answer.allowed,
        "line": answer.line,
        "pattern": answer.pattern,
        "directive": answer.directive.map(|d| d.as_str()),
        "scope": answer.scope.as_str(),
    })
    .to_string()
}

/// Findings of one `lint`, by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LintCounts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl LintCounts {
    pub fn total(&self) -> usize {
        self.errors + self.warnings + self.infos
    }
}

/// Writes one line per finding; returns their counts.
pub fn lint(doc: &RobotsTxt<'_>, json: bool, out: &mut dyn Write) -> io::Result<LintCounts> {
    let mut counts = LintCounts::default();
    for finding in &doc.findings {
        match finding.code.severity() {
            Severity::Error => counts.errors += 1,
            Severity::Warning => counts.warnings += 1,
            Severity::Info => counts.infos += 1,
        }
        let line = if json {
            finding_json(finding)
        } else {
            finding_text(finding)
        };
        writeln!(out, "{line}")?;
    }
    Ok(counts)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `DISALLOWED  GPTBot  https://x.com/private  line 4: disallow /private  (named group)`
fn verdict_text(agent: &[u8], url: &[u8], verdict: &Verdict<'_>) -> String {
    let answer = if verdict.allowed {
        "ALLOWED"
    } else {
        "DISALLOWED"
    };
    let rule = match verdict.rule {
        Some(rule) => format!(
            "line {}: {} {}",
            verdict.line,
            rule.kind.as_str(),
            lossy(&rule.pattern)
        ),
        None => "no matching rule".to_owned(),
    };
    format!(
        "{answer:<10}  {}  {}  {rule}  ({})",
        lossy(agent),
        lossy(url),
        Scope::describe(verdict.scope)
    )
}

/// One answer as JSON, with the agent's AI-use preferences for the URL: AIPREF's
/// (the agents table's usage_* columns, at this URL rather than '/'), Content Signals'
/// and whether a user-agent line mentions the agent (null where nothing is stated).
fn verdict_json(doc: &RobotsTxt<'_>, agent: &[u8], url: &[u8], verdict: &Verdict<'_>) -> String {
    let usage = doc.usage_for(agent, &UrlPath::new(url));
    let signals = doc.content_signals_for(agent);
    let yes_no = |v: Option<bool>| v.map(|v| if v { "yes" } else { "no" });
    json!({
        "agent": lossy(agent),
        "url": lossy(url),
        "allowed": verdict.allowed,
        "line": verdict.line,
        "pattern": verdict.pattern().map(lossy),
        "directive": verdict.directive().map(|d| d.as_str()),
        "scope": verdict.scope.as_str(),
        "preferences": {
            "usage_train_ai": usage.train_ai.map(Pref::as_str),
            "usage_search": usage.search.map(Pref::as_str),
            "signal_ai_train": yes_no(signals.ai_train),
            "signal_ai_input": yes_no(signals.ai_input),
            "signal_search": yes_no(signals.search),
            "signal_use": signals.use_level.map(UseLevel::as_str),
            "mentioned": doc.mentions_agent(agent),
        },
    })
    .to_string()
}

/// The excerpt as one printable line, as the errors table shows it.
fn excerpt(finding: &Finding<'_>) -> String {
    printable(finding.excerpt)
}

/// Bytes as one printable line, by the rule of the errors table's excerpts
/// ([`robots_census_engine::shown_excerpt`]): cut to 200 bytes on a character boundary,
/// bytes that are not UTF-8 and control characters but tab as `\xNN`.
pub fn printable(bytes: &[u8]) -> String {
    robots_census_engine::shown_excerpt(bytes).into_owned()
}

/// `line 3  warning  missing_colon  no ':' after the key ...  | Disallow /x`
fn finding_text(finding: &Finding<'_>) -> String {
    let code = finding.code;
    let mut text = format!(
        "line {}  {}  {}  {}",
        finding.line,
        code.severity().as_str(),
        code.as_str(),
        code.message()
    );
    let excerpt = excerpt(finding);
    if !excerpt.is_empty() {
        text.push_str("  | ");
        text.push_str(&excerpt);
    }
    text
}

fn finding_json(finding: &Finding<'_>) -> String {
    json!({
        "line": finding.line,
        "severity": finding.code.severity().as_str(),
        "code": finding.code.as_str(),
        "message": finding.code.message(),
        "excerpt": excerpt(finding),
    })
    .to_string()
}
