use clap::Parser;
use pl_cli::cmd::trigram::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-trigram", || run(Args::parse()))
}
