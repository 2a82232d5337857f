//! Redirects between buckets: what a bucket must be able to look up besides its own
//! captures.
//!
//! Every capture of a site, and every capture of a URL, is in one bucket
//! ([`super::read::Route`]), so a site's chains stay in its bucket until a `Location`
//! leads to a URL routed elsewhere (another registrable domain, mostly). The read
//! collects, for every capture with a `Location`, the edge from its URL to the
//! `Location` and whether it crosses buckets ([`Crossings`]: 16 bytes a redirect,
//! the low 64 bits of each key). The targets are the URLs a crossing leads to and
//! whatever their captures lead to, [`MAX_REDIRECT_HOPS`] deep; their captures, taken
//! from every bucket ([`collect`]), are held beside each bucket while it is decided.
//! A shared low half only makes a target of a URL that is not one: the look-ups
//! compare whole keys.

use super::capture::Captures;
use super::SitesError;
use crate::limits::MAX_REDIRECT_HOPS;
use crate::spill::Buckets;

/// The redirect edges of a crawl and the `Location`s that cross buckets.
#[derive(Debug, Default)]
pub struct Crossings {
    /// (URL, `Location`) of every capture with a `Location`.
    edges: Vec<(u64, u64)>,
    /// The `Location`s routed to another bucket than their capture.
    crossing: Vec<u64>,
}

impl Crossings {
    /// A capture of URL `url` redirecting to `location`, which `crosses` to another bucket.
    pub fn add(&mut self, url: u64, location: u64, crosses: bool) {
        self.edges.push((url, location));
        if crosses {
            self.crossing.push(location);
        }
    }

    pub fn append(&mut self, mut other: Crossings) {
        self.edges.append(&mut other.edges);
        self.crossing.append(&mut other.crossing);
    }

    /// The URLs every bucket must be able to look up (low 64 bits of their keys),
    /// sorted: each crossing `Location`, then what the captures of those URLs redirect
    /// to, as deep as a chain may still go after crossing.
    pub fn targets(mut self) -> Vec<u64> {
        if self.crossing.is_empty() {
            return Vec::new();
        }
        self.edges.sort_unstable();
        self.edges.dedup();
        let mut reached = std::mem::take(&mut self.crossing);
        reached.sort_unstable();
        reached.dedup();
        let mut frontier = reached.clone();
        // A crossing is at least the first hop: at most MAX_REDIRECT_HOPS - 1 follow it.
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

/// The captures of the `targets` URLs, from every bucket (read, not taken), each URL's
/// latest only, sorted by URL key for look-ups.
pub fn collect(
    buckets: &Buckets<Captures>,
    targets: &[u64],
    width: usize,
) -> Result<Captures, SitesError> {
    let mut found = Captures::new(width);
    if targets.is_empty() {
        return Ok(found);
    }
    for bucket in 0..buckets.len() {
        for chunk in buckets.scan(bucket)? {
            let chunk = chunk?;
            found.append(chunk.filtered(|c| targets.binary_search(&c.url_key.short()).is_ok()));
        }
    }
    super::decide::latest_per_url(&mut found);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crossings(edges: &[(u64, u64, bool)]) -> Crossings {
        let mut all = Crossings::default();
        for &(url, location, crosses) in edges {
            all.add(url, location, crosses);
        }
        all
    }

    #[test]
    fn targets_are_the_crossings_and_what_they_lead_to_four_hops_on() {
        // 1 -> 10 crosses; 10 -> 11 -> 12 -> 13 -> 14 -> 15 stay in their bucket.
        let mut edges = vec![(1, 10, true)];
        edges.extend((10..15).map(|u| (u, u + 1, false)));
        // A loop after a crossing ends; an edge no crossing reaches is not followed.
        edges.extend([
            (2, 20, true),
            (20, 21, false),
            (21, 20, false),
            (30, 31, false),
        ]);
        assert_eq!(
            crossings(&edges).targets(),
            vec![10, 11, 12, 13, 14, 20, 21],
            "15 is a sixth hop from any start"
        );
        assert!(crossings(&[(1, 2, false)]).targets().is_empty());
    }
}
