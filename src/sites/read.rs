//! Reading the run's tables for the site step: part files found recursively under
//! `<out>/<table>/` (so both the flat `<table>/<part>.parquet` layout and the Hive
//! `<table>/crawl=<CRAWL>/<part>.parquet` layout are read), only the columns needed,
//! one crawl at a time, into compact rows.
//!
//! A capture costs about 90 bytes here plus its site name (URLs are kept as 128-bit
//! keys; the few URLs the output shows are read again at the end), so a crawl of a
//! million captures needs about 150 MB.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

use super::urls::{lookup_key, SiteKey};
use super::SitesError;

/// The id of a capture, as `documents.doc_id` holds it.
pub type DocId = i64;

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
    /// Common Crawl's MIME filter passes (see [`super::classes::robots_mime`]).
    pub mime_ok: bool,
    /// Some allow/disallow line inside a group (documents.n_allow + n_disallow > 0).
    pub has_rules: bool,
    /// The site, for captures of a `/robots.txt` URL (the starting points).
    pub site: Option<Box<str>>,
}

/// Every `*.parquet` file under `dir`, recursively, in path order.
pub fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>, SitesError> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(SitesError::Io { path: dir, source }),
        };
        for entry in entries {
            let path = entry
                .map_err(|source| SitesError::Io {
                    path: dir.clone(),
                    source,
                })?
                .path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "parquet") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Record batches of `path` holding only `columns`.
fn batches(
    path: &Path,
    columns: &[&str],
) -> Result<impl Iterator<Item = Result<RecordBatch, SitesError>>, SitesError> {
    let parquet = |source| SitesError::Parquet {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(|source| SitesError::Io {
        path: path.to_owned(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet)?;
    for column in columns {
        if builder.schema().field_with_name(column).is_err() {
            return Err(SitesError::Column {
                path: path.to_owned(),
                column: column.to_string(),
            });
        }
    }
    let mask = ProjectionMask::columns(builder.parquet_schema(), columns.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(16 * 1024)
        .build()
        .map_err(parquet)?;
    let path = path.to_owned();
    Ok(reader.map(move |b| {
        b.map_err(|e| SitesError::Parquet {
            path: path.clone(),
            source: e.into(),
        })
    }))
}

/// Typed access to one column of a batch, with errors naming the file.
struct Columns<'a> {
    batch: &'a RecordBatch,
    path: &'a Path,
}

impl<'a> Columns<'a> {
    fn get(&self, name: &str) -> Result<&'a dyn Array, SitesError> {
        self.batch
            .column_by_name(name)
            .map(|c| c.as_ref())
            .ok_or_else(|| self.wrong(name))
    }

    fn wrong(&self, name: &str) -> SitesError {
        SitesError::Column {
            path: self.path.to_owned(),
            column: name.to_owned(),
        }
    }

    fn str(&self, name: &str) -> Result<&'a arrow_array::StringArray, SitesError> {
        self.get(name)?
            .as_string_opt::<i32>()
            .ok_or_else(|| self.wrong(name))
    }

    fn i64(&self, name: &str) -> Result<&'a arrow_array::Int64Array, SitesError> {
        self.get(name)?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| self.wrong(name))
    }

    fn i32(&self, name: &str) -> Result<&'a arrow_array::Int32Array, SitesError> {
        self.get(name)?
            .as_primitive_opt::<Int32Type>()
            .ok_or_else(|| self.wrong(name))
    }

    fn bool(&self, name: &str) -> Result<&'a arrow_array::BooleanArray, SitesError> {
        self.get(name)?
            .as_boolean_opt()
            .ok_or_else(|| self.wrong(name))
    }

    fn time(&self, name: &str) -> Result<&'a arrow_array::TimestampMicrosecondArray, SitesError> {
        self.get(name)?
            .as_primitive_opt::<TimestampMicrosecondType>()
            .ok_or_else(|| self.wrong(name))
    }
}

fn opt<'a>(a: &'a arrow_array::StringArray, i: usize) -> Option<&'a str> {
    a.is_valid(i).then(|| a.value(i))
}

/// The crawls of the documents table, each with the part files that hold it.
pub fn crawls(files: &[PathBuf]) -> Result<BTreeMap<String, Vec<PathBuf>>, SitesError> {
    let mut crawls: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for path in files {
        let mut seen = BTreeSet::new();
        for batch in batches(path, &["crawl"])? {
            let batch = batch?;
            let col = Columns {
                batch: &batch,
                path,
            }
            .str("crawl")?;
            for i in 0..col.len() {
                if let Some(c) = opt(col, i) {
                    if !seen.contains(c) {
                        seen.insert(c.to_owned());
                    }
                }
            }
        }
        for crawl in seen {
            crawls.entry(crawl).or_default().push(path.clone());
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
    key: SiteKey,
) -> Result<Vec<Capture>, SitesError> {
    let mut captures = Vec::new();
    let mut columns = DOCUMENT_COLUMNS.to_vec();
    if key == SiteKey::RegistrableDomain {
        columns.push("registrable_domain");
    }
    for path in files {
        for batch in batches(path, &columns)? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (crawls, ids, kinds, urls, hosts) = (
                c.str("crawl")?,
                c.i64("doc_id")?,
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
                    mime_ok: super::classes::robots_mime(opt(payloads, i), opt(types, i)),
                    has_rules: allow.value(i) > 0 || disallow.value(i) > 0,
                    site,
                });
            }
        }
    }
    Ok(captures)
}

/// The URLs of the captures in `wanted`, read again from `files`.
pub fn read_urls(
    files: &[PathBuf],
    wanted: &HashSet<DocId>,
) -> Result<HashMap<DocId, String>, SitesError> {
    let mut urls = HashMap::with_capacity(wanted.len());
    for path in files {
        for batch in batches(path, &["doc_id", "url"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, col) = (c.i64("doc_id")?, c.str("url")?);
            for i in 0..batch.num_rows() {
                if wanted.contains(&ids.value(i)) {
                    if let Some(url) = opt(col, i) {
                        urls.insert(ids.value(i), url.to_owned());
                    }
                }
            }
        }
    }
    Ok(urls)
}

/// What the agents table says about one (capture, agent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentFacts {
    pub named: bool,
    pub root_allowed: Option<bool>,
    pub probe_class: Option<String>,
    pub cc_class: Option<String>,
}

/// The agents rows of the captures in `wanted`, and every agent the files name.
pub struct AgentRows {
    pub facts: HashMap<(DocId, String), AgentFacts>,
    pub agents: BTreeSet<String>,
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

/// Reads the agents rows of `wanted` captures from `files` (missing files are skipped:
/// a run with `--tables` may have written no agents table).
pub fn read_agents(files: &[PathBuf], wanted: &HashSet<DocId>) -> Result<AgentRows, SitesError> {
    let mut rows = AgentRows {
        facts: HashMap::new(),
        agents: BTreeSet::new(),
    };
    for path in files.iter().filter(|p| p.is_file()) {
        let columns = [
            "doc_id",
            "agent",
            "named",
            "root_allowed",
            "probe_class",
            "cc_class",
        ];
        for batch in batches(path, &columns)? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, agents, named, root) = (
                c.i64("doc_id")?,
                c.str("agent")?,
                c.bool("named")?,
                c.bool("root_allowed")?,
            );
            let (probe, cc) = (c.str("probe_class")?, c.str("cc_class")?);
            for i in 0..batch.num_rows() {
                let agent = agents.value(i);
                if !rows.agents.contains(agent) {
                    rows.agents.insert(agent.to_owned());
                }
                if !wanted.contains(&ids.value(i)) {
                    continue;
                }
                rows.facts.insert(
                    (ids.value(i), agent.to_owned()),
                    AgentFacts {
                        named: named.value(i),
                        root_allowed: root.is_valid(i).then(|| root.value(i)),
                        probe_class: opt(probe, i).map(str::to_owned),
                        cc_class: opt(cc, i).map(str::to_owned),
                    },
                );
            }
        }
    }
    Ok(rows)
}
