//! Which inputs a run reads: the inputs named on the command line (directories
//! walked), the lines of an input list (`--inputs-from`, or the `robotstxt.paths.gz`
//! of `--crawl`), each input once, sorted. Reads, never writes.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read};
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

/// The inputs of a run, and the paths a directory walk could not read.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Each input once, sorted.
    pub list: Vec<String>,
    /// Paths under a walked directory that could not be read (a subdirectory without
    /// permission, an I/O error), each with why. Each is also in `list`, so it is an
    /// input whose `errors` row says what was not read: its files' rows are missing,
    /// and the run says so (exit 1) instead of a line on stderr alone.
    pub not_walked: BTreeMap<String, String>,
}

/// Inputs as given (local directories walked), then the lines of the input list
/// (`--inputs-from`, or the one `--crawl` names); each input once (`x`, `./x` and a
/// symlink to `x` are one input: the first spelling is kept), sorted. Missing files
/// are kept: they become error rows, not usage errors.
pub(super) fn expand_inputs(
    asked: &InputsAsked,
    out: &str,
    store: &StoreOptions,
) -> Result<Inputs, ConfigError> {
    // A local --out is never read as input (an s3:// one cannot be walked into).
    let out = match Location::parse(out) {
        Ok(Location::Local(dir)) => std::fs::canonicalize(dir).ok(),
        _ => None,
    };
    let mut inputs = Vec::new();
    let mut not_walked = BTreeMap::new();
    for arg in &asked.inputs {
        let location = Location::parse(arg).map_err(ConfigError::Location)?;
        match location.as_local() {
            Some(path) if path.is_dir() => {
                walk(path, out.as_deref(), &mut inputs, &mut not_walked);
            }
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
        for entry in read_list(&list, store)? {
            let input = Location::resolve(&entry, base.as_ref()).map_err(ConfigError::Location)?;
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
    Ok(Inputs {
        list: inputs,
        not_walked,
    })
}

/// Regular files under `dir`, following symbolic links. A link cycle is not entered
/// (everything in it is walked once already); the run's own output directory is never
/// read as input; FIFOs, devices and sockets are left out (a FIFO would block the run).
/// A path that cannot be read is an input of its own, with why in `not_walked`.
fn walk(
    dir: &Path,
    out: Option<&Path>,
    inputs: &mut Vec<String>,
    not_walked: &mut BTreeMap<String, String>,
) {
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
            Err(e) if e.loop_ancestor().is_some() => {}
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_string_lossy().into_owned();
                not_walked.insert(path.clone(), format!("{path}: not walked: {e}"));
                inputs.push(path);
            }
        }
    }
}

/// Where Common Crawl serves its data over HTTPS (the default `--input-base-url` of `--crawl`).
pub const COMMON_CRAWL: &str = "https://data.commoncrawl.org/";

/// `--crawl CC-MAIN-YYYY-WW`: the crawl's `robotstxt.paths.gz` under the base.
fn crawl_list(crawl: &str, base: Option<&Location>) -> Result<Location, ConfigError> {
    if !crate::census::crawl::is_crawl_id(crawl) {
        return Err(ConfigError::Crawl(crawl.to_owned()));
    }
    let path = format!("crawl-data/{crawl}/robotstxt.paths.gz");
    Location::resolve(&path, base).map_err(ConfigError::Location)
}

/// The entries of an input list, wherever it is, read line by line (memory holds the
/// entries, never the whole text); gzip-compressed lists (detected by their magic
/// bytes, like Common Crawl's `robotstxt.paths.gz`) are inflated as they are read.
fn read_list(list: &Location, options: &StoreOptions) -> Result<Vec<String>, ConfigError> {
    let list_err = |source| ConfigError::List {
        list: list.to_string(),
        source,
    };
    let reader: Box<dyn Read> = match list.as_local() {
        Some(path) => Box::new(
            std::fs::File::open(path).map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?,
        ),
        None => Box::new(
            Stores::new(*options)
                .and_then(|stores| stores.open_read(list))
                .map_err(list_err)?,
        ),
    };
    list_entries(reader, MAX_INPUT_LIST_BYTES).map_err(|e| match e {
        ListText::NotText => ConfigError::ListNotText(list.to_string()),
        ListText::TooLarge => ConfigError::ListTooLarge(list.to_string(), MAX_INPUT_LIST_BYTES),
        ListText::Read(source) => ConfigError::ListRead {
            list: list.to_string(),
            source,
        },
    })
}

/// Why a list's bytes are not a list.
#[derive(Debug)]
enum ListText {
    NotText,
    TooLarge,
    /// The bytes could not be read (a network failure after the retries, a corrupt
    /// gzip member).
    Read(std::io::Error),
}

/// The entries of a list (lines trimmed; blank lines and `#` comments left out), gzip-
/// inflated when it starts with the magic, refusing more than `cap` (inflated) bytes: a
/// small gzip bomb must not take the machine's memory.
fn list_entries(reader: impl Read, cap: u64) -> Result<Vec<String>, ListText> {
    let mut raw = BufReader::new(reader);
    let gzip = raw
        .fill_buf()
        .map_err(ListText::Read)?
        .starts_with(&[0x1f, 0x8b]);
    let text: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    };
    let mut text = text.take(cap.saturating_add(1));
    let (mut entries, mut line, mut total) = (Vec::new(), Vec::new(), 0u64);
    loop {
        line.clear();
        let n = text.read_until(b'\n', &mut line).map_err(ListText::Read)?;
        if n == 0 {
            return Ok(entries);
        }
        total += n as u64;
        if total > cap {
            return Err(ListText::TooLarge);
        }
        let entry = std::str::from_utf8(&line)
            .map_err(|_| ListText::NotText)?
            .trim();
        if !entry.is_empty() && !entry.starts_with('#') {
            entries.push(entry.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_that_inflates_past_the_cap_is_refused() {
        // Issue 22: --inputs-from was gunzipped whole, whatever it inflated to.
        use std::io::Write;
        let entries = |bytes: &[u8], cap| list_entries(bytes, cap);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&b"a/b.warc.gz\n".repeat(10_000)).unwrap();
        let bomb = gz.finish().unwrap();
        assert!(matches!(entries(&bomb, 1_000), Err(ListText::TooLarge)));
        assert_eq!(entries(&bomb, 120_000).map(|e| e.len()).ok(), Some(10_000));
        assert!(matches!(
            entries(&b"x\n".repeat(600), 1_000),
            Err(ListText::TooLarge)
        ));
        assert!(matches!(
            entries(&[0xff, 0xfe], 1_000),
            Err(ListText::NotText)
        ));
        // A gzip list cut short is a read error, not a shorter list.
        let cut = &bomb[..bomb.len() / 2];
        assert!(matches!(entries(cut, 1 << 20), Err(ListText::Read(_))));
    }

    #[test]
    fn list_entries_are_trimmed_lines_without_comments() {
        let list = b"# CC-MAIN-2026-47\n  a.warc.gz \r\n\n\tb.warc.gz\nc.warc.gz";
        assert_eq!(
            list_entries(&list[..], 1_000).ok(),
            Some(vec![
                "a.warc.gz".into(),
                "b.warc.gz".into(),
                "c.warc.gz".into()
            ])
        );
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
