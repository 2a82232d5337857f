//! gzip members: the compressed file in, the concatenated member data out.
//!
//! A member whose deflate data lies within the buffered bytes and fits the output room is
//! decoded in one call by libdeflate (`whole_member.rs`: nearly every member of a Common
//! Crawl file; BENCHMARKS.md, "Decompression: libdeflate for whole members");
//! every other member, and any member that call refuses, is decoded from its start by
//! the streaming decoder, so damage is handled in one place. One reused raw-deflate
//! `Decompress` decodes member after member; the header is parsed
//! here (RFC 1952) so members with FEXTRA / FNAME / FCOMMENT / FHCRC, members not aligned
//! with records and junk between members are all handled, and every member's file span is
//! remembered for re-fetching records. Damage is recovered member by member: a corrupt
//! member is skipped to the next member magic, looked for first among the bytes its
//! decoder already read (a cut member's decoder runs on into the next one); a member that
//! decoded to its end but whose CRC32 / ISIZE trailer does not match is a notice, not a
//! break, so its record is kept once with a warning.

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::error::InputError;
use super::framed::{find_magic, resync_at, FrameIo, Framed, Framing};
use super::whole_member::WholeInflater;
use super::InputProblem;
use crate::limits::{GZIP_MEMBER_HEADER_MAX, WHOLE_MEMBER_IN, WHOLE_MEMBER_MIN_OUT};

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
}

/// gzip members, decoded with one reused raw-deflate `Decompress`: the [`Framing`] of
/// [`GzipSource`].
pub(crate) struct Gzip {
    dec: Decompress,
    /// The fast path for a member that fits the buffers (see `whole_member.rs`).
    whole: Option<WholeInflater>,
    /// The current member's deflate data is untouched: the fast path may still take it.
    fresh: bool,
    crc: Crc,
    state: GzState,
    member_out: u64,
}

/// A stream of gzip members.
pub(crate) type GzipSource = Framed<Gzip>;

impl Gzip {
    pub(crate) fn new() -> Self {
        Self {
            dec: Decompress::new(false),
            whole: WholeInflater::new(),
            fresh: false,
            crc: Crc::new(),
            state: GzState::Header,
            member_out: 0,
        }
    }

    /// The file ended inside the current member. Its decoder may have run on to the end
    /// through later members without failing (damage can leave deflate data, e.g. a
    /// stored block, that takes them as its own): then it is corrupt, and they are read.
    fn truncated(&mut self, io: &mut FrameIo) -> Result<usize, InputProblem> {
        if next_member_read(io, 0).is_some() {
            return self.corrupt(io, "deflate data ran on to the end of the file".to_owned());
        }
        io.truncated(InputError::GzipTruncatedMember)
    }

    /// The current member is corrupt: goes on at the next member. Its decoder may have
    /// read past the member's end into the next ones before failing, so the next member
    /// magic is looked for first among the bytes read since the member started.
    fn corrupt(&mut self, io: &mut FrameIo, why: String) -> Result<usize, InputProblem> {
        let from = io.unit_start;
        let to = io.skip_to_next(from, &GZIP_MAGIC, plausible_header);
        self.state = GzState::Header;
        let msg = format!(
            "{why}; skipped file bytes {from}..{to} ({} bytes) to the next member",
            to - from
        );
        Err(InputError::GzipCorruptMember(msg).at(from))
    }

    fn read_header(&mut self, io: &mut FrameIo) -> Result<usize, InputProblem> {
        let mut want = 10;
        // Held from here: a header that swallows the next member can be gone back over.
        io.inb.set_mark();
        loop {
            let head = io.inb.fill(want);
            if head.is_empty() {
                return io.end_of_input();
            }
            let have = head.len();
            let parsed = parse_gzip_header(head);
            if matches!(parsed, GzipHeader::NeedMore)
                && (have < want || have >= GZIP_MEMBER_HEADER_MAX)
            {
                // A header cut short by the end or too long: a later member may start
                // inside it (the rest of this one was lost).
                let later = find_magic(head, 1, &GZIP_MAGIC, plausible_header);
                if let Some(k) = later {
                    let at = io.inb.pos();
                    io.inb.consume(k);
                    let msg = format!(
                        "header cut short by another member at file byte {}",
                        at + k as u64
                    );
                    return Err(InputError::GzipCorruptMember(msg).at(at));
                }
            }
            match parsed {
                GzipHeader::Complete(len) => {
                    io.open_unit(io.inb.pos());
                    io.inb.consume(len);
                    self.dec.reset(false);
                    self.fresh = true;
                    self.crc.reset();
                    self.member_out = 0;
                    self.state = GzState::Body;
                    return Ok(0);
                }
                GzipHeader::NeedMore if have < want => {
                    io.unit_start = io.inb.pos();
                    return self.truncated(io);
                }
                GzipHeader::NeedMore if have >= GZIP_MEMBER_HEADER_MAX => {
                    io.unit_start = io.inb.pos();
                    io.inb.consume(1);
                    return self.corrupt(io, "gzip header too long".to_owned());
                }
                GzipHeader::NeedMore => want = (have + 1024).min(GZIP_MEMBER_HEADER_MAX),
                GzipHeader::Bad(why) => {
                    let at = io.inb.pos();
                    // Step over the bad byte so the scan cannot find the same spot again.
                    io.inb.consume(1);
                    let skipped = 1 + resync_at(&mut io.inb, &GZIP_MAGIC);
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

    fn read_body(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem> {
        if std::mem::take(&mut self.fresh) && out.len() >= WHOLE_MEMBER_MIN_OUT {
            if let Some(n) = self.read_whole(io, out) {
                return Ok(n);
            }
        }
        let avail = io.inb.fill(1);
        if avail.is_empty() {
            return self.truncated(io);
        }
        let (in0, out0) = (self.dec.total_in(), self.dec.total_out());
        let res = self.dec.decompress(avail, out, FlushDecompress::None);
        let used = (self.dec.total_in() - in0) as usize;
        let produced = ((self.dec.total_out() - out0) as usize).min(out.len());
        io.inb.consume(used);
        self.crc.update(&out[..produced]);
        io.out_pos += produced as u64;
        self.member_out += produced as u64;
        let reached = io.out_pos;
        match res {
            Ok(Status::StreamEnd) => self.state = GzState::Trailer,
            Ok(_) if used == 0 && produced == 0 => {
                let why = io.decoding_stopped("deflate stream makes no progress", "member");
                return self.corrupt(io, why).map_err(|p| p.in_stream(reached));
            }
            Ok(_) => {}
            Err(e) => {
                let why = io.decoding_stopped(&e.to_string(), "member");
                let err = self.corrupt(io, why).map_err(|p| p.in_stream(reached));
                return io.hold(produced, err);
            }
        }
        Ok(produced)
    }

    /// The member's whole deflate data in one call, when it lies within the next
    /// [`WHOLE_MEMBER_IN`] bytes and its output fits in `out`; None (nothing consumed,
    /// nothing counted) sends the member to the streaming decoder.
    fn read_whole(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Option<usize> {
        let whole = self.whole.as_mut()?;
        let (used, produced) = whole.inflate(io.inb.fill(WHOLE_MEMBER_IN), out)?;
        io.inb.consume(used);
        self.crc.update(&out[..produced]);
        io.out_pos += produced as u64;
        self.member_out += produced as u64;
        self.state = GzState::Trailer;
        Some(produced)
    }

    fn read_trailer(&mut self, io: &mut FrameIo) -> Result<usize, InputProblem> {
        let t = io.inb.fill(8);
        let (Some(crc), Some(size)) = (t.get(0..4), t.get(4..8)) else {
            return self.truncated(io);
        };
        let computed = self.crc.sum();
        let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        // ISIZE is the size modulo 2^32.
        let size_ok = size == (self.member_out as u32).to_le_bytes();
        let bad = stored != computed || !size_ok;
        if bad {
            // Also a member whose trailer was cut: the next one starts inside these 8.
            if let Some(next) = next_member_read(io, 8) {
                // The deflate data ended only inside a later member, which was read as
                // this one's data: go back to it. What this member decoded to was already
                // returned, so the data goes on without a gap: a notice for the record
                // holding this member's end, not a break.
                io.units.close(io.out_pos, next);
                let msg = format!(
                    "member at file byte {}: cut short before the next member at file byte \
                     {next} (its deflate data or trailer ran into it; that member is read from \
                     its start)",
                    io.unit_start
                );
                let p = InputError::GzipCorruptMember(msg).at(io.unit_start);
                io.notices.push(io.out_pos, p);
                let pos = io.inb.pos();
                if next >= pos {
                    io.inb.consume(usize::try_from(next - pos).unwrap_or(0));
                } else {
                    io.inb.rewind_to(next);
                }
                self.state = GzState::Header;
                return Ok(0);
            }
        }
        io.inb.consume(8);
        io.close_unit();
        self.state = GzState::Header;
        if bad {
            // The deflate stream itself ended cleanly, so the data is whole and is kept:
            // a notice for the record it belongs to, not a break that would count that
            // record twice (once as a document, once as a problem).
            let msg = format!(
                "member at file byte {} ({} bytes decoded): stored CRC32 {stored:08x}, \
                 computed {computed:08x}, size {}",
                io.unit_start,
                self.member_out,
                if size_ok { "ok" } else { "wrong" }
            );
            let p = InputError::GzipCrcMismatch(msg).at(io.unit_start);
            io.notices.push(io.out_pos, p);
        }
        Ok(0)
    }
}

/// Could a gzip member start at `b` (not a header already known to be bad)?
fn plausible_header(b: &[u8]) -> bool {
    !matches!(parse_gzip_header(b), GzipHeader::Bad(_))
}

/// The file offset of a later member that starts among the current member's
/// compressed bytes (header to trailer) or the `ahead` bytes after them.
fn next_member_read(io: &mut FrameIo, ahead: usize) -> Option<u64> {
    io.inb.fill(ahead + GZIP_MAGIC.len());
    let (mark, bytes) = io.inb.held_from_mark()?;
    let read = usize::try_from(io.inb.pos().saturating_sub(mark)).unwrap_or(0);
    if mark != io.unit_start {
        return None;
    }
    find_magic(bytes, 1, &GZIP_MAGIC, plausible_header)
        .filter(|&k| k < read + ahead)
        .map(|k| mark + k as u64)
}

impl Framing for Gzip {
    fn step(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem> {
        match self.state {
            GzState::Header => self.read_header(io),
            GzState::Body => self.read_body(io, out),
            GzState::Trailer => self.read_trailer(io),
        }
    }
}

pub(super) const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

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
