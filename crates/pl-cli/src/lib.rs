//! The pl-* tools: each is a module under [`cmd`] with an `Args` struct and a `run`
//! function, and a one-line binary in `src/bin`. Shared plumbing lives beside them.

pub mod candidates;
pub mod cmd;
pub mod common;
pub mod index;
pub mod io;
pub mod ndjson;
pub mod reorder;
pub mod score_flags;
pub mod score_sides;
pub mod scoring;
pub mod sides;
pub mod signing;
