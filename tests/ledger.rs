//! The order-free ledger on the real-OCR fixture: pl-score keeps some pairs its alignment
//! rejected (`"rescued":true`), each with the evidence that kept it under `--explain`; every
//! one of them is a true duplicate; `--no-rescue` drops exactly those. Pairs whose numbers
//! disagree with none agreeing are held apart, and pl-cluster keeps them out of one group.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::util::*;

const PREP: &str = "pl-normalize -q < DOCS > norm.ndjson && pl-shingle -q norm.ndjson \
    | pl-minhash -q > sigs.bin && pl-lsh -q sigs.bin > cands.ndjson";

/// The fixture's truth: each document's cluster.
fn ocr_truth() -> BTreeMap<u64, u64> {
    ndjson(&std::fs::read(repo().join("examples/ocr/truth.ndjson")).unwrap())
        .iter()
        .map(|t| (t["id"].as_u64().unwrap(), t["cluster"].as_u64().unwrap()))
        .collect()
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
    // The verifier's verdict alone (--threshold 0): without the ledger there is no match
    // probability either, so the default's threshold on it would not compare. The similarity
    // keeps its own minimum, as without the ledger.
    let (explained, plain, strict) = (
        score("--explain --threshold 0"),
        score("--threshold 0"),
        score("--no-rescue --threshold 0"),
    );
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
    assert_eq!(kept_pairs(&explained), kept_pairs(&plain));
    let rescued_pairs = kept_pairs(&rescued.iter().map(|&r| r.clone()).collect::<Vec<_>>());
    let kept = kept_pairs(&plain);
    assert_eq!(
        kept_pairs(&strict),
        kept.difference(&rescued_pairs).copied().collect()
    );
    assert!(strict.iter().all(|r| r.get("rescued").is_none()));
    assert!(
        wide >= 5,
        "{wide} pairs rescued by the wide agreement alone"
    );
    // Every rescued pair is a duplicate in the fixture's truth.
    let truth = ocr_truth();
    for (a, b) in &rescued_pairs {
        assert_eq!(
            truth[a], truth[b],
            "pair ({a}, {b}) rescued across clusters"
        );
    }
}

/// A page-removed copy is often word for word a sibling's text: it passes with its original and
/// with the sibling. The original and the sibling, whose numbers disagree or which name
/// another addressee, are held apart, and pl-cluster then keeps them in two groups: fewer pairs across the truth's clusters, none
/// held apart inside a group, and few true pairs lost for many false ones.
#[test]
fn pairs_held_apart_keep_siblings_out_of_one_group() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/ocr/docs.ndjson");
    ok(sh(
        d.path(),
        &PREP.replace("DOCS", &docs.display().to_string()),
    ));
    ok(sh(
        d.path(),
        "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson -o scores.ndjson \
         && pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --apart-all -o all.ndjson \
         && pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --explain \
            --rejected rejected.ndjson -o /dev/null",
    ));
    let read = |f: &str| ndjson(&std::fs::read(d.path().join(f)).unwrap());
    let (scores, all, rejected) = (
        read("scores.ndjson"),
        read("all.ndjson"),
        read("rejected.ndjson"),
    );
    let apart_of = |v: &[Value]| -> Vec<(u64, u64)> {
        v.iter()
            .filter(|r| r["apart"] == true)
            .map(pair_of)
            .collect()
    };
    let (apart, every) = (apart_of(&scores), apart_of(&all));
    assert!(apart.len() >= 20, "{} pairs held apart", apart.len());
    // After the kept pairs, sorted; --apart-all writes more, and the same kept pairs.
    let first = scores.iter().position(|r| r["apart"] == true).unwrap();
    assert!(scores[first..].iter().all(|r| r["apart"] == true));
    assert!(apart.windows(2).all(|w| w[0] < w[1]));
    assert!(
        every.len() > 10 * apart.len(),
        "{} of {}",
        apart.len(),
        every.len()
    );
    assert!(apart.iter().all(|p| every.contains(p)));
    assert_eq!(kept_pairs(&scores), kept_pairs(&all));
    // Each was dropped by the verifier, or by its numbers before it (five or more standing
    // against each other), and says why it is held apart: its ledger (numbers against each
    // other, none agreeing), another addressee or signer, another passage in a clean pair, or
    // another value.
    let dropped: BTreeMap<(u64, u64), &Value> = rejected.iter().map(|r| (pair_of(r), r)).collect();
    let (mut refused, mut by_ledger, mut by_addressee, mut by_passage) = (0, 0, 0, 0);
    for p in &every {
        let r = dropped[p];
        let l = &r["ledger"];
        if r["dropped"] == "numbers" {
            refused += 1;
            assert!(l["numbers_against"].as_u64().unwrap() >= 5, "{r}");
            assert!(r["evidence"].is_null(), "never aligned: {r}");
        } else {
            assert_eq!(r["dropped"], "conflicts", "{r}");
        }
        if l["apart"] == true {
            by_ledger += 1;
            assert_eq!(
                (l["agree"].as_u64(), l["wide"].as_u64()),
                (Some(0), Some(0)),
                "{r}"
            );
            assert!(l["numbers_against"].as_u64().unwrap() >= 2, "{r}");
        } else if r["evidence"]["addressee_subs"].as_u64() > Some(0) {
            by_addressee += 1;
        } else if r["evidence"]["passage_replaced"] == true {
            by_passage += 1;
            assert!(r["ledger"]["damage"].as_f64().unwrap() < 0.05, "clean: {r}");
        } else {
            assert_eq!(r["computation"]["another_value"], true, "{r}");
        }
    }
    assert!(refused > 0, "no pair refused by its numbers");
    assert!(by_addressee > 0, "no pair held apart for another addressee");
    assert!(by_passage > 0, "no pair held apart for another passage");
    assert_eq!(
        rejected
            .iter()
            .filter(|r| r["ledger"]["apart"] == true)
            .count(),
        by_ledger
    );
    // The groups with and without them.
    let kept_only: String = scores
        .iter()
        .filter(|r| r.get("apart").is_none())
        .map(|r| format!("{r}\n"))
        .collect();
    std::fs::write(d.path().join("kept.ndjson"), kept_only).unwrap();
    let groups = |f: &str| -> Vec<Vec<u64>> {
        group_members(&ndjson(&ok(sh(d.path(), &format!("pl-cluster -q {f}")))))
    };
    let truth = ocr_truth();
    let count = |groups: &[Vec<u64>]| -> (usize, usize) {
        let (mut same, mut across) = (0, 0);
        for g in groups {
            for (i, x) in g.iter().enumerate() {
                for y in &g[i + 1..] {
                    if truth[x] == truth[y] {
                        same += 1;
                    } else {
                        across += 1;
                    }
                }
            }
        }
        (same, across)
    };
    let (with, without) = (groups("scores.ndjson"), groups("kept.ndjson"));
    let ((same, across), (same_before, across_before)) = (count(&with), count(&without));
    assert!(
        across + 5 <= across_before,
        "{across} pairs across clusters, {across_before} before"
    );
    // A copy that reads as both (its page with the names removed) joins neither: holding
    // pairs apart costs true pairs, never as many as the false pairs it removes.
    let lost = same_before.saturating_sub(same);
    assert!(
        lost < across_before - across,
        "{same} true pairs, {same_before} before; {across} across, {across_before} before"
    );
    for g in &with {
        for p in &apart {
            assert!(!(g.contains(&p.0) && g.contains(&p.1)), "{p:?} in {g:?}");
        }
    }
    // A pair both kept and held apart is a contradiction: refused, naming the line.
    let (a, b) = pair_of(&scores[0]);
    let mut text = std::fs::read_to_string(d.path().join("scores.ndjson")).unwrap();
    text.push_str(&format!("{{\"a\":{a},\"b\":{b},\"apart\":true}}\n"));
    std::fs::write(d.path().join("bad.ndjson"), &text).unwrap();
    let out = sh(d.path(), "pl-cluster -q bad.ndjson");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(
        err.contains("bad.ndjson")
            && err.contains(&format!("line {}", text.lines().count()))
            && err.contains("both kept and held apart"),
        "{err}"
    );
}
