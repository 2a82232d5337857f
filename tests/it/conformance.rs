//! Conformance: RFC 9309 and Google's "How Google interprets the robots.txt
//! specification", one test per section or rule, each asserting the verdict AND the
//! deciding line (robots.cc's `matching_line()`) through `RobotsTxt::verdict`.
//!
//! Every expectation was confirmed with Google's parser (PyPI `jwm-robotstxt`): run
//! with `ROBOTS_CENSUS_CONFORMANCE_DUMP=/tmp/cases.jsonl cargo test conformance --
//! --include-ignored`, then `python tests/oracle/conformance.py /tmp/cases.jsonl`.
//! Where robots.cc and the spec prose disagree, robots.cc wins in `expect` (a
//! `google_*` test shows its reading) and the prose's expectation is asserted under the
//! `rfc9309` interpretation profile (`expect_rfc9309`), whose doc comment says how
//! robots.cc differs.
//! RFC 9309 2.3 (access method, status codes) and 2.4 (caching) concern the
//! fetcher, not the parser; 2.4 is only checked as "one parse answers many".

use std::io::Write;

use robots_census_engine::{Interpretations, Profile, RobotsTxt, Scope};

use crate::support::hex;

/// Asserts robots.cc's answer for `agent` and `url` on `body`: verdict and deciding line.
#[track_caller]
pub(crate) fn expect(
    body: impl AsRef<[u8]>,
    agent: &str,
    url: impl AsRef<[u8]>,
    allowed: bool,
    line: u32,
) {
    let (body, url) = (body.as_ref(), url.as_ref());
    dump(body, agent, url, allowed, line);
    let doc = RobotsTxt::parse(body);
    let verdict = doc.verdict(agent.as_bytes(), url);
    let url = String::from_utf8_lossy(url);
    assert_eq!(
        (verdict.allowed, verdict.line),
        (allowed, line),
        "agent {agent:?}, url {url:?}: (allowed, line)"
    );
}

/// Asserts the `rfc9309` profile's answer (RFC 9309 read strictly where robots.cc
/// differs): verdict and deciding line.
#[track_caller]
fn expect_rfc9309(body: &str, agent: &str, url: impl AsRef<str>, allowed: bool, line: u32) {
    let doc = RobotsTxt::parse(body.as_bytes());
    let reads = Interpretations::new(body.as_bytes(), &doc);
    let url = url.as_ref();
    let answer = reads.answer(Profile::Rfc9309, agent, url);
    assert_eq!(
        (answer.allowed, answer.line),
        (allowed, line),
        "rfc9309: agent {agent:?}, url {url:?}: (allowed, line)"
    );
}

/// Records the case for tests/oracle/conformance.py when asked to.
fn dump(body: &[u8], agent: &str, url: &[u8], allowed: bool, line: u32) {
    let Some(path) = std::env::var_os("ROBOTS_CENSUS_CONFORMANCE_DUMP") else {
        return;
    };
    let test = std::thread::current().name().unwrap_or("?").to_owned();
    let record = serde_json::json!({
        "test": test, "body": hex(body), "agent": agent, "url": hex(url), "allowed": allowed, "line": line,
    });
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open dump file");
    file.write_all(format!("{record}\n").as_bytes())
        .expect("write dump");
}

const URL: &str = "https://example.com";

pub(crate) fn url(path: &str) -> String {
    format!("{URL}{path}")
}

/// A one-rule robots.txt for `*` (rule on line 2).
fn star_rule(rule: &str) -> String {
    format!("user-agent: *\n{rule}\n")
}

// ---------------------------------------------------------------- RFC 9309 2.1

#[test]
fn rfc_2_1_comments_blank_lines_and_whitespace() {
    let body = "# comment\n\n  User-agent :  *   # all\n\tDisallow:\t/x   # comment\n";
    expect(body, "FooBot", url("/x"), false, 4);
    expect(body, "FooBot", url("/y"), true, 0);
}

#[test]
fn rfc_2_1_keys_are_case_insensitive() {
    for body in [
        "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
        "uSeR-aGeNt: FooBot\naLlOw: /x/\ndIsAlLoW: /\n",
    ] {
        expect(body, "FooBot", url("/x/y"), true, 2);
        expect(body, "FooBot", url("/a/b"), false, 3);
    }
}

#[test]
fn rfc_2_1_simple_example_of_section_5_1() {
    let body = "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n\
                User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n\
                User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n\
                User-Agent: quxbot\n\nEOF\n";
    expect(body, "otherbot", url("/example/x"), false, 3);
    expect(body, "otherbot", url("/a.gif"), false, 2);
    expect(body, "otherbot", url("/publications/x"), true, 4);
    expect(body, "foobot", url("/example/page.html"), true, 8);
    expect(body, "foobot", url("/example/allowed.gif"), true, 9);
    expect(body, "foobot", url("/x"), false, 7);
    expect(body, "barbot", url("/example/page.html"), false, 13);
    expect(body, "bazbot", url("/example/page.html"), false, 13);
    expect(body, "bazbot", url("/example/x"), true, 0);
    // quxbot's group is empty: it hides '*', so everything is allowed.
    expect(body, "quxbot", url("/example/x"), true, 0);
}

#[test]
fn rfc_2_1_longest_match_example_of_section_5_2() {
    let body =
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n";
    expect(
        body,
        "foobot",
        url("/example/page/disallowed.gif"),
        false,
        3,
    );
    expect(body, "foobot", url("/example/page/other.gif"), true, 2);
}

// -------------------------------------------------------------- RFC 9309 2.2.1

#[test]
fn rfc_2_2_1_user_agent_match_is_case_insensitive() {
    for agent_line in [
        "User-Agent: CamelCaseBot",
        "user-agent: camelcasebot",
        "USER-AGENT: CAMELCASEBOT",
    ] {
        let body = format!("{agent_line}\nDisallow: /\n");
        for agent in ["CamelCaseBot", "camelcasebot", "CAMELCASEBOT"] {
            expect(&body, agent, url("/x"), false, 2);
        }
        expect(&body, "OtherBot", url("/x"), true, 0);
    }
}

#[test]
fn rfc_2_2_1_groups_for_one_agent_are_combined() {
    let body = "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n";
    expect(body, "ExampleBot", url("/foo"), false, 2);
    expect(body, "ExampleBot", url("/bar"), false, 3);
    expect(body, "ExampleBot", url("/baz"), false, 6);
    expect(body, "ExampleBot", url("/qux"), true, 0);
}

#[test]
fn rfc_2_2_1_star_group_when_no_group_matches() {
    let body = "user-agent: FooBot\ndisallow: /foo\n\nuser-agent: *\ndisallow: /bar\n";
    expect(body, "BarBot", url("/bar"), false, 5);
    expect(body, "BarBot", url("/foo"), true, 0);
    expect(body, "FooBot", url("/bar"), true, 0);
    assert_eq!(
        RobotsTxt::parse(body.as_bytes())
            .verdict(b"BarBot", b"/bar")
            .scope,
        Scope::Star
    );
}

#[test]
fn rfc_2_2_1_no_matching_group_and_no_star_allows_all() {
    let only_specific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n";
    expect(only_specific, "QuxBot", url("/x/y"), true, 0);
    expect("", "FooBot", url("/"), true, 0);
    assert_eq!(
        RobotsTxt::parse(only_specific.as_bytes())
            .verdict(b"QuxBot", b"/")
            .scope,
        Scope::None
    );
}

#[test]
fn rfc_2_2_1_specific_group_hides_star_group() {
    let star_first = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
    expect(star_first, "FooBot", url("/x/y"), false, 4);
    expect(star_first, "BarBot", url("/x/y"), true, 2);
    let star_last = "user-agent: FooBot\nallow: /\nuser-agent: *\ndisallow: /\n";
    expect(star_last, "FooBot", url("/x/y"), true, 2);
    expect(star_last, "BarBot", url("/x/y"), false, 4);
    let directories = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
    expect(directories, "FooBot", url("/x/page"), true, 0);
    expect(directories, "FooBot", url("/y/page"), false, 4);
}

#[test]
fn google_empty_specific_group_still_hides_star_group() {
    let body = "user-agent: FooBot\n\nuser-agent: *\ndisallow: /\n";
    // Both user-agent lines form one group (no rule between them), so FooBot is
    // disallowed here: the group closes only at a rule.
    expect(body, "FooBot", url("/x"), false, 4);
    let closed = "user-agent: FooBot\nallow: /nothing-here\nuser-agent: *\ndisallow: /\n";
    expect(closed, "FooBot", url("/x"), true, 0);
    expect(closed, "BarBot", url("/x"), false, 4);
}

#[test]
fn rfc_2_2_1_product_token_is_value_up_to_first_non_token_byte() {
    let body = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
    expect(body, "Foo", url("/x/y"), true, 4);
    expect(body, "Foo", url("/a"), false, 5);
    // The crawler's own token is used as given: "Foo Bar" names no group.
    expect(body, "Foo Bar", url("/x/y"), false, 2);
    let versioned = "User-agent: Googlebot/2.1\nDisallow: /\n";
    expect(versioned, "Googlebot", url("/x"), false, 2);
    expect(versioned, "Googlebot/2.1", url("/x"), true, 0);
}

#[test]
fn google_star_followed_by_text_is_global_only_after_whitespace() {
    expect(
        "user-agent: * bots\ndisallow: /\n",
        "FooBot",
        url("/x"),
        false,
        2,
    );
    expect(
        "user-agent: *bots\ndisallow: /\n",
        "FooBot",
        url("/x"),
        true,
        0,
    );
    expect(
        "user-agent: *\tall\ndisallow: /\n",
        "FooBot",
        url("/x"),
        false,
        2,
    );
}

// -------------------------------------------------------------- RFC 9309 2.2.2

#[test]
fn rfc_2_2_2_longest_match_wins() {
    let body = "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n";
    expect(body, "FooBot", url("/x/page.html"), true, 2);
    expect(body, "FooBot", url("/x/"), false, 3);
    let dir = "user-agent: FooBot\ndisallow: /x\nallow: /x/\n";
    expect(dir, "FooBot", url("/x"), false, 2);
    expect(dir, "FooBot", url("/x/"), true, 3);
    let wildcard = "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n";
    expect(wildcard, "FooBot", url("/page.html"), false, 3);
    expect(wildcard, "FooBot", url("/page"), true, 2);
    let longer_allow = "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n";
    expect(longer_allow, "FooBot", url("/x/page.html"), true, 2);
    expect(longer_allow, "FooBot", url("/x/y.html"), false, 3);
}

#[test]
fn rfc_2_2_2_equivalent_allow_and_disallow_allow_wins() {
    let disallow_first = "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n";
    expect(disallow_first, "FooBot", url("/x/page.html"), true, 3);
    let root = "user-agent: FooBot\ndisallow: /\nallow: /\n";
    expect(root, "FooBot", url("/x"), true, 3);
}

#[test]
fn rfc_2_2_2_priority_is_octets_after_escaping() {
    // "/ä" is 3 bytes but 7 after escaping (/%C3%A4): it beats the 4-byte "/%C3".
    let body = "user-agent: *\nallow: /ä\ndisallow: /%C3\n";
    expect(body, "FooBot", url("/%C3%A4"), true, 2);
    let shorter = "user-agent: *\ndisallow: /%C3%A4x\nallow: /ä\n";
    expect(shorter, "FooBot", url("/%C3%A4x"), false, 2);
}

#[test]
fn rfc_2_2_2_no_match_or_no_rules_allows() {
    expect(
        "user-agent: FooBot\ndisallow: /x\n",
        "FooBot",
        url("/y"),
        true,
        0,
    );
    expect("user-agent: FooBot\n", "FooBot", url("/y"), true, 0);
}

#[test]
fn rfc_2_2_2_matching_is_case_sensitive() {
    expect(
        "user-agent: FooBot\ndisallow: /x/\n",
        "FooBot",
        url("/x/"),
        false,
        2,
    );
    expect(
        "user-agent: FooBot\ndisallow: /X/\n",
        "FooBot",
        url("/x/"),
        true,
        0,
    );
}

#[test]
fn rfc_2_2_2_empty_disallow_does_nothing() {
    // An empty rule matches with priority 0: it never disallows, but robots.cc's
    // matching_line() still names it when nothing longer matched.
    expect(
        "user-agent: FooBot\ndisallow:\n",
        "FooBot",
        url("/x"),
        true,
        2,
    );
    let body = "user-agent: FooBot\ndisallow:\nallow:\n";
    expect(body, "FooBot", url("/"), true, 3);
    expect(body, "FooBot", url("/x"), true, 3);
    // An empty rule does not beat a real one either.
    expect(
        "user-agent: *\ndisallow: /x\nallow:\n",
        "FooBot",
        url("/x"),
        false,
        2,
    );
}

#[test]
fn rfc_2_2_2_utf8_pattern_matches_percent_encoded_url() {
    let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar/ツ\n";
    expect(body, "FooBot", url("/foo/bar/%E3%83%84"), true, 3);
    // robots.cc does not encode the URL: raw UTF-8 bytes do not match the escaped pattern.
    expect(body, "FooBot", url("/foo/bar/ツ"), false, 2);
    let escaped = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar/%E3%83%84\n";
    expect(escaped, "FooBot", url("/foo/bar/%E3%83%84"), true, 3);
    expect(escaped, "FooBot", url("/foo/bar/ツ"), false, 2);
}

#[test]
fn rfc_2_2_2_query_with_reserved_characters_matches_as_written() {
    let body =
        "user-agent: FooBot\ndisallow: /\nallow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
    expect(
        body,
        "FooBot",
        url("/foo/bar?qux=taz&baz=http://foo.bar?tar&par"),
        true,
        3,
    );
}

/// robots.cc differs: it does not decode %62%61%7A (unreserved) in patterns, RFC 9309 2.2.2 says /foo/bar/baz matches.
#[test]
fn rfc_2_2_2_percent_encoded_unreserved_matches_decoded_path() {
    let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar/%62%61%7A\n";
    expect_rfc9309(body, "FooBot", url("/foo/bar/baz"), true, 3);
}

#[test]
fn google_percent_encoded_unreserved_is_not_decoded() {
    let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar/%62%61%7A\n";
    expect(body, "FooBot", url("/foo/bar/baz"), false, 2);
    expect(body, "FooBot", url("/foo/bar/%62%61%7A"), true, 3);
}

/// robots.cc differs: it does not percent-encode ':' and '/' of a pattern; RFC 9309 2.2.2 matches https://foo.bar against https%3A%2F%2Ffoo.bar.
#[test]
fn rfc_2_2_2_pattern_reserved_characters_match_encoded_url() {
    let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar?baz=https://foo.bar\n";
    expect_rfc9309(
        body,
        "FooBot",
        url("/foo/bar?baz=https%3A%2F%2Ffoo.bar"),
        true,
        3,
    );
}

/// robots.cc differs: /robots.txt is not implicitly allowed (RFC 9309 2.2.2); Disallow: / blocks it.
#[test]
fn rfc_2_2_2_robots_txt_is_implicitly_allowed() {
    expect_rfc9309(
        "user-agent: *\ndisallow: /\n",
        "FooBot",
        url("/robots.txt"),
        true,
        0,
    );
}

#[test]
fn google_robots_txt_path_is_matched_like_any_other() {
    expect(
        "user-agent: *\ndisallow: /\n",
        "FooBot",
        url("/robots.txt"),
        false,
        2,
    );
}

// -------------------------------------------------------------- RFC 9309 2.2.3

#[test]
fn rfc_2_2_3_hash_starts_a_comment() {
    let body = "user-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
    expect(body, "FooBot", url("/foo/bar"), true, 4);
    expect(body, "FooBot", url("/foo/quz"), false, 3);
}

#[test]
fn rfc_2_2_3_dollar_ends_the_pattern() {
    let body = "user-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
    expect(body, "FooBot", url("/foo/bar"), false, 2);
    expect(body, "FooBot", url("/foo/bar/qux"), true, 3);
    expect(body, "FooBot", url("/foo/bar/"), true, 0);
    expect(body, "FooBot", url("/foo/bar/baz"), true, 0);
}

#[test]
fn rfc_2_2_3_star_matches_any_run_of_characters() {
    let body = "user-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
    expect(body, "FooBot", url("/foo/bar/quz"), false, 2);
    expect(body, "FooBot", url("/foo/quz"), true, 0);
    expect(body, "FooBot", url("/foo//quz"), true, 0);
    expect(body, "FooBot", url("/foo/bax/quz"), true, 0);
    expect(body, "FooBot", url("/foo/bar/qux"), true, 3);
}

#[test]
fn google_dollar_inside_a_pattern_is_literal() {
    let body = star_rule("disallow: /a$b");
    expect(&body, "FooBot", url("/a$b"), false, 2);
    expect(&body, "FooBot", url("/a"), true, 0);
    expect(&body, "FooBot", url("/ab"), true, 0);
}

/// robots.cc differs: %2A in a pattern is not decoded, so it does not match a literal '*' in the URL (RFC 9309 2.2.3).
#[test]
fn rfc_2_2_3_percent_encoded_star_matches_literal_star() {
    let body = "user-agent: *\ndisallow: /path/file-with-a-%2A.html\n";
    expect_rfc9309(body, "FooBot", url("/path/file-with-a-*.html"), false, 2);
}

/// robots.cc differs: %24 in a pattern is not decoded, so it does not match a literal '$' in the URL (RFC 9309 2.2.3).
#[test]
fn rfc_2_2_3_percent_encoded_dollar_matches_literal_dollar() {
    let body = "user-agent: *\ndisallow: /path/foo-%24\n";
    expect_rfc9309(body, "FooBot", url("/path/foo-$"), false, 2);
}

#[test]
fn google_percent_encoded_special_characters_match_only_encoded_url() {
    let body = "user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n";
    expect(body, "FooBot", url("/path/file-with-a-%2A.html"), false, 2);
    expect(body, "FooBot", url("/path/foo-%24"), false, 3);
    expect(body, "FooBot", url("/path/file-with-a-*.html"), true, 0);
    expect(body, "FooBot", url("/path/foo-$"), true, 0);
}

// ------------------------------------------------------- RFC 9309 2.4 and 2.5

#[test]
fn rfc_2_4_one_parse_answers_many_questions() {
    let body = b"user-agent: *\ndisallow: /private\n";
    let doc = RobotsTxt::parse(body);
    for _ in 0..3 {
        assert!(!doc.verdict(b"FooBot", b"/private/x").allowed);
        assert!(doc.verdict(b"FooBot", b"/public").allowed);
    }
}

/// A `*` group disallowing `/a` (line 2), padded with comment lines to `len` bytes.
fn padded_to(len: usize) -> Vec<u8> {
    let mut body = b"user-agent: *\ndisallow: /a\n".to_vec();
    while body.len() + 100 <= len {
        body.extend_from_slice(&[b'#'; 99]);
        body.push(b'\n');
    }
    body.resize(len, b'#');
    body
}

#[test]
fn rfc_2_5_rule_after_500_kib_is_ignored() {
    let mut body = padded_to(511_999);
    body.extend_from_slice(b"\ndisallow: /b\n");
    expect(&body, "FooBot", url("/b"), true, 0);
    expect(&body, "FooBot", url("/a"), false, 2);
    // The same rule just before the cap counts.
    let mut early = padded_to(511_000);
    early.extend_from_slice(b"\ndisallow: /b\n");
    let line = early.iter().filter(|&&b| b == b'\n').count() as u32;
    expect(&early, "FooBot", url("/b"), false, line);
}

#[test]
fn rfc_2_5_rule_straddling_the_cap_is_truncated() {
    let mut cut = padded_to(511_985);
    cut.extend_from_slice(b"\ndisallow: /bcdefghijklmnopqrstuvwxyz\n");
    assert_eq!(&cut[511_986..512_000], b"disallow: /bcd");
    let line = cut.iter().filter(|&&b| b == b'\n').count() as u32;
    expect(&cut, "FooBot", url("/bcd"), false, line);
    expect(&cut, "FooBot", url("/bcx"), true, 0);
    // Cut right after the key: an empty disallow, which blocks nothing (but, being
    // the only match, is robots.cc's matching line).
    let mut body = padded_to(511_990);
    body.extend_from_slice(b"\ndisallow: /bcdefghijklmnopqrstuvwxyz\n");
    assert_eq!(&body[511_991..512_000], b"disallow:");
    let line = body[..512_000].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    expect(&body, "FooBot", url("/b"), true, line);
}

// ------------------------------------------ Google: URL matching examples table

/// Asserts which paths a single `*` disallow rule matches (deciding line 2) and which it does not.
#[track_caller]
fn matching_table(pattern: &str, matching: &[&str], not_matching: &[&str]) {
    let body = star_rule(&format!("disallow: {pattern}"));
    for path in matching {
        expect(&body, "FooBot", url(path), false, 2);
    }
    for path in not_matching {
        expect(&body, "FooBot", url(path), true, 0);
    }
}

#[test]
fn google_url_matching_slash_matches_everything() {
    matching_table("/", &["/", "/fish", "/a/b?c"], &[]);
    matching_table("/*", &["/", "/fish", "/a/b?c"], &[]);
}

#[test]
fn google_url_matching_slash_dollar_matches_root_only() {
    matching_table("/$", &["/"], &["/page.htm", "/?a"]);
}

#[test]
fn google_url_matching_fish() {
    let matching = [
        "/fish",
        "/fish.html",
        "/fish/salmon.html",
        "/fishheads",
        "/fishheads/yummy.html",
        "/fish.php?id=anything",
    ];
    let not_matching = ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"];
    matching_table("/fish", &matching, &not_matching);
    matching_table("/fish*", &matching, &not_matching);
}

#[test]
fn google_url_matching_fish_slash() {
    matching_table(
        "/fish/",
        &["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
        &["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
    );
}

#[test]
fn google_url_matching_star_php() {
    matching_table(
        "/*.php",
        &[
            "/index.php",
            "/filename.php",
            "/folder/filename.php",
            "/folder/filename.php?parameters",
            "/folder/any.php.file.html",
            "/filename.php/",
        ],
        &["/", "/windows.PHP"],
    );
}

#[test]
fn google_url_matching_star_php_dollar() {
    matching_table(
        "/*.php$",
        &["/filename.php", "/folder/filename.php"],
        &[
            "/filename.php?parameters",
            "/filename.php/",
            "/filename.php5",
            "/windows.PHP",
        ],
    );
}

#[test]
fn google_url_matching_fish_star_php() {
    matching_table(
        "/fish*.php",
        &["/fish.php", "/fishheads/catfish.php?parameters"],
        &["/Fish.PHP"],
    );
}

// ---------------------------------------- Google: order of precedence examples

#[test]
fn google_precedence_longer_allow_beats_disallow_root() {
    expect(
        "user-agent: *\nallow: /p\ndisallow: /\n",
        "FooBot",
        url("/page"),
        true,
        2,
    );
}

#[test]
fn google_precedence_equal_rules_least_restrictive_wins() {
    expect(
        "user-agent: *\nallow: /folder\ndisallow: /folder\n",
        "FooBot",
        url("/folder/page"),
        true,
        2,
    );
}

#[test]
fn google_precedence_longer_wildcard_disallow_wins() {
    expect(
        "user-agent: *\nallow: /page\ndisallow: /*.htm\n",
        "FooBot",
        url("/page.htm"),
        false,
        3,
    );
}

#[test]
fn google_precedence_equal_length_wildcard_allow_wins() {
    expect(
        "user-agent: *\nallow: /page\ndisallow: /*.ph\n",
        "FooBot",
        url("/page.php5"),
        true,
        2,
    );
}

#[test]
fn google_precedence_allow_root_dollar() {
    let body = "user-agent: *\nallow: /$\ndisallow: /\n";
    expect(body, "FooBot", url("/"), true, 2);
    expect(body, "FooBot", url("/page.htm"), false, 3);
}

// --------------------------------------------- Google: user-agent groups table

const AGENT_GROUPS: &str = "user-agent: googlebot-news\ndisallow: /group1\n\n\
                            user-agent: *\ndisallow: /group2\n\n\
                            user-agent: googlebot\ndisallow: /group3\n";

/// The group an agent follows, seen through the rule that blocks its path.
#[track_caller]
fn follows(agent: &str, group: u32) {
    let line = 3 * group - 1;
    expect(
        AGENT_GROUPS,
        agent,
        url(&format!("/group{group}")),
        false,
        line,
    );
    for other in (1..=3).filter(|g| *g != group) {
        expect(AGENT_GROUPS, agent, url(&format!("/group{other}")), true, 0);
    }
}

#[test]
fn google_user_agent_googlebot_news_follows_its_own_group() {
    follows("googlebot-news", 1);
    follows("Googlebot-News", 1);
}

#[test]
fn google_user_agent_googlebot_follows_group_3() {
    follows("googlebot", 3);
}

#[test]
fn google_user_agent_storebot_follows_star_group() {
    follows("Storebot-Google", 2);
}

#[test]
fn google_user_agent_other_crawlers_follow_star_group() {
    follows("Otherbot", 2);
    // Exact tokens only: a related crawler's group does not apply.
    follows("Googlebot-Image", 2);
    follows("googlebot-newsx", 2);
    follows("google", 2);
}

#[test]
fn google_group_merging_same_agent_groups_combine() {
    let body = "user-agent: googlebot-news\ndisallow: /fish\n\n\
                user-agent: *\ndisallow: /carrots\n\n\
                user-agent: googlebot-news\ndisallow: /shrimp\n";
    expect(body, "googlebot-news", url("/fish"), false, 2);
    expect(body, "googlebot-news", url("/shrimp"), false, 8);
    expect(body, "googlebot-news", url("/carrots"), true, 0);
    expect(body, "otherbot", url("/carrots"), false, 5);
    expect(body, "otherbot", url("/fish"), true, 0);
}

#[test]
fn google_multiple_user_agent_lines_share_a_group() {
    let body = "user-agent: e\nuser-agent: f\ndisallow: /g\n";
    expect(body, "e", url("/g"), false, 3);
    expect(body, "f", url("/g"), false, 3);
}

#[test]
fn google_rules_outside_groups_are_ignored() {
    let body = "disallow: /x\nallow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /y\n";
    expect(body, "FooBot", url("/x"), true, 0);
    expect(body, "OtherBot", url("/x"), true, 0);
    expect(body, "FooBot", url("/y"), false, 5);
}

#[test]
fn google_line_syntax_groups_of_robots_test() {
    let body = "allow: /foo/bar/\n\n\
                user-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\n\
                allow: /w/\nuser-agent: BazBot\n\n\
                user-agent: FooBot\nallow: /z/\ndisallow: /\n";
    expect(body, "FooBot", url("/x/b"), true, 5);
    expect(body, "FooBot", url("/z/d"), true, 15);
    expect(body, "FooBot", url("/y/c"), false, 4);
    expect(body, "FooBot", url("/foo/bar/"), false, 4);
    expect(body, "BarBot", url("/y/c"), true, 8);
    expect(body, "BarBot", url("/w/a"), true, 11);
    expect(body, "BarBot", url("/z/d"), false, 7);
    expect(body, "BazBot", url("/z/d"), true, 15);
    expect(body, "BazBot", url("/foo/bar/"), false, 16);
}

#[test]
fn google_sitemap_does_not_end_a_group() {
    let body =
        "user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n";
    expect(body, "a", url("/x"), false, 5);
    expect(body, "b", url("/x"), false, 5);
}

#[test]
fn google_unknown_keys_and_crawl_delay_do_not_end_a_group() {
    let body = "user-agent: a\ncrawl-delay: 5\nfoo: bar\nuser-agent: b\ndisallow: /\n";
    expect(body, "a", url("/x"), false, 5);
    expect(body, "b", url("/x"), false, 5);
}

#[test]
fn google_index_htm_allows_directory() {
    let body = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
    expect(body, "FooBot", url("/allowed-slash/"), true, 2);
    expect(body, "FooBot", url("/allowed-slash/index.htm"), false, 3);
    expect(body, "FooBot", url("/allowed-slash/index.html"), true, 2);
    expect(body, "FooBot", url("/anyother-url"), false, 3);
    // Only the directory itself, not what lies below it.
    expect(body, "FooBot", url("/allowed-slash/other"), false, 3);
}

// --------------------------------------------------- Google: syntax tolerance

#[test]
fn google_utf8_bom_is_skipped() {
    let body = b"\xEF\xBB\xBFUser-agent: FooBot\nDisallow: /\n";
    expect(body, "FooBot", url("/x"), false, 2);
    // A partial BOM is skipped too.
    expect(
        b"\xEF\xBBUser-agent: FooBot\nDisallow: /\n",
        "FooBot",
        url("/x"),
        false,
        2,
    );
    // A BOM elsewhere is just bytes: this key is not "disallow".
    expect(
        b"User-agent: FooBot\n\xEF\xBB\xBFDisallow: /\n",
        "FooBot",
        url("/x"),
        true,
        0,
    );
}

#[test]
fn google_line_endings_lf_cr_crlf_and_mixed() {
    for (body, lines) in [
        (
            &b"user-agent: FooBot\ndisallow: /a\ndisallow: /b\n"[..],
            [2, 3],
        ),
        (
            &b"user-agent: FooBot\rdisallow: /a\rdisallow: /b\r"[..],
            [2, 3],
        ),
        (
            &b"user-agent: FooBot\r\ndisallow: /a\r\ndisallow: /b\r\n"[..],
            [2, 3],
        ),
        (
            &b"user-agent: FooBot\r\ndisallow: /a\rdisallow: /b\n"[..],
            [2, 3],
        ),
        (
            &b"user-agent: FooBot\n\r\ndisallow: /a\n\rdisallow: /b"[..],
            [3, 5],
        ),
    ] {
        expect(body, "FooBot", url("/a"), false, lines[0]);
        expect(body, "FooBot", url("/b"), false, lines[1]);
    }
}

#[test]
fn google_missing_colon_accepted_with_two_words() {
    let body = "user-agent FooBot\ndisallow /\n";
    expect(body, "FooBot", url("/x"), false, 2);
    // Three words without a colon: the line is ignored.
    expect(
        "user-agent: FooBot\ndisallow /x /y\n",
        "FooBot",
        url("/x"),
        true,
        0,
    );
    expect("foo: FooBot\nbar: /\n", "FooBot", url("/x"), true, 0);
}

#[test]
fn google_accepted_typos() {
    for key in ["dissallow", "dissalow", "disalow", "diasllow", "disallaw"] {
        let body = format!("user-agent: FooBot\n{key}: /x\n");
        expect(&body, "FooBot", url("/x"), false, 2);
    }
    for key in ["useragent", "user agent"] {
        let body = format!("{key}: FooBot\ndisallow: /x\n");
        expect(&body, "FooBot", url("/x"), false, 2);
    }
    // Other typos are unknown keys.
    expect(
        "user-agent: FooBot\ndisallo: /y\n",
        "FooBot",
        url("/y"),
        true,
        0,
    );
    expect(
        "usr-agent: FooBot\ndisallow: /y\n",
        "FooBot",
        url("/y"),
        true,
        0,
    );
}

#[test]
fn google_keys_match_by_prefix() {
    expect(
        "user-agents: FooBot\ndisallowed: /x\n",
        "FooBot",
        url("/x"),
        false,
        2,
    );
    expect(
        "user-agent: FooBot\nallowance: /x\ndisallow: /\n",
        "FooBot",
        url("/x"),
        true,
        2,
    );
}

#[test]
fn google_percent_escapes_upper_cased_in_patterns_only() {
    let body = "user-agent: FooBot\ndisallow: /a%2fb\n";
    expect(body, "FooBot", url("/a%2Fb"), false, 2);
    // The URL is not normalised: a lower-case escape in the URL matches nothing.
    expect(body, "FooBot", url("/a%2fb"), true, 0);
    // Nor is %2F decoded to '/'.
    expect(body, "FooBot", url("/a/b"), true, 0);
}

#[test]
fn google_utf8_bytes_in_pattern_are_escaped() {
    let body = "user-agent: FooBot\ndisallow: /ä\n";
    expect(body, "FooBot", url("/%C3%A4"), false, 2);
    expect(body, "FooBot", url("/%c3%a4"), true, 0);
    expect(body, "FooBot", url("/ä"), true, 0);
    // Non-UTF-8 bytes are escaped just the same.
    expect(
        b"user-agent: FooBot\ndisallow: /\xE9\n",
        "FooBot",
        url("/%E9"),
        false,
        2,
    );
}

#[test]
fn google_line_too_long_is_cut_at_16663_bytes() {
    // robots_test.cc GoogleOnly_LineTooLong: the rule is cut, and the cut rule applies.
    let max_line = 2083 * 8;
    let mut long = String::from("/x/");
    while long.len() < max_line - "/x/".len() - "disallow: ".len() + 1 {
        long.push('a');
    }
    let body = format!("user-agent: FooBot\ndisallow: {long}/qux\n");
    expect(&body, "FooBot", url("/fux"), true, 0);
    expect(&body, "FooBot", url(&format!("{long}/fux")), false, 2);
    // A line of exactly 16,663 bytes is kept whole.
    let pattern = format!("/{}", "b".repeat(16_663 - "disallow: /".len()));
    let exact = format!("user-agent: FooBot\ndisallow: {pattern}\n");
    assert_eq!(exact.lines().nth(1).map(str::len), Some(16_663));
    expect(&exact, "FooBot", url(&pattern), false, 2);
    expect(
        &exact,
        "FooBot",
        url(&pattern[..pattern.len() - 1]),
        true,
        0,
    );
}

#[test]
fn google_nul_byte_ends_the_line() {
    let body = b"user-agent: FooBot\ndisallow: /a\0/b\ndisallow: /c\n";
    expect(body, "FooBot", url("/a"), false, 2);
    expect(body, "FooBot", url("/c"), false, 3);
}

#[test]
fn google_empty_url_and_empty_agent() {
    let body = "user-agent: FooBot\ndisallow: /\n";
    expect("", "FooBot", "", true, 0);
    expect(body, "FooBot", "", false, 2);
    expect(body, "", "", true, 0);
    expect("user-agent: *\ndisallow: /\n", "", url("/"), false, 2);
}

#[test]
fn google_url_reduced_to_path_params_query() {
    let body = "user-agent: *\ndisallow: /a;b\ndisallow: /?q\n";
    expect(body, "FooBot", url("/a;b#frag"), false, 2);
    expect(body, "FooBot", url("?q"), false, 3);
    expect(body, "FooBot", "example.com/a;b", false, 2);
    expect(body, "FooBot", url("/#?q"), true, 0);
}

// ------------------------------------------------------ matching_line values

#[test]
fn google_matching_line_is_the_deciding_rule() {
    let body = "user-agent: *\ndisallow: /a\nallow: /a/b\ndisallow: /a/b/c\n";
    expect(body, "FooBot", url("/a"), false, 2);
    expect(body, "FooBot", url("/a/b"), true, 3);
    expect(body, "FooBot", url("/a/b/c"), false, 4);
    expect(body, "FooBot", url("/z"), true, 0);
}

#[test]
fn google_matching_line_first_of_equal_rules() {
    let body = "user-agent: *\ndisallow: /a\ndisallow: /a\ndisallow: *a\n";
    expect(body, "FooBot", url("/a"), false, 2);
    // A longer pattern (3 bytes with its '*') replaces them.
    let longer = "user-agent: *\ndisallow: /a\ndisallow: /a\ndisallow: /*a\n";
    expect(longer, "FooBot", url("/a"), false, 4);
}

#[test]
fn google_matching_line_on_allow_tie_is_the_allow() {
    let body = "user-agent: *\ndisallow: /ab\nallow: /a*\n";
    expect(body, "FooBot", url("/ab"), true, 3);
}

#[test]
fn google_matching_line_counts_comments_blank_and_bom() {
    let body = "\u{feff}# c\n\nuser-agent: *\n# c\n\ndisallow: /a\n";
    expect(body, "FooBot", url("/a"), false, 6);
}

#[test]
fn google_matching_line_with_no_specific_rule_match_is_zero() {
    // The specific group matches nothing: allowed, line 0, even though '*' would match.
    let body = "user-agent: *\ndisallow: /\nuser-agent: FooBot\ndisallow: /x\n";
    expect(body, "FooBot", url("/y"), true, 0);
}
