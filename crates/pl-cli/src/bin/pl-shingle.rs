use clap::Parser;
use pl_cli::cmd::shingle::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-shingle", || run(Args::parse()))
}
