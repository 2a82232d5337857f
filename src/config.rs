//! Validated run configuration: raw [`RunArgs`] in, [`RunConfig`] out.
//!
//! Everything that can be checked before the first input is read is checked
//! here (agent lists, URL lists, the output directory), so a usage error costs
//! nothing and exits 2.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::RunArgs;
use crate::input::CsvOptions;
use crate::output::TableSet;
use crate::store::{Location, RetryPolicy, StoreError, StoreOptions, Stores};
use crate::verdicts::{parse_agent_list, read_url_list, UrlPlan, DEFAULT_AGENTS};

/// Usage errors: the run does not start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no inputs given (pass files, directories or URLs, --inputs-from LIST or --crawl ID)")]
    NoInputs,
    #[error("{0}")]
    Location(StoreError),
    #[error("cannot read the input list {list}: {source}")]
    List { list: String, source: StoreError },
    #[error("the input list {0} is not UTF-8 text (nor gzip-compressed text)")]
    ListNotText(String),
    #[error("--crawl: {0:?} is not a crawl ID like CC-MAIN-2024-22")]
    Crawl(String),
    #[error("--max-requests must be at least 1")]
    MaxRequests,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("output directory {0} already holds tables: pass --resume to continue it or --overwrite to replace it")]
    OutputExists(PathBuf),
    #[error("cannot prepare output directory {path}: {source}")]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--agents: no agent tokens given")]
    NoAgents,
    #[error("--threads must be at least 1")]
    Threads,
    #[error(
        "--tables: unknown table {0:?} (choose from groups, rules, sitemaps, verdicts, agents)"
    )]
    UnknownTable(String),
}

/// Everything a run needs, validated.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Inputs as the user named them (local directories expanded, sorted), then the
    /// lines of the input list.
    pub inputs: Vec<Location>,
    /// Remote access: request cap, retry budget, timeouts.
    pub store: StoreOptions,
    pub out: PathBuf,
    pub threads: usize,
    pub quiet: bool,
    pub resume: bool,
    pub strict: bool,
    pub csv: CsvOptions,
    pub agents: Vec<String>,
    pub urls: UrlPlan,
    /// The tables written.
    pub tables: TableSet,
}

impl RunConfig {
    pub fn from_args(args: &RunArgs) -> Result<Self, ConfigError> {
        if args.max_requests == 0 {
            return Err(ConfigError::MaxRequests);
        }
        let defaults = StoreOptions::default();
        let store = StoreOptions {
            max_requests: args.max_requests,
            retry: RetryPolicy {
                budget: Duration::from_secs(args.retry_budget),
                ..defaults.retry
            },
            io_timeout: Duration::from_secs(args.io_timeout.max(1)),
        };
        let inputs = expand_inputs(args, &store)?;
        if inputs.is_empty() {
            return Err(ConfigError::NoInputs);
        }
        let threads = args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 {
            return Err(ConfigError::Threads);
        }
        let agents = match args.agents.as_deref() {
            None => parse_agent_list(DEFAULT_AGENTS),
            Some(list) => match list.strip_prefix('@') {
                Some(file) => parse_agent_list(&read(Path::new(file))?),
                None => list
                    .split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned)
                    .collect(),
            },
        };
        if agents.is_empty() {
            return Err(ConfigError::NoAgents);
        }
        let urls = match &args.urls {
            Some(path) => read_url_list(path).map_err(|source| ConfigError::Read {
                path: path.clone(),
                source,
            })?,
            None => Vec::new(),
        };
        let paths = args
            .paths
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let tables = match &args.tables {
            Some(list) => TableSet::parse(list).map_err(ConfigError::UnknownTable)?,
            None => TableSet::ALL,
        };
        prepare_output(&args.out, args.resume, args.overwrite)?;
        Ok(RunConfig {
            inputs,
            store,
            out: args.out.clone(),
            threads,
            quiet: args.quiet,
            resume: args.resume,
            strict: args.strict,
            csv: CsvOptions {
                url_column: args.csv_url_column.clone(),
                body_column: args.csv_body_column.clone(),
                status_column: args.csv_status_column.clone(),
                host_column: args.csv_host_column.clone(),
            },
            agents,
            urls: UrlPlan::new(paths, &urls, args.urls_per_host, args.seed),
            tables,
        })
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })
}

/// Files as given, directories recursed in sorted order, then the lines of the input
/// list (`--inputs-from`, or the one `--crawl` names). Missing files are kept: they
/// become error rows, not usage errors.
fn expand_inputs(args: &RunArgs, store: &StoreOptions) -> Result<Vec<Location>, ConfigError> {
    let mut inputs = Vec::new();
    for arg in &args.inputs {
        let location = Location::parse(arg).map_err(ConfigError::Location)?;
        match location.as_local() {
            Some(path) if path.is_dir() => {
                let mut files = Vec::new();
                walk(path, &mut files).map_err(|source| ConfigError::Read {
                    path: path.to_owned(),
                    source,
                })?;
                inputs.extend(files.into_iter().map(Location::Local));
            }
            _ => inputs.push(location),
        }
    }
    let base = match (&args.input_base_url, &args.crawl) {
        (Some(url), _) => Some(Location::parse(url).map_err(ConfigError::Location)?),
        (None, Some(_)) => Some(Location::parse(COMMON_CRAWL).map_err(ConfigError::Location)?),
        (None, None) => None,
    };
    let list = match (&args.inputs_from, &args.crawl) {
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
            inputs.push(Location::resolve(line, base.as_ref()).map_err(ConfigError::Location)?);
        }
    }
    Ok(inputs)
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
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_end(&mut text)
            .map_err(|_| ConfigError::ListNotText(list.to_string()))?;
        text
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|_| ConfigError::ListNotText(list.to_string()))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Refuses to mix a new run into an existing output unless asked to.
fn prepare_output(out: &Path, resume: bool, overwrite: bool) -> Result<(), ConfigError> {
    let ours = |name: &str| {
        crate::output::Table::ALL.iter().any(|t| t.name() == name)
            || name == crate::output::MANIFEST_DIR
    };
    let existing: Vec<PathBuf> = match std::fs::read_dir(out) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| ours(&e.file_name().to_string_lossy()))
            .map(|e| e.path())
            .collect(),
        Err(_) => Vec::new(),
    };
    let output_err = |source| ConfigError::Output {
        path: out.to_owned(),
        source,
    };
    if !existing.is_empty() && !resume {
        if !overwrite {
            return Err(ConfigError::OutputExists(out.to_owned()));
        }
        // Only the directories this tool writes are removed, never anything else in --out.
        for dir in existing {
            std::fs::remove_dir_all(&dir).map_err(output_err)?;
        }
    }
    if resume {
        crate::output::remove_leftovers(out).map_err(output_err)?;
    }
    std::fs::create_dir_all(out).map_err(output_err)
}

#[cfg(test)]
mod tests {
    use super::*;

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
