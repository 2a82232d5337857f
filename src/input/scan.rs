//! Byte-level tests the WARC reader uses to find record boundaries in damaged data.
//!
//! Pure functions over a window of bytes: is this a WARC version line, is this a
//! separator, does a declared record end land cleanly. The reader decides what to do;
//! these only look.

use crate::limits::MAX_RECORD_GAP;

/// Bytes needed to judge a version line (`WARC/0.18\r\r\n` and some slack).
pub(crate) const VERSION_PROBE: usize = 32;

/// Does `b` start with a WARC version line (`WARC/<digits and dots>` then CR* LF)?
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Version {
    Yes,
    No,
    NeedMore,
}

pub(crate) fn version_line(b: &[u8]) -> Version {
    const MAGIC: &[u8] = b"WARC/";
    if b.len() < MAGIC.len() {
        return if MAGIC.starts_with(b) {
            Version::NeedMore
        } else {
            Version::No
        };
    }
    if !b.starts_with(MAGIC) {
        return Version::No;
    }
    let rest = b.get(MAGIC.len()..).unwrap_or_default();
    let digits = rest
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let after = rest.get(digits..).unwrap_or_default();
    let crs = after.iter().take_while(|&&c| c == b'\r').count();
    match after.get(crs) {
        _ if digits == 0 || digits > 8 => Version::No,
        Some(b'\n') => Version::Yes,
        Some(_) => Version::No,
        None => Version::NeedMore,
    }
}

/// A byte that may pad the space between records.
pub(crate) fn is_separator(c: u8) -> bool {
    matches!(c, b'\r' | b'\n' | b'\0')
}

/// Start of the run of CR / LF bytes that ends `b` (`b.len()` when `b` does not end
/// with one): the terminator of a record whose successor starts right after `b`.
pub(crate) fn trailing_newlines(b: &[u8]) -> usize {
    b.len()
        - b.iter()
            .rev()
            .take_while(|&&c| c == b'\r' || c == b'\n')
            .count()
}

/// Where the record terminator (CRLF CRLF, or LF LF from LF-only writers) that ends
/// `b` starts; `b.len()` when `b` does not end with one.
pub(crate) fn terminator_start(b: &[u8]) -> usize {
    if b.ends_with(b"\r\n\r\n") {
        b.len() - 4
    } else if b.ends_with(b"\n\n") {
        b.len() - 2
    } else {
        b.len()
    }
}

/// Every position of `WARC/` in `b`. The searcher is built once: every block and
/// header is scanned, and building a `memmem` searcher per scan cost more than the
/// scan itself on robots.txt-sized records.
pub(crate) fn warc_slashes(b: &[u8]) -> memchr::memmem::FindIter<'_, 'static> {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"WARC/"));
    FINDER.find_iter(b)
}

/// The first offset `k` in `b[..limit]` where a record may start: `WARC/` at a line
/// start (`b[k-1]` is LF, or `k == 0` and the byte before `b`, `prev`, is LF), or at a
/// member / frame start (`unit_at(k)`: after damaged data that does not end in a line
/// break). One scan for both.
pub(crate) fn record_start_candidate(
    b: &[u8],
    limit: usize,
    prev: u8,
    unit_at: impl Fn(usize) -> bool,
) -> Option<usize> {
    warc_slashes(b).take_while(|&k| k < limit).find(|&k| {
        let before = match k {
            0 => prev,
            _ => b.get(k - 1).copied().unwrap_or(0),
        };
        before == b'\n' || unit_at(k)
    })
}

/// Bytes of look-ahead [`ends_cleanly`] needs past a declared record end.
pub(crate) const END_PROBE: usize = MAX_RECORD_GAP as usize + 1 + VERSION_PROBE;

/// Does a record whose block ends where `rest` starts end as a record should: a short
/// run of separators (CRLF CRLF) followed by the next version line or the end of the
/// data? `at_end` says the data ends where `rest` ends. Used to trust a declared
/// Content-Length over a `WARC/` line found inside the block.
pub(crate) fn ends_cleanly(rest: &[u8], at_end: bool) -> bool {
    if rest.is_empty() {
        return at_end;
    }
    let sep = rest.iter().take_while(|&&c| is_separator(c)).count();
    if sep == 0 || sep as u64 > MAX_RECORD_GAP {
        // Landing right on a version line means the length overshot by whole records.
        return false;
    }
    let next = rest.get(sep..).unwrap_or_default();
    if next.is_empty() {
        return at_end;
    }
    version_line(next) == Version::Yes
}

/// Does a record whose block ends where `rest` starts end exactly as a writer ends it:
/// one terminator (CRLF CRLF, LF LF, or CR CR LF twice) and then the next version line
/// or the end of the data? A clean landing ([`ends_cleanly`]) that is not exact may be
/// a wrong Content-Length that happens to stop inside a later record's terminator.
pub(crate) fn ends_exactly(rest: &[u8], at_end: bool) -> bool {
    if rest.is_empty() {
        return at_end;
    }
    for t in [&b"\r\n\r\n"[..], b"\n\n", b"\r\r\n\r\r\n"] {
        if let Some(next) = rest.strip_prefix(t) {
            return if next.is_empty() {
                at_end
            } else {
                version_line(next) == Version::Yes
            };
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines() {
        assert_eq!(version_line(b"WARC/1.0\r\n"), Version::Yes);
        assert_eq!(version_line(b"WARC/0.18\r\r\n"), Version::Yes);
        assert_eq!(version_line(b"WARC/1.1\n"), Version::Yes);
        assert_eq!(version_line(b"WARC/1.0"), Version::NeedMore);
        assert_eq!(version_line(b"WAR"), Version::NeedMore);
        assert_eq!(version_line(b"WARC/x\r\n"), Version::No);
        assert_eq!(version_line(b"WARC-Type: x\r\n"), Version::No);
    }

    #[test]
    fn clean_record_ends() {
        assert!(ends_cleanly(b"\r\n\r\nWARC/1.0\r\n", false));
        assert!(ends_cleanly(b"\r\n\r\n", true));
        assert!(ends_cleanly(b"", true));
        assert!(!ends_cleanly(b"\r\n\r\n", false));
        assert!(!ends_cleanly(b"WARC/1.0\r\n", false), "no terminator");
        assert!(!ends_cleanly(b"-Type: response\r\n", false));
        assert!(!ends_cleanly(&[0; 40], true), "too much padding");
        assert!(ends_exactly(b"\r\n\r\nWARC/1.0\r\n", false));
        assert!(ends_exactly(b"\n\nWARC/1.0\n", false));
        assert!(ends_exactly(b"\r\n\r\n", true));
        assert!(
            !ends_exactly(b"\nWARC/1.0\r\n", false),
            "one byte short of the next record: inside its predecessor's terminator"
        );
        assert!(ends_cleanly(b"\nWARC/1.0\r\n", false));
    }

    #[test]
    fn candidates_and_terminators() {
        let b = b"x\nWARC/1.0\r\nyWARC/\nWARC/";
        let never = |_| false;
        assert_eq!(record_start_candidate(b, b.len(), b'x', never), Some(2));
        assert_eq!(
            record_start_candidate(&b[3..], b.len() - 3, b'x', never),
            Some(16)
        );
        assert_eq!(record_start_candidate(&b[3..], 16, b'x', never), None);
        // Not at a line start, but at a member start.
        assert_eq!(
            record_start_candidate(&b[3..], b.len() - 3, b'x', |k| k == 10),
            Some(10)
        );
        assert_eq!(record_start_candidate(b"WARC/", 5, b'\n', never), Some(0));
        assert_eq!(record_start_candidate(b"WARC/", 5, b'x', never), None);
        assert_eq!(trailing_newlines(b"ab\r\n\r\n"), 2);
        assert_eq!(trailing_newlines(b"ab"), 2);
        assert_eq!(trailing_newlines(b"\n"), 0);
        assert_eq!(terminator_start(b"a\n\r\n\r\n"), 2);
        assert_eq!(terminator_start(b"a\n\n"), 1);
        assert_eq!(terminator_start(b"a\r\n"), 3);
    }
}
