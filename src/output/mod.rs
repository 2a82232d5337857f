//! Output stage: Parquet part files, one per task, crawl and table, committed atomically.
//!
//! [`dataset`] owns the layout (`<out>/<table>/crawl=<CRAWL>/<task>.parquet`), the task
//! list, the manifests and the commit protocol; [`PartWriter`] encodes the rows of one
//! task and one crawl into one part per table (columns in parallel) and commits them.
//! [`schema`] defines every table once; [`rows`] appends rows from the parsed model.
//! [`read`] reads the tables back for the steps that work from a finished run.

pub mod catalog;
pub mod dataset;
pub mod derived;
pub mod ids;
pub mod read;
pub mod rows;
pub mod schema;
pub mod tables;
pub mod target;
pub mod views;

use crate::limits::ROW_GROUP_ROWS;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::{Field, SchemaRef};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;
use rayon::prelude::*;

pub use rows::{AgentRow, Batches, DocInfo, Problem, ProfileVerdict};
pub use schema::{Table, TableSet};
pub use target::OutTarget;

/// Errors of the output stage: all of them end the run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write Parquet file {path}: {source}")]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("cannot write the output: {0}")]
    Store(crate::store::StoreError),
    #[error("cannot build {table} rows: {source}")]
    Arrow {
        table: &'static str,
        source: arrow_schema::ArrowError,
    },
    #[error("output {0} already holds tables: pass --resume to continue it or --overwrite to replace it")]
    Exists(String),
    #[error("{out} was written with other settings ({differences}); rerun with the same flags and inputs, or --overwrite")]
    SettingsDiffer { out: String, differences: String },
    #[error("cannot prepare output {path}: {detail}")]
    Prepare { path: String, detail: String },
    #[error("cannot read the dataset settings: {0}")]
    Meta(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_owned(),
        source,
    }
}

fn parquet_err(path: &Path) -> impl FnOnce(parquet::errors::ParquetError) -> OutputError + '_ {
    move |source| OutputError::Parquet {
        path: path.to_owned(),
        source,
    }
}

/// Writer properties of a table: zstd, and per column the dictionary and
/// statistics its [`schema::Layout`] calls for.
pub(crate) fn properties(table: Table) -> WriterProperties {
    properties_builder(table).build()
}

/// Writer properties of a derived table (`sites`, `ranks`, `changes`): those of
/// [`properties`], the state of the dataset it was made from (see [`catalog`]) and, for
/// a file of one crawl (a partition of `sites`), the crawl, so a reader names a file's
/// crawl from its footer.
pub(crate) fn derived_properties(
    table: Table,
    state: &catalog::DatasetState,
    crawl: Option<&str>,
) -> WriterProperties {
    use parquet::file::metadata::KeyValue;
    let mut metadata = vec![KeyValue::new(catalog::STATE_KEY.to_owned(), state.stamp())];
    if let Some(crawl) = crawl {
        metadata.push(KeyValue::new(
            catalog::CRAWL_KEY.to_owned(),
            crawl.to_owned(),
        ));
    }
    properties_builder(table)
        .set_key_value_metadata(Some(metadata))
        .build()
}

fn properties_builder(table: Table) -> parquet::file::properties::WriterPropertiesBuilder {
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap_or_default()))
        .set_created_by(concat!("robots-census ", env!("CARGO_PKG_VERSION")).to_owned());
    for column in table.columns() {
        let path = leaf_path(column);
        let statistics = if column.layout.statistics() {
            EnabledStatistics::Page
        } else {
            EnabledStatistics::None
        };
        if let Some(bytes) = column.layout.dictionary_bytes() {
            builder = builder.set_column_dictionary_page_size_limit(path.clone(), bytes);
        }
        builder = builder
            .set_column_dictionary_enabled(path.clone(), column.layout.dictionary())
            .set_column_statistics_enabled(path, statistics);
    }
    builder
}

/// The Parquet path of a column's values: a list column's live one level down
/// (`user_agents.list.item`).
fn leaf_path(column: &schema::Column) -> ColumnPath {
    match column.kind {
        schema::Kind::Utf8List => ColumnPath::new(vec![
            column.name.to_owned(),
            "list".to_owned(),
            "item".to_owned(),
        ]),
        _ => ColumnPath::from(column.name),
    }
}

/// One table's part file being written, a row group at a time, each column
/// encoded by its own [`ArrowColumnWriter`] so columns can be encoded in parallel.
struct Part {
    table: Table,
    crawl: String,
    /// Path relative to the dataset root (what the manifest records).
    relative: PathBuf,
    tmp: PathBuf,
    path: PathBuf,
    file: SerializedFileWriter<BufWriter<File>>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// The open row group's column writers (one per field: no field has two leaves).
    columns: Vec<ArrowColumnWriter>,
    row_groups: usize,
    open_rows: usize,
    rows: u64,
}

impl Part {
    fn open_row_group(&mut self) -> Result<(), OutputError> {
        if self.columns.is_empty() {
            self.columns = column_writers(&self.factory, self.row_groups, &self.schema)
                .map_err(parquet_err(&self.tmp))?;
        }
        Ok(())
    }

    /// Splices the encoded columns of the open row group into the file.
    fn append_row_group(&mut self, chunks: Vec<ArrowColumnChunk>) -> Result<(), OutputError> {
        append_chunks(&mut self.file, chunks).map_err(parquet_err(&self.tmp))?;
        self.row_groups += 1;
        self.open_rows = 0;
        Ok(())
    }
}

/// The column writers of row group `row_group` of a file of `schema`: one per field
/// (no table has a nested column, which would have several).
pub(crate) fn column_writers(
    factory: &ArrowRowGroupWriterFactory,
    row_group: usize,
    schema: &SchemaRef,
) -> Result<Vec<ArrowColumnWriter>, parquet::errors::ParquetError> {
    let columns = factory.create_column_writers(row_group)?;
    if columns.len() != schema.fields().len() {
        return Err(parquet::errors::ParquetError::General(format!(
            "{} columns for {} fields: nested columns are not supported",
            columns.len(),
            schema.fields().len()
        )));
    }
    Ok(columns)
}

/// Appends the closed columns of a row group to `file` as its next row group.
pub(crate) fn append_chunks<W: std::io::Write + Send>(
    file: &mut SerializedFileWriter<W>,
    chunks: Vec<ArrowColumnChunk>,
) -> Result<(), parquet::errors::ParquetError> {
    let mut row_group = file.next_row_group()?;
    for chunk in chunks {
        chunk.append_to_row_group(&mut row_group)?;
    }
    row_group.close()?;
    Ok(())
}

/// Encodes the batches of one column, in order, with that column's writer.
pub(crate) fn encode_column(
    writer: &mut ArrowColumnWriter,
    field: &Field,
    column: usize,
    batches: &[&RecordBatch],
) -> Result<(), parquet::errors::ParquetError> {
    for batch in batches {
        for leaf in compute_leaves(field, batch.column(column))? {
            writer.write(&leaf)?;
        }
    }
    Ok(())
}

/// The part files of one task and one crawl, every table of the run, being written.
pub struct PartWriter {
    parts: Vec<Part>,
}

impl PartWriter {
    /// Opens a temporary file for `<out>/<table>/crawl=<crawl>/<task>.parquet` of
    /// every table of `tables` (see [`dataset::temp_path`]).
    pub fn create(
        out: &Path,
        task: &str,
        crawl: &str,
        tables: TableSet,
    ) -> Result<Self, OutputError> {
        let mut writer = PartWriter {
            parts: Vec::with_capacity(Table::ALL.len()),
        };
        match writer.open_all(out, task, crawl, tables) {
            Ok(()) => Ok(writer),
            Err(e) => {
                // No half-made part file stays behind.
                writer.abandon();
                Err(e)
            }
        }
    }

    fn open_all(
        &mut self,
        out: &Path,
        task: &str,
        crawl: &str,
        tables: TableSet,
    ) -> Result<(), OutputError> {
        for table in Table::ALL.into_iter().filter(|t| tables.contains(*t)) {
            let relative = dataset::part_path(table, crawl, task);
            let path = out.join(&relative);
            let dir = path.parent().unwrap_or(out);
            fs::create_dir_all(dir).map_err(io_err(dir))?;
            let tmp = dataset::temp_path(&path);
            let file = File::create(&tmp).map_err(io_err(&tmp))?;
            let schema = table.schema();
            // ArrowWriter lays out the file (Parquet schema, Arrow schema in the
            // footer); the row groups are then encoded column by column here.
            let (file, factory) = ArrowWriter::try_new(
                BufWriter::with_capacity(1 << 20, file),
                schema.clone(),
                Some(properties(table)),
            )
            .and_then(ArrowWriter::into_serialized_writer)
            .map_err(parquet_err(&tmp))?;
            self.parts.push(Part {
                table,
                crawl: crawl.to_owned(),
                relative,
                tmp,
                path,
                file,
                factory,
                schema,
                columns: Vec::new(),
                row_groups: 0,
                open_rows: 0,
                rows: 0,
            });
        }
        Ok(())
    }

    /// Writes the finished batches of every table.
    pub fn write(&mut self, batches: &mut Batches) -> Result<(), OutputError> {
        let finished = batches.finish().map_err(|source| OutputError::Arrow {
            table: "batch",
            source,
        })?;
        self.write_finished(&[finished])
    }

    /// Writes batches already finished (see [`Batches::finish`]), in order. Every
    /// column of every table is encoded as its own rayon task, so writing uses all
    /// threads. A table's row group closes at the first batch at or past
    /// [`ROW_GROUP_ROWS`] rows, wherever the caller's chunks end: the bytes written
    /// depend neither on the thread count nor on how many batches come per call.
    pub fn write_finished(
        &mut self,
        finished: &[Vec<(Table, RecordBatch)>],
    ) -> Result<(), OutputError> {
        // Each part's batches, cut after the batch that fills its open row group.
        let mut segments: Vec<Vec<Vec<&RecordBatch>>> = vec![vec![Vec::new()]; self.parts.len()];
        let mut open: Vec<usize> = self.parts.iter().map(|p| p.open_rows).collect();
        for set in finished {
            for (table, batch) in set {
                if batch.num_rows() == 0 {
                    continue;
                }
                let Some(i) = self.parts.iter().position(|p| p.table == *table) else {
                    continue;
                };
                let cut = &mut segments[i];
                if let Some(last) = cut.last_mut() {
                    last.push(batch);
                }
                open[i] += batch.num_rows();
                if open[i] >= ROW_GROUP_ROWS {
                    cut.push(Vec::new());
                    open[i] = 0;
                }
            }
        }
        let phases = segments.iter().map(Vec::len).max().unwrap_or(0);
        for phase in 0..phases {
            let mut jobs = Vec::new();
            for (part, cut) in self.parts.iter_mut().zip(&segments) {
                let Some(batches) = cut.get(phase).filter(|b| !b.is_empty()) else {
                    continue;
                };
                part.open_row_group()?;
                let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
                part.open_rows += rows;
                part.rows += rows as u64;
                let schema = &part.schema;
                let tmp = &part.tmp;
                for (column, writer) in part.columns.iter_mut().enumerate() {
                    jobs.push((
                        tmp,
                        writer,
                        schema.field(column),
                        column,
                        batches.as_slice(),
                    ));
                }
            }
            jobs.into_par_iter()
                .try_for_each(|(tmp, writer, field, column, batches)| {
                    encode_column(writer, field, column, batches).map_err(parquet_err(tmp))
                })?;
            self.flush_row_groups(|part| part.open_rows >= ROW_GROUP_ROWS)?;
        }
        Ok(())
    }

    /// Closes (in parallel) and appends the open row group of every part `which` selects.
    fn flush_row_groups(&mut self, which: impl Fn(&Part) -> bool) -> Result<(), OutputError> {
        let mut closing: Vec<(usize, Vec<ArrowColumnWriter>)> = Vec::new();
        for (i, part) in self.parts.iter_mut().enumerate() {
            if !part.columns.is_empty() && which(part) {
                closing.push((i, std::mem::take(&mut part.columns)));
            }
        }
        let closed: Vec<(usize, Result<Vec<ArrowColumnChunk>, _>)> = closing
            .into_par_iter()
            .map(|(i, columns)| {
                let chunks = columns
                    .into_par_iter()
                    .map(ArrowColumnWriter::close)
                    .collect();
                (i, chunks)
            })
            .collect();
        for (i, chunks) in closed {
            let part = &mut self.parts[i];
            let chunks = chunks.map_err(parquet_err(&part.tmp))?;
            part.append_row_group(chunks)?;
        }
        Ok(())
    }

    /// Closes every part and fsyncs it under its temporary name; nothing is renamed yet
    /// (see [`commit_parts`]). On error every temporary file is removed.
    pub fn close(mut self) -> Result<ClosedParts, OutputError> {
        self.flush_row_groups(|_| true)?;
        let mut closed = ClosedParts::default();
        // Parts moved into `closed` one by one: the Drops of both remove what is left.
        while let Some(part) = self.parts.pop() {
            let tmp = part.tmp.clone();
            let synced = Self::close_part(&tmp, part.file);
            closed.parts.push(ClosedPart {
                tmp,
                path: part.path,
                file: dataset::PartFile {
                    table: part.table.name().to_owned(),
                    crawl: part.crawl,
                    path: part.relative.to_string_lossy().into_owned(),
                    rows: part.rows,
                },
            });
            synced?;
        }
        closed.parts.reverse();
        Ok(closed)
    }

    fn close_part(
        tmp: &Path,
        file: SerializedFileWriter<BufWriter<File>>,
    ) -> Result<(), OutputError> {
        let file = file.into_inner().map_err(parquet_err(tmp))?;
        let file = file.into_inner().map_err(|e| OutputError::Io {
            path: tmp.to_owned(),
            source: e.into_error(),
        })?;
        file.sync_all().map_err(io_err(tmp))
    }

    /// Removes the temporary files of a task that will not complete.
    pub fn abandon(self) {
        drop(self);
    }
}

/// A writer dropped before `commit` (an error, a panic unwinding) leaves no
/// temporary file behind.
impl Drop for PartWriter {
    fn drop(&mut self) {
        for part in self.parts.drain(..) {
            drop(part.file);
            let _ = fs::remove_file(&part.tmp);
        }
    }
}

/// One closed and fsynced part under its temporary name.
struct ClosedPart {
    tmp: PathBuf,
    path: PathBuf,
    file: dataset::PartFile,
}

/// The closed parts of a task (every crawl), not yet in place. Dropped without
/// [`commit_parts`], their temporary files are removed.
#[derive(Default)]
pub struct ClosedParts {
    parts: Vec<ClosedPart>,
}

impl ClosedParts {
    /// Adds the parts of another crawl of the same task.
    pub fn extend(&mut self, other: ClosedParts) {
        let mut other = other;
        self.parts.append(&mut other.parts);
    }
}

impl Drop for ClosedParts {
    fn drop(&mut self) {
        for part in self.parts.drain(..) {
            // Best effort: the task failed, and its error is what gets reported.
            fs::remove_file(&part.tmp).ok();
        }
    }
}

/// Removes `<table>/crawl=*/<task>.parquet` files that `closed` does not write: parts
/// an earlier attempt of the task left under another crawl partition. The directories
/// touched go into `dirs` (to be fsynced).
fn remove_earlier_attempts(
    out: &Path,
    task: &str,
    closed: &ClosedParts,
    dirs: &mut std::collections::BTreeSet<PathBuf>,
) -> Result<(), OutputError> {
    let ours: std::collections::HashSet<&Path> =
        closed.parts.iter().map(|p| p.path.as_path()).collect();
    let file_name = format!("{task}.parquet");
    for table in Table::ALL {
        let table_dir = out.join(table.name());
        let crawls = match fs::read_dir(&table_dir) {
            Ok(crawls) => crawls,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err(&table_dir)(e)),
        };
        for crawl in crawls {
            let crawl = crawl.map_err(io_err(&table_dir))?.path();
            let stale = crawl.join(&file_name);
            if !ours.contains(stale.as_path()) && stale.exists() {
                fs::remove_file(&stale).map_err(io_err(&stale))?;
                dirs.insert(crawl);
            }
        }
    }
    Ok(())
}

/// Puts a task's closed parts in place, all or nothing: first the parts an earlier
/// attempt of the same task wrote under other crawl partitions are removed (a run that
/// exited 75 may have named its crawl `unknown`, a resumed one the real crawl: both
/// would be read), then every part is renamed; if one rename fails, the parts already
/// renamed are removed again, so no task is left half in place. Directories are fsynced
/// last. `out` is the dataset root, `task` the task name.
pub fn commit_parts(
    out: &Path,
    task: &str,
    mut closed: ClosedParts,
) -> Result<Vec<dataset::PartFile>, OutputError> {
    let mut dirs = std::collections::BTreeSet::new();
    // On error here `closed` still holds the parts: its Drop removes their temporaries.
    remove_earlier_attempts(out, task, &closed, &mut dirs)?;
    let parts = std::mem::take(&mut closed.parts);
    let mut renamed: Vec<&Path> = Vec::with_capacity(parts.len());
    for part in &parts {
        if let Err(e) = fs::rename(&part.tmp, &part.path) {
            for path in renamed {
                // Best effort undo; the rename error is the one reported.
                fs::remove_file(path).ok();
            }
            for part in &parts {
                fs::remove_file(&part.tmp).ok();
            }
            return Err(OutputError::Io {
                path: part.path.clone(),
                source: e,
            });
        }
        renamed.push(&part.path);
        dirs.extend(part.path.parent().map(Path::to_owned));
    }
    for dir in &dirs {
        dataset::sync_dir(dir)?;
    }
    Ok(parts.into_iter().map(|p| p.file).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sets` batch sets of `rows` problem rows each (the `errors` table).
    fn problem_sets(sets: usize, rows: usize) -> Vec<Vec<(Table, RecordBatch)>> {
        let mut batches = Batches::new(TableSet::DEFAULT, "CC-MAIN-2026-01");
        (0..sets)
            .map(|set| {
                for row in 0..rows {
                    let message = format!("problem {row} of set {set}");
                    batches.problem(&Problem {
                        doc_id: None,
                        source: "in.warc.gz",
                        file_offset: Some((set * rows + row) as u64),
                        stream_offset: None,
                        code: "warc_bad_header",
                        message: &message,
                    });
                }
                batches.finish().expect("batches")
            })
            .collect()
    }

    /// Writes `sets` in calls of `per_call` sets; the closed files' bytes by table.
    fn written(dir: &Path, sets: &[Vec<(Table, RecordBatch)>], per_call: usize) -> Vec<Vec<u8>> {
        let mut writer =
            PartWriter::create(dir, "task-00000", "CC-MAIN-2026-01", TableSet::DEFAULT)
                .expect("writer");
        for call in sets.chunks(per_call) {
            writer.write_finished(call).expect("write");
        }
        let closed = writer.close().expect("close");
        closed
            .parts
            .iter()
            .map(|p| fs::read(&p.tmp).expect("part"))
            .collect()
    }

    #[test]
    fn row_groups_close_at_the_first_batch_past_the_limit_however_batches_are_passed() {
        let rows = 1000;
        let sets = problem_sets(ROW_GROUP_ROWS / rows + 5, rows);
        let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().expect("tmp")).collect();
        let whole = written(dirs[0].path(), &sets, sets.len());
        // As the pipeline passes them (a chunk per call), chunk sizes that do and do
        // not divide the row-group boundary: the same bytes.
        assert_eq!(written(dirs[1].path(), &sets, 7), whole);
        assert_eq!(written(dirs[2].path(), &sets, 1), whole);
        let errors = Table::ALL
            .iter()
            .filter(|t| TableSet::DEFAULT.contains(**t))
            .position(|t| *t == Table::Errors)
            .expect("errors is written");
        let file = parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(
            whole[errors].clone(),
        ))
        .expect("parquet");
        use parquet::file::reader::FileReader;
        let groups: Vec<i64> = file
            .metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows())
            .collect();
        let first = ROW_GROUP_ROWS.div_ceil(rows) * rows;
        assert_eq!(groups, [first as i64, (sets.len() * rows - first) as i64]);
    }

    /// The writer of every table, run's and derived, gives each column its layout's
    /// dictionary, statistics and dictionary room (a wrong room would only show at a
    /// crawl's scale, as plain pages past 1 MiB of URLs).
    #[test]
    fn writer_properties_follow_each_columns_layout() {
        use parquet::file::properties::DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT;
        for table in Table::ALL.into_iter().chain(Table::DERIVED) {
            let props = properties(table);
            for column in table.columns() {
                let path = leaf_path(column);
                let name = format!("{}.{}", table.name(), column.name);
                assert_eq!(
                    props.dictionary_enabled(&path),
                    column.layout.dictionary(),
                    "{name}"
                );
                assert_eq!(
                    props.statistics_enabled(&path) != EnabledStatistics::None,
                    column.layout.statistics(),
                    "{name}"
                );
                assert_eq!(
                    props.column_dictionary_page_size_limit(&path),
                    column
                        .layout
                        .dictionary_bytes()
                        .unwrap_or(DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT),
                    "{name}"
                );
            }
        }
        let sites = properties(Table::Sites);
        for name in ["site", "url", "start_url"] {
            let path = ColumnPath::from(name);
            assert_eq!(
                sites.column_dictionary_page_size_limit(&path),
                crate::limits::RUNS_DICTIONARY_BYTES,
                "sites.{name}"
            );
        }
    }
}
