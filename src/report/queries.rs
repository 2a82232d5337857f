//! The report's numbers: the files of `queries/` its tables name, run by the embedded
//! engine over the dataset's tables, and typed access to their rows.
//!
//! Each table and chart of the page is the result of one of these files, unchanged
//! (they are compiled into the binary, so the page and the file the caption names are
//! the same SQL); the page's header line comes from [`HEADER`], the one statement
//! that is the report's own.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};

use super::ReportError;
use crate::study::Engine;

/// A file of `queries/`, by name (the caption's `queries/<name>.sql`).
pub struct Query {
    pub name: &'static str,
    pub sql: &'static str,
    /// The SQL is the file `queries/<name>.sql` (else the report's own statement).
    pub file: bool,
}

impl Query {
    /// What errors call the SQL.
    fn source(&self) -> String {
        if self.file {
            format!("queries/{}.sql", self.name)
        } else {
            self.name.to_owned()
        }
    }
}

macro_rules! query {
    ($name:literal) => {
        Query {
            name: $name,
            sql: include_str!(concat!("../../queries/", $name, ".sql")),
            file: true,
        }
    };
}

pub const SITE_STATUS: Query = query!("site_status_by_crawl");
pub const AGENT_BLOCKING: Query = query!("agent_blocking_by_crawl");
pub const CHANGES: Query = query!("changes_by_agent");
pub const TOKENS: Query = query!("top_user_agents");
pub const SITEMAPS: Query = query!("sitemap_adoption");
pub const DELAYS: Query = query!("crawl_delay");
pub const LINT: Query = query!("lint_findings");
pub const SIZES: Query = query!("size_distribution");
pub const READINGS: Query = query!("profile_sensitivity");
pub const SIGNAL_ADOPTION: Query = query!("signal_adoption");
pub const SIGNAL_CONTRADICTIONS: Query = query!("signal_contradictions");

/// The header line and the methodology paragraph: robots.txt captures (the robots.txt
/// URL test of every query), and the options and rank coverage the sites table records.
pub const HEADER: Query = Query {
    name: "the report's header query",
    file: false,
    sql: "\
SELECT (SELECT count(*) FROM documents
        WHERE regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)'))
           AS robots_captures,
       (SELECT string_agg(site_key, ', ' ORDER BY site_key)
        FROM (SELECT DISTINCT site_key FROM sites) AS k) AS site_keys,
       (SELECT string_agg(status_semantics, ', ' ORDER BY status_semantics)
        FROM (SELECT DISTINCT status_semantics FROM sites) AS s) AS semantics,
       (SELECT count(*) FROM (SELECT DISTINCT crawl, site FROM sites
                              WHERE rank IS NOT NULL) AS r) AS ranked_sites",
};

/// A query's result, whole (the report's results are small: one row per crawl and
/// agent at most).
pub struct Rows {
    source: String,
    batches: Vec<RecordBatch>,
}

impl Rows {
    /// Runs `query` to the end.
    pub fn run(engine: &Engine, query: &Query) -> Result<Rows, ReportError> {
        let source = query.source();
        let mut results = engine.run(query.sql, &source)?;
        let mut batches = Vec::new();
        while let Some(batch) = results.next_batch() {
            batches.push(batch.map_err(|error| crate::study::StudyError::Sql {
                source_name: source.clone(),
                error: Box::new(error),
            })?);
        }
        Ok(Rows { source, batches })
    }

    /// Calls `f` with every row, in the query's order.
    pub fn each(
        &self,
        mut f: impl FnMut(&Row<'_>) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        for batch in &self.batches {
            for i in 0..batch.num_rows() {
                f(&Row {
                    source: &self.source,
                    batch,
                    i,
                })?;
            }
        }
        Ok(())
    }

    /// Every row made into a `T`, in the query's order.
    pub fn map<T>(
        &self,
        mut f: impl FnMut(&Row<'_>) -> Result<T, ReportError>,
    ) -> Result<Vec<T>, ReportError> {
        let mut out = Vec::new();
        self.each(|row| {
            out.push(f(row)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// One row of a result, with typed, null-aware accessors whose errors name the query
/// and the column.
pub struct Row<'a> {
    source: &'a str,
    batch: &'a RecordBatch,
    i: usize,
}

impl<'a> Row<'a> {
    fn wrong(&self, column: &str) -> ReportError {
        ReportError::Column {
            source_name: self.source.to_owned(),
            column: column.to_owned(),
        }
    }

    /// The column, or `None` when the value is null.
    fn column(&self, name: &str) -> Result<Option<&'a dyn Array>, ReportError> {
        let column = self
            .batch
            .column_by_name(name)
            .ok_or_else(|| self.wrong(name))?;
        Ok(column.is_valid(self.i).then_some(column.as_ref()))
    }

    pub fn str(&self, name: &str) -> Result<Option<&'a str>, ReportError> {
        let Some(c) = self.column(name)? else {
            return Ok(None);
        };
        if let Some(a) = c.as_string_opt::<i32>() {
            return Ok(Some(a.value(self.i)));
        }
        if let Some(a) = c.as_string_view_opt() {
            return Ok(Some(a.value(self.i)));
        }
        c.as_string_opt::<i64>()
            .map(|a| Some(a.value(self.i)))
            .ok_or_else(|| self.wrong(name))
    }

    /// A string that the query never leaves null.
    pub fn text(&self, name: &str) -> Result<String, ReportError> {
        Ok(self.str(name)?.unwrap_or_default().to_owned())
    }

    /// An integer column (int32, int64 or uint64).
    pub fn int(&self, name: &str) -> Result<Option<i64>, ReportError> {
        let Some(c) = self.column(name)? else {
            return Ok(None);
        };
        if let Some(a) = c.as_primitive_opt::<Int64Type>() {
            return Ok(Some(a.value(self.i)));
        }
        if let Some(a) = c.as_primitive_opt::<UInt64Type>() {
            return i64::try_from(a.value(self.i))
                .map(Some)
                .map_err(|_| self.wrong(name));
        }
        c.as_primitive_opt::<Int32Type>()
            .map(|a| Some(i64::from(a.value(self.i))))
            .ok_or_else(|| self.wrong(name))
    }

    /// A count: an integer that is never negative (null reads as 0, as SQL's
    /// `coalesce(.., 0)`).
    pub fn count(&self, name: &str) -> Result<u64, ReportError> {
        match self.int(name)? {
            None => Ok(0),
            Some(n) => u64::try_from(n).map_err(|_| self.wrong(name)),
        }
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_boolean_opt()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }

    pub fn float(&self, name: &str) -> Result<Option<f64>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_primitive_opt::<Float64Type>()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }
}
