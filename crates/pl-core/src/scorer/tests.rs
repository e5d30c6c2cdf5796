use super::*;
use crate::verify::Vocab;

struct Owned {
    text: String,
    tokens: Vec<(u64, f64)>,
    profile: Profile,
    written: Written,
}

fn corpus(texts: &[&str]) -> (Vec<Owned>, Vocab) {
    let mut v = Vocab::default();
    let docs = texts
        .iter()
        .map(|t| {
            let p = Profile::counted(t, &mut v);
            let mut tok = Vec::new();
            crate::distinct::distinctive_tokens(t, &mut tok);
            Owned {
                text: t.to_string(),
                tokens: tok.into_iter().map(|t| (t, 1.0)).collect(),
                profile: p,
                written: Written::of(t),
            }
        })
        .collect();
    (docs, v)
}

fn doc(o: &Owned) -> Doc<'_> {
    Doc {
        text: &o.text,
        sample: &o.text,
        sample_chars: o.text.chars().count(),
        tokens: &o.tokens,
        profile: &o.profile,
        written: &o.written,
        copies: 1,
    }
}

/// A scorer of `cfg` over the corpus counted into `v`, not explaining.
fn scorer<'a>(cfg: &'a Config, v: &'a Vocab) -> Scorer<'a> {
    Scorer {
        config: cfg,
        doc_counts: v.doc_counts(),
        explain: false,
    }
}

fn config() -> Config {
    Config {
        min_similarity: 0.5,
        ..Config::default()
    }
}

const SIM: Similarity = Similarity {
    jaccard: 0.8,
    containment: 0.8,
    identical: false,
};

#[test]
fn a_sibling_with_a_clean_conflict_is_dropped() {
    let (d, v) = corpus(&[
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende",
        "stadtwerke rechnung nr 4712 vom 12042023 betrag 9120 zahlbar bis monatsende",
    ]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    match s.score(SIM, Some((doc(&d[0]), doc(&d[1]))), true) {
        Verdict::Dropped(dims, Reason::Conflicts) => {
            let e = dims.evidence.unwrap();
            assert!(e.stopped, "settled at the first conflicting block");
            let full = crate::evidence::evidence(
                &d[0].text,
                &d[0].profile,
                &d[1].text,
                &d[1].profile,
                |_, _| true,
            );
            assert_eq!(full.digit_conflicts(), 6);
            assert!(!cfg.verifier.unwrap().passes(&full), "the same verdict");
        }
        other => panic!("{other:?}"),
    }
}

/// A sibling whose every number differs is refused before any alignment (and held
/// apart); explaining gives the same verdict with the ledger's counts; without the
/// ledger the verifier drops it.
#[test]
fn a_sibling_differing_in_every_number_is_refused_before_the_alignment() {
    let (d, v) = corpus(&[
        "stadtwerke rechnung nr 470011 vom 12032023 betrag 8812 kunde 5531 zahlbar bis ende",
        "stadtwerke rechnung nr 529734 vom 14042023 betrag 9120 kunde 7702 zahlbar bis monatsende",
    ]);
    let cfg = config();
    let pair = Some((doc(&d[0]), doc(&d[1])));
    let verdict = scorer(&cfg, &v).score(SIM, pair, true);
    match &verdict {
        Verdict::Dropped(dims, Reason::Numbers) => {
            assert!(dims.evidence.is_none(), "never aligned: {dims:?}");
            assert!(Reason::Numbers.may_be_apart(dims, true));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(verdict.step(), Step::Numbers);
    let explaining = Scorer {
        explain: true,
        ..scorer(&cfg, &v)
    };
    match explaining.score(SIM, pair, true) {
        Verdict::Dropped(dims, Reason::Numbers) => {
            let l = dims.ledger.expect("explained");
            assert!(
                l.apart && l.numbers_against >= crate::ledger::REFUSE_NUMBERS,
                "{l:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let no_ledger = Config {
        rescue: None,
        ..config()
    };
    assert_eq!(
        scorer(&no_ledger, &v).score(SIM, pair, true).step(),
        Step::Settled
    );
}

/// Two numbers only these texts hold let the verifier judge a pair whatever its score,
/// when it aligns them as one text; two unrelated texts quoting the same two numbers are
/// not aligned, and stay dropped.
#[test]
fn shared_rare_numbers_let_the_verifier_judge_a_low_score() {
    let (d, v) = corpus(&[
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende des monats",
        "stadtwcrke rechnunq nr 47l1 vom 12032023 betraq 8812 zahibar bis endc des rnonats",
        "mahnung zu ihrer bestellung 12032023 offen sind noch 8812 bitte sofort ueberweisen danke",
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende des monats",
    ]);
    let cfg = Config {
        min_similarity: 0.95,
        ..config()
    };
    let s = scorer(&cfg, &v);
    let low = Similarity {
        jaccard: 0.2,
        containment: 0.2,
        identical: false,
    };
    let pair = |i: usize, j: usize| Some((doc(&d[i]), doc(&d[j])));
    match s.score(low, pair(0, 1), true) {
        Verdict::Kept(dims) => {
            assert!(
                dims.by_numbers && dims.similarity < cfg.min_similarity,
                "{dims:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        s.score(low, pair(0, 2), true),
        Verdict::Dropped(_, Reason::Similarity)
    ));
    // Numbers in more than six documents are the template's: no say.
    let mut many = vec!["stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar"; 7];
    many.push("stadtwcrke rechnunq nr 47l1 vom 12032023 betraq 8812 zahibar");
    let (d, v) = corpus(&many);
    let s = scorer(&cfg, &v);
    assert!(matches!(
        s.score(low, Some((doc(&d[0]), doc(&d[7]))), true),
        Verdict::Dropped(_, Reason::Similarity)
    ));
}

#[test]
fn a_rough_rescan_is_kept() {
    let (d, v) = corpus(&[
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende des monats",
        "stadtwcrke rechnunq nr 47l1 vom l2032023 betraq 8812 zahibar bis endc des rnonats",
    ]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let verdict = s.score(SIM, Some((doc(&d[0]), doc(&d[1]))), true);
    assert!(matches!(verdict, Verdict::Kept(_)), "{verdict:?}");
}

#[test]
fn each_verdict_names_the_step_that_decided_it() {
    let (d, v) = corpus(&[
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende",
        "stadtwerke rechnung nr 4712 vom 12042023 betrag 9120 zahlbar bis monatsende",
        "stadtwerke rechnung nr 4711 vom 12032023 betrag 8812 zahlbar bis ende",
    ]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let pair = |i: usize, j: usize| Some((doc(&d[i]), doc(&d[j])));
    assert_eq!(s.score(SIM, pair(0, 1), true).step(), Step::Settled);
    assert_eq!(s.score(SIM, pair(0, 2), true).step(), Step::Kept);
    let low = Similarity {
        jaccard: 0.0,
        containment: 0.0,
        identical: false,
    };
    // Without the ledger (the numbers 4711, 12032023 and 8812 in both texts would let
    // the verifier judge the pair whatever its score: `by_numbers`).
    let strict = Config {
        min_similarity: 0.99,
        rescue: None,
        ..config()
    };
    let s = scorer(&strict, &v);
    assert_eq!(s.score(low, pair(0, 2), true).step(), Step::Bound);
    // Verified clean, then short of the minimum similarity on the fuzzy ratio.
    let fair = Similarity {
        jaccard: 0.98,
        containment: 0.98,
        identical: false,
    };
    let loose = Config {
        min_similarity: 0.9,
        ..config()
    };
    // Two halves read in the other order: half the words aligned, the characters far apart.
    let (e, w) = corpus(&[
        "aaaa bbbb cccc dddd eeee ffff",
        "dddd eeee ffff aaaa bbbb cccc",
    ]);
    let s = scorer(&loose, &w);
    let verdict = s.score(fair, Some((doc(&e[0]), doc(&e[1]))), true);
    assert_eq!(verdict.step(), Step::Fuzzy, "{verdict:?}");
    // A pair the ledger kept is its own step; every step is listed once.
    let rescued = Dims {
        rescued: true,
        ..Dims::default()
    };
    assert_eq!(Verdict::Kept(rescued).step(), Step::Rescued);
    assert_eq!(Verdict::Kept(Dims::default()).step(), Step::Kept);
    // A verified pair under the probability it needs (a logistic never reaches 1).
    let certain = Config {
        threshold: 1.0,
        ..config()
    };
    let (e, w) = corpus(&["aaaa bbbb cccc dddd eeee", "aaaa bbbb cccc dddd eeee ffff"]);
    let s = scorer(&certain, &w);
    let verdict = s.score(fair, Some((doc(&e[0]), doc(&e[1]))), true);
    assert_eq!(verdict.step(), Step::Probability, "{verdict:?}");
    let any = Config {
        threshold: 0.0,
        ..certain
    };
    let s = scorer(&any, &w);
    let verdict = s.score(fair, Some((doc(&e[0]), doc(&e[1]))), true);
    match verdict {
        Verdict::Kept(d) => assert!(d.probability.is_some_and(|p| p > 0.0 && p < 1.0)),
        other => panic!("{other:?}"),
    }
    assert_eq!(Step::ALL.len(), 10);
    assert!(Step::ALL.iter().enumerate().all(|(i, &s)| s as usize == i));
}

#[test]
fn under_the_minimum_similarity_is_dropped_before_the_verifier() {
    let (d, v) = corpus(&["a b c", "x y z"]);
    let cfg = Config {
        min_similarity: 0.99,
        ..config()
    };
    let s = scorer(&cfg, &v);
    let low = Similarity {
        jaccard: 0.1,
        containment: 0.1,
        identical: false,
    };
    match s.score(low, Some((doc(&d[0]), doc(&d[1]))), true) {
        Verdict::Dropped(dims, Reason::Similarity) => assert!(dims.evidence.is_none()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_rule_weighs_conflicts_against_damage() {
    let v = Verifier::default();
    let one_digit = Evidence {
        one_digit_subs: 2,
        matched: 100,
        garbled: 10,
        ..Evidence::default()
    };
    assert!(v.passes(&one_digit), "two digits misread are a rough scan");
    let clean = Evidence {
        garbled: 2,
        ..one_digit
    };
    assert!(
        !v.passes(&clean),
        "two numbers a digit apart in a clean scan are two values"
    );
    let one = Evidence {
        one_digit_subs: 1,
        ..clean
    };
    assert!(v.passes(&one), "one digit misread passes a clean scan");
    let value = Evidence {
        digit_subs: 1,
        ..Evidence::default()
    };
    assert!(!v.passes(&value), "another number is another document");
    let name = Evidence {
        word_subs: 1,
        ..Evidence::default()
    };
    assert!(!v.passes(&name), "another name is another document");
    let lenient = Verifier {
        per_garbled: 0.1,
        ..v
    };
    let damaged = Evidence {
        garbled: 10,
        ..value
    };
    assert!(lenient.passes(&damaged) && !v.passes(&damaged));
}

#[test]
fn a_word_only_copies_of_one_text_have_is_not_known() {
    let x = "dear customer we received your payment for the order qwertzuiop thank you for your \
             trust in our shop and we look forward to serving you again next season with new offers";
    let y = "dear customer we received your payment for the order mnbvcxylk thank you for your \
             trust in our shop and we look forward to serving you again next season with new offers";
    let (d, v) = corpus(&[x, x, y]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let once = s.score(SIM, Some((doc(&d[0]), doc(&d[2]))), true);
    assert!(
        matches!(once, Verdict::Dropped(_, Reason::Conflicts)),
        "counted as two documents' word, the noise stands against the rescan's: {once:?}"
    );
    let copies = Doc {
        copies: 2,
        ..doc(&d[0])
    };
    let v2 = s.score(SIM, Some((copies, doc(&d[2]))), true);
    assert!(
        matches!(v2, Verdict::Kept(_)),
        "a re-upload does not make its OCR noise a word: {v2:?}"
    );
    let swapped = s.score(SIM, Some((doc(&d[2]), copies)), true);
    assert!(
        matches!(swapped, Verdict::Kept(_)),
        "either order: {swapped:?}"
    );
}

#[test]
fn parameters_outside_their_flags_values_are_named() {
    assert_eq!(ScoreParams::default().out_of_range(), None);
    let bad = |f: fn(&mut ScoreParams)| {
        let mut p = ScoreParams::default();
        f(&mut p);
        p.out_of_range()
    };
    let said = |s: &str| Some(s.to_owned());
    assert_eq!(
        bad(|p| p.threshold = 7.0),
        said("--threshold 7, not from 0 to 1")
    );
    assert_eq!(
        bad(|p| p.min_similarity = f64::NAN),
        said("--min-similarity NaN, not from 0 to 1")
    );
    assert_eq!(
        bad(|p| p.allow_conflicts = -3.0),
        said("--allow-conflicts -3, not a weight of 0 or more")
    );
    assert_eq!(
        bad(|p| p.max_words = 100_000_000),
        said("--max-words 100000000, not from 2 to 100000")
    );
    assert_eq!(bad(|p| p.max_words = 100_000), None);
}

/// Two texts whose letters are the same and one of whose numbers differs, even OCR-like,
/// are two documents (held apart, never rescued); a scan that misread the digit misread
/// letters too and is kept; a digit read as a letter is no other number.
#[test]
fn other_numbers_in_the_same_letters_are_another_document() {
    let base = "stadtwerke rechnung nr 4711 vom 12032023 betrag 17465 zahlbar bis ende des monats";
    let (d, v) = corpus(&[
        base,
        &base.replace("17465", "17466"),
        &base.replace("17465", "174650"),
        &base.replace("17465 zahlbar", "17466 zahibar"),
        &base.replace("12032023", "12o32023"),
    ]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let verdict = |i: usize| s.score(SIM, Some((doc(&d[0]), doc(&d[i]))), true);
    for i in [1, 2] {
        match verdict(i) {
            Verdict::Dropped(dims, Reason::Conflicts) => {
                assert!(dims.another_value, "{i}");
                assert!(
                    Reason::Conflicts.may_be_apart(&dims, true),
                    "{i}: held apart"
                );
                assert!(
                    s.held_apart(doc(&d[0]), doc(&d[i])),
                    "{i}: decided alike at the end"
                );
            }
            other => panic!("{i}: {other:?}"),
        }
    }
    for i in [3, 4] {
        assert!(
            matches!(verdict(i), Verdict::Kept(_)),
            "{i}: {:?}",
            verdict(i)
        );
    }
}

/// A word edited where two texts are otherwise the same word for word — a negation added,
/// another month, another first name, another unit after a number — makes two documents,
/// held apart; OCR's readings do
/// not: a glued pair, a word dropped that is no negation, a garble other documents repeat
/// (`geehrtcr`), a word cut short (`an` of `antrag`).
#[test]
fn another_word_in_texts_otherwise_the_same_is_another_document() {
    let base = "sehr geehrter herr lukas wir teilen ihnen mit dass ihr antrag vom 4 march \
                auf 5 mg täglich bewilligt wurde mit freundlichen grüßen ihre stadtverwaltung";
    let words = "march may anna lukas nicht bewilligt antrag wurde dass ihnen teilen geehrtcr an";
    let (d, v) = corpus(&[
        base,
        &base.replace("bewilligt", "nicht bewilligt"),
        &base.replace("march", "may"),
        &base.replace("lukas", "anna"),
        &base.replace("antrag vom", "antragvom"),
        &base.replace("dass ihr", "ihr"),
        &base.replace("geehrter", "geehrtcr"),
        &base.replace("antrag", "an"),
        &base.replace("5 mg", "5 µg"),
        &base.replace("5 mg", "5 g"),
        words,
    ]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let verdict = |i: usize| s.score(SIM, Some((doc(&d[0]), doc(&d[i]))), true);
    for i in [1, 2, 3, 8, 9] {
        let Verdict::Dropped(dims, Reason::Conflicts) = verdict(i) else {
            panic!("{i}: {:?}", verdict(i));
        };
        assert!(Reason::Conflicts.may_be_apart(&dims, true), "{i}");
        assert!(s.held_apart(doc(&d[0]), doc(&d[i])), "{i}: held apart");
        assert!(s.held_apart(doc(&d[i]), doc(&d[0])), "{i}: either way");
        if i != 3 {
            let e = dims.evidence.as_ref().unwrap();
            assert_eq!((e.words_edited, dims.another_value), (1, true), "{i}");
        }
    }
    for i in [4, 5, 6, 7] {
        assert!(
            matches!(verdict(i), Verdict::Kept(_)),
            "{i}: {:?}",
            verdict(i)
        );
        assert!(!s.held_apart(doc(&d[0]), doc(&d[i])), "{i}");
    }
}

#[test]
fn another_passage_in_texts_otherwise_the_same_is_another_edition() {
    let head = "allgemeine geschäftsbedingungen der civisnet kommunikation gmbh stand januar \
                geltungsbereich diese bedingungen gelten für alle verträge zwischen der civisnet \
                und ihren kunden soweit nicht schriftlich etwas anderes vereinbart wurde \
                vertragsschluss der vertrag kommt mit der bestätigung des auftrags zustande";
    let old = "haftung wir haften unbeschränkt für vorsatz und grobe fahrlässigkeit sowie nach \
               dem produkthaftungsgesetz";
    // Words the text has elsewhere, as a template's sentences do: no conflict to the alignment.
    let new = "der vertrag kann mit einer frist von drei monaten schriftlich gekündigt werden \
               soweit gesetzlich zulässig";
    let tail = "kündigung beide seiten können den vertrag mit einer frist von drei monaten zum \
                ende eines quartals kündigen gerichtsstand ist der sitz der civisnet soweit \
                gesetzlich zulässig es gilt das recht der bundesrepublik deutschland";
    let text = |middle: &str| format!("{head} {middle} {tail}");
    let garbled = "haftung wir hafteu unbeschrankt fiir vorsalz und grobe fahrlassigkeit sowie \
                   nach dem produkthaftungsgeselz";
    // Two copies each with another stray page at their end, a few words alike in it by
    // chance: nothing shared after it, not a passage.
    let first_page = "preise alle preise verstehen sich in euro zuzüglich der gesetzlichen \
                      umsatzsteuer zahlungen sind innerhalb von vierzehn tagen nach \
                      rechnungsdatum ohne abzug fällig bei verzug berechnen wir zinsen in \
                      gesetzlicher höhe sowie eine pauschale";
    let second_page = "datenschutz wir verarbeiten personenbezogene daten ausschließlich zur \
                       erfüllung des vertrags eine weitergabe an dritte erfolgt nur soweit dies \
                       gesetzlich vorgeschrieben ist oder sie ausdrücklich eingewilligt haben \
                       auskunft erteilt unser beauftragter jederzeit";
    let stray =
        |page: &str, rest: &str| format!("{} {page} anlage zwei seite drei {rest}", text(old));
    // An edition whose scan read a garbled copy of its head first: a damaged pair.
    let damaged_head = head
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % 3 == 0 {
                w.replace('e', "c") + "i"
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let (d, v) = corpus(&[
        &text(old),
        &text(new),
        &text(garbled),
        &format!("{head} {tail}"),
        // Another document holds the new section's words: words, not noise.
        new,
        old,
        &stray(new, first_page),
        &stray(old, second_page),
        first_page,
        second_page,
        &format!("{damaged_head} {}", text(new)),
    ]);
    // A verifier that lets any conflict pass: the passage alone decides.
    let mut cfg = config();
    cfg.verifier.as_mut().expect("verifier").allow = 1e3;
    let s = scorer(&cfg, &v);
    let known = |id: u32, _| v.doc_counts()[id as usize] > 1;
    let replaced = |i: usize| passage::passage_replaced(doc(&d[0]), doc(&d[i]), known);
    assert!(replaced(1) && passage::passage_replaced(doc(&d[1]), doc(&d[0]), known));
    // A rescan's look-alikes, a section lost on one side and pages added at the end are not
    // another passage.
    assert!(!replaced(2) && !replaced(3));
    assert!(!passage::passage_replaced(doc(&d[6]), doc(&d[7]), known));
    let Verdict::Dropped(dims, Reason::Conflicts) =
        s.score(SIM, Some((doc(&d[0]), doc(&d[1]))), true)
    else {
        panic!("an edition is dropped");
    };
    assert!(dims.evidence.as_ref().unwrap().passage_replaced && !dims.rescued);
    // A clean pair: two documents, held apart however the rule decides it.
    assert!(Reason::Conflicts.may_be_apart(&dims, true));
    assert!(s.held_apart(doc(&d[0]), doc(&d[1])) && s.held_apart(doc(&d[1]), doc(&d[0])));
    for i in [2, 10] {
        assert!(matches!(
            s.score(SIM, Some((doc(&d[0]), doc(&d[i]))), true),
            Verdict::Kept(_)
        ));
        assert!(!s.held_apart(doc(&d[0]), doc(&d[i])), "{i}");
    }
    // In a damaged pair garble that spells words looks the same: the alignment decides.
    assert!(replaced(10));
}

#[test]
fn dates_each_a_month_apart_are_another_period_held_apart() {
    let june = "stadtwerke nordhafen abrechnung vom 04.06.2023 für den zeitraum 01.06.2022 bis \
                01.06.2023 kundennummer 4711 der betrag wird am 18.06.2023 eingezogen";
    let may = "stadtwerke nordhafen abrechnuug vom 04.05.2023 für den zeitraum 01.05.2022 bis \
               01.05.2023 kundennummer 4711 der betrag wird am 18.05.2023 eingezogen";
    let (d, v) = corpus(&[june, may]);
    let cfg = config();
    let s = scorer(&cfg, &v);
    let Verdict::Dropped(dims, _) = s.score(SIM, Some((doc(&d[0]), doc(&d[1]))), true) else {
        panic!("another month's bill is dropped");
    };
    assert!(dims.another_value && !dims.rescued);
    assert!(s.held_apart(doc(&d[0]), doc(&d[1])) && s.held_apart(doc(&d[1]), doc(&d[0])));
}

#[test]
fn two_texts_that_share_little_are_two_whatever_their_conflicts() {
    // A page of words against one of other words: each is a block the other lacks, which
    // weighs as a page added, so nothing conflicts.
    let words = |tag: &str| {
        (0..60)
            .map(|i| format!("{tag}{}", char::from(b'a' + (i % 26) as u8)).repeat(1 + i / 26))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (one, other) = (words("kap"), words("mol"));
    let shared = "stadtwerke nordhafen abrechnung";
    let (d, v) = corpus(&[
        &format!("{shared} {one}"),
        &format!("{shared} {other}"),
        &format!("{shared} {one} anlage"),
    ]);
    let cfg = Config {
        min_similarity: 0.0,
        ..config()
    };
    let s = scorer(&cfg, &v);
    let Verdict::Dropped(dims, Reason::Conflicts) =
        s.score(SIM, Some((doc(&d[0]), doc(&d[1]))), true)
    else {
        panic!("two texts that share three words are two");
    };
    let e = dims.evidence.as_ref().expect("aligned");
    assert_eq!(v_weight(&cfg, e), 0.0, "nothing conflicts");
    assert!(!dims.one_text_aligned);
    // The same text with a word added is one.
    let Verdict::Kept(dims) = s.score(SIM, Some((doc(&d[0]), doc(&d[2]))), true) else {
        panic!("a copy is kept");
    };
    assert!(dims.one_text_aligned);
}

/// The conflict weight the verifier of `cfg` gives the evidence.
fn v_weight(cfg: &Config, e: &crate::evidence::Evidence) -> f64 {
    cfg.verifier.expect("a verifier").weight(e)
}
