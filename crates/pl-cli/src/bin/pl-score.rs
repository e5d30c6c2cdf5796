fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-score", pl_cli::cmd::score::run)
}
