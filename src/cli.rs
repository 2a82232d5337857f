//! Command-line arguments as clap parses them; validated into a config elsewhere.

use clap::{Parser, Subcommand};

/// Measure the Robots Exclusion Protocol at web scale.
#[derive(Debug, Parser)]
#[command(name = "robots-census", version, about, long_about = None)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer allow/disallow questions about one robots.txt, as Google's parser would.
    Check(crate::check::CheckArgs),
    /// Print the lint findings of one robots.txt.
    Lint(crate::check::LintArgs),
}
