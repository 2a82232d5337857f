//! The `changes` step: two crawls of the `sites` table in, what changed per site out.
//!
//! ```text
//! <OUT>/sites/crawl=<A>, crawl=<B> --read--> status class, deciding capture, block per agent
//!   + <OUT>/groups, rules, sitemaps (deciding robots.txt files of sites in both crawls)
//!   --diff--> <OUT>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet + a summary per agent
//! ```
//!
//! A subcommand rather than a table the sites step writes: which crawls to compare is
//! the user's choice (consecutive, a year apart, ...), and one `sites` run over N crawls
//! would otherwise write N-1 comparisons nobody asked for. The per-agent summary over
//! every consecutive pair, which the report shows, is `queries/changes_by_agent.sql`.

mod diff;
mod read;
mod write;

use std::path::{Path, PathBuf};

pub use diff::{AgentSummary, Change, Summary};
pub use read::Block;

use crate::output::catalog::Catalog;
use crate::output::read::SortedIds;
use crate::sites::SitesError;
use diff::Lines;

/// Errors of the changes step: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    #[error("{0} holds no sites table: run `robots-census sites {0}` first")]
    NoSites(PathBuf),
    #[error("crawl {crawl:?} is not in the sites table (it has: {have})")]
    UnknownCrawl { crawl: String, have: String },
    /// The sites table was made from another state of the dataset: which file, the fix.
    #[error("{0}")]
    Stale(String),
    #[error("--from and --to name the same crawl {0:?}")]
    SameCrawl(String),
    #[error("the sites table of {from} was made with {a} and that of {to} with {b}: rerun `robots-census sites`")]
    MixedOptions {
        from: String,
        to: String,
        a: String,
        b: String,
    },
    #[error(transparent)]
    Read(#[from] SitesError),
    #[error(transparent)]
    Table(#[from] crate::output::read::ReadError),
    #[error("cannot build changes rows: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Everything between two crawls: the change rows and their summary.
#[derive(Debug)]
pub struct Comparison {
    pub changes: Vec<Change>,
    pub summary: Summary,
}

/// Compares crawl `from` with crawl `to` of `<out>/sites/` (reading `groups`, `rules`
/// and `sitemaps` for the rule lines and sitemaps), handing each change to `sink`.
fn compare_into(
    out: &Path,
    crawls: &SitesCrawls,
    (from, to): (&str, &str),
    sink: &mut diff::Sink<'_>,
) -> Result<Summary, ChangesError> {
    let files = |crawl: &str| {
        crawls.get(crawl).ok_or_else(|| ChangesError::UnknownCrawl {
            crawl: crawl.to_owned(),
            have: crawls.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    };
    // Both looked up before anything is read: a wrong name costs no reading.
    let (files_a, files_b) = (files(from)?, files(to)?);
    if from == to {
        return Err(ChangesError::SameCrawl(from.to_owned()));
    }
    let a = read::read_sites(files_a, from)?;
    let b = read::read_sites(files_b, to)?;
    compare_sites(out, &a, &b, sink)
}

/// The crawls of the sites table and their part files.
type SitesCrawls = std::collections::BTreeMap<String, Vec<PathBuf>>;

/// The dataset's catalog (each manifest read once per step) and its sites crawls.
fn open(out: &Path) -> Result<(Catalog, SitesCrawls), ChangesError> {
    let catalog = Catalog::open_dir(out).map_err(SitesError::from)?;
    let crawls = read::sites_crawls(&catalog, out)?;
    Ok((catalog, crawls))
}

/// Compares two crawls' sites tables already read, reading the rule lines and
/// sitemaps of the deciding captures of sites present in both.
fn compare_sites(
    out: &Path,
    a: &read::CrawlSites,
    b: &read::CrawlSites,
    sink: &mut diff::Sink<'_>,
) -> Result<Summary, ChangesError> {
    let options = |t: &read::CrawlSites| {
        format!(
            "--site-key {} --status-semantics {}",
            t.site_key, t.semantics
        )
    };
    if (&a.site_key, &a.semantics) != (&b.site_key, &b.semantics) {
        return Err(ChangesError::MixedOptions {
            from: a.crawl.clone(),
            to: b.crawl.clone(),
            a: options(a),
            b: options(b),
        });
    }
    let (docs_a, docs_b) = diff::compared_docs(a, b);
    let lines = |crawl: &str, docs: &SortedIds| -> Result<Lines, ChangesError> {
        Ok(Lines {
            rules: read::rule_lines(out, crawl, docs)?,
            sitemaps: read::sitemaps(out, crawl, docs)?,
        })
    };
    let (la, lb) = (lines(&a.crawl, &docs_a)?, lines(&b.crawl, &docs_b)?);
    diff::compare(a, b, &la, &lb, sink)
}

/// Compares crawl `from` with crawl `to` without writing anything: every change row
/// in memory, and the summary.
pub fn compare(out: &Path, from: &str, to: &str) -> Result<Comparison, ChangesError> {
    let (_, crawls) = open(out)?;
    let mut changes = Vec::new();
    let summary = compare_into(out, &crawls, (from, to), &mut |c| {
        changes.push(c);
        Ok(())
    })?;
    Ok(Comparison { changes, summary })
}

/// `robots-census changes`: compares and writes `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet`,
/// streaming the rows to the file.
pub fn run(out: &Path, from: &str, to: &str) -> Result<(Summary, PathBuf), ChangesError> {
    // Validated (and the crawls found) before the file is created: errors write nothing.
    let (catalog, crawls) = open(out)?;
    for crawl in [from, to] {
        if !crawls.contains_key(crawl) {
            return Err(ChangesError::UnknownCrawl {
                crawl: crawl.to_owned(),
                have: crawls.keys().cloned().collect::<Vec<_>>().join(", "),
            });
        }
    }
    if from == to {
        return Err(ChangesError::SameCrawl(from.to_owned()));
    }
    let mut writer = write::ChangesWriter::create(out, from, to, &catalog.state)?;
    match compare_into(out, &crawls, (from, to), &mut |c| writer.push(c)) {
        Ok(summary) => {
            let path = writer.commit()?;
            crate::output::views::write(&crate::output::OutTarget::Local(out.to_owned()))
                .map_err(SitesError::from)?;
            Ok((summary, path))
        }
        Err(e) => {
            // No half-written file is left behind.
            writer.abandon();
            Err(e)
        }
    }
}

/// The crawls of `<out>/sites/`, in name order (Common Crawl's `CC-MAIN-YYYY-WW` names
/// sort by time).
pub fn crawls(out: &Path) -> Result<Vec<String>, ChangesError> {
    Ok(open(out)?.1.into_keys().collect())
}
