//! The rule lines and sitemaps of the captures a comparison asks about, read once from a
//! crawl's `groups`, `rules` and `sitemaps` parts and joined to the sites that asked.
//!
//! ```text
//! requests (doc_id -> site number), by doc_id bucket  +  a bit filter of the doc_ids
//! groups/rules/sitemaps of the crawl --part by part, filtered--> lines, by doc_id bucket
//! bucket by bucket: requests x lines --> each site's line set, by site number range
//! ```
//!
//! Buckets stay in memory when the comparison fits `--memory-limit`, else they are
//! spilled ([`crate::spill`]); a doc_id is SHA-1 bits, so its first bytes place it.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::Array;
use rayon::prelude::*;

use super::ChangesError;
use crate::output::read::{batches, opt, Columns};
use crate::output::rows::DocId;
use crate::spill::codec::{put_bytes, put_u64, Reader};
use crate::spill::{Buckets, Chunk};

/// A rule line compared between crawls: (product token, directive, pattern).
pub type RuleLine = (Box<str>, &'static str, Box<str>);

/// The lines of one capture: its rule lines and its sitemaps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    pub rules: BTreeSet<RuleLine>,
    pub sitemaps: BTreeSet<Box<str>>,
}

/// The bucket of a doc_id among `n`.
pub fn doc_bucket(doc: &DocId, n: usize) -> usize {
    let head = u64::from_le_bytes([
        doc[0], doc[1], doc[2], doc[3], doc[4], doc[5], doc[6], doc[7],
    ]);
    (head % n.max(1) as u64) as usize
}

/// A set of doc_ids that may answer yes for an id not in it (about 1% of the time at
/// 10 bits an id), never no for one in it: what the read of a crawl's lines keeps,
/// before the exact join. A doc_id is already uniform bits, so its bytes are the
/// hashes.
#[derive(Debug, Clone)]
pub struct DocFilter {
    bits: Vec<u64>,
}

impl DocFilter {
    /// Probes per id.
    const PROBES: usize = 7;

    /// A filter for about `n` ids.
    pub fn new(n: usize) -> Self {
        let words = (n.saturating_mul(10) / 64).max(1);
        DocFilter {
            bits: vec![0; words],
        }
    }

    fn places(&self, doc: &DocId) -> impl Iterator<Item = usize> + '_ {
        let a = u64::from_le_bytes([
            doc[0], doc[1], doc[2], doc[3], doc[4], doc[5], doc[6], doc[7],
        ]);
        let b = u64::from_le_bytes([
            doc[8], doc[9], doc[10], doc[11], doc[12], doc[13], doc[14], doc[15],
        ]) | 1;
        let n = (self.bits.len() * 64) as u64;
        (0..Self::PROBES as u64).map(move |k| (a.wrapping_add(k.wrapping_mul(b)) % n) as usize)
    }

    pub fn insert(&mut self, doc: &DocId) {
        let places: Vec<usize> = self.places(doc).collect();
        for p in places {
            self.bits[p / 64] |= 1 << (p % 64);
        }
    }

    pub fn may_hold(&self, doc: &DocId) -> bool {
        self.places(doc)
            .all(|p| self.bits[p / 64] & (1 << (p % 64)) != 0)
    }
}

/// Requests for the lines of captures: (doc_id, site number, site name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests(pub Vec<(DocId, u64, Box<str>)>);

impl Chunk for Requests {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.0.len() as u64);
        for (doc, seq, name) in &self.0 {
            out.extend_from_slice(doc);
            put_u64(out, *seq);
            put_bytes(out, name.as_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 24));
        for _ in 0..n {
            let doc = doc_of(r.take(16)?);
            let seq = r.u64()?;
            list.push((doc, seq, text(r.bytes()?)?.into()));
        }
        Ok(Requests(list))
    }
}

/// One line of a capture, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Rule(RuleLine),
    Sitemap(Box<str>),
}

/// Lines read, each with its capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocLines(pub Vec<(DocId, Line)>);

impl Chunk for DocLines {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.0.len() as u64);
        for (doc, line) in &self.0 {
            out.extend_from_slice(doc);
            match line {
                Line::Rule((token, directive, pattern)) => {
                    out.push(if *directive == "allow" { 0 } else { 1 });
                    put_bytes(out, token.as_bytes());
                    put_bytes(out, pattern.as_bytes());
                }
                Line::Sitemap(url) => {
                    out.push(2);
                    put_bytes(out, url.as_bytes());
                }
            }
        }
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 24));
        for _ in 0..n {
            let doc = doc_of(r.take(16)?);
            let line = match r.take(1)?[0] {
                kind @ (0 | 1) => {
                    let directive = if kind == 0 { "allow" } else { "disallow" };
                    let token = text(r.bytes()?)?.into();
                    Line::Rule((token, directive, text(r.bytes()?)?.into()))
                }
                2 => Line::Sitemap(text(r.bytes()?)?.into()),
                other => return Err(format!("line kind {other}")),
            };
            list.push((doc, line));
        }
        Ok(DocLines(list))
    }
}

/// Each asking site's line set: (site number, side, site name, lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteLines(pub Vec<(u64, u8, Box<str>, Lines)>);

impl Chunk for SiteLines {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.0.len() as u64);
        for (seq, side, name, lines) in &self.0 {
            put_u64(out, *seq);
            out.push(*side);
            put_bytes(out, name.as_bytes());
            put_u64(out, lines.rules.len() as u64);
            for (token, directive, pattern) in &lines.rules {
                out.push(u8::from(*directive == "disallow"));
                put_bytes(out, token.as_bytes());
                put_bytes(out, pattern.as_bytes());
            }
            put_u64(out, lines.sitemaps.len() as u64);
            for url in &lines.sitemaps {
                put_bytes(out, url.as_bytes());
            }
        }
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 24));
        for _ in 0..n {
            let seq = r.u64()?;
            let side = r.take(1)?[0];
            let name: Box<str> = text(r.bytes()?)?.into();
            let mut lines = Lines::default();
            for _ in 0..r.usize()? {
                let directive = if r.take(1)?[0] == 0 {
                    "allow"
                } else {
                    "disallow"
                };
                let token = text(r.bytes()?)?.into();
                lines
                    .rules
                    .insert((token, directive, text(r.bytes()?)?.into()));
            }
            for _ in 0..r.usize()? {
                lines.sitemaps.insert(text(r.bytes()?)?.into());
            }
            list.push((seq, side, name, lines));
        }
        Ok(SiteLines(list))
    }
}

fn doc_of(bytes: &[u8]) -> DocId {
    let mut doc = [0u8; 16];
    doc.copy_from_slice(bytes);
    doc
}

fn text(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| e.to_string())
}

/// Lines pushed per chunk.
const CHUNK_LINES: usize = 16 * 1024;

/// One crawl's `groups`, `rules` and `sitemaps` parts of one task.
#[derive(Debug, Clone)]
pub struct LineParts {
    pub groups: Option<PathBuf>,
    pub rules: Option<PathBuf>,
    pub sitemaps: Option<PathBuf>,
}

/// Reads the lines of the captures `filter` may hold from every task's parts (tasks in
/// parallel) into `out`, by doc_id bucket.
pub fn read_lines(
    parts: &[LineParts],
    filter: &DocFilter,
    out: &Buckets<DocLines>,
    fetch: &super::PartsIn<'_>,
) -> Result<(), ChangesError> {
    parts.par_iter().try_for_each(|part| {
        // A remote task's parts are read from copies, removed once read.
        let mut copies = Vec::new();
        let mut local = |file: &Option<PathBuf>| -> Result<Option<PathBuf>, ChangesError> {
            let Some(file) = file else { return Ok(None) };
            let (path, copy) = fetch.fetch(file)?;
            if copy {
                copies.push(path.clone());
            }
            Ok(Some(path))
        };
        let task = LineParts {
            groups: local(&part.groups)?,
            rules: local(&part.rules)?,
            sitemaps: local(&part.sitemaps)?,
        };
        let read = read_task(&task, filter, out);
        for copy in copies {
            std::fs::remove_file(copy).ok();
        }
        read
    })
}

/// One task's lines: its groups of wanted captures first (their product tokens), then
/// its rules, then its sitemaps.
fn read_task(
    part: &LineParts,
    filter: &DocFilter,
    out: &Buckets<DocLines>,
) -> Result<(), ChangesError> {
    let n = out.len();
    let mut chunks: Vec<DocLines> = (0..n).map(|_| DocLines::default()).collect();
    let push = |doc: DocId, line: Line, chunks: &mut Vec<DocLines>| -> Result<(), ChangesError> {
        let b = doc_bucket(&doc, n);
        chunks[b].0.push((doc, line));
        if chunks[b].0.len() >= CHUNK_LINES {
            out.push(b, std::mem::take(&mut chunks[b]))?;
        }
        Ok(())
    };
    let mut tokens: HashMap<(DocId, i32), Vec<Box<str>>> = HashMap::new();
    if let Some(path) = &part.groups {
        for batch in batches(path, &["doc_id", "group_index", "product_tokens"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, index) = (c.ids("doc_id")?, c.i32("group_index")?);
            let lists = c
                .get("product_tokens")?
                .as_list_opt::<i32>()
                .ok_or_else(|| c.wrong("product_tokens"))?;
            for i in 0..batch.num_rows() {
                let id = ids.value(i);
                if !filter.may_hold(&id) {
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
    if let Some(path) = &part.rules {
        let columns = ["doc_id", "group_index", "directive", "pattern"];
        for batch in batches(path, &columns)? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, index) = (c.ids("doc_id")?, c.i32("group_index")?);
            let (directive, pattern) = (c.str("directive")?, c.str("pattern")?);
            for i in 0..batch.num_rows() {
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
                let Some(names) = tokens.get(&(id, index.value(i))) else {
                    continue;
                };
                let pattern: Box<str> = opt(pattern, i).unwrap_or_default().into();
                for name in names {
                    push(
                        id,
                        Line::Rule((name.clone(), directive, pattern.clone())),
                        &mut chunks,
                    )?;
                }
            }
        }
    }
    if let Some(path) = &part.sitemaps {
        for batch in batches(path, &["doc_id", "url"])? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (ids, urls) = (c.ids("doc_id")?, c.str("url")?);
            for i in 0..batch.num_rows() {
                let id = ids.value(i);
                if filter.may_hold(&id) {
                    push(id, Line::Sitemap(urls.value(i).into()), &mut chunks)?;
                }
            }
        }
    }
    for (b, chunk) in chunks.into_iter().enumerate() {
        if !chunk.0.is_empty() {
            out.push(b, chunk)?;
        }
    }
    Ok(())
}

/// Joins one doc_id bucket: the `requests` of one side (`side`) with the `lines` read
/// for that bucket; each request's line set goes to `out` by `range_of` its site number.
pub fn join(
    side: u8,
    requests: impl Iterator<Item = Result<Requests, crate::spill::SpillError>>,
    lines: impl Iterator<Item = Result<DocLines, crate::spill::SpillError>>,
    range_of: impl Fn(u64) -> usize,
    out: &Buckets<SiteLines>,
) -> Result<(), ChangesError> {
    let mut asked: HashMap<DocId, Vec<(u64, Box<str>)>> = HashMap::new();
    for chunk in requests {
        for (doc, seq, name) in chunk?.0 {
            asked.entry(doc).or_default().push((seq, name));
        }
    }
    let mut found: HashMap<DocId, Lines> = HashMap::with_capacity(asked.len());
    for chunk in lines {
        for (doc, line) in chunk?.0 {
            if !asked.contains_key(&doc) {
                continue;
            }
            let set = found.entry(doc).or_default();
            match line {
                Line::Rule(rule) => {
                    set.rules.insert(rule);
                }
                Line::Sitemap(url) => {
                    set.sitemaps.insert(url);
                }
            }
        }
    }
    let mut chunks: HashMap<usize, SiteLines> = HashMap::new();
    for (doc, sites) in asked {
        let lines = found.remove(&doc).unwrap_or_default();
        for (seq, name) in sites {
            let range = range_of(seq);
            let chunk = chunks.entry(range).or_default();
            chunk.0.push((seq, side, name, lines.clone()));
            if chunk.0.len() >= CHUNK_LINES {
                out.push(range, std::mem::take(chunk))?;
            }
        }
    }
    for (range, chunk) in chunks {
        if !chunk.0.is_empty() {
            out.push(range, chunk)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_never_misses_an_id_it_holds_and_rarely_takes_another() {
        let ids: Vec<DocId> = (0u32..20_000)
            .map(|i| {
                use sha1::Digest;
                let mut id = [0u8; 16];
                id.copy_from_slice(&sha1::Sha1::digest(i.to_le_bytes())[..16]);
                id
            })
            .collect();
        let mut filter = DocFilter::new(10_000);
        for id in &ids[..10_000] {
            filter.insert(id);
        }
        assert!(ids[..10_000].iter().all(|id| filter.may_hold(id)));
        let false_yes = ids[10_000..]
            .iter()
            .filter(|id| filter.may_hold(id))
            .count();
        assert!(false_yes < 300, "{false_yes} of 10,000 others taken");
    }

    #[test]
    fn chunks_of_every_kind_come_back_from_their_bytes() {
        let doc = [7u8; 16];
        let requests = Requests(vec![(doc, 3, "a.example".into()), ([1; 16], 0, "".into())]);
        let lines = DocLines(vec![
            (doc, Line::Rule(("gptbot".into(), "disallow", "/".into()))),
            (doc, Line::Rule(("*".into(), "allow", "".into()))),
            (doc, Line::Sitemap("https://a.example/s.xml".into())),
        ]);
        let mut set = Lines::default();
        set.rules.insert(("gptbot".into(), "disallow", "/x".into()));
        set.sitemaps.insert("s".into());
        let sites = SiteLines(vec![
            (9, 1, "é.example".into(), set),
            (10, 0, "b".into(), Lines::default()),
        ]);
        fn round<C: Chunk + PartialEq + std::fmt::Debug>(c: &C) {
            let mut bytes = Vec::new();
            c.encode(&mut bytes);
            assert_eq!(&C::decode(&bytes).expect("decoded"), c);
            assert!(C::decode(&bytes[..bytes.len() - 1]).is_err());
        }
        round(&requests);
        round(&lines);
        round(&sites);
    }
}
