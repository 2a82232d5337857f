//! The `robots-census` binary: parse the command line, run the command, exit.

use clap::Parser;

fn main() -> std::process::ExitCode {
    robots_census::dispatch(&robots_census::Args::parse()).into()
}
