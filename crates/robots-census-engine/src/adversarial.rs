//! Adversarial bodies of hundreds of KB parse and answer with linear work: each is
//! built at a size `n` and at `2n` (both under the 500 KiB cut, which would hide
//! growth), parsed and asked 100 questions, and the engine's work counter
//! ([`crate::work`]) must grow by at most [`MAX_RATIO`](crate::work::MAX_RATIO)
//! (linear ~2, quadratic ~4). Steps, not seconds: a quadratic regression fails
//! here instead of only making the test slow. Past the cut, work stays flat.

use crate::limits::ROBOTS_PARSE_CAP;
use crate::work::{assert_linear, measure};
use crate::RobotsTxt;

/// The smaller size; `2 * N` is still under [`ROBOTS_PARSE_CAP`].
const N: usize = 200_000;

const _: () = assert!(2 * N < ROBOTS_PARSE_CAP);

/// Parses `body` and asks 100 questions with long, near-miss URLs.
#[track_caller]
fn answers_100_questions(body: &[u8]) {
    let doc = RobotsTxt::parse(body);
    let urls: Vec<Vec<u8>> = (0..50)
        .flat_map(|i| {
            [
                format!("/{}b", "a".repeat(100 * i)),
                format!("/{}", "a*".repeat(40 * i)),
            ]
        })
        .map(String::into_bytes)
        .collect();
    for (i, url) in urls.iter().enumerate() {
        let agent: &[u8] = if i % 2 == 0 { b"FooBot" } else { b"a" };
        let verdict = doc.verdict(agent, url);
        assert_eq!(verdict.line, verdict.rule.map_or(0, |r| r.line));
    }
    assert_eq!(doc.facts.parsed_len, body.len().min(ROBOTS_PARSE_CAP));
}

/// Repeats `unit` until the body holds at least `len` bytes.
fn repeated(head: &[u8], unit: &[u8], len: usize) -> Vec<u8> {
    let mut body = head.to_vec();
    while body.len() < len {
        body.extend_from_slice(unit);
    }
    body
}

#[test]
fn adversarial_star_a_patterns() {
    let unit = [
        &b"disallow: /"[..],
        &b"*a".repeat(8_000),
        b"$\nallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n",
    ]
    .concat();
    let body = |n| repeated(b"user-agent: *\nuser-agent: a\n", &unit, n);
    assert_linear(N, N as u64, |n| answers_100_questions(&body(n)));
}

#[test]
fn adversarial_long_lines() {
    let unit = [&b"disallow: /"[..], &[b'a'; 20_000], b"\n"].concat();
    let body = |n| repeated(b"user-agent: *\n", &unit, n);
    assert_linear(N, N as u64, |n| answers_100_questions(&body(n)));
}

#[test]
fn adversarial_all_nul() {
    assert_linear(N, N as u64, |n| answers_100_questions(&vec![0u8; n]));
}

#[test]
fn adversarial_all_cr() {
    assert_linear(N, N as u64, |n| {
        let body = vec![b'\r'; n];
        answers_100_questions(&body);
        assert_eq!(RobotsTxt::parse(&body).lines.lines as usize, n + 1);
    });
}

#[test]
fn adversarial_many_tiny_groups() {
    let body = |n| repeated(b"", b"user-agent: a\ndisallow: /*a\n", n);
    assert_linear(N, N as u64, |n| answers_100_questions(&body(n)));
}

/// Past the cut, a body twice as long costs no more: only the first 500 KiB are read.
#[test]
fn adversarial_over_the_cap() {
    let body = |n| repeated(b"", b"user-agent: *\ndisallow: /*a*a*a$\n", n);
    let (small, large) = (body(700_000), body(1_400_000));
    let at_cap = measure(None, || answers_100_questions(&small));
    assert!(
        at_cap >= ROBOTS_PARSE_CAP as u64,
        "the counter saw {at_cap} steps"
    );
    let flat = at_cap + at_cap / 20;
    let past_cap = measure(Some(flat), || answers_100_questions(&large));
    eprintln!("work(700,000) = {at_cap}, work(1,400,000) = {past_cap}");
    assert!(
        past_cap <= flat,
        "{past_cap} steps past the cut, {at_cap} at it"
    );
}
