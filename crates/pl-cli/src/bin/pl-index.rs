fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-index", pl_cli::cmd::index::run)
}
