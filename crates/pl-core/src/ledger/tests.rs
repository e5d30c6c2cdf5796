use super::*;
use crate::verify::Vocab;

/// The profiles of `a` and `b` and the documents each word id is in, in a corpus of `a`, `b`
/// and `others`.
fn counted(a: &str, b: &str, others: &[&str]) -> (Profile, Profile, Vec<u32>) {
    let mut vocab = Vocab::default();
    let pa = Profile::counted(a, &mut vocab);
    let pb = Profile::counted(b, &mut vocab);
    for o in others {
        Profile::counted(o, &mut vocab);
    }
    (pa, pb, vocab.doc_counts().to_vec())
}

/// Ledger of `a` and `b` in a corpus of `a`, `b` and `others`.
fn of(a: &str, b: &str, others: &[&str]) -> Ledger {
    let (pa, pb, df) = counted(a, b, others);
    ledger(
        a,
        &pa,
        b,
        &pb,
        |id| df[id as usize],
        &Rescue::default(),
        true,
    )
}

const BOILER: &str = "rechnung kundennummer betrag datum zahlbar innerhalb tagen";

#[test]
fn moved_and_split_numbers_agree() {
    let a = format!("{BOILER} 4711 9988123 summe 66870 iban de44500105175407324931");
    // The totals line first, the reference split in two, the IBAN misread in two digits.
    let b = format!("summe 66870 {BOILER} 4711 99 88123 iban de44500105175401324981");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!((l.agree, l.numbers_against), (3, 0), "{l:?}");
    assert_eq!(l.near, 1, "the IBAN is near, not against: {l:?}");
}

#[test]
fn long_numbers_misread_are_near_short_ones_stand_against() {
    let a = format!("{BOILER} 4711 9988123 kontonummer 2223347912");
    let b = format!("{BOILER} 4711 9988123 kontonummer 2423447912");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!((l.near, l.numbers_against), (1, 0), "{l:?}");
    // Five characters, one misread (a postcode, an amount): near; four: another number.
    let l = of(
        &format!("{BOILER} 4711 9988123 plz 46084 code 4608"),
        &format!("{BOILER} 4711 9988123 plz 46034 code 4638"),
        &[BOILER, BOILER],
    );
    assert_eq!((l.near, l.numbers_against), (1, 1), "{l:?}");
    // Nine characters: another number (in a clean pair: a rough one whose rare numbers agree
    // misreads an edit more).
    let a = format!("{BOILER} {BOILER} {BOILER} 4711 9988123 kontonummer 222334791");
    let b = format!("{BOILER} {BOILER} {BOILER} 4711 9988123 kontonummer 242344791");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!((l.near, l.numbers_against), (0, 1), "{l:?}");
}

#[test]
fn sibling_numbers_stand_against_each_other() {
    let a = format!("{BOILER} 10023 12032024 15480");
    let b = format!("{BOILER} 20871 14042024 9920");
    let l = of(&a, &b, &[]);
    // The other date weighs as two numbers.
    assert_eq!((l.agree, l.numbers_against), (0, 4), "{l:?}");
    assert!(!Rescue::default().keeps(&l));
}

/// Whether `a` and `b`'s numbers refuse them, in a corpus of `a`, `b` and `others`.
fn refused(a: &str, b: &str, others: &[&str], need: usize) -> bool {
    let (pa, pb, df) = counted(a, b, others);
    refuses(a, &pa, b, &pb, |id| df[id as usize], need)
}

#[test]
fn siblings_are_refused_by_their_numbers_before_any_alignment() {
    let a = format!("{BOILER} 100231 12032024 15480 7734");
    let b = format!("summe 91215 {BOILER} 208719 14042024 9920 4122");
    // Five and six against (a date counts two), none agreeing: refused, in any order.
    assert!(refused(&a, &b, &[], REFUSE_NUMBERS));
    assert!(refused(&b, &a, &[], REFUSE_NUMBERS));
    // Never with the refusal off, nor with fewer against than asked.
    assert!(!refused(&a, &b, &[], 0));
    assert!(!refused(&a, &b, &[], REFUSE_NUMBERS + 2));
    // One number in both texts, or one near another (a misread digit), and it is not.
    assert!(!refused(&a, &format!("{b} 7734"), &[], REFUSE_NUMBERS));
    assert!(!refused(
        &a,
        &b.replace("208719", "100281"),
        &[],
        REFUSE_NUMBERS
    ));
    // A rare number of one text split in two in the other: the alignment decides.
    assert!(!refused(&a, &format!("{b} 1002 31"), &[], REFUSE_NUMBERS));
    // A number both texts share with many documents (the template's phone) agrees on
    // nothing, yet in more than six documents it is no agreement either.
    let phone = "0800123456";
    let others = [phone; 8];
    assert!(refused(
        &format!("{a} {phone}"),
        &format!("{b} {phone}"),
        &others,
        REFUSE_NUMBERS
    ));
    assert!(!refused(
        &format!("{a} {phone}"),
        &format!("{b} {phone}"),
        &[],
        REFUSE_NUMBERS
    ));
}

#[test]
fn dates_are_told_from_other_numbers() {
    for d in [
        "28042019", "20190428", "280419", "2019", "01011900", "31122099",
    ] {
        assert!(is_date(d), "{d}");
    }
    for n in [
        "32042019", "28132019", "28041899", "9920", "15480", "2804201", "2o19",
    ] {
        assert!(!is_date(n), "{n}");
    }
}

#[test]
fn another_years_notice_is_not_rescued_by_its_unchanged_amounts() {
    // The same policy billed for another year, the amounts unchanged: the four dates
    // stand against as eight numbers, which fifteen agreeing amounts do not outweigh
    // (counted as four, they would).
    let same = "57867 10995 68862 4351 27249 42826 71324 3742 6774 22898 31175 5689 1174 \
                1579 60492";
    let a = format!("{BOILER} {same} 28042019 2019 01012019 31122019");
    let b = format!("{BOILER} {same} 25012021 2021 01012021 31122021");
    let l = of(&a, &b, &[BOILER, BOILER, "2019 2021 2020"]);
    assert_eq!((l.agree, l.numbers_against), (15, 8), "{l:?}");
    let rough = Ledger { damage: 0.2, ..l };
    assert!(!Rescue::default().keeps(&rough), "{rough:?}");
}

#[test]
fn a_pristine_pair_counts_a_word_on_either_side_against() {
    // One letter to two people, no OCR damage at all: `koch` turns up inside `hochkoch`
    // on the other side, `bergmann` nowhere; the word stands against all the same.
    let body = "hochkoch vielen dank 10023 12032024 15480 55501 66602 77703 88804";
    let a = format!("frau hannah koch {body}");
    let b = format!("frau hannah bergmann {body}");
    let others = [a.as_str(), b.as_str(), "koch bergmann", "koch bergmann"];
    let l = of(&a, &b, &others);
    assert_eq!((l.words_against, l.damage), (1, 0.0), "{l:?}");
    assert!(!Rescue::default().keeps(&l), "{l:?}");
}

#[test]
fn a_word_the_other_text_has_misread_is_not_against() {
    // Tesseract reads `für` as `fiir` and `DE85` as `debs`: known words, as every scan
    // with the same misreading has them, but the other text holds them folded.
    let body = "vielen dank 10023 12032024 15480 55501 66602 77703 88804";
    let a = format!("haftet nur für vorsatz iban de85 {body}");
    let b = format!("haftet nur fiir vorsatz iban debs {body}");
    let others = ["fiir debs", "fiir debs", "fiir debs", "für de85"];
    let l = of(&a, &b, &others);
    assert_eq!(l.words_against, 0, "{l:?}");
    assert!(Rescue::default().keeps(&l), "{l:?}");
}

#[test]
fn content_on_one_side_is_not_against() {
    let a = format!("{BOILER} 10023 12032024 15480 7788 9911");
    let b = format!("{BOILER} 10023 12032024 15480");
    let l = of(&a, &b, &[]);
    assert_eq!((l.agree, l.numbers_against), (3, 0), "{l:?}");
    assert_eq!(l.tokens.unwrap().against_a, vec!["7788", "9911"]);
}

#[test]
fn a_clean_name_swap_is_never_rescued() {
    let body = "vielen dank 10023 12032024 15480 55501 66602 77703 88804";
    let a = format!("sehr geehrte frau miriam {body}");
    let b = format!("sehr geehrter herr tobias {body}");
    let others = [
        "frau miriam",
        "herr tobias",
        "frau miriam herr tobias",
        "geehrte geehrter",
    ];
    let l = of(&a, &b, &others);
    assert!(l.words_against >= 1 && l.damage < 0.05, "{l:?}");
    assert!(l.agree >= 7);
    assert!(!Rescue::default().keeps(&l), "{l:?}");
}

#[test]
fn a_clean_near_date_is_never_rescued() {
    // Next year's notice of one policy: the policy and customer numbers agree, the date
    // of issue is near another date of the other notice, the start date differs.
    let a = "police 57867 kunde 10995 beitrag 68862 datum 05012023";
    let b = "police 57867 kunde 10995 beitrag 68862 datum 05012024 beginn 20092023";
    let l = of(a, b, &["beginn 05012023 05012024 20092023"]);
    assert_eq!((l.agree, l.near, l.numbers_against), (3, 1, 0), "{l:?}");
    assert_eq!(l.damage, 0.0);
    assert!(!Rescue::default().keeps(&l), "{l:?}");
    let rough = Ledger { damage: 0.2, ..l };
    assert!(
        Rescue::default().keeps(&rough),
        "the same counts on a rough scan"
    );
}

#[test]
fn common_numbers_are_no_evidence() {
    let a = "betrag 2024 1000 5000 ende";
    let others = ["2024 1000 5000", "2024 1000 5000", "2024 1000 5000"];
    let l = of(a, a, &others);
    assert_eq!(l.agree, 0, "{l:?}");
}

/// Ten numbers of one document: its own, or its template's.
const TEN: &str = "57867 10995 68862 4351 27249 42826 71324 3742 6774 22898";

#[test]
fn a_copy_among_six_is_kept_by_the_numbers_its_copies_share() {
    // Six copies put each of their numbers in six documents: none is rare, all are
    // shared widely. One rough scan read a stamp's number the other lacks.
    let a = format!("{BOILER} {TEN} 88120");
    let b = format!("{BOILER} {TEN}");
    let copies = [TEN, TEN, TEN, TEN];
    let l = of(&a, &b, &copies);
    assert_eq!((l.agree, l.wide, l.numbers_against), (0, 10, 0), "{l:?}");
    let rough = Ledger { damage: 0.2, ..l };
    assert!(Rescue::default().keeps(&rough), "{rough:?}");
    // A seventh copy: the numbers are no longer the cluster's own.
    let l = of(&a, &b, &[TEN, TEN, TEN, TEN, TEN]);
    assert_eq!(l.wide, 0, "{l:?}");
    assert!(!Rescue::default().keeps(&Ledger { damage: 0.2, ..l }));
}

#[test]
fn siblings_sharing_their_templates_numbers_are_not_kept_widely() {
    // Six invoices of one template: the template's ten numbers agree, each invoice's
    // number and date stand against the other's (a date weighs two).
    let a = format!("{BOILER} {TEN} 100231 12032024");
    let b = format!("{BOILER} {TEN} 208719 14042024");
    let l = of(&a, &b, &[TEN, TEN, TEN, TEN]);
    assert_eq!((l.wide, l.numbers_against), (10, 3), "{l:?}");
    assert!(!Rescue::default().keeps(&Ledger { damage: 0.2, ..l }));
}

#[test]
fn the_wide_agreement_counts_what_the_verdict_counts_without_explaining() {
    // The settled count (no explanation) reaches the same verdict as the full one.
    let a = format!("{BOILER} {TEN} 88120");
    let b = format!("{BOILER} {TEN} 99311");
    let mut vocab = Vocab::default();
    let pa = Profile::counted(&a, &mut vocab);
    let pb = Profile::counted(&b, &mut vocab);
    for _ in 0..4 {
        Profile::counted(TEN, &mut vocab);
    }
    let df = vocab.doc_counts().to_vec();
    let rule = Rescue::default();
    let quick = ledger(&a, &pa, &b, &pb, |id| df[id as usize], &rule, false);
    let full = ledger(&a, &pa, &b, &pb, |id| df[id as usize], &rule, true);
    assert_eq!(
        (quick.wide, quick.numbers_against),
        (full.wide, full.numbers_against)
    );
    assert_eq!(rule.keeps(&quick), rule.keeps(&full));
}

proptest::proptest! {
    /// Searching a long text for many numbers at once answers as searching it for each.
    #[test]
    fn many_numbers_are_found_inside_a_long_text_as_one_by_one(
        parts in proptest::collection::vec(0usize..12, 7000..10000),
        sought in proptest::collection::vec(proptest::collection::vec(0usize..12, 4..9), 1..70),
    ) {
        const PIECES: [&str; 12] = ["1", "2", "3", "45", " ", "x", "07", " ", "9", "de", "0", " "];
        let text: String = parts.iter().map(|&i| PIECES[i]).collect();
        let words: Vec<String> = sought
            .iter()
            .map(|w| w.iter().map(|&i| PIECES[i]).collect::<String>().replace(' ', ""))
            .filter(|w| !w.is_empty())
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        proptest::prop_assume!(text.len() >= LONG_TEXT && !words.is_empty());
        let mut vocab = Vocab::default();
        let profile = Profile::counted(&text, &mut vocab);
        let r = Reading::new(&text, &profile);
        let one_by_one: Vec<bool> = words.iter().map(|w| r.has_inside(w)).collect();
        proptest::prop_assert_eq!(r.has_each_inside(&words), one_by_one.clone());
        proptest::prop_assert_eq!(r.any_inside(&words), one_by_one.contains(&true));
    }

    /// Counting only until the verdict is settled never changes it: random pairs of
    /// texts over a few numbers (some dates, some misread by a digit or split), words and
    /// OCR noise, the first text's numbers put in up to eight documents by its copies.
    #[test]
    fn the_settled_count_gives_the_full_counts_verdict(
        a in proptest::collection::vec(0usize..40, 5..60),
        b in proptest::collection::vec(0usize..40, 5..60),
        others in proptest::collection::vec(proptest::collection::vec(0usize..40, 3..20), 0..4),
        copies in 0usize..6,
    ) {
        const VOCAB: [&str; 40] = [
            "57867", "10995", "68862", "4351", "27249", "42826", "71324", "3742", "6774",
            "22898", "31175", "5689", "1174", "1579", "60492", "12032024", "14042024", "2019",
            "2021", "100231", "100281", "208719", "de44500105175407324931",
            "de44500105175401324981", "99", "88123", "9988123", "rechnung", "kundennummer",
            "betrag", "miriam", "tobias", "hannah", "bergmann", "koch", "xqzt", "vvrn",
            "fiir", "zahlbar", "datum",
        ];
        let text = |v: &[usize]| v.iter().map(|&i| VOCAB[i]).collect::<Vec<_>>().join(" ");
        let (ta, tb) = (text(&a), text(&b));
        let mut vocab = Vocab::default();
        let pa = Profile::counted(&ta, &mut vocab);
        let pb = Profile::counted(&tb, &mut vocab);
        for o in &others {
            Profile::counted(&text(o), &mut vocab);
        }
        // Copies of the first text: its numbers in 1 + `copies` documents or more.
        for _ in 0..copies {
            Profile::counted(&ta, &mut vocab);
        }
        let df = vocab.doc_counts().to_vec();
        let rule = Rescue { wide_margin: 3.0, ..Rescue::default() };
        for rule in [Rescue::default(), rule] {
            let quick = ledger(&ta, &pa, &tb, &pb, |id| df[id as usize], &rule, false);
            let full = ledger(&ta, &pa, &tb, &pb, |id| df[id as usize], &rule, true);
            proptest::prop_assert_eq!(rule.keeps(&quick), rule.keeps(&full), "{:?} {:?}", quick, full);
            proptest::prop_assert_eq!(quick.apart, full.apart, "{:?} {:?}", quick, full);
            // A pair its numbers refuse before the alignment is one the ledger holds apart
            // and would never keep.
            for need in [2, 3, REFUSE_NUMBERS] {
                if refuses(&ta, &pa, &tb, &pb, |id| df[id as usize], need) {
                    proptest::prop_assert!(full.apart && full.numbers_against >= need, "{:?}", full);
                    proptest::prop_assert!(!rule.keeps(&full), "{:?}", full);
                }
            }
        }
    }
}

#[test]
fn values_are_digits_or_a_short_prefix_and_digits() {
    for w in [
        "12032024",
        "re2021000998",
        "kd1577518",
        "de44500105175407324931",
        "hrb5898",
    ] {
        assert!(is_value(w), "{w}");
    }
    for w in [
        "o19",
        "t202",
        "obo2",
        "ooou18",
        "2zu152603735",
        "gesamthetrag733014",
        "d502",
    ] {
        assert!(!is_value(w), "{w}");
    }
}

#[test]
fn in_a_damaged_pair_only_values_weigh_against() {
    // A copy's three rare numbers agree; the rough scan made tokens of smudges on both sides.
    let a = format!("{BOILER} 4711 9988123 66870 o19 t202 m02");
    let b = format!("{BOILER} 4711 9988123 66870 obo2 d502 ooou18");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!(
        (l.agree, l.numbers_against, l.values_against),
        (3, 3, 0),
        "{l:?}"
    );
    let rule = Rescue::default();
    assert!(
        rule.keeps(&Ledger {
            damage: 0.2,
            ..l.clone()
        }),
        "{l:?}"
    );
    // In a clean pair the same tokens are differences.
    assert!(!rule.keeps(&Ledger { damage: 0.0, ..l }));
    // Values stand against a damaged pair too: another invoice number and date.
    let a = format!("{BOILER} 4711 9988123 66870 100231 12032024");
    let b = format!("{BOILER} 4711 9988123 66870 208719 14042024");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!((l.numbers_against, l.values_against), (3, 3), "{l:?}");
    assert!(!rule.keeps(&Ledger { damage: 0.2, ..l }));
}

#[test]
fn a_damaged_copy_whose_numbers_agree_may_misread_two_digits() {
    // Two rare numbers agree; the rough scan read the amount two digits off, and smudges.
    let a = format!("{BOILER} 4711 9988123 betrag 13255 xqzt vvmr");
    let b = format!("{BOILER} 4711 9988123 betrag 17235 pkrw zzlq");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert!(l.damage >= CLEAN_DAMAGE, "{l:?}");
    assert_eq!((l.agree, l.near, l.numbers_against), (2, 1, 0), "{l:?}");
    // Clean, the two amounts are two values.
    let clean = format!("{BOILER} {BOILER} {BOILER}");
    let l = of(
        &format!("{clean} 4711 9988123 13255"),
        &format!("{clean} 4711 9988123 17235"),
        &[BOILER, BOILER],
    );
    assert!(l.damage < CLEAN_DAMAGE, "{l:?}");
    assert_eq!((l.near, l.numbers_against), (0, 1), "{l:?}");
    // Damaged, with one rare number agreeing, they are too.
    let a = format!("{BOILER} 4711 betrag 13255 xqzt vvmr");
    let b = format!("{BOILER} 4711 betrag 17235 pkrw zzlq");
    let l = of(&a, &b, &[BOILER, BOILER]);
    assert_eq!((l.agree, l.near, l.numbers_against), (1, 0, 1), "{l:?}");
}

/// `w` inside `text` read without its spaces, the slow obvious way.
fn inside_by_brute_force(text: &str, w: &str) -> bool {
    let squeezed: String = text.chars().filter(|&c| c != ' ').collect();
    squeezed.contains(w)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    #[test]
    fn looking_inside_answers_as_the_squeezed_text_does(
        words in proptest::collection::vec("[0-9a-c.]{1,6}", 1..40),
        sought in proptest::collection::vec("[0-9a-c.]{1,9}", 1..12),
        long in proptest::bool::ANY,
    ) {
        let mut text = words.join(" ");
        if long {
            // Past LONG_TEXT the words are looked for all at once.
            text = format!("{} {text}", "x".repeat(LONG_TEXT));
        }
        let mut vocab = Vocab::default();
        let p = Profile::counted(&text, &mut vocab);
        let r = Reading::new(&text, &p);
        let sought: Vec<&str> = sought.iter().map(String::as_str).collect();
        let expected: Vec<bool> = sought.iter().map(|w| inside_by_brute_force(&text, w)).collect();
        let one_by_one: Vec<bool> = sought.iter().map(|w| r.has_inside(w)).collect();
        proptest::prop_assert_eq!(&one_by_one, &expected);
        proptest::prop_assert_eq!(r.has_each_inside(&sought), expected);
    }
}
