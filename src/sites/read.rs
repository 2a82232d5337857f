//! Reading the run's tables for the site step: part files found recursively under
//! `<out>/<table>/` (so both the flat `<table>/<part>.parquet` layout and the Hive
//! `<table>/crawl=<CRAWL>/<part>.parquet` layout are read), only the columns needed,
//! one crawl (or one pass of a crawl, [`super::passes`]) at a time, into compact rows.
//!
//! A capture costs 72 bytes here, and its site's name once in the pass's [`Names`]
//! (URLs are kept as 128-bit keys; the few URLs the output shows are read again at the
//! end).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};

use super::names::{Name, Names};
use super::passes::{prefix, Pass, Redirects};
use super::SiteKey;
use super::SitesError;
use crate::output::ids::{Ids, SortedIds, Wanted};
use crate::output::read::{batches, in_parallel, ReadError, RowGroup};

/// The id of a capture, as `documents.doc_id` holds it (16 bytes, a UUID).
pub use crate::output::rows::DocId;

/// A URL reduced to a 128-bit key for lookups (two SipHash passes over its
/// [`crate::census::urls::lookup_key`] form): a collision among 10^9 URLs has a chance
/// below 10^-20.
pub type UrlKey = u128;

/// The [`UrlKey`] of a URL as given (parsed here: for tests and callers without the
/// documents table's `url_key`).
#[cfg(test)]
pub fn url_key(url: &str) -> UrlKey {
    key_of(&crate::census::urls::lookup_key(url))
}

/// The [`UrlKey`] of a URL already in the lookup form (`documents.url_key` and
/// `location_key`, which `run` computes once per capture).
pub fn key_of(text: &str) -> UrlKey {
    let half = |seed: u64| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        text.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// A [`UrlKey`] as its two halves (high, low: they order as the number does), so
/// that a [`Capture`] is 8-byte aligned: 72 bytes instead of 80 (a `u128` is 16-byte
/// aligned on x86-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key([u64; 2]);

impl From<UrlKey> for Key {
    fn from(key: UrlKey) -> Key {
        Key([(key >> 64) as u64, key as u64])
    }
}

impl Key {
    pub fn get(self) -> UrlKey {
        (u128::from(self.0[0]) << 64) | u128::from(self.0[1])
    }
}

/// One capture of a crawl, as much as the site step needs.
#[derive(Debug, Clone)]
pub struct Capture {
    pub doc_id: DocId,
    /// Microseconds since the epoch; `i64::MIN` when unknown (ranks below any date).
    pub fetch_time: i64,
    pub url_key: Key,
    /// Key of the resolved `Location` of a 3xx; 0 when there is none.
    pub location_key: Key,
    pub status: Option<u16>,
    /// Common Crawl's MIME filter passes (see [`crate::census::site_classes::robots_mime`]).
    pub mime_ok: bool,
    /// Some allow/disallow line inside a group (documents.n_allow + n_disallow > 0).
    pub has_rules: bool,
    /// The site, for captures of a `/robots.txt` URL (the starting points), in the
    /// [`Names`] read with the capture.
    pub site: Option<Name>,
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

    /// A `doc_id` column (see [`Ids::of`]).
    pub(crate) fn ids(&self, name: &str) -> Result<Ids<'a>, ReadError> {
        Ids::of(self.get(name)?).ok_or_else(|| self.wrong(name))
    }

    /// A string column read as a dictionary (see [`RowGroup::rows_of`]).
    pub(crate) fn dictionary(&self, name: &str) -> Result<Dictionary<'a>, ReadError> {
        let keys = self
            .get(name)?
            .as_dictionary_opt::<Int32Type>()
            .ok_or_else(|| self.wrong(name))?;
        let values = keys
            .values()
            .as_string_opt::<i32>()
            .ok_or_else(|| self.wrong(name))?;
        Ok(Dictionary { keys, values })
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

/// A string column as a dictionary: keys per row, the values once.
pub(crate) struct Dictionary<'a> {
    keys: &'a arrow_array::DictionaryArray<Int32Type>,
    values: &'a arrow_array::StringArray,
}

impl<'a> Dictionary<'a> {
    /// The string of row `i`; `None` when null (or a key out of range).
    pub(crate) fn value(&self, i: usize) -> Option<&'a str> {
        let k = self.key(i)?;
        (k < self.values.len()).then(|| self.values.value(k))
    }

    /// The key of row `i` (an index into [`Dictionary::map_values`]'s result); `None`
    /// when null.
    pub(crate) fn key(&self, i: usize) -> Option<usize> {
        let key = self.keys.keys();
        if key.is_null(i) {
            return None;
        }
        usize::try_from(key.value(i)).ok()
    }

    /// `f` of every value, by key: what a reader needs of a value is then worked out
    /// once per batch instead of once per row. A null value maps to `f(None)`.
    pub(crate) fn map_values<T>(&self, f: impl Fn(Option<&'a str>) -> T) -> Vec<T> {
        (0..self.values.len())
            .map(|k| f(self.values.is_valid(k).then(|| self.values.value(k))))
            .collect()
    }
}

pub(crate) fn opt(a: &arrow_array::StringArray, i: usize) -> Option<&str> {
    a.is_valid(i).then(|| a.value(i))
}

/// The crawls of a table's part `files` (the documents table; the changes step's sites
/// table), each with the part files that hold it and its number of rows in them (so its
/// captures are read into a vector of the right size, or its passes planned).
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

/// The columns that say which rows are captures of a crawl, and of which site
/// ([`CaptureRows`]); `registrable_domain` joins them when the site key asks for it.
/// URLs are read in their lookup form (`url_key`, `location_key`), which `run` wrote
/// so that no step parses a URL again: parsing took half of this reading's time.
const CAPTURE_COLUMNS: [&str; 6] = [
    "crawl",
    "record_kind",
    "url_key",
    "host",
    "location_key",
    "is_robots_url",
];

/// What the site step keeps of a capture besides [`CAPTURE_COLUMNS`].
const DECIDING_COLUMNS: [&str; 6] = [
    "doc_id",
    "fetch_time",
    "http_status",
    "robots_mime",
    "n_allow",
    "n_disallow",
];

/// One batch of the documents table as captures of one crawl: the rule, shared by the
/// planning scan and every pass's reading, for which rows count (a URL, the crawl,
/// not a revisit: no body, nothing to decide with) and what a row's site is.
struct CaptureRows<'a> {
    crawl: &'a str,
    key: SiteKey,
    crawls: &'a arrow_array::StringArray,
    kinds: &'a arrow_array::StringArray,
    /// `url_key`: null exactly when `url` is.
    urls: &'a arrow_array::StringArray,
    hosts: &'a arrow_array::StringArray,
    /// `location_key`.
    locations: &'a arrow_array::StringArray,
    robots: &'a arrow_array::BooleanArray,
    domains: Option<&'a arrow_array::StringArray>,
}

/// One row that is a capture of the crawl, its URLs in the lookup form.
struct CaptureRow<'a> {
    url: &'a str,
    /// For a capture of a `/robots.txt` URL, its host's site by the key.
    site: Option<&'a str>,
    location: Option<&'a str>,
}

impl<'a> CaptureRows<'a> {
    /// The columns to read: [`CAPTURE_COLUMNS`], `more`, and `registrable_domain` when
    /// `key` asks for it.
    fn columns(key: SiteKey, more: &[&'static str]) -> Vec<&'static str> {
        let mut columns = [&CAPTURE_COLUMNS[..], more].concat();
        if key == SiteKey::RegistrableDomain {
            columns.push("registrable_domain");
        }
        columns
    }

    fn of(c: &Columns<'a>, crawl: &'a str, key: SiteKey) -> Result<Self, ReadError> {
        Ok(CaptureRows {
            crawl,
            key,
            crawls: c.str("crawl")?,
            kinds: c.str("record_kind")?,
            urls: c.str("url_key")?,
            hosts: c.str("host")?,
            locations: c.str("location_key")?,
            robots: c.bool("is_robots_url")?,
            domains: match key {
                SiteKey::RegistrableDomain => Some(c.str("registrable_domain")?),
                _ => None,
            },
        })
    }

    /// Row `i`, when it is a capture of the crawl. A `/robots.txt` capture's site is
    /// the `registrable_domain` column's when the key asks for it and the row has one.
    fn row(&self, i: usize) -> Option<CaptureRow<'a>> {
        let url = opt(self.urls, i)?;
        if opt(self.crawls, i) != Some(self.crawl) || self.kinds.value(i) == "revisit" {
            return None;
        }
        let site = match (self.robots.value(i), opt(self.hosts, i)) {
            (true, Some(host)) => Some(match self.domains.and_then(|d| opt(d, i)) {
                Some(domain) => domain,
                None => self.key.site_of(host),
            }),
            _ => None,
        };
        Some(CaptureRow {
            url,
            site,
            location: opt(self.locations, i),
        })
    }
}

/// The captures of `crawl` in `files` that `pass` keeps; revisit records (no body,
/// nothing to decide with) and rows without a URL are left out. Sites are keyed by
/// `key`; `capacity` is the room reserved for the captures.
pub fn read_crawl(
    files: &[PathBuf],
    crawl: &str,
    capacity: usize,
    key: SiteKey,
    pass: &Pass<'_>,
) -> Result<(Vec<Capture>, Names), SitesError> {
    let (mut captures, mut names) = (Vec::with_capacity(capacity), Names::default());
    let mut failed = None;
    // In file and row-group order: the captures' order does not depend on the threads.
    in_parallel(
        files,
        |group| read_crawl_group(group, crawl, key, pass),
        |(part, part_names)| match names.append(part_names) {
            Ok(moved) => captures.extend(part.into_iter().map(|mut c: Capture| {
                c.site = c.site.map(&moved);
                c
            })),
            Err(e) => failed = failed.take().or(Some(e)),
        },
    )?;
    match failed {
        Some(e) => Err(e),
        None => Ok((captures, names)),
    }
}

/// What planning the passes needs of a crawl (see [`super::passes`]): its redirects,
/// and the site names that `sampled` picks (unsorted, repeated).
pub fn scan_crawl(
    files: &[PathBuf],
    crawl: &str,
    key: SiteKey,
    sampled: impl Fn(&str) -> bool + Sync,
) -> Result<(Redirects, Vec<Box<str>>), SitesError> {
    let (mut redirects, mut names) = (Redirects::default(), Vec::new());
    in_parallel(
        files,
        |group| scan_crawl_group(group, crawl, key, &sampled),
        |(found, n)| {
            for (url, location, site) in found {
                redirects.add(url, location, site);
            }
            names.extend(n);
        },
    )?;
    Ok((redirects.finish(), names))
}

/// What [`scan_crawl`] finds in one row group: the (URL, `Location`, site name
/// [`prefix`]) of each capture with a `Location`, and the sampled site names.
type Scanned = (Vec<(UrlKey, UrlKey, Option<u64>)>, Vec<Box<str>>);

/// [`scan_crawl`] over one row group: the rows [`read_crawl_group`] would read, but
/// only the columns planning needs, and a URL hashed or a name kept only where needed.
fn scan_crawl_group(
    group: &RowGroup<'_>,
    crawl: &str,
    key: SiteKey,
    sampled: &(impl Fn(&str) -> bool + Sync),
) -> Result<Scanned, SitesError> {
    let (mut found, mut names) = (Vec::new(), Vec::new());
    for batch in group.batches(&CaptureRows::columns(key, &[]))? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path: group.path,
        };
        let rows = CaptureRows::of(&c, crawl, key)?;
        for row in (0..batch.num_rows()).filter_map(|i| rows.row(i)) {
            if let Some(location) = row.location {
                found.push((key_of(row.url), key_of(location), row.site.map(prefix)));
            }
            if let Some(site) = row.site.filter(|s| sampled(s)) {
                names.push(site.into());
            }
        }
    }
    Ok((found, names))
}

/// The captures of `crawl` in one row group of a documents part file.
fn read_crawl_group(
    group: &RowGroup<'_>,
    crawl: &str,
    key: SiteKey,
    pass: &Pass<'_>,
) -> Result<(Vec<Capture>, Names), SitesError> {
    let path = group.path;
    let (mut captures, mut names) = (Vec::new(), Names::default());
    for batch in group.batches(&CaptureRows::columns(key, &DECIDING_COLUMNS))? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path,
        };
        let rows = CaptureRows::of(&c, crawl, key)?;
        let (ids, times, statuses) = (
            c.ids("doc_id")?,
            c.time("fetch_time")?,
            c.i32("http_status")?,
        );
        let (mime_ok, allow, disallow) = (
            c.bool("robots_mime")?,
            c.i32("n_allow")?,
            c.i32("n_disallow")?,
        );
        for i in 0..batch.num_rows() {
            let Some(row) = rows.row(i) else { continue };
            let url_key = key_of(row.url);
            let Some(site) = pass.keep(row.site, url_key) else {
                continue;
            };
            captures.push(Capture {
                doc_id: ids.value(i),
                fetch_time: if times.is_valid(i) {
                    times.value(i)
                } else {
                    i64::MIN
                },
                url_key: url_key.into(),
                location_key: row.location.map_or(0, key_of).into(),
                status: statuses
                    .is_valid(i)
                    .then(|| u16::try_from(statuses.value(i)).ok())
                    .flatten(),
                mime_ok: mime_ok.value(i),
                // Null counts: the body was not parsed (no rules).
                has_rules: (allow.is_valid(i) && allow.value(i) > 0)
                    || (disallow.is_valid(i) && disallow.value(i) > 0),
                site: site.map(|s| names.push(s)).transpose()?,
            });
        }
    }
    Ok((captures, names))
}

/// The URLs of a pass's shown captures (deciding and starting), in one buffer: a span
/// of `text` per wanted id, by its position among them. A hash map of boxed strings
/// held about 60 bytes a URL besides its text (its entry and spare room, and the
/// allocation's own overhead); this holds 36 (the sorted id, its index, its span).
#[derive(Debug, Default)]
pub struct Urls {
    ids: SortedIds,
    /// `start..end` in `text` of each id's URL; `NO_URL` when none was read.
    spans: Vec<(u64, u64)>,
    text: String,
}

const NO_URL: (u64, u64) = (u64::MAX, 0);

impl Urls {
    /// The URL of `id`, if it is one of the wanted and its row has one.
    pub fn get(&self, id: &DocId) -> Option<&str> {
        let (start, end) = *self.spans.get(self.ids.position(id)?)?;
        self.text
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }
}

/// Where captures are in the documents table, as [`read_urls`] found them: for each
/// part file read (in order), its number of rows and the row and id of each wanted
/// capture, in row order. A pass's agents rows are then read by position
/// ([`super::agents::read_agents`]) instead of by decoding every `doc_id`.
#[derive(Debug, Default)]
pub struct Places {
    pub files: Vec<FilePlaces>,
}

/// One documents part's [`Places`].
#[derive(Debug, Default, Clone)]
pub struct FilePlaces {
    pub rows: u64,
    pub found: Vec<(u64, DocId)>,
}

/// The URLs of the captures in `wanted`, read again from `files`: row groups in
/// parallel, kept in file and row-group order (a capture read twice keeps its later
/// URL, as one loop over the files would). With `places`, where each was found too.
pub fn read_urls(
    files: &[PathBuf],
    wanted: SortedIds,
    places: bool,
) -> Result<(Urls, Places), SitesError> {
    let mut spans = vec![NO_URL; wanted.len()];
    let mut text = String::new();
    let mut found_at = Places::default();
    in_parallel(
        files,
        |group| {
            // (position among the wanted, span in `found`) of each URL, in row order.
            let mut at: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
            let mut found = String::new();
            let mut rows: Vec<(u64, DocId)> = Vec::new();
            let mut row = group.rows().start;
            let mut asked = Wanted::new(&wanted);
            for batch in group.batches(&["doc_id", "url"])? {
                let batch = batch?;
                let c = Columns {
                    batch: &batch,
                    path: group.path,
                };
                let (ids, col) = (c.ids("doc_id")?, c.str("url")?);
                let positions = asked.positions(&ids, batch.num_rows());
                for (i, position) in positions.into_iter().enumerate() {
                    if position.is_some() && places {
                        rows.push((row + i as u64, ids.value(i)));
                    }
                    if let (Some(position), Some(url)) = (position, opt(col, i)) {
                        at.push((position, found.len()..found.len() + url.len()));
                        found.push_str(url);
                    }
                }
                row += batch.num_rows() as u64;
            }
            let file = (group.file, group.file_rows());
            Ok::<_, SitesError>((at, found, file, rows))
        },
        |(at, found, (file, file_rows), rows)| {
            for (position, range) in at {
                let start = text.len() as u64;
                text.push_str(&found[range]);
                spans[position] = (start, text.len() as u64);
            }
            if places {
                if found_at.files.len() <= file {
                    found_at.files.resize(file + 1, FilePlaces::default());
                }
                found_at.files[file].rows = file_rows;
                found_at.files[file].found.extend(rows);
            }
        },
    )?;
    let urls = Urls {
        ids: wanted,
        spans,
        text,
    };
    Ok((urls, found_at))
}

/// The part file of `table` that goes with the `documents` part file `documents`: the
/// same path under the table's directory (every table of a run has the same part
/// names).
pub fn companion_file(out: &Path, documents: &Path, table: &str) -> Option<PathBuf> {
    let rel = documents.strip_prefix(out.join("documents")).ok()?;
    Some(out.join(table).join(rel))
}
