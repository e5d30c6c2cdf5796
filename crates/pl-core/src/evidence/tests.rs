use super::misread::{constant_misread, impossible_day, short_fragment, short_misread};
use super::*;
use crate::verify::Vocab;

proptest::proptest! {
    /// An ASCII word's folded hash, taken from its bytes, is the hash of its folded
    /// characters.
    #[test]
    fn the_ascii_fold_hash_is_the_fold_hash(w in "[a-z0-9|]{0,12}") {
        let mut chars = Vec::new();
        fold_into(&[&w], &mut chars);
        let folded: String = chars.into_iter().collect();
        proptest::prop_assert_eq!(
            fold_hash(&w, &mut Scratch::default()),
            xxh3_64(folded.as_bytes())
        );
    }
}

proptest::proptest! {
    /// The alignment can match `n` words exactly when it matches at least `n`: texts
    /// over a few words, repeated and reordered.
    #[test]
    fn may_match_says_whether_the_alignment_matches_that_many(
        a in proptest::collection::vec(0usize..6, 0..40),
        b in proptest::collection::vec(0usize..6, 0..40),
        n in 0usize..45,
    ) {
        let text = |v: &[usize]| v.iter().map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        let (ta, tb) = (text(&a), text(&b));
        let (pa, pb) = profiles(&ta, &tb);
        let matched = evidence(&ta, &pa, &tb, &pb, |_, _| true).matched;
        proptest::prop_assert_eq!(may_match(&pa, &pb, n), matched >= n, "matched {}", matched);
        // The words in common, from the counted distinct ids: as the sorted sequences give it.
        let (mut sa, mut sb) = (pa.ids().to_vec(), pb.ids().to_vec());
        sa.sort_unstable();
        sb.sort_unstable();
        proptest::prop_assert_eq!(common_words(&pa, &pb), crate::trigram::overlap(&sa, &sb));
    }
}

#[test]
fn seen_words_gives_the_words_by_range() {
    let text = " alpha  beta gamma delta ";
    let all: Vec<&str> = words(text).collect();
    let mut s = seen_words(text);
    assert_eq!(s.range(1..3), &all[1..3]);
    assert_eq!(s.range(0..1), &all[0..1], "earlier words are kept");
    assert!(s.range(4..5).is_empty(), "past the end");
    assert_eq!(seen_words(text).range(0..9), &all[..]);
}

fn profiles(a: &str, b: &str) -> (Profile, Profile) {
    let mut v = Vocab::default();
    (Profile::counted(a, &mut v), Profile::counted(b, &mut v))
}

fn ev(a: &str, b: &str) -> Evidence {
    let (pa, pb) = profiles(a, b);
    evidence(a, &pa, b, &pb, |_, _| true)
}

fn conflicts(e: &Evidence) -> Vec<&str> {
    e.conflicts.iter().map(|c| c.word.as_str()).collect()
}

#[test]
fn another_number_is_a_conflict() {
    let e = ev(
        "rechnung nr 1234 vom 12032023 betrag 4711 ende",
        "rechnung nr 1235 vom 12042023 betrag 4711 ende",
    );
    let mut got = conflicts(&e);
    got.sort_unstable();
    assert_eq!(got, vec!["12032023", "12042023", "1234", "1235"], "{e:?}");
    assert_eq!(e.digit_conflicts(), 4);
    assert_eq!(
        (e.digit_subs, e.one_digit_subs),
        (0, 2),
        "each differs in one digit"
    );
}

#[test]
fn ocr_damage_is_not_a_conflict() {
    let e = ev(
        "rechnung nummer r19030987 kundennummer zimmermann gartenbau winkler",
        "rechnung nurnmer ri9030987 kunden nummer zirnmermann gartenbau wlnkler",
    );
    assert!(e.conflicts.is_empty(), "{e:?}");
    assert!(e.garbled > 0);
}

#[test]
fn a_moved_block_is_not_a_conflict() {
    let e = ev(
        "alpha beta gamma delta 100 200 300 epsilon zeta",
        "alpha beta 100 200 300 gamma delta epsilon zeta",
    );
    assert!(e.conflicts.is_empty(), "{e:?}");
}

#[test]
fn a_header_moved_and_changed_faces_its_old_place() {
    let body = "dear customer we thank you for your order and confirm the delivery of the goods \
                listed below within the period agreed";
    let header = |date: &str, version: &str| format!("effective {date} 2020 version {version}");
    let text = |head: &str, first: bool| {
        if first {
            format!("terms of service {head} {body} kind regards")
        } else {
            format!("terms of service {body} {head} kind regards")
        }
    };
    // Read in another place, as it was: no conflict.
    let same = ev(
        &text(&header("july 13", "2.0"), true),
        &text(&header("july 13", "2.0"), false),
    );
    assert!(same.conflicts.is_empty(), "{same:?}");
    // Read in another place and garbled: no conflict either.
    let garbled = ev(
        &text(&header("july 13", "2.0"), true),
        &text("effcctive july l3 2020 versi0n 2.0", false),
    );
    assert!(garbled.conflicts.is_empty(), "{garbled:?}");
    // Another date and version: what faces them in the moved header stands against them.
    let other = ev(
        &text(&header("july 13", "2.0"), true),
        &text(&header("march 17", "1.0"), false),
    );
    let mut got = conflicts(&other);
    got.sort_unstable();
    assert_eq!(
        got,
        ["1.0", "13", "17", "2.0", "july", "march"],
        "{other:?}"
    );
    // Only the conflicts: the words it adds are counted as added, as before.
    assert_eq!((other.replaced, other.added), (same.replaced, same.added));
}

#[test]
fn another_name_is_a_conflict_when_the_corpus_knows_it() {
    let a = "sehr geehrte frau zimmermann wir danken";
    let b = "sehr geehrte frau hoffmann wir danken";
    let e = ev(a, b);
    let mut got = conflicts(&e);
    got.sort_unstable();
    assert_eq!(got, vec!["hoffmann", "zimmermann"]);
    let (pa, pb) = profiles(a, b);
    let unknown = evidence(a, &pa, b, &pb, |_, _| false);
    assert!(unknown.conflicts.is_empty(), "words no other document has");
    assert_eq!(unknown.word_subs, 0, "two rare words are no evidence");
    let one = evidence(a, &pa, b, &pb, |id, _| id == pa.ids[3]);
    assert_eq!(
        (one.word_subs, one.rare_word_subs),
        (0, 1),
        "a known name against a rare one"
    );
    assert_eq!(e.word_subs, 1);
}

#[test]
fn inserted_blocks_are_counted_apart() {
    let e = ev("a b c d e", "a b c d e eingegangen 12 maerz 2023");
    assert_eq!(e.added, 4);
    assert!(e.conflicts.is_empty());
    assert_eq!(e.matched, 5);
}

#[test]
fn swapping_the_texts_swaps_the_sides() {
    let (a, b) = ("x 1234 y zimmermann", "x 1235 y hoffmann q");
    let (ab, ba) = (ev(a, b), ev(b, a));
    assert_eq!(ab.conflicts.len(), ba.conflicts.len());
    for (p, q) in ab.conflicts.iter().zip(&ba.conflicts) {
        assert_eq!(p.word, q.word);
        assert_ne!(p.side, q.side);
    }
    assert_eq!(
        (ab.matched, ab.replaced, ab.added),
        (ba.matched, ba.replaced, ba.added)
    );
}

#[test]
fn ocr_confusions_split_and_merged_words_are_not_conflicts() {
    for (a, b) in [
        (
            "rechnung vom 01 03 2024 modern",
            "rechnurig vom 0l o3 2024 modem",
        ),
        ("the upon window total 1234", "fhe upori vvindow tota1 1234"),
        ("rechnung nummer 2012", "rech nung nummer 212"),
        ("nelson family", "nelsonfamily"),
        ("betrag 1a5702 eur", "betrag 145702 eur"),
        // Tesseract reads a 4 as an `a` (examples/ocr: `145702` as `ia5702`, `864` as `86a`).
        ("vertrag ia5702 eur", "vertrag 145702 eur"),
        ("seite 864 von", "seite 86a von"),
    ] {
        let e = ev(a, b);
        assert!(e.conflicts.is_empty(), "{a} / {b}: {e:?}");
    }
}

#[test]
fn other_numbers_and_names_are_conflicts() {
    let e = ev("invoice re2024001 total", "invoice re2024002 total");
    assert_eq!(e.conflicts.len(), 2, "{e:?}");
    let e = ev("re2024001 total x", "re2024002 total x");
    assert_eq!(
        (e.digit_subs, e.one_digit_subs),
        (0, 1),
        "a short block at an edge"
    );
    let page = |n: u32| {
        (0..12)
            .map(|i| format!("w{}", n * 100 + i))
            .collect::<Vec<_>>()
    };
    let (a, b) = (page(1).join(" "), page(2).join(" "));
    let e = ev(&format!("{a} total x y"), &format!("{b} total x y"));
    assert_eq!(
        (e.digit_subs, e.conflicts.len()),
        (0, 24),
        "two different added pages at an edge"
    );
    let e = ev("invoice re2024001 total x", "invoice re2024002 total x");
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    // Folding `4` with `a` does not make another digit the same number.
    let e = ev("policy 145702 end x", "policy 145792 end x");
    assert_eq!(e.digit_conflicts(), 2, "{e:?}");
    let e = ev("date 01012019 end x", "date 14082019 end x");
    assert_eq!((e.digit_subs, e.one_digit_subs), (1, 0), "{e:?}");
    let e = ev("dear frau hannah meier x", "dear herrn bernd meier x");
    assert!(e.word_subs >= 1, "{e:?}");
}

#[test]
fn a_reordered_letterhead_is_not_a_conflict_in_either_order() {
    let a = "city of camden clerks office records division 539 mill street camden pa 83623 \
             phone 870 8321145 mr joshua ross 2196 walnut avenue";
    let b = "records division 539 mill street phone 870 8321145 camden pa 83623 city of \
             camden clerks office mr joshua ross 2196 walnut avenue";
    assert!(ev(a, b).conflicts.is_empty());
    assert!(ev(b, a).conflicts.is_empty());
}

#[test]
fn a_long_reference_with_two_characters_misread_is_damage() {
    // Two characters misread (q j for 1), and two digits read as others.
    for (a, b) in [
        ("6eqj99361444", "6e199361444"),
        ("2223347912", "2423447912"),
    ] {
        let e = ev(
            &format!("policy number {a} premium due"),
            &format!("policy number {b} premium due"),
        );
        assert!(conflicts(&e).is_empty(), "{a} {b}: {e:?}");
    }
    // Three places differ: another reference of the same scheme.
    let e = ev(
        "invoice number 2019075238 total due",
        "invoice number 2019075341 total due",
    );
    assert_eq!(conflicts(&e), ["2019075238", "2019075341"]);
    // Shorter than ten characters, two digits differ: another value (a date).
    let e = ev("dated 05032019 total due", "dated 05032022 total due");
    assert_eq!(e.digit_subs, 1, "{e:?}");
}

#[test]
fn a_number_glued_to_a_label_or_a_unit_is_that_number() {
    for (a, b) in [
        ("weight 599 kg net", "weighti599kg net"),
        (
            "customer number 91943446715 premium",
            "customer number91943446y15 premium",
        ),
        ("total 25000000 eur due", "total 25009000eur due"),
    ] {
        let e = ev(
            &format!("the letter says {a} today"),
            &format!("the letter says {b} today"),
        );
        assert_eq!(e.digit_subs, 0, "{a} / {b}: {e:?}");
        assert!(e.one_digit_subs <= 1, "{a} / {b}: {e:?}");
    }
    // Another number with a label glued to it is still another number.
    let e = ev("weight 599 kg net total", "weighti742kg net total");
    assert_eq!(e.digit_subs, 1, "{e:?}");
    // Two labels glued to one number: two references.
    let e = ev("room a12345 booked today", "room cd12345 booked today");
    assert_eq!(e.digit_subs, 1, "{e:?}");
}

#[test]
fn a_digit_read_as_a_letter_weighs_as_one_digit() {
    // `a` for `1` and `b` for `8`: two digits of four lost, one character of six misread.
    let e = ev("file gk1784 shipped today", "file gka7b4 shipped today");
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    // Four characters of the reference differ: another reference.
    let e = ev("file gk1784 shipped today", "file gk5932 shipped today");
    assert_eq!(e.digit_subs, 1, "{e:?}");
}

/// A long text of distinct words ("baaa", "baab", ...), `n` of them.
fn long_text(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut w = String::from("b");
            let mut x = i;
            for _ in 0..4 {
                w.push(char::from(b'a' + (x % 26) as u8));
                x /= 26;
            }
            w
        })
        .collect()
}

#[test]
fn long_texts_aligned_between_anchors_find_the_same_differences() {
    let words = long_text(crate::diff::ANCHORED_WORDS + 500);
    let a = words.join(" ");
    // Another number in the middle: one conflict, wherever it stands.
    let mut other = words.clone();
    other.insert(1200, "4711".into());
    let mut b_words = words.clone();
    b_words.insert(1200, "5820".into());
    let (x, y) = (other.join(" "), b_words.join(" "));
    let e = ev(&x, &y);
    assert_eq!(
        (e.digit_subs, conflicts(&e)),
        (1, vec!["4711", "5820"]),
        "{e:?}"
    );
    // A cover sheet before the same text, a page after it, words misread: no conflict.
    let mut copy: Vec<String> = long_text(80).iter().map(|w| format!("{w}x")).collect();
    copy.extend(words.iter().cloned());
    copy[900] = format!("h{}", &copy[900][1..]);
    copy.extend(long_text(60).iter().map(|w| format!("{w}y")));
    let e = ev(&a, &copy.join(" "));
    assert!(e.conflicts.is_empty(), "{:?}", conflicts(&e));
    assert_eq!(e.matched, words.len() - 1);
}

#[test]
fn digit_grams_rule_out_numbers_and_stay_bounded() {
    let p = Profile::new("rechnung 47 11 betrag 66870");
    assert!(p.may_hold_inside(b"4711"), "split in two, still inside");
    assert!(!p.may_hold_inside(b"4712"));
    assert!(p.may_hold_inside(b"name"), "no digit: nothing ruled out");
    // Codes of digits and letters alone: four pieces for nearly every byte, more than twice
    // the text.
    let mut x: u64 = 1;
    let codes: Vec<String> = (0..1000)
        .map(|_| {
            (0..8)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    b"0123456789abcdef"[(x >> 60) as usize] as char
                })
                .collect()
        })
        .collect();
    let text = codes.join(" ");
    let p = Profile::new(&text);
    assert!(p.digit_grams.is_empty());
    assert!(
        p.may_hold_inside(b"99999"),
        "nothing kept, nothing ruled out"
    );
}

#[test]
fn a_short_number_with_a_digit_lost_weighs_as_one_digit() {
    // Tesseract under a stamp: house number `112` read `12`, the rest of the line garbled.
    let e = ev(
        "frau elke scholz rosenring 112 31083 falkensee weilheim den",
        "frau elke scholz rosenring 12 ae i fen io den",
    );
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    // Another short number in the same place is another value.
    let e = ev(
        "frau elke scholz rosenring 12 31083 falkensee den",
        "frau elke scholz rosenring 13 31083 falkensee den",
    );
    assert_eq!(e.digit_subs, 1, "{e:?}");
    for (w, facing, misread) in [
        ("112", "12", true),
        ("12", "112", true),
        ("12", "13", false),
        ("12", "ab", false),
        ("1", "11", false),
        ("1234", "123", false),
        // A digit read as a letter in its place.
        ("28b", "280", true),
        ("280", "28b", true),
        ("28b", "27b", false),
        ("28b", "2bc", false),
    ] {
        assert_eq!(short_misread(w, facing), misread, "{w} / {facing}");
    }
}

#[test]
fn an_impossible_day_beside_a_month_weighs_as_one_digit() {
    // `july 35 2019` was never written: the scan misread the 1 of `15`.
    let e = ev(
        "mr paul wilson main court lancaster july 35 2019 our ref an6867 dear mr wilson",
        "mr paul wilson main court lancaster july 15 2019 our ref an6867 dear mr wilson",
    );
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    // Another day that exists is another date; a day over 31 with no month beside it, or
    // two digits apart, is another number.
    for (a, b) in [
        ("july 25 2019", "july 15 2019"),
        ("room 35 floor", "room 15 floor"),
        ("july 35 2019", "july 12 2019"),
    ] {
        let e = ev(
            &format!("mr paul wilson main court lancaster {a} our ref an6867 dear mr wilson"),
            &format!("mr paul wilson main court lancaster {b} our ref an6867 dear mr wilson"),
        );
        assert_eq!((e.digit_subs, e.one_digit_subs), (1, 0), "{a} / {b}: {e:?}");
    }
    let words = ["am", "35", "juli", "2019"];
    assert!(impossible_day(&words, 1, "15") && !impossible_day(&words, 1, "36"));
    assert!(!impossible_day(&words, 0, "15") && !impossible_day(&words, 1, "5"));
}

#[test]
fn a_short_number_at_an_end_of_the_number_facing_it_weighs_as_one_digit() {
    // `31083` read `#083` (the first two digits lost in a smudge), in a rough scan.
    let (rough, other) = (
        "herrn daniel scholz rosenring 112 083 falkeiisee oberursel",
        "herrn daniel scholz rosenring 112 bs 81083 falkensee oberursel",
    );
    let e = ev(rough, other);
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    assert_eq!(ev(other, rough).one_digit_subs, 1, "either order");
    // Two numbers of their own: another value.
    let e = ev(
        "herrn daniel scholz rosenring 112 729 falkensee oberursel",
        "herrn daniel scholz rosenring 112 81083 falkensee oberursel",
    );
    assert_eq!(e.digit_subs, 1, "{e:?}");
    for (w, facing, fragment) in [
        ("083", "81083", true),
        ("70851", "708", true),
        ("70851", "705", false),
        ("71", "694571", true),
        ("108", "81083", false),
        ("0831", "81083", false),
        ("083", "8083", false),
        ("a83", "81a83", false),
    ] {
        assert_eq!(short_fragment(w, facing), fragment, "{w} / {facing}");
    }
}

#[test]
fn a_long_number_split_with_a_digit_misread_is_damage() {
    // `1800 593 2655` on one side, `18005933655` on the other.
    let e = ev(
        "customer service 1800593 2655 www example com",
        "customer service 18005933655 www example com",
    );
    assert_eq!(e.digit_subs, 0, "{e:?}");
    // Three digits misread: another number.
    let e = ev(
        "customer service 1800593 2655 www example com",
        "customer service 18005977755 www example com",
    );
    assert_eq!(e.digit_subs, 1, "{e:?}");
}

#[test]
fn two_read_as_z_is_ocr() {
    // `z` for `2` and `g` for `6`: one character of six misread after folding.
    let e = ev(
        "konto zg9338 rueckzahlung ende",
        "konto 269338 rueckzahlung ende",
    );
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
}

#[test]
fn a_unique_number_facing_a_template_constant_is_its_misreading() {
    // Every letter to this street has `112`; this scan's `142` is in no other document.
    let (a, b) = (
        "herrn daniel scholz a rosenting 112 31083 falkensee datum ende",
        "herrn daniel scholz rosenring 142 31083 falkensee datum ende",
    );
    let (pa, pb) = profiles(a, b);
    let id = |t: &str, p: &Profile| p.ids()[words(t).position(|w| w == "112").unwrap()];
    let (constant_id, rare_id) = (
        id(a, &pa),
        pb.ids()[words(b).position(|w| w == "142").unwrap()],
    );
    // Known: every word but `142`; a constant: `112`.
    let known = move |i: u32, _: Side| i != rare_id;
    let run =
        |constant: &dyn Fn(u32) -> bool| evidence_until(a, &pa, b, &pb, known, |_| false, constant);
    let e = run(&|i| i == constant_id);
    assert_eq!((e.digit_subs, e.one_digit_subs), (0, 1), "{e:?}");
    // Without the corpus saying `112` is a constant, another value.
    let e = run(&|_| false);
    assert_eq!(e.digit_subs, 1, "{e:?}");
    // Both held by several documents: two values (a sibling's field), not damage.
    let e = evidence_until(a, &pa, b, &pb, |_, _| true, |_| false, |i| i == constant_id);
    assert_eq!(e.digit_subs, 1, "{e:?}");
}

#[test]
fn a_constant_misread_is_a_few_characters_between_a_unique_number_and_a_constant() {
    let rare = |w| (w, true, false);
    let constant = |w| (w, false, true);
    for (x, y, misread) in [
        (rare("142"), constant("112"), true),
        (constant("79991"), rare("7993"), true),
        (rare("91122023"), constant("31122023"), true),
        (rare("45"), constant("112"), false),
        (rare("142"), ("112", false, false), false),
        (("142", false, false), constant("112"), false),
        (rare("kaxx"), constant("112"), false),
        (rare("142"), constant("12"), false),
        (rare("7"), constant("117"), false),
        (rare("42o"), constant("42a"), true),
        (rare("x30"), constant("xx39"), true),
        // Names with a digit: two packages, two policies.
        (rare("libgl1"), constant("libglx0"), false),
        (rare("f5sslpolicyfr"), constant("f5policyfr"), false),
    ] {
        assert_eq!(constant_misread(x, y), misread, "{x:?} / {y:?}");
    }
}

const TO_JOSHUA: &str = "city office records division phone 5551234 mr joshua thompson maple way \
    dear mr thompson we kindly ask you to review the heating cost allocation by october please \
    repair the heating before winter sincerely mary johnson records division";
const TO_MARY: &str = "city office records division phone 5551234 ms mary thompson maple way \
    dear ms thompson we kindly ask you to review the heating cost allocation by october please \
    repair the heating before winter sincerely mary johnson records division";

#[test]
fn a_name_the_other_text_has_fewer_times_stands_against_another() {
    // The sender's name is the other letter's recipient: present in both texts, it hid the
    // substitution of one recipient for the other.
    let e = ev(TO_JOSHUA, TO_MARY);
    assert_eq!((e.word_subs, e.outnumbered_subs), (0, 1), "{e:?}");
    assert!(
        !crate::scorer::Verifier::default().passes(&e),
        "two people, two letters: {e:?}"
    );
    let swapped = ev(TO_MARY, TO_JOSHUA);
    assert_eq!(swapped.outnumbered_subs, 1, "either order: {swapped:?}");
}

#[test]
fn a_word_outnumbered_by_misreads_is_not_a_name_against_another() {
    // `after` read `aber` once: the other text has `after` fewer times, facing its misread.
    let a = "we will call after the meeting and write after the holidays about the heating cost";
    let b = "we will call aber the meeting and write after the holidays about the heating cost";
    let e = ev(a, b);
    assert_eq!(e.outnumbered_subs, 0, "{e:?}");
    // A text with more of many shared words than the other: counts that differ throughout
    // say nothing of one name.
    let rough = TO_MARY
        .replace("the heating", "the the heating")
        .replace("review", "review review")
        .replace("repair", "repair repair");
    let e = ev(TO_JOSHUA, &rough);
    assert_eq!(e.outnumbered_subs, 0, "{e:?}");
}

#[test]
fn stray_marks_of_a_rough_scan_do_not_hide_an_outnumbered_name() {
    // The scan of the letter to Mary read its margins as stray letters and digits, more of
    // them than the other letter's: they are not wording, and the name still stands.
    let joshua = format!("{TO_JOSHUA} a 1 2 e");
    let mary = format!("{TO_MARY} a a 1 1 2 2 e e");
    let e = ev(&joshua, &mary);
    assert_eq!(e.outnumbered_subs, 1, "{e:?}");
}

#[test]
fn a_cover_sheet_does_not_hide_an_outnumbered_name() {
    // The copy to Pohl has a cover sheet from a Koch, the other letter's recipient: its extra
    // words raise its counts, not the letter's to Koch.
    let to_koch =
        "hausverwaltung heinrich objektbetreuung frau hannah koch hafenstraße traunstein \
        einladung zur eigentümerversammlung sehr geehrte frau koch sollten sie mit der \
        entscheidung nicht einverstanden sein sprechen sie uns jederzeit bitte reichen sie die \
        schadennummer noch in diesem quartal nach mit freundlichen grüßen objektbetreuung";
    let to_pohl = to_koch.replace("koch", "pohl");
    let covered = format!(
        "begleitschreiben hausverwaltung heinrich von bernd koch seiten deckblatt betreff \
         einladung zur eigentümerversammlung bitte reichen sie die schadennummer nach {to_pohl}"
    );
    let e = ev(to_koch, &covered);
    assert_eq!(e.outnumbered_subs, 2, "the address and the greeting: {e:?}");
}

#[test]
fn a_word_the_text_repeats_is_not_outnumbered() {
    // `landlord` four times, one of them read as another known word: the wording thinned by a
    // misread, not a name replaced.
    let lease = "the landlord shall repair the heating the landlord may enter the flat with notice         the tenant pays the rent to the landlord each month and the landlord keeps the deposit         until the lease ends when both parties sign a protocol of the rooms keys meters windows         doors floors walls kitchen bathroom cellar garden garage and every defect found there";
    let misread = lease.replacen("the landlord may", "the agent may", 1);
    let e = ev(lease, &misread);
    assert_eq!((e.word_subs, e.outnumbered_subs), (0, 0), "{e:?}");
    // The same text with the word twice is a name replaced by another.
    let twice = lease
        .replacen("the landlord keeps", "the bank keeps", 1)
        .replacen("to the landlord", "to the bank", 1);
    let named = twice.replacen("the landlord may", "the agent may", 1);
    let e = ev(&twice, &named);
    assert_eq!(e.outnumbered_subs, 1, "{e:?}");
}

#[test]
fn an_amount_zeros_apart_is_another_value_two_digits_lost_are_damage() {
    // A limit of $250,000.00 and $1,000.00 deductible against $100,000.00 and $500.00: the
    // larger limit is the smaller deductible with two more zeros, another amount.
    let e = ev(
        "coverage limit 25000000 deductible 100000 annual premium 38139",
        "coverage limit 10000000 deductible 50000 annual premium 38139",
    );
    assert!(conflicts(&e).contains(&"10000000"), "{e:?}");
    assert_eq!(e.digit_subs, 1, "{e:?}");
    // Two other digits lost from a long number: what OCR makes of it.
    let e = ev(
        "customer number 12345678 annual premium 38139",
        "customer number 123478 annual premium 38139",
    );
    assert!(conflicts(&e).is_empty(), "{e:?}");
}

#[test]
fn a_rewritten_passage_is_a_long_replaced_block_and_ocr_damage_is_not() {
    let head = "terms of service section one the customer agrees to pay every invoice";
    let tail = "section three these terms are governed by the law of the state";
    let a = format!("{head} tenants must keep the staircase clean and quiet at night {tail}");
    let b = format!("{head} landlord repairs heating faults within fourteen working days {tail}");
    assert_eq!(ev(&a, &b).longest_replaced, 8, "{:?}", ev(&a, &b));
    let garbled = a
        .replace("staircase", "stalrcase")
        .replace("quiet", "qulet");
    assert_eq!(ev(&a, &garbled).longest_replaced, 0);
    let edge = format!("{a} signed landlord office");
    assert_eq!(
        ev(&a, &edge).longest_replaced,
        0,
        "an added line at the end"
    );
}

#[test]
fn a_section_rewritten_faces_the_old_one_a_page_removed_faces_nothing() {
    let head = "terms of service section one the customer agrees to pay every invoice on time";
    let kept = "section two the bank may change these terms";
    let tail = "section three these terms are governed by the law of the state of texas";
    let old = "if you do not agree to the changes you may terminate the agreement early";
    let new = "we notify you of material changes in writing";
    // Another edition: a sentence out, another in, the kept sentence between them.
    let a = format!("{head} {old} {kept} {tail}");
    let b = format!("{head} {kept} {new} {tail}");
    let e = ev(&a, &b);
    assert_eq!(e.facing_words, 8, "{e:?}");
    // The old sentence removed (a page lost): long on one side only.
    let removed = format!("{head} {kept} {tail}");
    assert_eq!(ev(&a, &removed).facing_words, 0);
}
