//! Where a dataset lives (`--out`, `status OUT`): a local directory, or an S3 prefix.
//!
//! Local: parts are written under temporary names in the dataset itself, closed and
//! fsynced ([`super::PartWriter::close`]), then renamed into place all at once
//! ([`super::commit_parts`]); manifests likewise ([`dataset::write_atomic`]).
//!
//! S3 (`s3://bucket/prefix`): the same [`super::PartWriter`] writes each part into a
//! local staging directory (`$TMPDIR/.robots-census-staging.<machine>-<pid>-<n>.tmp/`, laid out
//! like the dataset), so the bytes are those of a local run; [`OutTarget::publish`]
//! then sends each committed part (one PUT up to [`PUBLISH_PART_SIZE`], above it a
//! multipart upload read from the staged file; either is atomic: a reader sees the
//! whole object or none) and removes the staged copy. The task's manifest is PUT after
//! all its parts; an `_attempts/<task>.json` record written before the first upload
//! names what the attempt publishes, so the next attempt of a task killed in between
//! deletes it. Staging directories of runs that no longer live (a SIGKILL) are removed
//! when the next run starts.
//!
//! `robots-census query` reads an S3 dataset too (see `study::engine`).
//!
//! `http(s)://` cannot be written to: it is a usage error.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use super::dataset::{self, DatasetMeta, PartFile, TaskManifest};
use super::{OutputError, Table};
use crate::limits::PUBLISH_PART_SIZE;
use crate::store::{Location, StoreError, StoreOptions, Stores};

/// The output of a run, or the dataset `status` reads.
#[derive(Debug, Clone)]
pub enum OutTarget {
    Local(PathBuf),
    S3 {
        /// The dataset root: an S3 location whose key has no trailing `/`.
        root: Location,
        /// Local directory where parts are written before their PUT.
        staging: PathBuf,
        stores: Arc<Stores>,
    },
}

/// Staging directories are [`dataset::temp_path`]s of this name in `$TMPDIR`:
/// `.robots-census-staging.<machine>-<pid>-<n>.tmp`.
const STAGING_NAME: &str = "robots-census-staging";
const STAGING_PREFIX: &str = ".robots-census-staging.";

impl OutTarget {
    /// Parses `--out`: a local directory or `s3://bucket/prefix`. S3 targets get a
    /// store handle (`stores`, or a new one with `options`) and a staging directory
    /// name unique to this process (made when the first part is written).
    pub fn parse(
        text: &str,
        options: StoreOptions,
        stores: Option<Arc<Stores>>,
    ) -> Result<OutTarget, StoreError> {
        match Location::parse(text)? {
            Location::Local(path) => Ok(OutTarget::Local(path)),
            Location::Http(url) => Err(StoreError::BadLocation(format!(
                "{url}: an http(s):// URL cannot be an output (use a directory or s3://bucket/prefix)"
            ))),
            Location::S3 { bucket, key } => {
                let stores = match stores {
                    Some(stores) => stores,
                    None => Arc::new(Stores::new(options)?),
                };
                let base = std::env::temp_dir().join(STAGING_NAME);
                Ok(OutTarget::S3 {
                    root: Location::S3 {
                        bucket,
                        key: key.trim_end_matches('/').to_owned(),
                    },
                    staging: dataset::temp_path(&base),
                    stores,
                })
            }
        }
    }

    /// The local directory parts are written into: the dataset itself, or the staging
    /// directory of an S3 dataset.
    pub fn local_dir(&self) -> &Path {
        match self {
            OutTarget::Local(path) => path,
            OutTarget::S3 { staging, .. } => staging,
        }
    }

    /// The object at `rel` (a `/`-separated path under the dataset root).
    fn object(root: &Location, rel: &str) -> Location {
        match root {
            Location::S3 { bucket, key } if key.is_empty() => Location::S3 {
                bucket: bucket.clone(),
                key: rel.to_owned(),
            },
            Location::S3 { bucket, key } => Location::S3 {
                bucket: bucket.clone(),
                key: format!("{key}/{rel}"),
            },
            other => other.clone(),
        }
    }

    /// Writes a small file of the dataset (`_dataset.json`, a manifest, `_SUCCESS`)
    /// atomically: fsync + rename locally, one PUT on S3.
    pub fn write_file(&self, rel: &str, contents: &[u8]) -> Result<(), OutputError> {
        match self {
            OutTarget::Local(dir) => dataset::write_atomic(&dir.join(rel), contents),
            OutTarget::S3 { root, stores, .. } => stores
                .put(&Self::object(root, rel), Bytes::copy_from_slice(contents))
                .map_err(OutputError::Store),
        }
    }

    /// Reads a small file of the dataset; `None` when it is not there.
    pub fn read_file(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            OutTarget::Local(dir) => {
                let path = dir.join(rel);
                match std::fs::read(&path) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(format!("{}: {e}", path.display())),
                }
            }
            OutTarget::S3 { root, stores, .. } => stores
                .get_opt(&Self::object(root, rel))
                .map_err(|e| e.to_string()),
        }
    }

    /// `_dataset.json`, if any.
    pub fn read_meta(&self) -> Result<Option<DatasetMeta>, String> {
        match self {
            OutTarget::Local(dir) => dataset::read_meta(dir),
            OutTarget::S3 { .. } => match self.read_file(dataset::DATASET_FILE)? {
                None => Ok(None),
                Some(bytes) => serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| format!("{self}/{}: {e}", dataset::DATASET_FILE)),
            },
        }
    }

    /// A finished task's manifest; `None` when there is none (the task is not done),
    /// an error naming the file when it cannot be read or parsed.
    pub fn read_manifest(&self, task: &str) -> Result<Option<TaskManifest>, String> {
        match self {
            OutTarget::Local(dir) => dataset::read_manifest(dir, task),
            OutTarget::S3 { .. } => {
                let rel = manifest_rel(task);
                match self.read_file(&rel) {
                    Ok(Some(bytes)) => {
                        dataset::parse_manifest(&format!("{self}/{rel}"), &bytes).map(Some)
                    }
                    Ok(None) => Ok(None),
                    Err(e) => Err(format!("task manifest {e}")),
                }
            }
        }
    }

    /// Writes a task's manifest (after its parts are in place).
    pub fn write_manifest(&self, manifest: &TaskManifest) -> Result<(), OutputError> {
        let rel = manifest_rel(&manifest.task);
        let json = serde_json::to_vec_pretty(manifest).map_err(|e| OutputError::Io {
            path: PathBuf::from(format!("{self}/{rel}")),
            source: e.into(),
        })?;
        self.write_file(&rel, &json)
    }

    /// The task names that have a manifest file (readable or not).
    pub fn manifest_names(&self) -> Result<Vec<String>, String> {
        let names: Vec<String> = match self {
            OutTarget::Local(dir) => std::fs::read_dir(dir.join(dataset::MANIFEST_DIR))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            OutTarget::S3 { root, stores, .. } => stores
                .list(&Self::object(root, dataset::MANIFEST_DIR))
                .map_err(|e| e.to_string())?
                .iter()
                .map(Location::file_name)
                .collect(),
        };
        Ok(names
            .iter()
            .filter_map(|n| n.strip_suffix(".json"))
            .map(str::to_owned)
            .collect())
    }

    /// The top-level entries of the dataset this tool writes (tables, derived tables,
    /// manifests, `_dataset.json`, `_views.sql`, `status`'s `_SUCCESS`): what a new run
    /// refuses to mix into, and `--overwrite` removes (a `_SUCCESS` kept would call a
    /// half-rewritten dataset done; a `sites` table kept would be another run's).
    pub fn existing(&self) -> Result<Vec<String>, String> {
        let ours = |name: &str| {
            Table::ALL
                .iter()
                .chain(&Table::DERIVED)
                .any(|t| t.name() == name)
                || name == dataset::MANIFEST_DIR
                || name == dataset::ATTEMPTS_DIR
                || name == dataset::VIEWS_FILE
                || name == dataset::DATASET_FILE
                || name == dataset::SUCCESS_FILE
        };
        let mut names: Vec<String> = match self {
            OutTarget::Local(dir) => std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            OutTarget::S3 { root, .. } => self
                .s3_objects(root)?
                .into_iter()
                .filter_map(|rel| rel.split('/').next().map(str::to_owned))
                .collect(),
        };
        names.retain(|n| ours(n));
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Keys under the S3 root, relative to it.
    fn s3_objects(&self, root: &Location) -> Result<Vec<String>, String> {
        let OutTarget::S3 { stores, .. } = self else {
            return Ok(Vec::new());
        };
        let Location::S3 { key: prefix, .. } = root else {
            return Ok(Vec::new());
        };
        let objects = stores.list(root).map_err(|e| e.to_string())?;
        Ok(objects
            .into_iter()
            .filter_map(|loc| match loc {
                Location::S3 { key, .. } if prefix.is_empty() => Some(key),
                Location::S3 { key, .. } => key
                    .strip_prefix(prefix.as_str())
                    .and_then(|k| k.strip_prefix('/'))
                    .map(str::to_owned),
                _ => None,
            })
            .collect())
    }

    /// Removes the entries [`OutTarget::existing`] names (`--overwrite`).
    pub fn remove_existing(&self, names: &[String]) -> Result<(), String> {
        match self {
            OutTarget::Local(dir) => {
                for name in names {
                    let path = dir.join(name);
                    let removed = if path.is_dir() {
                        std::fs::remove_dir_all(&path)
                    } else {
                        std::fs::remove_file(&path)
                    };
                    removed.map_err(|e| format!("{}: {e}", path.display()))?;
                }
                Ok(())
            }
            OutTarget::S3 { root, stores, .. } => {
                for rel in self.s3_objects(root)? {
                    let top = rel.split('/').next().unwrap_or_default();
                    if names.iter().any(|n| n == top) {
                        stores
                            .delete(&Self::object(root, &rel))
                            .map_err(|e| e.to_string())?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Makes a committed task's parts visible: nothing to do locally (they were
    /// renamed into place); on S3 each part is uploaded from the staging directory (one
    /// PUT, or a multipart upload for a part over [`PUBLISH_PART_SIZE`], never held in
    /// memory whole), whose copy is then removed. On an error, every staged part of
    /// `files` is removed.
    pub fn publish(&self, files: &[PartFile]) -> Result<(), OutputError> {
        let OutTarget::S3 {
            root,
            staging,
            stores,
        } = self
        else {
            return Ok(());
        };
        let mut result = Ok(());
        for file in files {
            let staged = staging.join(&file.path);
            if result.is_ok() {
                result = stores
                    .put_file(&Self::object(root, &file.path), &staged, PUBLISH_PART_SIZE)
                    .map_err(OutputError::Store);
            }
            let _ = std::fs::remove_file(&staged);
        }
        result
    }

    /// Deletes published parts of an earlier attempt of a task (S3); a no-op locally,
    /// where [`crate::output::commit_parts`] removed them already.
    pub fn remove_published(&self, stale: &[PartFile]) -> Result<(), OutputError> {
        let OutTarget::S3 { root, stores, .. } = self else {
            return Ok(());
        };
        for file in stale {
            stores
                .delete(&Self::object(root, &file.path))
                .map_err(OutputError::Store)?;
        }
        Ok(())
    }

    /// The parts an attempt of `task` listed before publishing them and that may be on
    /// S3 without a manifest naming them (the attempt was killed before its manifest);
    /// empty locally, where [`crate::output::commit_parts`] finds them by name.
    pub fn attempted(&self, task: &str) -> Result<Vec<PartFile>, OutputError> {
        if matches!(self, OutTarget::Local(_)) {
            return Ok(Vec::new());
        }
        let rel = attempt_rel(task);
        let Some(bytes) = self.read_file(&rel).map_err(|e| self.error(&rel, e))? else {
            return Ok(Vec::new());
        };
        serde_json::from_slice(&bytes).map_err(|e| self.error(&rel, e.to_string()))
    }

    /// Before an S3 attempt of `task` publishes anything: records every part it may
    /// leave on S3 (what it publishes, and the earlier parts it is about to delete).
    pub fn begin_attempt(&self, task: &str, parts: &[&PartFile]) -> Result<(), OutputError> {
        if matches!(self, OutTarget::Local(_)) {
            return Ok(());
        }
        let rel = attempt_rel(task);
        let json = serde_json::to_vec(parts).map_err(|e| self.error(&rel, e.to_string()))?;
        self.write_file(&rel, &json)
    }

    /// After the task's manifest is written: its attempt record is no longer needed.
    pub fn end_attempt(&self, task: &str) -> Result<(), OutputError> {
        let OutTarget::S3 { root, stores, .. } = self else {
            return Ok(());
        };
        stores
            .delete(&Self::object(root, &attempt_rel(task)))
            .map_err(OutputError::Store)
    }

    fn error(&self, rel: &str, detail: String) -> OutputError {
        OutputError::Io {
            path: PathBuf::from(format!("{self}/{rel}")),
            source: std::io::Error::other(detail),
        }
    }

    /// Removes this run's staging directory (S3) and those of runs that no longer
    /// live; a no-op locally.
    pub fn clean_staging(&self) {
        let OutTarget::S3 { staging, .. } = self else {
            return;
        };
        let _ = std::fs::remove_dir_all(staging);
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with(STAGING_PREFIX) {
                continue;
            }
            if dataset::temp_abandoned(&entry.path()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// What the steps after the run (`sites`, `changes`) need of a dataset wherever it is:
/// its parts as local files, its derived files listed, replaced and removed.
impl OutTarget {
    /// The dataset's files under `rel_dir` (a table's directory, `/`-separated),
    /// relative to the dataset root, sorted; none when there are none.
    pub fn files_under(&self, rel_dir: &str) -> Result<Vec<String>, String> {
        match self {
            OutTarget::Local(dir) => {
                let base = dir.join(rel_dir);
                if !base.is_dir() {
                    return Ok(Vec::new());
                }
                let mut found = Vec::new();
                for entry in walkdir::WalkDir::new(&base) {
                    let entry = entry.map_err(|e| e.to_string())?;
                    if entry.file_type().is_file() {
                        let rel = entry.path().strip_prefix(dir).map_err(|e| e.to_string())?;
                        found.push(
                            rel.to_string_lossy()
                                .replace(std::path::MAIN_SEPARATOR, "/"),
                        );
                    }
                }
                found.sort();
                Ok(found)
            }
            OutTarget::S3 { root, .. } => {
                let prefix = format!("{}/", rel_dir.trim_end_matches('/'));
                Ok(self
                    .s3_objects(root)?
                    .into_iter()
                    .filter(|rel| rel.starts_with(&prefix))
                    .collect())
            }
        }
    }

    /// Removes the dataset's files `rels` (relative to the root; one that is not there
    /// is no error); locally, the directories they leave empty too.
    pub fn remove_files(&self, rels: &[String]) -> Result<(), String> {
        for rel in rels {
            match self {
                OutTarget::Local(dir) => {
                    let path = dir.join(rel);
                    match std::fs::remove_file(&path) {
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        other => other.map_err(|e| format!("{}: {e}", path.display()))?,
                    }
                    let mut parent = path.parent();
                    while let Some(p) = parent.filter(|p| p.starts_with(dir) && *p != dir.as_path())
                    {
                        // Not empty: it stays (and so do its parents).
                        if std::fs::remove_dir(p).is_err() {
                            break;
                        }
                        parent = p.parent();
                    }
                }
                OutTarget::S3 { root, stores, .. } => stores
                    .delete(&Self::object(root, rel))
                    .map_err(|e| e.to_string())?,
            }
        }
        Ok(())
    }

    /// A file of the dataset as the catalog names it (a path under a local dataset, or
    /// an object's `s3://` URL) as a local file to read: itself, or its copy downloaded
    /// under `stage` (the caller removes it when done). Returns the path and whether it
    /// is a copy.
    pub fn fetch(&self, file: &Path, stage: &Path) -> Result<(PathBuf, bool), StoreError> {
        let OutTarget::S3 { stores, .. } = self else {
            return Ok((file.to_owned(), false));
        };
        let loc = Location::parse(&file.to_string_lossy())?;
        let name = loc.to_string();
        // A name of its own per object: the key with its separators flattened.
        let local = stage.join(name.trim_start_matches("s3://").replace('/', "%"));
        stores.download(&loc, &local)?;
        Ok((local, true))
    }

    /// Makes the derived file written at `local_dir()/rel` visible: in place already
    /// locally; uploaded (one atomic PUT or multipart upload) and its staged copy
    /// removed on S3.
    pub fn publish_derived(&self, rel: &str, table: Table) -> Result<(), OutputError> {
        self.publish(&[PartFile {
            table: table.name().to_owned(),
            crawl: String::new(),
            path: rel.to_owned(),
            rows: 0,
        }])
    }

    /// The bytes `range` of the dataset's file `file` (as the catalog names it).
    pub fn read_range(
        &self,
        file: &Path,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, StoreError> {
        let loc = Location::parse(&file.to_string_lossy())?;
        match self {
            OutTarget::S3 { stores, .. } => stores.get_range(&loc, range),
            OutTarget::Local(_) => Stores::local_range(&loc, range),
        }
    }

    /// The size of the dataset's file `file` (as the catalog names it).
    pub fn file_size(&self, file: &Path) -> Result<u64, StoreError> {
        let loc = Location::parse(&file.to_string_lossy())?;
        match self {
            OutTarget::S3 { stores, .. } => stores.size(&loc),
            OutTarget::Local(_) => {
                std::fs::metadata(file)
                    .map(|m| m.len())
                    .map_err(|e| StoreError::Failed {
                        location: file.display().to_string(),
                        detail: e.to_string(),
                    })
            }
        }
    }
}

/// How a run meets what its `--out` already holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prepare {
    /// `--resume`: continue the dataset (same settings).
    pub resume: bool,
    /// `--overwrite`: replace this tool's tables.
    pub overwrite: bool,
    /// `--shard`: other shards may have written tasks of the same dataset.
    pub shard: bool,
}

impl OutTarget {
    /// The first stage of a run: refuses to mix a new run into an existing output
    /// unless asked to, and a resume under settings other than the dataset's; removes
    /// this tool's tables when asked to overwrite, leftovers of killed runs, and the
    /// staging directories of dead S3 runs; creates a local directory.
    pub fn prepare(&self, how: Prepare, settings: &dataset::Settings) -> Result<(), OutputError> {
        let output_err = |detail: String| OutputError::Prepare {
            path: self.to_string(),
            detail,
        };
        let existing = self.existing().map_err(output_err)?;
        let meta = self.read_meta().map_err(OutputError::Meta)?;
        // Shards of one list and flags write disjoint tasks of one dataset: a shard
        // meeting the others' output with the same settings is expected, and harmless.
        let same_dataset = meta.as_ref().is_some_and(|m| m.settings == *settings);
        let continuing = how.resume || (how.shard && same_dataset);
        if !existing.is_empty() && !continuing {
            if !how.overwrite {
                return Err(OutputError::Exists(self.to_string()));
            }
            // Only what this tool writes is removed, never anything else in --out.
            self.remove_existing(&existing).map_err(output_err)?;
        }
        if how.resume || how.shard {
            if let Some(meta) = &meta {
                let differences = meta.settings.differences(settings);
                if !differences.is_empty() {
                    return Err(OutputError::SettingsDiffer {
                        out: self.to_string(),
                        differences: differences.join(", "),
                    });
                }
            }
        }
        // Staging directories of S3 runs that were killed (their PUTs are atomic: the
        // bucket itself holds no temporaries).
        self.clean_staging();
        match self {
            OutTarget::Local(dir) => {
                if how.resume || how.shard {
                    dataset::remove_leftovers(dir).map_err(|e| output_err(e.to_string()))?;
                }
                std::fs::create_dir_all(dir).map_err(|e| output_err(e.to_string()))
            }
            OutTarget::S3 { .. } => Ok(()),
        }
    }
}

/// `_manifests/<task>.json`.
fn manifest_rel(task: &str) -> String {
    format!("{}/{task}.json", dataset::MANIFEST_DIR)
}

fn attempt_rel(task: &str) -> String {
    format!("{}/{task}.json", dataset::ATTEMPTS_DIR)
}

impl fmt::Display for OutTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutTarget::Local(path) => write!(f, "{}", path.display()),
            OutTarget::S3 { root, .. } => write!(f, "{root}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<OutTarget, StoreError> {
        OutTarget::parse(s, StoreOptions::default(), None)
    }

    #[test]
    fn outputs_are_directories_or_s3_prefixes() {
        match parse("out/dir") {
            Ok(OutTarget::Local(p)) => assert_eq!(p, Path::new("out/dir")),
            other => panic!("{other:?}"),
        }
        let s3 = parse("s3://bucket/some/prefix/").expect("s3");
        assert_eq!(s3.to_string(), "s3://bucket/some/prefix");
        let OutTarget::S3 { root, staging, .. } = &s3 else {
            panic!("{s3:?}")
        };
        assert_eq!(
            OutTarget::object(root, "_manifests/t.json").to_string(),
            "s3://bucket/some/prefix/_manifests/t.json"
        );
        let name = staging
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(name.starts_with(STAGING_PREFIX), "{name}");
        assert_eq!(
            dataset::temp_owner(&name),
            Some((dataset::machine_token(), std::process::id()))
        );
        let bare = parse("s3://bucket").expect("bucket root");
        let OutTarget::S3 { root, .. } = &bare else {
            panic!("{bare:?}")
        };
        assert_eq!(
            OutTarget::object(root, "_dataset.json").to_string(),
            "s3://bucket/_dataset.json"
        );
        // A staging directory of a process that is gone is removed; ours is too.
        let dead = std::env::temp_dir().join(format!(
            "{STAGING_PREFIX}{}-4000000000-0.tmp",
            dataset::machine_token()
        ));
        // One of another machine's (a shared $TMPDIR), in use: kept.
        let foreign = std::env::temp_dir().join(format!("{STAGING_PREFIX}0123456789ab-1-0.tmp"));
        std::fs::create_dir_all(&foreign).expect("mkdir");
        std::fs::create_dir_all(dead.join("rules/crawl=X")).expect("mkdir");
        std::fs::create_dir_all(staging).expect("mkdir");
        s3.clean_staging();
        assert!(!dead.exists() && !staging.exists());
        assert!(
            foreign.exists(),
            "another machine's staging directory is left alone"
        );
        std::fs::remove_dir_all(&foreign).expect("rm");
        for http in ["http://127.0.0.1:9/out", "https://example.com/x"] {
            let err = parse(http).expect_err(http);
            assert_eq!(err.code(), "remote_bad_location");
            assert!(err.to_string().contains("cannot be an output"), "{err}");
        }
    }
}
