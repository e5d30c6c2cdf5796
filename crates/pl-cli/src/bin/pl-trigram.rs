fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-trigram", pl_cli::cmd::trigram::run)
}
