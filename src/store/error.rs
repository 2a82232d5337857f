//! The one error type of the store layer.
//!
//! A [`StoreError`] says whether a rerun may succeed ([`StoreError::is_transient`]:
//! the service kept failing until the input's retry budget ran out) or not (the
//! object is missing, access is denied, it changed while being read), and carries a
//! stable snake_case [`StoreError::code`] for the `errors` table.

use std::time::Duration;

/// A failure to reach, read or write an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// Not a local path, `http(s)://` URL or `s3://bucket/key`.
    #[error("bad location {0}")]
    BadLocation(String),
    /// 404: final at once.
    #[error("{location}: not found ({detail})")]
    NotFound { location: String, detail: String },
    /// 401 or 403 other than CloudFront's rate-limit page: final at once.
    #[error("{location}: access denied ({detail})")]
    AccessDenied { location: String, detail: String },
    /// The object's ETag changed between the first response and a continuation, or
    /// the server answered a continuation with other bytes than asked: the rows read
    /// so far are dropped rather than mixed with another version.
    #[error("{location}: the object changed while it was read ({detail})")]
    Changed { location: String, detail: String },
    /// Transient faults (503 SlowDown, 429, 5xx, CloudFront's 403, resets, timeouts,
    /// cut bodies) went on until the retry budget was spent: worth a `--resume`.
    #[error("{location}: gave up after {attempts} failed attempts and {:.1}s of its {:.0}s retry budget; last: {last}", spent.as_secs_f64(), budget.as_secs_f64())]
    Exhausted {
        location: String,
        attempts: u32,
        spent: Duration,
        budget: Duration,
        last: String,
    },
    /// Any other refusal or malformed answer (400, 416, a server that ignores
    /// `Range`, bad configuration): final.
    #[error("{location}: {detail}")]
    Failed { location: String, detail: String },
    /// The async runtime or an object store client could not be set up.
    #[error("cannot set up remote access: {0}")]
    Setup(String),
}

impl StoreError {
    /// Every [`StoreError::code`], in variant order (documented in `schemas/README.md`).
    pub const CODES: &'static [&'static str] = &[
        "remote_bad_location",
        "remote_not_found",
        "remote_access_denied",
        "remote_object_changed",
        "remote_retries_exhausted",
        "remote_failed",
        "remote_setup",
    ];

    /// Stable snake_case code, used as the `code` column of the `errors` table.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadLocation(_) => "remote_bad_location",
            Self::NotFound { .. } => "remote_not_found",
            Self::AccessDenied { .. } => "remote_access_denied",
            Self::Changed { .. } => "remote_object_changed",
            Self::Exhausted { .. } => "remote_retries_exhausted",
            Self::Failed { .. } => "remote_failed",
            Self::Setup(_) => "remote_setup",
        }
    }

    /// True when a later run (`--resume`) may succeed where this one gave up.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Exhausted { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_lists_every_variant_in_order() {
        let s = String::new;
        let samples = [
            StoreError::BadLocation(s()),
            StoreError::NotFound {
                location: s(),
                detail: s(),
            },
            StoreError::AccessDenied {
                location: s(),
                detail: s(),
            },
            StoreError::Changed {
                location: s(),
                detail: s(),
            },
            StoreError::Exhausted {
                location: s(),
                attempts: 1,
                spent: Duration::ZERO,
                budget: Duration::ZERO,
                last: s(),
            },
            StoreError::Failed {
                location: s(),
                detail: s(),
            },
            StoreError::Setup(s()),
        ];
        let codes: Vec<&str> = samples.iter().map(StoreError::code).collect();
        assert_eq!(codes, StoreError::CODES);
    }
}
