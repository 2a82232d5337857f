//! End-to-end and cross-checking tests of robots-census, one binary, a module per concern.

mod differential;
mod pipeline;
mod schema;
mod support;
