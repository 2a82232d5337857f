//! # robots-census
//!
//! Archived robots.txt bodies in, Parquet tables out. The modules follow the data:
//!
//! ```text
//! input (warc, csv, decompress, http)  ->  Capture { url, status, headers, body }
//!   -> robots-census-engine (tokenize -> parse -> RobotsTxt model, lint findings, matcher)
//!   -> census (what each column holds: URL facts, status meanings, document counts)
//!   -> verdicts (which (agent, url) questions each document is asked)
//!   -> output (one Parquet writer per table, one part file per input)
//! pipeline runs that flow over every input with rayon; config resolves what a run is asked.
//! cli is the command layer: clap structs -> plain options -> a step -> an exit code.
//! store reaches inputs on HTTP(S) servers and S3 (object_store, retries, request cap).
//! output::catalog names the files of each table (finished tasks, fresh derived tables).
//! study runs SQL over the tables by name in an embedded DataFusion (`query`).
//! sites (a later step) reads the tables back: the deciding capture per crawl, site and agent.
//! changes compares two crawls of the sites table: per-site changes, blocks per agent.
//! audit reports on one robots.txt for people (findings, verdicts, RFC 9309 vs Google).
//! report draws the tables (sites, documents, groups, sitemaps, errors) as one HTML page.
//! ```
//!
//! A module imports only modules of its own step or earlier ones (tests/it/layering.rs
//! holds that order). The modules are private: the crate's interface is the
//! `robots-census` command and its tables. The robots.txt engine is a crate of its own,
//! [`robots_census_engine`]: a pure library with no I/O. Give it bytes, get the model
//! Google's robots.cc would build, and ask it questions.

mod audit;
mod census;
mod changes;
mod check;
mod cli;
mod config;
mod input;
mod limits;
mod output;
mod pipeline;
mod progress;
#[cfg(feature = "study")]
mod report;
mod sites;
mod spill;
mod status;
mod store;
#[cfg(feature = "study")]
mod study;
mod verdicts;

pub use cli::{dispatch, Args};

/// What the integration tests (`tests/it`) and the bench programs (`benches/`) reach
/// inside the crate. Not an API: the crate's interface is the `robots-census` command
/// and the Parquet tables; the library API is [`robots_census_engine`].
#[doc(hidden)]
pub mod internals {
    pub use crate::census::status::classify;
    pub use crate::changes::crawls;
    pub use crate::input::{InputError, WholeInflater};
    pub use crate::limits::ROBOTS_PARSE_CAP;
    pub use crate::output::schema::{columns_markdown, schema_json, Table};
    pub use crate::pipeline::INTERNAL_PANIC;
    pub use crate::store::{Location, StoreError, StoreOptions, Stores};
    pub use crate::verdicts::{parse_agent_list, DEFAULT_AGENTS};
}
