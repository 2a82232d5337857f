//! The rows of one crawl's partition of the sites table, in site order: the decided
//! sites of every bucket merged by name ([`Merged`]) with the ranked sites that have
//! no capture, each a row per agent, built a batch at a time and written by one
//! [`TableFile`]. The rows do not depend on how many buckets there were.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;

use super::decide::{Decided, Site};
use super::facts::AgentFacts;
use super::write::{AgentCells, SiteCells, SitesBuilder};
use super::{Options, PerClass, SitesError, StatusClass};
use crate::census::site_classes::{Block, Fetch};
use crate::limits::STEP_BATCH_ROWS;
use crate::output::catalog::DatasetState;
use crate::output::derived::TableFile;
use crate::output::Table;
use crate::spill::{Buckets, Taken};

/// The decided sites of every bucket's sorted run, in name order.
pub(super) struct Merged<'a> {
    runs: Vec<Run<'a>>,
    /// (the run's current name, run): the smallest first.
    heap: BinaryHeap<Reverse<(Box<str>, usize)>>,
}

/// One bucket's sorted run, a piece at a time.
struct Run<'a> {
    rest: Taken<Decided>,
    piece: Decided,
    at: usize,
    _runs: std::marker::PhantomData<&'a ()>,
}

impl<'a> Merged<'a> {
    /// Merges the runs of `runs` (one per bucket, each in name order).
    pub(super) fn new(runs: &'a Buckets<Decided>) -> Result<Self, SitesError> {
        let mut merged = Merged {
            runs: Vec::with_capacity(runs.len()),
            heap: BinaryHeap::with_capacity(runs.len()),
        };
        for bucket in 0..runs.len() {
            let run = Run {
                rest: runs.take(bucket)?,
                piece: Decided::default(),
                at: 0,
                _runs: std::marker::PhantomData,
            };
            merged.runs.push(run);
            merged.advance(bucket)?;
        }
        Ok(merged)
    }

    /// Moves run `r` to its next site (its next piece when this one is done) and puts
    /// it back in the heap unless it has ended.
    fn advance(&mut self, r: usize) -> Result<(), SitesError> {
        let run = &mut self.runs[r];
        while run.at >= run.piece.list.len() {
            match run.rest.next() {
                Some(piece) => {
                    run.piece = piece?;
                    run.at = 0;
                }
                None => return Ok(()),
            }
        }
        let name = run.piece.name(&run.piece.list[run.at]).into();
        self.heap.push(Reverse((name, r)));
        Ok(())
    }

    /// The name of the next site, if any.
    fn peek(&self) -> Option<&str> {
        self.heap.peek().map(|Reverse((name, _))| &**name)
    }

    /// Calls `f` with the next site and its run's piece, then moves on.
    fn next_with<T>(
        &mut self,
        f: impl FnOnce(&Decided, &Site) -> T,
    ) -> Result<Option<T>, SitesError> {
        let Some(Reverse((_, r))) = self.heap.pop() else {
            return Ok(None);
        };
        let run = &mut self.runs[r];
        let out = f(&run.piece, &run.piece.list[run.at]);
        run.at += 1;
        self.advance(r)?;
        Ok(Some(out))
    }
}

/// What the rows of one crawl are built from.
pub(super) struct Context<'a> {
    pub(super) options: &'a Options,
    pub(super) crawl: &'a str,
    /// The agents reported, in name order, each with its place in a capture's facts.
    pub(super) agents: &'a [(&'a str, usize)],
}

impl<'a> Context<'a> {
    fn base<'r>(&'r self, site: &'r str, rank: Option<i64>) -> SiteCells<'r> {
        SiteCells {
            crawl: self.crawl,
            site,
            rank,
            top_k: rank.map(crate::census::site_classes::top_k),
            site_key: self.options.site_key.as_str(),
            status_semantics: self.options.semantics.as_str(),
            ..SiteCells::default()
        }
    }

    /// The rows of a decided site; returns its status class.
    fn site_rows(
        &self,
        piece: &Decided,
        site: &Site,
        rank: Option<i64>,
        builder: &mut SitesBuilder,
    ) -> StatusClass {
        let class = StatusClass::of(site.fetch, site.mime_ok, site.has_rules);
        let parsed = site.fetch == Fetch::Success;
        let facts = piece.facts(site);
        let cells: Vec<AgentCells<'_>> = self
            .agents
            .iter()
            .map(|&(agent, place)| {
                let f = facts.get(place).copied().map(AgentFacts).filter(|_| parsed);
                let google_class = match f {
                    Some(f) => f.probe_class(),
                    None => class.status_meaning(),
                };
                let root_allowed = f.and_then(AgentFacts::root_allowed);
                AgentCells {
                    agent,
                    google_class,
                    root_allowed,
                    cc_class: f.and_then(AgentFacts::cc_class),
                    named: f.is_some_and(AgentFacts::named),
                    block: Block::of(class, root_allowed, google_class).map(Block::as_str),
                }
            })
            .collect();
        let shared = SiteCells {
            status_class: class.as_str(),
            doc_id: Some(site.doc_id),
            url: Some(piece.url(site)),
            start_url: Some(piece.start_url(site)),
            http_status: site.status,
            redirect_hops: site.hops,
            captures: site.captures,
            ..self.base(piece.name(site), rank)
        };
        builder.append_site(&shared, &cells);
        class
    }

    /// The rows of a ranked site without any robots.txt capture in the crawl.
    fn uncaptured_rows(&self, site: &str, rank: i64, builder: &mut SitesBuilder) -> StatusClass {
        let cells: Vec<AgentCells<'_>> = self
            .agents
            .iter()
            .map(|&(agent, _)| AgentCells {
                agent,
                ..AgentCells::default()
            })
            .collect();
        let shared = SiteCells {
            status_class: StatusClass::NoCapture.as_str(),
            ..self.base(site, Some(rank))
        };
        builder.append_site(&shared, &cells);
        StatusClass::NoCapture
    }
}

/// What one crawl's partition holds: sites, rows, sites per status class.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) sites: usize,
    pub(super) rows: usize,
    pub(super) classes: PerClass<usize>,
}

/// Writes the crawl's partition to `path`: the `merged` sites and the ranked sites
/// without a capture (`ranked_sites`, in name order), a batch at a time.
pub(super) fn write(
    ctx: &Context<'_>,
    merged: &mut Merged<'_>,
    ranked: &HashMap<String, i64>,
    ranked_sites: &[(&str, i64)],
    path: &Path,
    state: &DatasetState,
) -> Result<Tally, SitesError> {
    let mut file = TableFile::create(path, Table::Sites, state, Some(ctx.crawl))?;
    let mut builder = SitesBuilder::default();
    let mut tally = Tally::default();
    let mut uncaptured = ranked_sites.iter().peekable();
    loop {
        let next_decided = merged.peek();
        // A ranked site with a capture is the decided one's row: skipped here.
        while let Some(&&(name, _)) = uncaptured.peek() {
            if next_decided.is_some_and(|d| d == name) {
                uncaptured.next();
            } else {
                break;
            }
        }
        let take_decided = match (next_decided, uncaptured.peek()) {
            (Some(d), Some(u)) => d < u.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let class = if take_decided {
            let built = merged.next_with(|piece, site| {
                let rank = ranked.get(piece.name(site)).copied();
                ctx.site_rows(piece, site, rank, &mut builder)
            })?;
            let Some(class) = built else { break };
            class
        } else {
            let Some(&(name, rank)) = uncaptured.next() else {
                break;
            };
            ctx.uncaptured_rows(name, rank, &mut builder)
        };
        tally.sites += 1;
        tally.classes[class.index()] += 1;
        if builder.rows() >= STEP_BATCH_ROWS {
            tally.rows += builder.rows();
            file.write(&builder.finish()?)?;
        }
    }
    if builder.rows() > 0 {
        tally.rows += builder.rows();
        file.write(&builder.finish()?)?;
    }
    file.commit()?;
    Ok(tally)
}
