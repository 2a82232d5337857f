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
//! break are never mixed with the bytes after it.

use std::collections::VecDeque;
use std::io::Read;

use flate2::{Crc, Decompress, FlushDecompress, Status};
use zstd::stream::raw::{DParameter, InBuffer, Operation, OutBuffer};

use super::detect::{self, Compression};
use super::error::InputError;
use super::InputProblem;
use crate::limits::{MAX_ZSTD_DICT_BYTES, ZSTD_WINDOW_LOG_MAX};

pub(crate) use super::buffer::{Buffered, ReadSource, Source};

/// Longest gzip header (FEXTRA + FNAME + FCOMMENT) accepted before the member is corrupt.
const GZIP_HEADER_MAX: usize = 64 * 1024;
/// Members/frames remembered for offset look-ups: enough for a full read-ahead of tiny
/// members, small enough to stay bounded.
const UNIT_RING: usize = 4096;

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
struct Notices {
    queue: VecDeque<(u64, InputProblem)>,
}

impl Notices {
    fn push(&mut self, dend: u64, problem: InputProblem) {
        if self.queue.len() == UNIT_RING {
            self.queue.pop_front();
        }
        self.queue.push_back((dend, problem));
    }

    fn take(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
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
struct Units {
    ring: VecDeque<Unit>,
}

impl Units {
    fn open(&mut self, dstart: u64, cstart: u64) {
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

    fn close(&mut self, dend: u64, cend: u64) {
        if let Some(u) = self.ring.back_mut() {
            u.dend = dend;
            u.cend = cend;
        }
    }

    fn starts_at(&self, dpos: u64) -> bool {
        self.ring
            .iter()
            .rev()
            .take_while(|u| u.dend > dpos)
            .any(|u| u.dstart == dpos)
    }

    fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)> {
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
) -> Result<Stream, InputProblem> {
    let mut raw = Buffered::new(ReadSource::new(reader));
    let head = raw.fill(detect::MAGIC_LEN);
    let mut compression = detect::compression(head, name_hint);
    if compression == Compression::None {
        let probe = raw.fill(detect::DAMAGED_START_PROBE);
        compression = detect::damaged_start(probe, name_hint).unwrap_or(Compression::None);
    }
    if raw.avail().is_empty() {
        if let Some(p) = raw.take_break() {
            return Err(p);
        }
    }
    let decoded: Box<dyn Decoded> = match compression {
        Compression::None => Box::new(PlainSource { inner: raw }),
        Compression::Gzip => Box::new(GzipSource::new(raw)),
        Compression::Zstd => Box::new(ZstdSource::new(raw)?),
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
}

/// Result of parsing a gzip member header from the bytes at hand.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum GzipHeader {
    /// The header is this many bytes long.
    Complete(usize),
    /// More bytes are needed to decide.
    NeedMore,
    /// Not a gzip header.
    Bad(&'static str),
}

/// Parses an RFC 1952 member header (magic, CM=8, flags, MTIME, XFL, OS, then FEXTRA,
/// FNAME, FCOMMENT, FHCRC when flagged). Never reads past `b`.
pub(crate) fn parse_gzip_header(b: &[u8]) -> GzipHeader {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    for (i, want) in [0x1f_u8, 0x8b, 8].iter().enumerate() {
        match b.get(i) {
            None => return GzipHeader::NeedMore,
            Some(x) if x != want => {
                return GzipHeader::Bad(if i < 2 {
                    "no gzip magic"
                } else {
                    "not deflate"
                })
            }
            Some(_) => {}
        }
    }
    let Some(&flags) = b.get(3) else {
        return GzipHeader::NeedMore;
    };
    if flags & 0xe0 != 0 {
        return GzipHeader::Bad("reserved header flags set");
    }
    let mut i = 10;
    if flags & FEXTRA != 0 {
        let (Some(&lo), Some(&hi)) = (b.get(i), b.get(i + 1)) else {
            return GzipHeader::NeedMore;
        };
        i += 2 + usize::from(u16::from_le_bytes([lo, hi]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match b.get(i..).and_then(|rest| memchr::memchr(0, rest)) {
                Some(nul) => i += nul + 1,
                None => return GzipHeader::NeedMore,
            }
        }
    }
    if flags & FHCRC != 0 {
        i += 2;
    }
    if b.len() < i {
        GzipHeader::NeedMore
    } else {
        GzipHeader::Complete(i)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GzState {
    Header,
    Body,
    Trailer,
    Done,
}

/// A stream of gzip members, decoded with one reused raw-deflate `Decompress`.
struct GzipSource {
    inb: Buffered<ReadSource>,
    dec: Decompress,
    crc: Crc,
    state: GzState,
    units: Units,
    /// Decompressed bytes produced so far (the stream offset of the next byte).
    out_pos: u64,
    member_cstart: u64,
    member_out: u64,
    notices: Notices,
    /// A problem met after data that was returned first.
    pending: Option<InputProblem>,
}

impl GzipSource {
    fn new(inb: Buffered<ReadSource>) -> Self {
        Self {
            inb,
            dec: Decompress::new(false),
            crc: Crc::new(),
            state: GzState::Header,
            units: Units::default(),
            out_pos: 0,
            member_cstart: 0,
            member_out: 0,
            notices: Notices::default(),
            pending: None,
        }
    }

    /// Skips to the next `1f 8b 08` (or the end); returns the bytes skipped.
    fn resync(&mut self) -> u64 {
        resync_at(&mut self.inb, &GZIP_MAGIC)
    }

    /// The file ended (or failed) where a member header could start.
    fn end_of_input(&mut self) -> Result<usize, InputProblem> {
        self.state = GzState::Done;
        self.inb.take_break().map_or(Ok(0), Err)
    }

    /// The file ended inside the current member.
    fn truncated(&mut self) -> Result<usize, InputProblem> {
        self.units.close(self.out_pos, self.inb.pos());
        self.state = GzState::Done;
        let p = self.inb.take_break();
        Err(p.unwrap_or_else(|| InputError::GzipTruncatedMember.at(self.member_cstart)))
    }

    /// The current member is corrupt: goes on at the next member. Its decoder may have
    /// read past the member's end into the next ones before failing, so the next member
    /// magic is looked for first among the bytes read since the member started.
    fn corrupt(&mut self, why: String) -> Result<usize, InputProblem> {
        self.units.close(self.out_pos, self.inb.pos());
        let from = self.member_cstart;
        if !rewind_to_magic(&mut self.inb, from, &GZIP_MAGIC, |b| {
            !matches!(parse_gzip_header(b), GzipHeader::Bad(_))
        }) {
            self.resync();
        }
        self.state = GzState::Header;
        let to = self.inb.pos();
        let msg = format!(
            "{why}; skipped file bytes {from}..{to} ({} bytes) to the next member",
            to - from
        );
        Err(InputError::GzipCorruptMember(msg).at(from))
    }

    /// A decode error after `produced` bytes were written: they are returned now and the
    /// problem on the next call, so the data before the damage is not dropped.
    fn corrupt_after(&mut self, produced: usize, why: String) -> Result<usize, InputProblem> {
        let err = self.corrupt(why);
        if produced == 0 {
            return err;
        }
        self.pending = err.err();
        Ok(produced)
    }

    fn read_header(&mut self) -> Result<usize, InputProblem> {
        let mut want = 10;
        // Held from here: a header that swallows the next member can be gone back over.
        self.inb.set_mark();
        loop {
            let head = self.inb.fill(want);
            if head.is_empty() {
                return self.end_of_input();
            }
            let have = head.len();
            let parsed = parse_gzip_header(head);
            if matches!(parsed, GzipHeader::NeedMore) && (have < want || have >= GZIP_HEADER_MAX) {
                // A header cut short by the end or too long: a later member may start
                // inside it (the rest of this one was lost).
                let later = find_magic(head, 1, &GZIP_MAGIC, |b| {
                    !matches!(parse_gzip_header(b), GzipHeader::Bad(_))
                });
                if let Some(k) = later {
                    let at = self.inb.pos();
                    self.inb.consume(k);
                    let msg = format!(
                        "header cut short by another member at file byte {}",
                        at + k as u64
                    );
                    return Err(InputError::GzipCorruptMember(msg).at(at));
                }
            }
            match parsed {
                GzipHeader::Complete(len) => {
                    self.member_cstart = self.inb.pos();
                    self.units.open(self.out_pos, self.member_cstart);
                    self.inb.consume(len);
                    self.dec.reset(false);
                    self.crc.reset();
                    self.member_out = 0;
                    self.state = GzState::Body;
                    return Ok(0);
                }
                GzipHeader::NeedMore if have < want => {
                    self.member_cstart = self.inb.pos();
                    return self.truncated();
                }
                GzipHeader::NeedMore if have >= GZIP_HEADER_MAX => {
                    self.member_cstart = self.inb.pos();
                    self.inb.consume(1);
                    return self.corrupt("gzip header too long".to_owned());
                }
                GzipHeader::NeedMore => want = (have + 1024).min(GZIP_HEADER_MAX),
                GzipHeader::Bad(why) => {
                    let at = self.inb.pos();
                    // Step over the bad byte so the scan cannot find the same spot again.
                    self.inb.consume(1);
                    let skipped = 1 + self.resync();
                    let e = if why == "no gzip magic" {
                        InputError::GzipJunk(skipped)
                    } else {
                        InputError::GzipCorruptMember(format!("{why}; skipped {skipped} bytes"))
                    };
                    return Err(e.at(at));
                }
            }
        }
    }

    fn read_body(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        let avail = self.inb.fill(1);
        if avail.is_empty() {
            return self.truncated();
        }
        let (in0, out0) = (self.dec.total_in(), self.dec.total_out());
        let res = self.dec.decompress(avail, out, FlushDecompress::None);
        let used = (self.dec.total_in() - in0) as usize;
        let produced = ((self.dec.total_out() - out0) as usize).min(out.len());
        self.inb.consume(used);
        self.crc.update(&out[..produced]);
        self.out_pos += produced as u64;
        self.member_out += produced as u64;
        match res {
            Ok(Status::StreamEnd) => self.state = GzState::Trailer,
            Ok(_) if used == 0 && produced == 0 => {
                return self.corrupt("deflate stream makes no progress".to_owned())
            }
            Ok(_) => {}
            Err(e) => return self.corrupt_after(produced, e.to_string()),
        }
        Ok(produced)
    }

    fn read_trailer(&mut self) -> Result<usize, InputProblem> {
        let t = self.inb.fill(8);
        let (Some(crc), Some(size)) = (t.get(0..4), t.get(4..8)) else {
            return self.truncated();
        };
        let computed = self.crc.sum();
        let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        // ISIZE is the size modulo 2^32.
        let size_ok = size == (self.member_out as u32).to_le_bytes();
        let bad = stored != computed || !size_ok;
        if bad {
            // Also a member whose trailer was cut: the next one starts inside these 8.
            if let Some(next) = self.next_member_read(8) {
                // The deflate data ended only inside a later member, which was read as
                // this one's data: go back to it. What this member decoded to was already
                // returned, so the data goes on without a gap: a notice for the record
                // holding this member's end, not a break.
                self.units.close(self.out_pos, next);
                let msg = format!(
                    "member at file byte {}: cut short before the next member at file byte \
                     {next} (its deflate data or trailer ran into it; that member is read from \
                     its start)",
                    self.member_cstart
                );
                let p = InputError::GzipCorruptMember(msg).at(self.member_cstart);
                self.notices.push(self.out_pos, p);
                let pos = self.inb.pos();
                if next >= pos {
                    self.inb.consume(usize::try_from(next - pos).unwrap_or(0));
                } else {
                    self.inb.rewind_to(next);
                }
                self.state = GzState::Header;
                return Ok(0);
            }
        }
        self.inb.consume(8);
        self.units.close(self.out_pos, self.inb.pos());
        self.state = GzState::Header;
        if bad {
            // The deflate stream itself ended cleanly, so the data is whole and is kept:
            // a notice for the record it belongs to, not a break that would count that
            // record twice (once as a document, once as a problem).
            let msg = format!(
                "member at file byte {} ({} bytes decoded): stored CRC32 {stored:08x}, \
                 computed {computed:08x}, size {}",
                self.member_cstart,
                self.member_out,
                if size_ok { "ok" } else { "wrong" }
            );
            let p = InputError::GzipCrcMismatch(msg).at(self.member_cstart);
            self.notices.push(self.out_pos, p);
        }
        Ok(0)
    }
}

impl GzipSource {
    /// The file offset of a later member that starts among the current member's
    /// compressed bytes (header to trailer) or the `ahead` bytes after them.
    fn next_member_read(&mut self, ahead: usize) -> Option<u64> {
        self.inb.fill(ahead + GZIP_MAGIC.len());
        let (mark, bytes) = self.inb.since_mark()?;
        let read = usize::try_from(self.inb.pos().saturating_sub(mark)).unwrap_or(0);
        if mark != self.member_cstart {
            return None;
        }
        find_magic(bytes, 1, &GZIP_MAGIC, |b| {
            !matches!(parse_gzip_header(b), GzipHeader::Bad(_))
        })
        .filter(|&k| k < read + ahead)
        .map(|k| mark + k as u64)
    }
}

impl Source for GzipSource {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        if out.is_empty() {
            return Ok(0);
        }
        if let Some(p) = self.pending.take() {
            return Err(p);
        }
        loop {
            let n = match self.state {
                GzState::Done => return Ok(0),
                GzState::Header => self.read_header()?,
                GzState::Body => self.read_body(out)?,
                GzState::Trailer => self.read_trailer()?,
            };
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

impl Decoded for GzipSource {
    fn compressed_pos(&self) -> u64 {
        self.inb.pos()
    }
    fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)> {
        self.units.span(dstart, dend)
    }
    fn is_plain(&self) -> bool {
        false
    }
    fn take_notices(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
        self.notices.take(upto, out);
    }
    fn starts_unit(&self, dpos: u64) -> bool {
        self.units.starts_at(dpos)
    }
}

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The first offset at or after `from` in `b` where `magic` starts and `plausible`
/// accepts the bytes from there.
fn find_magic(
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
fn rewind_to_magic(
    inb: &mut Buffered<ReadSource>,
    start: u64,
    magic: &[u8],
    plausible: impl Fn(&[u8]) -> bool,
) -> bool {
    // A magic may straddle the current position: make its end visible.
    inb.fill(magic.len());
    let Some((mark, bytes)) = inb.since_mark() else {
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
fn resync_at(inb: &mut Buffered<ReadSource>, magic: &[u8]) -> u64 {
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

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const ZSTD_DICT_FRAME: u32 = 0x184D_2A5D;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZState {
    FrameStart,
    Frame,
    Done,
}

/// A sequence of zstd frames (one per record in `.warc.zst`), with the optional
/// dictionary skippable frame loaded into the decoder.
struct ZstdSource {
    inb: Buffered<ReadSource>,
    dec: zstd::stream::raw::Decoder<'static>,
    state: ZState,
    units: Units,
    out_pos: u64,
    frame_cstart: u64,
    dict: Vec<u8>,
    /// A problem met after data that was returned first.
    pending: Option<InputProblem>,
}

fn zstd_decoder(dict: &[u8]) -> std::io::Result<zstd::stream::raw::Decoder<'static>> {
    let mut dec = zstd::stream::raw::Decoder::with_dictionary(dict)?;
    dec.set_parameter(DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))?;
    Ok(dec)
}

impl ZstdSource {
    fn new(inb: Buffered<ReadSource>) -> Result<Self, InputProblem> {
        let dec = zstd_decoder(&[])
            .map_err(|e| InputError::ZstdCorruptFrame(format!("decoder setup: {e}")).at(0))?;
        Ok(Self {
            inb,
            dec,
            state: ZState::FrameStart,
            units: Units::default(),
            out_pos: 0,
            frame_cstart: 0,
            dict: Vec::new(),
            pending: None,
        })
    }

    fn end_of_input(&mut self) -> Result<usize, InputProblem> {
        self.state = ZState::Done;
        self.inb.take_break().map_or(Ok(0), Err)
    }

    fn truncated(&mut self) -> Result<usize, InputProblem> {
        self.units.close(self.out_pos, self.inb.pos());
        self.state = ZState::Done;
        let p = self.inb.take_break();
        Err(p.unwrap_or_else(|| InputError::ZstdTruncatedFrame.at(self.frame_cstart)))
    }

    /// The frame at `at` is corrupt: goes on at the next frame, looked for first among
    /// the bytes its decoder read (it may have run into the following frames).
    fn corrupt(&mut self, why: String, at: u64) -> Result<usize, InputProblem> {
        self.units.close(self.out_pos, self.inb.pos());
        // Session reset keeps the dictionary and the window cap.
        let _ = self.dec.reinit();
        if !rewind_to_magic(&mut self.inb, at, &ZSTD_MAGIC, |_| true) {
            if self.inb.pos() == at {
                // Nothing consumed: step over the magic or the scan finds this frame again.
                self.inb.consume(1);
            }
            resync_at(&mut self.inb, &ZSTD_MAGIC);
        }
        self.state = ZState::FrameStart;
        let to = self.inb.pos();
        let msg = format!(
            "{why}; skipped file bytes {at}..{to} ({} bytes) to the next frame",
            to - at
        );
        Err(InputError::ZstdCorruptFrame(msg).at(at))
    }

    fn frame_start(&mut self) -> Result<usize, InputProblem> {
        let at = self.inb.pos();
        let head = self.inb.fill(8);
        if head.is_empty() {
            return self.end_of_input();
        }
        let magic = head
            .get(0..4)
            .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
        let size = head
            .get(4..8)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        match (magic, size) {
            (Some(0xFD2F_B528), _) => {
                self.frame_cstart = at;
                self.inb.set_mark();
                self.units.open(self.out_pos, at);
                self.state = ZState::Frame;
                Ok(0)
            }
            (Some(m), Some(size)) if m & 0xFFFF_FFF0 == 0x184D_2A50 => {
                self.inb.consume(8);
                self.skippable(m, u64::from(size), at)
            }
            (Some(m), None) if m & 0xFFFF_FFF0 == 0x184D_2A50 => {
                self.frame_cstart = at;
                self.truncated()
            }
            (None, _) => {
                self.frame_cstart = at;
                self.truncated()
            }
            _ => {
                self.inb.consume(1);
                self.corrupt("no zstd frame magic".to_owned(), at)
            }
        }
    }

    /// Reads a skippable frame's content: the dictionary frame is loaded, others skipped.
    fn skippable(&mut self, magic: u32, size: u64, at: u64) -> Result<usize, InputProblem> {
        let is_dict = magic == ZSTD_DICT_FRAME;
        self.dict.clear();
        let mut left = size;
        while left > 0 {
            let avail = self.inb.fill(1);
            if avail.is_empty() {
                self.frame_cstart = at;
                return self.truncated();
            }
            let n = avail.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            if is_dict && self.dict.len() + n <= MAX_ZSTD_DICT_BYTES {
                self.dict.extend_from_slice(&avail[..n]);
            }
            self.inb.consume(n);
            left -= n as u64;
        }
        if !is_dict {
            return Ok(0);
        }
        let result = self.load_dictionary(size);
        self.dict = Vec::new();
        match result {
            Ok(()) => Ok(0),
            Err(why) => Err(InputError::ZstdDictionary(why).at(at)),
        }
    }

    fn load_dictionary(&mut self, size: u64) -> Result<(), String> {
        if size > MAX_ZSTD_DICT_BYTES as u64 {
            return Err(format!(
                "{size} bytes, over the {MAX_ZSTD_DICT_BYTES} byte cap"
            ));
        }
        // The WARC-zstd spec allows the dictionary itself to be zstd-compressed.
        let dict = if self.dict.starts_with(&ZSTD_MAGIC) {
            zstd::bulk::decompress(&self.dict, MAX_ZSTD_DICT_BYTES)
                .map_err(|e| format!("compressed dictionary does not decode: {e}"))?
        } else {
            std::mem::take(&mut self.dict)
        };
        self.dec = zstd_decoder(&dict).map_err(|e| format!("dictionary rejected: {e}"))?;
        Ok(())
    }

    fn frame(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        let avail = self.inb.fill(1);
        if avail.is_empty() {
            return self.truncated();
        }
        let mut input = InBuffer::around(avail);
        let mut output = OutBuffer::around(out);
        let res = self.dec.run(&mut input, &mut output);
        let (used, produced) = (input.pos(), output.pos());
        self.inb.consume(used);
        self.out_pos += produced as u64;
        match res {
            Ok(0) => {
                self.units.close(self.out_pos, self.inb.pos());
                self.state = ZState::FrameStart;
            }
            Ok(_) if used == 0 && produced == 0 => {
                return self.corrupt("frame makes no progress".to_owned(), self.frame_cstart)
            }
            Ok(_) => {}
            Err(e) => {
                let err = self.corrupt(e.to_string(), self.frame_cstart);
                if produced == 0 {
                    return err;
                }
                // Return the bytes decoded before the damage now, the problem next.
                self.pending = err.err();
            }
        }
        Ok(produced)
    }
}

impl Source for ZstdSource {
    fn read_into(&mut self, out: &mut [u8]) -> Result<usize, InputProblem> {
        if out.is_empty() {
            return Ok(0);
        }
        if let Some(p) = self.pending.take() {
            return Err(p);
        }
        loop {
            let n = match self.state {
                ZState::Done => return Ok(0),
                ZState::FrameStart => self.frame_start()?,
                ZState::Frame => self.frame(out)?,
            };
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

impl Decoded for ZstdSource {
    fn compressed_pos(&self) -> u64 {
        self.inb.pos()
    }
    fn span(&self, dstart: u64, dend: u64) -> Option<(u64, u64)> {
        self.units.span(dstart, dend)
    }
    fn is_plain(&self) -> bool {
        false
    }
    fn starts_unit(&self, dpos: u64) -> bool {
        self.units.starts_at(dpos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_header_with_all_optional_fields() {
        // FEXTRA (2 bytes "sl"+len), FNAME, FCOMMENT, FHCRC.
        let mut h = vec![0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3];
        h.extend_from_slice(&[6, 0, b's', b'l', 2, 0, 1, 2]);
        h.extend_from_slice(b"name\0comment\0");
        h.extend_from_slice(&[0xaa, 0xbb]);
        assert_eq!(parse_gzip_header(&h), GzipHeader::Complete(h.len()));
        for cut in 0..h.len() {
            assert_eq!(
                parse_gzip_header(&h[..cut]),
                GzipHeader::NeedMore,
                "cut {cut}"
            );
        }
        assert_eq!(
            parse_gzip_header(&[0x1f, 0x8c]),
            GzipHeader::Bad("no gzip magic")
        );
        assert_eq!(
            parse_gzip_header(&[0x1f, 0x8b, 7]),
            GzipHeader::Bad("not deflate")
        );
    }
}
