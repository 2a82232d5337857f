//! Differential test against Google's reference parser.
//!
//! `tests/oracle/answers.py` asks robots.cc (PyPI `jwm-robotstxt`) a deterministic
//! set of (agent, URL) questions about every body of ../shared/corpus/robots; here
//! robots-census answers the same questions from one parse per body. Verdict and
//! deciding line must agree on every question.

use robots_census_engine::{RobotsTxt, UrlPath};
use serde_json::Value;

use crate::support::{oracle_answers, shared, unhex};

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (real robots.txt bodies) and the venv (jwm-robotstxt, Google's parser): make test"
)]
fn every_corpus_verdict_agrees_with_robots_cc() {
    let out = crate::support::corpus_oracle_answers();

    let answers = std::fs::read_to_string(&out).expect("read oracle answers");
    let (mut bodies, mut questions, mut mismatches) = (0usize, 0usize, Vec::new());
    for record in answers.lines() {
        let record: Value = serde_json::from_str(record).expect("oracle answer line is JSON");
        let file = record["file"].as_str().expect("file");
        let body =
            std::fs::read(shared().join("corpus/robots").join(file)).expect("read corpus body");
        let doc = RobotsTxt::parse(&body);
        let agents: Vec<Vec<u8>> = hex_list(&record["agents"]);
        let urls: Vec<Vec<u8>> = hex_list(&record["urls"]);
        let paths: Vec<UrlPath<'_>> = urls.iter().map(|u| UrlPath::new(u)).collect();
        let answers = oracle_answers(&record);
        assert_eq!(
            answers.len(),
            agents.len() * urls.len(),
            "{file}: answer count"
        );
        for (a, agent) in agents.iter().enumerate() {
            for (u, path) in paths.iter().enumerate() {
                let (want_allowed, want_line) = answers[a * urls.len() + u];
                let got = doc.verdict_for_path(agent, path);
                questions += 1;
                if got.allowed != want_allowed || got.line != want_line {
                    mismatches.push(format!(
                        "{file}: agent {:?} url {:?}: robots.cc ({want_allowed}, line {want_line}), robots-census ({}, line {})",
                        String::from_utf8_lossy(agent),
                        String::from_utf8_lossy(&urls[u]),
                        got.allowed,
                        got.line
                    ));
                }
            }
        }
        bodies += 1;
    }
    eprintln!(
        "differential: {questions} questions over {bodies} bodies, {} mismatches",
        mismatches.len()
    );
    assert!(bodies > 0 && questions > 0, "the oracle answered nothing");
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first ones:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(25)].join("\n")
    );
}

fn hex_list(value: &Value) -> Vec<Vec<u8>> {
    value
        .as_array()
        .expect("hex list")
        .iter()
        .map(|v| unhex(v.as_str().expect("hex string")))
        .collect()
}
