fn main() -> std::process::ExitCode {
    pl_cli::cmd::dedupe::main()
}
