//! The pattern matcher of crawler-commons 1.6 `robots/SimpleRobotRules.java` (`ruleMatches`):
//! `*` wildcards and a trailing `$`, greedy-left and never backtracking, returning the pattern
//! length that rule precedence compares.

pub(super) fn find_sub(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `ruleMatches(text, pattern)`: `pattern.length()` when it matches, else -1.
pub(super) fn rule_matches(text: &[u8], pattern: &[u8]) -> i64 {
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (pattern, false),
    };
    if memchr::memchr(b'*', body).is_none() {
        // Without a `*` the loop below compares byte by byte from the start and never
        // skips: a prefix test, or equality with the trailing `$`. Same answer, one memcmp.
        let matched = if anchored {
            text == body
        } else {
            text.starts_with(body)
        };
        return if matched { pattern.len() as i64 } else { -1 };
    }
    rule_matches_parts(text, body, anchored)
}

/// `ruleMatches` on a pattern given as `body` + (optional) trailing `$`; returns the length of
/// the whole pattern (`body.len() + 1` with `$`). Ported line by line: a `*` takes the FIRST
/// later occurrence of the literal piece after it and the matcher never backtracks.
pub(super) fn rule_matches_parts(text: &[u8], pattern: &[u8], contains_end_char: bool) -> i64 {
    let full_len = pattern.len() as i64 + if contains_end_char { 1 } else { 0 };
    let pattern_end = pattern.len();
    let text_end = text.len();
    let mut pattern_pos = 0usize;
    let mut text_pos = 0usize;
    let index_of_star = |from: usize| -> Option<usize> {
        pattern[from.min(pattern_end)..]
            .iter()
            .position(|&c| c == b'*')
            .map(|p| p + from)
    };

    while pattern_pos < pattern_end && text_pos < text_end {
        let wildcard_pos = index_of_star(pattern_pos).unwrap_or(pattern_end);
        if wildcard_pos == pattern_pos {
            pattern_pos += 1;
            if pattern_pos >= pattern_end {
                // Pattern ends with '*' (even "*$"): match.
                return full_len;
            }
            let piece_end = index_of_star(pattern_pos).unwrap_or(pattern_end);
            let piece_len = piece_end - pattern_pos;
            let mut matched = false;
            while text_pos + piece_len <= text_end && !matched {
                matched = text[text_pos..text_pos + piece_len] == pattern[pattern_pos..piece_end];
                if !matched {
                    text_pos += 1;
                }
            }
            if !matched {
                return -1;
            }
        } else {
            while pattern_pos < wildcard_pos && text_pos < text_end {
                let (t, p) = (text[text_pos], pattern[pattern_pos]);
                text_pos += 1;
                pattern_pos += 1;
                if t != p {
                    return -1;
                }
            }
        }
    }
    while pattern_pos < pattern_end && pattern[pattern_pos] == b'*' {
        pattern_pos += 1;
    }
    if pattern_pos == pattern_end && (text_pos == text_end || !contains_end_char) {
        full_len
    } else {
        -1
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_prefix_fast_path_answers_as_the_ported_loop() {
        let texts: [&[u8]; 6] = [b"", b"/", b"/a", b"/ab", b"/a/b?c", b"/b"];
        let patterns: [&[u8]; 8] = [b"", b"$", b"/", b"/$", b"/a", b"/a$", b"/ab/", b"/a/b?c$"];
        for text in texts {
            for pattern in patterns {
                let slow = match pattern.split_last() {
                    Some((b'$', body)) => super::rule_matches_parts(text, body, true),
                    _ => super::rule_matches_parts(text, pattern, false),
                };
                assert_eq!(
                    super::rule_matches(text, pattern),
                    slow,
                    "{text:?} {pattern:?}"
                );
            }
        }
    }

    use super::*;

    /// The cases of `matcher_is_non_backtracking` and `dollar_mid_pattern_never_matches`
    /// (mod.rs) on already-normalised paths; a match returns the pattern length.
    #[test]
    fn rule_matches_direct() {
        assert_eq!(rule_matches(b"/a.php", b"/*.php$"), 7);
        assert_eq!(rule_matches(b"/a.php.php", b"/*.php$"), -1);
        assert_eq!(rule_matches(b"/abc", b"/a*$"), 4);
        assert_eq!(rule_matches(b"/a%24b", b"/a$b"), -1);
        // the index.htm(l) fallback: "/dir/" + '$'
        assert_eq!(rule_matches_parts(b"/dir/", b"/dir/", true), 6);
        assert_eq!(find_sub(b"/dir/index.html", b"index.htm"), Some(5));
    }
}
