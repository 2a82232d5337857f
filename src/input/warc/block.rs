//! A record's block: the HTTP head of a response, then the payload streamed into the
//! body decoder, stopping early where the next record turns out to start.
//!
//! A Content-Length too large would otherwise swallow the records after it. While the
//! block streams, each `WARC/` version line that starts a line (or a gzip member / zstd
//! frame) is judged by [`WarcReader::is_resync_point`]; the CRLF CRLF before an accepted
//! one is the damaged record's terminator, not body.

use super::{header_damage, WarcReader};
use crate::input::error::InputError;
use crate::input::http::{header_end, header_fields, parse_head, Coding, Encoding};
use crate::input::scan::{
    ends_cleanly, ends_exactly, record_start_candidate, terminator_start, trailing_newlines,
    version_line, Version, END_PROBE, VERSION_PROBE,
};
use crate::input::Capture;
use crate::limits::{BUF_MAX, BUF_SIZE, MAX_HEADER_BYTES};

/// Bytes kept visible past the part of a block being decided, so a `WARC/` line that
/// starts inside that part is seen whole.
const LOOK: usize = 64;
/// Farthest declared record end (from the current position) that is looked at directly
/// when judging a `WARC/` line inside a block; a farther one cannot be buffered, so the
/// header after the `WARC/` line is judged instead.
const REACH: usize = MAX_HEADER_BYTES;
const _: () = assert!(REACH + END_PROBE <= BUF_MAX);

/// How the streaming of a record block ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockEnd {
    /// All the declared bytes were read.
    Complete,
    /// The data ended (or broke) first.
    Ended,
    /// A record header inside the block, at this stream offset, was taken as the next
    /// record: the declared length was too large.
    Cut(u64),
}

impl WarcReader {
    /// Reads the HTTP head at the start of a block of `left` bytes; returns the coding
    /// and the bytes consumed.
    pub(super) fn read_http_head(&mut self, left: u64, cap: &mut Capture) -> (Coding, u64) {
        let at = self.s.pos();
        let want = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(MAX_HEADER_BYTES);
        self.s.fill(want);
        let (a, src) = (self.s.avail(), self.s.source());
        let region = a.get(..want.min(a.len())).unwrap_or_default();
        // The head cannot run over the next record (a block shorter than its length):
        // the in-block scan of stream_block must see that record's version line.
        let next = header_damage(region, |k| src.starts_unit(at + k as u64)).0;
        let region = region.get(..next).unwrap_or(region);
        let identity = Coding {
            chunked: false,
            encoding: Encoding::Identity,
        };
        // Where its problems are: the block's first byte, or the record's start when the
        // block has no byte (the byte after the header may be another record's).
        let problem_at = if region.is_empty() {
            self.head.start
        } else {
            at
        };
        if !region.starts_with(b"HTTP/") {
            let shown = String::from_utf8_lossy(region.get(..40).unwrap_or(region)).into_owned();
            let e = InputError::HttpBadStatusLine(format!("{shown:?}"));
            cap.warnings.push(self.problem_at(e, problem_at));
            return (identity, 0);
        }
        let len = match header_end(region) {
            Some(n) => n,
            // A head-only block (revisit, HEAD) may lack the blank line.
            None if region.len() as u64 == left => region.len(),
            None => {
                let msg = format!("no end of headers within {} bytes", region.len());
                cap.warnings
                    .push(self.problem_at(InputError::HttpBadHeader(msg), at));
                return (identity, 0);
            }
        };
        let (coding, bad_status) = parse_head(region.get(..len).unwrap_or_default(), cap);
        if let Some(e) = bad_status {
            cap.warnings.push(self.problem_at(e, at));
        }
        self.s.consume(len);
        (coding, len as u64)
    }

    /// Streams the block up to stream offset `end`, into the body decoder when `keep`.
    /// Stops early at a record header inside the block that [`Self::is_resync_point`]
    /// accepts; the CRLF CRLF before it is the damaged record's terminator, not body.
    pub(super) fn stream_block(&mut self, end: u64, keep: bool, cap: &mut Capture) -> BlockEnd {
        // The byte before the block: the LF that ends the header block.
        let mut prev = b'\n';
        loop {
            let left = usize::try_from(end.saturating_sub(self.s.pos())).unwrap_or(usize::MAX);
            if left == 0 {
                return BlockEnd::Complete;
            }
            let want = left.min(BUF_SIZE) + LOOK;
            let a = self.s.fill(want);
            if a.is_empty() {
                return BlockEnd::Ended;
            }
            let short = a.len() < want;
            let n = left.min(a.len());
            // Decide only bytes followed by LOOK visible ones (all of them at the end).
            let limit = if short { n } else { n.min(a.len() - LOOK) };
            let mut from = 0;
            let cut = loop {
                let a = self.s.avail();
                let before = if from == 0 {
                    prev
                } else {
                    a.get(from - 1).copied().unwrap_or(0)
                };
                let window = a.get(from..).unwrap_or_default();
                let here = self.s.pos() + from as u64;
                let src = self.s.source();
                // A record starts at a line start, or at a member / frame start (after
                // damaged data that does not end in a line break).
                let Some(k) = record_start_candidate(window, limit - from, before, |k| {
                    src.starts_unit(here + k as u64)
                }) else {
                    break None;
                };
                let k = from + k;
                if self.is_resync_point(k, end) {
                    break Some(k);
                }
                from = k + 1;
            };
            let a = self.s.avail();
            if let Some(k) = cut {
                let body_end = terminator_start(a.get(..k).unwrap_or_default());
                if keep {
                    self.body.push(a.get(..body_end).unwrap_or_default(), cap);
                }
                self.s.consume(k);
                return BlockEnd::Cut(self.s.pos());
            }
            // Hold back a trailing CR/LF run while the block goes on: if a record header
            // follows it, the run is a terminator, not body.
            let mut take = limit;
            if limit < left {
                let t = trailing_newlines(a.get(..limit).unwrap_or_default());
                if t > 0 {
                    take = t;
                }
            }
            let piece = a.get(..take).unwrap_or_default();
            prev = piece.last().copied().unwrap_or(prev);
            if keep {
                self.body.push(piece, cap);
            }
            self.s.consume(take);
        }
    }

    /// Is the `WARC/` line `k` bytes ahead the start of the next record, although the
    /// current block (declared to end at stream offset `end`) goes on past it? Yes when
    /// it is a valid version line and the declared end does not land cleanly
    /// ([`ends_cleanly`]). A declared end that lands cleanly but not exactly (a separator
    /// run other than the one terminator, e.g. one byte before the next version line:
    /// inside an earlier record's CRLF CRLF) is a coincidence of a wrong length when the
    /// line opens a complete WARC header block ([`Self::opens_record`]): trusting it
    /// would swallow every record in between. When the declared end is out of reach,
    /// the header after the line decides alone.
    fn is_resync_point(&mut self, k: usize, end: u64) -> bool {
        let a = self.s.fill(k + VERSION_PROBE);
        if version_line(a.get(k..).unwrap_or_default()) != Version::Yes {
            return false;
        }
        let ahead = end.saturating_sub(self.s.pos());
        match usize::try_from(ahead) {
            Ok(d) if d <= REACH => {
                let a = self.s.fill(d + END_PROBE);
                let at_end = a.len() < d + END_PROBE;
                match a.get(d..) {
                    Some(rest) if !ends_cleanly(rest, at_end) => true,
                    Some(rest) if ends_exactly(rest, at_end) => false,
                    Some(_) => self.opens_record(k),
                    // The data ends before the declared end.
                    None => true,
                }
            }
            _ => self.opens_record(k),
        }
    }

    /// Does the version line `k` bytes ahead open a complete WARC header block with a
    /// WARC-Type or WARC-Record-ID and a numeric Content-Length?
    fn opens_record(&mut self, k: usize) -> bool {
        let a = self.s.fill(k + MAX_HEADER_BYTES);
        let Some(h) = a.get(k..) else {
            return false;
        };
        let Some(len) = header_end(h) else {
            return false;
        };
        let (mut has_length, mut has_id) = (false, false);
        for (name, value) in header_fields(h.get(..len).unwrap_or_default()) {
            if name.eq_ignore_ascii_case(b"Content-Length") {
                has_length = std::str::from_utf8(value).is_ok_and(|v| v.parse::<u64>().is_ok());
            } else if name.eq_ignore_ascii_case(b"WARC-Type")
                || name.eq_ignore_ascii_case(b"WARC-Record-ID")
            {
                has_id = true;
            }
        }
        has_length && has_id
    }
}
