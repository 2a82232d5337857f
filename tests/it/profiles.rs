//! Differential tests of the interpretation profiles against the real libraries.
//!
//! `tests/oracle/profile_answers.py` asks CPython 3.11's `urllib.robotparser` and
//! PyPI `protego==0.7.0`, and `tests/oracle/robots_parser_answers.js` npm
//! `robots-parser@3.0.1`, about every corpus body and about bodies generated to split
//! parsers; here the `urllib`, `protego` and `robots-parser` profiles answer the same
//! questions from one parse per body and family. Verdicts must agree on every
//! question (and crawl-delays per agent; robots-parser's matching line too). The first
//! disagreement is minimised, line by line, against the live library and printed.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use robots_census::robots::profiles::{Interpretations, Profile};
use robots_census::robots::RobotsTxt;
use serde_json::{json, Value};

use crate::support::{python, repo, scratch, shared, unhex};

/// The answers file, built once per test run (`ROBOTS_CENSUS_PROFILE_ANSWERS` reuses one).
fn profile_answers() -> PathBuf {
    static ANSWERS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ANSWERS
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("ROBOTS_CENSUS_PROFILE_ANSWERS") {
                return path.into();
            }
            let dir = scratch("profile-answers");
            let (python_out, out) = (dir.join("python.jsonl"), dir.join("answers.jsonl"));
            let status = Command::new(python())
                .arg(repo().join("tests/oracle/profile_answers.py"))
                .arg(shared())
                .arg(&python_out)
                .status()
                .expect("run tests/oracle/profile_answers.py");
            assert!(status.success(), "profile_answers.py failed: {status}");
            let status = Command::new("node")
                .arg(repo().join("tests/oracle/robots_parser_answers.js"))
                .arg(shared())
                .arg(&python_out)
                .arg(&out)
                .env("NODE_PATH", repo().join("node_modules"))
                .status()
                .expect("run node tests/oracle/robots_parser_answers.js (make node)");
            assert!(
                status.success(),
                "robots_parser_answers.js failed: {status}"
            );
            out
        })
        .clone()
}

/// One live library process answering single questions, to minimise a disagreement.
struct Oracle {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Oracle {
    fn start(profile: Profile) -> Oracle {
        let mut cmd = match profile {
            Profile::RobotsParser => {
                let mut c = Command::new("node");
                c.arg(repo().join("tests/oracle/ask_one.js"))
                    .env("NODE_PATH", repo().join("node_modules"));
                c
            }
            _ => {
                let mut c = Command::new(python());
                c.arg(repo().join("tests/oracle/ask_one.py"))
                    .arg(profile.name());
                c
            }
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the oracle");
        let out = BufReader::new(child.stdout.take().expect("oracle stdout"));
        Oracle { child, out }
    }

    fn ask(&mut self, body: &[u8], agent: &str, url: &str) -> char {
        let stdin = self.child.stdin.as_mut().expect("oracle stdin");
        let q = json!({"body_hex": crate::support::hex(body), "agent": agent, "url": url});
        writeln!(stdin, "{q}").expect("ask the oracle");
        let mut line = String::new();
        self.out.read_line(&mut line).expect("oracle answer");
        line.trim().chars().next().unwrap_or('?')
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        if self.child.wait().is_err() {
            eprintln!("the oracle process did not end cleanly");
        }
    }
}

fn ours(profile: Profile, body: &[u8], agent: &str, url: &str) -> char {
    let doc = RobotsTxt::parse(body);
    if Interpretations::new(body, &doc)
        .answer(profile, agent, url)
        .allowed
    {
        '1'
    } else {
        '0'
    }
}

/// The smallest body (by deleting whole lines, at most 400 library calls) on which the
/// profile and the library still disagree about (agent, url).
fn minimise(profile: Profile, body: &[u8], agent: &str, url: &str) -> Vec<u8> {
    let mut oracle = Oracle::start(profile);
    let mut lines: Vec<&[u8]> = body.split_inclusive(|b| *b == b'\n').collect();
    let mut calls = 0;
    let mut i = lines.len();
    while i > 0 && calls < 400 {
        i -= 1;
        let mut candidate = lines.clone();
        candidate.remove(i);
        let bytes = candidate.concat();
        calls += 1;
        let theirs = oracle.ask(&bytes, agent, url);
        if matches!(theirs, '0' | '1') && theirs != ours(profile, &bytes, agent, url) {
            lines = candidate;
        }
    }
    lines.concat()
}

fn body_of(record: &Value) -> Vec<u8> {
    match record["file"].as_str() {
        Some(file) => std::fs::read(shared().join("corpus/robots").join(file)).expect("read body"),
        None => unhex(record["body_hex"].as_str().expect("body_hex")),
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

/// Asks `profile` every question of the answers file and compares with `field`.
fn agree(profile: Profile, field: &str) {
    let answers = std::fs::read_to_string(profile_answers()).expect("read profile answers");
    let (mut bodies, mut questions, mut skipped) = (0usize, 0usize, 0usize);
    let mut mismatches: Vec<(String, Vec<u8>, String, String, char)> = Vec::new();
    let mut delay_mismatches = Vec::new();
    for record in answers.lines() {
        let record: Value = serde_json::from_str(record).expect("answer line is JSON");
        let body = body_of(&record);
        let name = record["file"].as_str().unwrap_or("generated").to_owned();
        let (agents, urls) = (strings(&record["agents"]), strings(&record["urls"]));
        let theirs: Vec<char> = record[field].as_str().expect(field).chars().collect();
        assert_eq!(
            theirs.len(),
            agents.len() * urls.len(),
            "{name}: answer count"
        );
        let lines = record[format!("{field}_lines")].as_array();
        let delays = record[format!("{field}_delay")].as_array().expect("delays");
        let doc = RobotsTxt::parse(&body);
        let reads = Interpretations::new(&body, &doc);
        for (a, agent) in agents.iter().enumerate() {
            for (u, url) in urls.iter().enumerate() {
                let want = theirs[a * urls.len() + u];
                if !matches!(want, '0' | '1') {
                    skipped += 1;
                    continue;
                }
                questions += 1;
                let got = reads.answer(profile, agent, url);
                let want_line = lines.map(|l| l[a * urls.len() + u].as_i64().unwrap_or(-1));
                let line_differs = want_line.is_some_and(|l| i64::from(got.line) != l.max(0));
                if got.allowed != (want == '1') || line_differs {
                    mismatches.push((name.clone(), body.clone(), agent.clone(), url.clone(), want));
                }
            }
            let want_delay = delays[a].as_f64();
            let got_delay = reads.crawl_delay(profile, agent);
            if want_delay != got_delay {
                delay_mismatches.push(format!(
                    "{name}: agent {agent:?}: crawl-delay {want_delay:?} vs ours {got_delay:?}"
                ));
            }
        }
        bodies += 1;
    }
    eprintln!(
        "{}: {questions} questions over {bodies} bodies ({skipped} the library could not answer), {} disagreements, {} crawl-delay disagreements",
        profile.name(),
        mismatches.len(),
        delay_mismatches.len()
    );
    assert!(
        bodies > 1000 && questions > 100_000,
        "too few questions asked"
    );
    if let Some((name, body, agent, url, want)) = mismatches.first() {
        let small = minimise(profile, body, agent, url);
        let listed: Vec<String> = mismatches
            .iter()
            .take(15)
            .map(|(n, _, a, u, w)| format!("{n}: agent {a:?} url {u:?}: library {w}"))
            .collect();
        panic!(
            "{} disagreements with the library; first in {name} (agent {agent:?}, url {url:?}, library says {want}); minimised body:\n{}\n---\n{}",
            mismatches.len(),
            String::from_utf8_lossy(&small),
            listed.join("\n")
        );
    }
    assert!(
        delay_mismatches.is_empty(),
        "{} crawl-delay disagreements:\n{}",
        delay_mismatches.len(),
        delay_mismatches[..delay_mismatches.len().min(15)].join("\n")
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared, the venv, Java or Chromium: make test"
)]
fn urllib_profile_agrees_with_cpython_robotparser() {
    agree(Profile::Urllib, "urllib");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared, the venv, Java or Chromium: make test"
)]
fn protego_profile_agrees_with_protego() {
    agree(Profile::Protego, "protego");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared, the venv, Java or Chromium: make test"
)]
fn robots_parser_profile_agrees_with_npm_robots_parser() {
    agree(Profile::RobotsParser, "robots_parser");
}
