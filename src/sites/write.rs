//! The `sites` rows as Arrow batches, built a site at a time.

use arrow_array::RecordBatch;

use crate::output::rows::DocId;
use crate::output::schema::Room;
use crate::output::Table;

/// What every row of one site shares: all the columns but the agent's own.
#[derive(Debug, Clone, Default)]
pub struct SiteCells<'a> {
    pub crawl: &'a str,
    pub site: &'a str,
    pub status_class: &'static str,
    pub doc_id: Option<DocId>,
    pub url: Option<&'a str>,
    pub start_url: Option<&'a str>,
    pub http_status: Option<u16>,
    pub redirect_hops: u32,
    pub captures: u32,
    pub rank: Option<i64>,
    pub top_k: Option<&'static str>,
    pub site_key: &'static str,
    pub status_semantics: &'static str,
}

/// One agent's columns of a site's row.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentCells<'a> {
    pub agent: &'a str,
    pub google_class: Option<&'a str>,
    pub root_allowed: Option<bool>,
    pub cc_class: Option<&'a str>,
    pub named: bool,
    pub block: Option<&'static str>,
}

/// The `sites` rows of a batch (builders declared with the table, in
/// [`crate::output::tables`]).
#[derive(Default)]
pub struct SitesBuilder {
    columns: crate::output::tables::Sites,
    rows: usize,
}

fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl SitesBuilder {
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Appends the rows of one site: a row per agent of `agents`, in order.
    ///
    /// Column by column rather than row by row: most columns repeat the site's value
    /// on each of its rows (one `append_value_n` each).
    pub fn append_site(&mut self, site: &SiteCells<'_>, agents: &[AgentCells<'_>]) {
        let n = agents.len();
        let c = &mut self.columns;
        c.site.append_value_n(site.site, n);
        for a in agents {
            c.agent.append_value(a.agent);
        }
        c.status_class.append_value_n(site.status_class, n);
        for a in agents {
            c.google_class.append_option(a.google_class);
        }
        for a in agents {
            c.root_allowed.append_option(a.root_allowed);
        }
        for a in agents {
            c.cc_class.append_option(a.cc_class);
        }
        for a in agents {
            c.named.append_value(a.named);
        }
        for a in agents {
            c.block.append_option(a.block);
        }
        c.doc_id.append_option_n(site.doc_id, n);
        c.url.append_option_n(site.url, n);
        c.start_url.append_option_n(site.start_url, n);
        match site.http_status {
            Some(status) => c.http_status.append_value_n(i32::from(status), n),
            None => c.http_status.append_nulls(n),
        }
        c.redirect_hops
            .append_value_n(to_i32(site.redirect_hops), n);
        c.captures.append_value_n(to_i32(site.captures), n);
        match site.rank {
            Some(rank) => c.rank.append_value_n(rank, n),
            None => c.rank.append_nulls(n),
        }
        c.top_k.append_option_n(site.top_k, n);
        c.site_key.append_value_n(site.site_key, n);
        c.status_semantics.append_value_n(site.status_semantics, n);
        c.crawl.append_value_n(site.crawl, n);
        self.rows += n;
    }

    /// The rows appended so far as one batch; the builders are left empty.
    pub fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        self.rows = 0;
        let columns = self.columns.finish_within(Room::STEP);
        RecordBatch::try_new(Table::Sites.schema(), columns)
    }
}
