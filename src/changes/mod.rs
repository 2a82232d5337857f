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
mod passes;
mod read;
mod write;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use diff::{AgentSummary, Change, Summary};
pub use read::Block;

use crate::output::catalog::Catalog;
use crate::output::ids::SortedIds;
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

/// What a comparison was asked for: the dataset, the two crawls, and the memory it may
/// plan to hold (`--memory-limit`: a larger comparison runs in passes over ranges of
/// site names).
#[derive(Debug, Clone)]
pub struct Options {
    pub out: PathBuf,
    pub from: String,
    pub to: String,
    pub memory_limit: usize,
}

/// Compares crawl `from` (its sites table `a`) with crawl `to` (`b`) of `<out>/sites/`
/// (reading `groups`, `rules` and `sitemaps` for the rule lines and sitemaps), handing
/// each change to `sink`, in as many passes over ranges of site names as
/// `memory_limit` asks for.
fn compare_into(
    options: &Options,
    (a, b): (&read::SitesCrawl, &read::SitesCrawl),
    sink: &mut diff::Sink<'_>,
) -> Result<Summary, ChangesError> {
    let out = options.out.as_path();
    let (from, to) = (options.from.as_str(), options.to.as_str());
    let (a, b) = (
        passes::Side::new(out, from, a)?,
        passes::Side::new(out, to, b)?,
    );
    let plan = passes::Plan::new([&a, &b], options.memory_limit)?;
    let mut total = Summary {
        from_crawl: from.to_owned(),
        to_crawl: to.to_owned(),
        ..Summary::default()
    };
    let (mut agents, mut seen) = ([BTreeSet::new(), BTreeSet::new()], [None, None]);
    for range in plan.ranges() {
        let x = read::read_sites(a.files, from, range)?;
        let y = read::read_sites(b.files, to, range)?;
        for (agents, t) in agents.iter_mut().zip([&x, &y]) {
            agents.extend(t.agents.iter().cloned());
        }
        check_options(&mut total, &mut seen, [&x, &y])?;
        total.add(compare_sites(out, &x, &y, sink)?);
    }
    let [in_a, in_b] = agents;
    total.list_agents(in_a.intersection(&in_b));
    total.passes = plan.len();
    Ok(total)
}

/// Both crawls' sites tables must have been made with the same site key and status
/// semantics. A pass may hold one crawl's sites and none of the other's, so each
/// crawl's options are those of its first rows met (`seen`, from then first), and the
/// summary takes them once both are known.
fn check_options(
    total: &mut Summary,
    seen: &mut [Option<(String, String)>; 2],
    sides: [&read::CrawlSites; 2],
) -> Result<(), ChangesError> {
    for (seen, t) in seen.iter_mut().zip(sides) {
        if seen.is_none() && !t.site_key.is_empty() {
            *seen = Some((t.site_key.clone(), t.semantics.clone()));
        }
    }
    let options = |(key, semantics): &(String, String)| {
        format!("--site-key {key} --status-semantics {semantics}")
    };
    match seen {
        [Some(a), Some(b)] if a != b => Err(ChangesError::MixedOptions {
            from: total.from_crawl.clone(),
            to: total.to_crawl.clone(),
            a: options(a),
            b: options(b),
        }),
        [Some((key, semantics)), _] | [None, Some((key, semantics))] => {
            total.site_key.clone_from(key);
            total.status_semantics.clone_from(semantics);
            Ok(())
        }
        [None, None] => Ok(()),
    }
}

/// The crawls of the sites table and their part files.
type SitesCrawls = std::collections::BTreeMap<String, read::SitesCrawl>;

/// The dataset's catalog (each manifest read once per step) and its sites crawls.
fn open(out: &Path) -> Result<(Catalog, SitesCrawls), ChangesError> {
    let catalog = Catalog::open_dir(out).map_err(SitesError::from)?;
    let crawls = read::sites_crawls(&catalog, out)?;
    Ok((catalog, crawls))
}

/// Compares one range of sites of two crawls already read, reading the rule lines and
/// sitemaps of the deciding captures of sites present in both.
fn compare_sites(
    out: &Path,
    a: &read::CrawlSites,
    b: &read::CrawlSites,
    sink: &mut diff::Sink<'_>,
) -> Result<Summary, ChangesError> {
    let (docs_a, docs_b) = diff::compared_docs(a, b);
    let lines = |crawl: &str, docs: &SortedIds| -> Result<Lines, ChangesError> {
        if docs.is_empty() {
            return Ok(Lines::default());
        }
        Ok(Lines {
            rules: read::rule_lines(out, crawl, docs)?,
            sitemaps: read::sitemaps(out, crawl, docs)?,
        })
    };
    let (la, lb) = (lines(&a.crawl, &docs_a)?, lines(&b.crawl, &docs_b)?);
    diff::compare(a, b, &la, &lb, sink)
}

/// `robots-census changes`: compares and writes `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet`,
/// streaming the rows to the file.
pub fn run(options: &Options) -> Result<(Summary, PathBuf), ChangesError> {
    let (out, from, to) = (
        options.out.as_path(),
        options.from.as_str(),
        options.to.as_str(),
    );
    // Validated (and the crawls found) before the file is created: errors write nothing.
    let (catalog, crawls) = open(out)?;
    let side = |crawl: &str| {
        crawls.get(crawl).ok_or_else(|| ChangesError::UnknownCrawl {
            crawl: crawl.to_owned(),
            have: crawls.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    };
    // Both looked up before anything is read: a wrong name costs no reading.
    let sides = (side(from)?, side(to)?);
    if from == to {
        return Err(ChangesError::SameCrawl(from.to_owned()));
    }
    let mut writer = write::ChangesWriter::create(out, from, to, &catalog.state)?;
    match compare_into(options, sides, &mut |c| writer.push(c)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn crawl(site_key: &str, semantics: &str) -> read::CrawlSites {
        read::CrawlSites {
            site_key: site_key.to_owned(),
            semantics: semantics.to_owned(),
            ..read::CrawlSites::default()
        }
    }

    #[test]
    fn options_are_each_crawls_first_met_and_must_agree() {
        let mut total = Summary {
            from_crawl: "A".into(),
            to_crawl: "B".into(),
            ..Summary::default()
        };
        let mut seen = [None, None];
        let none = crawl("", "");
        // A first pass with sites of B alone: B's options, nothing to compare yet.
        check_options(&mut total, &mut seen, [&none, &crawl("host", "rfc9309")]).expect("ok");
        assert_eq!(
            (total.site_key.as_str(), total.status_semantics.as_str()),
            ("host", "rfc9309")
        );
        check_options(&mut total, &mut seen, [&crawl("host", "rfc9309"), &none]).expect("same");
        // A's rows met later, made otherwise: named per crawl, A's first.
        let mut seen = [None, Some(("host".to_owned(), "rfc9309".to_owned()))];
        let err = check_options(
            &mut total,
            &mut seen,
            [&crawl("registrable-domain", "rfc9309"), &none],
        )
        .expect_err("mixed");
        let message = err.to_string();
        assert!(
            message.starts_with("the sites table of A was made with --site-key registrable-domain")
                && message.contains("that of B with --site-key host"),
            "{message}"
        );
    }
}
