//! The network side of paperless-dedupe: a Paperless-NGX REST client ([`client`]) with
//! token auth, API version negotiation, retries and plain errors; the list endpoints pl-fetch
//! pages through ([`api`]); docs records with names resolved ([`record`]); incremental sync
//! with a crash-safe state file ([`sync`]); and a folder of text files as a corpus ([`dir`]).
#![deny(missing_docs)]

pub mod api;
pub mod client;
pub mod dir;
pub mod error;
pub mod record;
pub mod sync;
pub mod write;

pub use client::{Client, Options, Retry, Token};
pub use error::{Error, Result};
