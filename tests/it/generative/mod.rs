//! Generative differential test against Google's parser (robots.cc, through
//! PyPI `jwm-robotstxt`).
//!
//! Seeded random bodies — from a grammar (grammar.rs) and mutated real bodies of
//! ../shared/corpus/robots (mutate.rs) — are asked about agents from their own
//! user-agent lines and odd ones, at URLs aimed at each rule (questions.rs).
//! tests/oracle/serve.py answers as robots.cc (body cut at 512,000 bytes, as
//! Google does); robots-census answers from one parse per body. Verdict AND
//! deciding line must agree on every question. A disagreement is reported with
//! its body (escaped), agent, URL and both answers, then minimised (shrink.rs)
//! into a ready-made regression test for regressions.rs.
//!
//! `make test` asks 100,000 questions with a fixed seed. Long campaigns run the
//! same test: `make fuzz N=<questions> SEED=<seed>` (env
//! `ROBOTS_CENSUS_FUZZ_QUESTIONS`, `ROBOTS_CENSUS_FUZZ_SEED`); a reported body
//! is replayed alone with `ROBOTS_CENSUS_FUZZ_BODY=<index>`.

mod coverage;
mod grammar;
mod mutate;
mod oracle;
mod questions;
mod regressions;
mod rng;
mod shrink;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use robots_census_engine::{RobotsTxt, UrlPath};

use self::oracle::{Answer, Oracle};
use self::questions::Questions;
use self::rng::Rng;
use self::shrink::Question;
use crate::support::{corpus_files, scratch};

/// Questions `make test` asks.
const DEFAULT_QUESTIONS: u64 = 100_000;
const DEFAULT_SEED: u64 = 20_261_110;
/// Disagreeing bodies reported in full and minimised (each minimisation may ask
/// the oracle up to `SHRINK_BUDGET` more questions, for up to `SHRINK_TIME`).
const REPORTED: usize = 8;
const SHRINK_BUDGET: usize = 20_000;
const SHRINK_TIME: Duration = Duration::from_secs(30);

fn env_u64(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a number")),
    )
}

/// One body and the questions asked about it.
struct Case {
    index: u64,
    /// Where the body came from, for the report.
    origin: String,
    body: Vec<u8>,
    questions: Questions,
}

/// Body `index` of the campaign `seed`; the same pair always gives the same case.
fn case(seed: u64, index: u64, corpus: &[PathBuf]) -> Case {
    let mut rng = Rng::for_body(seed, index);
    let roll = rng.below(1000);
    let (body, origin, aims) = if roll < 3 {
        let head = grammar::body(&mut rng).body;
        let generated = grammar::across_the_cut(&mut rng, head);
        let origin = "grammar, across the 512,000-byte cut".to_owned();
        (generated.body, origin, generated.aims)
    } else if roll < 650 || corpus.is_empty() {
        (
            grammar::body(&mut rng).body,
            "grammar".to_owned(),
            Vec::new(),
        )
    } else {
        let file = rng.pick(corpus);
        let mut body = std::fs::read(file).expect("read a corpus body");
        let done = mutate::mutate(&mut rng, &mut body);
        let name = file.strip_prefix(crate::support::shared()).unwrap_or(file);
        let origin = format!("{} mutated: {}", name.display(), done.join(", "));
        (body, origin, Vec::new())
    };
    // Google's parser parses the body again for every question: ask fewer
    // questions about big bodies.
    let (agents, urls) = match body.len() {
        0..=4_000 => (5, 12),
        4_001..=20_000 => (4, 8),
        20_001..=100_000 => (3, 5),
        _ => (2, 3),
    };
    let mut questions = questions::questions(&mut rng, &body, &aims, agents, urls);
    // robots.cc matches a pattern in time (its length after the first '*') x
    // (path length). A mutation can put a '*' early in a 16 KB line: then keep
    // the URLs short, or one question takes seconds.
    if wildcard_tail(&body) > 2_000 {
        for url in &mut questions.urls {
            url.truncate(2_000);
        }
    }
    Case {
        index,
        origin,
        body,
        questions,
    }
}

/// The longest run of a line after its first '*'.
fn wildcard_tail(body: &[u8]) -> usize {
    body.split(|b| *b == b'\n' || *b == b'\r')
        .filter_map(|line| line.iter().position(|b| *b == b'*').map(|i| line.len() - i))
        .max()
        .unwrap_or(0)
}

/// One question on which the two parsers disagree.
struct Disagreement {
    index: u64,
    origin: String,
    question: Question,
    robots_cc: Answer,
    census: Answer,
    /// Disagreeing questions about the same body.
    on_body: usize,
}

/// Asks robots-census every question of `case`; the disagreements with `answers`.
fn compare(case: &Case, answers: &[Answer]) -> Option<Disagreement> {
    let doc = RobotsTxt::parse(&case.body);
    let urls = &case.questions.urls;
    let paths: Vec<UrlPath<'_>> = urls.iter().map(|u| UrlPath::new(u)).collect();
    let mut first = None;
    let mut on_body = 0;
    for (a, agent) in case.questions.agents.iter().enumerate() {
        for (u, path) in paths.iter().enumerate() {
            let verdict = doc.verdict_for_path(agent, path);
            let census = (verdict.allowed, verdict.line);
            let robots_cc = answers[a * urls.len() + u];
            if census != robots_cc {
                on_body += 1;
                first.get_or_insert((agent, u, robots_cc, census));
            }
        }
    }
    first.map(|(agent, u, robots_cc, census)| Disagreement {
        index: case.index,
        origin: case.origin.clone(),
        question: Question {
            body: case.body.clone(),
            agent: agent.clone(),
            url: urls[u].clone(),
        },
        robots_cc,
        census,
        on_body,
    })
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (real robots.txt bodies) and the venv (jwm-robotstxt, Google's parser): make test"
)]
fn generated_bodies_agree_with_robots_cc() {
    let seed = env_u64("ROBOTS_CENSUS_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let wanted = env_u64("ROBOTS_CENSUS_FUZZ_QUESTIONS").unwrap_or(DEFAULT_QUESTIONS);
    let only = env_u64("ROBOTS_CENSUS_FUZZ_BODY");
    let corpus = corpus_files();
    let mut oracle = Oracle::start();
    let started = Instant::now();
    let (mut bodies, mut disagreements) = (0u64, Vec::new());
    let mut next_progress = wanted / 10;
    let mut index = only.unwrap_or(0);
    while oracle.questions < wanted {
        let case = case(seed, index, &corpus);
        let q = &case.questions;
        let answers = oracle.ask(&case.body, &q.agents, &q.urls);
        disagreements.extend(compare(&case, &answers));
        bodies += 1;
        index += 1;
        if only.is_some() {
            break;
        }
        if oracle.questions >= next_progress && wanted >= 1_000_000 {
            eprintln!(
                "generative: {} questions, {bodies} bodies, {} disagreeing, {:.0}s",
                oracle.questions,
                disagreements.len(),
                started.elapsed().as_secs_f64()
            );
            next_progress += wanted / 10;
        }
    }
    let asked = oracle.questions;
    eprintln!(
        "generative: seed {seed}: {asked} questions over {bodies} bodies in {:.1}s; {} questions about {} bodies disagree",
        started.elapsed().as_secs_f64(),
        disagreements.iter().map(|d| d.on_body).sum::<usize>(),
        disagreements.len()
    );
    if disagreements.is_empty() {
        assert!(asked > 0, "no question was asked");
        return;
    }
    let report = report(&mut oracle, seed, &disagreements);
    panic!(
        "{} of {bodies} bodies (seed {seed}) get a different answer from robots.cc:\n{report}",
        disagreements.len()
    );
}

/// The first disagreements in full, each followed by its minimised form as a
/// regression test; every disagreement's body goes to a file too.
fn report(oracle: &mut Oracle, seed: u64, found: &[Disagreement]) -> String {
    let dir = scratch("generative");
    let mut out = String::new();
    let mut minimised: Vec<Vec<u8>> = Vec::new();
    for (i, d) in found.iter().enumerate() {
        let file = dir.join(format!("seed-{seed}-body-{}.txt", d.index));
        std::fs::write(&file, &d.question.body).expect("write a disagreeing body");
        // Minimised forms already seen are skipped: look at a few more bodies.
        if minimised.len() >= REPORTED || i >= 3 * REPORTED {
            continue;
        }
        let q = &d.question;
        let small = shrink::minimise(oracle, q.clone(), SHRINK_BUDGET, SHRINK_TIME);
        let answer = oracle.ask_one(&small.body, &small.agent, &small.url);
        let test = regression(&small, answer);
        if minimised.contains(&test.as_bytes().to_vec()) {
            continue;
        }
        minimised.push(test.as_bytes().to_vec());
        let body = if q.body.len() <= 4_000 {
            format!("b\"{}\"", q.body.escape_ascii())
        } else {
            format!("{} bytes, in {}", q.body.len(), file.display())
        };
        out += &format!(
            "\n-- body {} (ROBOTS_CENSUS_FUZZ_SEED={seed} ROBOTS_CENSUS_FUZZ_BODY={}), {}; {} questions disagree\n\
             body:  {body}\nagent: b\"{}\"\nurl:   b\"{}\"\n\
             robots.cc: allowed {}, line {}; robots-census: allowed {}, line {}\n\
             minimised: {test}\n",
            d.index,
            d.index,
            d.origin,
            d.on_body,
            q.agent.escape_ascii(),
            q.url.escape_ascii(),
            d.robots_cc.0,
            d.robots_cc.1,
            d.census.0,
            d.census.1,
        );
    }
    out += &format!("\nbodies of every disagreement: {}\n", dir.display());
    out
}

/// A minimised question as a call of the regression tests' `expect`.
fn regression(q: &Question, (allowed, line): Answer) -> String {
    let body = if q.body.len() <= 2_000 {
        format!("b\"{}\"", q.body.escape_ascii())
    } else {
        format!("<{} bytes, see the body file>", q.body.len())
    };
    format!(
        "expect({body}, \"{}\", b\"{}\", {allowed}, {line}); // robots-census: {:?}",
        q.agent.escape_ascii(),
        q.url.escape_ascii(),
        shrink::ours(q)
    )
}
