//! Every command-line struct, as clap parses it. Nothing here reads, checks or
//! writes anything: `options.rs` turns these into the plain options the steps take.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::limits::DEFAULT_MEMORY_LIMIT;
use crate::sites::{SiteKey, StatusSemantics};
use crate::store::{DEFAULT_IO_TIMEOUT_SECS, DEFAULT_MAX_REQUESTS, DEFAULT_RETRY_BUDGET_SECS};

pub use super::options::ByteSize;

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
    Check(CheckArgs),
    /// Print the lint findings of one robots.txt.
    Lint(LintArgs),
    /// Report which tasks of a dataset are done; write `<OUT>/_SUCCESS` when all are.
    Status(StatusArgs),
    /// Per crawl, site and agent: the capture that decides and what it says (after `run`).
    Sites(SitesArgs),
    /// What changed per site between two crawls of the sites table (after `sites`).
    Changes(ChangesArgs),
    /// One robots.txt for SEO auditors: findings, verdicts, groups per crawler, RFC 9309 vs Google.
    Audit(AuditArgs),
    /// One self-contained HTML page of charts and tables from a run's tables (after `run`).
    Report(ReportArgs),
    /// Run SQL over a dataset's tables by name (a file of queries/, yours, or -e).
    Query(QueryArgs),
    /// Print the default crawler list that run, audit and check ask about.
    Agents(AgentsArgs),
}

/// Arguments of `robots-census agents`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The list is one token per line with '#' comments, the format --agents @FILE \
                  reads: save it, edit it, and pass it back."
)]
pub struct AgentsArgs {
    /// Only the AI crawlers (the crawlers `run`'s closing summary is about).
    #[arg(long)]
    pub ai: bool,
}

const QUERY_AFTER_HELP: &str = "\
The dataset's tables are registered by name: documents, groups, rules, sitemaps, errors,
verdicts, agents, signals, readings (run --profiles), sites, ranks (robots-census sites) and
changes (robots-census changes). Only finished tasks are read; a derived table made from
another state of the dataset is refused. The statements of the SQL run in order; the
last one's rows are written. The bundled queries/ files each answer one question
(their header says which, and what each column means).

Examples:
  robots-census query out queries/ai_agent_blocking.sql
  robots-census query out -e \"SELECT status_class, count(*) FROM documents GROUP BY 1\" --format csv

Exit codes:
  0  the rows were written
  2  usage error, not a dataset, a table it lacks (or a stale one), an SQL error, or
     the output cannot be written";

/// `query --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    /// An aligned text table (the whole result is held to align it).
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row (JSON lines).
    Json,
    /// A Parquet file (needs --output).
    Parquet,
}

/// Arguments of `robots-census query`.
#[derive(Debug, clap::Args)]
#[command(after_help = QUERY_AFTER_HELP)]
pub struct QueryArgs {
    /// The dataset: the --out of `robots-census run` (a directory or s3://bucket/prefix).
    #[arg(value_name = "DIR|s3://BUCKET/PREFIX")]
    pub out: String,

    /// A file of SQL statements (`-` for stdin).
    #[arg(
        value_name = "FILE.sql",
        required_unless_present = "execute",
        conflicts_with = "execute"
    )]
    pub file: Option<PathBuf>,

    /// The SQL itself instead of a file.
    #[arg(short = 'e', long = "execute", value_name = "SQL")]
    pub execute: Option<String>,

    /// How the rows are written.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,

    /// Write the rows to FILE instead of stdout (required for --format parquet).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Memory the engine may hold before it spills to disk, e.g. 256MiB, 4GiB.
    #[arg(long, value_name = "SIZE", default_value_t = ByteSize(DEFAULT_MEMORY_LIMIT))]
    pub memory_limit: ByteSize,

    /// Directory for spill files (default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,

    /// Threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

const CHANGES_AFTER_HELP: &str = "\
Reads <OUT>/sites (crawls --from and --to) and, for the deciding robots.txt files of
sites present in both, <OUT>/groups, <OUT>/rules and <OUT>/sitemaps, each once; writes
one row per change to <OUT>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet
(replacing an earlier comparison of the same crawls once complete) and prints a summary
per agent (--json for one object). What does not fit --memory-limit is spilled to
--spill-dir; the table written is the same whatever the limit.

Exit codes:
  0  the changes were written
  2  usage error, a crawl not in the sites table, or tables unreadable / not writable";

/// Arguments of `robots-census changes`.
#[derive(Debug, clap::Args)]
#[command(after_help = CHANGES_AFTER_HELP)]
pub struct ChangesArgs {
    /// The dataset of `robots-census run` and `robots-census sites`: a directory or
    /// s3://bucket/prefix.
    #[arg(value_name = "OUT")]
    pub out: String,

    /// The earlier crawl (sites.crawl), e.g. CC-MAIN-2024-10.
    #[arg(
        long,
        value_name = "CRAWL_A",
        required_unless_present = "consecutive",
        requires = "to"
    )]
    pub from: Option<String>,

    /// The later crawl.
    #[arg(long, value_name = "CRAWL_B", requires = "from")]
    pub to: Option<String>,

    /// Compare every crawl of the sites table with the next (in name order: time order
    /// for Common Crawl's CC-MAIN-YYYY-WW names) instead of --from and --to.
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub consecutive: bool,

    /// With --consecutive, `I/N`: only the pairs whose index is I modulo N, one machine
    /// of N each (`auto/N`: I from JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX).
    #[arg(long, value_name = "I/N", requires = "consecutive")]
    pub shard: Option<String>,

    /// Print the summary as one JSON object on stdout instead of a table.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub memory: StepMemory,

    /// No summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The memory options of the steps after `run` (`sites`, `changes`).
#[derive(Debug, Clone, clap::Args)]
pub struct StepMemory {
    /// Memory the step plans to hold, e.g. 256MiB, 4GiB: what does not fit is spilled
    /// to disk (each table is still read once; the table written is the same).
    #[arg(long, value_name = "SIZE", default_value_t = ByteSize(DEFAULT_MEMORY_LIMIT))]
    pub memory_limit: ByteSize,

    /// Directory for spill files (default: a temporary directory inside OUT, removed
    /// when the step ends).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
}

/// How `sites` decides, as a study chooses (`sites`, and `report` which may run it).
/// Each option's default is the sites step's.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SiteChoices {
    /// What one site is: the host name, the host name without a leading www., or the
    /// registrable domain (Public Suffix List) [default: host].
    #[arg(long, value_enum)]
    pub site_key: Option<SiteKey>,

    /// What statuses mean, as a crawler family reads them: rfc9309 (4xx, 429 included,
    /// allow all; 5xx disallow all), google (429, 5xx and invalid codes disallow all, as
    /// agents.classification reads them), ccbot (only 200 a success, 403 forbidden, 429
    /// and 5xx defer, as Common Crawl counts), yandex (anything but 200 and 3xx allows
    /// all), urllib (401/403 disallow all, 5xx disallow all) or robots-parser
    /// (Browsertrix: anything but 200 and 3xx allows all) [default: rfc9309].
    #[arg(long, value_enum)]
    pub status_semantics: Option<StatusSemantics>,

    /// A ranked host list, `rank,host` per line (as Tranco publishes it): sites get
    /// their rank and top-k stratum, and ranked sites without a capture get a row.
    #[arg(long, value_name = "FILE")]
    pub ranks: Option<PathBuf>,

    /// Agents to report, a comma list or @FILE (default: every agent of the agents table).
    #[arg(long, value_name = "LIST|@FILE")]
    pub agents: Option<String>,
}

impl SiteChoices {
    /// Whether any option was given.
    pub fn given(&self) -> bool {
        self.site_key.is_some()
            || self.status_semantics.is_some()
            || self.ranks.is_some()
            || self.agents.is_some()
    }
}

const SITES_AFTER_HELP: &str = "\
Reads <OUT>/documents and <OUT>/agents (written by `run`) once per crawl and writes
<OUT>/sites/crawl=<CRAWL>/part-0.parquet, each crawl's partition replaced atomically
once complete (with --crawl, only those crawls), and, with --ranks,
<OUT>/ranks/ranks.parquet. Per crawl and site: the latest capture per URL; redirects
followed inside the crawl for up to 5 hops; between the site's robots.txt URLs success >
allow all > forbidden > defer > redirect not resolved. A crawl that does not fit
--memory-limit is spilled to --spill-dir; the table written is the same whatever the
limit or the thread count.

Exit codes:
  0  the sites table was written
  1  it was written, but some lines of the --ranks file were skipped
  2  usage error, missing or unreadable tables, or output not writable";

/// Arguments of `robots-census sites`.
#[derive(Debug, clap::Args)]
#[command(after_help = SITES_AFTER_HELP)]
pub struct SitesArgs {
    /// The dataset `robots-census run` wrote: a directory or s3://bucket/prefix.
    #[arg(value_name = "OUT")]
    pub out: String,

    /// Decide only this crawl (documents.crawl), replacing only its partition; may be
    /// repeated (default: every crawl of the dataset).
    #[arg(long, value_name = "CRAWL")]
    pub crawl: Vec<String>,

    /// `I/N`: decide only the crawls whose index in the dataset's crawls (name order)
    /// is I modulo N, one machine of N each (`auto/N`: I from JOB_COMPLETION_INDEX or
    /// AWS_BATCH_JOB_ARRAY_INDEX, as Kubernetes Indexed Jobs and Batch arrays set it).
    #[arg(long, value_name = "I/N", conflicts_with = "crawl")]
    pub shard: Option<String>,

    #[command(flatten)]
    pub choices: SiteChoices,

    #[command(flatten)]
    pub memory: StepMemory,

    /// No summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

const RUN_AFTER_HELP: &str = "\
Output: <OUT>/<table>/crawl=<CRAWL>/<task>.parquet for the tables documents, groups, rules,
sitemaps, errors, verdicts, agents, signals (see --tables), <OUT>/_manifests/<task>.json per task
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
    /// (recursed, following symbolic links, cycles and the --out directory skipped),
    /// http(s):// URLs or s3://bucket/key objects. The format is detected from the
    /// content. An input named twice is read once.
    pub inputs: Vec<String>,

    /// Read more inputs from LIST, one per line (like Common Crawl's robotstxt.paths.gz):
    /// a local file, http(s):// URL or s3:// object, gzip-compressed or not.
    #[arg(long, value_name = "LIST", conflicts_with = "crawl")]
    pub inputs_from: Option<String>,

    /// Resolve relative lines of --inputs-from against URL (an http(s):// or s3:// prefix)
    /// instead of the current directory.
    #[arg(long, value_name = "URL")]
    pub input_base_url: Option<String>,

    /// Read Common Crawl's robots.txt subset of crawl ID (CC-MAIN-YYYY-WW): its
    /// robotstxt.paths.gz under --input-base-url (default: Common Crawl over HTTPS,
    /// data.commoncrawl.org).
    #[arg(long, value_name = "ID")]
    pub crawl: Option<String>,

    /// Requests to remote stores in flight at once over the whole run.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REQUESTS)]
    pub max_requests: usize,

    /// Seconds a remote input may spend on failed requests and backoff before it is
    /// given up (an errors row, exit 1; --resume retries it).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_RETRY_BUDGET_SECS)]
    pub retry_budget: u64,

    /// Seconds to wait for a connection, a response or the next bytes of a body
    /// before the request counts as failed (and is retried).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_IO_TIMEOUT_SECS)]
    pub io_timeout: u64,

    /// Output: a directory, or s3://bucket/prefix (each part one PUT, staged in
    /// $TMPDIR first; the task's manifest PUT last).
    #[arg(long, short, value_name = "DIR|s3://BUCKET/PREFIX")]
    pub out: String,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,

    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,

    /// Skip tasks whose manifest already exists in --out (continue a killed run); refused
    /// when --out was made with other settings. Tasks with inputs that failed transiently
    /// (retry budget spent) run again.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,

    /// Replace the tables of an existing --out directory.
    #[arg(long)]
    pub overwrite: bool,

    /// Treat any skipped input or record as a failure (exit 2).
    #[arg(long)]
    pub strict: bool,

    /// Tables to write besides documents and errors (always written), comma-separated
    /// from groups, rules, sitemaps, verdicts, agents, signals, readings, or all [default:
    /// all of them but readings, which --profiles adds].
    #[arg(long, value_name = "LIST")]
    pub tables: Option<String>,

    /// Write the readings table: how each of these crawler families reads every parsed
    /// document for every agent, comma-separated from google, google-production,
    /// rfc9309, bing, yandex, applebot, baidu, ccbot, urllib, protego, robots-parser,
    /// or all [default with --tables readings: all].
    #[arg(long, value_name = "LIST")]
    pub profiles: Option<String>,

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

    /// CSV column holding a redirect's `Location` (optional in the file): what a 3xx row
    /// redirects to, resolved against its URL, as a WARC record's `Location` header.
    #[arg(long, default_value = "location", value_name = "NAME")]
    pub csv_location_column: String,

    /// CSV column holding a host, standing in for the URL as `https://<host>/robots.txt`.
    #[arg(long, value_name = "NAME")]
    pub csv_host_column: Option<String>,

    /// Largest zstd window accepted, as log2 (27 = 128 MiB, what `zstd --long` writes; at
    /// most 31). A frame asking for more is an error row, so a small hostile file cannot
    /// make the decoder allocate gigabytes. Memory: up to 2^N bytes per input being read.
    #[arg(long, default_value_t = crate::limits::ZSTD_WINDOW_LOG_DEFAULT, value_name = "N",
          value_parser = clap::value_parser!(u32).range(10..=31))]
    pub zstd_window_log_max: u32,
}

const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0  every URL asked is allowed for every agent
  1  at least one URL is disallowed
  2  usage error, or the robots.txt file cannot be read";

const LINT_EXIT_CODES: &str = "\
Exit codes:
  0  no finding of severity error or warning (info findings may be printed)
  1  at least one finding of severity error or warning
  2  usage error, or the robots.txt file cannot be read";

/// Arguments of `robots-census check`.
#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_EXIT_CODES)]
pub struct CheckArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
    /// `AGENT URL...`; with `--agent`, only URLs. Agents are product tokens used as given
    /// (`Googlebot`, not `Googlebot/2.1`); URLs are matched as written (percent-encode them).
    #[arg(value_name = "AGENT|URL", required = true)]
    pub args: Vec<OsString>,
    /// Ask for this agent; may be repeated. All positional arguments are then URLs.
    #[arg(long = "agent", short = 'a', value_name = "AGENT")]
    pub agents: Vec<OsString>,
    /// One JSON object per line: agent, url, allowed, line (0 when no rule decided),
    /// pattern, directive (null when none) and scope (named, star, none; with
    /// --profile also fallback), plus profile with --profile.
    #[arg(long)]
    pub json: bool,
    /// Answer as this crawler family reads the file, beside nothing else: google,
    /// google-production, rfc9309, bing, yandex, applebot, baidu, ccbot, urllib,
    /// protego, robots-parser, or all. Repeatable or comma-separated; each line then
    /// names its profile. Without it, Google's reading in today's format.
    #[arg(long = "profile", short = 'p', value_name = "NAME")]
    pub profiles: Vec<String>,
}

/// Arguments of `robots-census lint`.
#[derive(Debug, clap::Args)]
#[command(after_help = LINT_EXIT_CODES)]
pub struct LintArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
    /// One JSON object per finding: line, severity, code, message, excerpt.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `robots-census status`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes:\n  0  every task is done (and _SUCCESS was written)\n  1  some tasks are missing or must be retried\n  2  usage error, not a dataset, or it cannot be read"
)]
pub struct StatusArgs {
    /// The dataset (the --out of `run`): a directory or s3://bucket/prefix.
    #[arg(value_name = "DIR|s3://BUCKET/PREFIX")]
    pub out: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,

    /// Report a step after the run instead: `sites` (every crawl of the dataset has its
    /// partition of the sites table) or `changes` (every crawl of the sites table is
    /// compared with the next); exit 0 and `<OUT>/<step>/_SUCCESS` once complete.
    #[arg(long, value_enum)]
    pub step: Option<crate::status::Step>,
}

const AUDIT_AFTER_HELP: &str = "\
Without --url the verdict table asks about the site root `/`; without --agent it asks
the default crawler list (`robots-census agents` prints it). The terminal report goes
to stdout; --html FILE writes the same report as one HTML page (inline CSS, no script).

Exit codes:
  0  the report was written
  2  usage error, the robots.txt file cannot be read, or the HTML file cannot be written";

/// Arguments of `robots-census audit`.
#[derive(Debug, clap::Args)]
#[command(after_help = AUDIT_AFTER_HELP)]
pub struct AuditArgs {
    /// The robots.txt file, or `-` for standard input.
    pub robots_file: PathBuf,
    /// A URL to ask about (matched as written: percent-encode it); may be repeated.
    #[arg(long = "url", short = 'u', value_name = "URL")]
    pub urls: Vec<OsString>,
    /// An agent (product token) to ask about; may be repeated.
    #[arg(long = "agent", short = 'a', value_name = "AGENT")]
    pub agents: Vec<OsString>,
    /// Also write the report as a self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

const REPORT_AFTER_HELP: &str = "\
Reads <OUT>/sites (per-crawl figures) and <OUT>/documents, groups, sitemaps and errors
(per-host figures, latest capture per host) and writes one HTML file: inline SVG charts,
each with its numbers in a table, no script, nothing fetched. Each table is the result of
the file of queries/ its caption names, run by the embedded engine (as `robots-census
query` runs it; --memory-limit and --spill-dir as there). With any of --site-key,
--status-semantics, --ranks, --agents the sites step runs first with them (replacing
<OUT>/sites, as `robots-census sites OUT ...` would); without them the stored sites table
is used (the step runs with defaults when there is none). When the step runs, it plans
with the same --memory-limit.

Exit codes:
  0  the report was written
  1  it was written, but some lines of the --ranks file were skipped
  2  usage error, missing or unreadable tables, or output not writable";

/// Arguments of `robots-census report`.
#[derive(Debug, clap::Args)]
#[command(after_help = REPORT_AFTER_HELP)]
pub struct ReportArgs {
    /// The output directory of `robots-census run`.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,

    /// The HTML file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,

    /// The sites step's options: any of them given runs the step first with them.
    #[command(flatten)]
    pub choices: SiteChoices,

    /// Memory the query engine (and the sites step, when it runs) may hold before it
    /// spills to disk, e.g. 256MiB, 4GiB.
    #[arg(long, value_name = "SIZE", default_value_t = ByteSize(DEFAULT_MEMORY_LIMIT))]
    pub memory_limit: ByteSize,

    /// Directory for spill files (default: the system's temporary directory for the
    /// engine, a temporary directory inside OUT for the sites step).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,

    /// No summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}
