//! Integration tests: they run the real binaries. One test binary keeps the build fast.

mod util;

mod errors;
mod pipeline;
mod robustness;
