//! Reading a dataset's tables back, for the steps that work from a finished run
//! (`sites`, `changes`, `report`): the part files of a table, found recursively so
//! both the flat `<table>/<part>.parquet` and the Hive `<table>/crawl=<CRAWL>/` layouts
//! are read, and their record batches holding only the columns a step needs.
//!
//! Every error names the file, and the column when one is missing or of another type.

use crate::limits::READ_BATCH_ROWS;
use crate::output::rows::DocId;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
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
    batches_in(path, columns, None)
}

/// The number of row groups of the part file `path` (the units a step can read in
/// parallel with [`batches_in`]).
pub fn row_groups(path: &Path) -> Result<usize, ReadError> {
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|source| ReadError::Parquet {
            path: path.to_owned(),
            source,
        })?;
    Ok(builder.metadata().num_row_groups())
}

/// [`batches`] of the row groups `groups` only (all of them with None).
pub fn batches_in(
    path: &Path,
    columns: &[&str],
    groups: Option<Vec<usize>>,
) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
    let parquet = |source| ReadError::Parquet {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet)?;
    if let Some(missing) = columns
        .iter()
        .find(|c| builder.schema().field_with_name(c).is_err())
    {
        return Err(ReadError::column(path, missing));
    }
    let mask = ProjectionMask::columns(builder.parquet_schema(), columns.iter().copied());
    let builder = match groups {
        Some(groups) => builder.with_row_groups(groups),
        None => builder,
    };
    let reader = builder
        .with_projection(mask)
        .with_batch_size(READ_BATCH_ROWS)
        .build()
        .map_err(parquet)?;
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
