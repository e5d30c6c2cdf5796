//! Integration tests: they run the real binaries. One test binary keeps the build fast.

mod server;
mod util;

mod apply;
mod batches;
mod cli;
mod copies;
mod edges;
mod errors;
mod fetch;
mod fused;
mod hook;
mod index;
mod keyed;
mod methods;
mod pipeline;
mod quality;
mod report;
mod robustness;
