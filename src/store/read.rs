//! A blocking [`Read`] over an object's GET stream, for the (synchronous) input readers.
//!
//! Each `read` takes the next chunk of the response body, waiting on the store
//! layer's runtime when none is buffered: one chunk at a time, so memory stays
//! bounded by hyper's buffer whatever the object's size, and nothing touches disk.
//!
//! A body cut mid-stream (reset, timeout, early end) is continued where it stopped
//! with a `Range: bytes=<pos>-` request pinned to the first response's ETag
//! (`If-Match`), within the input's retry budget; the bytes already handed out are
//! never read again. A continuation answered with another ETag, another size or
//! other bytes than asked for fails as [`StoreError::Changed`]: two versions are
//! never mixed. When the object has no ETag a cut cannot be continued safely and
//! counts as a transient failure of the input.
//!
//! On failure `read` returns an `io::Error` (the input reader records it as it
//! records any read error) and the [`StoreError`] is also kept in
//! [`RemoteRead::failure`], so the pipeline can tell a transient failure (rerun the
//! input on `--resume`) from damaged data.

use std::io::Read;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore};

use super::retry::{classify, retrying, Budget, Verdict};
use super::StoreError;

/// Where a failure of a [`RemoteRead`] is kept for the caller to look at afterwards.
pub type FailureHandle = Arc<OnceLock<StoreError>>;

/// A streaming, retrying reader of one object (or a local file).
pub struct RemoteRead {
    inner: Inner,
    failure: FailureHandle,
}

enum Inner {
    Local(std::fs::File),
    Remote(Box<Remote>),
}

struct Remote {
    runtime: Arc<tokio::runtime::Runtime>,
    store: Arc<dyn ObjectStore>,
    path: ObjectPath,
    location: String,
    stream: Option<BoxStream<'static, object_store::Result<Bytes>>>,
    chunk: Bytes,
    /// Bytes of the object handed out (or buffered in `chunk`) so far.
    pos: u64,
    size: u64,
    etag: Option<String>,
    budget: Budget,
    io_timeout: Duration,
    done: bool,
}

impl RemoteRead {
    pub(crate) fn local(file: std::fs::File) -> Self {
        RemoteRead {
            inner: Inner::Local(file),
            failure: FailureHandle::default(),
        }
    }

    /// Sends the first GET (with retries) and returns the reader of its body.
    pub(crate) fn open(
        runtime: Arc<tokio::runtime::Runtime>,
        store: Arc<dyn ObjectStore>,
        path: ObjectPath,
        location: String,
        mut budget: Budget,
        io_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let first = runtime.block_on(retrying(&mut budget, &location, Some(io_timeout), || {
            store.get_opts(&path, GetOptions::default())
        }))?;
        let remote = Remote {
            size: first.meta.size,
            etag: first.meta.e_tag.clone(),
            stream: Some(first.into_stream()),
            runtime,
            store,
            path,
            location,
            chunk: Bytes::new(),
            pos: 0,
            budget,
            io_timeout,
            done: false,
        };
        Ok(RemoteRead {
            inner: Inner::Remote(Box::new(remote)),
            failure: FailureHandle::default(),
        })
    }

    /// The failure that ended this reader early, if any (set before `read` returns
    /// the corresponding error). Keep the handle: it outlives the reader.
    pub fn failure(&self) -> FailureHandle {
        Arc::clone(&self.failure)
    }

    /// The object's size as its first response announced it (None for local files).
    pub fn size(&self) -> Option<u64> {
        match &self.inner {
            Inner::Local(_) => None,
            Inner::Remote(r) => Some(r.size),
        }
    }
}

impl Read for RemoteRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let remote = match &mut self.inner {
            Inner::Local(file) => return file.read(buf),
            Inner::Remote(remote) => remote,
        };
        loop {
            if !remote.chunk.is_empty() {
                let n = remote.chunk.len().min(buf.len());
                buf[..n].copy_from_slice(&remote.chunk[..n]);
                let _ = remote.chunk.split_to(n);
                return Ok(n);
            }
            if remote.done || buf.is_empty() {
                return Ok(0);
            }
            let runtime = Arc::clone(&remote.runtime);
            match runtime.block_on(remote.next_chunk()) {
                Ok(Some(chunk)) => remote.chunk = chunk,
                Ok(None) => remote.done = true,
                Err(err) => {
                    remote.done = true;
                    remote.stream = None;
                    let io = std::io::Error::other(err.clone());
                    let _ = self.failure.set(err);
                    return Err(io);
                }
            }
        }
    }
}

impl Remote {
    /// The next non-empty chunk of the body, continuing a cut body; `None` at its end.
    async fn next_chunk(&mut self) -> Result<Option<Bytes>, StoreError> {
        loop {
            let started = Instant::now();
            let (retry_after, why) = match self.stream.as_mut() {
                None => (None, String::new()),
                Some(stream) => match tokio::time::timeout(self.io_timeout, stream.next()).await {
                    Ok(Some(Ok(bytes))) => {
                        self.pos += bytes.len() as u64;
                        if self.pos > self.size {
                            return Err(self.changed(format!(
                                "the body is longer than the {} bytes announced",
                                self.size
                            )));
                        }
                        if bytes.is_empty() {
                            continue;
                        }
                        return Ok(Some(bytes));
                    }
                    Ok(None) if self.pos == self.size => return Ok(None),
                    Ok(None) => (
                        None,
                        format!("body ended at byte {} of {}", self.pos, self.size),
                    ),
                    Ok(Some(Err(e))) => match classify(&e, &self.location) {
                        Verdict::Fail(err) => return Err(err),
                        Verdict::Retry { retry_after, why } => {
                            (retry_after, format!("body cut at byte {}: {why}", self.pos))
                        }
                    },
                    Err(_) => (
                        None,
                        format!(
                            "no data for {:?} at byte {} of {}",
                            self.io_timeout, self.pos, self.size
                        ),
                    ),
                },
            };
            if self.stream.take().is_some() {
                let wait =
                    self.budget
                        .failed(started.elapsed(), retry_after, why, &self.location)?;
                tokio::time::sleep(wait).await;
            }
            self.continue_at_pos().await?;
        }
    }

    /// Reopens the body at `pos`, pinned to the first response's ETag.
    async fn continue_at_pos(&mut self) -> Result<(), StoreError> {
        let Some(etag) = self.etag.clone() else {
            return Err(self.budget.give_up(
                &self.location,
                format!(
                    "body cut at byte {} of {} and the server gives no ETag to continue it safely",
                    self.pos, self.size
                ),
            ));
        };
        let options = GetOptions {
            range: Some(GetRange::Offset(self.pos)),
            if_match: Some(etag.clone()),
            ..GetOptions::default()
        };
        let (store, path) = (Arc::clone(&self.store), self.path.clone());
        let result: GetResult = retrying(
            &mut self.budget,
            &self.location,
            Some(self.io_timeout),
            || store.get_opts(&path, options.clone()),
        )
        .await?;
        if result.meta.e_tag.as_ref().is_some_and(|e| *e != etag) {
            return Err(self.changed(format!(
                "ETag {etag} became {}",
                result.meta.e_tag.as_deref().unwrap_or_default()
            )));
        }
        if result.meta.size != self.size || result.range.start != self.pos {
            return Err(self.changed(format!(
                "asked for bytes {}- of {}, got {:?} of {}",
                self.pos, self.size, result.range, result.meta.size
            )));
        }
        self.stream = Some(result.into_stream());
        Ok(())
    }

    fn changed(&self, detail: String) -> StoreError {
        StoreError::Changed {
            location: self.location.clone(),
            detail,
        }
    }
}
