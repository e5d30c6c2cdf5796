//! The "trials" method: word 2-gram shingles, `h` hash functions per trial, 6 trials, and a
//! pair is a duplicate when at least 2 trials agree on all their hashes.
//!
//! A trial agrees with probability `p^h` (p the overlap: the Jaccard similarity of the two
//! shingle sets, which is the chance one MinHash value agrees), independently of the
//! others, so the chance of at least 2 agreeing trials out of 6 is
//!
//! ```text
//! P = 1 − ((1 − p^h)^6 + 6·p^h·(1 − p^h)^5)
//! ```
//!
//! In LSH terms a trial is a band of `h` rows: `pl-shingle --ngram 2 | pl-minhash --perms 6h
//! | pl-lsh --bands 6 --min-band-matches 2`, and `P` is
//! [`candidate_probability`](crate::lsh::candidate_probability)`(p, h, 6, 2)`.
//! [`table`] prints the published table (rows: hashes per trial; columns: overlap).

use std::fmt::Write;

/// Trials per document.
pub const TRIALS: usize = 6;
/// Trials that must agree for a duplicate.
pub const MIN_AGREE: usize = 2;
/// Word n-gram size of the shingles.
pub const NGRAM: usize = 2;
/// Hashes per trial in the published table's rows.
pub const TABLE_HASHES: [usize; 6] = [10, 12, 14, 16, 18, 20];
/// Overlaps in the published table's columns, in percent.
pub const TABLE_OVERLAPS: [u32; 5] = [80, 85, 90, 95, 100];

/// The chance that at least 2 of 6 trials of `h` hashes agree at overlap `p`, in the
/// published closed form.
pub fn duplicate_probability(p: f64, h: usize) -> f64 {
    let q = p.powi(h as i32);
    1.0 - ((1.0 - q).powi(6) + 6.0 * q * (1.0 - q).powi(5))
}

/// A probability as a percentage with one decimal, the published rounding (`41.5%`).
pub fn percent(p: f64) -> String {
    format!("{:.1}%", 100.0 * p)
}

/// The published table as Markdown: one row per number of hashes per trial
/// ([`TABLE_HASHES`]), one column per overlap ([`TABLE_OVERLAPS`]), computed from
/// [`duplicate_probability`].
pub fn table() -> String {
    let mut s = String::from("| hashes per trial (h) | K = 6h |");
    for o in TABLE_OVERLAPS {
        let _ = write!(s, " {o}% overlap |");
    }
    s.push_str("\n|---|---|");
    for _ in TABLE_OVERLAPS {
        s.push_str("---|");
    }
    s.push('\n');
    for h in TABLE_HASHES {
        let _ = write!(s, "| {h} | {} |", TRIALS * h);
        for o in TABLE_OVERLAPS {
            let _ = write!(
                s,
                " {} |",
                percent(duplicate_probability(o as f64 / 100.0, h))
            );
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::{candidate_probability, candidates, BandRule, Banding};
    use crate::minhash::{splitmix64, MinHasher};

    /// The values the published table quotes, and the ones derived by hand: at 100% overlap
    /// every trial agrees, so P = 1 − (0 + 0) = 100.0% for every h.
    #[test]
    fn published_values() {
        assert_eq!(percent(duplicate_probability(0.90, 14)), "41.5%");
        assert_eq!(percent(duplicate_probability(0.85, 10)), "33.7%");
        assert_eq!(percent(duplicate_probability(0.80, 20)), "0.2%");
        for h in TABLE_HASHES {
            assert_eq!(percent(duplicate_probability(1.0, h)), "100.0%", "h={h}");
        }
    }

    /// Every cell of the table equals the LSH S-curve with 6 bands of h rows and at least 2
    /// matching bands, and no cell sits on a rounding edge (so the printed digit is robust).
    #[test]
    fn table_equals_the_lsh_s_curve() {
        for h in TABLE_HASHES {
            for o in TABLE_OVERLAPS {
                let p = o as f64 / 100.0;
                let closed = duplicate_probability(p, h);
                let lsh = candidate_probability(p, h, TRIALS, MIN_AGREE);
                assert!(
                    (closed - lsh).abs() < 1e-12,
                    "h={h} p={p}: {closed} vs {lsh}"
                );
                let tenths = closed * 1000.0;
                assert!(
                    (tenths - tenths.floor() - 0.5).abs() > 1e-6,
                    "h={h} p={p}: {closed} on a rounding edge"
                );
            }
        }
    }

    #[test]
    fn table_has_every_row_and_column() {
        let t = table();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + TABLE_HASHES.len());
        assert!(lines[0].contains("90% overlap"));
        let row14 = lines.iter().find(|l| l.starts_with("| 14 |")).unwrap();
        assert_eq!(
            *row14,
            "| 14 | 84 | 2.6% | 12.0% | 41.5% | 87.9% | 100.0% |"
        );
        let row10 = lines.iter().find(|l| l.starts_with("| 10 |")).unwrap();
        assert!(row10.contains("| 33.7% |"), "{row10}");
        assert!(lines.last().unwrap().starts_with("| 20 | 120 | 0.2% |"));
    }

    /// Two shingle sets of `union` elements with `common` shared (Jaccard common / union),
    /// fresh random elements each call.
    fn pair_of_sets(st: &mut u64, union: usize, common: usize) -> (Vec<u64>, Vec<u64>) {
        let only = union - common;
        let c: Vec<u64> = (0..common).map(|_| splitmix64(st)).collect();
        let mut a = c.clone();
        let mut b = c;
        a.extend((0..only / 2).map(|_| splitmix64(st)));
        b.extend((0..only - only / 2).map(|_| splitmix64(st)));
        a.sort_unstable();
        b.sort_unstable();
        (a, b)
    }

    /// Real MinHash signatures (a fresh seed per trial) cut into 6 bands of h rows, at
    /// least 2 matching: the observed duplicate rate is within 4.5 standard errors of the
    /// formula. Deterministic seeds, so the test cannot flake.
    #[test]
    fn simulation_on_real_signatures_agrees() {
        let runs = 1500;
        for (overlap, h) in [(0.90, 14), (0.85, 10), (0.95, 20), (0.90, 10)] {
            let union = 100;
            let common = (overlap * union as f64).round() as usize;
            let p = common as f64 / union as f64;
            let perms = TRIALS * h;
            let band = Banding::new(perms, TRIALS).unwrap();
            let mut st = 0x5EED ^ ((h as u64) << 8) ^ common as u64;
            let mut hits = 0usize;
            let (mut sa, mut sb) = (vec![0u32; perms], vec![0u32; perms]);
            for run in 0..runs {
                let (a, b) = pair_of_sets(&mut st, union, common);
                let hasher = MinHasher::new(perms, 1000 + run as u64);
                hasher.signature(&a, &mut sa);
                hasher.signature(&b, &mut sb);
                let keys = vec![
                    (0..TRIALS).map(|i| band.key(&sa, i)).collect(),
                    (0..TRIALS).map(|i| band.key(&sb, i)).collect(),
                ];
                hits += candidates(&[1, 2], &keys, BandRule::new(MIN_AGREE as u32, 0, 0)).len();
            }
            let want = duplicate_probability(p, h);
            let rate = hits as f64 / runs as f64;
            let se = (want * (1.0 - want) / runs as f64).sqrt();
            assert!(
                (rate - want).abs() <= 4.5 * se,
                "p={p} h={h}: simulated {rate:.4}, formula {want:.4} (se {se:.4})"
            );
        }
    }
}
