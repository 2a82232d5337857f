//! What each crawler is for, and the colour it keeps on every chart of the page.
//!
//! The report groups agents by purpose (AI training, AI search and assistants, search
//! engines, SEO and marketing, other): `purposes.tsv`, written by
//! `scripts/agent_purposes.py` from ai.robots.txt's `robots.json` and the default agent
//! list. Tokens are matched as robots.cc matches them, case-insensitively.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The groups, in the order the page shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Purpose {
    AiTraining,
    AiAssistant,
    Search,
    Seo,
    Other,
}

impl Purpose {
    pub const ALL: [Purpose; 5] = [
        Purpose::AiTraining,
        Purpose::AiAssistant,
        Purpose::Search,
        Purpose::Seo,
        Purpose::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Purpose::AiTraining => "AI training",
            Purpose::AiAssistant => "AI search and assistants",
            Purpose::Search => "Search engines",
            Purpose::Seo => "SEO and marketing",
            Purpose::Other => "Other",
        }
    }

    /// The group's colour (Okabe and Ito's colour-blind-safe set): every agent of the
    /// group is drawn in it, and no chart draws two lines of one group.
    pub fn color(self) -> &'static str {
        match self {
            Purpose::AiTraining => "#D55E00",
            Purpose::AiAssistant => "#CC79A7",
            Purpose::Search => "#0072B2",
            Purpose::Seo => "#009E73",
            Purpose::Other => "#555555",
        }
    }

    /// AI crawlers: the headline's "top AI crawlers".
    pub fn is_ai(self) -> bool {
        matches!(self, Purpose::AiTraining | Purpose::AiAssistant)
    }

    fn parse(name: &str) -> Option<Purpose> {
        Purpose::ALL.into_iter().find(|p| p.name() == name)
    }
}

const TABLE: &str = include_str!("purposes.tsv");

fn table() -> &'static HashMap<String, Purpose> {
    static MAP: OnceLock<HashMap<String, Purpose>> = OnceLock::new();
    MAP.get_or_init(|| {
        TABLE
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let (token, purpose) = line.split_once('\t')?;
                Some((token.to_ascii_lowercase(), Purpose::parse(purpose)?))
            })
            .collect()
    })
}

/// The purpose of a crawler token; `Other` for tokens the table does not know.
pub fn purpose(agent: &str) -> Purpose {
    table()
        .get(&agent.to_ascii_lowercase())
        .copied()
        .unwrap_or(Purpose::Other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_is_read() {
        let lines = TABLE.lines().filter(|l| !l.starts_with('#')).count();
        let distinct: std::collections::HashSet<String> = TABLE
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t').map(|(t, _)| t.to_ascii_lowercase()))
            .collect();
        assert_eq!(table().len(), distinct.len());
        assert!(lines > 150, "{lines}");
    }

    #[test]
    fn known_crawlers_have_their_purpose() {
        assert_eq!(purpose("GPTBot"), Purpose::AiTraining);
        assert_eq!(purpose("gptbot"), Purpose::AiTraining);
        assert_eq!(purpose("OAI-SearchBot"), Purpose::AiAssistant);
        assert_eq!(purpose("Googlebot-News"), Purpose::Search);
        assert_eq!(purpose("AhrefsBot"), Purpose::Seo);
        assert_eq!(purpose("NoSuchBot"), Purpose::Other);
        // Every agent of the default list has a group of its own.
        let defaults = crate::verdicts::parse_agent_list(crate::verdicts::DEFAULT_AGENTS);
        for agent in defaults {
            assert_ne!(purpose(&agent), Purpose::Other, "{agent}");
        }
    }
}
