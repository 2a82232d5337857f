//! robots
