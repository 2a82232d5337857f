//! `robots-census report OUT -o report.html`: one self-contained HTML page of charts,
//! each with its numbers in a table, from a run's tables.
//!
//! Every table and chart is the result of the file of `queries/` its caption names,
//! run by the embedded engine (`study`) over the dataset's tables by name:
//!
//! ```text
//! <OUT>/sites (the sites step; run here first when options are given or it is missing)
//!   --site_status_by_crawl, agent_blocking_by_crawl--> crawls: per crawl and agent
//!   --changes_by_agent (every consecutive pair of crawls)--> changes
//! <OUT>/documents, readings (a run with --profiles)
//!   --profile_sensitivity--> readings
//! <OUT>/documents, groups, sitemaps, errors
//!   --top_user_agents, sitemap_adoption, crawl_delay, lint_findings,
//!     size_distribution (latest capture per host)--> hosts
//! <OUT>/documents, signals, agents
//!   --signal_adoption, signal_contradictions--> ai_use
//!   --summary, blocking, changes, readings, ai_use, figures (sections) + charts
//!     + purposes (agent groups and colours) + text (label widths)
//!   --html--> report.html (inline CSS and SVG, no script, nothing fetched)
//! ```
//!
//! The options of the sites step carry over: with any of `--site-key`,
//! `--status-semantics`, `--ranks`, `--agents` the report first runs the sites step
//! with them (exactly `robots-census sites OUT <options>`, replacing `<OUT>/sites`), so
//! the table it reads was made with what the command line says; without them it reuses
//! the stored sites table (running the step with defaults only when there is none). The
//! options the table records are printed in the page's methodology paragraph.

mod ai_use;
mod blocking;
mod changes;
mod charts;
mod crawls;
mod figures;
mod hosts;
mod html;
mod purposes;
mod queries;
mod readings;
mod summary;
mod text;

use std::path::{Path, PathBuf};

use crate::output::catalog::{Catalog, Entry};
use crate::output::Table;
use crate::sites::SitesError;
use crate::study::{Engine, EngineOptions, StudyError};

/// Errors of the report: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{0} holds no documents table: run `robots-census run ... --out {0}` first")]
    NoDocuments(PathBuf),
    #[error("the sites step: {0}")]
    Sites(#[from] SitesError),
    #[error("{0}; or give report the sites options (--site-key, --ranks, ...) to make it now")]
    StaleSites(String),
    #[error(transparent)]
    Study(#[from] StudyError),
    #[error("{source_name}: no column {column} of the type the report reads")]
    Column { source_name: String, column: String },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("table {table}: column {column} holds an unexpected value {value:?}")]
    Value {
        table: &'static str,
        column: &'static str,
        value: String,
    },
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
    /// What the page says on how to read it (crawls whose place in time is not
    /// known): printed too, but the page is as asked, so they leave the exit code be.
    pub caveats: Vec<String>,
}

/// What `report` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The dataset directory.
    pub out: PathBuf,
    /// The HTML file to write.
    pub output: PathBuf,
    /// Run the sites step with these options first (replacing `<OUT>/sites`); `None`
    /// reuses the stored sites table, running the step with defaults only when there
    /// is none.
    pub sites: Option<crate::sites::Options>,
    /// The engine that runs the queries (memory limit, spill directory).
    pub engine: EngineOptions,
}

/// Builds the page and writes it to `options.output`.
pub fn build(options: &Options) -> Result<Summary, ReportError> {
    let out = &options.out;
    let catalog = Catalog::open_dir(out).map_err(SitesError::from)?;
    if !matches!(catalog.entry(Table::Documents), Entry::Present(files) if !files.is_empty()) {
        return Err(ReportError::NoDocuments(out.clone()));
    }
    let sites = match &options.sites {
        Some(sites) => Some(sites.clone()),
        None => match catalog.entry(Table::Sites) {
            Entry::Present(files) if !files.is_empty() => None,
            // A sites table of another run is not drawn: its options are not known to
            // be the ones wanted, so it is not silently rebuilt either.
            Entry::Stale(why) => return Err(ReportError::StaleSites(why.clone())),
            _ => Some(crate::sites::Options {
                memory_limit: options.engine.memory_limit,
                ..crate::sites::Options::defaults(&out.to_string_lossy())
            }),
        },
    };
    let mut summary = Summary {
        ran_sites: sites.is_some(),
        ..Summary::default()
    };
    if let Some(sites) = &sites {
        summary.warnings = crate::sites::run(sites)?.warnings;
    }
    // The catalog again when the sites step has just written its table.
    let catalog = match sites {
        Some(_) => Catalog::open_dir(out).map_err(SitesError::from)?,
        None => catalog,
    };
    let engine = Engine::open(&catalog, &options.engine)?;
    let run = |query: &queries::Query| queries::Rows::run(&engine, query);
    let header = run(&queries::HEADER)?;
    let crawls = crawls::from_rows(
        &run(&queries::SITE_STATUS)?,
        &run(&queries::AGENT_BLOCKING)?,
        &header,
    )?;
    let changes = changes::from_rows(&run(&queries::CHANGES)?)?;
    summary.caveats.extend(crawls.order_caveat());
    // A per-host section whose query needs a table the run did not write (`run
    // --tables agents`, the AI-blocking subset) says so on the page instead.
    let optional = |query: &queries::Query| match run(query) {
        Err(ReportError::Study(StudyError::Unavailable { table, why, .. })) => {
            Ok(Err(format!("table {table}: {why}")))
        }
        rows => rows.map(Ok),
    };
    let hosts = hosts::from_rows(&hosts::HostRows {
        tokens: &optional(&queries::TOKENS)?,
        sitemaps: &optional(&queries::SITEMAPS)?,
        delays: &optional(&queries::DELAYS)?,
        lint: &optional(&queries::LINT)?,
        sizes: &optional(&queries::SIZES)?,
        header: &header,
    })?;
    // Only a run with --profiles has readings: without them the section says how to
    // get it.
    let readings = match optional(&queries::READINGS)? {
        Ok(rows) => Ok(readings::from_rows(&rows)?),
        Err(why) => Err(why),
    };
    // Only a run that wrote the signals table (and the agents table) has these.
    let ai_use = ai_use::from_rows(
        &optional(&queries::SIGNAL_ADOPTION)?,
        &optional(&queries::SIGNAL_CONTRADICTIONS)?,
    )?;
    let methodology = Methodology {
        ran_sites: summary.ran_sites,
        out: out.display().to_string(),
    };
    let page = html::page(&methodology, &crawls, &changes, &readings, &ai_use, &hosts);
    write_atomically(&options.output, page.as_bytes())?;
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
