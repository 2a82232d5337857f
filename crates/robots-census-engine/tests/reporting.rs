//! The cases of google/robotstxt's `reporting_robots_test.cc` (HEAD 22b355f, whose
//! `kUnsupportedTags` is commit 4af32e5's), ported: `report_lines` must give each line
//! the tag and metadata `RobotsParsingReporter` gives it, and the lint of
//! `RobotsTxt::parse` must say the same of each line.

use robots_census_engine::{report_lines, Code, LineReport, RobotsTxt, Tag};

/// A line's expected report: the test's `RobotsParsedLine` (fields it leaves out are
/// false, as in the C++ aggregate initialisation).
#[derive(Default)]
struct Want {
    tag: Option<Tag>,
    is_typo: bool,
    is_empty: bool,
    has_comment: bool,
    is_comment: bool,
    has_directive: bool,
    is_line_too_long: bool,
    is_missing_colon_separator: bool,
}

fn check(reports: &[LineReport], line: u32, want: Want) {
    let got = reports[line as usize - 1];
    let want = LineReport {
        line,
        tag: want.tag.unwrap_or(Tag::Unknown),
        is_typo: want.is_typo,
        is_empty: want.is_empty,
        has_comment: want.has_comment,
        is_comment: want.is_comment,
        has_directive: want.has_directive,
        is_line_too_long: want.is_line_too_long,
        is_missing_colon_separator: want.is_missing_colon_separator,
    };
    assert_eq!(got, want, "line {line}");
}

fn valid_directives(reports: &[LineReport]) -> usize {
    reports.iter().filter(|r| r.is_valid_directive()).count()
}

/// What the lint says of each line, as the reporter's words: the findings of
/// `RobotsTxt::parse` must agree with `report_lines` line by line.
fn lint_agrees(body: &[u8]) {
    let doc = RobotsTxt::parse(body);
    let has = |line: u32, code: Code| {
        doc.findings
            .iter()
            .any(|f| f.line == line && f.code == code)
    };
    for r in report_lines(body) {
        let line = r.line;
        assert_eq!(
            has(line, Code::MisspelledKey),
            r.is_typo,
            "line {line}: typo"
        );
        assert_eq!(
            has(line, Code::IgnoredDirective),
            r.tag == Tag::Unused,
            "line {line}: unused"
        );
        assert_eq!(
            has(line, Code::UnknownKey),
            r.tag == Tag::Unknown && r.has_directive,
            "line {line}: unknown key"
        );
        assert_eq!(
            has(line, Code::MissingColon),
            r.is_missing_colon_separator,
            "line {line}: missing colon"
        );
        assert_eq!(
            has(line, Code::LineTooLong),
            r.is_line_too_long,
            "line {line}: too long"
        );
        assert_eq!(
            has(line, Code::UnparsedLine),
            !r.has_directive && !r.is_empty && !r.is_comment,
            "line {line}: unparsed"
        );
    }
}

/// `TEST(RobotsUnittest, LinesNumbersAreCountedCorrectly)`.
#[test]
fn google_lines_numbers_are_counted_correctly() {
    let simple: &[u8] = b"User-Agent: foo\n\
Allow: /some/path\n\
User-Agent bar # no\n\
absolutely random line\n\
#so comment, much wow\n\
\n\
unicorns: /extinct\n\
noarchive: /some\n\
Disallow: /\n\
Error #and comment\n\
useragent: baz\n\
disallaw: /some\n\
site-map: https://e/s.xml #comment\n\
sitemap: https://e/t.xml\n\
Noarchive: /someCapital\n";
    let r = report_lines(simple);
    assert_eq!(valid_directives(&r), 8);
    assert_eq!(r.len(), 16, "last_line_seen");
    let directive = |tag| Want {
        tag: Some(tag),
        has_directive: true,
        ..Want::default()
    };
    check(&r, 1, directive(Tag::UserAgent));
    check(&r, 2, directive(Tag::Allow));
    check(
        &r,
        3,
        Want {
            has_comment: true,
            is_missing_colon_separator: true,
            ..directive(Tag::UserAgent)
        },
    );
    check(&r, 4, Want::default());
    check(
        &r,
        5,
        Want {
            has_comment: true,
            is_comment: true,
            ..Want::default()
        },
    );
    check(
        &r,
        6,
        Want {
            is_empty: true,
            ..Want::default()
        },
    );
    check(&r, 7, directive(Tag::Unknown));
    check(&r, 8, directive(Tag::Unused));
    check(&r, 9, directive(Tag::Disallow));
    check(
        &r,
        10,
        Want {
            has_comment: true,
            ..Want::default()
        },
    );
    check(
        &r,
        11,
        Want {
            is_typo: true,
            ..directive(Tag::UserAgent)
        },
    );
    check(
        &r,
        12,
        Want {
            is_typo: true,
            ..directive(Tag::Disallow)
        },
    );
    check(
        &r,
        13,
        Want {
            is_typo: true,
            has_comment: true,
            ..directive(Tag::Sitemap)
        },
    );
    check(&r, 14, directive(Tag::Sitemap));
    check(&r, 15, directive(Tag::Unused));
    check(
        &r,
        16,
        Want {
            is_empty: true,
            ..Want::default()
        },
    );
    lint_agrees(simple);

    let dos: &[u8] =
        b"User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n";
    let r = report_lines(dos);
    assert_eq!((valid_directives(&r), r.len()), (4, 7));
    lint_agrees(dos);

    let mac: &[u8] = b"User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r";
    let r = report_lines(mac);
    assert_eq!((valid_directives(&r), r.len()), (4, 7));
    lint_agrees(mac);
}

/// `TEST(RobotsUnittest, LinesTooLongReportedCorrectly)`.
#[test]
fn google_lines_too_long_reported_correctly() {
    const MAX_LINE_LEN: usize = 2084 * 8;
    let mut longline = String::from("/x/");
    while longline.len() < MAX_LINE_LEN {
        longline.push('a');
    }
    let body = format!("user-agent: foo\ndisallow: {longline}\nallow: /\n");
    let r = report_lines(body.as_bytes());
    assert_eq!((valid_directives(&r), r.len()), (3, 4));
    let directive = |tag, too_long| Want {
        tag: Some(tag),
        has_directive: true,
        is_line_too_long: too_long,
        ..Want::default()
    };
    check(&r, 1, directive(Tag::UserAgent, false));
    check(&r, 2, directive(Tag::Disallow, true));
    check(&r, 3, directive(Tag::Allow, false));
    lint_agrees(body.as_bytes());
}

/// Every key of `kUnsupportedTags` at 4af32e5 is unused, in any case; its neighbours and
/// the plural `content-signals` are unknown, as `HandleUnknownAction` compares the
/// lower-cased key with the list.
#[test]
fn google_unsupported_tags_of_4af32e5() {
    let unused = [
        "clean-param",
        "content-signal",
        "content-usage",
        "crawl-delay",
        "domain",
        "host",
        "noarchive",
        "nofollow",
        "noindex",
        "request-rate",
        "revisit-after",
        "visit-time",
    ];
    for key in unused {
        for spelled in [key.to_owned(), key.to_ascii_uppercase()] {
            let body = format!("{spelled}: x\n");
            assert_eq!(
                report_lines(body.as_bytes())[0].tag,
                Tag::Unused,
                "{spelled}"
            );
            lint_agrees(body.as_bytes());
        }
    }
    for key in [
        "content-signals",
        "license",
        "llm-policy",
        "crawl delay",
        "no-index",
    ] {
        let body = format!("{key}: x\n");
        assert_eq!(report_lines(body.as_bytes())[0].tag, Tag::Unknown, "{key}");
        lint_agrees(body.as_bytes());
    }
}
