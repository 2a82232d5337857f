//! The dataset on disk: which tasks a run has, what a finished task left behind,
//! and the commit protocol that makes retries, resumes and duplicates harmless.
//!
//! ```text
//! <out>/_dataset.json                          settings fingerprint + task count (first run writes it)
//! <out>/<table>/crawl=<CRAWL>/<task>.parquet   one part per (table, crawl) a task touched
//! <out>/_manifests/<task>.json                 written last: its presence means the task is done
//! ```
//!
//! A task is K consecutive inputs of the sorted input list. Its name, its parts and
//! their bytes depend only on the inputs and the settings, never on threads, timing or
//! the machine, so two runs of the same task write identical files. Parts are written
//! under temporary names unique to the writing process, fsynced, and renamed into
//! place; the manifest comes last. A task whose manifest is missing is not done,
//! whatever parts exist, and rerunning it replaces them with the same bytes.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{io_err, OutputError, Table};

/// Version of the output layout and manifests; part of the fingerprint.
pub const FORMAT_VERSION: u32 = 2;

/// `<out>/_manifests/`: one JSON manifest per finished task.
pub const MANIFEST_DIR: &str = "_manifests";
/// `<out>/_dataset.json`: the settings every task of the dataset was made with.
pub const DATASET_FILE: &str = "_dataset.json";
/// `<out>/_SUCCESS`: written by `robots-census status` once every task is done.
pub const SUCCESS_FILE: &str = "_SUCCESS";

/// Most part files per table for one crawl by default: a 90,000-file Common Crawl
/// crawl becomes 1,500 tasks of 60 inputs, so analysts' engines open 1,500 files per
/// table, not 90,000 small ones.
pub const TARGET_TASKS: usize = 1500;

/// Inputs per task when `--inputs-per-task` is not given: the smallest K that keeps
/// the run at or under [`TARGET_TASKS`] tasks. Small runs get one task per input.
pub fn default_inputs_per_task(inputs: usize) -> usize {
    inputs.div_ceil(TARGET_TASKS).max(1)
}

/// One task: its index in the run, its stable name and its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub index: usize,
    pub name: String,
    pub inputs: Vec<String>,
}

/// Splits the (sorted, deduplicated) input list into tasks of `per_task` inputs.
/// Names are `task-<index>-<8 hex of SHA-1 of the task's inputs>`, so a list that
/// changes gives different names rather than silently mixing rows.
pub fn plan_tasks(inputs: &[String], per_task: usize) -> Vec<Task> {
    inputs
        .chunks(per_task.max(1))
        .enumerate()
        .map(|(index, chunk)| Task {
            index,
            name: format!("task-{index:05}-{}", short_hash(chunk.iter())),
            inputs: chunk.to_vec(),
        })
        .collect()
}

fn short_hash<'a>(items: impl Iterator<Item = &'a String>) -> String {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    for item in items {
        h.update(item.as_bytes());
        h.update(b"\n");
    }
    h.finalize()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Everything that changes the rows of a dataset, by name. Two runs with equal
/// settings write identical tasks; `--resume` under different settings is refused
/// and the differing names are reported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings(pub BTreeMap<String, String>);

impl Settings {
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.0.insert(key.to_owned(), value.into());
    }

    /// A short hash of all settings (in every manifest).
    pub fn fingerprint(&self) -> String {
        use sha1::Digest;
        let mut h = sha1::Sha1::new();
        for (k, v) in &self.0 {
            h.update(k.as_bytes());
            h.update([0]);
            h.update(v.as_bytes());
            h.update([0]);
        }
        h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The names whose values differ between `self` and `other`.
    pub fn differences(&self, other: &Settings) -> Vec<String> {
        let mut keys: Vec<&String> = self.0.keys().chain(other.0.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter(|k| self.0.get(*k) != other.0.get(*k))
            .cloned()
            .collect()
    }

    /// A hash of a long value (an input list, a URL list) to store instead of it.
    pub fn digest_of<'a>(items: impl Iterator<Item = &'a String>) -> String {
        short_hash(items)
    }
}

/// `<out>/_dataset.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DatasetMeta {
    pub format_version: u32,
    pub fingerprint: String,
    pub settings: Settings,
    pub tasks: usize,
    pub inputs: usize,
}

/// What one input held: part of its task's manifest.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct InputReport {
    pub source: String,
    pub crawl: String,
    pub bytes: u64,
    pub records_seen: u64,
    pub documents: u64,
    pub skipped: BTreeMap<String, u64>,
    pub problems: u64,
    /// Warnings on captures that still became documents.
    pub warnings: u64,
    pub findings: u64,
    /// The input could not be opened or read at all.
    pub unreadable: bool,
    /// Reading failed for a reason worth retrying (network retries exhausted):
    /// `--resume` runs the task again.
    pub transient: bool,
    #[serde(skip)]
    pub resumed: bool,
}

impl InputReport {
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// One part file a task wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartFile {
    pub table: String,
    pub crawl: String,
    /// Relative to the dataset root.
    pub path: String,
    pub rows: u64,
}

/// `<out>/_manifests/<task>.json`, written when every part of the task is in place.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskManifest {
    pub format_version: u32,
    pub task: String,
    pub index: usize,
    pub fingerprint: String,
    pub inputs: Vec<InputReport>,
    pub rows: BTreeMap<String, u64>,
    pub files: Vec<PartFile>,
}

impl TaskManifest {
    /// Whether `--resume` must run this task again.
    pub fn needs_retry(&self) -> bool {
        self.inputs.iter().any(|i| i.transient)
    }
}

/// The Hive partition directory of a crawl: `crawl=<value>`, with characters that
/// are unsafe in a path replaced (the value itself stays intact in the `crawl` column).
pub fn partition_dir(crawl: &str) -> String {
    let safe: String = crawl
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("crawl={safe}")
}

/// Where a task's part of `table` for `crawl` lives, relative to the dataset root.
pub fn part_path(table: Table, crawl: &str, task: &str) -> PathBuf {
    Path::new(table.name())
        .join(partition_dir(crawl))
        .join(format!("{task}.parquet"))
}

/// The manifest path of a task.
pub fn manifest_path(out: &Path, task: &str) -> PathBuf {
    out.join(MANIFEST_DIR).join(format!("{task}.json"))
}

/// A temporary name beside `path`, unique to this process: `.<name>.<pid>-<nonce>.tmp`.
/// Two processes writing the same task (a speculative duplicate, a second `--resume`)
/// never write into one file; the one that renames last wins, with the same bytes.
pub fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NONCE: AtomicU64 = AtomicU64::new(0);
    let n = NONCE.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// The writing process of a temporary file, from its name.
pub(crate) fn temp_owner(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".tmp")?;
    let (_, tail) = stem.rsplit_once('.')?;
    tail.split_once('-')?.0.parse().ok()
}

/// Writes `contents` to `path` atomically: a unique temporary name, fsync, rename,
/// then fsync of the directory so the rename itself survives a crash.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = temp_path(path);
    let result = File::create(&tmp)
        .and_then(|mut file| {
            file.write_all(contents)?;
            file.sync_all()
        })
        .map_err(io_err(&tmp))
        .and_then(|()| fs::rename(&tmp, path).map_err(io_err(path)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(dir)
}

/// fsyncs a directory (its entries: renames and creations).
pub fn sync_dir(dir: &Path) -> Result<(), OutputError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// Reads a finished task's manifest; `None` when missing or unreadable (not done).
pub fn read_manifest(out: &Path, task: &str) -> Option<TaskManifest> {
    let bytes = fs::read(manifest_path(out, task)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Reads `<out>/_dataset.json`, if any.
pub fn read_meta(out: &Path) -> Result<Option<DatasetMeta>, String> {
    let path = out.join(DATASET_FILE);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Removes temporary files left by processes of this machine that no longer run
/// (a killed run). Temporaries of live processes (another shard, a speculative
/// duplicate) are left alone. Returns how many were removed.
pub fn remove_leftovers(out: &Path) -> std::io::Result<usize> {
    let mut removed = 0;
    let dirs = Table::ALL
        .iter()
        .map(|t| out.join(t.name()))
        .chain([out.join(MANIFEST_DIR), out.to_owned()]);
    for dir in dirs {
        for entry in walkdir::WalkDir::new(&dir)
            .max_depth(2)
            .into_iter()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy();
            let Some(pid) = temp_owner(&name) else {
                continue;
            };
            let alive = Path::new("/proc").join(pid.to_string()).exists();
            if !alive || pid == std::process::id() {
                fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("in/{i:03}.warc.gz")).collect()
    }

    #[test]
    fn a_crawl_of_90000_files_makes_at_most_1500_tasks() {
        assert_eq!(default_inputs_per_task(3), 1);
        assert_eq!(default_inputs_per_task(1500), 1);
        assert_eq!(default_inputs_per_task(1501), 2);
        let k = default_inputs_per_task(90_000);
        assert_eq!(k, 60);
        assert_eq!(plan_tasks(&inputs(90_000), k).len(), 1500);
    }

    #[test]
    fn tasks_are_consecutive_and_named_by_their_inputs() {
        let list = inputs(10);
        let tasks = plan_tasks(&list, 4);
        assert_eq!(
            tasks.iter().map(|t| t.inputs.len()).collect::<Vec<_>>(),
            [4, 4, 2]
        );
        assert_eq!(tasks[1].inputs, list[4..8]);
        assert_eq!(tasks, plan_tasks(&list, 4), "same list, same tasks");
        assert!(tasks[0].name.starts_with("task-00000-"));
        let mut other = list.clone();
        other[0] = "in/x.warc.gz".into();
        let changed = plan_tasks(&other, 4);
        assert_ne!(changed[0].name, tasks[0].name);
        assert_eq!(changed[1].name, tasks[1].name);
    }

    #[test]
    fn settings_name_their_differences() {
        let mut a = Settings::default();
        a.set("agents", "GPTBot");
        a.set("tables", "all");
        let mut b = a.clone();
        assert_eq!(a.fingerprint(), b.fingerprint());
        b.set("agents", "CCBot");
        b.set("seed", "1");
        assert_ne!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.differences(&b), ["agents", "seed"]);
    }

    #[test]
    fn temp_names_carry_their_process() {
        let tmp = temp_path(Path::new("out/rules/crawl=X/task-00001-ab.parquet"));
        let name = tmp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".task-00001-ab.parquet."), "{name}");
        assert_eq!(temp_owner(&name), Some(std::process::id()));
        assert_eq!(temp_owner("task.parquet"), None);
        assert_ne!(
            temp_path(Path::new("a.parquet")),
            temp_path(Path::new("a.parquet"))
        );
    }

    #[test]
    fn partition_dirs_are_safe() {
        assert_eq!(partition_dir("CC-MAIN-2024-10"), "crawl=CC-MAIN-2024-10");
        assert_eq!(partition_dir("../x y"), "crawl=.._x_y");
    }
}
