fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-report", pl_cli::cmd::report::run)
}
