//! End-to-end and cross-checking tests of robots-census, one binary, a module per concern.

mod audit;
mod changes;
mod cli_check;
mod conformance;
mod damaged;
mod dataset;
mod deploy;
mod differential;
mod generative;
mod lint_rules;
mod parser_props;
mod pipeline;
mod profiles;
mod python;
mod queries;
mod remote;
mod remote_out;
mod report;
mod report_layout;
mod schema;
mod signals;
mod sites;
mod spark;
mod study;
mod support;
