fn main() -> std::process::ExitCode {
    let code = pl_cli::common::main("pl-check", pl_cli::cmd::check::run);
    if code == std::process::ExitCode::SUCCESS
        && pl_cli::cmd::check::ANY_FOUND.load(std::sync::atomic::Ordering::Relaxed)
    {
        return std::process::ExitCode::from(pl_cli::cmd::check::FOUND);
    }
    code
}
