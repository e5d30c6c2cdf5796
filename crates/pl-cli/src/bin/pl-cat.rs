fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-cat", pl_cli::cmd::cat::run)
}
