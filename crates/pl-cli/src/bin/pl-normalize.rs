use clap::Parser;
use pl_cli::cmd::normalize::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-normalize", || run(Args::parse()))
}
