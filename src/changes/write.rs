//! The `changes` rows as one Arrow batch per file, written with the writer properties of
//! every table under `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet`.

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;

use super::diff::Change;
use super::ChangesError;
use crate::limits::STEP_BATCH_ROWS;
use crate::output::catalog::DatasetState;
use crate::output::dataset::partition_dir;
use crate::output::schema::Room;
use crate::output::Table;
use crate::sites::write::TableFile;

/// Where the changes from crawl `a` to crawl `b` are written.
pub fn path(out: &Path, a: &str, b: &str) -> PathBuf {
    out.join(Table::Changes.name())
        .join(format!("from_{}", partition_dir(a)))
        .join(format!("to_{}", partition_dir(b)))
        .join("part-0.parquet")
}

/// The changes file being written, one batch per [`STEP_BATCH_ROWS`] rows, so memory
/// stays bounded however many changes there are.
pub struct ChangesWriter {
    file: TableFile,
    columns: crate::output::tables::Changes,
    rows: usize,
    from: String,
    to: String,
}

impl ChangesWriter {
    /// Starts `<out>/changes/from_crawl=<a>/to_crawl=<b>/part-0.parquet` (under a
    /// temporary name until [`ChangesWriter::commit`]).
    pub fn create(
        out: &Path,
        a: &str,
        b: &str,
        state: &DatasetState,
    ) -> Result<Self, ChangesError> {
        Ok(ChangesWriter {
            file: TableFile::create(&path(out, a, b), Table::Changes, state)?,
            columns: Default::default(),
            rows: 0,
            from: a.to_owned(),
            to: b.to_owned(),
        })
    }

    pub fn push(&mut self, row: Change) -> Result<(), ChangesError> {
        let c = &mut self.columns;
        c.site.append_value(&row.site);
        c.change.append_value(row.change);
        c.agent.append_option(row.agent.as_deref());
        c.directive.append_option(row.directive);
        c.value.append_option(row.value.as_deref());
        c.before.append_option(row.before);
        c.after.append_option(row.after);
        c.from_crawl.append_value(&self.from);
        c.to_crawl.append_value(&self.to);
        self.rows += 1;
        if self.rows >= STEP_BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ChangesError> {
        self.rows = 0;
        let columns = self.columns.finish_within(Room::STEP);
        let batch = RecordBatch::try_new(Table::Changes.schema(), columns)?;
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
