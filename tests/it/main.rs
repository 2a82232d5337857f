//! End-to-end and cross-checking tests of robots-census, one binary, a module per concern.

mod cli_check;
mod conformance;
mod damaged;
mod dataset;
mod differential;
mod generative;
mod lint_rules;
mod parser_props;
mod pipeline;
mod queries;
mod remote;
mod report;
mod schema;
mod sites;
mod support;
