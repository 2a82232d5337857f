//! The sites step's one read of a crawl: its `documents` parts and, beside each, its
//! `agents` part ([`super::facts`]), row group by row group on every thread. Each
//! capture goes, with its agents' facts, to the bucket of its site ([`Route`]); with
//! more than one bucket, the redirects that cross from one bucket to another are
//! collected on the way ([`super::targets`]).

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arrow_array::Array;
use rayon::prelude::*;

use super::capture::{key_of, Captures, Fields, Key};
use super::facts::{Agents, AgentsPart};
use super::targets::Crossings;
use super::{SiteKey, SitesError};
use crate::census::urls::{host_name, is_robots_parsed, registrable_domain};
use crate::output::read::{opt, row_groups, Columns, RowGroup};
use crate::spill::Buckets;

/// One crawl's part files: each documents part with its agents part.
#[derive(Debug, Clone, Default)]
pub struct CrawlParts {
    pub crawl: String,
    pub parts: Vec<Part>,
    /// Documents rows in all its parts.
    pub rows: u64,
}

/// A documents part and the agents part a run wrote beside it (none: a run without
/// the agents table).
#[derive(Debug, Clone)]
pub struct Part {
    pub documents: PathBuf,
    pub agents: Option<PathBuf>,
    pub rows: u64,
}

/// Which bucket a capture goes to: the same for every capture of a site, and for every
/// capture of a URL (so the latest capture of a URL is found in its bucket), and, as
/// far as the site key allows, the same for the hosts of one registrable domain (most
/// redirects stay inside one: `http://example.com` to `https://www.example.com`).
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub key: SiteKey,
    pub buckets: usize,
}

impl Route {
    fn of(&self, group: &str) -> usize {
        if self.buckets <= 1 {
            return 0;
        }
        let mut h = rustc_hash::FxHasher::default();
        h.write(group.as_bytes());
        (h.finish() % self.buckets as u64) as usize
    }

    /// The bucket of a capture of a site's `/robots.txt` URL.
    pub fn of_site(&self, site: &str) -> usize {
        if self.buckets <= 1 {
            return 0;
        }
        self.of(registrable_domain(site).unwrap_or(site))
    }

    /// The bucket of a capture of any other URL: by its host (`url_key` when it has none).
    pub fn of_other(&self, host: Option<&str>, url_key: &str) -> usize {
        if self.buckets <= 1 {
            return 0;
        }
        match host.filter(|h| !h.is_empty()) {
            Some(host) => {
                let name = host_name(host);
                self.of(registrable_domain(name).unwrap_or(name))
            }
            None => self.of(url_key),
        }
    }

    /// The bucket of the captures of a URL in its lookup form (a `Location`): what
    /// [`Route::of_site`] or [`Route::of_other`] give its captures, from the columns
    /// `run` wrote for them (a `location_key` is the `url_key` of its captures).
    pub fn of_url(&self, url_key: &str) -> usize {
        if self.buckets <= 1 {
            return 0;
        }
        match url::Url::parse(url_key) {
            Ok(parsed) => match parsed.host_str() {
                Some(host) if is_robots_parsed(&parsed) => self.of_site(self.key.site_of(host)),
                host => self.of_other(host, url_key),
            },
            Err(_) => self.of_other(None, url_key),
        }
    }
}

/// The columns that say which rows are captures of a crawl, and of which site
/// ([`CaptureRows`]); `registrable_domain` joins them when the site key asks for it.
/// URLs are read in their lookup form (`url_key`, `location_key`), which `run` wrote
/// so that no step parses a URL again.
const CAPTURE_COLUMNS: [&str; 6] = [
    "crawl",
    "record_kind",
    "url_key",
    "host",
    "location_key",
    "is_robots_url",
];

/// What the step keeps of a capture besides [`CAPTURE_COLUMNS`].
const DECIDING_COLUMNS: [&str; 8] = [
    "doc_id",
    "fetch_time",
    "http_status",
    "parsed_size",
    "robots_mime",
    "n_allow",
    "n_disallow",
    "url",
];

/// One batch of the documents table as captures of one crawl: which rows count and
/// what a row's site is.
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
    url_key: &'a str,
    host: Option<&'a str>,
    /// For a capture of a `/robots.txt` URL, its host's site by the key.
    site: Option<&'a str>,
    location: Option<&'a str>,
}

impl<'a> CaptureRows<'a> {
    fn columns(key: SiteKey) -> Vec<&'static str> {
        let mut columns = [&CAPTURE_COLUMNS[..], &DECIDING_COLUMNS[..]].concat();
        if key == SiteKey::RegistrableDomain {
            columns.push("registrable_domain");
        }
        columns
    }

    fn of(c: &Columns<'a>, crawl: &'a str, key: SiteKey) -> Result<Self, SitesError> {
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

    /// Row `i`, when it is a capture of the crawl: a URL, the crawl, not a revisit
    /// (no body, nothing to decide with). A `/robots.txt` capture's site is the
    /// `registrable_domain` column's when the key asks for it and the row has one.
    fn row(&self, i: usize) -> Option<CaptureRow<'a>> {
        let url_key = opt(self.urls, i)?;
        if opt(self.crawls, i) != Some(self.crawl) || self.kinds.value(i) == "revisit" {
            return None;
        }
        let host = opt(self.hosts, i);
        let site = match (self.robots.value(i), host) {
            (true, Some(host)) => Some(match self.domains.and_then(|d| opt(d, i)) {
                Some(domain) => domain,
                None => self.key.site_of(host),
            }),
            _ => None,
        };
        Some(CaptureRow {
            url_key,
            host,
            site,
            location: opt(self.locations, i),
        })
    }
}

/// Captures a thread holds before pushing them to their buckets, all buckets together:
/// a chunk of a bucket is pushed (a spill frame) when it holds its share of this, so
/// what the threads hold does not grow with the buckets.
const CHUNK_CAPTURES: usize = 16 * 1024;

/// The captures of one bucket's chunk at which it is pushed, of `buckets`.
fn chunk_captures(buckets: usize) -> usize {
    (CHUNK_CAPTURES / buckets.max(1)).max(256)
}

/// What reading a crawl found besides its captures.
#[derive(Debug, Default)]
pub struct ReadCrawl {
    /// The agents every document lists, in that order.
    pub agents: Vec<String>,
    /// Captures routed to the buckets.
    pub captures: u64,
    /// The redirects between buckets (none with one bucket).
    pub crossings: Crossings,
}

/// Where the parts of a crawl are read from: the files themselves, or (a remote
/// dataset) copies fetched a few parts at a time.
pub trait Fetch: Sync {
    /// `file` as a local file, and whether that is a copy to remove once read.
    fn fetch(&self, file: &Path) -> Result<(PathBuf, bool), SitesError>;

    /// Parts fetched at a time (all of them when they are read in place).
    fn group(&self) -> usize;
}

/// Reads every capture of `crawl` into `buckets` (routed by `route`), with its agents'
/// facts, the parts fetched `fetch.group()` at a time. Errors name the file; a crawl
/// whose parts have no agents table is [`SitesError::NoAgents`].
pub fn read_crawl(
    crawl: &CrawlParts,
    route: Route,
    buckets: &Buckets<Captures>,
    fetch: &dyn Fetch,
) -> Result<ReadCrawl, SitesError> {
    if crawl.parts.iter().any(|p| p.agents.is_none()) {
        return Err(SitesError::NoAgents(crawl.crawl.clone()));
    }
    let found = Mutex::new(ReadCrawl::default());
    let mut agents: Option<Agents> = None;
    for group in crawl.parts.chunks(fetch.group().max(1)) {
        // Fetched in parallel; removed whatever happens next.
        let local: Vec<(PathBuf, bool, PathBuf, bool)> = group
            .par_iter()
            .map(|part| {
                let (documents, doc_copy) = fetch.fetch(&part.documents)?;
                let agents_file = part.agents.as_deref().unwrap_or(Path::new(""));
                let (agents, agents_copy) = fetch.fetch(agents_file)?;
                Ok((documents, doc_copy, agents, agents_copy))
            })
            .collect::<Result<_, SitesError>>()?;
        let _copies = Copies(
            local
                .iter()
                .flat_map(|(d, dc, a, ac)| [(d.clone(), *dc), (a.clone(), *ac)])
                .filter(|(_, copy)| *copy)
                .map(|(p, _)| p)
                .collect(),
        );
        let mut agents_parts = Vec::with_capacity(group.len());
        for (part, (_, _, agents_file, _)) in group.iter().zip(&local) {
            if !agents_file.is_file() {
                return Err(SitesError::NoAgents(crawl.crawl.clone()));
            }
            agents_parts.push(AgentsPart::open(agents_file, part.rows)?);
        }
        if agents.is_none() {
            if let Some(first) = agents_parts.iter().find(|a| a.width > 0) {
                agents = Some(Agents::new(first.agents()?));
            }
        }
        let Some(names) = agents.as_ref() else {
            // Parts of no documents so far: nothing to read.
            continue;
        };
        let documents: Vec<PathBuf> = local.iter().map(|(d, ..)| d.clone()).collect();
        let groups = row_groups(&documents)?;
        groups.par_iter().try_for_each(|g| {
            let part = &agents_parts[g.file];
            let read = read_group(g, part, names, crawl, route, buckets)?;
            let mut found = found.lock().unwrap_or_else(|p| p.into_inner());
            found.captures += read.captures;
            found.crossings.append(read.crossings);
            Ok::<(), SitesError>(())
        })?;
    }
    let Some(agents) = agents else {
        return Err(SitesError::NoAgents(crawl.crawl.clone()));
    };
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.agents = agents.names;
    Ok(found)
}

/// Fetched copies of parts, removed when dropped (read, or an error on the way).
struct Copies(Vec<PathBuf>);

impl Drop for Copies {
    fn drop(&mut self) {
        for path in &self.0 {
            // A copy in the step's spill directory, which goes with the step anyway.
            std::fs::remove_file(path).ok();
        }
    }
}

/// One row group of a documents part, with its agents rows.
fn read_group(
    group: &RowGroup<'_>,
    part: &AgentsPart,
    agents: &Agents,
    crawl: &CrawlParts,
    route: Route,
    buckets: &Buckets<Captures>,
) -> Result<ReadCrawl, SitesError> {
    let width = agents.names.len();
    if part.width != width {
        return Err(SitesError::Misaligned {
            path: part.path.clone(),
            why: format!(
                "{} agents per document where the crawl's first part lists {width}",
                part.width
            ),
        });
    }
    let mut facts = part.facts(group.rows(), agents)?;
    let mut fact = vec![0u8; width];
    let mut chunks: Vec<Captures> = (0..buckets.len()).map(|_| Captures::new(width)).collect();
    let full = chunk_captures(buckets.len());
    let mut found = ReadCrawl::default();
    let path = group.path;
    for batch in group.batches(&CaptureRows::columns(route.key))? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path,
        };
        let rows = CaptureRows::of(&c, &crawl.crawl, route.key)?;
        let (ids, times, statuses, parsed) = (
            c.ids("doc_id")?,
            c.time("fetch_time")?,
            c.i32("http_status")?,
            c.i64("parsed_size")?,
        );
        let (mime_ok, allow, disallow, urls) = (
            c.bool("robots_mime")?,
            c.i32("n_allow")?,
            c.i32("n_disallow")?,
            c.str("url")?,
        );
        for i in 0..batch.num_rows() {
            let doc_id = ids.value(i);
            // Every documents row has its agents rows, whether it is a capture or not.
            facts.next(&doc_id, &mut fact)?;
            let Some(row) = rows.row(i) else { continue };
            let status = statuses
                .is_valid(i)
                .then(|| u16::try_from(statuses.value(i)).ok())
                .flatten();
            // A status that did not parse (a CSV cell such as `abc`): no status and no
            // parse, so nothing to decide with (`agents` calls it unknown).
            if !statuses.is_valid(i) && !parsed.is_valid(i) {
                continue;
            }
            let url_key = key_of(row.url_key);
            let location_key = row.location.map_or(0, key_of);
            let bucket = match row.site {
                Some(site) => route.of_site(site),
                None => route.of_other(row.host, row.url_key),
            };
            if let Some(location) = row.location.filter(|_| buckets.len() > 1) {
                let to = route.of_url(location);
                found.crossings.add(
                    Key::from(url_key).short(),
                    Key::from(location_key).short(),
                    to != bucket,
                );
            }
            let fields = Fields {
                doc_id,
                fetch_time: if times.is_valid(i) {
                    times.value(i)
                } else {
                    i64::MIN
                },
                url_key,
                location_key,
                status,
                mime_ok: mime_ok.value(i),
                // Null counts: the body was not parsed (no rules).
                has_rules: (allow.is_valid(i) && allow.value(i) > 0)
                    || (disallow.is_valid(i) && disallow.value(i) > 0),
            };
            let chunk = &mut chunks[bucket];
            chunk.push(fields, row.site, opt(urls, i).unwrap_or(row.url_key), &fact);
            found.captures += 1;
            if chunk.len() >= full {
                let full = std::mem::replace(chunk, Captures::new(width));
                buckets.push(bucket, full)?;
            }
        }
    }
    for (bucket, chunk) in chunks.into_iter().enumerate() {
        if !chunk.is_empty() {
            buckets.push(bucket, chunk)?;
        }
    }
    Ok(found)
}
