//! The robots.txt engine: a pure library, bytes in, answers out, no I/O.
//!
//! It reproduces Google's open-source parser (google/robotstxt, `robots.cc`) byte
//! for byte, plus Google's production 500 KiB cap:
//!
//! ```text
//! &[u8] --tokenize--> Line { number, Key, value, escaped pattern }
//!       --parse-----> RobotsTxt { groups, agents, rules, sitemaps, others, findings }
//!       --verdict---> Verdict { allowed, deciding line/rule, scope }   (matcher + pattern)
//! ```
//!
//! ```
//! use robots_census::robots::RobotsTxt;
//! let doc = RobotsTxt::parse(b"User-agent: *\nDisallow: /private\n");
//! let v = doc.verdict(b"GPTBot", b"https://example.com/private/x");
//! assert!(!v.allowed);
//! assert_eq!(v.line, 2);
//! ```

pub mod agent;
pub mod classify;
pub mod lint;
pub mod matcher;
pub mod model;
mod parse;
pub mod pattern;
pub mod profiles;
pub mod tokenize;
pub mod url;

pub use classify::{ProbeClass, ProbeOrders, Probes, RuleKinds, RuleSetClass, DUMMY_PROBE_PATH};
pub use lint::{Code, Finding, Severity};
pub use matcher::{AgentSummary, Scope, Verdict};
pub use model::{
    AgentLine, BodyFacts, Group, LineCounts, Other, OtherKey, RobotsTxt, Rule, RuleKind, Sitemap,
};
pub use url::UrlPath;
