//! Verdict throughput, one thread: 20 agents x 5 URLs per corpus body.
//!
//! In: `questions.tsv` from `scripts/make_bench_corpus.py` and the bodies it names.
//! Out: one JSON line per (engine, document set). robots-census parses each body once and
//! asks its 100 questions of the model (each URL reduced once with `UrlPath`, reused across
//! agents); texting_robots builds one `Robot` per agent (it keeps only that agent's rules)
//! and asks it the 5 URLs. Both timings include the parsing.
//!
//! Document sets: "all" bodies, and the "sample" of every `--every`-th body, which is what
//! the slow engines (texting_robots here, the reference in `bench_reference.py`) are asked,
//! so that every engine has a number on the same set. `allowed` counts allowed verdicts,
//! so the driver can check that the engines agree in total on the sample.

mod common;

use std::hint::black_box;
use std::process::ExitCode;

use robots_census_engine::{RobotsTxt, UrlPath};
use serde_json::json;

type Doc = (Vec<u8>, Vec<String>);

fn main() -> ExitCode {
    let args = match common::Args::parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("verdicts bench: {e}");
            return ExitCode::from(2);
        }
    };
    let questions = match common::load_questions(&args.questions, &args.shared) {
        Ok(q) => q,
        Err(e) => {
            eprintln!("verdicts bench: {}: {e}", args.questions.display());
            return ExitCode::from(2);
        }
    };
    let agents = &questions.agents;
    let all: Vec<&Doc> = questions.docs.iter().collect();
    let sample: Vec<&Doc> = all.iter().copied().step_by(args.every).collect();
    let set_name = format!("sample (every {}th body)", args.every);

    for (set, docs) in [("all", &all), (set_name.as_str(), &sample)] {
        let (secs, allowed) = common::median_secs(args.reps, || census(docs, agents));
        report(
            "robots-census parse once + verdict_for_path",
            set,
            docs,
            agents,
            secs,
            allowed,
            &args,
        );
    }
    let (secs, allowed) = common::median_secs(args.reps, || texting(&sample, agents));
    report(
        "texting_robots Robot per agent + allowed",
        &set_name,
        &sample,
        agents,
        secs,
        allowed,
        &args,
    );
    ExitCode::SUCCESS
}

/// robots-census: one parse per body, then every (agent, URL) question of the model.
fn census(docs: &[&Doc], agents: &[String]) -> usize {
    let mut allowed = 0;
    for (body, urls) in docs {
        let doc = RobotsTxt::parse(body);
        for url in urls {
            let path = UrlPath::new(url.as_bytes());
            for agent in agents {
                allowed +=
                    usize::from(black_box(doc.verdict_for_path(agent.as_bytes(), &path)).allowed);
            }
        }
    }
    allowed
}

/// texting_robots: one `Robot` per (body, agent); a body it cannot parse counts as allowed
/// for every URL, as a crawler treats an unusable robots.txt.
fn texting(docs: &[&Doc], agents: &[String]) -> usize {
    let mut allowed = 0;
    for (body, urls) in docs {
        for agent in agents {
            match texting_robots::Robot::new(agent, body) {
                Ok(robot) => {
                    for url in urls {
                        allowed += usize::from(black_box(robot.allowed(url)));
                    }
                }
                Err(_) => allowed += urls.len(),
            }
        }
    }
    allowed
}

fn report(
    engine: &str,
    set: &str,
    docs: &[&Doc],
    agents: &[String],
    secs: f64,
    allowed: usize,
    args: &common::Args,
) {
    let verdicts: usize = docs.iter().map(|(_, urls)| urls.len() * agents.len()).sum();
    let bytes: usize = docs.iter().map(|(body, _)| body.len()).sum();
    common::emit(
        json!({"bench": "verdicts", "engine": engine, "set": set, "docs": docs.len(),
        "bytes": bytes, "verdicts": verdicts, "allowed": allowed, "seconds": secs, "reps": args.reps}),
    );
}
