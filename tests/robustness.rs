//! Every reader fed random bytes, random JSON and cut-off streams: it never panics, never
//! hangs, and ends with either valid records or one clear error line.

use proptest::prelude::*;

use crate::util::*;

/// (tool, extra args) for every stage that reads a stream on stdin.
fn readers(dir: &std::path::Path) -> Vec<(&'static str, Vec<String>)> {
    let sigs = dir.join("sigs.bin").display().to_string();
    let norm = dir.join("norm.ndjson").display().to_string();
    vec![
        ("pl-normalize", vec![]),
        ("pl-shingle", vec![]),
        ("pl-minhash", vec![]),
        ("pl-lsh", vec![]),
        (
            "pl-score",
            vec!["--sigs".into(), sigs, "--norm".into(), norm.clone()],
        ),
        ("pl-cluster", vec!["--docs".into(), norm]),
        ("pl-cat", vec![]),
    ]
}

/// The streams the readers are fed, made from a small corpus: a folder removed when the test
/// that made it ends (a static would never be dropped, and leave a folder in /tmp per run).
fn fixture() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(20).as_bytes());
    ok(sh(
        d.path(),
        "pl-normalize docs.ndjson -o norm.ndjson && pl-shingle -q norm.ndjson -o shingles.bin \
         && pl-minhash shingles.bin -o sigs.bin",
    ));
    d
}

/// Runs 24 cases of `strategy` through `case`, with one fixture folder for them all.
fn cases<S: Strategy>(
    strategy: S,
    case: impl Fn(&std::path::Path, S::Value) -> Result<(), TestCaseError>,
) {
    let d = fixture();
    let config = ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, |v| case(d.path(), v)) {
        panic!("{e}");
    }
}

/// The outcome is either success with parseable output or one error line; never a crash.
fn check_outcome(tool: &str, out: std::process::Output) -> Result<(), TestCaseError> {
    let code = out.status.code();
    prop_assert!(code.is_some(), "{tool} killed by a signal or timed out");
    let code = code.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    prop_assert!(
        code == 0 || code == 1 || code == 2,
        "{tool} exit {code}: {err}"
    );
    if code != 0 {
        prop_assert!(err.starts_with(&format!("{tool}: ")), "{tool}: {err}");
        prop_assert!(!err.contains("panicked"), "{tool}: {err}");
    } else if !out.stdout.is_empty() && out.stdout[0] == b'{' {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            prop_assert!(
                serde_json::from_str::<serde_json::Value>(line).is_ok(),
                "{tool} wrote a bad line: {line}"
            );
        }
    }
    Ok(())
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        (-1e6f64..1e6).prop_map(serde_json::Value::from),
        "[a-z ]{0,30}".prop_map(serde_json::Value::from),
    ];
    let keys = prop::sample::select(vec![
        "id",
        "content",
        "norm",
        "a",
        "b",
        "score",
        "jaccard",
        "fuzzy",
        "kind",
        "sig",
        "shingles",
        "ngram",
        "fingerprint",
        "x",
    ]);
    leaf.prop_recursive(2, 16, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
            prop::collection::btree_map(keys.clone().prop_map(String::from), inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn random_bytes() {
    let strategy = (prop::collection::vec(any::<u8>(), 0..600), any::<bool>());
    cases(strategy, |dir, (bytes, magic)| {
        let mut input = bytes;
        if magic {
            // Start like a binary stream so the binary readers go past the first byte.
            input.splice(0..0, pl_core::stream::MAGIC);
        }
        for (tool, args) in readers(dir) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            check_outcome(tool, run(tool, &args, &input))?;
        }
        Ok(())
    });
}

#[test]
fn random_json() {
    cases(prop::collection::vec(json_value(), 0..6), |dir, lines| {
        let input: String = lines.iter().map(|v| format!("{v}\n")).collect();
        for (tool, args) in readers(dir) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            check_outcome(tool, run(tool, &args, input.as_bytes()))?;
        }
        Ok(())
    });
}

#[test]
fn cut_off_streams() {
    cases(0.0f64..1.0, |d, frac| {
        for (file, readers) in [
            ("shingles.bin", &["pl-minhash", "pl-cat"][..]),
            ("sigs.bin", &["pl-lsh", "pl-cat"][..]),
            ("norm.ndjson", &["pl-shingle", "pl-cat"][..]),
        ] {
            let full = std::fs::read(d.join(file)).unwrap();
            let cut = ((full.len() as f64) * frac) as usize;
            for tool in readers {
                let out = run(tool, &[], &full[..cut]);
                if file.ends_with(".bin") {
                    prop_assert_eq!(
                        out.status.code(),
                        Some(1),
                        "{} accepted {} cut at {}",
                        tool,
                        file,
                        cut
                    );
                }
                check_outcome(tool, out)?;
            }
        }
        Ok(())
    });
}

/// Two documents of 1.2 million words each (a vocabulary of 5,000 words in a pseudo-random
/// order; the second with a word changed every 100,000) go through the pipeline and are
/// scored under a 1 GiB address-space limit: the verifier compares their first and last
/// 10,000 words and says so; a full alignment would need 180 GB.
#[test]
fn two_documents_of_a_million_words_score_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let vocab: Vec<String> = (0..5000u64)
        .map(|i| {
            let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
            (0..3 + i % 6)
                .map(|_| {
                    let c = (b'a' + (x % 26) as u8) as char;
                    x /= 26;
                    c
                })
                .collect()
        })
        .collect();
    let mut state = 11u64;
    let first: Vec<&str> = (0..1_200_000)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            vocab[((state >> 33) % 5000) as usize].as_str()
        })
        .collect();
    let mut second = first.clone();
    for i in (0..second.len()).step_by(100_000) {
        second[i] = "changed";
    }
    let docs = format!(
        "{}\n{}\n",
        serde_json::json!({"id": 1, "content": first.join(" ")}),
        serde_json::json!({"id": 2, "content": second.join(" ")})
    );
    write(d.path(), "docs.ndjson", docs.as_bytes());
    ok(sh(
        d.path(),
        "pl-normalize -q docs.ndjson -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-lsh -q sigs.bin -o cands.ndjson",
    ));
    let out = ok(sh(
        d.path(),
        "ulimit -v 1048576 && pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson \
         --explain",
    ));
    let s = ndjson(&out);
    assert_eq!(s.len(), 1, "the pair is kept");
    assert_eq!(s[0]["sampled"], true);
    assert_eq!(s[0]["evidence"]["matched"].as_u64().unwrap() + 1, 20_000);
    // Beyond the largest --max-words: refused up front, not attempted.
    let out = sh(
        d.path(),
        "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --max-words 2000000",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-words"));
}
