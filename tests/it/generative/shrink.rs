//! Minimising a disagreement: the shortest body, URL and agent (deleting lines,
//! then runs of bytes of halving length) on which robots-census and robots.cc
//! still disagree, so it reads as a regression test.

use std::time::{Duration, Instant};

use robots_census_engine::RobotsTxt;

use super::oracle::{Answer, Oracle};

/// One question about one body.
#[derive(Clone)]
pub struct Question {
    pub body: Vec<u8>,
    pub agent: Vec<u8>,
    pub url: Vec<u8>,
}

/// robots-census's answer.
pub fn ours(q: &Question) -> Answer {
    let doc = RobotsTxt::parse(&q.body);
    let verdict = doc.verdict(&q.agent, &q.url);
    (verdict.allowed, verdict.line)
}

/// Whether the parsers still disagree on `q`; past the deadline, no more asking.
fn differs(oracle: &mut Oracle, q: &Question, deadline: Instant) -> bool {
    Instant::now() < deadline && oracle.ask_one(&q.body, &q.agent, &q.url) != ours(q)
}

/// The smallest question found within `budget` oracle calls and `time` that
/// still disagrees. (A disagreement that depends on where the 512,000-byte cut
/// falls resists deletions, and each question about a body that big takes
/// robots.cc tens of milliseconds: hence the time limit.)
pub fn minimise(
    oracle: &mut Oracle,
    mut q: Question,
    mut budget: usize,
    time: Duration,
) -> Question {
    let deadline = Instant::now() + time;
    // Both parsers read only the first 512,000 bytes.
    q.body.truncate(robots_census::internals::ROBOTS_PARSE_CAP);
    loop {
        let size = (q.body.len(), q.url.len(), q.agent.len());
        for lines in [true, false] {
            let body = std::mem::take(&mut q.body);
            let pieces = pieces(&body, lines);
            q.body = delete_runs(pieces, &mut budget, &mut |body| {
                let candidate = Question {
                    body: body.to_vec(),
                    ..q.clone()
                };
                differs(oracle, &candidate, deadline)
            });
        }
        let url = std::mem::take(&mut q.url);
        q.url = delete_runs(pieces(&url, false), &mut budget, &mut |url| {
            let candidate = Question {
                url: url.to_vec(),
                ..q.clone()
            };
            differs(oracle, &candidate, deadline)
        });
        let agent = std::mem::take(&mut q.agent);
        q.agent = delete_runs(pieces(&agent, false), &mut budget, &mut |agent| {
            let candidate = Question {
                agent: agent.to_vec(),
                ..q.clone()
            };
            differs(oracle, &candidate, deadline)
        });
        let unchanged = size == (q.body.len(), q.url.len(), q.agent.len());
        if budget == 0 || unchanged || Instant::now() >= deadline {
            return q;
        }
    }
}

/// Lines (each with its terminator) or single bytes.
fn pieces(bytes: &[u8], lines: bool) -> Vec<&[u8]> {
    if lines {
        bytes
            .split_inclusive(|b| *b == b'\n' || *b == b'\r')
            .collect()
    } else {
        bytes.chunks(1).collect()
    }
}

/// Deletes runs of pieces, longest first, as long as `keeps` holds for the rest.
fn delete_runs(
    mut pieces: Vec<&[u8]>,
    budget: &mut usize,
    keeps: &mut dyn FnMut(&[u8]) -> bool,
) -> Vec<u8> {
    let mut run = (pieces.len() / 2).max(1);
    loop {
        let mut i = 0;
        while i < pieces.len() && *budget > 0 {
            let end = (i + run).min(pieces.len());
            let candidate = [pieces[..i].concat(), pieces[end..].concat()].concat();
            *budget -= 1;
            if keeps(&candidate) {
                pieces.drain(i..end);
            } else {
                i += run;
            }
        }
        if run == 1 || *budget == 0 {
            return pieces.concat();
        }
        run /= 2;
    }
}

#[test]
fn delete_runs_keeps_what_the_predicate_needs() {
    let text = b"abcdefghij";
    let mut budget = 1000;
    let kept = delete_runs(pieces(text, false), &mut budget, &mut |s| {
        s.contains(&b'c') && s.contains(&b'h')
    });
    assert_eq!(kept, b"ch");
    assert!(budget < 1000);
}
