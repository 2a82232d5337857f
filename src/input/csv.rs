//! CSV dumps of robots.txt bodies: header row + rows in, one [`Event`] per row out.
//!
//! Columns are chosen by header name ([`CsvOptions`]). The parser is a small RFC 4180
//! state machine written here rather than the `csv` crate, because that crate holds a
//! whole record in memory and a body cell can be 100 MB: here every field streams, the
//! body into [`Capture::keep`] (capped), the URL/host and status into small capped
//! buffers, and unused columns are only counted. Quoted fields may span lines; a row
//! with the wrong number of fields is one `csv_bad_row` problem and the next row is read.

use super::decompress::Stream;
use super::error::InputError;
use super::{Capture, CaptureKind, CaptureReader, CsvOptions, Event, InputProblem};
use crate::limits::MAX_HEADER_BYTES;

/// Longest URL/host cell kept (longer ones are cut and warned about).
const URL_CAP: usize = MAX_HEADER_BYTES;
/// Longest status cell kept: a status is 3 digits, anything longer is not a status.
const STATUS_CAP: usize = 16;
/// Longest header-row cell kept (column names).
const NAME_CAP: usize = 1024;
/// Column names remembered; later columns can still be counted but not chosen.
const MAX_COLUMNS: usize = 4096;

/// Which field goes where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Url,
    Host,
    Body,
    Status,
    Ignore,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    FieldStart,
    Unquoted,
    Quoted,
    /// A `"` inside a quoted field: either an escaped quote or the closing one.
    QuoteInQuoted,
}

/// How a row ended.
enum RowEnd {
    /// A complete row with this many fields (0: a blank line).
    Row(usize),
    /// End of input before any byte of a row.
    Eof,
    /// End of input inside a quoted field.
    Unterminated,
    /// A decompression break cut the row.
    Break(InputProblem),
}

/// Per-row field buffers, reused.
#[derive(Default)]
struct Row {
    url: Vec<u8>,
    status: Vec<u8>,
    /// Column names, filled only while reading the header row.
    names: Vec<Vec<u8>>,
    header_mode: bool,
    field_cut: bool,
}

impl Row {
    fn push(&mut self, dest: Dest, field: usize, bytes: &[u8], cap: &mut Capture) {
        if self.header_mode {
            if field >= MAX_COLUMNS {
                return;
            }
            if field >= self.names.len() {
                self.names.resize_with(field + 1, Vec::new);
            }
            if let Some(name) = self.names.get_mut(field) {
                append_capped(name, bytes, NAME_CAP);
            }
            return;
        }
        let cut = match dest {
            Dest::Url | Dest::Host => append_capped(&mut self.url, bytes, URL_CAP),
            Dest::Status => append_capped(&mut self.status, bytes, STATUS_CAP),
            Dest::Body => {
                cap.keep(bytes);
                false
            }
            Dest::Ignore => false,
        };
        self.field_cut |= cut && dest != Dest::Status;
    }
}

/// Appends up to `limit` total bytes; true when bytes were dropped.
fn append_capped(dst: &mut Vec<u8>, bytes: &[u8], limit: usize) -> bool {
    let room = limit.saturating_sub(dst.len());
    let take = room.min(bytes.len());
    dst.extend_from_slice(bytes.get(..take).unwrap_or_default());
    take < bytes.len()
}

/// Reads captures from a CSV stream.
pub(crate) struct CsvReader {
    s: Stream,
    dests: Vec<Dest>,
    row: Row,
    /// 1-based line of the next byte.
    line: u64,
    use_host: bool,
    /// Fields in the header row: every row must have as many.
    fields: usize,
}

impl CsvReader {
    /// Reads the header row and resolves the columns; a missing column is an error for
    /// the whole file (every row would fail).
    pub(crate) fn new(s: Stream, opts: &CsvOptions) -> Result<Self, InputProblem> {
        let mut r = Self {
            s,
            dests: Vec::new(),
            row: Row::default(),
            line: 1,
            use_host: opts.host_column.is_some(),
            fields: 0,
        };
        // A UTF-8 BOM before the header would otherwise glue onto the first name.
        if r.s.fill(3).starts_with(b"\xEF\xBB\xBF") {
            r.s.consume(3);
        }
        r.row.header_mode = true;
        let mut scratch = Capture::default();
        let end = loop {
            match r.read_row(&mut scratch) {
                RowEnd::Row(0) => continue,
                other => break other,
            }
        };
        r.row.header_mode = false;
        match end {
            RowEnd::Row(n) => r.fields = n,
            RowEnd::Eof => return Ok(r), // An empty file: no rows.
            RowEnd::Unterminated => {
                return Err(
                    InputError::CsvBadRow("unterminated quote in the header row".into()).at(0),
                )
            }
            RowEnd::Break(p) => return Err(p),
        }
        let names: Vec<String> = r
            .row
            .names
            .iter()
            .map(|n| String::from_utf8_lossy(n.trim_ascii()).into_owned())
            .collect();
        let find = |want: &str| names.iter().position(|n| n.eq_ignore_ascii_case(want));
        let missing = |what: &str, want: &str| {
            let msg = format!("no {what} column {want:?} in header {names:?}");
            InputError::CsvMissingColumn(msg).at(0)
        };
        r.dests = vec![Dest::Ignore; names.len()];
        let url = match &opts.host_column {
            Some(host) => (find(host).ok_or_else(|| missing("host", host))?, Dest::Host),
            None => (
                find(&opts.url_column).ok_or_else(|| missing("url", &opts.url_column))?,
                Dest::Url,
            ),
        };
        let body = find(&opts.body_column).ok_or_else(|| missing("body", &opts.body_column))?;
        for (i, d) in [url, (body, Dest::Body)] {
            if let Some(slot) = r.dests.get_mut(i) {
                *slot = d;
            }
        }
        if let Some(i) = find(&opts.status_column) {
            if let Some(slot) = r.dests.get_mut(i) {
                *slot = Dest::Status;
            }
        }
        r.row.names = Vec::new();
        Ok(r)
    }

    /// Parses one row, streaming its fields into `self.row` and `cap`.
    fn read_row(&mut self, cap: &mut Capture) -> RowEnd {
        let mut st = St::FieldStart;
        let mut field = 0usize;
        let mut any = false;
        loop {
            let a = self.s.fill(1);
            if a.is_empty() {
                if let Some(p) = self.s.take_break() {
                    return RowEnd::Break(p);
                }
                return match (st, any) {
                    (St::Quoted, _) => RowEnd::Unterminated,
                    (_, false) => RowEnd::Eof,
                    _ => RowEnd::Row(field + 1),
                };
            }
            let mut i = 0;
            let mut done = None;
            while i < a.len() && done.is_none() {
                let rest = a.get(i..).unwrap_or_default();
                match st {
                    St::FieldStart | St::Unquoted => {
                        if st == St::FieldStart && rest.first() == Some(&b'"') {
                            st = St::Quoted;
                            any = true;
                            i += 1;
                            continue;
                        }
                        st = St::Unquoted;
                        let j = memchr::memchr3(b',', b'\n', b'\r', rest).unwrap_or(rest.len());
                        if j > 0 {
                            any = true;
                            let dest = self.dests.get(field).copied().unwrap_or(Dest::Ignore);
                            self.row
                                .push(dest, field, rest.get(..j).unwrap_or_default(), cap);
                        }
                        i += j;
                        match rest.get(j) {
                            Some(b',') => {
                                any = true;
                                field += 1;
                                st = St::FieldStart;
                                i += 1;
                            }
                            Some(b'\n') => {
                                self.line += 1;
                                i += 1;
                                done = Some(field + 1);
                            }
                            Some(_) => {
                                // CR: a row end; swallow the LF of a CRLF.
                                i += 1;
                                if a.get(i) == Some(&b'\n') {
                                    i += 1;
                                }
                                self.line += 1;
                                done = Some(field + 1);
                            }
                            None => {}
                        }
                    }
                    St::Quoted => {
                        let j = memchr::memchr(b'"', rest).unwrap_or(rest.len());
                        let piece = rest.get(..j).unwrap_or_default();
                        self.line += memchr::memchr_iter(b'\n', piece).count() as u64;
                        let dest = self.dests.get(field).copied().unwrap_or(Dest::Ignore);
                        self.row.push(dest, field, piece, cap);
                        i += j;
                        if j < rest.len() {
                            st = St::QuoteInQuoted;
                            i += 1;
                        }
                    }
                    St::QuoteInQuoted => {
                        if rest.first() == Some(&b'"') {
                            let dest = self.dests.get(field).copied().unwrap_or(Dest::Ignore);
                            self.row.push(dest, field, b"\"", cap);
                            st = St::Quoted;
                            i += 1;
                        } else {
                            // Closing quote; text after it is kept as-is (lenient, as
                            // the csv crate), the delimiter is handled as unquoted.
                            st = St::Unquoted;
                        }
                    }
                }
            }
            self.s.consume(i);
            if let Some(n) = done {
                // A CR at the very end of the buffer may be followed by its LF.
                return RowEnd::Row(if any { n } else { 0 });
            }
        }
    }

    /// Fills `cap` from the buffered fields of a complete row.
    fn fill_capture(&mut self, cap: &mut Capture, start: u64, line: u64) {
        cap.kind = CaptureKind::CsvRow;
        cap.line = line;
        cap.stream_offset = start;
        cap.file_offset = start;
        cap.file_length = if self.s.source().is_plain() {
            self.s.pos() - start
        } else {
            0
        };
        let url = self.row.url.trim_ascii();
        cap.target_uri.clear();
        if self.use_host {
            cap.target_uri.push_str("https://");
            cap.target_uri.push_str(&String::from_utf8_lossy(url));
            cap.target_uri.push_str("/robots.txt");
        } else {
            cap.target_uri.push_str(&String::from_utf8_lossy(url));
        }
        cap.http_status = std::str::from_utf8(self.row.status.trim_ascii())
            .ok()
            .and_then(|s| s.parse().ok());
        if self.row.field_cut {
            cap.warnings
                .push(InputError::CsvFieldCut(URL_CAP).at(start));
        }
    }
}

impl CaptureReader for CsvReader {
    fn next_event(&mut self, capture: &mut Capture) -> Option<Event> {
        if self.fields == 0 {
            return None; // Empty file, no header.
        }
        loop {
            capture.clear();
            self.row.url.clear();
            self.row.status.clear();
            self.row.field_cut = false;
            let (start, line) = (self.s.pos(), self.line);
            match self.read_row(capture) {
                RowEnd::Row(0) => continue,
                RowEnd::Row(n) if n == self.fields => {
                    self.fill_capture(capture, start, line);
                    return Some(Event::Capture);
                }
                RowEnd::Row(n) => {
                    let msg = format!("line {line}: {n} fields, header has {}", self.fields);
                    capture.clear();
                    return Some(Event::Problem(InputError::CsvBadRow(msg).at(start)));
                }
                RowEnd::Unterminated => {
                    let msg = format!("line {line}: quoted field not closed before the end");
                    capture.clear();
                    return Some(Event::Problem(InputError::CsvBadRow(msg).at(start)));
                }
                RowEnd::Eof => return None,
                RowEnd::Break(p) => {
                    capture.clear();
                    return Some(Event::Problem(p));
                }
            }
        }
    }

    fn bytes_read(&self) -> u64 {
        self.s.source().compressed_pos()
    }
}
