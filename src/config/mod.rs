//! What a run is asked ([`RunOptions`], plain values the command line gives) and
//! what it resolves to ([`RunConfig`]): the input list expanded (`inputs.rs`), agent
//! and URL files read, the settings that change rows. Resolving reads but never
//! writes: preparing `--out` is the run's first stage
//! ([`crate::output::OutTarget::prepare`]), so `run --plan` touches nothing.

mod inputs;

use std::path::{Path, PathBuf};

pub use inputs::InputsAsked;

use crate::input::{CsvOptions, ReadOptions};
use crate::limits::MAX_QUESTIONS_PER_DOCUMENT;
use crate::output::dataset::{self, Settings, FORMAT_VERSION};
use crate::output::target::Prepare;
use crate::output::{OutTarget, TableSet};
use crate::store::{StoreError, StoreOptions};
use crate::verdicts::{parse_agent_list, read_url_list, AgentsArg, UrlPlan, DEFAULT_AGENTS};
use robots_census_engine::Profile;

/// Usage errors: the run does not start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no inputs given (pass files, directories or URLs, --inputs-from LIST or --crawl ID)")]
    NoInputs,
    #[error("{0}")]
    Location(StoreError),
    #[error("cannot read the input list {list}: {source}")]
    List { list: String, source: StoreError },
    #[error("cannot read the input list {list}: {source}")]
    ListRead {
        list: String,
        source: std::io::Error,
    },
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
    #[error("--out: {0}")]
    Out(StoreError),
    #[error("--profiles: {0}")]
    Profiles(String),
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
        "--tables: unknown table {0:?} (choose from groups, rules, sitemaps, verdicts, agents, signals, readings, all)"
    )]
    UnknownTable(String),
    #[error("{agents} agents x {urls} URLs per document is {questions} questions per document; at most {MAX_QUESTIONS_PER_DOCUMENT} fit (lower --agents, --paths or --urls-per-host)")]
    TooManyQuestions {
        agents: usize,
        urls: usize,
        questions: usize,
    },
}

/// What a run is asked, as plain values (see `robots-census run --help`): built from
/// the command line without reading or writing anything.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub inputs: InputsAsked,
    pub store: StoreOptions,
    /// `--out` as given: a directory or `s3://bucket/prefix`.
    pub out: String,
    pub threads: usize,
    pub quiet: bool,
    pub prepare: Prepare,
    pub strict: bool,
    pub tables: TableSet,
    /// The interpretation profiles of the readings table (empty without it).
    pub profiles: Vec<Profile>,
    /// `None`: the bundled list of search and AI crawlers.
    pub agents: Option<AgentsArg>,
    /// A URL list file (`--urls`).
    pub urls: Option<PathBuf>,
    /// Paths asked on every host.
    pub paths: Vec<String>,
    pub urls_per_host: usize,
    pub seed: u64,
    /// `(i, n)`: run only the tasks with `index % n == i`.
    pub shard: Option<(usize, usize)>,
    /// `None`: [`dataset::default_inputs_per_task`].
    pub inputs_per_task: Option<usize>,
    pub default_crawl: String,
    pub csv: CsvOptions,
    pub zstd_window_log_max: u32,
}

/// Everything a run needs, validated.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Inputs as the user named them (local paths, `http(s)://` URLs, `s3://`
    /// objects): directories expanded, list lines resolved, each input once, sorted
    /// (tasks are consecutive slices of this list).
    pub inputs: Vec<String>,
    /// Inputs a directory walk could not read, with why: each becomes its input's
    /// `errors` row.
    pub not_walked: std::collections::BTreeMap<String, String>,
    /// Remote access: request cap, retry budget, timeouts.
    pub store: StoreOptions,
    /// Where the dataset goes: a local directory or an S3 prefix (staged locally).
    pub out: OutTarget,
    pub threads: usize,
    pub quiet: bool,
    /// How the run meets what `out` already holds (its first stage).
    pub prepare: Prepare,
    pub strict: bool,
    pub read: ReadOptions,
    pub agents: Vec<String>,
    pub urls: UrlPlan,
    /// Most URLs sampled per host (`--urls-per-host`).
    pub urls_per_host: usize,
    /// The tables written.
    pub tables: TableSet,
    /// The profiles the readings table answers under (empty without it).
    pub profiles: Vec<Profile>,
    pub inputs_per_task: usize,
    /// The crawl of inputs that name none.
    pub default_crawl: String,
    /// Everything that changes rows, recorded in `_dataset.json` and every manifest.
    pub settings: Settings,
    /// `(i, n)`: run only the tasks with `index % n == i`.
    pub shard: Option<(usize, usize)>,
}

impl RunConfig {
    /// Resolves what a run is asked: expands the inputs (walking directories, reading
    /// an input list wherever it is), reads the agent and URL files, checks the number
    /// of questions, and records the settings.
    pub fn resolve(options: &RunOptions) -> Result<Self, ConfigError> {
        let store = options.store;
        let inputs::Inputs {
            list: inputs,
            not_walked,
        } = inputs::expand_inputs(&options.inputs, &options.out, &store)?;
        if inputs.is_empty() {
            return Err(ConfigError::NoInputs);
        }
        let agents = match &options.agents {
            None => parse_agent_list(DEFAULT_AGENTS),
            Some(arg) => arg
                .resolve()
                .map_err(|(path, source)| ConfigError::Read { path, source })?,
        };
        if agents.is_empty() {
            return Err(ConfigError::NoAgents);
        }
        let (urls, urls_text) = match &options.urls {
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
        let paths = &options.paths;
        // Saturating: `--urls-per-host 18446744073709551615` must be refused, not wrap
        // around to a small count that passes the check.
        let per_doc = paths.len().saturating_add(if urls.is_empty() {
            0
        } else {
            options.urls_per_host
        });
        let questions = agents.len().saturating_mul(per_doc);
        if questions > MAX_QUESTIONS_PER_DOCUMENT {
            return Err(ConfigError::TooManyQuestions {
                agents: agents.len(),
                urls: per_doc,
                questions,
            });
        }
        let inputs_per_task = options
            .inputs_per_task
            .unwrap_or_else(|| dataset::default_inputs_per_task(inputs.len()));
        let csv = &options.csv;
        let mut settings = Settings::default();
        settings.set("format_version", FORMAT_VERSION.to_string());
        // documents.registrable_domain depends on the Public Suffix List compiled in.
        settings.set("psl_version", crate::census::urls::psl_version());
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
        settings.set("urls_per_host", options.urls_per_host.to_string());
        settings.set("seed", options.seed.to_string());
        settings.set("tables", options.tables.names().join(","));
        // Recorded only with the readings table, so earlier datasets keep their fingerprint.
        if !options.profiles.is_empty() {
            let names: Vec<&str> = options.profiles.iter().map(|p| p.name()).collect();
            settings.set("profiles", names.join(","));
        }
        settings.set("csv", format!("{csv:?}"));
        // Recorded only when not the default, so earlier datasets keep their fingerprint.
        if options.zstd_window_log_max != crate::limits::ZSTD_WINDOW_LOG_DEFAULT {
            settings.set(
                "zstd_window_log_max",
                options.zstd_window_log_max.to_string(),
            );
        }
        settings.set("default_crawl", options.default_crawl.clone());
        let out = OutTarget::parse(&options.out, store, None).map_err(ConfigError::Out)?;
        Ok(RunConfig {
            inputs,
            not_walked,
            store,
            out,
            threads: options.threads,
            quiet: options.quiet,
            prepare: options.prepare,
            strict: options.strict,
            read: ReadOptions {
                csv: csv.clone(),
                zstd_window_log_max: options.zstd_window_log_max,
            },
            agents,
            urls: UrlPlan::new(
                paths.clone(),
                &urls,
                Some(options.urls_per_host),
                options.seed,
            ),
            urls_per_host: options.urls_per_host,
            tables: options.tables,
            profiles: options.profiles.clone(),
            inputs_per_task,
            default_crawl: options.default_crawl.clone(),
            settings,
            shard: options.shard,
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

/// `--shard`: `I/N`, or `auto/N` with I from the engine's index variable.
pub fn parse_shard(text: &str) -> Result<(usize, usize), ConfigError> {
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
