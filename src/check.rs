//! `check` and `lint`: the engine for people, one robots.txt at a time.
//!
//! A file (or stdin) in, one parse with [`RobotsTxt::parse`], then lines out:
//! verdicts for `check`, findings for `lint`. Everything here is printing; the
//! answers come from [`RobotsTxt::verdict`] and [`RobotsTxt::findings`].

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;

use crate::robots::{Finding, RobotsTxt, Scope, Severity, Verdict};

const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0  every URL asked is allowed for every agent
  1  at least one URL is disallowed
  2  usage error, or the robots.txt file cannot be read";

const LINT_EXIT_CODES: &str = "\
Exit codes:
  0  no finding of severity error or warning (info findings may be printed)
  1  at least one finding of severity error or warning
  2  usage error, or the robots.txt file cannot be read";

/// Arguments of `robots-census check`.
#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_EXIT_CODES)]
pub struct CheckArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
    /// `AGENT URL...`; with `--agent`, only URLs. Agents are product tokens used as given
    /// (`Googlebot`, not `Googlebot/2.1`); URLs are matched as written (percent-encode them).
    #[arg(value_name = "AGENT|URL", required = true)]
    pub args: Vec<OsString>,
    /// Ask for this agent; may be repeated. All positional arguments are then URLs.
    #[arg(long = "agent", short = 'a', value_name = "AGENT")]
    pub agents: Vec<OsString>,
    /// One JSON object per line: agent, url, allowed, line (0 when no rule decided),
    /// pattern, directive (null when none) and scope (named, star, none).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `robots-census lint`.
#[derive(Debug, clap::Args)]
#[command(after_help = LINT_EXIT_CODES)]
pub struct LintArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
    /// One JSON object per finding: line, severity, code, message, excerpt.
    #[arg(long)]
    pub json: bool,
}

const USAGE: u8 = 2;

pub fn check(args: &CheckArgs) -> ExitCode {
    let (agents, urls) = if args.agents.is_empty() {
        match args.args.split_first() {
            Some((agent, urls)) if !urls.is_empty() => (std::slice::from_ref(agent), urls),
            _ => {
                return usage(
                    "check needs an AGENT and at least one URL (or --agent AGENT and URLs)",
                )
            }
        }
    } else {
        (&args.agents[..], &args.args[..])
    };
    let Some(body) = read_body(&args.robots_file) else {
        return ExitCode::from(USAGE);
    };
    let doc = RobotsTxt::parse(&body);
    let mut out = io::stdout().lock();
    let mut all_allowed = true;
    for agent in agents {
        for url in urls {
            let (agent, url) = (agent.as_encoded_bytes(), url.as_encoded_bytes());
            let verdict = doc.verdict(agent, url);
            all_allowed &= verdict.allowed;
            let line = if args.json {
                verdict_json(agent, url, &verdict)
            } else {
                verdict_text(agent, url, &verdict)
            };
            if writeln!(out, "{line}").is_err() {
                return ExitCode::from(USAGE);
            }
        }
    }
    ExitCode::from(if all_allowed { 0 } else { 1 })
}

pub fn lint(args: &LintArgs) -> ExitCode {
    let Some(body) = read_body(&args.robots_file) else {
        return ExitCode::from(USAGE);
    };
    let doc = RobotsTxt::parse(&body);
    let mut out = io::stdout().lock();
    let mut counts = [0usize; 3];
    for finding in &doc.findings {
        counts[finding.code.severity() as usize] += 1;
        let line = if args.json {
            finding_json(finding)
        } else {
            finding_text(finding)
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(USAGE);
        }
    }
    let [errors, warnings, infos] = counts;
    eprintln!(
        "{}: {} findings ({errors} errors, {warnings} warnings, {infos} info)",
        args.robots_file.display(),
        doc.findings.len()
    );
    ExitCode::from(if errors + warnings > 0 { 1 } else { 0 })
}

fn usage(message: &str) -> ExitCode {
    eprintln!("robots-census: {message}");
    ExitCode::from(USAGE)
}

/// The whole file, or stdin for `-`; prints why (naming the path) when it cannot be read.
pub(crate) fn read_body(path: &Path) -> Option<Vec<u8>> {
    let read = if path == Path::new("-") {
        let mut body = Vec::new();
        io::stdin().lock().read_to_end(&mut body).map(|_| body)
    } else {
        std::fs::read(path)
    };
    match read {
        Ok(body) => Some(body),
        Err(err) => {
            eprintln!("robots-census: cannot read {}: {err}", path.display());
            None
        }
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scope_text(scope: Scope) -> &'static str {
    match scope {
        Scope::Named => "named group",
        Scope::Star => "'*' group",
        Scope::None => "no group",
    }
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
        scope_text(verdict.scope)
    )
}

fn verdict_json(agent: &[u8], url: &[u8], verdict: &Verdict<'_>) -> String {
    json!({
        "agent": lossy(agent),
        "url": lossy(url),
        "allowed": verdict.allowed,
        "line": verdict.line,
        "pattern": verdict.pattern().map(lossy),
        "directive": verdict.directive().map(|d| d.as_str()),
        "scope": verdict.scope.as_str(),
    })
    .to_string()
}

/// The excerpt as one printable line: lossy UTF-8, control characters escaped, cut.
fn excerpt(finding: &Finding<'_>) -> String {
    printable(finding.excerpt)
}

/// Bytes as one printable line: cut as the errors table cuts excerpts
/// ([`crate::robots::lint::cut_excerpt`]), lossy UTF-8, control characters escaped.
pub(crate) fn printable(bytes: &[u8]) -> String {
    let mut text = String::new();
    for c in String::from_utf8_lossy(crate::robots::lint::cut_excerpt(bytes)).chars() {
        if c.is_control() {
            text.extend(c.escape_default());
        } else {
            text.push(c);
        }
    }
    text
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

// `Severity as usize` indexes the counts above: keep the order error, warning, info.
const _: () = assert!(
    Severity::Error as usize == 0
        && Severity::Warning as usize == 1
        && Severity::Info as usize == 2
);
