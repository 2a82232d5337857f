//! `robots-census audit` on a crafted robots.txt: the terminal report read back line
//! by line and compared with values computed on their own (verdicts, deciding lines and
//! the groups each crawler obeys from Google's parser, tests/audit/expect_audit.py;
//! findings and RFC 9309 differences known by construction of the file), and the
//! HTML page parsed by html5lib's strict parser (tests/audit/check_html.py), its tables
//! holding the same rows.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use robots_census_engine::Profile;
use serde_json::Value;

use crate::support::{bin, python, repo, scratch};

/// Lines numbered as robots.cc numbers them (1-based).
const BODY: &str = "# audit test\n\
User-agent: Googlebot\n\
Disallow: /private/\n\
Allow: /private/ok%2dpage\n\
\n\
useragent: GPTBot\n\
Dissallow: /\n\
\n\
User-agent: *\n\
Disallow /tmp/\n\
Disallow: /caf\u{e9}/\n\
Sitemap: /sitemap.xml\n\
Crawl-delay: abc\n\
Disallowed: /old/\n\
\n\
User-agent: googlebot\n\
User-agent: Bingbot\n\
Allow: /private/public\n";

const AGENTS: [&str; 4] = ["Googlebot", "GPTBot", "CCBot", "OtherBot"];
const URLS: [&str; 7] = [
    "https://example.com/private/public/x",
    "https://example.com/",
    "https://example.com/private/ok-page",
    "https://example.com/private/ok%2Dpage",
    "https://example.com/tmp/x",
    "https://example.com/caf%C3%A9/menu",
    "https://example.com/old/x",
];

/// The report's sections: header ("Verdicts") -> (count in the header, indented lines).
fn sections(report: &str) -> BTreeMap<String, (usize, Vec<String>)> {
    let mut out = BTreeMap::new();
    for block in report.split("\n\n").skip(1) {
        let mut lines = block.lines();
        let header = lines.next().expect("section header");
        let (name, count) = header.rsplit_once(": ").expect("`name: count` header");
        let lines: Vec<String> = lines
            .map(|l| l.strip_prefix("  ").expect("indented line").to_owned())
            .collect();
        out.insert(name.to_owned(), (count.parse().expect("count"), lines));
    }
    out
}

fn audit(dir: &Path, body: &[u8], extra: &[&str]) -> (String, std::path::PathBuf) {
    let file = dir.join("robots.txt");
    std::fs::write(&file, body).expect("write robots.txt");
    let html = dir.join("audit.html");
    let mut cmd = bin();
    cmd.arg("audit").arg(&file).arg("--html").arg(&html);
    cmd.args(extra);
    let output = cmd.output().expect("run robots-census audit");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8(output.stdout).expect("UTF-8 report"),
        html,
    )
}

fn python_json(args: &[&std::ffi::OsStr]) -> Value {
    let output = Command::new(python())
        .args(args)
        .output()
        .expect("run python");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn default_crawlers() -> Vec<String> {
    robots_census::internals::parse_agent_list(robots_census::internals::DEFAULT_AGENTS)
}

fn obeys_line<'a>(s: &'a BTreeMap<String, (usize, Vec<String>)>, agent: &str) -> &'a str {
    s["Groups each crawler obeys"]
        .1
        .iter()
        .find(|l| l.starts_with(&format!("{agent}  ")))
        .map(String::as_str)
        .unwrap_or_default()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (jwm-robotstxt, Google's parser; protego; html5lib) and npm robots-parser (make node): make test"
)]
fn audit_report_matches_google_and_the_file() {
    let dir = scratch("audit");
    let mut args = Vec::new();
    for a in AGENTS {
        args.extend(["--agent", a]);
    }
    for u in URLS {
        args.extend(["--url", u]);
    }
    let (report, html) = audit(&dir, BODY.as_bytes(), &args);
    let s = sections(&report);
    let mut crawlers = default_crawlers();
    crawlers.push("OtherBot".to_owned());
    let (agents, urls, list) = (AGENTS.join(","), URLS.join(" "), crawlers.join(","));
    let want = python_json(&[
        repo().join("tests/audit/expect_audit.py").as_os_str(),
        dir.join("robots.txt").as_os_str(),
        agents.as_ref(),
        urls.as_ref(),
        list.as_ref(),
    ]);

    // The head: sizes and counts of the file.
    let head: Vec<&str> = report.lines().take(2).collect();
    assert_eq!(
        head[1],
        format!(
            "{} bytes, 19 lines, 4 groups, 7 rules, 1 sitemaps",
            BODY.len()
        )
    );

    // Lint findings: by construction of the file.
    let findings = &s["Lint findings"];
    let have: Vec<(u32, String)> = findings
        .1
        .iter()
        .map(|l| {
            let mut f = l.split("  ");
            let line = f
                .next()
                .and_then(|x| x.strip_prefix("line "))
                .expect("line");
            let _severity = f.next();
            (
                line.parse().expect("number"),
                f.next().expect("code").to_owned(),
            )
        })
        .collect();
    let want_findings = [
        (6, "misspelled_key"),
        (7, "misspelled_key"),
        (10, "missing_colon"),
        (12, "sitemap_not_absolute_url"),
        (13, "ignored_by_google"),
        (13, "crawl_delay_not_number"),
        (14, "key_prefix_match"),
    ];
    assert_eq!(
        have,
        want_findings
            .iter()
            .map(|(l, c)| (*l, c.to_string()))
            .collect::<Vec<_>>(),
        "{report}"
    );
    assert_eq!(findings.0, want_findings.len());
    // Each finding line carries an excerpt of its line of the file.
    for (line, (n, _)) in findings.1.iter().zip(want_findings) {
        let text = BODY.lines().nth(n as usize - 1).expect("body line");
        assert!(line.ends_with(&format!("| {text}")), "{line}");
    }

    // Verdicts: Google's answer, deciding line and pattern, scope.
    let differing = [4u64, 6, 7, 10, 14];
    let verdicts = &s["Verdicts"];
    let want_verdicts = want["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.0, AGENTS.len() * URLS.len());
    assert_eq!(verdicts.1.len(), want_verdicts.len());
    for (have, w) in verdicts.1.iter().zip(want_verdicts) {
        let answer = if w["allowed"] == true {
            "ALLOWED"
        } else {
            "DISALLOWED"
        };
        let line = w["line"].as_u64().expect("line");
        let rule = match (w["directive"].as_str(), w["pattern"].as_str()) {
            (Some(d), Some(p)) => format!("line {line}: {d} {p}"),
            _ => "no matching rule".to_owned(),
        };
        let scope = match w["scope"].as_str() {
            Some("named") => "named group",
            Some("star") => "'*' group",
            _ => "no group",
        };
        let mut expected = format!(
            "{answer:<10}  {}  {}  {rule}  ({scope})",
            w["agent"].as_str().expect("agent"),
            w["url"].as_str().expect("url")
        );
        if differing.contains(&line) {
            expected += &format!("  [RFC 9309 reads line {line} differently]");
        }
        assert_eq!(have, &expected);
    }
    // How other crawlers read the file: each line is a family whose answer differs from
    // Google's; for the three families with a library here, every (agent, URL) answer is
    // the library's, listed exactly when it differs from Google's verdict or line.
    let other = &s["How other crawlers read this file"];
    assert_eq!(other.0, other.1.len());
    let listed: std::collections::HashMap<(String, String, String), bool> = other
        .1
        .iter()
        .map(|l| {
            // Fields are two spaces apart; the verdict is padded to 10 characters.
            let f: Vec<&str> = l
                .split("  ")
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .collect();
            let allowed = match f[1] {
                "ALLOWED" => true,
                "DISALLOWED" => false,
                other => panic!("verdict {other:?} in {l}"),
            };
            assert!(l.contains("  why: "), "{l}");
            ((f[0].to_owned(), f[2].to_owned(), f[3].to_owned()), allowed)
        })
        .collect();
    assert!(
        !listed.is_empty(),
        "the file is built to be read differently"
    );
    for profile in [Profile::Urllib, Profile::Protego, Profile::RobotsParser] {
        let mut oracle = crate::profiles::Oracle::start(profile);
        for w in want_verdicts {
            let (agent, url) = (
                w["agent"].as_str().expect("agent"),
                w["url"].as_str().expect("url"),
            );
            let theirs = oracle.ask(BODY.as_bytes(), agent, url) == '1';
            let key = (profile.name().to_owned(), agent.to_owned(), url.to_owned());
            match listed.get(&key) {
                Some(&ours) => assert_eq!(ours, theirs, "{key:?}"),
                // Not listed: the family's verdict is Google's (the line may still differ,
                // which lists it).
                None => assert_eq!(theirs, w["allowed"] == true, "{key:?} not listed"),
            }
        }
    }

    // The file is built so that both answers and several kinds of deciding line occur.
    let lines: Vec<u64> = want_verdicts
        .iter()
        .map(|v| v["line"].as_u64().unwrap_or(0))
        .collect();
    for n in [0, 3, 4, 7, 10, 11, 14, 18] {
        assert!(lines.contains(&n), "no verdict decided by line {n}");
    }

    // Groups each crawler obeys: the default list, then the agents asked about; two
    // groups naming Googlebot are merged, and Bingbot shares a group with it.
    assert!(
        obeys_line(&s, "Googlebot").contains("named: groups at lines 2, 16 (2 allow, 1 disallow)")
    );
    assert!(obeys_line(&s, "Bingbot").contains("named: group at line 16 (1 allow, 0 disallow)"));
    let obeys = &s["Groups each crawler obeys"];
    let want_crawlers = want["crawlers"].as_array().expect("crawlers");
    assert_eq!(obeys.0, crawlers.len());
    assert_eq!(obeys.1.len(), want_crawlers.len());
    for (have, w) in obeys.1.iter().zip(want_crawlers) {
        let agent = w["agent"].as_str().expect("agent");
        let groups: Vec<String> = w["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .map(|g| g.to_string())
            .collect();
        let plural = if groups.len() == 1 { "" } else { "s" };
        let expected = match w["scope"].as_str() {
            Some("none") => format!("{agent}  none: no group applies, everything allowed"),
            scope => format!(
                "{agent}  {}: group{plural} at line{plural} {} ({} allow, {} disallow)",
                if scope == Some("named") {
                    "named"
                } else {
                    "'*'"
                },
                groups.join(", "),
                w["allow"],
                w["disallow"]
            ),
        };
        assert_eq!(have, &expected);
    }

    // RFC 9309 versus Google: the lines built to differ, and no others.
    let diffs = &s["RFC 9309 versus Google"];
    let have: Vec<(String, String)> = diffs
        .1
        .iter()
        .map(|l| {
            let mut f = l.split("  ");
            (
                f.next().expect("line").to_owned(),
                f.next().expect("topic").to_owned(),
            )
        })
        .collect();
    let want_diffs = [
        ("line 4", "%-escape"),
        ("line 6", "key spelling"),
        ("line 7", "key spelling"),
        ("line 10", "key spelling"),
        ("line 14", "key spelling"),
    ];
    assert_eq!(
        have,
        want_diffs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    assert!(diffs.1[0].contains("%2d decoded"), "{}", diffs.1[0]);
    assert!(diffs.1[0].contains("case-insensitively"), "{}", diffs.1[0]);

    // No AI-use signal in the file: one line saying so.
    assert_eq!(s[AI_USE], (0, vec![NO_SIGNAL.to_owned()]));

    // The HTML page: strictly parsed, self-contained, the same rows.
    let page = python_json(&[
        repo().join("tests/audit/check_html.py").as_os_str(),
        html.as_os_str(),
    ]);
    assert_eq!(page["scripts"], 0);
    assert_eq!(page["external"], serde_json::json!([]));
    for (id, section) in [
        ("findings", "Lint findings"),
        ("verdicts", "Verdicts"),
        ("crawlers", "Groups each crawler obeys"),
        ("differences", "RFC 9309 versus Google"),
        ("other-readings", "How other crawlers read this file"),
    ] {
        let rows = page["tables"][id].as_array().expect("table");
        // A header row, then one row per line of the terminal section.
        assert_eq!(rows.len(), 1 + s[section].1.len(), "{id}");
    }
    assert_eq!(
        page["tables"]["ai-signals"][1],
        serde_json::json!([NO_SIGNAL])
    );
    assert!(page["tables"].get("ai-contradictions").is_none());
    // Verdict cells hold the same answers and lines as the terminal report.
    for (row, w) in page["tables"]["verdicts"].as_array().expect("rows")[1..]
        .iter()
        .zip(want_verdicts)
    {
        assert_eq!(row[0], w["agent"]);
        assert_eq!(row[1], w["url"]);
        assert_eq!(
            row[2],
            if w["allowed"] == true {
                "ALLOWED"
            } else {
                "DISALLOWED"
            }
        );
        assert_eq!(row[3], w["line"].to_string());
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (html5lib, for tests/audit/check_html.py): make test"
)]
fn audit_reports_the_500_kib_cut_and_defaults() {
    let dir = scratch("audit-cut");
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    while body.len() <= 512_000 {
        body.extend_from_slice(b"# padding line of a very long robots.txt file\n");
    }
    body.extend_from_slice(b"Disallow: /late\n");
    let (report, html) = audit(&dir, &body, &["--url", "https://example.com/late"]);
    let s = sections(&report);
    let diffs = &s["RFC 9309 versus Google"].1;
    assert_eq!(diffs.len(), 1, "{report}");
    let ignored = body.len() - 512_000;
    assert!(
        diffs[0].starts_with(&format!(
            "line 0  500 KiB cut  Google: reads the first 512000 bytes of {} and ignores the last {ignored}",
            body.len()
        )),
        "{}",
        diffs[0]
    );
    assert!(s["Lint findings"]
        .1
        .iter()
        .any(|l| l.starts_with("line 0  warning  body_over_500kib")));
    // Without --agent: the default crawler list is asked; Google ignores the late rule.
    let crawlers = default_crawlers();
    assert_eq!(s["Verdicts"].1.len(), crawlers.len());
    for (line, agent) in s["Verdicts"].1.iter().zip(&crawlers) {
        assert_eq!(
            line,
            &format!(
                "ALLOWED     {agent}  https://example.com/late  no matching rule  ('*' group)"
            )
        );
    }
    let page = python_json(&[
        repo().join("tests/audit/check_html.py").as_os_str(),
        html.as_os_str(),
    ]);
    assert_eq!(
        page["tables"]["differences"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (html5lib, for tests/audit/check_html.py): make test"
)]
fn audit_html_escapes_the_file_and_usage_errors_exit_2() {
    let dir = scratch("audit-escape");
    let body = b"User-agent: *\nDisallow: /<script>alert(1)</script>\nNoindex: /\"&'\n";
    let (_, html) = audit(&dir, body, &["--url", "/<b>"]);
    let text = std::fs::read_to_string(&html).expect("html");
    assert!(!text.contains("<script"), "{text}");
    let page = python_json(&[
        repo().join("tests/audit/check_html.py").as_os_str(),
        html.as_os_str(),
    ]);
    assert_eq!(page["scripts"], 0);
    let missing = bin()
        .args(["audit", "/nonexistent/robots.txt"])
        .output()
        .expect("run");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/robots.txt"));
}

/// A file with every kind of AI-use signal, valid and not, in and out of groups and
/// Cloudflare's managed block; lines numbered as robots.cc numbers them.
const SIGNALS_BODY: &str = "License: /license.xml\n\
Content-Usage: train-ai=n\n\
# BEGIN Cloudflare Managed content\n\
# Rights reserved under Article 4 of Directive (EU) 2019/790\n\
User-agent: *\n\
Content-Signal: search=yes, ai-train=no\n\
Allow: /\n\
# END Cloudflare Managed Content\n\
\n\
User-agent: ClaudeBot\n\
Content-Usage: train-ai=n, search=y\n\
Content-Usage: /blog/ train-genai=n\n\
Content-Usage: Train-AI=y\n\
Disallow: /private/\n\
\n\
User-agent: CCBot\n\
Content-Signal: ai-train=yes, use=full\n\
Content-Signal: search=y\n\
Disallow: /\n\
DisallowAITraining: /x/\n\
LLM-Policy: https://example.com/llms.txt\n\
Content-Usage: train-ai=yes\n";

/// What the section must say about each line of SIGNALS_BODY, known by construction:
/// (line, kind, group, value, valid or the problem, what it says, Cloudflare-managed).
const SIGNAL_ROWS: [(u32, &str, &str, &str, &str, &str, bool); 13] = [
    (
        1,
        "license",
        "no group",
        "/license.xml",
        "invalid: license_not_absolute",
        "license URL not absolute: unresolved",
        false,
    ),
    (
        2,
        "content-usage",
        "no group",
        "train-ai=n",
        "invalid: outside_group",
        "train-ai=n search=unknown (current labels)",
        false,
    ),
    (
        3,
        "cloudflare-managed",
        "no group",
        "BEGIN Cloudflare Managed content",
        "valid",
        "start of Cloudflare's managed block",
        true,
    ),
    (
        4,
        "tdm-comment",
        "no group",
        "Rights reserved under Article 4 of Directive (EU) 2019/790",
        "valid",
        "text-and-data-mining rights reserved (Directive (EU) 2019/790, Article 4)",
        true,
    ),
    (
        6,
        "content-signal",
        "group *",
        "search=yes, ai-train=no",
        "valid",
        "ai-train=no search=yes ai-input=unset use=unset",
        true,
    ),
    (
        11,
        "content-usage",
        "group ClaudeBot",
        "train-ai=n, search=y",
        "valid",
        "train-ai=n search=y (current labels)",
        false,
    ),
    (
        12,
        "content-usage",
        "group ClaudeBot",
        "/blog/ train-genai=n",
        "invalid: legacy_label",
        "train-ai=unknown search=unknown for paths matching /blog/ (legacy labels)",
        false,
    ),
    (
        13,
        "content-usage",
        "group ClaudeBot",
        "Train-AI=y",
        "invalid: not_sf_dictionary",
        "train-ai=unknown search=unknown",
        false,
    ),
    (
        17,
        "content-signal",
        "group CCBot",
        "ai-train=yes, use=full",
        "valid",
        "ai-train=yes search=unset ai-input=unset use=full",
        false,
    ),
    (
        18,
        "content-signal",
        "group CCBot",
        "search=y",
        "invalid: y_n_in_content_signal",
        "ai-train=unset search=unset ai-input=unset use=unset",
        false,
    ),
    (
        20,
        "disallow-ai-training",
        "group CCBot",
        "/x/",
        "valid",
        "AI training refused for /x/ (robots.cc reads the line as Disallow)",
        false,
    ),
    (
        21,
        "llm-policy",
        "group CCBot",
        "https://example.com/llms.txt",
        "valid",
        "LLM policy at https://example.com/llms.txt",
        false,
    ),
    (
        22,
        "content-usage",
        "group CCBot",
        "train-ai=yes",
        "invalid: yes_no_in_content_usage",
        "train-ai=unknown search=unknown (current labels)",
        false,
    ),
];

/// The contradictions of SIGNALS_BODY by queries/signal_contradictions.sql's definition:
/// GPTBot obeys `*`, whose Content-Signal refuses training, and line 7 allows `/`;
/// ClaudeBot's own group says train-ai=n and no rule matches `/`; CCBot's Content-Signal
/// allows training and line 19 disallows `/`.
const CONTRADICTIONS: [[&str; 5]; 3] = [
    [
        "GPTBot",
        "refuses training",
        "Content-Signal ai-train=no",
        "robots.cc allows /",
        "line 7: allow /",
    ],
    [
        "ClaudeBot",
        "refuses training",
        "Content-Usage train-ai=n",
        "robots.cc allows /",
        "no matching rule",
    ],
    [
        "CCBot",
        "allows training",
        "Content-Signal ai-train=yes",
        "robots.cc disallows /",
        "line 19: disallow /",
    ],
];

const AI_USE: &str = "What this file says about AI use";

/// The section's one line for a file without signals.
const NO_SIGNAL: &str = "nothing: no Content-Usage, Content-Signal, License, LLM-Policy or DisallowAITraining line, no text-and-data-mining reservation, no Cloudflare-managed block";

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the venv (html5lib, for tests/audit/check_html.py): make test"
)]
fn audit_says_what_the_file_says_about_ai_use() {
    let dir = scratch("audit-ai-use");
    let (report, html) = audit(&dir, SIGNALS_BODY.as_bytes(), &[]);
    let s = sections(&report);
    let (count, lines) = &s[AI_USE];
    assert_eq!(*count, SIGNAL_ROWS.len(), "{report}");
    let mut want: Vec<String> = SIGNAL_ROWS
        .iter()
        .map(|(line, kind, group, value, valid, says, cf)| {
            let mut l = format!("line {line}  {kind}  {group}  `{value}`  {valid}  {says}");
            if *cf {
                l += "  [Cloudflare-managed]";
            }
            l
        })
        .collect();
    want.extend(
        CONTRADICTIONS
            .iter()
            .map(|[agent, says, signals, rules, rule]| {
                format!("contradiction  {agent}  {says}: {signals}  {rules}: {rule}")
            }),
    );
    assert_eq!(lines, &want, "{report}");
    // The section is the report's last, after the other readings.
    assert!(report.trim_end().ends_with(&want[want.len() - 1]));

    // The HTML page: the same rows, cell by cell.
    let page = python_json(&[
        repo().join("tests/audit/check_html.py").as_os_str(),
        html.as_os_str(),
    ]);
    let rows = page["tables"]["ai-signals"].as_array().expect("ai-signals");
    assert_eq!(rows.len(), 1 + SIGNAL_ROWS.len());
    for (row, (line, kind, group, value, valid, says, cf)) in rows[1..].iter().zip(SIGNAL_ROWS) {
        let cf = if cf { "yes" } else { "no" };
        assert_eq!(
            row,
            &serde_json::json!([line.to_string(), kind, group, value, valid, says, cf])
        );
    }
    let rows = page["tables"]["ai-contradictions"]
        .as_array()
        .expect("ai-contradictions");
    assert_eq!(rows.len(), 1 + CONTRADICTIONS.len());
    for (row, want) in rows[1..].iter().zip(CONTRADICTIONS) {
        assert_eq!(row, &serde_json::json!(want));
    }
    assert_eq!(
        page["tables"]["ai-contradictions"][0],
        serde_json::json!([
            "agent",
            "the signals",
            "preferences",
            "the rules",
            "deciding rule"
        ])
    );

    // Signals without a contradiction: one line saying so.
    let dir = scratch("audit-ai-use-agree");
    let body = b"User-agent: *\nContent-Usage: train-ai=n\nDisallow: /\n";
    let (report, html) = audit(&dir, body, &[]);
    let s = sections(&report);
    assert_eq!(
        s[AI_USE],
        (
            1,
            vec![
                "line 2  content-usage  group *  `train-ai=n`  valid  train-ai=n search=unknown (current labels)".to_owned(),
                "no contradiction with the rules for GPTBot, ClaudeBot, CCBot".to_owned()
            ]
        )
    );
    let page = python_json(&[
        repo().join("tests/audit/check_html.py").as_os_str(),
        html.as_os_str(),
    ]);
    assert_eq!(
        page["tables"]["ai-contradictions"][1],
        serde_json::json!(["no contradiction with the rules for GPTBot, ClaudeBot, CCBot"])
    );
}
