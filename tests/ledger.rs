//! The order-free ledger on the real-OCR fixture: pl-score keeps some pairs its alignment
//! rejected (`"rescued":true`), each with the evidence that kept it under `--explain`; every
//! one of them is a true duplicate; `--no-rescue` drops exactly those.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::util::*;

const PREP: &str = "pl-normalize -q < DOCS > norm.ndjson && pl-shingle -q norm.ndjson \
    | pl-minhash -q > sigs.bin && pl-lsh -q sigs.bin > cands.ndjson";

fn pairs(records: &[Value]) -> BTreeSet<(u64, u64)> {
    records.iter().map(pair_of).collect()
}

/// What `--explain`'s weights say of a ledger: either balance at least 0 (the rare one with
/// two rare numbers and no clean refusal).
fn keeps_by_balance(l: &Value) -> bool {
    let b = &l["balance"];
    let num = |k: &str| {
        b[k].as_f64()
            .unwrap_or_else(|| panic!("no balance.{k} in {l}"))
    };
    let rare =
        b["clean_refused"] == false && l["agree"].as_u64().unwrap() >= 2 && num("rare") >= 0.0;
    rare || num("wide") >= 0.0
}

#[test]
fn the_ledger_rescues_only_true_duplicates_and_explains_why() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/ocr/docs.ndjson");
    ok(sh(
        d.path(),
        &PREP.replace("DOCS", &docs.display().to_string()),
    ));
    let score = |flags: &str| {
        ndjson(&ok(sh(
            d.path(),
            &format!("pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson {flags}"),
        )))
    };
    let (explained, plain, strict) = (score("--explain"), score(""), score("--no-rescue"));
    let rescued: Vec<&Value> = explained
        .iter()
        .filter(|r| r["rescued"] == Value::Bool(true))
        .collect();
    assert!(rescued.len() >= 10, "{} pairs rescued", rescued.len());
    // The evidence is there, named: at least two rare numbers agreed, or nine numbers at
    // most six documents have (a copy among up to six).
    let mut wide = 0;
    for r in &rescued {
        let l = &r["ledger"];
        let named = |list: &str| l["tokens"][list].as_array().unwrap().len();
        if l["agree"].as_u64().unwrap() >= 2 {
            assert!(named("agreed") >= 2, "{r}");
        } else {
            wide += 1;
            assert!(l["wide"].as_u64().unwrap() >= 9, "{r}");
            assert!(named("agreed") + named("agreed_wide") >= 9, "{r}");
        }
        assert!(
            r["conflicts"].as_f64().unwrap() > 0.5,
            "the alignment rejected it: {r}"
        );
        assert!(keeps_by_balance(l), "the weighed evidence keeps it: {r}");
    }
    // Every pair the alignment rejected and the ledger did not keep weighs too little.
    ok(sh(
        d.path(),
        "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --explain \
         --rejected rejected.ndjson > /dev/null",
    ));
    let rejected = ndjson(&std::fs::read(d.path().join("rejected.ndjson")).unwrap());
    let weighed: Vec<&Value> = rejected
        .iter()
        .filter(|r| r["dropped"] == "conflicts")
        .collect();
    assert!(weighed.len() > 100, "{} pairs weighed", weighed.len());
    for r in weighed {
        assert!(!keeps_by_balance(&r["ledger"]), "{r}");
    }
    // --explain adds fields, not pairs; without the ledger exactly the rescued pairs are gone.
    assert_eq!(pairs(&explained), pairs(&plain));
    let rescued_pairs = pairs(&rescued.iter().map(|&r| r.clone()).collect::<Vec<_>>());
    let kept = pairs(&plain);
    assert_eq!(
        pairs(&strict),
        kept.difference(&rescued_pairs).copied().collect()
    );
    assert!(strict.iter().all(|r| r.get("rescued").is_none()));
    assert!(
        wide >= 5,
        "{wide} pairs rescued by the wide agreement alone"
    );
    // Every rescued pair is a duplicate in the fixture's truth.
    let truth: BTreeMap<u64, u64> =
        ndjson(&std::fs::read(repo().join("examples/ocr/truth.ndjson")).unwrap())
            .iter()
            .map(|t| (t["id"].as_u64().unwrap(), t["cluster"].as_u64().unwrap()))
            .collect();
    for (a, b) in &rescued_pairs {
        assert_eq!(
            truth[a], truth[b],
            "pair ({a}, {b}) rescued across clusters"
        );
    }
}
