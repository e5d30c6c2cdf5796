use clap::Parser;
use pl_cli::cmd::cluster::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-cluster", || run(Args::parse()))
}
