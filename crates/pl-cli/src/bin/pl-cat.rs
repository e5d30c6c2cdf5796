use clap::Parser;
use pl_cli::cmd::cat::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-cat", || run(Args::parse()))
}
