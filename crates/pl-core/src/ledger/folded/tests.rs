use super::*;
use proptest::prelude::*;

/// The near match as it was before the numbers were sorted and deduplicated: every number
/// compared, in text order.
fn near_by_brute_force(numbers: &[String], w: &str, tol: usize) -> bool {
    let f: Vec<char> = w.chars().map(fold_char).collect();
    numbers.iter().any(|v| {
        let v: Vec<char> = v.chars().map(fold_char).collect();
        rapidfuzz::distance::levenshtein::distance(f.iter().copied(), v.iter().copied()) <= tol
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn sorting_and_deduplicating_keeps_every_near_match(
        numbers in prop::collection::vec("[0-9oOlI.,/-]{1,14}", 0..30),
        w in "[0-9oOlI.,/-]{1,14}",
        tol in 0usize..3,
    ) {
        let mut f = Folded::default();
        for n in &numbers {
            f.push(n);
        }
        f.finish();
        let folded: Vec<char> = w.chars().map(fold_char).collect();
        prop_assert_eq!(f.has_near(&folded, tol), near_by_brute_force(&numbers, &w, tol));
    }
}

#[test]
fn repeats_are_kept_once_in_length_order() {
    let mut f = Folded::default();
    for n in ["123456", "12", "123456", "1234"] {
        f.push(n);
    }
    f.finish();
    let lens: Vec<u32> = f.spans.iter().map(|&(s, e, _)| e - s).collect();
    assert_eq!(lens, [2, 4, 6]);
    assert_eq!(f.chars.len(), 12, "the repeat's characters are dropped too");
}

proptest! {
    /// An edit moves the character counts by at most 2: what lets the ledger's near words and
    /// numbers skip measuring words whose counts are further apart (saturated counts included).
    #[test]
    fn counts_apart_at_most_twice_the_edits(a in "[a-z0-9äß]{0,40}", b in "[a-z0-9äß]{0,40}") {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let d = rapidfuzz::distance::levenshtein::distance(a.iter().copied(), b.iter().copied());
        prop_assert!(counts_apart(counts_sig(&a), counts_sig(&b)) <= 2 * d);
    }
}
