//! Validated run configuration: raw [`RunArgs`] in, [`RunConfig`] out.
//!
//! Everything that can be checked before the first input is read is checked
//! here (agent lists, URL lists, question counts, the output directory and its
//! settings), so a usage error costs nothing and exits 2.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::cli::RunArgs;
use crate::input::CsvOptions;
use crate::limits::MAX_QUESTIONS_PER_DOCUMENT;
use crate::output::dataset::{self, Settings, FORMAT_VERSION};
use crate::output::TableSet;
use crate::verdicts::{parse_agent_list, read_url_list, UrlPlan, DEFAULT_AGENTS};

/// Usage errors: the run does not start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no inputs given (pass files or directories, or --inputs-from FILE)")]
    NoInputs,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("output directory {0} already holds tables: pass --resume to continue it or --overwrite to replace it")]
    OutputExists(PathBuf),
    #[error("{out} was written with other settings ({differences}); rerun with the same flags and inputs, or --overwrite")]
    SettingsDiffer { out: PathBuf, differences: String },
    #[error("cannot prepare output directory {path}: {source}")]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
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
    /// Input paths as the user named them: directories expanded, each input once,
    /// sorted (tasks are consecutive slices of this list).
    pub inputs: Vec<String>,
    pub out: PathBuf,
    pub threads: usize,
    pub quiet: bool,
    pub resume: bool,
    pub strict: bool,
    pub csv: CsvOptions,
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
        let inputs = expand_inputs(args)?;
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
        let per_doc = paths.len()
            + if urls.is_empty() {
                0
            } else {
                args.urls_per_host
            };
        let questions = agents.len() * per_doc;
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
        settings.set("default_crawl", args.default_crawl.clone());
        let shard = args.shard.as_deref().map(parse_shard).transpose()?;
        // A plan only lists tasks: --out is neither checked nor created.
        if !args.plan {
            prepare_output(
                &args.out,
                args.resume,
                args.overwrite,
                shard.is_some(),
                &settings,
            )?;
        }
        Ok(RunConfig {
            inputs,
            out: args.out.clone(),
            threads,
            quiet: args.quiet,
            resume: args.resume,
            strict: args.strict,
            csv,
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

/// Files as given, directories walked, then --inputs-from lines; each input once
/// (`x`, `./x` and a symlink to `x` are one input: the first spelling is kept),
/// sorted. Missing files are kept: they become error rows, not usage errors.
fn expand_inputs(args: &RunArgs) -> Result<Vec<String>, ConfigError> {
    let out = std::fs::canonicalize(&args.out).ok();
    let mut inputs = Vec::new();
    for path in &args.inputs {
        if path.is_dir() {
            walk(path, out.as_deref(), &mut inputs);
        } else {
            inputs.push(path.to_string_lossy().into_owned());
        }
    }
    if let Some(list) = &args.inputs_from {
        let text = read(list)?;
        inputs.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_owned),
        );
    }
    let mut seen = HashSet::new();
    inputs.retain(|input| {
        let key = std::fs::canonicalize(input)
            .map_or_else(|_| input.clone(), |p| p.to_string_lossy().into_owned());
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

/// Refuses to mix a new run into an existing output unless asked to, and a
/// resume under settings other than the dataset's; records the settings.
fn prepare_output(
    out: &Path,
    resume: bool,
    overwrite: bool,
    shard: bool,
    settings: &Settings,
) -> Result<(), ConfigError> {
    let ours = |name: &str| {
        crate::output::Table::ALL.iter().any(|t| t.name() == name)
            || name == dataset::MANIFEST_DIR
            || name == dataset::DATASET_FILE
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
    let meta = dataset::read_meta(out).map_err(ConfigError::Meta)?;
    // Shards of one list and flags write disjoint tasks of one dataset: a shard
    // meeting the others' output with the same settings is expected, and harmless.
    let same_dataset = meta.as_ref().is_some_and(|m| m.settings == *settings);
    let continuing = resume || (shard && same_dataset);
    if !existing.is_empty() && !continuing {
        if !overwrite {
            return Err(ConfigError::OutputExists(out.to_owned()));
        }
        // Only what this tool writes is removed, never anything else in --out.
        for path in existing {
            if path.is_dir() {
                std::fs::remove_dir_all(&path).map_err(output_err)?;
            } else {
                std::fs::remove_file(&path).map_err(output_err)?;
            }
        }
    }
    if resume || shard {
        if let Some(meta) = &meta {
            let differences = meta.settings.differences(settings);
            if !differences.is_empty() {
                return Err(ConfigError::SettingsDiffer {
                    out: out.to_owned(),
                    differences: differences.join(", "),
                });
            }
        }
        dataset::remove_leftovers(out).map_err(output_err)?;
    }
    std::fs::create_dir_all(out).map_err(output_err)
}
