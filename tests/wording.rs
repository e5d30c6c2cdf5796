//! Two letters the same word for word but for a word: a negation (`approved`, `not
//! approved`), another month. A hostile probe found them grouped at 0.80–0.96 (a short word is
//! no conflict, and a word that looks like one OCR garbled was taken for it); they are two
//! documents, held apart, through `make groups` and the index alike, while a rescan that glued
//! two words and dropped one stays with its original.

use serde_json::{json, Value};

use crate::util::*;

const LETTER: &str = "Dear Mr. Thompson, thank you for your application for the position of \
    warehouse coordinator at Northgate Logistics. After careful review of your documents and the \
    interview on 4 March 2024, we are pleased to inform you that your application has been \
    approved. Please contact our human resources department at the address below if you have \
    any questions about the next steps. We look forward to hearing from you. Kind regards, \
    Sabine Vogel, Human Resources, Northgate Logistics GmbH, Hafenstrasse 21, 20457 Hamburg";

/// Other letters, so that the words edited are words the corpus knows, and a scan of the
/// second.
const OTHERS: [&str; 3] = [
    "The parcel did not arrive in May; we have not been able to trace it and will refund the \
     amount to your account. Kind regards, customer service",
    "Your appointment in March has been moved. Dear Ms. Thompson, please bring your insurance \
     card and the referral letter to the practice. We look forward to seeing you. Regards, \
     the practice team of Dr. Ines Kowalski, Lindenweg 4, 80331 Munich",
    "Your appointment in March has been moved. Dear Ms. Thompson, please bring your insurance \
     card and thereferral letter to the practice. We look forward to you. Regards, \
     the practice team of Dr. Ines Kowalski, Lindenweg 4, 80331 Munich",
];

fn corpus(letters: &[String]) -> String {
    letters
        .iter()
        .map(String::as_str)
        .chain(OTHERS)
        .enumerate()
        .map(|(i, t)| {
            format!(
                "{}\n",
                json!({"id": i + 1, "title": "letter", "content": t})
            )
        })
        .collect()
}

#[test]
fn a_word_edited_in_a_letter_otherwise_the_same_is_another_document() {
    let docs = corpus(&[
        LETTER.to_string(),
        LETTER.replace("has been approved", "has not been approved"),
        LETTER.replace("4 March 2024", "4 May 2024"),
    ]);
    // The scan of the appointment letter (5 and 6) stays with it.
    let expect = vec![vec![5, 6]];
    for (how, groups) in [("make", make_groups(&docs)), ("index", index_groups(&docs))] {
        assert_eq!(group_members(&groups), expect, "{how}: {groups:?}");
    }
    // The score says why: the edit is counted, the pair held apart.
    let dir = tempfile::tempdir().unwrap();
    let docs_path = write(dir.path(), "docs.ndjson", docs.as_bytes());
    let out = sh(
        dir.path(),
        &format!(
            "make -s -C {repo} DOCS={docs} WORK={work} BIN={bin} CARGO_BUILD=true {work}/scores.ndjson >/dev/null && \
             printf '{{\"a\":1,\"b\":2}}\\n{{\"a\":1,\"b\":3}}\\n' | {bin}/pl-score -q - \
             --sigs {work}/sigs.bin --norm {work}/norm.ndjson --explain --rejected /dev/stdout",
            repo = repo().display(),
            docs = docs_path.display(),
            work = dir.path().join("w").display(),
            bin = bin_dir().display(),
        ),
    );
    let explained: Vec<Value> = ndjson(&ok(out));
    assert_eq!(explained.len(), 2, "{explained:?}");
    for r in &explained {
        assert_eq!(r["evidence"]["words_edited"], 1, "{r}");
        assert_eq!(r["computation"]["another_value"], true, "{r}");
    }
}

#[test]
fn a_form_with_another_box_ticked_is_another_document() {
    // Once exact copies at 1.0: normalization dropped the boxes.
    let form = |yes: &str, no: &str| {
        format!(
            "Einwilligung zur Datenverarbeitung. Name: Anna Weber, Lindenweg 4, 80331 München. \
             Ich bin damit einverstanden, dass meine Daten zum Zweck der Vertragsabwicklung \
             gespeichert werden. {yes} Ja {no} Nein. Ort, Datum: München, 03.04.2024"
        )
    };
    let docs = corpus(&[form("☒", "☐"), form("☐", "☒"), form("✓", "□")]);
    let norms: Vec<String> = ndjson(&ok(run("pl-normalize", &["-q"], docs.as_bytes())))
        .iter()
        .map(|r| r["norm"].as_str().unwrap().to_string())
        .collect();
    assert_ne!(norms[0], norms[1]);
    assert_eq!(norms[0], norms[2], "a tick is a tick, however drawn");
    for (how, groups) in [("make", make_groups(&docs)), ("index", index_groups(&docs))] {
        let mut members = group_members(&groups);
        members.sort();
        assert_eq!(members, vec![vec![1, 3], vec![5, 6]], "{how}: {groups:?}");
    }
}
