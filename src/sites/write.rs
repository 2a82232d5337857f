//! The `sites` rows as Arrow batches, and Parquet files written whole under a
//! temporary name and renamed, with the writer properties of every table
//! (`output::properties`), so the same tables and options give the same bytes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, FixedSizeBinaryBuilder, Int32Builder, Int64Builder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ArrowWriter;

use super::read::DocId;
use super::SitesError;
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

/// Builders of the `sites` columns, in schema order.
pub struct SitesBuilder {
    site: StringBuilder,
    agent: StringBuilder,
    status_class: StringBuilder,
    google_class: StringBuilder,
    root_allowed: BooleanBuilder,
    cc_class: StringBuilder,
    named: BooleanBuilder,
    doc_id: FixedSizeBinaryBuilder,
    url: StringBuilder,
    start_url: StringBuilder,
    http_status: Int32Builder,
    redirect_hops: Int32Builder,
    captures: Int32Builder,
    rank: Int64Builder,
    top_k: StringBuilder,
    site_key: StringBuilder,
    status_semantics: StringBuilder,
    crawl: StringBuilder,
    rows: usize,
}

impl Default for SitesBuilder {
    fn default() -> Self {
        SitesBuilder {
            site: StringBuilder::new(),
            agent: StringBuilder::new(),
            status_class: StringBuilder::new(),
            google_class: StringBuilder::new(),
            root_allowed: BooleanBuilder::new(),
            cc_class: StringBuilder::new(),
            named: BooleanBuilder::new(),
            doc_id: FixedSizeBinaryBuilder::new(16),
            url: StringBuilder::new(),
            start_url: StringBuilder::new(),
            http_status: Int32Builder::new(),
            redirect_hops: Int32Builder::new(),
            captures: Int32Builder::new(),
            rank: Int64Builder::new(),
            top_k: StringBuilder::new(),
            site_key: StringBuilder::new(),
            status_semantics: StringBuilder::new(),
            crawl: StringBuilder::new(),
            rows: 0,
        }
    }
}

fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl SitesBuilder {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn append(&mut self, row: &Row<'_>) -> Result<(), arrow_schema::ArrowError> {
        self.site.append_value(row.site);
        self.agent.append_value(row.agent);
        self.status_class.append_value(row.status_class);
        self.google_class.append_option(row.google_class);
        self.root_allowed.append_option(row.root_allowed);
        self.cc_class.append_option(row.cc_class);
        self.named.append_value(row.named);
        match &row.doc_id {
            Some(id) => self.doc_id.append_value(id)?,
            None => self.doc_id.append_null(),
        }
        self.url.append_option(row.url);
        self.start_url.append_option(row.start_url);
        self.http_status
            .append_option(row.http_status.map(i32::from));
        self.redirect_hops.append_value(to_i32(row.redirect_hops));
        self.captures.append_value(to_i32(row.captures));
        self.rank.append_option(row.rank);
        self.top_k.append_option(row.top_k);
        self.site_key.append_value(row.site_key);
        self.status_semantics.append_value(row.status_semantics);
        self.crawl.append_value(row.crawl);
        self.rows += 1;
        Ok(())
    }

    /// The rows appended so far as one batch; the builders are left empty.
    pub fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.site.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.status_class.finish()),
            Arc::new(self.google_class.finish()),
            Arc::new(self.root_allowed.finish()),
            Arc::new(self.cc_class.finish()),
            Arc::new(self.named.finish()),
            Arc::new(self.doc_id.finish()),
            Arc::new(self.url.finish()),
            Arc::new(self.start_url.finish()),
            Arc::new(self.http_status.finish()),
            Arc::new(self.redirect_hops.finish()),
            Arc::new(self.captures.finish()),
            Arc::new(self.rank.finish()),
            Arc::new(self.top_k.finish()),
            Arc::new(self.site_key.finish()),
            Arc::new(self.status_semantics.finish()),
            Arc::new(self.crawl.finish()),
        ];
        RecordBatch::try_new(Table::Sites.schema(), columns)
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
    pub fn create(path: &Path, table: Table) -> Result<Self, SitesError> {
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
            Some(crate::output::properties(table)),
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
