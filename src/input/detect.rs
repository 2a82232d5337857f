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

/// Bytes searched for a compressed member when a file named as compressed does not
/// start with a magic number (see [`damaged_start`]).
pub(crate) const DAMAGED_START_PROBE: usize = 64 * 1024;

/// A file whose name says `.gz` / `.zst` but whose first bytes are no magic number: when
/// the member magic appears within `probe` (the first [`DAMAGED_START_PROBE`] bytes) and
/// the file does not start as plain WARC, the start is damage before the first member,
/// not a plain file. Decompressing it reports the damaged bytes and keeps the records in
/// the members after them, where reading it as plain would lose them all.
pub(crate) fn damaged_start(probe: &[u8], name_hint: &str) -> Option<Compression> {
    let lower = name_hint.to_ascii_lowercase();
    let text = probe.trim_ascii_start();
    if text.starts_with(b"WARC/") {
        return None;
    }
    let has = |magic: &[u8]| memchr::memmem::find(probe, magic).is_some();
    if lower.ends_with(".gz") && has(&[0x1f, 0x8b, 0x08]) {
        Some(Compression::Gzip)
    } else if (lower.ends_with(".zst") || lower.ends_with(".zstd"))
        && has(&[0x28, 0xb5, 0x2f, 0xfd])
    {
        Some(Compression::Zstd)
    } else {
        None
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

    #[test]
    fn damaged_first_member_is_still_compressed() {
        let junk_then_member = [&b"\x00\x13junk"[..], &[0x1f, 0x8b, 8, 0, 0, 0][..]].concat();
        assert_eq!(
            damaged_start(&junk_then_member, "a.warc.gz"),
            Some(Compression::Gzip)
        );
        assert_eq!(damaged_start(&junk_then_member, "a.warc"), None);
        let zst = [&b"\x29\xb5"[..], &[0x28, 0xb5, 0x2f, 0xfd][..]].concat();
        assert_eq!(damaged_start(&zst, "a.warc.zst"), Some(Compression::Zstd));
        // Plain WARC content wins over the name.
        let plain = [&b"WARC/1.0\r\n"[..], &[0x1f, 0x8b, 8][..]].concat();
        assert_eq!(damaged_start(&plain, "a.warc.gz"), None);
    }
}
