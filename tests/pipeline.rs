//! The whole pipeline through the real binaries: pipes, files, make, formats, determinism.

use serde_json::Value;

use crate::util::*;

const PIPE: &str =
    "pl-normalize < docs.ndjson | tee norm.ndjson | pl-shingle -q --unit chars --ngram 5 \
    | pl-minhash | tee sigs.bin | pl-lsh --numbers norm.ndjson \
    | pl-score --sigs sigs.bin --norm norm.ndjson --threshold 0.5 | pl-cluster --docs norm.ndjson";

fn corpus_dir(n: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(n).as_bytes());
    d
}

#[test]
fn pipe_finds_the_planted_copies() {
    let d = corpus_dir(100);
    let groups = ndjson(&ok(sh(d.path(), PIPE)));
    assert_eq!(groups.len(), 20, "one group per planted copy");
    for (i, g) in groups.iter().enumerate() {
        assert_eq!(g["group"], i as u64 + 1);
        let m: Vec<u64> = serde_json::from_value(g["members"].clone()).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1], m[0] + 1000, "copy pairs with its original");
        assert_eq!(g["primary"], m[0], "the earlier added original is kept");
    }
    let conf: Vec<f64> = groups
        .iter()
        .map(|g| g["confidence"].as_f64().unwrap())
        .collect();
    assert!(
        conf.windows(2).all(|w| w[0] >= w[1]),
        "sorted by confidence"
    );
}

#[test]
fn one_permutation_scheme_finds_the_same_copies() {
    let d = corpus_dir(100);
    let classic = ndjson(&ok(sh(d.path(), PIPE)));
    let oph = ndjson(&ok(sh(
        d.path(),
        &PIPE.replace("pl-minhash", "pl-minhash --scheme oph"),
    )));
    // The same groups; their order (by confidence) follows each scheme's estimates.
    let members = |g: &[serde_json::Value]| -> Vec<String> {
        let mut m: Vec<String> = g.iter().map(|g| g["members"].to_string()).collect();
        m.sort();
        m
    };
    assert_eq!(members(&oph), members(&classic));
    let sigs = ndjson(&ok(sh(d.path(), "pl-cat sigs.bin | head -n 1")));
    assert_eq!(sigs[0]["scheme"], 2, "the header names the scheme");
    let first_classic = ndjson(&ok(sh(
        d.path(),
        "pl-normalize < docs.ndjson | pl-shingle -q | pl-minhash | pl-cat | head -n 1",
    )));
    assert_eq!(first_classic[0]["scheme"], 1);
    assert_ne!(sigs[0]["sig"], first_classic[0]["sig"]);
}

#[test]
fn pipe_equals_make_and_a_second_run() {
    let d = corpus_dir(60);
    let first = ok(sh(d.path(), PIPE));
    let second = ok(sh(d.path(), PIPE));
    assert_eq!(first, second, "two runs are byte-identical");
    let work = d.path().join("work");
    ok(make_groups(d.path(), &[]));
    let made = std::fs::read(work.join("groups.ndjson")).unwrap();
    assert_eq!(made, first, "make pipeline equals the shell pipe");
    assert!(!first.is_empty());
}

/// The "one pipe" block of docs/PIPELINE.md, as written there.
fn documented_pipe() -> String {
    let page = std::fs::read_to_string(repo().join("docs/PIPELINE.md")).unwrap();
    let (_, after) = page
        .split_once("or all at once, as one pipe")
        .expect("docs/PIPELINE.md has the one-pipe example");
    let (_, block) = after.split_once("```sh\n").unwrap();
    block.split_once("```").unwrap().0.to_string()
}

#[test]
fn the_documented_pipe_equals_make_groups_on_the_example_corpus() {
    // The example corpus has copies only the head and tail sketches propose: a pipe without
    // them gives other groups.
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("examples/docs.ndjson"),
        d.path().join("docs.ndjson"),
    )
    .unwrap();
    let piped = ok(sh(d.path(), &documented_pipe()));
    ok(make_groups(d.path(), &[]));
    let made = std::fs::read(d.path().join("work/groups.ndjson")).unwrap();
    assert!(!piped.is_empty());
    assert!(
        piped == made,
        "docs/PIPELINE.md's pipe and make groups differ:\n{}",
        String::from_utf8_lossy(&piped)
    );
}

#[test]
fn thread_count_does_not_change_output() {
    let d = corpus_dir(80);
    let one = ok(sh(
        d.path(),
        &PIPE.replace("pl-minhash", "pl-minhash --threads 1"),
    ));
    let two = ok(sh(
        d.path(),
        &PIPE.replace("pl-minhash", "pl-minhash --threads 2"),
    ));
    assert_eq!(one, two);
}

#[test]
fn json_and_binary_forms_agree() {
    let d = corpus_dir(40);
    let bin_sigs = ok(sh(
        d.path(),
        "pl-normalize < docs.ndjson | pl-shingle -q | pl-minhash | pl-cat",
    ));
    let json_sigs = ok(sh(
        d.path(),
        "pl-normalize < docs.ndjson | pl-shingle -q --format json | pl-minhash --format json",
    ));
    assert_eq!(
        bin_sigs, json_sigs,
        "pl-cat of binary sigs equals the JSON form"
    );
    let v = ndjson(&json_sigs);
    assert_eq!(v[0]["kind"], "sigs");
    assert_eq!(v[0]["sig"].as_array().unwrap().len(), 256);
    // The JSON form feeds the next stage like the binary one.
    let from_json = ok(sh(d.path(), "pl-normalize < docs.ndjson | pl-shingle -q --format json | pl-minhash --format json | pl-lsh"));
    let from_bin = ok(sh(
        d.path(),
        "pl-normalize < docs.ndjson | pl-shingle -q | pl-minhash | pl-lsh",
    ));
    assert_eq!(from_json, from_bin);
    assert!(!from_bin.is_empty());
}

#[test]
fn normalize_passes_unknown_fields_through() {
    let out = ok(run(
        "pl-normalize",
        &[],
        r#"{"id":7,"content":"Grüße, Straße!","x":{"y":[1,2]},"title":"T"}"#.as_bytes(),
    ));
    let v = &ndjson(&out)[0];
    assert_eq!(v["x"]["y"][1], 2);
    assert_eq!(v["title"], "T");
    assert_eq!(v["norm"], "grüße straße");
    assert_eq!(v["words"], 2);
    assert_eq!(v["fingerprint"].as_str().unwrap().len(), 32);
}

#[test]
fn short_documents_are_skipped_and_counted() {
    let docs = "{\"id\":99,\"content\":\"too short\"}\n".to_string() + &small_corpus(2);
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", docs.as_bytes());
    let out = sh(
        d.path(),
        "pl-normalize docs.ndjson | pl-shingle --short skip --format json",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let recs = ndjson(&ok(out));
    assert_eq!(recs.len(), 2);
    assert!(err.contains("skipped 1 documents under 20 words"), "{err}");
    // By default a short document is one whole-text shingle: exact copies still pair.
    let out = sh(
        d.path(),
        "pl-normalize docs.ndjson | pl-shingle --format json",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let recs = ndjson(&ok(out));
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["shingles"].as_array().unwrap().len(), 1);
    assert!(
        err.contains("1 documents under 20 words kept as one whole-text shingle"),
        "{err}"
    );
    // Empty texts are always left out.
    let out = sh(
        d.path(),
        "echo '{\"id\":9,\"content\":\"\"}' | pl-normalize | pl-shingle --format json",
    );
    assert!(ok(out).is_empty());
}

#[test]
fn shingle_reads_escaped_and_reordered_fields_alike() {
    // The same text written plainly, with JSON escapes, with the fields in another order and
    // a large field to skip: the borrowed fast path and the generic parser must agree.
    let text = "zählerstand rechnung nummer 2024 vom märz bitte zahlen sie den betrag bis ende";
    let escaped = serde_json::to_string(text).unwrap().replace('ä', "\\u00e4");
    let lines = format!(
        "{{\"id\":1,\"norm\":\"{text}\"}}\n\
         {{\"content\":\"{big}\",\"norm\":{escaped},\"id\":2}}\n\
         {{\"id\":3,\"norm\":\"{text}\",\"fingerprint\":7}}\n",
        big = "x ".repeat(5000)
    );
    let d = tempfile::tempdir().unwrap();
    let recs = ndjson(&ok(run_in(
        Some(d.path()),
        "pl-shingle",
        &["--format", "json", "--min-words", "3"],
        lines.as_bytes(),
    )));
    assert_eq!(recs.len(), 3);
    for r in &recs[1..] {
        assert!(recs[0]["shingles"].as_array().is_some_and(|s| s.len() > 5));
        assert_eq!(r["shingles"], recs[0]["shingles"], "{r}");
        assert_eq!(r["fingerprint"], recs[0]["fingerprint"], "{r}");
    }
}

#[test]
fn closed_stdout_ends_quietly() {
    let d = corpus_dir(300);
    for script in [
        "pl-normalize docs.ndjson | head -c 10 > /dev/null",
        // A stage that finishes before its reader stops says its summary line: -q.
        "pl-normalize -q docs.ndjson | pl-shingle -q | pl-minhash -q | pl-cat | head -n 1 > /dev/null",
        "pl-normalize -q docs.ndjson | pl-shingle -q | head -c 100 > /dev/null",
    ] {
        let out = sh(d.path(), script);
        assert!(
            out.status.success(),
            "{script}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn output_file_is_replaced_atomically() {
    let d = corpus_dir(10);
    let target = d.path().join("norm.ndjson");
    std::fs::write(&target, "previous\n").unwrap();
    // A bad record mid-way: the previous file stays, and no temporary file is left behind.
    write(
        d.path(),
        "bad.ndjson",
        b"{\"id\":1,\"content\":\"a\"}\nnot json\n",
    );
    let out = run_in(
        Some(d.path()),
        "pl-normalize",
        &["bad.ndjson", "-o", "norm.ndjson"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "previous\n");
    let leftovers: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    ok(run_in(
        Some(d.path()),
        "pl-normalize",
        &["docs.ndjson", "-o", "norm.ndjson"],
        b"",
    ));
    assert_eq!(ndjson(&std::fs::read(&target).unwrap()).len(), 12);
}

#[test]
fn output_to_a_device_or_pipe_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let d = corpus_dir(10);
    // Renaming a temporary file over a FIFO (or over /dev/null, as root) would replace it with
    // a plain file; the records must go through the pipe and the pipe must stay one.
    let out = sh(
        d.path(),
        "mkfifo pipe && { timeout 20 cat pipe > got & } && pl-normalize docs.ndjson -o pipe && wait && \
         pl-normalize docs.ndjson -o /dev/null",
    );
    ok(out);
    let kind = std::fs::symlink_metadata(d.path().join("pipe"))
        .unwrap()
        .file_type();
    assert!(kind.is_fifo(), "{kind:?}");
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let got = std::fs::read(d.path().join("got")).unwrap();
    assert_eq!(ndjson(&got).len(), 12);
}

#[test]
fn explain_prints_the_s_curve() {
    let out = String::from_utf8(ok(run("pl-lsh", &["--explain"], b""))).unwrap();
    assert!(out.contains("32 bands x 8 rows"), "{out}");
    assert!(out.contains("50% at similarity 0.6"), "{out}");
}

#[test]
fn a_work_folder_holding_a_fetched_library_is_not_switched_to_a_file() {
    let d = corpus_dir(20);
    let work = d.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let library = "{\"id\":7,\"content\":\"a fetched document\"}\n";
    let make = |extra: &[&str]| make_groups(d.path(), extra);
    // Recorded by a Paperless fetch, and (older folders) known by pl-fetch's state file.
    for (source, state) in [
        (Some("paperless http://paperless.local:8000"), false),
        (None, true),
    ] {
        std::fs::write(work.join("docs.ndjson"), library).unwrap();
        let _ = std::fs::remove_file(work.join("docs.source"));
        let _ = std::fs::remove_file(work.join("docs.params"));
        if let Some(s) = source {
            std::fs::write(work.join("docs.source"), format!("{s}\n")).unwrap();
        }
        if state {
            std::fs::write(work.join("docs.ndjson.state.json"), "{}").unwrap();
        }
        let out = make(&[]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "{err}");
        assert!(
            err.contains("holds the documents of")
                && err.contains("make clean")
                && err.contains("SWITCH_SOURCE=1"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(work.join("docs.ndjson")).unwrap(),
            library
        );
    }
    // Asked for: replaced, and the folder forgets the library.
    ok(make(&["SWITCH_SOURCE=1"]));
    assert_ne!(
        std::fs::read_to_string(work.join("docs.ndjson")).unwrap(),
        library
    );
    assert!(!work.join("docs.ndjson.state.json").exists());
    assert!(work.join("groups.ndjson").exists());
}

/// `make groups` on `dir/docs.ndjson` into `dir/work`, with the test's binaries and without a
/// Paperless server.
fn make_groups(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    make_target(dir, "groups", extra)
}

/// `make TARGET` on the corpus in `dir`, its work files in `dir/work`.
fn make_target(dir: &std::path::Path, target: &str, extra: &[&str]) -> std::process::Output {
    std::process::Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(repo())
        .arg(target)
        .arg(format!("WORK={}", dir.join("work").display()))
        .arg(format!("DOCS={}", dir.join("docs.ndjson").display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .args(extra)
        .env_remove("PAPERLESS_URL")
        .output()
        .unwrap()
}

#[test]
fn score_reports_which_step_decided_each_pair() {
    let d = corpus_dir(100);
    ok(sh(
        d.path(),
        "pl-normalize < docs.ndjson > norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-lsh -q sigs.bin -o cands.ndjson",
    ));
    let out = sh(
        d.path(),
        "pl-score -v --sigs sigs.bin --norm norm.ndjson cands.ndjson > scores.ndjson",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ok(out);
    let cands = std::fs::read_to_string(d.path().join("cands.ndjson")).unwrap();
    let kept = std::fs::read_to_string(d.path().join("scores.ndjson")).unwrap();
    // "pl-score: step NAME: N pairs, ..." once per step, in cascade order.
    let steps: Vec<(String, usize)> = err
        .lines()
        .filter_map(|l| l.strip_prefix("pl-score: step "))
        .map(|l| {
            let (name, rest) = l.split_once(": ").unwrap();
            let n = rest.split(' ').next().unwrap().parse().unwrap();
            (name.to_string(), n)
        })
        .collect();
    assert_eq!(steps.len(), 10, "{err}");
    assert_eq!(steps[0].0, "identical texts (kept unmeasured)");
    assert_eq!(
        steps[3].0,
        "numbers against each other (dropped before aligning)"
    );
    assert_eq!(steps[7].0, "match probability under --threshold");
    assert_eq!(steps[8].0, "kept by the ledger (the alignment rejected it)");
    assert_eq!(steps[9].0, "kept after every step");
    let total: usize = steps.iter().map(|s| s.1).sum();
    assert_eq!(
        total,
        cands.lines().count(),
        "every candidate decided once: {err}"
    );
    assert_eq!(
        steps[0].1 + steps[8].1 + steps[9].1,
        kept.lines().count(),
        "{err}"
    );
    let rescued = kept
        .lines()
        .filter(|l| l.contains("\"rescued\":true"))
        .count();
    assert_eq!(steps[8].1, rescued, "{err}");
    assert!(steps[9].1 > 0, "{err}");
    assert_eq!(
        steps[7].1, 0,
        "no pair under the default probability: {err}"
    );
}

/// `make why`: a grouped pair is proposed, kept and in one group, a pair from two groups is
/// not all three; the ids may come in either order, and a missing one is refused in a line.
#[test]
fn make_why_explains_a_pair_proposed_or_not() {
    let d = corpus_dir(100);
    ok(make_groups(d.path(), &[]));
    let groups = ndjson(&std::fs::read(d.path().join("work/groups.ndjson")).unwrap());
    let members = |g: &Value| -> Vec<u64> { serde_json::from_value(g["members"].clone()).unwrap() };
    let (first, second) = (members(&groups[0]), members(&groups[1]));
    let why = |a: u64, b: u64| -> Vec<Value> {
        let out = make_target(d.path(), "why", &[&format!("A={a}"), &format!("B={b}")]);
        let text = String::from_utf8(ok(out)).unwrap();
        let json: Vec<Value> = text
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(json.len(), 3, "{text}");
        json
    };
    let kept = why(first[1], first[0]);
    assert_eq!(kept[0]["candidate"], true, "{kept:?}");
    assert_eq!(
        (kept[0]["a"].clone(), kept[1]["a"].clone()),
        (first[0].into(), first[0].into())
    );
    assert!(
        kept[1].get("dropped").is_none() && kept[1]["score"].is_number(),
        "{kept:?}"
    );
    // pl-cluster's account: the kept pair's score, both in the first group.
    assert_eq!(kept[2]["kept"], kept[1]["score"], "{kept:?}");
    assert_eq!(
        (kept[2]["group_a"].clone(), kept[2]["group_b"].clone()),
        (1.into(), 1.into())
    );
    let apart = why(first[0], second[0]);
    assert!(
        apart[0]["candidate"] == false || apart[1].get("dropped").is_some(),
        "{apart:?}"
    );
    assert_eq!(apart[2]["kept"], Value::Null, "{apart:?}");
    let group_of = |id: u64| {
        let side = if apart[2]["a"] == id {
            "group_a"
        } else {
            "group_b"
        };
        apart[2][side].clone()
    };
    assert_eq!(
        (group_of(first[0]), group_of(second[0])),
        (1.into(), 2.into())
    );
    let pairs = first.len() * second.len();
    assert_eq!(apart[2]["between"]["pairs"], pairs, "{apart:?}");
    assert!(kept[2].get("between").is_none(), "{kept:?}");
    let out = make_target(d.path(), "why", &["A=3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("make why A=12 B=57"));
}

#[test]
fn max_words_is_one_setting_for_the_numbers_and_the_verifier() {
    let d = corpus_dir(100);
    let work = d.path().join("work");
    ok(make_groups(d.path(), &[]));
    let whole = std::fs::read_to_string(work.join("scores.ndjson")).unwrap();
    assert!(
        !whole.contains("\"sampled\":true"),
        "texts under 20000 words"
    );
    // Cut to 40 words: both stages rerun with it (their parameter stamps name it), and the
    // verifier's pairs say they compared samples.
    ok(make_groups(d.path(), &["MAX_WORDS=40"]));
    for stage in ["lsh", "score"] {
        let params = std::fs::read_to_string(work.join(format!("{stage}.params"))).unwrap();
        assert!(
            params.split(' ').any(|p| p.trim() == "40"),
            "{stage}: {params}"
        );
    }
    let cut = std::fs::read_to_string(work.join("scores.ndjson")).unwrap();
    assert!(cut.contains("\"sampled\":true"), "{cut}");
    // Set twice, through SCORE_FLAGS too: refused, not one stage with one and one with another.
    let out = make_groups(d.path(), &["MAX_WORDS=40", "SCORE_FLAGS=--max-words 50"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--max-words"), "{err}");
}

/// make demo builds only the tools its pipeline runs, and pl-dedupe for its last lines (a cold
/// build links 9 binaries fewer); make groups builds every one; and those seven are enough.
#[test]
fn make_demo_builds_only_the_tools_it_runs() {
    const DEMO: [&str; 7] = [
        "pl-normalize",
        "pl-minhash",
        "pl-lsh",
        "pl-score",
        "pl-cluster",
        "pl-cat",
        "pl-dedupe",
    ];
    let d = tempfile::tempdir().unwrap();
    let bin = d.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let plan = |target: &str| -> String {
        let out = std::process::Command::new("make")
            .args(["-n", "-C"])
            .arg(repo())
            .arg(target)
            .arg(format!("BIN={}", bin.display()))
            .arg(format!("WORK={}", d.path().join("work").display()))
            .env_remove("PAPERLESS_URL")
            .env_remove("MAKEFLAGS")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let cargo = text.lines().find(|l| l.starts_with("cargo build"));
        cargo
            .unwrap_or_else(|| panic!("{target}: no cargo build in {text}"))
            .trim_end()
            .to_owned()
    };
    let only: Vec<String> = DEMO.iter().map(|t| format!("--bin {t}")).collect();
    assert_eq!(
        plan("demo"),
        format!("cargo build --release -p pl-cli {}", only.join(" "))
    );
    assert_eq!(plan("groups"), "cargo build --release -p pl-cli");
    // The demo runs with those seven alone.
    for t in DEMO {
        std::fs::copy(bin_dir().join(t), bin.join(t)).unwrap();
    }
    std::fs::copy(
        repo().join("examples/docs.ndjson"),
        d.path().join("docs.ndjson"),
    )
    .unwrap();
    let out = std::process::Command::new("make")
        .args(["-s", "-C"])
        .arg(repo())
        .arg("demo")
        .arg(format!("BIN={}", bin.display()))
        .arg(format!("WORK={}", d.path().join("work").display()))
        .arg(format!("DOCS={}", d.path().join("docs.ndjson").display()))
        .arg("CARGO_BUILD=true")
        .env_remove("PAPERLESS_URL")
        .env_remove("MAKEFLAGS")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains(" groups in "), "{err}");
}

#[test]
fn the_demo_ends_with_where_the_groups_are_how_sure_and_what_next() {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("examples/docs.ndjson"),
        d.path().join("docs.ndjson"),
    )
    .unwrap();
    let out = make_target(d.path(), "demo", &[]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let groups = ndjson(&std::fs::read(d.path().join("work/groups.ndjson")).unwrap());
    let confidence = |g: &serde_json::Value| g["confidence"].as_f64().unwrap();
    let weakest = groups.iter().map(confidence).fold(f64::INFINITY, f64::min);
    // A group's confidence is its strongest pair's match probability: none under THRESHOLD.
    assert!(weakest >= 0.5, "a group under the threshold: {weakest}");
    let said = format!(
        "make: {} groups in {}, the least sure at confidence {weakest} (a higher THRESHOLD \
         keeps fewer, surer groups)",
        groups.len(),
        d.path().join("work/groups.ndjson").display()
    );
    assert!(err.contains(&said), "{said:?} not in: {err}");
    // pl-dedupe's words (pl-dedupe summary), in make's: one source for both ends.
    assert!(
        err.ends_with(
            "make: next: make report (a review page), make why A=ID B=ID (one pair explained)\n"
        ),
        "{err}"
    );
    // The dial: a higher threshold keeps fewer groups, each at least that sure.
    let out = make_target(d.path(), "demo", &["THRESHOLD=0.99"]);
    assert!(out.status.success());
    let sure = ndjson(&std::fs::read(d.path().join("work/groups.ndjson")).unwrap());
    let members = |gs: &[serde_json::Value]| -> usize {
        gs.iter()
            .map(|g| g["members"].as_array().unwrap().len())
            .sum()
    };
    assert!(
        members(&sure) < members(&groups),
        "THRESHOLD=0.99 changed nothing"
    );
    assert!(sure.iter().all(|g| confidence(g) >= 0.99));
}
