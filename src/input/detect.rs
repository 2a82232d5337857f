//! Format sniffing: which compression and which container a file holds.
//!
//! Decided from the first bytes (magic numbers), because archives are often renamed or
//! served with the wrong extension; the file name is only a hint for the cases the
//! content cannot decide (an empty file, a corrupt first gzip member).

use super::decompress::Stream;

/// Compression of the raw file, from its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    /// `1f 8b`: one or more gzip members.
    Gzip,
    /// `28 b5 2f fd` (a frame) or `5? 2a 4d 18` (a skippable frame, such as the
    /// `.warc.zst` dictionary frame `0x184D2A5D`).
    Zstd,
    /// Known but unsupported: the name of the format.
    Unsupported(&'static str),
}

/// What the decompressed stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    Warc,
    Csv,
}

/// Bytes needed by [`compression`] to decide.
pub(crate) const MAGIC_LEN: usize = 6;

/// Sniffs the compression from the first bytes of the file.
pub(crate) fn compression(head: &[u8], name_hint: &str) -> Compression {
    match head {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
        [m, 0x2a, 0x4d, 0x18, ..] if m & 0xf0 == 0x50 => Compression::Zstd,
        [0x04, 0x22, 0x4d, 0x18, ..] => Compression::Unsupported("lz4"),
        [b'B', b'Z', b'h', ..] => Compression::Unsupported("bzip2"),
        [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Unsupported("xz"),
        [] => {
            // Nothing to sniff: trust the extension (an empty .gz is still "gzip").
            let lower = name_hint.to_ascii_lowercase();
            if lower.ends_with(".lz4") {
                Compression::Unsupported("lz4")
            } else {
                Compression::None
            }
        }
        _ => Compression::None,
    }
}

/// Sniffs the container from the start of the decompressed stream: a `WARC/` version
/// line (after optional blank lines or NUL padding) means WARC, anything else CSV.
/// Returns the stream unchanged (nothing is consumed).
pub(crate) fn container(mut stream: Stream, name_hint: &str) -> (Container, Stream) {
    let head = stream.fill(64);
    let start = head
        .iter()
        .position(|b| !matches!(b, b'\r' | b'\n' | b'\0' | b' ' | b'\t'));
    let kind = match start.and_then(|s| head.get(s..)) {
        Some(rest) if rest.starts_with(b"WARC/") => Container::Warc,
        Some(rest) if b"WARC/".starts_with(rest) && !rest.is_empty() => Container::Warc,
        Some(_) => Container::Csv,
        // Empty, or the first member was corrupt: the name decides.
        None => {
            let lower = name_hint.to_ascii_lowercase();
            if lower.contains(".csv") {
                Container::Csv
            } else {
                Container::Warc
            }
        }
    };
    (kind, stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_decide_compression() {
        assert_eq!(compression(&[0x1f, 0x8b, 8, 0], "x.csv"), Compression::Gzip);
        assert_eq!(
            compression(&[0x28, 0xb5, 0x2f, 0xfd], "x.gz"),
            Compression::Zstd
        );
        assert_eq!(
            compression(&[0x5d, 0x2a, 0x4d, 0x18], ""),
            Compression::Zstd
        );
        assert_eq!(
            compression(&[4, 0x22, 0x4d, 0x18], "x.gz"),
            Compression::Unsupported("lz4")
        );
        assert_eq!(compression(b"WARC/1.0\r\n", "x.gz"), Compression::None);
        assert_eq!(
            compression(b"", "x.warc.lz4"),
            Compression::Unsupported("lz4")
        );
    }
}
