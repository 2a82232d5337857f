//! The per-host numbers of the report, over the whole dataset: the rows of
//! `top_user_agents.sql`, `sitemap_adoption.sql`, `crawl_delay.sql`,
//! `lint_findings.sql` and `size_distribution.sql` (each host's latest capture, the
//! rule of `latest_capture_per_host.sql`), as the page's sections use them.

use super::queries::{Row, Rows};
use super::ReportError;

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
    pub measure: String,
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
    pub bucket: String,
    pub min: i64,
    pub max: Option<i64>,
    pub captures: u64,
    pub parsed_captures: u64,
    pub latest_hosts: u64,
    pub lower_bound: u64,
}

/// A section's rows, or why its query could not run (a table the run did not write).
pub type Section<T> = Result<Vec<T>, String>;

/// Everything per host.
#[derive(Debug)]
pub struct Hosts {
    /// Hosts whose latest capture is a parsed robots.txt (unknown without the
    /// sitemap query, whose first row counts them).
    pub parsed_hosts: Option<u64>,
    pub robots_captures: u64,
    pub tokens: Section<Token>,
    pub sitemaps: Section<Measure>,
    pub delays: Section<Delay>,
    pub lint: Section<Lint>,
    pub sizes: Section<Size>,
}

/// The results of the five per-host queries, each or why it could not run (and the
/// header query's capture count).
pub struct HostRows<'a> {
    pub tokens: &'a Result<Rows, String>,
    pub sitemaps: &'a Result<Rows, String>,
    pub delays: &'a Result<Rows, String>,
    pub lint: &'a Result<Rows, String>,
    pub sizes: &'a Result<Rows, String>,
    pub header: &'a Rows,
}

/// `f` over every row of a query that ran; why it did not run, else.
fn section<T>(
    rows: &Result<Rows, String>,
    f: impl FnMut(&Row<'_>) -> Result<T, ReportError>,
) -> Result<Section<T>, ReportError> {
    match rows {
        Ok(rows) => Ok(Ok(rows.map(f)?)),
        Err(why) => Ok(Err(why.clone())),
    }
}

/// The per-host numbers from their queries' rows.
pub fn from_rows(rows: &HostRows<'_>) -> Result<Hosts, ReportError> {
    let tokens = section(rows.tokens, |row| {
        Ok(Token {
            token: row.text("product_token")?,
            hosts: row.count("hosts")?,
            hosts_pct: row.float("hosts_pct")?,
            groups: row.count("groups")?,
            example: row.text("example_value")?,
        })
    })?;
    let sitemaps = section(rows.sitemaps, |row| {
        Ok(Measure {
            measure: row.text("measure")?,
            hosts: row.count("hosts")?,
            hosts_pct: row.float("hosts_pct")?,
            lines: row.count("sitemap_lines")?,
        })
    })?;
    let delays = section(rows.delays, |row| {
        let mut buckets = [0u64; 5];
        for (n, (column, _)) in buckets.iter_mut().zip(DELAY_BUCKETS) {
            *n = row.count(column)?;
        }
        Ok(Delay {
            token: row.text("product_token")?,
            hosts: row.count("hosts")?,
            groups: row.count("groups")?,
            min: seconds(row, "min_s")?,
            median: seconds(row, "median_s")?,
            max: seconds(row, "max_s")?,
            buckets,
        })
    })?;
    let lint = section(rows.lint, |row| {
        Ok(Lint {
            code: row.text("code")?,
            severity: row.text("severity")?,
            documents: row.count("documents")?,
            findings: row.count("findings")?,
            hosts: row.count("hosts")?,
            latest_hosts: row.count("latest_hosts")?,
            example: row.str("example")?.map(str::to_owned),
        })
    })?;
    let sizes = section(rows.sizes, |row| {
        Ok(Size {
            bucket: row.text("bucket")?,
            min: row.int("min_bytes")?.unwrap_or(0),
            max: row.int("max_bytes")?,
            captures: row.count("captures")?,
            parsed_captures: row.count("parsed_captures")?,
            latest_hosts: row.count("latest_hosts")?,
            lower_bound: row.count("lower_bound")?,
        })
    })?;
    let mut robots_captures = 0;
    rows.header.each(|row| {
        robots_captures = row.count("robots_captures")?;
        Ok(())
    })?;
    Ok(Hosts {
        // The denominator row of sitemap_adoption.sql.
        parsed_hosts: sitemaps.as_ref().ok().map(|measures| {
            measures
                .iter()
                .find(|m| m.measure == "robots_hosts")
                .map_or(0, |m| m.hosts)
        }),
        robots_captures,
        tokens,
        sitemaps,
        delays,
        lint,
        sizes,
    })
}

/// A delay statistic in seconds: the query gives one for every token it lists.
fn seconds(row: &Row<'_>, column: &str) -> Result<f64, ReportError> {
    Ok(row.float(column)?.unwrap_or(0.0))
}
