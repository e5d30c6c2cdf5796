//! Locality-sensitive hashing over MinHash signatures: banding, candidate pairs, and the
//! S-curve that says how likely a pair of a given similarity becomes a candidate.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::error::{Error, Result};

mod curve;
mod numbers;
mod rule;
mod table;
pub use curve::{candidate_probability, explain, half_point};
pub use numbers::{number_pairs, numbers_propose, shared_numbers, NUMBER_BUCKET, NUMBER_MATCHES};
pub use rule::{
    check_evidence_bucket, BandRule, RuleSheet, DEFAULT_EVIDENCE_BUCKET, DEFAULT_MAX_BUCKET,
};
pub use table::{candidates_of, BandTable, Buckets};

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

/// A candidate pair: `a < b`, the number of bands in which they shared a bucket, and the
/// evidence of the buckets they shared ([`BandRule::weight`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// Smaller id.
    pub a: u64,
    /// Larger id.
    pub b: u64,
    /// Bands in which the two signatures were equal.
    pub bands: u32,
    /// The sum of the weights of the buckets the two shared, in [`EVIDENCE_UNIT`]s;
    /// [`FULL_EVIDENCE`] for a pair the numbers propose. 4 bytes, as the bands: a million
    /// documents' pairs before the rule are tens of millions.
    pub evidence: u32,
}

impl Candidate {
    /// A pair found by its own rule (the index's look-ups, which ask the evidence
    /// themselves), to be scored: its evidence is not counted again.
    pub fn scored(a: u64, b: u64, bands: u32) -> Candidate {
        Candidate {
            a,
            b,
            bands,
            evidence: FULL_EVIDENCE,
        }
    }
}

/// One bucket of two documents: the evidence a pair gets from a bucket of n documents is
/// `EVIDENCE_UNIT / (n − 1)`, exact up to 17 documents (720,720 is divisible by 1 to 16) and
/// rounded down beyond, so that sums are whole numbers, the same in any order and on any
/// machine.
pub const EVIDENCE_UNIT: u64 = 720_720;

/// The evidence of a pair proposed by what needs no bucket (its numbers, or a copy): always
/// enough.
pub const FULL_EVIDENCE: u32 = u32::MAX;

/// The candidates of several sketches (and the numbers) of one corpus as one list: sorted by
/// `(a, b)`, each pair once, with the most bands any sketch gave it and the evidence of all.
/// Each list is sorted by `(a, b)`, as [`candidates`] and [`number_pairs`] write them.
pub fn union(lists: Vec<Vec<Candidate>>) -> Vec<Candidate> {
    merge(&lists, |_| true)
}

/// The candidate pairs of several sketches' and the numbers' lists under `rule`: their
/// [`union`], less the pairs whose buckets are not evidence enough ([`BandRule::evident`]).
pub fn propose(lists: Vec<Vec<Candidate>>, rule: BandRule) -> Vec<Candidate> {
    merge(&lists, |c| rule.evident(u64::from(c.evidence)))
}

/// The sorted lists merged pair by pair, the pairs `keep` refuses left out as they come: only
/// the lists and what is kept are held, never all of them twice.
fn merge(lists: &[Vec<Candidate>], keep: impl Fn(&Candidate) -> bool) -> Vec<Candidate> {
    let key = |c: &Candidate| (c.a, c.b);
    debug_assert!(lists
        .iter()
        .all(|l| l.windows(2).all(|w| key(&w[0]) <= key(&w[1]))));
    let mut at = vec![0usize; lists.len()];
    let mut out = Vec::new();
    loop {
        let next = lists
            .iter()
            .zip(&at)
            .filter_map(|(l, &i)| l.get(i).map(key))
            .min();
        let Some(k) = next else {
            return out;
        };
        let mut merged: Option<Candidate> = None;
        for (l, i) in lists.iter().zip(at.iter_mut()) {
            while let Some(c) = l.get(*i).filter(|c| key(c) == k) {
                *i += 1;
                merged = Some(match merged {
                    None => *c,
                    Some(m) => Candidate {
                        bands: m.bands.max(c.bands),
                        evidence: m.evidence.saturating_add(c.evidence),
                        ..m
                    },
                });
            }
        }
        let m = merged.expect("the smallest pair is in some list");
        if keep(&m) {
            out.push(m);
        }
    }
}

/// Finds every pair of documents that share a bucket in enough bands under `rule`, with the
/// evidence of those buckets (the rule's evidence is asked of the sketches' [`propose`]).
///
/// `keys[d]` holds the band keys of document `ids[d]`; the ids are distinct (every stage
/// refuses a repeated one). Buckets are found band by band by sorting (key, doc), so there is
/// no allocation per bucket; the only quadratic work is within a bucket, at most
/// `rule.max_bucket` documents. Memory: the keys, one band's sort (12 bytes a document) and
/// its pairs (12 bytes each), and the pairs counted so far, 16 bytes each, twice while a band
/// is merged in; the list returned (24 bytes a pair) is filled from them, so at most 40 bytes
/// a distinct pair. Pairs come out sorted by (a, b), each once.
pub fn candidates(ids: &[u64], keys: &[Vec<u64>], rule: BandRule) -> Vec<Candidate> {
    let n = u32::try_from(ids.len()).expect("a sketch of at most 2^32 documents");
    let bands = keys.first().map_or(0, Vec::len);
    // Each document's rank by id: a pair is counted under its two ranks, one 8-byte key that
    // sorts as the pair (a, b) does.
    let mut by_id: Vec<u32> = (0..n).collect();
    by_id.sort_unstable_by_key(|&d| ids[d as usize]);
    let mut rank = vec![0u32; ids.len()];
    for (r, &d) in by_id.iter().enumerate() {
        rank[d as usize] = r as u32;
    }
    // The pairs counted so far, sorted, 16 bytes each; each band's pairs are sorted and merged
    // in (two documents share at most one bucket of a band).
    let mut counted: Vec<(u64, Shared)> = Vec::new();
    let mut band_pairs: Vec<(u64, u32)> = Vec::new();
    let mut column: Vec<(u64, u32)> = Vec::with_capacity(ids.len());
    for band in 0..bands {
        column.clear();
        column.extend(keys.iter().enumerate().map(|(d, ks)| (ks[band], d as u32)));
        rayon::slice::ParallelSliceMut::par_sort_unstable(&mut column[..]);
        band_pairs.clear();
        for run in column.chunk_by(|x, y| x.0 == y.0) {
            if !rule.pairs(run.len()) {
                continue;
            }
            let weight = rule.weight(run.len()) as u32;
            for (i, x) in run.iter().enumerate() {
                for y in &run[i + 1..] {
                    let (p, q) = (rank[x.1 as usize], rank[y.1 as usize]);
                    if ids[x.1 as usize] != ids[y.1 as usize] {
                        band_pairs
                            .push(((u64::from(p.min(q)) << 32) | u64::from(p.max(q)), weight));
                    }
                }
            }
        }
        rayon::slice::ParallelSliceMut::par_sort_unstable(&mut band_pairs[..]);
        counted = merge_counts(counted, &band_pairs);
    }
    let pair = |place: u64| {
        (
            ids[by_id[(place >> 32) as usize] as usize],
            ids[by_id[place as u32 as usize] as usize],
        )
    };
    let mut out: Vec<Candidate> = Vec::with_capacity(counted.len());
    out.extend(counted.into_iter().filter_map(|(place, s)| {
        let (a, b) = pair(place);
        s.candidate(a, b, rule)
    }));
    out
}

/// `counted` with one more band's pairs (`band`, sorted, each once) counted in.
fn merge_counts(counted: Vec<(u64, Shared)>, band: &[(u64, u32)]) -> Vec<(u64, Shared)> {
    let mut out = Vec::with_capacity(counted.len() + band.len());
    let mut old = counted.into_iter().peekable();
    for &(place, weight) in band {
        while let Some(c) = old.next_if(|c| c.0 < place) {
            out.push(c);
        }
        let mut s = old
            .next_if(|c| c.0 == place)
            .map_or(Shared::default(), |c| c.1);
        s.add(weight);
        out.push((place, s));
    }
    out.extend(old);
    out
}

/// What the buckets two documents share in one sketch add up to, as [`candidates`] counts
/// them (and the index, bucket by bucket): the buckets that pair them and their evidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shared {
    /// Shared buckets that pair their documents ([`BandRule::pairs`]).
    pub bands: u32,
    /// Their summed weights, 4 bytes saturating: at most [`EVIDENCE_UNIT`] a bucket, so a
    /// sum cannot overflow before a few thousand bands.
    pub evidence: u32,
}

impl Shared {
    /// The buckets two documents share in one sketch ([`shared_buckets`]) counted as
    /// [`candidates`] counts them: those that pair their documents, with their weights.
    pub fn of(shared: &[SharedBucket], rule: BandRule) -> Shared {
        let mut s = Shared::default();
        for b in shared.iter().filter(|b| rule.pairs(b.size)) {
            s.add(rule.weight(b.size) as u32);
        }
        s
    }

    /// Counts one more shared bucket that pairs them ([`BandRule::pairs`]), of `weight`
    /// ([`BandRule::weight`]).
    pub fn add(&mut self, weight: u32) {
        self.bands += 1;
        self.evidence = self.evidence.saturating_add(weight);
    }

    /// The candidate `(a, b)` of this sketch, when enough buckets pair them.
    pub fn candidate(self, a: u64, b: u64, rule: BandRule) -> Option<Candidate> {
        rule.enough(u64::from(self.bands)).then_some(Candidate {
            a: a.min(b),
            b: a.max(b),
            bands: self.bands,
            evidence: self.evidence,
        })
    }
}

/// The buckets documents `x` and `y` (indices into `keys`, as [`candidates`] takes them) share
/// in one sketch: each band where their keys are equal, with the number of documents in that
/// bucket. What `pl-lsh --why` shows; [`propose`] gives the verdict under a [`BandRule`].
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
                let (bands, evidence) = (all_bands, FULL_EVIDENCE);
                Some((
                    Candidate {
                        a,
                        b,
                        bands,
                        evidence,
                    },
                    true,
                ))
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

/// What [`copy_sets`] compares of two documents' signatures: the signatures themselves, or
/// their [`SigDigest`]s.
pub trait SigKey: Ord {
    /// Whether it is an empty shingle set's signature (never collapsed).
    fn is_empty_set(&self) -> bool;
}

impl SigKey for Vec<u32> {
    fn is_empty_set(&self) -> bool {
        is_empty_signature(self)
    }
}

/// A signature in 16 bytes instead of 4 × K: its 64-bit hash and whether it is an empty
/// set's. Two documents with equal fingerprints have equal signatures unless a stream was
/// made by hand, and the hash tells such a pair apart but with odds of 2^-64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SigDigest {
    hash: u64,
    empty: bool,
}

impl SigDigest {
    /// The digest of `sig`.
    pub fn of(sig: &[u32]) -> SigDigest {
        SigDigest {
            hash: crate::minhash::sig_hash(sig),
            empty: is_empty_signature(sig),
        }
    }
}

impl SigKey for SigDigest {
    fn is_empty_set(&self) -> bool {
        self.empty
    }
}

/// Groups documents by fingerprint so that k copies of one text cost one banded document and
/// k − 1 star pairs instead of k·(k−1)/2 candidate pairs.
///
/// Two documents are copies when their fingerprints and signatures are equal (a copy's
/// signature is always equal; comparing it too, whole or as a [`SigDigest`], keeps a
/// hand-made stream honest). Documents
/// with an empty shingle set (an all-`u32::MAX` signature) are never collapsed: they are
/// banded as before. A record repeating an id already in its copy set adds nothing.
pub fn copy_sets<S: SigKey>(ids: &[u64], fingerprints: &[u128], sigs: &[S]) -> CopySets {
    assert!(
        ids.len() == fingerprints.len() && ids.len() == sigs.len(),
        "one id, fingerprint and signature per document"
    );
    let mut order: Vec<usize> = (0..ids.len())
        .filter(|&d| !sigs[d].is_empty_set())
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

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    #[test]
    fn copies_merge_into_the_candidates_once_each() {
        let c = |a, b, bands| Candidate {
            a,
            b,
            bands,
            evidence: 0,
        };
        let cands = [c(1, 2, 3), c(1, 5, 32), c(4, 6, 1)];
        let copies = [(1, 5), (3, 9)];
        let out: Vec<(Candidate, bool)> = with_copies(&cands, &copies, 32).collect();
        let copy = |a, b| Candidate::scored(a, b, 32);
        assert_eq!(
            out,
            [
                (c(1, 2, 3), false),
                (copy(1, 5), true),
                (copy(3, 9), true),
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
        let c = candidates(&ids, &keys, BandRule::new(1, 0, 0));
        assert_eq!(
            c,
            vec![
                Candidate {
                    a: 10,
                    b: 20,
                    bands: 1,
                    evidence: 360_360,
                },
                Candidate {
                    a: 10,
                    b: 30,
                    bands: 1,
                    evidence: 360_360,
                },
                Candidate {
                    a: 20,
                    b: 30,
                    bands: 2,
                    evidence: 1_081_080,
                },
            ]
        );
        assert_eq!(
            candidates(&ids, &keys, BandRule::new(2, 0, 0)),
            vec![Candidate {
                a: 20,
                b: 30,
                bands: 2,
                evidence: 1_081_080,
            }]
        );
    }

    #[test]
    fn a_bucket_over_the_limit_pairs_nobody() {
        // Band 0: ids 1, 2, 3 share a key (a bucket of three); band 1: only 1 and 2 do.
        let keys = vec![vec![5, 8], vec![5, 8], vec![5, 9]];
        let ids = [1, 2, 3];
        let all = candidates(&ids, &keys, BandRule::new(1, 0, 0));
        assert_eq!(all.len(), 3);
        assert_eq!(
            all[0],
            Candidate {
                a: 1,
                b: 2,
                bands: 2,
                evidence: 1_081_080,
            }
        );
        let capped = candidates(&ids, &keys, BandRule::new(1, 2, 0));
        assert_eq!(
            capped,
            vec![Candidate {
                a: 1,
                b: 2,
                bands: 1,
                evidence: 720_720,
            }]
        );
        assert!(candidates(&ids, &keys, BandRule::new(2, 2, 0)).is_empty());
        assert_eq!(BandRule::new(1, 0, 0).max_bucket_flag(), 0);
        assert_eq!(BandRule::new(1, 7, 0).max_bucket_flag(), 7);
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
        // pl-lsh compares the signatures' digests: the same sets.
        let digests: Vec<SigDigest> = sigs.iter().map(|s| SigDigest::of(s)).collect();
        assert_eq!(copy_sets(&ids, &fps, &digests), c);
        // A repeated record of one document is no pair.
        let c = copy_sets(&[4, 4], &[1, 1], &[vec![1, 2], vec![1, 2]]);
        assert_eq!((c.pairs.len(), c.sets, c.docs), (0, 0, 0));
        assert_eq!(c.banded, vec![true, false]);
    }

    #[test]
    fn siblings_meeting_only_in_crowded_buckets_are_not_proposed() {
        // Ten siblings of one template share band 0 (a bucket of ten) and nothing else; 0 and 1
        // are also copies read differently: they share bands 1 and 2 alone.
        let keys: Vec<Vec<u64>> = (0..10u64)
            .map(|d| {
                vec![
                    7,
                    if d < 2 { 1 } else { 100 + d },
                    if d < 2 { 2 } else { 200 + d },
                ]
            })
            .collect();
        let ids: Vec<u64> = (0..10).collect();
        let rule = BandRule::new(1, 0, DEFAULT_EVIDENCE_BUCKET);
        let found = candidates(&ids, &keys, rule);
        assert_eq!(found.len(), 45, "every pair shares band 0");
        let proposed = propose(vec![found], rule);
        assert_eq!(proposed.len(), 1, "{proposed:?}");
        assert_eq!((proposed[0].a, proposed[0].b, proposed[0].bands), (0, 1, 3));
        // 1/9 + 1 + 1 buckets of two.
        assert_eq!(
            u64::from(proposed[0].evidence),
            EVIDENCE_UNIT / 9 + 2 * EVIDENCE_UNIT
        );
        // Off, or the numbers: every pair.
        assert_eq!(
            propose(
                vec![candidates(&ids, &keys, BandRule::new(1, 0, 0))],
                BandRule::new(1, 0, 0)
            )
            .len(),
            45
        );
        let by_numbers = vec![Candidate::scored(3, 4, 0)];
        let both = propose(vec![candidates(&ids, &keys, rule), by_numbers], rule);
        assert_eq!(
            both.iter().map(|c| (c.a, c.b, c.bands)).collect::<Vec<_>>(),
            [(0, 1, 3), (3, 4, 1)]
        );
    }

    #[test]
    fn evidence_is_one_bucket_of_n_documents() {
        let rule = BandRule::new(1, 50, 7);
        assert!(rule.evident(rule.weight(7)));
        assert!(!rule.evident(rule.weight(8)));
        assert!(rule.evident(2 * rule.weight(13)));
        assert!(!rule.evident(2 * rule.weight(14)));
        assert!(rule.evident(3 * rule.weight(19)));
        assert_eq!(rule.weight(51), 0, "over --max-bucket");
        assert_eq!(rule.weight(1), 0);
        assert!(BandRule::new(1, 50, 0).evident(0));
        assert_eq!(
            BandRule::new(1, 0, 0).weight(10_000_000),
            1,
            "never 0 where it pairs"
        );
    }

    #[test]
    fn shared_buckets_count_up_to_a_candidate_of_enough_bands() {
        let rule = BandRule::new(2, 50, 7);
        let mut s = Shared::default();
        s.add(rule.weight(3) as u32);
        assert_eq!(s.candidate(9, 4, rule), None, "one band of two needed");
        s.add(rule.weight(11) as u32);
        let c = s.candidate(9, 4, rule).expect("two bands");
        assert_eq!((c.a, c.b, c.bands), (4, 9, 2));
        assert_eq!(u64::from(c.evidence), rule.weight(3) + rule.weight(11));
        // Evidence saturates at 4 bytes instead of wrapping.
        let mut full = Shared {
            bands: 1,
            evidence: u32::MAX - 1,
        };
        full.add(EVIDENCE_UNIT as u32);
        assert_eq!((full.bands, full.evidence), (2, u32::MAX));
    }

    #[test]
    fn union_keeps_each_pair_once_with_its_most_bands() {
        let c = |a, b, bands| Candidate {
            a,
            b,
            bands,
            evidence: 0,
        };
        let u = union(vec![
            vec![c(1, 2, 3), c(2, 5, 1)],
            vec![c(1, 2, 7), c(1, 3, 2)],
            vec![],
        ]);
        assert_eq!(u, vec![c(1, 2, 7), c(1, 3, 2), c(2, 5, 1)]);
    }

    proptest! {
        /// `--why`'s account of a pair agrees with the candidates: its shared buckets propose
        /// it exactly when [`candidates`] pairs it, whatever the bucket limit; its shared
        /// numbers exactly when [`number_pairs`] does.
        #[test]
        fn why_agrees_with_the_candidates(
            (keys, ids) in (2usize..12).prop_flat_map(|n| (
                proptest::collection::vec(proptest::collection::vec(0u64..3, 4), n),
                Just((0..n as u64).map(|d| 3 * d + 1).collect::<Vec<u64>>()).prop_shuffle(),
            )),
            min in 1u32..3,
            cap in 0usize..6,
            numbers in proptest::collection::vec((0u64..6, 0u64..12), 0..60),
            evidence_bucket in prop::sample::select(vec![0usize, 2, 3, 4, 7]),
        ) {
            let rule = BandRule::new(min, cap, evidence_bucket);
            let found = candidates(&ids, &keys, rule);
            // Sorted by (a, b), each pair once, whatever order the ids come in.
            prop_assert!(found.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
            let proposed = propose(vec![found.clone()], rule);
            let mut postings: Vec<(u64, u64)> =
                numbers.iter().map(|&(h, d)| (h, ids[d as usize % ids.len()])).collect();
            postings.sort_unstable();
            postings.dedup();
            let by_numbers = number_pairs(postings.clone(), |_| true);
            for x in 0..keys.len() {
                for y in x + 1..keys.len() {
                    let (a, b) = (ids[x].min(ids[y]), ids[x].max(ids[y]));
                    let shared = shared_buckets(&keys, x, y);
                    let mine = Shared::of(&shared, rule).candidate(a, b, rule);
                    let listed = found.iter().find(|c| (c.a, c.b) == (a, b)).copied();
                    prop_assert_eq!(mine, listed, "{} {} {:?}", a, b, shared);
                    let listed = proposed.iter().any(|c| (c.a, c.b) == (a, b));
                    let evident = !propose(vec![mine.into_iter().collect()], rule).is_empty();
                    prop_assert_eq!(evident, listed, "{} {} {:?}", a, b, shared);
                    let listed = by_numbers.iter().any(|c| (c.a, c.b) == (a, b));
                    prop_assert_eq!(numbers_propose(&shared_numbers(&postings, a, b)), listed);
                }
            }
        }
    }
}
