//! Parse throughput, one thread: robots-census `RobotsTxt::parse` against
//! `texting_robots::Robot::new`, over every corpus body cut at 512,000 bytes.
//!
//! In: `<shared>/corpus/robots/**.txt`. Out: one JSON line per engine (docs, bytes,
//! median seconds). robots-census builds the whole model and the lint findings in its one
//! pass; texting_robots keeps only the rules of one agent ("Googlebot"), so it does less.

mod common;

use std::hint::black_box;
use std::process::ExitCode;

use robots_census_engine::RobotsTxt;
use serde_json::json;

fn main() -> ExitCode {
    let args = match common::Args::parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("parse bench: {e}");
            return ExitCode::from(2);
        }
    };
    let corpus = match common::load_corpus(&args.shared) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("parse bench: {e}");
            return ExitCode::from(2);
        }
    };
    let bytes: usize = corpus.iter().map(|(_, body)| body.len()).sum();

    let (secs, ()) = common::median_secs(args.reps, || {
        for (_, body) in &corpus {
            black_box(RobotsTxt::parse(black_box(body)));
        }
    });
    common::emit(
        json!({"bench": "parse", "engine": "robots-census RobotsTxt::parse",
        "docs": corpus.len(), "bytes": bytes, "seconds": secs, "errors": 0, "reps": args.reps}),
    );

    let (secs, errors) = common::median_secs(args.reps, || {
        let mut errors = 0usize;
        for (_, body) in &corpus {
            match texting_robots::Robot::new("Googlebot", black_box(body)) {
                Ok(robot) => {
                    black_box(robot);
                }
                Err(_) => errors += 1,
            }
        }
        errors
    });
    common::emit(
        json!({"bench": "parse", "engine": "texting_robots Robot::new (one agent)",
        "docs": corpus.len(), "bytes": bytes, "seconds": secs, "errors": errors, "reps": args.reps}),
    );
    ExitCode::SUCCESS
}
