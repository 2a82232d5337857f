//! Format sniffing: which compression and which container a file holds.
//!
//! Decided from the first bytes (magic numbers), because archives are often renamed or
//! served with the wrong extension; the file name is only a hint for the cases the
//! content cannot decide (an empty file, a corrupt first gzip member).

use super::decompress::Stream;
use super::gzip_members::GZIP_MAGIC;
use super::zstd_frames::ZSTD_MAGIC;
use crate::limits::{BUF_MAX, DAMAGED_START_PROBE};

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

const _: () = assert!(DAMAGED_START_PROBE <= BUF_MAX);

/// A file whose name says `.gz` / `.zst` but whose first bytes are no magic number: when
/// the member magic appears within `probe` (the first [`DAMAGED_START_PROBE`] bytes) and
/// the file does not start as plain WARC, the start is damage before the first member,
/// not a plain file. Decompressing it reports the damaged bytes and keeps the records in
/// the members after them, where reading it as plain would lose them all.
pub(crate) fn damaged_start(probe: &[u8], name_hint: &str) -> Option<Compression> {
    let (hinted, magic) = hinted(name_hint)?;
    let at = find_member(probe, magic)?;
    // A plain WARC named `.gz` starts with a complete header block before any such
    // bytes (a gzip-encoded payload); a stray `WARC/1.0` line before the first member
    // does not.
    let before = probe.get(..at).unwrap_or_default();
    let text = before.trim_ascii_start();
    if text.starts_with(b"WARC/") && crate::input::http::header_end(text).is_some() {
        return None;
    }
    Some(hinted)
}

/// The compression a file name promises, and the magic bytes its members start with.
fn hinted(name_hint: &str) -> Option<(Compression, &'static [u8])> {
    let lower = name_hint.to_ascii_lowercase();
    if lower.ends_with(".gz") {
        Some((Compression::Gzip, &GZIP_MAGIC))
    } else if lower.ends_with(".zst") || lower.ends_with(".zstd") {
        Some((Compression::Zstd, &ZSTD_MAGIC))
    } else {
        None
    }
}

/// A file whose first bytes are the other compression's magic (4 bytes of zstd magic
/// before a `.warc.gz`): when the name's own magic follows within `probe`, the start is
/// junk and the name's compression reads the members after it (the junk is reported).
pub(crate) fn contradicted_start(
    sniffed: Compression,
    probe: &[u8],
    name_hint: &str,
) -> Option<Compression> {
    let (hinted, magic) = hinted(name_hint)?;
    if hinted == sniffed || !matches!(sniffed, Compression::Gzip | Compression::Zstd) {
        return None;
    }
    find_member(probe.get(1..).unwrap_or_default(), magic).map(|_| hinted)
}

/// A plain WARC behind a few bytes of compression magic (junk written before it): the
/// first bytes said gzip or zstd, but the name promises no compression, what follows the
/// magic does not decode, and a WARC version line starting a complete header block lies
/// within `probe`. Read as plain, the WARC reader reports the bytes before that record
/// and reads every record; decompressing would lose the whole file.
pub(crate) fn plain_behind_magic(sniffed: Compression, probe: &[u8], name_hint: &str) -> bool {
    // A skippable frame (a `.warc.zst` dictionary) may hold WARC header text itself.
    let frame_magic = probe.starts_with(&ZSTD_MAGIC);
    if hinted(name_hint).is_some() || !(sniffed == Compression::Gzip || frame_magic) {
        return false;
    }
    let record = memchr::memmem::find_iter(probe, b"WARC/").any(|k| {
        let rest = probe.get(k..).unwrap_or_default();
        crate::input::scan::version_line(rest) == crate::input::scan::Version::Yes
            && crate::input::http::header_end(rest).is_some()
    });
    record && !decodes(sniffed, probe)
}

/// Do the first bytes of `probe` decode as `compression` (a stored gzip block holds
/// plain text and decodes)? The zstd window is capped, so a damaged frame header
/// cannot make this allocate much.
fn decodes(compression: Compression, probe: &[u8]) -> bool {
    use std::io::Read;
    let mut out = [0u8; 512];
    match compression {
        Compression::Gzip => flate2::read::MultiGzDecoder::new(probe)
            .read(&mut out)
            .is_ok(),
        Compression::Zstd => zstd::stream::read::Decoder::with_buffer(probe)
            .and_then(|mut dec| {
                dec.window_log_max(crate::limits::ZSTD_WINDOW_LOG_DEFAULT)?;
                dec.read(&mut out)
            })
            .is_ok(),
        _ => true,
    }
}

/// The first offset in `probe` where a member with `magic` plausibly starts: for gzip,
/// the reserved flag bits are clear (RFC 1952 section 2.3.1), so three bytes that happen
/// to match inside compressed data count one time in eight. (The OS byte is no filter:
/// resiliparse writes 19.)
fn find_member(probe: &[u8], magic: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(probe, magic).find(|&k| {
        magic.first() != Some(&0x1f) || probe.get(k + 3).is_none_or(|flags| flags & 0xe0 == 0)
    })
}

/// Sniffs the container from the start of the decompressed stream: a `WARC/` version
/// line (after optional blank lines or NUL padding) means WARC. When the start is damaged,
/// more is looked at: a version line starting a line in the first
/// [`DAMAGED_START_PROBE`] bytes means WARC (whose first record was damaged), a first line
/// with a comma and no NUL means CSV (a header row); when neither decides (an empty file,
/// a zero-filled start), the name does. Returns the stream unchanged (nothing consumed).
pub(crate) fn container(mut stream: Stream, name_hint: &str) -> (Container, Stream) {
    let head = stream.fill(64);
    let start = head
        .iter()
        .position(|b| !matches!(b, b'\r' | b'\n' | b'\0' | b' ' | b'\t'));
    let kind = match start.and_then(|s| head.get(s..)) {
        Some(rest) if rest.starts_with(b"WARC/") => Some(Container::Warc),
        Some(rest) if b"WARC/".starts_with(rest) && !rest.is_empty() => Some(Container::Warc),
        Some(_) => damaged_container(stream.fill(DAMAGED_START_PROBE)),
        None => None,
    };
    let kind = kind.unwrap_or_else(|| {
        // Empty, or the first member was corrupt: the name decides.
        if name_hint.to_ascii_lowercase().contains(".csv") {
            Container::Csv
        } else {
            Container::Warc
        }
    });
    (kind, stream)
}

/// The container of a stream that does not start with a version line, from `probe`.
/// A first line that reads as a CSV header (printable text with a comma) decides first:
/// a CSV whose bodies hold a `WARC/1.0` line is still a CSV.
fn damaged_container(probe: &[u8]) -> Option<Container> {
    let first = probe.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let printable = first
        .iter()
        .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b));
    if printable && first.contains(&b',') && !first.starts_with(b"WARC") {
        return Some(Container::Csv);
    }
    let warc_line = memchr::memmem::find_iter(probe, b"\nWARC/").any(|k| {
        crate::input::scan::version_line(probe.get(k + 1..).unwrap_or_default())
            == crate::input::scan::Version::Yes
    });
    if warc_line {
        return Some(Container::Warc);
    }
    let first = probe.split(|&b| b == b'\n').next().unwrap_or_default();
    (first.contains(&b',') && !first.contains(&0)).then_some(Container::Csv)
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
    fn compression_magic_before_a_plain_warc_is_junk() {
        let warc = b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let behind = |magic: &[u8], name| {
            let mut file = magic.to_vec();
            file.extend_from_slice(warc);
            plain_behind_magic(compression(&file, name), &file, name)
        };
        assert!(behind(&[0x28, 0xb5, 0x2f, 0xfd], "x.warc"));
        assert!(behind(&[0x28, 0xb5, 0x2f, 0xfd, b'\r', b'\n'], "x"));
        assert!(behind(&[0x1f, 0x8b], "x.warc"));
        // The name promises compression: the members after the junk are looked for.
        assert!(!behind(&[0x1f, 0x8b], "x.warc.gz"));
        assert!(!behind(&[0x28, 0xb5, 0x2f, 0xfd], "x.warc.zst"));
        // Real compressed data stays compressed, even a stored (level 0) gzip member
        // whose bytes hold the WARC text as it is.
        let mut stored = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        std::io::Write::write_all(&mut stored, warc).unwrap();
        let stored = stored.finish().unwrap();
        assert!(memchr::memmem::find(&stored, b"WARC/1.0").is_some());
        assert!(!plain_behind_magic(Compression::Gzip, &stored, "x.warc"));
        let zst = zstd::encode_all(&warc[..], 0).unwrap();
        assert!(!plain_behind_magic(Compression::Zstd, &zst, "x"));
    }

    #[test]
    fn damaged_start_of_a_warc_or_csv() {
        let warc = b"WAR\n\n\n: warcinfo\r\n\r\nWARC/1.0\r\nWARC-Type: request\r\n";
        assert_eq!(damaged_container(warc), Some(Container::Warc));
        assert_eq!(
            damaged_container(b"url,body\nhttp://a/robots.txt,x\n"),
            Some(Container::Csv)
        );
        assert_eq!(damaged_container(b"\x01\x02junk"), None);
        assert_eq!(damaged_container(&[0; 100]), None);
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
        // Plain WARC content (a whole header block first) wins over the name...
        let plain = [
            &b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 9\r\n\r\n"[..],
            &[0x1f, 0x8b, 8][..],
        ]
        .concat();
        assert_eq!(damaged_start(&plain, "a.warc.gz"), None);
        // ... a stray version line before the first member does not (issue 22).
        let stray = [&b"WARC/1.0\r\n"[..], &[0x1f, 0x8b, 8][..]].concat();
        assert_eq!(damaged_start(&stray, "a.warc.gz"), Some(Compression::Gzip));
        // Zstd magic before the first gzip member of a .gz: the name's format reads it.
        let zstd_then_gzip = [&[0x28u8, 0xb5, 0x2f, 0xfd][..], &[0x1f, 0x8b, 8, 0][..]].concat();
        assert_eq!(
            contradicted_start(Compression::Zstd, &zstd_then_gzip, "a.warc.gz"),
            Some(Compression::Gzip)
        );
        assert_eq!(
            contradicted_start(Compression::Zstd, &zstd_then_gzip, "a.warc.zst"),
            None
        );
    }
}
