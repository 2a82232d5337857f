//! The `sites` rows as Arrow batches, and Parquet files written whole under a
//! temporary name and renamed, with the writer properties of every table
//! (`output::properties`), so the same tables and options give the same bytes.

use arrow_array::RecordBatch;
use parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedFileWriter;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::read::DocId;
use super::SitesError;
use crate::output;
use crate::output::catalog::DatasetState;
use crate::output::schema::Room;
use crate::output::Table;

/// What every row of one site shares: all the columns but the agent's own.
#[derive(Debug, Clone, Default)]
pub struct SiteCells<'a> {
    pub crawl: &'a str,
    pub site: &'a str,
    pub status_class: &'static str,
    pub doc_id: Option<DocId>,
    pub url: Option<&'a str>,
    pub start_url: Option<&'a str>,
    pub http_status: Option<u16>,
    pub redirect_hops: u32,
    pub captures: u32,
    pub rank: Option<i64>,
    pub top_k: Option<&'static str>,
    pub site_key: &'static str,
    pub status_semantics: &'static str,
}

/// One agent's columns of a site's row.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentCells<'a> {
    pub agent: &'a str,
    pub google_class: Option<&'a str>,
    pub root_allowed: Option<bool>,
    pub cc_class: Option<&'a str>,
    pub named: bool,
}

/// The `sites` rows of a batch (builders declared with the table, in
/// [`crate::output::tables`]).
#[derive(Default)]
pub struct SitesBuilder {
    columns: crate::output::tables::Sites,
    rows: usize,
}

fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl SitesBuilder {
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Appends the rows of one site: a row per agent of `agents`, in order.
    ///
    /// Column by column rather than row by row: most columns repeat the site's value
    /// on each of its rows (one `append_value_n` each). With the columns also encoded
    /// in parallel (`TableFile`), the building half of the 1M bench crawl's write loop
    /// went from 4.9 s to 2.7 s, summed over its batches (BENCHMARKS.md). The arrays,
    /// and so the file, are the same.
    pub fn append_site(&mut self, site: &SiteCells<'_>, agents: &[AgentCells<'_>]) {
        let n = agents.len();
        let c = &mut self.columns;
        c.site.append_value_n(site.site, n);
        for a in agents {
            c.agent.append_value(a.agent);
        }
        c.status_class.append_value_n(site.status_class, n);
        for a in agents {
            c.google_class.append_option(a.google_class);
        }
        for a in agents {
            c.root_allowed.append_option(a.root_allowed);
        }
        for a in agents {
            c.cc_class.append_option(a.cc_class);
        }
        for a in agents {
            c.named.append_value(a.named);
        }
        c.doc_id.append_option_n(site.doc_id, n);
        repeat_str(&mut c.url, site.url, n);
        repeat_str(&mut c.start_url, site.start_url, n);
        match site.http_status {
            Some(status) => c.http_status.append_value_n(i32::from(status), n),
            None => c.http_status.append_nulls(n),
        }
        c.redirect_hops
            .append_value_n(to_i32(site.redirect_hops), n);
        c.captures.append_value_n(to_i32(site.captures), n);
        match site.rank {
            Some(rank) => c.rank.append_value_n(rank, n),
            None => c.rank.append_nulls(n),
        }
        repeat_str(&mut c.top_k, site.top_k, n);
        c.site_key.append_value_n(site.site_key, n);
        c.status_semantics.append_value_n(site.status_semantics, n);
        c.crawl.append_value_n(site.crawl, n);
        self.rows += n;
    }

    /// The rows appended so far as one batch; the builders are left empty.
    pub fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        self.rows = 0;
        let columns = self.columns.finish_within(Room::STEP);
        RecordBatch::try_new(Table::Sites.schema(), columns)
    }
}

/// `value`, or null, `n` times.
fn repeat_str(builder: &mut arrow_array::builder::StringBuilder, value: Option<&str>, n: usize) {
    match value {
        Some(value) => builder.append_value_n(value, n),
        None => builder.append_nulls(n),
    }
}

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
    file: SerializedFileWriter<BufWriter<File>>,
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
    /// made from (see [`crate::output::catalog`]).
    pub fn create(path: &Path, table: Table, state: &DatasetState) -> Result<Self, SitesError> {
        let io = |source| SitesError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // The one temporary naming scheme (machine, process, nonce): two steps writing
        // the same table at once never share a file, and starts know whose it is.
        let tmp = crate::output::dataset::temp_path(path);
        let file = File::create(&tmp).map_err(io)?;
        let properties = crate::output::derived_properties(table, state);
        let max_rows = properties
            .max_row_group_row_count()
            .unwrap_or(usize::MAX)
            .max(1);
        // ArrowWriter lays out the file (Parquet schema, Arrow schema in the footer);
        // the row groups are then encoded column by column here.
        let (file, factory) =
            ArrowWriter::try_new(BufWriter::new(file), table.schema(), Some(properties))
                .and_then(ArrowWriter::into_serialized_writer)
                .map_err(|source| SitesError::Parquet {
                    path: tmp.clone(),
                    source,
                })?;
        Ok(TableFile {
            table,
            tmp,
            path: path.to_owned(),
            file,
            factory,
            columns: Vec::new(),
            row_groups: 0,
            open_rows: 0,
            max_rows,
        })
    }

    fn parquet_err(&self) -> impl FnOnce(ParquetError) -> SitesError + '_ {
        move |source| SitesError::Parquet {
            path: self.tmp.clone(),
            source,
        }
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), SitesError> {
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
    fn encode(&mut self, batch: &RecordBatch) -> Result<(), SitesError> {
        if self.columns.is_empty() {
            self.columns = output::column_writers(&self.factory, self.row_groups, &batch.schema())
                .map_err(self.parquet_err())?;
        }
        let schema = batch.schema();
        let encoded = self
            .columns
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(column, writer)| {
                output::encode_column(writer, schema.field(column), column, &[batch])
            });
        encoded.map_err(self.parquet_err())?;
        self.open_rows += batch.num_rows();
        Ok(())
    }

    /// Closes the open row group (its columns in parallel) and appends it to the file.
    fn close_row_group(&mut self) -> Result<(), SitesError> {
        if self.columns.is_empty() {
            return Ok(());
        }
        let chunks: Result<Vec<ArrowColumnChunk>, ParquetError> = std::mem::take(&mut self.columns)
            .into_par_iter()
            .map(ArrowColumnWriter::close)
            .collect();
        let chunks = chunks.map_err(self.parquet_err())?;
        output::append_chunks(&mut self.file, chunks).map_err(self.parquet_err())?;
        self.row_groups += 1;
        self.open_rows = 0;
        Ok(())
    }

    /// Closes the file and renames it into place.
    pub fn commit(mut self) -> Result<PathBuf, SitesError> {
        self.close_row_group()?;
        let mut file = self
            .file
            .into_inner()
            .map_err(|source| SitesError::Parquet {
                path: self.tmp.clone(),
                source,
            })?;
        let synced = file
            .flush()
            .and_then(|()| file.get_ref().sync_all())
            .map_err(|source| SitesError::Io {
                path: self.tmp.clone(),
                source,
            });
        drop(file);
        let renamed = synced.and_then(|()| {
            std::fs::rename(&self.tmp, &self.path).map_err(|source| SitesError::Io {
                path: self.path.clone(),
                source,
            })
        });
        if let Err(e) = renamed {
            // Best effort: the error being returned is the one that matters.
            std::fs::remove_file(&self.tmp).ok();
            return Err(e);
        }
        if let Some(dir) = self.path.parent() {
            crate::output::dataset::sync_dir(dir).map_err(|e| SitesError::Io {
                path: dir.to_owned(),
                source: std::io::Error::other(e.to_string()),
            })?;
        }
        Ok(self.path)
    }

    /// Drops the file being written and removes its temporary name.
    pub fn abandon(self) {
        let tmp = self.tmp.clone();
        drop(self.file);
        // Best effort after an error that is reported by the caller.
        std::fs::remove_file(&tmp).ok();
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

    /// Batches of `sizes` rows (multiples of 4): sites of four agents' rows each, some
    /// cells null.
    fn batches(sizes: &[usize]) -> Vec<RecordBatch> {
        let agents: Vec<AgentCells<'_>> = ["a", "b", "c", "d"]
            .iter()
            .map(|agent| AgentCells {
                agent,
                google_class: Some("full"),
                named: true,
                ..AgentCells::default()
            })
            .collect();
        let mut builder = SitesBuilder::default();
        let mut site = 0usize;
        sizes
            .iter()
            .map(|&rows| {
                while builder.rows() < rows {
                    let name = format!("site{site:08}.example");
                    let url = format!("https://{name}/robots.txt");
                    let cells = SiteCells {
                        crawl: "CC-MAIN-2026-01",
                        site: &name,
                        status_class: "Robots.txt with rules",
                        url: (site % 3 != 0).then_some(url.as_str()),
                        http_status: (site % 5 != 0).then_some(200),
                        captures: 1,
                        rank: (site % 2 == 0).then_some(site as i64),
                        site_key: "host",
                        status_semantics: "rfc9309",
                        ..SiteCells::default()
                    };
                    builder.append_site(&cells, &agents[..rows.min(4)]);
                    site += 1;
                }
                builder.finish().expect("a sites batch")
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
        let mut file = TableFile::create(&ours, Table::Sites, &state()).expect("created");
        for batch in &batches {
            file.write(batch).expect("written");
        }
        file.commit().expect("committed");
        let theirs = dir.path().join("theirs.parquet");
        let mut writer = ArrowWriter::try_new(
            File::create(&theirs).expect("created"),
            Table::Sites.schema(),
            Some(crate::output::derived_properties(Table::Sites, &state())),
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
        let groups: Vec<i64> = (0..reader.num_row_groups())
            .map(|i| reader.metadata().row_group(i).num_rows())
            .collect();
        assert_eq!(groups, [1 << 20, 1_300_104 - (1 << 20)]);
        assert!(
            ours == theirs,
            "TableFile and ArrowWriter wrote different bytes"
        );
    }
}
