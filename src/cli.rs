//! Command-line arguments as clap parses them; validated into a [`crate::config::RunConfig`].

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Measure the Robots Exclusion Protocol at web scale.
#[derive(Debug, Parser)]
#[command(name = "robots-census", version, about, long_about = None)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Stream robots.txt captures from WARC or CSV inputs into Parquet tables.
    Run(Box<RunArgs>),
    /// Answer allow/disallow questions about one robots.txt, as Google's parser would.
    Check(crate::check::CheckArgs),
    /// Print the lint findings of one robots.txt.
    Lint(crate::check::LintArgs),
    /// Report which tasks of a dataset are done; write OUT/_SUCCESS when all are.
    Status(crate::status::StatusArgs),
}

const RUN_AFTER_HELP: &str = "\
Output: <OUT>/<table>/crawl=<CRAWL>/<task>.parquet for the tables documents, groups, rules,
sitemaps, errors, verdicts, agents (see --tables), <OUT>/_manifests/<task>.json per task
(written last), and <OUT>/_dataset.json (the settings). A task is K consecutive inputs of
the sorted input list (--inputs-per-task).

Exit codes:
  0  every input was read completely
  1  the run finished, but some inputs or records were skipped (see the errors table)
  2  usage error, output cannot be written, or (with --strict) anything was skipped:
     do not retry
  75 some input failed for a reason worth retrying (network retries exhausted): its
     task has no manifest marked done; run the same command again (with --resume)
  130  interrupted (Ctrl-C or SIGTERM); completed tasks are kept, rerun with --resume";

/// Arguments of `robots-census run`.
#[derive(Debug, clap::Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct RunArgs {
    /// Input files (.warc, .warc.gz, .warc.zst, .csv, .csv.gz, .csv.zst) or directories
    /// (recursed, following symbolic links, cycles and the --out directory skipped).
    /// The format is detected from the content. An input named twice is read once.
    pub inputs: Vec<PathBuf>,

    /// Read more input paths from FILE, one per line (like Common Crawl's robotstxt.paths).
    #[arg(long, value_name = "FILE")]
    pub inputs_from: Option<PathBuf>,

    /// Output directory.
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,

    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,

    /// Skip tasks whose manifest already exists in --out (continue a killed run); refused
    /// when --out was made with other settings.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,

    /// Replace the tables of an existing --out directory.
    #[arg(long)]
    pub overwrite: bool,

    /// Treat any skipped input or record as a failure (exit 2).
    #[arg(long)]
    pub strict: bool,

    /// Tables to write besides documents and errors (always written), comma-separated
    /// from groups, rules, sitemaps, verdicts, agents [default: all of them].
    #[arg(long, value_name = "LIST")]
    pub tables: Option<String>,

    /// Agents to ask about: a comma list, or @FILE with one token per line
    /// (default: the bundled list of search and AI crawlers).
    #[arg(long, value_name = "LIST|@FILE")]
    pub agents: Option<String>,

    /// URLs to ask about, joined to documents by host: one URL per line, or a CSV with a `url` column.
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,

    /// Paths asked on every host, comma-separated.
    #[arg(long, value_name = "LIST", default_value = "/")]
    pub paths: String,

    /// Keep at most N URLs per host from --urls (deterministic sample, see --seed).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub urls_per_host: usize,

    /// Seed of the per-host URL sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Run only the tasks with index % N == I: `I/N`, or `auto/N` to take I from
    /// JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or AWS_BATCH_JOB_ARRAY_INDEX.
    /// Shards of one input list and flags write disjoint tasks of one dataset.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,

    /// Print the tasks and exit, reading no input and touching nothing in --out: a
    /// line `{"tasks": N, "inputs": M, "inputs_per_task": K, "fingerprint": F, "out": O}`,
    /// then one `{"index": I, "name": T, "inputs": [...]}` per task (only --shard's
    /// tasks with --shard). What an engine's driver asks before it runs task I as
    /// `--shard I/N`.
    #[arg(long)]
    pub plan: bool,

    /// Inputs per task: each task writes one part per table and one manifest
    /// [default: the smallest K giving at most 1,500 tasks].
    #[arg(long, value_name = "K")]
    pub inputs_per_task: Option<usize>,

    /// The `crawl` of inputs that name none (no warcinfo isPartOf, no CC-MAIN-YYYY-WW
    /// in their path).
    #[arg(long, value_name = "NAME", default_value = "unknown")]
    pub default_crawl: String,

    /// CSV column holding the robots.txt URL.
    #[arg(long, default_value = "url", value_name = "NAME")]
    pub csv_url_column: String,

    /// CSV column holding the robots.txt body.
    #[arg(long, default_value = "body", value_name = "NAME")]
    pub csv_body_column: String,

    /// CSV column holding the HTTP status (optional in the file).
    #[arg(long, default_value = "status", value_name = "NAME")]
    pub csv_status_column: String,

    /// CSV column holding a host, standing in for the URL as `https://<host>/robots.txt`.
    #[arg(long, value_name = "NAME")]
    pub csv_host_column: Option<String>,
}
