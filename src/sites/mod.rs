//! The `sites` step: the run's tables in, one row per (crawl, site, agent) out.
//!
//! ```text
//! <OUT>/documents + agents of one crawl --read once (read.rs, facts.rs)--> captures,
//!   each with its agents' facts, routed to buckets by site (spill.rs: in memory when
//!   the crawl fits --memory-limit, else on disk)
//!   --targets.rs: captures that redirects from other buckets reach-->
//!   --decide.rs, bucket by bucket (latest per URL, redirects <= 5 hops, precedence)-->
//!   a sorted run of decided sites per bucket --rows.rs: merged by name, + --ranks-->
//!   <OUT>/sites/crawl=<CRAWL>/part-0.parquet (census::site_classes: classes, block)
//! ```
//!
//! Every choice a published study made differently is an option: the site key
//! (`--site-key`), what statuses mean (`--status-semantics`), the ranked list and its
//! top-k strata (`--ranks`, stored as `<OUT>/ranks/ranks.parquet`). The options are
//! columns of every row, so a table says how it was made. `--memory-limit` is not: it
//! sets how many buckets a crawl is spilled to, never what is written, and each table
//! is read once whatever it is.

mod capture;
mod decide;
mod facts;
mod key;
mod ranks;
pub(crate) mod read;
mod rows;
mod targets;
pub(crate) mod write;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use crate::census::site_classes::{PerClass, StatusClass, StatusSemantics};
pub use key::SiteKey;

use crate::limits::{
    DEFAULT_MEMORY_LIMIT, SITES_BYTES_PER_CAPTURE, SITES_MAX_BUCKETS, SITES_RESERVE,
};
use crate::output::catalog::{Catalog, DatasetState};
use crate::output::dataset::partition_value;
use crate::output::derived::TableFile;
use crate::output::OutTarget;
use crate::output::Table;
use crate::spill::{Buckets, SpillDir};
use crate::store::StoreOptions;
use crate::verdicts::AgentsArg;
use capture::Captures;
use read::{CrawlParts, Part, Route};

/// Errors of the site step: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SitesError {
    #[error("{0} holds no documents table: run `robots-census run ... --out {0}` first")]
    NoDocuments(String),
    #[error(
        "crawl {0}: no agents table: run `robots-census run` with the agents table (the default)"
    )]
    NoAgents(String),
    #[error("--crawl {crawl:?} is not in the documents table (it has: {have})")]
    UnknownCrawl { crawl: String, have: String },
    #[error("--agents: {agent:?} is not in the agents table of crawl {crawl} (it has: {have})")]
    UnknownAgent {
        agent: String,
        crawl: String,
        have: String,
    },
    #[error("--agents: no agent tokens given")]
    NoAgentsGiven,
    #[error("--ranks {0}: no `rank,host` line could be read")]
    EmptyRanks(PathBuf),
    #[error("{path}: {why}")]
    Misaligned { path: PathBuf, why: String },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Read(#[from] crate::output::read::ReadError),
    #[error(transparent)]
    Catalog(#[from] crate::output::catalog::CatalogError),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    #[error(transparent)]
    Spill(#[from] crate::spill::SpillError),
    /// A table the step reads is absent or stale: why, and the command that makes it.
    #[error("{0}")]
    Unavailable(String),
    #[error("cannot build sites rows: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// What `sites` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The dataset: a directory or `s3://bucket/prefix`.
    pub out: String,
    /// The crawls to decide (`--crawl`); every crawl of the documents table when empty.
    pub crawls: Vec<String>,
    /// `--shard I/N`: the crawls whose index (in name order) is I modulo N.
    pub shard: Option<(usize, usize)>,
    pub site_key: SiteKey,
    pub semantics: StatusSemantics,
    pub ranks: Option<PathBuf>,
    /// Agents to report (`--agents`); all agents of the agents table when `None`.
    pub agents: Option<AgentsArg>,
    /// Bytes the step plans to hold (`--memory-limit`): a larger crawl is spilled to
    /// buckets on disk.
    pub memory_limit: usize,
    /// Where spilled buckets go (`--spill-dir`); a temporary directory inside the
    /// dataset when `None`.
    pub spill_dir: Option<PathBuf>,
}

impl Options {
    /// The step's defaults over `out` (what `report` runs when there is no sites table).
    pub fn defaults(out: &str) -> Self {
        Options {
            out: out.to_owned(),
            crawls: Vec::new(),
            shard: None,
            site_key: SiteKey::default(),
            semantics: StatusSemantics::default(),
            ranks: None,
            agents: None,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            spill_dir: None,
        }
    }

    /// The `--agents` tokens, a list file read; `None` for every agent of the table.
    fn wanted_agents(&self) -> Result<Option<Vec<String>>, SitesError> {
        let Some(arg) = &self.agents else {
            return Ok(None);
        };
        let agents = arg
            .resolve()
            .map_err(|(path, source)| SitesError::Io { path, source })?;
        if agents.is_empty() {
            return Err(SitesError::NoAgentsGiven);
        }
        Ok(Some(agents))
    }
}

/// What `sites` wrote for one crawl.
#[derive(Debug)]
pub struct CrawlCounts {
    pub crawl: String,
    pub sites: usize,
    pub rows: usize,
    /// Sites per status class, in [`StatusClass::ALL`] order.
    pub classes: PerClass<usize>,
    /// Buckets the crawl was spilled to (more than one when it exceeds `--memory-limit`).
    pub buckets: usize,
}

/// What `sites` wrote, per crawl.
#[derive(Debug, Default)]
pub struct Report {
    pub crawls: Vec<CrawlCounts>,
    pub ranked_hosts: Option<usize>,
    /// Lines of the ranks file that were skipped.
    pub warnings: Vec<String>,
}

impl Report {
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(n) = self.ranked_hosts {
            out += &format!("ranks: {n} hosts, {} lines skipped\n", self.warnings.len());
        }
        for c in &self.crawls {
            out += &format!("{}: {} sites, {} rows;", c.crawl, c.sites, c.rows);
            if c.buckets > 1 {
                out += &format!(" spilled to {} buckets (--memory-limit);", c.buckets);
            }
            for (class, n) in StatusClass::ALL.iter().zip(&c.classes) {
                out += &format!(" {}={n}", class.as_str());
            }
            out += "\n";
        }
        out
    }
}

/// The buckets a crawl of `rows` documents rows is spilled to under `memory_limit`:
/// one (nothing spilled) when its captures fit beside the step's reserve.
pub fn buckets(rows: u64, memory_limit: usize) -> usize {
    let budget = memory_limit
        .saturating_sub(SITES_RESERVE)
        .max(memory_limit / 4)
        .max(1) as u64;
    let need = rows.saturating_mul(SITES_BYTES_PER_CAPTURE as u64);
    usize::try_from(need.div_ceil(budget))
        .unwrap_or(usize::MAX)
        .clamp(1, SITES_MAX_BUCKETS)
}

/// The crawls of the documents table of `catalog`, each with its parts and the agents
/// part beside each.
fn crawl_parts(catalog: &Catalog) -> BTreeMap<String, CrawlParts> {
    let agents: HashMap<(&str, &str), &Path> = catalog
        .parts(Table::Agents)
        .iter()
        .filter_map(|p| Some(((p.crawl.as_str(), task_of(&p.rel)?), p.path.as_path())))
        .collect();
    let wanted = catalog.crawls(Table::Documents);
    let mut crawls: BTreeMap<String, CrawlParts> = BTreeMap::new();
    for part in catalog
        .parts(Table::Documents)
        .iter()
        .filter(|p| wanted.contains(&p.crawl))
    {
        let crawl = crawls
            .entry(part.crawl.clone())
            .or_insert_with(|| CrawlParts {
                crawl: part.crawl.clone(),
                ..CrawlParts::default()
            });
        let agents = task_of(&part.rel)
            .and_then(|task| agents.get(&(part.crawl.as_str(), task)))
            .map(|p| p.to_path_buf());
        crawl.parts.push(Part {
            documents: part.path.clone(),
            agents,
            rows: part.rows,
        });
        crawl.rows += part.rows;
    }
    crawls
}

/// The task of a part's relative path (`<table>/crawl=<C>/<task>.parquet`).
fn task_of(rel: &str) -> Option<&str> {
    rel.rsplit('/').next()?.strip_suffix(".parquet")
}

/// Runs the step over the dataset `options.out` (a directory or `s3://bucket/prefix`):
/// decides the crawls asked (every crawl of the documents table by default) and
/// replaces their partitions of `<out>/sites/`, each atomically; the comparisons of
/// `<out>/changes/` that involve them go (they compared the partitions replaced).
pub fn run(options: &Options) -> Result<Report, SitesError> {
    let target = OutTarget::parse(&options.out, StoreOptions::default(), None)
        .map_err(|e| SitesError::Unavailable(e.to_string()))?;
    let catalog = Catalog::open(&target)?;
    let dataset = Dataset::open(&target, options.spill_dir.as_deref())?;
    if let Err(why) = catalog.files(Table::Documents) {
        return Err(SitesError::Unavailable(why));
    }
    let mut crawls = crawl_parts(&catalog);
    if crawls.is_empty() {
        return Err(SitesError::NoDocuments(options.out.clone()));
    }
    let everything = options.crawls.is_empty() && options.shard.is_none();
    if let Some((i, n)) = options.shard {
        let mine: Vec<String> = crawls.keys().skip(i).step_by(n).cloned().collect();
        crawls.retain(|c, _| mine.contains(c));
    }
    if !options.crawls.is_empty() {
        for crawl in &options.crawls {
            if !crawls.contains_key(crawl) {
                return Err(SitesError::UnknownCrawl {
                    crawl: crawl.clone(),
                    have: crawls.keys().cloned().collect::<Vec<_>>().join(", "),
                });
            }
        }
        crawls.retain(|c, _| options.crawls.contains(c));
    }
    let wanted = options.wanted_agents()?;
    let mut report = Report::default();
    let ranked = match &options.ranks {
        Some(path) => {
            let ranks = ranks::read(path)?;
            let rel = format!("{}/ranks.parquet", Table::Ranks.name());
            let mut file = TableFile::create(
                &dataset.write_path(&rel),
                Table::Ranks,
                &catalog.state,
                None,
            )?;
            file.write(&ranks::batch(&ranks)?)?;
            file.commit()?;
            target.publish_derived(&rel, Table::Ranks)?;
            report.ranked_hosts = Some(ranks.rows.len());
            report.warnings = ranks.skipped.clone();
            ranks::by_site(&ranks, options.site_key)
        }
        None => HashMap::new(),
    };
    // Ranked sites in name order: those without a capture get "No robots.txt capture".
    let mut ranked_sites: Vec<(&str, i64)> = ranked.iter().map(|(s, r)| (s.as_str(), *r)).collect();
    ranked_sites.sort_unstable();
    let decide = Decide {
        options,
        wanted: wanted.as_deref(),
        ranked: &ranked,
        ranked_sites: &ranked_sites,
        state: &catalog.state,
    };
    for crawl in crawls.values() {
        let rel = format!(
            "{}/{}/part-0.parquet",
            Table::Sites.name(),
            crate::output::dataset::partition_dir(&crawl.crawl)
        );
        let spill = dataset.spill("sites-spill");
        let counts = decide.crawl(crawl, &dataset, &dataset.write_path(&rel), &spill)?;
        target.publish_derived(&rel, Table::Sites)?;
        report.crawls.push(counts);
    }
    let decided: Vec<String> = report
        .crawls
        .iter()
        .map(|c| partition_value(&c.crawl))
        .collect();
    let in_partition = |rel: &str, key: &str| {
        rel.split('/').any(|part| {
            part.strip_prefix(key)
                .is_some_and(|v| decided.iter().any(|d| d == v))
        })
    };
    let mut stale: Vec<String> = Vec::new();
    if everything {
        // A crawl no longer in the documents table has no partition of this table.
        stale.extend(
            target
                .files_under(Table::Sites.name())
                .map_err(SitesError::Unavailable)?
                .into_iter()
                .filter(|rel| !in_partition(rel, "crawl=")),
        );
    }
    // The tables changed: `status --step` says again whether they are complete.
    for table in [Table::Sites, Table::Changes] {
        stale.push(format!(
            "{}/{}",
            table.name(),
            crate::output::dataset::SUCCESS_FILE
        ));
    }
    // A comparison of a crawl whose partition was replaced compared the old one.
    stale.extend(
        target
            .files_under(Table::Changes.name())
            .map_err(SitesError::Unavailable)?
            .into_iter()
            .filter(|rel| in_partition(rel, "from_crawl=") || in_partition(rel, "to_crawl=")),
    );
    target
        .remove_files(&stale)
        .map_err(SitesError::Unavailable)?;
    crate::output::views::write(&target)?;
    Ok(report)
}

/// A dataset a step after the run reads and writes, wherever it is: where its derived
/// files are written before they are published, and where the step spills.
pub(crate) struct Dataset<'a> {
    pub(crate) target: &'a OutTarget,
    /// Where spill directories (and fetched parts) go.
    spill_base: PathBuf,
}

impl Drop for Dataset<'_> {
    /// The local staging directory of a remote dataset's derived files goes with the
    /// step, whatever ended it (each file is removed once published).
    fn drop(&mut self) {
        self.target.clean_staging();
    }
}

impl<'a> Dataset<'a> {
    /// The dataset `target`, spilling under `spill_dir` (default: inside a local
    /// dataset, the system's temporary directory for a remote one). A start removes
    /// what a killed step left in a local dataset: temporaries of its files, its spill
    /// directory.
    pub(crate) fn open(
        target: &'a OutTarget,
        spill_dir: Option<&Path>,
    ) -> Result<Self, SitesError> {
        let spill_base = match (spill_dir, target) {
            (Some(dir), _) => dir.to_owned(),
            (None, OutTarget::Local(dir)) => dir.clone(),
            (None, OutTarget::S3 { .. }) => std::env::temp_dir(),
        };
        if let OutTarget::Local(dir) = target {
            crate::output::dataset::remove_leftovers(dir).map_err(io(dir))?;
        }
        Ok(Dataset { target, spill_base })
    }

    /// Where the derived file `rel` is written before [`OutTarget::publish_derived`].
    pub(crate) fn write_path(&self, rel: &str) -> PathBuf {
        self.target.local_dir().join(rel)
    }

    /// A new spill directory named after `name`, unique to this process, removed when
    /// dropped.
    pub(crate) fn spill(&self, name: &str) -> SpillDir {
        SpillDir::new(crate::output::dataset::temp_path(
            &self.spill_base.join(name),
        ))
    }
}

/// A crawl's parts read in place (a local dataset), or fetched into a spill directory a
/// few at a time (a remote one).
struct PartsIn<'a> {
    target: &'a OutTarget,
    stage: PathBuf,
}

impl read::Fetch for PartsIn<'_> {
    fn fetch(&self, file: &Path) -> Result<(PathBuf, bool), SitesError> {
        self.target
            .fetch(file, &self.stage)
            .map_err(|e| SitesError::Unavailable(e.to_string()))
    }

    fn group(&self) -> usize {
        match self.target {
            OutTarget::Local(_) => usize::MAX,
            // A few parts per thread on local disk at a time.
            OutTarget::S3 { .. } => 2 * rayon::current_num_threads().max(1),
        }
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> SitesError + '_ {
    move |source| SitesError::Io {
        path: path.to_owned(),
        source,
    }
}

/// What deciding a crawl needs besides the crawl.
struct Decide<'a> {
    options: &'a Options,
    wanted: Option<&'a [String]>,
    ranked: &'a HashMap<String, i64>,
    ranked_sites: &'a [(&'a str, i64)],
    state: &'a DatasetState,
}

impl Decide<'_> {
    /// Decides every site of `crawl` of `dataset` and writes its partition at `path`,
    /// spilling to `spill` when it does not fit the memory limit.
    fn crawl(
        &self,
        crawl: &CrawlParts,
        dataset: &Dataset<'_>,
        path: &Path,
        spill: &SpillDir,
    ) -> Result<CrawlCounts, SitesError> {
        let options = self.options;
        let k = buckets(crawl.rows, options.memory_limit);
        let route = Route {
            key: options.site_key,
            buckets: k,
        };
        let captures: Buckets<Captures> = Buckets::new(k, &spill.join("captures"))?;
        let parts = PartsIn {
            target: dataset.target,
            stage: spill.join("parts"),
        };
        let read = read::read_crawl(crawl, route, &captures, &parts)?;
        captures.finish()?;
        let agents = choose_agents(self.wanted, &crawl.crawl, &read.agents)?;
        let width = read.agents.len();
        let targets = targets::collect(&captures, &read.crossings.targets(), width)?;
        let runs = Buckets::new(k, &spill.join("runs"))?;
        for bucket in 0..k {
            let mut local = Captures::new(width);
            for chunk in captures.take(bucket)? {
                local.append(chunk?);
            }
            decide::latest_per_url(&mut local);
            let decided = decide::sites(&local, &targets, options.semantics);
            drop(local);
            for piece in decided.pieces(crate::limits::SITES_RUN_PIECE) {
                runs.push(bucket, piece)?;
            }
        }
        drop(targets);
        runs.finish()?;
        let ctx = rows::Context {
            options,
            crawl: &crawl.crawl,
            agents: &agents,
        };
        let mut merged = rows::Merged::new(&runs)?;
        let tally = rows::write(
            &ctx,
            &mut merged,
            self.ranked,
            self.ranked_sites,
            path,
            self.state,
        )?;
        Ok(CrawlCounts {
            crawl: crawl.crawl.clone(),
            sites: tally.sites,
            rows: tally.rows,
            classes: tally.classes,
            buckets: k,
        })
    }
}

/// The agents to report for a crawl, in name order, each with its place in a
/// capture's facts (`names`: as every document lists them): `--agents` (each must be
/// in the table) or all of them.
fn choose_agents<'a>(
    wanted: Option<&[String]>,
    crawl: &str,
    names: &'a [String],
) -> Result<Vec<(&'a str, usize)>, SitesError> {
    let mut all: Vec<(&str, usize)> = names
        .iter()
        .enumerate()
        .map(|(i, a)| (a.as_str(), i))
        .collect();
    all.sort_unstable();
    let Some(list) = wanted else {
        return Ok(all);
    };
    if let Some(unknown) = list.iter().find(|a| !names.contains(a)) {
        let mut have: Vec<&str> = names.iter().map(String::as_str).collect();
        have.sort_unstable();
        return Err(SitesError::UnknownAgent {
            agent: unknown.clone(),
            crawl: crawl.to_owned(),
            have: have.join(","),
        });
    }
    Ok(all
        .into_iter()
        .filter(|(a, _)| list.iter().any(|l| l == a))
        .collect())
}
