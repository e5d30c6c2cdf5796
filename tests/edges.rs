//! Head and tail sketches (`pl-minhash --part`, `pl-lsh --also`): a copy with a page added
//! becomes a candidate through the edge it shares with its original, and every stage refuses
//! a part stream where it needs whole texts.

use serde_json::json;

use crate::util::*;

/// `n` pseudo-random words of five letters, from `seed`.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            (0..5)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (b'a' + ((state >> 33) % 26) as u8) as char
                })
                .collect()
        })
        .collect()
}

/// Doc 1: 200 words; doc 2: the same with 400 words more (two pages added); doc 3 and 4:
/// unrelated texts. The whole texts of 1 and 2 share a third of their shingles.
fn corpus(dir: &std::path::Path) {
    let first = words(1, 200);
    let mut longer = first.clone();
    longer.extend(words(2, 400));
    let docs = [
        json!({"id": 1, "content": first.join(" ")}),
        json!({"id": 2, "content": longer.join(" ")}),
        json!({"id": 3, "content": words(3, 300).join(" ")}),
        json!({"id": 4, "content": words(4, 300).join(" ")}),
    ];
    let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
    write(dir, "docs.ndjson", text.as_bytes());
    ok(sh(
        dir,
        "pl-normalize -q docs.ndjson -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-minhash -q --part head:60 norm.ndjson -o heads.bin \
         && pl-minhash -q --part tail:60 norm.ndjson -o tails.bin",
    ));
}

fn pairs(out: &[u8]) -> Vec<(u64, u64)> {
    ndjson(out).iter().map(pair_of).collect()
}

#[test]
fn a_page_added_is_found_through_the_head() {
    let d = tempfile::tempdir().unwrap();
    corpus(d.path());
    let whole = ok(sh(d.path(), "pl-lsh -q sigs.bin"));
    assert!(pairs(&whole).is_empty(), "whole texts alone: no candidate");
    let both = ok(sh(
        d.path(),
        "pl-lsh -q sigs.bin --also heads.bin --also tails.bin",
    ));
    assert_eq!(pairs(&both), vec![(1, 2)]);
    assert_eq!(
        ndjson(&both)[0]["bands"],
        32,
        "identical heads agree in every band"
    );
    // The tails differ: their candidates alone are none.
    assert!(pairs(&ok(sh(d.path(), "pl-lsh -q sigs.bin --also tails.bin"))).is_empty());
    // Scored on the whole texts: doc 1 is all inside doc 2, a duplicate.
    let scores = ok(sh(
        d.path(),
        "pl-lsh -q sigs.bin --also heads.bin | pl-score -q --sigs sigs.bin --norm norm.ndjson",
    ));
    let s = ndjson(&scores);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["containment"], 1.0);
}

#[test]
fn parts_are_refused_where_whole_texts_are_needed() {
    let d = tempfile::tempdir().unwrap();
    corpus(d.path());
    fails(
        sh(d.path(), "pl-lsh -q heads.bin"),
        2,
        "pl-lsh",
        &["heads.bin", "heads", "--also"],
    );
    fails(
        sh(d.path(), "pl-lsh -q sigs.bin --also sigs.bin"),
        1,
        "pl-lsh",
        &["sigs.bin", "whole-text signatures given with --also"],
    );
    fails(
        sh(d.path(), "pl-lsh -q heads.bin --also tails.bin"),
        2,
        "pl-lsh",
        &["heads.bin"],
    );
    ok(sh(d.path(), "pl-lsh -q sigs.bin -o cands.ndjson"));
    fails(
        sh(
            d.path(),
            "pl-score -q cands.ndjson --sigs heads.bin --norm norm.ndjson",
        ),
        1,
        "pl-score",
        &["heads.bin", "--sigs takes the whole texts' signatures"],
    );
    // Other parameters than the whole stream's.
    ok(sh(
        d.path(),
        "pl-minhash -q --part head:60 --seed 7 norm.ndjson -o heads7.bin",
    ));
    fails(
        sh(d.path(), "pl-lsh -q sigs.bin --also heads7.bin"),
        1,
        "pl-lsh",
        &["heads7.bin", "seed"],
    );
    // A document the whole stream does not have, and a repeated one.
    ok(sh(
        d.path(),
        "head -n 2 norm.ndjson | pl-minhash -q -o two.bin",
    ));
    let out = sh(d.path(), "pl-lsh -q two.bin --also heads.bin");
    fails(
        out,
        1,
        "pl-lsh",
        &["heads.bin", "record 3", "id 3", "not among"],
    );
    ok(sh(
        d.path(),
        "pl-minhash -q --part head:60 --format json norm.ndjson > heads.ndjson \
         && head -n 1 heads.ndjson >> heads.ndjson",
    ));
    let out = sh(d.path(), "pl-lsh -q sigs.bin --also heads.ndjson");
    fails(
        out,
        1,
        "pl-lsh",
        &["heads.ndjson", "line 5", "id 1 repeated (first on line 1)"],
    );
    // A bad --part, and a shingle stream of another part than asked.
    let out = sh(d.path(), "pl-shingle -q --part middle:5 norm.ndjson");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("middle:5") && err.contains("head:N"), "{err}");
    fails(
        sh(
            d.path(),
            "pl-shingle -q --part head:60 norm.ndjson | pl-minhash --part tail:60",
        ),
        1,
        "pl-minhash",
        &["part", "head", "tail"],
    );
}

#[test]
fn part_streams_in_json_keep_their_part() {
    let d = tempfile::tempdir().unwrap();
    corpus(d.path());
    let json = ok(sh(
        d.path(),
        "pl-shingle -q --part tail:60 --format json norm.ndjson",
    ));
    let recs = ndjson(&json);
    // Every document has more than 90 words: all four have a tail.
    assert_eq!(recs.len(), 4);
    assert!(recs.iter().all(|r| r["part"] == 2), "{recs:?}");
    // Through pl-minhash, the same signatures as shingled there.
    let via_json = ok(sh(
        d.path(),
        "pl-shingle -q --part tail:60 --format json norm.ndjson | pl-minhash -q",
    ));
    assert_eq!(via_json, std::fs::read(d.path().join("tails.bin")).unwrap());
    // A whole-text stream's JSON records name no part (as before parts existed).
    let whole = ok(sh(d.path(), "pl-shingle -q --format json norm.ndjson"));
    assert!(ndjson(&whole).iter().all(|r| r.get("part").is_none()));
}

/// 60 letters of one template: the same 150-word tail (a footer), each its own 150-word body;
/// letter 61 is letter 1 with its last body word changed. The footer's tail buckets hold all
/// 61 documents, over --max-bucket 50: they pair nobody, and the copy still pairs with its
/// original through the buckets of its body.
#[test]
fn a_boilerplate_bucket_pairs_nobody_but_a_copy_still_pairs() {
    let d = tempfile::tempdir().unwrap();
    let footer = words(1000, 150).join(" ");
    let mut docs: Vec<serde_json::Value> = (1..=60)
        .map(|i| json!({"id": i, "content": format!("{} {footer}", words(i, 150).join(" "))}))
        .collect();
    let mut body = words(1, 150);
    body[149] = "zzzzz".into();
    docs.push(json!({"id": 61, "content": format!("{} {footer}", body.join(" "))}));
    let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
    write(d.path(), "docs.ndjson", text.as_bytes());
    ok(sh(
        d.path(),
        "pl-normalize -q docs.ndjson -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-minhash -q --part tail:60 norm.ndjson -o tails.bin",
    ));
    let capped = pairs(&ok(sh(d.path(), "pl-lsh -q sigs.bin --also tails.bin")));
    assert_eq!(capped, vec![(1, 61)], "only the copy pair");
    let all = pairs(&ok(sh(
        d.path(),
        "pl-lsh -q sigs.bin --also tails.bin --max-bucket 0",
    )));
    assert_eq!(
        all.len(),
        61 * 60 / 2,
        "without the limit every sibling pairs"
    );
    let explained = ok(sh(d.path(), "pl-lsh --explain"));
    assert!(String::from_utf8_lossy(&explained)
        .contains("a bucket of more than 50 documents pairs none of them"));
}
