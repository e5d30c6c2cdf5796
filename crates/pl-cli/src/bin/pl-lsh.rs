use clap::Parser;
use pl_cli::cmd::lsh::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-lsh", || run(Args::parse()))
}
