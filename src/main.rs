//! The `robots-census` binary: parse the command line, run the command, exit.

use clap::Parser;

fn main() -> std::process::ExitCode {
    robots_census::cli::dispatch(&robots_census::cli::Args::parse()).into()
}
