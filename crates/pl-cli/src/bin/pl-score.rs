use clap::Parser;
use pl_cli::cmd::score::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-score", || run(Args::parse()))
}
