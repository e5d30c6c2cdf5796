//! Integration tests: they run the real binaries. One test binary keeps the build fast.

mod server;
mod util;

mod addressee;
mod apply;
mod apply_link;
mod batches;
mod cli;
mod copies;
mod dedupe;
mod docs;
mod edges;
mod errors;
mod explain;
mod fetch;
mod fused;
mod hook;
mod index;
mod index_guard;
mod index_trust;
mod keyed;
mod ledger;
mod methods;
mod numbers;
mod outputs;
mod owners;
mod pipeline;
mod quality;
mod report;
mod report_thumbs;
mod robustness;
mod stamps;
mod watch;
mod why;
mod wording;
