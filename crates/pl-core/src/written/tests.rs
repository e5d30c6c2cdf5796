use super::*;

fn apart(a: &str, b: &str) -> (usize, usize) {
    let x = values_apart(&Written::of(a), &Written::of(b));
    (x.moved, x.sign)
}

#[test]
fn another_sign_or_decimal_point_is_another_value() {
    for (a, b) in [
        ("174.65", "1746.5"),
        ("174.65", "17.465"),
        ("174.65", "-174.65"),
        ("1/12/2024", "11/2/2024"),
        ("1.12.2024", "11.2.2024"),
        ("-40,00", "40,00"),
        ("10-12", "-1012"),
    ] {
        assert!(another_value(a, b) && another_value(b, a), "{a} / {b}");
    }
}

#[test]
fn ocr_readings_of_one_value_are_not() {
    for (a, b) in [
        ("174.65", "174,65"),
        ("174.65", "17465"),
        ("2.44", "2:44"),
        ("1,000.00", "1.000,00"),
        ("1,000.00", "1000.00"),
        ("03.04.2024", "03.042024"),
        ("1/12/2024", "1.12.2024"),
        ("a19-19691", "a19.19691"),
        ("174.65", "174.66"),
        ("12", "-13"),
        ("total", "-total"),
    ] {
        assert!(!another_value(a, b) && !another_value(b, a), "{a} / {b}");
    }
}

#[test]
fn a_pair_counts_the_numbers_the_other_text_has_only_as_another_value() {
    let invoice = |total: &str| format!("rechnung 2024-0815 betrag {total} eur 58.22");
    assert_eq!(apart(&invoice("174.65"), &invoice("1746.5")), (2, 0));
    assert_eq!(apart(&invoice("174.65"), &invoice("-174.65")), (0, 2));
    assert_eq!(
        apart(&invoice("174.65"), &invoice("-1746.5")),
        (2, 0),
        "both: moved"
    );
    assert_eq!(
        apart(&invoice("4.853,52"), &invoice("-4853,52")),
        (0, 2),
        "a separator dropped beside the sign: the sign differs, no point moved"
    );
    assert_eq!(
        apart(&invoice("17465"), &invoice("-17465")),
        (0, 1),
        "bare on one side"
    );
    assert_eq!(apart(&invoice("174.65"), &invoice("174,65")), (0, 0));
    assert_eq!(apart(&invoice("174.65"), &invoice("17465")), (0, 0));
    assert_eq!(
        apart(&invoice("174.65"), &invoice("999.99")),
        (0, 0),
        "other digits"
    );
    // The other text has the same reading too (a subtotal): not apart; the one it lacks is.
    let both = |total: &str, other: &str| format!("{} {other}", invoice(total));
    assert_eq!(
        apart(&both("-174.65", "174.65"), &both("174.65", "-174.65")),
        (0, 0)
    );
    assert_eq!(
        apart(&invoice("-174.65"), &both("174.65", "-174.65")),
        (0, 1)
    );
}

#[test]
fn written_numbers_are_kept_once_each() {
    let w = Written::of("a -1.5 b -1.5 17 17 x1");
    assert_eq!(w.marked.len(), 1);
    assert_eq!(w.bare.len(), 2);
}

#[test]
fn another_currency_on_an_amount_or_a_bracketed_amount_is_another_value() {
    for (a, b) in [
        ("$174.65", "€174.65"),
        ("174,65€", "174,65$"),
        ("174.65%", "$174.65"),
        ("(174.65)", "174.65"),
        ("($174)", "$174"),
        ("174,65-", "174,65"),
        ("-$174.65", "$174.65"),
        ("$-174.65", "$174.65"),
    ] {
        assert!(another_value(a, b) && another_value(b, a), "{a} / {b}");
    }
    for (a, b) in [
        // A currency symbol dropped, or one value written two ways.
        ("$174.65", "174.65"),
        ("-$174.65", "($174.65)"),
        ("174,65-", "-174.65"),
        ("1.250,00€", "€1,250.00"),
        // A section sign OCR read as `$` and as `£`: no amount.
        ("$6", "£6"),
        ("$433", "£433"),
        // A numbered item, not an amount.
        ("(2)", "2"),
    ] {
        assert!(!another_value(a, b) && !another_value(b, a), "{a} / {b}");
    }
}

#[test]
fn a_pair_counts_amounts_in_another_currency_apart_from_moved_points() {
    let invoice = |total: &str| format!("rechnung 2024-0815 betrag {total} 58.22");
    let apart = |a: &str, b: &str| values_apart(&Written::of(a), &Written::of(b));
    let x = apart(&invoice("$174.65"), &invoice("€174.65"));
    assert_eq!((x.moved, x.sign, x.unit), (0, 0, 2));
    let x = apart(&invoice("$174.65"), &invoice("($174.65)"));
    assert_eq!((x.moved, x.sign, x.unit), (0, 2, 0));
    let x = apart(&invoice("$174.65"), &invoice("174.65"));
    assert_eq!((x.moved, x.sign, x.unit), (0, 0, 0), "a symbol dropped");
}

#[test]
fn another_comparison_is_another_value() {
    assert!(another_value("<5", ">5") && another_value(">5", "<5"));
    assert!(another_value("<0.5", "~0.5"));
    for (a, b) in [("<5", "5"), ("≤5", "<5"), ("≥5", ">5"), ("<5", "<6")] {
        assert!(!another_value(a, b) && !another_value(b, a), "{a} / {b}");
    }
    let report = |v: &str| format!("befund crp {v} mg hba1c 5.4");
    let x = values_apart(&Written::of(&report("<5")), &Written::of(&report(">5")));
    assert_eq!((x.moved, x.sign, x.unit), (0, 0, 2));
}
