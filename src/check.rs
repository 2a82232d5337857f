//! `check` and `lint`: the engine for people, one robots.txt at a time.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `robots-census check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
}

/// Arguments of `robots-census lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
}

pub fn check(_args: &CheckArgs) -> ExitCode {
    ExitCode::from(2)
}

pub fn lint(_args: &LintArgs) -> ExitCode {
    ExitCode::from(2)
}
