fn main() -> std::process::ExitCode {
    pl_cli::common::main("pl-cluster", pl_cli::cmd::cluster::run)
}
