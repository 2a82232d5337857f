//! The `sites` rows as Arrow batches, and Parquet files written whole under a
//! temporary name and renamed, with the writer properties of every table
//! (`output::properties`), so the same tables and options give the same bytes.

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::read::DocId;
use super::SitesError;
use crate::output::catalog::DatasetState;
use crate::output::Table;

/// One row of the `sites` table.
#[derive(Debug, Clone, Default)]
pub struct Row<'a> {
    pub crawl: &'a str,
    pub site: &'a str,
    pub agent: &'a str,
    pub status_class: &'static str,
    pub google_class: Option<&'a str>,
    pub root_allowed: Option<bool>,
    pub cc_class: Option<&'a str>,
    pub named: bool,
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

    pub fn append(&mut self, row: &Row<'_>) -> Result<(), arrow_schema::ArrowError> {
        let c = &mut self.columns;
        c.site.append_value(row.site);
        c.agent.append_value(row.agent);
        c.status_class.append_value(row.status_class);
        c.google_class.append_option(row.google_class);
        c.root_allowed.append_option(row.root_allowed);
        c.cc_class.append_option(row.cc_class);
        c.named.append_value(row.named);
        c.doc_id.append_option(row.doc_id);
        c.url.append_option(row.url);
        c.start_url.append_option(row.start_url);
        c.http_status.append_option(row.http_status.map(i32::from));
        c.redirect_hops.append_value(to_i32(row.redirect_hops));
        c.captures.append_value(to_i32(row.captures));
        c.rank.append_option(row.rank);
        c.top_k.append_option(row.top_k);
        c.site_key.append_value(row.site_key);
        c.status_semantics.append_value(row.status_semantics);
        c.crawl.append_value(row.crawl);
        self.rows += 1;
        Ok(())
    }

    /// The rows appended so far as one batch; the builders are left empty.
    pub fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        self.rows = 0;
        RecordBatch::try_new(Table::Sites.schema(), self.columns.finish())
    }
}

/// A Parquet file of one table being written under `<path>.tmp`.
pub struct TableFile {
    table: Table,
    tmp: PathBuf,
    path: PathBuf,
    writer: ArrowWriter<BufWriter<File>>,
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
        let writer = ArrowWriter::try_new(
            BufWriter::new(file),
            table.schema(),
            Some(crate::output::derived_properties(table, state)),
        )
        .map_err(|source| SitesError::Parquet {
            path: tmp.clone(),
            source,
        })?;
        Ok(TableFile {
            table,
            tmp,
            path: path.to_owned(),
            writer,
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), SitesError> {
        debug_assert_eq!(batch.schema(), self.table.schema());
        self.writer
            .write(batch)
            .map_err(|source| SitesError::Parquet {
                path: self.tmp.clone(),
                source,
            })
    }

    /// Closes the file and renames it into place.
    pub fn commit(self) -> Result<PathBuf, SitesError> {
        let mut file = self
            .writer
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
        drop(self.writer);
        // Best effort after an error that is reported by the caller.
        std::fs::remove_file(&tmp).ok();
    }
}
