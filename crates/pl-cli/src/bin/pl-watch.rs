fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-watch", pl_cli::cmd::watch::run)
}
