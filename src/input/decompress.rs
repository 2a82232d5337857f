//! Decompression: raw file bytes in, one decompressed byte stream out.
//!
//! Three sources behind one [`Decoded`] trait: plain bytes, a multi-member gzip stream
//! and a sequence of zstd frames. Both compressed sources remember where each member /
//! frame starts and ends in the file and in the decompressed stream, so the WARC reader
//! can tell the pipeline which file bytes re-fetch a record.
//!
//! A corrupt member or frame is a *break*: `read_into` returns `Err(problem)` once, after
//! the source has resynchronised at the next member/frame magic; the next call goes on
//! with the data after it. [`Buffered`] turns the break into a temporary end of data that
//! the record reader acknowledges with [`Buffered::take_break`], so the bytes before the
//! break are never mixed with the bytes after it. The gzip and zstd sources are one type,
//! `framed::Framed`, over their decoders in `gzip_members.rs` and `zstd_frames.rs`.

use std::io::Read;

use super::detect::{self, Compression};
use super::error::InputError;
use super::gzip_members::{Gzip, GzipSource};
use super::zstd_frames::{Zstd, ZstdSource};
use super::InputProblem;
use crate::limits::DAMAGED_START_PROBE;

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
    /// The problem `e` found at stream offset `dpos`, located in the file: at
    /// [`Decoded::file_offset`], with `dpos` kept as its stream offset when the input is
    /// compressed (in a plain input the file offset is that byte).
    fn problem_at(&self, e: InputError, dpos: u64) -> InputProblem {
        let p = e.at(self.file_offset(dpos));
        if self.is_plain() {
            p
        } else {
            p.in_stream(dpos)
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
        Compression::Gzip => Box::new(GzipSource::new(raw, Gzip::new())),
        Compression::Zstd => Box::new(ZstdSource::new(raw, Zstd::new(zstd_window_log_max)?)),
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
