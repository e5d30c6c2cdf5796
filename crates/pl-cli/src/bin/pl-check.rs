// Scoring makes and drops millions of small vectors: mimalloc serves them for less CPU than
// the system allocator (BENCH.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-check", pl_cli::cmd::check::run)
}
