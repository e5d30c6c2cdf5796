//! The S-curve: how likely a pair of a given similarity becomes a candidate under a banding.

use super::Banding;

/// Probability that a pair with Jaccard `s` becomes a candidate: at least `min_matches` of
/// `bands` bands of `rows` rows agree. With `min_matches = 1` this is `1 − (1 − s^r)^b`.
pub fn candidate_probability(s: f64, rows: usize, bands: usize, min_matches: usize) -> f64 {
    let p = s.powi(rows as i32);
    let below: f64 = (0..min_matches.min(bands + 1))
        .map(|i| binomial(bands, i) * p.powi(i as i32) * (1.0 - p).powi((bands - i) as i32))
        .sum();
    (1.0 - below).clamp(0.0, 1.0)
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The similarity at which the candidate probability crosses 50% (bisection).
pub fn half_point(rows: usize, bands: usize, min_matches: usize) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if candidate_probability(mid, rows, bands, min_matches) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// What pl-lsh --explain prints: for `b` (cut from K = `perms`) with at least `min_matches`
/// bands agreeing, the probability that a pair becomes a candidate at similarities 0.50 to
/// 1.00, where it crosses 50%, and the share of pairs at `threshold` that LSH would miss.
pub fn explain(perms: usize, b: &Banding, min_matches: usize, threshold: f64) -> String {
    use std::fmt::Write;
    let m = min_matches;
    let mut out = format!(
        "K={perms} permutations, {} bands x {} rows, at least {m} band(s) must match\n",
        b.bands, b.rows
    );
    out.push_str("similarity  P(candidate)\n");
    for i in 0..=10 {
        let s = 0.5 + 0.05 * i as f64;
        let p = candidate_probability(s, b.rows, b.bands, m);
        let _ = writeln!(out, "{s:>10.2}  {p:>11.4}");
    }
    let _ = writeln!(
        out,
        "50% at similarity {:.3}",
        half_point(b.rows, b.bands, m)
    );
    let t = threshold;
    let p = candidate_probability(t, b.rows, b.bands, m);
    let _ = writeln!(
        out,
        "at the threshold {t}: P(candidate) {p:.4}, expected share of pairs missed by LSH {:.2}%",
        100.0 * (1.0 - p)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::{candidates, BandRule};
    use crate::minhash::splitmix64;
    use proptest::prelude::*;

    #[test]
    fn explain_shows_the_curve_and_the_threshold() {
        let b = Banding::new(256, 32).unwrap();
        let text = explain(256, &b, 1, 0.65);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 15);
        assert_eq!(
            lines[0],
            "K=256 permutations, 32 bands x 8 rows, at least 1 band(s) must match"
        );
        assert_eq!(lines[2], "      0.50       0.1177");
        assert_eq!(lines[12], "      1.00       1.0000");
        assert!(
            lines[14].starts_with("at the threshold 0.65: P(candidate) "),
            "{}",
            lines[14]
        );
    }
    #[test]
    fn s_curve_matches_closed_form() {
        for s in [0.3, 0.5, 0.75, 0.9] {
            let want = 1.0 - (1.0 - f64::powi(s, 8)).powi(32);
            assert!((candidate_probability(s, 8, 32, 1) - want).abs() < 1e-12);
        }
        let h = half_point(8, 32, 1);
        assert!((candidate_probability(h, 8, 32, 1) - 0.5).abs() < 1e-9);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// Simulated candidate rate matches 1 − (1 − s^r)^b: each signature position agrees
        /// with probability s independently, as MinHash guarantees.
        #[test]
        fn simulated_rate_matches_formula(s in 0.4f64..0.95, seed in any::<u64>(), bands in prop::sample::select(vec![8usize, 16, 32])) {
            let rows = 256 / bands;
            let band = Banding::new(256, bands).unwrap();
            let trials = 2000;
            let mut st = seed;
            let mut hits = 0;
            for _ in 0..trials {
                let a: Vec<u32> = (0..256).map(|_| splitmix64(&mut st) as u32).collect();
                let b: Vec<u32> = a.iter().map(|&x| {
                    let u = (splitmix64(&mut st) >> 11) as f64 / (1u64 << 53) as f64;
                    if u < s { x } else { x ^ 0x8000_0001 }
                }).collect();
                let keys = vec![(0..bands).map(|i| band.key(&a, i)).collect(), (0..bands).map(|i| band.key(&b, i)).collect()];
                hits += candidates(&[1, 2], &keys, BandRule::new(1, 0, 0)).len();
            }
            let p = candidate_probability(s, rows, bands, 1);
            let rate = hits as f64 / trials as f64;
            let se = (p * (1.0 - p) / trials as f64).sqrt().max(1e-3);
            prop_assert!((rate - p).abs() <= 5.0 * se, "s={s} rows={rows} p={p} rate={rate}");
        }
    }
}
