//! Rule patterns and how they match a path: robots.cc's `Matches`, in linear time.
//!
//! `*` matches any run of bytes; `$` anchors only as the last byte; a pattern
//! matches when it matches a prefix of the path. robots.cc tracks the set of
//! reachable path positions; because `*` is the only wildcard, taking every literal
//! segment between stars at its leftmost occurrence is equivalent, and with memmem
//! that is linear in path + pattern whatever the pattern (`/*a*a*a*...$` included).

use memchr::memmem;

/// A compiled pattern: how it will be matched, decided once at parse time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatternKind {
    /// No `*`, no final `$`: a prefix test.
    Prefix,
    /// No `*`, final `$`: the path must equal the pattern without the `$`.
    Exact,
    /// Contains `*`.
    Wildcard { anchored: bool },
}

impl PatternKind {
    pub(crate) fn of(pattern: &[u8]) -> Self {
        let anchored = pattern.last() == Some(&b'$');
        let body = if anchored {
            &pattern[..pattern.len() - 1]
        } else {
            pattern
        };
        match (memchr::memchr(b'*', body).is_some(), anchored) {
            (false, false) => PatternKind::Prefix,
            (false, true) => PatternKind::Exact,
            (true, anchored) => PatternKind::Wildcard { anchored },
        }
    }
}

/// Whether `pattern` (already percent-escaped, of kind `kind`) matches `path`.
pub(crate) fn matches(kind: PatternKind, pattern: &[u8], path: &[u8]) -> bool {
    match kind {
        PatternKind::Prefix => {
            count_work!(pattern.len());
            path.starts_with(pattern)
        }
        PatternKind::Exact => {
            count_work!(pattern.len());
            path == &pattern[..pattern.len() - 1]
        }
        PatternKind::Wildcard { anchored } => {
            let body = if anchored {
                &pattern[..pattern.len() - 1]
            } else {
                pattern
            };
            wildcard_matches(body, anchored, path)
        }
    }
}

/// Whether `body` followed by an end anchor (`body$`) matches `path`; used for
/// the `prefix$` pattern robots.cc derives from an `index.htm` Allow.
pub(crate) fn matches_anchored(body: &[u8], path: &[u8]) -> bool {
    if memchr::memchr(b'*', body).is_some() {
        wildcard_matches(body, true, path)
    } else {
        count_work!(body.len());
        path == body
    }
}

fn wildcard_matches(body: &[u8], anchored: bool, path: &[u8]) -> bool {
    let mut segments = body.split(|b| *b == b'*');
    let first = segments.next().unwrap_or_default();
    count_work!(first.len() + 1);
    if !path.starts_with(first) {
        return false;
    }
    let mut cursor = first.len();
    let mut last = None;
    for segment in segments {
        count_work!(1);
        // Every segment but the last may sit anywhere after the previous one.
        if let Some(prev) = last.replace(segment) {
            match find_from(path, cursor, prev) {
                Some(end) => cursor = end,
                None => return false,
            }
        }
    }
    let last = last.unwrap_or_default();
    if anchored {
        count_work!(last.len());
        path.len() >= cursor + last.len() && path.ends_with(last)
    } else {
        find_from(path, cursor, last).is_some()
    }
}

/// End position of the leftmost occurrence of `needle` in `hay[from..]`.
fn find_from(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(from);
    }
    let rest = hay.get(from..)?;
    let at = if needle.len() == 1 {
        memchr::memchr(needle[0], rest)
    } else {
        memmem::find(rest, needle)
    };
    // The search covers the haystack up to the match's end, or all of it.
    count_work!(at.map_or(rest.len(), |i| i + needle.len()));
    at.map(|i| from + i + needle.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        matches(
            PatternKind::of(pattern.as_bytes()),
            pattern.as_bytes(),
            path.as_bytes(),
        )
    }

    /// robots.cc's position-set algorithm, kept here as the specification the fast
    /// matcher is checked against.
    fn reference(pattern: &[u8], path: &[u8]) -> bool {
        let mut pos = vec![0usize];
        for (i, &c) in pattern.iter().enumerate() {
            if c == b'$' && i + 1 == pattern.len() {
                return pos.last() == Some(&path.len());
            }
            if c == b'*' {
                pos = (pos[0]..=path.len()).collect();
            } else {
                pos = pos
                    .iter()
                    .filter(|&&p| p < path.len() && path[p] == c)
                    .map(|p| p + 1)
                    .collect();
                if pos.is_empty() {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn rfc_2_2_3_special_characters() {
        assert!(m("/fish", "/fish.html"));
        assert!(!m("/fish", "/Fish.asp"));
        assert!(m("/*.php", "/filename.php"));
        assert!(m("/*.php", "/folder/filename.php?parameters"));
        assert!(m("/*.php$", "/filename.php"));
        assert!(!m("/*.php$", "/filename.php?parameters"));
        assert!(!m("/*.php$", "/filename.php5"));
        assert!(m("/fish*.php", "/fishheads/catfish.php?parameters"));
        assert!(!m("/fish*.php", "/Fish.PHP"));
        assert!(m("/$", "/"));
        assert!(!m("/$", "/page.htm"));
        assert!(m("*", "/anything"));
        assert!(m("", "/anything"));
        assert!(!m("$", "/"));
        assert!(m("/a$b", "/a$b"));
        assert!(m("/*$", "/x"));
    }

    #[test]
    fn wildcard_agrees_with_robots_cc_position_sets() {
        let patterns = [
            "/*a*a$",
            "/a*b*c",
            "*a*",
            "/a**b$",
            "/$$",
            "/*$*$",
            "**",
            "/x*",
            "*/a$",
            "/a*a*a*a$",
            "$*$",
        ];
        let paths = [
            "/", "/a", "/aa", "/aaa", "/abc", "/a$b", "/x/a", "/ab/c", "/$", "/aXbYc", "/$$",
        ];
        for pat in patterns {
            for path in paths {
                assert_eq!(
                    m(pat, path),
                    reference(pat.as_bytes(), path.as_bytes()),
                    "{pat} vs {path}"
                );
            }
        }
    }

    /// `/*a*a...*a$` (k stars) against `/aaa...ab` (40k bytes): robots.cc's position
    /// sets take k * 40k steps here; doubling k (and so the path too) must only double
    /// the matcher's work (`crate::work`), up to k = 5,000 and a 200,000-byte path.
    #[test]
    fn adversarial_pattern_is_linear() {
        crate::work::assert_linear(2_500, 2_500, |k| {
            let pattern = format!("/{}$", "*a".repeat(k));
            let path = format!("/{}b", "a".repeat(40 * k));
            assert!(!m(&pattern, &path));
        });
    }
}
