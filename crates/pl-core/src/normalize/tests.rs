use super::*;

/// The definition, one character at a time over the NFC text (with the next character seen
/// ahead), then the words of marks alone joined: what the fast path must equal.
fn normalize_by_chars(text: &str, out: &mut String) -> usize {
    out.clear();
    let chars: Vec<char> = text.nfc().collect();
    let mut words = 0;
    let mut in_word = false;
    let mut word = String::new();
    let mut marks_only = false;
    for (k, &c) in chars.iter().enumerate() {
        if let Class::Tick(t) = class(c) {
            marks_only |= in_word && !word.chars().any(char::is_alphanumeric);
            if words > 0 {
                out.push(' ');
            }
            words += 1;
            out.push(t);
            in_word = false;
            word.clear();
            continue;
        }
        let next = chars.get(k + 1).copied();
        let next_is = |f: fn(Class) -> bool| next.is_some_and(|n| f(class(n)));
        let next_digit = next_is(|c| matches!(c, Class::Digit(_)));
        let next_unit = next_is(|c| c == Class::Unit);
        let alnum = in_word && word.chars().any(char::is_alphanumeric);
        let after_digit = in_word && word.ends_with(|p: char| p.is_ascii_digit());
        let units_alone = in_word
            && word
                .chars()
                .all(|p| matches!(class(p), Class::Open | Class::Unit | Class::Relation));
        let amount = {
            let b = word.as_bytes();
            b.len() >= 3
                && matches!(b[b.len() - 3], b'.' | b',')
                && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
        };
        let word_ends = next.is_none_or(|n| matches!(class(n), Class::Space | Class::Close));
        let kept: String = match class(c) {
            Class::Space => {
                marks_only |= in_word && !alnum;
                in_word = false;
                continue;
            }
            Class::Digit(d) => char::from(d).to_string(),
            Class::Alnum => c.to_lowercase().collect(),
            Class::Mark if alnum => c.to_string(),
            Class::Unit => c.to_string(),
            Class::Relation
                if chars[k + 1..]
                    .iter()
                    .find(|&&n| !n.is_whitespace())
                    .is_some_and(|&n| {
                        matches!(class(n), Class::Digit(_) | Class::Unit | Class::Dash(_))
                    }) =>
            {
                c.to_string()
            }
            Class::Open if next_digit || next_unit || next_is(|c| matches!(c, Class::Dash(_))) => {
                "(".into()
            }
            Class::Close
                if in_word
                    && word.ends_with(|p: char| p.is_ascii_digit() || class(p) == Class::Unit) =>
            {
                ")".into()
            }
            Class::Sep(s) | Class::Dash(s) if after_digit && next_digit => {
                char::from(s).to_string()
            }
            Class::Dash(s) if units_alone && next_digit => char::from(s).to_string(),
            Class::Dash(s) if after_digit && amount && word_ends => char::from(s).to_string(),
            Class::Dash(s) if !in_word && (next_digit || next_unit) => char::from(s).to_string(),
            Class::Plus if alnum && !next.is_some_and(char::is_alphanumeric) => "+".into(),
            Class::Dash(s)
                if !in_word && next.is_some_and(char::is_whitespace) && {
                    let rest: String = chars[k + 1..].iter().collect();
                    let is_unit = |c: char| class(c) == Class::Unit;
                    let next_word = rest
                        .split_whitespace()
                        .map(|w| w.trim_start_matches(is_unit))
                        .find(|w| !w.is_empty())
                        .unwrap_or("");
                    let run: String = next_word
                        .chars()
                        .take_while(|&c| c.is_ascii_digit() || c == '.' || c == ',')
                        .collect();
                    let b = run.trim_end_matches(['.', ',']).as_bytes();
                    let last_word = out.rsplit(' ').next().unwrap_or("");
                    !last_word.chars().any(|c| c.is_ascii_digit())
                        && b.first().is_some_and(u8::is_ascii_digit)
                        && b.len() >= 3
                        && matches!(b[b.len() - 3], b'.' | b',')
                        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
                } =>
            {
                char::from(s).to_string()
            }
            _ => continue,
        };
        if !in_word {
            if words > 0 {
                out.push(' ');
            }
            words += 1;
            in_word = true;
            word.clear();
        }
        out.push_str(&kept);
        word.push_str(&kept);
    }
    marks_only |= in_word && !word.chars().any(char::is_alphanumeric);
    if marks_only {
        let (joined, n) = join_marks(out);
        *out = joined;
        return n;
    }
    words
}

/// Any text, with the characters the rules treat apart made frequent.
const ANY_TEXT: &str = concat!(
    "(\\PC|[ \\t\\n\\r\\x0b\\x0c.,:/+%€$()‰£<>~≤±ÄØßİẞ☐☒✓■",
    "\u{85}\u{a0}\u{308}\u{2212}\u{2013}\u{66b}\u{660}-\u{669}\u{ff10}-\u{ff19}a-zA-Z0-9-])*"
);

/// A word of signs, units and amounts, where the rules about signs decide.
const SIGN_WORD: &str = concat!(
    "(-|\u{2212}|\u{2013}|€|\\$|%|<|\\(|\\)|5,00|1.250,00|12|3|saldo|5,00\\)|€5,00|-5|",
    "5,00-|5,00\\.|5,00x|\\.|☐|✓ja|€☒|-☐5|a\\+|\\+|c\\+\\+|18\\+,|\\+49|a\\+b)"
);

/// The fast path writes what the definition writes, and counts as many words.
fn fast_is_definition(text: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let (mut fast, mut slow) = (String::from("stale"), String::new());
    let n = normalize(text, &mut fast);
    proptest::prop_assert_eq!(n, normalize_by_chars(text, &mut slow));
    proptest::prop_assert_eq!(fast, slow);
    Ok(())
}

proptest::proptest! {
    #[test]
    fn the_fast_path_is_the_definition(text in ANY_TEXT) {
        fast_is_definition(&text)?;
    }

    /// The same over words of signs, units and amounts.
    #[test]
    fn the_fast_path_is_the_definition_around_signs(
        words in proptest::collection::vec(SIGN_WORD, 0..12)
    ) {
        fast_is_definition(&words.join(" "))?;
    }

    /// Two texts that differ in one number only (its value, its sign, where its decimal point
    /// or date separators stand) never normalize alike, so never share a fingerprint.
    /// The digits view read a run at a time is the text without its marks, a character at a
    /// time: over ASCII, Latin letters, units, comparisons and other scripts.
    #[test]
    fn the_digits_view_is_the_text_without_its_marks(
        text in "[a-z0-9 .,/:+()$%<>~\\-äßéłŁ€£¥°µ≤≥±…—→☒中𝄞]{0,60}",
    ) {
        let slow: String = text.chars().filter(|&c| !is_mark(c)).collect();
        proptest::prop_assert_eq!(digits_view(&text), slow);
    }

    #[test]
    fn the_fingerprint_reads_the_words_joined_by_one_space(
        text in "[ab\\. \t\n\u{b}\u{a0}\u{2003}\u{3000}é]{0,40}",
        norm in "[a-z ]{0,8}",
    ) {
        let joined: Vec<&str> = text.split_whitespace().collect();
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(norm.as_bytes());
        h.update(&[0xff]);
        h.update(joined.join(" ").as_bytes());
        proptest::prop_assert_eq!(fingerprint(&text, &norm), h.digest128(), "{:?}", text);
    }

    #[test]
    fn another_number_is_another_text(
        before in "[a-z]{1,8}( [a-z]{1,8}){0,4}",
        after in "[a-z]{1,8}( [a-z]{1,8}){0,4}",
        (x, y) in crate::normalize::tests::two_numbers(),
    ) {
        let (mut a, mut b) = (String::new(), String::new());
        let (ta, tb) = (format!("{before} {x} {after}"), format!("{before} {y} {after}"));
        normalize(&ta, &mut a);
        normalize(&tb, &mut b);
        // Told apart by the normalized texts alone, whatever else the texts write.
        proptest::prop_assert_ne!(fingerprint(&a, &a), fingerprint(&b, &b), "{} / {}", a, b);
        proptest::prop_assert_ne!(fingerprint(&ta, &a), fingerprint(&tb, &b), "{} / {}", a, b);
    }
}

/// Two different numbers as a document writes them: digits with an optional minus, decimal
/// point or comma, or date separators; the second is the first with its value, its sign or a
/// separator's place changed.
pub(crate) fn two_numbers() -> impl proptest::strategy::Strategy<Value = (String, String)> {
    use proptest::prelude::*;
    let number = ("[0-9]{2,7}", proptest::bool::ANY, 0usize..4, "[.,/-]");
    (number, 0usize..3, "[0-9]", 1usize..6).prop_filter_map(
        "the change leaves the number as it was",
        |((digits, minus, sep_at, sep), change, digit, place)| {
            let write = |digits: &str, minus: bool, at: usize| {
                let at = at.min(digits.len() - 1);
                let (int, frac) = digits.split_at(digits.len() - at);
                let sign = if minus { "-" } else { "" };
                if at == 0 {
                    format!("{sign}{int}")
                } else {
                    format!("{sign}{int}{sep}{frac}")
                }
            };
            let x = write(&digits, minus, sep_at);
            let y = match change {
                0 => {
                    let mut d = digits.clone().into_bytes();
                    let p = place % d.len();
                    d[p] = digit.as_bytes()[0];
                    write(std::str::from_utf8(&d).unwrap(), minus, sep_at)
                }
                1 => write(&digits, !minus, sep_at),
                _ => write(&digits, minus, (sep_at + place) % digits.len().max(1)),
            };
            (x != y).then_some((x, y))
        },
    )
}

fn norm(s: &str) -> (String, usize) {
    let mut out = String::new();
    let n = normalize(s, &mut out);
    (out, n)
}

fn n(s: &str) -> String {
    norm(s).0
}

#[test]
fn lowercases_and_strips_punctuation() {
    assert_eq!(norm("Hello, World!"), ("hello world".into(), 2));
}

#[test]
fn keeps_letters_of_other_scripts() {
    assert_eq!(
        norm("ÄRGER über Straße, café; Øre"),
        ("ärger über straße café øre".into(), 5)
    );
}

#[test]
fn collapses_whitespace_and_trims() {
    assert_eq!(norm("  a \t\n b\r\n\nc  "), ("a b c".into(), 3));
}

#[test]
fn punctuation_inside_a_word_of_letters_joins_it() {
    assert_eq!(
        norm("e-mail o'neil Straße."),
        ("email oneil straße".into(), 3)
    );
}

#[test]
fn punctuation_only_is_empty() {
    assert_eq!(norm(" -- !! "), (String::new(), 0));
}

#[test]
fn a_number_keeps_its_decimal_point_and_sign() {
    let totals = ["174.65", "1746.5", "-174.65", "17.465", "17465"];
    let normalized: Vec<String> = totals
        .iter()
        .map(|t| n(&format!("Total: {t} EUR")))
        .collect();
    assert_eq!(normalized[0], "total 174.65 eur");
    assert_eq!(normalized[2], "total -174.65 eur");
    let distinct: std::collections::BTreeSet<&String> = normalized.iter().collect();
    assert_eq!(distinct.len(), totals.len(), "{normalized:?}");
}

#[test]
fn dates_keep_their_separators() {
    let dates = [
        "1/12/2024",
        "11/2/2024",
        "1.12.2024",
        "11.2.2024",
        "1/2",
        "12",
        "2024-01-12",
    ];
    let normalized: Vec<String> = dates.iter().map(|d| n(d)).collect();
    assert_eq!(normalized, dates.map(String::from));
}

#[test]
fn separators_count_only_between_digits() {
    // A sentence's full stop, a list's dash, a label's colon: dropped.
    assert_eq!(
        n("Paid 12. Due: 3 - 4 items, 5."),
        "paid 12 due 3 4 items 5"
    );
    assert_eq!(n("1..2 3,-4 5:"), "1.2 3-4 5");
    assert_eq!(n("ref A-12 v1.2"), "ref a12 v1.2");
}

#[test]
fn thousands_separators_stay_as_written() {
    assert_eq!(n("1,000.00 1.000,00 1000.00"), "1,000.00 1.000,00 1000.00");
}

#[test]
fn a_dash_before_a_digit_is_a_minus_and_between_digits_a_range() {
    assert_eq!(n("10-12 -12 10 -12 (−12) –5"), "10-12 -12 10 -12 (-12) -5");
    assert_eq!(n("10\u{2212}12"), "10-12", "U+2212 between digits");
    assert_ne!(n("10-12"), n("-12"));
    assert_ne!(n("10 -12"), n("10-12"));
}

#[test]
fn units_stay_with_their_number_and_plus_is_dropped() {
    assert_eq!(n("+49 30 12% $12 12€ £3"), "49 30 12% $12 12€ £3");
    // A unit standing alone joins the number before it, else the one after it.
    assert_eq!(
        n("Total 1.250,00 € incl. 19 % VAT, € 5"),
        "total 1.250,00€ incl 19% vat €5"
    );
    // Units with no number beside them: dropped, as other symbols are.
    assert_eq!(
        norm("price $ only, in % and ‰"),
        ("price only in and".into(), 4)
    );
    assert_eq!(norm(" $ % € "), (String::new(), 0));
}

#[test]
fn a_comparison_stays_with_its_number() {
    assert_eq!(
        n("Glucose <5 mg, CRP > 10, about ~3 h, ±0.5, a < b"),
        "glucose <5 mg crp >10 about ~3 h ±0.5 a b"
    );
    let values = ["<5", ">5", "5", "≤5", "≥ 5"];
    let normalized: Vec<String> = values.iter().map(|v| n(&format!("CRP {v} mg"))).collect();
    let distinct: std::collections::BTreeSet<&String> = normalized.iter().collect();
    assert_eq!(distinct.len(), values.len(), "{normalized:?}");
    assert_eq!(digits_view(&n("CRP <5 ≥ 6")), "crp 5 6");
}

#[test]
fn another_currency_sign_or_bracket_is_another_text() {
    let totals = [
        "$1,250.00",
        "€1,250.00",
        "£1,250.00",
        "1,250.00",
        "-$1,250.00",
        "$-1,250.00",
        "($1,250.00)",
        "(1,250.00)",
        "1,250.00-",
        "1,250.00%",
        "1,250.00 ‰",
    ];
    let normalized: Vec<String> = totals
        .iter()
        .map(|t| n(&format!("Total: {t} due")))
        .collect();
    assert_eq!(normalized[4], "total -$1,250.00 due");
    assert_eq!(normalized[6], "total ($1,250.00) due");
    assert_eq!(
        normalized[8], "total 1,250.00- due",
        "a debit's trailing minus"
    );
    assert_eq!(normalized[10], "total 1,250.00‰ due");
    let distinct: std::collections::BTreeSet<&String> = normalized.iter().collect();
    assert_eq!(distinct.len(), totals.len(), "{normalized:?}");
    // A dash after a number without an amount's two decimals is no sign (a line broken
    // after a range's first year), nor is a bracket around a word.
    assert_eq!(n("2020- 2021 (see) (a) 12)"), "2020 2021 see a 12)");
}

#[test]
fn a_plus_ending_a_word_is_kept() {
    assert_eq!(
        n("Blutgruppe A+, ab 18+ Jahre, C++ Kurs"),
        "blutgruppe a+ ab 18+ jahre c++ kurs"
    );
    assert_ne!(n("Blutgruppe A+ Rh"), n("Blutgruppe A- Rh"));
    assert_ne!(n("Note A+ gut"), n("Note A gut"));
    assert_eq!(n("Tel. +49 30, 5+3, a+b"), "tel 49 30 53 ab");
    assert_eq!(digits_view(&n("ab 18+ A+")), "ab 18 a");
}

#[test]
fn a_forms_box_is_a_word_of_its_own_ticked_or_not() {
    assert_eq!(n("☒ Ja ☐ Nein"), "☒ ja ☐ nein");
    assert_eq!(n("✓Ja □Nein ✗ vielleicht"), "☒ ja ☐ nein ☒ vielleicht");
    assert_ne!(n("☒ Ja ☐ Nein"), n("☐ Ja ☒ Nein"));
    assert_eq!(n("Summe ☒ 5 € ■"), "summe ☒ 5€ ☒");
    assert_eq!(digits_view(&n("☑ 5 %")), "☒ 5");
}

#[test]
fn a_dash_standing_alone_before_an_amount_is_its_sign() {
    assert_eq!(n("Saldo - 5,00 EUR"), "saldo -5,00 eur");
    assert_eq!(
        n("The balance is EUR - 1,250.00."),
        "the balance is eur -1,250.00"
    );
    assert_eq!(n("Saldo \u{2212} € 1.250,00"), "saldo -€1.250,00");
    assert_ne!(
        n("Saldo - 5,00"),
        n("Saldo 5,00"),
        "the sign is the value's"
    );
    // A sum, a range, a bullet before a quantity, a dash between words: punctuation.
    assert_eq!(n("100,00 - 5,00"), "100,00 5,00");
    assert_eq!(n("Seiten 3 - 5"), "seiten 3 5");
    assert_eq!(n("- 3 Flaschen"), "3 flaschen");
    assert_eq!(n("Berlin - Hamburg"), "berlin hamburg");
}

#[test]
fn the_similarity_stages_read_numbers_as_before_units_and_brackets() {
    let text = "Total: -$1,250.00 (€ 5) 19 % 174,65- ($3) micro$oft 10²";
    let norm = n(text);
    assert_eq!(norm, "total -$1,250.00 (€5) 19% 174,65- ($3) micro$oft 10²");
    assert_eq!(digits_view(&norm), "total 125000 5 19 17465 3 microoft 10²");
    assert_eq!(digits_view("plain words"), "plain words");
    assert!(matches!(digits_view("plain words"), Cow::Borrowed(_)));
}

#[test]
fn nfd_and_nfc_normalize_alike() {
    assert_eq!(n("Mu\u{308}ller"), "müller");
    assert_eq!(n("Mu\u{308}ller"), n("Müller"));
    assert_eq!(n("Cafe\u{301} RE\u{301}SUME\u{301}"), n("Café RÉSUMÉ"));
    // No precomposed form: the mark stays with its letter, not dropped.
    assert_eq!(n("q\u{308}a qa"), "q\u{308}a qa");
    assert_ne!(n("q\u{308}a"), n("qa"));
    // A mark with no letter before it is dropped.
    assert_eq!(n("\u{308}x"), "x");
}

#[test]
fn decimal_digits_of_every_script_are_ascii_digits() {
    assert_eq!(
        n("١٧٤٫٦٥"),
        "174.65",
        "Arabic-Indic, with the Arabic decimal separator"
    );
    assert_eq!(n("۱۲"), "12", "Extended Arabic-Indic");
    assert_eq!(n("१२३"), "123", "Devanagari");
    assert_eq!(
        n("１２．５ １，５ １／２ １２：３０"),
        "12.5 1,5 1/2 12:30",
        "fullwidth"
    );
    assert_ne!(n("１２．５"), n("125"));
    assert_eq!(
        n("\u{1D7D9}\u{1D7DA}"),
        "12",
        "mathematical double-struck digits"
    );
    assert_ne!(n("Total ١٧٤٫٦٥"), n("Total 12"));
    assert_eq!(n("Total ١٧٤٫٦٥"), n("Total 174.65"));
    assert_eq!(n("٫"), "", "a separator alone");
}

#[test]
fn superscripts_and_fractions_are_not_digits() {
    // `10²` is 100, not 102; `1½` is not 12: they stay as written.
    assert_eq!(n("10² 1½ ①"), "10² 1½ ①");
    assert_ne!(n("10²"), n("102"));
    assert_eq!(n("1\u{2044}2"), "1/2", "the fraction slash is a slash");
}

#[test]
fn every_decimal_digit_has_its_value() {
    // Every Nd character: its run of ten starts at a 0 and counts up to 9.
    let mut seen = 0;
    for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
        let Some(d) = decimal_digit(c) else { continue };
        seen += 1;
        if d == 0 {
            for k in 1..10 {
                let next = char::from_u32(c as u32 + k).unwrap();
                assert_eq!(decimal_digit(next), Some(k as u8), "U+{:04X}", c as u32 + k);
            }
        }
    }
    assert!(seen >= 650, "{seen} decimal digits");
    assert_eq!(decimal_digit('\u{0660}'), Some(0));
    assert_eq!(decimal_digit('\u{0669}'), Some(9));
    assert_eq!(decimal_digit('\u{FF17}'), Some(7));
    assert_eq!(
        decimal_digit('\u{1D7CE}'),
        Some(0),
        "mathematical bold zero"
    );
    assert_eq!(
        decimal_digit('\u{1D7FF}'),
        Some(9),
        "the last of five runs in a row"
    );
    assert_eq!(decimal_digit('²'), None);
    assert_eq!(decimal_digit('a'), None);
}

#[test]
fn fingerprint_depends_on_text() {
    assert_ne!(fingerprint("a b", "a b"), fingerprint("a c", "a c"));
    assert_eq!(fingerprint("a b", "a b"), fingerprint("a b", "a b"));
}

#[test]
fn texts_read_alike_but_written_otherwise_are_not_one_text() {
    let fp = |text: &str| {
        let mut norm = String::new();
        normalize(text, &mut norm);
        (norm.clone(), fingerprint(text, &norm))
    };
    let base = fp("Note A, Mail lena.brandt@hs.de, 2×3 Aufgaben");
    // Spacing and line breaks are how a text is laid out, not what it writes.
    assert_eq!(
        fp("Note  A,\nMail lena.brandt@hs.de,\t2×3   Aufgaben"),
        base
    );
    for other in [
        "Note A-, Mail lena.brandt@hs.de, 2×3 Aufgaben",
        "Note A, Mail lenabrandt@hs.de, 2×3 Aufgaben",
        "Note A, Mail lena.brandt@hs.de, 23 Aufgaben",
        "Note A, Mail lena.brandt@hs.de, 2×3 Aufgaben ***",
    ] {
        let (norm, print) = fp(other);
        assert_eq!(norm, base.0, "{other}: read alike");
        assert_ne!(print, base.1, "{other}: written otherwise");
    }
    // The normalized text is part of it: texts written alike but read otherwise (a word
    // hyphenated across a line's end) are not one text either.
    assert_ne!(fingerprint("a b", "a b"), fingerprint("a b", "ab"));
}
