//! The library's error type. Binaries add the input's name as context.

use thiserror::Error;

/// Everything that can go wrong while reading or checking records.
#[derive(Debug, Error)]
pub enum Error {
    /// An I/O error from the underlying reader or writer.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line of NDJSON that is not a valid record.
    #[error("line {line}: {msg}")]
    Line {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        msg: String,
    },
    /// A binary record (frame) that is not valid.
    #[error("record {record}: {msg}")]
    Record {
        /// 1-based record number.
        record: u64,
        /// What is wrong.
        msg: String,
    },
    /// The stream as a whole is not what was expected (bad header, truncation, trailing bytes).
    #[error("{0}")]
    Stream(String),
    /// A stream produced with other parameters than this stage needs.
    #[error(
        "parameter mismatch: {what}: stream has {got}, this stage expects {expected} ({advice})"
    )]
    Mismatch {
        /// Which parameter.
        what: &'static str,
        /// What the stage was configured with.
        expected: String,
        /// What the stream carries.
        got: String,
        /// What to do about it.
        advice: &'static str,
    },
    /// Invalid parameters given to an algorithm.
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// Is this an I/O error caused by a closed pipe downstream?
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
