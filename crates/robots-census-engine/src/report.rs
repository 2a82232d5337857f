//! Per-line reports as google/robotstxt's `RobotsParsingReporter` (reporting_robots.cc)
//! gives them: for each line robots.cc emits, the tag it found (a known directive,
//! a known-but-unused key of `kUnsupportedTags`, or unknown) and robots.cc's line
//! metadata (empty, comment, directive, accepted typo, too long, missing colon).
//!
//! The lines are the tokenizer's, read as the open-source reporter reads a body: all
//! of it, with no 500 KiB cut (that cut is Google's production limit, which
//! [`RobotsTxt::parse`](crate::RobotsTxt::parse) and so the lint apply). The lint's
//! per-line codes say the same things: an accepted typo is `misspelled_key`, an
//! unused key `ignored_by_google`, an unknown key `unknown_key`, a missing colon
//! `missing_colon`, a line robots.cc cannot split `unparsed_line`.

use crate::model::OtherKey;
use crate::tokenize::{Key, KeySpelling, LineKind, Lines};

/// robots.cc's `RobotsParsedLine::RobotsTagName`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tag {
    /// No directive, or a key robots.cc does not know (`kUnknown`).
    Unknown,
    /// `user-agent` (`kUserAgent`).
    UserAgent,
    /// `allow` (`kAllow`).
    Allow,
    /// `disallow` (`kDisallow`).
    Disallow,
    /// `sitemap` (`kSitemap`).
    Sitemap,
    /// A key of `kUnsupportedTags`: known, but Google does not use it (`kUnused`).
    Unused,
}

/// One line as `RobotsParsingReporter` records it (`RobotsParsedLine` and its
/// `LineMetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineReport {
    /// Line number, from 1.
    pub line: u32,
    /// What the line is.
    pub tag: Tag,
    /// The key is one of robots.cc's accepted typos (`useragent`, `disallaw`, ...).
    pub is_typo: bool,
    /// Nothing but whitespace.
    pub is_empty: bool,
    /// The line has a `#`.
    pub has_comment: bool,
    /// The line is only a comment.
    pub is_comment: bool,
    /// robots.cc found a key and a value.
    pub has_directive: bool,
    /// Bytes past 2083 * 8 - 1 were dropped.
    pub is_line_too_long: bool,
    /// Whitespace stood for the colon.
    pub is_missing_colon_separator: bool,
}

impl LineReport {
    /// `RobotsParsingReporter::valid_directives` counts the lines for which this holds.
    pub fn is_valid_directive(&self) -> bool {
        !matches!(self.tag, Tag::Unknown | Tag::Unused)
    }
}

/// The report of every line of `body`, in order; its length is the reporter's
/// `last_line_seen`.
///
/// ```
/// use robots_census_engine::{report_lines, Tag};
///
/// let lines = report_lines(b"useragent: a\nnoarchive: /x\nunicorns: /y\n");
/// let tags: Vec<Tag> = lines.iter().map(|l| l.tag).collect();
/// assert_eq!(tags, [Tag::UserAgent, Tag::Unused, Tag::Unknown, Tag::Unknown]);
/// assert!(lines[0].is_typo);
/// ```
pub fn report_lines(body: &[u8]) -> Vec<LineReport> {
    Lines::new(body)
        .map(|line| {
            let mut report = LineReport {
                line: line.number,
                tag: Tag::Unknown,
                is_typo: false,
                is_empty: false,
                has_comment: line.has_comment,
                is_comment: false,
                has_directive: false,
                is_line_too_long: line.too_long,
                is_missing_colon_separator: false,
            };
            match &line.kind {
                LineKind::Empty => report.is_empty = true,
                LineKind::Comment => report.is_comment = true,
                LineKind::Unparsed => {}
                LineKind::Directive(d) => {
                    report.has_directive = true;
                    report.is_missing_colon_separator = d.missing_colon;
                    report.is_typo = d.spelling == KeySpelling::AcceptedTypo;
                    report.tag = match d.key {
                        Key::UserAgent => Tag::UserAgent,
                        Key::Allow => Tag::Allow,
                        Key::Disallow => Tag::Disallow,
                        Key::Sitemap => Tag::Sitemap,
                        Key::Unknown if OtherKey::of(d.key_text) == OtherKey::Unknown => {
                            Tag::Unknown
                        }
                        Key::Unknown => Tag::Unused,
                    };
                }
            }
            report
        })
        .collect()
}
