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

use super::error::InputError;
use super::framed::{FrameIo, Framed, Framing};
use super::InputProblem;
use crate::limits::{MAX_ZSTD_DICT_BYTES, ZSTD_WINDOW_LOG_MAX};

pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const ZSTD_DICT_FRAME: u32 = 0x184D_2A5D;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZState {
    FrameStart,
    Frame,
}

/// A sequence of zstd frames (one per record in `.warc.zst`), with the optional
/// dictionary skippable frame loaded into the decoder: the [`Framing`] of [`ZstdSource`].
pub(crate) struct Zstd {
    dec: zstd::stream::raw::Decoder<'static>,
    state: ZState,
    dict: Vec<u8>,
    /// log2 of the largest window a frame may ask for (`--zstd-window-log-max`).
    window_log_max: u32,
    /// XXH64 of the current frame's decoded bytes, when its header says it has a checksum.
    checksum: Option<XxHash64>,
    /// Compressed bytes of the current frame seen since its start: the last four are the
    /// stored checksum when the frame ends.
    tail: [u8; 4],
}

/// A stream of zstd frames.
pub(crate) type ZstdSource = Framed<Zstd>;

fn zstd_decoder(
    dict: &[u8],
    window_log_max: u32,
) -> std::io::Result<zstd::stream::raw::Decoder<'static>> {
    let mut dec = zstd::stream::raw::Decoder::with_dictionary(dict)?;
    dec.set_parameter(DParameter::WindowLogMax(window_log_max))?;
    dec.set_parameter(DParameter::ForceIgnoreChecksum(true))?;
    Ok(dec)
}

impl Zstd {
    pub(crate) fn new(window_log_max: u32) -> Result<Self, InputProblem> {
        let window_log_max = window_log_max.min(ZSTD_WINDOW_LOG_MAX);
        let dec = zstd_decoder(&[], window_log_max)
            .map_err(|e| InputError::ZstdCorruptFrame(format!("decoder setup: {e}")).at(0))?;
        Ok(Self {
            dec,
            state: ZState::FrameStart,
            dict: Vec::new(),
            window_log_max,
            checksum: None,
            tail: [0; 4],
        })
    }

    /// The frame at `at` is corrupt: goes on at the next frame, looked for first among
    /// the bytes its decoder read (it may have run into the following frames).
    fn corrupt(&mut self, io: &mut FrameIo, why: String, at: u64) -> Result<usize, InputProblem> {
        self.checksum = None;
        // Session reset keeps the dictionary and the window cap.
        if let Err(e) = self.dec.reinit() {
            // The decoder cannot go on: nothing after this frame can be decoded.
            io.close_unit();
            io.done = true;
            let msg = format!("{why}; the decoder could not be reset ({e}): input abandoned");
            return Err(InputError::ZstdCorruptFrame(msg).at(at));
        }
        let to = io.skip_to_next(at, &ZSTD_MAGIC, |_| true);
        self.state = ZState::FrameStart;
        let msg = format!(
            "{why}; skipped file bytes {at}..{to} ({} bytes) to the next frame",
            to - at
        );
        Err(InputError::ZstdCorruptFrame(msg).at(at))
    }

    fn frame_start(&mut self, io: &mut FrameIo) -> Result<usize, InputProblem> {
        let at = io.inb.pos();
        let head = io.inb.fill(8);
        if head.is_empty() {
            return io.end_of_input();
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
                io.inb.set_mark();
                io.open_unit(at);
                self.state = ZState::Frame;
                Ok(0)
            }
            (Some(m), Some(size)) if m & 0xFFFF_FFF0 == 0x184D_2A50 => {
                io.inb.consume(8);
                self.skippable(io, m, u64::from(size), at)
            }
            (Some(m), None) if m & 0xFFFF_FFF0 == 0x184D_2A50 => {
                io.unit_start = at;
                io.truncated(InputError::ZstdTruncatedFrame)
            }
            (None, _) => {
                io.unit_start = at;
                io.truncated(InputError::ZstdTruncatedFrame)
            }
            _ => {
                io.inb.consume(1);
                self.corrupt(io, "no zstd frame magic".to_owned(), at)
            }
        }
    }

    /// Reads a skippable frame's content: the dictionary frame is loaded, others skipped.
    fn skippable(
        &mut self,
        io: &mut FrameIo,
        magic: u32,
        size: u64,
        at: u64,
    ) -> Result<usize, InputProblem> {
        let is_dict = magic == ZSTD_DICT_FRAME;
        self.dict.clear();
        let mut left = size;
        while left > 0 {
            let avail = io.inb.fill(1);
            if avail.is_empty() {
                io.unit_start = at;
                return io.truncated(InputError::ZstdTruncatedFrame);
            }
            let n = avail.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            if is_dict && self.dict.len() + n <= MAX_ZSTD_DICT_BYTES {
                self.dict.extend_from_slice(&avail[..n]);
            }
            io.inb.consume(n);
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

    fn frame(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem> {
        let avail = io.inb.fill(1);
        if avail.is_empty() {
            return io.truncated(InputError::ZstdTruncatedFrame);
        }
        let mut input = InBuffer::around(avail);
        let mut output = OutBuffer::around(out);
        let res = self.dec.run(&mut input, &mut output);
        let (used, produced) = (input.pos(), output.pos());
        keep_tail(&mut self.tail, avail.get(..used).unwrap_or_default());
        if let Some(h) = self.checksum.as_mut() {
            h.write(out.get(..produced).unwrap_or_default());
        }
        io.inb.consume(used);
        io.out_pos += produced as u64;
        match res {
            Ok(0) => {
                io.close_unit();
                self.state = ZState::FrameStart;
                self.check_frame(io);
            }
            Ok(_) if used == 0 && produced == 0 => {
                let at = io.unit_start;
                return self.corrupt(io, "frame makes no progress".to_owned(), at);
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
                let at = io.unit_start;
                let err = self.corrupt(io, why, at);
                // The bytes decoded before the damage now, the problem next.
                return io.hold(produced, err);
            }
        }
        Ok(produced)
    }

    /// At the end of a frame with a checksum: compares the stored XXH64 (low 32 bits, the
    /// frame's last four bytes) with the decoded data's; a mismatch is a notice.
    fn check_frame(&mut self, io: &mut FrameIo) {
        let Some(h) = self.checksum.take() else {
            return;
        };
        let computed = h.finish() as u32;
        let stored = u32::from_le_bytes(self.tail);
        if computed != stored {
            let msg = format!(
                "frame at file byte {}: stored {stored:08x}, computed {computed:08x}; the \
                 decoded data is kept",
                io.unit_start
            );
            let p = InputError::ZstdChecksumMismatch(msg).at(io.unit_start);
            io.notices.push(io.out_pos, p);
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

impl Framing for Zstd {
    fn step(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem> {
        match self.state {
            ZState::FrameStart => self.frame_start(io),
            ZState::Frame => self.frame(io, out),
        }
    }
}
