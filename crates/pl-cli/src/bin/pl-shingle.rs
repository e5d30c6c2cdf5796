fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-shingle", pl_cli::cmd::shingle::run)
}
