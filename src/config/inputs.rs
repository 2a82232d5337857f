//! Which inputs a run reads: the inputs named on the command line (directories
//! walked), the lines of an input list (`--inputs-from`, or the `robotstxt.paths.gz`
//! of `--crawl`), each input once, sorted. Reads, never writes.

use std::collections::HashSet;
use std::path::Path;

use super::ConfigError;
use crate::limits::MAX_INPUT_LIST_BYTES;
use crate::store::{Location, StoreOptions, Stores};

/// The inputs a user named, before anything is read.
#[derive(Debug, Clone, Default)]
pub struct InputsAsked {
    /// Files, directories, `http(s)://` URLs or `s3://` objects.
    pub inputs: Vec<String>,
    /// `--inputs-from`: a list of inputs, one per line.
    pub list: Option<String>,
    /// `--input-base-url`: what relative lines of the list are resolved against.
    pub base_url: Option<String>,
    /// `--crawl`: Common Crawl's robots.txt subset of this crawl.
    pub crawl: Option<String>,
}

/// Inputs as given (local directories walked), then the lines of the input list
/// (`--inputs-from`, or the one `--crawl` names); each input once (`x`, `./x` and a
/// symlink to `x` are one input: the first spelling is kept), sorted. Missing files
/// are kept: they become error rows, not usage errors.
pub(super) fn expand_inputs(
    asked: &InputsAsked,
    out: &str,
    store: &StoreOptions,
) -> Result<Vec<String>, ConfigError> {
    // A local --out is never read as input (an s3:// one cannot be walked into).
    let out = match Location::parse(out) {
        Ok(Location::Local(dir)) => std::fs::canonicalize(dir).ok(),
        _ => None,
    };
    let mut inputs = Vec::new();
    for arg in &asked.inputs {
        let location = Location::parse(arg).map_err(ConfigError::Location)?;
        match location.as_local() {
            Some(path) if path.is_dir() => walk(path, out.as_deref(), &mut inputs),
            _ => inputs.push(location.to_string()),
        }
    }
    let base = match (&asked.base_url, &asked.crawl) {
        (Some(url), _) => Some(Location::parse(url).map_err(ConfigError::Location)?),
        (None, Some(_)) => Some(Location::parse(COMMON_CRAWL).map_err(ConfigError::Location)?),
        (None, None) => None,
    };
    let list = match (&asked.list, &asked.crawl) {
        (Some(list), _) => Some(Location::parse(list).map_err(ConfigError::Location)?),
        (None, Some(crawl)) => Some(crawl_list(crawl, base.as_ref())?),
        (None, None) => None,
    };
    if let Some(list) = list {
        let text = read_list(&list, store)?;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let input = Location::resolve(line, base.as_ref()).map_err(ConfigError::Location)?;
            inputs.push(input.to_string());
        }
    }
    let mut seen = HashSet::new();
    inputs.retain(|input| {
        let key = match Location::parse(input) {
            Ok(Location::Local(path)) => std::fs::canonicalize(path)
                .map_or_else(|_| input.clone(), |p| p.to_string_lossy().into_owned()),
            _ => input.clone(),
        };
        seen.insert(key)
    });
    inputs.sort();
    Ok(inputs)
}

/// Regular files under `dir`, following symbolic links. A link cycle is reported
/// and not entered; the run's own output directory is never read as input; FIFOs,
/// devices and sockets are left out (a FIFO would block the run).
fn walk(dir: &Path, out: Option<&Path>, inputs: &mut Vec<String>) {
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let is_out = out.is_some_and(|out| {
                e.file_type().is_dir()
                    && std::fs::canonicalize(e.path()).is_ok_and(|p| p.starts_with(out))
            });
            !is_out
        });
    for entry in walker {
        match entry {
            Ok(e) if e.file_type().is_file() => {
                inputs.push(e.path().to_string_lossy().into_owned());
            }
            Ok(_) => {}
            Err(e) => eprintln!("robots-census: warning: not walked: {e}"),
        }
    }
}

/// Where Common Crawl serves its data over HTTPS (the default `--input-base-url` of `--crawl`).
pub const COMMON_CRAWL: &str = "https://data.commoncrawl.org/";

/// `--crawl CC-MAIN-YYYY-WW`: the crawl's `robotstxt.paths.gz` under the base.
fn crawl_list(crawl: &str, base: Option<&Location>) -> Result<Location, ConfigError> {
    let b = crawl.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if b.len() != 15
        || !crawl.starts_with("CC-MAIN-")
        || !digits(8..12)
        || b[12] != b'-'
        || !digits(13..15)
    {
        return Err(ConfigError::Crawl(crawl.to_owned()));
    }
    let path = format!("crawl-data/{crawl}/robotstxt.paths.gz");
    Location::resolve(&path, base).map_err(ConfigError::Location)
}

/// The text of an input list, wherever it is; gzip-compressed lists (detected by
/// their magic bytes, like Common Crawl's `robotstxt.paths.gz`) are inflated.
fn read_list(list: &Location, options: &StoreOptions) -> Result<String, ConfigError> {
    let list_err = |source| ConfigError::List {
        list: list.to_string(),
        source,
    };
    let bytes = match list.as_local() {
        Some(path) => std::fs::read(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?,
        None => Stores::new(*options)
            .and_then(|stores| stores.read_all(list))
            .map_err(list_err)?,
    };
    let text = list_text(bytes, MAX_INPUT_LIST_BYTES).map_err(|e| match e {
        ListText::NotText => ConfigError::ListNotText(list.to_string()),
        ListText::TooLarge => ConfigError::ListTooLarge(list.to_string(), MAX_INPUT_LIST_BYTES),
    })?;
    Ok(text)
}

/// Why a list's bytes are not a list's text.
#[derive(Debug, PartialEq, Eq)]
enum ListText {
    NotText,
    TooLarge,
}

/// The text of a list's bytes, gzip-inflated when they start with its magic, refusing
/// more than `cap` inflated bytes (a small gzip bomb must not take the machine's memory).
fn list_text(bytes: Vec<u8>, cap: u64) -> Result<String, ListText> {
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .take(cap.saturating_add(1))
            .read_to_end(&mut text)
            .map_err(|_| ListText::NotText)?;
        text
    } else {
        bytes
    };
    if bytes.len() as u64 > cap {
        return Err(ListText::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| ListText::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_that_inflates_past_the_cap_is_refused() {
        // Issue 22: --inputs-from was gunzipped whole, whatever it inflated to.
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&b"a/b.warc.gz\n".repeat(10_000)).unwrap();
        let bomb = gz.finish().unwrap();
        assert_eq!(list_text(bomb.clone(), 1_000), Err(ListText::TooLarge));
        assert_eq!(
            list_text(bomb, 120_000).map(|t| t.lines().count()),
            Ok(10_000)
        );
        assert_eq!(
            list_text(b"x\n".repeat(600), 1_000),
            Err(ListText::TooLarge)
        );
        assert_eq!(list_text(vec![0xff, 0xfe], 1_000), Err(ListText::NotText));
    }

    #[test]
    fn crawl_ids_name_their_paths_list() {
        let list = crawl_list(
            "CC-MAIN-2024-22",
            Location::parse(COMMON_CRAWL).ok().as_ref(),
        );
        assert_eq!(
            list.map(|l| l.to_string()).ok().as_deref(),
            Some("https://data.commoncrawl.org/crawl-data/CC-MAIN-2024-22/robotstxt.paths.gz")
        );
        let s3 = Location::parse("s3://commoncrawl/").ok();
        assert_eq!(
            crawl_list("CC-MAIN-2023-50", s3.as_ref())
                .map(|l| l.to_string())
                .ok()
                .as_deref(),
            Some("s3://commoncrawl/crawl-data/CC-MAIN-2023-50/robotstxt.paths.gz")
        );
        for bad in [
            "CC-MAIN-2024-2",
            "CC-MAIN-2024-223",
            "CC-MAIN-24-22",
            "cc-main-2024-22",
            "CC-MAIN-2024_22",
            "",
        ] {
            assert!(
                matches!(crawl_list(bad, None), Err(ConfigError::Crawl(_))),
                "{bad}"
            );
        }
    }
}
