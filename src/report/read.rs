//! Reading the run's Parquet tables for the report: every part file under
//! `<out>/<table>/` (flat or Hive `crawl=<CRAWL>/` layout), only the named columns,
//! row by row through typed accessors whose errors name the file and the column.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};

use super::ReportError;
use crate::output::read::{batches, part_files, ReadError};

/// A document id (`doc_id`, 16 bytes). Byte order is the order DuckDB gives UUIDs.
pub type DocId = [u8; 16];

/// Calls `row` for every row of every part file of `table`, reading only `columns`.
pub fn for_each_row(
    out: &Path,
    table: &str,
    columns: &[&str],
    mut row: impl FnMut(&Row<'_>) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    for path in part_files(&out.join(table))? {
        for batch in batches(&path, columns)? {
            let batch = batch?;
            for i in 0..batch.num_rows() {
                row(&Row {
                    batch: &batch,
                    path: &path,
                    i,
                })?;
            }
        }
    }
    Ok(())
}

/// One row of a batch, with typed, null-aware accessors.
pub struct Row<'a> {
    batch: &'a RecordBatch,
    path: &'a Path,
    i: usize,
}

impl<'a> Row<'a> {
    fn wrong(&self, name: &str) -> ReportError {
        ReadError::column(self.path, name).into()
    }

    /// The column, or `None` when the value is null.
    fn column(&self, name: &str) -> Result<Option<&'a dyn Array>, ReportError> {
        let column = self
            .batch
            .column_by_name(name)
            .ok_or_else(|| self.wrong(name))?;
        Ok(column.is_valid(self.i).then_some(column.as_ref()))
    }

    pub fn str(&self, name: &str) -> Result<Option<&'a str>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_string_opt::<i32>()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }

    /// An integer column (int32 or int64).
    pub fn int(&self, name: &str) -> Result<Option<i64>, ReportError> {
        let Some(c) = self.column(name)? else {
            return Ok(None);
        };
        if let Some(a) = c.as_primitive_opt::<Int64Type>() {
            return Ok(Some(a.value(self.i)));
        }
        c.as_primitive_opt::<Int32Type>()
            .map(|a| Some(i64::from(a.value(self.i))))
            .ok_or_else(|| self.wrong(name))
    }

    pub fn float(&self, name: &str) -> Result<Option<f64>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_primitive_opt::<Float64Type>()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_boolean_opt()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }

    /// Microseconds since the epoch.
    pub fn time(&self, name: &str) -> Result<Option<i64>, ReportError> {
        match self.column(name)? {
            None => Ok(None),
            Some(c) => c
                .as_primitive_opt::<TimestampMicrosecondType>()
                .map(|a| Some(a.value(self.i)))
                .ok_or_else(|| self.wrong(name)),
        }
    }

    pub fn id(&self, name: &str) -> Result<Option<DocId>, ReportError> {
        let Some(c) = self.column(name)? else {
            return Ok(None);
        };
        let a = c
            .as_fixed_size_binary_opt()
            .filter(|a| a.value_length() == 16)
            .ok_or_else(|| self.wrong(name))?;
        let mut id = [0u8; 16];
        id.copy_from_slice(a.value(self.i));
        Ok(Some(id))
    }

    /// A `list<string>` column; null items are left out (the writer makes none).
    pub fn strings(&self, name: &str) -> Result<Vec<String>, ReportError> {
        let Some(c) = self.column(name)? else {
            return Ok(Vec::new());
        };
        let list = c.as_list_opt::<i32>().ok_or_else(|| self.wrong(name))?;
        let values = list.value(self.i);
        let strings = values
            .as_string_opt::<i32>()
            .ok_or_else(|| self.wrong(name))?;
        Ok(strings.iter().flatten().map(str::to_owned).collect())
    }
}
