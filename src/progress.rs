//! Progress on stderr: bytes read of the total, documents per second, ETA.
//! Hidden when stderr is not a terminal or with --quiet.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shared by all workers; updates are cheap atomic adds.
pub struct Progress {
    bar: ProgressBar,
    documents: AtomicU64,
    started: std::time::Instant,
}

impl Progress {
    pub fn new(total_bytes: u64, quiet: bool) -> Self {
        let bar =
            ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr_with_hz(4));
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, ETA {eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        Progress {
            bar,
            documents: AtomicU64::new(0),
            started: std::time::Instant::now(),
        }
    }

    /// Records `bytes` more input read and `documents` more documents made.
    pub fn advance(&self, bytes: u64, documents: u64) {
        let docs = self.documents.fetch_add(documents, Ordering::Relaxed) + documents;
        self.bar.inc(bytes);
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        self.bar
            .set_message(format!("{docs} docs, {:.0} docs/s", docs as f64 / secs));
    }

    /// A warning on stderr (shown with --quiet too), printed above the bar.
    pub fn warn(&self, text: &str) {
        self.bar
            .suspend(|| eprintln!("robots-census: warning: {text}"));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
