//! The per-host numbers of the report, over the whole dataset, with the definitions of
//! the queries they mirror: the latest-capture rule of `latest_capture_per_host.sql`,
//! then `top_user_agents.sql`, `sitemap_adoption.sql`, `crawl_delay.sql`,
//! `lint_findings.sql` and `size_distribution.sql`. Kept in memory: a few dozen bytes
//! per robots.txt capture plus its host name.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use regex::Regex;

use super::crawls::pct;
use super::read::{for_each_row, DocId};
use super::ReportError;

/// The robots.txt URL test every query applies (case-insensitive).
const ROBOTS_URL: &str = r"(?i)^https?://[^/?#]+/([^?#]*/)?robots\.txt([?#]|$)";

/// A robots.txt capture, as much as the report needs.
struct Doc {
    id: DocId,
    host: Option<u32>,
    fetch_time: Option<i64>,
    status: Option<i64>,
    revisit: bool,
    body_size: i64,
    lower_bound: bool,
}

impl Doc {
    /// A parsed robots.txt: not a revisit, 2xx or no status (CSV rows).
    fn parsed(&self) -> bool {
        !self.revisit && self.status.is_none_or(|s| (200..=299).contains(&s))
    }
}

/// One row of `top_user_agents.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub token: String,
    pub hosts: u64,
    pub hosts_pct: Option<f64>,
    pub groups: u64,
    pub example: String,
}

/// One row of `sitemap_adoption.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    pub measure: &'static str,
    pub hosts: u64,
    pub hosts_pct: Option<f64>,
    pub lines: u64,
}

/// One row of `crawl_delay.sql` (the columns the report shows).
#[derive(Debug, Clone, PartialEq)]
pub struct Delay {
    pub token: String,
    pub hosts: u64,
    pub groups: u64,
    pub min: f64,
    pub median: f64,
    pub max: f64,
    /// Groups by value: (,1], (1,5], (5,10], (10,60], over 60 seconds.
    pub buckets: [u64; 5],
}

pub const DELAY_BUCKETS: [(&str, &str); 5] = [
    ("le_1s", "≤ 1 s"),
    ("le_5s", "1–5 s"),
    ("le_10s", "5–10 s"),
    ("le_60s", "10–60 s"),
    ("over_60s", "> 60 s"),
];

/// One row of `lint_findings.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lint {
    pub code: String,
    pub severity: String,
    pub documents: u64,
    pub findings: u64,
    pub hosts: u64,
    pub latest_hosts: u64,
    pub example: Option<String>,
}

/// One row of `size_distribution.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct Size {
    pub bucket: &'static str,
    pub min: i64,
    pub max: Option<i64>,
    pub captures: u64,
    pub parsed_captures: u64,
    pub latest_hosts: u64,
    pub lower_bound: u64,
}

/// The size buckets of `size_distribution.sql`; the last starts past Google's cut.
pub const SIZE_BUCKETS: [(&str, i64, Option<i64>); 6] = [
    ("0 B", 0, Some(0)),
    ("1 B-1 KiB", 1, Some(1024)),
    ("1-10 KiB", 1025, Some(10240)),
    ("10-100 KiB", 10241, Some(102400)),
    ("100 KiB-500 KiB", 102401, Some(512000)),
    ("over 500 KiB", 512001, None),
];

/// Everything per host.
#[derive(Debug, Default)]
pub struct Hosts {
    /// Hosts whose latest capture is a parsed robots.txt.
    pub parsed_hosts: u64,
    pub robots_captures: u64,
    pub tokens: Vec<Token>,
    pub sitemaps: Vec<Measure>,
    pub delays: Vec<Delay>,
    pub lint: Vec<Lint>,
    pub sizes: Vec<Size>,
}

/// Reads documents, groups, sitemaps and errors of `out`.
pub fn read(out: &Path) -> Result<Hosts, ReportError> {
    let robots = Regex::new(ROBOTS_URL).map_err(|e| ReportError::Internal(e.to_string()))?;
    let mut names: HashMap<String, u32> = HashMap::new();
    let mut docs: Vec<Doc> = Vec::new();
    let columns = [
        "doc_id",
        "url",
        "host",
        "fetch_time",
        "http_status",
        "record_kind",
        "body_size",
        "body_size_is_lower_bound",
        "warc_truncated",
    ];
    for_each_row(out, "documents", &columns, |row| {
        if !row.str("url")?.is_some_and(|u| robots.is_match(u)) {
            return Ok(());
        }
        let Some(id) = row.id("doc_id")? else {
            return Ok(());
        };
        let host = match row.str("host")? {
            None => None,
            Some(h) => {
                let next = names.len() as u32;
                Some(*names.entry(h.to_owned()).or_insert(next))
            }
        };
        docs.push(Doc {
            id,
            host,
            fetch_time: row.time("fetch_time")?,
            status: row.int("http_status")?,
            revisit: row.str("record_kind")? == Some("revisit"),
            body_size: row.int("body_size")?.unwrap_or(0),
            lower_bound: row.bool("body_size_is_lower_bound")?.unwrap_or(false)
                || row.str("warc_truncated")?.is_some(),
        });
        Ok(())
    })?;
    // The latest capture per host: greatest fetch_time (none ranks lowest), then doc_id.
    let mut latest: HashMap<u32, usize> = HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        let Some(host) = d.host else { continue };
        let better = |j: usize| {
            let o = &docs[j];
            (d.fetch_time, d.id) > (o.fetch_time, o.id)
        };
        match latest.get(&host) {
            Some(&j) if !better(j) => {}
            _ => {
                latest.insert(host, i);
            }
        }
    }
    // doc id -> host, for the parsed latest captures.
    let parsed: HashMap<DocId, u32> = latest
        .iter()
        .filter(|(_, &i)| docs[i].parsed())
        .map(|(&h, &i)| (docs[i].id, h))
        .collect();
    let mut hosts = Hosts {
        parsed_hosts: parsed.len() as u64,
        robots_captures: docs.len() as u64,
        sizes: sizes(&docs, &latest),
        ..Hosts::default()
    };
    groups(out, &parsed, &mut hosts)?;
    hosts.sitemaps = sitemaps(out, &parsed)?;
    hosts.lint = lint(out, &docs, &latest)?;
    Ok(hosts)
}

fn sizes(docs: &[Doc], latest: &HashMap<u32, usize>) -> Vec<Size> {
    let latest: HashSet<usize> = latest.values().copied().collect();
    SIZE_BUCKETS
        .iter()
        .map(|&(bucket, min, max)| {
            let mut s = Size {
                bucket,
                min,
                max,
                captures: 0,
                parsed_captures: 0,
                latest_hosts: 0,
                lower_bound: 0,
            };
            for (i, d) in docs.iter().enumerate() {
                if d.body_size < min || max.is_some_and(|m| d.body_size > m) {
                    continue;
                }
                if latest.contains(&i) && d.parsed() {
                    s.latest_hosts += 1;
                }
                if d.revisit {
                    continue;
                }
                s.captures += 1;
                s.parsed_captures += u64::from(d.parsed());
                s.lower_bound += u64::from(d.lower_bound);
            }
            s
        })
        .collect()
}

/// Tokens named and crawl-delays, from the groups of the parsed latest captures.
fn groups(out: &Path, parsed: &HashMap<DocId, u32>, hosts: &mut Hosts) -> Result<(), ReportError> {
    #[derive(Default)]
    struct Named {
        hosts: HashSet<u32>,
        groups: HashSet<(u32, i64)>,
        example: Option<String>,
    }
    let mut named: HashMap<String, Named> = HashMap::new();
    // token -> (hosts, delay per group).
    let mut delays: HashMap<String, (HashSet<u32>, Vec<f64>)> = HashMap::new();
    let columns = [
        "doc_id",
        "group_index",
        "product_tokens",
        "user_agents",
        "crawl_delay",
    ];
    for_each_row(out, "groups", &columns, |row| {
        let Some(&host) = row.id("doc_id")?.and_then(|id| parsed.get(&id)) else {
            return Ok(());
        };
        let index = row.int("group_index")?.unwrap_or(0);
        let tokens = row.strings("product_tokens")?;
        let values = row.strings("user_agents")?;
        for (n, token) in tokens.iter().enumerate() {
            let e = named.entry(token.clone()).or_default();
            e.hosts.insert(host);
            e.groups.insert((host, index));
            if let Some(v) = values.get(n) {
                if e.example.as_ref().is_none_or(|x| v < x) {
                    e.example = Some(v.clone());
                }
            }
        }
        if let Some(delay) = row.float("crawl_delay")? {
            let mut distinct = tokens.clone();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.push("(any)".to_owned());
            for token in distinct {
                let e = delays.entry(token).or_default();
                e.0.insert(host);
                e.1.push(delay);
            }
        }
        Ok(())
    })?;
    let parsed_hosts = hosts.parsed_hosts;
    let mut tokens: Vec<Token> = named
        .into_iter()
        .map(|(token, n)| Token {
            token,
            hosts: n.hosts.len() as u64,
            hosts_pct: pct(n.hosts.len() as u64, parsed_hosts),
            groups: n.groups.len() as u64,
            example: n.example.unwrap_or_default(),
        })
        .collect();
    tokens.sort_by(|a, b| b.hosts.cmp(&a.hosts).then_with(|| a.token.cmp(&b.token)));
    tokens.truncate(100);
    hosts.tokens = tokens;
    let mut rows: Vec<Delay> = delays
        .into_iter()
        .map(|(token, (h, mut values))| {
            values.sort_by(f64::total_cmp);
            let mut buckets = [0u64; 5];
            for &v in &values {
                let b = match v {
                    v if v <= 1.0 => 0,
                    v if v <= 5.0 => 1,
                    v if v <= 10.0 => 2,
                    v if v <= 60.0 => 3,
                    _ => 4,
                };
                buckets[b] += 1;
            }
            Delay {
                token,
                hosts: h.len() as u64,
                groups: values.len() as u64,
                min: values.first().copied().unwrap_or(0.0),
                median: quantile_cont(&values, 0.5),
                max: values.last().copied().unwrap_or(0.0),
                buckets,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.token != "(any)")
            .cmp(&(b.token != "(any)"))
            .then(b.hosts.cmp(&a.hosts))
            .then_with(|| a.token.cmp(&b.token))
    });
    hosts.delays = rows;
    Ok(())
}

/// DuckDB's `quantile_cont` (linear interpolation) over sorted values.
fn quantile_cont(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn sitemaps(out: &Path, parsed: &HashMap<DocId, u32>) -> Result<Vec<Measure>, ReportError> {
    // Per parsed host: lines, absolute, same-host, cross-host.
    let mut per_host: HashMap<u32, [u64; 4]> = parsed.values().map(|&h| (h, [0; 4])).collect();
    for_each_row(
        out,
        "sitemaps",
        &["doc_id", "line", "is_absolute", "same_host"],
        |row| {
            let Some(host) = row.id("doc_id")?.and_then(|id| parsed.get(&id)) else {
                return Ok(());
            };
            let Some(c) = per_host.get_mut(host) else {
                return Ok(());
            };
            c[0] += 1;
            if row.bool("is_absolute")? == Some(true) {
                c[1] += 1;
                match row.bool("same_host")? {
                    Some(true) => c[2] += 1,
                    Some(false) => c[3] += 1,
                    None => {}
                }
            }
            Ok(())
        },
    )?;
    let total = per_host.len() as u64;
    let measure = |measure, keep: &dyn Fn(&[u64; 4]) -> bool, lines: usize| {
        let chosen: Vec<&[u64; 4]> = per_host.values().filter(|c| keep(c)).collect();
        Measure {
            measure,
            hosts: chosen.len() as u64,
            hosts_pct: pct(chosen.len() as u64, total),
            lines: chosen.iter().map(|c| c[lines]).sum(),
        }
    };
    Ok(vec![
        measure("robots_hosts", &|_| true, 0),
        measure("any_sitemap", &|c| c[0] > 0, 0),
        measure("absolute", &|c| c[1] > 0, 1),
        measure("only_not_absolute", &|c| c[0] > 0 && c[1] == 0, 0),
        measure("same_host", &|c| c[2] > 0, 2),
        measure("cross_host", &|c| c[3] > 0, 3),
        measure("only_cross_host", &|c| c[3] > 0 && c[2] == 0, 3),
    ])
}

fn lint(out: &Path, docs: &[Doc], latest: &HashMap<u32, usize>) -> Result<Vec<Lint>, ReportError> {
    let by_id: HashMap<DocId, usize> = docs.iter().enumerate().map(|(i, d)| (d.id, i)).collect();
    let latest: HashSet<usize> = latest.values().copied().collect();
    #[derive(Default)]
    struct Acc {
        documents: HashSet<DocId>,
        findings: u64,
        hosts: HashSet<u32>,
        latest_hosts: HashSet<u32>,
        example: Option<String>,
    }
    let mut acc: BTreeMap<(String, String), Acc> = BTreeMap::new();
    let columns = ["doc_id", "origin", "code", "severity", "excerpt"];
    for_each_row(out, "errors", &columns, |row| {
        if row.str("origin")? != Some("lint") {
            return Ok(());
        }
        let Some((id, &i)) = row
            .id("doc_id")?
            .and_then(|id| by_id.get(&id).map(|i| (id, i)))
        else {
            return Ok(());
        };
        let key = (
            row.str("code")?.unwrap_or_default().to_owned(),
            row.str("severity")?.unwrap_or_default().to_owned(),
        );
        let a = acc.entry(key).or_default();
        a.documents.insert(id);
        a.findings += 1;
        if let Some(h) = docs[i].host {
            a.hosts.insert(h);
            if latest.contains(&i) {
                a.latest_hosts.insert(h);
            }
        }
        if let Some(e) = row.str("excerpt")? {
            if a.example.as_deref().is_none_or(|x| e < x) {
                a.example = Some(e.to_owned());
            }
        }
        Ok(())
    })?;
    let mut rows: Vec<Lint> = acc
        .into_iter()
        .map(|((code, severity), a)| Lint {
            code,
            severity,
            documents: a.documents.len() as u64,
            findings: a.findings,
            hosts: a.hosts.len() as u64,
            latest_hosts: a.latest_hosts.len() as u64,
            example: a.example,
        })
        .collect();
    let rank = |s: &str| match s {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    };
    rows.sort_by(|a, b| {
        rank(&a.severity)
            .cmp(&rank(&b.severity))
            .then(b.documents.cmp(&a.documents))
            .then_with(|| a.code.cmp(&b.code))
    });
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        assert_eq!(quantile_cont(&[1.0, 2.0, 10.0, 20.0], 0.5), 6.0);
        assert_eq!(quantile_cont(&[5.0], 0.5), 5.0);
        assert_eq!(quantile_cont(&[1.0, 3.0, 4.0], 0.5), 3.0);
    }

    #[test]
    fn robots_url_test_is_the_queries() {
        let re = Regex::new(ROBOTS_URL).expect("regex");
        assert!(re.is_match("https://a.example/robots.txt"));
        assert!(re.is_match("HTTP://a.example/x/ROBOTS.TXT?y"));
        assert!(!re.is_match("https://a.example/robots.txt.bak"));
        assert!(!re.is_match("https://a.example/"));
    }
}
