use clap::Parser;
use pl_cli::cmd::fetch::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-fetch", || run(Args::parse()))
}
