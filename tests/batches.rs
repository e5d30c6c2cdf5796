//! pl-score over a budget (`--text-memory`): the pairs' documents are scored in batches, their
//! texts read again from --norm by offset, and every output is the one holding them all gives.

use crate::util::*;

fn example_dir() -> tempfile::TempDir {
    corpus_dir("examples/docs.ndjson")
}

/// The candidates, signatures and norm file of the documents at `docs` (from the repo).
fn corpus_dir(docs: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let docs = std::fs::read(repo().join(docs)).unwrap();
    write(d.path(), "docs.ndjson", &docs);
    ok(sh(
        d.path(),
        "pl-normalize -q docs.ndjson -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-lsh -q sigs.bin -o cands.ndjson",
    ));
    d
}

#[test]
fn batches_give_what_holding_every_text_gives() {
    let (example, ocr) = (example_dir(), corpus_dir("examples/ocr/docs.ndjson"));
    for (d, flags) in [
        (&example, ""),
        (&example, "--explain --sort-words --distinct-penalty 0.5"),
        // Without the verifier a document holds its sample alone: the example's fit in 1 MB.
        (&ocr, "--no-verify --fuzzy-sample 80"),
        (&example, "--max-words 40"),
    ] {
        let score = |memory: &str, name: &str| {
            let out = sh(
                d.path(),
                &format!(
                    "pl-score -v cands.ndjson --sigs sigs.bin --norm norm.ndjson {flags} {memory} \
                     --rejected {name}.rejected"
                ),
            );
            let log = String::from_utf8_lossy(&out.stderr).to_string();
            let rejected = std::fs::read(d.path().join(format!("{name}.rejected"))).unwrap();
            (ok(out), rejected, log)
        };
        let (kept, rejected, log) = score("", "held");
        assert!(!log.contains("batches"), "{log}");
        assert!(!kept.is_empty() && !rejected.is_empty(), "{flags}");
        let (kept_b, rejected_b, log_b) = score("--text-memory 1", "batched");
        let batches: usize = log_b
            .split(" batches")
            .next()
            .and_then(|s| s.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no batch count in: {log_b}"));
        assert!(batches > 1, "{log_b}");
        assert_eq!(kept, kept_b, "kept pairs, {flags}");
        assert_eq!(rejected, rejected_b, "rejected pairs, {flags}");
    }
}

/// Signatures in a binary file are read again with each batch's texts; in NDJSON (or from a
/// pipe) they are held whole: the scores are the same either way.
#[test]
fn signatures_read_again_or_held_give_the_same_scores() {
    let d = example_dir();
    ok(sh(
        d.path(),
        "pl-minhash -q norm.ndjson --format json -o sigs.ndjson",
    ));
    let score = |sigs: &str| {
        ok(sh(
            d.path(),
            &format!("pl-score -q cands.ndjson --sigs {sigs} --norm norm.ndjson --text-memory 1"),
        ))
    };
    let binary = score("sigs.bin");
    assert!(binary.len() > 1000, "kept pairs expected");
    assert_eq!(binary, score("sigs.ndjson"), "NDJSON signatures, held");
    assert_eq!(
        binary,
        score("<(cat sigs.bin)"),
        "binary signatures from a pipe, held"
    );
}

#[test]
fn texts_that_seem_too_many_early_are_read_again_in_one_batch() {
    let d = example_dir();
    // The pairs' documents first, then short lines, then long ones in no pair: after the
    // first chunk of lines the cost so far, scaled to the file, is over 12 MB; in the end the
    // pairs' documents need less.
    let mut norm = std::fs::read_to_string(d.path().join("norm.ndjson")).unwrap();
    for i in 0..2000 {
        norm.push_str(&format!(
            "{{\"id\":{},\"norm\":\"zq{i} short\"}}\n",
            100_000 + i
        ));
    }
    for i in 0..400 {
        let words: Vec<String> = (0..2500).map(|j| format!("x{i}y{j}")).collect();
        norm.push_str(&format!(
            "{{\"id\":{},\"norm\":\"{}\"}}\n",
            200_000 + i,
            words.join(" ")
        ));
    }
    write(d.path(), "long.ndjson", norm.as_bytes());
    let score = |memory: &str| {
        let out = sh(
            d.path(),
            &format!("pl-score -v cands.ndjson --sigs sigs.bin --norm long.ndjson {memory}"),
        );
        let log = String::from_utf8_lossy(&out.stderr).to_string();
        (ok(out), log)
    };
    let (held, log) = score("");
    assert!(!log.contains("read again"), "{log}");
    let (read_again, log) = score("--text-memory 12");
    assert!(
        log.contains("read again from long.ndjson in one batch"),
        "{log}"
    );
    assert_eq!(held, read_again);
}

#[test]
fn a_norm_that_cannot_be_read_again_is_held_whatever_the_budget() {
    let d = example_dir();
    let held = ok(sh(
        d.path(),
        "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson",
    ));
    let piped = sh(
        d.path(),
        "cat norm.ndjson | pl-score -v cands.ndjson --sigs sigs.bin --norm - --text-memory 1",
    );
    let log = String::from_utf8_lossy(&piped.stderr).to_string();
    assert!(!log.contains("batches"), "{log}");
    assert_eq!(held, ok(piped));
}
