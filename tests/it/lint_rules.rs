//! Lint rules: for every [`Code`], a minimal robots.txt that triggers it (line and
//! severity checked) and a close variant that does not.

use robots_census_engine::{Code, RobotsTxt, Severity};

/// The (line, code) findings of `body`.
fn findings(body: &[u8]) -> Vec<(u32, Code)> {
    RobotsTxt::parse(body)
        .findings
        .iter()
        .map(|f| (f.line, f.code))
        .collect()
}

/// Asserts that `body` yields `code` on `line`, and that `code` has `severity`.
#[track_caller]
fn fires(body: impl AsRef<[u8]>, code: Code, line: u32, severity: Severity) {
    assert_eq!(code.severity(), severity, "{}: severity", code.as_str());
    let found = findings(body.as_ref());
    assert!(
        found.contains(&(line, code)),
        "{} expected on line {line}, found {found:?}",
        code.as_str()
    );
}

/// Asserts that `body` yields no `code` finding.
#[track_caller]
fn quiet(body: impl AsRef<[u8]>, code: Code) {
    let found = findings(body.as_ref());
    assert!(
        !found.iter().any(|(_, c)| *c == code),
        "{} not expected, found {found:?}",
        code.as_str()
    );
}

/// The codes the tests below cover; `every_code_has_a_test` keeps it complete.
const TESTED: &[Code] = &[
    Code::BodyOver500Kib,
    Code::Utf16Body,
    Code::HtmlBody,
    Code::InvalidUtf8,
    Code::Utf8Bom,
    Code::NulByte,
    Code::LineTooLong,
    Code::UnparsedLine,
    Code::MissingColon,
    Code::MisspelledKey,
    Code::KeyPrefixOnly,
    Code::UnknownKey,
    Code::IgnoredDirective,
    Code::RuleOutsideGroup,
    Code::EmptyUserAgent,
    Code::UserAgentNotToken,
    Code::PatternStart,
    Code::DollarNotAtEnd,
    Code::SitemapNotAbsolute,
    Code::CrawlDelayNotNumber,
    Code::MultipleStarGroups,
    Code::AllowDisallowConflict,
    Code::DuplicateRule,
    Code::StarDisallowsAll,
    Code::SignalNotDictionary,
    Code::SignalEmptyValue,
    Code::ContentUsageOutsideGroup,
    Code::LicenseNotAbsolute,
    Code::ContentUsageYesNo,
    Code::ContentSignalYN,
    Code::ContentUsageLegacyLabel,
    Code::SignalUnknownLabel,
    Code::SignalUnknownValue,
    Code::DisallowAiTrainingIsDisallow,
];

#[test]
fn every_code_has_a_test() {
    let mut tested = TESTED.to_vec();
    tested.sort();
    let mut all = Code::ALL.to_vec();
    all.sort();
    assert_eq!(tested, all);
}

#[test]
fn clean_file_has_no_findings() {
    let body = "User-agent: *\nDisallow: /private/\nAllow: /private/public.html\n\nSitemap: https://example.com/s.xml\n";
    let found = findings(body.as_bytes());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn body_over_500kib() {
    let mut body = b"user-agent: *\ndisallow: /x\n".to_vec();
    body.resize(512_000, b'\n');
    quiet(&body, Code::BodyOver500Kib);
    body.push(b'\n');
    fires(&body, Code::BodyOver500Kib, 0, Severity::Warning);
}

#[test]
fn utf16_body() {
    let utf16: Vec<u8> = "\u{feff}User-agent: *\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    fires(&utf16, Code::Utf16Body, 0, Severity::Error);
    let big_endian: Vec<u8> = "\u{feff}User-agent: *\n"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    fires(&big_endian, Code::Utf16Body, 0, Severity::Error);
    quiet("\u{feff}User-agent: *\n", Code::Utf16Body);
}

#[test]
fn html_body() {
    fires(
        "<!DOCTYPE html>\n<html><head><title>Not found</title></head></html>\n",
        Code::HtmlBody,
        0,
        Severity::Error,
    );
    quiet("User-agent: *\n# <html>\nDisallow: /\n", Code::HtmlBody);
}

#[test]
fn invalid_utf8() {
    fires(
        b"user-agent: *\ndisallow: /caf\xE9\n",
        Code::InvalidUtf8,
        2,
        Severity::Warning,
    );
    quiet("user-agent: *\ndisallow: /café\n", Code::InvalidUtf8);
}

#[test]
fn utf8_bom() {
    fires(
        "\u{feff}user-agent: *\ndisallow: /x\n",
        Code::Utf8Bom,
        0,
        Severity::Info,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::Utf8Bom);
}

#[test]
fn nul_byte() {
    fires(
        b"user-agent: *\ndisallow: /a\0b\n",
        Code::NulByte,
        2,
        Severity::Warning,
    );
    quiet(b"user-agent: *\ndisallow: /a0b\n", Code::NulByte);
}

#[test]
fn line_too_long() {
    let line = |len: usize| {
        format!(
            "user-agent: *\ndisallow: /{}\n",
            "a".repeat(len - "disallow: /".len())
        )
    };
    fires(line(16_664), Code::LineTooLong, 2, Severity::Warning);
    quiet(line(16_663), Code::LineTooLong);
}

#[test]
fn unparsed_line() {
    fires(
        "user-agent: *\nthis is not a directive\n",
        Code::UnparsedLine,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\n# this is not a directive\n",
        Code::UnparsedLine,
    );
}

#[test]
fn missing_colon() {
    fires(
        "user-agent: *\ndisallow /x\n",
        Code::MissingColon,
        2,
        Severity::Warning,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::MissingColon);
}

#[test]
fn misspelled_key() {
    fires(
        "user-agent: *\ndissallow: /x\n",
        Code::MisspelledKey,
        2,
        Severity::Warning,
    );
    fires(
        "useragent: *\ndisallow: /x\n",
        Code::MisspelledKey,
        1,
        Severity::Warning,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::MisspelledKey);
}

#[test]
fn key_prefix_match() {
    fires(
        "user-agent: *\ndisallowed: /x\n",
        Code::KeyPrefixOnly,
        2,
        Severity::Warning,
    );
    quiet("user-agent: *\nDISALLOW: /x\n", Code::KeyPrefixOnly);
}

#[test]
fn unknown_key() {
    fires(
        "user-agent: *\nfoo: bar\n",
        Code::UnknownKey,
        2,
        Severity::Warning,
    );
    quiet("user-agent: *\ncrawl-delay: 5\n", Code::UnknownKey);
}

#[test]
fn ignored_by_google() {
    fires(
        "user-agent: *\ncrawl-delay: 5\n",
        Code::IgnoredDirective,
        2,
        Severity::Info,
    );
    fires(
        "host: example.com\n",
        Code::IgnoredDirective,
        1,
        Severity::Info,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::IgnoredDirective);
}

#[test]
fn rule_outside_group() {
    fires(
        "disallow: /x\nuser-agent: *\n",
        Code::RuleOutsideGroup,
        1,
        Severity::Error,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::RuleOutsideGroup);
}

#[test]
fn empty_user_agent() {
    fires(
        "user-agent:\ndisallow: /x\n",
        Code::EmptyUserAgent,
        1,
        Severity::Error,
    );
    quiet("user-agent: *\ndisallow: /x\n", Code::EmptyUserAgent);
}

#[test]
fn user_agent_not_product_token() {
    fires(
        "user-agent: Googlebot/2.1\ndisallow: /x\n",
        Code::UserAgentNotToken,
        1,
        Severity::Warning,
    );
    fires(
        "user-agent: * all bots\ndisallow: /x\n",
        Code::UserAgentNotToken,
        1,
        Severity::Warning,
    );
    quiet(
        "user-agent: Googlebot-News\ndisallow: /x\n",
        Code::UserAgentNotToken,
    );
}

#[test]
fn pattern_not_starting_with_slash() {
    fires(
        "user-agent: *\ndisallow: private\n",
        Code::PatternStart,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ndisallow: /private\ndisallow: *.gif\ndisallow:\n",
        Code::PatternStart,
    );
}

#[test]
fn dollar_not_at_end() {
    fires(
        "user-agent: *\ndisallow: /a$b\n",
        Code::DollarNotAtEnd,
        2,
        Severity::Warning,
    );
    quiet("user-agent: *\ndisallow: /a$\n", Code::DollarNotAtEnd);
}

#[test]
fn sitemap_not_absolute_url() {
    fires(
        "sitemap: /sitemap.xml\n",
        Code::SitemapNotAbsolute,
        1,
        Severity::Warning,
    );
    quiet(
        "sitemap: https://example.com/sitemap.xml\n",
        Code::SitemapNotAbsolute,
    );
}

#[test]
fn crawl_delay_not_number() {
    fires(
        "user-agent: *\ncrawl-delay: ten\n",
        Code::CrawlDelayNotNumber,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncrawl-delay: 10\n",
        Code::CrawlDelayNotNumber,
    );
}

#[test]
fn multiple_star_groups() {
    fires(
        "user-agent: *\ndisallow: /a\n\nuser-agent: *\ndisallow: /b\n",
        Code::MultipleStarGroups,
        4,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ndisallow: /a\n\nuser-agent: FooBot\ndisallow: /b\n",
        Code::MultipleStarGroups,
    );
}

#[test]
fn allow_disallow_conflict() {
    fires(
        "user-agent: *\nallow: /a\ndisallow: /a\n",
        Code::AllowDisallowConflict,
        3,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\nallow: /a\nuser-agent: FooBot\ndisallow: /a\n",
        Code::AllowDisallowConflict,
    );
}

#[test]
fn duplicate_rule() {
    fires(
        "user-agent: *\ndisallow: /a\ndisallow: /a\n",
        Code::DuplicateRule,
        3,
        Severity::Info,
    );
    quiet(
        "user-agent: *\ndisallow: /a\ndisallow: /b\n",
        Code::DuplicateRule,
    );
}

#[test]
fn star_disallows_all() {
    fires(
        "user-agent: *\ndisallow: /\n",
        Code::StarDisallowsAll,
        2,
        Severity::Info,
    );
    quiet("user-agent: FooBot\ndisallow: /\n", Code::StarDisallowsAll);
}

#[test]
fn signal_not_sf_dictionary() {
    // RFC 9651 keys are lower-case: the whole value fails to parse.
    fires(
        "user-agent: *\ncontent-usage: Train-AI=n\n",
        Code::SignalNotDictionary,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-usage: train-ai=n\ncontent-signal: ai-train=no\n",
        Code::SignalNotDictionary,
    );
}

#[test]
fn signal_empty_value() {
    fires(
        "user-agent: *\ncontent-signal:\n",
        Code::SignalEmptyValue,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-signal: search=yes\n",
        Code::SignalEmptyValue,
    );
}

#[test]
fn content_usage_outside_group() {
    fires(
        "content-usage: train-ai=n\nuser-agent: *\nallow: /\n",
        Code::ContentUsageOutsideGroup,
        1,
        Severity::Warning,
    );
    // Content-Signal before any group is file-wide by crawler-commons' reading: no finding.
    quiet(
        "content-signal: ai-train=no\nuser-agent: *\ncontent-usage: train-ai=n\n",
        Code::ContentUsageOutsideGroup,
    );
}

#[test]
fn license_not_absolute() {
    fires(
        "license: /license.xml\n",
        Code::LicenseNotAbsolute,
        1,
        Severity::Warning,
    );
    quiet(
        "license: https://rsl.example/license.xml\n",
        Code::LicenseNotAbsolute,
    );
}

#[test]
fn content_usage_yes_no() {
    fires(
        "user-agent: *\ncontent-usage: train-ai=no\n",
        Code::ContentUsageYesNo,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-usage: train-ai=n\n",
        Code::ContentUsageYesNo,
    );
}

#[test]
fn content_signal_y_n() {
    fires(
        "user-agent: *\ncontent-signal: ai-train=n\n",
        Code::ContentSignalYN,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-signal: ai-train=no\n",
        Code::ContentSignalYN,
    );
}

#[test]
fn content_usage_legacy_label() {
    fires(
        "user-agent: *\ncontent-usage: ai=n\n",
        Code::ContentUsageLegacyLabel,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-usage: train-ai=n, search=y\n",
        Code::ContentUsageLegacyLabel,
    );
}

#[test]
fn signal_unknown_label() {
    fires(
        "user-agent: *\ncontent-signal: ai_train=no\n",
        Code::SignalUnknownLabel,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-signal: ai-train=no\n",
        Code::SignalUnknownLabel,
    );
}

#[test]
fn signal_unknown_value() {
    fires(
        "user-agent: *\ncontent-signal: use=most\n",
        Code::SignalUnknownValue,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ncontent-signal: use=reference\n",
        Code::SignalUnknownValue,
    );
}

#[test]
fn disallow_ai_training_read_as_disallow() {
    fires(
        "user-agent: *\nDisallowAITraining: /\n",
        Code::DisallowAiTrainingIsDisallow,
        2,
        Severity::Warning,
    );
    quiet(
        "user-agent: *\ndisallow: /\n",
        Code::DisallowAiTrainingIsDisallow,
    );
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
