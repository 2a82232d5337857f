//! Reading a dataset's tables back, for the steps that work from a finished run
//! (`sites`, `changes`, `report`): the part files of a table, found recursively so
//! both the flat `<table>/<part>.parquet` and the Hive `<table>/crawl=<CRAWL>/` layouts
//! are read, and their record batches holding only the columns a step needs.
//!
//! Every error names the file, and the column when one is missing or of another type.

use crate::limits::READ_BATCH_ROWS;
use crate::output::rows::DocId;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::ProjectionMask;

/// Why a table could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Parquet file {path}: {source}")]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("{path}: column {column} is missing or has an unexpected type (a table from an older robots-census? run the step that writes it again)")]
    Column { path: PathBuf, column: String },
}

impl ReadError {
    /// Column `column` of `path` is missing or not of the type expected.
    pub fn column(path: &Path, column: &str) -> ReadError {
        ReadError::Column {
            path: path.to_owned(),
            column: column.to_owned(),
        }
    }
}

/// Every `*.parquet` file under `dir` (a table's directory), in path order; none when
/// `dir` does not exist.
pub fn part_files(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(|e| ReadError::Io {
            path: e.path().unwrap_or(dir).to_owned(),
            source: e.into(),
        })?;
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "parquet") {
            files.push(entry.into_path());
        }
    }
    files.sort();
    Ok(files)
}

/// The record batches of the part file `path`, holding only `columns` (each must be
/// there).
pub fn batches(
    path: &Path,
    columns: &[&str],
) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
    let file = open(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet_err(path))?;
    reader(path, builder, columns)
}

/// One row group of a part file, its footer read once for the whole file: the unit
/// [`in_parallel`] hands to a thread.
pub struct RowGroup<'a> {
    pub path: &'a Path,
    meta: ArrowReaderMetadata,
    index: usize,
}

impl RowGroup<'_> {
    /// [`batches`] of this row group only.
    pub fn batches(
        &self,
        columns: &[&str],
    ) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
        let file = open(self.path)?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone())
            .with_row_groups(vec![self.index]);
        reader(self.path, builder, columns)
    }
}

/// Reads every row group of `files` with `read`, as many at once as the pool has
/// threads, and hands the results to `keep` in file and row-group order, so what is kept
/// does not depend on the thread count; only that many results wait beside it.
pub fn in_parallel<T, E>(
    files: &[PathBuf],
    read: impl Fn(&RowGroup<'_>) -> Result<T, E> + Sync,
    mut keep: impl FnMut(T),
) -> Result<(), E>
where
    T: Send,
    E: From<ReadError> + Send,
{
    use rayon::prelude::*;
    let mut units = Vec::new();
    for path in files {
        let meta = ArrowReaderMetadata::load(&open(path)?, ArrowReaderOptions::default())
            .map_err(parquet_err(path))?;
        units.extend((0..meta.metadata().num_row_groups()).map(|index| RowGroup {
            path,
            meta: meta.clone(),
            index,
        }));
    }
    for some in units.chunks(rayon::current_num_threads().max(1)) {
        let done: Vec<T> = some.par_iter().map(&read).collect::<Result<_, E>>()?;
        done.into_iter().for_each(&mut keep);
    }
    Ok(())
}

fn open(path: &Path) -> Result<File, ReadError> {
    File::open(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })
}

fn parquet_err(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> ReadError + '_ {
    move |source| ReadError::Parquet {
        path: path.to_owned(),
        source,
    }
}

/// The batches of `builder` (a file, or some of its row groups) holding only `columns`.
fn reader(
    path: &Path,
    builder: ParquetRecordBatchReaderBuilder<File>,
    columns: &[&str],
) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
    if let Some(missing) = columns
        .iter()
        .find(|c| builder.schema().field_with_name(c).is_err())
    {
        return Err(ReadError::column(path, missing));
    }
    let mask = ProjectionMask::columns(builder.parquet_schema(), columns.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(READ_BATCH_ROWS)
        .build()
        .map_err(parquet_err(path))?;
    let path = path.to_owned();
    Ok(reader.map(move |batch| {
        batch.map_err(|e| ReadError::Parquet {
            path: path.clone(),
            source: e.into(),
        })
    }))
}

/// Sorted doc ids, asked about rows that come grouped by capture (every table of a run
/// writes a capture's rows together): the answer for the row before is reused.
pub(crate) struct Wanted<'a> {
    ids: &'a [DocId],
    last: Option<(DocId, bool)>,
}

impl<'a> Wanted<'a> {
    pub(crate) fn new(ids: &'a [DocId]) -> Self {
        Wanted { ids, last: None }
    }

    pub(crate) fn contains(&mut self, id: DocId) -> bool {
        match self.last {
            Some((last, answer)) if last == id => answer,
            _ => {
                let answer = self.ids.binary_search(&id).is_ok();
                self.last = Some((id, answer));
                answer
            }
        }
    }
}

/// Agent names numbered as first seen, for tables that list the agents of a capture (or
/// of a site) together and in one order: the name at the same position in the group
/// before is tried first, a hash look-up only when it differs.
#[derive(Debug, Default)]
pub(crate) struct AgentNumbers {
    /// The names, by number.
    pub(crate) names: Vec<String>,
    index: HashMap<String, usize>,
    by_position: Vec<usize>,
}

impl AgentNumbers {
    /// The number of `name`, the `position`-th agent of its group.
    pub(crate) fn number(&mut self, position: usize, name: &str) -> usize {
        if let Some(&a) = self.by_position.get(position) {
            if self.names[a] == name {
                return a;
            }
        }
        let a = match self.index.get(name) {
            Some(&a) => a,
            None => {
                self.names.push(name.to_owned());
                self.index.insert(name.to_owned(), self.names.len() - 1);
                self.names.len() - 1
            }
        };
        if self.by_position.len() <= position {
            self.by_position.resize(position + 1, a);
        }
        self.by_position[position] = a;
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Int32Array, StringArray};
    use parquet::arrow::ArrowWriter;

    fn write(path: &Path) {
        let batch = RecordBatch::try_from_iter([
            ("a", Arc::new(Int32Array::from(vec![1, 2, 3])) as _),
            ("b", Arc::new(StringArray::from(vec!["x", "y", "z"])) as _),
        ])
        .expect("batch");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let mut writer =
            ArrowWriter::try_new(File::create(path).expect("create"), batch.schema(), None)
                .expect("writer");
        writer.write(&batch).expect("write");
        writer.close().expect("close");
    }

    #[test]
    fn parts_are_found_in_both_layouts_in_path_order_and_projected() {
        let dir = std::env::temp_dir().join(format!("rc-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let table = dir.join("t");
        for part in ["crawl=B/p0.parquet", "crawl=A/p1.parquet", "flat.parquet"] {
            write(&table.join(part));
        }
        std::fs::write(table.join("crawl=A/_manifest.json"), b"{}").expect("write");
        let files = part_files(&table).expect("list");
        let names: Vec<_> = files
            .iter()
            .map(|f| {
                f.strip_prefix(&table)
                    .expect("under")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            ["crawl=A/p1.parquet", "crawl=B/p0.parquet", "flat.parquet"]
        );
        assert!(part_files(&dir.join("absent")).expect("absent").is_empty());

        let read: Vec<RecordBatch> = batches(&files[0], &["b"])
            .expect("open")
            .collect::<Result<_, _>>()
            .expect("read");
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].num_columns(), 1);
        assert_eq!(read[0].schema().field(0).name(), "b");
        assert_eq!(read[0].num_rows(), 3);

        let err = batches(&files[0], &["a", "nope"])
            .err()
            .expect("missing column");
        assert!(
            matches!(&err, ReadError::Column { path, column } if path == &files[0] && column == "nope"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn wanted_answers_repeated_ids_as_a_binary_search_would() {
        let ids: Vec<DocId> = vec![[1; 16], [4; 16], [9; 16]];
        let mut wanted = Wanted::new(&ids);
        for d in [1u8, 1, 2, 2, 4, 9, 9, 3, 1, 10] {
            assert_eq!(
                wanted.contains([d; 16]),
                ids.binary_search(&[d; 16]).is_ok(),
                "{d}"
            );
        }
    }
}
