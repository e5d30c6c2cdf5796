fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-lsh", pl_cli::cmd::lsh::run)
}
