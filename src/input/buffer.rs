//! Buffering under every reader: a byte [`Source`] and a refillable window over it.
//!
//! [`Buffered`] is `BufReader` plus two things the readers need: a guaranteed minimum of
//! contiguous bytes (a whole header block, capped by [`BUF_MAX`]) and *breaks*: when a
//! source reports a problem (a corrupt gzip member, an I/O error), the window ends there
//! until the reader has consumed every byte before it and acknowledged the problem with
//! [`Buffered::take_break`], so bytes from both sides of a break are never mixed.
//! A decompressor can also *mark* where a member starts: the bytes from the mark stay in
//! the buffer after they are consumed (up to [`MARK_MAX`]), so when the member turns out
//! corrupt after its decoder ran on into the following members, reading can go back to
//! the next member start among them ([`Buffered::rewind_to`]) instead of losing them.

use std::io::Read;

use super::error::InputError;
use super::InputProblem;
use crate::limits::{BUF_MAX, BUF_SIZE, MARK_MAX};

/// A producer of bytes; `Err` is a break (reported once, reading may go on after it).
pub(crate) trait Source: Send {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem>;
}

/// Any `Read` as a [`Source`]; an I/O error is reported once, then the source is at end.
pub(crate) struct ReadSource {
    reader: Box<dyn Read + Send>,
    pos: u64,
    dead: bool,
}

impl ReadSource {
    pub(crate) fn new(reader: Box<dyn Read + Send>) -> Self {
        Self {
            reader,
            pos: 0,
            dead: false,
        }
    }
}

impl Source for ReadSource {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        if self.dead {
            return Ok(0);
        }
        loop {
            match self.reader.read(out) {
                Ok(n) => {
                    let n = n.min(out.len());
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // A failing disk or a network file system: report once, stop reading.
                    self.dead = true;
                    return Err(InputError::Unreadable(e.to_string()).at(self.pos));
                }
            }
        }
    }
}

/// A refillable window over a [`Source`], like `BufReader` but able to guarantee a
/// minimum of contiguous bytes (a header block) and to hold a break until acknowledged.
pub(crate) struct Buffered<S> {
    src: S,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Stream offset of `buf[start]`.
    pos: u64,
    eof: bool,
    brk: Option<InputProblem>,
    /// Stream offset from which consumed bytes are kept, see [`Buffered::set_mark`].
    mark: Option<u64>,
}

impl<S: Source> Buffered<S> {
    pub(crate) fn new(src: S) -> Self {
        Self {
            src,
            buf: Vec::new(),
            start: 0,
            end: 0,
            pos: 0,
            eof: false,
            brk: None,
            mark: None,
        }
    }

    /// Keeps the bytes from the current position on, even once consumed, until the next
    /// mark or until more than [`MARK_MAX`] of them are consumed.
    pub(crate) fn set_mark(&mut self) {
        self.mark = Some(self.pos);
    }

    /// The mark's stream offset and the bytes held from it (consumed ones first), while
    /// the mark holds.
    pub(crate) fn held_from_mark(&self) -> Option<(u64, &[u8])> {
        let m = self.mark?;
        let back = usize::try_from(self.pos.checked_sub(m)?).ok()?;
        let from = self.start.checked_sub(back)?;
        Some((m, self.buf.get(from..self.end)?))
    }

    /// Goes back to stream offset `p`, between the mark and the current position; false
    /// (and nothing changes) when the bytes there are no longer held.
    pub(crate) fn rewind_to(&mut self, p: u64) -> bool {
        let Some(m) = self.mark else {
            return false;
        };
        if p < m || p > self.pos {
            return false;
        }
        let Ok(back) = usize::try_from(self.pos - p) else {
            return false;
        };
        let Some(start) = self.start.checked_sub(back) else {
            return false;
        };
        self.start = start;
        self.pos = p;
        true
    }

    /// Consumed bytes the mark still holds (dropping a mark that fell too far behind).
    fn held(&mut self) -> usize {
        let Some(m) = self.mark else {
            return 0;
        };
        match usize::try_from(self.pos.saturating_sub(m)) {
            Ok(back) if back <= MARK_MAX && back <= self.start => back,
            _ => {
                self.mark = None;
                0
            }
        }
    }

    /// Makes at least `want` bytes available (capped at [`BUF_MAX`]) unless the source
    /// ends or breaks first; returns what is available.
    pub(crate) fn fill(&mut self, want: usize) -> &[u8] {
        let want = want.min(BUF_MAX);
        while self.end - self.start < want && !self.eof && self.brk.is_none() {
            if self.end == self.buf.len() || self.buf.len() - self.start < want {
                let from = self.start - self.held();
                self.buf.copy_within(from..self.end, 0);
                self.end -= from;
                self.start -= from;
                let need = self.start + want.max(BUF_SIZE);
                if self.buf.len() < need {
                    self.buf.resize(need, 0);
                }
            }
            match self.src.read_into(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end = (self.end + n).min(self.buf.len()),
                Err(p) => self.brk = Some(p),
            }
        }
        &self.buf[self.start..self.end]
    }

    /// The bytes available without reading.
    pub(crate) fn avail(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.pos += n as u64;
    }

    /// Stream offset of the next unconsumed byte.
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// True when no byte is left and the source ended (not a break).
    pub(crate) fn at_eof(&self) -> bool {
        self.start == self.end && self.eof && self.brk.is_none()
    }

    /// The pending break, once every byte before it was consumed; reading resumes after.
    pub(crate) fn take_break(&mut self) -> Option<InputProblem> {
        if self.start == self.end {
            self.brk.take()
        } else {
            None
        }
    }

    pub(crate) fn source(&self) -> &S {
        &self.src
    }

    pub(crate) fn source_mut(&mut self) -> &mut S {
        &mut self.src
    }
}
