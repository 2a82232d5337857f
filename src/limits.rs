//! Every hard limit and fixed size of the pipeline, declared once: what the engine
//! keeps of a body, what a reader accepts before it calls bytes damaged, how much a
//! run holds in memory, how the dataset is cut into files.
//!
//! Hitting a limit on input data is recorded (a flag in a row, a finding, an errors
//! row), never fatal.

// The robots.txt engine's caps: declared in its crate, named here with the rest.
pub use robots_census_engine::limits::ROBOTS_PARSE_CAP;

/// Bytes of a payload kept in memory. Everything the 500 KiB rule needs, and no
/// more: the remainder of a body is counted, not stored. One byte past the parse
/// cap, so the engine itself sees that the body was cut (and says so in lint).
pub const BODY_KEEP_CAP: usize = ROBOTS_PARSE_CAP + 1;

/// Largest WARC or HTTP header block accepted before the record is declared
/// malformed and the reader resynchronises.
pub const MAX_HEADER_BYTES: usize = 256 * 1024;

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
/// the shared corpus asks for. A frame of a few KB can declare a 2^31 window and make
/// the reader hold gigabytes; with this default it is a `zstd_corrupt_frame` row naming
/// the flag.
pub const ZSTD_WINDOW_LOG_DEFAULT: u32 = 27;

/// Largest input list (`--inputs-from`), after gzip inflation: 1 GiB, five times a list of
/// 20 Common Crawl crawls (~90,000 lines of ~110 bytes each per crawl). A list is read
/// line by line and its entries kept; a larger one is refused with a usage error instead
/// of inflating a bomb.
pub const MAX_INPUT_LIST_BYTES: u64 = 1 << 30;

/// Separator bytes (CR, LF, NUL) accepted silently between two WARC records. A record
/// ends with CRLF CRLF; real writers add a few more (the shared corpus has at most 6:
/// `NUL NUL CR LF CR LF`). A longer run is a zero-filled or blanked region, possibly a
/// whole record, and is reported as `warc_padding` with its offset and length.
pub const MAX_RECORD_GAP: u64 = 16;

/// Verdict questions (agents x URLs) asked of one document at most. Each is a row
/// of `verdicts`; a run asking more is refused as a usage error, since a long
/// `--paths` list times a few agents would otherwise make rows per document without
/// bound. Chunks shrink as the questions grow (see `pipeline::stream`), so memory
/// stays bounded up to this.
pub const MAX_QUESTIONS_PER_DOCUMENT: usize = 10_000;

// ---- Reading inputs ----

/// Normal size of every read buffer.
pub const BUF_SIZE: usize = 64 * 1024;

/// A buffer grows up to this to hold a whole header block contiguously.
pub const BUF_MAX: usize = MAX_HEADER_BYTES + BUF_SIZE;

/// Most consumed bytes kept behind a mark. A corrupt gzip member / zstd frame longer
/// than this cannot be gone back over; Common Crawl members are a few KiB.
pub const MARK_MAX: usize = 1 << 20;

/// Members/frames remembered for offset look-ups: enough for a full read-ahead of tiny
/// members, small enough to stay bounded.
pub const UNIT_RING: usize = 4096;

/// Bytes searched for a compressed member when a file named as compressed does not
/// start with a magic number (`input::detect::damaged_start`).
/// 256 KiB: a run of 70 KB of CR LF before the first member was read as a plain file
/// (every record lost) with 64 KiB.
pub const DAMAGED_START_PROBE: usize = 256 * 1024;

/// Longest gzip header (FEXTRA + FNAME + FCOMMENT) accepted before the member is corrupt.
pub const GZIP_MEMBER_HEADER_MAX: usize = 64 * 1024;

/// Compressed bytes a gzip member's deflate data is looked for in, by the whole-member
/// fast path (`input::whole_member`): a Common Crawl member is a few KiB, and a longer
/// one is decoded by the streaming decoder.
pub const WHOLE_MEMBER_IN: usize = 32 * 1024;

/// Least room for output the whole-member fast path is tried with: less is likely too
/// small for the member's data, and a failed try is work done twice.
pub const WHOLE_MEMBER_MIN_OUT: usize = 4 * 1024;

/// Output chunk of the content decoders: the most a decoder can produce past the cap.
pub const DECODE_SCRATCH: usize = 32 * 1024;

/// A chunk-size or trailer line longer than this is malformed.
pub const CHUNK_LINE_MAX: usize = 4096;

/// A gzip content header longer than this (FNAME/FCOMMENT) is malformed.
pub const CONTENT_GZIP_HEADER_MAX: usize = 16 * 1024;

/// Longest URL/host cell kept (longer ones are cut and warned about).
pub const CSV_URL_CAP: usize = MAX_HEADER_BYTES;

/// Longest status cell kept: `HTTP/1.1 404 Not Found` and some slack; anything longer
/// is not a status.
pub const CSV_STATUS_CAP: usize = 64;

/// Longest header-row cell kept (column names).
pub const CSV_NAME_CAP: usize = 1024;

/// Column names remembered; later columns can still be counted but not chosen.
pub const CSV_MAX_COLUMNS: usize = 4096;

/// Scratch buffer `csv-core` writes field bytes into; a longer field arrives in pieces.
pub const CSV_FIELD_PIECE: usize = 64 * 1024;

// ---- Remote stores ----

/// Error bodies are read up to this many bytes to classify them (CloudFront's page
/// is ~1 KiB; S3's XML errors are smaller).
pub const ERROR_BODY_CAP: usize = 64 << 10;

/// Body chunks of a remote input fetched ahead of the reader (hyper hands out chunks of
/// at most a few hundred KiB: a few MiB per input being read).
pub const PREFETCH_CHUNKS: usize = 16;

/// Longest wait of an idle pool thread for a remote input's next chunk before it looks
/// for other pool work again.
pub const PREFETCH_IDLE_WAIT: std::time::Duration = std::time::Duration::from_millis(5);

// ---- The run's memory: chunks and tasks ----

/// Records per chunk at most: the unit that is read while the previous one is processed.
/// Three chunks are in flight (read, built, encoded), so the chunk size sets most of a
/// run's memory: 1,024 keeps a two-thread run of Common Crawl-like input under 256 MiB
/// (BENCHMARKS.md, "The main run"); larger chunks save little time for much more memory.
pub const CHUNK_RECORDS: usize = 1024;

/// Body bytes per chunk, so a run of 500 KiB bodies cannot hold much memory.
pub const CHUNK_BYTES: usize = 16 << 20;

/// Verdict and agent rows per chunk, so many questions per document shrink the chunk
/// instead of growing memory (see [`crate::limits::MAX_QUESTIONS_PER_DOCUMENT`]).
pub const CHUNK_QUESTIONS: usize = 200_000;

/// Stack of each pool thread: room for the pool work a thread runs nested while it waits
/// for a remote input's bytes (one input's read per worker slot at most).
pub const PIPELINE_STACK: usize = 32 << 20;

/// Records per rayon task inside a chunk (fixed, so output does not depend on threads).
pub const TASK_RECORDS: usize = 64;

/// The most values a finished Arrow builder keeps room for (see
/// `output::schema::ColumnBuilder`): about a task's rows of the largest table.
pub const BUILDER_ROOM_ROWS: usize = 16 * 1024;

/// The most string bytes a finished Arrow builder keeps room for.
pub const BUILDER_ROOM_BYTES: usize = 1 << 20;

/// Body capacity a recycled capture may keep: typical robots.txt fit, while the
/// few 500 KiB bodies do not pin half a megabyte each in the spare pool.
pub const SPARE_BODY_CAPACITY: usize = 64 << 10;

// ---- The dataset ----

/// Rows per row group: a table's open row group is closed at the first batch
/// boundary at or past this many rows (boundaries depend only on the input).
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Dictionary page room per row group of a column laid out as runs
/// (`output::schema::Layout::Runs`: `sites.url`, `start_url`, `site`). A derived
/// table's row group (Parquet's default 1,048,576 rows) of one site per 29 agents holds
/// about 36,000 URLs, 1.5 MB. Past this room the writer falls back to plain pages,
/// which is still correct: with `--agents` naming one agent, a row group holds a
/// million sites' URLs.
pub const RUNS_DICTIONARY_BYTES: usize = 8 << 20;

/// Most part files per table for one crawl by default: a 90,000-file Common Crawl
/// crawl becomes 1,500 tasks of 60 inputs, so analysts' engines open 1,500 files per
/// table, not 90,000 small ones.
pub const TARGET_TASKS: usize = 1500;

// ---- The steps after `run` ----

/// `--memory-limit` when not given (the query engine's and the sites step's): safe on
/// a laptop; more is faster.
pub const DEFAULT_MEMORY_LIMIT: usize = 1 << 30;

/// Rows per batch read: large enough to amortise the per-batch work, small enough
/// that a step holds little of a table at once.
pub const READ_BATCH_ROWS: usize = 16 * 1024;

/// Rows per written batch (and so the memory of the builders).
pub const STEP_BATCH_ROWS: usize = 64 * 1024;

/// The most string bytes a step's finished builder keeps room for: a batch of
/// [`STEP_BATCH_ROWS`] URLs is a few MB, which a run's room (a task's batch) would
/// make every batch grow again by doubling.
pub const STEP_BUILDER_ROOM_BYTES: usize = 16 << 20;

/// Redirect hops followed (RFC 9309 section 2.3.1.2: "at least five").
pub const MAX_REDIRECT_HOPS: u32 = 5;

/// What one capture of a crawl costs the sites step at its peak, as planned: a crawl
/// of more captures than `--memory-limit` (less [`SITES_RESERVE`]) / this is spilled to
/// that many buckets on disk and decided a bucket at a time. A capture is 88 bytes of
/// fields, its site name, URL and one byte per agent; deciding adds its place in the
/// sorted starts and the decided site it may become. `make bench BENCH_ONLY=sites`
/// measures the peak per capture this should cover (BENCHMARKS.md, "The sites and
/// changes steps").
pub const SITES_BYTES_PER_CAPTURE: usize = 320;

/// The most buckets a crawl is spilled to (each an open file while the crawl is read).
pub const SITES_MAX_BUCKETS: usize = 4096;

/// Decided sites per piece of a bucket's sorted run: what the merge that writes a
/// crawl's partition holds of each bucket at once.
pub const SITES_RUN_PIECE: usize = 4096;

/// What one site of a comparison costs the changes step, as planned (its change rows
/// and its line request, held until its lines are read): comparisons of more sites than
/// `--memory-limit` (less [`CHANGES_RESERVE`]) / this spill them by site ranges.
pub const CHANGES_BYTES_PER_SITE: u64 = 96;

/// What one row of a crawl's `groups`, `rules` and `sitemaps` costs the changes step
/// at its peak, as planned (a line of a compared capture, joined to its site): more
/// rows than the limit allows are spilled by doc_id.
pub const CHANGES_BYTES_PER_LINE: u64 = 128;

/// What the changes step holds besides what it plans (the program, the open row group
/// of the file written, the sites row groups being decoded, read buffers).
pub const CHANGES_RESERVE: usize = 128 << 20;

/// What the sites step holds besides its captures (the program, the batch being built
/// and the open row group of the sites file, read buffers, the redirect edges): a
/// crawl's buckets plan with `--memory-limit` less this.
pub const SITES_RESERVE: usize = 128 << 20;

/// Part size of a multipart upload when a task's part is published to S3 (and the
/// largest part sent in one PUT): S3 takes parts of 5 MiB to 5 GiB, at most 10,000 of
/// them (objects up to 160 GiB here); two in flight bound the memory an upload holds.
pub const PUBLISH_PART_SIZE: usize = 16 << 20;
