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
use crate::census::headline::Headline;
use crate::limits::TARGET_TASKS;

/// Version of the output layout and manifests; part of the fingerprint. Raised when the
/// same input gives other columns or values, so `--resume` never mixes tasks of two
/// versions and `query` refuses a dataset of another one (5: `errors.excerpt` escapes
/// bytes that are not text as `\xNN` instead of decoding them lossily).
pub const FORMAT_VERSION: u32 = 5;

/// `<out>/_manifests/`: one JSON manifest per finished task.
pub const MANIFEST_DIR: &str = "_manifests";
/// `<out>/_attempts/<task>.json` (S3 only): the parts a task's attempt is about to
/// publish, written before the first upload and removed after its manifest, so an
/// attempt killed in between leaves a list of what it may have published.
pub const ATTEMPTS_DIR: &str = "_attempts";
/// `<out>/_dataset.json`: the settings every task of the dataset was made with.
pub const DATASET_FILE: &str = "_dataset.json";
/// `<out>/_views.sql`: the dataset's tables as DuckDB views (see `output::views`).
pub const VIEWS_FILE: &str = "_views.sql";
/// `<out>/_SUCCESS`: written by `robots-census status` once every task is done.
pub const SUCCESS_FILE: &str = "_SUCCESS";

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
    /// What the end-of-run headline counts (parsed robots.txt captures, and those
    /// fully blocking each agent); absent when the agents table was not written.
    #[serde(default, skip_serializing_if = "Headline::is_empty")]
    pub headline: Headline,
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

/// The Hive partition directory of a crawl: `crawl=<value>` (see [`partition_value`]).
pub fn partition_dir(crawl: &str) -> String {
    format!("crawl={}", partition_value(crawl))
}

/// A crawl as the value of a partition directory: characters that are unsafe in a
/// path replaced (the value itself stays intact in the `crawl` column).
pub fn partition_value(crawl: &str) -> String {
    crawl
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
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

/// How old a temporary of another machine (or PID namespace) must be before a start
/// removes it: its writer cannot be asked whether it still runs, and no task takes a day.
pub const FOREIGN_TEMP_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// This process's "machine": host name, boot id and PID namespace, hashed to 12 hex
/// digits. Process ids are only meaningful within one: on a shared file system (NFS,
/// EFS under Kubernetes, where every pod's process may be PID 1) another machine's
/// process id says nothing about whether its writer still runs.
pub fn machine_token() -> &'static str {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| {
        use sha1::Digest;
        let mut h = sha1::Sha1::new();
        for part in [
            fs::read("/proc/sys/kernel/hostname").unwrap_or_default(),
            fs::read("/proc/sys/kernel/random/boot_id").unwrap_or_default(),
            fs::read_link("/proc/self/ns/pid")
                .map(|p| p.into_os_string().into_encoded_bytes())
                .unwrap_or_default(),
        ] {
            h.update(&part);
            h.update([0]);
        }
        h.finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect()
    })
}

/// A temporary name beside `path`, unique to this process on any machine:
/// `.<name>.<machine>-<pid>-<nonce>.tmp` (see [`machine_token`]). Two processes writing
/// the same task (a speculative duplicate, a second `--resume`, another machine) never
/// write into one file; the one that renames last wins, with the same bytes.
pub fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NONCE: AtomicU64 = AtomicU64::new(0);
    let n = NONCE.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.{}-{}-{n}.tmp",
        machine_token(),
        std::process::id()
    ))
}

/// The writer of a temporary file, from its name: (machine token, process id).
pub(crate) fn temp_owner(name: &str) -> Option<(&str, u32)> {
    let stem = name.strip_suffix(".tmp")?;
    let (_, tail) = stem.rsplit_once('.')?;
    let mut parts = tail.split('-');
    let (machine, pid) = (parts.next()?, parts.next()?.parse().ok()?);
    parts.next()?.parse::<u64>().ok()?;
    (machine.len() == 12 && parts.next().is_none()).then_some((machine, pid))
}

/// A temporary named by a release before the machine token: `.<name>.<pid>-<nonce>.tmp`.
fn legacy_temp(name: &str) -> bool {
    let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    stem.rsplit_once('.')
        .and_then(|(_, tail)| tail.split_once('-'))
        .is_some_and(|(pid, nonce)| digits(pid) && digits(nonce))
}

/// Is the temporary `path` (named by [`temp_path`]) abandoned, so a start may remove
/// it? Yes when its writer is a process of this machine that no longer runs, or this
/// process itself; a temporary of another machine only once it is older than
/// [`FOREIGN_TEMP_MAX_AGE`]. The same age rule holds for the names of releases before
/// the machine token (`.<name>.<pid>-<nonce>.tmp`), whose machine is unknown. Other
/// names are never abandoned.
pub fn temp_abandoned(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match temp_owner(&name) {
        Some((machine, pid)) if machine == machine_token() => {
            return pid == std::process::id() || !Path::new("/proc").join(pid.to_string()).exists();
        }
        Some(_) => {}
        None if legacy_temp(&name) => {}
        None => return false,
    }
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > FOREIGN_TEMP_MAX_AGE)
}

/// Writes `contents` to `path` atomically: a unique temporary name, fsync, rename,
/// then fsync of the directory so the rename itself survives a crash.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    // A bare file name has the parent "", which cannot be opened for the fsync.
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
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

/// Reads a finished task's manifest: `None` when there is none (the task is not done);
/// an error naming the file when it exists but cannot be read or is not a manifest
/// (a reader that skipped it would count a smaller census, with nothing said).
pub fn read_manifest(out: &Path, task: &str) -> Result<Option<TaskManifest>, String> {
    let path = manifest_path(out, task);
    match fs::read(&path) {
        Ok(bytes) => parse_manifest(&path.display().to_string(), &bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("task manifest {}: {e}", path.display())),
    }
}

/// A manifest's bytes as read from `name` (a path or URL, for the error).
pub fn parse_manifest(name: &str, bytes: &[u8]) -> Result<TaskManifest, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("task manifest {name}: not a manifest: {e}"))
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

/// Removes the temporaries left by processes of this machine that no longer run (a
/// killed run or step): part files and manifests being written, a derived table's file,
/// a step's spill directory; and those of other machines older than
/// [`FOREIGN_TEMP_MAX_AGE`]. Temporaries of live processes (another shard, a
/// speculative duplicate, a step on another machine sharing the file system) are left
/// alone. Returns how many were removed.
pub fn remove_leftovers(out: &Path) -> std::io::Result<usize> {
    let dirs = Table::ALL
        .iter()
        .chain(Table::DERIVED.iter())
        .map(|t| out.join(t.name()))
        .chain([out.join(MANIFEST_DIR)]);
    let mut found: Vec<(PathBuf, bool)> = Vec::new();
    for dir in dirs {
        // A table's files are at most three levels down (changes/from_crawl=/to_crawl=/).
        for entry in walkdir::WalkDir::new(&dir)
            .max_depth(3)
            .into_iter()
            .flatten()
        {
            if temp_abandoned(entry.path()) {
                found.push((entry.path().to_owned(), entry.file_type().is_dir()));
            }
        }
    }
    // The dataset's own level: `_dataset.json` and `_views.sql` being written, and the
    // steps' spill directories.
    let top = match fs::read_dir(out) {
        Ok(top) => top,
        // Nothing written yet (a shard may prepare before any other made the directory).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    for entry in top.flatten() {
        if temp_abandoned(&entry.path()) {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            found.push((entry.path(), is_dir));
        }
    }
    let mut removed = 0;
    for (path, is_dir) in found {
        let gone = if is_dir {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        match gone {
            Ok(()) => removed += 1,
            // Collected by another process between the walk and here.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
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
        assert_eq!(
            temp_owner(&name),
            Some((machine_token(), std::process::id()))
        );
        assert_eq!(temp_owner("task.parquet"), None);
        assert!(
            temp_abandoned(&tmp),
            "this process's own temporaries are stale"
        );
    }

    #[test]
    fn another_machines_temporaries_are_kept_until_they_are_old() {
        // Issue 22: a start removed every temporary whose PID was not alive in *this*
        // machine's /proc, so two machines sharing one --out deleted each other's parts.
        let dir = std::env::temp_dir().join(format!("rc-foreign-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        // PID 1 runs here too: only the machine token tells the writer apart.
        let foreign = dir.join(".task-00000-ab.parquet.0123456789ab-999999-0.tmp");
        let local_dead = dir.join(format!(
            ".task-00001-ab.parquet.{}-999999-0.tmp",
            machine_token()
        ));
        fs::write(&foreign, b"x").unwrap();
        fs::write(&local_dead, b"x").unwrap();
        assert_ne!(machine_token(), "0123456789ab");
        assert!(
            !temp_abandoned(&foreign),
            "a fresh foreign temporary is in flight"
        );
        assert!(temp_abandoned(&local_dead), "no process 999999 runs here");
        let old = std::time::SystemTime::now() - FOREIGN_TEMP_MAX_AGE * 2;
        File::options()
            .write(true)
            .open(&foreign)
            .and_then(|f| f.set_modified(old))
            .unwrap();
        assert!(temp_abandoned(&foreign), "a day-old temporary is abandoned");
        // Issue 22: the names of releases before the machine token were never removed;
        // their machine is unknown, so they follow the same age rule.
        let legacy = dir.join("._dataset.json.4242-0.tmp");
        fs::write(&legacy, b"x").unwrap();
        assert!(
            !temp_abandoned(&legacy),
            "a fresh legacy temporary may be in flight"
        );
        File::options()
            .write(true)
            .open(&legacy)
            .and_then(|f| f.set_modified(old))
            .unwrap();
        assert!(
            temp_abandoned(&legacy),
            "a day-old legacy temporary is abandoned"
        );
        for kept in [
            "._dataset.json.tmp",
            ".x.4242.tmp",
            "x.4242-0.tmp",
            ".x.a-0.tmp",
        ] {
            assert!(!legacy_temp(kept), "{kept}");
        }
        fs::remove_dir_all(&dir).unwrap();
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
