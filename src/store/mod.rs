//! Object stores: the one place the program talks to HTTP(S) servers and S3.
//!
//! ```text
//! Location (path | http(s)://host/path | s3://bucket/key)
//!   -> Stores: one tokio runtime, one `--max-requests` semaphore, one cached
//!      object_store client per HTTP origin or S3 bucket
//!   -> every request through service::Guarded (permit, User-Agent, timeouts,
//!      error responses sorted into retryable faults or final errors)
//!   -> retry::retrying (backoff with jitter, Retry-After, a time budget)
//!   -> RemoteRead (blocking Read over the GET stream, cut bodies continued with
//!      Range + If-Match) or whole small objects (lists), PUT, LIST, DELETE
//! ```
//!
//! Callers are synchronous (rayon workers): every method blocks on the store
//! runtime. S3 is configured by the standard AWS environment variables
//! (`AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `AWS_REGION`, credentials); without
//! credentials in the environment requests are unsigned, as for a public bucket.

mod error;
mod location;
mod read;
mod retry;
mod service;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, RetryConfig, WriteMultipart};

pub use error::StoreError;
pub use location::Location;
pub use read::{FailureHandle, RemoteRead};
pub use retry::RetryPolicy;

use retry::{retrying, Budget};
use service::GuardedConnector;

/// Default `--max-requests`: see README.md ("Remote inputs") for why.
pub const DEFAULT_MAX_REQUESTS: usize = 8;
/// Default `--retry-budget`, in seconds.
pub const DEFAULT_RETRY_BUDGET_SECS: u64 = 600;
/// Default `--io-timeout`, in seconds.
pub const DEFAULT_IO_TIMEOUT_SECS: u64 = 60;

/// How the store layer behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// Requests in flight at once over the whole run (a streaming GET counts until
    /// its body is read).
    pub max_requests: usize,
    pub retry: RetryPolicy,
    /// Longest wait for a connection, for a response, or for the next bytes of a body.
    pub io_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            max_requests: DEFAULT_MAX_REQUESTS,
            retry: RetryPolicy {
                budget: Duration::from_secs(DEFAULT_RETRY_BUDGET_SECS),
                initial_backoff: Duration::from_secs(1),
                max_backoff: Duration::from_secs(60),
            },
            io_timeout: Duration::from_secs(DEFAULT_IO_TIMEOUT_SECS),
        }
    }
}

/// The handle to every object store of a run.
pub struct Stores {
    runtime: Arc<tokio::runtime::Runtime>,
    permits: Arc<tokio::sync::Semaphore>,
    options: StoreOptions,
    clients: Mutex<HashMap<String, Arc<dyn ObjectStore>>>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Stores {
    pub fn new(options: StoreOptions) -> Result<Stores, StoreError> {
        // reqwest is built without a default TLS crypto provider (ring builds much
        // faster than aws-lc-sys); install ring's. Err means one is installed already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("robots-census-io")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Setup(format!("tokio runtime: {e}")))?;
        Ok(Stores {
            runtime: Arc::new(runtime),
            permits: Arc::new(tokio::sync::Semaphore::new(options.max_requests.max(1))),
            options,
            clients: Mutex::new(HashMap::new()),
        })
    }

    pub fn options(&self) -> &StoreOptions {
        &self.options
    }

    /// A streaming reader of the object (or local file) at `loc`, with its own
    /// retry budget. The first request is sent (and retried) before this returns.
    pub fn open_read(&self, loc: &Location) -> Result<RemoteRead, StoreError> {
        if let Location::Local(path) = loc {
            return std::fs::File::open(path)
                .map(RemoteRead::local)
                .map_err(|e| local_error(loc, &e));
        }
        let (store, path) = self.client(loc)?;
        RemoteRead::open(
            Arc::clone(&self.runtime),
            store,
            path,
            loc.to_string(),
            Budget::new(self.options.retry),
            self.options.io_timeout,
        )
    }

    /// The whole object: for small files such as input lists.
    pub fn read_all(&self, loc: &Location) -> Result<Vec<u8>, StoreError> {
        use std::io::Read;
        let mut reader = self.open_read(loc)?;
        let mut bytes = Vec::with_capacity(reader.size().unwrap_or(0).min(64 << 20) as usize);
        match reader.read_to_end(&mut bytes) {
            Ok(_) => Ok(bytes),
            Err(e) => Err(reader
                .failure()
                .get()
                .cloned()
                .unwrap_or_else(|| StoreError::Failed {
                    location: loc.to_string(),
                    detail: e.to_string(),
                })),
        }
    }

    /// Like [`Stores::read_all`], with `None` for an object that does not exist.
    pub fn get_opt(&self, loc: &Location) -> Result<Option<Vec<u8>>, StoreError> {
        match self.read_all(loc) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes `bytes` as the whole object at `loc` in one PUT (retried: a PUT is
    /// idempotent). Remote locations only.
    pub fn put(&self, loc: &Location, bytes: Bytes) -> Result<(), StoreError> {
        if let Location::Local(_) = loc {
            return Err(local_write(loc));
        }
        let (store, path) = self.client(loc)?;
        let payload = PutPayload::from_bytes(bytes);
        self.block_on_retrying(loc, || {
            let (store, path, payload) = (Arc::clone(&store), path.clone(), payload.clone());
            async move { store.put(&path, payload).await.map(|_| ()) }
        })
    }

    /// Writes the local file `source` as the whole object at `loc`: one PUT when it
    /// holds at most `part_size` bytes, else a multipart upload of `part_size` parts
    /// (an S3 PUT holds at most 5 GiB; parts of at least 5 MiB), waiting whenever more
    /// than two are in flight, so memory stays under about `4 * part_size` (the read
    /// buffer and three parts at the peak) whatever the file's size. Retried
    /// as a whole: a failed attempt's upload is aborted and the next starts again from
    /// the file. Remote locations only.
    pub fn put_file(
        &self,
        loc: &Location,
        source: &std::path::Path,
        part_size: usize,
    ) -> Result<(), StoreError> {
        let source_loc = Location::Local(source.to_owned());
        let size = std::fs::metadata(source)
            .map_err(|e| local_error(&source_loc, &e))?
            .len();
        if let Location::Local(_) = loc {
            return Err(local_write(loc));
        }
        if size <= part_size as u64 {
            let bytes = std::fs::read(source).map_err(|e| local_error(&source_loc, &e))?;
            return self.put(loc, Bytes::from(bytes));
        }
        let (store, path) = self.client(loc)?;
        self.block_on_retrying(loc, || {
            let (store, path) = (Arc::clone(&store), path.clone());
            async move {
                let upload = store.put_multipart(&path).await?;
                let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size);
                match upload_parts(source, part_size, &mut writer).await {
                    Ok(()) => writer.finish().await.map(|_| ()),
                    Err(e) => match writer.abort().await {
                        Ok(()) => Err(e),
                        // Said, not dropped: the parts stay billed until a lifecycle
                        // rule for incomplete uploads removes them.
                        Err(abort) => Err(object_store::Error::Generic {
                            store: "S3",
                            source: format!(
                                "{e}; aborting the multipart upload failed too: {abort}"
                            )
                            .into(),
                        }),
                    },
                }
            }
        })
    }

    /// The bytes `range` of the object (or local file) at `loc`.
    pub fn get_range(
        &self,
        loc: &Location,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, StoreError> {
        if let Location::Local(_) = loc {
            return Stores::local_range(loc, range);
        }
        let (store, path) = self.client(loc)?;
        let bytes = self.block_on_retrying(loc, || {
            let (store, path, range) = (Arc::clone(&store), path.clone(), range.clone());
            async move { store.get_range(&path, range).await }
        })?;
        Ok(bytes.to_vec())
    }

    /// The bytes `range` of a local file.
    pub fn local_range(loc: &Location, range: std::ops::Range<u64>) -> Result<Vec<u8>, StoreError> {
        use std::io::{Read, Seek};
        let Location::Local(path) = loc else {
            return Err(StoreError::BadLocation(format!("{loc}: not a local file")));
        };
        let mut file = std::fs::File::open(path).map_err(|e| local_error(loc, &e))?;
        let mut bytes =
            vec![0; usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(0)];
        file.seek(std::io::SeekFrom::Start(range.start))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| local_error(loc, &e))?;
        Ok(bytes)
    }

    /// The size of the object (or local file) at `loc`.
    pub fn size(&self, loc: &Location) -> Result<u64, StoreError> {
        if let Location::Local(path) = loc {
            return std::fs::metadata(path)
                .map(|m| m.len())
                .map_err(|e| local_error(loc, &e));
        }
        let (store, path) = self.client(loc)?;
        let meta = self.block_on_retrying(loc, || {
            let (store, path) = (Arc::clone(&store), path.clone());
            async move { store.head(&path).await }
        })?;
        Ok(meta.size)
    }

    /// Copies the object at `loc` to the local file `to` as it streams in (under a
    /// temporary name, renamed when whole), so a step reads a remote table's part
    /// as a local file.
    pub fn download(&self, loc: &Location, to: &std::path::Path) -> Result<(), StoreError> {
        let to_loc = Location::Local(to.to_owned());
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| local_error(&to_loc, &e))?;
        }
        let tmp = to.with_extension("download");
        let mut reader = self.open_read(loc)?;
        let copied = std::fs::File::create(&tmp)
            .and_then(|mut file| std::io::copy(&mut reader, &mut file).map(|_| ()));
        if let Err(e) = copied {
            std::fs::remove_file(&tmp).ok();
            return Err(reader
                .failure()
                .get()
                .cloned()
                .unwrap_or_else(|| local_error(&to_loc, &e)));
        }
        std::fs::rename(&tmp, to).map_err(|e| local_error(&to_loc, &e))
    }

    /// Every object under `prefix` (a directory, or an S3 key prefix taken as a
    /// directory), sorted; none when there is nothing there. HTTP servers cannot list:
    /// that is an error.
    pub fn list(&self, prefix: &Location) -> Result<Vec<Location>, StoreError> {
        match prefix {
            Location::Local(dir) => {
                let mut out = Vec::new();
                list_local(dir, &mut out).map_err(|e| local_error(prefix, &e))?;
                out.sort();
                Ok(out.into_iter().map(Location::Local).collect())
            }
            Location::Http(_) => Err(StoreError::Failed {
                location: prefix.to_string(),
                detail: "an HTTP server cannot be listed".to_owned(),
            }),
            Location::S3 { bucket, .. } => {
                let (store, path) = self.client(prefix)?;
                let metas = self.block_on_retrying(prefix, || {
                    let (store, path) = (Arc::clone(&store), path.clone());
                    async move {
                        let prefix = (!path.as_ref().is_empty()).then_some(&path);
                        store.list(prefix).try_collect::<Vec<_>>().await
                    }
                })?;
                let mut keys: Vec<String> =
                    metas.into_iter().map(|m| m.location.to_string()).collect();
                keys.sort();
                Ok(keys
                    .into_iter()
                    .map(|key| Location::S3 {
                        bucket: bucket.clone(),
                        key,
                    })
                    .collect())
            }
        }
    }

    /// Deletes the object at `loc`; deleting what is not there is no error.
    pub fn delete(&self, loc: &Location) -> Result<(), StoreError> {
        if let Location::Local(path) = loc {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(local_error(loc, &e)),
                _ => Ok(()),
            };
        }
        let (store, path) = self.client(loc)?;
        let result = self.block_on_retrying(loc, || {
            let (store, path) = (Arc::clone(&store), path.clone());
            async move { store.delete(&path).await }
        });
        match result {
            Err(StoreError::NotFound { .. }) => Ok(()),
            other => other,
        }
    }

    fn block_on_retrying<T, F, Fut>(&self, loc: &Location, op: F) -> Result<T, StoreError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let mut budget = Budget::new(self.options.retry);
        let location = loc.to_string();
        self.runtime
            .block_on(retrying(&mut budget, &location, None, op))
    }

    /// The cached client of the origin or bucket of `loc`, and the object's path in it.
    fn client(&self, loc: &Location) -> Result<(Arc<dyn ObjectStore>, ObjectPath), StoreError> {
        let bad = |why: String| StoreError::BadLocation(format!("{loc}: {why}"));
        let (cache_key, path) = match loc {
            Location::Local(_) => return Err(bad("a local path has no object store".into())),
            Location::Http(url) => {
                if url.query().is_some() {
                    return Err(bad("URLs with a query string are not supported".into()));
                }
                let path = ObjectPath::from_url_path(url.path()).map_err(|e| bad(e.to_string()))?;
                (url.origin().ascii_serialization(), path)
            }
            Location::S3 { bucket, key } => {
                let path = ObjectPath::parse(key).map_err(|e| bad(e.to_string()))?;
                (format!("s3://{bucket}"), path)
            }
        };
        let mut clients = self
            .clients
            .lock()
            .map_err(|_| StoreError::Setup("client cache poisoned".into()))?;
        if let Some(store) = clients.get(&cache_key) {
            return Ok((Arc::clone(store), path));
        }
        let store = self.build_client(loc, &cache_key)?;
        clients.insert(cache_key, Arc::clone(&store));
        Ok((store, path))
    }

    fn build_client(
        &self,
        loc: &Location,
        origin: &str,
    ) -> Result<Arc<dyn ObjectStore>, StoreError> {
        let connector = || GuardedConnector {
            permits: Arc::clone(&self.permits),
            io_timeout: self.options.io_timeout,
        };
        // One retry policy, ours (retry.rs): object_store's own retries are off.
        let no_retries = RetryConfig {
            max_retries: 0,
            ..RetryConfig::default()
        };
        let setup = |e: object_store::Error| StoreError::Setup(format!("{loc}: {e}"));
        match loc {
            Location::Http(_) => {
                let store = object_store::http::HttpBuilder::new()
                    .with_url(origin)
                    .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
                    .with_retry(no_retries)
                    .with_http_connector(connector())
                    .build()
                    .map_err(setup)?;
                Ok(Arc::new(store))
            }
            Location::S3 { bucket, .. } => {
                let mut builder = object_store::aws::AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .with_retry(no_retries)
                    .with_http_connector(connector());
                if !credentials_in_env() {
                    builder = builder.with_skip_signature(true);
                }
                Ok(Arc::new(builder.build().map_err(setup)?))
            }
            Location::Local(_) => Err(StoreError::Setup(format!("{loc}: local path"))),
        }
    }
}

/// Whether the environment names credentials (or says how to find them). Without
/// any, requests go unsigned rather than asking an instance metadata endpoint;
/// `AWS_SKIP_SIGNATURE=false` restores object_store's default chain (instance
/// profile) inside AWS. The study engine's S3 client (`study::engine`) follows the same rule.
pub fn credentials_in_env() -> bool {
    [
        "AWS_ACCESS_KEY_ID",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_SKIP_SIGNATURE",
    ]
    .iter()
    .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()))
}

/// The refusal of a write to a local path: the output's local files are written by
/// the output itself (a temporary name, fsync, rename), never through the store.
fn local_write(loc: &Location) -> StoreError {
    StoreError::Setup(format!(
        "{loc}: a local path is not written through the object store"
    ))
}

/// Feeds `source` to `writer` in `part_size` reads, waiting whenever two parts are
/// in flight.
async fn upload_parts(
    source: &std::path::Path,
    part_size: usize,
    writer: &mut WriteMultipart,
) -> object_store::Result<()> {
    use std::io::Read;
    let local = |e: std::io::Error| object_store::Error::Generic {
        store: "local",
        source: format!("{}: {e}", source.display()).into(),
    };
    let mut file = std::fs::File::open(source).map_err(local)?;
    let mut buf = vec![0u8; part_size];
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match file.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(local(e)),
            }
        }
        if filled == 0 {
            return Ok(());
        }
        writer.write(&buf[..filled]);
        writer.wait_for_capacity(2).await?;
        if filled < buf.len() {
            return Ok(());
        }
    }
}

fn local_error(loc: &Location, e: &std::io::Error) -> StoreError {
    let (location, detail) = (loc.to_string(), e.to_string());
    match e.kind() {
        std::io::ErrorKind::NotFound => StoreError::NotFound { location, detail },
        std::io::ErrorKind::PermissionDenied => StoreError::AccessDenied { location, detail },
        _ => StoreError::Failed { location, detail },
    }
}

fn list_local(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            list_local(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}
