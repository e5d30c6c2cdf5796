fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-apply", pl_cli::cmd::apply::run)
}
