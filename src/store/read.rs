//! A blocking [`Read`] over an object's GET stream, for the (synchronous) input readers.
//!
//! The body is pulled by a task on the store layer's runtime (the *pump*) into a
//! bounded queue of at most [`PREFETCH_CHUNKS`] chunks, so memory stays bounded
//! whatever the object's size, and nothing touches disk. `read` takes the next queued
//! chunk. When the queue is empty on a rayon thread (a slow server, a `Retry-After`
//! wait before a continuation), the thread runs other pending pool work
//! (`rayon::yield_now`) instead of waiting: the network never holds a thread the
//! other inputs' CPU work needs. Only an idle pool thread, or a thread outside the
//! pool (the slot that opens the input), waits for the bytes.
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

use bytes::{Buf, Bytes};
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore};
use tokio::sync::mpsc;

use super::retry::{classify, retrying, Budget, Verdict};
use super::StoreError;
use crate::limits::{PREFETCH_CHUNKS, PREFETCH_IDLE_WAIT};

/// Where a failure of a [`RemoteRead`] is kept for the caller to look at afterwards.
pub type FailureHandle = Arc<OnceLock<StoreError>>;

/// A streaming, retrying reader of one object (or a local file).
pub struct RemoteRead {
    inner: Inner,
    failure: FailureHandle,
}

enum Inner {
    Local(std::fs::File),
    Remote(Box<Prefetched>),
}

/// The reading end of a body pumped by a runtime task (see the module docs).
struct Prefetched {
    runtime: Arc<tokio::runtime::Runtime>,
    queue: mpsc::Receiver<Pumped>,
    /// Aborted when the reader is dropped: an input given up stops its download.
    pump: tokio::task::JoinHandle<()>,
    chunk: Bytes,
    size: u64,
    location: String,
    done: bool,
}

impl Drop for Prefetched {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// What the pump sends: the body's chunks, then exactly one `End` or `Failed`. A queue
/// closed without either means the pump died: never read as the end of the body.
enum Pumped {
    Data(Bytes),
    End,
    Failed(StoreError),
}

/// The pump's side: the GET stream and what it needs to continue a cut body.
struct Remote {
    store: Arc<dyn ObjectStore>,
    path: ObjectPath,
    location: String,
    stream: Option<BoxStream<'static, object_store::Result<Bytes>>>,
    /// Bytes of the object received so far.
    pos: u64,
    size: u64,
    etag: Option<String>,
    budget: Budget,
    io_timeout: Duration,
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
        let size = first.meta.size;
        let mut remote = Remote {
            size,
            etag: first.meta.e_tag.clone(),
            stream: Some(first.into_stream()),
            store,
            path,
            location: location.clone(),
            pos: 0,
            budget,
            io_timeout,
        };
        let (send, queue) = mpsc::channel(PREFETCH_CHUNKS);
        let pump = runtime.spawn(async move {
            loop {
                let (item, last) = match remote.next_chunk().await {
                    Ok(Some(bytes)) => (Pumped::Data(bytes), false),
                    Ok(None) => (Pumped::End, true),
                    Err(err) => (Pumped::Failed(err), true),
                };
                // A send fails only when the reader is gone: nobody wants the bytes.
                if send.send(item).await.is_err() || last {
                    return;
                }
            }
        });
        let prefetched = Prefetched {
            runtime,
            queue,
            pump,
            chunk: Bytes::new(),
            size,
            location,
            done: false,
        };
        Ok(RemoteRead {
            inner: Inner::Remote(Box::new(prefetched)),
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
        let body = match &mut self.inner {
            Inner::Local(file) => return file.read(buf),
            Inner::Remote(body) => body,
        };
        loop {
            if !body.chunk.is_empty() {
                let n = body.chunk.len().min(buf.len());
                buf[..n].copy_from_slice(&body.chunk[..n]);
                body.chunk.advance(n);
                return Ok(n);
            }
            if body.done || buf.is_empty() {
                return Ok(0);
            }
            let Some(item) = body.next_item() else {
                continue;
            };
            match item {
                Pumped::Data(bytes) => body.chunk = bytes,
                Pumped::End => body.done = true,
                Pumped::Failed(err) => {
                    body.done = true;
                    let io = std::io::Error::other(err.clone());
                    // Set once: the reader stops at its first failure.
                    let _ = self.failure.set(err);
                    return Err(io);
                }
            }
        }
    }
}

impl Prefetched {
    /// The next item of the queue, or None after running other pool work or a short
    /// idle wait (the caller asks again).
    fn next_item(&mut self) -> Option<Pumped> {
        match self.queue.try_recv() {
            Ok(item) => return Some(item),
            Err(mpsc::error::TryRecvError::Disconnected) => return Some(self.pump_died()),
            Err(mpsc::error::TryRecvError::Empty) => {}
        }
        // On a pool thread with work queued: do that work while the bytes travel.
        if let Some(rayon::Yield::Executed) = rayon::yield_now() {
            return None;
        }
        // Idle, or not a pool thread: wait, but briefly on the pool, where work may
        // arrive at any moment.
        let wait = match rayon::current_thread_index() {
            Some(_) => PREFETCH_IDLE_WAIT,
            None => Duration::MAX,
        };
        let queue = &mut self.queue;
        match self
            .runtime
            .block_on(async { tokio::time::timeout(wait, queue.recv()).await })
        {
            Ok(Some(item)) => Some(item),
            Ok(None) => Some(self.pump_died()),
            Err(_) => None,
        }
    }

    fn pump_died(&self) -> Pumped {
        Pumped::Failed(StoreError::Failed {
            location: self.location.clone(),
            detail: format!(
                "the download of this {}-byte object stopped before its end (internal error)",
                self.size
            ),
        })
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

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    use crate::store::{Location, StoreOptions, Stores};

    /// Serves one GET on 127.0.0.1: half the body, a pause of `stall`, the other half.
    /// Bounded: one connection, and the listener gives up after ten seconds. The thread
    /// returns the instant the pause began, so that tests time the read against the
    /// server's clock of events, not against an instant the client took earlier or later.
    fn stalling_server(
        body: Vec<u8>,
        stall: Duration,
    ) -> (String, std::thread::JoinHandle<Instant>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}/input.warc", listener.local_addr().expect("addr"));
        let server = std::thread::spawn(move || {
            listener.set_nonblocking(true).expect("nonblocking");
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut conn = loop {
                match listener.accept() {
                    Ok((conn, _)) => break conn,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => panic!("no request in 10 s: {e}"),
                }
            };
            conn.set_nonblocking(false).expect("blocking");
            conn.set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
            let mut request = BufReader::new(conn.try_clone().expect("clone"));
            let mut line = String::new();
            while request.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let half = body.len() / 2;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nETag: \"v1\"\r\n\
                 Last-Modified: Tue, 24 Nov 2026 00:00:00 GMT\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes()).expect("head");
            conn.write_all(&body[..half]).expect("first half");
            conn.flush().expect("flush");
            let stall_began = Instant::now();
            std::thread::sleep(stall);
            // The client may have its bytes and be gone: nothing to check then.
            if conn.write_all(&body[half..]).is_ok() {
                conn.flush().ok();
            }
            stall_began
        });
        (url, server)
    }

    #[test]
    fn a_pool_thread_waiting_for_bytes_runs_other_pool_work() {
        // Issue 22: a remote read waited on a rayon thread (block_on per chunk), so a slow
        // server held a thread the other inputs' CPU work needed. With one pool thread,
        // the other half of a join can only run before the read ends if the waiting
        // read gives its thread to it.
        let body: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let stall = Duration::from_millis(1500);
        let (url, server) = stalling_server(body.clone(), stall);
        let stores = Stores::new(StoreOptions::default()).expect("stores");
        let location = Location::parse(&url).expect("location");
        let mut reader = stores.open_read(&location).expect("first GET answered");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("pool");
        // Instants, not durations from a start the client picks: the server may begin its
        // pause before or after `open_read` returns (CI failed once on exactly that race).
        let ((read, read_done), other_done) = pool.install(|| {
            rayon::join(
                || {
                    let mut read = Vec::new();
                    let result = reader.read_to_end(&mut read).map(|_| read);
                    (result, Instant::now())
                },
                Instant::now,
            )
        });
        let stall_began = server.join().expect("server thread");
        assert_eq!(read.expect("body read whole"), body, "bytes differ");
        // The second half is written only after the pause, so the read cannot end sooner.
        assert!(
            read_done >= stall_began + stall,
            "the read ended {:?} after the pause began",
            read_done - stall_began
        );
        assert!(
            other_done + Duration::from_millis(700) < read_done,
            "the other pool work ran {:?} before the read ended",
            read_done.saturating_duration_since(other_done)
        );
    }

    #[test]
    fn a_thread_outside_the_pool_waits_for_the_whole_body() {
        let body: Vec<u8> = (0..100_000u32).map(|i| (i % 13) as u8).collect();
        let (url, server) = stalling_server(body.clone(), Duration::from_millis(300));
        let stores = Stores::new(StoreOptions::default()).expect("stores");
        let location = Location::parse(&url).expect("location");
        let mut reader = stores.open_read(&location).expect("first GET answered");
        assert_eq!(reader.size(), Some(body.len() as u64));
        let mut read = Vec::new();
        reader.read_to_end(&mut read).expect("body read whole");
        server.join().expect("server thread");
        assert_eq!(read, body);
    }
}
