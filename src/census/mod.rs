//! Census values: what a column holds, decided once from a capture's facts, so the
//! run that writes it and the steps that read it back agree. `output` appends these
//! values; it does not compute them.
//!
//! ```text
//! crawl.rs          the Common Crawl crawl id's shape (CC-MAIN-YYYY-WW)
//! urls.rs           URL parts and authority, registrable domain, Location resolution,
//!                   robots.txt URL test, redirect lookup keys
//! status.rs         documents.status_class; what a status means for the body
//!                   (parse, redirect, no robots.txt, unreachable); agents.classification
//! headline.rs       run's closing answer: parsed robots.txt captures fully blocking
//!                   each AI crawler, and by a group naming it
//! document.rs       documents.n_* counts and cut_at_500kib, rules.key, sitemaps facts
//! readings.rs       readings: each interpretation profile's reading per (document,
//!                   agent) and whether the profiles agree
//! site_classes.rs   sites: Common Crawl's eight status classes under rfc9309 / ccbot
//!                   semantics, the Google and Common Crawl readings, top-k rank strata
//! ```

pub mod crawl;
pub mod document;
pub mod headline;
pub mod readings;
pub mod site_classes;
pub mod status;
pub mod urls;
