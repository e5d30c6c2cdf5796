//! A receipt stamp over a scanned letter is an inserted block, not a conflict (issue 57, 5):
//! the stamped scan joins its original's group, through `make groups` and `pl-index` alike.

use serde_json::json;

use crate::util::*;

/// A letter with few numbers (the order-free ledger has no rare numbers to keep a pair by):
/// `{addr}` is where the stamp lands on the stamped scan.
const LETTER: &str = "Stadtwerke Rosenheim GmbH Kundenservice Rosenheim Frau Elke Scholz {addr} \
    Falkensee Ihre Jahresabrechnung Sehr geehrte Frau Scholz, anbei erhalten Sie Ihre \
    Jahresabrechnung fuer Strom und Gas. Aus den geleisteten Abschlaegen ergibt sich ein \
    Guthaben, das wir Ihrem Konto gutschreiben. Der neue monatliche Abschlag bleibt \
    unveraendert. Bei Fragen erreichen Sie unseren Kundenservice montags bis freitags. \
    Mit freundlichen Gruessen Ihre Stadtwerke Rosenheim";

/// Other documents of the corpus, so that a word is known as in a library.
const OTHERS: [&str; 2] = [
    "Rechnung Nr. 2024-0815 Kunde Meier GmbH Hauptstrasse 12 Berlin Datum 03.04.2024 \
     Position Beratung Stunden 3 Einzelpreis 58.22 Steuer 19 Prozent Zahlbar innerhalb \
     von 14 Tagen ohne Abzug auf das Konto DE44 5001 0517 5407 3249 31 Vielen Dank",
    "Mietvertrag zwischen Frau Anna Becker und Herrn Lukas Scholz ueber die Wohnung im \
     zweiten Obergeschoss, Beginn des Mietverhaeltnisses am 01.05.2022, Kaltmiete 640 EUR",
];

fn docs(contents: &[String]) -> String {
    contents
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let d = json!({"id": i + 1, "title": format!("doc {}", i + 1), "content": c,
                "added": "2024-03-01T00:00:00Z", "modified": "2024-03-01T00:00:00Z"});
            format!("{d}\n")
        })
        .collect()
}

#[test]
fn a_stamp_over_the_address_joins_the_scan_to_its_original() {
    // The stamp overprints the street: Tesseract reads the stamp where the street was.
    let original = LETTER.replace("{addr}", "Rosenring 112 31083");
    let stamped = LETTER.replace("{addr}", "EINGEGANGEN 20.02.2021 31083");
    let mut all = vec![original, stamped];
    all.extend(OTHERS.iter().map(|s| s.to_string()));
    let docs = docs(&all);
    for groups in [make_groups(&docs), index_groups(&docs)] {
        assert_eq!(group_members(&groups), vec![vec![1, 2]], "{groups:?}");
    }
}

#[test]
fn a_letter_saying_received_is_not_a_stamp_to_forgive() {
    // Two statements of one template, each saying in its prose what was received: the
    // number after `received` is theirs and stands against the other's, as the credit does.
    let letter = |n: &str, credit: &str| {
        LETTER
            .replace(
                "{addr}",
                &format!("Rosenring 112 31083 we have received {n} of your payments"),
            )
            .replace("Guthaben,", &format!("Guthaben von {credit} EUR,"))
    };
    let mut all = vec![letter("2024", "84,17"), letter("2071", "91,30")];
    all.extend(OTHERS.iter().map(|s| s.to_string()));
    let docs = docs(&all);
    for groups in [make_groups(&docs), index_groups(&docs)] {
        assert_eq!(group_members(&groups), Vec::<Vec<u64>>::new(), "{groups:?}");
    }
}
