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
use super::framed::{find_magic, FrameIo, Framed, Framing};
use super::InputProblem;
use crate::limits::{MAX_ZSTD_DICT_BYTES, ZSTD_WINDOW_LOG_MAX};

pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const ZSTD_DICT_FRAME: u32 = 0x184D_2A5D;
/// Bytes of a frame the decoder is first given: the magic and the frame header
/// descriptor, from which it tells how many more its header needs.
const FRAME_HEADER_PREFIX: usize = 5;
/// Bytes of a block header (RFC 8878 3.1.1.2).
const BLOCK_HEADER: usize = 3;
/// The longest frame header (RFC 8878 3.1.1): magic, descriptor, window, dictionary id
/// and content size fields.
const FRAME_HEADER_MAX: usize = 18;

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
    /// Input bytes the decoder asked for last (see [`Zstd::frame`]).
    hint: usize,
    /// The window cap (log2) set on the decoder for the current frame.
    frame_window_log: u32,
    /// The last call filled the output: decoded data may wait to be flushed.
    flushing: bool,
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
            hint: FRAME_HEADER_PREFIX,
            frame_window_log: window_log_max,
            flushing: false,
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
                self.hint = FRAME_HEADER_PREFIX;
                self.flushing = false;
                let size = declared_content_size(io.inb.fill(FRAME_HEADER_MAX));
                self.fit_window(size);
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
        self.frame_window_log = self.window_log_max;
        Ok(())
    }

    /// Sets the decoder's window cap for a frame declaring `content_size`. The cap is on
    /// memory: a decoder needs min(window, content size) bytes, so a frame whose declared
    /// content size is within the cap is decoded whatever window it declares (small
    /// frames written with `--long=31` are). Without a content size, the window counts.
    fn fit_window(&mut self, content_size: Option<u64>) {
        let fits = content_size.is_some_and(|n| n <= 1 << self.window_log_max);
        let log = if fits {
            ZSTD_WINDOW_LOG_MAX
        } else {
            self.window_log_max
        };
        // Between frames the decoder takes parameters; should it refuse, the cap stays
        // and a frame over it is a problem naming the flag, as without this.
        if log != self.frame_window_log
            && self
                .dec
                .set_parameter(DParameter::WindowLogMax(log))
                .is_ok()
        {
            self.frame_window_log = log;
        }
    }

    /// Decodes the current frame into `out`. The decoder is fed no more input than it
    /// asks for ([`Zstd::feed`]), and none while decoded data waits to be flushed, so
    /// that one call reads at most one block header or decodes one block: a decoding
    /// error reports no output for the whole call, and a call that flushed earlier
    /// blocks before failing on a corrupt one would lose their data.
    fn frame(&mut self, io: &mut FrameIo, out: &mut [u8]) -> Result<usize, InputProblem> {
        let avail = if self.flushing {
            &[][..]
        } else {
            if io.inb.fill(1).is_empty() {
                return self.truncated(io);
            }
            let avail = io.inb.avail();
            avail.get(..self.feed().min(avail.len())).unwrap_or(avail)
        };
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
        let flushed = std::mem::replace(&mut self.flushing, produced == out.len());
        match res {
            Ok(0) => {
                io.close_unit();
                self.state = ZState::FrameStart;
                self.check_frame(io);
            }
            // A flush with nothing left to flush: input is fed on the next call.
            Ok(hint) if flushed && produced == 0 => self.hint = hint,
            Ok(_) if used == 0 && produced == 0 => {
                let why = io.decoding_stopped("frame makes no progress", "frame");
                let (at, reached) = (io.unit_start, io.out_pos);
                return self.corrupt(io, why, at).map_err(|p| p.in_stream(reached));
            }
            Ok(hint) => self.hint = hint,
            Err(e) => {
                let mut why = e.to_string();
                if why.contains("too much memory") {
                    why.push_str(&format!(
                        " (its window is over 2^{} bytes; --zstd-window-log-max raises the cap, \
                         up to 31)",
                        self.window_log_max
                    ));
                }
                let why = io.decoding_stopped(&why, "frame");
                let (at, reached) = (io.unit_start, io.out_pos);
                let err = self.corrupt(io, why, at).map_err(|p| p.in_stream(reached));
                // The bytes decoded before the damage now, the problem next.
                return io.hold(produced, err);
            }
        }
        Ok(produced)
    }

    /// The file ended inside the current frame. A damaged frame header or block header
    /// can make the decoder take the frames after it as its own data up to the end of
    /// the file: then the frame is corrupt, and they are read from the first one of
    /// them among the bytes it read.
    fn truncated(&mut self, io: &mut FrameIo) -> Result<usize, InputProblem> {
        if next_frame_read(io).is_some() {
            let why = io.decoding_stopped("its data ran on to the end of the file", "frame");
            let (at, reached) = (io.unit_start, io.out_pos);
            return self.corrupt(io, why, at).map_err(|p| p.in_stream(reached));
        }
        io.truncated(InputError::ZstdTruncatedFrame)
    }

    /// Input bytes to feed the decoder next: its hint, less the header of the block after
    /// the one it asks for when the hint counts it ("preloaded"; a header alone is 3).
    /// A block's data and the header after it are fed in separate calls: a corrupt header
    /// fails its call, and would take the data of the block decoded in the same call
    /// with it.
    fn feed(&self) -> usize {
        if self.hint > BLOCK_HEADER {
            self.hint - BLOCK_HEADER
        } else {
            self.hint
        }
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

/// The Frame_Content_Size a zstd frame header declares (RFC 8878 3.1.1.1), None when it
/// has none or `h` is too short to tell.
fn declared_content_size(h: &[u8]) -> Option<u64> {
    let fhd = *h.get(4)?;
    let single_segment = fhd & 0x20 != 0;
    let fcs_bytes = match fhd >> 6 {
        0 if single_segment => 1,
        0 => return None,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let did_bytes = [0, 1, 2, 4][usize::from(fhd & 3)];
    let at = 5 + usize::from(!single_segment) + did_bytes;
    let field = h.get(at..at + fcs_bytes)?;
    let mut le = [0u8; 8];
    le.get_mut(..fcs_bytes)?.copy_from_slice(field);
    let n = u64::from_le_bytes(le);
    // A two-byte field counts from 256.
    Some(if fcs_bytes == 2 { n + 256 } else { n })
}

/// The file offset of a later frame whose magic lies among the bytes read since the
/// current frame started (while they are still held).
fn next_frame_read(io: &mut FrameIo) -> Option<u64> {
    io.inb.fill(ZSTD_MAGIC.len());
    let (mark, bytes) = io.inb.held_from_mark()?;
    if mark != io.unit_start {
        return None;
    }
    let read = usize::try_from(io.inb.pos().saturating_sub(mark)).unwrap_or(0);
    find_magic(bytes, 1, &ZSTD_MAGIC, |_| true)
        .filter(|&k| k < read)
        .map(|k| mark + k as u64)
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

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use crate::input::buffer::{Buffered, ReadSource, Source};

    /// Reads `file` through the zstd source in reads of `read` bytes: the data returned
    /// up to the first problem, and the problem.
    fn read_until_problem(file: &[u8], read: usize) -> (Vec<u8>, InputProblem) {
        let inb = Buffered::new(ReadSource::new(Box::new(Cursor::new(file.to_vec()))));
        let mut source = Framed::new(inb, Zstd::new(27).unwrap());
        let mut out = Vec::new();
        let mut buf = vec![0; read];
        loop {
            match source.read_into(&mut buf) {
                Ok(0) => panic!("read {read}: the damage is not reported"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(p) => return (out, p),
            }
        }
    }

    /// What the first `at` bytes of a zstd file decode to: every block before `at`.
    fn decoded_before(file: &[u8], at: usize) -> Vec<u8> {
        let mut prefix = Vec::new();
        let cut = std::io::copy(
            &mut zstd::stream::read::Decoder::new(&file[..at]).unwrap(),
            &mut prefix,
        );
        cut.expect_err("cut inside the frame");
        prefix
    }

    /// A long text of distinct lines, so its zstd frame has many blocks.
    fn lines() -> Vec<u8> {
        (0..40_000)
            .flat_map(|i| format!("line {i} of a long stream\n").into_bytes())
            .collect()
    }

    #[test]
    fn data_before_a_corrupt_block_header_is_kept() {
        // The header of a block is read in a call of its own: not in the call that
        // returns the data of the block before it, which the failure would take along.
        let plain = lines();
        let mut file = zstd::encode_all(&plain[..], 3).unwrap();
        // Walk the blocks (RFC 8878 3.1.1.2) from the frame header: magic, descriptor
        // (content size flag in the top bits), no window byte when single-segment.
        let fhd = file[4];
        assert_eq!(fhd & 0x03, 0, "no dictionary id");
        let fcs = [usize::from(fhd & 0x20 != 0), 2, 4, 8][usize::from(fhd >> 6)];
        let mut at = 5 + usize::from(fhd & 0x20 == 0) + fcs;
        let mut headers = Vec::new();
        loop {
            let h = u32::from_le_bytes([file[at], file[at + 1], file[at + 2], 0]);
            headers.push(at);
            let size = (h >> 3) as usize;
            at += 3 + if (h >> 1) & 3 == 1 { 1 } else { size };
            if h & 1 == 1 {
                break;
            }
        }
        assert!(headers.len() >= 6, "{} blocks", headers.len());
        // A reserved block type in the middle block's header.
        let damaged = headers[headers.len() / 2];
        file[damaged] |= 0b110;
        let prefix = decoded_before(&file, damaged);
        for read in [1000, 4096, 70_000, 1 << 20] {
            let (out, problem) = read_until_problem(&file, read);
            assert_eq!(out.len(), prefix.len(), "read {read}");
            assert_eq!(out, plain[..out.len()], "read {read}");
            assert_eq!(problem.code, "zstd_corrupt_frame");
        }
    }

    /// Every byte decoded before a corrupt block is returned, however small the reads:
    /// with reads smaller than a block, a block's data is flushed over many calls, and
    /// the block after it (the corrupt one) must not be fed to the decoder before all of
    /// it was returned (a failing call reports no output).
    #[test]
    fn data_before_a_corrupt_block_survives_small_reads() {
        let plain = lines();
        let compressed = zstd::encode_all(&plain[..], 3).unwrap();
        // The first run of 0xff bytes from the middle on that the decoder detects.
        let (at, file) = (compressed.len() / 2..compressed.len() - 64)
            .map(|at| {
                let mut file = compressed.clone();
                file[at..at + 64].fill(0xff);
                (at, file)
            })
            .find(|(_, file)| zstd::decode_all(&file[..]).is_err())
            .expect("detected damage");
        let prefix = decoded_before(&file, at);
        assert!(
            prefix.len() >= 2 << 17,
            "blocks before the damage: {}",
            prefix.len()
        );
        for read in [1000, 4096, 70_000, 1 << 20] {
            let (out, problem) = read_until_problem(&file, read);
            assert!(
                out.len() >= prefix.len(),
                "read {read}: {} of the {} bytes before the damage",
                out.len(),
                prefix.len()
            );
            assert_eq!(out, plain[..out.len()], "read {read}");
            assert_eq!(problem.code, "zstd_corrupt_frame");
            assert_eq!(problem.stream_offset, Some(out.len() as u64));
        }
    }
}
