//! pl-dedupe, the pipeline as one command (issue 60, items 2 and 5): its flags are make's
//! variables, checked before make runs; its groups are `make groups`'s, byte for byte; a
//! newcomer's mistakes each get one line naming the fix; a run ends by saying where the groups
//! are, how sure the least sure is, and what to run next.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::*;

/// `pl-dedupe words...` in `dir`, with the pipeline's variables and a calling make's set in
/// the environment to values that would change the run (pl-dedupe must not pass them on).
fn dedupe(dir: &Path, words: &[&str]) -> Output {
    Command::new(bin("pl-dedupe"))
        .args(words)
        .current_dir(dir)
        .env_remove("PAPERLESS_URL")
        .env("THRESHOLD", "0.99")
        .env("WORK", "elsewhere")
        .env("MAKEFLAGS", "NGRAM=3")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// `make -C repo target` with the test's binaries, on `dir/docs.ndjson`, in `dir/WORK`.
fn make(dir: &Path, work: &str, target: &str, extra: &[&str]) -> Output {
    Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(repo())
        .arg(target)
        .arg(format!("WORK={}", dir.join(work).display()))
        .arg(format!("DOCS={}", dir.join("docs.ndjson").display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .args(extra)
        .env_remove("PAPERLESS_URL")
        .env_remove("MAKEFLAGS")
        .output()
        .unwrap()
}

fn example_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("examples/docs.ndjson"),
        d.path().join("docs.ndjson"),
    )
    .unwrap();
    d
}

#[test]
fn groups_and_table_are_make_s_byte_for_byte_and_cached() {
    let d = example_dir();
    let p = d.path();
    // In w1 at 0.8: the flags after the command, or before it.
    let at_08 = [
        "--docs",
        "docs.ndjson",
        "--work",
        "w1",
        "--threshold",
        "0.8",
    ];
    let groups_at_08: Vec<&str> = std::iter::once("groups").chain(at_08).collect();
    for (threshold, args) in [
        (
            None,
            vec!["groups", "--docs", "docs.ndjson", "--work", "w1"],
        ),
        (
            Some("0.8"),
            vec![
                "--threshold",
                "0.8",
                "groups",
                "--docs=docs.ndjson",
                "--work",
                "w1",
            ],
        ),
    ] {
        let extra: Vec<String> = threshold.iter().map(|t| format!("THRESHOLD={t}")).collect();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        ok(dedupe(p, &args));
        ok(make(p, "w2", "groups", &extra));
        let ours = std::fs::read(p.join("w1/groups.ndjson")).unwrap();
        assert!(ndjson(&ours).len() > 10, "{threshold:?}");
        assert_eq!(
            ours,
            std::fs::read(p.join("w2/groups.ndjson")).unwrap(),
            "{threshold:?}"
        );
    }
    // A rerun with the same flags redoes nothing.
    let before = std::fs::metadata(p.join("w1/scores.ndjson"))
        .unwrap()
        .modified()
        .unwrap();
    ok(dedupe(p, &groups_at_08));
    let after = std::fs::metadata(p.join("w1/scores.ndjson"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "pl-score ran again");
    // The table (run, the default), in the new form and in the older one, is make's.
    let table = ok(make(p, "w2", "table", &["THRESHOLD=0.8"]));
    for words in [
        at_08.to_vec(),
        vec!["table", "DOCS=docs.ndjson", "WORK=w1", "THRESHOLD=0.8"],
    ] {
        let out = dedupe(p, &words);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(ok(out), table, "{words:?}");
        assert!(
            err.contains("pl-dedupe: next: pl-dedupe report"),
            "{words:?}: {err}"
        );
    }
    assert!(
        !p.join("elsewhere").exists(),
        "WORK from the environment was read"
    );
}

#[test]
fn a_run_ends_with_where_the_groups_are_how_sure_and_what_next() {
    let d = example_dir();
    let out = dedupe(d.path(), &["run", "--docs", "docs.ndjson"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let table = String::from_utf8(ok(out)).unwrap();
    let groups = ndjson(&std::fs::read(d.path().join("work/groups.ndjson")).unwrap());
    assert!(table
        .trim_end()
        .ends_with(&format!("{} groups", groups.len())));
    let weakest = groups
        .iter()
        .map(|g| g["confidence"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    let said = format!(
        "pl-dedupe: {} groups in work/groups.ndjson, the least sure at confidence {weakest} \
         (a higher --threshold keeps fewer, surer groups)",
        groups.len()
    );
    assert!(err.contains(&said), "{said:?} not in: {err}");
    assert!(
        err.ends_with("pl-dedupe: next: pl-dedupe report (a review page), pl-dedupe why A B (one pair explained)\n"),
        "{err}"
    );
    // -q: the table alone.
    let out = dedupe(d.path(), &["run", "-q", "--docs", "docs.ndjson"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("next:"));
    assert_eq!(ok(out), table.as_bytes());
}

/// On a terminal a run shows each stage as one line (its bar, then its summary in its
/// place), then its own two; -q shows nothing; a rerun with nothing to redo, its two alone.
#[test]
fn a_run_on_a_terminal_shows_one_line_per_stage() {
    let d = example_dir();
    let run = |words: &[&str]| -> Vec<String> {
        let (code, shown) = crate::cli::stderr_on_a_terminal_with(
            "pl-dedupe",
            words,
            d.path(),
            &[("PAPERLESS_URL", "")],
        );
        assert_eq!(code, 0, "{shown}");
        crate::cli::visible_lines(&shown)
    };
    let lines = run(&["--docs", "docs.ndjson", "--work", "w"]);
    let tools: Vec<&str> = lines.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        tools,
        [
            "pl-normalize",
            "pl-minhash",
            "pl-lsh",
            "pl-score",
            "pl-cluster",
            "pl-dedupe",
            "pl-dedupe"
        ],
        "{lines:#?}"
    );
    let lines = run(&["--docs", "docs.ndjson", "--work", "w"]);
    assert!(
        lines.len() == 2 && lines.iter().all(|l| l.starts_with("pl-dedupe: ")),
        "{lines:#?}"
    );
    assert_eq!(
        run(&["-q", "--docs", "docs.ndjson", "--work", "w2"]),
        Vec::<String>::new()
    );
    assert!(d.path().join("w2/groups.ndjson").is_file());
}

/// Each mistake of issue 60's newcomer: one line naming the problem and the fix, before
/// anything runs (no work folder, nothing on stdout).
#[test]
fn a_newcomer_s_mistakes_each_get_one_line_naming_the_fix() {
    let d = example_dir();
    std::fs::write(d.path().join("scan.pdf"), "%PDF-1.4\n%\u{e2}\n").unwrap();
    for (words, code, said) in [
        (
            "threshold=0.8",
            2,
            "unknown word 'threshold=0.8': write --threshold 0.8",
        ),
        (
            "--treshold 0.8",
            2,
            "unexpected argument '--treshold' found; a similar argument exists: '--threshold'",
        ),
        (
            "grups",
            2,
            "unrecognized subcommand 'grups'; a similar subcommand exists: 'groups'",
        ),
        ("FOO=1", 2, "unknown variable 'FOO'"),
        ("--threshold 1.5", 2, "--threshold"),
        ("--docs mine.ndjson", 1, "mine.ndjson: cannot open"),
        ("--docs scan.pdf", 1, "scan.pdf is not a docs NDJSON file"),
        ("DOCS=mine.ndjson", 1, "mine.ndjson: cannot open"),
        (
            "eval --docs docs.ndjson",
            2,
            "eval: give --truth FILE with --docs",
        ),
        ("eval --truth nope.ndjson", 1, "nope.ndjson: cannot open"),
        ("why 12 12", 2, "why: 12 and 12 are one document"),
        ("apply --threshold 0.8", 2, "apply takes no --threshold"),
    ] {
        let out = dedupe(d.path(), &words.split(' ').collect::<Vec<_>>());
        assert!(out.stdout.is_empty(), "{words}");
        fails(out, code, "pl-dedupe", &[said]);
        assert!(!d.path().join("work").exists(), "{words}: something ran");
    }
    // No decisions to apply: named, with what to do first.
    let out = dedupe(d.path(), &["apply"]);
    fails(
        out,
        1,
        "pl-dedupe",
        &[
            "work/decisions.ndjson: no decisions there",
            "pl-dedupe report",
        ],
    );
}

#[test]
fn apply_runs_pl_apply_on_the_decisions_with_its_flags() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("w")).unwrap();
    std::fs::write(d.path().join("w/decisions.ndjson"), "").unwrap();
    // pl-apply itself answers: it needs a server, and says so.
    let out = dedupe(d.path(), &["apply", "--work", "w", "--note"]);
    fails(out, 2, "pl-apply", &["no server"]);
    let out = dedupe(d.path(), &["apply", "--work", "w", "--no-such-flag"]);
    fails(out, 2, "pl-apply", &["'--no-such-flag'"]);
}

#[test]
fn why_names_the_pair_in_either_form() {
    let d = example_dir();
    let new = ok(dedupe(
        d.path(),
        &["why", "78", "110", "--docs", "docs.ndjson"],
    ));
    let text = String::from_utf8_lossy(&new);
    assert!(
        text.starts_with("candidates (pl-lsh --why):\n{\"a\":78,\"b\":110"),
        "{text}"
    );
    let old = ok(dedupe(
        d.path(),
        &["why", "A=78", "B=110", "DOCS=docs.ndjson"],
    ));
    assert_eq!(new, old);
}

#[test]
fn its_man_page_lists_the_commands_flags_and_exit_status() {
    let page = String::from_utf8(ok(run("pl-dedupe", &["--generate", "man"], b""))).unwrap();
    for needle in [
        ".TH pl-dedupe 1",
        ".SH COMMANDS",
        "\\fBwhy\\fR A B",
        "\\-\\-threshold",
        "\\-\\-score\\-flags",
        "EXIT STATUS",
        "pl\\-score (1)",
    ] {
        assert!(page.contains(needle), "{needle} not in:\n{page}");
    }
}
