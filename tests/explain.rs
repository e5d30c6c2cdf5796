//! `pl-score --explain` prints the computation of each verdict, and that computation is the
//! verdict: on every candidate of both real-OCR fixtures, the listed conflict terms sum to the
//! pair's conflict weight, the steps give back kept or dropped, and explaining (which counts
//! every alignment in full) keeps exactly the pairs a plain run keeps (which stops a count
//! once it is settled).

use serde_json::Value;

use crate::util::*;

const PREP: &str = "pl-normalize -q < DOCS > norm.ndjson && pl-shingle -q norm.ndjson \
    | pl-minhash -q > sigs.bin && pl-lsh -q sigs.bin > cands.ndjson";
const SCORE: &str = "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson";

/// What the computation's steps give: the alignment passes or the ledger rescues, no value
/// is written otherwise, the score reaches the threshold or the numbers judge the pair.
fn keeps(c: &Value) -> bool {
    let flag = |k: &str| c[k].as_bool().unwrap_or_else(|| panic!("no {k} in {c}"));
    let num = |k: &str| c[k].as_f64().unwrap_or_else(|| panic!("no {k} in {c}"));
    (flag("aligned_passes") || flag("rescued"))
        && !flag("another_value")
        && (num("score") >= num("threshold") || flag("by_numbers"))
}

fn check_fixture(fixture: &str) {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join(fixture).join("docs.ndjson");
    ok(sh(
        d.path(),
        &PREP.replace("DOCS", &docs.display().to_string()),
    ));
    let plain = ndjson(&ok(sh(d.path(), SCORE)));
    let explained = ndjson(&ok(sh(
        d.path(),
        &format!("{SCORE} --explain --rejected rejected.ndjson"),
    )));
    let rejected = ndjson(&std::fs::read(d.path().join("rejected.ndjson")).unwrap());
    assert_eq!(
        kept_pairs(&explained),
        kept_pairs(&plain),
        "{fixture}: explaining changed a verdict"
    );
    let mut computed = 0;
    for (records, was_kept) in [(&explained, true), (&rejected, false)] {
        for r in records.iter().filter(|r| r.get("apart").is_none()) {
            let Some(c) = r.get("computation") else {
                continue;
            };
            computed += 1;
            assert_eq!(r["evidence"]["stopped"], false, "counted in full: {r}");
            let terms: f64 = c["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["count"].as_f64().unwrap() * t["each"].as_f64().unwrap())
                .sum();
            let weight = c["conflict_weight"].as_f64().unwrap();
            assert!((terms - weight).abs() < 1e-9, "{r}");
            assert!(
                (r["conflicts"].as_f64().unwrap() - weight).abs() < 1e-6,
                "{r}"
            );
            let allowance = c["allowance"].as_f64().unwrap();
            assert_eq!(c["aligned_passes"], weight <= allowance + 1e-9, "{r}");
            assert_eq!(
                keeps(c),
                was_kept,
                "{fixture}: the computation is not the verdict: {r}"
            );
        }
    }
    assert!(computed > 300, "{fixture}: {computed} verified pairs");
}

#[test]
fn explain_is_the_computation_on_the_ocr_fixture() {
    check_fixture("examples/ocr");
}

#[test]
fn explain_is_the_computation_on_the_hard_ocr_fixture() {
    check_fixture("examples/ocr-hard");
}
