//! The `check` and `lint` commands, run as the built binary: output formats and
//! documented exit codes.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{repo, scratch};

const ROBOTS: &str =
    "user-agent: *\ndisallow: /private\n\nuser-agent: GPTBot\ndisallow: /\nallow: /public\n";

/// Writes `body` to a fresh file in the test's scratch directory.
fn robots_file(test: &str, body: &[u8]) -> PathBuf {
    let path = scratch(test).join("robots.txt");
    std::fs::write(&path, body).expect("write robots.txt");
    path
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_robots-census"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run robots-census");
    let mut input = child.stdin.take().expect("stdin");
    // A process that exits early (usage error) may not read its input.
    let _ = input.write_all(stdin.unwrap_or_default());
    drop(input);
    child.wait_with_output().expect("wait for robots-census")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 scratch path")
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn check_text_disallowed_names_line_pattern_and_scope() {
    let file = robots_file("check_text_disallowed", ROBOTS.as_bytes());
    let out = run(
        &[
            "check",
            path_str(&file),
            "GPTBot",
            "https://x.com/private",
            "https://x.com/public/a",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        "DISALLOWED  GPTBot  https://x.com/private  line 5: disallow /  (named group)"
    );
    assert_eq!(
        lines[1],
        "ALLOWED     GPTBot  https://x.com/public/a  line 6: allow /public  (named group)"
    );
}

#[test]
fn check_text_all_allowed_exits_0() {
    let file = robots_file("check_text_allowed", ROBOTS.as_bytes());
    let out = run(
        &[
            "check",
            path_str(&file),
            "FooBot",
            "https://x.com/",
            "https://x.com/a",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().next(),
        Some("ALLOWED     FooBot  https://x.com/  no matching rule  ('*' group)")
    );
}

#[test]
fn check_no_group_scope() {
    let file = robots_file("check_no_group", b"user-agent: GPTBot\ndisallow: /\n");
    let out = run(&["check", path_str(&file), "FooBot", "/x"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("no matching rule  (no group)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn check_json_one_object_per_question() {
    let file = robots_file("check_json", ROBOTS.as_bytes());
    let out = run(
        &[
            "check",
            "--json",
            path_str(&file),
            "FooBot",
            "https://x.com/private/a",
            "https://x.com/",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let objects = json_lines(&out);
    assert_eq!(objects.len(), 2);
    let first = &objects[0];
    assert_eq!(first["agent"], "FooBot");
    assert_eq!(first["url"], "https://x.com/private/a");
    assert_eq!(first["allowed"], false);
    assert_eq!(first["line"], 2);
    assert_eq!(first["pattern"], "/private");
    assert_eq!(first["directive"], "disallow");
    assert_eq!(first["scope"], "star");
    let second = &objects[1];
    assert_eq!(second["allowed"], true);
    assert_eq!(second["line"], 0);
    assert!(second["pattern"].is_null() && second["directive"].is_null());
}

#[test]
fn check_json_carries_the_agent_s_ai_use_preferences() {
    // attach 3.2's example plus a Content-Signal before the groups (file-wide) and a
    // named group of its own for GPTBot.
    let body = "Content-Signal: ai-train=no, use=reference\nUser-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\nUser-agent: GPTBot\nContent-Signal: ai-train=yes\nContent-Usage: search=n\n";
    let file = robots_file("check_json_prefs", body.as_bytes());
    let out = run(
        &[
            "check",
            "--json",
            path_str(&file),
            "--agent",
            "AnyBot",
            "--agent",
            "GPTBot",
            "https://x.com/ai-ok/a",
            "https://x.com/never/a",
            "https://x.com/b",
        ],
        None,
    );
    let objects = json_lines(&out);
    let prefs: Vec<(String, String, Value)> = objects
        .iter()
        .map(|o| {
            (
                o["agent"].as_str().expect("agent").to_owned(),
                o["url"].as_str().expect("url").to_owned(),
                o["preferences"].clone(),
            )
        })
        .collect();
    let want = |train: Value, search: Value, signal: Value, mentioned: bool| {
        serde_json::json!({
            "usage_train_ai": train,
            "usage_search": search,
            "signal_ai_train": signal,
            "signal_ai_input": null,
            "signal_search": null,
            "signal_use": "reference",
            "mentioned": mentioned,
        })
    };
    let n = Value::Null;
    assert_eq!(
        prefs,
        [
            // `*`: the longer /ai-ok/ line wins; /never/ may not be crawled, so no
            // preference applies; elsewhere the pathless line.
            (
                "AnyBot".into(),
                "https://x.com/ai-ok/a".into(),
                want("y".into(), n.clone(), "no".into(), false)
            ),
            (
                "AnyBot".into(),
                "https://x.com/never/a".into(),
                want(n.clone(), n.clone(), "no".into(), false)
            ),
            (
                "AnyBot".into(),
                "https://x.com/b".into(),
                want("n".into(), n.clone(), "no".into(), false)
            ),
            // GPTBot's own group: its lines only, its ai-train=yes over the file-wide no.
            (
                "GPTBot".into(),
                "https://x.com/ai-ok/a".into(),
                want(n.clone(), "n".into(), "yes".into(), true)
            ),
            (
                "GPTBot".into(),
                "https://x.com/never/a".into(),
                want(n.clone(), "n".into(), "yes".into(), true)
            ),
            (
                "GPTBot".into(),
                "https://x.com/b".into(),
                want(n.clone(), "n".into(), "yes".into(), true)
            ),
        ]
    );
}

#[test]
fn check_several_agents_each_url() {
    let file = robots_file("check_agents", ROBOTS.as_bytes());
    let args = [
        "check",
        "--json",
        "--agent",
        "GPTBot",
        "--agent",
        "FooBot",
        path_str(&file),
        "/private",
        "/public",
    ];
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(1));
    let answers: Vec<(String, String, bool)> = json_lines(&out)
        .iter()
        .map(|o| {
            (
                o["agent"].as_str().unwrap_or_default().to_owned(),
                o["url"].as_str().unwrap_or_default().to_owned(),
                o["allowed"] == true,
            )
        })
        .collect();
    let expected = [
        ("GPTBot", "/private", false),
        ("GPTBot", "/public", true),
        ("FooBot", "/private", false),
        ("FooBot", "/public", true),
    ];
    let expected: Vec<(String, String, bool)> = expected
        .iter()
        .map(|(a, u, ok)| (a.to_string(), u.to_string(), *ok))
        .collect();
    assert_eq!(answers, expected);
}

#[test]
fn check_reads_stdin() {
    let out = run(
        &["check", "-", "FooBot", "/private"],
        Some(ROBOTS.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("DISALLOWED  FooBot  /private  line 2: disallow /private"));
}

#[test]
fn check_missing_file_exits_2_naming_the_path() {
    let missing = scratch("check_missing").join("no-such-robots.txt");
    let out = run(&["check", path_str(&missing), "FooBot", "/"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(path_str(&missing)),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn check_usage_errors_exit_2() {
    let file = robots_file("check_usage", ROBOTS.as_bytes());
    // An agent but no URL.
    assert_eq!(
        run(&["check", path_str(&file), "FooBot"], None)
            .status
            .code(),
        Some(2)
    );
    // Nothing at all.
    assert_eq!(run(&["check"], None).status.code(), Some(2));
    assert_eq!(
        run(&["check", "--bogus", path_str(&file), "a", "/"], None)
            .status
            .code(),
        Some(2)
    );
}

/// The exit codes of `src/cli/exit.rs`, the source of truth: `Variant = N` in
/// `enum Exit`, variant name -> number.
fn exit_codes() -> BTreeMap<String, u8> {
    let source =
        std::fs::read_to_string(repo().join("src/cli/exit.rs")).expect("read src/cli/exit.rs");
    let body = source
        .split("pub enum Exit {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("enum Exit in src/cli/exit.rs");
    let variant = regex::Regex::new(r"(?m)^\s*([A-Z]\w*)\s*=\s*(\d+)\s*,").expect("regex");
    let codes: BTreeMap<String, u8> = variant
        .captures_iter(body)
        .map(|c| (c[1].to_owned(), c[2].parse().expect("exit code")))
        .collect();
    assert!(
        codes.len() >= 2,
        "no `Variant = N,` lines read from enum Exit: {codes:?}"
    );
    codes
}

/// What each function of `src/cli/commands.rs` and `src/cli/exit.rs` can end with:
/// function name -> (the `Exit` variants its body names, the functions of these files
/// it calls). Path-qualified calls (`pipeline::run(...)`) and method calls are other
/// modules' functions and are not followed; `Exit::findings_unless(...)` is.
fn exits_by_function(variants: &BTreeMap<String, u8>) -> BTreeMap<String, [BTreeSet<String>; 2]> {
    let function = regex::Regex::new(r"\bfn\s+(\w+)\s*[<(]").expect("regex");
    let named = regex::Regex::new(r"\bExit::(\w+)").expect("regex");
    let called = regex::Regex::new(r"\b(\w+)\(").expect("regex");
    let mut bodies: Vec<(String, String)> = Vec::new();
    for file in ["src/cli/commands.rs", "src/cli/exit.rs"] {
        let source = std::fs::read_to_string(repo().join(file)).expect("read source");
        // Comments name functions and codes without calling or returning them.
        let source: String = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let starts: Vec<(usize, String)> = function
            .captures_iter(&source)
            .map(|c| (c.get(0).expect("match").start(), c[1].to_owned()))
            .collect();
        for (k, (start, name)) in starts.iter().enumerate() {
            let end = starts.get(k + 1).map_or(source.len(), |(s, _)| *s);
            bodies.push((name.clone(), source[*start..end].to_owned()));
        }
    }
    let names: BTreeSet<String> = bodies.iter().map(|(n, _)| n.clone()).collect();
    let mut functions: BTreeMap<String, [BTreeSet<String>; 2]> = BTreeMap::new();
    // A name defined twice (`#[cfg]` alternatives) can end as either.
    for (name, body) in &bodies {
        let [ends, calls] = functions.entry(name.clone()).or_default();
        for c in named.captures_iter(body) {
            if variants.contains_key(&c[1]) {
                ends.insert(c[1].to_owned());
            } else if names.contains(&c[1]) {
                calls.insert(c[1].to_owned());
            }
        }
        // The body starts with its own `fn name(`: not a call.
        let after_signature = body.find('(').map_or("", |i| &body[i..]);
        for c in called.captures_iter(after_signature) {
            let start = c.get(1).expect("name").start();
            let qualified = after_signature[..start].ends_with(&[':', '.'][..]);
            if !qualified && names.contains(&c[1]) && c[1] != *name {
                calls.insert(c[1].to_owned());
            }
        }
    }
    functions
}

/// The `Exit` variants `name` can end with, following its calls.
fn exits_of(name: &str, functions: &BTreeMap<String, [BTreeSet<String>; 2]>) -> BTreeSet<String> {
    let mut ends = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_owned()];
    while let Some(f) = todo.pop() {
        if !seen.insert(f.clone()) {
            continue;
        }
        if let Some([e, calls]) = functions.get(&f) {
            ends.extend(e.iter().cloned());
            todo.extend(calls.iter().cloned());
        }
    }
    ends
}

/// The commands `robots-census --help` lists (without `help`).
fn commands() -> Vec<String> {
    let out = run(&["--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let listed = crate::docs::commands(&text);
    assert!(listed.len() >= 2, "no commands in --help:\n{text}");
    listed
}

/// The `Exit codes:` listing of a --help text, code -> meaning (continuation lines
/// joined), in the order listed; None when there is none.
fn exit_listing(help: &str) -> Option<Result<Vec<(u8, String)>, String>> {
    let mut lines = help.lines().skip_while(|l| l.trim_end() != "Exit codes:");
    lines.next()?;
    let mut entries: Vec<(u8, String)> = Vec::new();
    for line in lines.take_while(|l| !l.trim().is_empty()) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim();
        let (first, rest) = text.split_once(' ').unwrap_or((text, ""));
        match (indent, first.parse::<u8>(), entries.last_mut()) {
            (2, Ok(code), _) => entries.push((code, rest.trim().to_owned())),
            (3.., Err(_), Some((_, meaning))) => {
                meaning.push(' ');
                meaning.push_str(text);
            }
            _ => return Some(Err(format!("not a line of the listing: {line:?}"))),
        }
    }
    Some(Ok(entries))
}

/// Commands whose --help has no `Exit codes:` listing (`agents` ends 0, or 2 when it
/// cannot write its list). Adding a listing to one of them fails the test until it
/// leaves this list, so the listing is checked.
const WITHOUT_EXIT_LISTING: &[&str] = &["agents"];

/// Every command's --help lists exactly the exit codes the command can end with, each
/// with its number (as `src/cli/exit.rs` defines it) and a meaning: what
/// `src/cli/commands.rs` returns from the command (its body and the functions of the
/// command layer it calls), and 2 for a usage error (clap's, which the binary is run
/// with to see it).
#[test]
fn help_documents_every_exit_code_each_command_can_end_with() {
    let variants = exit_codes();
    let name_of: BTreeMap<u8, &str> = variants.iter().map(|(n, c)| (*c, n.as_str())).collect();
    let functions = exits_by_function(&variants);
    let mut failures = Vec::new();
    let mut returned = BTreeSet::new();
    let mut without_listing = Vec::new();
    for command in commands() {
        if !functions.contains_key(&command) {
            failures.push(format!(
                "{command}: no `fn {command}` in src/cli/commands.rs to read its exit codes from"
            ));
            continue;
        }
        let mut ends = exits_of(&command, &functions);
        // A usage error is clap's, before the command runs: see its code.
        let usage = run(&[&command, "--no-such-option"], None);
        let usage_code = usage.status.code().expect("exit code");
        match u8::try_from(usage_code).ok().and_then(|c| name_of.get(&c)) {
            Some(name) => {
                ends.insert((*name).to_owned());
            }
            _ => failures.push(format!(
                "{command}: a usage error exits {usage_code}, no code of src/cli/exit.rs"
            )),
        }
        returned.extend(ends.iter().cloned());
        let help = run(&[&command, "--help"], None);
        assert_eq!(help.status.code(), Some(0), "{command} --help");
        let help = stdout(&help);
        let listing = match exit_listing(&help) {
            None => {
                without_listing.push(command);
                continue;
            }
            Some(Err(e)) => {
                failures.push(format!("{command} --help: {e}"));
                continue;
            }
            Some(Ok(listing)) => listing,
        };
        let listed: Vec<u8> = listing.iter().map(|(code, _)| *code).collect();
        if !listed.is_sorted() || listed.iter().collect::<BTreeSet<_>>().len() != listed.len() {
            failures.push(format!(
                "{command} --help: codes out of order or repeated: {listed:?}"
            ));
        }
        for (code, meaning) in &listing {
            match name_of.get(code) {
                None => failures.push(format!(
                    "{command} --help lists {code}, which is no exit code of src/cli/exit.rs ({variants:?})"
                )),
                Some(name) if !ends.contains(*name) => failures.push(format!(
                    "{command} --help lists {code} ({name}), which the command never ends with"
                )),
                Some(_) => {}
            }
            if meaning.split_whitespace().count() < 2 {
                failures.push(format!(
                    "{command} --help: {code} has no meaning: {meaning:?}"
                ));
            }
        }
        for name in &ends {
            let code = variants[name];
            if !listed.contains(&code) {
                failures.push(format!(
                    "{command} can exit {code} ({name}), which its --help does not list:\n{help}"
                ));
            }
        }
    }
    if without_listing != WITHOUT_EXIT_LISTING {
        failures.push(format!(
            "commands without an `Exit codes:` listing: {without_listing:?}, expected {WITHOUT_EXIT_LISTING:?}"
        ));
    }
    // Every code is one some command ends with (else the reading above missed it).
    for (name, code) in &variants {
        if !returned.contains(name) {
            failures.push(format!("no command was found to end with {code} ({name})"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_non_utf8_pattern_printed_lossily() {
    let file = robots_file("check_lossy", b"user-agent: *\ndisallow: /caf\xE9\n");
    let out = run(
        &["check", "--json", path_str(&file), "FooBot", "/caf%E9"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_lines(&out)[0]["pattern"], "/caf%E9");
}

#[test]
fn lint_text_sorted_with_summary() {
    let body = "disallow: /x\nuser-agent: Googlebot/2.1\ncrawl-delay: 5\n";
    let file = robots_file("lint_text", body.as_bytes());
    let out = run(&["lint", path_str(&file)], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("line 1  error  rule_outside_group  "),
        "{text}"
    );
    assert!(lines[0].ends_with("  | disallow: /x"), "{text}");
    assert!(
        lines[1].starts_with("line 2  warning  user_agent_not_product_token  "),
        "{text}"
    );
    assert!(
        lines[2].starts_with("line 3  info  ignored_by_google  "),
        "{text}"
    );
    assert!(
        stderr(&out).contains("3 findings (1 errors, 1 warnings, 1 info)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn lint_json_one_object_per_finding() {
    let file = robots_file("lint_json", b"user-agent: *\ndisallow /x\n");
    let out = run(&["lint", "--json", path_str(&file)], None);
    assert_eq!(out.status.code(), Some(1));
    let objects = json_lines(&out);
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["line"], 2);
    assert_eq!(objects[0]["severity"], "warning");
    assert_eq!(objects[0]["code"], "missing_colon");
    assert_eq!(objects[0]["excerpt"], "disallow /x");
    assert!(objects[0]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
}

#[test]
fn lint_info_only_exits_0() {
    let file = robots_file("lint_info", b"user-agent: *\ndisallow: /\n");
    let out = run(&["lint", path_str(&file)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("star_disallows_all"));
    let clean = run(&["lint", "-"], Some(b"user-agent: *\ndisallow: /private\n"));
    assert_eq!(clean.status.code(), Some(0));
    assert!(stdout(&clean).is_empty());
}

#[test]
fn lint_missing_file_exits_2() {
    let missing = scratch("lint_missing").join("absent.txt");
    let out = run(&["lint", path_str(&missing)], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(path_str(&missing)),
        "{}",
        stderr(&out)
    );
}
