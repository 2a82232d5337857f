//! Reading the run's tables for the site step: part files found recursively under
//! `<out>/<table>/` (so both the flat `<table>/<part>.parquet` layout and the Hive
//! `<table>/crawl=<CRAWL>/<part>.parquet` layout are read), only the columns needed,
//! one crawl at a time, into compact rows.
//!
//! A capture costs about 100 bytes here plus its site name (URLs are kept as 128-bit
//! keys; the few URLs the output shows are read again at the end): measured, a crawl of
//! a million captures peaks at about 270 MB for the whole step (README.md).

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};

use super::SiteKey;
use super::SitesError;
use crate::census::urls::lookup_key;
use crate::output::read::{batches, in_parallel, AgentNumbers, ReadError, RowGroup};
use crate::robots::{ProbeClass, RuleSetClass};

/// The id of a capture, as `documents.doc_id` holds it (16 bytes, a UUID).
pub use crate::output::rows::DocId;

/// A URL reduced to a 128-bit key for lookups (two SipHash passes over its
/// [`lookup_key`] form): a collision among 10^9 URLs has a chance below 10^-20.
pub type UrlKey = u128;

pub fn url_key(url: &str) -> UrlKey {
    let text = lookup_key(url);
    let half = |seed: u64| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        text.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// One capture of a crawl, as much as the site step needs.
#[derive(Debug, Clone)]
pub struct Capture {
    pub doc_id: DocId,
    /// Microseconds since the epoch; `i64::MIN` when unknown (ranks below any date).
    pub fetch_time: i64,
    pub url_key: UrlKey,
    /// Key of the resolved `Location` of a 3xx; 0 when there is none.
    pub location_key: UrlKey,
    pub status: Option<u16>,
    /// Common Crawl's MIME filter passes (see [`crate::census::site_classes::robots_mime`]).
    pub mime_ok: bool,
    /// Some allow/disallow line inside a group (documents.n_allow + n_disallow > 0).
    pub has_rules: bool,
    /// The site, for captures of a `/robots.txt` URL (the starting points).
    pub site: Option<Box<str>>,
}

/// Typed access to one column of a batch, with errors naming the file and the column.
pub(crate) struct Columns<'a> {
    pub(crate) batch: &'a RecordBatch,
    pub(crate) path: &'a Path,
}

impl<'a> Columns<'a> {
    pub(crate) fn get(&self, name: &str) -> Result<&'a dyn Array, ReadError> {
        self.batch
            .column_by_name(name)
            .map(|c| c.as_ref())
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn wrong(&self, name: &str) -> ReadError {
        ReadError::column(self.path, name)
    }

    pub(crate) fn str(&self, name: &str) -> Result<&'a arrow_array::StringArray, ReadError> {
        self.get(name)?
            .as_string_opt::<i32>()
            .ok_or_else(|| self.wrong(name))
    }

    /// A `doc_id` column: 16-byte ids, as robots-census writes them (a Parquet UUID,
    /// fixed-size binary) or as Spark does (binary: the Spark SQL sites step), every
    /// value 16 bytes long.
    pub(crate) fn ids(&self, name: &str) -> Result<Ids<'a>, ReadError> {
        let column = self.get(name)?;
        if let Some(fixed) = column.as_fixed_size_binary_opt() {
            return match fixed.value_length() {
                16 => Ok(Ids::Fixed(fixed)),
                _ => Err(self.wrong(name)),
            };
        }
        let binary = column
            .as_binary_opt::<i32>()
            .ok_or_else(|| self.wrong(name))?;
        let all_16 = (0..binary.len()).all(|i| binary.is_null(i) || binary.value(i).len() == 16);
        if !all_16 {
            return Err(self.wrong(name));
        }
        Ok(Ids::Binary(binary))
    }

    pub(crate) fn i32(&self, name: &str) -> Result<&'a arrow_array::Int32Array, ReadError> {
        self.get(name)?
            .as_primitive_opt::<Int32Type>()
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn bool(&self, name: &str) -> Result<&'a arrow_array::BooleanArray, ReadError> {
        self.get(name)?
            .as_boolean_opt()
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn time(
        &self,
        name: &str,
    ) -> Result<&'a arrow_array::TimestampMicrosecondArray, ReadError> {
        self.get(name)?
            .as_primitive_opt::<TimestampMicrosecondType>()
            .ok_or_else(|| self.wrong(name))
    }
}

/// A `doc_id` column read as [`DocId`]s (every value checked to be 16 bytes long).
pub(crate) enum Ids<'a> {
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
    Binary(&'a arrow_array::BinaryArray),
}

impl Ids<'_> {
    pub(crate) fn is_valid(&self, i: usize) -> bool {
        match self {
            Ids::Fixed(a) => a.is_valid(i),
            Ids::Binary(a) => a.is_valid(i),
        }
    }

    pub(crate) fn value(&self, i: usize) -> DocId {
        let bytes = match self {
            Ids::Fixed(a) => a.value(i),
            Ids::Binary(a) => a.value(i),
        };
        // 16 bytes (checked by `Columns::ids`) but for a null slot's empty value.
        let mut id = [0u8; 16];
        let n = bytes.len().min(16);
        id[..n].copy_from_slice(&bytes[..n]);
        id
    }
}

pub(crate) fn opt(a: &arrow_array::StringArray, i: usize) -> Option<&str> {
    a.is_valid(i).then(|| a.value(i))
}

/// The crawls of the documents table, each with the part files that hold it and
/// its number of rows (so its captures are read into a vector of the right size).
pub fn crawls(files: &[PathBuf]) -> Result<BTreeMap<String, (Vec<PathBuf>, usize)>, SitesError> {
    let mut crawls: BTreeMap<String, (Vec<PathBuf>, usize)> = BTreeMap::new();
    for path in files {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for batch in batches(path, &["crawl"])? {
            let batch = batch?;
            let col = Columns {
                batch: &batch,
                path,
            }
            .str("crawl")?;
            for i in 0..col.len() {
                if let Some(c) = opt(col, i) {
                    match seen.get_mut(c) {
                        Some(n) => *n += 1,
                        None => {
                            seen.insert(c.to_owned(), 1);
                        }
                    }
                }
            }
        }
        for (crawl, n) in seen {
            let entry = crawls.entry(crawl).or_default();
            entry.0.push(path.clone());
            entry.1 += n;
        }
    }
    Ok(crawls)
}

const DOCUMENT_COLUMNS: [&str; 13] = [
    "crawl",
    "doc_id",
    "record_kind",
    "url",
    "host",
    "fetch_time",
    "http_status",
    "content_type",
    "payload_type",
    "n_allow",
    "n_disallow",
    "location",
    "is_robots_url",
];

/// The captures of `crawl` in `files`; revisit records (no body, nothing to
/// decide with) and rows without a URL are left out. Sites are keyed by `key`.
pub fn read_crawl(
    files: &[PathBuf],
    crawl: &str,
    rows: usize,
    key: SiteKey,
) -> Result<Vec<Capture>, SitesError> {
    let mut captures = Vec::with_capacity(rows);
    // In file and row-group order: the captures' order does not depend on the threads.
    in_parallel(
        files,
        |group| read_crawl_group(group, crawl, key),
        |part| captures.extend(part),
    )?;
    Ok(captures)
}

/// The captures of `crawl` in one row group of a documents part file.
fn read_crawl_group(
    group: &RowGroup<'_>,
    crawl: &str,
    key: SiteKey,
) -> Result<Vec<Capture>, SitesError> {
    let path = group.path;
    let mut captures = Vec::new();
    let mut columns = DOCUMENT_COLUMNS.to_vec();
    if key == SiteKey::RegistrableDomain {
        columns.push("registrable_domain");
    }
    for batch in group.batches(&columns)? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path,
        };
        let (crawls, ids, kinds, urls, hosts) = (
            c.str("crawl")?,
            c.ids("doc_id")?,
            c.str("record_kind")?,
            c.str("url")?,
            c.str("host")?,
        );
        let (times, statuses, types, payloads) = (
            c.time("fetch_time")?,
            c.i32("http_status")?,
            c.str("content_type")?,
            c.str("payload_type")?,
        );
        let (allow, disallow, locations, robots) = (
            c.i32("n_allow")?,
            c.i32("n_disallow")?,
            c.str("location")?,
            c.bool("is_robots_url")?,
        );
        let domains = match key {
            SiteKey::RegistrableDomain => Some(c.str("registrable_domain")?),
            _ => None,
        };
        for i in 0..batch.num_rows() {
            let Some(url) = opt(urls, i) else { continue };
            if opt(crawls, i) != Some(crawl) || kinds.value(i) == "revisit" {
                continue;
            }
            let is_robots = robots.value(i);
            let site = match (is_robots, opt(hosts, i)) {
                (true, Some(host)) => Some(match domains.and_then(|d| opt(d, i)) {
                    Some(domain) => domain.into(),
                    None => key.site_of(host).into(),
                }),
                _ => None,
            };
            captures.push(Capture {
                doc_id: ids.value(i),
                fetch_time: if times.is_valid(i) {
                    times.value(i)
                } else {
                    i64::MIN
                },
                url_key: url_key(url),
                location_key: opt(locations, i).map_or(0, url_key),
                status: statuses
                    .is_valid(i)
                    .then(|| u16::try_from(statuses.value(i)).ok())
                    .flatten(),
                mime_ok: crate::census::site_classes::robots_mime(opt(payloads, i), opt(types, i)),
                // Null counts: the body was not parsed (no rules).
                has_rules: (allow.is_valid(i) && allow.value(i) > 0)
                    || (disallow.is_valid(i) && disallow.value(i) > 0),
                site,
            });
        }
    }
    Ok(captures)
}

/// The URLs of the captures in `wanted` (sorted doc ids), read again from `files`.
pub fn read_urls(
    files: &[PathBuf],
    wanted: &[DocId],
) -> Result<HashMap<DocId, Box<str>>, SitesError> {
    let mut urls = HashMap::with_capacity(wanted.len());
    for path in files {
        for batch in batches(path, &["doc_id", "url"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, col) = (c.ids("doc_id")?, c.str("url")?);
            for i in 0..batch.num_rows() {
                if wanted.binary_search(&ids.value(i)).is_ok() {
                    if let Some(url) = opt(col, i) {
                        urls.insert(ids.value(i), url.into());
                    }
                }
            }
        }
    }
    Ok(urls)
}

/// What the agents table says about one (capture, agent), in one byte: `named`
/// (bit 0), `root_allowed` (bits 1-2: null, false, true), `probe_class` (bits 3-4:
/// null or the index in [`ProbeClass::ALL`] + 1), `cc_class` (bits 5-7: null or
/// the index in [`RuleSetClass::ALL`] + 1). A crawl's deciding captures times the
/// agents asked can be tens of millions of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFacts(u8);

impl AgentFacts {
    /// No agents row (root bits 3 never occur otherwise).
    pub const MISSING: AgentFacts = AgentFacts(0b110);

    fn pack(named: bool, root: Option<bool>, probe: u8, cc: u8) -> AgentFacts {
        let root = match root {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        AgentFacts(u8::from(named) | (root << 1) | (probe << 3) | (cc << 5))
    }

    pub fn is_missing(self) -> bool {
        self == Self::MISSING
    }

    pub fn named(self) -> bool {
        self.0 & 1 == 1
    }

    pub fn root_allowed(self) -> Option<bool> {
        match (self.0 >> 1) & 0b11 {
            1 => Some(false),
            2 => Some(true),
            _ => None,
        }
    }

    pub fn probe_class(self) -> Option<&'static str> {
        let code = usize::from((self.0 >> 3) & 0b11);
        code.checked_sub(1)
            .and_then(|i| ProbeClass::ALL.get(i))
            .map(|c| c.as_str())
    }

    pub fn cc_class(self) -> Option<&'static str> {
        let code = usize::from(self.0 >> 5);
        code.checked_sub(1)
            .and_then(|i| RuleSetClass::ALL.get(i))
            .map(|c| c.as_str())
    }
}

/// The code of a class name (0 for null), or `None` for a name this version does not know.
fn code<T: Copy>(name: Option<&str>, all: &[T], as_str: impl Fn(T) -> &'static str) -> Option<u8> {
    match name {
        None => Some(0),
        Some(name) => all
            .iter()
            .position(|c| as_str(*c) == name)
            .and_then(|i| u8::try_from(i + 1).ok()),
    }
}

/// The agents rows of the deciding captures: every agent the files name (sorted),
/// and per capture one [`AgentFacts`] per agent, in the order agents were first seen.
#[derive(Debug, Default)]
pub struct AgentRows {
    pub agents: Vec<String>,
    /// For each of `agents`, its position in the rows of `facts`.
    seen: Vec<usize>,
    facts: HashMap<DocId, Vec<AgentFacts>>,
}

impl AgentRows {
    /// Every agent's facts for a capture (one look-up for all of its agents).
    pub fn of(&self, doc: DocId) -> CaptureFacts<'_> {
        CaptureFacts {
            seen: &self.seen,
            row: self.facts.get(&doc).map_or(&[], |f| f.as_slice()),
        }
    }
}

/// One capture's row of [`AgentRows`].
#[derive(Debug, Clone, Copy)]
pub struct CaptureFacts<'a> {
    seen: &'a [usize],
    row: &'a [AgentFacts],
}

impl CaptureFacts<'_> {
    /// The facts of `agent` (an index into [`AgentRows::agents`]).
    pub fn get(self, agent: usize) -> AgentFacts {
        let column = self.seen.get(agent).copied().unwrap_or(usize::MAX);
        self.row.get(column).copied().unwrap_or(AgentFacts::MISSING)
    }
}

/// The `agents` part files that go with `documents` part files: the same path
/// under the table's directory (every table of a run has the same part names).
pub fn companion_files(out: &Path, documents: &[PathBuf], table: &str) -> Vec<PathBuf> {
    let root = out.join("documents");
    documents
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|rel| out.join(table).join(rel))
        .collect()
}

/// Reads the agents rows of the `wanted` captures (sorted doc ids) from `files`;
/// files that do not exist are skipped (a run with `--tables` may have no agents table).
/// Row groups are read in parallel (decoding is most of the step's reading), then
/// merged in file and row-group order, so the result does not depend on the thread count.
pub fn read_agents(files: &[PathBuf], wanted: &[DocId]) -> Result<AgentRows, SitesError> {
    let files: Vec<PathBuf> = files.iter().filter(|p| p.is_file()).cloned().collect();
    // Agents are numbered as first seen over the files in order.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut facts: HashMap<DocId, Vec<AgentFacts>> = HashMap::with_capacity(wanted.len());
    in_parallel(
        &files,
        |group| read_agents_group(group, wanted),
        |part| {
            let global: Vec<usize> = part
                .names
                .into_iter()
                .map(|name| {
                    let next = index.len();
                    *index.entry(name).or_insert(next)
                })
                .collect();
            let identity = global.iter().enumerate().all(|(i, &g)| i == g);
            let numbers = (!identity).then_some(global.as_slice());
            for (id, local) in part.facts {
                merge_facts(facts.entry(id).or_default(), local, numbers);
            }
        },
    )?;
    for row in facts.values_mut() {
        row.shrink_to_fit();
    }
    let mut agents: Vec<(String, usize)> = index.into_iter().collect();
    agents.sort();
    let seen = agents.iter().map(|(_, a)| *a).collect();
    Ok(AgentRows {
        agents: agents.into_iter().map(|(name, _)| name).collect(),
        seen,
        facts,
    })
}

/// Sets `into`'s entries to those of `from` that are not missing; `numbers` maps the
/// positions of `from` to those of `into` (None: the same). An empty `into` takes `from`
/// as it is.
fn merge_facts(into: &mut Vec<AgentFacts>, from: Vec<AgentFacts>, numbers: Option<&[usize]>) {
    if into.is_empty() && numbers.is_none() {
        *into = from;
        return;
    }
    for (a, f) in from.into_iter().enumerate() {
        if f.is_missing() {
            continue;
        }
        let g = numbers.map_or(a, |n| n[a]);
        if into.len() <= g {
            into.resize(g + 1, AgentFacts::MISSING);
        }
        into[g] = f;
    }
}

/// One row group's agents rows of the wanted captures, agents numbered as first seen in
/// it.
struct FileAgents {
    names: Vec<String>,
    facts: HashMap<DocId, Vec<AgentFacts>>,
}

fn read_agents_group(group: &RowGroup<'_>, wanted: &[DocId]) -> Result<FileAgents, SitesError> {
    let path = group.path;
    let mut numbers = AgentNumbers::default();
    let mut facts: HashMap<DocId, Vec<AgentFacts>> = HashMap::new();
    // A run writes a capture's agents rows together and in the same agent order for
    // every capture: the capture and the agent of the row before are tried first.
    let mut current: Option<(DocId, bool)> = None;
    let mut row: Vec<AgentFacts> = Vec::new();
    let mut position = 0usize;
    let columns = [
        "doc_id",
        "agent",
        "named",
        "root_allowed",
        "probe_class",
        "cc_class",
    ];
    for batch in group.batches(&columns)? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path,
        };
        let (ids, agents, named, root) = (
            c.ids("doc_id")?,
            c.str("agent")?,
            c.bool("named")?,
            c.bool("root_allowed")?,
        );
        let (probe, cc) = (c.str("probe_class")?, c.str("cc_class")?);
        for i in 0..batch.num_rows() {
            let id = ids.value(i);
            let keep = match current {
                Some((last, keep)) if last == id => {
                    position += 1;
                    keep
                }
                _ => {
                    if let Some((last, true)) = current {
                        merge_facts(
                            facts.entry(last).or_default(),
                            std::mem::take(&mut row),
                            None,
                        );
                    }
                    position = 0;
                    let keep = wanted.binary_search(&id).is_ok();
                    current = Some((id, keep));
                    keep
                }
            };
            let a = numbers.number(position, agents.value(i));
            if !keep {
                continue;
            }
            let probe = code(opt(probe, i), &ProbeClass::ALL, ProbeClass::as_str)
                .ok_or_else(|| c.wrong("probe_class"))?;
            let cc = code(opt(cc, i), &RuleSetClass::ALL, RuleSetClass::as_str)
                .ok_or_else(|| c.wrong("cc_class"))?;
            let root = root.is_valid(i).then(|| root.value(i));
            if row.len() <= a {
                row.resize(a + 1, AgentFacts::MISSING);
            }
            row[a] = AgentFacts::pack(named.value(i), root, probe, cc);
        }
    }
    if let Some((last, true)) = current {
        merge_facts(facts.entry(last).or_default(), row, None);
    }
    Ok(FileAgents {
        names: numbers.names,
        facts,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, BooleanArray, FixedSizeBinaryArray, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use super::*;

    /// (doc, agent, named, root_allowed, probe_class, cc_class) as an agents part writes them.
    type AgentRow = (
        u8,
        &'static str,
        bool,
        Option<bool>,
        Option<&'static str>,
        Option<&'static str>,
    );

    fn write_part(path: &Path, rows: &[AgentRow]) {
        let id = |d: u8| [d; 16];
        let columns: Vec<(&str, ArrayRef)> = vec![
            (
                "doc_id",
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter(rows.iter().map(|r| id(r.0))).expect("ids"),
                ),
            ),
            (
                "agent",
                Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            ),
            (
                "named",
                Arc::new(BooleanArray::from_iter(rows.iter().map(|r| Some(r.2)))),
            ),
            (
                "root_allowed",
                Arc::new(BooleanArray::from_iter(rows.iter().map(|r| r.3))),
            ),
            (
                "probe_class",
                Arc::new(StringArray::from_iter(rows.iter().map(|r| r.4))),
            ),
            (
                "cc_class",
                Arc::new(StringArray::from_iter(rows.iter().map(|r| r.5))),
            ),
        ];
        let batch = RecordBatch::try_from_iter(columns).expect("batch");
        // Row groups of 3 rows: a capture's rows are split across row groups.
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(3))
            .build();
        let file = std::fs::File::create(path).expect("create");
        let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).expect("writer");
        w.write(&batch).expect("write");
        w.close().expect("close");
    }

    #[test]
    fn row_groups_read_in_parallel_give_each_wanted_capture_its_agents_facts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
        let (full, none, partial) = (Some("full"), Some("none"), Some("partial"));
        let (allows, part) = (Some("allow_all"), Some("allow_part"));
        // The two files name the agents in different orders, and the second knows one
        // agent more; capture 2 is not wanted, capture 5's rows are split by a row group.
        let first: Vec<AgentRow> = vec![
            (1, "GPTBot", true, Some(false), full, Some("disallow_all")),
            (1, "*", false, Some(true), none, allows),
            (5, "GPTBot", false, None, None, None),
            (5, "*", true, Some(true), partial, part),
            (2, "GPTBot", false, Some(true), none, allows),
            (2, "*", false, Some(true), none, allows),
        ];
        let second: Vec<AgentRow> = vec![
            (7, "CCBot", true, Some(false), full, Some("disallow_all")),
            (7, "*", false, Some(true), none, allows),
            (7, "GPTBot", false, Some(true), none, allows),
            (9, "CCBot", false, Some(true), none, allows),
            (9, "*", false, None, None, None),
            (9, "GPTBot", true, Some(false), partial, part),
        ];
        write_part(&a, &first);
        write_part(&b, &second);
        let wanted: Vec<DocId> = vec![[1; 16], [5; 16], [7; 16], [9; 16]];
        let rows = read_agents(&[a, b], &wanted).expect("read");
        assert_eq!(rows.agents, ["*", "CCBot", "GPTBot"]);
        let expected: HashMap<(u8, &str), AgentRow> = first
            .iter()
            .chain(&second)
            .filter(|r| r.0 != 2)
            .map(|r| ((r.0, r.1), *r))
            .collect();
        for doc in [1u8, 2, 5, 7, 9] {
            let facts = rows.of([doc; 16]);
            for (i, agent) in rows.agents.iter().enumerate() {
                let got = facts.get(i);
                match expected.get(&(doc, agent.as_str())) {
                    None => assert!(got.is_missing(), "doc {doc} {agent}"),
                    Some(r) => {
                        assert_eq!(
                            (
                                got.named(),
                                got.root_allowed(),
                                got.probe_class(),
                                got.cc_class()
                            ),
                            (r.2, r.3, r.4, r.5),
                            "doc {doc} {agent}"
                        );
                    }
                }
            }
        }
    }
}
