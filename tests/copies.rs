//! Exact copies (equal fingerprints) collapsed before LSH: star pairs instead of all pairs,
//! scored without work, kept together by pl-cluster; the same groups as without collapsing.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::util::*;

const PIPE: &str =
    "pl-normalize < docs.ndjson | tee norm.ndjson | pl-shingle -q | tee shingles.bin | pl-minhash \
    | tee sigs.bin | pl-lsh LSH_FLAGS | tee cands.ndjson \
    | pl-score --sigs sigs.bin --norm norm.ndjson | tee scores.ndjson \
    | pl-cluster --docs norm.ndjson CLUSTER_FLAGS";

/// Ids of the 50 documents with doc 3's text (doc 3 and 49 copies, ids not in file order).
fn fifty() -> BTreeSet<u64> {
    std::iter::once(3)
        .chain((0..49).map(|i| 2000 + (i * 37) % 49 * 7))
        .collect()
}

/// `small_corpus(60)` (documents 1..=60, and OCR-damaged rescans 1000 + i of every fifth one),
/// plus: doc 3 copied 49 times; doc 5 copied 4 times (its rescan 1005 is a near duplicate of
/// all five); the rescan 1010 copied twice (its original 10 is a near duplicate of the three);
/// doc 7 copied once, with a lower id than its original; doc 61, whose words hold no digit
/// (no distinctive token), and a copy of it; doc 41 copied as 3500, and rescanned as 3400 with
/// its letterhead blocks reordered (aligned from 41 it looks like another name, from 3500 like
/// moved lines: the verdict must not depend on the side).
fn corpus() -> String {
    let letters: Vec<String> = (0..120u32)
        .map(|i| {
            let x = i * 7919 % 676;
            [b'a' + (x / 26) as u8, b'a' + (x % 26) as u8, b'q']
                .iter()
                .map(|&c| c as char)
                .collect()
        })
        .collect();
    let plain = json!({"id": 61, "content": letters.join(" ")});
    let base = small_corpus(60) + &format!("{plain}\n");
    let text: std::collections::HashMap<u64, String> = ndjson(base.as_bytes())
        .into_iter()
        .map(|d| {
            (
                d["id"].as_u64().unwrap(),
                d["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut out = String::new();
    let mut copy = |id: u64, of: u64| {
        let d = json!({"id": id, "title": format!("copy of {of}"), "content": text[&of],
            "added": "2024-03-01T00:00:00Z"});
        out += &format!("{d}\n");
    };
    for id in fifty().into_iter().filter(|&id| id != 3).rev() {
        copy(id, 3);
    }
    for id in [3001, 3000, 3003, 3002] {
        copy(id, 5);
    }
    copy(3100, 1010);
    copy(3101, 1010);
    copy(0, 7);
    copy(3200, 61);
    copy(3500, 41);
    let w: Vec<&str> = text[&41].split(' ').collect();
    let reordered = [&w[5..10], &w[13..16], &w[10..13], &w[0..5], &w[16..]].concat();
    let d = json!({"id": 3400, "content": reordered.join(" "), "added": "2024-03-01T00:00:00Z"});
    out += &format!("{d}\n");
    base + &out
}

fn corpus_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", corpus().as_bytes());
    d
}

fn pipe(lsh: &str, cluster: &str) -> String {
    PIPE.replace("LSH_FLAGS", lsh)
        .replace("CLUSTER_FLAGS", cluster)
}

fn pair(v: &Value) -> (u64, u64) {
    (v["a"].as_u64().unwrap(), v["b"].as_u64().unwrap())
}

#[test]
fn fifty_copies_make_49_star_pairs_not_1225() {
    let d = corpus_dir();
    let out = sh(d.path(), &pipe("-v", ""));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ok(out);
    // 50 + 5 + 3 + 2 + 2 + 2 documents in 6 copy sets.
    assert!(
        err.contains("pl-lsh: 64 documents collapsed into 6 copy sets"),
        "{err}"
    );
    let collapsed = ndjson(&std::fs::read(d.path().join("cands.ndjson")).unwrap());
    let full = ndjson(&ok(sh(d.path(), "pl-lsh --no-collapse sigs.bin")));
    let s = fifty();
    let within = |c: &[Value]| -> Vec<Value> {
        c.iter()
            .filter(|v| s.contains(&pair(v).0) && s.contains(&pair(v).1))
            .cloned()
            .collect()
    };
    let star = within(&collapsed);
    assert_eq!(star.len(), 49, "one pair per copy, not 50·49/2");
    for v in &star {
        assert_eq!(v["a"], 3, "the lowest id is the representative: {v}");
        assert_eq!(v["copy"], true, "{v}");
        assert_eq!(v["bands"], 32, "copies share every band: {v}");
    }
    let all = within(&full);
    assert_eq!(all.len(), 1225);
    assert!(full.iter().all(|v| v.get("copy").is_none()));
    // Sorted by (a, b), each pair once.
    let keys: Vec<(u64, u64)> = collapsed.iter().map(pair).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    // The pairs between the banded documents are the ones the full run finds between them.
    let members: BTreeSet<u64> = collapsed
        .iter()
        .filter(|v| v["copy"] == true)
        .map(|v| pair(v).1)
        .collect();
    assert_eq!(members.len(), 49 + 4 + 2 + 1 + 1 + 1);
    assert!(
        members.contains(&7) && !members.contains(&0),
        "0 and 7: 0 is kept"
    );
    let banded = |c: &[Value]| -> Vec<String> {
        c.iter()
            .filter(|v| v["copy"] != true)
            .filter(|v| !members.contains(&pair(v).0) && !members.contains(&pair(v).1))
            .map(Value::to_string)
            .collect()
    };
    let kept = banded(&collapsed);
    assert_eq!(kept.len(), collapsed.len() - 58);
    assert_eq!(kept, banded(&full));
}

#[test]
fn groups_are_those_of_the_full_pair_list() {
    let d = corpus_dir();
    for cluster in ["", "--linkage single"] {
        let star = ok(sh(d.path(), &pipe("", cluster)));
        let scored_star = std::fs::read(d.path().join("scores.ndjson")).unwrap();
        let full = ok(sh(d.path(), &pipe("--no-collapse", cluster)));
        let scored_full = std::fs::read(d.path().join("scores.ndjson")).unwrap();
        assert!(
            scored_full.len() > 10 * scored_star.len(),
            "{} vs {} bytes of scored pairs",
            scored_full.len(),
            scored_star.len()
        );
        assert_eq!(
            String::from_utf8(star).unwrap(),
            String::from_utf8(full).unwrap(),
            "pl-cluster {cluster}"
        );
    }
}

#[test]
fn a_copy_set_joins_the_near_duplicate_of_its_text() {
    let d = corpus_dir();
    let groups = ndjson(&ok(sh(d.path(), &pipe("", ""))));
    let members = |id: u64| -> Vec<u64> {
        let g = groups
            .iter()
            .find(|g| g["members"].as_array().unwrap().contains(&json!(id)))
            .unwrap_or_else(|| panic!("{id} is in no group: {groups:?}"));
        serde_json::from_value(g["members"].clone()).unwrap()
    };
    // Five copies of 5 and its rescan: the rescan was scored against 5 alone.
    assert_eq!(members(1005), vec![5, 1005, 3000, 3001, 3002, 3003]);
    // Three copies of the rescan 1010 and its original.
    assert_eq!(members(10), vec![10, 1010, 3100, 3101]);
    assert_eq!(members(3).len(), 50);
    assert_eq!(members(0), vec![0, 7]);
    assert_eq!(members(61), vec![61, 3200]);
    assert_eq!(members(3400), vec![41, 3400, 3500]);
    let scores = ndjson(&std::fs::read(d.path().join("scores.ndjson")).unwrap());
    let near: Vec<(u64, u64)> = scores
        .iter()
        .filter(|v| v["copy"] != true)
        .map(pair)
        .filter(|p| p.1 == 1005 || p.0 == 10)
        .collect();
    assert_eq!(
        near,
        vec![(5, 1005), (10, 1010)],
        "only the representatives"
    );
}

/// The values pl-score writes for two copies without comparing them are the ones comparing
/// them gives: the same sigs with every fingerprint made unique take the comparing path. All
/// but the score: unique fingerprints say the texts are written otherwise, and such a pair
/// scores its match probability where the verifier reads it; only an exact copy scores 1.
#[test]
fn copies_score_as_comparing_them_would() {
    let d = corpus_dir();
    ok(sh(d.path(), &pipe("", "")));
    let sigs = ndjson(&ok(sh(d.path(), "pl-cat sigs.bin")));
    let mut unique = String::new();
    for mut s in sigs {
        let id = s["id"].as_u64().unwrap();
        // Unique: each copy is then compared like any other pair.
        let fp = s["fingerprint"].as_str().unwrap()[..24].to_string();
        s["fingerprint"] = json!(format!("{fp}{id:08x}"));
        unique += &format!("{s}\n");
    }
    write(d.path(), "unique.ndjson", unique.as_bytes());
    for flags in [
        "--norm norm.ndjson",
        "--fuzzy-weight 0 --no-verify",
        "--norm norm.ndjson --exact --shingles shingles.bin",
        "--norm norm.ndjson --explain --sort-words --distinct-penalty 0.5 --no-containment",
        "--norm norm.ndjson --distinct-min 0.5 --fuzzy-sample 50",
    ] {
        let fast = sh(
            d.path(),
            &format!("pl-score -v --sigs sigs.bin {flags} < cands.ndjson"),
        );
        let fast_err = String::from_utf8_lossy(&fast.stderr).to_string();
        let fast = ok(fast);
        let slow = sh(
            d.path(),
            &format!("pl-score -v --sigs unique.ndjson {flags} < cands.ndjson"),
        );
        let slow_err = String::from_utf8_lossy(&slow.stderr).to_string();
        let slow = ok(slow);
        assert!(
            fast_err.contains("(58 of identical texts, scored without comparing)"),
            "{fast_err}"
        );
        assert!(slow_err.contains("(0 of identical texts"), "{slow_err}");
        // The probability the explanation computes is absent for an exact copy.
        let without_score = |out: &[u8]| {
            let mut v = ndjson(out);
            for r in &mut v {
                r.as_object_mut().unwrap().remove("score");
                if let Some(c) = r.get_mut("computation") {
                    c.as_object_mut().unwrap().remove("probability");
                }
            }
            v
        };
        assert_eq!(
            without_score(&fast),
            without_score(&slow),
            "pl-score {flags}"
        );
        let weighed = ndjson(&slow)
            .into_iter()
            .filter(|v| v["copy"] == true && v["score"] != 1.0)
            .count();
        let verified = flags.contains("--norm");
        assert_eq!(weighed, if verified { 58 } else { 0 }, "{flags}");
        let copies: Vec<Value> = ndjson(&fast)
            .into_iter()
            .filter(|v| v["copy"] == true)
            .collect();
        assert_eq!(copies.len(), 58, "the copy mark passes through: {flags}");
        assert!(copies.iter().all(|v| v["score"] == 1.0), "{copies:?}");
        let plain = copies.iter().find(|v| v["a"] == 61).unwrap();
        assert_eq!(
            plain["distinct"],
            Value::Null,
            "no digit, no distinct: {flags}"
        );
    }
}

/// Documents with an empty shingle set (all-u32::MAX signatures) are not collapsed: they
/// pair as before, and copies among them are not marked.
#[test]
fn empty_shingle_sets_pair_as_before() {
    let d = tempfile::tempdir().unwrap();
    let mut shingles = String::new();
    for (id, fp, set) in [
        (1, 10, vec![]),
        (2, 10, vec![]),
        (3, 11, vec![]),
        (4, 12, vec![5u64, 6, 7]),
        (5, 12, vec![5, 6, 7]),
        (6, 13, vec![8, 9, 10]),
    ] {
        let r = json!({"kind": "shingles", "id": id, "fingerprint": format!("{fp:032x}"),
            "ngram": 3, "min_words": 20, "shingle_hash": 1, "shingles": set});
        shingles += &format!("{r}\n");
    }
    write(d.path(), "shingles.ndjson", shingles.as_bytes());
    ok(sh(d.path(), "pl-minhash < shingles.ndjson > sigs.bin"));
    let collapsed = ndjson(&ok(sh(d.path(), "pl-lsh sigs.bin")));
    let full = ndjson(&ok(sh(d.path(), "pl-lsh --no-collapse sigs.bin")));
    let show = |c: &[Value]| c.iter().map(Value::to_string).collect::<Vec<_>>();
    assert_eq!(
        show(&collapsed),
        vec![
            r#"{"a":1,"b":2,"bands":32}"#,
            r#"{"a":1,"b":3,"bands":32}"#,
            r#"{"a":2,"b":3,"bands":32}"#,
            r#"{"a":4,"b":5,"bands":32,"copy":true}"#,
        ]
    );
    assert_eq!(show(&full[..3]), show(&collapsed[..3]));
    assert_eq!(full.len(), 4);
    // Requiring every band still pairs the copies (they share all of them); requiring more
    // bands than there are is refused.
    let all = ndjson(&ok(sh(
        d.path(),
        "pl-lsh --bands 4 --min-band-matches 4 sigs.bin",
    )));
    assert!(all.iter().any(|c| c["copy"] == true), "{all:?}");
    fails(
        sh(d.path(), "pl-lsh --bands 4 --min-band-matches 5 sigs.bin"),
        2,
        "pl-lsh",
        &["--min-band-matches 5", "4 bands"],
    );
}
