use super::*;

fn parse(words: &str) -> Result<Args, clap::Error> {
    let argv: Vec<&str> = std::iter::once("pl-dedupe")
        .chain(words.split(' ').filter(|w| !w.is_empty()))
        .collect();
    let m = crate::common::command::<Args>().try_get_matches_from(argv)?;
    <Args as clap::FromArgMatches>::from_arg_matches(&m)
}

#[test]
fn flags_go_before_or_after_the_command_and_become_make_s_variables() {
    let a = parse("--threshold 0.8 groups --docs d.ndjson --score-flags --no-verify").unwrap();
    assert!(matches!(a.command, Some(Command::Groups)));
    assert_eq!(
        a.params.assignments(),
        [
            ("DOCS", "d.ndjson".to_owned()),
            ("THRESHOLD", "0.8".to_owned()),
            ("SCORE_FLAGS", "--no-verify".to_owned())
        ]
    );
    assert!(parse("").unwrap().params.assignments().is_empty());
    assert!(matches!(
        parse("table").unwrap().command,
        Some(Command::Run)
    ));
}

#[test]
fn values_are_checked_as_the_stages_check_them() {
    for bad in [
        "--threshold 1.5",
        "--threshold NaN",
        "--ngram 0",
        "--perms 0",
        "--bands 0",
        "--min-band-matches 0",
        "--evidence-bucket 1",
        "--numbers 2",
        "--jaccard-weight -1",
        "--max-words 1",
        "--unit bytes",
        "--fuzzy-sample 0",
        "why 12",
        "why 12 x",
    ] {
        assert!(parse(bad).is_err(), "{bad} was taken");
    }
    let refused = |words: &str| {
        format!(
            "{:#}",
            check(&parse(words).unwrap().params, &Command::Run).unwrap_err()
        )
    };
    assert!(refused("--min-words 0").contains("--min-words must be at least 1"));
    assert!(refused("--jaccard-weight 0 --fuzzy-weight 0").contains("both 0"));
    for path in ["a b.ndjson", "a$b", "c:d", "*.ndjson", "-"] {
        let params = Params {
            docs: Some(PathBuf::from(path)),
            ..Params::default()
        };
        let err = check(&params, &Command::Run).unwrap_err().to_string();
        let said = if path == "-" {
            "give a file"
        } else {
            "make cannot take"
        };
        assert!(err.starts_with("--docs ") && err.contains(said), "{err}");
    }
    let why = parse("why 7 7").unwrap();
    let err = check(&why.params, why.command.as_ref().unwrap()).unwrap_err();
    assert!(err.to_string().contains("one document"), "{err}");
    let apply = parse("apply --threshold 0.8").unwrap();
    let err = check(&apply.params, apply.command.as_ref().unwrap()).unwrap_err();
    assert!(
        err.to_string().contains("apply takes no --threshold"),
        "{err}"
    );
    // summary reads the work folder: any other flag is refused, not ignored.
    let summary = parse("summary --work w").unwrap();
    assert!(check(&summary.params, summary.command.as_ref().unwrap()).is_ok());
    let summary = parse("summary --threshold 0.8").unwrap();
    let err = check(&summary.params, summary.command.as_ref().unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "summary takes no --threshold: it reads only --work"
    );
}

#[test]
fn apply_passes_pl_apply_s_flags_on() {
    let a = parse("apply --work w --yes --link Duplicate").unwrap();
    let Some(Command::Apply(apply)) = a.command else {
        panic!("{a:?}")
    };
    assert_eq!(apply.pl_apply, ["--yes", "--link", "Duplicate"]);
    assert_eq!(a.params.work, Some(PathBuf::from("w")));
}

#[test]
fn the_threshold_s_stated_default_is_the_scorer_s() {
    let cmd = crate::common::command::<Args>();
    let help = cmd
        .get_arguments()
        .find(|a| a.get_id() == "threshold")
        .and_then(|a| a.get_help())
        .unwrap()
        .to_string();
    let default = format!("[default: {}]", pl_core::score::DEFAULT_THRESHOLD);
    assert!(help.ends_with(&default), "{help}");
}

#[test]
fn the_end_says_where_the_groups_are_how_sure_and_what_next() {
    let groups = Path::new("work/groups.ndjson");
    let mut s = Summary {
        groups: 62,
        weakest: None,
    };
    let lines = describe(&s, groups, Words::Driver);
    assert_eq!(lines[0], "62 groups in work/groups.ndjson");
    assert!(lines[1].starts_with("next: pl-dedupe report"), "{lines:?}");
    s.weakest = Some(0.61);
    let lines = describe(&s, groups, Words::Driver);
    assert_eq!(
        lines[0],
        "62 groups in work/groups.ndjson, the least sure at confidence 0.61 (a higher \
         --threshold keeps fewer, surer groups)"
    );
    // In make's words, as the Makefile's demo asks.
    let lines = describe(&s, groups, Words::Make);
    assert!(
        lines[0].ends_with("(a higher THRESHOLD keeps fewer, surer groups)"),
        "{lines:?}"
    );
    assert_eq!(
        lines[1],
        "next: make report (a review page), make why A=ID B=ID (one pair explained)"
    );
}

#[test]
fn the_pipeline_is_found_installed_or_in_a_clone() {
    let d = tempfile::tempdir().unwrap();
    let share = d.path().join("prefix/share/paperless-dedupe");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::write(share.join("pipeline.mk"), "").unwrap();
    let bin = d.path().join("prefix/bin");
    let home = find_home(&bin).unwrap();
    assert_eq!(home.makefile, share.join("pipeline.mk"));
    assert_eq!(home.examples, share.join("examples"));
    let clone = d.path().join("clone");
    std::fs::create_dir_all(clone.join("scripts")).unwrap();
    std::fs::create_dir_all(clone.join("target/release")).unwrap();
    std::fs::write(clone.join("pipeline.mk"), "").unwrap();
    assert_eq!(find_home(&clone.join("target/release")), None);
    std::fs::write(clone.join("scripts/source-guard.sh"), "").unwrap();
    let home = find_home(&clone.join("target/release")).unwrap();
    assert_eq!(
        (home.makefile, home.scripts),
        (clone.join("pipeline.mk"), clone.join("scripts"))
    );
}
