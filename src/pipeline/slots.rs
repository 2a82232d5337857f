//! How many tasks are in flight, and how many of them read on the pool at once.
//!
//! A worker slot is a plain thread that runs one task at a time: it opens each input,
//! reads it on the rayon pool, and commits the task. Opening and committing wait on
//! I/O outside the pool. `threads + 1` slots reading at once keep the pool busy while
//! one of them drains its last chunk or commits, so many small inputs run as fast as
//! one large file of the same captures (BENCHMARKS.md, "Remote inputs and many small
//! files"), for one task's buffers of memory.
//!
//! With remote inputs there are twice as many slots, and all of them may read: an open
//! may wait seconds (a `Retry-After`, a backoff, a slow first byte), and so may a body
//! cut mid-stream (a backoff, then a Range continuation). A slot waiting for a server
//! must not leave the pool short of work: a reader whose bytes are late gives its pool
//! thread to the other readers' work meanwhile (`store/read.rs`), so more readers cost
//! no CPU, only their chunks' memory. With only `threads + 1` readers, one stalled body
//! would leave too few to keep the pool busy; with every slot reading, stalled and cut
//! bodies cost a run little beyond the run without them, and the price is memory, which
//! `--max-requests` caps (BENCHMARKS.md, "Remote inputs and many small files").

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use crate::store::Stores;

/// The worker slots of a run and the passes that let them read.
#[derive(Debug)]
pub(super) struct Slots {
    /// Worker slots (plain threads): the tasks in flight.
    pub workers: usize,
    /// Slots reading on the pool now, at most `max_readers`.
    reading: Mutex<usize>,
    freed: Condvar,
    max_readers: usize,
}

impl Slots {
    /// Slots for a run on `threads` threads; `stores` when it has remote inputs.
    ///
    /// With remote inputs, twice the slots but never more than `--max-requests`, every
    /// one of them allowed to read: a slot holds at most one open response (and its
    /// request permit) at a time, and may hold it while it waits to read; a reader whose
    /// body was cut needs a permit for the Range continuation. With no more slots than
    /// permits, the slot that lost its stream always finds one free, so waiting slots
    /// cannot starve it.
    pub fn new(threads: usize, stores: Option<&Stores>) -> Slots {
        let (workers, max_readers) = match stores {
            Some(stores) => {
                let slots = (2 * (threads + 1)).min(stores.options().max_requests.max(1));
                (slots, slots)
            }
            None => (threads + 1, threads + 1),
        };
        Slots {
            workers,
            reading: Mutex::new(0),
            freed: Condvar::new(),
            max_readers,
        }
    }

    /// Runs `read` (one input read on the pool) once fewer than `threads + 1` slots
    /// are reading.
    pub fn read<T>(&self, read: impl FnOnce() -> T) -> T {
        let mut reading = self.lock();
        while *reading >= self.max_readers {
            reading = self
                .freed
                .wait(reading)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *reading += 1;
        drop(reading);
        // Released on unwind too: a panic in one input is that input's error row, and
        // the run goes on.
        let _pass = Pass(self);
        read()
    }

    fn lock(&self) -> MutexGuard<'_, usize> {
        // The count stays right even if a holder panicked: it only adds and subtracts.
        self.reading.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A slot's pass to read; given back when dropped.
struct Pass<'a>(&'a Slots);

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        *self.0.lock() -= 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn local_runs_have_one_slot_more_than_threads() {
        let slots = Slots::new(2, None);
        assert_eq!((slots.workers, slots.max_readers), (3, 3));
    }

    #[test]
    fn remote_runs_have_twice_the_slots_all_reading_within_max_requests() {
        let stores = Stores::new(crate::store::StoreOptions::default()).expect("stores");
        let slots = Slots::new(2, Some(&stores));
        assert_eq!((slots.workers, slots.max_readers), (6, 6));
        let few = crate::store::StoreOptions {
            max_requests: 4,
            ..crate::store::StoreOptions::default()
        };
        let slots = Slots::new(2, Some(&Stores::new(few).expect("stores")));
        assert_eq!((slots.workers, slots.max_readers), (4, 4));
    }

    #[test]
    fn at_most_threads_plus_one_slots_read_at_once() {
        let slots = Slots::new(1, None);
        let (now, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| {
                    for _ in 0..50 {
                        slots.read(|| {
                            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                            peak.fetch_max(n, Ordering::SeqCst);
                            std::thread::yield_now();
                            now.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                });
            }
        });
        let peak = peak.load(Ordering::SeqCst);
        assert!((1..=2).contains(&peak), "{peak} read at once");
        assert_eq!(*slots.lock(), 0);
    }

    #[test]
    fn a_panic_while_reading_gives_the_pass_back() {
        let slots = Slots::new(0, None);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            slots.read(|| panic!("boom"));
        }));
        assert!(caught.is_err());
        assert_eq!(*slots.lock(), 0);
        assert_eq!(slots.read(|| 7), 7);
    }
}
