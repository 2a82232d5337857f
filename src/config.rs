//! Validated run configuration: raw [`RunArgs`] in, [`RunConfig`] out.
//!
//! Everything that can be checked before the first input is read is checked
//! here (agent lists, URL lists, the output directory), so a usage error costs
//! nothing and exits 2.

use std::path::{Path, PathBuf};

use crate::cli::RunArgs;
use crate::input::CsvOptions;
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
    /// Input paths as the user named them (directories expanded, sorted).
    pub inputs: Vec<String>,
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

/// Files as given, directories recursed in sorted order, then --inputs-from lines.
/// Missing files are kept: they become error rows, not usage errors.
fn expand_inputs(args: &RunArgs) -> Result<Vec<String>, ConfigError> {
    let mut inputs = Vec::new();
    for path in &args.inputs {
        if path.is_dir() {
            walk(path, &mut inputs).map_err(|source| ConfigError::Read {
                path: path.clone(),
                source,
            })?;
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
    Ok(inputs)
}

fn walk(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path.to_string_lossy().into_owned());
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
