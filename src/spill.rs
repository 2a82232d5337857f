//! Buckets of a step's records, held in memory or spilled to disk: how `sites` and
//! `changes` read each table once whatever `--memory-limit` is.
//!
//! A step routes each record it reads to one of K buckets, then works on one bucket at
//! a time in memory. With one bucket nothing touches the disk: the chunks stay as they
//! were pushed. With more, each chunk is encoded, compressed (zstd) and appended to its
//! bucket's file in a directory of its own, removed when the [`Buckets`] are dropped;
//! reading a bucket back decodes its chunks one at a time. Chunks of one bucket come
//! back in the order they were pushed; pushes from several threads may interleave, so a
//! step must not let its answers depend on that order (the steps sort with total keys).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why spilled records could not be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    #[error("spill file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("spill file {path}, byte {offset}: {what}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
}

/// Records that can be spilled: a batch of them encoded to bytes and back.
pub trait Chunk: Sized + Send {
    /// Appends the chunk's bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// The chunk [`Chunk::encode`] wrote as `bytes`; a description of what is wrong
    /// when the bytes are not such a chunk.
    fn decode(bytes: &[u8]) -> Result<Self, String>;
}

/// The zstd level of spilled chunks: the fastest, the data is read back once.
const LEVEL: i32 = 1;

/// K buckets of chunks.
pub struct Buckets<C> {
    store: Store<C>,
}

enum Store<C> {
    Memory(Vec<Mutex<Vec<C>>>),
    Disk {
        dir: SpillDir,
        files: Vec<Mutex<Option<BufWriter<File>>>>,
        /// Bytes written to each bucket's file (compressed, with frame headers).
        written: Vec<Mutex<u64>>,
    },
}

/// A directory of spill files, removed with everything in it when dropped (an error, a
/// panic, or the end of the step that made it).
pub struct SpillDir(PathBuf);

impl SpillDir {
    /// The directory `path`, made when first written to.
    pub fn new(path: PathBuf) -> SpillDir {
        SpillDir(path)
    }

    /// A directory of it for one kind of buckets.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        // Nothing to report to: the directory is a temporary, and a start collects
        // abandoned ones (`output::dataset::remove_leftovers`).
        std::fs::remove_dir_all(&self.0).ok();
    }
}

impl<C: Chunk> Buckets<C> {
    /// `k` buckets (at least one): in memory when there is one, else files in a new
    /// directory `dir` (a name no other process uses), made now.
    pub fn new(k: usize, dir: &Path) -> Result<Self, SpillError> {
        if k <= 1 {
            return Ok(Buckets {
                store: Store::Memory(vec![Mutex::new(Vec::new())]),
            });
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let dir = SpillDir(dir.to_owned());
        Ok(Buckets {
            store: Store::Disk {
                files: (0..k).map(|_| Mutex::new(None)).collect(),
                written: (0..k).map(|_| Mutex::new(0)).collect(),
                dir,
            },
        })
    }

    /// The number of buckets.
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Memory(buckets) => buckets.len(),
            Store::Disk { files, .. } => files.len(),
        }
    }

    /// Whether the buckets are on disk.
    #[cfg(test)]
    pub fn spilled(&self) -> bool {
        matches!(self.store, Store::Disk { .. })
    }

    /// Adds `chunk` to bucket `bucket` (any thread; encoded and compressed before the
    /// bucket is locked).
    pub fn push(&self, bucket: usize, chunk: C) -> Result<(), SpillError> {
        match &self.store {
            Store::Memory(buckets) => {
                lock(&buckets[bucket % buckets.len()]).push(chunk);
                Ok(())
            }
            Store::Disk {
                dir,
                files,
                written,
            } => {
                let bucket = bucket % files.len();
                let path = bucket_path(&dir.0, bucket);
                let mut raw = Vec::new();
                chunk.encode(&mut raw);
                let packed = zstd::bulk::compress(&raw, LEVEL).map_err(io(&path))?;
                let header =
                    frame_header(raw.len(), packed.len()).ok_or_else(|| SpillError::Io {
                        path: path.clone(),
                        source: std::io::Error::other("a chunk of 4 GiB or more"),
                    })?;
                let mut file = lock(&files[bucket]);
                if file.is_none() {
                    // Appending: a push after `finish` adds to what is there.
                    let opened = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&path)
                        .map_err(io(&path))?;
                    *file = Some(BufWriter::new(opened));
                }
                if let Some(file) = file.as_mut() {
                    file.write_all(&header)
                        .and_then(|()| file.write_all(&packed))
                        .map_err(io(&path))?;
                }
                *lock(&written[bucket]) += (header.len() + packed.len()) as u64;
                Ok(())
            }
        }
    }

    /// The bytes bucket `bucket` holds on disk (0 in memory).
    #[cfg(test)]
    pub fn written(&self, bucket: usize) -> u64 {
        match &self.store {
            Store::Memory(_) => 0,
            Store::Disk { written, .. } => *lock(&written[bucket]),
        }
    }

    /// Ends the pushes: every bucket file is flushed, so buckets can be scanned.
    pub fn finish(&self) -> Result<(), SpillError> {
        if let Store::Disk { dir, files, .. } = &self.store {
            for (bucket, file) in files.iter().enumerate() {
                if let Some(mut file) = lock(file).take() {
                    let path = bucket_path(&dir.0, bucket);
                    file.flush().map_err(io(&path))?;
                }
            }
        }
        Ok(())
    }

    /// Bucket `bucket`'s chunks, in the order pushed, read without taking them (after
    /// [`Buckets::finish`]): copies of the chunks in memory, decoded from disk one at a
    /// time.
    pub fn scan(&self, bucket: usize) -> Result<Taken<C>, SpillError>
    where
        C: Clone,
    {
        match &self.store {
            Store::Memory(buckets) => Ok(Taken::Memory(lock(&buckets[bucket]).clone().into_iter())),
            Store::Disk { dir, .. } => Frames::open(bucket_path(&dir.0, bucket), false),
        }
    }

    /// Takes bucket `bucket`'s chunks, in the order pushed: from memory at once, from
    /// disk one at a time as the iterator is read (the file is removed once read). A
    /// bucket is taken once.
    pub fn take(&self, bucket: usize) -> Result<Taken<C>, SpillError> {
        match &self.store {
            Store::Memory(buckets) => Ok(Taken::Memory(
                std::mem::take(&mut *lock(&buckets[bucket])).into_iter(),
            )),
            Store::Disk { dir, files, .. } => {
                let path = bucket_path(&dir.0, bucket);
                if let Some(mut file) = lock(&files[bucket]).take() {
                    file.flush().map_err(io(&path))?;
                }
                Frames::open(path, true)
            }
        }
    }
}

/// The chunks of one bucket being taken back.
pub enum Taken<C> {
    Memory(std::vec::IntoIter<C>),
    Disk(Frames<C>),
}

impl<C: Chunk> Iterator for Taken<C> {
    type Item = Result<C, SpillError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Taken::Memory(chunks) => chunks.next().map(Ok),
            Taken::Disk(frames) => frames.next(),
        }
    }
}

/// Chunks read back from a bucket's file; the file is removed once read to its end.
pub struct Frames<C> {
    reader: BufReader<File>,
    path: PathBuf,
    offset: u64,
    done: bool,
    /// Remove the file once read to its end (a take, not a scan).
    remove: bool,
    _chunk: std::marker::PhantomData<C>,
}

impl<C: Chunk> Frames<C> {
    /// The chunks of the bucket file `path` (none when it was never written);
    /// `remove`: the file goes once read to its end.
    fn open(path: PathBuf, remove: bool) -> Result<Taken<C>, SpillError> {
        let reader = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Taken::Memory(Vec::new().into_iter()))
            }
            Err(e) => return Err(io(&path)(e)),
        };
        Ok(Taken::Disk(Frames {
            reader: BufReader::new(reader),
            path,
            offset: 0,
            done: false,
            remove,
            _chunk: std::marker::PhantomData,
        }))
    }

    fn read_frame(&mut self) -> Result<Option<C>, SpillError> {
        let mut header = [0u8; 8];
        let mut got = 0;
        while got < header.len() {
            match self.reader.read(&mut header[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(self.corrupt("a frame header cut short")),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io(&self.path)(e)),
            }
        }
        let raw = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let packed = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        let mut bytes = vec![0u8; packed];
        self.reader
            .read_exact(&mut bytes)
            .map_err(|_| self.corrupt("a frame cut short"))?;
        let plain = zstd::bulk::decompress(&bytes, raw)
            .map_err(|e| self.corrupt(&format!("a frame that does not decompress: {e}")))?;
        if plain.len() != raw {
            return Err(self.corrupt("a frame of another length than its header says"));
        }
        let chunk = C::decode(&plain).map_err(|what| self.corrupt(&what))?;
        self.offset += (header.len() + packed) as u64;
        Ok(Some(chunk))
    }

    fn corrupt(&self, what: &str) -> SpillError {
        SpillError::Corrupt {
            path: self.path.clone(),
            offset: self.offset,
            what: what.to_owned(),
        }
    }
}

impl<C: Chunk> Iterator for Frames<C> {
    type Item = Result<C, SpillError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let frame = self.read_frame();
        if !matches!(frame, Ok(Some(_))) {
            self.done = true;
            if self.remove {
                // Taken to its end (or failed): its room on disk goes back now.
                std::fs::remove_file(&self.path).ok();
            }
        }
        frame.transpose()
    }
}

/// `[raw length, compressed length]`, little-endian u32 each.
fn frame_header(raw: usize, packed: usize) -> Option<[u8; 8]> {
    let (raw, packed) = (u32::try_from(raw).ok()?, u32::try_from(packed).ok()?);
    let mut header = [0u8; 8];
    header[..4].copy_from_slice(&raw.to_le_bytes());
    header[4..].copy_from_slice(&packed.to_le_bytes());
    Some(header)
}

fn bucket_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("bucket-{bucket:05}.zst"))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> SpillError + '_ {
    move |source| SpillError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A lock that a panic elsewhere does not poison for good: the data under it is
/// appended to whole or not at all.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Little-endian encoding helpers for [`Chunk`] implementations.
pub mod codec {
    /// Appends `n` as a little-endian u64.
    pub fn put_u64(out: &mut Vec<u8>, n: u64) {
        out.extend_from_slice(&n.to_le_bytes());
    }

    /// Appends `bytes` with its length first.
    pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
        put_u64(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }

    /// A reader over encoded bytes: each call takes the next field, or says the bytes
    /// ended too soon.
    pub struct Reader<'a> {
        bytes: &'a [u8],
    }

    impl<'a> Reader<'a> {
        pub fn new(bytes: &'a [u8]) -> Self {
            Reader { bytes }
        }

        pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
            if self.bytes.len() < n {
                return Err(format!(
                    "{n} bytes wanted, {} left in the chunk",
                    self.bytes.len()
                ));
            }
            let (head, tail) = self.bytes.split_at(n);
            self.bytes = tail;
            Ok(head)
        }

        pub fn u64(&mut self) -> Result<u64, String> {
            let b = self.take(8)?;
            Ok(u64::from_le_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ]))
        }

        pub fn usize(&mut self) -> Result<usize, String> {
            usize::try_from(self.u64()?).map_err(|e| e.to_string())
        }

        pub fn bytes(&mut self) -> Result<&'a [u8], String> {
            let n = self.usize()?;
            self.take(n)
        }

        #[cfg(test)]
        pub fn is_empty(&self) -> bool {
            self.bytes.is_empty()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::codec::{put_bytes, Reader};
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Words(Vec<String>);

    impl Chunk for Words {
        fn encode(&self, out: &mut Vec<u8>) {
            for w in &self.0 {
                put_bytes(out, w.as_bytes());
            }
        }
        fn decode(bytes: &[u8]) -> Result<Self, String> {
            let mut r = Reader::new(bytes);
            let mut words = Vec::new();
            while !r.is_empty() {
                words.push(String::from_utf8(r.bytes()?.to_vec()).map_err(|e| e.to_string())?);
            }
            Ok(Words(words))
        }
    }

    fn words(list: &[&str]) -> Words {
        Words(list.iter().map(|w| (*w).to_owned()).collect())
    }

    fn taken(buckets: &Buckets<Words>, b: usize) -> Vec<Words> {
        buckets
            .take(b)
            .expect("taken")
            .collect::<Result<_, _>>()
            .expect("read back")
    }

    #[test]
    fn chunks_come_back_per_bucket_in_order_from_memory_and_from_disk() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for k in [1, 3] {
            let spill = dir.path().join(format!("spill-{k}"));
            let buckets = Buckets::new(k, &spill).expect("made");
            assert_eq!(buckets.spilled(), k > 1);
            buckets.push(0, words(&["a", "b"])).expect("pushed");
            buckets.push(k - 1, words(&["c"])).expect("pushed");
            buckets.push(0, words(&[""])).expect("pushed");
            if k == 1 {
                assert_eq!(
                    taken(&buckets, 0),
                    [words(&["a", "b"]), words(&["c"]), words(&[""])]
                );
                assert!(!spill.exists(), "one bucket stays in memory");
                continue;
            }
            assert!(buckets.written(0) > 0 && buckets.written(1) == 0);
            assert_eq!(taken(&buckets, 0), [words(&["a", "b"]), words(&[""])]);
            assert!(taken(&buckets, 1).is_empty(), "a bucket never pushed to");
            assert_eq!(taken(&buckets, 2), [words(&["c"])]);
            assert!(
                !bucket_path(&spill, 0).exists(),
                "a bucket read to its end is removed"
            );
            drop(buckets);
            assert!(!spill.exists(), "the directory goes with the buckets");
        }
    }

    #[test]
    fn a_damaged_spill_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let spill = dir.path().join("spill");
        let buckets = Buckets::new(2, &spill).expect("made");
        buckets.push(1, words(&["abc", "def"])).expect("pushed");
        buckets.push(1, words(&["ghi"])).expect("pushed");
        // Taking flushes the file; it is read lazily, so it can be cut before.
        let path = bucket_path(&spill, 1);
        let taken = buckets.take(1).expect("taken");
        let len = std::fs::metadata(&path).expect("there").len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(len - 3))
            .expect("cut");
        let got: Vec<Result<Words, SpillError>> = taken.collect();
        assert_eq!(got.len(), 2);
        assert_eq!(
            *got[0].as_ref().expect("the first frame is whole"),
            words(&["abc", "def"])
        );
        let err = got[1].as_ref().expect_err("the second is cut").to_string();
        assert!(
            err.contains(&path.display().to_string()) && err.contains("cut short"),
            "{err}"
        );
    }
}
