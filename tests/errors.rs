//! Every bad-input case: one clear line naming the input and record, the right exit code,
//! nothing lost that was written before.

use crate::util::*;
use serde_json::json;

fn stage_files(n: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(n).as_bytes());
    ok(sh(
        d.path(),
        "pl-normalize docs.ndjson -o norm.ndjson && pl-shingle -q norm.ndjson -o sh3.bin \
         && pl-shingle -q --ngram 2 norm.ndjson -o sh2.bin && pl-minhash sh3.bin -o sigs256.bin \
         && pl-minhash --perms 128 sh3.bin -o sigs128.bin && pl-lsh sigs256.bin -o cands.ndjson",
    ));
    d
}

#[test]
fn malformed_json_names_input_and_line() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "docs.ndjson",
        b"{\"id\":1,\"content\":\"a b\"}\n\n{\"id\":2,\"content\":\n",
    );
    let out = run("pl-normalize", &[p.to_str().unwrap()], b"");
    // The good record before the bad one is still written.
    assert_eq!(ndjson(&out.stdout).len(), 1);
    fails(
        out,
        1,
        "pl-normalize",
        &["docs.ndjson", "line 3", "invalid JSON"],
    );
    let out = run("pl-normalize", &[], b"[1,2]\n");
    fails(
        out,
        1,
        "pl-normalize",
        &["<stdin>", "line 1", "not a JSON object"],
    );
}

#[test]
fn missing_fields_are_named() {
    fails(
        run("pl-normalize", &[], b"{\"content\":\"x\"}\n"),
        1,
        "pl-normalize",
        &["line 1", "\"id\""],
    );
    fails(
        run("pl-shingle", &[], b"{\"id\":1}\n"),
        1,
        "pl-shingle",
        &["line 1", "\"norm\""],
    );
    fails(
        run("pl-cluster", &[], b"{\"a\":1,\"b\":2}\n"),
        1,
        "pl-cluster",
        &["line 1", "\"score\""],
    );
    fails(
        run(
            "pl-cluster",
            &[],
            b"{\"a\":3,\"b\":2,\"score\":1,\"jaccard\":1,\"fuzzy\":1}\n",
        ),
        1,
        "pl-cluster",
        &["not ordered"],
    );
}

#[test]
fn skip_invalid_continues_and_counts() {
    let input = b"{\"id\":1,\"content\":\"a\"}\nnope\n{\"content\":\"no id\"}\n{\"id\":2,\"content\":\"b\"}\n";
    let out = run("pl-normalize", &["--skip-invalid"], input);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(ndjson(&ok(out)).len(), 2);
    assert!(err.contains("skipped 2 invalid records"), "{err}");
}

#[test]
fn wrong_record_kind_is_refused() {
    let d = stage_files(10);
    let out = run_in(Some(d.path()), "pl-lsh", &["sh3.bin"], b"");
    fails(
        out,
        1,
        "pl-lsh",
        &["sh3.bin", "record kind", "sigs", "shingles"],
    );
    let out = run_in(Some(d.path()), "pl-minhash", &["sigs256.bin"], b"");
    fails(out, 1, "pl-minhash", &["record kind"]);
    // NDJSON where a binary stream is expected.
    let out = run_in(Some(d.path()), "pl-lsh", &["norm.ndjson"], b"");
    fails(out, 1, "pl-lsh", &["norm.ndjson", "line 1", "kind"]);
}

#[test]
fn mismatched_parameters_are_refused() {
    let d = stage_files(10);
    let out = run_in(
        Some(d.path()),
        "pl-lsh",
        &["--perms", "256", "sigs128.bin"],
        b"",
    );
    fails(out, 1, "pl-lsh", &["sigs128.bin", "perms", "128", "256"]);
    let out = run_in(
        Some(d.path()),
        "pl-minhash",
        &["--ngram", "3", "sh2.bin"],
        b"",
    );
    fails(out, 1, "pl-minhash", &["sh2.bin", "ngram", "2", "3"]);
    let out = run_in(
        Some(d.path()),
        "pl-score",
        &[
            "cands.ndjson",
            "--sigs",
            "sigs128.bin",
            "--perms",
            "256",
            "--fuzzy-weight",
            "0",
        ],
        b"",
    );
    fails(out, 1, "pl-score", &["sigs128.bin", "perms"]);
}

#[test]
fn indivisible_bands_are_a_usage_error() {
    let d = stage_files(10);
    let out = run_in(
        Some(d.path()),
        "pl-lsh",
        &["--bands", "30", "sigs256.bin"],
        b"",
    );
    fails(out, 2, "pl-lsh", &["256", "30", "32"]);
    fails(
        run("pl-lsh", &["--explain", "--bands", "7"], b""),
        2,
        "pl-lsh",
        &["7"],
    );
}

#[test]
fn truncated_binary_stream_is_an_error_not_short_output() {
    let d = stage_files(10);
    let full = std::fs::read(d.path().join("sigs256.bin")).unwrap();
    for cut in [1, 20, 41, full.len() / 2, full.len() - 17, full.len() - 1] {
        write(d.path(), "cut.bin", &full[..cut]);
        let out = run_in(
            Some(d.path()),
            "pl-lsh",
            &["cut.bin", "-o", "cands.out"],
            b"",
        );
        fails(out, 1, "pl-lsh", &["cut.bin", "truncated"]);
        assert!(
            !d.path().join("cands.out").exists(),
            "no output file from a truncated input"
        );
        let out = run_in(Some(d.path()), "pl-cat", &["cut.bin"], b"");
        assert_eq!(out.status.code(), Some(1), "cut at {cut}");
    }
}

#[test]
fn corrupt_binary_stream_is_an_error() {
    let d = stage_files(10);
    let mut bytes = std::fs::read(d.path().join("sigs256.bin")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    write(d.path(), "bad.bin", &bytes);
    fails(
        run_in(Some(d.path()), "pl-lsh", &["bad.bin"], b""),
        1,
        "pl-lsh",
        &["bad.bin", "checksum"],
    );
}

#[test]
fn missing_input_file_is_named() {
    fails(
        run("pl-cat", &["/nonexistent/x.bin"], b""),
        1,
        "pl-cat",
        &["/nonexistent/x.bin", "cannot open"],
    );
}

#[test]
fn score_needs_every_document_of_a_pair() {
    let d = stage_files(10);
    let out = run_in(
        Some(d.path()),
        "pl-score",
        &["--sigs", "sigs256.bin", "--norm", "norm.ndjson"],
        b"{\"a\":1,\"b\":99999}\n",
    );
    fails(out, 1, "pl-score", &["99999", "sigs256.bin"]);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        run("pl-shingle", &["--ngram", "0"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        run("pl-score", &[], b"").status.code(),
        Some(2),
        "--sigs is required"
    );
    let out = run("pl-score", &["--sigs", "x"], b"");
    fails(out, 2, "pl-score", &["--norm"]);
}

#[test]
fn flags_clap_refuses_are_one_line_usage_errors() {
    for (tool, argv, needle) in [
        ("pl-score", &["--no-such-flag"][..], "--no-such-flag"),
        ("pl-lsh", &["--bands"][..], "--bands"),
        ("pl-cluster", &["--linkage", "median"][..], "median"),
        ("pl-normalize", &["a.ndjson", "b.ndjson"][..], "b.ndjson"),
    ] {
        let err = fails(run(tool, argv, b""), 2, tool, &[needle, "--help"]);
        assert!(!err.contains("error:"), "clap's prefix: {err}");
    }
    // Help and version are still clap's, on stdout, exit 0.
    let out = run("pl-score", &["--version"], b"");
    assert!(String::from_utf8(ok(out)).unwrap().starts_with("pl-score "));
}

#[test]
fn two_outputs_naming_one_file_are_refused_before_anything_is_read() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("out")).unwrap();
    // The same file by two names, and by a folder still to be made: the second rename would
    // have replaced the kept pairs with the rejected ones.
    let score = |o: &str, rejected: &str, stdin: &[u8]| {
        let args = ["-", "--sigs", "no-such.bin", "--norm", "no.ndjson", "-o", o];
        let argv: Vec<&str> = args
            .iter()
            .copied()
            .chain(["--rejected", rejected])
            .collect();
        run_in(Some(d.path()), "pl-score", &argv, stdin)
    };
    for (o, rejected) in [
        ("out/pairs.ndjson", "./out/../out/pairs.ndjson"),
        ("new/pairs.ndjson", "new/./pairs.ndjson"),
    ] {
        fails(
            score(o, rejected, b""),
            2,
            "pl-score",
            &[o, rejected, "same file"],
        );
        assert!(!d.path().join(o).exists());
    }
    // Two files, or stdout twice: read on, to the missing signatures.
    for (o, rejected) in [
        ("out/a.ndjson", "out/b.ndjson"),
        ("/dev/stdout", "/dev/stdout"),
    ] {
        let out = score(o, rejected, b"{\"a\":1,\"b\":2}\n");
        fails(out, 1, "pl-score", &["no-such.bin"]);
    }
}

#[test]
fn a_repeated_id_is_refused_by_every_stage() {
    let d = stage_files(10);
    // Each input gets its first record again at its end (line 13: 10 documents, 2 rescans).
    ok(sh(
        d.path(),
        "for f in docs norm; do cp $f.ndjson $f-rep.ndjson; head -n 1 $f.ndjson >> $f-rep.ndjson; done \
         && pl-shingle -q --format json norm.ndjson > sh.ndjson && head -n 1 sh.ndjson >> sh.ndjson \
         && pl-minhash -q --format json norm.ndjson > sigs.ndjson && head -n 1 sigs.ndjson >> sigs.ndjson",
    ));
    let repeated = ["line 13", "id 1 repeated (first on line 1)"];
    let out = sh(d.path(), "pl-normalize -q docs-rep.ndjson");
    // What came before the repeated record is written.
    assert_eq!(ndjson(&out.stdout).len(), 12);
    fails(
        out,
        1,
        "pl-normalize",
        &[&["docs-rep.ndjson"], &repeated[..]].concat(),
    );
    for (tool, cmd, input) in [
        (
            "pl-shingle",
            "pl-shingle -q norm-rep.ndjson",
            "norm-rep.ndjson",
        ),
        (
            "pl-minhash",
            "pl-minhash -q norm-rep.ndjson",
            "norm-rep.ndjson",
        ),
        ("pl-minhash", "pl-minhash -q sh.ndjson", "sh.ndjson"),
        ("pl-lsh", "pl-lsh -q sigs.ndjson", "sigs.ndjson"),
        (
            "pl-score",
            "pl-score -q cands.ndjson --sigs sigs256.bin --norm norm-rep.ndjson",
            "norm-rep.ndjson",
        ),
        (
            "pl-cluster",
            "pl-score -q cands.ndjson --sigs sigs256.bin --norm norm.ndjson | pl-cluster -q --docs norm-rep.ndjson",
            "norm-rep.ndjson",
        ),
    ] {
        fails(
            sh(d.path(), cmd),
            1,
            tool,
            &[&[input], &repeated[..]].concat(),
        );
    }
    // --skip-invalid drops the repeated record and counts it.
    let out = sh(d.path(), "pl-normalize --skip-invalid docs-rep.ndjson");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(ndjson(&ok(out)).len(), 12);
    assert!(err.contains("skipped 1 invalid records"), "{err}");
}

#[test]
fn numbers_that_are_not_numbers_in_range_are_usage_errors() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("pl-score", &["--threshold", "NaN"], "not a finite number"),
        ("pl-score", &["--threshold", "inf"], "not a finite number"),
        ("pl-score", &["--threshold", "2"], "not from 0 to 1"),
        (
            "pl-score",
            &["--fuzzy-weight", "NaN"],
            "not a finite number",
        ),
        ("pl-score", &["--jaccard-weight=-1"], "negative"),
        (
            "pl-score",
            &["--allow-conflicts", "NaN"],
            "not a finite number",
        ),
        ("pl-score", &["--conflicts-per-garbled=-0.5"], "negative"),
        (
            "pl-score",
            &["--word-conflict-weight", "inf"],
            "not a finite",
        ),
        ("pl-score", &["--one-digit-weight", "x"], "not a finite"),
        ("pl-score", &["--distinct-min", "1.5"], "not from 0 to 1"),
        ("pl-score", &["--distinct-penalty", "NaN"], "not a finite"),
        (
            "pl-lsh",
            &["--threshold", "NaN", "--explain"],
            "not a finite",
        ),
        (
            "pl-lsh",
            &["--min-band-matches", "33"],
            "more than the 32 bands",
        ),
        (
            "pl-apply",
            &["--min-confidence", "1.2", "x"],
            "not from 0 to 1",
        ),
        ("pl-apply", &["--timeout", "1e300", "x"], "at most 86400"),
        ("pl-fetch", &["--timeout", "0"], "over 0"),
        ("pl-fetch", &["--connect-timeout", "NaN"], "not a finite"),
        ("pl-trigram", &["--threshold", "NaN"], "at most 1, got NaN"),
    ];
    for (tool, args, needle) in cases {
        let mut args = args.to_vec();
        if *tool == "pl-score" {
            args.extend(["--sigs", "x"]);
        }
        let out = run(tool, &args, b"");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{tool} {args:?}: {err}");
        assert!(err.contains(needle), "{tool} {args:?}: {err}");
    }
    // Both weights 0 leave nothing to score.
    let out = run(
        "pl-score",
        &[
            "--sigs",
            "x",
            "--jaccard-weight",
            "0",
            "--fuzzy-weight",
            "0",
        ],
        b"",
    );
    fails(out, 2, "pl-score", &["both 0"]);
}

#[test]
fn invalid_utf8_a_full_disk_and_stale_temporaries() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "docs.ndjson",
        b"{\"id\":1,\"content\":\"a b\"}\n{\"id\":2,\"content\":\"\xff\xfe\"}\n{\"id\":3,\"content\":\"c\"}\n",
    );
    // A line that is not UTF-8 is named; the record before it is written.
    let out = sh(d.path(), "pl-normalize docs.ndjson");
    assert_eq!(ndjson(&out.stdout).len(), 1);
    fails(
        out,
        1,
        "pl-normalize",
        &["docs.ndjson", "line 2", "not UTF-8"],
    );
    // --skip-invalid skips it like any bad record.
    let out = sh(d.path(), "pl-normalize --skip-invalid docs.ndjson");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(ndjson(&ok(out)).len(), 2);
    assert!(err.contains("skipped 1 invalid records"), "{err}");
    // In a record stream too, with its line, and the cause said once.
    ok(sh(
        d.path(),
        "pl-normalize -q --skip-invalid docs.ndjson | pl-minhash -q --format json > sigs.ndjson \
         && printf '\\377\\376\\n' >> sigs.ndjson",
    ));
    let err = fails(
        sh(d.path(), "pl-lsh -q sigs.ndjson"),
        1,
        "pl-lsh",
        &["sigs.ndjson", "line 3", "not UTF-8"],
    );
    assert_eq!(err.matches("UTF-8").count(), 1, "{err}");
    // A full disk names the output.
    fails(
        sh(
            d.path(),
            "pl-normalize -q --skip-invalid docs.ndjson -o /dev/full",
        ),
        1,
        "pl-normalize",
        &["/dev/full", "write failed", "No space left"],
    );
    fails(
        sh(
            d.path(),
            "pl-normalize -q --skip-invalid docs.ndjson > /dev/full",
        ),
        1,
        "pl-normalize",
        &["<stdout>", "write failed"],
    );
    // The temporary of a run killed long ago is removed by the next run of that output; one
    // of a live process is not.
    let dead = d.path().join(".norm.ndjson.999999999.tmp");
    let live = d
        .path()
        .join(format!(".norm.ndjson.{}.tmp", std::process::id()));
    std::fs::write(&dead, b"half").unwrap();
    std::fs::write(&live, b"half").unwrap();
    ok(sh(
        d.path(),
        "pl-normalize -q --skip-invalid docs.ndjson -o norm.ndjson",
    ));
    assert!(!dead.exists());
    assert!(live.exists());
    assert_eq!(
        ndjson(&std::fs::read(d.path().join("norm.ndjson")).unwrap()).len(),
        2
    );
}

#[test]
fn groups_and_scores_out_of_shape_are_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "twice.ndjson",
        b"{\"group\":1,\"confidence\":0.9,\"primary\":1,\"members\":[1,2,2]}\n",
    );
    write(
        d.path(),
        "stranger.ndjson",
        b"{\"group\":1,\"confidence\":0.9,\"primary\":7,\"members\":[1,2]}\n",
    );
    write(
        d.path(),
        "truth.ndjson",
        b"{\"id\":1,\"cluster\":1}\n{\"id\":2,\"cluster\":1}\n",
    );
    for tool in ["pl-cat --table", "pl-eval --truth truth.ndjson"] {
        let name = tool.split(' ').next().unwrap();
        fails(
            sh(d.path(), &format!("{tool} twice.ndjson")),
            1,
            name,
            &["twice.ndjson", "line 1", "member 2 is listed twice"],
        );
        fails(
            sh(d.path(), &format!("{tool} stranger.ndjson")),
            1,
            name,
            &["stranger.ndjson", "line 1", "primary 7 is not a member"],
        );
    }
    for score in ["1.5", "-0.1"] {
        write(
            d.path(),
            "scores.ndjson",
            format!("{{\"a\":1,\"b\":2,\"score\":{score}}}\n").as_bytes(),
        );
        fails(
            sh(d.path(), "pl-cluster scores.ndjson"),
            1,
            "pl-cluster",
            &["scores.ndjson", "line 1", "not from 0 to 1"],
        );
    }
}

#[test]
fn a_document_in_two_groups_is_refused_by_every_groups_reader() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "truth.ndjson",
        b"{\"id\":1,\"cluster\":1}\n{\"id\":2,\"cluster\":1}\n",
    );
    // A document in two groups, a group number repeated: refused as pl-report refuses them
    // (the one check of pl_core::page::GroupLines), naming the file and the line.
    write(
        d.path(),
        "shared.ndjson",
        b"{\"group\":1,\"confidence\":0.9,\"primary\":1,\"members\":[1,2]}\n\
          {\"group\":2,\"confidence\":0.8,\"primary\":3,\"members\":[3,2]}\n",
    );
    write(
        d.path(),
        "renumbered.ndjson",
        b"{\"group\":1,\"confidence\":0.9,\"primary\":1,\"members\":[1,2]}\n\
          {\"group\":1,\"confidence\":0.8,\"primary\":3,\"members\":[3,4]}\n",
    );
    write(
        d.path(),
        "bare.ndjson",
        b"{\"members\":[1,2]}\n{\"members\":[2,3]}\n",
    );
    let cases: [(&str, &str, &str); 4] = [
        (
            "pl-report",
            "shared.ndjson",
            "document 2 is in group 2 and in the group on line 1",
        ),
        (
            "pl-eval --truth truth.ndjson",
            "shared.ndjson",
            "document 2 is in group 2 and in the group on line 1",
        ),
        (
            "pl-eval --truth truth.ndjson",
            "bare.ndjson",
            "document 2 is in a group and in the group on line 1",
        ),
        (
            "pl-cat --table",
            "shared.ndjson",
            "document 2 is in group 2 and in the group on line 1",
        ),
    ];
    for (tool, file, msg) in cases {
        let name = tool.split(' ').next().unwrap();
        fails(
            sh(d.path(), &format!("{tool} {file} -o out")),
            1,
            name,
            &[file, "line 2", msg],
        );
    }
    for tool in [
        "pl-report",
        "pl-eval --truth truth.ndjson",
        "pl-cat --table",
    ] {
        let name = tool.split(' ').next().unwrap();
        fails(
            sh(d.path(), &format!("{tool} renumbered.ndjson -o out")),
            1,
            name,
            &[
                "renumbered.ndjson",
                "line 2",
                "group 1 repeated (first on line 1)",
            ],
        );
    }
}

#[test]
fn a_document_over_max_doc_mb_is_refused_with_its_line_and_id() {
    let d = tempfile::tempdir().unwrap();
    let big = "word ".repeat(300_000); // 1.5 MB of text
    let small = json!({"id": 1, "title": "a", "content": "a short letter"});
    let huge = json!({"id": 7, "title": "b", "content": big});
    write(
        d.path(),
        "docs.ndjson",
        format!("{small}\n{huge}\n").as_bytes(),
    );
    // Over the cap as a docs record: pl-normalize names the file, the line and the id.
    fails(
        sh(
            d.path(),
            "pl-normalize --max-doc-mb 1 docs.ndjson -o norm.ndjson",
        ),
        1,
        "pl-normalize",
        &[
            "docs.ndjson",
            "line 2",
            "document 7 is",
            "over the 1 MiB",
            "--max-doc-mb",
        ],
    );
    // Under it as a docs record, over it once normalized (content and norm): refused there.
    fails(
        sh(
            d.path(),
            "pl-normalize --max-doc-mb 2 docs.ndjson -o norm.ndjson",
        ),
        1,
        "pl-normalize",
        &[
            "docs.ndjson",
            "line 2",
            "document 7: its norm record would be",
        ],
    );
    // The readers of norm records refuse it too; --skip-invalid skips it.
    ok(sh(d.path(), "pl-normalize docs.ndjson -o norm.ndjson"));
    for tool in ["pl-shingle", "pl-minhash", "pl-trigram"] {
        fails(
            sh(
                d.path(),
                &format!("{tool} --max-doc-mb 2 norm.ndjson -o out"),
            ),
            1,
            tool,
            &["norm.ndjson", "line 2", "document 7 is", "over the 2 MiB"],
        );
    }
    ok(sh(
        d.path(),
        "pl-shingle --max-doc-mb 2 --skip-invalid norm.ndjson -o out",
    ));
}

#[test]
fn a_newcomer_s_mistakes_each_get_one_line_naming_the_fix() {
    // A missing required flag is named, not only "were not provided".
    fails(run("pl-check", &[], b""), 2, "pl-check", &["--index <DIR>"]);
    // clap's suggestion for a misspelt flag is kept.
    fails(
        run("pl-score", &["--treshold", "0.8"], b""),
        2,
        "pl-score",
        &["'--treshold'", "similar argument exists: '--threshold'"],
    );
    // A stage given another stage's output names the one to run first.
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(3).as_bytes());
    fails(
        run("pl-lsh", &[docs.to_str().unwrap()], b""),
        1,
        "pl-lsh",
        &[
            "docs.ndjson",
            "\"sigs\" (pl-minhash writes them: run it first)",
        ],
    );
}

#[test]
fn a_folder_of_scans_and_an_empty_input_are_warned_about() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("scans")).unwrap();
    write(d.path(), "scans/a.pdf", b"%PDF-1.4");
    write(d.path(), "scans/b.png", b"\x89PNG");
    let out = run_in(Some(d.path()), "pl-fetch", &["--dir", "scans"], b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(out.stdout.is_empty());
    assert!(err.contains("0 documents from scans"), "{err}");
    assert!(
        err.contains("2 other files not read: --dir reads .txt and .md files only"),
        "{err}"
    );
    let out = run("pl-normalize", &[], b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("<stdin>: no documents: nothing to compare"),
        "{err}"
    );
}

#[test]
fn a_stage_reading_a_terminal_says_so() {
    // A pseudo-terminal as the tool's stdin; Ctrl-D then ends it like an empty input.
    let script = "import os, pty, subprocess, sys\n\
                  m, s = pty.openpty()\n\
                  p = subprocess.Popen([sys.argv[1]], stdin=s, stderr=subprocess.PIPE)\n\
                  os.write(m, b'\\x04')\n\
                  sys.stdout.write(p.communicate(timeout=60)[1].decode())\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script, bin("pl-normalize").to_str().unwrap()])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        shown.contains("pl-normalize: reading records from the terminal (stdin)"),
        "{shown}"
    );
    // On a pipe the tool says nothing of the kind.
    let out = run("pl-normalize", &[], b"");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("terminal"));
}

/// Runs `argv` in `dir` with a pseudo-terminal as its stderr; what the terminal showed.
fn on_a_terminal(dir: &std::path::Path, argv: &[&str]) -> String {
    let script = "import os, pty, subprocess, sys\n\
                  m, s = pty.openpty()\n\
                  p = subprocess.Popen(sys.argv[1:], stderr=s)\n\
                  os.close(s)\n\
                  shown = b''\n\
                  while True:\n\
                  \x20   try:\n\
                  \x20       b = os.read(m, 65536)\n\
                  \x20   except OSError:\n\
                  \x20       break\n\
                  \x20   if not b:\n\
                  \x20       break\n\
                  \x20   shown += b\n\
                  p.wait()\n\
                  sys.stdout.write(shown.decode())\n";
    let out = std::process::Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .args(argv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn pl_score_shows_a_bar_on_a_terminal_and_one_summary_line_on_a_pipe() {
    let d = stage_files(40);
    let score = bin("pl-score");
    let argv = [
        score.to_str().unwrap(),
        "--sigs",
        "sigs256.bin",
        "--norm",
        "norm.ndjson",
        "cands.ndjson",
        "-o",
        "scores.ndjson",
    ];
    let shown = on_a_terminal(d.path(), &argv);
    assert!(shown.contains("candidates ("), "no bar: {shown:?}");
    assert!(shown.contains(" left)"), "no time left: {shown:?}");
    let out = run_in(Some(d.path()), "pl-score", &argv[1..], b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("pl-score: ") && err.contains("candidates scored: "),
        "{err}"
    );
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err}");
    let out = run_in(
        Some(d.path()),
        "pl-score",
        &[&["-q"], &argv[1..]].concat(),
        b"",
    );
    assert!(
        out.stderr.is_empty(),
        "-q: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
