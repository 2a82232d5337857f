//! gzip members: the compressed file in, the concatenated member data out.
//!
//! A member whose deflate data lies within the buffered bytes and fits the output room is
//! decoded in one call by libdeflate (`whole_member.rs`, 98% of Common Crawl's members);
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

use super::decompress::{
    find_magic, resync_at, rewind_to_magic, Buffered, Decoded, Notices, ReadSource, Source, Units,
};
use super::error::InputError;
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
    Done,
}

/// A stream of gzip members, decoded with one reused raw-deflate `Decompress`.
pub(crate) struct GzipSource {
    inb: Buffered<ReadSource>,
    dec: Decompress,
    /// The fast path for a member that fits the buffers (see `whole_member.rs`).
    whole: Option<WholeInflater>,
    /// The current member's deflate data is untouched: the fast path may still take it.
    fresh: bool,
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
    pub(crate) fn new(inb: Buffered<ReadSource>) -> Self {
        Self {
            inb,
            dec: Decompress::new(false),
            whole: WholeInflater::new(),
            fresh: false,
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

    /// The file ended inside the current member. Its decoder may have run on to the end
    /// through later members without failing (damage can leave deflate data, e.g. a
    /// stored block, that takes them as its own): then it is corrupt, and they are read.
    fn truncated(&mut self) -> Result<usize, InputProblem> {
        if self.next_member_read(0).is_some() {
            return self.corrupt("deflate data ran on to the end of the file".to_owned());
        }
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
            if matches!(parsed, GzipHeader::NeedMore)
                && (have < want || have >= GZIP_MEMBER_HEADER_MAX)
            {
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
                    self.fresh = true;
                    self.crc.reset();
                    self.member_out = 0;
                    self.state = GzState::Body;
                    return Ok(0);
                }
                GzipHeader::NeedMore if have < want => {
                    self.member_cstart = self.inb.pos();
                    return self.truncated();
                }
                GzipHeader::NeedMore if have >= GZIP_MEMBER_HEADER_MAX => {
                    self.member_cstart = self.inb.pos();
                    self.inb.consume(1);
                    return self.corrupt("gzip header too long".to_owned());
                }
                GzipHeader::NeedMore => want = (have + 1024).min(GZIP_MEMBER_HEADER_MAX),
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
        if std::mem::take(&mut self.fresh) && out.len() >= WHOLE_MEMBER_MIN_OUT {
            if let Some(n) = self.read_whole(out) {
                return Ok(n);
            }
        }
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

    /// The member's whole deflate data in one call, when it lies within the next
    /// [`WHOLE_MEMBER_IN`] bytes and its output fits in `out`; None (nothing consumed,
    /// nothing counted) sends the member to the streaming decoder.
    fn read_whole(&mut self, out: &mut [u8]) -> Option<usize> {
        let whole = self.whole.as_mut()?;
        let (used, produced) = whole.inflate(self.inb.fill(WHOLE_MEMBER_IN), out)?;
        self.inb.consume(used);
        self.crc.update(&out[..produced]);
        self.out_pos += produced as u64;
        self.member_out += produced as u64;
        self.state = GzState::Trailer;
        Some(produced)
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
        let (mark, bytes) = self.inb.held_from_mark()?;
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
    fn file_offset(&self, dpos: u64) -> u64 {
        self.units
            .holding(dpos)
            .unwrap_or_else(|| self.compressed_pos())
    }
    fn take_notices(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
        self.notices.take(upto, out);
    }
    fn starts_unit(&self, dpos: u64) -> bool {
        self.units.starts_at(dpos)
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
