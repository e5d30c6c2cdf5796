use clap::Parser;
use pl_cli::cmd::eval::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-eval", || run(Args::parse()))
}
