//! End-to-end and cross-checking tests of robots-census, one binary, a module per concern.

mod cli_check;
mod conformance;
mod dataset;
mod deploy;
mod differential;
mod lint_rules;
mod parser_props;
mod pipeline;
mod queries;
mod schema;
mod spark;
mod support;
