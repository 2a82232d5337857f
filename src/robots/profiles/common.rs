//! What every interpretation profile answers, whatever its parser: the shared answer type.

use crate::robots::{RuleKind, Scope};

/// One family's answer to "may `agent` fetch `url`?".
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub allowed: bool,
    /// 1-based line of the deciding rule, lines counted as the family splits them;
    /// 0 when no rule decided.
    pub line: u32,
    /// The deciding rule's path pattern as the family compares it (after its own escaping).
    pub pattern: Option<String>,
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
