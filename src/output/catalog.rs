//! Which files make each table of a dataset, by name: what every reader of a dataset
//! (the study engine, DuckDB's `_views.sql`, the `sites`/`changes`/`report` steps)
//! reads, so that none of them reads a part of an unfinished task or a derived table
//! made from another run.
//!
//! - A run table (`documents` ... `readings`) is the parts listed in the manifests of
//!   finished tasks of this dataset (same fingerprint as `_dataset.json`). A part on
//!   disk that no manifest lists (a task still running, or killed) is not read.
//! - A derived table (`sites`, `ranks`, `changes`) records the [`DatasetState`] it was
//!   made from (the settings fingerprint and the finished tasks) for every file: in the
//!   file's Parquet key-value metadata under [`STATE_KEY`] (what robots-census writes),
//!   or in the table directory's [`STATE_FILE`], which lists the files it vouches for
//!   (what an engine that cannot set a footer's metadata writes: the Spark SQL step of
//!   `spark/robots_census_spark.py`). A derived table made before `run --overwrite` or
//!   `--resume` changed the run's tables is stale, and is refused by name with the
//!   command that makes it again; so is a file neither records.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::dataset::{self, DatasetMeta, FORMAT_VERSION};
use super::read::part_files;
use super::{OutTarget, Table};

/// The Parquet key-value metadata key of a derived table's [`DatasetState`].
pub const STATE_KEY: &str = "robots_census.dataset_state";

/// A derived table directory's record of the state its files were made from:
/// `{"dataset_state": "<stamp>", "files": ["<path relative to the directory>", ...]}`.
pub const STATE_FILE: &str = "_state.json";

/// The contents of [`STATE_FILE`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StateFile {
    /// [`DatasetState::stamp`] of the dataset the files were made from.
    pub dataset_state: String,
    /// The files made from it, relative to the table's directory, `/`-separated.
    pub files: Vec<String>,
}

/// Why a dataset cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{0} is not a robots-census dataset (no {file}): run `robots-census run ... --out {0}` first", file = dataset::DATASET_FILE)]
    NotADataset(String),
    #[error("{out} was written by another version of robots-census (format {found}, this one reads {FORMAT_VERSION}): run it again with --overwrite")]
    OtherVersion { out: String, found: u32 },
    #[error("cannot read the dataset {out}: {detail}")]
    Unreadable { out: String, detail: String },
}

/// The state of a dataset's run tables: its settings fingerprint and which tasks are
/// done. Two equal states hold the same rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetState {
    pub fingerprint: String,
    /// Finished tasks.
    pub tasks: usize,
    /// A hash of the finished tasks' names.
    pub tasks_digest: String,
}

impl DatasetState {
    /// The state of the dataset whose settings are `meta`, from the manifests found in
    /// it: those of this run ([`DatasetState::counts`]) are its finished tasks.
    pub fn of<'a>(
        meta: &DatasetMeta,
        manifests: impl IntoIterator<Item = &'a dataset::TaskManifest>,
    ) -> DatasetState {
        let mut done: Vec<&String> = manifests
            .into_iter()
            .filter(|m| DatasetState::counts(meta, m))
            .map(|m| &m.task)
            .collect();
        done.sort();
        DatasetState {
            fingerprint: meta.fingerprint.clone(),
            tasks: done.len(),
            tasks_digest: dataset::Settings::digest_of(done.into_iter()),
        }
    }

    /// Whether `manifest` is a finished task of the run `meta` describes (a manifest of
    /// an earlier run or format is left over, not part of the dataset).
    pub fn counts(meta: &DatasetMeta, manifest: &dataset::TaskManifest) -> bool {
        manifest.fingerprint == meta.fingerprint && manifest.format_version == FORMAT_VERSION
    }

    /// The value stored under [`STATE_KEY`]: `<fingerprint>/<tasks>/<digest>`.
    pub fn stamp(&self) -> String {
        format!("{}/{}/{}", self.fingerprint, self.tasks, self.tasks_digest)
    }
}

/// One table of a dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Its files, in path order (none: the table is part of the dataset, with no rows).
    Present(Vec<PathBuf>),
    /// The dataset has no such table: why, and what makes it.
    Absent(String),
    /// A derived table made from another state of the dataset: which file, and the fix.
    Stale(String),
}

/// The tables of one dataset, by name.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The dataset root as given (a local directory, or an `s3://` URL).
    pub root: String,
    /// A local dataset's directory, canonical: every path of [`Catalog::files`] is under it.
    pub dir: Option<PathBuf>,
    pub meta: DatasetMeta,
    pub state: DatasetState,
    tables: BTreeMap<&'static str, Entry>,
}

impl Catalog {
    /// The catalog of the dataset at `out`: its run tables from the manifests, and (on
    /// a local directory) its derived tables with their freshness checked.
    pub fn open(out: &OutTarget) -> Result<Catalog, CatalogError> {
        let root = out.to_string();
        let unreadable = |detail: String| CatalogError::Unreadable {
            out: root.clone(),
            detail,
        };
        let meta = out
            .read_meta()
            .map_err(unreadable)?
            .ok_or_else(|| CatalogError::NotADataset(root.clone()))?;
        if meta.format_version != FORMAT_VERSION {
            return Err(CatalogError::OtherVersion {
                out: root,
                found: meta.format_version,
            });
        }
        let mut names = out.manifest_names().map_err(unreadable)?;
        names.sort();
        let manifests: Vec<dataset::TaskManifest> = names
            .iter()
            .filter_map(|task| out.read_manifest(task))
            .filter(|m| DatasetState::counts(&meta, m))
            .collect();
        let state = DatasetState::of(&meta, &manifests);
        let written: Vec<&str> = meta
            .settings
            .0
            .get("tables")
            .map(|t| t.split(',').collect())
            .unwrap_or_default();
        // Absolute paths: `_views.sql` and the engine read them from any directory.
        let local = match out {
            OutTarget::Local(dir) => {
                Some(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
            }
            OutTarget::S3 { .. } => None,
        };
        let mut tables = BTreeMap::new();
        for table in Table::ALL {
            let mut files: Vec<PathBuf> = manifests
                .iter()
                .flat_map(|m| &m.files)
                .filter(|f| f.table == table.name())
                .map(|f| match &local {
                    Some(dir) => dir.join(&f.path),
                    None => PathBuf::from(format!("{root}/{}", f.path)),
                })
                .collect();
            files.sort();
            let entry = if !files.is_empty() || written.contains(&table.name()) {
                Entry::Present(files)
            } else {
                Entry::Absent(format!(
                    "the run that wrote {root} did not write table {}: {}",
                    table.name(),
                    made_by(table, &root)
                ))
            };
            tables.insert(table.name(), entry);
        }
        for table in Table::DERIVED {
            let entry = match &local {
                Some(dir) => derived(dir, table, &state, &root)?,
                None => Entry::Absent(format!(
                    "table {} is only read from a local dataset",
                    table.name()
                )),
            };
            tables.insert(table.name(), entry);
        }
        Ok(Catalog {
            root,
            dir: local,
            meta,
            state,
            tables,
        })
    }

    /// The catalog of a local dataset directory.
    pub fn open_dir(out: &Path) -> Result<Catalog, CatalogError> {
        Catalog::open(&OutTarget::Local(out.to_owned()))
    }

    /// The entry of `table`.
    pub fn entry(&self, table: Table) -> &Entry {
        // Every table has an entry (`open` inserts them all).
        static NONE: Entry = Entry::Present(Vec::new());
        self.tables.get(table.name()).unwrap_or(&NONE)
    }

    /// The files of `table`, or why it cannot be read (absent or stale).
    pub fn files(&self, table: Table) -> Result<&[PathBuf], String> {
        match self.entry(table) {
            Entry::Present(files) => Ok(files),
            Entry::Absent(why) | Entry::Stale(why) => Err(why.clone()),
        }
    }

    /// Every table with its entry, run tables first.
    pub fn entries(&self) -> impl Iterator<Item = (Table, &Entry)> {
        Table::ALL
            .into_iter()
            .chain(Table::DERIVED)
            .map(|t| (t, self.entry(t)))
    }
}

/// The command that makes `table`.
fn made_by(table: Table, root: &str) -> String {
    match table {
        Table::Readings => format!("run with --profiles (e.g. `robots-census run ... --out {root} --profiles all --overwrite`)"),
        Table::Sites | Table::Ranks => format!("run `robots-census sites {root}`{}", if table == Table::Ranks { " --ranks FILE" } else { "" }),
        Table::Changes => format!("run `robots-census changes {root} --from CRAWL_A --to CRAWL_B`"),
        _ => format!("run with --tables including {} (e.g. `--tables all`)", table.name()),
    }
}

/// A derived table's entry: its files when every one was made from `state`.
fn derived(
    dir: &Path,
    table: Table,
    state: &DatasetState,
    root: &str,
) -> Result<Entry, CatalogError> {
    let unreadable = |detail: String| CatalogError::Unreadable {
        out: root.to_owned(),
        detail,
    };
    let files = part_files(&dir.join(table.name())).map_err(|e| unreadable(e.to_string()))?;
    if files.is_empty() {
        return Ok(Entry::Absent(format!(
            "{root} has no {} table: {}",
            table.name(),
            made_by(table, root)
        )));
    }
    let stamp = state.stamp();
    let table_dir = dir.join(table.name());
    let vouched = state_file(&table_dir).map_err(unreadable)?;
    let listed: std::collections::HashSet<&str> = vouched
        .iter()
        .flat_map(|v| v.files.iter().map(String::as_str))
        .collect();
    for file in &files {
        let is_listed = file.strip_prefix(&table_dir).is_ok_and(|rel| {
            listed.contains(
                rel.to_string_lossy()
                    .replace(std::path::MAIN_SEPARATOR, "/")
                    .as_str(),
            )
        });
        let made_from = match &vouched {
            Some(v) if is_listed => Some(v.dataset_state.clone()),
            _ => file_state(file).map_err(unreadable)?,
        };
        if made_from.as_deref() != Some(stamp.as_str()) {
            let from = made_from.map_or_else(
                || "an older robots-census that did not record it".to_owned(),
                |s| format!("dataset state {s}"),
            );
            return Ok(Entry::Stale(format!(
                "{} was made from {from}, but {root} is now {stamp} (run again, resumed or overwritten since): {} again",
                file.display(),
                made_by(table, root)
            )));
        }
    }
    Ok(Entry::Present(files))
}

/// The [`STATE_FILE`] of a derived table's directory, if there is one.
fn state_file(table_dir: &Path) -> Result<Option<StateFile>, String> {
    let path = table_dir.join(STATE_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The [`STATE_KEY`] value of a Parquet file's footer, if any.
fn file_state(path: &Path) -> Result<Option<String>, String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = SerializedFileReader::new(file).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|kv| kv.key == STATE_KEY))
        .and_then(|kv| kv.value.clone()))
}
