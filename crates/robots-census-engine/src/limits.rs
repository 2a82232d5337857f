//! The engine's hard limits, declared once: how much of a body and of a line it
//! reads, as Google does, and how much of the lint it keeps.
//!
//! Hitting one is recorded (a fact of the body, a lint finding), never an error.
//! The robots-census pipeline re-exports these beside its own limits.

/// Google parses only the first 500 KiB of a robots.txt (production limit; the
/// open-source robots.cc has none). The cut happens even in the middle of a line.
pub const ROBOTS_PARSE_CAP: usize = 512_000;

/// robots.cc keeps at most `2083 * 8 - 1` bytes of a line; the rest is dropped.
pub const MAX_LINE_LEN: usize = 2083 * 8 - 1;

/// Bytes of a source line a lint excerpt shows (the `excerpt` column of the census's
/// `errors` table): see [`shown_excerpt`](crate::shown_excerpt).
pub const EXCERPT_LEN: usize = 200;

/// Lint findings of one code kept per document. An HTML page or binary junk
/// served as robots.txt would otherwise yield one finding per line; the
/// document-level finding (`html_body`, `utf16_body`) already says it all.
pub const MAX_FINDINGS_PER_CODE: usize = 100;
