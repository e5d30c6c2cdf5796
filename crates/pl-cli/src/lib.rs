//! The pl-* tools: each is a module under [`cmd`] with an `Args` struct and a `run`
//! function, and a one-line binary in `src/bin`. Shared plumbing lives beside them.

pub mod cmd;
pub mod common;
pub mod score_flags;
pub mod sides;
