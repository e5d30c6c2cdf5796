//! The network side of paperless-dedupe: a Paperless-NGX REST client ([`client`]) with
//! token auth, API version negotiation, retries ([`retry`]) and plain errors; the list endpoints pl-fetch
//! pages through ([`api`]); docs records with names resolved ([`record`]); incremental sync
//! with a crash-safe state file ([`sync`]); a folder of text files as a corpus ([`dir`]); and
//! the write side: the calls ([`mod@write`], the "Duplicate of" link: [`links`]) and pl-apply's
//! planned, journaled write-back ([`writeback`]); pl-watch's side: Paperless's workflow webhooks
//! received ([`webhook`]), the lookups it keeps across documents ([`lookup`]) and a document
//! with near-copies tagged and noted ([`flag`]).
#![deny(missing_docs)]

pub mod api;
pub mod client;
pub mod dir;
pub mod error;
pub mod flag;
pub mod links;
pub mod lookup;
pub mod record;
pub mod redact;
pub mod retry;
pub mod sync;
pub mod webhook;
pub mod write;
pub mod writeback;

pub use client::{Client, Options, Retry, Token};
pub use error::{Error, Result};
