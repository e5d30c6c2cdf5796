fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-normalize", pl_cli::cmd::normalize::run)
}
