fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-minhash", pl_cli::cmd::minhash::run)
}
