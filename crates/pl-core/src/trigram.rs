//! Character trigrams and an exact similarity join over them.
//!
//! Each normalized text becomes the SET of its character trigrams (three consecutive
//! Unicode scalar values, spaces included). Two documents' similarity is
//! `|A ∩ B| / max(|A|, |B|)`, and [`TrigramIndex`] finds every pair whose similarity is at
//! least a threshold `t` without comparing all pairs, and without missing any:
//!
//! 1. **Size bound.** `|A ∩ B| ≤ min(|A|, |B|)`, so a pair can reach `t` only if
//!    `min/max ≥ t`. Documents are processed in order of size; a document `x` is compared
//!    only with earlier (smaller or equal) documents of size at least `α(|x|)`, the
//!    smallest overlap that reaches `t` against `|x|`.
//! 2. **Prefix filter.** Trigrams are ranked by rarity (global document frequency
//!    ascending, ties by trigram value), and each set is sorted by rank. If two sets share
//!    at least `α` trigrams, their prefixes of length `|set| − α + 1` share one. A pair
//!    `x ≥ y` (in processing order) needs overlap `α(|x|) ≥ α(|y|)`, so indexing each set's
//!    prefix of length `|set| − α(|set|) + 1` and probing with the same prefix of `x` finds it.
//! 3. **Positional filter.** The first trigram two prefixes share, at positions `i` in `x`
//!    and `j` in `y`, is their first common trigram in rank order, so their overlap is at
//!    most `1 + min(|x| − i − 1, |y| − j − 1)`; pairs that cannot reach `α` are dropped.
//! 4. **Count filter.** Each set also has a small histogram: how many of its trigrams fall
//!    in each of `B` buckets (a hash of the trigram). Shared trigrams fall in the same bucket
//!    in both sets, so `Σ_b min(countA[b], countB[b])` bounds the overlap from above; a pair
//!    whose bound is under `α` is dropped for the price of `B` byte comparisons.
//! 5. **Verification.** The survivors are intersected exactly (a merge starting after the
//!    first shared trigram, stopping as soon as `α` is out of reach).
//!
//! All thresholds are decided with the same floating-point comparison as the final test
//! (`overlap as f64 / max as f64 >= t`), so the filters never disagree with it at the edges.
//! [`brute_force`] compares every pair with the same test; the unit tests hold the two equal.
//!
//! Work for each probing document is independent of the others ([`TrigramIndex::probe`]),
//! so a caller may run the probes in parallel; [`TrigramIndex::pairs`] runs them in order.

use rustc_hash::FxHashMap;

/// Default similarity threshold, the same as `pl-score`'s.
pub const DEFAULT_THRESHOLD: f64 = 0.75;

/// A character trigram packed into a u64: three 21-bit Unicode scalar values, first
/// character highest, so the packing is exact (no hash, no collisions) and orders like the
/// character triples.
pub type Trigram = u64;

/// Packs three characters into a [`Trigram`].
pub fn pack(a: char, b: char, c: char) -> Trigram {
    ((a as u64) << 42) | ((b as u64) << 21) | c as u64
}

/// Writes the set of character trigrams of `norm`'s digits view
/// ([`crate::normalize::digits_view`]) into `out` (cleared first), sorted ascending without
/// repeats. A text shorter than three characters has none.
pub fn trigrams(norm: &str, out: &mut Vec<Trigram>) {
    out.clear();
    let norm = crate::normalize::digits_view(norm);
    let mut it = norm.chars();
    let (Some(mut a), Some(mut b)) = (it.next(), it.next()) else {
        return;
    };
    for c in it {
        out.push(pack(a, b, c));
        (a, b) = (b, c);
    }
    out.sort_unstable();
    out.dedup();
}

/// Size of the intersection of two sorted slices; with repeats, an element counts as often
/// as the slice holding it fewer times has it (a multiset intersection).
pub fn overlap<T: Ord>(a: &[T], b: &[T]) -> usize {
    overlap_at_least(a, b, 0).expect("every overlap is at least 0")
}

/// The similarity of two sets of sizes `len_a`, `len_b` sharing `overlap` elements:
/// `overlap / max(len_a, len_b)`, and 0 when both are empty.
pub fn similarity_of(overlap: usize, len_a: usize, len_b: usize) -> f64 {
    let max = len_a.max(len_b);
    if max == 0 {
        0.0
    } else {
        overlap as f64 / max as f64
    }
}

/// Whether a pair reaches threshold `t`: the one comparison every filter is derived from.
fn reaches(overlap: usize, max: usize, t: f64) -> bool {
    max > 0 && overlap as f64 / max as f64 >= t
}

/// The smallest overlap `k` with `k / n ≥ t` (in the floating-point test `reaches` uses).
/// `t` must be in (0, 1], so `1 ≤ k ≤ n` for `n ≥ 1`.
pub fn min_overlap(n: usize, t: f64) -> usize {
    if n == 0 {
        return 0;
    }
    let mut k = ((t * n as f64).ceil() as usize).clamp(1, n);
    while k > 1 && reaches(k - 1, n, t) {
        k -= 1;
    }
    while k < n && !reaches(k, n, t) {
        k += 1;
    }
    k
}

/// A similarity threshold outside (0, 1].
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("threshold must be greater than 0 and at most 1, got {0}")]
pub struct ThresholdError(pub f64);

/// Checks a threshold: it must be a number in (0, 1].
pub fn check_threshold(t: f64) -> Result<(), ThresholdError> {
    if t > 0.0 && t <= 1.0 {
        Ok(())
    } else {
        Err(ThresholdError(t))
    }
}

/// A pair at or over the threshold: `a < b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrigramPair {
    /// Smaller id.
    pub a: u64,
    /// Larger id.
    pub b: u64,
    /// Trigrams the two sets share.
    pub overlap: u32,
    /// `overlap / max(|A|, |B|)`.
    pub similarity: f64,
}

/// Counts of the work a join did, for the `-v` report and for measuring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Distinct (probe, indexed document) pairs met in the inverted index within the size bound.
    pub candidates: u64,
    /// Candidates dropped by the positional filter before any intersection.
    pub pruned: u64,
    /// Candidates dropped by the count filter (histogram bound) before any intersection.
    pub counted_out: u64,
    /// Candidates intersected exactly.
    pub verified: u64,
    /// Pairs at or over the threshold.
    pub pairs: u64,
    /// Index entries scanned.
    pub postings: u64,
}

impl JoinStats {
    /// Adds another count.
    pub fn add(&mut self, o: &JoinStats) {
        self.candidates += o.candidates;
        self.pruned += o.pruned;
        self.counted_out += o.counted_out;
        self.verified += o.verified;
        self.pairs += o.pairs;
        self.postings += o.postings;
    }
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    /// Position of the document in processing order.
    doc: u32,
    /// Position of the trigram in that document's rank-sorted set.
    pos: u32,
}

/// The inverted index of a corpus' trigram-set prefixes, ready to be probed.
#[derive(Debug)]
pub struct TrigramIndex {
    threshold: f64,
    /// Document ids in processing order (size ascending, then id).
    ids: Vec<u64>,
    /// Rank-sorted sets in processing order.
    sets: Vec<Vec<u32>>,
    /// Postings per trigram rank, in processing order of the documents.
    lists: Vec<Vec<Posting>>,
    /// Per document (processing order) its B bucket counts; empty when a bucket would
    /// overflow a byte (then that document's pairs skip the count filter).
    hist: Vec<Vec<u8>>,
}

/// The histogram bucket of a trigram rank.
fn bucket(rank: u32, bits: u32) -> usize {
    ((rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// The bucket counts of a rank set, or an empty vector if one would not fit in a byte.
fn histogram(set: &[u32], bits: u32) -> Vec<u8> {
    let mut h = vec![0u8; 1 << bits];
    for &r in set {
        let c = &mut h[bucket(r, bits)];
        if *c == 254 {
            return Vec::new();
        }
        *c += 1;
    }
    h
}

/// `Σ min(a[b], b[b])`: an upper bound of the overlap of the two sets.
fn histogram_bound(a: &[u8], b: &[u8]) -> usize {
    // Summed in u16 lanes per 256 buckets (at most 256 · 254 < 2^16), which vectorizes.
    a.chunks(256)
        .zip(b.chunks(256))
        .map(|(ca, cb)| {
            ca.iter()
                .zip(cb)
                .map(|(&x, &y)| x.min(y) as u16)
                .fold(0u16, u16::wrapping_add) as usize
        })
        .sum()
}

/// Per-thread scratch space for [`TrigramIndex::probe`].
#[derive(Debug, Default)]
pub struct Scratch {
    /// `mark[y] == x + 1` when document `y` was met already while probing `x`.
    mark: Vec<u32>,
    cands: Vec<(u32, u32, u32)>,
}

impl TrigramIndex {
    /// Builds the index of `docs` (id, trigram set sorted ascending without repeats) for
    /// threshold `t` in (0, 1]. Documents with an empty set are never paired, nor two
    /// documents with the same id (ids should be distinct; `pl-trigram` refuses repeats).
    pub fn build(docs: Vec<(u64, Vec<Trigram>)>, t: f64) -> Result<TrigramIndex, ThresholdError> {
        check_threshold(t)?;
        let mut docs: Vec<(u64, Vec<Trigram>)> =
            docs.into_iter().filter(|(_, s)| !s.is_empty()).collect();
        // Ranks: document frequency ascending, ties by trigram value.
        let mut df: FxHashMap<Trigram, u32> = FxHashMap::default();
        for (_, s) in &docs {
            for &g in s {
                *df.entry(g).or_insert(0) += 1;
            }
        }
        let mut order: Vec<(u32, Trigram)> = df.iter().map(|(&g, &n)| (n, g)).collect();
        order.sort_unstable();
        let rank: FxHashMap<Trigram, u32> = order
            .iter()
            .enumerate()
            .map(|(r, &(_, g))| (g, r as u32))
            .collect();
        drop(df);
        docs.sort_by_key(|x| (x.1.len(), x.0));
        let mut ids = Vec::with_capacity(docs.len());
        let mut sets = Vec::with_capacity(docs.len());
        let mut lists: Vec<Vec<Posting>> = vec![Vec::new(); order.len()];
        // Buckets: about the median set size (a power of two from 64 to 4096), so a bucket
        // holds about one trigram of a set and the bound stays tight.
        let median = docs.get(docs.len() / 2).map_or(0, |d| d.1.len());
        let bucket_bits = median.clamp(64, 4096).next_power_of_two().trailing_zeros();
        let mut hist = Vec::with_capacity(docs.len());
        for (d, (id, s)) in docs.into_iter().enumerate() {
            let mut r: Vec<u32> = s.iter().map(|g| rank[g]).collect();
            r.sort_unstable();
            let prefix = r.len() - min_overlap(r.len(), t) + 1;
            for (pos, &tok) in r[..prefix].iter().enumerate() {
                lists[tok as usize].push(Posting {
                    doc: d as u32,
                    pos: pos as u32,
                });
            }
            ids.push(id);
            hist.push(histogram(&r, bucket_bits));
            sets.push(r);
        }
        Ok(TrigramIndex {
            threshold: t,
            ids,
            sets,
            lists,
            hist,
        })
    }

    /// Number of documents indexed (those with at least one trigram).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was indexed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every pair whose larger member in processing order is document `x` (0 ≤ x < len),
    /// appended to `out` in no particular order. Calls for different `x` are independent.
    pub fn probe(&self, x: usize, scratch: &mut Scratch, out: &mut Vec<TrigramPair>) -> JoinStats {
        let mut st = JoinStats::default();
        if scratch.mark.len() < self.len() {
            scratch.mark.resize(self.len(), 0);
        }
        let set = &self.sets[x];
        let n = set.len();
        let alpha = min_overlap(n, self.threshold);
        let stamp = x as u32 + 1;
        scratch.cands.clear();
        // Documents are in size order: those under the size bound come before `first`.
        let first = self.sets[..x].partition_point(|s| s.len() < alpha) as u32;
        for (i, &tok) in set[..n - alpha + 1].iter().enumerate() {
            let list = &self.lists[tok as usize];
            // Postings are in processing order: the ones under the size bound are a leading
            // run, and the ones at or after x a trailing one.
            let lo = list.partition_point(|p| p.doc < first);
            for p in &list[lo..] {
                let y = p.doc as usize;
                if y >= x {
                    break;
                }
                st.postings += 1;
                if scratch.mark[y] == stamp {
                    continue;
                }
                scratch.mark[y] = stamp;
                st.candidates += 1;
                let m = self.sets[y].len();
                let bound = 1 + (n - i - 1).min(m - p.pos as usize - 1);
                if bound < alpha {
                    st.pruned += 1;
                    continue;
                }
                scratch.cands.push((p.doc, i as u32, p.pos));
            }
        }
        for &(y, i, j) in &scratch.cands {
            let (hx, hy) = (&self.hist[x], &self.hist[y as usize]);
            if !hx.is_empty() && !hy.is_empty() && histogram_bound(hx, hy) < alpha {
                st.counted_out += 1;
                continue;
            }
            st.verified += 1;
            let (a, b) = (
                &set[i as usize + 1..],
                &self.sets[y as usize][j as usize + 1..],
            );
            if let Some(o) = overlap_at_least(a, b, alpha - 1) {
                let o = o + 1;
                let m = self.sets[y as usize].len();
                let (p, q) = (self.ids[x], self.ids[y as usize]);
                if p != q && reaches(o, n.max(m), self.threshold) {
                    st.pairs += 1;
                    out.push(TrigramPair {
                        a: p.min(q),
                        b: p.max(q),
                        overlap: o as u32,
                        similarity: similarity_of(o, n, m),
                    });
                }
            }
        }
        st
    }

    /// Every pair at or over the threshold, sorted by (a, b), and the work it took.
    pub fn pairs(&self) -> (Vec<TrigramPair>, JoinStats) {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        let mut st = JoinStats::default();
        for x in 0..self.len() {
            st.add(&self.probe(x, &mut scratch, &mut out));
        }
        sort_pairs(&mut out);
        (out, st)
    }
}

/// Sorts pairs by (a, b), the output order.
pub fn sort_pairs(p: &mut [TrigramPair]) {
    p.sort_unstable_by_key(|p| (p.a, p.b));
}

/// The overlap of two sorted slices if it is at least `need`, else `None` (stopping as soon
/// as what is left cannot make up the difference).
pub(crate) fn overlap_at_least<T: Ord>(a: &[T], b: &[T], need: usize) -> Option<usize> {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if n + (a.len() - i).min(b.len() - j) < need {
            return None;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (n >= need).then_some(n)
}

/// Every pair at or over `t` by comparing all pairs: the reference the index is tested
/// against (and `pl-trigram --brute-force`). Sorted by (a, b). Quadratic: small corpora only.
pub fn brute_force(docs: &[(u64, Vec<Trigram>)], t: f64) -> Vec<TrigramPair> {
    let mut out = Vec::new();
    for i in 0..docs.len() {
        brute_force_row(docs, i, t, &mut out);
    }
    sort_pairs(&mut out);
    out
}

/// The pairs of [`brute_force`] between document `i` and every later document, appended
/// to `out` (unsorted); rows are independent, so a caller may run them in parallel.
pub fn brute_force_row(docs: &[(u64, Vec<Trigram>)], i: usize, t: f64, out: &mut Vec<TrigramPair>) {
    let (p, a) = (docs[i].0, &docs[i].1);
    for (q, b) in &docs[i + 1..] {
        let o = overlap(a, b);
        if p != *q && reaches(o, a.len().max(b.len()), t) {
            out.push(TrigramPair {
                a: p.min(*q),
                b: p.max(*q),
                overlap: o as u32,
                similarity: similarity_of(o, a.len(), b.len()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minhash::splitmix64;
    use proptest::prelude::*;

    fn tg(s: &str) -> Vec<Trigram> {
        let mut v = Vec::new();
        trigrams(s, &mut v);
        v
    }

    fn join(docs: &[(u64, Vec<Trigram>)], t: f64) -> Vec<TrigramPair> {
        TrigramIndex::build(docs.to_vec(), t).unwrap().pairs().0
    }

    #[test]
    fn trigrams_are_a_set_of_character_triples() {
        assert_eq!(
            tg("abab"),
            vec![pack('a', 'b', 'a'), pack('b', 'a', 'b')],
            "repeats removed, sorted"
        );
        assert_eq!(tg("ab"), Vec::<Trigram>::new());
        assert_eq!(tg(""), Vec::<Trigram>::new());
        // Characters, not bytes: three two-byte letters are one trigram.
        assert_eq!(tg("äöü"), vec![pack('ä', 'ö', 'ü')]);
        assert_eq!(tg("a b").len(), 1, "spaces count");
    }

    #[test]
    fn packing_is_exact_for_the_largest_scalar() {
        let m = char::MAX;
        assert_eq!(pack(m, m, m) >> 42, m as u64);
        assert_ne!(pack('a', m, 'b'), pack('a', 'b', m));
    }

    #[test]
    fn similarity_is_overlap_over_the_larger_set() {
        // "abcd" → {abc, bcd}; "abcde" → {abc, bcd, cde}: 2 / 3.
        let (a, b) = (tg("abcd"), tg("abcde"));
        assert_eq!(overlap(&a, &b), 2);
        assert!((similarity_of(2, a.len(), b.len()) - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(similarity_of(0, 0, 0), 0.0);
    }

    #[test]
    fn min_overlap_agrees_with_the_final_test() {
        for n in 1..400 {
            for t in [0.01, 0.1, 0.3, 0.5, 0.7, 0.75, 0.8, 0.9, 0.95, 0.99, 1.0] {
                let k = min_overlap(n, t);
                assert!(reaches(k, n, t), "n={n} t={t} k={k}");
                assert!(k == 1 || !reaches(k - 1, n, t), "n={n} t={t} k={k}");
            }
        }
        // Exact products: 3 of 4 is 0.75.
        assert_eq!(min_overlap(4, 0.75), 3);
        assert_eq!(min_overlap(100, 0.75), 75);
    }

    #[test]
    fn thresholds_outside_zero_one_are_refused() {
        for t in [0.0, -0.5, 1.01, f64::NAN] {
            assert!(TrigramIndex::build(vec![], t).is_err(), "{t}");
        }
    }

    #[test]
    fn finds_a_near_copy_and_not_a_stranger() {
        let base = "the quick brown fox jumps over the lazy dog near the river bank";
        let docs = vec![
            (3, tg(base)),
            (1, tg(&base.replace("lazy", "lazz"))),
            (
                2,
                tg("an entirely different text about invoices and payments"),
            ),
            (4, tg("")),
        ];
        let (pairs, st) = TrigramIndex::build(docs.clone(), 0.75).unwrap().pairs();
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].a, pairs[0].b), (1, 3));
        assert!(pairs[0].similarity >= 0.75 && pairs[0].similarity < 1.0);
        assert_eq!(pairs, brute_force(&docs, 0.75));
        assert!(st.verified <= 1, "the stranger is filtered out: {st:?}");
    }

    #[test]
    fn identical_texts_meet_at_threshold_one() {
        let docs = vec![
            (1, tg("same text here")),
            (2, tg("same text here")),
            (3, tg("same text hers")),
        ];
        let p = join(&docs, 1.0);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].a, p[0].b, p[0].similarity), (1, 2, 1.0));
    }

    #[test]
    fn a_repeated_id_is_not_a_pair_with_itself() {
        let docs = vec![
            (5, tg("same text")),
            (5, tg("same text")),
            (6, tg("other words")),
        ];
        assert!(join(&docs, 0.5).is_empty());
        assert!(brute_force(&docs, 0.5).is_empty());
    }

    #[test]
    fn pairs_exactly_at_the_threshold_are_kept() {
        // {abc, bcd, cde, def} vs {abc, bcd, cde, xyz}: 3 of 4 = 0.75 exactly.
        let a: Vec<Trigram> = vec![1, 2, 3, 4];
        let b: Vec<Trigram> = vec![1, 2, 3, 9];
        let docs = vec![(1, a), (2, b)];
        assert_eq!(join(&docs, 0.75).len(), 1);
        assert_eq!(join(&docs, 0.750001).len(), 0);
    }

    /// A random corpus of small sets over a small alphabet of trigrams, with families of
    /// related sets, so that pairs land on both sides of any threshold.
    fn corpus(seed: u64, n: usize, universe: u64, max_len: usize) -> Vec<(u64, Vec<Trigram>)> {
        let mut st = seed;
        let mut docs: Vec<(u64, Vec<Trigram>)> = Vec::new();
        for i in 0..n {
            let mut s: Vec<Trigram> = if i > 0 && splitmix64(&mut st) % 2 == 0 {
                // Mutate an earlier document: drop and add a few elements.
                let src = &docs[(splitmix64(&mut st) % i as u64) as usize].1;
                let mut s: Vec<Trigram> = src
                    .iter()
                    .copied()
                    .filter(|_| splitmix64(&mut st) % 8 != 0)
                    .collect();
                for _ in 0..splitmix64(&mut st) % 4 {
                    s.push(splitmix64(&mut st) % universe);
                }
                s
            } else {
                let len = (splitmix64(&mut st) % max_len as u64) as usize;
                (0..len).map(|_| splitmix64(&mut st) % universe).collect()
            };
            s.sort_unstable();
            s.dedup();
            // Ids are not in input order, and some repeat the order of sizes.
            docs.push((splitmix64(&mut st) % 1_000_000, s));
        }
        docs.sort_by_key(|d| d.0);
        docs.dedup_by_key(|d| d.0);
        docs
    }

    #[test]
    fn histogram_bounds_the_overlap_and_gives_up_when_full() {
        let (a, b): (Vec<u32>, Vec<u32>) = ((0..300).collect(), (150..500).collect());
        let (ha, hb) = (histogram(&a, 6), histogram(&b, 6));
        assert!(histogram_bound(&ha, &hb) >= overlap(&a, &b));
        assert!(histogram_bound(&ha, &hb) < a.len());
        let big: Vec<u32> = (0..64 * 255).collect();
        assert!(
            histogram(&big, 6).is_empty(),
            "a bucket over 254 disables the filter"
        );
        // Documents that large still pair exactly (64 buckets: the median is small).
        let big: Vec<Trigram> = (0..20_000).collect();
        let near: Vec<Trigram> = (500..20_400).collect();
        let small = |x: u64| (x, vec![1, 2, 10 + x]);
        let docs = vec![(1, big), (2, near), small(3), small(4), small(5), small(6)];
        let p = join(&docs, 0.7);
        assert_eq!(p, brute_force(&docs, 0.7));
        assert_eq!(
            p.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            vec![(1, 2)]
        );
        let idx = TrigramIndex::build(docs, 0.7).unwrap();
        assert!(
            idx.hist.iter().filter(|h| h.is_empty()).count() == 2,
            "both large ones overflow"
        );
    }

    #[test]
    fn fewer_verifications_than_pairs_on_a_spread_corpus() {
        let docs = corpus(5, 400, 5000, 60);
        let (p, st) = TrigramIndex::build(docs.clone(), 0.8).unwrap().pairs();
        assert_eq!(p, brute_force(&docs, 0.8));
        let all = (docs.len() * (docs.len() - 1) / 2) as u64;
        assert!(st.verified * 10 < all, "{st:?} of {all}");
        assert_eq!(st.pairs, p.len() as u64);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The index finds exactly the pairs brute force finds, with the same overlaps.
        #[test]
        fn index_equals_brute_force(
            seed in any::<u64>(),
            n in 0usize..60,
            universe in 2u64..200,
            max_len in 1usize..40,
            t in prop_oneof![0.01f64..=1.0, prop::sample::select(vec![0.5, 0.75, 0.8, 0.9, 1.0])],
        ) {
            let docs = corpus(seed, n, universe, max_len);
            let want = brute_force(&docs, t);
            let got = join(&docs, t);
            prop_assert_eq!(&got, &want, "t={}", t);
            // Probing out of order (as parallel callers do) finds the same set.
            let idx = TrigramIndex::build(docs.clone(), t).unwrap();
            let mut s = Scratch::default();
            let mut rev = Vec::new();
            for x in (0..idx.len()).rev() {
                idx.probe(x, &mut s, &mut rev);
            }
            sort_pairs(&mut rev);
            prop_assert_eq!(rev, want);
        }

        /// Texts made of a few words: the trigram sets come from `trigrams`, spaces included.
        #[test]
        fn texts_equal_brute_force(seed in any::<u64>(), n in 2usize..30, t in 0.3f64..1.0) {
            let words = ["rechnung", "invoice", "betrag", "eur", "amount", "due", "fällig", "nr", "12", "123"];
            let mut st = seed;
            let docs: Vec<(u64, Vec<Trigram>)> = (0..n as u64).map(|id| {
                let len = 1 + splitmix64(&mut st) % 12;
                let text: Vec<&str> = (0..len).map(|_| words[(splitmix64(&mut st) % 10) as usize]).collect();
                (id, tg(&text.join(" ")))
            }).collect();
            prop_assert_eq!(join(&docs, t), brute_force(&docs, t));
        }
    }
}
