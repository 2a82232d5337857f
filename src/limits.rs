//! Every hard limit of the pipeline, declared once.
//!
//! Hitting a limit is recorded (a flag in a row, a finding), never fatal.

/// Google parses only the first 500 KiB of a robots.txt (production limit; the
/// open-source robots.cc has none). The cut happens even in the middle of a line.
pub const ROBOTS_PARSE_CAP: usize = 512_000;

/// robots.cc keeps at most `2083 * 8 - 1` bytes of a line; the rest is dropped.
pub const MAX_LINE_LEN: usize = 2083 * 8 - 1;

/// Bytes of a payload kept in memory. Everything the 500 KiB rule needs, and no
/// more: the remainder of a body is counted, not stored. One byte past the parse
/// cap, so the engine itself sees that the body was cut (and says so in lint).
pub const BODY_KEEP_CAP: usize = ROBOTS_PARSE_CAP + 1;

/// Largest WARC or HTTP header block accepted before the record is declared
/// malformed and the reader resynchronises.
pub const MAX_HEADER_BYTES: usize = 256 * 1024;

/// Characters of a source line copied into the `excerpt` column of `errors`.
pub const EXCERPT_LEN: usize = 200;

/// Lint findings of one code kept per document. An HTML page or binary junk
/// served as robots.txt would otherwise yield one finding per line; the
/// document-level finding (`html_body`, `utf16_body`) already says it all.
pub const MAX_FINDINGS_PER_CODE: usize = 100;

/// Largest `.warc.zst` dictionary (skippable frame `0x184D2A5D`, after decompression)
/// loaded; a larger one is reported and frames that need it fail one by one.
pub const MAX_ZSTD_DICT_BYTES: usize = 4 * 1024 * 1024;

/// Largest zstd window (log2) a frame may ask for: 31, the most the format and the zstd
/// CLI allow (`zstd --long=31`; `--long` alone is 27), so every valid `.warc.zst` decodes.
///
/// Memory cost: while a frame decodes, the decoder holds a window buffer of
/// min(window, frame content size) bytes (libzstd decodes a frame whose whole content fits
/// the 64 KiB output buffer without one). A per-record frame or a small file costs its own
/// size; a large file compressed as one frame with `--long=N` costs up to 2^N bytes
/// (128 MiB for `--long`, 2 GiB for `--long=31`) per input being read, that is per worker
/// thread. Pages are touched only as output is produced, so resident memory is at most
/// min(window, bytes decoded). A frame declaring a larger window is not valid zstd and
/// fails as `zstd_corrupt_frame`.
pub const ZSTD_WINDOW_LOG_MAX: u32 = 31;

/// The zstd window (log2) accepted unless `--zstd-window-log-max` says otherwise: 2^27
/// (128 MiB), what `zstd --long` writes and more than any `.warc.zst` of Common Crawl or
/// the shared corpus asks for. A 45 KB frame declaring a 2^31 window made the reader peak
/// at 1.48 GB; with this default it is a `zstd_corrupt_frame` row naming the flag.
pub const ZSTD_WINDOW_LOG_DEFAULT: u32 = 27;

/// Largest input list (`--inputs-from`), after gzip inflation: 1 GiB, five times a list of
/// 20 Common Crawl crawls (~90,000 lines of ~110 bytes each per crawl). A list is held in
/// memory whole; a larger one is refused with a usage error instead of inflating a bomb.
pub const MAX_INPUT_LIST_BYTES: u64 = 1 << 30;

/// Separator bytes (CR, LF, NUL) accepted silently between two WARC records. A record
/// ends with CRLF CRLF; real writers add a few more (the shared corpus has at most 6:
/// `NUL NUL CR LF CR LF`). A longer run is a zero-filled or blanked region, possibly a
/// whole record, and is reported as `warc_padding` with its offset and length.
pub const MAX_RECORD_GAP: u64 = 16;

/// Verdict questions (agents x URLs) asked of one document at most. Each is a row
/// of `verdicts`; a run asking more is refused as a usage error, since a long
/// `--paths` list with a few agents once needed over 1 GB. Chunks shrink as the
/// questions grow (see `pipeline::stream`), so memory stays bounded up to this.
pub const MAX_QUESTIONS_PER_DOCUMENT: usize = 10_000;
