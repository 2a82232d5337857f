//! What the generated cases cover: the first 3,000 cases of `make test`'s seed
//! (no oracle needed) must contain every feature the generator promises, and
//! most URLs must reach a rule. Guards against a generator that quietly stops
//! producing what the differential test relies on.

use robots_census_engine::{Code, RobotsTxt, Scope};

use super::{case, DEFAULT_SEED};
use crate::support::corpus_files;

const CASES: u64 = 3_000;

/// A feature of a body: its name and how to see it in the bytes or the model.
type Check<'c> = (&'c str, &'c dyn Fn(&[u8], &RobotsTxt) -> bool);

/// Whether `body` has a line of `lo..=hi` bytes (lines end at CR or LF).
fn has_line_len(body: &[u8], lo: usize, hi: usize) -> bool {
    body.split(|b| *b == b'\n' || *b == b'\r')
        .any(|l| (lo..=hi).contains(&l.len()))
}

fn contains(body: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(body, needle).is_some()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (real robots.txt bodies, the mutation seeds): make test"
)]
fn generated_cases_cover_the_grammar() {
    let corpus = corpus_files();
    let checks: &[Check] = &[
        ("LF only", &|b, _| contains(b, b"\n") && !contains(b, b"\r")),
        ("CRLF", &|b, _| contains(b, b"\r\n")),
        ("CR alone", &|b, _| {
            b.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n')
        }),
        ("LF and CR alone mixed", &|b, _| {
            contains(b, b"\n") && b.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n')
        }),
        ("whole UTF-8 BOM first", &|b, _| {
            b.starts_with(b"\xef\xbb\xbf")
        }),
        ("partial BOM first", &|b, _| {
            b.starts_with(b"\xef") && !b.starts_with(b"\xef\xbb\xbf")
        }),
        ("BOM not first", &|b, _| {
            b.get(1..)
                .is_some_and(|rest| contains(rest, b"\xef\xbb\xbf"))
        }),
        ("NUL", &|b, _| contains(b, b"\0")),
        ("line of 16,660-16,662 bytes", &|b, _| {
            has_line_len(b, 16_660, 16_662)
        }),
        ("line of exactly 16,663 bytes", &|b, _| {
            has_line_len(b, 16_663, 16_663)
        }),
        ("line of 16,664-16,666 bytes", &|b, _| {
            has_line_len(b, 16_664, 16_666)
        }),
        ("body over 512,000 bytes", &|b, _| b.len() > 512_000),
        ("cut inside a line", &|b, _| {
            b.len() > 512_000 && !matches!(b[511_999], b'\n' | b'\r')
        }),
        ("index.htm", &|b, _| contains(b, b"index.htm")),
        ("index.html", &|b, _| contains(b, b"index.html")),
        ("lower-case %-escape", &|b, _| contains(b, b"%e3")),
        ("invalid %-escape", &|b, _| contains(b, b"%zz")),
        ("non-ASCII byte", &|b, _| b.iter().any(|x| *x >= 0x80)),
        ("'$' inside a pattern", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::DollarNotAtEnd)
        }),
        ("'*' in a pattern", &|_, d| {
            d.rules.iter().any(|r| r.has_wildcard())
        }),
        ("accepted typo", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::MisspelledKey)
        }),
        ("key matched by prefix", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::KeyPrefixOnly)
        }),
        ("missing colon", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::MissingColon)
        }),
        ("unparsed line", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::UnparsedLine)
        }),
        ("unknown key", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::UnknownKey)
        }),
        ("rule before any user-agent", &|_, d| {
            d.findings.iter().any(|f| f.code == Code::RuleOutsideGroup)
        }),
        ("two '*' groups", &|_, d| {
            d.findings
                .iter()
                .any(|f| f.code == Code::MultipleStarGroups)
        }),
        ("one agent named by two groups", &|_, d| {
            d.agents.iter().enumerate().any(|(i, a)| {
                !a.is_star
                    && d.agents[i + 1..]
                        .iter()
                        .any(|b| b.group != a.group && b.token.eq_ignore_ascii_case(a.token))
            })
        }),
        ("empty group", &|_, d| {
            d.groups.iter().any(|g| g.rules.is_empty())
        }),
    ];
    let mut counts = vec![0u32; checks.len()];
    let (mut questions, mut decided, mut disallowed) = (0u32, 0u32, 0u32);
    let mut scopes = [0u32; 3];
    for index in 0..CASES {
        let case = case(DEFAULT_SEED, index, &corpus);
        let doc = RobotsTxt::parse(&case.body);
        for (count, (_, check)) in counts.iter_mut().zip(checks) {
            *count += u32::from(check(&case.body, &doc));
        }
        for agent in &case.questions.agents {
            for url in &case.questions.urls {
                let verdict = doc.verdict(agent, url);
                questions += 1;
                decided += u32::from(verdict.line > 0);
                disallowed += u32::from(!verdict.allowed);
                scopes[match verdict.scope {
                    Scope::Named => 0,
                    Scope::Star => 1,
                    Scope::None => 2,
                    Scope::Fallback => unreachable!("robots.cc has no fallback groups"),
                }] += 1;
            }
        }
    }
    for ((name, _), count) in checks.iter().zip(&counts) {
        eprintln!("coverage: {count:5} of {CASES} bodies: {name}");
    }
    eprintln!(
        "coverage: {questions} questions: {decided} decided by a rule, {disallowed} disallowed; \
         scope named {}, star {}, none {}",
        scopes[0], scopes[1], scopes[2]
    );
    let missing: Vec<&str> = checks
        .iter()
        .zip(&counts)
        .filter(|(_, c)| **c == 0)
        .map(|((name, _), _)| *name)
        .collect();
    assert!(missing.is_empty(), "no generated body has: {missing:?}");
    assert!(
        decided * 5 > questions * 2,
        "only {decided} of {questions} questions reach a rule"
    );
    assert!(disallowed * 5 > questions && scopes.iter().all(|s| *s * 20 > questions));
}
