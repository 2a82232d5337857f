//! The `sites` step: the run's tables in, one row per (crawl, site, agent) out.
//!
//! ```text
//! <OUT>/documents/**.parquet --read (one crawl, or one pass of it, at a time)--> captures
//!   --decide (latest per URL, redirects <= 5 hops, precedence)--> deciding capture per site
//!   + <OUT>/agents/**.parquet (rows of the deciding captures: agents.rs) + --ranks
//!   --classes (census::site_classes: status class, Google and Common Crawl readings)
//!   --> <OUT>/sites/crawl=<CRAWL>/part-0.parquet
//! ```
//!
//! Every choice a published study made differently is an option: the site key
//! (`--site-key`), what statuses mean (`--status-semantics`), the ranked list and its
//! top-k strata (`--ranks`, stored as `<OUT>/ranks/ranks.parquet`). The options are
//! columns of every row, so a table says how it was made. `--memory-limit` is not: it
//! sets how many passes a crawl takes (`passes.rs`), never what is written.

mod agents;
mod decide;
mod key;
mod names;
pub(crate) mod passes;
mod ranks;
pub(crate) mod read;
mod rows;
pub(crate) mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use crate::census::site_classes::{PerClass, StatusClass, StatusSemantics};
pub use crate::limits::MAX_REDIRECT_HOPS;
pub use key::SiteKey;

use crate::limits::DEFAULT_MEMORY_LIMIT;
use crate::output::catalog::{Catalog, DatasetState};
use crate::output::ids::SortedIds;
use crate::output::Table;
use crate::verdicts::AgentsArg;
use agents::{AgentRows, Find};
use passes::Plan;
use read::DocId;
use rows::{Context, Writer};
use write::TableFile;

/// Errors of the site step: all end it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SitesError {
    #[error("{0} holds no documents table: run `robots-census run ... --out {0}` first")]
    NoDocuments(PathBuf),
    #[error("{0}: no agents table for crawl {1}: run `robots-census run` with the agents table (the default)")]
    NoAgents(PathBuf, String),
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
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Parquet file {path}: {source}")]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error(transparent)]
    Read(#[from] crate::output::read::ReadError),
    #[error(transparent)]
    Catalog(#[from] crate::output::catalog::CatalogError),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// A table the step reads is absent or stale: why, and the command that makes it.
    #[error("{0}")]
    Unavailable(String),
    #[error("cannot build sites rows: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// One pass would hold more site names than 32-bit offsets reach.
    #[error("a pass of the sites step holds more than 4 GiB of site names: lower --memory-limit so the crawl is decided in more passes")]
    TooManyNames,
}

/// What `sites` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub out: PathBuf,
    pub site_key: SiteKey,
    pub semantics: StatusSemantics,
    pub ranks: Option<PathBuf>,
    /// Agents to report (`--agents`); all agents of the agents table when `None`.
    pub agents: Option<AgentsArg>,
    /// Bytes the step plans to hold (`--memory-limit`): a larger crawl is decided in
    /// passes over ranges of site names.
    pub memory_limit: usize,
}

impl Options {
    /// The step's defaults over `out` (what `report` runs when there is no sites table).
    pub fn defaults(out: &Path) -> Self {
        Options {
            out: out.to_owned(),
            site_key: SiteKey::default(),
            semantics: StatusSemantics::default(),
            ranks: None,
            agents: None,
            memory_limit: DEFAULT_MEMORY_LIMIT,
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
    /// Passes the crawl was decided in (more than one when it exceeds `--memory-limit`).
    pub passes: usize,
    /// Row groups of the agents table whose rows were not in the documents' order, read
    /// with a filter instead (none in a dataset `run` wrote; see `agents::Find::At`).
    pub refiltered: usize,
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
            if c.passes > 1 {
                out += &format!(" in {} passes (--memory-limit);", c.passes);
            }
            if c.refiltered > 0 {
                out += &format!(
                    " {} agents row groups not in the documents' order, read with a filter;",
                    c.refiltered
                );
            }
            for (class, n) in StatusClass::ALL.iter().zip(&c.classes) {
                out += &format!(" {}={n}", class.as_str());
            }
            out += "\n";
        }
        out
    }
}

/// Runs the step over `options.out`, replacing `<out>/sites/` when it succeeds (and
/// removing `<out>/changes/`, which compared the table replaced).
pub fn run(options: &Options) -> Result<Report, SitesError> {
    let out = &options.out;
    let catalog = Catalog::open_dir(out)?;
    // The parts of finished tasks only: a task still running (or killed) is not read.
    let documents = catalog
        .files(Table::Documents)
        .map_err(SitesError::Unavailable)?
        .to_vec();
    if documents.is_empty() {
        return Err(SitesError::NoDocuments(out.clone()));
    }
    let wanted = options.wanted_agents()?;
    let mut report = Report::default();
    let ranked = match &options.ranks {
        Some(path) => {
            let ranks = ranks::read(path)?;
            let mut file = TableFile::create(
                &out.join("ranks").join("ranks.parquet"),
                Table::Ranks,
                &catalog.state,
            )?;
            file.write(&ranks::batch(&ranks)?)?;
            file.commit()?;
            report.ranked_hosts = Some(ranks.rows.len());
            report.warnings = ranks.skipped.clone();
            ranks::by_site(&ranks, options.site_key)
        }
        None => HashMap::new(),
    };
    // Ranked sites in name order: those without a capture get "No robots.txt capture".
    let mut ranked_sites: Vec<(&str, i64)> = ranked.iter().map(|(s, r)| (s.as_str(), *r)).collect();
    ranked_sites.sort_unstable();
    // Written beside the old table, which is replaced only when every crawl is done.
    let staging = crate::output::dataset::temp_path(&out.join(Table::Sites.name()));
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| SitesError::Io { path, source }
    };
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
    }
    for (crawl, (files, rows)) in read::crawls(&documents)? {
        let path = staging
            .join(crate::output::dataset::partition_dir(&crawl))
            .join("part-0.parquet");
        let input = CrawlInput {
            root: catalog.dir.as_deref().unwrap_or(out),
            crawl: &crawl,
            files: &files,
            rows,
        };
        let counts = one_crawl(
            options,
            wanted.as_deref(),
            &input,
            &ranked,
            &ranked_sites,
            &path,
            &catalog.state,
        )?;
        report.crawls.push(counts);
    }
    let sites = out.join(Table::Sites.name());
    if sites.exists() {
        std::fs::remove_dir_all(&sites).map_err(io(&sites))?;
    }
    if staging.exists() {
        std::fs::rename(&staging, &sites).map_err(io(&sites))?;
    }
    // The changes table compares the sites table just replaced: it is not this one's.
    let changes = out.join(Table::Changes.name());
    if changes.exists() {
        std::fs::remove_dir_all(&changes).map_err(io(&changes))?;
    }
    crate::output::views::write(&crate::output::OutTarget::Local(out.clone()))?;
    Ok(report)
}

/// One crawl's documents: the part files holding it and its number of rows.
struct CrawlInput<'a> {
    /// The dataset's directory as the catalog names it (canonical), so that the
    /// agents part beside each documents part is found whatever path `--out` was given.
    root: &'a Path,
    crawl: &'a str,
    files: &'a [PathBuf],
    rows: usize,
}

/// Decides every site of one crawl and writes its partition, in as many passes as
/// `--memory-limit` asks for (see [`passes`]).
fn one_crawl(
    options: &Options,
    wanted: Option<&[String]>,
    input: &CrawlInput<'_>,
    ranked: &HashMap<String, i64>,
    ranked_sites: &[(&str, i64)],
    path: &Path,
    state: &DatasetState,
) -> Result<CrawlCounts, SitesError> {
    let (crawl, files) = (input.crawl, input.files);
    let plan = Plan::new(
        files,
        crawl,
        input.rows,
        options.site_key,
        options.memory_limit,
    )?;
    let agent_files: Vec<Option<PathBuf>> = files
        .iter()
        .map(|f| read::companion_file(input.root, f, Table::Agents.name()))
        .collect();
    let mut writer = Writer::create(path, state)?;
    let mut refiltered = 0;
    for pass in plan.passes() {
        // What the planning scan or the pass before freed goes back first.
        if plan.len() > 1 {
            passes::release_freed_memory();
        }
        let (mut captures, names) = read::read_crawl(
            files,
            crawl,
            plan.capacity(&pass, input.rows),
            options.site_key,
            &pass,
        )?;
        decide::latest_per_url(&mut captures);
        let decided = decide::sites(&captures, &names, options.semantics)?;
        drop((captures, names));
        // The captures are the pass's largest allocation: gone before the rows are built.
        if plan.len() > 1 {
            passes::release_freed_memory();
        }
        let sites = &decided.sites;
        let ends: Vec<DocId> = sites.iter().map(|s| s.end.doc_id).collect();
        let mut shown = ends.clone();
        shown.extend(sites.iter().map(|s| s.start));
        let (urls, rows) = read_shown(files, &agent_files, shown, ends, plan.len() == 1)?;
        refiltered += rows.refiltered;
        let agents = choose_agents(&options.out, wanted, crawl, &rows)?;
        let ctx = Context {
            options,
            crawl,
            urls: &urls,
            facts: &rows,
            agents: &agents,
        };
        // The ranked sites of this pass without a capture get a row of their own.
        let uncaptured: Vec<(&str, i64)> = ranked_sites
            .iter()
            .filter(|(s, _)| pass.holds(s))
            .filter(|(s, _)| sites.binary_search_by(|x| decided.name(x).cmp(s)).is_err())
            .copied()
            .collect();
        writer.append(&ctx, &decided, &uncaptured, ranked)?;
    }
    let tally = writer.finish()?;
    Ok(CrawlCounts {
        crawl: crawl.to_owned(),
        sites: tally.sites,
        rows: tally.rows,
        classes: tally.classes,
        passes: plan.len(),
        refiltered,
    })
}

/// The URLs of the captures a pass shows (`shown`), and the agents rows of those
/// that decide (`ends`).
fn read_shown(
    files: &[PathBuf],
    agent_files: &[Option<PathBuf>],
    shown: Vec<DocId>,
    ends: Vec<DocId>,
    one_pass: bool,
) -> Result<(read::Urls, AgentRows), SitesError> {
    if one_pass {
        // The two reads share the pool: the URLs' row groups are few and quick, and
        // the agents' are many, so neither waits for the other to end.
        let (urls, rows) = rayon::join(
            || read::read_urls(files, SortedIds::new(shown), false),
            || agents::read_agents(agent_files, ends, Find::All),
        );
        return Ok((urls?.0, rows?));
    }
    // One pass of several wants a few of the crawl's captures: the URLs' read says
    // where they are in the documents table, and their agents rows alone are read there.
    let (urls, places) = read::read_urls(files, SortedIds::new(shown), true)?;
    let rows = agents::read_agents(agent_files, ends, Find::At(&places))?;
    Ok((urls, rows))
}

/// The agents to report for a crawl, in name order, with their index in `rows`:
/// `--agents` (each must be in the table) or all of the table's.
fn choose_agents<'a>(
    out: &Path,
    wanted: Option<&[String]>,
    crawl: &str,
    rows: &'a AgentRows,
) -> Result<Vec<(&'a str, usize)>, SitesError> {
    if rows.agents.is_empty() {
        return Err(SitesError::NoAgents(out.to_owned(), crawl.to_owned()));
    }
    let all = rows.agents.iter().enumerate().map(|(i, a)| (a.as_str(), i));
    let Some(list) = wanted else {
        return Ok(all.collect());
    };
    if let Some(unknown) = list.iter().find(|a| !rows.agents.contains(a)) {
        return Err(SitesError::UnknownAgent {
            agent: unknown.clone(),
            crawl: crawl.to_owned(),
            have: rows.agents.join(","),
        });
    }
    Ok(all.filter(|(a, _)| list.iter().any(|l| l == a)).collect())
}
