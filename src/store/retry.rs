//! The retry policy: what is retried, how long to wait, and when to give up.
//!
//! Every failed attempt is sorted by [`classify`] into *retry* (a [`Fault`] from the
//! service: 503 SlowDown, 429, 408, other 5xx, CloudFront's 403; any transport error:
//! connection refused or reset, timeout, a body cut mid-stream) or *final* (404,
//! access denied, a precondition that failed because the object changed, anything
//! else). Retries wait an exponential backoff with jitter, or the server's
//! `Retry-After` when that is longer, and draw on a [`Budget`] of time: the time spent
//! in failed attempts plus the waits. When the next wait would overdraw it, the
//! operation fails with [`StoreError::Exhausted`], which is transient: a later
//! `--resume` retries the input.

use std::future::Future;
use std::time::{Duration, Instant};

use super::service::Fault;
use super::StoreError;

/// The backoff and budget of one input (or one list / put / delete).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Time an input may spend failing and waiting before it is given up.
    pub budget: Duration,
    /// First backoff; each retry doubles it, up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
}

/// The time one operation has left for retries.
#[derive(Debug)]
pub(crate) struct Budget {
    policy: RetryPolicy,
    spent: Duration,
    attempts: u32,
}

impl Budget {
    pub fn new(policy: RetryPolicy) -> Self {
        Budget {
            policy,
            spent: Duration::ZERO,
            attempts: 0,
        }
    }

    /// The input is given up for a reason no retry of this read can mend (a cut body
    /// the server gives no ETag to continue): the error says what was really spent of
    /// the budget (not "0s of its 0s"), and is retried by `--resume` like any other.
    pub fn give_up(&self, location: &str, why: String) -> StoreError {
        StoreError::Exhausted {
            location: location.to_owned(),
            attempts: self.attempts.max(1),
            spent: self.spent,
            budget: self.policy.budget,
            last: why,
        }
    }

    /// Records a failed attempt that took `took`, and returns how long to wait
    /// before the next: the backoff, or `retry_after` when longer. Fails when that
    /// wait would overdraw the budget.
    pub fn failed(
        &mut self,
        took: Duration,
        retry_after: Option<Duration>,
        why: String,
        location: &str,
    ) -> Result<Duration, StoreError> {
        self.spent += took;
        self.attempts += 1;
        let backoff = jittered(self.policy, self.attempts, fastrand::f64());
        let wait = backoff.max(retry_after.unwrap_or(Duration::ZERO));
        if self.spent + wait > self.policy.budget {
            return Err(StoreError::Exhausted {
                location: location.to_owned(),
                attempts: self.attempts,
                spent: self.spent,
                budget: self.policy.budget,
                last: why,
            });
        }
        self.spent += wait;
        Ok(wait)
    }
}

/// The wait before retry number `attempt` (1-based): `initial * 2^(attempt-1)`
/// capped at `max`, plus up to half of that again at random (`unit` in [0, 1)), so
/// that many clients throttled at once do not come back in step. Never shorter than
/// `initial`: Common Crawl asks for no more than one retry per second.
fn jittered(policy: RetryPolicy, attempt: u32, unit: f64) -> Duration {
    let exp = attempt.saturating_sub(1).min(30);
    let base = policy
        .initial_backoff
        .saturating_mul(1 << exp)
        .min(policy.max_backoff);
    base + base.mul_f64(unit.clamp(0.0, 1.0) / 2.0)
}

/// What to do after a failed attempt.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Retry {
        retry_after: Option<Duration>,
        why: String,
    },
    Fail(StoreError),
}

/// Sorts an object_store error into retry or final.
pub(crate) fn classify(err: &object_store::Error, location: &str) -> Verdict {
    use object_store::Error as E;
    let detail = || one_line(&err.to_string());
    match err {
        E::NotFound { .. } => {
            return Verdict::Fail(StoreError::NotFound {
                location: location.to_owned(),
                detail: detail(),
            })
        }
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => {
            return Verdict::Fail(StoreError::AccessDenied {
                location: location.to_owned(),
                detail: detail(),
            })
        }
        E::Precondition { .. } => {
            return Verdict::Fail(StoreError::Changed {
                location: location.to_owned(),
                detail: format!("If-Match failed: {}", detail()),
            })
        }
        _ => {}
    }
    // Faults and transport errors sit somewhere down the source chain; a Fault is
    // wrapped in an HttpError, so the whole chain is searched for one first.
    let links = || {
        std::iter::successors(Some(err as &(dyn std::error::Error + 'static)), |e| {
            e.source()
        })
    };
    if let Some(fault) = links().find_map(|e| e.downcast_ref::<Fault>()) {
        return Verdict::Retry {
            retry_after: fault.retry_after,
            why: fault.to_string(),
        };
    }
    // object_store checks a 206's Content-Range against the range asked for and fails
    // with its (private) `GetResultError::UnexpectedRange`, "Requested {expected:?},
    // got {actual:?}": other bytes than asked for, which README promises as
    // `remote_object_changed`. Its type cannot be named, so its message is matched;
    // tests/it/remote.rs (a_continuation_with_other_bytes...) catches a change in it.
    if let Some(range) = links().find(|e| is_unexpected_range(&e.to_string())) {
        return Verdict::Fail(StoreError::Changed {
            location: location.to_owned(),
            detail: format!("a Range request answered with other bytes: {range}"),
        });
    }
    if let Some(http) = links().find(|e| e.is::<object_store::client::HttpError>()) {
        return Verdict::Retry {
            retry_after: None,
            why: chain(http),
        };
    }
    Verdict::Fail(StoreError::Failed {
        location: location.to_owned(),
        detail: detail(),
    })
}

/// object_store's "Requested 1000..43582, got 1007..43582".
fn is_unexpected_range(message: &str) -> bool {
    message
        .strip_prefix("Requested ")
        .and_then(|rest| rest.split_once(", got "))
        .is_some_and(|(asked, got)| asked.contains("..") && got.contains(".."))
}

/// An error and its sources on one line ("a: b: c").
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    one_line(&text)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs `op` until it succeeds, fails finally, or the budget is spent. `timeout`
/// bounds each attempt (a server that accepts and then says nothing).
pub(crate) async fn retrying<T, F, Fut>(
    budget: &mut Budget,
    location: &str,
    timeout: Option<Duration>,
    mut op: F,
) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = object_store::Result<T>>,
{
    loop {
        let started = Instant::now();
        let result = match timeout {
            Some(limit) => tokio::time::timeout(limit, op()).await.ok(),
            None => Some(op().await),
        };
        let (retry_after, why) = match result {
            Some(Ok(value)) => return Ok(value),
            Some(Err(e)) => match classify(&e, location) {
                Verdict::Fail(err) => return Err(err),
                Verdict::Retry { retry_after, why } => (retry_after, why),
            },
            None => (None, format!("no answer within {timeout:?}")),
        };
        let wait = budget.failed(started.elapsed(), retry_after, why, location)?;
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RetryPolicy = RetryPolicy {
        budget: Duration::from_secs(60),
        initial_backoff: Duration::from_secs(1),
        max_backoff: Duration::from_secs(16),
    };

    #[test]
    fn backoff_doubles_up_to_the_cap_with_at_most_half_again_of_jitter() {
        let secs = |attempt, unit| jittered(POLICY, attempt, unit).as_secs_f64();
        assert_eq!(secs(1, 0.0), 1.0);
        assert_eq!(secs(2, 0.0), 2.0);
        assert_eq!(secs(3, 0.0), 4.0);
        assert_eq!(secs(5, 0.0), 16.0);
        assert_eq!(secs(9, 0.0), 16.0);
        assert_eq!(secs(40, 0.0), 16.0);
        assert_eq!(secs(1, 0.5), 1.25);
        assert_eq!(secs(3, 0.999), 4.0 + 4.0 * 0.999 / 2.0);
    }

    #[test]
    fn giving_up_names_the_real_budget() {
        // Issue 22: a cut body without an ETag printed "of its 0s retry budget" under
        // --retry-budget 5.
        let budget = Budget::new(RetryPolicy {
            budget: Duration::from_secs(5),
            ..POLICY
        });
        let err = budget.give_up("http://127.0.0.1/x", "no ETag".into());
        assert_eq!(err.code(), "remote_retries_exhausted");
        assert!(err.to_string().contains("of its 5s retry budget"), "{err}");
    }

    #[test]
    fn retry_after_wins_when_longer_and_the_budget_runs_out() {
        let mut budget = Budget::new(RetryPolicy {
            budget: Duration::from_secs(10),
            ..POLICY
        });
        let long = Some(Duration::from_secs(5));
        let wait = budget
            .failed(Duration::from_millis(100), long, "503".into(), "x")
            .expect("within budget");
        assert_eq!(wait, Duration::from_secs(5));
        // 5.1 s spent; a second 5 s Retry-After would reach 10.2 s: over.
        let err = budget
            .failed(Duration::from_millis(100), long, "503 again".into(), "x")
            .expect_err("overdrawn");
        match &err {
            StoreError::Exhausted {
                attempts,
                spent,
                last,
                ..
            } => {
                assert_eq!(*attempts, 2);
                assert_eq!(*spent, Duration::from_millis(5200));
                assert_eq!(last, "503 again");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.is_transient());
        assert_eq!(err.code(), "remote_retries_exhausted");
    }

    #[test]
    fn final_errors_are_not_retried() {
        let not_found = object_store::Error::NotFound {
            path: "k".into(),
            source: "404".into(),
        };
        match classify(&not_found, "s3://b/k") {
            Verdict::Fail(e) => {
                assert_eq!(e.code(), "remote_not_found");
                assert!(!e.is_transient());
            }
            other => panic!("{other:?}"),
        }
        let denied = object_store::Error::PermissionDenied {
            path: "k".into(),
            source: "403".into(),
        };
        assert!(matches!(
            classify(&denied, "s3://b/k"),
            Verdict::Fail(StoreError::AccessDenied { .. })
        ));
        let changed = object_store::Error::Precondition {
            path: "k".into(),
            source: "412".into(),
        };
        assert!(matches!(
            classify(&changed, "s3://b/k"),
            Verdict::Fail(StoreError::Changed { .. })
        ));
    }

    #[test]
    fn faults_and_transport_errors_down_the_chain_are_retried() {
        let fault = Fault {
            status: http::StatusCode::SERVICE_UNAVAILABLE,
            retry_after: Some(Duration::from_secs(2)),
            reason: "SlowDown".into(),
        };
        let wrapped = object_store::Error::Generic {
            store: "S3",
            source: Box::new(object_store::client::HttpError::new(
                object_store::client::HttpErrorKind::Unknown,
                fault,
            )),
        };
        assert_eq!(
            classify(&wrapped, "x"),
            Verdict::Retry {
                retry_after: Some(Duration::from_secs(2)),
                why: "HTTP 503 Service Unavailable: SlowDown".into()
            }
        );
        let reset = object_store::Error::Generic {
            store: "HTTP",
            source: Box::new(object_store::client::HttpError::new(
                object_store::client::HttpErrorKind::Interrupted,
                std::io::Error::from(std::io::ErrorKind::ConnectionReset),
            )),
        };
        assert!(matches!(
            classify(&reset, "x"),
            Verdict::Retry {
                retry_after: None,
                ..
            }
        ));
        let other = object_store::Error::Generic {
            store: "HTTP",
            source: "range not satisfiable".into(),
        };
        assert!(matches!(
            classify(&other, "x"),
            Verdict::Fail(StoreError::Failed { .. })
        ));
    }

    #[test]
    fn a_range_other_than_asked_is_recognised_by_its_message() {
        assert!(is_unexpected_range(
            "Requested 1000..43582, got 1007..43582"
        ));
        assert!(!is_unexpected_range(
            "Received non-partial response when range requested"
        ));
        assert!(!is_unexpected_range("Requested range was invalid"));
    }
}
