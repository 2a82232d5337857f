//! Input stage: files (local or remote) in, [`Capture`]s out.
//!
//! ```text
//! file | store::RemoteRead -> buffer -> detect (magic bytes)
//!      -> decompress (gzip members | zstd frames | plain)
//!      -> warc (record framing) -> http (status, headers, chunked, content-encoding)
//!      or csv (header row, chosen columns)
//!      -> Capture (reused buffer, body kept up to limits::BODY_KEEP_CAP)
//! ```
//!
//! The pipeline calls [`open_location`] (local files opened directly, remote objects
//! through the store layer, each sniffed by [`open_read`]) and then
//! [`CaptureReader::next_event`] until it
//! returns `None`. Every record yields exactly one [`Event`]; problems never stop the
//! reader, they become `Problem` events (or `warnings` of a capture) and reading goes on.
//! Memory per reader is bounded (a few buffers of at most a few hundred KiB) whatever
//! the input, and nothing reads a whole file or a whole body into memory.

mod buffer;
mod csv;
mod decompress;
mod detect;
mod error;
mod framed;
mod gzip_members;
mod http;
mod open;
mod scan;
mod warc;
mod whole_member;
mod zstd_frames;

use std::io::Read;
use std::path::Path;

pub use error::InputError;
pub use open::{open_location, Unreadable};
pub use whole_member::WholeInflater;

/// What kind of record a [`Capture`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptureKind {
    /// WARC `response` record (HTTP status, headers and body).
    #[default]
    Response,
    /// WARC `resource` record whose target URI is an http(s) `/robots.txt`.
    Resource,
    /// WARC `revisit` record: a re-fetch with no body stored.
    Revisit,
    /// One row of a CSV dump.
    CsvRow,
}

/// One robots.txt capture, reused across records: [`Capture::clear`], then refill, so
/// the body buffer is allocated once per reader, not once per record.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    pub kind: CaptureKind,
    /// Where the record's bytes start in the input file: the start of its gzip member /
    /// zstd frame when the record starts one; else the uncompressed offset. CSV: the
    /// byte offset of the row in the (decompressed) stream.
    pub file_offset: u64,
    /// Bytes of the file to re-fetch the record: member/frame length(s) for per-record
    /// compression, record length for plain WARC, row length for plain CSV; 0 when not
    /// knowable (e.g. whole-file gzip).
    pub file_length: u64,
    /// Offset of the record in the decompressed stream: unique per record in the file.
    pub stream_offset: u64,
    /// CSV: 1-based line of the row; WARC: 0.
    pub line: u64,
    pub record_id: String,
    pub target_uri: String,
    pub warc_date: String,
    /// `WARC-Truncated` value, empty when absent.
    pub warc_truncated: String,
    /// `WARC-Identified-Payload-Type` value, empty when absent.
    pub identified_payload_type: String,
    pub http_status: Option<u16>,
    /// A status was given but is not one (`abc`, `-1`, `1e3` in a CSV status cell): the
    /// capture must not be taken for a robots.txt. A warning says what the cell held.
    pub status_invalid: bool,
    pub http_content_type: String,
    /// `X-Crawler-Content-Encoding` (the original header Common Crawl renamed).
    pub crawler_content_encoding: String,
    /// HTTP `Location` header as sent (a redirect's target, possibly relative); empty when absent.
    pub http_location: String,
    /// Decoded payload, at most [`crate::limits::BODY_KEEP_CAP`] bytes.
    pub body: Vec<u8>,
    /// Full decoded payload size seen (counted past the cap). When content-decoding
    /// stopped at the cap, the bytes decoded before stopping, and
    /// `body_size_is_lower_bound` is set.
    pub body_size: u64,
    pub body_size_is_lower_bound: bool,
    /// The payload was longer than the cap and `body` holds only its start.
    pub body_cut_at_cap: bool,
    /// Problems that did not prevent the capture (bad chunking, failed decoding, ...).
    pub warnings: Vec<InputProblem>,
}

impl Capture {
    /// Empties every field, keeping the allocations.
    pub fn clear(&mut self) {
        self.kind = CaptureKind::Response;
        self.file_offset = 0;
        self.file_length = 0;
        self.stream_offset = 0;
        self.line = 0;
        self.record_id.clear();
        self.target_uri.clear();
        self.warc_date.clear();
        self.warc_truncated.clear();
        self.identified_payload_type.clear();
        self.http_status = None;
        self.status_invalid = false;
        self.http_content_type.clear();
        self.crawler_content_encoding.clear();
        self.http_location.clear();
        self.body.clear();
        self.body_size = 0;
        self.body_size_is_lower_bound = false;
        self.body_cut_at_cap = false;
        self.warnings.clear();
    }

    /// Appends decoded payload bytes: kept up to the cap, always counted.
    pub(crate) fn keep(&mut self, bytes: &[u8]) {
        self.body_size += bytes.len() as u64;
        let room = crate::limits::BODY_KEEP_CAP.saturating_sub(self.body.len());
        let take = room.min(bytes.len());
        self.body
            .extend_from_slice(bytes.get(..take).unwrap_or_default());
        if take < bytes.len() {
            self.body_cut_at_cap = true;
        }
    }

    /// True once `body` holds [`crate::limits::BODY_KEEP_CAP`] bytes.
    pub(crate) fn body_full(&self) -> bool {
        self.body.len() >= crate::limits::BODY_KEEP_CAP
    }
}

/// A problem met while reading: where, a stable code, and a human message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputProblem {
    /// Byte of the input file that locates the problem (`errors.file_offset`): in a
    /// plain input the byte itself (inside the record, or the first byte skipped); in a
    /// compressed input the start of the gzip member or zstd frame holding it, or the
    /// first byte of junk skipped between members / frames.
    pub offset: u64,
    /// For a problem found in the data of a compressed input: its position in the
    /// decompressed stream (`errors.stream_offset`); for a corrupt member or frame, the
    /// decoded position reached. None in a plain input (`offset` is the byte) and for
    /// problems outside the decoded data (junk, headers of members / frames).
    pub stream_offset: Option<u64>,
    /// Stable snake_case code, see [`InputError::code`].
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}: {}", self.code, self.offset, self.message)
    }
}

impl std::error::Error for InputProblem {}

impl InputProblem {
    /// This problem, found at `stream_offset` of the decompressed stream.
    pub(crate) fn in_stream(mut self, stream_offset: u64) -> Self {
        self.stream_offset = Some(stream_offset);
        self
    }

    /// Appends the messages of `others` (emptied) to this one: several problems of one
    /// record or range make one event, so a record is counted once.
    pub(crate) fn absorb(&mut self, others: &mut Vec<InputProblem>) {
        for o in others.drain(..) {
            self.message = format!("{}; also {}: {}", self.message, o.code, o.message);
        }
    }
}

/// What one call of [`CaptureReader::next_event`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The `capture` argument was filled with a robots.txt capture.
    Capture,
    /// A record that is not a capture; the WARC-Type (empty when absent).
    Skipped(String),
    /// A record that could not be read, or bytes skipped while resynchronising.
    Problem(InputProblem),
}

/// Which CSV columns hold what, chosen by header name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    pub url_column: String,
    pub body_column: String,
    /// Optional in the file: when absent, `http_status` is `None`.
    pub status_column: String,
    /// When set, this column's host stands in for the URL as `https://<host>/robots.txt`.
    pub host_column: Option<String>,
    /// A redirect's `Location`, optional in the file (as the header of a WARC record).
    pub location_column: String,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            url_column: "url".to_owned(),
            body_column: "body".to_owned(),
            status_column: "status".to_owned(),
            host_column: None,
            location_column: "location".to_owned(),
        }
    }
}

/// How inputs are read: CSV columns, and the largest zstd window a frame may ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    pub csv: CsvOptions,
    /// log2 of the largest zstd window accepted (`--zstd-window-log-max`); a frame asking
    /// for more is a `zstd_corrupt_frame` row and the reader goes on at the next frame.
    pub zstd_window_log_max: u32,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            csv: CsvOptions::default(),
            zstd_window_log_max: crate::limits::ZSTD_WINDOW_LOG_DEFAULT,
        }
    }
}

/// A stream of [`Event`]s from one input.
pub trait CaptureReader: Send {
    /// The next event, `None` at end of input. Every record seen yields exactly one
    /// event (so seen = captures + skipped + problems); a problem not tied to a record
    /// (junk bytes skipped while resynchronising) is also one `Problem` event.
    fn next_event(&mut self, capture: &mut Capture) -> Option<Event>;
    /// Compressed bytes consumed so far (for progress).
    fn bytes_read(&self) -> u64;
    /// The crawl the input says it belongs to: the `isPartOf` of the first
    /// warcinfo record read so far (WARC only).
    fn crawl(&self) -> Option<String> {
        None
    }
}

/// Opens `path`, sniffs its format from the content (the extension is only a hint)
/// and returns a reader of its captures: [`open_location`] of a local path, for the
/// readers' tests.
#[cfg(test)]
pub fn open_input(path: &Path, opts: &ReadOptions) -> Result<Box<dyn CaptureReader>, InputProblem> {
    let file = open_file(path)?;
    open_read(Box::new(file), &file_name(path), opts)
}

/// Opens a local input file; the error is about the file as a whole (nothing was read).
fn open_file(path: &Path) -> Result<std::fs::File, InputProblem> {
    // A FIFO or a device would block `open` or never end: only regular files are read.
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(InputError::Unreadable(format!(
                "{}: not a regular file (a directory, FIFO, socket or device is not read)",
                path.display()
            ))
            .at(0));
        }
    }
    std::fs::File::open(path)
        .map_err(|e| InputError::Unreadable(format!("{}: {e}", path.display())).at(0))
}

/// The name of `path` (its last component), a format hint.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Sniffs the format of any byte stream from its content and returns a reader of its
/// captures; `name_hint` (a file name) is used only
/// when the content does not decide the format (e.g. an empty or corrupt start).
pub fn open_read(
    reader: Box<dyn Read + Send>,
    name_hint: &str,
    opts: &ReadOptions,
) -> Result<Box<dyn CaptureReader>, InputProblem> {
    let stream = decompress::open_stream(reader, name_hint, opts.zstd_window_log_max)?;
    match detect::container(stream, name_hint) {
        (detect::Container::Warc, stream) => Ok(Box::new(warc::WarcReader::new(stream))),
        (detect::Container::Csv, stream) => Ok(Box::new(csv::CsvReader::new(stream, &opts.csv)?)),
    }
}

#[cfg(test)]
mod tests;
