//! Study steps: SQL over a dataset's tables by name, run by an embedded Apache
//! DataFusion that spills sorts, joins and aggregations to disk under a memory limit.
//!
//! ```text
//! output::catalog (the files of each table: finished tasks, fresh derived tables)
//!   --engine (DataFusion: tables registered by name, memory pool, spill directory)
//!   --SQL (queries/*.sql, or the user's) --> results (table, CSV, JSON lines, Parquet)
//! ```
//!
//! The SQL of `queries/` is one text for three engines: this one, DuckDB (through the
//! `_views.sql` a run writes, see `output::views`) and Spark SQL.

mod engine;
mod results;

pub use engine::{Engine, EngineOptions};
pub use results::{write_results, Format};

use std::path::PathBuf;

/// Errors of a study step: all end it (exit 2), naming the file, table or statement.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error(transparent)]
    Catalog(#[from] crate::output::catalog::CatalogError),
    /// A statement names a table the dataset does not have (or has only stale).
    #[error("{source_name}: table {table}: {why}")]
    Unavailable {
        source_name: String,
        table: String,
        why: String,
    },
    /// DataFusion's message on one line (some span several).
    #[error("{source_name}: {}", one_line(error))]
    Sql {
        source_name: String,
        error: Box<datafusion::error::DataFusionError>,
    },
    #[error("cannot write {path}: {detail}")]
    Output { path: PathBuf, detail: String },
    #[error("cannot start the query engine: {0}")]
    Engine(String),
}

/// `error`'s message with its line breaks as spaces: every failure is one line.
fn one_line(error: &datafusion::error::DataFusionError) -> String {
    let text = error
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match error.find_root() {
        // DataFusion's advice names its own settings; this is the flag that sets them.
        datafusion::error::DataFusionError::ResourcesExhausted(_) => {
            format!("{text} (the query needs more memory than --memory-limit gives it: raise the limit)")
        }
        _ => text,
    }
}
