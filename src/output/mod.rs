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
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

pub use rows::{AgentRow, Batches, DocInfo, Problem};
pub use schema::Table;

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

/// Writer properties shared by every table: zstd, dictionary encoding, bounded row groups.
fn properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap_or_default()))
        .set_max_row_group_row_count(Some(128 * 1024))
        .set_created_by(concat!("robots-census ", env!("CARGO_PKG_VERSION")).to_owned())
        .build()
}

struct Part {
    table: Table,
    tmp: PathBuf,
    path: PathBuf,
    writer: ArrowWriter<BufWriter<File>>,
    rows: u64,
}

/// The part files of one input, all tables, being written.
pub struct PartWriter {
    parts: Vec<Part>,
}

impl PartWriter {
    /// Opens `<out>/<table>/<part>.parquet.tmp` for every table.
    pub fn create(out: &Path, part: &str) -> Result<Self, OutputError> {
        let mut writer = PartWriter {
            parts: Vec::with_capacity(Table::ALL.len()),
        };
        match writer.open_all(out, part) {
            Ok(()) => Ok(writer),
            Err(e) => {
                // No half-made part file stays behind.
                writer.abandon();
                Err(e)
            }
        }
    }

    fn open_all(&mut self, out: &Path, part: &str) -> Result<(), OutputError> {
        for table in Table::ALL {
            let dir = out.join(table.name());
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
            let path = dir.join(format!("{part}.parquet"));
            let tmp = dir.join(format!("{part}.parquet.tmp"));
            let file = File::create(&tmp).map_err(io_err(&tmp))?;
            let writer = ArrowWriter::try_new(
                BufWriter::with_capacity(1 << 20, file),
                table.schema(),
                Some(properties()),
            )
            .map_err(|source| OutputError::Parquet {
                path: tmp.clone(),
                source,
            })?;
            self.parts.push(Part {
                table,
                tmp,
                path,
                writer,
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
        for (table, batch) in finished {
            self.write_batch(table, &batch)?;
        }
        Ok(())
    }

    /// Writes batches already finished (see [`Batches::finish`]).
    pub fn write_finished(
        &mut self,
        finished: Vec<(Table, RecordBatch)>,
    ) -> Result<(), OutputError> {
        for (table, batch) in finished {
            self.write_batch(table, &batch)?;
        }
        Ok(())
    }

    fn write_batch(&mut self, table: Table, batch: &RecordBatch) -> Result<(), OutputError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let Some(part) = self.parts.iter_mut().find(|p| p.table == table) else {
            return Ok(());
        };
        part.rows += batch.num_rows() as u64;
        part.writer
            .write(batch)
            .map_err(|source| OutputError::Parquet {
                path: part.tmp.clone(),
                source,
            })
    }

    /// Closes every part and renames it into place. Returns (table, rows, path).
    pub fn commit(self) -> Result<Vec<(Table, u64, PathBuf)>, OutputError> {
        let mut done = Vec::with_capacity(self.parts.len());
        for part in self.parts {
            let file = part
                .writer
                .into_inner()
                .map_err(|source| OutputError::Parquet {
                    path: part.tmp.clone(),
                    source,
                })?;
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
            drop(part.writer);
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
