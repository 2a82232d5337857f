//! Framing shared by the gzip and zstd sources: compressed bytes in, the concatenated
//! data of their members / frames out.
//!
//! [`Framed<D>`] is one compressed source: a [`Framing`] decoder `D` (gzip members in
//! `gzip_members.rs`, zstd frames in `zstd_frames.rs`) stepped by one read loop over one
//! [`FrameIo`], which holds what both need: the buffered compressed bytes, the ring of
//! [`Units`] (where each member / frame lies in the file and in the stream, to re-fetch
//! records and to locate problems), the decoded position, the [`Notices`] of damage that
//! did not cut the data, and a problem held back behind data returned first. Damage is
//! recovered the same way for both: the corrupt unit is closed, and reading goes on at
//! the next magic, looked for first among the bytes its decoder already read (a
//! decoder can run on into the following units before it fails).

use std::collections::VecDeque;

use super::buffer::{Buffered, ReadSource, Source};
use super::decompress::Decoded;
use super::error::InputError;
use super::InputProblem;
use crate::limits::UNIT_RING;

/// One member / frame decoder: the part of a compressed source that knows its format.
pub(super) trait Framing: Send {
    /// One step of the decoder's state machine: the bytes of data written to `out`
    /// (0 after a step that only moved the state on). Sets `io.done` at the end.
    fn step(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem>;
}

/// The state the gzip and zstd decoders share, see the module docs.
pub(super) struct FrameIo {
    pub(super) inb: Buffered<ReadSource>,
    pub(super) units: Units,
    /// Decompressed bytes produced so far (the stream offset of the next byte).
    pub(super) out_pos: u64,
    /// File offset where the current member / frame starts.
    pub(super) unit_start: u64,
    /// Stream offset where its data starts.
    unit_out_start: u64,
    pub(super) notices: Notices,
    /// A problem met after data that was returned first.
    pending: Option<InputProblem>,
    /// Nothing more can be read.
    pub(super) done: bool,
}

impl FrameIo {
    fn new(inb: Buffered<ReadSource>) -> Self {
        Self {
            inb,
            units: Units::default(),
            out_pos: 0,
            unit_start: 0,
            unit_out_start: 0,
            notices: Notices::default(),
            pending: None,
            done: false,
        }
    }

    /// A member / frame starts at file offset `at`: remembered in the ring.
    pub(super) fn open_unit(&mut self, at: u64) {
        self.unit_start = at;
        self.unit_out_start = self.out_pos;
        self.units.open(self.out_pos, at);
    }

    /// The message of a decoding error `why` in the current `unit` ("member", "frame"):
    /// with the decoded position reached, up to which its data was returned.
    pub(super) fn decoding_stopped(&self, why: &str, unit: &str) -> String {
        format!(
            "{why} after {} bytes decoded from the {unit} (decompressed stream byte {})",
            self.out_pos - self.unit_out_start,
            self.out_pos
        )
    }

    /// The current member / frame ends here (its data and its file bytes).
    pub(super) fn close_unit(&mut self) {
        self.units.close(self.out_pos, self.inb.pos());
    }

    /// The file ended (or failed) where a member / frame could start.
    pub(super) fn end_of_input(&mut self) -> Result<usize, InputProblem> {
        self.done = true;
        self.inb.take_break().map_or(Ok(0), Err)
    }

    /// The file ended inside the current member / frame: `cut` at its start, unless the
    /// file itself failed (that problem is reported instead).
    pub(super) fn truncated(&mut self, cut: InputError) -> Result<usize, InputProblem> {
        self.close_unit();
        self.done = true;
        let p = self.inb.take_break();
        Err(p.unwrap_or_else(|| cut.at(self.unit_start)))
    }

    /// After a corrupt unit that started at file offset `from`: closes it and moves to
    /// the next unit, looked for first among the bytes read since `from` (the mark),
    /// then onwards. Returns the file offset reached.
    pub(super) fn skip_to_next(
        &mut self,
        from: u64,
        magic: &[u8],
        plausible: impl Fn(&[u8]) -> bool,
    ) -> u64 {
        self.close_unit();
        if !rewind_to_magic(&mut self.inb, from, magic, plausible) {
            if self.inb.pos() == from {
                // Nothing consumed: step over the magic or the scan finds this unit again.
                self.inb.consume(1);
            }
            resync_at(&mut self.inb, magic);
        }
        self.inb.pos()
    }

    /// A decoding error after `produced` bytes were written: they are returned now and
    /// the problem on the next call, so the data before the damage is not dropped.
    pub(super) fn hold(
        &mut self,
        produced: usize,
        err: Result<usize, InputProblem>,
    ) -> Result<usize, InputProblem> {
        if produced == 0 {
            return err;
        }
        self.pending = err.err();
        Ok(produced)
    }
}

/// A compressed source: the decoder `D` over the shared [`FrameIo`].
pub(crate) struct Framed<D> {
    io: FrameIo,
    dec: D,
}

impl<D: Framing> Framed<D> {
    pub(crate) fn new(inb: Buffered<ReadSource>, dec: D) -> Self {
        Self {
            io: FrameIo::new(inb),
            dec,
        }
    }
}

impl<D: Framing> Source for Framed<D> {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        if out.is_empty() {
            return Ok(0);
        }
        if let Some(p) = self.io.pending.take() {
            return Err(p);
        }
        while !self.io.done {
            let n = self.dec.step(&mut self.io, out)?;
            if n > 0 {
                return Ok(n);
            }
        }
        Ok(0)
    }
}

impl<D: Framing> Decoded for Framed<D> {
    fn compressed_pos(&self) -> u64 {
        self.io.inb.pos()
    }
    fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)> {
        self.io.units.span(dstart, dend)
    }
    fn is_plain(&self) -> bool {
        false
    }
    fn file_offset(&self, dpos: u64) -> u64 {
        self.io
            .units
            .holding(dpos)
            .unwrap_or_else(|| self.compressed_pos())
    }
    fn take_notices(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
        self.io.notices.take(upto, out);
    }
    fn starts_unit(&self, dpos: u64) -> bool {
        self.io.units.starts_at(dpos)
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
        // non-empty one (unique). Searched newest first: the record was just read, so
        // its unit is near the end, where a scan from the oldest would walk the whole
        // ring for every record.
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
