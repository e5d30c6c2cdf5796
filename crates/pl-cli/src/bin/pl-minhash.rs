use clap::Parser;
use pl_cli::cmd::minhash::{run, Args};

fn main() -> std::process::ExitCode {
    pl_cli::common::main_with("pl-minhash", || run(Args::parse()))
}
