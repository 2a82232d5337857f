//! Validated run configuration: raw [`RunArgs`] in, [`RunConfig`] out.
//!
//! Everything that can be checked before the first input is read is checked
//! here (agent lists, URL lists, question counts, the output directory and its
//! settings), so a usage error costs nothing and exits 2.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::RunArgs;
use crate::input::{CsvOptions, ReadOptions};
use crate::limits::{MAX_INPUT_LIST_BYTES, MAX_QUESTIONS_PER_DOCUMENT};
use crate::output::dataset::{self, Settings, FORMAT_VERSION};
use crate::output::{OutTarget, TableSet};
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
    #[error("the input list {0} inflates to more than {1} bytes (a list of 20 Common Crawl crawls is about 200 MB)")]
    ListTooLarge(String, u64),
    #[error("--crawl: {0:?} is not a crawl ID like CC-MAIN-2024-22")]
    Crawl(String),
    #[error("--max-requests must be at least 1")]
    MaxRequests,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("output {0} already holds tables: pass --resume to continue it or --overwrite to replace it")]
    OutputExists(String),
    #[error("{out} was written with other settings ({differences}); rerun with the same flags and inputs, or --overwrite")]
    SettingsDiffer { out: String, differences: String },
    #[error("cannot prepare output {path}: {detail}")]
    Output { path: String, detail: String },
    #[error("--out: {0}")]
    Out(StoreError),
    #[error("cannot read the dataset settings: {0}")]
    Meta(String),
    #[error("--agents: no agent tokens given")]
    NoAgents,
    #[error("--threads must be at least 1")]
    Threads,
    #[error("--inputs-per-task must be at least 1")]
    InputsPerTask,
    #[error("--shard {0:?}: expected I/N with 0 <= I < N, or auto/N")]
    Shard(String),
    #[error("--shard auto/N: neither JOB_COMPLETION_INDEX (Kubernetes) nor AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) is set")]
    ShardIndexUnset,
    #[error(
        "--tables: unknown table {0:?} (choose from groups, rules, sitemaps, verdicts, agents)"
    )]
    UnknownTable(String),
    #[error("{agents} agents x {urls} URLs per document is {questions} questions per document; at most {MAX_QUESTIONS_PER_DOCUMENT} fit (lower --agents, --paths or --urls-per-host)")]
    TooManyQuestions {
        agents: usize,
        urls: usize,
        questions: usize,
    },
}

/// Everything a run needs, validated.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Inputs as the user named them (local paths, `http(s)://` URLs, `s3://`
    /// objects): directories expanded, list lines resolved, each input once, sorted
    /// (tasks are consecutive slices of this list).
    pub inputs: Vec<String>,
    /// Remote access: request cap, retry budget, timeouts.
    pub store: StoreOptions,
    /// Where the dataset goes: a local directory or an S3 prefix (staged locally).
    pub out: OutTarget,
    pub threads: usize,
    pub quiet: bool,
    pub resume: bool,
    pub strict: bool,
    pub read: ReadOptions,
    pub agents: Vec<String>,
    pub urls: UrlPlan,
    /// Most URLs sampled per host (`--urls-per-host`).
    pub urls_per_host: usize,
    /// The tables written.
    pub tables: TableSet,
    pub inputs_per_task: usize,
    /// The crawl of inputs that name none.
    pub default_crawl: String,
    /// Everything that changes rows, recorded in `_dataset.json` and every manifest.
    pub settings: Settings,
    /// `(i, n)`: run only the tasks with `index % n == i`.
    pub shard: Option<(usize, usize)>,
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
            Some(list) => crate::verdicts::agent_arg(list, read)?,
        };
        if agents.is_empty() {
            return Err(ConfigError::NoAgents);
        }
        let (urls, urls_text) = match &args.urls {
            Some(path) => {
                let text = read(path)?;
                let urls = read_url_list(&text).map_err(|source| ConfigError::Read {
                    path: path.clone(),
                    source,
                })?;
                (urls, text)
            }
            None => (Vec::new(), String::new()),
        };
        let paths: Vec<String> = args
            .paths
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        // Saturating: `--urls-per-host 18446744073709551615` must be refused, not wrap
        // around to a small count that passes the check.
        let per_doc = paths.len().saturating_add(if urls.is_empty() {
            0
        } else {
            args.urls_per_host
        });
        let questions = agents.len().saturating_mul(per_doc);
        if questions > MAX_QUESTIONS_PER_DOCUMENT {
            return Err(ConfigError::TooManyQuestions {
                agents: agents.len(),
                urls: per_doc,
                questions,
            });
        }
        let tables = match &args.tables {
            Some(list) => TableSet::parse(list).map_err(ConfigError::UnknownTable)?,
            None => TableSet::ALL,
        };
        let inputs_per_task = match args.inputs_per_task {
            Some(0) => return Err(ConfigError::InputsPerTask),
            Some(k) => k,
            None => dataset::default_inputs_per_task(inputs.len()),
        };
        let csv = CsvOptions {
            url_column: args.csv_url_column.clone(),
            body_column: args.csv_body_column.clone(),
            status_column: args.csv_status_column.clone(),
            host_column: args.csv_host_column.clone(),
        };
        let mut settings = Settings::default();
        settings.set("format_version", FORMAT_VERSION.to_string());
        // documents.registrable_domain depends on the Public Suffix List compiled in.
        settings.set("psl_version", crate::sites::psl_version());
        settings.set(
            "inputs",
            format!(
                "{} inputs, {}",
                inputs.len(),
                Settings::digest_of(inputs.iter())
            ),
        );
        settings.set("inputs_per_task", inputs_per_task.to_string());
        settings.set("agents", agents.join(","));
        settings.set("paths", paths.join(","));
        settings.set(
            "urls",
            Settings::digest_of(std::iter::once(&urls_text)).to_string(),
        );
        settings.set("urls_per_host", args.urls_per_host.to_string());
        settings.set("seed", args.seed.to_string());
        settings.set("tables", tables.names().join(","));
        settings.set("csv", format!("{csv:?}"));
        // Recorded only when not the default, so earlier datasets keep their fingerprint.
        if args.zstd_window_log_max != crate::limits::ZSTD_WINDOW_LOG_DEFAULT {
            settings.set("zstd_window_log_max", args.zstd_window_log_max.to_string());
        }
        settings.set("default_crawl", args.default_crawl.clone());
        let shard = args.shard.as_deref().map(parse_shard).transpose()?;
        let out = OutTarget::parse(&args.out, store, None).map_err(ConfigError::Out)?;
        // A plan only lists tasks: --out is neither checked nor created.
        if !args.plan {
            prepare_output(
                &out,
                args.resume,
                args.overwrite,
                shard.is_some(),
                &settings,
            )?;
        }
        Ok(RunConfig {
            inputs,
            store,
            out,
            threads,
            quiet: args.quiet,
            resume: args.resume,
            strict: args.strict,
            read: ReadOptions {
                csv,
                zstd_window_log_max: args.zstd_window_log_max,
            },
            agents,
            urls: UrlPlan::new(paths, &urls, Some(args.urls_per_host), args.seed),
            urls_per_host: args.urls_per_host,
            tables,
            inputs_per_task,
            default_crawl: args.default_crawl.clone(),
            settings,
            shard,
        })
    }

    /// Verdict questions asked of each parsed document at most (agents x URLs).
    pub fn questions_per_document(&self) -> usize {
        let urls = self.urls.paths.len()
            + if self.urls.by_host.is_empty() {
                0
            } else {
                self.urls_per_host
            };
        self.agents.len() * urls.max(1)
    }
}

/// `I/N`, or `auto/N` with I from the engine's index variable.
fn parse_shard(text: &str) -> Result<(usize, usize), ConfigError> {
    let bad = || ConfigError::Shard(text.to_owned());
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    let i: usize = if i.trim() == "auto" {
        let var = ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"]
            .iter()
            .find_map(|name| std::env::var(name).ok())
            .ok_or(ConfigError::ShardIndexUnset)?;
        var.trim().parse().map_err(|_| bad())?
    } else {
        i.trim().parse().map_err(|_| bad())?
    };
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })
}

/// Inputs as given (local directories walked), then the lines of the input list
/// (`--inputs-from`, or the one `--crawl` names); each input once (`x`, `./x` and a
/// symlink to `x` are one input: the first spelling is kept), sorted. Missing files
/// are kept: they become error rows, not usage errors.
fn expand_inputs(args: &RunArgs, store: &StoreOptions) -> Result<Vec<String>, ConfigError> {
    // A local --out is never read as input (an s3:// one cannot be walked into).
    let out = match Location::parse(&args.out) {
        Ok(Location::Local(dir)) => std::fs::canonicalize(dir).ok(),
        _ => None,
    };
    let mut inputs = Vec::new();
    for arg in &args.inputs {
        let location = Location::parse(arg).map_err(ConfigError::Location)?;
        match location.as_local() {
            Some(path) if path.is_dir() => walk(path, out.as_deref(), &mut inputs),
            _ => inputs.push(location.to_string()),
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

/// Refuses to mix a new run into an existing output unless asked to, and a
/// resume under settings other than the dataset's; removes leftovers of killed runs.
fn prepare_output(
    out: &OutTarget,
    resume: bool,
    overwrite: bool,
    shard: bool,
    settings: &Settings,
) -> Result<(), ConfigError> {
    let output_err = |detail: String| ConfigError::Output {
        path: out.to_string(),
        detail,
    };
    let existing = out.existing().map_err(output_err)?;
    let meta = out.read_meta().map_err(ConfigError::Meta)?;
    // Shards of one list and flags write disjoint tasks of one dataset: a shard
    // meeting the others' output with the same settings is expected, and harmless.
    let same_dataset = meta.as_ref().is_some_and(|m| m.settings == *settings);
    let continuing = resume || (shard && same_dataset);
    if !existing.is_empty() && !continuing {
        if !overwrite {
            return Err(ConfigError::OutputExists(out.to_string()));
        }
        // Only what this tool writes is removed, never anything else in --out.
        out.remove_existing(&existing).map_err(output_err)?;
    }
    if resume || shard {
        if let Some(meta) = &meta {
            let differences = meta.settings.differences(settings);
            if !differences.is_empty() {
                return Err(ConfigError::SettingsDiffer {
                    out: out.to_string(),
                    differences: differences.join(", "),
                });
            }
        }
    }
    // Staging directories of S3 runs that were killed (their PUTs are atomic: the
    // bucket itself holds no temporaries).
    out.clean_staging();
    match out {
        OutTarget::Local(dir) => {
            if resume || shard {
                dataset::remove_leftovers(dir).map_err(|e| output_err(e.to_string()))?;
            }
            std::fs::create_dir_all(dir).map_err(|e| output_err(e.to_string()))
        }
        OutTarget::S3 { .. } => Ok(()),
    }
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
