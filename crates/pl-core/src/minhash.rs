//! MinHash signatures: K independent hash functions, the minimum of each over a shingle set.
//!
//! Hash family (scheme 1, "classic"): each shingle hash `s` (u64) is folded to 32 bits,
//! `x = (s ^ (s >> 32)) as u32`, then `h_i(x) = a_i·x + b_i mod 2^32` with `a_i` odd, so
//! each `h_i` is a bijection of u32. Since shingle hashes are already uniform (xxh3),
//! `P[min h_i(A) == min h_i(B)] = J(A, B)` up to 32-bit collisions. The coefficients come from
//! SplitMix64 seeded with the documented seed ([`DEFAULT_SEED`]): `a_i = next() as u32 | 1`,
//! `b_i = next() as u32`, in order i = 0..K. 32-bit lanes let the K-wide minimum vectorize
//! (8 lanes with AVX2, chosen at run time).

/// The default MinHash seed, recorded in every signature stream header.
pub const DEFAULT_SEED: u64 = 42;
/// Scheme number of the classic K-hash MinHash in stream headers.
pub const SCHEME_CLASSIC: u32 = 1;

/// SplitMix64, the coefficient generator.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The K hash functions of one (K, seed) pair.
#[derive(Debug, Clone)]
pub struct MinHasher {
    a: Vec<u32>,
    b: Vec<u32>,
}

impl MinHasher {
    /// Makes K hash functions from `seed`.
    pub fn new(perms: usize, seed: u64) -> Self {
        let mut state = seed;
        let (mut a, mut b) = (Vec::with_capacity(perms), Vec::with_capacity(perms));
        for _ in 0..perms {
            a.push(splitmix64(&mut state) as u32 | 1);
            b.push(splitmix64(&mut state) as u32);
        }
        MinHasher { a, b }
    }

    /// Signature length K.
    pub fn perms(&self) -> usize {
        self.a.len()
    }

    /// Writes the signature of `shingles` into `out` (length K). An empty set gives all `u32::MAX`.
    pub fn signature(&self, shingles: &[u64], out: &mut [u32]) {
        assert_eq!(out.len(), self.a.len(), "signature buffer length");
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { signature_avx2(&self.a, &self.b, shingles, out) };
                return;
            }
        }
        signature_generic(&self.a, &self.b, shingles, out);
    }
}

#[inline(always)]
fn signature_generic(a: &[u32], b: &[u32], shingles: &[u64], out: &mut [u32]) {
    out.fill(u32::MAX);
    let (a, b) = (&a[..out.len()], &b[..out.len()]);
    for &s in shingles {
        let x = (s ^ (s >> 32)) as u32;
        for ((o, &ai), &bi) in out.iter_mut().zip(a).zip(b) {
            *o = (*o).min(ai.wrapping_mul(x).wrapping_add(bi));
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn signature_avx2(a: &[u32], b: &[u32], shingles: &[u64], out: &mut [u32]) {
    signature_generic(a, b, shingles, out)
}

/// The Jaccard similarity estimated from two signatures: the share of equal positions.
pub fn estimate_jaccard(a: &[u32], b: &[u32]) -> f64 {
    assert_eq!(a.len(), b.len(), "signature lengths differ");
    if a.is_empty() {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

/// The number of elements two sorted, deduplicated sets share (a merge walk).
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter
}

/// The exact Jaccard similarity of two sorted, deduplicated sets.
pub fn exact_jaccard(a: &[u64], b: &[u64]) -> f64 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sig(h: &MinHasher, s: &[u64]) -> Vec<u32> {
        let mut out = vec![0; h.perms()];
        h.signature(s, &mut out);
        out
    }

    #[test]
    fn identical_sets_estimate_one() {
        let h = MinHasher::new(64, DEFAULT_SEED);
        let s = [1u64, 99, 12345];
        assert_eq!(estimate_jaccard(&sig(&h, &s), &sig(&h, &s)), 1.0);
    }

    #[test]
    fn seed_changes_the_signature() {
        let s = [5u64, 6, 7];
        assert_ne!(
            sig(&MinHasher::new(16, 1), &s),
            sig(&MinHasher::new(16, 2), &s)
        );
    }

    #[test]
    fn dispatched_kernel_equals_generic() {
        let h = MinHasher::new(256, DEFAULT_SEED);
        let s: Vec<u64> = (0..500u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let mut want = vec![0; 256];
        signature_generic(&h.a, &h.b, &s, &mut want);
        assert_eq!(sig(&h, &s), want);
    }

    #[test]
    fn exact_jaccard_counts() {
        assert_eq!(exact_jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(exact_jaccard(&[], &[]), 0.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The estimate is within 4 standard errors of the exact Jaccard.
        #[test]
        fn estimate_is_within_four_standard_errors(
            seed in any::<u64>(), common in 0usize..300, only_a in 0usize..300, only_b in 0usize..300) {
            prop_assume!(common + only_a + only_b > 0);
            let mut st = seed;
            let mut draw = |n: usize| -> Vec<u64> { (0..n).map(|_| splitmix64(&mut st)).collect() };
            let (c, x, y) = (draw(common), draw(only_a), draw(only_b));
            let mut a: Vec<u64> = c.iter().chain(&x).copied().collect();
            let mut b: Vec<u64> = c.iter().chain(&y).copied().collect();
            a.sort_unstable(); a.dedup(); b.sort_unstable(); b.dedup();
            let j = exact_jaccard(&a, &b);
            let k = 256;
            let h = MinHasher::new(k, DEFAULT_SEED);
            let est = estimate_jaccard(&sig(&h, &a), &sig(&h, &b));
            let se = (j * (1.0 - j) / k as f64).sqrt().max(1.0 / k as f64);
            prop_assert!((est - j).abs() <= 4.0 * se, "J={j} est={est} se={se}");
        }
    }
}
