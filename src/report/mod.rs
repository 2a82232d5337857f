//! `robots-census report OUT -o report.html`: one self-contained HTML page of charts,
//! each with its numbers in a table, from a run's tables.
//!
//! ```text
//! <OUT>/sites (the sites step; run here first when options are given or it is missing)
//!   --crawls--> status classes and agent blocking per crawl
//!   --changes (every consecutive pair of crawls)--> blocks added and removed per agent
//! <OUT>/documents, groups, sitemaps, errors
//!   --hosts (latest capture per host)--> tokens, sitemaps, crawl-delays, lint, sizes
//!   --html + charts--> report.html (inline CSS and SVG, no script, nothing fetched)
//! ```
//!
//! The options of the sites step carry over: with any of `--site-key`,
//! `--status-semantics`, `--ranks`, `--agents` the report first runs the sites step
//! with them (exactly `robots-census sites OUT <options>`, replacing `<OUT>/sites`), so
//! the table it reads was made with what the command line says; without them it reuses
//! the stored sites table (running the step with defaults only when there is none). The
//! options the table records are printed in the page's methodology paragraph.

mod changes;
mod charts;
mod crawls;
mod figures;
mod hosts;
mod html;
mod read;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::output::read::part_files;
use crate::sites::{SiteKey, SitesError, StatusSemantics};

/// Errors of the report: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{0} holds no documents table: run `robots-census run ... --out {0}` first")]
    NoDocuments(PathBuf),
    #[error("the sites step: {0}")]
    Sites(#[from] SitesError),
    #[error("the changes between crawls: {0}")]
    Changes(#[from] crate::changes::ChangesError),
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Read(#[from] crate::output::read::ReadError),
    #[error("table {table}: column {column} holds an unexpected value {value:?}")]
    Value {
        table: &'static str,
        column: &'static str,
        value: String,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

const REPORT_AFTER_HELP: &str = "\
Reads <OUT>/sites (per-crawl figures) and <OUT>/documents, groups, sitemaps and errors
(per-host figures, latest capture per host) and writes one HTML file: inline SVG charts,
each with its numbers in a table, no script, nothing fetched. With any of --site-key,
--status-semantics, --ranks, --agents the sites step runs first with them (replacing
<OUT>/sites, as `robots-census sites OUT ...` would); without them the stored sites table
is used (the step runs with defaults when there is none). See README.md.

Exit codes:
  0  the report was written
  1  it was written, but some lines of the --ranks file were skipped
  2  usage error, missing or unreadable tables, or output not writable";

/// Arguments of `robots-census report`.
#[derive(Debug, clap::Args)]
#[command(after_help = REPORT_AFTER_HELP)]
pub struct ReportArgs {
    /// The output directory of `robots-census run`.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,

    /// The HTML file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,

    /// As `sites --site-key` (runs the sites step first).
    #[arg(long, value_enum)]
    pub site_key: Option<SiteKey>,

    /// As `sites --status-semantics` (runs the sites step first).
    #[arg(long, value_enum)]
    pub status_semantics: Option<StatusSemantics>,

    /// As `sites --ranks` (runs the sites step first).
    #[arg(long, value_name = "FILE")]
    pub ranks: Option<PathBuf>,

    /// As `sites --agents` (runs the sites step first).
    #[arg(long, value_name = "LIST|@FILE")]
    pub agents: Option<String>,

    /// No summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How the numbers were made, for the methodology paragraph.
pub struct Methodology {
    /// The report ran the sites step (else it reused the stored table).
    pub ran_sites: bool,
    /// The dataset directory as given.
    pub out: String,
}

/// What a report run did.
#[derive(Debug, Default)]
pub struct Summary {
    pub crawls: usize,
    pub bytes: usize,
    pub ran_sites: bool,
    /// Skipped lines of the --ranks file.
    pub warnings: Vec<String>,
}

/// Builds the page and writes it to `args.output`.
pub fn build(args: &ReportArgs) -> Result<Summary, ReportError> {
    let out = &args.out;
    if part_files(&out.join("documents"))?.is_empty() {
        return Err(ReportError::NoDocuments(out.clone()));
    }
    let options_given = args.site_key.is_some()
        || args.status_semantics.is_some()
        || args.ranks.is_some()
        || args.agents.is_some();
    let ran_sites = options_given || part_files(&out.join("sites"))?.is_empty();
    let mut summary = Summary {
        ran_sites,
        ..Summary::default()
    };
    if ran_sites {
        let sites_args = crate::cli::SitesArgs {
            out: out.clone(),
            site_key: args.site_key.unwrap_or_default(),
            status_semantics: args.status_semantics.unwrap_or_default(),
            ranks: args.ranks.clone(),
            agents: args.agents.clone(),
            quiet: true,
        };
        let options = crate::sites::Options::from_args(&sites_args)?;
        summary.warnings = crate::sites::run(&options)?.warnings;
    }
    let crawls = crawls::read(out)?;
    // Every consecutive pair of crawls (nothing to compare in one crawl).
    let changes = if crawls.crawls.len() > 1 {
        crate::changes::consecutive(out)?
    } else {
        Vec::new()
    };
    let hosts = hosts::read(out)?;
    let methodology = Methodology {
        ran_sites,
        out: out.display().to_string(),
    };
    let page = html::page(&methodology, &crawls, &changes, &hosts);
    write_atomically(&args.output, page.as_bytes())?;
    summary.crawls = crawls.crawls.len();
    summary.bytes = page.len();
    Ok(summary)
}

/// Writes beside the target and renames (the one write protocol of
/// [`crate::output::dataset::write_atomic`]), so a reader never sees half a page.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    crate::output::dataset::write_atomic(path, bytes).map_err(|e| ReportError::Io {
        path: path.to_owned(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// The `report` subcommand: exit codes in `REPORT_AFTER_HELP`.
pub fn report(args: &ReportArgs) -> ExitCode {
    match build(args) {
        Ok(summary) => {
            for warning in &summary.warnings {
                eprintln!("robots-census: warning: {warning}");
            }
            if !args.quiet {
                eprintln!(
                    "{}: {} crawl(s), {} bytes{}",
                    args.output.display(),
                    summary.crawls,
                    summary.bytes,
                    if summary.ran_sites {
                        " (sites step run first)"
                    } else {
                        ""
                    }
                );
            }
            if summary.warnings.is_empty() {
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
