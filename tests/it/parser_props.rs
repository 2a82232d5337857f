//! Properties of the parser and matcher: no input panics them, and the fast matcher
//! agrees with robots.cc's position-set `Matches`. The adversarial bodies (linear
//! work, measured by a step counter) are the engine's unit tests:
//! crates/robots-census-engine/src/adversarial.rs.

use std::sync::OnceLock;

use proptest::prelude::*;
use robots_census_engine::RobotsTxt;

use crate::support::corpus_files;

/// Parses `body`, reads its findings and asks every agent about every URL.
fn exercise(body: &[u8], agents: &[Vec<u8>], urls: &[Vec<u8>]) {
    let doc = RobotsTxt::parse(body);
    for finding in &doc.findings {
        let _ = (
            finding.code.as_str(),
            finding.code.severity(),
            finding.code.message(),
        );
    }
    for agent in agents {
        for url in urls {
            let verdict = doc.verdict(agent, url);
            assert_eq!(verdict.line, verdict.rule.map_or(0, |r| r.line));
        }
    }
}

/// A few dozen real bodies from the corpus, every n-th file in name order.
fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let files = corpus_files();
        let step = (files.len() / 40).max(1);
        files
            .iter()
            .step_by(step)
            .take(40)
            .filter_map(|p| std::fs::read(p).ok())
            .collect()
    })
}

/// Bytes biased toward robots.txt syntax.
fn robotish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"user-agent:"[..]),
        Just(&b"allow:"[..]),
        Just(&b"disallow:"[..]),
        Just(&b"sitemap:"[..]),
        Just(&b"crawl-delay:"[..]),
        Just(&b" * "[..]),
        Just(&b"/"[..]),
        Just(&b"$"[..]),
        Just(&b"#"[..]),
        Just(&b"%e3%8"[..]),
        Just(&b"\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"\0"[..]),
        Just(&b"\xEF\xBB\xBF"[..]),
        Just(&b"index.html"[..]),
        Just(&b"FooBot"[..]),
    ];
    prop::collection::vec(
        prop_oneof![
            piece.prop_map(<[u8]>::to_vec),
            prop::collection::vec(any::<u8>(), 0..4)
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

fn agents() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let agent = prop_oneof![
        Just(b"FooBot".to_vec()),
        Just(b"*".to_vec()),
        Just(Vec::new()),
        prop::collection::vec(any::<u8>(), 0..12),
    ];
    prop::collection::vec(agent, 1..4)
}

fn urls() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let url = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..40),
        "(https?://[a-z.]{0,8})?(/[a-z%*$?;#0-9]{0,6}){0,4}".prop_map(String::into_bytes),
    ];
    prop::collection::vec(url, 1..5)
}

/// A corpus body with bytes overwritten, a slice removed and bytes inserted.
fn mutated_corpus_body() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<prop::sample::Index>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..16),
        any::<prop::sample::Index>(),
        0usize..200,
        robotish_bytes(),
    )
        .prop_map(|(which, writes, cut_at, cut_len, insert)| {
            let mut body = which.get(corpus()).clone();
            if body.is_empty() {
                return insert;
            }
            for (at, byte) in writes {
                let i = at.index(body.len());
                body[i] = byte;
            }
            let start = cut_at.index(body.len());
            let end = (start + cut_len).min(body.len());
            let _removed: Vec<u8> = body.splice(start..end, insert).collect();
            body
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..2048), agents in agents(), urls in urls()) {
        exercise(&body, &agents, &urls);
    }

    #[test]
    fn robots_like_bytes_never_panic(body in robotish_bytes(), agents in agents(), urls in urls()) {
        exercise(&body, &agents, &urls);
    }

    #[test]
    #[cfg_attr(not(feature = "external-tests"), ignore = "needs ../shared/corpus (real robots.txt bodies to mutate): make test")]
    fn mutated_corpus_bodies_never_panic(body in mutated_corpus_body(), agents in agents(), urls in urls()) {
        exercise(&body, &agents, &urls);
    }
}

// ------------------------------------------------ the matcher against robots.cc

/// robots.cc's `MaybeEscapePattern` for the test alphabet: `%xx` escapes upper-cased.
fn naive_escape(pattern: &[u8]) -> Vec<u8> {
    let mut out = pattern.to_vec();
    let mut i = 0;
    while i + 2 < out.len() {
        if out[i] == b'%' && out[i + 1].is_ascii_hexdigit() && out[i + 2].is_ascii_hexdigit() {
            out[i + 1] = out[i + 1].to_ascii_uppercase();
            out[i + 2] = out[i + 2].to_ascii_uppercase();
            i += 3;
        } else {
            i += 1;
        }
    }
    out
}

/// robots.cc's `RobotsMatchStrategy::Matches`, transcribed: the set of path
/// positions reachable after each pattern byte.
fn naive_matches(path: &[u8], pattern: &[u8]) -> bool {
    let mut positions: Vec<usize> = vec![0];
    for (i, &p) in pattern.iter().enumerate() {
        if p == b'$' && i + 1 == pattern.len() {
            return positions.last() == Some(&path.len());
        }
        if p == b'*' {
            positions = (positions[0]..=path.len()).collect();
        } else {
            positions.retain(|&at| at < path.len() && path[at] == p);
            positions.iter_mut().for_each(|at| *at += 1);
            if positions.is_empty() {
                return false;
            }
        }
    }
    true
}

/// robots.cc's answer for a `*` group with `allow: a` (line 2) and `disallow: d`
/// (line 3): (allowed, matching_line).
fn naive_verdict(path: &[u8], allow: &[u8], disallow: &[u8]) -> (bool, u32) {
    let priority = |p: &[u8]| {
        if naive_matches(path, p) {
            p.len() as i64
        } else {
            -1
        }
    };
    let (a, d) = (
        priority(&naive_escape(allow)),
        priority(&naive_escape(disallow)),
    );
    let allowed = !((a > 0 || d > 0) && d > a);
    let line = if d > a {
        3
    } else if a >= 0 {
        2
    } else {
        0
    };
    (allowed, line)
}

fn small_alphabet(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(&b"/ab*$%"[..]), 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn matcher_equals_robots_cc_position_sets(allow in small_alphabet(8), disallow in small_alphabet(8), tail in small_alphabet(12)) {
        let path = [&b"/"[..], &tail[..]].concat();
        let body = [&b"user-agent: *\nallow: "[..], &allow[..], &b"\ndisallow: "[..], &disallow[..], &b"\n"[..]].concat();
        let url = [&b"http://example.com"[..], &path[..]].concat();
        let doc = RobotsTxt::parse(&body);
        let verdict = doc.verdict(b"FooBot", &url);
        prop_assert_eq!((verdict.allowed, verdict.line), naive_verdict(&path, &allow, &disallow));
    }
}
