//! A derived table's file (`sites`, `ranks`, `changes`) being written: a temporary
//! beside its final name, renamed over it when complete, so a reader sees the old file
//! or the new one, never none and never half of one. A file dropped before its commit
//! (an error, a panic) takes its temporary with it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedFileWriter;
use rayon::prelude::*;

use super::catalog::DatasetState;
use super::{io_err, OutputError, Table};

/// A Parquet file of one table being written under `<path>.tmp`.
///
/// Each column of a batch is encoded by its own [`ArrowColumnWriter`] as a rayon task
/// (as [`crate::output::PartWriter`] does for the run's parts), and row groups close at
/// the properties' row count, as [`ArrowWriter`] closes them: the file is the one
/// `ArrowWriter` would write, byte for byte, in a fraction of the wall time on more
/// than one thread.
pub struct TableFile {
    table: Table,
    tmp: PathBuf,
    path: PathBuf,
    /// `None` once committed.
    file: Option<SerializedFileWriter<BufWriter<File>>>,
    factory: ArrowRowGroupWriterFactory,
    /// The open row group's column writers (one per field: the derived tables have
    /// no nested column); empty between row groups.
    columns: Vec<ArrowColumnWriter>,
    row_groups: usize,
    open_rows: usize,
    max_rows: usize,
}

impl TableFile {
    /// Starts `path` (a derived table's file), recording the dataset `state` it is
    /// made from (see [`crate::output::catalog`]) and the crawl it holds, if one.
    pub fn create(
        path: &Path,
        table: Table,
        state: &DatasetState,
        crawl: Option<&str>,
    ) -> Result<Self, OutputError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        // The one temporary naming scheme (machine, process, nonce): two steps writing
        // the same table at once never share a file, and starts know whose it is.
        let tmp = super::dataset::temp_path(path);
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let properties = super::derived_properties(table, state, crawl);
        let max_rows = properties
            .max_row_group_row_count()
            .unwrap_or(usize::MAX)
            .max(1);
        // ArrowWriter lays out the file (Parquet schema, Arrow schema in the footer);
        // the row groups are then encoded column by column here.
        let (file, factory) =
            ArrowWriter::try_new(BufWriter::new(file), table.schema(), Some(properties))
                .and_then(ArrowWriter::into_serialized_writer)
                .map_err(|source| OutputError::Parquet {
                    path: tmp.clone(),
                    source,
                })?;
        Ok(TableFile {
            table,
            tmp,
            path: path.to_owned(),
            file: Some(file),
            factory,
            columns: Vec::new(),
            row_groups: 0,
            open_rows: 0,
            max_rows,
        })
    }

    fn parquet_err(&self) -> impl FnOnce(ParquetError) -> OutputError + '_ {
        move |source| OutputError::Parquet {
            path: self.tmp.clone(),
            source,
        }
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), OutputError> {
        debug_assert_eq!(batch.schema(), self.table.schema());
        let mut batch = batch.clone();
        while batch.num_rows() > 0 {
            // A row group closes at exactly `max_rows`, wherever the batches end.
            let take = batch.num_rows().min(self.max_rows - self.open_rows);
            self.encode(&batch.slice(0, take))?;
            batch = batch.slice(take, batch.num_rows() - take);
            if self.open_rows >= self.max_rows {
                self.close_row_group()?;
            }
        }
        Ok(())
    }

    /// Encodes `batch` into the open row group, a rayon task per column.
    fn encode(&mut self, batch: &RecordBatch) -> Result<(), OutputError> {
        if self.columns.is_empty() {
            self.columns = super::column_writers(&self.factory, self.row_groups, &batch.schema())
                .map_err(self.parquet_err())?;
        }
        let schema = batch.schema();
        let encoded = self
            .columns
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(column, writer)| {
                super::encode_column(writer, schema.field(column), column, &[batch])
            });
        encoded.map_err(self.parquet_err())?;
        self.open_rows += batch.num_rows();
        Ok(())
    }

    /// Closes the open row group (its columns in parallel) and appends it to the file.
    fn close_row_group(&mut self) -> Result<(), OutputError> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        if self.columns.is_empty() {
            return Ok(());
        }
        let chunks: Result<Vec<ArrowColumnChunk>, ParquetError> = std::mem::take(&mut self.columns)
            .into_par_iter()
            .map(ArrowColumnWriter::close)
            .collect();
        let tmp = &self.tmp;
        let parquet = |source| OutputError::Parquet {
            path: tmp.clone(),
            source,
        };
        let chunks = chunks.map_err(parquet)?;
        super::append_chunks(file, chunks).map_err(parquet)?;
        self.row_groups += 1;
        self.open_rows = 0;
        Ok(())
    }

    /// Closes the file and renames it over its final name (then fsyncs the directory,
    /// so the rename itself survives a crash).
    pub fn commit(mut self) -> Result<PathBuf, OutputError> {
        self.close_row_group()?;
        let Some(file) = self.file.take() else {
            return Ok(self.path.clone());
        };
        let parquet = |source| OutputError::Parquet {
            path: self.tmp.clone(),
            source,
        };
        let mut file = file.into_inner().map_err(parquet)?;
        file.flush()
            .and_then(|()| file.get_ref().sync_all())
            .map_err(io_err(&self.tmp))?;
        drop(file);
        abort_point(self.table);
        std::fs::rename(&self.tmp, &self.path).map_err(io_err(&self.path))?;
        if let Some(dir) = self.path.parent() {
            super::dataset::sync_dir(dir)?;
        }
        Ok(self.path.clone())
    }
}

/// A test aid (cargo feature `fault-injection`, which `make test` builds): when
/// `ROBOTS_CENSUS_ABORT_BEFORE_RENAME` names the table, the process dies between writing
/// a file whole and renaming it over the old one, as a killed step would, so the tests
/// can show that the old table stays readable.
#[cfg(feature = "fault-injection")]
fn abort_point(table: Table) {
    if std::env::var("ROBOTS_CENSUS_ABORT_BEFORE_RENAME").as_deref() == Ok(table.name()) {
        std::process::abort();
    }
}

/// Without `fault-injection`, the environment variable does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
fn abort_point(_table: Table) {}

impl Drop for TableFile {
    /// A file never committed (an error on the way, a panic) leaves no temporary: the
    /// error that stopped it is the caller's to report.
    fn drop(&mut self) {
        if self.file.take().is_some() {
            std::fs::remove_file(&self.tmp).ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> DatasetState {
        DatasetState {
            fingerprint: "f".repeat(16),
            tasks: 1,
            tasks_digest: "d".repeat(16),
        }
    }

    /// Batches of the `changes` table of `sizes` rows, some cells null.
    fn batches(sizes: &[usize]) -> Vec<RecordBatch> {
        let mut row = 0usize;
        sizes
            .iter()
            .map(|&rows| {
                let mut c = crate::output::tables::Changes::default();
                for _ in 0..rows {
                    c.site.append_value(format!("site{row:08}.example"));
                    c.change
                        .append_value(["block", "rule_added", "site_appeared"][row % 3]);
                    c.agent.append_option((row % 2 == 0).then_some("GPTBot"));
                    c.directive
                        .append_option((row % 3 == 1).then_some("disallow"));
                    c.value
                        .append_option((row % 3 == 1).then(|| format!("/p{}", row % 97)));
                    c.before.append_option((row % 3 == 0).then_some("none"));
                    c.after.append_option((row % 3 == 0).then_some("full"));
                    c.from_crawl.append_value("CC-MAIN-2026-01");
                    c.to_crawl.append_value("CC-MAIN-2026-05");
                    row += 1;
                }
                RecordBatch::try_new(
                    Table::Changes.schema(),
                    c.finish_within(crate::output::schema::Room::RUN),
                )
                .expect("a changes batch")
            })
            .collect()
    }

    /// The columns encoded in parallel, with row groups cut at the properties' count
    /// wherever the batches end, give the bytes `ArrowWriter` gives.
    #[test]
    fn writes_what_arrow_writer_writes() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let batches = batches(&[600_000, 4, 700_000, 100]);
        let ours = dir.path().join("ours.parquet");
        let mut file = TableFile::create(&ours, Table::Changes, &state(), None).expect("created");
        for batch in &batches {
            file.write(batch).expect("written");
        }
        file.commit().expect("committed");
        let theirs = dir.path().join("theirs.parquet");
        let mut writer = ArrowWriter::try_new(
            File::create(&theirs).expect("created"),
            Table::Changes.schema(),
            Some(super::super::derived_properties(
                Table::Changes,
                &state(),
                None,
            )),
        )
        .expect("a writer");
        for batch in &batches {
            writer.write(batch).expect("written");
        }
        writer.close().expect("closed");
        let (ours, theirs) = (
            std::fs::read(ours).expect("read"),
            std::fs::read(theirs).expect("read"),
        );
        let reader =
            parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(ours.clone()))
                .expect("a Parquet file");
        use parquet::file::reader::FileReader;
        assert!(
            reader.num_row_groups() > 1,
            "the row groups are cut where the properties say"
        );
        assert!(
            ours == theirs,
            "TableFile and ArrowWriter wrote different bytes"
        );
    }

    #[test]
    fn a_file_dropped_before_its_commit_leaves_nothing() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("t/part-0.parquet");
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("made");
        std::fs::write(&path, b"the old table").expect("written");
        let mut file = TableFile::create(&path, Table::Changes, &state(), None).expect("created");
        file.write(&batches(&[10])[0]).expect("written");
        drop(file);
        let left: Vec<_> = std::fs::read_dir(path.parent().expect("a parent"))
            .expect("listed")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(left, ["part-0.parquet"], "the temporary is gone");
        assert_eq!(std::fs::read(&path).expect("read"), b"the old table");
    }
}
