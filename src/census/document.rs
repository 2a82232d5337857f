//! What a parsed robots.txt holds, as the `documents`, `rules` and `sitemaps`
//! columns count and describe it. Computed from the one parsed model.

use crate::limits::ROBOTS_PARSE_CAP;
use robots_census_engine::{RobotsTxt, RuleKind, Sitemap};

/// The `n_*` columns of `documents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub lines: usize,
    pub directives: usize,
    pub groups: usize,
    /// Allow lines inside groups.
    pub allow: usize,
    /// Disallow lines inside groups.
    pub disallow: usize,
    pub sitemaps: usize,
    pub other: usize,
    pub findings: usize,
}

impl Counts {
    pub fn of(doc: &RobotsTxt<'_>) -> Counts {
        let in_groups = doc.rules.iter().filter(|r| r.group.is_some());
        let allow = in_groups
            .clone()
            .filter(|r| r.kind == RuleKind::Allow)
            .count();
        Counts {
            lines: doc.lines.lines as usize,
            directives: doc.lines.directive as usize,
            groups: doc.groups.len(),
            allow,
            disallow: in_groups.count() - allow,
            sitemaps: doc.sitemaps.len(),
            other: doc.others.len(),
            findings: doc.findings.len(),
        }
    }
}

/// `documents.cut_at_500kib`: the body is longer than Google reads, whether the parse
/// saw the cut or only the body's counted size says so (a body not parsed).
pub fn cut_at_500kib(doc: Option<&RobotsTxt<'_>>, body_size: u64) -> bool {
    doc.is_some_and(|d| d.facts.cut_at_cap) || body_size > ROBOTS_PARSE_CAP as u64
}

/// The `sitemaps` columns besides the line and URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapFacts {
    /// An absolute http(s) or ftp URL with a host.
    pub is_absolute: bool,
    /// Its host (WHATWG parsing), for absolute URLs.
    pub host: Option<String>,
    /// The host equals the robots.txt's host; `None` when either is unknown.
    pub same_host: Option<bool>,
}

impl SitemapFacts {
    /// The facts of `sitemap` (its URL as text `url`) in a robots.txt served by `doc_host`.
    pub fn of(sitemap: &Sitemap<'_>, url: &str, doc_host: &str) -> SitemapFacts {
        let is_absolute = sitemap.is_absolute;
        let host = is_absolute.then(|| super::urls::url_host(url)).flatten();
        let same_host = match &host {
            Some(h) if !doc_host.is_empty() => Some(h == doc_host),
            _ => None,
        };
        SitemapFacts {
            is_absolute,
            host,
            same_host,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_hosts_compare_with_the_document_host() {
        let doc = RobotsTxt::parse(b"Sitemap: https://Example.com/s.xml\nSitemap: /rel.xml\n");
        let facts: Vec<SitemapFacts> = doc
            .sitemaps
            .iter()
            .map(|s| SitemapFacts::of(s, &doc.text_of(s.url), "example.com"))
            .collect();
        assert_eq!(facts[0].host.as_deref(), Some("example.com"));
        assert_eq!(facts[0].same_host, Some(true));
        assert!(!facts[1].is_absolute);
        assert_eq!((facts[1].host.clone(), facts[1].same_host), (None, None));
    }
}
