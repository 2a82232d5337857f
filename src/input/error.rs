//! Typed errors of the input layer.
//!
//! Every failure the readers meet is one [`InputError`] variant; each variant has a
//! stable snake_case code that lands in the `errors` table, so downstream queries can
//! group by it. A variant is turned into an [`InputProblem`](super::InputProblem)
//! (code + message + byte offset) at the point where the offset is known.

/// One failure of the input layer. `code()` is the stable name; `Display` the detail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read (I/O error).
    #[error("cannot read input: {0}")]
    Unreadable(String),
    /// The content is in a format this reader does not handle (lz4, bzip2, xz, ...).
    #[error("unsupported input format: {0}")]
    Unsupported(String),
    /// A gzip member with a bad header or corrupt deflate data (skipped to the next member).
    #[error("corrupt gzip member: {0}")]
    GzipCorruptMember(String),
    /// The file ends inside a gzip member.
    #[error("gzip member cut short by the end of the file")]
    GzipTruncatedMember,
    /// Bytes between gzip members that are not a gzip member (skipped up to the next magic).
    #[error("{0} bytes that are not a gzip member")]
    GzipJunk(u64),
    /// A gzip member decoded completely but its CRC32 / ISIZE trailer does not match the
    /// data. The data is kept (a warning of the record it belongs to).
    #[error("gzip CRC32 or size trailer does not match the data: {0}")]
    GzipCrcMismatch(String),
    /// A zstd frame that fails to decode, or bytes where a frame should start.
    #[error("corrupt zstd frame: {0}")]
    ZstdCorruptFrame(String),
    /// A zstd frame decoded completely but its content checksum (XXH64) does not match
    /// the data. The data is kept (a warning of the record it belongs to).
    #[error("zstd content checksum does not match the data: {0}")]
    ZstdChecksumMismatch(String),
    /// The file ends inside a zstd frame.
    #[error("zstd frame cut short by the end of the file")]
    ZstdTruncatedFrame,
    /// The `.warc.zst` dictionary frame could not be read or loaded.
    #[error("zstd dictionary unusable: {0}")]
    ZstdDictionary(String),
    /// No valid WARC header where a record should start (junk skipped, bad or missing
    /// Content-Length, header block over the cap).
    #[error("bad WARC header: {0}")]
    WarcBadHeader(String),
    /// A run of NUL / CR / LF bytes between records longer than a record terminator
    /// (`limits::MAX_RECORD_GAP`): a zero-filled or blanked region.
    #[error("padding skipped: {0}")]
    WarcPadding(String),
    /// The record's Content-Length does not end where the next record starts.
    #[error("WARC Content-Length does not match the data: {0}")]
    WarcLengthMismatch(String),
    /// The input ends inside a record (a corrupt member / frame that cuts one is reported
    /// with its own code).
    #[error("input ends inside a WARC record: {0}")]
    WarcTruncatedFile(String),
    /// The HTTP status line of a response record cannot be parsed.
    #[error("bad HTTP status line: {0}")]
    HttpBadStatusLine(String),
    /// The HTTP header block has no end within the record or the header cap.
    #[error("bad HTTP header block: {0}")]
    HttpBadHeader(String),
    /// Content-Encoding decoding failed; the raw bytes were kept instead.
    #[error("content decoding failed: {0}")]
    ContentDecodingFailed(String),
    /// The encoded body ended before its encoding said it was complete (decoded part kept).
    #[error("content decoding incomplete: {0}")]
    ContentDecodingIncomplete(String),
    /// Chunked transfer coding is malformed; the raw bytes were kept instead.
    #[error("malformed chunked transfer coding: {0}")]
    ChunkedMalformed(String),
    /// The chunked body ended before its last chunk (decoded part kept).
    #[error("chunked body ends before the last chunk")]
    ChunkedIncomplete,
    /// A CSV row with the wrong number of fields or an unterminated quote.
    #[error("bad CSV row: {0}")]
    CsvBadRow(String),
    /// A CSV status cell that is not an HTTP status (`abc`, `-1`, `1e3`); the row is kept
    /// but not classified as a robots.txt.
    #[error("bad CSV status: {0}")]
    CsvBadStatus(String),
    /// A required CSV column is missing from the header row.
    #[error("CSV column missing: {0}")]
    CsvMissingColumn(String),
    /// A CSV field other than the body was longer than its cap and was cut.
    #[error("CSV field cut at {0} bytes")]
    CsvFieldCut(usize),
}

impl InputError {
    /// Every [`InputError::code`], in variant order (documented in `schemas/README.md`).
    pub const CODES: &'static [&'static str] = &[
        "input_unreadable",
        "input_unsupported",
        "gzip_corrupt_member",
        "gzip_truncated_member",
        "gzip_junk",
        "gzip_crc_mismatch",
        "zstd_corrupt_frame",
        "zstd_checksum_mismatch",
        "zstd_truncated_frame",
        "zstd_dictionary_unusable",
        "warc_bad_header",
        "warc_padding",
        "warc_length_mismatch",
        "warc_truncated_file",
        "http_bad_status_line",
        "http_bad_header",
        "content_decoding_failed",
        "content_decoding_incomplete",
        "chunked_malformed",
        "chunked_incomplete",
        "csv_bad_row",
        "csv_bad_status",
        "csv_missing_column",
        "csv_field_cut",
    ];

    /// Stable snake_case code of this error, used as the `code` column.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unreadable(_) => "input_unreadable",
            Self::Unsupported(_) => "input_unsupported",
            Self::GzipCorruptMember(_) => "gzip_corrupt_member",
            Self::GzipTruncatedMember => "gzip_truncated_member",
            Self::GzipJunk(_) => "gzip_junk",
            Self::GzipCrcMismatch(_) => "gzip_crc_mismatch",
            Self::ZstdCorruptFrame(_) => "zstd_corrupt_frame",
            Self::ZstdChecksumMismatch(_) => "zstd_checksum_mismatch",
            Self::ZstdTruncatedFrame => "zstd_truncated_frame",
            Self::ZstdDictionary(_) => "zstd_dictionary_unusable",
            Self::WarcBadHeader(_) => "warc_bad_header",
            Self::WarcPadding(_) => "warc_padding",
            Self::WarcLengthMismatch(_) => "warc_length_mismatch",
            Self::WarcTruncatedFile(_) => "warc_truncated_file",
            Self::HttpBadStatusLine(_) => "http_bad_status_line",
            Self::HttpBadHeader(_) => "http_bad_header",
            Self::ContentDecodingFailed(_) => "content_decoding_failed",
            Self::ContentDecodingIncomplete(_) => "content_decoding_incomplete",
            Self::ChunkedMalformed(_) => "chunked_malformed",
            Self::ChunkedIncomplete => "chunked_incomplete",
            Self::CsvBadRow(_) => "csv_bad_row",
            Self::CsvBadStatus(_) => "csv_bad_status",
            Self::CsvMissingColumn(_) => "csv_missing_column",
            Self::CsvFieldCut(_) => "csv_field_cut",
        }
    }

    /// The problem record for this error at byte `offset` of the input file.
    pub fn at(&self, offset: u64) -> super::InputProblem {
        super::InputProblem {
            offset,
            stream_offset: None,
            code: self.code(),
            message: self.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_lists_every_variant_in_order() {
        let s = String::new;
        let samples = [
            InputError::Unreadable(s()),
            InputError::Unsupported(s()),
            InputError::GzipCorruptMember(s()),
            InputError::GzipTruncatedMember,
            InputError::GzipJunk(0),
            InputError::GzipCrcMismatch(s()),
            InputError::ZstdCorruptFrame(s()),
            InputError::ZstdChecksumMismatch(s()),
            InputError::ZstdTruncatedFrame,
            InputError::ZstdDictionary(s()),
            InputError::WarcBadHeader(s()),
            InputError::WarcPadding(s()),
            InputError::WarcLengthMismatch(s()),
            InputError::WarcTruncatedFile(s()),
            InputError::HttpBadStatusLine(s()),
            InputError::HttpBadHeader(s()),
            InputError::ContentDecodingFailed(s()),
            InputError::ContentDecodingIncomplete(s()),
            InputError::ChunkedMalformed(s()),
            InputError::ChunkedIncomplete,
            InputError::CsvBadRow(s()),
            InputError::CsvBadStatus(s()),
            InputError::CsvMissingColumn(s()),
            InputError::CsvFieldCut(0),
        ];
        let codes: Vec<&str> = samples.iter().map(InputError::code).collect();
        assert_eq!(codes, InputError::CODES);
    }
}
