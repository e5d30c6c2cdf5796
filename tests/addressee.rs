//! Where a difference stands (issue 57, item 7): the same letter to two members of a household
//! differs in the recipient's first name in the address block (the salutation names the
//! family: `Dear Ms. Edwards`). Beside a word that looks like it (`Marty`), the alignment
//! takes `Mary` for OCR's; pl-score drops the pair all the same (`evidence.addressee_subs`
//! under `--explain`) and pl-cluster keeps the two letters apart, while rough rescans, one
//! with the name misread, stay with their original.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::util::*;

/// A club's letter to `first` (after `title`), `damaged` read by a rough scan (the name too
/// when `misread`).
fn letter(title: &str, first: &str, damaged: bool, misread: bool) -> String {
    let body = "The amount of $2,247.33 will be offset against the open balance. Since the \
        board has met, our billing team will confirm the coaching license in the coming \
        weeks. The treasurer report could not be investigated for the third time this year. \
        The signed record is ready for signature at no additional cost. In the event that you \
        have any further questions, the department will collect the gym schedule. The \
        membership dues will be estimated within the next fourteen days.";
    let text = format!(
        "Clayton Sports Club\nBoard of Directors\n634 Church Drive\nClayton, NC 14619\n\
         Phone (987) 956-5719, ask for Marty\n\n{title} {first} Edwards\n8235 Oak Street\n\
         Manchester, VA 79991\n\nNovember 10, 2022\nOur ref: AE/6217\nRe: Club outing\n\n\
         Dear {title} Edwards, many thanks for your reply.\n{body}\n\nSincerely,\n\
         Jennifer Campbell\nBoard of Directors\n"
    );
    let text = if misread {
        text.replace("Jason", "Jasou")
    } else {
        text
    };
    if damaged {
        text.replace("thanks", "thauks")
            .replace("treasurer", "treasnrer")
            .replace("signature", "sigmature")
            .replace("department", "departrnent")
    } else {
        text
    }
}

/// Other letters that name Mary and Jason (so both names are known to the corpus), and
/// unrelated ones.
fn others() -> Vec<String> {
    vec![
        "Dear Mary, the school fair takes place on Saturday. Please bring a cake for the \
         bake sale and the permission slip for the field trip to the science museum."
            .to_string(),
        "Dr. Jason Miller, Family Medicine, 12 Elm Drive. Your lab results are ready; please \
         call the practice to arrange an appointment at your earliest convenience."
            .to_string(),
        "Mary Jones and Jason Brown signed the lease for the apartment on Pine Way; the \
         deposit of $1,200.00 is due with the first month's rent."
            .to_string(),
    ]
}

/// The letters `docs` and the [`others`], as docs records.
fn corpus(docs: Vec<(u64, String)>) -> String {
    let mut docs = docs;
    docs.extend(
        others()
            .into_iter()
            .enumerate()
            .map(|(i, t)| (10 + i as u64, t)),
    );
    docs.iter()
        .map(|(id, content)| {
            let v = serde_json::json!({"id": id, "title": format!("doc {id}"), "content": content});
            format!("{v}\n")
        })
        .collect()
}

/// Mary's letter, Jason's, and two rough rescans of Jason's (the second with his name
/// misread).
fn household() -> Vec<(u64, String)> {
    vec![
        (1, letter("Ms.", "Mary", false, false)),
        (2, letter("Mr.", "Jason", false, false)),
        (3, letter("Mr.", "Jason", true, false)),
        (4, letter("Mr.", "Jason", true, true)),
    ]
}

/// What [`scored`] gives: each pair's record, the pairs held apart, the groups.
type Scored = (BTreeMap<(u64, u64), Value>, Vec<(u64, u64)>, Vec<Value>);

/// Every pair of the corpus of `docs` scored by pl-score with `--explain` (the candidates are
/// all pairs: the verdict is the scorer's, whatever LSH proposes), the pairs it holds apart,
/// and the groups pl-cluster makes.
fn scored(docs: Vec<(u64, String)>) -> Scored {
    let d = tempfile::tempdir().unwrap();
    let mut ids: Vec<u64> = docs.iter().map(|&(id, _)| id).collect();
    ids.extend([10, 11, 12]);
    write(d.path(), "docs.ndjson", corpus(docs).as_bytes());
    let cands: String = ids
        .iter()
        .flat_map(|&a| ids.iter().filter(move |&&b| b > a).map(move |&b| (a, b)))
        .map(|(a, b)| format!("{{\"a\":{a},\"b\":{b}}}\n"))
        .collect();
    write(d.path(), "cands.ndjson", cands.as_bytes());
    ok(sh(
        d.path(),
        "pl-normalize -q docs.ndjson > norm.ndjson && pl-shingle -q norm.ndjson \
         | pl-minhash -q > sigs.bin && pl-score -q cands.ndjson --sigs sigs.bin \
         --norm norm.ndjson --explain --rejected rejected.ndjson > scores.ndjson",
    ));
    let (mut pairs, mut apart) = (BTreeMap::new(), Vec::new());
    for name in ["scores.ndjson", "rejected.ndjson"] {
        for r in ndjson(&std::fs::read(d.path().join(name)).unwrap()) {
            if r.get("apart").is_none() {
                pairs.insert(pair_of(&r), r);
            } else {
                apart.push(pair_of(&r));
            }
        }
    }
    let groups = ndjson(&ok(sh(
        d.path(),
        "pl-cluster -q scores.ndjson --docs norm.ndjson",
    )));
    (pairs, apart, groups)
}

#[test]
fn a_household_letter_is_another_document_and_a_misread_name_is_not() {
    let (pairs, _, groups) = scored(household());
    let household = &pairs[&(1, 2)];
    assert!(
        household.get("dropped").is_some(),
        "the letter to Mary and the letter to Jason are two documents: {household}"
    );
    assert_eq!(
        household["evidence"]["addressee_subs"], 2,
        "Mary against Jason in the address block, Ms. against Mr. Edwards in the salutation: \
         {household}"
    );
    // Rough rescans of Jason's letter (`thauks`, `treasnrer`, ...) are still its copies, one
    // with the name misread (`Jasou`); the other stands against Mary's letter as his does.
    for copy in [(2, 3), (2, 4), (3, 4)] {
        let r = &pairs[&copy];
        assert!(r.get("dropped").is_none(), "{r}");
        assert_eq!(r["evidence"]["addressee_subs"], 0, "{r}");
    }
    let rescan = &pairs[&(1, 3)];
    assert!(rescan.get("dropped").is_some(), "{rescan}");
    assert_eq!(rescan["evidence"]["addressee_subs"], 2, "{rescan}");
    // One group: Jason's letter and its rescans, without Mary's.
    assert_eq!(group_members(&groups), vec![vec![2, 3, 4]], "{groups:?}");
}

/// A copy of Mary's letter that lost its head (the address block and the salutation) passes
/// with her letter and with Jason's alike: held apart, the two letters do not join through it,
/// and the copy, whose text does not tell which one it copies, joins neither.
#[test]
fn a_household_letter_does_not_join_through_a_copy_that_lost_its_head() {
    let mary = letter("Ms.", "Mary", false, false);
    let headless = mary[mary.find("many thanks").unwrap()..].to_string();
    let docs = vec![
        (1, mary),
        (2, letter("Mr.", "Jason", false, false)),
        (5, headless),
    ];
    let (pairs, apart, groups) = scored(docs);
    for copy in [(1, 5), (2, 5)] {
        assert!(pairs[&copy].get("dropped").is_none(), "{}", pairs[&copy]);
    }
    assert_eq!(
        apart,
        vec![(1, 2)],
        "another addressee holds the letters apart: {}",
        pairs[&(1, 2)]
    );
    assert!(
        !group_members(&groups)
            .iter()
            .any(|m| m.contains(&1) && m.contains(&2)),
        "{groups:?}"
    );
}
