//! What every interpretation profile answers, whatever its parser: the shared answer type;
//! and the line separators beyond ASCII that several families' line splitting shares.

use crate::{RuleKind, Scope};

/// One family's answer to "may `agent` fetch `url`?", from
/// [`Interpretations::answer`](crate::Interpretations::answer).
///
/// ```
/// use robots_census_engine::{Interpretations, Profile, RobotsTxt, RuleKind, Scope};
///
/// let body = b"User-agent: *\nAllow: /a\nDisallow: /a/b\n";
/// let doc = RobotsTxt::parse(body);
/// let reads = Interpretations::new(body, &doc);
/// // Baidu: the first matching line decides; robots.cc: the longest.
/// let baidu = reads.answer(Profile::Baidu, "Baiduspider", "https://example.com/a/b/c");
/// assert_eq!((baidu.allowed, baidu.line, baidu.directive), (true, 2, Some(RuleKind::Allow)));
/// assert_eq!((baidu.pattern.as_deref(), baidu.scope), (Some("/a"), Scope::Star));
/// assert!(!reads.answer(Profile::Google, "Baiduspider", "https://example.com/a/b/c").allowed);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// May the agent fetch the URL?
    pub allowed: bool,
    /// 1-based line of the deciding rule, lines counted as the family splits them;
    /// 0 when no rule decided.
    pub line: u32,
    /// The deciding rule's path pattern as the family compares it (after its own escaping).
    pub pattern: Option<String>,
    /// The deciding rule's directive; `None` when no rule decided.
    pub directive: Option<RuleKind>,
    /// Which groups applied: the agent's own (`Named`), a family's fallback group such as
    /// Applebot reading the Googlebot group (`Fallback`), the `*` group (`Star`), or none.
    pub scope: Scope,
}

impl Answer {
    /// `kind`'s rule at `line` (its pattern as the family compares it) decided: allowed
    /// exactly when it is an Allow.
    pub fn decided(kind: RuleKind, line: u32, pattern: String, scope: Scope) -> Self {
        Answer {
            allowed: kind == RuleKind::Allow,
            line,
            pattern: Some(pattern),
            directive: Some(kind),
            scope,
        }
    }

    /// No rule decided: allowed, under `scope`.
    pub fn no_rule(scope: Scope) -> Self {
        Answer {
            allowed: true,
            line: 0,
            pattern: None,
            directive: None,
            scope,
        }
    }
}

/// The length in bytes of the line separator U+0085, U+2028 or U+2029 that starts at
/// `text[at]` (UTF-8 `C2 85`, `E2 80 A8`, `E2 80 A9`), or 0 when none does. Python's
/// `str.splitlines()` (urllib, protego) and Java's `StringTokenizer` as crawler-commons
/// calls it (ccbot) both break lines there; their scans look for the lead bytes and ask
/// this. In UTF-8 text a lead byte starts a char, so a match is that char.
pub(super) fn unicode_break_at(text: &[u8], at: usize) -> usize {
    let next = |k: usize| text.get(at + k).copied();
    match text.get(at) {
        Some(0xc2) if next(1) == Some(0x85) => 2,
        Some(0xe2) if next(1) == Some(0x80) && matches!(next(2), Some(0xa8 | 0xa9)) => 3,
        _ => 0,
    }
}
