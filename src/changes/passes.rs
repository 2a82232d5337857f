//! Bounding the step's memory: two crawls whose sites and rule lines would hold more
//! than `--memory-limit` are compared in passes, each over one range of site names.
//!
//! A site's change rows depend on that site's rows in both crawls alone (and on the
//! rule lines and sitemaps of its two deciding captures), so the ranges can be compared
//! one after the other. They follow each other in name order, the rows of a pass are
//! in name order and one writer takes them all, so the file is the same byte for byte
//! whatever the number of passes (tested in `tests/it/changes.rs`); the summary is the
//! sum of the passes'.
//!
//! The `sites` table is written in name order with min/max statistics on `site`, so a
//! pass decodes only the row groups of its range ([`crate::output::read::batches_where`]).
//! Every pass reads the `groups`, `rules` and `sitemaps` rows of both crawls again: the
//! time the memory bound costs.

use std::path::{Path, PathBuf};

use super::read;
use super::ChangesError;
use crate::limits::{
    CHANGES_BYTES_PER_RULES_ROW, CHANGES_BYTES_PER_SITES_ROW, CHANGES_RESERVE,
    SITES_SAMPLE_PER_PASS,
};
use crate::output::read::Bounds;
use crate::sites::passes::{boundaries, name_ranges};

/// The site names `[from, to)` one pass compares (`None`: no bound on that side).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range<'a> {
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
}

impl Range<'_> {
    /// Every site.
    #[cfg(test)]
    pub const ALL: Range<'static> = Range {
        from: None,
        to: None,
    };

    pub fn holds(&self, site: &str) -> bool {
        self.from.is_none_or(|f| site >= f) && self.to.is_none_or(|t| site < t)
    }

    /// Whether a row group whose sites lie between `bounds` (min and max; `None`
    /// when not known) may hold a site of the range.
    pub fn may_hold(&self, bounds: Bounds<'_>) -> bool {
        let Some((min, max)) = bounds else {
            return true;
        };
        self.from.is_none_or(|f| max >= f.as_bytes()) && self.to.is_none_or(|t| min < t.as_bytes())
    }
}

/// What the comparison of two crawls reads: per crawl, its name, the `sites` part files
/// that hold it and their rows of it, and the rows of its `groups`, `rules` and
/// `sitemaps` partitions.
#[derive(Debug)]
pub struct Side<'a> {
    pub crawl: &'a str,
    pub files: &'a [PathBuf],
    pub sites_rows: usize,
    pub line_rows: usize,
}

impl<'a> Side<'a> {
    /// The side of `crawl` of the dataset `out`, whose sites table is `sites`.
    pub fn new(
        out: &Path,
        crawl: &'a str,
        sites: &'a read::SitesCrawl,
    ) -> Result<Side<'a>, ChangesError> {
        Ok(Side {
            crawl,
            files: &sites.files,
            sites_rows: sites.rows,
            line_rows: read::line_rows(out, crawl)?,
        })
    }
}

/// The name boundaries between the passes of one comparison.
#[derive(Debug, Default)]
pub struct Plan {
    bounds: Vec<Box<str>>,
}

impl Plan {
    /// The plan for comparing `sides` under `memory_limit` bytes: one pass when the
    /// estimate fits, else boundaries placed by a sample of both crawls' site names.
    pub fn new(sides: [&Side<'_>; 2], memory_limit: usize) -> Result<Plan, ChangesError> {
        let passes = count(sides, memory_limit);
        if passes == 1 {
            return Ok(Plan::default());
        }
        let rows: usize = sides.iter().map(|s| s.sites_rows).sum();
        let every = (rows / (passes * SITES_SAMPLE_PER_PASS)).max(1);
        let mut sample = Vec::new();
        for side in sides {
            read::sample_sites(side.files, side.crawl, every, &mut sample)?;
        }
        Ok(Plan {
            bounds: boundaries(sample, passes),
        })
    }

    /// The ranges, in name order, covering every name once.
    pub fn ranges(&self) -> impl Iterator<Item = Range<'_>> {
        name_ranges(&self.bounds).map(|(from, to)| Range { from, to })
    }

    /// How many passes there are.
    pub fn len(&self) -> usize {
        self.bounds.len() + 1
    }
}

/// The passes comparing `sides` takes under `memory_limit` bytes (at most one per
/// sites row): what the passes hold must fit beside [`CHANGES_RESERVE`].
pub fn count(sides: [&Side<'_>; 2], memory_limit: usize) -> usize {
    let budget = match memory_limit.checked_sub(CHANGES_RESERVE) {
        Some(rest) if rest >= CHANGES_RESERVE => rest,
        _ => memory_limit / 2,
    };
    let (sites, lines): (usize, usize) = sides.iter().fold((0, 0), |(s, l), side| {
        (s + side.sites_rows, l + side.line_rows)
    });
    let bytes = sites
        .saturating_mul(CHANGES_BYTES_PER_SITES_ROW)
        .saturating_add(lines.saturating_mul(CHANGES_BYTES_PER_RULES_ROW));
    bytes.div_ceil(budget.max(1)).clamp(1, sites.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_the_names_from_its_start_up_to_its_end() {
        let r = Range {
            from: Some("b.example"),
            to: Some("d.example"),
        };
        assert!(!r.holds("a.example"));
        assert!(r.holds("b.example"));
        assert!(r.holds("c.example"));
        assert!(!r.holds("d.example"));
        assert!(Range::ALL.holds(""));
        let open_end = Range {
            from: Some("b"),
            to: None,
        };
        assert!(open_end.holds("zzz") && !open_end.holds("a"));
    }

    #[test]
    fn a_row_group_is_read_when_its_names_may_meet_the_range() {
        let r = Range {
            from: Some("c"),
            to: Some("f"),
        };
        let group = |min: &'static str, max: &'static str| Some((min.as_bytes(), max.as_bytes()));
        assert!(!r.may_hold(group("a", "b")), "all before");
        assert!(r.may_hold(group("a", "c")), "ends on the first name");
        assert!(r.may_hold(group("d", "e")), "inside");
        assert!(r.may_hold(group("e", "z")), "starts inside");
        assert!(
            !r.may_hold(group("f", "z")),
            "starts on the end, which is outside"
        );
        assert!(r.may_hold(None), "no statistics: read it");
    }

    #[test]
    fn passes_grow_with_sites_and_lines_and_never_outnumber_the_rows() {
        let files: Vec<PathBuf> = Vec::new();
        let side = |sites_rows, line_rows| Side {
            crawl: "c",
            files: &files,
            sites_rows,
            line_rows,
        };
        let (small, big) = (side(10, 10), side(1_000_000, 1_000_000));
        let need = 2 * 1_000_000 * (CHANGES_BYTES_PER_SITES_ROW + CHANGES_BYTES_PER_RULES_ROW);
        assert_eq!(count([&big, &big], need + CHANGES_RESERVE), 1);
        assert_eq!(count([&big, &big], need + CHANGES_RESERVE - 1), 2);
        assert_eq!(count([&big, &big], need / 4 + CHANGES_RESERVE), 4);
        // A limit under twice the reserve is halved instead: small limits still split.
        let small_limit = 1000 * (CHANGES_BYTES_PER_SITES_ROW + CHANGES_BYTES_PER_RULES_ROW);
        let few = side(1000, 1000);
        assert_eq!(count([&few, &few], small_limit), 4);
        assert_eq!(count([&small, &small], 1), 20, "one per sites row at most");
        assert_eq!(count([&side(0, 0), &side(0, 0)], 1), 1);
    }

    #[test]
    fn ranges_cover_every_name_once_in_order() {
        let plan = Plan {
            bounds: vec!["b".into(), "d".into()],
        };
        let ranges: Vec<Range<'_>> = plan.ranges().collect();
        assert_eq!(plan.len(), 3);
        assert_eq!(
            ranges,
            vec![
                Range {
                    from: None,
                    to: Some("b")
                },
                Range {
                    from: Some("b"),
                    to: Some("d")
                },
                Range {
                    from: Some("d"),
                    to: None
                },
            ]
        );
        for name in ["", "a", "b", "c", "d", "zz"] {
            assert_eq!(ranges.iter().filter(|r| r.holds(name)).count(), 1, "{name}");
        }
        assert_eq!(
            Plan::default().ranges().collect::<Vec<_>>(),
            vec![Range::ALL]
        );
    }
}
