//! Choosing the capture that decides for each site of one crawl, Common Crawl's
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

use std::cmp::Reverse;

use rayon::prelude::*;

use super::names::{Name, Names};
use super::read::{Capture, DocId, Key, UrlKey};
use super::SitesError;
use crate::census::site_classes::{Fetch, StatusSemantics};
use crate::limits::MAX_REDIRECT_HOPS;

/// Where one `/robots.txt` URL led.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// The capture of the site's robots.txt URL.
    pub start: usize,
    /// The capture the chain ended on (the start when nothing was followed).
    pub end: usize,
    pub hops: u32,
    /// The end's outcome; `Redirect` means not resolved.
    pub fetch: Fetch,
}

/// One site of the crawl: its name, how many robots.txt URLs it has, and the
/// deciding chain, with what the rows need of its captures copied out (so the
/// crawl's captures can be freed before the agents table is read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// In the [`Decided`] names.
    pub name: Name,
    pub captures: u32,
    /// The deciding chain's hops and outcome (its captures' indices are not kept:
    /// a site is 56 bytes, and the sites are held to the end of the pass).
    pub hops: u32,
    pub fetch: Fetch,
    /// doc_id of the chain's start.
    pub start: DocId,
    pub end: Ending,
}

/// The sites of a pass, sorted by name, and their names.
#[derive(Debug, Default)]
pub struct Decided {
    pub sites: Vec<Site>,
    names: Names,
}

impl Decided {
    pub fn name(&self, site: &Site) -> &str {
        self.names.get(site.name)
    }
}

/// The capture a site's chain ended on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    pub doc_id: DocId,
    pub status: Option<u16>,
    pub mime_ok: bool,
    pub has_rules: bool,
}

/// Keeps the latest capture of each URL, sorted by URL key (for lookups).
///
/// The sorts here are rayon's: their keys are total (doc ids are unique), so the order,
/// and every row after it, is the same on any number of threads.
pub fn latest_per_url(captures: &mut Vec<Capture>) {
    captures.par_sort_unstable_by_key(|c| (c.url_key, Reverse(c.fetch_time), Reverse(c.doc_id)));
    captures.dedup_by_key(|c| c.url_key);
}

fn find(captures: &[Capture], key: UrlKey) -> Option<usize> {
    captures
        .binary_search_by_key(&Key::from(key), |c| c.url_key)
        .ok()
}

/// Follows the redirects from `start`.
pub fn follow(captures: &[Capture], start: usize, semantics: StatusSemantics) -> Chain {
    let (mut end, mut hops) = (start, 0);
    loop {
        let fetch = semantics.fetch(captures[end].status);
        if fetch != Fetch::Redirect || hops == MAX_REDIRECT_HOPS {
            return Chain {
                start,
                end,
                hops,
                fetch,
            };
        }
        let next = match captures[end].location_key.get() {
            0 => None,
            key => find(captures, key),
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

/// The deciding chain of every site with a robots.txt capture, sorted by site.
/// `captures` (their site names in `names`) must have gone through
/// [`latest_per_url`]. The sites' names are copied to a buffer of their own, so the
/// captures and their names can be dropped next.
pub fn sites(
    captures: &[Capture],
    names: &Names,
    semantics: StatusSemantics,
) -> Result<Decided, SitesError> {
    let mut sites = decide_all(captures, names, semantics);
    let (names, moved) = names.keep_only(sites.iter().map(|s| s.name))?;
    for (site, name) in sites.iter_mut().zip(moved) {
        site.name = name;
    }
    Ok(Decided { sites, names })
}

/// Every site's deciding chain, its name in `names`.
fn decide_all(captures: &[Capture], names: &Names, semantics: StatusSemantics) -> Vec<Site> {
    let mut starts: Vec<(&str, usize)> = captures
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.site.map(|s| (names.get(s), i)))
        .collect();
    starts.par_sort_unstable();
    let rank = |chain: &Chain| {
        let (start, end) = (&captures[chain.start], &captures[chain.end]);
        let mime_first = chain.fetch == Fetch::Success && !end.mime_ok;
        let latest = (Reverse(end.fetch_time), Reverse(end.doc_id));
        // Two URLs that lead to the same capture: the shorter chain, then the later start.
        let shortest = (chain.hops, Reverse(start.fetch_time), Reverse(start.doc_id));
        (chain.fetch, mime_first, latest, shortest)
    };
    // Sized exactly: grown by doubling, the vector held up to twice the sites' room.
    let groups = starts.chunk_by(|a, b| a.0 == b.0).count();
    let mut sites = Vec::with_capacity(groups);
    // The groups one after another: collected in parallel, the sites vector was built
    // twice over (rayon's pieces, then the whole), with every capture still held: the
    // 2M bench crawl's peak grew by 39 MB, for a gain this VM's noise hid.
    for group in starts.chunk_by(|a, b| a.0 == b.0) {
        let chains = group.iter().map(|&(_, i)| follow(captures, i, semantics));
        let name = captures[group[0].1].site;
        if let (Some(best), Some(name)) = (chains.min_by_key(rank), name) {
            let end = &captures[best.end];
            sites.push(Site {
                name,
                captures: u32::try_from(group.len()).unwrap_or(u32::MAX),
                hops: best.hops,
                fetch: best.fetch,
                start: captures[best.start].doc_id,
                end: Ending {
                    doc_id: end.doc_id,
                    status: end.status,
                    mime_ok: end.mime_ok,
                    has_rules: end.has_rules,
                },
            });
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sites::read::url_key;

    fn cap(
        names: &mut Names,
        url: &str,
        time: i64,
        status: u16,
        location: Option<&str>,
        site: Option<&str>,
    ) -> Capture {
        Capture {
            doc_id: (time as u128).to_be_bytes(),
            fetch_time: time,
            url_key: url_key(url).into(),
            location_key: location.map_or(0, url_key).into(),
            status: Some(status),
            mime_ok: true,
            has_rules: true,
            site: site.map(|s| names.push(s).unwrap()),
        }
    }

    fn chain_of(n: usize, names: &mut Names) -> Vec<Capture> {
        let url = |i: usize| format!("https://h{i}.example/robots.txt");
        let mut caps: Vec<Capture> = (0..n)
            .map(|i| {
                cap(
                    names,
                    &url(i),
                    i as i64,
                    301,
                    Some(&url(i + 1)),
                    (i == 0).then_some("a"),
                )
            })
            .collect();
        caps.push(cap(names, &url(n), 100, 200, None, None));
        latest_per_url(&mut caps);
        caps
    }

    #[test]
    fn a_capture_takes_72_bytes_a_site_56_and_keys_order_as_numbers() {
        assert_eq!(std::mem::size_of::<Capture>(), 72);
        assert_eq!(std::mem::size_of::<Site>(), 56);
        let keys = [
            0u128,
            1,
            u128::from(u64::MAX),
            1 << 64,
            (1 << 64) | 5,
            u128::MAX,
        ];
        for pair in keys.windows(2) {
            assert!(Key::from(pair[0]) < Key::from(pair[1]), "{pair:?}");
            assert_eq!(Key::from(pair[1]).get(), pair[1]);
        }
    }

    #[test]
    fn rfc_2_3_1_2_five_hops_are_followed_not_six() {
        for (n, hops, fetch) in [
            (1, 1, Fetch::Success),
            (5, 5, Fetch::Success),
            (6, 5, Fetch::Redirect),
        ] {
            let mut names = Names::default();
            let caps = chain_of(n, &mut names);
            let decided = sites(&caps, &names, StatusSemantics::Rfc9309).unwrap();
            let site = &decided.sites[0];
            assert_eq!((site.hops, site.fetch), (hops, fetch), "chain of {n}");
        }
    }

    #[test]
    fn latest_capture_per_url_then_precedence_across_urls() {
        let n = &mut Names::default();
        let mut caps = vec![
            cap(n, "http://a.example/robots.txt", 1, 200, None, Some("a")),
            cap(n, "http://a.example/robots.txt", 5, 503, None, Some("a")),
            cap(n, "https://a.example/robots.txt", 2, 404, None, Some("a")),
            cap(
                n,
                "https://b.example/robots.txt",
                3,
                302,
                Some("https://b.example/gone"),
                Some("b"),
            ),
        ];
        latest_per_url(&mut caps);
        assert_eq!(caps.len(), 3);
        let decided = sites(&caps, n, StatusSemantics::Rfc9309).unwrap();
        let sites = &decided.sites;
        assert_eq!(sites.len(), 2);
        // The 200 was refetched as 503; the https 404 (allow all) beats defer.
        assert_eq!((decided.name(&sites[0]), sites[0].captures), ("a", 2));
        assert_eq!(decided.name(&sites[1]), "b");
        assert_eq!(sites[0].fetch, Fetch::AllowAll);
        // A Location never captured is not resolved.
        assert_eq!((sites[1].fetch, sites[1].hops), (Fetch::Redirect, 0));
    }

    #[test]
    fn redirect_loops_stop_after_five_hops() {
        let (a, b) = (
            "http://l.example/robots.txt",
            "https://l.example/robots.txt",
        );
        let n = &mut Names::default();
        let mut caps = vec![
            cap(n, a, 1, 301, Some(b), Some("l")),
            cap(n, b, 2, 301, Some(a), Some("l")),
        ];
        latest_per_url(&mut caps);
        let decided = sites(&caps, n, StatusSemantics::Ccbot).unwrap();
        let site = &decided.sites[0];
        assert_eq!((site.fetch, site.hops), (Fetch::Redirect, 5));
    }
}
