//! robots-census
pub mod robots;
