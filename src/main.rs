//! The `robots-census` binary: parse arguments, hand over to the library, exit.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use robots_census::cli::{Args, ChangesArgs, Command, RunArgs, SitesArgs};
use robots_census::config::RunConfig;
use robots_census::output::dataset;
use robots_census::pipeline::{self, PipelineError, INTERRUPTED};

fn main() -> ExitCode {
    let args = Args::parse();
    match &args.command {
        Command::Run(a) => run(a),
        Command::Check(a) => robots_census::check::check(a),
        Command::Lint(a) => robots_census::check::lint(a),
        Command::Status(a) => robots_census::status::status(a),
        Command::Sites(a) => sites(a),
        Command::Changes(a) => changes(a),
        Command::Audit(a) => robots_census::audit::audit(a),
        Command::Report(a) => robots_census::report::report(a),
    }
}

/// Exit codes of `changes`: see `CHANGES_AFTER_HELP` in cli.rs.
fn changes(args: &ChangesArgs) -> ExitCode {
    match robots_census::changes::run(&args.out, &args.from, &args.to) {
        Ok((summary, path)) => {
            if args.json {
                match serde_json::to_string(&summary) {
                    Ok(json) => println!("{json}"),
                    Err(e) => {
                        eprintln!("robots-census: {e}");
                        return ExitCode::from(2);
                    }
                }
            } else if !args.quiet {
                print!("{}", summary.render());
                eprintln!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("robots-census: {e}");
            ExitCode::from(2)
        }
    }
}

/// Exit codes of `sites`: see `SITES_AFTER_HELP` in cli.rs.
fn sites(args: &SitesArgs) -> ExitCode {
    let options = match robots_census::sites::Options::from_args(args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("robots-census: {e}");
            return ExitCode::from(2);
        }
    };
    match robots_census::sites::run(&options) {
        Ok(report) => {
            for warning in &report.warnings {
                eprintln!("robots-census: warning: {warning}");
            }
            if !args.quiet {
                eprint!("{}", report.render());
            }
            if report.warnings.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("robots-census: {e}");
            ExitCode::from(2)
        }
    }
}

/// Exit codes of `run`: see `RUN_AFTER_HELP` in cli.rs.
fn run(args: &RunArgs) -> ExitCode {
    let config = match RunConfig::from_args(args) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("robots-census: {e}");
            return ExitCode::from(2);
        }
    };
    if args.plan {
        return plan(&config);
    }
    if let Err(e) =
        ctrlc::set_handler(|| INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed))
    {
        eprintln!("robots-census: warning: cannot install the Ctrl-C / SIGTERM handler: {e}");
    }
    match pipeline::run(&config) {
        Ok(summary) => {
            if !config.quiet {
                eprint!("{}", summary.render());
            }
            match (summary.had_problems(), config.strict) {
                (false, _) => ExitCode::SUCCESS,
                // Worth running again: engines retry on 75 (EX_TEMPFAIL).
                _ if summary.had_transient_failures() => ExitCode::from(75),
                (true, false) => ExitCode::from(1),
                (true, true) => ExitCode::from(2),
            }
        }
        Err(PipelineError::Interrupted) => {
            eprintln!("robots-census: interrupted; completed tasks are kept, rerun with --resume to continue");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("robots-census: {e}");
            ExitCode::from(2)
        }
    }
}

/// `run --plan`: the task list as JSON lines (see `RunArgs::plan`), for engines that
/// run one task per worker. Nothing is read or written but stdout.
fn plan(config: &RunConfig) -> ExitCode {
    let tasks = dataset::plan_tasks(&config.inputs, config.inputs_per_task);
    let header = serde_json::json!({
        "tasks": tasks.len(),
        "inputs": config.inputs.len(),
        "inputs_per_task": config.inputs_per_task,
        "fingerprint": config.settings.fingerprint(),
        "out": config.out.to_string(),
    });
    let mut lines = vec![header.to_string()];
    lines.extend(
        tasks
            .iter()
            .filter(|t| config.shard.is_none_or(|(i, n)| t.index % n == i))
            .map(|t| {
                serde_json::json!({"index": t.index, "name": t.name, "inputs": t.inputs})
                    .to_string()
            }),
    );
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{}", lines.join("\n")).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("robots-census: cannot write the plan: {e}");
            ExitCode::from(2)
        }
    }
}
