//! User-agent values as robots.cc matches them.
//!
//! A robots.txt `User-agent:` value is reduced to its product token: the longest
//! prefix of `[A-Za-z_-]` ("Googlebot/2.1" -> "Googlebot"). A value that is `*`
//! alone, or `*` followed by whitespace, names the global group.

/// The product token robots.cc compares: the value cut at the first byte outside `[A-Za-z_-]`.
pub(crate) fn product_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphabetic() || *b == b'-' || *b == b'_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// Whether a user-agent value names the global (`*`) group. robots.cc accepts `*`
/// followed by whitespace and anything after it.
pub(crate) fn is_star(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => crate::tokenize::is_ascii_space(*next),
        _ => false,
    }
}

/// Case-insensitive exact comparison of a file's product token with the crawler's
/// own token. The crawler's token is used as given: "Googlebot/2.1" matches nothing.
pub(crate) fn token_matches(file_token: &[u8], agent: &[u8]) -> bool {
    file_token.eq_ignore_ascii_case(agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_product_token_cut() {
        assert_eq!(product_token(b"Googlebot/2.1"), b"Googlebot");
        assert_eq!(product_token(b"Googlebot-News"), b"Googlebot-News");
        assert_eq!(product_token(b"Mozilla/5.0 (compatible)"), b"Mozilla");
        assert_eq!(product_token(b"foo bar"), b"foo");
        assert_eq!(product_token(b"*"), b"");
        assert_eq!(product_token(b"bot2"), b"bot");
    }

    #[test]
    fn google_star_with_trailing_text_is_global() {
        assert!(is_star(b"*"));
        assert!(is_star(b"* # all"));
        assert!(is_star(b"*\tbots"));
        assert!(!is_star(b"*bot"));
        assert!(!is_star(b""));
    }

    #[test]
    fn rfc_2_2_1_agent_match_is_case_insensitive() {
        assert!(token_matches(b"googlebot", b"Googlebot"));
        assert!(!token_matches(b"Googlebot", b"Googlebot-News"));
        assert!(!token_matches(b"Googlebot", b"Googlebot/2.1"));
    }
}
