//! The `check` and `lint` commands, run as the built binary: output formats and
//! documented exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::scratch;

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

#[test]
fn check_help_documents_exit_codes() {
    let out = run(&["check", "--help"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("Exit codes:"), "{}", stdout(&out));
    let lint = run(&["lint", "--help"], None);
    assert!(stdout(&lint).contains("Exit codes:"), "{}", stdout(&lint));
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
