//! Regression tests: every disagreement with Google's parser (robots.cc) ever
//! found, minimised, one named test each, asserting robots.cc's verdict and
//! deciding line (checked with `jwm-robotstxt`; the conformance dump covers these
//! too, see tests/it/conformance.rs).
//!
//! Issue 10 reported the first three; the generative differential test
//! (tests/it/generative/mod.rs) prints each disagreement it finds in this form,
//! minimised: paste it here under a name that says what robots.cc does.

use crate::conformance::{expect, url};

// ---------------------------------------------- issue 10: index.htm directory form
//
// An Allow ending in `index.htm` that does not match is retried as `prefix$`
// (priority prefix + 1). robots.cc keeps that match only when its priority is
// strictly higher than the best allow so far.

#[test]
fn google_index_htm_directory_form_does_not_replace_a_longer_allow() {
    // `/**` (3) matches '/', `/*$` (3) ties and loses to allow; the directory
    // form of `/index.htm` is `/$` (2): lower than 3, so line 2 still decides.
    let body = "User-agent: *\nAllow: /**\nDisallow: /*$\nAllow: /index.htm\n";
    expect(body, "FooBot", url("/"), true, 2);
}

#[test]
fn google_index_htm_directory_form_with_wildcard_prefix_does_not_replace() {
    // `*in*` (4) allow and disallow tie; `*/$` (3) must not replace the allow.
    let body = "User-agent: a\nAllow: *in*\nDisallow: *in*\nAllow: */index.htm\n";
    expect(body, "a", url("/in/"), true, 2);
}

#[test]
fn google_index_htm_directory_form_equal_priority_keeps_the_first_line() {
    // gigposters.com's shape: `/$` (2) and the directory form `/$` (2) tie; the
    // first one found keeps the line.
    let body = "User-agent: *\nAllow: /$\nAllow: /index.htm\n";
    expect(body, "FooBot", url("/"), true, 2);
}

// The same cause, as the generative test found it (minimised) when the bug above
// was put back to check that the test catches it.

#[test]
fn google_index_htm_two_directory_forms_tie_first_line_wins() {
    // Both rules only match through their directory form `/$` (2): a tie.
    let body = b"Useragent:\rAllow /index.htm\rallow:/index.htm";
    expect(body, "", "", true, 2);
}

#[test]
fn google_index_htm_directory_form_ties_wildcard_allow() {
    // `*$` (2) matches '/'; the directory form `/$` (2) ties and loses.
    let body = b"Useragent:\rAllow:*$\raLLow:/index.htm";
    expect(body, "", "", true, 2);
    // `/in` (3) and the directory form `*/$` (3) of `*/index.htm`.
    let body = b"Useragent *\nAllow:/in\nALLOW */index.htm";
    expect(body, "", "/in/", true, 2);
}

#[test]
fn google_index_htm_directory_form_with_literal_dollar_and_escape() {
    // `/$%41/*` (7) and the directory form `/$%41/$` (7): '$' inside a pattern
    // is a literal byte, `%41` stays escaped; a tie, the first line wins.
    let body = b"Useragent *\rALLOW /$%41/*\rAllow:/$%41/index.htm";
    expect(body, "", "/$%41/", true, 2);
}

#[test]
fn google_index_htm_two_wildcard_directory_forms_tie() {
    // URL `$//` has the path `//`: the directory forms `//$` (3) and `*/$` (3) tie.
    let body = b"USERAGENT:Googlebot\rallow://index.htm\nAllow:*/index.htm";
    expect(body, "Googlebot", "$//", true, 2);
}
