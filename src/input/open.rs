//! Opening an input wherever it is: a local file, or a remote object streamed through
//! the store layer ([`crate::store`]). Either way the result is a [`CaptureReader`];
//! for a remote object also the handle where a store failure that cut the stream short
//! is kept, so the caller can tell a transient failure (read the input again later)
//! from damaged data.

use super::{file_name, open_file, open_read, CaptureReader, InputProblem, ReadOptions};
use crate::store::{FailureHandle, Location, StoreError, Stores};

/// Why an input could not be read at all: its one input-level `errors` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub code: &'static str,
    pub message: String,
    /// Transient (a remote store's retry budget ran out): `--resume` reads it again.
    pub retry: bool,
    /// Where in the file reading stopped (a problem of its data: an unsupported format,
    /// a CSV header missing a column, damage before the header row); None when the
    /// input could not be opened or fetched at all.
    pub offset: Option<u64>,
    /// The problem's position in the decompressed stream, see [`InputProblem`].
    pub stream_offset: Option<u64>,
}

impl From<&StoreError> for Unreadable {
    fn from(err: &StoreError) -> Self {
        Unreadable {
            code: err.code(),
            message: err.to_string(),
            retry: err.is_transient(),
            offset: None,
            stream_offset: None,
        }
    }
}

impl From<InputProblem> for Unreadable {
    fn from(problem: InputProblem) -> Self {
        Unreadable {
            code: problem.code,
            message: problem.message,
            retry: false,
            offset: Some(problem.offset),
            stream_offset: problem.stream_offset,
        }
    }
}

impl Unreadable {
    /// A file that could not be opened: no byte of it locates the problem.
    fn unopened(problem: InputProblem) -> Self {
        Unreadable {
            offset: None,
            ..Unreadable::from(problem)
        }
    }
}

/// Opens `input`: local files directly, remote objects as a
/// streaming [`crate::store::RemoteRead`] (its first request sent and retried here)
/// whose failure handle is returned with the reader.
pub fn open_location(
    input: &Location,
    stores: Option<&Stores>,
    opts: &ReadOptions,
) -> Result<(Box<dyn CaptureReader>, Option<FailureHandle>), Unreadable> {
    if let Location::Local(path) = input {
        let file = open_file(path).map_err(Unreadable::unopened)?;
        return open_read(Box::new(file), &file_name(path), opts)
            .map(|reader| (reader, None))
            .map_err(Unreadable::from);
    }
    let stores = stores
        .ok_or_else(|| Unreadable::from(&StoreError::Setup(format!("{input}: no store handle"))))?;
    let remote = stores.open_read(input).map_err(|e| Unreadable::from(&e))?;
    let failure = remote.failure();
    match open_read(Box::new(remote), &input.file_name(), opts) {
        Ok(reader) => Ok((reader, Some(failure))),
        // A store failure while sniffing the format is the store's, not the format's.
        Err(problem) => Err(match failure.get() {
            Some(err) => Unreadable::from(err),
            None => Unreadable::from(problem),
        }),
    }
}
