use clap::Parser;
use pl_cli::cmd::apply::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-apply", || run(Args::parse()))
}
