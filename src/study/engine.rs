//! The embedded engine: one DataFusion session over one dataset, its tables
//! registered by name from the [`Catalog`], under a memory limit with a spill
//! directory.
//!
//! A dataset on S3 is read through DataFusion's own object_store release (0.13, the
//! tool's is 0.14: the two cannot share a client), configured from the same `AWS_*`
//! environment as the tool's store, unsigned when it names no credentials.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::sql::parser::DFParserBuilder;

use super::StudyError;
use crate::output::catalog::{Catalog, Entry};

pub use crate::limits::DEFAULT_MEMORY_LIMIT;

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Bytes the engine's operators may hold before they spill (sorts, aggregations,
    /// sort-merge joins).
    pub memory_limit: usize,
    /// Where spill files go (the system's temporary directory when `None`).
    pub spill_dir: Option<PathBuf>,
    /// Threads (and partitions of every plan); 0 = one per core.
    pub threads: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            memory_limit: DEFAULT_MEMORY_LIMIT,
            spill_dir: None,
            threads: 0,
        }
    }
}

/// One dataset's tables in a DataFusion session.
pub struct Engine {
    runtime: tokio::runtime::Runtime,
    ctx: SessionContext,
    /// Tables the dataset does not have, or has only from another run: why.
    unavailable: BTreeMap<String, String>,
}

impl Engine {
    /// A session over `catalog`'s tables.
    pub fn open(catalog: &Catalog, options: &EngineOptions) -> Result<Engine, StudyError> {
        let engine_err = |e: &dyn std::fmt::Display| StudyError::Engine(e.to_string());
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
            .map_err(|e| engine_err(&e))?;
        let disk = match &options.spill_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| StudyError::Output {
                    path: dir.clone(),
                    detail: e.to_string(),
                })?;
                DiskManagerMode::Directories(vec![dir.clone()])
            }
            None => DiskManagerMode::OsTmpDirectory,
        };
        let env = RuntimeEnvBuilder::new()
            .with_memory_pool(Arc::new(FairSpillPool::new(options.memory_limit)))
            .with_disk_manager_builder(DiskManagerBuilder::default().with_mode(disk))
            .build_arc()
            .map_err(|e| engine_err(&e))?;
        let mut config = SessionConfig::new()
            .with_target_partitions(threads)
            .with_information_schema(true);
        // Hash joins cannot spill; sort-merge joins can. Under a memory limit a join of
        // two large tables must finish, so the spilling plan is the one chosen.
        config.options_mut().optimizer.prefer_hash_join = false;
        // A query's ORDER BY sorts once, after the partitions are gathered, instead of
        // sorting each partition and merging the sorted partitions. With one sort per
        // partition, each sort has 1/threads of the pool, and the merge of the partitions
        // (SortPreservingMergeExec) and each sort's merge before it spills (ExternalSorterMerge)
        // reserve nothing up front: they race for the memory that a spilling sort frees,
        // and whichever loses fails the query (ResourcesExhausted, exit 2), at the default
        // thread count too. One sort has the whole pool and nothing to race; the scans,
        // joins and aggregations below it still run on every thread. DataFusion's tuning
        // guide ("Memory-limited Queries") likewise advises fewer partitions for sorts
        // under a tight limit.
        config.options_mut().optimizer.repartition_sorts = false;
        // Each sort holds this much for its merges (`sort_spill_reservation_bytes`): the
        // merge of its in-memory batches before it spills, and of its spill files at the
        // end. DataFusion reserves each buffered batch at twice its size and leaves the
        // rest to this reservation (its own advice: raise it when twice is not enough).
        // The merge's row-encoded sort keys grow with what the sort holds, so a fixed
        // 10 MB (the default) is too little for a large limit (a sort of short strings
        // under 256 MiB asked for 85 MB and failed) and too much for a small one: a
        // quarter of each thread's part, whatever the limit.
        config.options_mut().execution.sort_spill_reservation_bytes =
            options.memory_limit / (4 * threads);
        let ctx = SessionContext::new_with_config_rt(config, env);
        if catalog.dir.is_none() {
            register_s3(&ctx, &catalog.root)?;
        }
        let mut unavailable = BTreeMap::new();
        for (table, entry) in catalog.entries() {
            let provider: Arc<dyn TableProvider> = match entry {
                Entry::Present(files) if files.is_empty() => {
                    Arc::new(EmptyTable::new(table.schema()))
                }
                Entry::Present(files) => {
                    let urls = files
                        .iter()
                        .map(|f| ListingTableUrl::parse(f.to_string_lossy()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| engine_err(&e))?;
                    let listing = ListingOptions::new(Arc::new(ParquetFormat::default()))
                        .with_file_extension(".parquet");
                    let config = ListingTableConfig::new_with_multi_paths(urls)
                        .with_listing_options(listing)
                        .with_schema(table.schema());
                    Arc::new(ListingTable::try_new(config).map_err(|e| engine_err(&e))?)
                }
                Entry::Absent(why) | Entry::Stale(why) => {
                    unavailable.insert(table.name().to_owned(), why.clone());
                    continue;
                }
            };
            ctx.register_table(table.name(), provider)
                .map_err(|e| engine_err(&e))?;
        }
        Ok(Engine {
            runtime,
            ctx,
            unavailable,
        })
    }

    /// Runs every statement of `sql` in order (`CREATE VIEW`s, then a query, as the
    /// files of `queries/` do) and returns the last one's rows as a stream.
    /// `source_name` (a file name, or `-e`) names the SQL in errors. A statement that
    /// names a table the dataset lacks fails before anything runs.
    pub fn run(&self, sql: &str, source_name: &str) -> Result<Results<'_>, StudyError> {
        let sql_err = |error| StudyError::Sql {
            source_name: source_name.to_owned(),
            error: Box::new(error),
        };
        let statements = DFParserBuilder::new(sql)
            .build()
            .and_then(|mut parser| parser.parse_statements())
            .map_err(sql_err)?;
        if statements.is_empty() {
            return Err(sql_err(datafusion::error::DataFusionError::Plan(
                "no SQL statement".to_owned(),
            )));
        }
        let state = self.ctx.state();
        for statement in &statements {
            for reference in state.resolve_table_references(statement).map_err(sql_err)? {
                if let Some(why) = self.unavailable.get(reference.table()) {
                    return Err(StudyError::Unavailable {
                        source_name: source_name.to_owned(),
                        table: reference.table().to_owned(),
                        why: why.clone(),
                    });
                }
            }
        }
        let last = statements.len() - 1;
        let stream = self.runtime.block_on(async {
            let mut stream = None;
            for (i, statement) in statements.into_iter().enumerate() {
                // Views made by earlier statements are in the session's catalog.
                let plan = self.ctx.state().statement_to_plan(statement).await?;
                let frame = self.ctx.execute_logical_plan(plan).await?;
                if i == last {
                    stream = Some(frame.execute_stream().await?);
                } else {
                    frame.collect().await?;
                }
            }
            Ok(stream)
        });
        match stream.map_err(sql_err)? {
            Some(stream) => Ok(Results {
                engine: self,
                stream,
            }),
            None => Err(sql_err(datafusion::error::DataFusionError::Plan(
                "no SQL statement".to_owned(),
            ))),
        }
    }
}

/// Gives `ctx` an S3 client for the bucket of `root` (`s3://bucket/prefix`), so that
/// the catalog's `s3://` files can be read.
fn register_s3(ctx: &SessionContext, root: &str) -> Result<(), StudyError> {
    use object_store_engine::aws::AmazonS3Builder;
    let setup = |e: &dyn std::fmt::Display| StudyError::Engine(format!("{root}: {e}"));
    let url = url::Url::parse(root).map_err(|e| setup(&e))?;
    let bucket = match (url.scheme(), url.host_str()) {
        ("s3", Some(bucket)) => bucket.to_owned(),
        _ => return Err(setup(&"not a local directory or an s3://bucket/prefix URL")),
    };
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(&bucket);
    if !crate::store::credentials_in_env() {
        builder = builder.with_skip_signature(true);
    }
    let store = builder.build().map_err(|e| setup(&e))?;
    let bucket_url = url::Url::parse(&format!("s3://{bucket}")).map_err(|e| setup(&e))?;
    ctx.register_object_store(&bucket_url, Arc::new(store));
    Ok(())
}

/// The rows of a query, batch by batch, as the engine makes them.
pub struct Results<'a> {
    engine: &'a Engine,
    stream: SendableRecordBatchStream,
}

impl Results<'_> {
    /// The result's schema.
    pub fn schema(&self) -> arrow_schema::SchemaRef {
        self.stream.schema()
    }

    /// The next batch; `None` at the end.
    pub fn next_batch(
        &mut self,
    ) -> Option<Result<arrow_array::RecordBatch, datafusion::error::DataFusionError>> {
        use futures_util::StreamExt;
        self.engine.runtime.block_on(self.stream.next())
    }
}
