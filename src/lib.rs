//! # robots-census
//!
//! Archived robots.txt bodies in, Parquet tables out. The modules follow the data:
//!
//! ```text
//! input (warc, csv, decompress, http)  ->  Capture { url, status, headers, body }
//!   -> robots-census-engine (tokenize -> parse -> RobotsTxt model, lint findings, matcher)
//!   -> verdicts (which (agent, url) questions each document is asked)
//!   -> census (what each column holds: URL facts, status meanings, document counts)
//!   -> output (one Parquet writer per table, one part file per input)
//! pipeline runs that flow over every input with rayon; config resolves what a run is asked.
//! cli is the command layer: clap structs -> plain options -> a step -> an exit code.
//! store reaches inputs on HTTP(S) servers and S3 (object_store, retries, request cap).
//! output::catalog names the files of each table (finished tasks, fresh derived tables).
//! study runs SQL over the tables by name in an embedded DataFusion (`query`).
//! sites (a later step) reads the tables back: the deciding capture per crawl, site and agent.
//! audit reports on one robots.txt for people (findings, verdicts, RFC 9309 vs Google).
//! changes compares two crawls of the sites table: per-site changes, blocks per agent.
//! report draws the tables (sites, documents, groups, sitemaps, errors) as one HTML page.
//! ```
//!
//! The robots.txt engine is a crate of its own, [`robots_census_engine`]: a pure library
//! with no I/O. Give it bytes, get the model Google's robots.cc would build, and ask it
//! questions.

pub mod audit;
pub mod census;
pub mod changes;
pub mod check;
pub mod cli;
pub mod config;
pub mod input;
pub mod limits;
pub mod output;
pub mod pipeline;
pub mod progress;
#[cfg(feature = "study")]
pub mod report;
pub mod sites;
pub mod spill;
pub mod status;
pub mod store;
#[cfg(feature = "study")]
pub mod study;
pub mod verdicts;
