//! Reading what `changes` compares: one crawl's partition of the `sites` table (status
//! class, deciding capture and block state per site and agent), and the rule lines and
//! sitemaps of chosen deciding captures from the run's `groups`, `rules` and `sitemaps`.
//!
//! Only the columns needed are read, and rule lines and sitemaps only for the captures
//! asked about (the deciding robots.txt files of sites present in both crawls).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::Array;

use super::passes::Range;
use super::ChangesError;
use crate::output::catalog::{Catalog, Entry};
use crate::output::dataset::partition_dir;
use crate::output::ids::{IdMap, SortedIds, Wanted};
use crate::output::read::{batches, batches_where, file_rows, part_files, AgentNumbers};
use crate::output::Table;
use crate::sites::read::{opt, Columns, DocId};
use crate::sites::StatusClass;

/// How a site's deciding capture treats one agent, in the sense of
/// `queries/agent_restrictions_by_crawl.sql`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Block {
    /// Anything else: a robots.txt that restricts nothing probed, or a capture that is
    /// not a robots.txt file (an allow-all status, forbidden, defer visits, ...).
    None,
    /// A robots.txt file, `/` allowed, some path disallowed (`google_class = partial`).
    Partial,
    /// A robots.txt file (class "Robots.txt with rules" or "no rules") disallowing `/`.
    Full,
}

impl Block {
    pub fn as_str(self) -> &'static str {
        match self {
            Block::None => "none",
            Block::Partial => "partial",
            Block::Full => "full",
        }
    }

    fn of(class: StatusClass, root_allowed: Option<bool>, google_class: Option<&str>) -> Block {
        if !is_robots(class) {
            return Block::None;
        }
        match (root_allowed, google_class) {
            (Some(false), _) => Block::Full,
            (Some(true), Some("partial")) => Block::Partial,
            _ => Block::None,
        }
    }
}

/// The deciding capture is a robots.txt file whose lines count.
pub fn is_robots(class: StatusClass) -> bool {
    matches!(class, StatusClass::WithRules | StatusClass::NoRules)
}

/// One site in one crawl.
#[derive(Debug, Clone)]
pub struct SiteState {
    pub class: StatusClass,
    pub doc_id: Option<DocId>,
    /// By agent, in [`CrawlSites::agents`] order; `None` when the table has no row.
    pub blocks: Vec<Option<Block>>,
}

impl SiteState {
    /// "Present" in the sense of `queries/changes_by_agent.sql`: any class but
    /// "No robots.txt capture".
    pub fn present(&self) -> bool {
        self.class != StatusClass::NoCapture
    }
}

/// One crawl's partition of the `sites` table.
#[derive(Debug, Default)]
pub struct CrawlSites {
    pub crawl: String,
    pub site_key: String,
    pub semantics: String,
    /// Agents as first seen in the table (a sites table lists the same agents per site).
    pub agents: Vec<String>,
    pub sites: BTreeMap<Box<str>, SiteState>,
}

/// One crawl of the sites table: the part files that hold it, and its rows in them.
#[derive(Debug, Default)]
pub struct SitesCrawl {
    pub files: Vec<PathBuf>,
    pub rows: usize,
}

/// The crawls of the sites table of `catalog` (the dataset `out`), each with its part
/// files (a crawl per file, as `sites` writes). A sites table made from another state of
/// the dataset is refused (see [`crate::output::catalog`]).
pub fn sites_crawls(
    catalog: &Catalog,
    out: &Path,
) -> Result<BTreeMap<String, SitesCrawl>, ChangesError> {
    let files = match catalog.entry(Table::Sites) {
        Entry::Present(files) if !files.is_empty() => files.clone(),
        Entry::Stale(why) => return Err(ChangesError::Stale(why.clone())),
        _ => return Err(ChangesError::NoSites(out.to_owned())),
    };
    // Rows per crawl per part file, as the sites step counts the documents table's.
    Ok(crate::sites::read::crawls(&files)?
        .into_iter()
        .map(|(crawl, (files, rows))| (crawl, SitesCrawl { files, rows }))
        .collect())
}

/// The rows of `crawl` in the tables its rule lines and sitemaps are read from (from
/// the files' footers): what, with its sites rows, a comparison holds.
pub fn line_rows(out: &Path, crawl: &str) -> Result<usize, ChangesError> {
    let mut rows = 0usize;
    for table in [Table::Groups, Table::Rules, Table::Sitemaps] {
        for path in table_files(out, table, crawl)? {
            rows = rows.saturating_add(file_rows(&path)?);
        }
    }
    Ok(rows)
}

/// Adds the site of every `every`-th row of `crawl` in its sites part `files` to
/// `sample` (a site has a row per agent, so one name may come several times).
pub fn sample_sites(
    files: &[PathBuf],
    crawl: &str,
    every: usize,
    sample: &mut Vec<Box<str>>,
) -> Result<(), ChangesError> {
    let mut n = 0usize;
    for path in files {
        for batch in batches(path, &["site", "crawl"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (site, crawls) = (c.str("site")?, c.str("crawl")?);
            for i in 0..batch.num_rows() {
                if crawls.value(i) != crawl {
                    continue;
                }
                if n % every.max(1) == 0 {
                    sample.push(site.value(i).into());
                }
                n += 1;
            }
        }
    }
    Ok(())
}

/// Reads the rows of `crawl` from its `sites` part files, of the sites in `range` only
/// (the row groups whose statistics say they hold none are not decoded).
pub fn read_sites(
    files: &[PathBuf],
    crawl: &str,
    range: Range<'_>,
) -> Result<CrawlSites, ChangesError> {
    let mut table = CrawlSites {
        crawl: crawl.to_owned(),
        ..CrawlSites::default()
    };
    let mut numbers = AgentNumbers::default();
    let columns = [
        "site",
        "agent",
        "status_class",
        "google_class",
        "root_allowed",
        "doc_id",
        "site_key",
        "status_semantics",
        "crawl",
    ];
    // `sites` writes a site's rows together, its agents in one order for every site: the
    // site being read is kept aside until its rows end, and the agent of the same
    // position in the site before is tried first, instead of a look-up per row.
    let mut current: Option<(Box<str>, SiteState)> = None;
    let mut position = 0usize;
    for path in files {
        for batch in batches_where(path, &columns, "site", |b| range.may_hold(b))? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (site, agent, classes) = (c.str("site")?, c.str("agent")?, c.str("status_class")?);
            let (google, root, ids) = (
                c.str("google_class")?,
                c.bool("root_allowed")?,
                c.ids("doc_id")?,
            );
            let (key, semantics, crawls) = (
                c.str("site_key")?,
                c.str("status_semantics")?,
                c.str("crawl")?,
            );
            for i in 0..batch.num_rows() {
                if crawls.value(i) != crawl || !range.holds(site.value(i)) {
                    continue;
                }
                if table.site_key.is_empty() {
                    table.site_key = key.value(i).to_owned();
                    table.semantics = semantics.value(i).to_owned();
                }
                let class = StatusClass::ALL
                    .into_iter()
                    .find(|k| k.as_str() == classes.value(i))
                    .ok_or_else(|| c.wrong("status_class"))?;
                let name = agent.value(i);
                let same_site = current.as_ref().is_some_and(|(s, _)| **s == *site.value(i));
                position = if same_site { position + 1 } else { 0 };
                let a = numbers.number(position, name);
                if !same_site {
                    if let Some((done, state)) = current.take() {
                        keep_site(&mut table.sites, done, state);
                    }
                    let state = SiteState {
                        class,
                        doc_id: ids.is_valid(i).then(|| ids.value(i)),
                        blocks: Vec::with_capacity(numbers.names.len()),
                    };
                    current = Some((site.value(i).into(), state));
                }
                let Some((_, state)) = current.as_mut() else {
                    continue;
                };
                let root = root.is_valid(i).then(|| root.value(i));
                let block = Block::of(class, root, opt(google, i));
                if state.blocks.len() <= a {
                    state.blocks.resize(a + 1, None);
                }
                state.blocks[a] = Some(block);
            }
        }
    }
    if let Some((done, state)) = current.take() {
        keep_site(&mut table.sites, done, state);
    }
    table.agents = numbers.names;
    Ok(table)
}

/// Adds a site's rows to the crawl's; a site met again (rows not together) keeps the
/// class and capture of its first rows, and each agent's last row.
fn keep_site(sites: &mut BTreeMap<Box<str>, SiteState>, name: Box<str>, state: SiteState) {
    match sites.entry(name) {
        std::collections::btree_map::Entry::Vacant(v) => {
            v.insert(state);
        }
        std::collections::btree_map::Entry::Occupied(mut o) => {
            let kept = o.get_mut();
            for (a, block) in state.blocks.into_iter().enumerate() {
                if block.is_some() {
                    if kept.blocks.len() <= a {
                        kept.blocks.resize(a + 1, None);
                    }
                    kept.blocks[a] = block;
                }
            }
        }
    }
}

/// A rule line compared between crawls: (product token, directive, pattern).
pub type RuleLine = (Box<str>, &'static str, Box<str>);

/// The part files of `table` for `crawl`: its partition when it exists, else the whole
/// table (an older flat layout); rows are picked by doc id either way.
fn table_files(out: &Path, table: Table, crawl: &str) -> Result<Vec<PathBuf>, ChangesError> {
    let root = out.join(table.name());
    let partition = root.join(partition_dir(crawl));
    Ok(part_files(if partition.is_dir() {
        &partition
    } else {
        &root
    })?)
}

/// The allow/disallow lines inside groups of the `wanted` captures,
/// one per product token of the group: a group of two user-agent lines gives each its line.
pub fn rule_lines(
    out: &Path,
    crawl: &str,
    wanted: &SortedIds,
) -> Result<IdMap<BTreeSet<RuleLine>>, ChangesError> {
    let mut wanted = Wanted::new(wanted);
    let mut tokens: HashMap<(DocId, i32), Vec<Box<str>>> = HashMap::new();
    for path in table_files(out, Table::Groups, crawl)? {
        for batch in batches(&path, &["doc_id", "group_index", "product_tokens"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path: &path,
            };
            let (ids, index) = (c.ids("doc_id")?, c.i32("group_index")?);
            let lists = c
                .get("product_tokens")?
                .as_list_opt::<i32>()
                .ok_or_else(|| c.wrong("product_tokens"))?;
            let keep = wanted.rows(&ids, batch.num_rows());
            for (i, &kept) in keep.iter().enumerate() {
                let id = ids.value(i);
                if !kept {
                    continue;
                }
                let list = lists.value(i);
                let values = list
                    .as_string_opt::<i32>()
                    .ok_or_else(|| c.wrong("product_tokens"))?;
                let names = (0..values.len()).map(|j| values.value(j).into()).collect();
                tokens.insert((id, index.value(i)), names);
            }
        }
    }
    let mut lines: IdMap<BTreeSet<RuleLine>> = IdMap::default();
    for path in table_files(out, Table::Rules, crawl)? {
        let columns = ["doc_id", "group_index", "directive", "pattern"];
        for batch in batches(&path, &columns)? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path: &path,
            };
            let (ids, index) = (c.ids("doc_id")?, c.i32("group_index")?);
            let (directive, pattern) = (c.str("directive")?, c.str("pattern")?);
            let keep = wanted.rows(&ids, batch.num_rows());
            for (i, &kept) in keep.iter().enumerate() {
                let directive = match directive.value(i) {
                    "allow" => "allow",
                    "disallow" => "disallow",
                    _ => continue,
                };
                // Lines before any user-agent line belong to no group (robots.cc ignores them).
                if !index.is_valid(i) {
                    continue;
                }
                let id = ids.value(i);
                if !kept {
                    continue;
                }
                let Some(names) = tokens.get(&(id, index.value(i))) else {
                    continue;
                };
                let pattern: Box<str> = opt(pattern, i).unwrap_or_default().into();
                let set = lines.entry(id).or_default();
                for name in names {
                    set.insert((name.clone(), directive, pattern.clone()));
                }
            }
        }
    }
    Ok(lines)
}

/// The Sitemap URLs (as written) of the `wanted` captures.
pub fn sitemaps(
    out: &Path,
    crawl: &str,
    wanted: &SortedIds,
) -> Result<IdMap<BTreeSet<Box<str>>>, ChangesError> {
    let mut wanted = Wanted::new(wanted);
    let mut maps: IdMap<BTreeSet<Box<str>>> = IdMap::default();
    for path in table_files(out, Table::Sitemaps, crawl)? {
        for batch in batches(&path, &["doc_id", "url"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path: &path,
            };
            let (ids, urls) = (c.ids("doc_id")?, c.str("url")?);
            let keep = wanted.rows(&ids, batch.num_rows());
            for (i, &kept) in keep.iter().enumerate() {
                let id = ids.value(i);
                if kept {
                    maps.entry(id).or_default().insert(urls.value(i).into());
                }
            }
        }
    }
    Ok(maps)
}
