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

/// What the computation's steps give: the alignment passes with no passage replaced or the
/// ledger rescues, no value is written otherwise, the similarity reaches its minimum or the
/// numbers judge the pair, and the score (the match probability, else the similarity)
/// reaches the threshold.
fn keeps(c: &Value) -> bool {
    let flag = |k: &str| c[k].as_bool().unwrap_or_else(|| panic!("no {k} in {c}"));
    let num = |k: &str| c[k].as_f64().unwrap_or_else(|| panic!("no {k} in {c}"));
    let score = c["probability"]["p"]
        .as_f64()
        .unwrap_or_else(|| num("similarity"));
    (flag("aligned_passes") && flag("one_text_aligned") && !flag("passage_replaced")
        || flag("rescued"))
        && !flag("another_value")
        && (num("similarity") >= num("min_similarity") || flag("by_numbers"))
        && score >= num("threshold")
}

/// The match probability as listed: the prior and the contributions sum to the log-odds, its
/// logistic is the probability, and a kept pair's `"score"` is it.
fn check_probability(r: &Value, kept: bool) {
    let prob = &r["computation"]["probability"];
    let Some(p) = prob["p"].as_f64() else {
        return;
    };
    let sum: f64 = prob["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let (v, w) = (t["value"].as_f64().unwrap(), t["weight"].as_f64().unwrap());
            assert!(
                (v * w - t["contribution"].as_f64().unwrap()).abs() < 1e-12,
                "{r}"
            );
            v * w
        })
        .sum();
    let log_odds = prob["log_odds"].as_f64().unwrap();
    assert!(
        (prob["prior"].as_f64().unwrap() + sum - log_odds).abs() < 1e-9,
        "{r}"
    );
    assert!((1.0 / (1.0 + (-log_odds).exp()) - p).abs() < 1e-12, "{r}");
    if kept {
        assert!((r["score"].as_f64().unwrap() - p).abs() < 1e-6, "{r}");
    }
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
    // Nor a score: what the probability weighs is counted in full either way.
    let p = |rs: &[Value]| -> Vec<Option<f64>> { rs.iter().map(|r| r["score"].as_f64()).collect() };
    assert_eq!(
        p(&explained),
        p(&plain),
        "{fixture}: explaining changed a probability"
    );
    let mut computed = 0;
    for (records, was_kept) in [(&explained, true), (&rejected, false)] {
        for r in records.iter().filter(|r| r.get("apart").is_none()) {
            let Some(c) = r.get("computation") else {
                continue;
            };
            computed += 1;
            check_probability(r, was_kept);
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

#[test]
fn explain_is_the_computation_on_the_near_negative_ocr_fixture() {
    check_fixture("examples/ocr-near");
}

#[test]
fn the_threshold_is_a_dial_on_the_match_probability_no_pair_skips() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/ocr/docs.ndjson");
    ok(sh(
        d.path(),
        &PREP.replace("DOCS", &docs.display().to_string()),
    ));
    let kept_at = |p: f64| -> Vec<Value> {
        ndjson(&ok(sh(d.path(), &format!("{SCORE} --threshold {p}"))))
            .into_iter()
            .filter(|r| r.get("apart").is_none())
            .collect()
    };
    let all = kept_at(0.0);
    let default = kept_at(0.5);
    let sure = kept_at(0.95);
    // The score is the probability, not the similarity it weighs among the findings.
    assert!(
        all.iter()
            .any(|r| r["score"] != r["similarity"] && r["similarity"].as_f64().is_some()),
        "every score is the similarity"
    );
    assert!(
        sure.len() < default.len() && default.len() < all.len(),
        "each step of the dial drops pairs: {} < {} < {}",
        sure.len(),
        default.len(),
        all.len()
    );
    for (rs, t) in [(&default, 0.5), (&sure, 0.95)] {
        assert!(
            rs.iter().all(|r| r["score"].as_f64().unwrap() >= t),
            "no pair under the dial {t}, by_numbers ones included"
        );
    }
    assert!(
        sure.iter().any(|r| r["by_numbers"] == true) || all.iter().all(|r| r["by_numbers"] != true),
        "pairs compared for their numbers are gated like the others"
    );
    let pairs = |rs: &[Value]| -> std::collections::BTreeSet<(u64, u64)> {
        rs.iter()
            .map(|r| (r["a"].as_u64().unwrap(), r["b"].as_u64().unwrap()))
            .collect()
    };
    assert!(pairs(&sure).is_subset(&pairs(&all)));
    // The policy printed is the one weighed.
    let policy: Value =
        serde_json::from_slice(&ok(sh(d.path(), "pl-score --print-policy"))).unwrap();
    let names: Vec<&str> = policy["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["feature"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 23);
    assert!(names.contains(&"addressee_names") && names.contains(&"facing_words"));
    assert!(policy["fitted"].as_str().unwrap().contains("make fit"));
}
