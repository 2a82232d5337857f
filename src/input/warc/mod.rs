//! WARC record framing: the decompressed stream in, one [`Event`] per record out.
//!
//! Hand-written for the quirks of real archives: version lines `WARC/0.18`, `1.0`,
//! `1.1`; header lines ending in LF, CRLF or CR CR LF; missing trailing CRLFs and a few
//! NUL bytes between records (skipped). The block is streamed: only the WARC and HTTP
//! header blocks are held whole (each capped by [`MAX_HEADER_BYTES`]); the body passes
//! through [`BodyDecoder`] into the capture.
//!
//! Damage never makes a record vanish silently; every byte the reader passes over is
//! either in a record or in a reported range:
//! - junk where a record should start, or a header cut by a NUL byte or by the next
//!   record: the reader scans for the next valid version line (anywhere: the byte before
//!   it may be the damaged one) and reports the skipped range once;
//! - a run of NUL / CR / LF longer than [`MAX_RECORD_GAP`] (a zero-filled record, a
//!   file cut and padded) is one `warc_padding` problem with its offset and length;
//! - a Content-Length too large: while a block streams, a valid version line that
//!   starts a line or a gzip member / zstd frame is a resync point unless the declared
//!   end lands cleanly (CRLF CRLF and the next record, or the end of the data); the
//!   damaged record ends there with a `warc_length_mismatch` warning and the later
//!   records are read as usual (`block.rs`);
//! - notices of the decompressor (a bad gzip CRC) go to the record holding the member's
//!   last byte: a warning of a capture, or the one problem of a record that is no capture.

use super::decompress::{take_notices, Stream};
use super::error::InputError;
use super::http::{header_end, header_fields, set_text, BodyDecoder, Coding, Encoding};
use super::scan::{is_separator, version_line, warc_slashes, Version, VERSION_PROBE};
use super::{Capture, CaptureKind, CaptureReader, Event, InputProblem};
use crate::limits::{MAX_HEADER_BYTES, MAX_RECORD_GAP};

mod block;
use block::BlockEnd;

/// Where a header block must end at the latest in `a` (which starts with a version
/// line), and why: the first NUL byte, or the first later version line (complete or cut
/// by the end of `a`) that starts a line or a member / frame (`unit_at`).
fn header_damage(a: &[u8], unit_at: impl Fn(usize) -> bool) -> (usize, Option<&'static str>) {
    let nul = memchr::memchr(0, a);
    let version = warc_slashes(a)
        .filter(|&k| k > 0 && (a.get(k - 1) == Some(&b'\n') || unit_at(k)))
        .find(|&k| version_line(a.get(k..).unwrap_or_default()) != Version::No);
    match (nul, version) {
        (Some(n), Some(v)) if v < n => (v, Some("another WARC/ line")),
        (Some(n), _) => (n, Some("a NUL byte")),
        (None, Some(v)) => (v, Some("another WARC/ line")),
        (None, None) => (a.len(), None),
    }
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
    /// Stream offset of the record's version line.
    start: u64,
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
    /// Where the separator bytes after the last record's block start: the run is
    /// measured (and reported when too long) at the next event.
    gap_start: Option<u64>,
    /// Decompressor notices taken for the current event (reused buffer).
    notes: Vec<InputProblem>,
}

impl WarcReader {
    pub(crate) fn new(s: Stream) -> Self {
        Self {
            s,
            body: BodyDecoder::default(),
            head: RecordHead::default(),
            after_record: false,
            is_part_of: None,
            gap_start: None,
            notes: Vec::new(),
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

    /// Consumes bytes up to the next valid version line; returns how many were skipped.
    /// Stops at a break or the end. A version line at the current position counts only
    /// when `here_ok` (else it is the spot that just failed). The line need not start a
    /// line: the skipped bytes are damaged already, and the byte before the next record
    /// may be the damaged one.
    fn resync(&mut self, here_ok: bool) -> u64 {
        let mut skipped = 0u64;
        let mut first = !here_ok;
        loop {
            let a = self.s.fill(VERSION_PROBE.max(4096));
            if a.is_empty() {
                return skipped;
            }
            let mut found = None;
            let mut cut = a.len();
            for k in warc_slashes(a) {
                if k == 0 && first {
                    continue; // The spot that just failed.
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
            self.s.fill(want);
            let (a, src) = (self.s.avail(), self.s.source());
            // A header ends at its blank line; a NUL byte or another version line before
            // it means the header was blanked or cut, and the next record may follow.
            // Only bytes before the first blank line can cut the header: the search
            // for damage stops there instead of running on through the record's block.
            // Damage found there lies before the blank line, so it cuts the header.
            let end = header_end(a);
            let (stop, why) = header_damage(&a[..end.unwrap_or(a.len())], |k| {
                src.starts_unit(at + k as u64)
            });
            if let (None, Some(n)) = (why, end) {
                break n;
            }
            if let Some(why) = why {
                self.s.consume(stop);
                self.resync(true);
                let to = self.s.pos();
                let msg = format!(
                    "header at byte {at} cut by {why} at byte {}; bytes {at}..{to} of the {} \
                     skipped",
                    at + stop as u64,
                    self.stream_name()
                );
                return Err(Event::Problem(
                    self.problem_at(InputError::WarcBadHeader(msg), at),
                ));
            }
            if a.len() < want {
                let n = a.len();
                self.s.consume(n);
                return Err(self.truncated(at, "inside the WARC header block"));
            }
            if a.len() >= MAX_HEADER_BYTES {
                let skipped = self.resync(false);
                let msg = format!("header block over {MAX_HEADER_BYTES} bytes; skipped {skipped}");
                return Err(Event::Problem(
                    self.problem_at(InputError::WarcBadHeader(msg), at),
                ));
            }
            want = (a.len() + 16 * 1024).min(MAX_HEADER_BYTES);
        };
        let block = self.s.avail().get(..len).unwrap_or_default();
        // WARC headers are UTF-8 (WARC 1.1 section 4). Bytes that are not (a run of 0xFF
        // over a header, say) mean the header was overwritten: its fields, Content-Length
        // included, may be another record's, and trusting them would read that record's
        // block as this one's and lose the records in between without a word.
        if let Err(e) = std::str::from_utf8(block) {
            let bad = e.valid_up_to();
            self.s.consume(bad);
            self.resync(false);
            let to = self.s.pos();
            let msg = format!(
                "header at byte {at} holds bytes that are not UTF-8 from byte {} (damaged); \
                 bytes {at}..{to} of the {} skipped",
                at + bad as u64,
                self.stream_name()
            );
            return Err(Event::Problem(
                self.problem_at(InputError::WarcBadHeader(msg), at),
            ));
        }
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
            // The header block is consumed: a version line right here starts the next
            // record (a damaged member ending where the next one begins), it is not the
            // spot that failed.
            let skipped = self.resync(true);
            let msg = format!("missing or invalid Content-Length; skipped {skipped} bytes");
            return Err(Event::Problem(
                self.problem_at(InputError::WarcBadHeader(msg), at),
            ));
        }
        Ok(())
    }

    /// The record starting at `at` is cut by the end of the data (or a decompression
    /// break, whose problem is folded into this one).
    /// A break that is corruption (not the end of the file) keeps its own code: the
    /// record was cut by a corrupt member / frame, and the message says which record.
    fn truncated(&mut self, at: u64, where_: &str) -> Event {
        let range = format!("bytes {at}..{} of the {}", self.s.pos(), self.stream_name());
        self.after_record = false;
        let end_of_file = ["gzip_truncated_member", "zstd_truncated_frame"];
        let msg = match self.s.take_break() {
            Some(mut p) if !end_of_file.contains(&p.code) => {
                p.message = format!("{}; it cut a WARC record {where_} ({range})", p.message);
                return Event::Problem(p);
            }
            Some(p) => format!("{where_} ({range}): {} ({})", p.message, p.code),
            None => format!("{where_} ({range}): end of input"),
        };
        Event::Problem(self.problem_at(InputError::WarcTruncatedFile(msg), at))
    }

    /// Reads one record whose version line is at the current position.
    fn read_record(&mut self, cap: &mut Capture) -> Event {
        let rec_start = self.s.pos();
        self.head.start = rec_start;
        cap.clear();
        if let Err(event) = self.read_header(cap) {
            return event;
        }
        let block_len = self.head.content_length.unwrap_or(0);
        let block_start = self.s.pos();
        let end = block_start.saturating_add(block_len);
        let kind = match self.head.warc_type.as_str() {
            "response" => Some(CaptureKind::Response),
            "revisit" => Some(CaptureKind::Revisit),
            "resource" if is_robots_uri(&cap.target_uri) => Some(CaptureKind::Resource),
            _ => None,
        };
        let warcinfo = kind.is_none() && self.head.warc_type == "warcinfo";
        let outcome = match kind {
            // The first warcinfo block is kept for its isPartOf (the crawl).
            None if warcinfo && self.is_part_of.is_none() => {
                let coding = Coding {
                    chunked: false,
                    encoding: Encoding::Identity,
                };
                let outcome = self.stream_body(&coding, end, true, cap);
                self.is_part_of = Some(is_part_of(&cap.body).unwrap_or_default());
                cap.body.clear();
                outcome
            }
            None => self.stream_block(end, false, cap),
            Some(CaptureKind::Resource) => {
                let coding = Coding {
                    chunked: false,
                    encoding: Encoding::Identity,
                };
                self.stream_body(&coding, end, true, cap)
            }
            Some(_) => {
                let (coding, _) = self.read_http_head(block_len, cap);
                let is_revisit = kind == Some(CaptureKind::Revisit);
                let outcome = self.stream_body(&coding, end, !is_revisit, cap);
                if is_revisit {
                    // A revisit stores no payload; whatever follows the head is not one.
                    cap.body.clear();
                    cap.body_size = 0;
                    cap.body_cut_at_cap = false;
                    cap.body_size_is_lower_bound = false;
                }
                outcome
            }
        };
        match outcome {
            BlockEnd::Ended => return self.truncated(rec_start, "inside the WARC record block"),
            BlockEnd::Cut(at) => {
                let msg = format!(
                    "Content-Length {block_len} runs past the WARC/ line at byte {at}, where \
                     the next record starts; this record was ended there after {} of its \
                     declared bytes",
                    at - block_start
                );
                cap.warnings
                    .push(self.problem_at(InputError::WarcLengthMismatch(msg), rec_start));
            }
            BlockEnd::Complete => {}
        }
        self.finish_record(rec_start, cap, outcome);
        match kind {
            Some(k) => {
                cap.kind = k;
                Event::Capture
            }
            None => Event::Skipped(self.head.warc_type.clone()),
        }
    }

    /// Streams the rest of the block up to `end` through the body decoder (into the
    /// capture when `keep`); its warnings are located at the body's first byte (at the
    /// record's start when the body is empty: a byte of the record either way).
    fn stream_body(
        &mut self,
        coding: &Coding,
        end: u64,
        keep: bool,
        cap: &mut Capture,
    ) -> BlockEnd {
        let at = self.s.pos();
        self.body.start(coding);
        let outcome = self.stream_block(end, keep, cap);
        self.body.finish(cap);
        let at = if self.s.pos() > at {
            at
        } else {
            self.head.start
        };
        let src = self.s.source();
        cap.warnings
            .extend(self.body.take_warnings().map(|e| src.problem_at(e, at)));
        outcome
    }

    /// Checks that the next record starts right after this one and fills the offsets.
    fn finish_record(&mut self, rec_start: u64, cap: &mut Capture, outcome: BlockEnd) {
        let block_end = self.s.pos();
        self.gap_start = Some(block_end);
        self.skip_separators();
        let next = self.s.fill(VERSION_PROBE);
        let aligned = next.is_empty() || version_line(next) != Version::No;
        self.after_record = true;
        if !aligned && outcome == BlockEnd::Complete {
            let msg = format!("no WARC version line after the block (at byte {block_end})");
            cap.warnings
                .push(self.problem_at(InputError::WarcLengthMismatch(msg), rec_start));
        }
        let mut rec_end = self.s.pos();
        let src = self.s.source();
        cap.stream_offset = rec_start;
        if src.is_plain() {
            if rec_end - block_end > MAX_RECORD_GAP {
                // Padding after the record is reported on its own, not re-fetched with it.
                rec_end = block_end;
            }
            cap.file_offset = rec_start;
            cap.file_length = rec_end - rec_start;
        } else {
            let (offset, length) = src.span(rec_start, rec_end).unwrap_or((rec_start, 0));
            cap.file_offset = offset;
            cap.file_length = length;
        }
    }

    /// Takes the decompressor notices up to the current position into `self.notes`.
    fn take_notes(&mut self) {
        self.notes.clear();
        let upto = self.s.pos();
        take_notices(&mut self.s, upto, &mut self.notes);
    }

    /// `p` with the taken notices appended to its message (one record, one event).
    fn fold_notes(&mut self, mut p: InputProblem) -> InputProblem {
        p.absorb(&mut self.notes);
        p
    }

    /// The event of a record just read, with the notices of the members it ended.
    fn with_notes(&mut self, event: Event, cap: &mut Capture) -> Event {
        self.take_notes();
        match event {
            Event::Capture => {
                cap.warnings.append(&mut self.notes);
                Event::Capture
            }
            Event::Skipped(kind) if cap.warnings.is_empty() && self.notes.is_empty() => {
                Event::Skipped(kind)
            }
            // A damaged record that is no capture has no document to carry a warning:
            // it is one problem instead of a skip.
            Event::Skipped(kind) => {
                cap.warnings.append(&mut self.notes);
                let mut first = cap.warnings.remove(0);
                first.message = format!("{kind:?} record: {}", first.message);
                self.notes.append(&mut cap.warnings);
                Event::Problem(self.fold_notes(first))
            }
            Event::Problem(p) => Event::Problem(self.fold_notes(p)),
        }
    }

    /// The `warc_padding` problem for the separator bytes `from..to`.
    fn padding(&mut self, from: u64, to: u64) -> Event {
        self.after_record = false;
        let msg = format!(
            "{} bytes of NUL/CR/LF at bytes {from}..{to} of the {}",
            to - from,
            self.stream_name()
        );
        self.take_notes();
        Event::Problem(self.fold_notes(self.problem_at(InputError::WarcPadding(msg), from)))
    }

    /// A problem of the WARC or HTTP layer at stream offset `at`, located in the file
    /// (`errors.file_offset` is a byte of the input file): `at` itself for a plain input,
    /// else the start of the gzip member / zstd frame holding that byte, `at` kept as
    /// its stream offset.
    fn problem_at(&self, e: InputError, at: u64) -> InputProblem {
        self.s.source().problem_at(e, at)
    }

    fn stream_name(&self) -> &'static str {
        if self.s.source().is_plain() {
            "file"
        } else {
            "decompressed stream"
        }
    }

    /// Junk where a record should start, from `from`: skipped up to the next version line.
    fn junk(&mut self, from: u64) -> Event {
        self.resync(false);
        let to = self.s.pos();
        let skipped = to - from;
        self.take_notes();
        if let Some(mut p) = self.s.take_break() {
            // Junk that runs into a decompression break is usually the garbage a corrupt
            // member decoded to: one problem, not two.
            p.message = format!("{} (after {skipped} undecodable bytes)", p.message);
            self.after_record = false;
            return Event::Problem(self.fold_notes(p));
        }
        let range = format!("bytes {from}..{to} of the {}", self.stream_name());
        let e = if self.after_record {
            InputError::WarcLengthMismatch(format!(
                "{skipped} bytes ({range}) between the end of a record and the next WARC/ line"
            ))
        } else {
            InputError::WarcBadHeader(format!("{skipped} bytes ({range}) without a WARC/ line"))
        };
        self.after_record = false;
        Event::Problem(self.fold_notes(self.problem_at(e, from)))
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
        let gap_from = self.gap_start.take().unwrap_or_else(|| self.s.pos());
        self.skip_separators();
        let pos = self.s.pos();
        let gap = pos - gap_from;
        if let Some(mut p) = self.s.take_break() {
            self.after_record = false;
            if gap > MAX_RECORD_GAP {
                p.message = format!("{} (after {gap} bytes of NUL/CR/LF)", p.message);
            }
            self.take_notes();
            return Some(Event::Problem(self.fold_notes(p)));
        }
        let head = self.s.fill(VERSION_PROBE);
        if head.is_empty() {
            if !self.s.at_eof() {
                // A break that take_break will report on the next call.
                self.gap_start = Some(gap_from);
                return self.next_event(capture);
            }
            if gap > MAX_RECORD_GAP {
                return Some(self.padding(gap_from, pos));
            }
            // Notices of members that held no record (only separators).
            self.notes.clear();
            take_notices(&mut self.s, u64::MAX, &mut self.notes);
            if self.notes.is_empty() {
                return None;
            }
            let first = self.notes.remove(0);
            return Some(Event::Problem(self.fold_notes(first)));
        }
        match version_line(head) {
            Version::Yes if gap > MAX_RECORD_GAP => Some(self.padding(gap_from, pos)),
            Version::Yes => {
                self.take_notes();
                if !self.notes.is_empty() {
                    // Members that ended before this record, in the separators.
                    let first = self.notes.remove(0);
                    return Some(Event::Problem(self.fold_notes(first)));
                }
                let event = self.read_record(capture);
                Some(self.with_notes(event, capture))
            }
            _ => Some(self.junk(gap_from)),
        }
    }

    fn bytes_read(&self) -> u64 {
        self.s.source().compressed_pos()
    }
}
