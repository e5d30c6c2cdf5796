fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-eval", pl_cli::cmd::eval::run)
}
