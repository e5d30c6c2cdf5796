//! The algorithms and record formats of the paperless-dedupe toolkit.
//!
//! Each module is one stage of the pipeline; none of them opens files or exits.
//! The binaries in `pl-cli` wire them to stdin/stdout.
#![deny(missing_docs)]

pub mod batches;
pub mod cluster;
pub mod corpus;
pub mod decision;
pub mod diff;
pub mod distinct;
pub mod error;
pub mod eval;
pub mod evidence;
pub mod fields;
pub mod keyed;
pub mod ledger;
pub mod lsh;
pub mod minhash;
pub mod normalize;
pub mod owners;
pub mod page;
pub mod period;
pub mod records;
pub mod score;
pub mod scorer;
pub mod sha256;
pub mod shingle;
pub mod stamp;
pub mod stream;
pub mod terminal;
pub mod text_records;
pub mod thumb;
pub mod time;
pub mod trials;
pub mod trigram;
pub mod verify;
pub mod written;

pub use error::{Error, Result};
