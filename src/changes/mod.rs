//! The `changes` step: two crawls of the `sites` table in, what changed per site out.
//!
//! ```text
//! <OUT>/sites/crawl=<A>, crawl=<B> --read side by side in name order (sites.rs)-->
//!   each site's appearance, status class and blocks (diff.rs), numbered in order,
//!   + the deciding robots.txt files of sites in both: their lines asked for (lines.rs)
//! <OUT>/groups, rules, sitemaps of A and of B --read once each, joined by doc_id-->
//!   each asking site's lines --by site number--> rule and sitemap changes (diff.rs)
//!   --> <OUT>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet + a summary per agent
//! ```
//!
//! Each table is read once whatever `--memory-limit` is: what does not fit is spilled
//! in buckets ([`crate::spill`]), which decide nothing about what is written.
//!
//! A subcommand rather than a table the sites step writes: which crawls to compare is
//! the user's choice (consecutive, a year apart, ...), and one `sites` run over N crawls
//! would otherwise write N-1 comparisons nobody asked for. The per-agent summary over
//! every consecutive pair, which the report shows, is `queries/changes_by_agent.sql`.

mod diff;
mod lines;
mod sites;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use diff::{AgentSummary, Summary};

use crate::limits::{
    CHANGES_BYTES_PER_LINE, CHANGES_BYTES_PER_SITE, CHANGES_RESERVE, SITES_MAX_BUCKETS,
};
use crate::output::catalog::{Catalog, Entry};
use crate::output::OutTarget;
use crate::output::Table;
use crate::sites::Dataset;
use crate::spill::{Buckets, SpillDir};
use crate::store::StoreOptions;
use diff::Numbered;
use lines::{doc_bucket, DocFilter, DocLines, LineParts, Requests, SiteLines};
use sites::SitesStream;

/// Errors of the changes step: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    #[error("{0} holds no sites table: run `robots-census sites {0}` first")]
    NoSites(String),
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
    #[error("{0}")]
    Table(String),
    #[error(transparent)]
    Read(#[from] crate::output::read::ReadError),
    #[error(transparent)]
    Catalog(#[from] crate::output::catalog::CatalogError),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    #[error(transparent)]
    Spill(#[from] crate::spill::SpillError),
    #[error(transparent)]
    Sites(#[from] crate::sites::SitesError),
    #[error("cannot build changes rows: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// What a comparison was asked for: the dataset, the two crawls, the memory it may plan
/// to hold (`--memory-limit`) and where it spills what does not fit.
#[derive(Debug, Clone)]
pub struct Options {
    /// The dataset: a directory or `s3://bucket/prefix`.
    pub out: String,
    pub pairs: Pairs,
    pub memory_limit: usize,
    /// `--spill-dir`; a temporary directory inside the dataset when `None`.
    pub spill_dir: Option<PathBuf>,
}

/// Which crawls are compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairs {
    /// `--from A --to B`.
    One(String, String),
    /// `--consecutive`: every crawl with the next, in name order; with `--shard I/N`,
    /// the pairs whose index is I modulo N.
    Consecutive(Option<(usize, usize)>),
}

/// The crawls of the sites table of `catalog`: each crawl's partition (as the catalog
/// names it) and its rows. A sites table made from another state of the dataset is
/// refused (see [`crate::output::catalog`]).
fn sites_crawls(catalog: &Catalog) -> Result<BTreeMap<String, (PathBuf, u64)>, ChangesError> {
    match catalog.entry(Table::Sites) {
        Entry::Present(files) if !files.is_empty() => {}
        Entry::Stale(why) => return Err(ChangesError::Stale(why.clone())),
        _ => return Err(ChangesError::NoSites(catalog.root.clone())),
    }
    Ok(catalog
        .parts(Table::Sites)
        .iter()
        .map(|p| (p.crawl.clone(), (p.path.clone(), p.rows)))
        .collect())
}

/// The crawls of the sites table of the dataset `out`, in name order (Common Crawl's
/// `CC-MAIN-YYYY-WW` names sort by time).
pub fn crawls(out: &Path) -> Result<Vec<String>, ChangesError> {
    let catalog = Catalog::open_dir(out)?;
    Ok(sites_crawls(&catalog)?.into_keys().collect())
}

/// `robots-census changes`: compares each pair of crawls asked and writes
/// `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet` (replacing an earlier
/// comparison of the same crawls only once complete).
pub fn run(options: &Options) -> Result<Vec<(Summary, String)>, ChangesError> {
    let target = OutTarget::parse(&options.out, StoreOptions::default(), None)
        .map_err(|e| ChangesError::Table(e.to_string()))?;
    // Validated (and the crawls found) before a file is created: errors write nothing.
    let catalog = Catalog::open(&target)?;
    let dataset = Dataset::open(&target, options.spill_dir.as_deref())?;
    let crawls = sites_crawls(&catalog)?;
    let pairs: Vec<(String, String)> = match &options.pairs {
        Pairs::One(from, to) => {
            for crawl in [from, to] {
                if !crawls.contains_key(crawl) {
                    return Err(ChangesError::UnknownCrawl {
                        crawl: crawl.clone(),
                        have: crawls.keys().cloned().collect::<Vec<_>>().join(", "),
                    });
                }
            }
            if from == to {
                return Err(ChangesError::SameCrawl(from.clone()));
            }
            vec![(from.clone(), to.clone())]
        }
        Pairs::Consecutive(shard) => {
            let names: Vec<&String> = crawls.keys().collect();
            let all = names.windows(2).map(|w| (w[0].clone(), w[1].clone()));
            match shard {
                Some((i, n)) => all.skip(*i).step_by(*n).collect(),
                None => all.collect(),
            }
        }
    };
    // The table changes: `status --step changes` says again whether it is complete.
    target
        .remove_files(&[format!(
            "{}/{}",
            Table::Changes.name(),
            crate::output::dataset::SUCCESS_FILE
        )])
        .map_err(ChangesError::Table)?;
    let mut done = Vec::with_capacity(pairs.len());
    for (from, to) in pairs {
        let rel = write::rel_path(&from, &to);
        let spill = dataset.spill("changes-spill");
        let stage = spill.join("parts");
        // A remote crawl's sites partition is read from a copy, removed with the spill.
        let local = |crawl: &str| -> Result<(PathBuf, u64), ChangesError> {
            let (file, rows) = &crawls[crawl];
            let (path, _) = target
                .fetch(file, &stage)
                .map_err(|e| ChangesError::Table(e.to_string()))?;
            Ok((path, *rows))
        };
        let files = (local(&from)?, local(&to)?);
        let mut writer =
            write::ChangesWriter::create(&dataset.write_path(&rel), &from, &to, &catalog.state)?;
        let input = Compared {
            options,
            catalog: &catalog,
            target: &target,
            spill: &spill,
        };
        let summary = input.compare((&from, &to), files, &mut |c| writer.push(c))?;
        writer.commit()?;
        target.publish_derived(&rel, Table::Changes)?;
        done.push((summary, format!("{target}/{rel}")));
    }
    crate::output::views::write(&target)?;
    Ok(done)
}

/// The rows of a crawl's `groups`, `rules` and `sitemaps` parts (from the manifests),
/// and those parts task by task.
fn line_parts(catalog: &Catalog, crawl: &str) -> (u64, Vec<LineParts>) {
    let mut tasks: BTreeMap<String, LineParts> = BTreeMap::new();
    let mut rows = 0u64;
    for table in [Table::Groups, Table::Rules, Table::Sitemaps] {
        for part in catalog.parts(table).iter().filter(|p| p.crawl == crawl) {
            rows += part.rows;
            let task = part.rel.rsplit('/').next().unwrap_or_default().to_owned();
            let entry = tasks.entry(task).or_insert(LineParts {
                groups: None,
                rules: None,
                sitemaps: None,
            });
            let slot = match table {
                Table::Groups => &mut entry.groups,
                Table::Rules => &mut entry.rules,
                _ => &mut entry.sitemaps,
            };
            *slot = Some(part.path.clone());
        }
    }
    (rows, tasks.into_values().collect())
}

/// How many buckets `bytes` of records need under `budget`.
fn buckets_for(bytes: u64, budget: u64) -> usize {
    usize::try_from(bytes.div_ceil(budget.max(1)))
        .unwrap_or(usize::MAX)
        .clamp(1, SITES_MAX_BUCKETS)
}

/// What comparing two crawls needs besides the crawls.
struct Compared<'a> {
    options: &'a Options,
    catalog: &'a Catalog,
    target: &'a OutTarget,
    spill: &'a SpillDir,
}

impl Compared<'_> {
    /// Compares the sites partitions `files` (from, to: local files and their rows) and
    /// hands every change to `sink` in site order.
    fn compare(
        &self,
        (from, to): (&str, &str),
        ((file_a, rows_a_sites), (file_b, rows_b_sites)): ((PathBuf, u64), (PathBuf, u64)),
        sink: &mut diff::Sink<'_>,
    ) -> Result<Summary, ChangesError> {
        let (options, catalog, spill) = (self.options, self.catalog, self.spill);
        let (mut a, mut b) = (SitesStream::open(&file_a)?, SitesStream::open(&file_b)?);
        let (agents_a, agents_b) = (a.agents.clone(), b.agents.clone());
        let agents = diff::common_agents(&agents_a, &agents_b);
        let mut summary = Summary {
            from_crawl: from.to_owned(),
            to_crawl: to.to_owned(),
            agents: agents
                .iter()
                .map(|(name, _, _)| AgentSummary {
                    agent: (*name).to_owned(),
                    ..AgentSummary::default()
                })
                .collect(),
            ..Summary::default()
        };
        // What the comparison may hold, planned from the tables' rows (footers and manifests).
        let sites = rows_a_sites / agents_a.len().max(1) as u64
            + rows_b_sites / agents_b.len().max(1) as u64;
        let (rows_a, parts_a) = line_parts(catalog, from);
        let (rows_b, parts_b) = line_parts(catalog, to);
        let budget = options
            .memory_limit
            .saturating_sub(CHANGES_RESERVE)
            .max(options.memory_limit / 4) as u64;
        let per_range = sites.max(1);
        let ranges = buckets_for(sites.saturating_mul(CHANGES_BYTES_PER_SITE), budget);
        let docs = buckets_for(
            (rows_a + rows_b).saturating_mul(CHANGES_BYTES_PER_LINE),
            budget,
        );
        summary.buckets = ranges.max(docs);
        let range_size = per_range.div_ceil(ranges as u64).max(1);
        let range_of = |seq: u64| ((seq / range_size) as usize).min(ranges - 1);
        let numbered: Buckets<Numbered> = Buckets::new(ranges, &spill.join("sites"))?;
        let requests: [Buckets<Requests>; 2] = [
            Buckets::new(docs, &spill.join("asked-from"))?,
            Buckets::new(docs, &spill.join("asked-to"))?,
        ];
        let mut filters = [
            DocFilter::new(sites as usize / 2),
            DocFilter::new(sites as usize / 2),
        ];

        // Both crawls' sites side by side, in name order.
        let (mut x, mut y) = (a.next()?, b.next()?);
        let mut seq = 0u64;
        let mut rows = Numbered::default();
        let mut asked: [Vec<Requests>; 2] = [
            (0..docs).map(|_| Requests::default()).collect(),
            (0..docs).map(|_| Requests::default()).collect(),
        ];
        while x.is_some() || y.is_some() {
            let order = match (&x, &y) {
                (Some((nx, _)), Some((ny, _))) => nx.cmp(ny),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (here, there) = match order {
                std::cmp::Ordering::Less => (x.take(), None),
                std::cmp::Ordering::Greater => (None, y.take()),
                std::cmp::Ordering::Equal => (x.take(), y.take()),
            };
            let name = here
                .as_ref()
                .or(there.as_ref())
                .map(|(n, _)| n.clone())
                .unwrap_or_default();
            let (sx, sy) = (here.map(|(_, s)| s), there.map(|(_, s)| s));
            diff::site_changes(
                &name,
                sx.as_ref(),
                sy.as_ref(),
                &agents,
                &mut summary,
                &mut |c| {
                    rows.0.push((seq, c));
                    Ok(())
                },
            )?;
            if let (Some(dx), Some(dy)) = (
                sx.as_ref()
                    .filter(|s| s.present())
                    .and_then(|s| s.robots_doc()),
                sy.as_ref()
                    .filter(|s| s.present())
                    .and_then(|s| s.robots_doc()),
            ) {
                for (side, doc) in [(0, dx), (1, dy)] {
                    filters[side].insert(&doc);
                    let bucket = doc_bucket(&doc, docs);
                    asked[side][bucket].0.push((doc, seq, name.clone()));
                    if asked[side][bucket].0.len() >= 16 * 1024 {
                        requests[side].push(bucket, std::mem::take(&mut asked[side][bucket]))?;
                    }
                }
            }
            if rows.0.len() >= 16 * 1024 || range_of(seq) != range_of(seq + 1) {
                numbered.push(range_of(seq), std::mem::take(&mut rows))?;
            }
            seq += 1;
            if x.is_none() {
                x = a.next()?;
            }
            if y.is_none() {
                y = b.next()?;
            }
        }
        if !rows.0.is_empty() {
            numbered.push(range_of(seq.saturating_sub(1)), rows)?;
        }
        for (side, lists) in asked.into_iter().enumerate() {
            for (bucket, list) in lists.into_iter().enumerate() {
                if !list.0.is_empty() {
                    requests[side].push(bucket, list)?;
                }
            }
        }
        check_options(&mut summary, a.options.as_ref(), b.options.as_ref())?;
        numbered.finish()?;

        // Each crawl's lines, read once, joined to the sites that asked.
        let site_lines: Buckets<SiteLines> = Buckets::new(ranges, &spill.join("lines"))?;
        for (side, parts) in [(0u8, &parts_a), (1u8, &parts_b)] {
            let read: Buckets<DocLines> = Buckets::new(docs, &spill.join(&format!("read-{side}")))?;
            let fetch = PartsIn {
                target: self.target,
                stage: spill.join(&format!("parts-{side}")),
            };
            lines::read_lines(parts, &filters[usize::from(side)], &read, &fetch)?;
            read.finish()?;
            let asked = &requests[usize::from(side)];
            asked.finish()?;
            for bucket in 0..docs {
                lines::join(
                    side,
                    asked.take(bucket)?,
                    read.take(bucket)?,
                    range_of,
                    &site_lines,
                )?;
            }
        }
        site_lines.finish()?;
        drop(filters);

        // Range by range: each site's own changes, then its line changes.
        for range in 0..ranges {
            let mut sets: Vec<(u64, u8, Box<str>, lines::Lines)> = Vec::new();
            for chunk in site_lines.take(range)? {
                sets.extend(chunk?.0);
            }
            sets.sort_unstable_by_key(|(seq, side, _, _)| (*seq, *side));
            let mut sets = sets.into_iter().peekable();
            for chunk in numbered.take(range)? {
                for (seq, change) in chunk?.0 {
                    line_changes_before(Some(seq), &mut sets, &mut summary, sink)?;
                    // A site's own changes come before its line changes.
                    sink(change)?;
                }
            }
            line_changes_before(None, &mut sets, &mut summary, sink)?;
        }
        Ok(summary)
    }
}

/// A comparison's parts read in place (a local dataset), or fetched into its spill
/// directory a task at a time (a remote one).
pub(crate) struct PartsIn<'a> {
    target: &'a OutTarget,
    stage: PathBuf,
}

impl PartsIn<'_> {
    /// `file` as a local file, and whether it is a copy to remove once read.
    pub(crate) fn fetch(&self, file: &Path) -> Result<(PathBuf, bool), ChangesError> {
        self.target
            .fetch(file, &self.stage)
            .map_err(|e| ChangesError::Table(e.to_string()))
    }
}

/// The line sets of a range, (site number, side, site, lines) sorted by number and side.
type LineSets = std::iter::Peekable<std::vec::IntoIter<(u64, u8, Box<str>, lines::Lines)>>;

/// Hands `sink` the line changes of the sites in `sets` numbered below `limit` (all of
/// them when `None`), in order.
fn line_changes_before(
    limit: Option<u64>,
    sets: &mut LineSets,
    summary: &mut Summary,
    sink: &mut diff::Sink<'_>,
) -> Result<(), ChangesError> {
    while let Some(&(seq, _, _, _)) = sets.peek() {
        if limit.is_some_and(|l| seq >= l) {
            break;
        }
        let mut pair = [lines::Lines::default(), lines::Lines::default()];
        let mut name: Box<str> = Box::default();
        while let Some((_, side, site, lines)) = sets.next_if(|(s, _, _, _)| *s == seq) {
            if let Some(slot) = pair.get_mut(usize::from(side)) {
                *slot = lines;
            }
            name = site;
        }
        let [from, to] = pair;
        diff::line_changes(&name, &from, &to, summary, sink)?;
    }
    Ok(())
}

/// Both crawls' sites tables must have been made with the same site key and status
/// semantics; the summary names them.
fn check_options(
    total: &mut Summary,
    a: Option<&(String, String)>,
    b: Option<&(String, String)>,
) -> Result<(), ChangesError> {
    let options = |(key, semantics): &(String, String)| {
        format!("--site-key {key} --status-semantics {semantics}")
    };
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(ChangesError::MixedOptions {
            from: total.from_crawl.clone(),
            to: total.to_crawl.clone(),
            a: options(x),
            b: options(y),
        }),
        (Some((key, semantics)), _) | (None, Some((key, semantics))) => {
            total.site_key.clone_from(key);
            total.status_semantics.clone_from(semantics);
            Ok(())
        }
        (None, None) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_must_agree_and_are_named_per_crawl() {
        let mut total = Summary {
            from_crawl: "A".into(),
            to_crawl: "B".into(),
            ..Summary::default()
        };
        let host = ("host".to_owned(), "rfc9309".to_owned());
        check_options(&mut total, None, Some(&host)).expect("one side only");
        assert_eq!(
            (total.site_key.as_str(), total.status_semantics.as_str()),
            ("host", "rfc9309")
        );
        let domain = ("registrable-domain".to_owned(), "rfc9309".to_owned());
        let message = check_options(&mut total, Some(&domain), Some(&host))
            .expect_err("mixed")
            .to_string();
        assert!(
            message.starts_with("the sites table of A was made with --site-key registrable-domain")
                && message.contains("that of B with --site-key host"),
            "{message}"
        );
    }
}
