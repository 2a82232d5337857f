//! The `changes` rows as one Arrow batch per file, written with the writer properties of
//! every table under `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};

use super::diff::Change;
use super::ChangesError;
use crate::output::dataset::partition_dir;
use crate::output::Table;
use crate::sites::write::TableFile;

/// Rows per written batch.
const BATCH_ROWS: usize = 64 * 1024;

/// Where the changes from crawl `a` to crawl `b` are written.
pub fn path(out: &Path, a: &str, b: &str) -> PathBuf {
    out.join(Table::Changes.name())
        .join(format!("from_{}", partition_dir(a)))
        .join(format!("to_{}", partition_dir(b)))
        .join("part-0.parquet")
}

/// The changes file being written, one batch per [`BATCH_ROWS`] rows, so memory
/// stays bounded however many changes there are.
pub struct ChangesWriter {
    file: TableFile,
    columns: Vec<StringBuilder>,
    rows: usize,
    from: String,
    to: String,
}

impl ChangesWriter {
    /// Starts `<out>/changes/from_crawl=<a>/to_crawl=<b>/part-0.parquet` (under a
    /// temporary name until [`ChangesWriter::commit`]).
    pub fn create(out: &Path, a: &str, b: &str) -> Result<Self, ChangesError> {
        Ok(ChangesWriter {
            file: TableFile::create(&path(out, a, b), Table::Changes)?,
            columns: (0..Table::Changes.columns().len())
                .map(|_| StringBuilder::new())
                .collect(),
            rows: 0,
            from: a.to_owned(),
            to: b.to_owned(),
        })
    }

    pub fn push(&mut self, row: Change) -> Result<(), ChangesError> {
        let values = [
            Some(&*row.site),
            Some(row.change),
            row.agent.as_deref(),
            row.directive,
            row.value.as_deref(),
            row.before,
            row.after,
            Some(self.from.as_str()),
            Some(self.to.as_str()),
        ];
        for (builder, value) in self.columns.iter_mut().zip(values) {
            builder.append_option(value);
        }
        self.rows += 1;
        if self.rows >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ChangesError> {
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|c| Arc::new(c.finish()) as ArrayRef)
            .collect();
        self.rows = 0;
        let batch = RecordBatch::try_new(Table::Changes.schema(), arrays)?;
        Ok(self.file.write(&batch)?)
    }

    /// Drops the file being written, leaving nothing behind.
    pub fn abandon(self) {
        self.file.abandon();
    }

    /// Writes the last rows, closes the file and renames it into place.
    pub fn commit(mut self) -> Result<PathBuf, ChangesError> {
        if self.rows > 0 {
            self.flush()?;
        }
        Ok(self.file.commit()?)
    }
}
