//! The audit's "What this file says about AI use": the file's AI-use signal lines as
//! the engine read them in its one parse ([`RobotsTxt::signals`]: kind, value, validity,
//! what each states), and where those signals contradict the rules for the training
//! crawlers GPTBot, ClaudeBot and CCBot.
//!
//! ```text
//! RobotsTxt { signals, groups } --rows--> SignalRow (one per signal line or comment)
//! RobotsTxt::usage_for / content_signals_for / verdict (agent, "/") --contradictions--> Contradiction
//! ```

use robots_census_engine::{
    license_target, ContentSignals, Pref, RobotsTxt, Signal, SignalKind, UrlPath,
};

use super::printable;

/// The training crawlers whose signals and rules are compared: the agents of
/// `queries/signal_contradictions.sql`.
pub const TRAINING_CRAWLERS: [&str; 3] = ["GPTBot", "ClaudeBot", "CCBot"];

/// One signal line or comment, as the `signals` table has it, with what it states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalRow {
    pub line: u32,
    /// `content-usage`, `content-signal`, ... ([`SignalKind::as_str`]).
    pub kind: &'static str,
    /// The user-agent values of the group the line lies in; empty before any group.
    pub agents: Vec<String>,
    /// The value as written (a comment's text after `#`).
    pub value: String,
    /// The first problem ([`Signal::problem`]); `None` when the line is valid.
    pub problem: Option<&'static str>,
    /// What the line states, in words a reader of the `signals` table recognises.
    pub meaning: String,
    /// The line lies in Cloudflare's managed block.
    pub cloudflare_managed: bool,
}

/// A training crawler whose signals and rules say opposite things about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contradiction {
    pub agent: &'static str,
    /// `true`: the signals refuse training while the rules let the crawler fetch `/`;
    /// `false`: Content-Signal allows training while the rules disallow `/`.
    pub refuses: bool,
    /// The effective preferences behind it (`Content-Usage train-ai=n`, ...).
    pub signals: Vec<String>,
    /// The rule that decided `/`: its line (0: none) and `directive pattern`.
    pub line: u32,
    pub rule: Option<String>,
}

/// The section's model.
#[derive(Debug, Clone, Default)]
pub struct AiUse {
    pub signals: Vec<SignalRow>,
    pub contradictions: Vec<Contradiction>,
}

/// Builds the section from the parsed model (no second parse).
pub fn build(doc: &RobotsTxt<'_>) -> AiUse {
    let signals = doc.signals.iter().map(|s| row(doc, s)).collect();
    AiUse {
        signals,
        contradictions: contradictions(doc),
    }
}

fn row(doc: &RobotsTxt<'_>, signal: &Signal<'_>) -> SignalRow {
    let agents = doc
        .signal_agents(signal)
        .iter()
        .map(|a| printable(a.value))
        .collect();
    SignalRow {
        line: signal.line,
        kind: signal.kind.as_str(),
        agents,
        value: printable(signal.value),
        problem: signal.problem().map(|p| p.as_str()),
        meaning: meaning(signal),
        cloudflare_managed: signal.cloudflare_managed,
    }
}

fn pref(p: Option<Pref>) -> &'static str {
    p.map_or("unknown", Pref::as_str)
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unset",
    }
}

/// What a line states, worded as `queries/signal_adoption.sql`'s `says` column for the
/// kinds it describes (so the audit and the census read alike).
fn meaning(signal: &Signal<'_>) -> String {
    match signal.kind {
        SignalKind::ContentUsage => {
            let mut says = format!(
                "train-ai={} search={}",
                pref(signal.usage.train_ai),
                pref(signal.usage.search)
            );
            if let Some(path) = signal.path {
                says += &format!(" for paths matching {}", printable(path));
            }
            if let Some(labels) = signal.labels {
                says += &format!(" ({} labels)", labels.as_str());
            }
            says
        }
        SignalKind::ContentSignal => content_signal(&signal.content_signals),
        SignalKind::License => match license_target(signal.value, "").url {
            Some(url) => format!("license at {url}"),
            None => "license URL not absolute: unresolved".to_owned(),
        },
        SignalKind::LlmPolicy => format!("LLM policy at {}", printable(signal.value)),
        SignalKind::DisallowAiTraining => format!(
            "AI training refused for {} (robots.cc reads the line as Disallow)",
            printable(signal.path.unwrap_or_default())
        ),
        SignalKind::TdmComment => {
            "text-and-data-mining rights reserved (Directive (EU) 2019/790, Article 4)".to_owned()
        }
        SignalKind::CloudflareManaged => "start of Cloudflare's managed block".to_owned(),
    }
}

fn content_signal(s: &ContentSignals) -> String {
    format!(
        "ai-train={} search={} ai-input={} use={}",
        yes_no(s.ai_train),
        yes_no(s.search),
        yes_no(s.ai_input),
        s.use_level.map_or("unset", |u| u.as_str())
    )
}

/// The contradictions of `queries/signal_contradictions.sql`, for this one file and
/// the same agents, with the same definition:
/// - refuse but crawl: the agent's effective AIPREF `train-ai` for `/` is `n`
///   (`agents.usage_train_ai`, [`RobotsTxt::usage_for`]) or its Content-Signal `ai-train`
///   is `no` (`agents.signal_ai_train`, [`RobotsTxt::content_signals_for`]), and robots.cc
///   allows it `/` (`agents.root_allowed`);
/// - allow but block: its Content-Signal `ai-train` is `yes` and robots.cc disallows `/`.
///   (An AIPREF preference does not apply where the path may not be crawled, so
///   `usage_for` is unknown there and only Content-Signal can allow while blocked.)
fn contradictions(doc: &RobotsTxt<'_>) -> Vec<Contradiction> {
    let mut out = Vec::new();
    if doc.signals.is_empty() {
        return out;
    }
    for agent in TRAINING_CRAWLERS {
        let usage = doc.usage_for(agent.as_bytes(), &UrlPath::new(b"/"));
        let signal = doc.content_signals_for(agent.as_bytes()).ai_train;
        let verdict = doc.verdict(agent.as_bytes(), b"/");
        let refuses = usage.train_ai == Some(Pref::Disallow) || signal == Some(false);
        let allows = signal == Some(true);
        let found = if refuses && verdict.allowed {
            true
        } else if allows && !verdict.allowed {
            false
        } else {
            continue;
        };
        // The preferences that make it one: those refusing, or the one allowing.
        let mut signals = Vec::new();
        if found && usage.train_ai == Some(Pref::Disallow) {
            signals.push("Content-Usage train-ai=n".to_owned());
        }
        match signal {
            Some(false) if found => signals.push("Content-Signal ai-train=no".to_owned()),
            Some(true) if !found => signals.push("Content-Signal ai-train=yes".to_owned()),
            _ => {}
        }
        out.push(Contradiction {
            agent,
            refuses: found,
            signals,
            line: verdict.line,
            rule: verdict
                .directive()
                .zip(verdict.pattern())
                .map(|(d, p)| format!("{} {}", d.as_str(), printable(p))),
        });
    }
    out
}
