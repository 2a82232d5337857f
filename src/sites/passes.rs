//! Bounding the step's memory: a crawl with more captures than `--memory-limit` allows
//! is decided in passes, each over one range of site names.
//!
//! The ranges follow each other in name order and the table's rows are written in
//! name order, with one builder carried from pass to pass, so the file is the same
//! byte for byte whatever the number of passes (tested in `tests/it/sites.rs`).
//!
//! A pass keeps the captures of its sites, and every capture of a URL that a redirect
//! chain of its sites may reach: a chain may cross into any site's URLs (and a
//! capture of a redirect target is only ever needed whole, all captures of its URL,
//! for the latest one to be chosen). A first reading of the crawl collects its
//! redirects ([`Redirects`], 16 bytes per 3xx with a `Location` and 16 more when it is a
//! site's own capture: about a tenth of the captures in Common Crawl's crawls) with a
//! sample of the site names that places the ranges. Each pass then follows its own
//! sites' redirects [`MAX_REDIRECT_HOPS`] deep through that graph, so what it holds
//! besides its sites grows with its sites' redirects, not with the crawl's. Every pass
//! reads the documents and agents tables again: the time the memory bound costs (the
//! agents rows of its captures alone, found by position: [`super::agents::Find::At`]).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use super::read::{self, UrlKey};
use super::{SiteKey, SitesError};
use crate::limits::{
    MAX_REDIRECT_HOPS, SITES_BYTES_PER_CAPTURE, SITES_MMAP_THRESHOLD, SITES_RESERVE,
    SITES_SAMPLE_PER_PASS,
};

/// How one crawl is decided: the name boundaries between passes, and the crawl's
/// redirects (none to follow when there is one pass, which keeps every capture).
#[derive(Debug, Default)]
pub struct Plan {
    bounds: Vec<Box<str>>,
    redirects: Option<Redirects>,
}

/// The redirects of a crawl, as much as choosing a pass's captures needs. URLs are the
/// low 64 bits of their [`UrlKey`]: two URLs sharing them only make a pass keep a few
/// captures it does not use, never miss one.
#[derive(Debug, Default)]
pub struct Redirects {
    /// (URL, `Location`) of every capture with a `Location`, sorted.
    edges: Vec<(u64, u64)>,
    /// ([`prefix`] of the site's name, `Location`) of the sites' own captures, sorted.
    starts: Vec<(u64, u64)>,
}

/// The first 8 bytes of a name as a number that sorts as the names do (shorter names
/// padded with zeros, below any byte of a name).
pub(super) fn prefix(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let n = name.len().min(8);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
    u64::from_be_bytes(bytes)
}

/// The part of a [`UrlKey`] the redirect graph holds.
fn short(key: UrlKey) -> u64 {
    key as u64
}

impl Redirects {
    /// One capture with a `Location`, in any order: its URL, the `Location`, and the
    /// [`prefix`] of its site's name when it is a site's own capture.
    pub fn add(&mut self, url: UrlKey, location: UrlKey, site: Option<u64>) {
        self.edges.push((short(url), short(location)));
        if let Some(site) = site {
            self.starts.push((site, short(location)));
        }
    }

    /// The bytes the graph holds.
    pub fn bytes(&self) -> usize {
        (self.edges.capacity() + self.starts.capacity()) * std::mem::size_of::<(u64, u64)>()
    }

    /// Sorted for lookups, each edge once.
    pub fn finish(mut self) -> Redirects {
        for list in [&mut self.edges, &mut self.starts] {
            list.sort_unstable();
            list.dedup();
            list.shrink_to_fit();
        }
        self
    }

    /// The URLs that the chains of the sites from `from` to `to` may reach, sorted:
    /// every `Location` of their captures, then the `Location`s of those URLs'
    /// captures, [`MAX_REDIRECT_HOPS`] deep. A name that shares its first 8 bytes
    /// with a boundary counts on both sides of it.
    fn reached(&self, from: Option<&str>, to: Option<&str>) -> Vec<u64> {
        let (low, high) = (from.map_or(0, prefix), to.map_or(u64::MAX, prefix));
        let mut frontier: Vec<u64> = self
            .starts
            .iter()
            .filter(|&&(site, _)| low <= site && site <= high)
            .map(|&(_, location)| location)
            .collect();
        frontier.sort_unstable();
        frontier.dedup();
        let mut reached = frontier.clone();
        // The first hop's URLs are in; each round adds the next hop's.
        for _ in 1..MAX_REDIRECT_HOPS {
            let mut next: Vec<u64> = Vec::new();
            for &url in &frontier {
                let first = self.edges.partition_point(|&(u, _)| u < url);
                next.extend(
                    self.edges[first..]
                        .iter()
                        .take_while(|&&(u, _)| u == url)
                        .map(|&(_, location)| location),
                );
            }
            next.sort_unstable();
            next.dedup();
            next.retain(|k| reached.binary_search(k).is_err());
            if next.is_empty() {
                break;
            }
            reached.extend_from_slice(&next);
            reached.sort_unstable();
            frontier = next;
        }
        reached
    }
}

/// One pass: the sites from `from` (included) to `to` (excluded); `None` is open.
#[derive(Debug, Clone)]
pub struct Pass<'a> {
    from: Option<&'a str>,
    to: Option<&'a str>,
    /// Sorted short keys of the URLs this pass's redirect chains may reach; `None`:
    /// every capture is kept.
    targets: Option<Vec<u64>>,
}

impl Pass<'_> {
    /// The whole crawl at once.
    #[cfg(test)]
    pub const ALL: Pass<'static> = Pass {
        from: None,
        to: None,
        targets: None,
    };

    /// Whether `site` is one of this pass's sites.
    pub fn holds(&self, site: &str) -> bool {
        self.from.is_none_or(|from| from <= site) && self.to.is_none_or(|to| site < to)
    }

    /// Whether the pass keeps a capture of the URL `key` whose site is `site`, and
    /// with which site: `None`, not kept; `Some(None)`, kept only because a redirect
    /// may lead to it (its site is decided in its own pass); `Some(site)`, one of the
    /// pass's sites.
    pub fn keep<'s>(&self, site: Option<&'s str>, key: UrlKey) -> Option<Option<&'s str>> {
        let Some(targets) = &self.targets else {
            return Some(site);
        };
        match site.filter(|s| self.holds(s)) {
            Some(site) => Some(Some(site)),
            None => targets.binary_search(&short(key)).is_ok().then_some(None),
        }
    }
}

impl Plan {
    /// One pass over the whole crawl.
    pub fn one() -> Plan {
        Plan::default()
    }

    /// The plan for a crawl of `rows` documents rows under `memory_limit` bytes: one
    /// pass when they fit, else a first reading of the crawl for its redirects
    /// and the name boundaries.
    pub fn new(
        files: &[PathBuf],
        crawl: &str,
        rows: usize,
        key: SiteKey,
        memory_limit: usize,
    ) -> Result<Plan, SitesError> {
        // One pass holds no redirect graph and no reserve is taken from it: measured,
        // a crawl planned at the whole limit peaks at about 60% of it (BENCHMARKS.md).
        if count(rows, memory_limit) == 1 {
            return Ok(Plan::one());
        }
        // Before the planning scan, whose row groups are the first to be freed.
        map_large_allocations();
        let planned = count(rows, pass_budget(memory_limit, 0));
        // About SITES_SAMPLE_PER_PASS names per pass, a crawl holding about a site per
        // two captures; the same names whatever the threads (a hash, not a position).
        let every = (rows / 2 / (planned * SITES_SAMPLE_PER_PASS)).max(1) as u64;
        let sampled = |site: &str| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            site.hash(&mut h);
            h.finish() % every == 0
        };
        let (redirects, sample) = read::scan_crawl(files, crawl, key, sampled)?;
        // The redirect graph is held through every pass: the passes share what is left.
        let passes = count(rows, pass_budget(memory_limit, redirects.bytes()));
        Ok(Plan {
            bounds: boundaries(sample, passes),
            redirects: Some(redirects),
        })
    }

    /// The passes, in name order.
    pub fn passes(&self) -> impl Iterator<Item = Pass<'_>> {
        name_ranges(&self.bounds).map(move |(from, to)| Pass {
            from,
            to,
            targets: self.redirects.as_ref().map(|r| r.reached(from, to)),
        })
    }

    /// How many passes there are.
    pub fn len(&self) -> usize {
        self.bounds.len() + 1
    }

    /// Room to reserve for the captures `pass` keeps of a crawl of `rows`: its share
    /// of the rows, a quarter more for uneven ranges, and its redirect targets.
    pub fn capacity(&self, pass: &Pass<'_>, rows: usize) -> usize {
        match &pass.targets {
            None => rows,
            Some(targets) => rows / self.len() + rows / (4 * self.len()) + targets.len(),
        }
    }
}

/// The names that split a `sample` of names (in any order, repeats allowed) into
/// `passes` ranges of about as many names each; fewer when the sample has fewer names.
/// Shared with the `changes` step's passes.
pub fn boundaries(mut sample: Vec<Box<str>>, passes: usize) -> Vec<Box<str>> {
    sample.sort_unstable();
    sample.dedup();
    let mut bounds: Vec<Box<str>> = (1..passes)
        .filter_map(|k| sample.get(k * sample.len() / passes).cloned())
        .collect();
    bounds.dedup();
    bounds
}

/// The ranges `[from, to)` that `bounds` (sorted) cut the names into, in name order: the
/// first with no start, the last with no end, every name in exactly one.
pub fn name_ranges(bounds: &[Box<str>]) -> impl Iterator<Item = (Option<&str>, Option<&str>)> + '_ {
    let edges = || bounds.iter().map(|b| Some(&**b));
    std::iter::once(None)
        .chain(edges())
        .zip(edges().chain(std::iter::once(None)))
}

/// Hands the memory a pass freed back to the system. glibc keeps freed memory in the
/// arena of the thread that allocated it (each rayon worker has its own), so the next
/// pass, allocating from other threads, would add to the process's size instead: 10M
/// captures in 20 passes at `--memory-limit 256MiB` peaked at 365 MiB untrimmed, at
/// 227 MiB with glibc trimming on every free (`MALLOC_TRIM_THRESHOLD_=0`). Called twice
/// a pass. Its cost, one noisy run each at 20 passes: 178.0 s with a trim before each
/// pass against 169.2 s without. On other C libraries this does nothing.
pub fn release_freed_memory() {
    // SAFETY: malloc_trim takes no pointer; it walks glibc's own arenas under their locks.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Sets glibc's mmap threshold to [`SITES_MMAP_THRESHOLD`] for the rest of the process:
/// an allocation larger than that is mapped on its own and unmapped when freed, whatever
/// the thread. Left to itself, glibc raises its threshold after each large free (up to
/// 32 MiB), so once the first pass has freed its captures, the next passes' row-group
/// captures, names and read buffers (a few MiB each, made on the pool's threads and freed
/// on the caller's) come from the heaps and their arenas. What kept the difference there
/// was not traced; the effect was measured: on 10M captures in 6 passes at the default
/// limit, peak RSS 477-498 MB -> 417-429 MB, the same wall time (BENCHMARKS.md). Only for
/// a crawl in passes: in one pass (2M captures) it cost 14-19% more time for 12% less
/// memory. On other C libraries this does nothing.
fn map_large_allocations() {
    // SAFETY: mallopt takes no pointer; glibc applies it under its arenas' locks. Its
    // answer is not looked at: glibc 2.36 takes any threshold, and a refusal would only
    // leave glibc's own policy, which changes the peak, never what is written.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        let threshold = libc::c_int::try_from(SITES_MMAP_THRESHOLD).unwrap_or(libc::c_int::MAX);
        libc::mallopt(libc::M_MMAP_THRESHOLD, threshold);
    }
}

/// What each pass of a crawl decided in several may hold of `memory_limit`: the limit
/// less [`SITES_RESERVE`] and the `held` bytes kept through every pass (the redirect
/// graph), at least a quarter of the limit (so that tiny limits still mean passes).
pub fn pass_budget(memory_limit: usize, held: usize) -> usize {
    memory_limit
        .saturating_sub(SITES_RESERVE.saturating_add(held))
        .max(memory_limit / 4)
}

/// The passes a crawl of `rows` documents rows needs at `budget` bytes a pass (at
/// most one per row).
pub fn count(rows: usize, budget: usize) -> usize {
    rows.saturating_mul(SITES_BYTES_PER_CAPTURE)
        .div_ceil(budget.max(1))
        .clamp(1, rows.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Redirect = (UrlKey, UrlKey, Option<u64>);

    fn graph(redirects: impl IntoIterator<Item = Redirect>) -> Redirects {
        let mut all = Redirects::default();
        for (url, location, site) in redirects {
            all.add(url, location, site);
        }
        all.finish()
    }

    fn plan(bounds: &[&str], redirects: &[Redirect]) -> Plan {
        Plan {
            bounds: bounds.iter().map(|&b| b.into()).collect(),
            redirects: Some(graph(redirects.iter().copied())),
        }
    }

    fn site(name: &str) -> Option<u64> {
        Some(prefix(name))
    }

    #[test]
    fn passes_cover_every_name_once_in_order() {
        let plan = plan(&["b", "d"], &[]);
        let passes: Vec<Pass<'_>> = plan.passes().collect();
        assert_eq!(plan.len(), 3);
        assert_eq!(passes.len(), 3);
        for name in ["", "a", "az", "b", "c", "d", "zz"] {
            let holding: Vec<usize> = (0..3).filter(|&i| passes[i].holds(name)).collect();
            assert_eq!(holding.len(), 1, "{name:?} in {holding:?}");
        }
        assert!(passes[0].holds("a") && !passes[0].holds("b"));
        assert!(passes[1].holds("b") && passes[1].holds("c") && !passes[1].holds("d"));
        assert!(passes[2].holds("d") && passes[2].holds("zz"));
    }

    #[test]
    fn a_pass_keeps_its_sites_and_what_their_redirects_reach_without_their_site() {
        // a.example's capture (URL 1) redirects to page 7, which redirects to 9 (a
        // capture of z.example); z.example's capture (URL 2) redirects to 11.
        let plan = plan(
            &["m"],
            &[
                (1, 7, site("a.example")),
                (7, 9, None),
                (2, 11, site("z.example")),
            ],
        );
        let passes: Vec<Pass<'_>> = plan.passes().collect();
        assert_eq!(passes[0].targets.as_deref(), Some(&[7, 9][..]));
        assert_eq!(passes[1].targets.as_deref(), Some(&[11][..]));
        let first = &passes[0];
        assert_eq!(first.keep(Some("a.example"), 1), Some(Some("a.example")));
        assert_eq!(first.keep(Some("z.example"), 2), None);
        assert_eq!(
            first.keep(Some("z.example"), 9),
            Some(None),
            "kept, its site decided in its own pass"
        );
        assert_eq!(first.keep(None, 7), Some(None));
        assert_eq!(first.keep(None, 8), None);
        assert_eq!(
            first.keep(None, 11),
            None,
            "only the second pass's chains reach it"
        );
        assert_eq!(passes[1].keep(None, 11), Some(None));
        // Only the low 64 bits of a URL key are compared: a shared half keeps more, never less.
        assert_eq!(first.keep(None, (5 << 64) | 9), Some(None));
        assert_eq!(
            Pass::ALL.keep(Some("z.example"), 2),
            Some(Some("z.example"))
        );
        assert_eq!(plan.capacity(&passes[0], 100), 50 + 12 + 2);
        assert_eq!(plan.capacity(&Pass::ALL, 100), 100);
    }

    #[test]
    fn chains_are_followed_five_hops_deep_and_loops_end() {
        // s.example -> 10 -> 11 -> 12 -> 13 -> 14 -> 15: the sixth URL is never needed
        // (the fifth hop's capture ends the chain whatever it holds).
        let mut redirects = vec![(1, 10, site("s.example"))];
        redirects.extend((10..15).map(|u| (u, u + 1, None)));
        // t.example -> 20 -> 21 -> 20: a loop.
        redirects.extend([(2, 20, site("t.example")), (20, 21, None), (21, 20, None)]);
        let redirects = graph(redirects);
        assert_eq!(redirects.reached(None, Some("t")), vec![10, 11, 12, 13, 14]);
        assert_eq!(redirects.reached(Some("t"), None), vec![20, 21]);
        assert_eq!(
            redirects.reached(None, None),
            vec![10, 11, 12, 13, 14, 20, 21]
        );
    }

    #[test]
    fn a_name_sharing_a_boundary_prefix_counts_on_both_sides() {
        let redirects = graph([
            (1, 10, site("abcdefgh-a.example")),
            (2, 20, site("abcdefgh-z.example")),
            (3, 30, site("abc.example")),
            (4, 40, site("b.example")),
        ]);
        // The boundary "abcdefgh-m.example" shares 8 bytes with the first two names.
        let bound = Some("abcdefgh-m.example");
        assert_eq!(redirects.reached(None, bound), vec![10, 20, 30]);
        assert_eq!(redirects.reached(bound, None), vec![10, 20, 40]);
        assert!(prefix("ab") < prefix("abc") && prefix("abc") < prefix("abd"));
        assert!(prefix("") < prefix("a") && prefix("zzzzzzzzz") == prefix("zzzzzzzzzz"));
    }

    #[test]
    fn the_count_of_passes_follows_the_limit() {
        assert_eq!(count(0, 1 << 30), 1);
        assert_eq!(count(1_000_000, 1 << 30), 1);
        assert_eq!(count(2_097_152, 1 << 30), 1);
        assert_eq!(count(2_097_153, 1 << 30), 2);
        assert_eq!(count(10_000_000, 256 << 20), 20);
        assert_eq!(count(5, 0), 5);
        // Several passes share the limit less the reserve and what they all hold.
        assert_eq!(pass_budget(256 << 20, 32 << 20), 160 << 20);
        assert_eq!(pass_budget(256 << 20, 0), 192 << 20);
        assert_eq!(pass_budget(96 << 20, 0), 32 << 20, "at least a quarter");
        assert_eq!(pass_budget(2048, 0), 512);
    }
}
