//! A robots.txt engine that reads a file exactly as Google's open-source parser
//! (google/robotstxt, `robots.cc`) does, byte for byte, plus Google's production
//! 500 KiB cut; that says which line decided each answer; and that reads the same
//! file as other crawler families do, side by side. Bytes in, answers out: no I/O.
//!
//! ```text
//! &[u8] --tokenize--> Line { number, Key, value, escaped pattern, comment }
//!       --parse-----> RobotsTxt { groups, agents, rules, sitemaps, others, signals, findings }
//!       --verdict---> Verdict { allowed, deciding line/rule, scope }   (matcher + pattern)
//! &[u8] + RobotsTxt --Interpretations--> Answer per Profile (other families' parsers)
//! ```
//!
//! ```
//! use robots_census_engine::RobotsTxt;
//!
//! let doc = RobotsTxt::parse(b"User-agent: *\nDisallow: /private\n");
//! let v = doc.verdict(b"GPTBot", b"https://example.com/private/x");
//! assert!(!v.allowed);
//! assert_eq!(v.line, 2);
//! ```
//!
//! - [`RobotsTxt`] is the parsed model: groups, rules, sitemaps, other lines, facts
//!   about the body and the lint [`Finding`]s, all from one pass.
//! - [`RobotsTxt::verdict`] answers one (agent, URL) question with a [`Verdict`].
//! - [`RobotsTxt::probe_class`] and [`RobotsTxt::rule_set_class`] classify what an
//!   agent may crawl, as two published studies do ([`ProbeClass`], [`RuleSetClass`]).
//! - [`Signal`]s are the AI-use lines and comments (AIPREF `Content-Usage`,
//!   Cloudflare's `Content-Signal`, RSL `License`, ...), read in the same pass;
//!   [`RobotsTxt::usage_for`] and [`RobotsTxt::content_signals_for`] give an agent's
//!   effective preferences.
//! - [`report_lines`] reports each line as google/robotstxt's `RobotsParsingReporter`
//!   does (known, unused, unknown, typo, missing colon).
//! - [`Interpretations`] answers under each [`Profile`]: Google's production
//!   crawlers, RFC 9309, Bing, Yandex, Applebot, Baidu, CCBot, Python's urllib,
//!   Scrapy's Protego and npm's robots-parser.
//! - [`limits`] holds the caps the engine applies.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

/// Counts `$n` elementary steps of the engine (bytes the lexer or matcher covers,
/// rules and groups a verdict examines, agent names compared) for the adversarial
/// tests' work ratios (`work.rs`, `adversarial.rs`). Only the engine's own unit
/// tests have a counter: in every other build, the release library included, this
/// expands to nothing and `$n` is not even evaluated, so the hot paths pay nothing.
#[cfg(test)]
macro_rules! count_work {
    ($n:expr) => {
        $crate::work::add($n)
    };
}
#[cfg(not(test))]
macro_rules! count_work {
    ($n:expr) => {};
}

#[cfg(test)]
mod adversarial;
mod agent;
mod classify;
pub mod limits;
mod lint;
mod matcher;
mod model;
mod parse;
mod pattern;
mod profiles;
mod report;
mod signals;
mod tokenize;
mod url;
#[cfg(test)]
mod work;

pub use classify::{ProbeClass, Probes, RuleSetClass};
pub use lint::{shown_excerpt, Code, Finding, Severity};
pub use matcher::{AgentSummary, Scope, Verdict};
pub use model::{
    lossy_text, AgentLine, BodyFacts, Group, LineCounts, Other, OtherKey, RobotsTxt, Rule,
    RuleKind, Sitemap,
};
pub use profiles::{Answer, Interpretations, Profile};
pub use report::{report_lines, LineReport, Tag};
pub use signals::{
    is_tdm_reservation, license_target, ContentSignals, Labels, LicenseTarget, Pref, Problem,
    Problems, Signal, SignalKind, Usage, UseLevel, LEGACY_LABELS,
};
pub use url::UrlPath;

/// The README's example, run as a doc test so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
