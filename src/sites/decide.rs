//! Choosing the capture that decides for each site of one bucket, Common Crawl's
//! way (robotstxt-experiments):
//!
//! 1. the latest capture per URL (greatest fetch time, then greatest doc_id);
//! 2. from each of the site's `/robots.txt` URLs (http, https, ports and, by site
//!    key, hosts), redirects followed inside the crawl for up to
//!    [`MAX_REDIRECT_HOPS`], to any URL and across hosts; a chain that ends on a
//!    redirect (a sixth hop, a `Location` never captured, none at all) is
//!    "redirect not resolved";
//! 3. between the resolved chains, success > allow all > forbidden > defer >
//!    redirect not resolved; within a class, a success passing the MIME filter
//!    first, then the latest capture (then the greatest doc_id); chains ending on
//!    the same capture: the fewest hops, then the latest start.
//!
//! A chain looks a URL up in the bucket's own captures, then in the captures of the
//! redirect targets that lie in other buckets ([`super::targets`]). Every sort here
//! has a total key (doc ids are unique), so the order the captures came in, and the
//! thread count, change nothing.

use std::cmp::Reverse;

use rayon::prelude::*;

use super::capture::{Capture, Captures, Key};
use crate::census::site_classes::{Fetch, StatusSemantics};
use crate::limits::MAX_REDIRECT_HOPS;
use crate::output::rows::DocId;
use crate::spill::codec::{put_bytes, put_u64, Reader};
use crate::spill::Chunk;

/// Keeps the latest capture of each URL, sorted by URL key (for look-ups).
pub fn latest_per_url(captures: &mut Captures) {
    captures
        .list
        .par_sort_unstable_by_key(|c| (c.url_key, Reverse(c.fetch_time), Reverse(c.doc_id)));
    captures.list.dedup_by_key(|c| c.url_key);
}

/// A capture a chain went through: one of the bucket's, or of the targets'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ref {
    Local(usize),
    Target(usize),
}

/// The captures a bucket's chains may go through.
struct Lookup<'a> {
    local: &'a Captures,
    targets: &'a Captures,
}

impl<'a> Lookup<'a> {
    fn get(&self, r: Ref) -> (&'a Captures, &'a Capture) {
        match r {
            Ref::Local(i) => (self.local, &self.local.list[i]),
            Ref::Target(i) => (self.targets, &self.targets.list[i]),
        }
    }

    fn find(&self, key: Key) -> Option<Ref> {
        let find = |c: &Captures| c.list.binary_search_by_key(&key, |c| c.url_key).ok();
        find(self.local)
            .map(Ref::Local)
            .or_else(|| find(self.targets).map(Ref::Target))
    }

    /// Follows the redirects from the local capture `start`.
    fn follow(&self, start: usize, semantics: StatusSemantics) -> Chain {
        let (mut end, mut hops) = (Ref::Local(start), 0);
        loop {
            let capture = self.get(end).1;
            let fetch = semantics.fetch(capture.status);
            let followed = fetch == Fetch::Redirect && hops < MAX_REDIRECT_HOPS;
            let next = match capture.location_key.get() {
                0 => None,
                _ if followed => self.find(capture.location_key),
                _ => None,
            };
            match next {
                Some(next) => {
                    end = next;
                    hops += 1;
                }
                None => {
                    return Chain {
                        start,
                        end,
                        hops,
                        fetch,
                    }
                }
            }
        }
    }
}

/// Where one `/robots.txt` URL led.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Chain {
    /// The capture of the site's robots.txt URL (a local one).
    start: usize,
    /// The capture the chain ended on (the start when nothing was followed).
    end: Ref,
    hops: u32,
    /// The end's outcome; `Redirect` means not resolved.
    fetch: Fetch,
}

/// One decided site: what its rows need, its text in its [`Decided`] chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The name, then the start URL, then the deciding URL, in the chunk's text.
    text: u64,
    name_len: u32,
    start_url_len: u32,
    url_len: u32,
    /// The deciding capture's agents' facts in the chunk's facts.
    facts: u64,
    pub captures: u32,
    pub hops: u32,
    pub fetch: Fetch,
    pub start_doc: DocId,
    pub doc_id: DocId,
    pub status: Option<u16>,
    pub mime_ok: bool,
    pub has_rules: bool,
}

/// Decided sites in name order, with their text: a bucket's, or a piece of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decided {
    pub list: Vec<Site>,
    text: String,
    facts: Vec<u8>,
    width: usize,
}

impl Decided {
    fn new(width: usize) -> Self {
        Decided {
            width,
            ..Decided::default()
        }
    }

    fn span(&self, start: u64, len: u32) -> &str {
        let start = start as usize;
        self.text
            .get(start..start + len as usize)
            .unwrap_or_default()
    }

    pub fn name(&self, s: &Site) -> &str {
        self.span(s.text, s.name_len)
    }

    pub fn start_url(&self, s: &Site) -> &str {
        self.span(s.text + u64::from(s.name_len), s.start_url_len)
    }

    pub fn url(&self, s: &Site) -> &str {
        self.span(
            s.text + u64::from(s.name_len) + u64::from(s.start_url_len),
            s.url_len,
        )
    }

    pub fn facts(&self, s: &Site) -> &[u8] {
        let start = s.facts as usize;
        self.facts
            .get(start..start + self.width)
            .unwrap_or_default()
    }

    fn push(&mut self, name: &str, start_url: &str, url: &str, facts: &[u8], site: Site) {
        let len = |s: &str| u32::try_from(s.len()).unwrap_or(u32::MAX);
        let text = self.text.len() as u64;
        for part in [name, start_url, url] {
            self.text.push_str(part);
        }
        let at = self.facts.len() as u64;
        self.facts.extend_from_slice(facts);
        self.list.push(Site {
            text,
            name_len: len(name),
            start_url_len: len(start_url),
            url_len: len(url),
            facts: at,
            ..site
        });
    }

    /// The sites in pieces of at most `n`, in order (what a sorted run is spilled as).
    pub fn pieces(self, n: usize) -> Vec<Decided> {
        let mut pieces = Vec::new();
        for sites in self.list.chunks(n.max(1)) {
            let mut piece = Decided::new(self.width);
            for s in sites {
                piece.push(
                    self.name(s),
                    self.start_url(s),
                    self.url(s),
                    self.facts(s),
                    s.clone(),
                );
            }
            pieces.push(piece);
        }
        pieces
    }
}

/// The deciding chain of every site of `local` (a bucket's captures, through
/// [`latest_per_url`]), looking up URLs of other buckets in `targets` (likewise
/// sorted); sites in name order.
pub fn sites(local: &Captures, targets: &Captures, semantics: StatusSemantics) -> Decided {
    let lookup = Lookup { local, targets };
    let mut starts: Vec<(&str, usize)> = local
        .list
        .iter()
        .enumerate()
        .filter_map(|(i, c)| local.site(c).map(|s| (s, i)))
        .collect();
    starts.par_sort_unstable();
    let rank = |chain: &Chain| {
        let start = &local.list[chain.start];
        let end = lookup.get(chain.end).1;
        let mime_first = chain.fetch == Fetch::Success && !end.mime_ok;
        let latest = (Reverse(end.fetch_time), Reverse(end.doc_id));
        // Two URLs that lead to the same capture: the shorter chain, then the later start.
        let shortest = (chain.hops, Reverse(start.fetch_time), Reverse(start.doc_id));
        (chain.fetch, mime_first, latest, shortest)
    };
    let mut decided = Decided::new(local.width());
    for group in starts.chunk_by(|a, b| a.0 == b.0) {
        let chains = group.iter().map(|&(_, i)| lookup.follow(i, semantics));
        let Some(best) = chains.min_by_key(rank) else {
            continue;
        };
        let start = &local.list[best.start];
        let (holder, end) = lookup.get(best.end);
        decided.push(
            group[0].0,
            local.url(start),
            holder.url(end),
            holder.facts(end),
            Site {
                text: 0,
                name_len: 0,
                start_url_len: 0,
                url_len: 0,
                facts: 0,
                captures: u32::try_from(group.len()).unwrap_or(u32::MAX),
                hops: best.hops,
                fetch: best.fetch,
                start_doc: start.doc_id,
                doc_id: end.doc_id,
                status: end.status,
                mime_ok: end.mime_ok,
                has_rules: end.has_rules,
            },
        );
    }
    decided
}

impl Chunk for Decided {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.width as u64);
        put_u64(out, self.list.len() as u64);
        for s in &self.list {
            for n in [s.text, s.facts] {
                put_u64(out, n);
            }
            for n in [s.name_len, s.start_url_len, s.url_len, s.captures, s.hops] {
                out.extend_from_slice(&n.to_le_bytes());
            }
            out.push(s.fetch as u8);
            out.extend_from_slice(&s.start_doc);
            out.extend_from_slice(&s.doc_id);
            out.extend_from_slice(&s.status.map_or(u32::MAX, u32::from).to_le_bytes());
            out.push(u8::from(s.mime_ok) | u8::from(s.has_rules) << 1);
        }
        put_bytes(out, self.text.as_bytes());
        put_bytes(out, &self.facts);
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let width = r.usize()?;
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 60));
        let u32_of = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        for _ in 0..n {
            let (text, facts) = (r.u64()?, r.u64()?);
            let mut lens = [0u32; 5];
            for l in &mut lens {
                *l = u32_of(r.take(4)?);
            }
            let fetch = Fetch::from_index(r.take(1)?[0]).ok_or("a fetch outcome out of range")?;
            let mut start_doc = [0u8; 16];
            start_doc.copy_from_slice(r.take(16)?);
            let mut doc_id = [0u8; 16];
            doc_id.copy_from_slice(r.take(16)?);
            let status = match u32_of(r.take(4)?) {
                u32::MAX => None,
                s => Some(u16::try_from(s).map_err(|_| format!("status {s}"))?),
            };
            let flags = r.take(1)?[0];
            list.push(Site {
                text,
                name_len: lens[0],
                start_url_len: lens[1],
                url_len: lens[2],
                facts,
                captures: lens[3],
                hops: lens[4],
                fetch,
                start_doc,
                doc_id,
                status,
                mime_ok: flags & 1 == 1,
                has_rules: flags & 2 == 2,
            });
        }
        let text = String::from_utf8(r.bytes()?.to_vec()).map_err(|e| e.to_string())?;
        let facts = r.bytes()?.to_vec();
        let decided = Decided {
            list,
            text,
            facts,
            width,
        };
        for s in &decided.list {
            let mut at = s.text as usize;
            for len in [s.name_len, s.start_url_len, s.url_len] {
                let end = at + len as usize;
                if end > decided.text.len()
                    || !decided.text.is_char_boundary(at)
                    || !decided.text.is_char_boundary(end)
                {
                    return Err("a site's text lies outside its chunk".to_owned());
                }
                at = end;
            }
            if s.facts as usize + width > decided.facts.len() {
                return Err("a site's facts lie outside its chunk".to_owned());
            }
        }
        Ok(decided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sites::capture::{key_of, Fields};

    /// A capture of `url` at `time` with `status`, redirecting to `location`; a start
    /// of `site` when given.
    fn cap(
        into: &mut Captures,
        url: &str,
        time: i64,
        status: u16,
        location: Option<&str>,
        site: Option<&str>,
    ) {
        let fields = Fields {
            doc_id: (time as u128 * 1000 + into.len() as u128).to_be_bytes(),
            fetch_time: time,
            url_key: key_of(url),
            location_key: location.map_or(0, key_of),
            status: Some(status),
            mime_ok: true,
            has_rules: true,
        };
        into.push(fields, site, url, &[time as u8]);
    }

    fn decide(mut local: Captures, mut targets: Captures, semantics: StatusSemantics) -> Decided {
        latest_per_url(&mut local);
        latest_per_url(&mut targets);
        sites(&local, &targets, semantics)
    }

    fn url(i: usize) -> String {
        format!("https://h{i}.example/robots.txt")
    }

    /// A chain of `n` 301s from site a's robots.txt to a 200.
    fn chain(n: usize) -> Captures {
        let mut caps = Captures::new(1);
        for i in 0..n {
            cap(
                &mut caps,
                &url(i),
                i as i64,
                301,
                Some(&url(i + 1)),
                (i == 0).then_some("a"),
            );
        }
        cap(&mut caps, &url(n), 100, 200, None, None);
        caps
    }

    #[test]
    fn rfc_2_3_1_2_five_hops_are_followed_not_six() {
        for (n, hops, fetch) in [
            (1, 1, Fetch::Success),
            (5, 5, Fetch::Success),
            (6, 5, Fetch::Redirect),
        ] {
            let decided = decide(chain(n), Captures::new(1), StatusSemantics::Rfc9309);
            let site = &decided.list[0];
            assert_eq!((site.hops, site.fetch), (hops, fetch), "chain of {n}");
            assert_eq!(decided.start_url(site), url(0));
        }
    }

    #[test]
    fn a_chain_goes_on_in_the_targets_of_other_buckets() {
        // The same chain of three, its last two captures in another bucket.
        let all = chain(3);
        let theirs = all.filtered(|c| c.fetch_time >= 2);
        let mine = all.filtered(|c| c.fetch_time < 2);
        let whole = decide(all, Captures::new(1), StatusSemantics::Rfc9309);
        let split = decide(mine, theirs, StatusSemantics::Rfc9309);
        assert_eq!(
            split, whole,
            "the targets stand in for the captures elsewhere"
        );
        assert_eq!(split.list[0].hops, 3);
        assert_eq!(split.url(&split.list[0]), url(3));
        assert_eq!(
            split.facts(&split.list[0]),
            [100],
            "the deciding capture's facts"
        );
    }

    #[test]
    fn latest_capture_per_url_then_precedence_across_urls() {
        let mut caps = Captures::new(1);
        cap(
            &mut caps,
            "http://a.example/robots.txt",
            1,
            200,
            None,
            Some("a"),
        );
        cap(
            &mut caps,
            "http://a.example/robots.txt",
            5,
            503,
            None,
            Some("a"),
        );
        cap(
            &mut caps,
            "https://a.example/robots.txt",
            2,
            404,
            None,
            Some("a"),
        );
        cap(
            &mut caps,
            "https://b.example/robots.txt",
            3,
            302,
            Some("https://b.example/gone"),
            Some("b"),
        );
        let decided = decide(caps, Captures::new(1), StatusSemantics::Rfc9309);
        let sites = &decided.list;
        assert_eq!(sites.len(), 2);
        // The 200 was refetched as 503; the https 404 (allow all) beats defer.
        assert_eq!((decided.name(&sites[0]), sites[0].captures), ("a", 2));
        assert_eq!(sites[0].fetch, Fetch::AllowAll);
        // A Location never captured is not resolved.
        assert_eq!(decided.name(&sites[1]), "b");
        assert_eq!((sites[1].fetch, sites[1].hops), (Fetch::Redirect, 0));
    }

    #[test]
    fn redirect_loops_stop_after_five_hops() {
        let (a, b) = (
            "http://l.example/robots.txt",
            "https://l.example/robots.txt",
        );
        let mut caps = Captures::new(1);
        cap(&mut caps, a, 1, 301, Some(b), Some("l"));
        cap(&mut caps, b, 2, 301, Some(a), Some("l"));
        let decided = decide(caps, Captures::new(1), StatusSemantics::Ccbot);
        let site = &decided.list[0];
        assert_eq!((site.fetch, site.hops), (Fetch::Redirect, 5));
    }

    #[test]
    fn the_order_captures_came_in_changes_nothing() {
        let caps = chain(4);
        let mut reversed = Captures::new(1);
        for c in caps.list.iter().rev() {
            let one = caps.filtered(|x| x == c);
            reversed.append(one);
        }
        assert_eq!(
            decide(caps, Captures::new(1), StatusSemantics::Google),
            decide(reversed, Captures::new(1), StatusSemantics::Google)
        );
    }

    #[test]
    fn decided_sites_come_back_from_their_bytes_and_in_pieces() {
        let decided = decide(chain(2), Captures::new(1), StatusSemantics::Rfc9309);
        let mut bytes = Vec::new();
        decided.encode(&mut bytes);
        assert_eq!(Decided::decode(&bytes).expect("decoded"), decided);
        assert!(Decided::decode(&bytes[..bytes.len() - 2]).is_err());
        let pieces = decided.clone().pieces(1);
        assert_eq!(pieces.len(), decided.list.len());
        assert_eq!(
            pieces[0].name(&pieces[0].list[0]),
            decided.name(&decided.list[0])
        );
    }
}
