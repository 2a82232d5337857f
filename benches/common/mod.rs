//! Shared plumbing of the bench programs: arguments, the corpus, timing, JSON output.
//!
//! Every bench program loads its inputs into memory first, then times only the work,
//! repeats it `--reps` times and prints one JSON line per engine with the median seconds.
//! `scripts/bench.py` reads those lines and builds the results table.

#![allow(dead_code)] // each bench program uses a different subset

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Google's production cap on a robots.txt body: bytes past this are never parsed.
pub const GOOGLE_BODY_CAP: usize = 512_000;

/// `--name value` options of a bench program, with defaults.
pub struct Args {
    pub shared: PathBuf,
    pub questions: PathBuf,
    pub reps: usize,
    pub every: usize,
}

impl Args {
    /// Reads `--shared`, `--questions`, `--reps`, `--every`; ignores `--bench`, which
    /// `cargo bench` passes to every bench program.
    pub fn parse() -> Result<Args, String> {
        let mut args = Args {
            shared: PathBuf::from("../shared"),
            questions: PathBuf::from("bench-out/questions.tsv"),
            reps: 3,
            every: 20,
        };
        let mut it = std::env::args_os().skip(1);
        while let Some(flag) = it.next() {
            let flag = flag.to_string_lossy().into_owned();
            if flag == "--bench" {
                continue;
            }
            let value: OsString = it.next().ok_or(format!("{flag} needs a value"))?;
            match flag.as_str() {
                "--shared" => args.shared = value.into(),
                "--questions" => args.questions = value.into(),
                "--reps" => args.reps = number(&value)?,
                "--every" => args.every = number(&value)?.max(1),
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        Ok(args)
    }
}

fn number(value: &OsString) -> Result<usize, String> {
    value
        .to_string_lossy()
        .parse()
        .map_err(|e| format!("{value:?}: {e}"))
}

/// Every `*.txt` under `<shared>/corpus/robots`, as (relative path, body cut at 512,000
/// bytes), sorted by path so every run sees the same order.
pub fn load_corpus(shared: &Path) -> io::Result<Vec<(String, Vec<u8>)>> {
    let root = shared.join("corpus").join("robots");
    let mut files = Vec::new();
    walk(&root, &mut files)?;
    files.sort();
    let mut corpus = Vec::with_capacity(files.len());
    for path in files {
        let mut body = fs::read(&path)?;
        body.truncate(GOOGLE_BODY_CAP);
        let rel = path.strip_prefix(&root).unwrap_or(&path);
        corpus.push((rel.to_string_lossy().into_owned(), body));
    }
    if corpus.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no robots.txt bodies under {}", root.display()),
        ));
    }
    Ok(corpus)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "txt") {
            out.push(path);
        }
    }
    Ok(())
}

/// One document of the verdict benchmark: its body and the 5 URLs to ask about.
pub struct Questions {
    pub agents: Vec<String>,
    pub docs: Vec<(Vec<u8>, Vec<String>)>,
}

/// Reads `questions.tsv` (written by `scripts/make_bench_corpus.py`): a header
/// `#agents<TAB>a1<TAB>...`, then `<path under corpus/robots><TAB>url1<TAB>...` lines.
pub fn load_questions(path: &Path, shared: &Path) -> io::Result<Questions> {
    let text = fs::read_to_string(path)?;
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let agents: Vec<String> = header.split('\t').skip(1).map(str::to_owned).collect();
    let root = shared.join("corpus").join("robots");
    let mut docs = Vec::new();
    for line in lines {
        let mut fields = line.split('\t');
        let Some(rel) = fields.next() else { continue };
        let mut body = fs::read(root.join(rel))?;
        body.truncate(GOOGLE_BODY_CAP);
        docs.push((body, fields.map(str::to_owned).collect()));
    }
    Ok(Questions { agents, docs })
}

/// Runs `work` `reps` times; returns the median wall time in seconds and the last result.
pub fn median_secs<T>(reps: usize, mut work: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(reps.max(1));
    let mut result = work_timed(&mut work, &mut times);
    for _ in 1..reps {
        result = work_timed(&mut work, &mut times);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], result)
}

fn work_timed<T>(work: &mut impl FnMut() -> T, times: &mut Vec<f64>) -> T {
    let start = Instant::now();
    let result = std::hint::black_box(work());
    times.push(start.elapsed().as_secs_f64());
    result
}

/// Prints one result line for `scripts/bench.py`.
pub fn emit(record: serde_json::Value) {
    println!("{record}");
}
