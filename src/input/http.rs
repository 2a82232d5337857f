//! HTTP payloads of WARC records: status line + headers in, decoded body out.
//!
//! The head is parsed from one contiguous header block. The body is pushed through in
//! pieces as the WARC block streams by: chunked transfer decoding, then gzip / deflate /
//! br content decoding, then [`Capture::keep`], which stores at most
//! [`BODY_KEEP_CAP`] bytes. Content decoding stops as soon
//! as the cap is full, so a gzip bomb is never inflated beyond the cap plus one scratch
//! buffer. Only a *real* `Transfer-Encoding` / `Content-Encoding` is decoded: Common Crawl
//! stores payloads already decoded and renames the originals `X-Crawler-...`.
//! When decoding fails, the raw bytes (kept alongside, also capped) replace the body and
//! the failure becomes a warning of the capture.

use brotli_decompressor::{BrotliDecompressStream, BrotliResult, BrotliState, StandardAlloc};
use flate2::{Decompress, FlushDecompress, Status};

use super::error::InputError;
use super::gzip_members::{parse_gzip_header, GzipHeader};
use super::Capture;
use crate::limits::{BODY_KEEP_CAP, CHUNK_LINE_MAX, CONTENT_GZIP_HEADER_MAX, DECODE_SCRATCH};

/// Content-Encoding of a payload that is still encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
    Unsupported(String),
}

/// How the body of a response must be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Coding {
    pub chunked: bool,
    pub encoding: Encoding,
}

/// Offset of the first byte after the blank line that ends a header block (lines end
/// in LF, CRLF or CR CR LF), or `None` when `b` holds no blank line.
pub(crate) fn header_end(b: &[u8]) -> Option<usize> {
    let mut pos = 0;
    for nl in memchr::memchr_iter(b'\n', b) {
        let line = b.get(pos..nl).unwrap_or_default();
        if line.iter().all(|&c| c == b'\r') {
            return Some(nl + 1);
        }
        pos = nl + 1;
    }
    None
}

/// The `name: value` lines of a header block after its first line, trimmed. Folded
/// continuation lines and lines without a colon are skipped.
pub(crate) fn header_fields(block: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    lines(block)
        .skip(1)
        .filter(|l| !l.starts_with(b" ") && !l.starts_with(b"\t"))
        .filter_map(|l| {
            let colon = memchr::memchr(b':', l)?;
            let (name, value) = (l.get(..colon)?, l.get(colon + 1..)?);
            Some((name.trim_ascii(), value.trim_ascii()))
        })
}

/// The pieces of `b` between `\n`s, as `b.split(|&c| c == b'\n')` gives them (the
/// last one empty after a final `\n`), the line ends found by `memchr` rather than
/// byte by byte as `split` does: every WARC and HTTP header of a run goes through here.
fn lines(b: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len()));
    std::iter::from_fn(move || {
        let end = ends.next()?;
        let line = b.get(start..end).unwrap_or_default();
        start = end + 1;
        Some(line)
    })
}

/// Replaces `dst` with the lossy UTF-8 text of `src`.
pub(crate) fn set_text(dst: &mut String, src: &[u8]) {
    dst.clear();
    // Valid text (nearly every header and URL) takes `from_utf8`'s word-at-a-time
    // check; the lossy decoder walks it in chunks.
    match std::str::from_utf8(src) {
        Ok(text) => dst.push_str(text),
        Err(_) => dst.push_str(&String::from_utf8_lossy(src)),
    }
}

/// Parses an HTTP/1.x response head (`head` ends at the blank line or is the whole
/// block) into `cap`; returns how the body must be decoded, and the warning of a bad
/// status line (the headers are still read), for the record reader to locate.
pub(crate) fn parse_head(head: &[u8], cap: &mut Capture) -> (Coding, Option<InputError>) {
    let first = lines(head).next().unwrap_or_default();
    cap.http_status = parse_status_line(first);
    let warning = cap.http_status.is_none().then(|| {
        let shown = String::from_utf8_lossy(first.get(..80).unwrap_or(first));
        InputError::HttpBadStatusLine(format!("{:?}", shown.trim_end()))
    });
    let mut coding = Coding {
        chunked: false,
        encoding: Encoding::Identity,
    };
    for (name, value) in header_fields(head) {
        if name.eq_ignore_ascii_case(b"content-type") {
            set_text(&mut cap.http_content_type, value);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            coding.chunked = value
                .split(|&c| c == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            coding.encoding = encoding_of(value);
        } else if name.eq_ignore_ascii_case(b"x-crawler-content-encoding") {
            set_text(&mut cap.crawler_content_encoding, value);
        } else if name.eq_ignore_ascii_case(b"location") {
            set_text(&mut cap.http_location, value);
        }
    }
    (coding, warning)
}

/// `HTTP/1.1 200 OK` -> 200. The version must start with `HTTP/`, the code be 3 digits.
pub(crate) fn parse_status_line(line: &[u8]) -> Option<u16> {
    let mut parts = line
        .trim_ascii()
        .split(|c| c.is_ascii_whitespace())
        .filter(|p| !p.is_empty());
    if !parts.next()?.starts_with(b"HTTP/") {
        return None;
    }
    let code = parts.next()?;
    if code.len() != 3 || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(code).ok()?.parse().ok()
}

fn encoding_of(value: &[u8]) -> Encoding {
    let v = value.trim_ascii().to_ascii_lowercase();
    match v.as_slice() {
        b"" | b"identity" => Encoding::Identity,
        b"gzip" | b"x-gzip" => Encoding::Gzip,
        b"deflate" => Encoding::Deflate,
        b"br" => Encoding::Brotli,
        _ => Encoding::Unsupported(String::from_utf8_lossy(&v).into_owned()),
    }
}

/// State of the chunked transfer decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Size {
        size: u64,
        digits: bool,
        ext: bool,
        len: usize,
    },
    Data(u64),
    DataEnd,
    Trailer {
        len: usize,
    },
    Done,
}

impl Chunk {
    const START: Chunk = Chunk::Size {
        size: 0,
        digits: false,
        ext: false,
        len: 0,
    };

    /// Consumes a prefix of `input`: `(n, true)` when `input[..n]` is payload data,
    /// `(n, false)` for framing bytes.
    fn step(&mut self, input: &[u8]) -> Result<(usize, bool), &'static str> {
        match *self {
            Chunk::Data(left) => {
                let n = usize::try_from(left).unwrap_or(usize::MAX).min(input.len());
                let rest = left - n as u64;
                *self = if rest == 0 {
                    Chunk::DataEnd
                } else {
                    Chunk::Data(rest)
                };
                Ok((n, true))
            }
            Chunk::Done => Ok((input.len(), false)),
            _ => {
                for (i, &c) in input.iter().enumerate() {
                    if self.byte(c)? {
                        return Ok((i + 1, false));
                    }
                }
                Ok((input.len(), false))
            }
        }
    }

    /// One framing byte; true when the state moved to data (so the caller re-steps).
    fn byte(&mut self, c: u8) -> Result<bool, &'static str> {
        match self {
            Chunk::Size {
                size,
                digits,
                ext,
                len,
            } => {
                *len += 1;
                if *len > CHUNK_LINE_MAX {
                    return Err("chunk-size line too long");
                }
                match c {
                    b'\n' if !*digits => *self = Chunk::START, // tolerate blank lines
                    b'\n' if *size == 0 => *self = Chunk::Trailer { len: 0 },
                    b'\n' => {
                        *self = Chunk::Data(*size);
                        return Ok(true);
                    }
                    b'\r' => {}
                    _ if *ext => {}
                    b';' | b' ' | b'\t' => *ext = true,
                    _ => {
                        let d = (c as char).to_digit(16).ok_or("chunk size is not hex")?;
                        if *size > u64::MAX >> 8 {
                            return Err("chunk size too large");
                        }
                        *size = *size * 16 + u64::from(d);
                        *digits = true;
                    }
                }
            }
            Chunk::DataEnd => match c {
                b'\r' => {}
                b'\n' => *self = Chunk::START,
                // A missing CRLF after the data: read this byte as the next size line.
                _ => {
                    *self = Chunk::START;
                    return self.byte(c);
                }
            },
            Chunk::Trailer { len } => match c {
                b'\n' if *len == 0 => *self = Chunk::Done,
                b'\n' => *len = 0,
                b'\r' => {}
                _ => {
                    *len += 1;
                    if *len > CHUNK_LINE_MAX {
                        return Err("trailer line too long");
                    }
                }
            },
            Chunk::Data(_) | Chunk::Done => {}
        }
        Ok(false)
    }
}

/// Content decoder state for one body.
enum Content {
    Identity,
    /// Collecting the gzip member header (in `BodyDecoder::hdr`).
    GzipHeader,
    /// Collecting the first two bytes to tell zlib-wrapped from raw deflate.
    DeflateSniff,
    Inflate,
    Brotli(Box<BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>>),
    /// The encoded stream ended; bytes after it are ignored.
    Ended,
}

/// Streaming body decoder, reused across records (one `Decompress`, one scratch buffer,
/// one raw-bytes buffer per reader). It knows nothing of positions: its warnings are
/// taken by the record reader ([`BodyDecoder::take_warnings`]), which locates them.
pub(crate) struct BodyDecoder {
    inflate: Decompress,
    scratch: Vec<u8>,
    hdr: Vec<u8>,
    /// Raw payload bytes (as stored), kept up to the cap in case decoding fails.
    raw: Vec<u8>,
    raw_size: u64,
    chunk: Option<Chunk>,
    content: Content,
    /// Content decoding stopped because the cap was full.
    stopped: bool,
    failed: Option<InputError>,
    /// Warnings of the current body, not yet taken.
    warnings: Vec<InputError>,
}

impl Default for BodyDecoder {
    fn default() -> Self {
        Self {
            inflate: Decompress::new(false),
            scratch: Vec::new(),
            hdr: Vec::new(),
            raw: Vec::new(),
            raw_size: 0,
            chunk: None,
            content: Content::Identity,
            stopped: false,
            failed: None,
            warnings: Vec::new(),
        }
    }
}

impl BodyDecoder {
    /// Prepares for a new body with the given coding.
    pub(crate) fn start(&mut self, coding: &Coding) {
        self.raw.clear();
        self.raw_size = 0;
        self.hdr.clear();
        self.stopped = false;
        self.failed = None;
        self.warnings.clear();
        self.chunk = coding.chunked.then_some(Chunk::START);
        self.content = match &coding.encoding {
            Encoding::Identity => Content::Identity,
            Encoding::Gzip => Content::GzipHeader,
            Encoding::Deflate => Content::DeflateSniff,
            Encoding::Brotli => {
                let mut st = BrotliState::new(
                    StandardAlloc::default(),
                    StandardAlloc::default(),
                    StandardAlloc::default(),
                );
                // Standard windows only (<= 16 MiB): large windows could ask for 1 GiB.
                st.large_window = false;
                Content::Brotli(Box::new(st))
            }
            Encoding::Unsupported(name) => {
                let msg = format!("unsupported Content-Encoding {name:?}, raw bytes kept");
                self.warnings.push(InputError::ContentDecodingFailed(msg));
                Content::Identity
            }
        };
        if self.scratch.len() < DECODE_SCRATCH && !matches!(self.content, Content::Identity) {
            self.scratch.resize(DECODE_SCRATCH, 0);
        }
    }

    fn decoding(&self) -> bool {
        self.chunk.is_some() || !matches!(self.content, Content::Identity)
    }

    /// Feeds the next raw payload bytes.
    pub(crate) fn push(&mut self, data: &[u8], cap: &mut Capture) {
        if !self.decoding() {
            cap.keep(data);
            return;
        }
        self.raw_size += data.len() as u64;
        let room = BODY_KEEP_CAP.saturating_sub(self.raw.len());
        self.raw
            .extend_from_slice(data.get(..room.min(data.len())).unwrap_or_default());
        if self.failed.is_some() {
            return;
        }
        let Some(mut chunk) = self.chunk else {
            self.content_push(data, cap);
            return;
        };
        let mut rest = data;
        while !rest.is_empty() && self.failed.is_none() {
            match chunk.step(rest) {
                Ok((n, is_data)) => {
                    let (piece, tail) = rest.split_at(n.min(rest.len()));
                    if is_data {
                        self.content_push(piece, cap);
                    }
                    rest = tail;
                }
                Err(why) => {
                    let msg = format!("{why}; raw bytes kept");
                    self.failed = Some(InputError::ChunkedMalformed(msg));
                }
            }
        }
        self.chunk = Some(chunk);
    }

    fn fail(&mut self, why: String) {
        let msg = format!("{why}; raw bytes kept");
        self.failed = Some(InputError::ContentDecodingFailed(msg));
    }

    /// Content-decodes dechunked bytes into the capture, stopping at the cap.
    fn content_push(&mut self, data: &[u8], cap: &mut Capture) {
        if self.stopped {
            return;
        }
        match self.content {
            Content::Identity => cap.keep(data),
            Content::Ended => {}
            Content::GzipHeader => {
                let before = self.hdr.len();
                self.hdr.extend_from_slice(data);
                match parse_gzip_header(&self.hdr) {
                    GzipHeader::Complete(n) => {
                        self.inflate.reset(false);
                        self.content = Content::Inflate;
                        let rest = data.get(n.saturating_sub(before)..).unwrap_or_default();
                        self.hdr.clear();
                        self.inflate_push(rest, cap);
                    }
                    GzipHeader::NeedMore if self.hdr.len() < CONTENT_GZIP_HEADER_MAX => {}
                    GzipHeader::NeedMore => self.fail("gzip header too long".to_owned()),
                    GzipHeader::Bad(why) => self.fail(format!("gzip: {why}")),
                }
            }
            Content::DeflateSniff => {
                self.hdr.extend_from_slice(data);
                if let [cmf, flg, ..] = self.hdr[..] {
                    // RFC 1950 header check; servers send raw deflate about as often.
                    let zlib = cmf & 0x0f == 8 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0;
                    self.inflate.reset(zlib);
                    self.content = Content::Inflate;
                    let buffered = std::mem::take(&mut self.hdr);
                    self.inflate_push(&buffered, cap);
                    self.hdr = buffered;
                    self.hdr.clear();
                }
            }
            Content::Inflate => self.inflate_push(data, cap),
            Content::Brotli(_) => self.brotli_push(data, cap),
        }
    }

    /// After output reached the cap: stop decoding, the size is a lower bound.
    fn stop_at_cap(&mut self, cap: &mut Capture) {
        self.stopped = true;
        cap.body_size_is_lower_bound = true;
        cap.body_cut_at_cap = true;
    }

    fn inflate_push(&mut self, data: &[u8], cap: &mut Capture) {
        let mut pos = 0;
        loop {
            let input = data.get(pos..).unwrap_or_default();
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let res = self
                .inflate
                .decompress(input, &mut self.scratch, FlushDecompress::None);
            let used = (self.inflate.total_in() - in0) as usize;
            let produced = (self.inflate.total_out() - out0) as usize;
            pos += used;
            cap.keep(self.scratch.get(..produced).unwrap_or_default());
            match res {
                Ok(Status::StreamEnd) => {
                    self.content = Content::Ended;
                    return;
                }
                Ok(_) => {}
                Err(e) => return self.fail(format!("inflate: {e}")),
            }
            if cap.body_full() {
                return self.stop_at_cap(cap);
            }
            if (pos >= data.len() && produced < self.scratch.len()) || (used == 0 && produced == 0)
            {
                return;
            }
        }
    }

    fn brotli_push(&mut self, data: &[u8], cap: &mut Capture) {
        let Content::Brotli(state) = &mut self.content else {
            return;
        };
        let mut pos = 0;
        loop {
            let mut avail_in = data.len().saturating_sub(pos);
            let mut in_off = pos;
            let mut avail_out = self.scratch.len();
            let mut out_off = 0;
            let mut total = 0;
            let res = BrotliDecompressStream(
                &mut avail_in,
                &mut in_off,
                data,
                &mut avail_out,
                &mut out_off,
                &mut self.scratch,
                &mut total,
                state,
            );
            pos = in_off;
            cap.keep(self.scratch.get(..out_off).unwrap_or_default());
            match res {
                BrotliResult::ResultSuccess => {
                    self.content = Content::Ended;
                    return;
                }
                BrotliResult::ResultFailure => {
                    return self.fail("brotli: corrupt stream".to_owned())
                }
                BrotliResult::NeedsMoreInput if pos >= data.len() => {
                    if cap.body_full() {
                        self.stop_at_cap(cap);
                    }
                    return;
                }
                BrotliResult::NeedsMoreInput | BrotliResult::NeedsMoreOutput => {}
            }
            if cap.body_full() {
                return self.stop_at_cap(cap);
            }
        }
    }

    /// Ends the body: falls back to the raw bytes after a failure, notes incomplete
    /// chunking or encoding as warnings.
    pub(crate) fn finish(&mut self, cap: &mut Capture) {
        if let Some(failure) = self.failed.take() {
            cap.body.clear();
            cap.body.extend_from_slice(&self.raw);
            cap.body_size = self.raw_size;
            cap.body_size_is_lower_bound = false;
            cap.body_cut_at_cap = self.raw_size > BODY_KEEP_CAP as u64;
            self.warnings.push(failure);
        } else if self.raw_size > 0 {
            // An empty body (HEAD, 204, 304) has nothing to be incomplete.
            if matches!(self.chunk, Some(c) if c != Chunk::Done) {
                self.warnings.push(InputError::ChunkedIncomplete);
            }
            if !self.stopped
                && matches!(
                    self.content,
                    Content::GzipHeader
                        | Content::DeflateSniff
                        | Content::Inflate
                        | Content::Brotli(_)
                )
            {
                let msg = "the encoded stream has no end; decoded part kept".to_owned();
                self.warnings
                    .push(InputError::ContentDecodingIncomplete(msg));
            }
        }
        // Drop per-body decoder state (the brotli tables) but keep the buffers.
        self.content = Content::Identity;
        self.chunk = None;
    }

    /// The warnings of the body (unsupported or failed decoding, incomplete chunking or
    /// encoding), in the order met.
    pub(crate) fn take_warnings(&mut self) -> std::vec::Drain<'_, InputError> {
        self.warnings.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `lines` cuts exactly where `split` at `\n` does, empty pieces included.
        #[test]
        fn lines_are_the_pieces_of_split(
            bytes in proptest::collection::vec(proptest::sample::select(b"a:\r\n \t".to_vec()), 0..40),
        ) {
            let by_split: Vec<&[u8]> = bytes.split(|&c| c == b'\n').collect();
            let by_memchr: Vec<&[u8]> = lines(&bytes).collect();
            proptest::prop_assert_eq!(by_memchr, by_split);
        }
    }
}
