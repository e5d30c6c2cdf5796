//! Locality-sensitive hashing over MinHash signatures: banding, candidate pairs, and the
//! S-curve that says how likely a pair of a given similarity becomes a candidate.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

/// How a signature of K values is cut into bands of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    /// Number of bands b.
    pub bands: usize,
    /// Rows per band r = K / b.
    pub rows: usize,
}

impl Banding {
    /// Cuts K values into `bands` bands; K must divide evenly.
    pub fn new(perms: usize, bands: usize) -> Result<Banding> {
        if bands == 0 || perms == 0 || perms % bands != 0 {
            return Err(Error::Config(format!(
                "{perms} permutations cannot be cut into {bands} bands of equal rows: choose bands that divide the permutations (for K={perms}: {})",
                divisors(perms)
            )));
        }
        Ok(Banding {
            bands,
            rows: perms / bands,
        })
    }

    /// The bucket key of band `band` of a signature: xxh3-64 of the band's values
    /// (little-endian bytes), seeded with the band number.
    pub fn key(&self, sig: &[u32], band: usize) -> u64 {
        let vals = &sig[band * self.rows..(band + 1) * self.rows];
        let mut bytes = [0u8; 4 * 64];
        if vals.len() <= 64 {
            for (chunk, v) in bytes.chunks_exact_mut(4).zip(vals) {
                chunk.copy_from_slice(&v.to_le_bytes());
            }
            xxh3_64_with_seed(&bytes[..4 * vals.len()], band as u64)
        } else {
            let owned: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
            xxh3_64_with_seed(&owned, band as u64)
        }
    }

    /// The bucket keys of every band of a signature.
    pub fn keys(&self, sig: &[u32]) -> Vec<u64> {
        (0..self.bands).map(|b| self.key(sig, b)).collect()
    }
}

fn divisors(n: usize) -> String {
    let d: Vec<String> = (1..=n)
        .filter(|d| n % d == 0)
        .map(|d| d.to_string())
        .collect();
    d.join(", ")
}

/// A candidate pair: `a < b`, and the number of bands in which they shared a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// Smaller id.
    pub a: u64,
    /// Larger id.
    pub b: u64,
    /// Bands in which the two signatures were equal.
    pub bands: u32,
}

/// The candidates of several sketches of one corpus as one list: sorted by `(a, b)`, each
/// pair once, with the most bands any sketch gave it.
pub fn union(lists: Vec<Vec<Candidate>>) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = lists.into_iter().flatten().collect();
    all.sort_unstable_by_key(|c| (c.a, c.b, std::cmp::Reverse(c.bands)));
    all.dedup_by_key(|c| (c.a, c.b));
    all
}

/// The band rule: which shared buckets propose a pair, and how many make it a candidate.
/// pl-lsh, `--from-keys`, the index and pl-spark all ask this one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandRule {
    /// A pair is a candidate when it shares at least this many buckets of one sketch.
    pub min_matches: u32,
    /// A bucket holding more banded documents than this proposes no pair: what that many
    /// documents share is boilerplate (a template's letterhead, a licence's last lines), not
    /// evidence of duplication. `usize::MAX`: no limit.
    pub max_bucket: usize,
}

/// The default largest bucket whose documents are paired.
pub const DEFAULT_MAX_BUCKET: usize = 50;

impl Default for BandRule {
    fn default() -> BandRule {
        BandRule {
            min_matches: 1,
            max_bucket: DEFAULT_MAX_BUCKET,
        }
    }
}

impl BandRule {
    /// The rule of the command-line flags: `--max-bucket 0` means no limit.
    pub fn new(min_matches: u32, max_bucket: usize) -> BandRule {
        BandRule {
            min_matches,
            max_bucket: if max_bucket == 0 {
                usize::MAX
            } else {
                max_bucket
            },
        }
    }

    /// The limit as the flag writes it (0: none).
    pub fn max_bucket_flag(&self) -> usize {
        if self.max_bucket == usize::MAX {
            0
        } else {
            self.max_bucket
        }
    }

    /// Whether a bucket of `size` banded documents pairs them.
    pub fn pairs(&self, size: usize) -> bool {
        size >= 2 && size <= self.max_bucket
    }

    /// Whether `bands` shared buckets of one sketch make a candidate.
    pub fn enough(&self, bands: u64) -> bool {
        bands >= u64::from(self.min_matches)
    }

    /// Whether the buckets two documents share in one sketch ([`shared_buckets`]) make them a
    /// candidate, as [`candidates`] decides: enough of them pair their documents.
    pub fn proposes(&self, shared: &[SharedBucket]) -> bool {
        self.enough(shared.iter().filter(|s| self.pairs(s.size)).count() as u64)
    }
}

/// Finds every pair of documents that share a bucket in enough bands under `rule`.
///
/// `keys[d]` holds the band keys of document `ids[d]`. Buckets are found band by band by
/// sorting (key, doc), so there is no allocation per bucket; the only quadratic work is
/// within a bucket, at most `rule.max_bucket` documents. Memory: the keys, one band's sort,
/// and one counter per distinct pair. Pairs come out sorted by (a, b), each once.
pub fn candidates(ids: &[u64], keys: &[Vec<u64>], rule: BandRule) -> Vec<Candidate> {
    let bands = keys.first().map_or(0, Vec::len);
    let mut shared: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    let mut column: Vec<(u64, u32)> = Vec::with_capacity(ids.len());
    for band in 0..bands {
        column.clear();
        column.extend(keys.iter().enumerate().map(|(d, ks)| (ks[band], d as u32)));
        column.sort_unstable();
        for run in column.chunk_by(|x, y| x.0 == y.0) {
            if !rule.pairs(run.len()) {
                continue;
            }
            for (i, x) in run.iter().enumerate() {
                for y in &run[i + 1..] {
                    let (p, q) = (ids[x.1 as usize], ids[y.1 as usize]);
                    if p != q {
                        *shared.entry((p.min(q), p.max(q))).or_default() += 1;
                    }
                }
            }
        }
    }
    let mut out: Vec<Candidate> = shared
        .into_iter()
        .filter(|&(_, n)| rule.enough(u64::from(n)))
        .map(|((a, b), bands)| Candidate { a, b, bands })
        .collect();
    out.sort_unstable();
    out
}

/// Documents that may hold a number for it to propose their pairs: the ledger's wide
/// agreement's ([`crate::ledger::WIDE_DF`]).
pub const NUMBER_BUCKET: usize = crate::ledger::WIDE_DF as usize;
/// Numbers two documents must share to be a candidate by them.
pub const NUMBER_MATCHES: u32 = 2;

/// The pairs proposed by the numbers their documents share: a copy with a page added or
/// removed, or read badly, still holds its original's invoice number, dates and amounts
/// where its whole text's bands miss it. `postings` holds (number hash, document) for every
/// document of the corpus, copies included; a number held by at most [`NUMBER_BUCKET`]
/// documents in all pairs those of them that are `banded`, and two documents sharing at least
/// [`NUMBER_MATCHES`] such numbers are a candidate, with 0 bands. Sorted by (a, b), each once.
/// Memory: the postings (16 bytes each) and one counter per pair (at most
/// `NUMBER_BUCKET − 1` partners per number of a document).
pub fn number_pairs(mut postings: Vec<(u64, u64)>, banded: impl Fn(u64) -> bool) -> Vec<Candidate> {
    postings.sort_unstable();
    postings.dedup();
    let mut shared: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    for run in postings.chunk_by(|x, y| x.0 == y.0) {
        if run.len() < 2 || run.len() > NUMBER_BUCKET {
            continue;
        }
        let ids: Vec<u64> = run.iter().map(|p| p.1).filter(|&d| banded(d)).collect();
        for (i, &x) in ids.iter().enumerate() {
            for &y in &ids[i + 1..] {
                *shared.entry((x, y)).or_default() += 1;
            }
        }
    }
    let mut out: Vec<Candidate> = shared
        .into_iter()
        .filter(|&(_, n)| n >= NUMBER_MATCHES)
        .map(|((a, b), _)| Candidate { a, b, bands: 0 })
        .collect();
    out.sort_unstable();
    out
}

/// The buckets documents `x` and `y` (indices into `keys`, as [`candidates`] takes them) share
/// in one sketch: each band where their keys are equal, with the number of documents in that
/// bucket. What `pl-lsh --why` shows; [`BandRule::proposes`] gives the verdict.
pub fn shared_buckets(keys: &[Vec<u64>], x: usize, y: usize) -> Vec<SharedBucket> {
    let bands = keys.first().map_or(0, Vec::len);
    (0..bands)
        .filter(|&band| keys[x][band] == keys[y][band])
        .map(|band| {
            let key = keys[x][band];
            let size = keys.iter().filter(|ks| ks[band] == key).count();
            SharedBucket { band, size }
        })
        .collect()
}

/// A bucket two documents share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SharedBucket {
    /// The band (0-based).
    pub band: usize,
    /// Banded documents in the bucket, the two included.
    pub size: usize,
}

/// The numbers documents `a` and `b` share, each with how many documents hold it
/// (`postings` as [`number_pairs`] takes them, sorted and deduplicated), sorted by hash.
pub fn shared_numbers(postings: &[(u64, u64)], a: u64, b: u64) -> Vec<(u64, usize)> {
    let mut out = Vec::new();
    for run in postings.chunk_by(|x, y| x.0 == y.0) {
        let holds = |d: u64| run.binary_search_by_key(&d, |p| p.1).is_ok();
        if holds(a) && holds(b) {
            out.push((run[0].0, run.len()));
        }
    }
    out
}

/// Whether the shared numbers of [`shared_numbers`] make two banded documents a candidate,
/// as [`number_pairs`] decides.
pub fn numbers_propose(shared: &[(u64, usize)]) -> bool {
    let counted = shared.iter().filter(|&&(_, n)| n <= NUMBER_BUCKET).count();
    counted >= NUMBER_MATCHES as usize
}

/// and signatures are equal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopySets {
    /// Whether each input document takes part in banding: every document except the members
    /// of a copy set other than its representative (its lowest id).
    pub banded: Vec<bool>,
    /// Star pairs `(representative, member)`, one per other member of each copy set,
    /// sorted by (a, b), each once.
    pub pairs: Vec<(u64, u64)>,
    /// Copy sets of two or more documents.
    pub sets: usize,
    /// Documents in those copy sets (representatives included).
    pub docs: usize,
}

impl CopySets {
    /// The items of the documents that take part in banding (`items` one per input
    /// document, in input order).
    pub fn keep_banded<T>(&self, items: Vec<T>) -> Vec<T> {
        assert_eq!(items.len(), self.banded.len(), "one item per document");
        items
            .into_iter()
            .zip(&self.banded)
            .filter(|(_, &b)| b)
            .map(|(x, _)| x)
            .collect()
    }
}

/// The candidate pairs and the copy pairs (both sorted by `(a, b)`) as one list in that
/// order, each pair once: a copy pair, also when banding found it, with every one of
/// `all_bands` bands (`true`: a copy), then the others as they are.
pub fn with_copies<'a>(
    cands: &'a [Candidate],
    copies: &'a [(u64, u64)],
    all_bands: u32,
) -> impl Iterator<Item = (Candidate, bool)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let c = cands.get(i);
        match copies.get(j) {
            Some(&(a, b)) if c.is_none_or(|c| (a, b) <= (c.a, c.b)) => {
                j += 1;
                if c.is_some_and(|c| (a, b) == (c.a, c.b)) {
                    i += 1;
                }
                let bands = all_bands;
                Some((Candidate { a, b, bands }, true))
            }
            _ => {
                i += 1;
                c.map(|&c| (c, false))
            }
        }
    })
}

/// Whether a signature is that of an empty shingle set (every value `u32::MAX`).
pub fn is_empty_signature(sig: &[u32]) -> bool {
    sig.iter().all(|&v| v == u32::MAX)
}

/// Groups documents by fingerprint so that k copies of one text cost one banded document and
/// k − 1 star pairs instead of k·(k−1)/2 candidate pairs.
///
/// Two documents are copies when their fingerprints and signatures are equal (a copy's
/// signature is always equal; comparing it too keeps a hand-made stream honest). Documents
/// with an empty shingle set (an all-`u32::MAX` signature) are never collapsed: they are
/// banded as before. A record repeating an id already in its copy set adds nothing.
pub fn copy_sets(ids: &[u64], fingerprints: &[u128], sigs: &[Vec<u32>]) -> CopySets {
    assert!(
        ids.len() == fingerprints.len() && ids.len() == sigs.len(),
        "one id, fingerprint and signature per document"
    );
    let mut order: Vec<usize> = (0..ids.len())
        .filter(|&d| !is_empty_signature(&sigs[d]))
        .collect();
    order.sort_unstable_by(|&x, &y| {
        fingerprints[x]
            .cmp(&fingerprints[y])
            .then_with(|| sigs[x].cmp(&sigs[y]))
            .then(ids[x].cmp(&ids[y]))
            .then(x.cmp(&y))
    });
    let mut out = CopySets {
        banded: vec![true; ids.len()],
        ..CopySets::default()
    };
    for run in order.chunk_by(|&x, &y| fingerprints[x] == fingerprints[y] && sigs[x] == sigs[y]) {
        let rep = ids[run[0]];
        for &d in &run[1..] {
            out.banded[d] = false;
        }
        let before = out.pairs.len();
        let mut last = rep;
        for &d in &run[1..] {
            // Sorted by id within the run, so a repeated id follows itself.
            if ids[d] != last {
                out.pairs.push((rep, ids[d]));
                last = ids[d];
            }
        }
        let members = out.pairs.len() - before;
        if members > 0 {
            out.sets += 1;
            out.docs += members + 1;
        }
    }
    out.pairs.sort_unstable();
    out.pairs.dedup();
    out
}

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
    use crate::minhash::splitmix64;
    use proptest::prelude::*;

    #[test]
    fn copies_merge_into_the_candidates_once_each() {
        let c = |a, b, bands| Candidate { a, b, bands };
        let cands = [c(1, 2, 3), c(1, 5, 32), c(4, 6, 1)];
        let copies = [(1, 5), (3, 9)];
        let out: Vec<(Candidate, bool)> = with_copies(&cands, &copies, 32).collect();
        assert_eq!(
            out,
            [
                (c(1, 2, 3), false),
                (c(1, 5, 32), true),
                (c(3, 9, 32), true),
                (c(4, 6, 1), false)
            ]
        );
        assert_eq!(with_copies(&cands, &[], 32).count(), 3);
        assert_eq!(with_copies(&[], &copies, 8).count(), 2);
    }

    #[test]
    fn only_the_representatives_are_banded() {
        let sigs = [vec![1, 2], vec![1, 2], vec![3, 4]];
        let c = copy_sets(&[7, 3, 5], &[1, 1, 2], &sigs);
        assert_eq!(c.pairs, [(3, 7)]);
        assert_eq!(c.keep_banded(vec![7, 3, 5]), [3, 5]);
    }

    #[test]
    fn keys_are_each_bands_key() {
        let band = Banding::new(4, 2).unwrap();
        let sig = [1, 2, 3, 4];
        assert_eq!(band.keys(&sig), [band.key(&sig, 0), band.key(&sig, 1)]);
    }

    #[test]
    fn indivisible_bands_name_the_choices() {
        let err = Banding::new(256, 30).unwrap_err().to_string();
        assert!(
            err.contains("256") && err.contains("30") && err.contains("32"),
            "{err}"
        );
    }

    #[test]
    fn equal_bands_make_a_candidate_once() {
        let band = Banding::new(4, 2).unwrap();
        let sigs = [
            vec![1, 2, 3, 4],
            vec![1, 2, 9, 9],
            vec![1, 2, 3, 4],
            vec![7, 7, 7, 7],
        ];
        let keys: Vec<Vec<u64>> = sigs
            .iter()
            .map(|s| (0..2).map(|b| band.key(s, b)).collect())
            .collect();
        let ids = [30, 10, 20, 40];
        let c = candidates(&ids, &keys, BandRule::new(1, 0));
        assert_eq!(
            c,
            vec![
                Candidate {
                    a: 10,
                    b: 20,
                    bands: 1
                },
                Candidate {
                    a: 10,
                    b: 30,
                    bands: 1
                },
                Candidate {
                    a: 20,
                    b: 30,
                    bands: 2
                },
            ]
        );
        assert_eq!(
            candidates(&ids, &keys, BandRule::new(2, 0)),
            vec![Candidate {
                a: 20,
                b: 30,
                bands: 2
            }]
        );
    }

    #[test]
    fn a_bucket_over_the_limit_pairs_nobody() {
        // Band 0: ids 1, 2, 3 share a key (a bucket of three); band 1: only 1 and 2 do.
        let keys = vec![vec![5, 8], vec![5, 8], vec![5, 9]];
        let ids = [1, 2, 3];
        let all = candidates(&ids, &keys, BandRule::new(1, 0));
        assert_eq!(all.len(), 3);
        assert_eq!(
            all[0],
            Candidate {
                a: 1,
                b: 2,
                bands: 2
            }
        );
        let capped = candidates(&ids, &keys, BandRule::new(1, 2));
        assert_eq!(
            capped,
            vec![Candidate {
                a: 1,
                b: 2,
                bands: 1
            }]
        );
        assert!(candidates(&ids, &keys, BandRule::new(2, 2)).is_empty());
        assert_eq!(BandRule::new(1, 0).max_bucket_flag(), 0);
        assert_eq!(BandRule::new(1, 7).max_bucket_flag(), 7);
        assert!(!BandRule::default().pairs(DEFAULT_MAX_BUCKET + 1));
        assert!(BandRule::default().pairs(DEFAULT_MAX_BUCKET));
    }

    #[test]
    fn copies_collapse_to_a_star_around_the_lowest_id() {
        let (x, y) = (vec![1, 2, 3, 4], vec![5, 6, 7, 8]);
        // Ids 9, 3, 7, 5 are one text; 4 and 8 another; 6 stands alone.
        let ids = [9, 4, 3, 7, 6, 8, 5];
        let fps = [1u128, 2, 1, 1, 3, 2, 1];
        let sigs = [
            x.clone(),
            y.clone(),
            x.clone(),
            x.clone(),
            vec![9, 9, 9, 9],
            y.clone(),
            x.clone(),
        ];
        let c = copy_sets(&ids, &fps, &sigs);
        assert_eq!(c.pairs, vec![(3, 5), (3, 7), (3, 9), (4, 8)]);
        assert_eq!(
            c.banded,
            vec![false, true, true, false, true, false, false],
            "only the lowest id of a copy set is banded"
        );
        assert_eq!((c.sets, c.docs), (2, 6));
    }

    #[test]
    fn empty_sets_and_unequal_signatures_are_not_collapsed() {
        let empty = vec![u32::MAX; 4];
        let ids = [1, 2, 3, 4, 5];
        let fps = [7u128, 7, 8, 8, 8];
        let sigs = [
            empty.clone(),
            empty.clone(),
            vec![1, 2, 3, 4],
            vec![1, 2, 3, 5],
            vec![1, 2, 3, 4],
        ];
        let c = copy_sets(&ids, &fps, &sigs);
        assert_eq!(c.pairs, vec![(3, 5)]);
        assert_eq!(c.banded, vec![true, true, true, true, false]);
        assert_eq!((c.sets, c.docs), (1, 2));
        // A repeated record of one document is no pair.
        let c = copy_sets(&[4, 4], &[1, 1], &[vec![1, 2], vec![1, 2]]);
        assert_eq!((c.pairs.len(), c.sets, c.docs), (0, 0, 0));
        assert_eq!(c.banded, vec![true, false]);
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
                hits += candidates(&[1, 2], &keys, BandRule::new(1, 0)).len();
            }
            let p = candidate_probability(s, rows, bands, 1);
            let rate = hits as f64 / trials as f64;
            let se = (p * (1.0 - p) / trials as f64).sqrt().max(1e-3);
            prop_assert!((rate - p).abs() <= 5.0 * se, "s={s} rows={rows} p={p} rate={rate}");
        }
    }

    #[test]
    fn union_keeps_each_pair_once_with_its_most_bands() {
        let c = |a, b, bands| Candidate { a, b, bands };
        let u = union(vec![
            vec![c(1, 2, 3), c(2, 5, 1)],
            vec![c(1, 2, 7), c(1, 3, 2)],
            vec![],
        ]);
        assert_eq!(u, vec![c(1, 2, 7), c(1, 3, 2), c(2, 5, 1)]);
    }

    #[test]
    fn documents_sharing_two_rare_numbers_are_candidates() {
        // Numbers 1 and 2 are held by documents 10 and 20 (and 2 by a copy, 30, not banded);
        // 3 by seven documents: too many to tell anything.
        let mut postings = vec![(1, 20), (1, 10), (2, 10), (2, 20), (2, 30), (1, 10)];
        postings.extend((0..7).map(|d| (3, 40 + d)));
        postings.extend([(3, 10), (4, 10), (4, 41)]);
        let banded = |d: u64| d != 30;
        assert_eq!(
            number_pairs(postings.clone(), banded),
            vec![Candidate {
                a: 10,
                b: 20,
                bands: 0
            }]
        );
        // One shared number is not enough; a bucket of seven pairs nobody.
        postings.retain(|p| p.0 != 1);
        assert!(number_pairs(postings, banded).is_empty());
        // A number in six documents still pairs them.
        let six: Vec<(u64, u64)> = (0..6).flat_map(|d| [(5, d), (6, d)]).collect();
        assert_eq!(number_pairs(six, |_| true).len(), 15);
    }

    proptest! {
        /// `--why`'s account of a pair agrees with the candidates: its shared buckets propose
        /// it exactly when [`candidates`] pairs it, whatever the bucket limit; its shared
        /// numbers exactly when [`number_pairs`] does.
        #[test]
        fn why_agrees_with_the_candidates(
            keys in proptest::collection::vec(proptest::collection::vec(0u64..3, 4), 2..12),
            min in 1u32..3,
            cap in 0usize..6,
            numbers in proptest::collection::vec((0u64..6, 0u64..12), 0..60),
        ) {
            let ids: Vec<u64> = (0..keys.len() as u64).collect();
            let rule = BandRule::new(min, cap);
            let found = candidates(&ids, &keys, rule);
            let mut postings = numbers.clone();
            postings.sort_unstable();
            postings.dedup();
            let by_numbers = number_pairs(postings.clone(), |_| true);
            for x in 0..keys.len() {
                for y in x + 1..keys.len() {
                    let (a, b) = (x as u64, y as u64);
                    let shared = shared_buckets(&keys, x, y);
                    let listed = found.iter().any(|c| (c.a, c.b) == (a, b));
                    prop_assert_eq!(rule.proposes(&shared), listed, "{} {} {:?}", a, b, shared);
                    let listed = by_numbers.iter().any(|c| (c.a, c.b) == (a, b));
                    prop_assert_eq!(numbers_propose(&shared_numbers(&postings, a, b)), listed);
                }
            }
        }
    }
}
