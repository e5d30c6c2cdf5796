//! `pl-lsh --why`: its account of a pair agrees with the candidates pl-lsh writes, through
//! every sketch, the numbers and the copy sets, on the example corpus.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::util::*;

const PREP: &str = "pl-normalize -q < DOCS > norm.ndjson \
    && pl-minhash -q norm.ndjson --unit chars --ngram 5 -o sigs.bin \
    && pl-minhash -q norm.ndjson --unit chars --ngram 5 --part head:60 -o heads.bin \
    && pl-minhash -q norm.ndjson --unit chars --ngram 5 --part tail:60 -o tails.bin";
const LSH: &str = "pl-lsh -q sigs.bin --also heads.bin --also tails.bin --numbers norm.ndjson";

fn why(dir: &std::path::Path, a: u64, b: u64) -> Value {
    let out = ok(sh(dir, &format!("{LSH} --why {a},{b}")));
    let v = ndjson(&out);
    assert_eq!(v.len(), 1, "one object");
    v[0].clone()
}

/// A temporary folder with the example corpus's signatures (`PREP`).
fn prepared() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/docs.ndjson");
    ok(sh(
        d.path(),
        &PREP.replace("DOCS", &docs.display().to_string()),
    ));
    d
}

#[test]
fn why_says_what_the_candidates_say() {
    let d = prepared();
    let cands = ndjson(&ok(sh(d.path(), LSH)));
    let pair = |r: &Value| (r["a"].as_u64().unwrap(), r["b"].as_u64().unwrap());
    let listed: BTreeSet<(u64, u64)> = cands.iter().map(pair).collect();
    let copies: Vec<(u64, u64)> = cands
        .iter()
        .filter(|r| r["copy"] == true)
        .map(pair)
        .collect();
    let banded: Vec<(u64, u64)> = cands
        .iter()
        .filter(|r| r["copy"] != true)
        .map(pair)
        .collect();
    assert!(
        !copies.is_empty() && banded.len() > 20,
        "{} {}",
        copies.len(),
        banded.len()
    );
    for &(a, b) in banded.iter().step_by(banded.len() / 12).take(12) {
        let w = why(d.path(), a, b);
        assert_eq!(w["candidate"], true, "{w}");
        let proposed = w["sketches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["proposes"] == true)
            || w["numbers"]["proposes"] == true;
        assert!(proposed, "{w}");
    }
    // Pairs pl-lsh does not write, next to ones it does: none is proposed.
    let absent: Vec<(u64, u64)> = banded
        .iter()
        .map(|&(a, b)| (a, b + 1))
        .filter(|p| !listed.contains(p) && p.1 <= 320)
        .take(12)
        .collect();
    assert!(absent.len() >= 6, "{absent:?}");
    for (a, b) in absent {
        let w = why(d.path(), a, b);
        assert_eq!(w["candidate"], false, "{w}");
        if w.get("banded_as").is_none() {
            let evident = w["evidence"].as_f64().unwrap() >= w["evidence_needed"].as_f64().unwrap();
            for s in w["sketches"].as_array().unwrap() {
                assert!(s["proposes"] == false || !evident, "{w}");
                // A bucket that pairs nobody is over the limit.
                let over = s["shared"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| b["size"].as_u64().unwrap() > 50);
                assert_eq!(
                    s["pairing"].as_u64().unwrap() as usize + over.count(),
                    s["shared"].as_array().unwrap().len()
                );
            }
        }
    }
    // A copy pair is written between the set's lowest id and a member; two members of a set
    // are copies, not a pair of their own.
    let (rep, member) = copies[0];
    let w = why(d.path(), rep, member);
    assert_eq!(
        (w["candidate"].clone(), w["copies"].clone()),
        (Value::Bool(true), Value::Bool(true)),
        "{w}"
    );
    if let Some(&(_, other)) = copies.iter().find(|c| c.0 == rep && c.1 != member) {
        let w = why(d.path(), member, other);
        assert_eq!(w["candidate"], false, "{w}");
        assert_eq!(w["copies"], true, "{w}");
    }
    // A member of a copy set is explained through its set's lowest id.
    if let Some(&(a, b)) = banded.iter().find(|p| p.0 == rep || p.1 == rep) {
        let other = if a == rep { b } else { a };
        let w = why(d.path(), member, other);
        assert_eq!(w["candidate"], false, "{w}");
        assert!(
            w["banded_as"].as_array().unwrap().iter().any(|v| v == rep),
            "{w}"
        );
    }
}

/// Pairs whose shared buckets are too crowded to be evidence: a sketch proposes them, their
/// evidence is under what --evidence-bucket asks, and with the rule off they are written.
#[test]
fn why_shows_the_evidence_a_pair_lacks() {
    let d = prepared();
    let pairs = |flags: &str| -> BTreeSet<(u64, u64)> {
        ndjson(&ok(sh(d.path(), &format!("{LSH} {flags}"))))
            .iter()
            .map(pair_of)
            .collect()
    };
    let (all, asked) = (pairs("--evidence-bucket 0"), pairs(""));
    assert!(asked.is_subset(&all));
    let dropped: Vec<_> = all.difference(&asked).collect();
    assert!(
        !dropped.is_empty(),
        "the example corpus has crowded buckets"
    );
    for &&(a, b) in dropped.iter().take(5) {
        let w = why(d.path(), a, b);
        assert_eq!(w["candidate"], false, "{w}");
        let sketches = w["sketches"].as_array().unwrap();
        assert!(sketches.iter().any(|s| s["proposes"] == true), "{w}");
        let (got, needed) = (
            w["evidence"].as_f64().unwrap(),
            w["evidence_needed"].as_f64().unwrap(),
        );
        assert!(got < needed && (needed - 1.0 / 6.0).abs() < 1e-6, "{w}");
        // Its shared buckets each hold more than 7 documents.
        for s in sketches.iter().filter(|s| s["proposes"] == true) {
            for bucket in s["shared"].as_array().unwrap() {
                assert!(bucket["size"].as_u64().unwrap() > 7, "{w}");
            }
        }
    }
}

#[test]
fn why_refuses_a_pair_it_cannot_explain() {
    let d = prepared();
    let out = sh(d.path(), &format!("{LSH} --why 1,999999"));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sigs.bin") && err.contains("999999"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let out = sh(d.path(), &format!("{LSH} --why 7,7"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("names one document twice"));
}
