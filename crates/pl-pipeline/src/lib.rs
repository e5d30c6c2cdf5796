//! The pipeline as a library, under the pl-* tools: reading and writing record streams
//! ([`ndjson`], [`io`]), scoring a stream of candidate pairs with the texts they need
//! ([`scoring`], [`score_sides`], [`candidates`], [`reorder`]), and the persistent index
//! ([`index`]) that runs the same stages one document at a time, with pl-watch's durable
//! [`inbox`] of webhook ids beside it. The rules themselves
//! (shingles, MinHash, banding, the verdict) live in pl-core; the command-line flags in pl-cli.

pub mod candidates;
pub mod error;
pub mod inbox;
pub mod index;
pub mod io;
pub mod log;
pub mod ndjson;
pub mod params;
pub mod queue;
pub mod reorder;
pub mod score_sides;
pub mod score_sigs;
pub mod scoring;
pub mod summary;
