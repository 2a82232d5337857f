//! Bounding the step's memory: a crawl with more captures than `--memory-limit` allows
//! is decided in passes, each over one range of site names.
//!
//! The ranges follow each other in name order and the table's rows are written in
//! name order, with one builder carried from pass to pass, so the file is the same
//! byte for byte whatever the number of passes (tested in `tests/it/sites.rs`).
//!
//! A pass keeps the captures of its sites, and every capture of a URL that some
//! redirect of the crawl points to: a chain may cross into any site's URLs (and a
//! capture of a redirect target is only ever needed whole, all captures of its URL,
//! for the latest one to be chosen). The targets are the `Location` keys of the whole
//! crawl, read in a first pass with a sample of the site names that places the
//! ranges; they are about a tenth of the captures in Common Crawl's crawls (3xx) and
//! 16 bytes each. Every pass reads the documents and agents tables again: the time
//! the memory bound costs.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use super::read::{self, Capture, UrlKey};
use super::{SiteKey, SitesError};
use crate::limits::{SITES_BYTES_PER_CAPTURE, SITES_SAMPLE_PER_PASS};

/// How one crawl is decided: the name boundaries between passes, and the redirect
/// targets (none to hold when there is one pass, which keeps every capture).
#[derive(Debug, Default)]
pub struct Plan {
    bounds: Vec<Box<str>>,
    targets: Option<Vec<UrlKey>>,
}

/// One pass: the sites from `from` (included) to `to` (excluded); `None` is open.
#[derive(Debug, Clone, Copy)]
pub struct Pass<'a> {
    from: Option<&'a str>,
    to: Option<&'a str>,
    /// Sorted URL keys of the crawl's redirect targets; `None`: every capture is kept.
    targets: Option<&'a [UrlKey]>,
}

impl Pass<'_> {
    /// The whole crawl at once.
    pub const ALL: Pass<'static> = Pass {
        from: None,
        to: None,
        targets: None,
    };

    /// Whether `site` is one of this pass's sites.
    pub fn holds(&self, site: &str) -> bool {
        self.from.is_none_or(|from| from <= site) && self.to.is_none_or(|to| site < to)
    }

    /// Whether the pass keeps `capture`. A capture kept only because a redirect may
    /// lead to it loses its site: that site is decided in its own pass.
    pub fn keep(&self, capture: &mut Capture) -> bool {
        let Some(targets) = self.targets else {
            return true;
        };
        if capture.site.as_deref().is_some_and(|s| self.holds(s)) {
            return true;
        }
        capture.site = None;
        targets.binary_search(&capture.url_key).is_ok()
    }
}

impl Plan {
    /// One pass over the whole crawl.
    pub fn one() -> Plan {
        Plan::default()
    }

    /// The plan for a crawl of `rows` documents rows under `memory_limit` bytes: one
    /// pass when they fit, else a first reading of the crawl for the redirect targets
    /// and the name boundaries.
    pub fn new(
        files: &[PathBuf],
        crawl: &str,
        rows: usize,
        key: SiteKey,
        memory_limit: usize,
    ) -> Result<Plan, SitesError> {
        let passes = count(rows, memory_limit);
        if passes == 1 {
            return Ok(Plan::one());
        }
        // About SITES_SAMPLE_PER_PASS names per pass, a crawl holding about a site per
        // two captures; the same names whatever the threads (a hash, not a position).
        let every = (rows / 2 / (passes * SITES_SAMPLE_PER_PASS)).max(1) as u64;
        let sampled = |site: &str| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            site.hash(&mut h);
            h.finish() % every == 0
        };
        let (mut targets, mut sample) = read::scan_crawl(files, crawl, key, sampled)?;
        targets.sort_unstable();
        targets.dedup();
        sample.sort_unstable();
        sample.dedup();
        let mut bounds: Vec<Box<str>> = (1..passes)
            .filter_map(|k| sample.get(k * sample.len() / passes).cloned())
            .collect();
        bounds.dedup();
        Ok(Plan {
            bounds,
            targets: Some(targets),
        })
    }

    /// The passes, in name order.
    pub fn passes(&self) -> impl Iterator<Item = Pass<'_>> {
        let targets = self.targets.as_deref();
        let edges = || self.bounds.iter().map(|b| Some(&**b));
        std::iter::once(None)
            .chain(edges())
            .zip(edges().chain(std::iter::once(None)))
            .map(move |(from, to)| Pass { from, to, targets })
    }

    /// How many passes there are.
    pub fn len(&self) -> usize {
        self.bounds.len() + 1
    }

    /// Room to reserve for one pass's captures of a crawl of `rows`.
    pub fn capacity(&self, rows: usize) -> usize {
        match &self.targets {
            None => rows,
            Some(targets) => rows / self.len() + rows / (4 * self.len()) + targets.len(),
        }
    }
}

/// The passes a crawl of `rows` documents rows needs under `memory_limit` bytes (at
/// most one per row).
pub fn count(rows: usize, memory_limit: usize) -> usize {
    rows.saturating_mul(SITES_BYTES_PER_CAPTURE)
        .div_ceil(memory_limit.max(1))
        .clamp(1, rows.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(site: Option<&str>, url_key: UrlKey) -> Capture {
        Capture {
            doc_id: [0; 16],
            fetch_time: 0,
            url_key,
            location_key: 0,
            status: Some(200),
            mime_ok: true,
            has_rules: false,
            site: site.map(Into::into),
        }
    }

    #[test]
    fn passes_cover_every_name_once_in_order() {
        let plan = Plan {
            bounds: vec!["b".into(), "d".into()],
            targets: Some(vec![]),
        };
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
    fn a_pass_keeps_its_sites_and_the_redirect_targets_without_their_site() {
        let plan = Plan {
            bounds: vec!["m".into()],
            targets: Some(vec![7, 9]),
        };
        let first = plan.passes().next().expect("two passes");
        let mut own = capture(Some("a.example"), 1);
        assert!(first.keep(&mut own));
        assert_eq!(own.site.as_deref(), Some("a.example"));
        let mut other = capture(Some("z.example"), 2);
        assert!(!first.keep(&mut other));
        let mut target = capture(Some("z.example"), 9);
        assert!(first.keep(&mut target));
        assert_eq!(target.site, None, "decided in its own pass");
        let mut page = capture(None, 7);
        assert!(first.keep(&mut page));
        assert!(!first.keep(&mut capture(None, 8)));
        let mut anything = capture(Some("z.example"), 2);
        assert!(Pass::ALL.keep(&mut anything));
        assert_eq!(anything.site.as_deref(), Some("z.example"));
    }

    #[test]
    fn the_count_of_passes_follows_the_limit() {
        assert_eq!(count(0, 1 << 30), 1);
        assert_eq!(count(1_000_000, 1 << 30), 1);
        assert_eq!(count(2_097_152, 1 << 30), 1);
        assert_eq!(count(2_097_153, 1 << 30), 2);
        assert_eq!(count(10_000_000, 256 << 20), 20);
        assert_eq!(count(5, 0), 5);
    }
}
