//! The `robots-census` binary: parse arguments, hand over to the library, exit.

use std::process::ExitCode;

use clap::Parser;
use robots_census::cli::{Args, Command};

fn main() -> ExitCode {
    let args = Args::parse();
    match &args.command {
        Command::Check(a) => robots_census::check::check(a),
        Command::Lint(a) => robots_census::check::lint(a),
    }
}
