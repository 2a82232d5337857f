//! Command-line structs into the plain options each step takes. Pure: values are
//! checked and converted, nothing is read or written (a `@FILE` agent list is read
//! by the step that uses it).

use std::ffi::OsString;
use std::time::Duration;

#[cfg(feature = "study")]
use super::args::ReportArgs;
use super::args::{AuditArgs, ChangesArgs, CheckArgs, RunArgs, SiteChoices, SitesArgs};
use crate::check::CheckOptions;
use crate::config::{parse_shard, ConfigError, InputsAsked, RunOptions};
use crate::input::CsvOptions;
use crate::output::target::Prepare;
use crate::output::{Table, TableSet};
use crate::store::{RetryPolicy, StoreOptions};
use crate::verdicts::AgentsArg;
use robots_census_engine::Profile;

impl RunArgs {
    /// The run's options; usage errors for values no run can take.
    pub fn options(&self) -> Result<RunOptions, ConfigError> {
        if self.max_requests == 0 {
            return Err(ConfigError::MaxRequests);
        }
        let defaults = StoreOptions::default();
        let store = StoreOptions {
            max_requests: self.max_requests,
            retry: RetryPolicy {
                budget: Duration::from_secs(self.retry_budget),
                ..defaults.retry
            },
            io_timeout: Duration::from_secs(self.io_timeout.max(1)),
        };
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 {
            return Err(ConfigError::Threads);
        }
        if self.inputs_per_task == Some(0) {
            return Err(ConfigError::InputsPerTask);
        }
        let mut tables = match &self.tables {
            Some(list) => TableSet::parse(list).map_err(ConfigError::UnknownTable)?,
            None => TableSet::DEFAULT,
        };
        let profiles = match &self.profiles {
            Some(list) => {
                tables = tables.with(Table::Readings);
                Profile::parse_list(list).map_err(ConfigError::Profiles)?
            }
            None if tables.contains(Table::Readings) => Profile::ALL.to_vec(),
            None => Vec::new(),
        };
        let shard = self.shard.as_deref().map(parse_shard).transpose()?;
        Ok(RunOptions {
            inputs: InputsAsked {
                inputs: self.inputs.clone(),
                list: self.inputs_from.clone(),
                base_url: self.input_base_url.clone(),
                crawl: self.crawl.clone(),
            },
            store,
            out: self.out.clone(),
            threads,
            quiet: self.quiet,
            prepare: Prepare {
                resume: self.resume,
                overwrite: self.overwrite,
                shard: shard.is_some(),
            },
            strict: self.strict,
            tables,
            profiles,
            agents: self.agents.as_deref().map(AgentsArg::parse),
            urls: self.urls.clone(),
            paths: self
                .paths
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect(),
            urls_per_host: self.urls_per_host,
            seed: self.seed,
            shard,
            inputs_per_task: self.inputs_per_task,
            default_crawl: self.default_crawl.clone(),
            csv: CsvOptions {
                url_column: self.csv_url_column.clone(),
                body_column: self.csv_body_column.clone(),
                status_column: self.csv_status_column.clone(),
                location_column: self.csv_location_column.clone(),
                host_column: self.csv_host_column.clone(),
            },
            zstd_window_log_max: self.zstd_window_log_max,
        })
    }
}

impl ChangesArgs {
    pub fn options(&self) -> Result<crate::changes::Options, String> {
        let pairs = match (&self.from, &self.to) {
            (Some(from), Some(to)) => crate::changes::Pairs::One(from.clone(), to.clone()),
            _ => crate::changes::Pairs::Consecutive(shard(self.shard.as_deref())?),
        };
        Ok(crate::changes::Options {
            out: self.out.clone(),
            pairs,
            memory_limit: self.memory.memory_limit.0,
            spill_dir: self.memory.spill_dir.clone(),
        })
    }
}

/// `--shard I/N` of a step, if given.
fn shard(text: Option<&str>) -> Result<Option<(usize, usize)>, String> {
    text.map(parse_shard).transpose().map_err(|e| e.to_string())
}

impl SiteChoices {
    /// The sites step's options over `out`, the choices not given at their defaults.
    fn options(&self, out: &str) -> crate::sites::Options {
        crate::sites::Options {
            site_key: self.site_key.unwrap_or_default(),
            semantics: self.status_semantics.unwrap_or_default(),
            ranks: self.ranks.clone(),
            agents: self.agents.as_deref().map(AgentsArg::parse),
            ..crate::sites::Options::defaults(out)
        }
    }
}

impl SitesArgs {
    pub fn options(&self) -> Result<crate::sites::Options, String> {
        Ok(crate::sites::Options {
            crawls: self.crawl.clone(),
            shard: shard(self.shard.as_deref())?,
            memory_limit: self.memory.memory_limit.0,
            spill_dir: self.memory.spill_dir.clone(),
            ..self.choices.options(&self.out)
        })
    }
}

#[cfg(feature = "study")]
impl ReportArgs {
    /// Any of the sites step's options given runs the step with them (the others at
    /// their defaults).
    pub fn options(&self) -> crate::report::Options {
        let limit = self.memory_limit.0;
        let sites = self.choices.given().then(|| crate::sites::Options {
            memory_limit: limit,
            spill_dir: self.spill_dir.clone(),
            ..self.choices.options(&self.out.to_string_lossy())
        });
        crate::report::Options {
            out: self.out.clone(),
            output: self.output.clone(),
            sites,
            engine: crate::study::EngineOptions {
                memory_limit: limit,
                spill_dir: self.spill_dir.clone(),
                threads: 0,
            },
        }
    }
}

impl CheckArgs {
    /// `AGENT URL...`, or `--agent AGENT... URL...`.
    pub fn options(&self) -> Result<CheckOptions, String> {
        let (agents, urls) = if self.agents.is_empty() {
            match self.args.split_first() {
                Some((agent, urls)) if !urls.is_empty() => (std::slice::from_ref(agent), urls),
                _ => {
                    return Err(
                        "check needs an AGENT and at least one URL (or --agent AGENT and URLs)"
                            .to_owned(),
                    )
                }
            }
        } else {
            (&self.agents[..], &self.args[..])
        };
        let profiles = if self.profiles.is_empty() {
            None
        } else {
            Some(robots_census_engine::Profile::parse_list(
                &self.profiles.join(","),
            )?)
        };
        Ok(CheckOptions {
            agents: bytes(agents),
            urls: bytes(urls),
            json: self.json,
            profiles,
        })
    }
}

impl AuditArgs {
    pub fn options(&self) -> crate::audit::Options {
        crate::audit::Options {
            agents: bytes(&self.agents),
            urls: bytes(&self.urls),
        }
    }
}

/// Arguments as the bytes the user typed (agents and URLs are matched as given).
#[cfg(feature = "study")]
impl super::args::QueryArgs {
    pub fn format(&self) -> crate::study::Format {
        use super::args::QueryFormat;
        use crate::study::Format;
        match self.format {
            QueryFormat::Table => Format::Table,
            QueryFormat::Csv => Format::Csv,
            QueryFormat::Json => Format::Json,
            QueryFormat::Parquet => Format::Parquet,
        }
    }

    pub fn options(&self) -> crate::study::EngineOptions {
        crate::study::EngineOptions {
            memory_limit: self.memory_limit.0,
            spill_dir: self.spill_dir.clone(),
            threads: self.threads,
        }
    }
}

/// A byte size on the command line (`--memory-limit`): a number with an optional unit,
/// K/M/G/T (powers of 1024, as DataFusion reads `memory_limit`), with or without `i` and
/// `B`: `512MiB`, `4G`, `1.5GiB`, `1000`. Shown as the largest unit it is a whole
/// number of, so a default declared in bytes (`limits.rs`) reads `1GiB` in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub usize);

impl std::str::FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        parse_size(text)
            .map(ByteSize)
            .ok_or_else(|| format!("{text:?}: give a size such as 512MiB or 4GiB"))
    }
}

impl std::fmt::Display for ByteSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let units = [
            ("TiB", 1usize << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        match units
            .iter()
            .find(|(_, size)| self.0 >= *size && self.0 % size == 0)
        {
            Some((unit, size)) => write!(f, "{}{unit}", self.0 / size),
            None => write!(f, "{}", self.0),
        }
    }
}

/// A byte size: a number with an optional unit, K/M/G/T (powers of 1024, as DataFusion
/// reads `memory_limit`), with or without `i` and `B`: `512MiB`, `4G`, `1.5GiB`, `1000`.
fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix('b').unwrap_or(&unit);
    let unit = unit.strip_suffix('i').unwrap_or(unit);
    let scale: f64 = match unit {
        "" => 1.0,
        "k" => 1024.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = number * scale;
    (bytes.is_finite() && bytes >= 1.0 && bytes < usize::MAX as f64).then_some(bytes as usize)
}

fn bytes(args: &[OsString]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::super::args::{Args, Command};

    fn parse(line: &[&str]) -> Command {
        let mut argv = vec!["robots-census"];
        argv.extend_from_slice(line);
        Args::try_parse_from(argv).expect("arguments parse").command
    }

    #[test]
    fn run_options_carry_every_flag() {
        let Command::Run(args) = parse(&[
            "run",
            "a.warc.gz",
            "dir",
            "--out",
            "o",
            "--threads",
            "3",
            "--resume",
            "--shard",
            "1/4",
            "--tables",
            "agents",
            "--agents",
            "@list.txt",
            "--paths",
            " /, /x ,",
            "--inputs-per-task",
            "7",
            "--retry-budget",
            "9",
        ]) else {
            panic!("not run");
        };
        let options = args.options().expect("valid options");
        assert_eq!(options.inputs.inputs, ["a.warc.gz", "dir"]);
        assert_eq!(options.threads, 3);
        assert!(options.prepare.resume && options.prepare.shard && !options.prepare.overwrite);
        assert_eq!(options.shard, Some((1, 4)));
        assert_eq!(options.tables.names(), ["documents", "errors", "agents"]);
        // The list file is named, not read: building options has no side effects.
        assert_eq!(
            options.agents,
            Some(crate::verdicts::AgentsArg::File("list.txt".into()))
        );
        assert_eq!(options.paths, ["/", "/x"]);
        assert_eq!(options.inputs_per_task, Some(7));
        assert_eq!(options.store.retry.budget.as_secs(), 9);
    }

    #[test]
    fn values_no_run_can_take_are_usage_errors() {
        use crate::config::ConfigError;
        for (flags, expect) in [
            (&["--threads", "0"][..], "Threads"),
            (&["--max-requests", "0"], "MaxRequests"),
            (&["--inputs-per-task", "0"], "InputsPerTask"),
            (&["--shard", "4/4"], "Shard"),
            (&["--tables", "nope"], "UnknownTable"),
        ] {
            let mut line = vec!["run", "x", "--out", "o"];
            line.extend_from_slice(flags);
            let Command::Run(args) = parse(&line) else {
                panic!("not run");
            };
            let err = args.options().expect_err("refused");
            let name = match err {
                ConfigError::Threads => "Threads",
                ConfigError::MaxRequests => "MaxRequests",
                ConfigError::InputsPerTask => "InputsPerTask",
                ConfigError::Shard(_) => "Shard",
                ConfigError::UnknownTable(_) => "UnknownTable",
                _ => "other",
            };
            assert_eq!(name, expect, "{flags:?}");
        }
    }

    #[test]
    #[cfg(feature = "study")]
    fn report_runs_the_sites_step_only_when_its_options_are_given() {
        let Command::Report(args) = parse(&["report", "out", "-o", "r.html"]) else {
            panic!("not report");
        };
        let options = args.options();
        assert!(options.sites.is_none());
        assert_eq!(
            options.engine.memory_limit,
            crate::limits::DEFAULT_MEMORY_LIMIT
        );
        let Command::Report(args) = parse(&[
            "report",
            "out",
            "-o",
            "r.html",
            "--memory-limit",
            "256MiB",
            "--spill-dir",
            "/tmp/spill",
        ]) else {
            panic!("not report");
        };
        let options = args.options();
        assert_eq!(options.engine.memory_limit, 256 << 20);
        assert_eq!(
            options.engine.spill_dir.as_deref(),
            Some(std::path::Path::new("/tmp/spill"))
        );
        let refused = Args::try_parse_from([
            "robots-census",
            "report",
            "out",
            "-o",
            "r.html",
            "--memory-limit",
            "lots",
        ])
        .expect_err("a size that does not parse is a usage error")
        .to_string();
        assert!(
            refused.contains("--memory-limit") && refused.contains("\"lots\""),
            "{refused}"
        );
        let Command::Report(args) = parse(&["report", "out", "-o", "r.html", "--agents", "GPTBot"])
        else {
            panic!("not report");
        };
        let sites = args.options().sites.expect("sites options");
        assert_eq!(sites.site_key, crate::sites::SiteKey::Host);
        assert_eq!(
            sites.agents,
            Some(crate::verdicts::AgentsArg::Tokens(vec!["GPTBot".into()]))
        );
    }

    #[test]
    fn check_takes_an_agent_then_urls_or_agents_by_flag() {
        let Command::Check(args) = parse(&["check", "r.txt", "GPTBot", "/a", "/b"]) else {
            panic!("not check");
        };
        let options = args.options().expect("valid");
        assert_eq!(options.agents, [b"GPTBot".to_vec()]);
        assert_eq!(options.urls, [b"/a".to_vec(), b"/b".to_vec()]);
        let Command::Check(args) = parse(&["check", "r.txt", "GPTBot"]) else {
            panic!("not check");
        };
        assert!(args.options().is_err());
        let Command::Check(args) = parse(&["check", "r.txt", "-a", "A", "-a", "B", "/x"]) else {
            panic!("not check");
        };
        let options = args.options().expect("valid");
        assert_eq!(options.agents.len(), 2);
        assert_eq!(options.urls, [b"/x".to_vec()]);
        assert!(options.profiles.is_none());
    }

    #[test]
    fn check_profiles_repeat_or_list_and_unknown_names_are_usage_errors() {
        use robots_census_engine::Profile;
        let Command::Check(args) = parse(&[
            "check",
            "r.txt",
            "--profile",
            "urllib,google",
            "-p",
            "yandex",
            "GPTBot",
            "/x",
        ]) else {
            panic!("not check");
        };
        let options = args.options().expect("valid");
        assert_eq!(
            options.profiles,
            Some(vec![Profile::Google, Profile::Yandex, Profile::Urllib])
        );
        let Command::Check(args) = parse(&["check", "r.txt", "--profile", "gogle", "A", "/x"])
        else {
            panic!("not check");
        };
        assert!(args.options().expect_err("refused").contains("gogle"));
    }

    /// `--memory-limit` sizes mean what DataFusion, which the query engine hands them
    /// to, makes of the same text: what `SET datafusion.runtime.memory_limit = '<text>'`
    /// leaves as a session's memory pool limit, asked of DataFusion itself.
    ///
    /// The project's rule: every unit is binary. K, M, G and T are 2^10, 2^20, 2^30 and
    /// 2^40 bytes however they are spelled, so `512M`, `512MiB`, `512MB`, `512mb` and
    /// `512m` are all 512 x 2^20 bytes: `MB` is never read as 10^6. DataFusion's own units
    /// (K, M, G, upper case only) are binary, and one reading for every spelling means a
    /// size never changes meaning with its case or suffix. Beyond DataFusion's forms the
    /// project takes the `i`/`B` suffixes, lower case, T and a bare number of bytes; it
    /// refuses 0, which DataFusion takes as no memory at all.
    #[test]
    #[cfg(feature = "study")]
    fn memory_limits_read_as_datafusion_reads_them() {
        use super::{parse_size, ByteSize};
        use datafusion::execution::context::SessionContext;
        use datafusion::execution::memory_pool::MemoryLimit;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("tokio runtime");
        // DataFusion's reading of `text` (None when it refuses it).
        let datafusion = |text: &str| {
            let ctx = SessionContext::new();
            let set = format!("SET datafusion.runtime.memory_limit = '{text}'");
            runtime.block_on(ctx.sql(&set)).ok()?;
            match ctx.runtime_env().memory_pool.memory_limit() {
                MemoryLimit::Finite(bytes) => Some(bytes),
                _ => panic!("{set}: the memory pool has no finite limit"),
            }
        };
        // The comparison is not empty: DataFusion refuses what it does not read.
        assert_eq!(datafusion("1T"), None, "DataFusion has no T");
        assert_eq!(datafusion("1MB"), None, "DataFusion has no B suffix");
        for number in ["1", "1.5", "256", "512", "0.25", "1000"] {
            for unit in ["K", "M", "G"] {
                let theirs = datafusion(&format!("{number}{unit}")).expect("DataFusion's form");
                let lower = unit.to_ascii_lowercase();
                for ours in [
                    format!("{number}{unit}"),
                    format!("{number}{unit}iB"),
                    format!("{number}{unit}B"),
                    format!("{number}{lower}b"),
                    format!("{number}{lower}"),
                    format!("{number} {unit}iB"),
                ] {
                    assert_eq!(parse_size(&ours), Some(theirs), "{ours}");
                }
            }
        }
        // The rule, stated in bytes.
        for mib in ["512M", "512MiB", "512MB", "512mb", "512m"] {
            assert_eq!(
                parse_size(mib),
                Some(512 << 20),
                "{mib}: binary, never 512 x 10^6"
            );
        }
        assert_eq!(parse_size("1T"), Some(1 << 40));
        assert_eq!(datafusion("0"), Some(0), "DataFusion takes 0");
        assert_eq!(parse_size("1000"), Some(1000));
        for bad in ["", "GiB", "1 PB", "-1G", "0"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
        // What --help shows is what it reads.
        for bytes in [
            crate::limits::DEFAULT_MEMORY_LIMIT,
            256 << 20,
            3 << 29,
            1000,
        ] {
            let shown = ByteSize(bytes).to_string();
            assert_eq!(parse_size(&shown), Some(bytes), "{shown}");
        }
        assert_eq!(
            ByteSize(crate::limits::DEFAULT_MEMORY_LIMIT).to_string(),
            "1GiB"
        );
    }
}
