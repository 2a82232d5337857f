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
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_schema::{ArrowError, DataType, FieldRef, Schema};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    RowFilter,
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

/// What [`RowGroup::rows_of`] reads: the rows of some captures, and one string column
/// as a dictionary.
pub struct RowsOf {
    /// The captures wanted.
    pub wanted: Arc<SortedIds>,
    /// Whether only the wanted captures' rows are decoded (a Parquet row filter on
    /// `doc_id`: cheaper when they are few, dearer when they are about half the rows);
    /// otherwise every row comes, and the reader picks.
    pub filter: bool,
    /// A string column read as a dictionary (keys and the row group's values: its
    /// strings are not copied per row).
    pub dictionary: &'static str,
    /// More string columns read as dictionaries (their values are not collected).
    pub dictionaries: &'static [&'static str],
    /// With `filter`: every value of `dictionary` in the row group, wanted rows or
    /// not, in the order first met.
    pub values: Arc<Mutex<Vec<String>>>,
}

impl RowGroup<'_> {
    /// [`RowGroup::batches`] with one column read as a dictionary, and with
    /// [`RowsOf::filter`] only the rows whose `doc_id` is wanted: the other columns
    /// are then decoded for those rows alone, which is what makes reading a table for
    /// a few of its captures cheap. Rows come grouped by capture (every table of a run
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
        if !of.filter {
            return Ok(EitherRows::All(reader(path, builder, columns)?));
        }
        let mask = ProjectionMask::columns(builder.parquet_schema(), ["doc_id", of.dictionary]);
        let (values, dictionary) = (of.values.clone(), of.dictionary);
        let mut wanted = Wanted::new(of.wanted.clone());
        let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
            let unexpected =
                |c: &str| ArrowError::SchemaError(format!("column {c}: unexpected type"));
            let names = batch
                .column_by_name(dictionary)
                .and_then(|c| c.as_any_dictionary_opt())
                .and_then(|d| d.values().as_string_opt::<i32>().cloned())
                .ok_or_else(|| unexpected("dictionary"))?;
            {
                let mut seen = values.lock().map_err(|_| unexpected("dictionary"))?;
                for name in names.iter().flatten() {
                    if !seen.iter().any(|s| s == name) {
                        seen.push(name.to_owned());
                    }
                }
            }
            let ids = batch
                .column_by_name("doc_id")
                .and_then(|c| Ids::of(c.as_ref()))
                .ok_or_else(|| unexpected("doc_id"))?;
            Ok(BooleanArray::from(wanted.rows(&ids, batch.num_rows())))
        });
        let builder = builder.with_row_filter(RowFilter::new(vec![Box::new(predicate)]));
        Ok(EitherRows::Filtered(reader(path, builder, columns)?))
    }
}

/// The batches of [`RowGroup::rows_of`], filtered or not (one iterator type).
enum EitherRows<A, B> {
    All(A),
    Filtered(B),
}

impl<A, B> Iterator for EitherRows<A, B>
where
    A: Iterator<Item = Result<RecordBatch, ReadError>>,
    B: Iterator<Item = Result<RecordBatch, ReadError>>,
{
    type Item = Result<RecordBatch, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            EitherRows::All(a) => a.next(),
            EitherRows::Filtered(b) => b.next(),
        }
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

/// A `doc_id` column read as [`DocId`]s.
pub(crate) enum Ids<'a> {
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
    Binary(&'a arrow_array::BinaryArray),
}

impl<'a> Ids<'a> {
    /// 16-byte ids, as robots-census writes them (a Parquet UUID, fixed-size binary) or
    /// as Spark does (binary: the Spark SQL sites step), every value 16 bytes long;
    /// `None` for any other column.
    pub(crate) fn of(column: &'a dyn Array) -> Option<Ids<'a>> {
        if let Some(fixed) = column.as_fixed_size_binary_opt() {
            return (fixed.value_length() == 16).then_some(Ids::Fixed(fixed));
        }
        let binary = column.as_binary_opt::<i32>()?;
        let all_16 = (0..binary.len()).all(|i| binary.is_null(i) || binary.value(i).len() == 16);
        all_16.then_some(Ids::Binary(binary))
    }

    pub(crate) fn is_valid(&self, i: usize) -> bool {
        match self {
            Ids::Fixed(a) => a.is_valid(i),
            Ids::Binary(a) => a.is_valid(i),
        }
    }

    pub(crate) fn null_count(&self) -> usize {
        match self {
            Ids::Fixed(a) => a.null_count(),
            Ids::Binary(a) => a.null_count(),
        }
    }

    pub(crate) fn value(&self, i: usize) -> DocId {
        let bytes = match self {
            Ids::Fixed(a) => a.value(i),
            Ids::Binary(a) => a.value(i),
        };
        // 16 bytes (checked by `Ids::of`) but for a null slot's empty value.
        let mut id = [0u8; 16];
        let n = bytes.len().min(16);
        id[..n].copy_from_slice(&bytes[..n]);
        id
    }
}

/// A map keyed by capture id. A `doc_id` is SHA-1 bits, already evenly spread, so the
/// map takes its first eight bytes as the hash instead of hashing the sixteen again
/// (SipHash was about 3% of the sites step). A table written to collide only slows the
/// step down; the answers do not change.
pub type IdMap<V> = HashMap<DocId, V, BuildHasherDefault<IdHasher>>;

/// The hasher of [`IdMap`]: the first eight bytes of the id, as they are.
#[derive(Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // A `[u8; 16]` is hashed as its length, then its bytes in one `write`.
        let mut first = [0u8; 8];
        let n = bytes.len().min(8);
        first[..n].copy_from_slice(&bytes[..n]);
        self.0 ^= u64::from_le_bytes(first);
    }

    fn write_usize(&mut self, _length: usize) {}

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Capture ids, sorted, with an index on their leading bits: about one id per
/// bucket, so a look-up reads two adjacent bucket bounds and then one or two ids.
/// Doc ids are SHA-1 bits, so the buckets are even; ids that are not only make the
/// search in a bucket longer, never wrong. The look-ups a pass makes for every row of
/// a table were a binary search in 65,536 slices before, 6% of the 1M bench crawl's
/// `sites` samples (BENCHMARKS.md).
#[derive(Debug)]
pub struct SortedIds {
    ids: Vec<DocId>,
    /// `starts[b]..starts[b + 1]`: the ids whose leading `bits` bits are `b`.
    starts: Vec<u32>,
    bits: u32,
}

impl Default for SortedIds {
    fn default() -> Self {
        SortedIds::new(Vec::new())
    }
}

impl SortedIds {
    pub fn new(mut ids: Vec<DocId>) -> SortedIds {
        ids.sort_unstable();
        ids.dedup();
        // Callers pass ids with repeats (a site's start and end are often one capture):
        // the room of the repeats is given back, not held to the end of the pass.
        ids.shrink_to_fit();
        // A power of two at least the number of ids, within [2^8, 2^24]: u32 bounds
        // (a pass holds far fewer than 2^32 ids) cost 4 bytes an id at most.
        let bits = ids.len().next_power_of_two().trailing_zeros().clamp(8, 24);
        let buckets = 1usize << bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for b in 0..=buckets {
            while at < ids.len() && bucket(&ids[at], bits) < b {
                at += 1;
            }
            starts.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        SortedIds { ids, starts, bits }
    }

    /// The position of `id` among the ids, if it is one.
    pub fn position(&self, id: &DocId) -> Option<usize> {
        let b = bucket(id, self.bits);
        let (from, to) = (
            *self.starts.get(b)? as usize,
            *self.starts.get(b + 1)? as usize,
        );
        let slice = self.ids.get(from..to)?;
        // A binary search, so ids that crowd one bucket cost a log, not a scan.
        slice.binary_search(id).ok().map(|i| from + i)
    }

    pub fn contains(&self, id: &DocId) -> bool {
        self.position(id).is_some()
    }

    /// [`SortedIds::position`] of each of `ids`, appended to `out` in order. The
    /// look-ups of a batch do not depend on each other: made in phases over chunks
    /// (every bucket's bounds loaded, then the searches), their cache misses overlap,
    /// where one look-up after the other waits for each miss in turn. A pass's ids are
    /// megabytes, outside the caches, and a table is asked about each of its rows.
    pub fn positions(&self, ids: &[DocId], out: &mut Vec<Option<usize>>) {
        const CHUNK: usize = 32;
        out.reserve(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let mut bounds = [(0usize, 0usize); CHUNK];
            for (b, id) in bounds.iter_mut().zip(chunk) {
                let k = bucket(id, self.bits);
                *b = match (self.starts.get(k), self.starts.get(k + 1)) {
                    (Some(&from), Some(&to)) => (from as usize, to as usize),
                    _ => (0, 0),
                };
            }
            for (&(from, to), id) in bounds.iter().zip(chunk) {
                let found = self.ids.get(from..to).and_then(|slice| {
                    // Most buckets hold one id or none: the search is one comparison.
                    slice.binary_search(id).ok().map(|i| from + i)
                });
                out.push(found);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl AsRef<SortedIds> for SortedIds {
    fn as_ref(&self) -> &SortedIds {
        self
    }
}

/// The leading `bits` bits of an id (bits <= 24).
fn bucket(id: &DocId, bits: u32) -> usize {
    let lead = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
    (lead >> (32 - bits)) as usize
}

/// Ids asked about rows that come grouped by capture (every table of a run writes a
/// capture's rows together): the answer for the row before is reused. `S` is the
/// [`SortedIds`], borrowed or shared.
pub(crate) struct Wanted<S> {
    ids: S,
    /// The last run's id and its position among the wanted.
    last: Option<(DocId, Option<usize>)>,
}

impl<S: AsRef<SortedIds>> Wanted<S> {
    pub(crate) fn new(ids: S) -> Self {
        Wanted { ids, last: None }
    }

    /// Whether each row of a batch's `doc_id` column is wanted (a null id never is).
    pub(crate) fn rows(&mut self, ids: &Ids<'_>, rows: usize) -> Vec<bool> {
        let mut keep = vec![false; rows];
        self.each_run(ids, rows, |from, to, _| keep[from..to].fill(true));
        keep
    }

    /// The position among the wanted of each row's id ([`SortedIds::position`]; None
    /// for an id not wanted and for a null one).
    pub(crate) fn positions(&mut self, ids: &Ids<'_>, rows: usize) -> Vec<Option<usize>> {
        let mut found = vec![None; rows];
        self.each_run(ids, rows, |from, to, at| found[from..to].fill(Some(at)));
        found
    }

    /// Calls `answer(from, to, position)` for each span of rows whose id is wanted
    /// (a null id never is): one look-up per run of equal ids, the answer of the batch
    /// before's last run carried over, the batch's look-ups made together
    /// ([`SortedIds::positions`]). Made row by row, they were a third of what a second
    /// pass of the sites step added (BENCHMARKS.md).
    fn each_run(
        &mut self,
        ids: &Ids<'_>,
        rows: usize,
        mut answer: impl FnMut(usize, usize, usize),
    ) {
        let all_valid = ids.null_count() == 0;
        let valid = |i: usize| all_valid || ids.is_valid(i);
        // A run's answer holds up to the next run's first row, null rows excepted.
        let mut fill = |from: usize, to: usize, at: Option<usize>| {
            let Some(at) = at else { return };
            if all_valid {
                return answer(from, to, at);
            }
            let mut start = from;
            for i in from..to {
                if !valid(i) {
                    if start < i {
                        answer(start, i, at);
                    }
                    start = i + 1;
                }
            }
            if start < to {
                answer(start, to, at);
            }
        };
        let mut current = self.last.and_then(|(_, at)| at);
        let mut last = self.last.map(|(id, _)| id);
        // The first rows of the next runs and their ids, AHEAD at a time: enough for
        // the look-ups to overlap, few enough to hold nothing per row.
        const AHEAD: usize = 256;
        let (mut runs, mut asked) = (Vec::with_capacity(AHEAD), Vec::with_capacity(AHEAD));
        let mut found = Vec::with_capacity(AHEAD);
        let (mut from, mut i) = (0, 0);
        while i < rows {
            runs.clear();
            asked.clear();
            found.clear();
            while i < rows && runs.len() < AHEAD {
                if valid(i) {
                    let id = ids.value(i);
                    if last != Some(id) {
                        runs.push(i);
                        asked.push(id);
                        last = Some(id);
                    }
                }
                i += 1;
            }
            self.ids.as_ref().positions(&asked, &mut found);
            for (&run, &at) in runs.iter().zip(&found) {
                fill(from, run, current);
                (from, current) = (run, at);
            }
        }
        fill(from, rows, current);
        if let Some(id) = last {
            self.last = Some((id, current));
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

    /// A `doc_id` column of `ids` (`None`: a null row), as `Ids` reads it.
    fn id_column(ids: &[Option<DocId>]) -> arrow_array::FixedSizeBinaryArray {
        arrow_array::FixedSizeBinaryArray::try_from_sparse_iter_with_size(
            ids.iter().map(|id| id.as_ref().map(|id| id.as_slice())),
            16,
        )
        .expect("16-byte ids")
    }

    /// What `Wanted::positions` must answer: each row's id searched in the sorted list
    /// (`Wanted::rows`: whether it was found).
    fn searched(list: &[DocId], ids: &[Option<DocId>]) -> Vec<Option<usize>> {
        let mut sorted = list.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        ids.iter()
            .map(|id| id.and_then(|id| sorted.binary_search(&id).ok()))
            .collect()
    }

    fn found(positions: &[Option<usize>]) -> Vec<bool> {
        positions.iter().map(Option::is_some).collect()
    }

    #[test]
    fn wanted_answers_repeated_ids_as_a_binary_search_would() {
        let ids: Vec<DocId> = vec![[1; 16], [4; 16], [9; 16]];
        let sorted = SortedIds::new(ids.clone());
        let rows: Vec<Option<DocId>> = [1u8, 1, 0, 1, 2, 2, 4, 9, 9, 3, 1, 10, 0]
            .iter()
            .map(|&d| (d != 0).then_some([d; 16]))
            .collect();
        let (mut wanted, mut at) = (Wanted::new(&sorted), Wanted::new(&sorted));
        // Two batches, a run of 9s across them: the second starts from the first's answer.
        let (first, second) = rows.split_at(8);
        let mut answers = wanted.rows(&Ids::Fixed(&id_column(first)), first.len());
        answers.extend(wanted.rows(&Ids::Fixed(&id_column(second)), second.len()));
        let mut positions = at.positions(&Ids::Fixed(&id_column(first)), first.len());
        positions.extend(at.positions(&Ids::Fixed(&id_column(second)), second.len()));
        assert_eq!(positions, searched(&ids, &rows));
        assert_eq!(answers, found(&positions));
        let (n, a, b, c) = (None, Some(0), Some(1), Some(2));
        assert_eq!(positions, [a, a, n, a, n, n, b, c, c, n, a, n, n]);
    }

    #[test]
    fn sorted_ids_find_every_id_and_nothing_else() {
        // Ids crowded on a few prefixes, on the first and last, and spread.
        let mut ids: Vec<[u8; 16]> = (0u32..3000)
            .map(|n| {
                let mut id = [0u8; 16];
                id[..4].copy_from_slice(&(n.wrapping_mul(2_654_435_761)).to_be_bytes());
                id[15] = (n % 7) as u8;
                id
            })
            .collect();
        ids.extend([[0u8; 16], [0xff; 16], [0xff; 16]]);
        let sorted = SortedIds::new(ids.clone());
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(sorted.len(), ids.len());
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(sorted.position(id), Some(i));
            let mut other = *id;
            other[15] ^= 0x80;
            assert!(!sorted.contains(&other));
        }
        assert!(SortedIds::new(Vec::new()).position(&[7; 16]).is_none());
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

    proptest::proptest! {
        /// The bucket index finds exactly the ids a search of the whole sorted list
        /// finds: for SHA-1-like ids, and for ids crowded into a few buckets (leading
        /// bytes drawn from two values), at sizes on both sides of the bucket bounds.
        #[test]
        fn sorted_ids_find_what_a_search_of_the_list_finds(
            ids in proptest::collection::vec(proptest::array::uniform16(0u8..), 0..600),
            crowded in proptest::collection::vec(proptest::array::uniform16(0u8..2), 0..300),
            probes in proptest::collection::vec(proptest::array::uniform16(0u8..), 0..50),
        ) {
            for list in [&ids, &crowded] {
                let index = SortedIds::new(list.clone());
                let mut sorted = list.clone();
                sorted.sort_unstable();
                sorted.dedup();
                proptest::prop_assert_eq!(index.len(), sorted.len());
                let asked: Vec<DocId> = list.iter().chain(&probes).chain(&crowded).copied().collect();
                let mut batched = Vec::new();
                index.positions(&asked, &mut batched);
                proptest::prop_assert_eq!(batched.len(), asked.len());
                for (id, batched) in asked.iter().zip(batched) {
                    let expected = sorted.binary_search(id).ok();
                    proptest::prop_assert_eq!(index.position(id), expected);
                    proptest::prop_assert_eq!(batched, expected);
                }
            }
        }

        /// `Wanted::rows` and `positions` over batches of runs of equal ids, nulls among
        /// them, a run continuing from one batch into the next: each row's position is
        /// what a search of the sorted list finds for its id, and it is wanted exactly
        /// when one is found.
        #[test]
        fn wanted_rows_answer_each_row_as_a_search_would(
            list in proptest::collection::vec(proptest::array::uniform16(0u8..4), 0..40),
            runs in proptest::collection::vec(
                (proptest::option::weighted(0.9, 0usize..60), 1usize..5),
                0..120,
            ),
            cuts in proptest::collection::vec(0usize..400, 0..4),
        ) {
            // A run's id: one of the list's when `pick` falls in it (wanted), else
            // one made from `pick` (wanted only if it happens to be listed too).
            let id_of = |pick: usize| list.get(pick).copied().unwrap_or([pick as u8 % 4; 16]);
            let rows: Vec<Option<DocId>> = runs
                .iter()
                .flat_map(|&(pick, n)| std::iter::repeat_n(pick.map(id_of), n))
                .collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(rows.len())).collect();
            cuts.push(0);
            cuts.push(rows.len());
            cuts.sort_unstable();
            let sorted = SortedIds::new(list.clone());
            let (mut wanted, mut at) = (Wanted::new(&sorted), Wanted::new(&sorted));
            let (mut answers, mut positions) = (Vec::new(), Vec::new());
            for pair in cuts.windows(2) {
                let batch = &rows[pair[0]..pair[1]];
                let column = id_column(batch);
                answers.extend(wanted.rows(&Ids::Fixed(&column), batch.len()));
                positions.extend(at.positions(&Ids::Fixed(&column), batch.len()));
            }
            let expected = searched(&list, &rows);
            proptest::prop_assert_eq!(&answers, &found(&expected));
            proptest::prop_assert_eq!(positions, expected);
        }
    }
}
