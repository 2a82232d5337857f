//! The engine's work counter, for tests only (`lib.rs` declares this module and the
//! counting calls under `#[cfg(test)]`): a count of elementary steps on the current
//! thread, so that the adversarial tests can assert linear growth by doubling an
//! input, without a clock. `count_work!(n)` adds `n`; [`measure`] runs a closure and
//! returns what it counted.
//!
//! A budget turns a regression into a prompt failure instead of a hang: a quadratic
//! step measured at twice the size panics as soon as it has done the work a linear
//! one may do, rather than finishing its fourfold work first.

use std::cell::Cell;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
    static BUDGET: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// Adds `n` steps; panics past the budget [`measure`] set.
pub(crate) fn add(n: usize) {
    let steps = STEPS.get().saturating_add(n as u64);
    STEPS.set(steps);
    let budget = BUDGET.get();
    assert!(
        steps <= budget,
        "work past its budget of {budget} steps, the most the test allows at this size"
    );
}

/// The steps `f` counted on this thread, with at most `budget` of them allowed.
pub(crate) fn measure(budget: Option<u64>, f: impl FnOnce()) -> u64 {
    STEPS.set(0);
    BUDGET.set(budget.unwrap_or(u64::MAX));
    f();
    BUDGET.set(u64::MAX);
    STEPS.replace(0)
}

/// Linear growth allows at most this `work(2n) / work(n)`: linear work gives about
/// 2, quadratic about 4, `n log n` a little over 2.
pub(crate) const MAX_RATIO: f64 = 2.3;

/// Asserts that `run` does linear work in its size: what `run(2 * n)` counts is at
/// most [`MAX_RATIO`] times what `run(n)` counts (the budget stops it there), and
/// `run(n)` counts at least `floor` steps, so the counter is wired to the work
/// measured. Returns the ratio.
#[track_caller]
pub(crate) fn assert_linear(n: usize, floor: u64, run: impl Fn(usize)) -> f64 {
    let small = measure(None, || run(n));
    assert!(
        small >= floor,
        "the counter saw {small} steps at size {n}, fewer than {floor}"
    );
    let budget = (small as f64 * MAX_RATIO) as u64;
    let large = measure(Some(budget), || run(2 * n));
    let ratio = large as f64 / small as f64;
    eprintln!("work({n}) = {small}, work({}) = {large}: {ratio:.3}", 2 * n);
    assert!(
        ratio <= MAX_RATIO,
        "work({}) / work({n}) = {large} / {small} = {ratio:.2}",
        2 * n
    );
    ratio
}
