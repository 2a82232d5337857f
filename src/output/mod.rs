//! Output stage: Parquet part files, one per input and table, written atomically.
//!
//! Layout: `<out>/<table>/<part>.parquet` for every table, and
//! `<out>/_manifests/<part>.json` per input. `<part>` is derived only from the
//! input's path (its file name plus a hash of the path as given), never from
//! record contents or thread scheduling, so a rerun or a retried task overwrites
//! the same files. Parts are written under `.tmp` names and renamed when complete;
//! the manifest is written last, so its presence means the input is done.
//! Files are not fsynced: a killed process loses nothing the kernel already has,
//! and syncing eight files per input would dominate small Common Crawl inputs.

pub mod rows;
pub mod schema;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
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

pub use rows::{AgentRow, Batches, DocInfo, Problem};
pub use schema::{Table, TableSet};

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
    #[error("cannot build {table} rows: {source}")]
    Arrow {
        table: &'static str,
        source: arrow_schema::ArrowError,
    },
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

pub const MANIFEST_DIR: &str = "_manifests";

/// The deterministic part name of an input: `<file name>-<8 hex of SHA-1(path)>`.
pub fn part_name(source: &str) -> String {
    use sha1::Digest;
    let file_name = Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest = sha1::Sha1::digest(source.as_bytes());
    let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{safe}-{hash}")
}

/// The manifest path of an input's part.
pub fn manifest_path(out: &Path, part: &str) -> PathBuf {
    out.join(MANIFEST_DIR).join(format!("{part}.json"))
}

/// Rows per row group: a table's open row group is closed at the first batch
/// boundary at or past this many rows (boundaries depend only on the input).
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Writer properties of a table: zstd, and per column the dictionary and
/// statistics its [`schema::Layout`] calls for.
pub(crate) fn properties(table: Table) -> WriterProperties {
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap_or_default()))
        .set_created_by(concat!("robots-census ", env!("CARGO_PKG_VERSION")).to_owned());
    for column in table.columns() {
        // A list column's values live one level down (`user_agents.list.item`).
        let path = match column.kind {
            schema::Kind::Utf8List => ColumnPath::new(vec![
                column.name.to_owned(),
                "list".to_owned(),
                "item".to_owned(),
            ]),
            _ => ColumnPath::from(column.name),
        };
        let statistics = if column.layout.statistics() {
            EnabledStatistics::Page
        } else {
            EnabledStatistics::None
        };
        builder = builder
            .set_column_dictionary_enabled(path.clone(), column.layout.dictionary())
            .set_column_statistics_enabled(path, statistics);
    }
    builder.build()
}

/// One table's part file being written, a row group at a time, each column
/// encoded by its own [`ArrowColumnWriter`] so columns can be encoded in parallel.
struct Part {
    table: Table,
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
            let columns = self
                .factory
                .create_column_writers(self.row_groups)
                .map_err(parquet_err(&self.tmp))?;
            if columns.len() != self.schema.fields().len() {
                return Err(OutputError::Parquet {
                    path: self.tmp.clone(),
                    source: parquet::errors::ParquetError::General(format!(
                        "{} columns for {} fields: nested columns are not supported",
                        columns.len(),
                        self.schema.fields().len()
                    )),
                });
            }
            self.columns = columns;
        }
        Ok(())
    }

    /// Splices the encoded columns of the open row group into the file.
    fn append_row_group(&mut self, chunks: Vec<ArrowColumnChunk>) -> Result<(), OutputError> {
        let mut row_group = self.file.next_row_group().map_err(parquet_err(&self.tmp))?;
        for chunk in chunks {
            chunk
                .append_to_row_group(&mut row_group)
                .map_err(parquet_err(&self.tmp))?;
        }
        row_group.close().map_err(parquet_err(&self.tmp))?;
        self.row_groups += 1;
        self.open_rows = 0;
        Ok(())
    }
}

/// Encodes the batches of one column, in order, with that column's writer.
fn encode_column(
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

/// The part files of one input, all tables, being written.
pub struct PartWriter {
    parts: Vec<Part>,
}

impl PartWriter {
    /// Opens `<out>/<table>/<part>.parquet.tmp` for every table of `tables`.
    pub fn create(out: &Path, part: &str, tables: TableSet) -> Result<Self, OutputError> {
        let mut writer = PartWriter {
            parts: Vec::with_capacity(Table::ALL.len()),
        };
        match writer.open_all(out, part, tables) {
            Ok(()) => Ok(writer),
            Err(e) => {
                // No half-made part file stays behind.
                writer.abandon();
                Err(e)
            }
        }
    }

    fn open_all(&mut self, out: &Path, part: &str, tables: TableSet) -> Result<(), OutputError> {
        for table in Table::ALL.into_iter().filter(|t| tables.contains(*t)) {
            let dir = out.join(table.name());
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
            let path = dir.join(format!("{part}.parquet"));
            let tmp = dir.join(format!("{part}.parquet.tmp"));
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
    /// threads; the bytes written do not depend on the thread count.
    pub fn write_finished(
        &mut self,
        finished: &[Vec<(Table, RecordBatch)>],
    ) -> Result<(), OutputError> {
        let mut per_part: Vec<Vec<&RecordBatch>> = vec![Vec::new(); self.parts.len()];
        for set in finished {
            for (table, batch) in set {
                if batch.num_rows() == 0 {
                    continue;
                }
                if let Some(i) = self.parts.iter().position(|p| p.table == *table) {
                    per_part[i].push(batch);
                }
            }
        }
        let mut jobs = Vec::new();
        for (part, batches) in self.parts.iter_mut().zip(&per_part) {
            if batches.is_empty() {
                continue;
            }
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
        self.flush_row_groups(|part| part.open_rows >= ROW_GROUP_ROWS)
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

    /// Closes every part and renames it into place. Returns (table, rows, path).
    pub fn commit(mut self) -> Result<Vec<(Table, u64, PathBuf)>, OutputError> {
        self.flush_row_groups(|_| true)?;
        let mut done = Vec::with_capacity(self.parts.len());
        for part in self.parts {
            let file = part.file.into_inner().map_err(parquet_err(&part.tmp))?;
            // Flushes the buffer; the file closes when dropped.
            file.into_inner().map_err(|e| OutputError::Io {
                path: part.tmp.clone(),
                source: e.into_error(),
            })?;
            fs::rename(&part.tmp, &part.path).map_err(io_err(&part.path))?;
            done.push((part.table, part.rows, part.path));
        }
        Ok(done)
    }

    /// Removes the temporary files of an input that will not complete.
    pub fn abandon(self) {
        for part in self.parts {
            drop(part.file);
            let _ = fs::remove_file(&part.tmp);
        }
    }
}

/// Writes `contents` to `path` atomically (temporary name, then rename).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let tmp = path.with_extension("json.tmp");
    let mut file = File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))
}

/// Removes `.tmp` leftovers of a killed run under `out`.
pub fn remove_leftovers(out: &Path) -> std::io::Result<usize> {
    let mut removed = 0;
    for dir in Table::ALL.iter().map(|t| t.name()).chain([MANIFEST_DIR]) {
        let Ok(entries) = fs::read_dir(out.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".tmp") {
                fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Lower-cased authority (`host[:port]`) of an absolute URL, without userinfo.
pub fn url_host(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_are_deterministic_and_safe() {
        let a = part_name("crawl/CC-MAIN-2024-xx-00001.warc.gz");
        assert_eq!(a, part_name("crawl/CC-MAIN-2024-xx-00001.warc.gz"));
        assert!(a.starts_with("CC-MAIN-2024-xx-00001.warc.gz-"));
        assert_ne!(a, part_name("other/CC-MAIN-2024-xx-00001.warc.gz"));
        assert!(!part_name("../../etc/pass wd").contains(['/', ' ']));
    }

    #[test]
    fn hosts() {
        assert_eq!(
            url_host("https://User@WWW.Example.com:8080/robots.txt").as_deref(),
            Some("www.example.com:8080")
        );
        assert_eq!(url_host("http://a.b?x").as_deref(), Some("a.b"));
        assert_eq!(url_host("/relative"), None);
    }
}
