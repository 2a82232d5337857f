//! WARC record framing: the decompressed stream in, one [`Event`] per record out.
//!
//! Hand-written for the quirks of real archives: version lines `WARC/0.18`, `1.0`,
//! `1.1`; header lines ending in LF, CRLF or CR CR LF; missing trailing CRLFs and NUL
//! padding between records (all skipped). When a record does not end where the next
//! `WARC/` line starts (a wrong Content-Length), the reader scans for the next line that
//! starts with a valid version line and reports the skipped bytes once. The block is
//! streamed: only the WARC and HTTP header blocks are held whole (each capped by
//! [`MAX_HEADER_BYTES`]); the body passes through [`BodyDecoder`] into the capture.

use super::decompress::Stream;
use super::error::InputError;
use super::http::{header_end, header_fields, parse_head, set_text, BodyDecoder, Coding, Encoding};
use super::{Capture, CaptureKind, CaptureReader, Event};
use crate::limits::MAX_HEADER_BYTES;

/// Bytes needed to judge a version line (`WARC/0.18\r\r\n` and some slack).
const VERSION_PROBE: usize = 32;

/// Does `b` start with a WARC version line (`WARC/<digits and dots>` then CR* LF)?
#[derive(Debug, PartialEq, Eq)]
enum Version {
    Yes,
    No,
    NeedMore,
}

fn version_line(b: &[u8]) -> Version {
    const MAGIC: &[u8] = b"WARC/";
    if b.len() < MAGIC.len() {
        return if MAGIC.starts_with(b) {
            Version::NeedMore
        } else {
            Version::No
        };
    }
    if !b.starts_with(MAGIC) {
        return Version::No;
    }
    let rest = b.get(MAGIC.len()..).unwrap_or_default();
    let digits = rest
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let after = rest.get(digits..).unwrap_or_default();
    let crs = after.iter().take_while(|&&c| c == b'\r').count();
    match after.get(crs) {
        _ if digits == 0 || digits > 8 => Version::No,
        Some(b'\n') => Version::Yes,
        Some(_) => Version::No,
        None => Version::NeedMore,
    }
}

fn is_separator(c: u8) -> bool {
    matches!(c, b'\r' | b'\n' | b'\0')
}

/// Is this an http(s) URI whose path ends with `/robots.txt`?
fn is_robots_uri(uri: &str) -> bool {
    let lower = uri.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
    else {
        return false;
    };
    let Some(slash) = rest.find('/') else {
        return false;
    };
    let path = rest.get(slash..).unwrap_or_default();
    let path = path.split(['?', '#']).next().unwrap_or_default();
    path.ends_with("/robots.txt")
}

/// The WARC header fields the reader needs beyond those copied into the capture.
#[derive(Default)]
struct RecordHead {
    warc_type: String,
    content_length: Option<u64>,
}

/// Reads WARC records from a decompressed stream.
pub(crate) struct WarcReader {
    s: Stream,
    body: BodyDecoder,
    head: RecordHead,
    /// The last event was a complete record, so junk now means its length was wrong.
    after_record: bool,
    /// `isPartOf` of the first warcinfo record: the input's crawl.
    is_part_of: Option<String>,
}

impl WarcReader {
    pub(crate) fn new(s: Stream) -> Self {
        Self {
            s,
            body: BodyDecoder::default(),
            head: RecordHead::default(),
            after_record: false,
            is_part_of: None,
        }
    }

    fn skip_separators(&mut self) {
        loop {
            let a = self.s.fill(1);
            let n = a.iter().take_while(|&&c| is_separator(c)).count();
            let all = n == a.len();
            self.s.consume(n);
            if !all || n == 0 {
                return;
            }
        }
    }

    /// Consumes bytes up to the next valid version line that starts a line (or follows
    /// separators); returns how many were skipped. Stops at a break or the end.
    fn resync(&mut self) -> u64 {
        let mut skipped = 0u64;
        let mut prev = b'\n';
        let mut first = true;
        loop {
            let a = self.s.fill(VERSION_PROBE.max(4096));
            if a.is_empty() {
                return skipped;
            }
            let mut found = None;
            let mut cut = a.len();
            for k in memchr::memmem::find_iter(a, b"WARC/") {
                if k == 0 && first {
                    continue; // The spot that just failed.
                }
                let before = if k == 0 {
                    prev
                } else {
                    a.get(k - 1).copied().unwrap_or(b'\n')
                };
                if !is_separator(before) {
                    continue;
                }
                match version_line(a.get(k..).unwrap_or_default()) {
                    Version::Yes => {
                        found = Some(k);
                        break;
                    }
                    // Keep the candidate for the next fill, unless it is all we have.
                    Version::NeedMore if k > 0 => {
                        cut = k;
                        break;
                    }
                    _ => {}
                }
            }
            if let Some(k) = found {
                self.s.consume(k);
                return skipped + k as u64;
            }
            // Keep a short tail so a magic cut by the refill is still seen.
            if cut == a.len() {
                cut = a.len().saturating_sub(4).max(1);
            }
            prev = a.get(cut - 1).copied().unwrap_or(b'\n');
            self.s.consume(cut);
            skipped += cut as u64;
            first = false;
        }
    }

    /// Reads the WARC header block into `cap` and `self.head`; `Err` is the record's event.
    fn read_header(&mut self, cap: &mut Capture) -> Result<(), Event> {
        let at = self.s.pos();
        let mut want = 4096;
        let len = loop {
            let a = self.s.fill(want);
            if let Some(n) = header_end(a) {
                break n;
            }
            if a.len() < want {
                let n = a.len();
                self.s.consume(n);
                return Err(self.truncated(at, "inside the WARC header block"));
            }
            if a.len() >= MAX_HEADER_BYTES {
                let skipped = self.resync();
                let msg = format!("header block over {MAX_HEADER_BYTES} bytes; skipped {skipped}");
                return Err(Event::Problem(InputError::WarcBadHeader(msg).at(at)));
            }
            want = (a.len() + 16 * 1024).min(MAX_HEADER_BYTES);
        };
        let block = self.s.avail().get(..len).unwrap_or_default();
        let first = block.split(|&c| c == b'\n').next().unwrap_or_default();
        set_text(&mut cap.warc_version, first.trim_ascii());
        self.head.warc_type.clear();
        self.head.content_length = None;
        for (name, value) in header_fields(block) {
            if name.eq_ignore_ascii_case(b"WARC-Type") {
                set_text(&mut self.head.warc_type, value);
            } else if name.eq_ignore_ascii_case(b"Content-Length") {
                self.head.content_length =
                    std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            } else if name.eq_ignore_ascii_case(b"WARC-Record-ID") {
                set_text(&mut cap.record_id, value);
            } else if name.eq_ignore_ascii_case(b"WARC-Target-URI") {
                // Some writers (wget, WARC 0.x) wrap the URI in <...>.
                let v = value
                    .strip_prefix(b"<")
                    .and_then(|v| v.strip_suffix(b">"))
                    .unwrap_or(value);
                set_text(&mut cap.target_uri, v.trim_ascii());
            } else if name.eq_ignore_ascii_case(b"WARC-Date") {
                set_text(&mut cap.warc_date, value);
            } else if name.eq_ignore_ascii_case(b"WARC-Truncated") {
                set_text(&mut cap.warc_truncated, value);
            } else if name.eq_ignore_ascii_case(b"WARC-Identified-Payload-Type") {
                set_text(&mut cap.identified_payload_type, value);
            }
        }
        self.s.consume(len);
        if self.head.content_length.is_none() {
            let skipped = self.resync();
            let msg = format!("missing or invalid Content-Length; skipped {skipped} bytes");
            return Err(Event::Problem(InputError::WarcBadHeader(msg).at(at)));
        }
        Ok(())
    }

    /// The record starting at `at` is cut by the end of the data (or a decompression
    /// break, whose problem is folded into this one).
    fn truncated(&mut self, at: u64, where_: &str) -> Event {
        let msg = match self.s.take_break() {
            Some(p) => format!("{where_}: {} ({})", p.message, p.code),
            None => format!("{where_}: end of input"),
        };
        self.after_record = false;
        Event::Problem(InputError::WarcTruncatedFile(msg).at(at))
    }

    /// Reads the HTTP head at the start of a block of `left` bytes; returns the coding
    /// and the bytes consumed.
    fn read_http_head(&mut self, left: u64, cap: &mut Capture) -> (Coding, u64) {
        let at = self.s.pos();
        let want = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(MAX_HEADER_BYTES);
        let a = self.s.fill(want);
        let region = a.get(..want.min(a.len())).unwrap_or_default();
        let identity = Coding {
            chunked: false,
            encoding: Encoding::Identity,
        };
        if !region.starts_with(b"HTTP/") {
            let shown = String::from_utf8_lossy(region.get(..40).unwrap_or(region)).into_owned();
            cap.warnings
                .push(InputError::HttpBadStatusLine(format!("{shown:?}")).at(at));
            return (identity, 0);
        }
        let len = match header_end(region) {
            Some(n) => n,
            // A head-only block (revisit, HEAD) may lack the blank line.
            None if region.len() as u64 == left => region.len(),
            None => {
                let msg = format!("no end of headers within {} bytes", region.len());
                cap.warnings.push(InputError::HttpBadHeader(msg).at(at));
                return (identity, 0);
            }
        };
        let coding = parse_head(region.get(..len).unwrap_or_default(), at, cap);
        self.s.consume(len);
        (coding, len as u64)
    }

    /// Streams `left` block bytes, into the body decoder when `keep`; `false` when the
    /// data ended first.
    fn stream_block(&mut self, mut left: u64, keep: bool, cap: &mut Capture) -> bool {
        while left > 0 {
            let a = self.s.fill(1);
            if a.is_empty() {
                return false;
            }
            let n = usize::try_from(left).unwrap_or(usize::MAX).min(a.len());
            if keep {
                self.body.push(a.get(..n).unwrap_or_default(), cap);
            }
            self.s.consume(n);
            left -= n as u64;
        }
        true
    }

    /// Reads one record whose version line is at the current position.
    fn read_record(&mut self, cap: &mut Capture) -> Event {
        let rec_start = self.s.pos();
        cap.clear();
        if let Err(event) = self.read_header(cap) {
            return event;
        }
        let block_len = self.head.content_length.unwrap_or(0);
        let kind = match self.head.warc_type.as_str() {
            "response" => Some(CaptureKind::Response),
            "revisit" => Some(CaptureKind::Revisit),
            "resource" if is_robots_uri(&cap.target_uri) => Some(CaptureKind::Resource),
            _ => None,
        };
        let warcinfo = kind.is_none() && self.head.warc_type == "warcinfo";
        let complete = match kind {
            // The first warcinfo block is kept for its isPartOf (the crawl).
            None if warcinfo && self.is_part_of.is_none() => {
                let coding = Coding {
                    chunked: false,
                    encoding: Encoding::Identity,
                };
                self.body.start(&coding, self.s.pos(), cap);
                let ok = self.stream_block(block_len, true, cap);
                self.body.finish(cap);
                self.is_part_of = Some(is_part_of(&cap.body).unwrap_or_default());
                cap.body.clear();
                ok
            }
            None => self.stream_block(block_len, false, cap),
            Some(CaptureKind::Resource) => {
                let coding = Coding {
                    chunked: false,
                    encoding: Encoding::Identity,
                };
                self.body.start(&coding, self.s.pos(), cap);
                let ok = self.stream_block(block_len, true, cap);
                self.body.finish(cap);
                ok
            }
            Some(_) => {
                let (coding, used) = self.read_http_head(block_len, cap);
                let left = block_len.saturating_sub(used);
                let is_revisit = kind == Some(CaptureKind::Revisit);
                self.body.start(&coding, self.s.pos(), cap);
                let ok = self.stream_block(left, !is_revisit, cap);
                self.body.finish(cap);
                if is_revisit {
                    // A revisit stores no payload; whatever follows the head is not one.
                    cap.body.clear();
                    cap.body_size = 0;
                    cap.body_cut_at_cap = false;
                    cap.body_size_is_lower_bound = false;
                }
                ok
            }
        };
        if !complete {
            return self.truncated(rec_start, "inside the WARC record block");
        }
        self.finish_record(rec_start, cap);
        match kind {
            Some(k) => {
                cap.kind = k;
                Event::Capture
            }
            None => Event::Skipped(self.head.warc_type.clone()),
        }
    }

    /// Checks that the next record starts right after this one and fills the offsets.
    fn finish_record(&mut self, rec_start: u64, cap: &mut Capture) {
        let block_end = self.s.pos();
        self.skip_separators();
        let next = self.s.fill(VERSION_PROBE);
        let aligned = next.is_empty() || version_line(next) != Version::No;
        self.after_record = true;
        if !aligned {
            let msg = format!("no WARC version line after the block (at byte {block_end})");
            cap.warnings
                .push(InputError::WarcLengthMismatch(msg).at(rec_start));
        }
        let rec_end = self.s.pos();
        let src = self.s.source();
        cap.stream_offset = rec_start;
        if src.is_plain() {
            cap.file_offset = rec_start;
            cap.file_length = rec_end - rec_start;
        } else {
            let (offset, length) = src.span(rec_start, rec_end).unwrap_or((rec_start, 0));
            cap.file_offset = offset;
            cap.file_length = length;
        }
    }
}

/// The `isPartOf` field of a warcinfo block (`application/warc-fields` lines).
fn is_part_of(block: &[u8]) -> Option<String> {
    block.split(|&b| b == b'\n').find_map(|line| {
        let (key, value) = std::str::from_utf8(line).ok()?.split_once(':')?;
        let value = value.trim();
        (key.trim().eq_ignore_ascii_case("isPartOf") && !value.is_empty()).then(|| value.to_owned())
    })
}

impl CaptureReader for WarcReader {
    fn crawl(&self) -> Option<String> {
        self.is_part_of.clone().filter(|c| !c.is_empty())
    }

    fn next_event(&mut self, capture: &mut Capture) -> Option<Event> {
        self.skip_separators();
        if let Some(p) = self.s.take_break() {
            self.after_record = false;
            return Some(Event::Problem(p));
        }
        let head = self.s.fill(VERSION_PROBE);
        if head.is_empty() {
            // The end, or a break that take_break will report on the next call.
            return if self.s.at_eof() {
                None
            } else {
                self.next_event(capture)
            };
        }
        match version_line(head) {
            Version::Yes => Some(self.read_record(capture)),
            _ => {
                let at = self.s.pos();
                let skipped = self.resync();
                if let Some(mut p) = self.s.take_break() {
                    // Junk that runs into a decompression break is usually the garbage a
                    // corrupt member decoded to: one problem, not two.
                    p.message = format!("{} (after {skipped} undecodable bytes)", p.message);
                    self.after_record = false;
                    return Some(Event::Problem(p));
                }
                let e = if self.after_record {
                    InputError::WarcLengthMismatch(format!(
                        "{skipped} bytes between the end of a record and the next WARC/ line"
                    ))
                } else {
                    InputError::WarcBadHeader(format!("{skipped} bytes without a WARC/ line"))
                };
                self.after_record = false;
                Some(Event::Problem(e.at(at)))
            }
        }
    }

    fn bytes_read(&self) -> u64 {
        self.s.source().compressed_pos()
    }
}
