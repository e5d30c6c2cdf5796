//! One module per tool.

pub mod apply;
pub mod cat;
pub mod check;
pub mod cluster;
pub mod eval;
pub mod fetch;
pub mod index;
pub mod lsh;
pub mod minhash;
pub mod normalize;
pub mod report;
pub mod score;
pub mod shingle;
pub mod trigram;
