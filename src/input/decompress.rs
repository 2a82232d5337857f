//! Decompression: raw file bytes in, one decompressed byte stream out.
//!
//! Three sources behind one [`Decoded`] trait: plain bytes, a multi-member gzip stream
//! and a sequence of zstd frames. Both compressed sources remember where each member /
//! frame starts and ends in the file and in the decompressed stream (a small ring of
//! [`Unit`]s), so the WARC reader can tell the pipeline which file bytes re-fetch a record.
//!
//! A corrupt member or frame is a *break*: `read_into` returns `Err(problem)` once, after
//! the source has resynchronised at the next member/frame magic; the next call goes on
//! with the data after it. [`Buffered`] turns the break into a temporary end of data that
//! the record reader acknowledges with [`Buffered::take_break`], so the bytes before the
//! break are never mixed with the bytes after it. The gzip and zstd sources live in
//! `gzip_members.rs` and `zstd_frames.rs`; this file holds what they share: the member ring, the notice
//! queue, and the scans that find the next member after damage.

use std::collections::VecDeque;
use std::io::Read;

use super::detect::{self, Compression};
use super::error::InputError;
use super::gzip_members::GzipSource;
use super::zstd_frames::ZstdSource;
use super::InputProblem;
use crate::limits::{DAMAGED_START_PROBE, UNIT_RING};

pub(crate) use super::buffer::{Buffered, ReadSource, Source};

/// A decompressed stream with the file positions of its members/frames.
pub(crate) trait Decoded: Source {
    /// Compressed bytes consumed so far.
    fn compressed_pos(&self) -> u64;
    /// For a record spanning `[dstart, dend)` of the decompressed stream: the file offset
    /// of the member/frame starting exactly at `dstart`, and the file length up to the end
    /// of the member/frame ending exactly at `dend` (0 when none ends there).
    fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)>;
    /// True when the stream is the file itself (offsets are file offsets).
    fn is_plain(&self) -> bool;
    /// The byte of the file that locates stream offset `dpos` in an `errors` row: `dpos`
    /// itself for a plain input, else the start of the member / frame holding it (the
    /// current file position when that member has left the ring).
    fn file_offset(&self, dpos: u64) -> u64;
    /// Moves into `out` the notices (problems that did not cut the data, such as a bad
    /// gzip CRC) of the members whose data ends at or before stream offset `upto`, so the
    /// record reader can attach each to the record that holds the member's last byte.
    fn take_notices(&mut self, _upto: u64, _out: &mut Vec<InputProblem>) {}
    /// Does a (non-empty) member / frame start exactly at stream offset `dpos`? A record
    /// of a per-record file starts there even when the damaged data before it does not
    /// end in a line break.
    fn starts_unit(&self, _dpos: u64) -> bool {
        false
    }
}

/// Notices not yet taken, oldest first, with the stream offset where their member ends.
/// Readers take them after every record, so the queue stays short; the cap only guards
/// against a reader that never asks.
#[derive(Default)]
pub(super) struct Notices {
    queue: VecDeque<(u64, InputProblem)>,
}

impl Notices {
    pub(super) fn push(&mut self, dend: u64, problem: InputProblem) {
        if self.queue.len() == UNIT_RING {
            self.queue.pop_front();
        }
        self.queue.push_back((dend, problem));
    }

    pub(super) fn take(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
        while self.queue.front().is_some_and(|(dend, _)| *dend <= upto) {
            if let Some((_, p)) = self.queue.pop_front() {
                out.push(p);
            }
        }
    }
}

/// The decompressed stream the record readers consume.
pub(crate) type Stream = Buffered<Box<dyn Decoded>>;

impl Source for Box<dyn Decoded> {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        (**self).read_into(out)
    }
}

/// The notices of `s` up to stream offset `upto` (see [`Decoded::take_notices`]).
pub(crate) fn take_notices(s: &mut Stream, upto: u64, out: &mut Vec<InputProblem>) {
    s.source_mut().take_notices(upto, out);
}

/// One gzip member or zstd frame: where it lies in the file and in the stream.
#[derive(Debug, Clone, Copy)]
struct Unit {
    dstart: u64,
    dend: u64,
    cstart: u64,
    cend: u64,
}

/// The most recent members/frames, oldest dropped first.
#[derive(Default)]
pub(super) struct Units {
    ring: VecDeque<Unit>,
}

impl Units {
    pub(super) fn open(&mut self, dstart: u64, cstart: u64) {
        if self.ring.len() == UNIT_RING {
            self.ring.pop_front();
        }
        self.ring.push_back(Unit {
            dstart,
            dend: u64::MAX,
            cstart,
            cend: u64::MAX,
        });
    }

    pub(super) fn close(&mut self, dend: u64, cend: u64) {
        if let Some(u) = self.ring.back_mut() {
            u.dend = dend;
            u.cend = cend;
        }
    }

    pub(super) fn starts_at(&self, dpos: u64) -> bool {
        self.ring
            .iter()
            .rev()
            .take_while(|u| u.dend > dpos)
            .any(|u| u.dstart == dpos)
    }

    /// The file offset of the member / frame whose data holds stream offset `dpos`.
    pub(super) fn holding(&self, dpos: u64) -> Option<u64> {
        self.ring
            .iter()
            .rev()
            .find(|u| u.dstart <= dpos && dpos < u.dend)
            .map(|u| u.cstart)
    }

    pub(super) fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)> {
        // Empty members share their offset with a neighbour; the record lives in the
        // non-empty one (unique). Searched newest first: the record was just read, and
        // a scan from the oldest of 4,096 units cost ~10% of a Common Crawl run.
        let first = self
            .ring
            .iter()
            .rev()
            .find(|u| u.dstart == dstart && u.dend > dstart)?;
        let len = self
            .ring
            .iter()
            .rev()
            .find(|u| u.dend == dend && u.dend > u.dstart && u.cend != u64::MAX)
            .map_or(0, |u| u.cend.saturating_sub(first.cstart));
        Some((first.cstart, len))
    }
}

/// Opens the raw stream, sniffs the compression and returns the decompressed stream.
pub(crate) fn open_stream(
    reader: Box<dyn Read + Send>,
    name_hint: &str,
    zstd_window_log_max: u32,
) -> Result<Stream, InputProblem> {
    let mut raw = Buffered::new(ReadSource::new(reader));
    let head = raw.fill(detect::MAGIC_LEN);
    let mut compression = detect::compression(head, name_hint);
    if compression == Compression::None {
        let probe = raw.fill(DAMAGED_START_PROBE);
        compression = detect::damaged_start(probe, name_hint).unwrap_or(Compression::None);
    } else {
        let probe = raw.fill(DAMAGED_START_PROBE);
        compression = if detect::plain_behind_magic(compression, probe, name_hint) {
            Compression::None
        } else {
            detect::contradicted_start(compression, probe, name_hint).unwrap_or(compression)
        };
    }
    if raw.avail().is_empty() {
        if let Some(p) = raw.take_break() {
            return Err(p);
        }
    }
    let decoded: Box<dyn Decoded> = match compression {
        Compression::None => Box::new(PlainSource { inner: raw }),
        Compression::Gzip => Box::new(GzipSource::new(raw)),
        Compression::Zstd => Box::new(ZstdSource::new(raw, zstd_window_log_max)?),
        Compression::Unsupported(name) => {
            return Err(
                InputError::Unsupported(format!("{name} compression is not supported")).at(0),
            )
        }
    };
    Ok(Buffered::new(decoded))
}

/// Uncompressed input.
struct PlainSource {
    inner: Buffered<ReadSource>,
}

impl Source for PlainSource {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        let avail = self.inner.fill(1);
        if avail.is_empty() {
            return self.inner.take_break().map_or(Ok(0), Err);
        }
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.inner.consume(n);
        Ok(n)
    }
}

impl Decoded for PlainSource {
    fn compressed_pos(&self) -> u64 {
        self.inner.pos()
    }
    fn span(&self, _: u64, _: u64) -> Option<(u64, u64)> {
        None
    }
    fn is_plain(&self) -> bool {
        true
    }
    fn file_offset(&self, dpos: u64) -> u64 {
        dpos
    }
}

/// The first offset at or after `from` in `b` where `magic` starts and `plausible`
/// accepts the bytes from there.
pub(super) fn find_magic(
    b: &[u8],
    from: usize,
    magic: &[u8],
    plausible: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let tail = b.get(from..)?;
    memchr::memmem::find_iter(tail, magic)
        .map(|k| from + k)
        .find(|&k| plausible(b.get(k..).unwrap_or_default()))
}

/// After a corrupt member / frame that started at the mark `start`: if the bytes read
/// since hold the start of a later one, goes back there and returns true.
pub(super) fn rewind_to_magic(
    inb: &mut Buffered<ReadSource>,
    start: u64,
    magic: &[u8],
    plausible: impl Fn(&[u8]) -> bool,
) -> bool {
    // A magic may straddle the current position: make its end visible.
    inb.fill(magic.len());
    let Some((mark, bytes)) = inb.held_from_mark() else {
        return false;
    };
    if mark != start {
        return false;
    }
    // A magic that starts before the current position (it may end after it).
    let read = usize::try_from(inb.pos().saturating_sub(mark)).unwrap_or(0);
    match find_magic(bytes, 1, magic, plausible) {
        Some(k) if k < read => inb.rewind_to(mark + k as u64),
        _ => false,
    }
}

/// Consumes bytes up to the next occurrence of `magic` (or to the end); returns how many.
pub(super) fn resync_at(inb: &mut Buffered<ReadSource>, magic: &[u8]) -> u64 {
    let mut skipped = 0u64;
    loop {
        let avail = inb.fill(magic.len());
        if avail.len() < magic.len() {
            let n = avail.len();
            inb.consume(n);
            return skipped + n as u64;
        }
        match memchr::memmem::find(avail, magic) {
            Some(k) => {
                inb.consume(k);
                return skipped + k as u64;
            }
            None => {
                // Keep the tail: the magic may straddle the refill.
                let k = avail.len() + 1 - magic.len();
                inb.consume(k);
                skipped += k as u64;
            }
        }
    }
}
