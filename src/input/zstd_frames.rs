//! zstd frames: the compressed file in, the concatenated frame data out.
//!
//! One decoder decodes frame after frame (a `.warc.zst` has one per record); the
//! dictionary skippable frame of the WARC-zstd format is loaded when present, and other
//! skippable frames are passed over. Windows up to [`ZSTD_WINDOW_LOG_MAX`] are accepted
//! (see there for the memory they cost). A corrupt frame is skipped to the next frame
//! magic, looked for first among the bytes its decoder already read.
//!
//! The decoder is told to ignore content checksums; this reader computes each frame's
//! XXH64 itself. A frame that decodes to its end with a wrong checksum keeps its data and
//! becomes a `zstd_checksum_mismatch` notice of the record holding its last byte, as a
//! bad gzip CRC does. (With the decoder checking, the error came before the frame's last
//! blocks were flushed: a file whose only damage was its checksum lost 28 of 304 records.)

use std::hash::Hasher;

use twox_hash::XxHash64;
use zstd::stream::raw::{DParameter, InBuffer, Operation, OutBuffer};

use super::decompress::{
    resync_at, rewind_to_magic, Buffered, Decoded, Notices, ReadSource, Source, Units,
};
use super::error::InputError;
use super::InputProblem;
use crate::limits::{MAX_ZSTD_DICT_BYTES, ZSTD_WINDOW_LOG_MAX};

pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const ZSTD_DICT_FRAME: u32 = 0x184D_2A5D;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZState {
    FrameStart,
    Frame,
    Done,
}

/// A sequence of zstd frames (one per record in `.warc.zst`), with the optional
/// dictionary skippable frame loaded into the decoder.
pub(crate) struct ZstdSource {
    inb: Buffered<ReadSource>,
    dec: zstd::stream::raw::Decoder<'static>,
    state: ZState,
    units: Units,
    out_pos: u64,
    frame_cstart: u64,
    dict: Vec<u8>,
    /// log2 of the largest window a frame may ask for (`--zstd-window-log-max`).
    window_log_max: u32,
    /// A problem met after data that was returned first.
    pending: Option<InputProblem>,
    /// XXH64 of the current frame's decoded bytes, when its header says it has a checksum.
    checksum: Option<XxHash64>,
    /// Compressed bytes of the current frame seen since its start: the last four are the
    /// stored checksum when the frame ends.
    tail: [u8; 4],
    notices: Notices,
}

fn zstd_decoder(
    dict: &[u8],
    window_log_max: u32,
) -> std::io::Result<zstd::stream::raw::Decoder<'static>> {
    let mut dec = zstd::stream::raw::Decoder::with_dictionary(dict)?;
    dec.set_parameter(DParameter::WindowLogMax(window_log_max))?;
    dec.set_parameter(DParameter::ForceIgnoreChecksum(true))?;
    Ok(dec)
}

impl ZstdSource {
    pub(crate) fn new(
        inb: Buffered<ReadSource>,
        window_log_max: u32,
    ) -> Result<Self, InputProblem> {
        let window_log_max = window_log_max.min(ZSTD_WINDOW_LOG_MAX);
        let dec = zstd_decoder(&[], window_log_max)
            .map_err(|e| InputError::ZstdCorruptFrame(format!("decoder setup: {e}")).at(0))?;
        Ok(Self {
            inb,
            dec,
            state: ZState::FrameStart,
            units: Units::default(),
            out_pos: 0,
            frame_cstart: 0,
            dict: Vec::new(),
            window_log_max,
            pending: None,
            checksum: None,
            tail: [0; 4],
            notices: Notices::default(),
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
        self.checksum = None;
        // Session reset keeps the dictionary and the window cap.
        if let Err(e) = self.dec.reinit() {
            // The decoder cannot go on: nothing after this frame can be decoded.
            self.state = ZState::Done;
            let msg = format!("{why}; the decoder could not be reset ({e}): input abandoned");
            return Err(InputError::ZstdCorruptFrame(msg).at(at));
        }
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
                // Frame_Header_Descriptor bit 2: Content_Checksum_flag.
                let has_checksum = head.get(4).is_some_and(|d| d & 0x04 != 0);
                self.checksum = has_checksum.then(|| XxHash64::with_seed(0));
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
        self.dec = zstd_decoder(&dict, self.window_log_max)
            .map_err(|e| format!("dictionary rejected: {e}"))?;
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
        keep_tail(&mut self.tail, avail.get(..used).unwrap_or_default());
        if let Some(h) = self.checksum.as_mut() {
            h.write(out.get(..produced).unwrap_or_default());
        }
        self.inb.consume(used);
        self.out_pos += produced as u64;
        match res {
            Ok(0) => {
                self.units.close(self.out_pos, self.inb.pos());
                self.state = ZState::FrameStart;
                self.check_frame();
            }
            Ok(_) if used == 0 && produced == 0 => {
                return self.corrupt("frame makes no progress".to_owned(), self.frame_cstart)
            }
            Ok(_) => {}
            Err(e) => {
                let mut why = e.to_string();
                if why.contains("too much memory") {
                    why.push_str(&format!(
                        " (its window is over 2^{} bytes; --zstd-window-log-max raises the cap, \
                         up to 31)",
                        self.window_log_max
                    ));
                }
                let err = self.corrupt(why, self.frame_cstart);
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

impl ZstdSource {
    /// At the end of a frame with a checksum: compares the stored XXH64 (low 32 bits, the
    /// frame's last four bytes) with the decoded data's; a mismatch is a notice.
    fn check_frame(&mut self) {
        let Some(h) = self.checksum.take() else {
            return;
        };
        let computed = h.finish() as u32;
        let stored = u32::from_le_bytes(self.tail);
        if computed != stored {
            let msg = format!(
                "frame at file byte {}: stored {stored:08x}, computed {computed:08x}; the \
                 decoded data is kept",
                self.frame_cstart
            );
            let p = InputError::ZstdChecksumMismatch(msg).at(self.frame_cstart);
            self.notices.push(self.out_pos, p);
        }
    }
}

/// Shifts the last bytes of `seen` into `tail` (the last four compressed bytes so far).
fn keep_tail(tail: &mut [u8; 4], seen: &[u8]) {
    if seen.len() >= 4 {
        tail.copy_from_slice(&seen[seen.len() - 4..]);
    } else {
        for &b in seen {
            tail.rotate_left(1);
            tail[3] = b;
        }
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
    fn file_offset(&self, dpos: u64) -> u64 {
        self.units
            .holding(dpos)
            .unwrap_or_else(|| self.compressed_pos())
    }
    fn starts_unit(&self, dpos: u64) -> bool {
        self.units.starts_at(dpos)
    }
    fn take_notices(&mut self, upto: u64, out: &mut Vec<InputProblem>) {
        self.notices.take(upto, out);
    }
}
