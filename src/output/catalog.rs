//! Which files make each table of a dataset, by name: what every reader of a dataset
//! (the study engine, DuckDB's `_views.sql`, the `sites`/`changes`/`report` steps)
//! reads, so that none of them reads a part of an unfinished task or a derived table
//! made from another run.
//!
//! - A run table (`documents` ... `readings`) is the parts listed in the manifests of
//!   finished tasks of this dataset (same fingerprint as `_dataset.json`). A part on
//!   disk that no manifest lists (a task still running, or killed) is not read.
//! - A derived table (`sites`, `ranks`, `changes`) records the [`DatasetState`] it was
//!   made from (the settings fingerprint and the finished tasks) in every file's
//!   Parquet key-value metadata under [`STATE_KEY`]. A derived table made before
//!   `run --overwrite` or `--resume` changed the run's tables is stale, and is refused
//!   by name with the command that makes it again; so is a file that records none.
//! - A task manifest that exists but cannot be read is an error naming it, never a
//!   smaller census.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::dataset::{self, DatasetMeta, FORMAT_VERSION};
use super::{OutTarget, Table};

/// The Parquet key-value metadata key of a derived table's [`DatasetState`].
pub const STATE_KEY: &str = "robots_census.dataset_state";

/// The Parquet key-value metadata key of the crawl a derived file holds (a partition
/// of `sites`).
pub const CRAWL_KEY: &str = "robots_census.crawl";

/// Why a dataset cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{0} is not a robots-census dataset (no {file}): run `robots-census run ... --out {0}` first", file = dataset::DATASET_FILE)]
    NotADataset(String),
    #[error("{out} was written by another version of robots-census (format {found}, this one reads {FORMAT_VERSION}): run it again with --overwrite")]
    OtherVersion { out: String, found: u32 },
    /// A task's manifest exists but cannot be read: its rows would silently go missing.
    #[error("{0} (reading the dataset without it would drop that task's rows: restore the file, or remove it and run the same command with --resume to redo the task)")]
    Manifest(String),
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

/// One part file of a run table, as its task's manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Where it is: under the dataset's directory, or its `s3://` URL.
    pub path: PathBuf,
    /// Relative to the dataset root, `/`-separated.
    pub rel: String,
    pub crawl: String,
    pub rows: u64,
}

/// The tables of one dataset, by name.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The dataset root as given (a local directory, or an `s3://` URL).
    pub root: String,
    /// A local dataset's directory, canonical: every path of [`Catalog::files`] is under
    /// it (the study engine's table locations).
    #[cfg(feature = "study")]
    pub dir: Option<PathBuf>,
    pub state: DatasetState,
    tables: BTreeMap<&'static str, Entry>,
    /// The part files of each run table, in path order.
    parts: BTreeMap<&'static str, Vec<Part>>,
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
        let mut manifests: Vec<dataset::TaskManifest> = Vec::new();
        for task in &names {
            let manifest = out.read_manifest(task).map_err(CatalogError::Manifest)?;
            manifests.extend(manifest.filter(|m| DatasetState::counts(&meta, m)));
        }
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
        let mut all_parts = BTreeMap::new();
        for table in Table::ALL {
            let mut parts: Vec<Part> = manifests
                .iter()
                .flat_map(|m| &m.files)
                .filter(|f| f.table == table.name())
                .map(|f| Part {
                    path: match &local {
                        Some(dir) => dir.join(&f.path),
                        None => PathBuf::from(format!("{root}/{}", f.path)),
                    },
                    rel: f.path.clone(),
                    crawl: f.crawl.clone(),
                    rows: f.rows,
                })
                .collect();
            parts.sort_by(|a, b| a.path.cmp(&b.path));
            let files: Vec<PathBuf> = parts.iter().map(|p| p.path.clone()).collect();
            all_parts.insert(table.name(), parts);
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
            let (entry, parts) = derived(out, local.as_deref(), table, &state, &root)?;
            tables.insert(table.name(), entry);
            all_parts.insert(table.name(), parts);
        }
        Ok(Catalog {
            root,
            #[cfg(feature = "study")]
            dir: local,
            state,
            tables,
            parts: all_parts,
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

    /// The part files of `table`: of a run table as the manifests of finished tasks
    /// list them; of a derived table as their footers say (none when it is stale).
    pub fn parts(&self, table: Table) -> &[Part] {
        self.parts.get(table.name()).map_or(&[], Vec::as_slice)
    }

    /// The crawls of `table`: those of its parts holding rows. A task whose inputs gave
    /// no document (an unreadable input) writes empty parts under a crawl of its own
    /// (`unknown`); that is no crawl of the dataset, and no step has to decide it.
    pub fn crawls(&self, table: Table) -> std::collections::BTreeSet<String> {
        self.parts(table)
            .iter()
            .filter(|p| p.rows > 0)
            .map(|p| p.crawl.clone())
            .collect()
    }

    /// The crawls `table` has a partition of, with rows or not: a derived table's
    /// decision for a crawl may hold no row (a crawl of no robots.txt URL has no site).
    pub fn partitions(&self, table: Table) -> std::collections::BTreeSet<String> {
        self.parts(table).iter().map(|p| p.crawl.clone()).collect()
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
/// A derived table's entry (its files when every one was made from `state`), and its
/// parts, each file's crawl and rows read from its footer.
fn derived(
    out: &OutTarget,
    local: Option<&Path>,
    table: Table,
    state: &DatasetState,
    root: &str,
) -> Result<(Entry, Vec<Part>), CatalogError> {
    let unreadable = |detail: String| CatalogError::Unreadable {
        out: root.to_owned(),
        detail,
    };
    let rels: Vec<String> = out
        .files_under(table.name())
        .map_err(unreadable)?
        .into_iter()
        .filter(|rel| rel.ends_with(".parquet"))
        // Hidden names are temporaries being written.
        .filter(|rel| !rel.rsplit('/').next().unwrap_or_default().starts_with('.'))
        .collect();
    let files: Vec<PathBuf> = rels
        .iter()
        .map(|rel| match local {
            Some(dir) => dir.join(rel),
            None => PathBuf::from(format!("{root}/{rel}")),
        })
        .collect();
    if files.is_empty() {
        return Ok((
            Entry::Absent(format!(
                "{root} has no {} table: {}",
                table.name(),
                made_by(table, root)
            )),
            Vec::new(),
        ));
    }
    let stamp = state.stamp();
    let mut parts = Vec::with_capacity(files.len());
    for (file, rel) in files.iter().zip(&rels) {
        let footer = footer_of(out, file).map_err(unreadable)?;
        let made_from = footer.value(STATE_KEY);
        if made_from.as_deref() != Some(stamp.as_str()) {
            let from = made_from.map_or_else(
                || "an older robots-census that did not record it".to_owned(),
                |s| format!("dataset state {s}"),
            );
            return Ok((Entry::Stale(format!(
                "{} was made from {from}, but {root} is now {stamp} (run again, resumed or overwritten since): {} again",
                file.display(),
                made_by(table, root)
            )), Vec::new()));
        }
        parts.push(Part {
            path: file.clone(),
            rel: rel.clone(),
            crawl: footer.value(CRAWL_KEY).unwrap_or_default(),
            rows: footer.rows,
        });
    }
    Ok((Entry::Present(files), parts))
}

/// What the steps read of a derived file's footer: its key-value metadata and rows.
struct Footer {
    values: Vec<(String, Option<String>)>,
    rows: u64,
}

impl Footer {
    fn value(&self, key: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.clone())
    }
}

/// A Parquet file's footer: the footer alone is read (two ranges of an object on S3).
fn footer_of(out: &OutTarget, path: &Path) -> Result<Footer, String> {
    let name = || path.display().to_string();
    let size = out.file_size(path).map_err(|e| e.to_string())?;
    if size < 12 {
        return Err(format!("{}: not a Parquet file ({size} bytes)", name()));
    }
    let tail = out
        .read_range(path, size - 8..size)
        .map_err(|e| e.to_string())?;
    if tail.get(4..) != Some(b"PAR1".as_slice()) {
        return Err(format!(
            "{}: not a Parquet file (no PAR1 at its end)",
            name()
        ));
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    let start = (size - 8)
        .checked_sub(footer)
        .ok_or_else(|| format!("{}: a footer longer than the file", name()))?;
    let bytes = out
        .read_range(path, start..size - 8)
        .map_err(|e| e.to_string())?;
    let meta = parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&bytes)
        .map_err(|e| format!("{}: {e}", name()))?;
    let file = meta.file_metadata();
    Ok(Footer {
        values: file
            .key_value_metadata()
            .map(|kv| {
                kv.iter()
                    .map(|kv| (kv.key.clone(), kv.value.clone()))
                    .collect()
            })
            .unwrap_or_default(),
        rows: u64::try_from(file.num_rows()).unwrap_or(0),
    })
}
