//! Pair scoring: a weighted mix of the signature Jaccard estimate and a fuzzy ratio.

use std::borrow::Cow;

/// Default weight of the Jaccard estimate.
pub const DEFAULT_JACCARD_WEIGHT: f64 = 0.55;
/// Default weight of the fuzzy ratio.
pub const DEFAULT_FUZZY_WEIGHT: f64 = 0.45;
/// Default similarity a pair needs before its texts are compared (unless its rare numbers
/// vouch for it): the cheap gate in front of the verifier.
pub const DEFAULT_MIN_SIMILARITY: f64 = 0.65;
/// Default score a pair needs to be kept: its match probability where the policy gives one
/// (more likely one document than two), else its similarity. Not tuned to a corpus.
pub const DEFAULT_THRESHOLD: f64 = 0.5;
/// Default number of characters of each normalized text compared by the fuzzy ratio.
pub const DEFAULT_FUZZY_SAMPLE: usize = 10_000;

/// Relative weights of the score's dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Weight of the Jaccard estimate.
    pub jaccard: f64,
    /// Weight of the fuzzy ratio.
    pub fuzzy: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            jaccard: DEFAULT_JACCARD_WEIGHT,
            fuzzy: DEFAULT_FUZZY_WEIGHT,
        }
    }
}

impl Weights {
    /// The smallest fuzzy ratio with which `combine(jaccard, f)` reaches `threshold` (may be
    /// above 1: unreachable, or under 0: any). Lets the scorer skip or cut off the fuzzy
    /// ratio of a pair that cannot pass.
    pub fn fuzzy_needed(&self, jaccard: f64, threshold: f64) -> f64 {
        if self.fuzzy <= 0.0 {
            return f64::NEG_INFINITY;
        }
        (threshold * (self.jaccard + self.fuzzy) - self.jaccard * jaccard) / self.fuzzy
    }

    /// The weighted average `(wj·j + wf·f) / (wj + wf)`; weights need not sum to 1.
    pub fn combine(&self, jaccard: f64, fuzzy: f64) -> f64 {
        let total = self.jaccard + self.fuzzy;
        if total <= 0.0 {
            return 0.0;
        }
        (self.jaccard * jaccard + self.fuzzy * fuzzy) / total
    }
}

/// The fuzzy sample of a normalized text: its first `chars` characters, or, with
/// `sort_words`, the words of that prefix sorted (as the reference product's token-sort ratio).
pub fn fuzzy_sample(norm: &str, chars: usize, sort_words: bool) -> Cow<'_, str> {
    let prefix = match norm.char_indices().nth(chars) {
        Some((at, _)) => &norm[..at],
        None => norm,
    };
    if sort_words {
        let mut words: Vec<&str> = prefix.split(' ').filter(|w| !w.is_empty()).collect();
        words.sort_unstable();
        Cow::Owned(words.join(" "))
    } else {
        Cow::Borrowed(prefix)
    }
}

/// The normalized Indel similarity of two samples, as rapidfuzz's `ratio` (0..1):
/// `1 − indel_distance / (len_a + len_b)` over characters. Two empty samples are identical (1.0).
pub fn fuzzy_ratio(a: &str, b: &str) -> f64 {
    fuzzy_ratio_at_least(a, b, 0.0).expect("every ratio is at least 0")
}

/// [`fuzzy_ratio`] when it is at least `cutoff`, else `None`; faster than computing the
/// ratio and comparing, since the distance computation stops once the cutoff is out of
/// reach. Values at or over the cutoff are exact (the same as [`fuzzy_ratio`]).
pub fn fuzzy_ratio_at_least(a: &str, b: &str, cutoff: f64) -> Option<f64> {
    if a.is_empty() && b.is_empty() {
        return Some(1.0);
    }
    if cutoff > 1.0 {
        return None;
    }
    let args = rapidfuzz::fuzz::Args::default().score_cutoff(cutoff.max(0.0));
    // Bytes are characters when both texts are ASCII (most are), and much cheaper to walk.
    if a.is_ascii() && b.is_ascii() {
        rapidfuzz::fuzz::ratio_with_args(a.bytes(), b.bytes(), &args)
    } else {
        rapidfuzz::fuzz::ratio_with_args(a.chars(), b.chars(), &args)
    }
}

/// Containment `|A∩B| / min(|A|,|B|)` estimated from the Jaccard similarity and the two set
/// sizes: `|A∩B| = J·(|A|+|B|)/(1+J)`. Clamped to 0..1; 0 when a set is empty.
pub fn containment_estimate(jaccard: f64, size_a: u64, size_b: u64) -> f64 {
    let min = size_a.min(size_b);
    if min == 0 {
        return 0.0;
    }
    let inter = jaccard * (size_a + size_b) as f64 / (1.0 + jaccard);
    (inter / min as f64).clamp(0.0, 1.0)
}

/// The exact containment of two sorted, deduplicated sets.
pub fn exact_containment(a: &[u64], b: &[u64]) -> f64 {
    let min = a.len().min(b.len());
    if min == 0 {
        return 0.0;
    }
    crate::trigram::overlap(a, b) as f64 / min as f64
}

/// Rounds a score for output, so NDJSON stays readable (six decimals).
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The highest fuzzy ratio two samples' lengths allow: the Indel distance is at least the
/// difference of the lengths.
pub fn length_bound(a: usize, b: usize) -> f64 {
    if a + b == 0 {
        return 1.0;
    }
    1.0 - a.abs_diff(b) as f64 / (a + b) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_matches_rapidfuzz_definition() {
        // indel distance("this is a test", "this is a test!") = 1; lengths 14 + 15
        let r = fuzzy_ratio("this is a test", "this is a test!");
        assert!((r - (1.0 - 1.0 / 29.0)).abs() < 1e-9, "{r}");
        assert_eq!(fuzzy_ratio("", ""), 1.0);
        assert_eq!(fuzzy_ratio("abc", ""), 0.0);
        // Characters, not bytes: ä is one character of two bytes.
        assert!((fuzzy_ratio("äb", "ab") - (1.0 - 2.0 / 4.0)).abs() < 1e-9);
    }

    proptest::proptest! {
        /// The ASCII fast path gives the ratio over characters.
        #[test]
        fn byte_ratio_is_the_char_ratio(a in "[ab ]{0,100}", b in "[ab ]{0,100}") {
            let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let chars = if ca.is_empty() && cb.is_empty() {
                1.0
            } else {
                rapidfuzz::fuzz::ratio(ca.iter().copied(), cb.iter().copied())
            };
            proptest::prop_assert_eq!(fuzzy_ratio(&a, &b), chars);
        }
    }

    #[test]
    fn sample_cuts_characters_not_bytes() {
        assert_eq!(fuzzy_sample("äöü xyz", 3, false), "äöü");
        assert_eq!(fuzzy_sample("ab", 10, false), "ab");
    }

    #[test]
    fn sorted_sample_sorts_words() {
        assert_eq!(fuzzy_sample("b c a", 100, true), "a b c");
    }

    #[test]
    fn containment_of_a_subset_is_one() {
        // B = A plus 50 more: J = 100/150.
        let j = 100.0 / 150.0;
        assert!((containment_estimate(j, 100, 150) - 1.0).abs() < 1e-9);
        let a: Vec<u64> = (0..100).collect();
        let b: Vec<u64> = (0..150).collect();
        assert_eq!(exact_containment(&a, &b), 1.0);
        assert_eq!(exact_containment(&a, &[]), 0.0);
        assert!((containment_estimate(1.0, 10, 10) - 1.0).abs() < 1e-12);
    }

    proptest::proptest! {
        /// The cut-off ratio is the plain ratio whenever it reaches the cutoff, else None.
        #[test]
        fn cutoff_ratio_is_exact_or_none(a in "[abä ]{0,200}", b in "[ab ]{0,200}", cut in 0.0f64..1.0) {
            let full = fuzzy_ratio(&a, &b);
            match fuzzy_ratio_at_least(&a, &b, cut) {
                Some(r) => proptest::prop_assert_eq!(r, full),
                None => proptest::prop_assert!(full < cut, "{} >= {}", full, cut),
            }
        }
    }

    #[test]
    fn fuzzy_needed_inverts_combine() {
        let w = Weights::default();
        let need = w.fuzzy_needed(0.6, 0.75);
        assert!((w.combine(0.6, need) - 0.75).abs() < 1e-12);
        assert!(w.fuzzy_needed(0.1, 0.75) > 1.0, "unreachable");
        let jac_only = Weights {
            jaccard: 1.0,
            fuzzy: 0.0,
        };
        assert_eq!(jac_only.fuzzy_needed(0.1, 0.75), f64::NEG_INFINITY);
    }

    #[test]
    fn weights_are_a_weighted_average() {
        let w = Weights::default();
        assert!((w.combine(1.0, 0.0) - 0.55).abs() < 1e-12);
        let w2 = Weights {
            jaccard: 2.0,
            fuzzy: 2.0,
        };
        assert!((w2.combine(1.0, 0.5) - 0.75).abs() < 1e-12);
    }
}
