//! Generative differential test against Google's parser (placeholder).

mod regressions;
