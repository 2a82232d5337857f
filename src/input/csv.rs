//! CSV dumps of robots.txt bodies: header row + rows in, one [`Event`] per row out.
//!
//! Columns are chosen by header name ([`CsvOptions`]). Fields are split by `csv-core`
//! (RFC 4180, lenient like the `csv` crate: text after a closing quote is kept), one
//! field piece at a time into a small scratch buffer, so no cell is ever held whole: the
//! body streams into [`Capture::keep`] (capped), the URL/host and status into small capped
//! buffers, and unused columns are dropped. This reader adds what `csv-core` leaves to its
//! caller: byte offsets and line numbers of rows, blank-line skipping at row starts, the
//! field count check, an unterminated quote at the end of the input, decompression breaks
//! (the row they cut is a problem; the parser restarts after them), and resynchronisation:
//! a bad row that spans several lines is retried from its second line (its bytes are held
//! by a buffer mark, up to [`MARK_MAX`](crate::limits::MARK_MAX)), because one damaged
//! quote otherwise swallows or splits every row after it. While resynchronising, a row
//! counts only with an http(s) URL (a host name for a host column) and an empty or valid
//! status; the bad rows up to the next good one are one `csv_bad_row` problem.

use csv_core::{ReadFieldResult, Reader};

use super::decompress::{take_notices, Stream};
use super::error::InputError;
use super::http::parse_status_line;
use super::{Capture, CaptureKind, CaptureReader, CsvOptions, Event, InputProblem};
use crate::limits::{CSV_FIELD_PIECE, CSV_MAX_COLUMNS, CSV_NAME_CAP, CSV_STATUS_CAP, CSV_URL_CAP};

/// Which field goes where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Url,
    Host,
    Body,
    Status,
    Location,
    Ignore,
}

/// How a row ended.
enum RowEnd {
    /// A complete row with this many fields.
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
    location: Vec<u8>,
    /// Column names, filled only while reading the header row.
    names: Vec<Vec<u8>>,
    header_mode: bool,
    field_cut: bool,
    status_cut: bool,
}

impl Row {
    fn clear(&mut self) {
        self.url.clear();
        self.status.clear();
        self.location.clear();
        self.field_cut = false;
        self.status_cut = false;
    }

    fn push(&mut self, dest: Dest, field: usize, bytes: &[u8], cap: &mut Capture) {
        if self.header_mode {
            if field >= CSV_MAX_COLUMNS {
                return;
            }
            if field >= self.names.len() {
                self.names.resize_with(field + 1, Vec::new);
            }
            if let Some(name) = self.names.get_mut(field) {
                append_capped(name, bytes, CSV_NAME_CAP);
            }
            return;
        }
        match dest {
            Dest::Url | Dest::Host => {
                self.field_cut |= append_capped(&mut self.url, bytes, CSV_URL_CAP)
            }
            Dest::Status => {
                self.status_cut |= append_capped(&mut self.status, bytes, CSV_STATUS_CAP)
            }
            Dest::Location => {
                self.field_cut |= append_capped(&mut self.location, bytes, CSV_URL_CAP)
            }
            Dest::Body => cap.keep(bytes),
            Dest::Ignore => {}
        }
    }
}

/// Appends up to `limit` total bytes; true when bytes were dropped.
fn append_capped(dst: &mut Vec<u8>, bytes: &[u8], limit: usize) -> bool {
    let room = limit.saturating_sub(dst.len());
    let take = room.min(bytes.len());
    dst.extend_from_slice(bytes.get(..take).unwrap_or_default());
    take < bytes.len()
}

/// The HTTP status in a CSV status cell: `Ok(None)` for an empty cell (no status, as in
/// a dump of bodies), `Err` for a cell that is not a status. Accepted: three digits
/// (100-999), the same with a zero fraction (`404.0`, from a float column), or an HTTP
/// status line (`HTTP/1.1 404 Not Found`).
pub(crate) fn parse_status_cell(cell: &[u8]) -> Result<Option<u16>, ()> {
    let cell = cell.trim_ascii();
    if cell.is_empty() {
        return Ok(None);
    }
    if cell.starts_with(b"HTTP/") {
        return match parse_status_line(cell) {
            Some(code @ 100..=999) => Ok(Some(code)),
            _ => Err(()),
        };
    }
    let (int, frac) = match memchr::memchr(b'.', cell) {
        Some(dot) => (
            cell.get(..dot).unwrap_or_default(),
            cell.get(dot + 1..).unwrap_or_default(),
        ),
        None => (cell, &b""[..]),
    };
    if int.len() != 3 || !int.iter().all(u8::is_ascii_digit) || !frac.iter().all(|&c| c == b'0') {
        return Err(());
    }
    match std::str::from_utf8(int).ok().and_then(|s| s.parse().ok()) {
        Some(code @ 100..=999) => Ok(Some(code)),
        _ => Err(()),
    }
}

/// Reads captures from a CSV stream.
pub(crate) struct CsvReader {
    s: Stream,
    rdr: Reader,
    piece: Vec<u8>,
    dests: Vec<Dest>,
    row: Row,
    /// 1-based line of the next byte.
    line: u64,
    use_host: bool,
    /// Fields in the header row: every row must have as many.
    fields: usize,
    /// Decompressor notices taken for the current event (reused buffer).
    notes: Vec<InputProblem>,
    /// A problem to report on the next call (bad rows found before a good one).
    queued: Option<InputProblem>,
    /// Problems met before the header row, last first: reported before any row.
    early: Vec<InputProblem>,
}

impl CsvReader {
    /// Reads the header row and resolves the columns; a missing column is an error for
    /// the whole file (every row would fail).
    pub(crate) fn new(s: Stream, opts: &CsvOptions) -> Result<Self, InputProblem> {
        let mut r = Self {
            s,
            rdr: Reader::new(),
            piece: vec![0; CSV_FIELD_PIECE],
            dests: Vec::new(),
            row: Row::default(),
            line: 1,
            use_host: opts.host_column.is_some(),
            fields: 0,
            notes: Vec::new(),
            queued: None,
            early: Vec::new(),
        };
        r.row.header_mode = true;
        let mut scratch = Capture::default();
        // Damage before the header row (junk before the first gzip member, a corrupt
        // first zstd block) is a break: each is a problem of its own, reported before
        // the rows, and the header row is looked for after it.
        let mut early = Vec::new();
        let (end, at) = loop {
            // A UTF-8 BOM before the header would otherwise glue onto the first name.
            // Stripped here rather than by csv-core, so row offsets count it.
            if r.s.fill(3).starts_with(b"\xEF\xBB\xBF") {
                r.s.consume(3);
            }
            r.row.names.clear();
            let at = r.s.pos();
            match r.read_row(&mut scratch) {
                RowEnd::Break(p) => early.push(p),
                end => break (end, at),
            }
        };
        r.row.header_mode = false;
        // The input cannot be read: its one problem, with those met before it.
        let fail = |r: &Self, e: InputError, early: &mut Vec<InputProblem>| {
            let mut p = r.problem_at(e, at);
            p.absorb(early);
            p
        };
        match end {
            RowEnd::Row(n) => r.fields = n,
            RowEnd::Unterminated => {
                let e = InputError::CsvBadRow("unterminated quote in the header row".into());
                return Err(fail(&r, e, &mut early));
            }
            // An empty file (no rows), or one whose data ended with damage before any
            // header row. (No break is left: the loop above reads past them.)
            RowEnd::Eof | RowEnd::Break(_) => {
                early.reverse();
                r.early = early;
                return Ok(r);
            }
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
            InputError::CsvMissingColumn(msg)
        };
        let column = |found: Option<usize>, what: &str, want: &str, early: &mut Vec<_>| {
            found.ok_or_else(|| fail(&r, missing(what, want), early))
        };
        let url = match &opts.host_column {
            Some(host) => (column(find(host), "host", host, &mut early)?, Dest::Host),
            None => (
                column(find(&opts.url_column), "url", &opts.url_column, &mut early)?,
                Dest::Url,
            ),
        };
        let body = column(
            find(&opts.body_column),
            "body",
            &opts.body_column,
            &mut early,
        )?;
        r.dests = vec![Dest::Ignore; names.len()];
        for (i, d) in [url, (body, Dest::Body)] {
            if let Some(slot) = r.dests.get_mut(i) {
                *slot = d;
            }
        }
        // Optional columns: absent, every row has none.
        for (name, dest) in [
            (&opts.status_column, Dest::Status),
            (&opts.location_column, Dest::Location),
        ] {
            if let Some(slot) = find(name).and_then(|i| r.dests.get_mut(i)) {
                *slot = dest;
            }
        }
        r.row.names = Vec::new();
        early.reverse();
        r.early = early;
        Ok(r)
    }

    /// Consumes the line ends before a row (blank lines), counting lines, so a row's
    /// offset and line are those of its first byte. CR, LF and CRLF each end one line.
    fn skip_blank_lines(&mut self) {
        loop {
            let a = self.s.fill(2);
            let n = match (a.first(), a.get(1)) {
                (Some(b'\r'), Some(b'\n')) => 2,
                (Some(b'\r' | b'\n'), _) => 1,
                _ => return,
            };
            self.line += 1;
            self.s.consume(n);
        }
    }

    /// Parses one row, streaming its fields into `self.row` and `cap`.
    fn read_row(&mut self, cap: &mut Capture) -> RowEnd {
        self.skip_blank_lines();
        let mut field = 0usize;
        let mut any = false;
        // Quote parity of the current field, for an unterminated quote at the end.
        let (mut fresh, mut quoted, mut quotes) = (true, false, 0u64);
        loop {
            let a = self.s.fill(1);
            if a.is_empty() {
                if let Some(p) = self.s.take_break() {
                    self.rdr.reset();
                    return RowEnd::Break(p);
                }
                if !any {
                    return RowEnd::Eof;
                }
                // Lets csv-core finish the last field; it holds no bytes back.
                self.rdr.read_field(&[], &mut self.piece);
                self.rdr.reset();
                return if quoted && quotes % 2 == 1 {
                    RowEnd::Unterminated
                } else {
                    RowEnd::Row(field + 1)
                };
            }
            let (res, nin, nout) = self.rdr.read_field(a, &mut self.piece);
            let used = a.get(..nin).unwrap_or_default();
            if fresh && nin > 0 {
                quoted = used.first() == Some(&b'"');
                fresh = false;
            }
            quotes += memchr::memchr_iter(b'"', used).count() as u64;
            self.line += memchr::memchr_iter(b'\n', used).count() as u64;
            let ended_with_cr = used.last() == Some(&b'\r');
            any |= nin > 0;
            self.s.consume(nin);
            let dest = self.dests.get(field).copied().unwrap_or(Dest::Ignore);
            self.row
                .push(dest, field, self.piece.get(..nout).unwrap_or_default(), cap);
            match res {
                ReadFieldResult::InputEmpty | ReadFieldResult::OutputFull => {}
                ReadFieldResult::Field { record_end: false } => {
                    field += 1;
                    (fresh, quoted, quotes) = (true, false, 0);
                }
                ReadFieldResult::Field { record_end: true } => {
                    if ended_with_cr {
                        // csv-core stops after the CR of a CRLF: take the LF with the row
                        // (its length), and count the line a lone CR ends too.
                        self.line += 1;
                        if self.s.fill(1).first() == Some(&b'\n') {
                            self.s.consume(1);
                        }
                    }
                    return RowEnd::Row(field + 1);
                }
                // Only answered to empty input, which is handled above.
                ReadFieldResult::End => return RowEnd::Row(field + 1),
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
        // As a WARC record's `Location` header: resolved against the URL, kept for 3xx.
        cap.http_location.clear();
        cap.http_location
            .push_str(&String::from_utf8_lossy(self.row.location.trim_ascii()));
        let status = if self.row.status_cut {
            Err(())
        } else {
            parse_status_cell(&self.row.status)
        };
        match status {
            Ok(code) => cap.http_status = code,
            Err(()) => {
                cap.http_status = None;
                cap.status_invalid = true;
                let cell = String::from_utf8_lossy(&self.row.status);
                let cut = if self.row.status_cut { "..." } else { "" };
                let msg = format!(
                    "line {line}: status cell {cell:?}{cut} is not an HTTP status; the row \
                     is kept but not classified as a robots.txt"
                );
                let warning = self.problem_at(InputError::CsvBadStatus(msg), start);
                cap.warnings.push(warning);
            }
        }
        if self.row.field_cut {
            let warning = self.problem_at(InputError::CsvFieldCut(CSV_URL_CAP), start);
            cap.warnings.push(warning);
        }
    }

    /// The event of one row (or the end of the input). A row with the wrong number of
    /// fields is retried from its second line when it spans several (a damaged quote
    /// turns the rest of a body into rows, or one row into the next ones), so the rows
    /// after the damage are found again; the bad rows up to the next good one are one
    /// problem, queued behind that good row.
    fn next_row(&mut self, capture: &mut Capture) -> Option<Event> {
        let mut bad: Option<BadRun> = None;
        loop {
            capture.clear();
            self.row.clear();
            // Where the row starts: after the blank lines read_row skips first.
            self.skip_blank_lines();
            let (start, line) = (self.s.pos(), self.line);
            self.s.set_mark();
            let why = match self.read_row(capture) {
                RowEnd::Row(n) if n == self.fields && (bad.is_none() || self.plausible()) => {
                    self.fill_capture(capture, start, line);
                    self.queued = bad.map(|b| self.bad_run(b, start));
                    return Some(Event::Capture);
                }
                RowEnd::Row(n) if n == self.fields => {
                    format!("line {line}: no http(s) URL or valid status after a bad row")
                }
                RowEnd::Row(n) => format!("line {line}: {n} fields, header has {}", self.fields),
                RowEnd::Unterminated => {
                    format!("line {line}: quoted field not closed before the end")
                }
                RowEnd::Eof => {
                    let end = self.s.pos();
                    return bad.map(|b| Event::Problem(self.bad_run(b, end)));
                }
                RowEnd::Break(p) => {
                    capture.clear();
                    return Some(Event::Problem(match bad {
                        Some(b) => {
                            self.queued = Some(p);
                            self.bad_run(b, start)
                        }
                        None => p,
                    }));
                }
            };
            capture.clear();
            bad.get_or_insert(BadRun {
                start,
                why,
                rows: 0,
            })
            .rows += 1;
            self.retry_from_second_line(start, line);
        }
    }

    /// After a bad row that started at `start` (line `line`): goes back to its second
    /// line when the row spans several and its bytes are still held.
    fn retry_from_second_line(&mut self, start: u64, line: u64) {
        let Some((mark, bytes)) = self.s.held_from_mark() else {
            return;
        };
        let used = usize::try_from(self.s.pos().saturating_sub(mark)).unwrap_or(0);
        let row = bytes.get(..used.min(bytes.len())).unwrap_or_default();
        let Some(nl) = memchr::memchr2(b'\n', b'\r', row) else {
            return;
        };
        let crlf = row.get(nl..nl + 2) == Some(b"\r\n");
        let next = nl + 1 + usize::from(crlf);
        if mark != start || next >= used {
            return;
        }
        if self.s.rewind_to(mark + next as u64) {
            self.line = line + 1;
            self.rdr.reset();
        }
    }

    /// While resynchronising after a bad row, a row counts only when it looks like one:
    /// an http(s) URL (or a host name for a host column) and an empty or valid status.
    fn plausible(&self) -> bool {
        let url = self.row.url.trim_ascii();
        let url_ok = if self.use_host {
            url.contains(&b'.')
                && url
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b".-_:[]".contains(c))
        } else {
            let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
            lower.starts_with(b"http://") || lower.starts_with(b"https://")
        };
        url_ok && !self.row.status_cut && parse_status_cell(&self.row.status).is_ok()
    }

    /// The problem `e` found at stream offset `at`, located in the file for its `errors`
    /// row: in a compressed input, the start of the member / frame holding that offset
    /// (`at` kept as its stream offset, the message gives the line).
    fn problem_at(&self, e: InputError, at: u64) -> InputProblem {
        self.s.source().problem_at(e, at)
    }

    /// The one problem of the bad rows `b`, which end at stream offset `end`.
    fn bad_run(&self, b: BadRun, end: u64) -> InputProblem {
        let at = b.start;
        self.problem_at(b.error(end, self.stream_name()), at)
    }

    fn stream_name(&self) -> &'static str {
        if self.s.source().is_plain() {
            "file"
        } else {
            "decompressed stream"
        }
    }
}

/// Consecutive bad rows, reported as one problem.
struct BadRun {
    start: u64,
    /// What was wrong with the first.
    why: String,
    rows: u64,
}

impl BadRun {
    fn error(self, end: u64, stream: &str) -> InputError {
        let msg = format!(
            "{}; bytes {}..{end} of the {stream} skipped ({} bad row{})",
            self.why,
            self.start,
            self.rows,
            if self.rows == 1 { "" } else { "s" }
        );
        InputError::CsvBadRow(msg)
    }
}

impl CaptureReader for CsvReader {
    fn next_event(&mut self, capture: &mut Capture) -> Option<Event> {
        if let Some(p) = self.early.pop() {
            return Some(Event::Problem(p));
        }
        if self.fields == 0 {
            return None; // Empty file, no header.
        }
        if let Some(p) = self.queued.take() {
            return Some(Event::Problem(p));
        }
        let event = self.next_row(capture);
        // Decompressor notices (a bad gzip CRC) go to the row that holds the member's
        // last byte: a warning of a capture, folded into a problem, or one problem of
        // their own at the end.
        self.notes.clear();
        let upto = if event.is_some() {
            self.s.pos()
        } else {
            u64::MAX
        };
        take_notices(&mut self.s, upto, &mut self.notes);
        match event {
            Some(Event::Capture) => {
                capture.warnings.append(&mut self.notes);
                Some(Event::Capture)
            }
            Some(Event::Problem(mut p)) => {
                p.absorb(&mut self.notes);
                Some(Event::Problem(p))
            }
            other if self.notes.is_empty() => other,
            _ => {
                let mut first = self.notes.remove(0);
                first.absorb(&mut self.notes);
                Some(Event::Problem(first))
            }
        }
    }

    fn bytes_read(&self) -> u64 {
        self.s.source().compressed_pos()
    }
}
