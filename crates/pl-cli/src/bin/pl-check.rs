fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-check", pl_cli::cmd::check::run)
}
