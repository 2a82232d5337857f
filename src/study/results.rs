//! A query's rows written out: an aligned text table, CSV, JSON lines or Parquet.
//! Text formats show a UUID column (`doc_id`) as DuckDB and Spark print it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, FixedSizeBinaryArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::engine::Results;
use super::StudyError;

/// How the rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An aligned text table (the whole result is held to align it).
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row (JSON lines).
    Json,
    /// A Parquet file (needs an output path).
    Parquet,
}

/// Writes every row of `results` as `format` to `output` (stdout when `None`).
/// Returns the number of rows.
pub fn write_results(
    mut results: Results<'_>,
    format: Format,
    output: Option<&Path>,
) -> Result<u64, StudyError> {
    let name = output.map_or_else(|| PathBuf::from("<stdout>"), Path::to_owned);
    let fail = |detail: String| StudyError::Output {
        path: name.clone(),
        detail,
    };
    let sink: Box<dyn Write + Send> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| fail(e.to_string()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let text_schema = text_schema(&results.schema());
    let mut rows = 0u64;
    let mut next = |results: &mut Results<'_>| -> Result<Option<RecordBatch>, StudyError> {
        match results.next_batch() {
            None => Ok(None),
            Some(Err(e)) => Err(StudyError::Sql {
                source_name: "query".to_owned(),
                error: Box::new(e),
            }),
            Some(Ok(batch)) => {
                rows += batch.num_rows() as u64;
                Ok(Some(batch))
            }
        }
    };
    match format {
        Format::Table => {
            let mut batches = Vec::new();
            while let Some(batch) = next(&mut results)? {
                batches.push(as_text(&batch, &text_schema).map_err(|e| fail(e.to_string()))?);
            }
            let table = if batches.is_empty() {
                // No rows: the header alone, from the schema.
                let empty = RecordBatch::new_empty(text_schema.clone());
                datafusion::arrow::util::pretty::pretty_format_batches(&[empty])
            } else {
                datafusion::arrow::util::pretty::pretty_format_batches(&batches)
            }
            .map_err(|e| fail(e.to_string()))?;
            let mut sink = sink;
            writeln!(sink, "{table}")
                .and_then(|()| sink.flush())
                .map_err(|e| fail(e.to_string()))?;
        }
        Format::Csv => {
            let mut writer = datafusion::arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(sink);
            let mut any = false;
            while let Some(batch) = next(&mut results)? {
                any = true;
                let batch = as_text(&batch, &text_schema).map_err(|e| fail(e.to_string()))?;
                writer.write(&batch).map_err(|e| fail(e.to_string()))?;
            }
            if !any {
                // The header line even without rows.
                writer
                    .write(&RecordBatch::new_empty(text_schema.clone()))
                    .map_err(|e| fail(e.to_string()))?;
            }
            writer
                .into_inner()
                .flush()
                .map_err(|e| fail(e.to_string()))?;
        }
        Format::Json => {
            let mut writer = datafusion::arrow::json::LineDelimitedWriter::new(sink);
            while let Some(batch) = next(&mut results)? {
                let batch = as_text(&batch, &text_schema).map_err(|e| fail(e.to_string()))?;
                writer.write(&batch).map_err(|e| fail(e.to_string()))?;
            }
            writer.finish().map_err(|e| fail(e.to_string()))?;
            writer
                .into_inner()
                .flush()
                .map_err(|e| fail(e.to_string()))?;
        }
        Format::Parquet => {
            if output.is_none() {
                return Err(fail("--format parquet needs --output FILE".to_owned()));
            }
            let mut writer = parquet::arrow::ArrowWriter::try_new(sink, results.schema(), None)
                .map_err(|e| fail(e.to_string()))?;
            while let Some(batch) = next(&mut results)? {
                writer.write(&batch).map_err(|e| fail(e.to_string()))?;
            }
            writer.close().map_err(|e| fail(e.to_string()))?;
        }
    }
    Ok(rows)
}

/// The schema of the text formats: 16-byte UUID columns as strings.
fn text_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::FixedSizeBinary(16) => Field::new(f.name(), DataType::Utf8, f.is_nullable()),
            _ => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// `batch` with its UUID columns as `8-4-4-4-12` strings.
fn as_text(
    batch: &RecordBatch,
    schema: &SchemaRef,
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(
            |column| match column.as_any().downcast_ref::<FixedSizeBinaryArray>() {
                Some(ids) if ids.value_length() == 16 => Arc::new(
                    (0..ids.len())
                        .map(|i| ids.is_valid(i).then(|| uuid_text(ids.value(i))))
                        .collect::<StringArray>(),
                ) as ArrayRef,
                _ => column.clone(),
            },
        )
        .collect();
    RecordBatch::try_new(schema.clone(), columns)
}

fn uuid_text(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_print_as_duckdb_prints_them() {
        let bytes: Vec<u8> = (0u8..16).collect();
        assert_eq!(uuid_text(&bytes), "00010203-0405-0607-0809-0a0b0c0d0e0f");
    }
}
