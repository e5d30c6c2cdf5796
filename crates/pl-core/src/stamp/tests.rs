use super::*;
use crate::verify::Vocab;
use crate::written::Written;

/// The words of `text`'s stamps, each joined by spaces.
fn stamps(text: &str) -> Vec<String> {
    let w: Vec<&str> = words(text).collect();
    spans(text)
        .iter()
        .map(|s| w[s.words.start as usize..s.words.end as usize].join(" "))
        .collect()
}

#[test]
fn receipt_stamps_and_notes_are_recognised_with_what_they_take() {
    for (text, stamp) in [
        (
            "rechnung nr 4711 eingegangen 20022021 betrag",
            "eingegangen 20022021",
        ),
        (
            "eingegangen am 3 märz 2020 sehr geehrte",
            "eingegangen am 3 märz 2020",
        ),
        ("sehr eingang 432021 geehrte", "eingang 432021"),
        (
            "invoice received sep 20 2019 customer",
            "received sep 20 2019",
        ),
        (
            "paid by check 1044 on 1217 dear",
            "paid by check 1044 on 1217",
        ),
        ("paid 09292023 je scope", "paid 09292023 je"),
        ("gehalt bearbeitet a becker netto", "bearbeitet a becker"),
        ("erl 1232021 anna steuer", "erl 1232021 anna"),
        ("gebucht 100519 mr helios", "gebucht 100519 mr"),
        ("kopie an becker rechnung", "kopie an becker"),
        ("unser az 123 vom", "az 123"),
        ("bez 34 rechnung", "bez 34"),
        ("beitrag 2021 kopie bankverbindung", "kopie"),
        ("steuernummer zur ablage post", "zur ablage"),
        ("follow up 01242023 club", "follow up 01242023"),
        ("rate hours copy", "copy"),
    ] {
        assert_eq!(stamps(text), vec![stamp], "{text}");
    }
}

#[test]
fn ocr_damaged_keywords_are_recognised() {
    for (text, stamp) in [
        // A letter misread, OCR-folded, or two letters off in a long keyword.
        ("text eingegangeh 20022021 text", "eingegangeh 20022021"),
        ("text cingang 432021 text", "cingang 432021"),
        ("text eingeqanqen 20022021 text", "eingeqanqen 20022021"),
        ("text reccived oct 30 text", "reccived oct 30"),
        ("text bearbeltet becker text", "bearbeltet becker"),
        // Split in two words.
        ("text geb ucht 217 text", "geb ucht 217"),
        ("text rec eived sep 20 2019 text", "rec eived sep 20 2019"),
    ] {
        assert_eq!(stamps(text), vec![stamp], "{text}");
    }
}

#[test]
fn prose_that_mentions_the_words_is_not_a_stamp() {
    for text in [
        "we have received your letter of last week",
        "ihre zahlung ist eingegangen wir danken ihnen",
        "the amount was paid in full by the tenant",
        "der antrag wird bearbeitet sobald",
        // Short keywords are recognised as written only: `bel` is not `bez`, `erle` not `erl`.
        "bel 34 erle 12",
        // A word near a long keyword but sharing neither end of it.
        "angegangen 2020",
    ] {
        assert_eq!(stamps(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn recognition_is_bounded_by_the_stamp() {
    // A date argument spans at most four tokens; the words after it are the text's.
    assert_eq!(
        stamps("eingang 1 2 3 4 5 6 7"),
        vec!["eingang 1 2 3 4".to_string()]
    );
    // Many stamps in a row: each once, in order.
    let text = "kopie ".repeat(1000);
    assert_eq!(spans(&text).len(), 1000);
}

struct Owned {
    text: String,
    profile: Profile,
    written: Written,
}

/// The documents of `texts` counted in one vocabulary (`extra` counted too, as other
/// documents of the corpus), and the words' document counts.
fn corpus(texts: &[&str], extra: &[&str]) -> (Vec<Owned>, Vec<u32>) {
    let mut v = Vocab::default();
    let docs = texts
        .iter()
        .map(|t| Owned {
            text: t.to_string(),
            profile: Profile::counted(t, &mut v),
            written: Written::of(t),
        })
        .collect();
    for t in extra {
        Profile::counted(t, &mut v);
    }
    (docs, v.doc_counts().to_vec())
}

fn doc(o: &Owned) -> Doc<'_> {
    Doc {
        text: &o.text,
        sample: &o.text,
        sample_chars: o.text.chars().count(),
        tokens: &[],
        profile: &o.profile,
        written: &o.written,
        copies: 1,
    }
}

/// The pair's texts as the verifier reads them, `None` when nothing is taken out.
fn unstamped(texts: [&str; 2], extra: &[&str]) -> Option<[String; 2]> {
    let (docs, df) = corpus(&texts, extra);
    let known = |id: u32, _| df[id as usize] > 1;
    let (x, y) = (doc(&docs[0]), doc(&docs[1]));
    let u = Unstamped::of(x, y, known)?;
    let (x, y) = u.docs(x, y);
    assert_eq!(x.profile.ids().len(), words(x.text).count());
    Some([x.text.to_string(), y.text.to_string()])
}

const LETTER: &str = "stadtwerke rosenheim frau elke scholz rosenring 112 31083 falkensee \
    rechnung nr 4711 sehr geehrte frau scholz der betrag von 12000 wird abgebucht";

#[test]
fn a_stamp_one_text_holds_is_taken_out_with_the_garble_it_overprints() {
    let stamped = LETTER.replace("falkensee", "falkensee eingang 20022021 xqzt frau");
    let [a, b] = unstamped([&stamped, LETTER], &[LETTER]).expect("a stamp");
    // The stamp and the garble beside it (`xqzt`, which no other document has) are out; the
    // known words near it stay.
    assert_eq!(a, LETTER.replace("falkensee", "falkensee frau"));
    assert_eq!(b, LETTER, "the other text is as it was");
    // Either order.
    let [b, a] = unstamped([LETTER, &stamped], &[LETTER]).expect("a stamp");
    assert_eq!(
        (a.as_str(), b.as_str()),
        (&*LETTER.replace("falkensee", "falkensee frau"), LETTER)
    );
}

#[test]
fn a_known_word_beside_a_stamp_stays_evidence() {
    // A household letter: the stamp sits on the other first name, which other documents
    // hold: the name stays and still stands against `elke`.
    let other = LETTER.replace("frau elke", "herr lukas eingang 20022021");
    let [a, _] = unstamped([&other, LETTER], &["herr lukas", LETTER]).expect("a stamp");
    assert!(a.contains("herr lukas scholz"), "{a}");
    assert!(!a.contains("eingang"), "{a}");
}

#[test]
fn a_stamp_word_both_texts_hold_is_their_text() {
    // Prose both letters have: nothing is taken out, also with a value after it that
    // differs (a sibling: the other number stays a conflict).
    let a = format!("{LETTER} wir haben ihre zahlung eingegangen 12032020 verbucht");
    let b = format!("{LETTER} wir haben ihre zahlung eingegangen 15032020 verbucht");
    assert!(unstamped([&a, &b], &[]).is_none());
    // Two scans of one stamped paper: the stamp is theirs.
    let s = LETTER.replace("falkensee", "falkensee received oct 30 2019");
    assert!(unstamped([&s, &s.replace("letter", "lettor")], &[]).is_none());
    // Neither has a stamp.
    assert!(unstamped([LETTER, LETTER], &[]).is_none());
}

#[test]
fn a_damaged_keyword_other_documents_write_is_a_word() {
    // `anlage` is one letter from `ablage`, `gearbeitet` from `bearbeitet`: when other
    // documents write them so, they are words of the text, not a garbled stamp.
    for (word, stamp) in [("anlage", "anlage"), ("gearbeitet", "gearbeitet becker")] {
        let b = LETTER.replace("falkensee", &format!("falkensee {stamp}"));
        assert_eq!(stamps(&b).len(), 1, "{b}");
        assert!(unstamped([&b, LETTER], &[word]).is_none(), "{word} known");
        assert!(unstamped([&b, LETTER], &[]).is_some(), "{word} unknown");
    }
}

/// The keyword rule as first written, allocating as it goes: [`keyword`] must read every word
/// as this does, only faster.
fn keyword_as_written(word: &str) -> Option<Takes> {
    let n = word.chars().count();
    if !(2..=15).contains(&n) || !word.chars().all(char::is_alphabetic) {
        return None;
    }
    if let Some(&(_, t)) = KEYWORDS.iter().find(|(k, _)| *k == word) {
        return Some(takes(t));
    }
    let folded = |w: &str| -> Vec<char> { w.chars().map(fold_char).collect() };
    let fw = folded(word);
    KEYWORDS.iter().find_map(|&(k, t)| {
        let fk = folded(k);
        let allowed = match fk.len() {
            0..=4 => 0,
            5..=9 => 1,
            _ => 2,
        };
        if fw.len().abs_diff(fk.len()) > allowed {
            return None;
        }
        let ends = [fk[..2] == fw[..2], fk[fk.len() - 2..] == fw[fw.len() - 2..]];
        let d = rapidfuzz::distance::levenshtein::distance(fw.iter().copied(), fk.iter().copied());
        let near = match d {
            0 => true,
            1 => ends[0] || ends[1],
            _ => ends[0] && ends[1],
        };
        (d <= allowed && near).then(|| takes(t))
    })
}

proptest::proptest! {
    /// Keywords damaged by an edit or two (and any short word) are read as the rule says,
    /// written whole or split in two.
    #[test]
    fn keywords_are_read_as_the_rule_says(
        k in 0..KEYWORDS.len(),
        edits in proptest::collection::vec((0usize..16, proptest::char::range('a', 'z'), 0u8..3), 0..3),
        split in 1usize..15,
    ) {
        let mut w: Vec<char> = KEYWORDS[k].0.chars().collect();
        for (at, c, op) in edits {
            let at = at.min(w.len());
            match op {
                0 if at < w.len() => w[at] = c,
                1 => w.insert(at, c),
                _ if at < w.len() && w.len() > 1 => { w.remove(at); }
                _ => {}
            }
        }
        let word: String = w.iter().collect();
        proptest::prop_assert_eq!(keyword(&[&word]), keyword_as_written(&word), "{}", word);
        let at = split.min(w.len());
        let (a, b): (String, String) = (w[..at].iter().collect(), w[at..].iter().collect());
        proptest::prop_assert_eq!(keyword(&[&a, &b]), keyword_as_written(&word), "{} {}", a, b);
    }
}

proptest::proptest! {
    /// Any word, keyword or not (umlauts, digits, too short or too long among them), is read
    /// as the rule says, written whole or split in two: the sieve rules out only words the
    /// rule does not read as a keyword.
    #[test]
    fn any_word_is_read_as_the_rule_says(
        word in "[a-zäöüß01|]{1,17}",
        split in 1usize..17,
    ) {
        proptest::prop_assert_eq!(keyword(&[&word]), keyword_as_written(&word), "{}", word);
        let w: Vec<char> = word.chars().collect();
        let at = split.min(w.len());
        let (a, b): (String, String) = (w[..at].iter().collect(), w[at..].iter().collect());
        if !b.is_empty() {
            proptest::prop_assert_eq!(keyword(&[&a, &b]), keyword_as_written(&word), "{} {}", a, b);
        }
    }
}
