//! Reading a dataset's tables back, for the steps that work from a finished run
//! (`sites`, `changes`, `report`): the part files of a table, found recursively so
//! both the flat `<table>/<part>.parquet` and the Hive `<table>/crawl=<CRAWL>/` layouts
//! are read, and their record batches holding only the columns a step needs.
//!
//! Every error names the file, and the column when one is missing or of another type.

use crate::limits::READ_BATCH_ROWS;
use crate::output::ids::{Ids, SortedIds, Wanted};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::{ArrowError, DataType, FieldRef, Schema};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    RowFilter, RowSelection,
};
use parquet::arrow::ProjectionMask;
use parquet::file::statistics::Statistics;

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

/// The rows of the part file `path`, from its footer alone.
pub fn file_rows(path: &Path) -> Result<usize, ReadError> {
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(open(path)?).map_err(parquet_err(path))?;
    Ok(usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0))
}

/// A row group's minimum and maximum of a string column, when its statistics have them.
pub type Bounds<'a> = Option<(&'a [u8], &'a [u8])>;

/// [`batches`] of the row groups of `path` whose min/max statistics of the string
/// column `key` `may_hold` a wanted value (called with the minimum and maximum, `None`
/// when the row group has no statistics for it: then it is read). A table written in
/// order of `key` is read a range at a time this way without decoding the rest.
pub fn batches_where(
    path: &Path,
    columns: &[&str],
    key: &str,
    may_hold: impl Fn(Bounds<'_>) -> bool,
) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(open(path)?).map_err(parquet_err(path))?;
    let leaf = builder
        .parquet_schema()
        .columns()
        .iter()
        .position(|c| c.path().parts() == [key])
        .ok_or_else(|| ReadError::column(path, key))?;
    let groups: Vec<usize> = (0..builder.metadata().num_row_groups())
        .filter(|&i| {
            let stats = builder.metadata().row_group(i).column(leaf).statistics();
            may_hold(match stats {
                // Bounds even when truncated: a cut minimum is a prefix of the
                // true one, a cut maximum is rounded up by the writer.
                Some(Statistics::ByteArray(s)) => s.min_bytes_opt().zip(s.max_bytes_opt()),
                _ => None,
            })
        })
        .collect();
    reader(path, builder.with_row_groups(groups), columns)
}

/// One row group of a part file, its footer read once for the whole file: the unit
/// [`in_parallel`] hands to a thread.
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

    /// The rows of the whole file.
    pub fn file_rows(&self) -> u64 {
        u64::try_from(self.meta.metadata().file_metadata().num_rows()).unwrap_or(0)
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

/// Which rows of a row group [`RowGroup::rows_of`] decodes.
pub enum Pick {
    /// Every row; the reader picks the wanted.
    All,
    /// The wanted captures' rows only, by a Parquet row filter on `doc_id`: cheaper
    /// when they are few, dearer when they are about half the rows. Every `doc_id`
    /// is still decoded.
    Filter,
    /// These rows of the row group only (where the caller knows the wanted rows are):
    /// no other `doc_id` is decoded. The caller checks the ids it gets.
    Rows(RowSelection),
}

/// What [`RowGroup::rows_of`] reads: the rows of some captures, and one string column
/// as a dictionary.
pub struct RowsOf {
    /// The captures wanted.
    pub wanted: Arc<SortedIds>,
    /// Which rows are decoded.
    pub pick: Pick,
    /// A string column read as a dictionary (keys and the row group's values: its
    /// strings are not copied per row).
    pub dictionary: &'static str,
    /// More string columns read as dictionaries (their values are not collected).
    pub dictionaries: &'static [&'static str],
    /// With [`Pick::Filter`], every value of `dictionary` in the row group, wanted
    /// rows or not; with [`Pick::Rows`], every value of the batches read (the row
    /// group's dictionary); in the order first met.
    pub values: Arc<Mutex<Vec<String>>>,
}

impl RowGroup<'_> {
    /// [`RowGroup::batches`] with one column read as a dictionary, and the rows
    /// [`RowsOf::pick`] says: with a filter or a selection, the other columns are
    /// decoded for the wanted rows alone, which is what makes reading a table for a
    /// few of its captures cheap. Rows come grouped by capture (every table of a run
    /// writes a capture's rows together), so the answer of the row before is reused.
    pub fn rows_of(
        &self,
        columns: &[&str],
        of: &RowsOf,
    ) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, ReadError> {
        let path = self.path;
        let schema = self.meta.schema();
        let as_dictionary =
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let fields: Vec<FieldRef> = schema
            .fields()
            .iter()
            .map(|f| {
                match (f.name() == of.dictionary || of.dictionaries.contains(&f.name().as_str()))
                    && f.data_type() == &DataType::Utf8
                {
                    true => Arc::new(f.as_ref().clone().with_data_type(as_dictionary.clone())),
                    false => f.clone(),
                }
            })
            .collect();
        let hinted = Schema::new_with_metadata(fields, schema.metadata().clone());
        let options = ArrowReaderOptions::new().with_schema(Arc::new(hinted));
        let meta = ArrowReaderMetadata::try_new(self.meta.metadata().clone(), options)
            .map_err(parquet_err(path))?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(open(path)?, meta)
            .with_row_groups(vec![self.index]);
        for column in ["doc_id", of.dictionary] {
            if builder.schema().field_with_name(column).is_err() {
                return Err(ReadError::column(path, column));
            }
        }
        let (builder, note) = match &of.pick {
            Pick::All => (builder, false),
            Pick::Filter => (filtered(builder, of), false),
            Pick::Rows(selection) => (builder.with_row_selection(selection.clone()), true),
        };
        let (values, dictionary, path) = (of.values.clone(), of.dictionary, path.to_owned());
        Ok(reader(&path, builder, columns)?.map(move |batch| {
            let batch = batch?;
            if note {
                note_values(&values, &batch, dictionary)
                    .ok_or_else(|| ReadError::column(&path, dictionary))?;
            }
            Ok(batch)
        }))
    }
}

/// Adds to `values` the values of column `dictionary` of `batch` (a dictionary) not
/// yet in it; `None` when the column is not a dictionary of strings.
fn note_values(values: &Mutex<Vec<String>>, batch: &RecordBatch, dictionary: &str) -> Option<()> {
    let names = batch
        .column_by_name(dictionary)?
        .as_any_dictionary_opt()?
        .values()
        .as_string_opt::<i32>()?;
    let mut seen = values.lock().ok()?;
    for name in names.iter().flatten() {
        if !seen.iter().any(|s| s == name) {
            seen.push(name.to_owned());
        }
    }
    Some(())
}

/// `builder` with a row filter that passes the rows of [`RowsOf::wanted`], collecting
/// every value of [`RowsOf::dictionary`] on the way.
fn filtered(
    builder: ParquetRecordBatchReaderBuilder<File>,
    of: &RowsOf,
) -> ParquetRecordBatchReaderBuilder<File> {
    let mask = ProjectionMask::columns(builder.parquet_schema(), ["doc_id", of.dictionary]);
    let (values, dictionary) = (of.values.clone(), of.dictionary);
    let mut wanted = Wanted::new(of.wanted.clone());
    let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
        let unexpected = |c: &str| ArrowError::SchemaError(format!("column {c}: unexpected type"));
        note_values(&values, &batch, dictionary).ok_or_else(|| unexpected("dictionary"))?;
        let ids = batch
            .column_by_name("doc_id")
            .and_then(|c| Ids::of(c.as_ref()))
            .ok_or_else(|| unexpected("doc_id"))?;
        Ok(BooleanArray::from(wanted.rows(&ids, batch.num_rows())))
    });
    builder.with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
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
    fn batches_where_skips_the_row_groups_whose_statistics_rule_them_out() {
        use parquet::file::properties::{EnabledStatistics, WriterProperties};
        let dir = std::env::temp_dir().join(format!("rc-read-where-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        // Six sorted names in row groups of two: [a, b], [c, d], [e, f].
        let names = ["a", "b", "c", "d", "e", "f"];
        let batch = RecordBatch::try_from_iter([(
            "site",
            Arc::new(StringArray::from(names.to_vec())) as arrow_array::ArrayRef,
        )])
        .expect("batch");
        let read = |path: &Path, may_hold: &dyn Fn(Bounds<'_>) -> bool| {
            let mut got = Vec::new();
            for b in batches_where(path, &["site"], "site", may_hold).expect("open") {
                let b = b.expect("batch");
                let col = b.column(0).as_string::<i32>();
                got.extend((0..b.num_rows()).map(|i| col.value(i).to_owned()));
            }
            got
        };
        for (file, statistics) in [
            ("stats", EnabledStatistics::Chunk),
            ("none", EnabledStatistics::None),
        ] {
            let path = dir.join(format!("{file}.parquet"));
            let props = WriterProperties::builder()
                .set_max_row_group_row_count(Some(2))
                .set_statistics_enabled(statistics)
                .build();
            let mut writer = ArrowWriter::try_new(
                File::create(&path).expect("create"),
                batch.schema(),
                Some(props),
            )
            .expect("writer");
            writer.write(&batch).expect("write");
            writer.close().expect("close");
            let from_c = |b: Bounds<'_>| b.is_none_or(|(_, max)| max >= b"c".as_slice());
            let got = read(&path, &from_c);
            if statistics == EnabledStatistics::None {
                assert_eq!(got, names, "no statistics: every row group is read");
            } else {
                assert_eq!(got, ["c", "d", "e", "f"], "the first row group is skipped");
                assert!(read(&path, &|_| false).is_empty());
            }
        }
        assert!(matches!(
            batches_where(&dir.join("stats.parquet"), &["site"], "host", |_| true).err(),
            Some(ReadError::Column { .. })
        ));
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
