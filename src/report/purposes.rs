//! What each crawler is for, and the colour it keeps on every chart of the page.
//!
//! The report groups agents by purpose (AI training, AI search and assistants, search
//! engines, SEO and marketing, other): `purposes.tsv`, written by
//! `scripts/agent_purposes.py` from ai.robots.txt's `robots.json` and the default agent
//! list. Tokens are matched as robots.cc matches them, case-insensitively. Its third
//! column says whether the crawler's operator says it honours robots.txt (yes, no or
//! unclear), for readers of the file; the report does not draw it.

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
                let mut fields = line.split('\t');
                let (token, purpose) = (fields.next()?, fields.next()?);
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
        // Three columns on every line, the third yes, no or unclear.
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line:?}");
            assert!(["yes", "no", "unclear"].contains(&fields[2]), "{line:?}");
        }
    }

    #[test]
    fn the_crawlers_of_2026_have_their_purpose_and_robots_txt_stance() {
        // (token, purpose, does its operator say it honours robots.txt): robots.json's
        // "respect", and Google's page on user-triggered fetchers for NotebookLM.
        let want = [
            ("Claude-SearchBot", Purpose::AiAssistant, "yes"),
            ("Claude-User", Purpose::AiAssistant, "yes"),
            ("Perplexity-User", Purpose::AiAssistant, "no"),
            ("Meta-ExternalFetcher", Purpose::AiAssistant, "no"),
            ("Google-NotebookLM", Purpose::AiAssistant, "no"),
            ("Google-CloudVertexBot", Purpose::AiTraining, "yes"),
            ("GoogleOther", Purpose::AiTraining, "yes"),
            ("DeepSeekBot", Purpose::AiTraining, "no"),
        ];
        let defaults = crate::verdicts::parse_agent_list(crate::verdicts::DEFAULT_AGENTS);
        for (token, purpose_of, respects) in want {
            assert!(
                defaults.iter().any(|a| a == token),
                "{token} not a default agent"
            );
            assert_eq!(purpose(token), purpose_of, "{token}");
            let line = TABLE
                .lines()
                .find(|l| l.split('\t').next() == Some(token))
                .unwrap_or_else(|| panic!("{token} not in purposes.tsv"));
            assert_eq!(line.split('\t').nth(2), Some(respects), "{token}");
        }
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
