use clap::Parser;
use pl_cli::cmd::report::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-report", || run(Args::parse()))
}
