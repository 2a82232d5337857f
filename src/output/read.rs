//! Reading a dataset's tables back, for the steps that work from a finished run
//! (`sites`, `changes`, `report`): the part files of a table, found recursively so
//! both the flat `<table>/<part>.parquet` and the Hive `<table>/crawl=<CRAWL>/` layouts
//! are read, and their record batches holding only the columns a step needs.
//!
//! Every error names the file, and the column when one is missing or of another type.

use crate::limits::READ_BATCH_ROWS;
use crate::output::ids::Ids;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
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
#[cfg(test)]
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

/// Typed access to one column of a batch, with errors naming the file and the column.
pub(crate) struct Columns<'a> {
    pub(crate) batch: &'a RecordBatch,
    pub(crate) path: &'a Path,
}

impl<'a> Columns<'a> {
    pub(crate) fn get(&self, name: &str) -> Result<&'a dyn Array, ReadError> {
        self.batch
            .column_by_name(name)
            .map(|c| c.as_ref())
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn wrong(&self, name: &str) -> ReadError {
        ReadError::column(self.path, name)
    }

    pub(crate) fn str(&self, name: &str) -> Result<&'a arrow_array::StringArray, ReadError> {
        self.get(name)?
            .as_string_opt::<i32>()
            .ok_or_else(|| self.wrong(name))
    }

    /// A `doc_id` column (see [`Ids::of`]).
    pub(crate) fn ids(&self, name: &str) -> Result<Ids<'a>, ReadError> {
        Ids::of(self.get(name)?).ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn i64(&self, name: &str) -> Result<&'a arrow_array::Int64Array, ReadError> {
        self.get(name)?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn i32(&self, name: &str) -> Result<&'a arrow_array::Int32Array, ReadError> {
        self.get(name)?
            .as_primitive_opt::<Int32Type>()
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn bool(&self, name: &str) -> Result<&'a arrow_array::BooleanArray, ReadError> {
        self.get(name)?
            .as_boolean_opt()
            .ok_or_else(|| self.wrong(name))
    }

    pub(crate) fn time(
        &self,
        name: &str,
    ) -> Result<&'a arrow_array::TimestampMicrosecondArray, ReadError> {
        self.get(name)?
            .as_primitive_opt::<TimestampMicrosecondType>()
            .ok_or_else(|| self.wrong(name))
    }
}

pub(crate) fn opt(a: &arrow_array::StringArray, i: usize) -> Option<&str> {
    a.is_valid(i).then(|| a.value(i))
}

/// One row group of a part file, its footer read once for the whole file: the unit
/// a step hands to one thread.
pub struct RowGroup<'a> {
    pub path: &'a Path,
    /// The position of `path` in the files read.
    pub file: usize,
    meta: ArrowReaderMetadata,
    index: usize,
}

impl RowGroup<'_> {
    /// The rows of the file this row group holds, numbered from the file's first.
    pub fn rows(&self) -> std::ops::Range<u64> {
        let groups = self.meta.metadata().row_groups();
        let count = |g: &parquet::file::metadata::RowGroupMetaData| {
            u64::try_from(g.num_rows()).unwrap_or(0)
        };
        let start: u64 = groups.iter().take(self.index).map(count).sum();
        start..start + groups.get(self.index).map_or(0, count)
    }

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

/// Every row group of `files`, in file and row-group order, each file's footer read once.
pub fn row_groups(files: &[PathBuf]) -> Result<Vec<RowGroup<'_>>, ReadError> {
    let mut units = Vec::new();
    for (file, path) in files.iter().enumerate() {
        let meta = ArrowReaderMetadata::load(&open(path)?, ArrowReaderOptions::default())
            .map_err(parquet_err(path))?;
        units.extend((0..meta.metadata().num_row_groups()).map(|index| RowGroup {
            path,
            file,
            meta: meta.clone(),
            index,
        }));
    }
    Ok(units)
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
}
