fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-fetch", pl_cli::cmd::fetch::run)
}
