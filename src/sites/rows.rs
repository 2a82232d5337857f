//! The rows of one crawl's partition of the sites table: each decided site (or ranked
//! site without a capture) becomes one row per agent, built a batch at a time and
//! written by one [`Writer`] across the crawl's passes, so the file does not depend on
//! how many passes there were.

use std::collections::HashMap;
use std::path::Path;

use super::agents::{AgentFacts, AgentRows, CaptureFacts};
use super::decide::{Decided, Site};
use super::read::Urls;
use super::write::{AgentCells, SiteCells, SitesBuilder, TableFile};
use super::{Options, PerClass, SitesError, StatusClass};
use crate::limits::STEP_BATCH_ROWS;
use crate::output::catalog::DatasetState;
use crate::output::Table;

/// The crawl's partition being written: one builder from the first pass to the last,
/// so batches (and the file) do not depend on the passes.
pub(super) struct Writer {
    file: TableFile,
    builder: SitesBuilder,
    tally: Tally,
    /// The last full batch, written while the next one is built.
    pending: Option<arrow_array::RecordBatch>,
}

impl Writer {
    /// A writer of the crawl's partition at `path`.
    pub(super) fn create(path: &Path, state: &DatasetState) -> Result<Writer, SitesError> {
        Ok(Writer {
            file: TableFile::create(path, Table::Sites, state)?,
            builder: SitesBuilder::default(),
            tally: Tally::default(),
            pending: None,
        })
    }

    /// Appends the rows of `decided` merged by name with the ranked sites without a
    /// capture (`uncaptured`); a batch not yet full waits for the next pass.
    pub(super) fn append(
        &mut self,
        ctx: &Context<'_>,
        decided: &Decided,
        uncaptured: &[(&str, i64)],
        ranked: &HashMap<String, i64>,
    ) -> Result<(), SitesError> {
        let Writer {
            file,
            builder,
            tally,
            pending,
        } = self;
        let mut ahead = Ahead::new(ctx, &decided.sites);
        let mut uncaptured = uncaptured.iter().peekable();
        let mut cells = Vec::with_capacity(ctx.agents.len());
        loop {
            // Batch n is encoded while batch n+1 is built: the two halves of the step's time.
            let (written, built) = rayon::join(
                || pending.take().map_or(Ok(()), |batch| file.write(&batch)),
                || {
                    while builder.rows() < STEP_BATCH_ROWS {
                        let take_decided = match (ahead.peek(), uncaptured.peek()) {
                            (Some(d), Some(u)) => decided.name(d) < u.0,
                            (Some(_), None) => true,
                            (None, Some(_)) => false,
                            (None, None) => break,
                        };
                        let class = if take_decided {
                            let Some((site, found)) = ahead.next() else {
                                break;
                            };
                            let name = decided.name(site);
                            let rank = ranked.get(name).copied();
                            ctx.site_rows(site, name, found, rank, &mut cells, builder)
                        } else {
                            let Some((name, rank)) = uncaptured.next() else {
                                break;
                            };
                            ctx.uncaptured_rows(name, *rank, &mut cells, builder)
                        };
                        tally.sites += 1;
                        tally.classes[class.index()] += 1;
                    }
                    Ok::<(), SitesError>(())
                },
            );
            written?;
            built?;
            if builder.rows() < STEP_BATCH_ROWS {
                return Ok(());
            }
            tally.rows += builder.rows();
            *pending = Some(builder.finish()?);
        }
    }

    /// Writes what is left and commits the file.
    pub(super) fn finish(mut self) -> Result<Tally, SitesError> {
        if let Some(batch) = self.pending.take() {
            self.file.write(&batch)?;
        }
        if self.builder.rows() > 0 {
            self.tally.rows += self.builder.rows();
            self.file.write(&self.builder.finish()?)?;
        }
        self.file.commit()?;
        Ok(self.tally)
    }
}

/// What one crawl's partition holds: sites, rows, sites per status class.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) sites: usize,
    pub(super) rows: usize,
    pub(super) classes: PerClass<usize>,
}

/// The decided sites in order, each with what [`Context::look_up`] finds for it, looked
/// up [`Ahead::CHUNK`] sites at a time in a loop of their own: the look-ups do not
/// depend on each other, so the processor overlaps their cache misses (made one site
/// at a time between rows, they were 3% of the 2M bench crawl's samples).
struct Ahead<'c, 'a> {
    ctx: &'c Context<'a>,
    sites: &'c [Site],
    /// The sites before `next` are taken; `found[i]` is site `next + i`'s.
    next: usize,
    found: std::collections::VecDeque<Found<'a>>,
}

impl<'c, 'a> Ahead<'c, 'a> {
    const CHUNK: usize = 256;

    fn new(ctx: &'c Context<'a>, sites: &'c [Site]) -> Self {
        Ahead {
            ctx,
            sites,
            next: 0,
            found: std::collections::VecDeque::with_capacity(Self::CHUNK),
        }
    }

    fn peek(&self) -> Option<&'c Site> {
        self.sites.get(self.next)
    }

    fn next(&mut self) -> Option<(&'c Site, Found<'a>)> {
        let site = self.sites.get(self.next)?;
        if self.found.is_empty() {
            let end = (self.next + Self::CHUNK).min(self.sites.len());
            let ctx = self.ctx;
            let sites = self.sites.get(self.next..end).unwrap_or_default();
            self.found.extend(sites.iter().map(|s| ctx.look_up(s)));
        }
        let found = self.found.pop_front()?;
        self.next += 1;
        Some((site, found))
    }
}

/// What a decided site's rows need from the maps: its deciding capture's agents facts,
/// its URL, and its start URL.
struct Found<'a> {
    facts: CaptureFacts<'a>,
    url: Option<&'a str>,
    start_url: Option<&'a str>,
}

/// What the rows of one crawl are built from.
pub(super) struct Context<'a> {
    pub(super) options: &'a Options,
    pub(super) crawl: &'a str,
    pub(super) urls: &'a Urls,
    pub(super) facts: &'a AgentRows,
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

    fn look_up(&self, site: &Site) -> Found<'a> {
        Found {
            facts: self.facts.of(site.end.doc_id),
            url: self.urls.get(&site.end.doc_id),
            start_url: self.urls.get(&site.start),
        }
    }

    /// The rows of a site named `name` with a capture (`found`: its
    /// [`Context::look_up`]); returns its status class. `cells` is room for the agents'
    /// cells, reused from site to site.
    fn site_rows(
        &self,
        site: &Site,
        name: &str,
        found: Found<'a>,
        rank: Option<i64>,
        cells: &mut Vec<AgentCells<'a>>,
        builder: &mut SitesBuilder,
    ) -> StatusClass {
        let end = &site.end;
        let class = StatusClass::of(site.fetch, end.mime_ok, end.has_rules);
        let parsed = site.fetch == crate::census::site_classes::Fetch::Success;
        let captured = found.facts;
        cells.clear();
        cells.extend(self.agents.iter().map(|&(agent, index)| {
            let facts = parsed
                .then(|| captured.get(index))
                .filter(|f| !f.is_missing());
            AgentCells {
                agent,
                google_class: match facts {
                    Some(f) => f.probe_class(),
                    None if parsed => None,
                    None => class.status_meaning(),
                },
                root_allowed: facts.and_then(AgentFacts::root_allowed),
                cc_class: facts.and_then(AgentFacts::cc_class),
                named: facts.is_some_and(AgentFacts::named),
            }
        }));
        let shared = SiteCells {
            status_class: class.as_str(),
            doc_id: Some(end.doc_id),
            url: found.url,
            start_url: found.start_url,
            http_status: end.status,
            redirect_hops: site.hops,
            captures: site.captures,
            ..self.base(name, rank)
        };
        builder.append_site(&shared, cells);
        class
    }

    /// The rows of a ranked site without any robots.txt capture in the crawl.
    fn uncaptured_rows(
        &self,
        site: &str,
        rank: i64,
        cells: &mut Vec<AgentCells<'a>>,
        builder: &mut SitesBuilder,
    ) -> StatusClass {
        cells.clear();
        cells.extend(self.agents.iter().map(|&(agent, _)| AgentCells {
            agent,
            ..AgentCells::default()
        }));
        let shared = SiteCells {
            status_class: StatusClass::NoCapture.as_str(),
            ..self.base(site, Some(rank))
        };
        builder.append_site(&shared, cells);
        StatusClass::NoCapture
    }
}
