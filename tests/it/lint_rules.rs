//! Lint rules: for every [`Code`], minimal robots.txt bodies on which the engine's lint
//! reports it (line and severity checked) and close variants on which it does not.
//!
//! The examples are one table, [`cases`]; `every_code_has_a_case` runs all of them and
//! requires, for every code of [`Code::ALL`], an example on which the lint was seen to
//! report that code and a close variant on which it was seen not to. A code added to the
//! engine without an example here fails it, and so does an example the lint does not
//! answer as written.

use std::collections::BTreeSet;

use robots_census_engine::{Code, RobotsTxt, Severity};

/// The (line, code) findings of `body`.
fn findings(body: &[u8]) -> Vec<(u32, Code)> {
    RobotsTxt::parse(body)
        .findings
        .iter()
        .map(|f| (f.line, f.code))
        .collect()
}

/// One code's examples.
struct Case {
    code: Code,
    /// The severity the code must have.
    severity: Severity,
    /// Bodies on which the lint reports `code`, with the line it must name (0: the
    /// body as a whole).
    fires: Vec<(Vec<u8>, u32)>,
    /// Close variants on which the lint reports no `code` at all.
    quiet: Vec<Vec<u8>>,
}

impl Case {
    fn new(code: Code, severity: Severity) -> Case {
        Case {
            code,
            severity,
            fires: Vec::new(),
            quiet: Vec::new(),
        }
    }

    fn fires(mut self, body: impl AsRef<[u8]>, line: u32) -> Case {
        self.fires.push((body.as_ref().to_vec(), line));
        self
    }

    fn quiet(mut self, body: impl AsRef<[u8]>) -> Case {
        self.quiet.push(body.as_ref().to_vec());
        self
    }
}

/// `user-agent: *`, `disallow: /x`, then blank lines up to `len` bytes.
fn padded_body(len: usize) -> Vec<u8> {
    let mut body = b"user-agent: *\ndisallow: /x\n".to_vec();
    body.resize(len, b'\n');
    body
}

/// A body whose second line, `disallow: /aaa...`, is `len` bytes long.
fn long_line_body(len: usize) -> String {
    format!(
        "user-agent: *\ndisallow: /{}\n",
        "a".repeat(len - "disallow: /".len())
    )
}

/// `text` as UTF-16 (little- or big-endian) bytes.
fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

/// Every code's examples.
fn cases() -> Vec<Case> {
    use Code::*;
    use Severity::{Error, Info, Warning};
    vec![
        Case::new(BodyOver500Kib, Warning)
            .fires(padded_body(512_001), 0)
            .quiet(padded_body(512_000)),
        Case::new(Utf16Body, Error)
            .fires(utf16("\u{feff}User-agent: *\n", false), 0)
            .fires(utf16("\u{feff}User-agent: *\n", true), 0)
            .quiet("\u{feff}User-agent: *\n"),
        Case::new(HtmlBody, Error)
            .fires(
                "<!DOCTYPE html>\n<html><head><title>Not found</title></head></html>\n",
                0,
            )
            .quiet("User-agent: *\n# <html>\nDisallow: /\n"),
        Case::new(InvalidUtf8, Warning)
            .fires(b"user-agent: *\ndisallow: /caf\xE9\n", 2)
            .quiet("user-agent: *\ndisallow: /café\n"),
        Case::new(Utf8Bom, Info)
            .fires("\u{feff}user-agent: *\ndisallow: /x\n", 0)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(NulByte, Warning)
            .fires(b"user-agent: *\ndisallow: /a\0b\n", 2)
            .quiet(b"user-agent: *\ndisallow: /a0b\n"),
        Case::new(LineTooLong, Warning)
            .fires(long_line_body(16_664), 2)
            .quiet(long_line_body(16_663)),
        Case::new(UnparsedLine, Warning)
            .fires("user-agent: *\nthis is not a directive\n", 2)
            .quiet("user-agent: *\n# this is not a directive\n"),
        Case::new(MissingColon, Warning)
            .fires("user-agent: *\ndisallow /x\n", 2)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(MisspelledKey, Warning)
            .fires("user-agent: *\ndissallow: /x\n", 2)
            .fires("useragent: *\ndisallow: /x\n", 1)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(KeyPrefixOnly, Warning)
            .fires("user-agent: *\ndisallowed: /x\n", 2)
            .quiet("user-agent: *\nDISALLOW: /x\n"),
        Case::new(UnknownKey, Warning)
            .fires("user-agent: *\nfoo: bar\n", 2)
            .quiet("user-agent: *\ncrawl-delay: 5\n"),
        Case::new(IgnoredDirective, Info)
            .fires("user-agent: *\ncrawl-delay: 5\n", 2)
            .fires("host: example.com\n", 1)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(RuleOutsideGroup, Error)
            .fires("disallow: /x\nuser-agent: *\n", 1)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(EmptyUserAgent, Error)
            .fires("user-agent:\ndisallow: /x\n", 1)
            .quiet("user-agent: *\ndisallow: /x\n"),
        Case::new(UserAgentNotToken, Warning)
            .fires("user-agent: Googlebot/2.1\ndisallow: /x\n", 1)
            .fires("user-agent: * all bots\ndisallow: /x\n", 1)
            .quiet("user-agent: Googlebot-News\ndisallow: /x\n"),
        Case::new(PatternStart, Warning)
            .fires("user-agent: *\ndisallow: private\n", 2)
            .quiet("user-agent: *\ndisallow: /private\ndisallow: *.gif\ndisallow:\n"),
        Case::new(DollarNotAtEnd, Warning)
            .fires("user-agent: *\ndisallow: /a$b\n", 2)
            .quiet("user-agent: *\ndisallow: /a$\n"),
        Case::new(SitemapNotAbsolute, Warning)
            .fires("sitemap: /sitemap.xml\n", 1)
            .quiet("sitemap: https://example.com/sitemap.xml\n"),
        Case::new(CrawlDelayNotNumber, Warning)
            .fires("user-agent: *\ncrawl-delay: ten\n", 2)
            .quiet("user-agent: *\ncrawl-delay: 10\n"),
        Case::new(MultipleStarGroups, Warning)
            .fires(
                "user-agent: *\ndisallow: /a\n\nuser-agent: *\ndisallow: /b\n",
                4,
            )
            .quiet("user-agent: *\ndisallow: /a\n\nuser-agent: FooBot\ndisallow: /b\n"),
        Case::new(AllowDisallowConflict, Warning)
            .fires("user-agent: *\nallow: /a\ndisallow: /a\n", 3)
            .quiet("user-agent: *\nallow: /a\nuser-agent: FooBot\ndisallow: /a\n"),
        Case::new(DuplicateRule, Info)
            .fires("user-agent: *\ndisallow: /a\ndisallow: /a\n", 3)
            .quiet("user-agent: *\ndisallow: /a\ndisallow: /b\n"),
        Case::new(StarDisallowsAll, Info)
            .fires("user-agent: *\ndisallow: /\n", 2)
            .quiet("user-agent: FooBot\ndisallow: /\n"),
        // RFC 9651 keys are lower-case: the whole value fails to parse.
        Case::new(SignalNotDictionary, Warning)
            .fires("user-agent: *\ncontent-usage: Train-AI=n\n", 2)
            .quiet("user-agent: *\ncontent-usage: train-ai=n\ncontent-signal: ai-train=no\n"),
        Case::new(SignalEmptyValue, Warning)
            .fires("user-agent: *\ncontent-signal:\n", 2)
            .quiet("user-agent: *\ncontent-signal: search=yes\n"),
        // Content-Signal before any group is file-wide by crawler-commons' reading: no
        // finding.
        Case::new(ContentUsageOutsideGroup, Warning)
            .fires("content-usage: train-ai=n\nuser-agent: *\nallow: /\n", 1)
            .quiet("content-signal: ai-train=no\nuser-agent: *\ncontent-usage: train-ai=n\n"),
        Case::new(LicenseNotAbsolute, Warning)
            .fires("license: /license.xml\n", 1)
            .quiet("license: https://rsl.example/license.xml\n"),
        Case::new(ContentUsageYesNo, Warning)
            .fires("user-agent: *\ncontent-usage: train-ai=no\n", 2)
            .quiet("user-agent: *\ncontent-usage: train-ai=n\n"),
        Case::new(ContentSignalYN, Warning)
            .fires("user-agent: *\ncontent-signal: ai-train=n\n", 2)
            .quiet("user-agent: *\ncontent-signal: ai-train=no\n"),
        Case::new(ContentUsageLegacyLabel, Warning)
            .fires("user-agent: *\ncontent-usage: ai=n\n", 2)
            .quiet("user-agent: *\ncontent-usage: train-ai=n, search=y\n"),
        Case::new(SignalUnknownLabel, Warning)
            .fires("user-agent: *\ncontent-signal: ai_train=no\n", 2)
            .quiet("user-agent: *\ncontent-signal: ai-train=no\n"),
        Case::new(SignalUnknownValue, Warning)
            .fires("user-agent: *\ncontent-signal: use=most\n", 2)
            .quiet("user-agent: *\ncontent-signal: use=reference\n"),
        Case::new(DisallowAiTrainingIsDisallow, Warning)
            .fires("user-agent: *\nDisallowAITraining: /\n", 2)
            .quiet("user-agent: *\ndisallow: /\n"),
    ]
}

/// A body for a failure message: its start, lossily.
fn shown(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
    if body.len() > 80 {
        format!("{text:?}... ({} bytes)", body.len())
    } else {
        format!("{text:?}")
    }
}

#[test]
fn every_code_has_a_case() {
    let cases = cases();
    let mut failures = Vec::new();
    // The codes the lint was seen to report on an example, and to leave out of a close
    // variant: what the table shows, not what it claims.
    let mut reported = BTreeSet::new();
    let mut left_out = BTreeSet::new();
    let mut with_case = BTreeSet::new();
    for case in &cases {
        let name = case.code.as_str();
        if !with_case.insert(case.code) {
            failures.push(format!("{name}: two cases (keep one per code)"));
        }
        if case.code.severity() != case.severity {
            failures.push(format!(
                "{name}: severity {:?}, the case expects {:?}",
                case.code.severity(),
                case.severity
            ));
        }
        for (body, line) in &case.fires {
            let found = findings(body);
            if found.contains(&(*line, case.code)) {
                reported.insert(case.code);
            } else {
                failures.push(format!(
                    "{name} expected on line {line} of {}, found {found:?}",
                    shown(body)
                ));
            }
        }
        for body in &case.quiet {
            let found = findings(body);
            if found.iter().any(|(_, c)| *c == case.code) {
                failures.push(format!(
                    "{name} not expected in {}, found {found:?}",
                    shown(body)
                ));
            } else {
                left_out.insert(case.code);
            }
        }
    }
    for code in Code::ALL {
        if !reported.contains(code) {
            failures.push(format!(
                "{}: no example on which the lint reports it",
                code.as_str()
            ));
        }
        if !left_out.contains(code) {
            failures.push(format!(
                "{}: no close variant on which the lint does not report it",
                code.as_str()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn clean_file_has_no_findings() {
    let body = "User-agent: *\nDisallow: /private/\nAllow: /private/public.html\n\nSitemap: https://example.com/s.xml\n";
    let found = findings(body.as_bytes());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn findings_are_sorted_by_line() {
    let body = "disallow: /x\nuser-agent: Googlebot/2.1\nfoo: bar\nsitemap: /s.xml\n";
    let lines: Vec<u32> = findings(body.as_bytes())
        .iter()
        .map(|(line, _)| *line)
        .collect();
    assert_eq!(lines, [1, 2, 3, 4]);
}
