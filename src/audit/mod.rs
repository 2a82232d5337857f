//! `robots-census audit`: one robots.txt, one page, for SEO auditors.
//!
//! ```text
//! file --RobotsTxt::parse (once)--> model --build--> Audit { findings, verdicts, crawlers,
//!                                                          differences, other_readings, ai_use }
//!   --text::render--> terminal report        --html::render--> self-contained HTML page (--html)
//! ```
//!
//! Every answer is read from the one parsed model: lint findings, verdicts with the
//! deciding line, the groups each crawler obeys, and the lines where RFC 9309 and
//! Google's reading differ (the 500 KiB cut, %-escapes, key spellings Google accepts),
//! and the verdicts other crawler families' parsers give where they differ from Google's
//! ([`robots_census_engine::Interpretations`], each family's parse built once),
//! and what the file says about AI use: its signal lines and where they contradict the
//! rules (`ai_use.rs`).
//! The engine ([`robots_census_engine`]) stays a pure library; this module only reads it.

mod ai_use;
mod html;
mod text;

pub use ai_use::{AiUse, Contradiction, SignalRow, TRAINING_CRAWLERS};

use crate::limits::ROBOTS_PARSE_CAP;
use robots_census_engine::{Code, Interpretations, Profile, RobotsTxt, Rule, Scope};

/// One lint finding, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingRow {
    pub line: u32,
    pub severity: &'static str,
    pub code: &'static str,
    pub message: &'static str,
    pub excerpt: String,
}

/// One (agent, URL) answer with the line that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictRow {
    pub agent: String,
    pub url: String,
    pub allowed: bool,
    /// 0 when no rule matched.
    pub line: u32,
    pub directive: Option<&'static str>,
    pub pattern: Option<String>,
    pub scope: Scope,
    /// The deciding line is one RFC 9309 reads differently (see [`Difference`]).
    pub rfc_differs: bool,
}

/// One crawler family's answer that differs from Google's for the same question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadingRow {
    pub profile: Profile,
    pub verdict: VerdictRow,
}

/// The groups one crawler obeys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlerRow {
    pub agent: String,
    pub scope: Scope,
    /// First lines of the groups that apply (merged, as robots.cc merges them).
    pub groups: Vec<u32>,
    /// Allow and disallow lines in those groups.
    pub allow: usize,
    pub disallow: usize,
}

/// What differs between RFC 9309 and Google's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Topic {
    SizeCap,
    Escape,
    Spelling,
}

impl Topic {
    pub fn as_str(self) -> &'static str {
        match self {
            Topic::SizeCap => "500 KiB cut",
            Topic::Escape => "%-escape",
            Topic::Spelling => "key spelling",
        }
    }
}

/// One line (0: the body) RFC 9309 and Google read differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub line: u32,
    pub topic: Topic,
    pub google: String,
    pub rfc: String,
}

/// The whole report, built from one parse.
#[derive(Debug, Clone)]
pub struct Audit {
    pub file: String,
    pub body_len: usize,
    pub lines: u32,
    pub groups: usize,
    pub rules: usize,
    pub sitemaps: usize,
    pub findings: Vec<FindingRow>,
    pub verdicts: Vec<VerdictRow>,
    pub crawlers: Vec<CrawlerRow>,
    pub differences: Vec<Difference>,
    /// The answers of every other profile that differ from Google's (same agents, URLs).
    pub other_readings: Vec<ReadingRow>,
    /// How many (profile, agent, URL) answers were compared.
    pub other_asked: usize,
    /// What the file says about AI use.
    pub ai_use: AiUse,
}

/// Bytes as one printable line, as the errors table shows excerpts (so an audit's
/// excerpts equal the dataset's): [`crate::check::printable`].
fn printable(bytes: &[u8]) -> String {
    crate::check::printable(bytes)
}

/// Builds the report for `doc` (parsed once from `body_len` bytes) asking `agents` x `urls`;
/// `crawlers` are the tokens whose groups are listed.
pub fn build(
    file: &str,
    body: &[u8],
    doc: &RobotsTxt<'_>,
    agents: &[Vec<u8>],
    urls: &[Vec<u8>],
    crawlers: &[String],
) -> Audit {
    let differences = differences(doc);
    let differs = |line: u32| {
        line > 0
            && differences
                .iter()
                .any(|d| d.line == line && d.topic != Topic::SizeCap)
    };
    let findings = doc
        .findings
        .iter()
        .map(|f| FindingRow {
            line: f.line,
            severity: f.code.severity().as_str(),
            code: f.code.as_str(),
            message: f.code.message(),
            excerpt: printable(f.excerpt),
        })
        .collect();
    let mut verdicts = Vec::with_capacity(agents.len() * urls.len());
    for agent in agents {
        for url in urls {
            let v = doc.verdict(agent, url);
            verdicts.push(VerdictRow {
                agent: printable(agent),
                url: printable(url),
                allowed: v.allowed,
                line: v.line,
                directive: v.directive().map(|d| d.as_str()),
                pattern: v.pattern().map(printable),
                scope: v.scope,
                rfc_differs: differs(v.line),
            });
        }
    }
    let crawlers = crawlers
        .iter()
        .map(|agent| crawler_row(doc, agent))
        .collect();
    let (other_readings, other_asked) = other_readings(body, doc, &verdicts);
    Audit {
        file: file.to_owned(),
        body_len: doc.facts.body_len,
        lines: doc.lines.lines,
        groups: doc.groups.len(),
        rules: doc.rules.iter().filter(|r| r.group.is_some()).count(),
        sitemaps: doc.sitemaps.len(),
        findings,
        verdicts,
        crawlers,
        differences,
        other_readings,
        other_asked,
        ai_use: ai_use::build(doc),
    }
}

/// Every profile but Google's asked the questions of `verdicts`; the answers whose verdict
/// or deciding line differs from Google's. A URL given as a path is asked on a site root
/// (`http://h`), as the probes of the readings table are.
fn other_readings(
    body: &[u8],
    doc: &RobotsTxt<'_>,
    verdicts: &[VerdictRow],
) -> (Vec<ReadingRow>, usize) {
    let reads = Interpretations::new(body, doc);
    let (mut rows, mut asked) = (Vec::new(), 0);
    for profile in Profile::ALL.into_iter().filter(|p| *p != Profile::Google) {
        for google in verdicts {
            let url = if google.url.starts_with('/') {
                format!("http://h{}", google.url)
            } else {
                google.url.clone()
            };
            let answer = reads.answer(profile, &google.agent, &url);
            asked += 1;
            if answer.allowed == google.allowed && answer.line == google.line {
                continue;
            }
            rows.push(ReadingRow {
                profile,
                verdict: VerdictRow {
                    agent: google.agent.clone(),
                    url: google.url.clone(),
                    allowed: answer.allowed,
                    line: answer.line,
                    directive: answer.directive.map(|d| d.as_str()),
                    pattern: answer.pattern,
                    scope: answer.scope,
                    rfc_differs: false,
                },
            });
        }
    }
    (rows, asked)
}

/// The groups robots.cc applies to `agent`: those naming it, else the `*` groups.
fn crawler_row(doc: &RobotsTxt<'_>, agent: &str) -> CrawlerRow {
    let summary = doc.agent_summary(agent.as_bytes());
    let applies = |g: &robots_census_engine::Group| match summary.scope {
        Scope::Named => doc
            .group_agents(g)
            .iter()
            .any(|a| a.names(agent.as_bytes())),
        Scope::Star => g.has_star,
        Scope::Fallback | Scope::None => false,
    };
    let (mut groups, mut allow, mut disallow) = (Vec::new(), 0, 0);
    for group in doc.groups.iter().filter(|g| applies(g)) {
        groups.push(group.first_line);
        let (a, d) = doc.rule_counts(group);
        allow += a;
        disallow += d;
    }
    CrawlerRow {
        agent: agent.to_owned(),
        scope: summary.scope,
        groups,
        allow,
        disallow,
    }
}

/// Where RFC 9309 and Google differ, in line order (the size cut first).
fn differences(doc: &RobotsTxt<'_>) -> Vec<Difference> {
    let mut out = Vec::new();
    if doc.facts.cut_at_cap {
        let ignored = doc.facts.body_len - doc.facts.parsed_len;
        out.push(Difference {
            line: 0,
            topic: Topic::SizeCap,
            google: format!(
                "reads the first {ROBOTS_PARSE_CAP} bytes of {} and ignores the last {ignored}",
                doc.facts.body_len
            ),
            rfc: format!(
                "a crawler must parse at least {ROBOTS_PARSE_CAP} bytes and may read the rest: rules in the last {ignored} bytes may apply"
            ),
        });
    }
    for f in &doc.findings {
        if let Some(google) = spelling(f.code) {
            out.push(Difference {
                line: f.line,
                topic: Topic::Spelling,
                google: format!("{google}: `{}`", printable(f.excerpt)),
                rfc: "not a valid key: the line is ignored".to_owned(),
            });
        }
    }
    for rule in doc.rules.iter().filter(|r| r.group.is_some()) {
        if let Some((google, rfc)) = escape_difference(rule) {
            out.push(Difference {
                line: rule.line,
                topic: Topic::Escape,
                google,
                rfc,
            });
        }
    }
    out.sort_by_key(|d| (d.line, d.topic));
    out
}

/// What Google makes of a key spelling RFC 9309 does not accept.
fn spelling(code: Code) -> Option<&'static str> {
    match code {
        Code::MisspelledKey => Some("accepts the misspelt key"),
        Code::KeyPrefixOnly => Some("matches the key by its prefix"),
        Code::MissingColon => Some("accepts the key without ':'"),
        _ => None,
    }
}

/// RFC 9309 section 2.2.2 compares paths after percent-encoding non-ASCII and
/// reserved octets and *decoding* escapes of unreserved characters (its example:
/// `/foo/bar/%62%61%7A` matches `/foo/bar/baz`), escapes compared case-insensitively
/// (RFC 3986 section 2.1). robots.cc escapes non-ASCII bytes too and upper-cases the
/// hex digits of the pattern, but matches URLs as written and never decodes: a pattern
/// with an escaped unreserved character, or with lower-case hex digits, matches fewer
/// URLs under Google.
fn escape_difference(rule: &Rule<'_>) -> Option<(String, String)> {
    let value = rule.value;
    let mut unreserved = Vec::new();
    let mut lower = false;
    let mut i = 0;
    while i < value.len() {
        // robots.cc's test for an escape: '%' and two hex digits inside the value.
        if value[i] == b'%' && i + 2 < value.len() {
            let (h, l) = (value[i + 1], value[i + 2]);
            if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() {
                lower |= h.is_ascii_lowercase() || l.is_ascii_lowercase();
                let byte = hex(h) * 16 + hex(l);
                if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                    unreserved.push(format!("%{}{}", h as char, l as char));
                }
                i += 3;
                continue;
            }
        }
        i += 1;
    }
    if unreserved.is_empty() && !lower {
        return None;
    }
    let pattern = printable(&rule.pattern);
    let mut rfc = Vec::new();
    if !unreserved.is_empty() {
        rfc.push(format!(
            "{} decoded: also matches URLs with the plain characters",
            unreserved.join(", ")
        ));
    }
    if lower {
        rfc.push("escapes compared case-insensitively".to_owned());
    }
    Some((
        format!("matches `{pattern}` literally against the URL as written"),
        rfc.join("; "),
    ))
}

fn hex(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// What one audit asks: the agents and URLs of the verdict table, as given (bytes).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Empty: the default crawler list.
    pub agents: Vec<Vec<u8>>,
    /// Empty: the site root `/`.
    pub urls: Vec<Vec<u8>>,
}

/// The audit of one parsed file named `name`: the default crawler list, then any other
/// agent asked about, gets a row of the groups it obeys.
pub fn audit(name: &str, body: &[u8], doc: &RobotsTxt<'_>, options: &Options) -> Audit {
    let defaults = crate::verdicts::parse_agent_list(crate::verdicts::DEFAULT_AGENTS);
    let agents: Vec<Vec<u8>> = if options.agents.is_empty() {
        defaults.iter().map(|a| a.as_bytes().to_vec()).collect()
    } else {
        options.agents.clone()
    };
    let urls: Vec<Vec<u8>> = if options.urls.is_empty() {
        vec![b"/".to_vec()]
    } else {
        options.urls.clone()
    };
    let mut crawlers = defaults;
    for agent in &options.agents {
        let agent = String::from_utf8_lossy(agent).into_owned();
        if !crawlers.iter().any(|c| c.eq_ignore_ascii_case(&agent)) {
            crawlers.push(agent);
        }
    }
    build(name, body, doc, &agents, &urls, &crawlers)
}

/// The terminal report.
pub fn render_text(audit: &Audit) -> String {
    text::render(audit)
}

/// The report as one self-contained HTML page (inline CSS, no script).
pub fn render_html(audit: &Audit) -> String {
    html::render(audit)
}
