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

/// Writes `changes` (in order) to [`path`], replacing an earlier file.
pub fn write(out: &Path, a: &str, b: &str, changes: &[Change]) -> Result<PathBuf, ChangesError> {
    let mut file = TableFile::create(&path(out, a, b), Table::Changes)?;
    for chunk in changes.chunks(BATCH_ROWS) {
        file.write(&batch(chunk, a, b)?)?;
    }
    Ok(file.commit()?)
}

fn batch(rows: &[Change], a: &str, b: &str) -> Result<RecordBatch, ChangesError> {
    let mut columns: Vec<StringBuilder> = (0..Table::Changes.columns().len())
        .map(|_| StringBuilder::new())
        .collect();
    for row in rows {
        let values = [
            Some(&*row.site),
            Some(row.change),
            row.agent.as_deref(),
            row.directive,
            row.value.as_deref(),
            row.before,
            row.after,
            Some(a),
            Some(b),
        ];
        for (builder, value) in columns.iter_mut().zip(values) {
            builder.append_option(value);
        }
    }
    let arrays: Vec<ArrayRef> = columns
        .iter_mut()
        .map(|c| Arc::new(c.finish()) as ArrayRef)
        .collect();
    Ok(RecordBatch::try_new(Table::Changes.schema(), arrays)?)
}
