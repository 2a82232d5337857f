//! The `changes` rows, a batch at a time, written with the writer properties of every
//! table to `<out>/changes/from_crawl=<A>/to_crawl=<B>/part-0.parquet` (replaced
//! whole when committed; nothing is left behind when dropped before).

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;

use super::diff::Change;
use super::ChangesError;
use crate::limits::STEP_BATCH_ROWS;
use crate::output::catalog::DatasetState;
use crate::output::dataset::partition_dir;
use crate::output::derived::TableFile;
use crate::output::schema::Room;
use crate::output::Table;

/// Where the changes from crawl `a` to crawl `b` are written, relative to the dataset.
pub fn rel_path(a: &str, b: &str) -> String {
    format!(
        "{}/from_{}/to_{}/part-0.parquet",
        Table::Changes.name(),
        partition_dir(a),
        partition_dir(b)
    )
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
    /// Starts the file at `path` (under a temporary name until
    /// [`ChangesWriter::commit`]).
    pub fn create(
        path: &Path,
        a: &str,
        b: &str,
        state: &DatasetState,
    ) -> Result<Self, ChangesError> {
        Ok(ChangesWriter {
            file: TableFile::create(path, Table::Changes, state, None)?,
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

    /// Writes the last rows, closes the file and renames it into place.
    pub fn commit(mut self) -> Result<PathBuf, ChangesError> {
        if self.rows > 0 {
            self.flush()?;
        }
        Ok(self.file.commit()?)
    }
}
