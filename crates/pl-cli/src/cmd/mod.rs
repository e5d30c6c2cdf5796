//! One module per tool.

pub mod apply;
pub mod cat;
pub mod check;
pub mod cluster;
pub mod dedupe;
pub mod eval;
pub mod fetch;
pub mod index;
pub mod lsh;
pub mod minhash;
pub mod normalize;
pub mod report;
pub mod score;
pub mod shingle;
pub mod trigram;
pub mod watch;

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    /// Parses `argv` with the tool's command as its binary builds it (`common::command`).
    fn parse<A: clap::Parser>(argv: &[&str]) -> Result<A, clap::Error> {
        let m = crate::common::command::<A>().try_get_matches_from(argv)?;
        A::from_arg_matches(&m)
    }

    /// Every tool's clap definition passes clap's own consistency checks (a flag named twice,
    /// a conflict with an unknown flag, a default outside its values...), its name is the
    /// binary's, and its command line parses: the least it needs, an unknown flag refused as
    /// a usage error, --help and --version answered.
    fn check<A: clap::Parser + std::fmt::Debug>(tool: &str, least: &[&str]) {
        let cmd = crate::common::command::<A>();
        cmd.clone().debug_assert();
        assert_eq!(A::command().get_name(), tool);
        let argv: Vec<&str> = std::iter::once(tool).chain(least.iter().copied()).collect();
        if let Err(e) = parse::<A>(&argv) {
            panic!("{tool}: {argv:?} does not parse: {e}");
        }
        let mut bad = argv.clone();
        bad.push("--no-such-flag");
        assert_eq!(
            parse::<A>(&bad).unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        for (flag, kind) in [
            ("--help", ErrorKind::DisplayHelp),
            ("--version", ErrorKind::DisplayVersion),
        ] {
            assert_eq!(
                parse::<A>(&[tool, flag]).unwrap_err().kind(),
                kind,
                "{tool} {flag}"
            );
        }
    }

    #[test]
    fn every_tools_command_line_is_consistent_and_parses() {
        check::<super::normalize::Args>("pl-normalize", &[]);
        check::<super::shingle::Args>("pl-shingle", &[]);
        check::<super::minhash::Args>("pl-minhash", &[]);
        check::<super::lsh::Args>("pl-lsh", &[]);
        check::<super::score::Args>("pl-score", &["--sigs", "sigs.bin"]);
        check::<super::cluster::Args>("pl-cluster", &[]);
        check::<super::cat::Args>("pl-cat", &[]);
        check::<super::eval::Args>("pl-eval", &["--truth", "t.ndjson"]);
        check::<super::fetch::Args>("pl-fetch", &[]);
        check::<super::apply::Args>("pl-apply", &["decisions.ndjson"]);
        check::<super::report::Args>("pl-report", &["groups.ndjson"]);
        check::<super::trigram::Args>("pl-trigram", &[]);
        check::<super::index::Args>("pl-index", &["--index", "ix"]);
        check::<super::check::Args>("pl-check", &["--index", "ix"]);
        check::<super::watch::Args>("pl-watch", &["--index", "ix"]);
        check::<super::dedupe::Args>("pl-dedupe", &[]);
        assert_eq!(
            crate::common::TOOLS.len(),
            15,
            "a tool added: check it here too"
        );
    }
}
