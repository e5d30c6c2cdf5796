//! pl-minhash reading normalized documents: shingles in-process, byte-identical to
//! `pl-shingle OPTS | pl-minhash OPTS`; its errors; the detection of its input.

use crate::util::*;

/// The small corpus normalized, plus short documents (under 20 words), an empty one and a
/// blank line, so every --short branch is taken.
fn norm_dir(n: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let mut docs = small_corpus(n);
    docs += "{\"id\":5001,\"content\":\"Receipt 12, total 3.40 EUR\"}\n";
    docs += "{\"id\":5002,\"content\":\"Receipt 12, total 3.40 EUR\"}\n\n";
    docs += "{\"id\":5003,\"content\":\"\"}\n";
    docs += "{\"id\":5004,\"content\":\"Grüße aus Köln, Straße 5\"}\n";
    write(d.path(), "docs.ndjson", docs.as_bytes());
    ok(sh(d.path(), "pl-normalize -q docs.ndjson -o norm.ndjson"));
    d
}

/// Records in a signature stream, through pl-cat.
fn count_sigs(dir: &std::path::Path, file: &str) -> usize {
    ndjson(&ok(sh(dir, &format!("pl-cat {file}")))).len()
}

#[test]
fn fused_equals_the_two_stage_pipe() {
    let d = norm_dir(120);
    // (shingling flags, MinHash flags)
    let cases = [
        ("", ""),
        ("", "--scheme oph"),
        ("--unit chars --ngram 5", ""),
        ("--unit chars --ngram 4", "--scheme oph --perms 64"),
        ("--ngram 2 --min-words 5", "--seed 7"),
        ("--short skip", ""),
        ("--short skip --min-words 121", "--scheme oph"),
        ("--min-words 121", ""),
    ];
    for (s, m) in cases {
        for t in [1, 2] {
            let two = ok(sh(
                d.path(),
                &format!("pl-shingle -q --threads {t} {s} norm.ndjson | pl-minhash --threads {t} {m} > two.bin && cat two.bin"),
            ));
            let one = ok(sh(
                d.path(),
                &format!(
                    "pl-minhash -q --threads {t} {s} {m} norm.ndjson -o one.bin && cat one.bin"
                ),
            ));
            assert!(two.len() > 40 + 20, "{s} {m}: a stream with records");
            assert!(
                one == two,
                "{s} {m}, {t} threads: fused output differs from the pipe ({} vs {} bytes)",
                one.len(),
                two.len()
            );
        }
        assert!(count_sigs(d.path(), "one.bin") > 0);
    }
    // The cases differ from each other: the flags reach the shingling.
    let a = ok(sh(d.path(), "pl-minhash -q norm.ndjson"));
    let b = ok(sh(
        d.path(),
        "pl-minhash -q --unit words --ngram 3 norm.ndjson",
    ));
    let c = ok(sh(d.path(), "pl-minhash -q --short skip norm.ndjson"));
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert!(
        c.len() < a.len(),
        "--short skip leaves the short documents out"
    );
}

#[test]
fn fused_json_output_and_stdin_equal_the_pipe() {
    let d = norm_dir(40);
    let two = ok(sh(
        d.path(),
        "pl-shingle -q norm.ndjson | pl-minhash --format json",
    ));
    let one = ok(sh(d.path(), "pl-minhash -q --format json < norm.ndjson"));
    assert_eq!(one, two);
    let recs = ndjson(&one);
    assert_eq!(
        recs.len(),
        40 + 8 + 3,
        "documents plus copies plus short ones, empty left out"
    );
    assert_eq!(recs[0]["kind"], "sigs");
    assert_eq!(recs[0]["min_words"], 20);
}

#[test]
fn many_chunks_keep_their_order_whatever_the_threads() {
    // More documents than one chunk of the reading thread (1024 lines).
    let d = norm_dir(2100);
    let two = ok(sh(d.path(), "pl-shingle -q norm.ndjson | pl-minhash"));
    for t in [1, 2, 3] {
        let one = ok(sh(
            d.path(),
            &format!("pl-minhash -q --threads {t} norm.ndjson"),
        ));
        assert!(
            one == two,
            "{t} threads: fused output differs from the pipe"
        );
    }
    assert_eq!(
        count_sigs(d.path(), "<(pl-minhash -q norm.ndjson)"),
        2100 + 420 + 3
    );
    // And the candidates downstream are the same.
    let a = ok(sh(d.path(), "pl-minhash -q norm.ndjson | pl-lsh"));
    let b = ok(sh(
        d.path(),
        "pl-shingle -q norm.ndjson | pl-minhash | pl-lsh",
    ));
    assert_eq!(a, b);
    assert!(ndjson(&a).len() >= 420, "every planted copy is a candidate");
}

#[test]
fn shingle_streams_are_still_read_as_before() {
    let d = norm_dir(30);
    let bin = ok(sh(d.path(), "pl-shingle -q norm.ndjson | pl-minhash"));
    // NDJSON shingle records start with `{` too: told apart by their "kind".
    let json = ok(sh(
        d.path(),
        "pl-shingle -q --format json norm.ndjson | pl-minhash",
    ));
    assert_eq!(bin, json);
    // Shingling flags given with a shingle stream check its header.
    ok(sh(
        d.path(),
        "pl-shingle -q --min-words 5 norm.ndjson | pl-minhash --min-words 5 --ngram 5 --unit chars",
    ));
    let out = sh(
        d.path(),
        "pl-shingle -q --min-words 5 norm.ndjson | pl-minhash --min-words 20",
    );
    fails(out, 1, "pl-minhash", &["<stdin>", "min_words", "5", "20"]);
    let out = sh(
        d.path(),
        "pl-shingle -q norm.ndjson | pl-minhash --unit words",
    );
    fails(out, 1, "pl-minhash", &["shingle_hash", "--unit"]);
    let out = sh(
        d.path(),
        "pl-shingle -q norm.ndjson | pl-minhash --short skip",
    );
    fails(out, 2, "pl-minhash", &["--short", "shingle stream"]);
}

#[test]
fn notes_on_short_documents_match_pl_shingle() {
    let d = norm_dir(10);
    let a = sh(d.path(), "pl-shingle norm.ndjson > /dev/null");
    let b = sh(d.path(), "pl-minhash norm.ndjson > /dev/null");
    let strip = |o: std::process::Output, tool: &str| {
        String::from_utf8(o.stderr)
            .unwrap()
            .replace(&format!("{tool}: "), "")
    };
    let (a, b) = (strip(a, "pl-shingle"), strip(b, "pl-minhash"));
    assert!(a.contains("3 documents under 20 words kept"), "{a}");
    // pl-shingle's notes, each a clause of pl-minhash's one summary line.
    assert_eq!(b.lines().count(), 1, "{b}");
    let clauses: Vec<&str> = b.trim_end().split("; ").skip(1).collect();
    let notes: Vec<&str> = a.lines().collect();
    assert_eq!(notes.len(), clauses.len(), "{a} / {b}");
    for (note, clause) in notes.iter().zip(&clauses) {
        assert!(clause.starts_with(note), "{note:?} / {clause:?}");
    }
    let b = sh(d.path(), "pl-minhash --short skip norm.ndjson > /dev/null");
    assert!(String::from_utf8_lossy(&b.stderr).contains("skipped 4 documents under 20 words"));
}

#[test]
fn bad_lines_are_named_with_their_line_number() {
    let d = norm_dir(5);
    let good = std::fs::read_to_string(d.path().join("norm.ndjson")).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    // Line 3 is cut short.
    let bad = format!(
        "{}\n{}\n{}\n{}\n",
        lines[0],
        lines[1],
        &lines[2][..30],
        lines[3]
    );
    let p = write(d.path(), "bad.ndjson", bad.as_bytes());
    let out = run("pl-minhash", &[p.to_str().unwrap()], b"");
    let err = fails(
        out,
        1,
        "pl-minhash",
        &["bad.ndjson", "line 3", "invalid JSON"],
    );
    assert!(!err.contains("line 4"), "{err}");
    // The same with -o: no output file is left behind.
    let out = run_in(
        Some(d.path()),
        "pl-minhash",
        &["bad.ndjson", "-o", "sigs.bin"],
        b"",
    );
    fails(out, 1, "pl-minhash", &["line 3"]);
    assert!(!d.path().join("sigs.bin").exists());
    // A missing norm field, on stdin, after a blank line.
    let input = format!("{}\n\n{{\"id\":9}}\n", lines[0]);
    let out = run("pl-minhash", &[], input.as_bytes());
    fails(
        out,
        1,
        "pl-minhash",
        &["<stdin>", "line 3", "\"norm\"", "pl-normalize"],
    );
    // A bad fingerprint, a missing id, bytes that are not UTF-8.
    let out = run(
        "pl-minhash",
        &[],
        b"{\"id\":1,\"norm\":\"a b c\",\"fingerprint\":\"xyz\"}\n",
    );
    fails(out, 1, "pl-minhash", &["line 1", "fingerprint"]);
    let out = run("pl-minhash", &[], b"{\"norm\":\"a b c\"}\n");
    fails(out, 1, "pl-minhash", &["line 1", "\"id\""]);
    let out = run(
        "pl-minhash",
        &[],
        b"{\"id\":1,\"norm\":\"a b c\"}\n{\"id\":2,\"norm\":\"\xff\"}\n",
    );
    fails(out, 1, "pl-minhash", &["line 2", "UTF-8"]);
}

#[test]
fn skip_invalid_counts_and_keeps_the_rest() {
    let d = norm_dir(5);
    let good = std::fs::read_to_string(d.path().join("norm.ndjson")).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let bad = format!(
        "{}\nnope\n{}\n{{\"id\":4}}\n{}\n",
        lines[0], lines[1], lines[2]
    );
    write(d.path(), "bad.ndjson", bad.as_bytes());
    let two = ok(sh(
        d.path(),
        "pl-shingle -q --skip-invalid bad.ndjson | pl-minhash",
    ));
    let out = sh(d.path(), "pl-minhash --skip-invalid bad.ndjson");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(ok(out), two);
    assert!(err.contains("skipped 2 invalid records"), "{err}");
}

#[test]
fn closed_stdout_ends_quietly() {
    let d = norm_dir(300);
    let out = sh(d.path(), "pl-minhash norm.ndjson | head -c 100 > /dev/null");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
