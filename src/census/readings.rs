//! The `readings` table's values: each interpretation profile's reading of one parsed
//! document for one agent, and whether the profiles asked agree about it.

use robots_census_engine::{Answer, Interpretations, ProbeClass, Profile};

/// One profile's reading of a document for an agent (a row of `readings` but its
/// agent: agents no group names share the same readings, without copies).
#[derive(Debug, Clone)]
pub struct Reading {
    pub profile: Profile,
    /// The answer about `/`.
    pub root: Answer,
    pub probe_class: ProbeClass,
    pub crawl_delay: Option<f64>,
    pub crawl_delay_blocks: bool,
    /// The profiles of the run disagree about this (document, agent).
    pub interpretation_sensitive: bool,
}

/// Every profile's reading for `agent`, in `profiles` order; each row says whether
/// the profiles disagree about `/` or the probe class.
pub fn readings(
    reads: &Interpretations<'_, '_>,
    profiles: &[Profile],
    agent: &str,
) -> Vec<Reading> {
    // Google's reading, shared by the families that read this agent as robots.cc does.
    let google = std::cell::OnceCell::new();
    let mut rows: Vec<Reading> = profiles
        .iter()
        .map(|&profile| {
            let (root, probe_class) = if reads.reads_as_google(profile, agent) {
                google
                    .get_or_init(|| reads.probe_class(Profile::Google, agent))
                    .clone()
            } else {
                reads.probe_class(profile, agent)
            };
            Reading {
                profile,
                root,
                probe_class,
                crawl_delay: reads.crawl_delay(profile, agent),
                crawl_delay_blocks: reads.crawl_delay_blocks(profile, agent),
                interpretation_sensitive: false,
            }
        })
        .collect();
    let first = rows.first().map(|r| (r.root.allowed, r.probe_class));
    let sensitive = rows
        .iter()
        .any(|r| Some((r.root.allowed, r.probe_class)) != first);
    for row in &mut rows {
        row.interpretation_sensitive = sensitive;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use robots_census_engine::RobotsTxt;

    #[test]
    fn sensitivity_is_any_disagreement_among_the_profiles_asked() {
        // A blank line inside the group: Yandex and urllib read no rule for GPTBot.
        let body = b"User-agent: GPTBot\n\nDisallow: /\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        let rows = readings(&reads, &[Profile::Google, Profile::Yandex], "GPTBot");
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].root.allowed, rows[0].probe_class),
            (false, ProbeClass::Full)
        );
        assert_eq!(
            (rows[1].root.allowed, rows[1].probe_class),
            (true, ProbeClass::None)
        );
        assert!(rows.iter().all(|r| r.interpretation_sensitive));
        let same = readings(&reads, &[Profile::Google, Profile::Bing], "GPTBot");
        assert!(same.iter().all(|r| !r.interpretation_sensitive));
    }
}
