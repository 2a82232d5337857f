//! The ranked host list of `sites --ranks FILE`: `rank,host` lines as Tranco
//! publishes them (also tab-separated, with or without a header row), stored in
//! the dataset as the `ranks` table and mapped to sites.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use arrow_array::RecordBatch;

use super::SiteKey;
use super::SitesError;
use crate::census::urls::{host_name, registrable_domain};
use crate::output::schema::Room;
use crate::output::Table;

/// A parsed ranks file: (rank, host) sorted by rank then host, one row per host,
/// and the lines that could not be read.
#[derive(Debug, Default)]
pub struct Ranks {
    pub rows: Vec<(i64, String)>,
    pub skipped: Vec<String>,
}

/// Reads `path`. Lines that are not `rank<sep>host` are skipped and reported
/// (`file:line: why`); a first line that is a header is skipped silently.
pub fn read(path: &Path) -> Result<Ranks, SitesError> {
    let text = std::fs::read(path).map_err(|source| SitesError::Io {
        path: path.to_owned(),
        source,
    })?;
    let text = String::from_utf8_lossy(&text);
    let mut best: BTreeMap<String, i64> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split([',', '\t']).map(|f| f.trim().trim_matches('"'));
        let (rank, host) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match rank.parse::<i64>() {
            Ok(rank) if rank >= 1 && !host.is_empty() && !host.contains(['/', ' ']) => {
                let entry = best.entry(host).or_insert(rank);
                *entry = (*entry).min(rank);
            }
            Err(_) if n == 0 => {} // a header row
            _ => skipped.push(format!(
                "{}:{}: not a rank,host line: {:?}",
                path.display(),
                n + 1,
                line.chars().take(80).collect::<String>()
            )),
        }
    }
    let mut rows: Vec<(i64, String)> = best.into_iter().map(|(h, r)| (r, h)).collect();
    rows.sort();
    if rows.is_empty() {
        return Err(SitesError::EmptyRanks(path.to_owned()));
    }
    Ok(Ranks { rows, skipped })
}

/// The best rank of each site under `key` (several hosts may make one site).
pub fn by_site(ranks: &Ranks, key: SiteKey) -> HashMap<String, i64> {
    let mut sites: HashMap<String, i64> = HashMap::with_capacity(ranks.rows.len());
    for (rank, host) in &ranks.rows {
        let site = key.site_of(host).to_owned();
        let entry = sites.entry(site).or_insert(*rank);
        *entry = (*entry).min(*rank);
    }
    sites
}

/// The `ranks` table.
pub fn batch(ranks: &Ranks) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut columns = crate::output::tables::Ranks::default();
    for (rank, host) in &ranks.rows {
        columns.rank.append_value(*rank);
        columns.host.append_value(host);
        // The host's site keys' inputs, so a SQL sites step can key ranks as
        // `SiteKey::site_of` does without a Public Suffix List of its own.
        let name = host_name(host);
        columns.host_name.append_value(name);
        columns
            .registrable_domain
            .append_option(registrable_domain(name));
    }
    RecordBatch::try_new(Table::Ranks.schema(), columns.finish_within(Room::RUN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn tranco_lines_headers_duplicates_and_junk() {
        let dir = std::env::temp_dir().join(format!("ranks-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ranks.csv");
        std::fs::write(
            &path,
            "rank,domain\n1,Example.com\n2\twww.example.com\n\nx,bad\n7,example.com\n3,\n4,shop.example.co.uk\n",
        )
        .unwrap();
        let ranks = read(&path).unwrap();
        assert_eq!(
            ranks.rows,
            vec![
                (1, "example.com".to_owned()),
                (2, "www.example.com".to_owned()),
                (4, "shop.example.co.uk".to_owned())
            ]
        );
        assert_eq!(ranks.skipped.len(), 2, "{:?}", ranks.skipped);
        assert!(ranks.skipped[0].ends_with(":5: not a rank,host line: \"x,bad\""));
        let sites = by_site(&ranks, SiteKey::HostNowww);
        assert_eq!(sites["example.com"], 1);
        assert_eq!(
            by_site(&ranks, SiteKey::RegistrableDomain)["example.co.uk"],
            4
        );
        let table = batch(&ranks).unwrap();
        let column = |name: &str| {
            let array = table.column_by_name(name).unwrap();
            let strings = array
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap();
            (0..strings.len())
                .map(|i| strings.is_valid(i).then(|| strings.value(i)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            column("host_name"),
            [
                Some("example.com"),
                Some("www.example.com"),
                Some("shop.example.co.uk")
            ]
        );
        assert_eq!(
            column("registrable_domain"),
            [
                Some("example.com"),
                Some("example.com"),
                Some("example.co.uk")
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
