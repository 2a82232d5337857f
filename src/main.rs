//! The `robots-census` binary: parse arguments, hand over to the library, exit.

use std::process::ExitCode;

use clap::Parser;
use robots_census::cli::{Args, Command, RunArgs, SitesArgs};
use robots_census::config::RunConfig;
use robots_census::pipeline::{self, PipelineError, INTERRUPTED};

fn main() -> ExitCode {
    let args = Args::parse();
    match &args.command {
        Command::Run(a) => run(a),
        Command::Check(a) => robots_census::check::check(a),
        Command::Lint(a) => robots_census::check::lint(a),
        Command::Status(a) => robots_census::status::status(a),
        Command::Sites(a) => sites(a),
        Command::Report(a) => robots_census::report::report(a),
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
