//! One function per command: options from the command line, the step, what it
//! printed, and the [`Exit`] code. Every message to the user about how a command
//! ended is written here.

use std::io::{Read, Write};
use std::path::Path;

use super::args::{
    AgentsArgs, AuditArgs, ChangesArgs, CheckArgs, LintArgs, QueryArgs, ReportArgs, RunArgs,
    SitesArgs, StatusArgs,
};
use super::Exit;
use crate::config::RunConfig;
use crate::output::{dataset, OutTarget};
use crate::pipeline::{self, PipelineError, INTERRUPTED};
use crate::store::StoreOptions;
use robots_census_engine::RobotsTxt;

/// Prints why the command ends, and ends it with `exit`.
fn fail(exit: Exit, message: impl std::fmt::Display) -> Exit {
    eprintln!("robots-census: {message}");
    exit
}

pub fn run(args: &RunArgs) -> Exit {
    if let Err(e) =
        ctrlc::set_handler(|| INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed))
    {
        eprintln!("robots-census: warning: cannot install the Ctrl-C / SIGTERM handler: {e}");
    }
    match run_checked(args) {
        Ok(exit) => exit,
        Err((exit, message)) => fail(exit, message),
    }
}

/// The run command, returning instead of printing why it failed (exit 2 or 130, and
/// the message), for callers that raise it (the Python module).
pub fn run_checked(args: &RunArgs) -> Result<Exit, (Exit, String)> {
    let config = args
        .options()
        .and_then(|options| RunConfig::resolve(&options))
        .map_err(|e| (Exit::Usage, e.to_string()))?;
    if args.plan {
        return Ok(plan(&config));
    }
    match pipeline::run(&config) {
        Ok(summary) => {
            if !config.quiet {
                eprint!("{}", summary.render());
            }
            Ok(match (summary.had_problems(), config.strict) {
                (false, _) => Exit::Success,
                // Worth running again: engines retry on 75 (EX_TEMPFAIL).
                _ if summary.had_transient_failures() => Exit::TempFail,
                (true, false) => Exit::Findings,
                (true, true) => Exit::Usage,
            })
        }
        Err(PipelineError::Interrupted) => Err((
            Exit::Interrupted,
            "interrupted; completed tasks are kept, rerun with --resume to continue".to_owned(),
        )),
        Err(e) => Err((Exit::Usage, e.to_string())),
    }
}

/// `run --plan`: the task list as JSON lines (see `RunArgs::plan`), for engines that
/// run one task per worker. Nothing is read or written but stdout.
fn plan(config: &RunConfig) -> Exit {
    let tasks = dataset::plan_tasks(&config.inputs, config.inputs_per_task);
    let header = serde_json::json!({
        "tasks": tasks.len(),
        "inputs": config.inputs.len(),
        "inputs_per_task": config.inputs_per_task,
        "fingerprint": config.settings.fingerprint(),
        "out": config.out.to_string(),
    });
    let mut lines = vec![header.to_string()];
    lines.extend(
        tasks
            .iter()
            .filter(|t| config.shard.is_none_or(|(i, n)| t.index % n == i))
            .map(|t| {
                serde_json::json!({"index": t.index, "name": t.name, "inputs": t.inputs})
                    .to_string()
            }),
    );
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{}", lines.join("\n")).and_then(|()| stdout.flush()) {
        Ok(()) => Exit::Success,
        Err(e) => fail(Exit::Usage, format!("cannot write the plan: {e}")),
    }
}

/// The whole robots.txt file, or stdin for `-`.
fn read_body(path: &Path) -> Result<Vec<u8>, String> {
    let read = if path == Path::new("-") {
        let mut body = Vec::new();
        std::io::stdin().lock().read_to_end(&mut body).map(|_| body)
    } else {
        std::fs::read(path)
    };
    read.map_err(|e| format!("cannot read {}: {e}", path.display()))
}

pub fn check(args: &CheckArgs) -> Exit {
    let options = match args.options() {
        Ok(options) => options,
        Err(e) => return fail(Exit::Usage, e),
    };
    let body = match read_body(&args.robots_file) {
        Ok(body) => body,
        Err(e) => return fail(Exit::Usage, e),
    };
    match crate::check::check(&body, &options, &mut std::io::stdout().lock()) {
        Ok(all_allowed) => Exit::findings_unless(all_allowed),
        Err(e) => fail(Exit::Usage, e),
    }
}

/// `agents`: the bundled default list, or its AI part, as an `--agents @FILE` file.
pub fn agents(args: &AgentsArgs) -> Exit {
    let text = if args.ai {
        let mut text = String::from("# The AI crawlers of robots-census's default list.\n");
        for agent in crate::verdicts::default_ai_agents() {
            text += &agent;
            text.push('\n');
        }
        text
    } else {
        crate::verdicts::DEFAULT_AGENTS.to_owned()
    };
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Exit::Success,
        // A reader that stopped early (`| head`) wanted no more.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Success,
        Err(e) => fail(Exit::Usage, format!("cannot write the agent list: {e}")),
    }
}

pub fn lint(args: &LintArgs) -> Exit {
    let body = match read_body(&args.robots_file) {
        Ok(body) => body,
        Err(e) => return fail(Exit::Usage, e),
    };
    let doc = RobotsTxt::parse(&body);
    match crate::check::lint(&doc, args.json, &mut std::io::stdout().lock()) {
        Ok(counts) => {
            eprintln!(
                "{}: {} findings ({} errors, {} warnings, {} info)",
                args.robots_file.display(),
                counts.total(),
                counts.errors,
                counts.warnings,
                counts.infos
            );
            Exit::findings_unless(counts.errors + counts.warnings == 0)
        }
        Err(e) => fail(Exit::Usage, e),
    }
}

pub fn audit(args: &AuditArgs) -> Exit {
    let body = match read_body(&args.robots_file) {
        Ok(body) => body,
        Err(e) => return fail(Exit::Usage, e),
    };
    let doc = RobotsTxt::parse(&body);
    let name = args.robots_file.display().to_string();
    let audit = crate::audit::audit(&name, &body, &doc, &args.options());
    print!("{}", crate::audit::render_text(&audit));
    if let Some(path) = &args.html {
        let page = crate::audit::render_html(&audit);
        if let Err(e) = dataset::write_atomic(path, page.as_bytes()) {
            return fail(Exit::Usage, e);
        }
    }
    Exit::Success
}

pub fn status(args: &StatusArgs) -> Exit {
    let found = OutTarget::parse(&args.out, StoreOptions::default(), None)
        .map_err(|e| e.to_string())
        .and_then(|out| crate::status::dataset_status(&out).map(|status| (out, status)));
    let (out, status) = match found {
        Ok(found) => found,
        Err(e) => return fail(Exit::Usage, e),
    };
    if let Some(step) = args.step {
        return step_status(&out, step, args.json);
    }
    if args.json {
        println!("{}", status.to_json());
    } else {
        print!("{}", crate::status::render(&status));
    }
    if !status.complete {
        if !args.json {
            println!("incomplete");
        }
        return Exit::Findings;
    }
    if let Err(e) = crate::status::mark_complete(&out, &status) {
        return fail(Exit::Usage, e);
    }
    if !args.json {
        println!("complete: _SUCCESS written");
    }
    Exit::Success
}

/// `status --step`: the step's report; `<OUT>/<step>/_SUCCESS` once complete.
fn step_status(out: &OutTarget, step: crate::status::Step, json: bool) -> Exit {
    let status = match crate::status::step_status(out, step) {
        Ok(status) => status,
        Err(e) => return fail(Exit::Usage, e),
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&status).unwrap_or_default()
        );
    } else {
        print!("{}", crate::status::render_step(&status));
    }
    if !status.complete {
        if !json {
            println!("incomplete");
        }
        return Exit::Findings;
    }
    if let Err(e) = crate::status::mark_step_complete(out, &status) {
        return fail(Exit::Usage, e);
    }
    if !json {
        println!("complete: {}/_SUCCESS written", status.step);
    }
    Exit::Success
}

pub fn sites(args: &SitesArgs) -> Exit {
    let options = match args.options() {
        Ok(options) => options,
        Err(e) => return fail(Exit::Usage, e),
    };
    match crate::sites::run(&options) {
        Ok(report) => {
            for warning in &report.warnings {
                eprintln!("robots-census: warning: {warning}");
            }
            if !args.quiet {
                eprint!("{}", report.render());
            }
            Exit::findings_unless(report.warnings.is_empty())
        }
        Err(e) => fail(Exit::Usage, e),
    }
}

pub fn changes(args: &ChangesArgs) -> Exit {
    let options = match args.options() {
        Ok(options) => options,
        Err(e) => return fail(Exit::Usage, e),
    };
    match crate::changes::run(&options) {
        Ok(done) => {
            for (summary, path) in done {
                if args.json {
                    match serde_json::to_string(&summary) {
                        Ok(json) => println!("{json}"),
                        Err(e) => return fail(Exit::Usage, e),
                    }
                } else if !args.quiet {
                    print!("{}", summary.render());
                    eprintln!("wrote {path}");
                }
            }
            Exit::Success
        }
        Err(e) => fail(Exit::Usage, e),
    }
}

pub fn query(args: &QueryArgs) -> Exit {
    match query_checked(args) {
        Ok(()) => Exit::Success,
        Err(message) => fail(Exit::Usage, message),
    }
}

/// A binary built without the study engine (`make run`'s): says how to get it.
#[cfg(not(feature = "study"))]
fn query_checked(_args: &QueryArgs) -> Result<(), String> {
    Err(
        "this binary was built without the study engine (cargo feature `study`, on by \
         default; `make run` leaves it out to build faster): build it with `make build` \
         or `cargo build --release`, then run target/release/robots-census query"
            .to_owned(),
    )
}

#[cfg(feature = "study")]
fn query_checked(args: &QueryArgs) -> Result<(), String> {
    let options = args.options();
    let (sql, name) = match (&args.execute, &args.file) {
        (Some(sql), _) => (sql.clone(), "-e".to_owned()),
        (None, Some(path)) if path.as_os_str() == "-" => {
            let mut sql = String::new();
            std::io::stdin()
                .read_to_string(&mut sql)
                .map_err(|e| format!("<stdin>: {e}"))?;
            (sql, "<stdin>".to_owned())
        }
        (None, Some(path)) => (
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
            path.display().to_string(),
        ),
        (None, None) => return Err("give a FILE.sql or -e SQL".to_owned()),
    };
    let out =
        OutTarget::parse(&args.out, StoreOptions::default(), None).map_err(|e| e.to_string())?;
    let catalog = crate::output::catalog::Catalog::open(&out).map_err(|e| e.to_string())?;
    let engine = crate::study::Engine::open(&catalog, &options).map_err(|e| e.to_string())?;
    let results = engine.run(&sql, &name).map_err(|e| e.to_string())?;
    crate::study::write_results(results, args.format(), args.output.as_deref())
        .map(|_rows| ())
        .map_err(|e| e.to_string())
}

/// A binary built without the study engine: the report runs queries on it.
#[cfg(not(feature = "study"))]
pub fn report(_args: &ReportArgs) -> Exit {
    fail(
        Exit::Usage,
        "this binary was built without the study engine, which runs the report's queries \
         (cargo feature `study`, on by default; `make run` leaves it out to build faster): \
         build it with `make build` or `cargo build --release`",
    )
}

#[cfg(feature = "study")]
pub fn report(args: &ReportArgs) -> Exit {
    match crate::report::build(&args.options()) {
        Ok(summary) => {
            for warning in &summary.warnings {
                eprintln!("robots-census: warning: {warning}");
            }
            for caveat in &summary.caveats {
                eprintln!("robots-census: note: {caveat}");
            }
            if !args.quiet {
                eprintln!(
                    "{}: {} crawl(s), {} bytes{}",
                    args.output.display(),
                    summary.crawls,
                    summary.bytes,
                    if summary.ran_sites {
                        " (sites step run first)"
                    } else {
                        ""
                    }
                );
            }
            Exit::findings_unless(summary.warnings.is_empty())
        }
        Err(e) => fail(Exit::Usage, e),
    }
}
