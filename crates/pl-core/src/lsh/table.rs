//! One document's candidates looked up in a band table, as [`super::candidates`] finds the
//! pairs of a whole corpus at once: the rule written once for both, whoever keeps the buckets
//! (the persistent index keeps them in SQLite, [`BandTable`] in memory).

use rustc_hash::FxHashMap;

use super::{propose, BandRule, Candidate, Shared};

/// Where the banded documents of each bucket are kept. A band slot numbers the bands of every
/// sketch one after the other (the whole text's, then the head's, then the tail's).
pub trait Buckets {
    /// What reading a bucket can fail with.
    type Error;
    /// The documents in bucket `key` of band slot `slot`, at most `limit` of them.
    fn bucket(&self, slot: u32, key: u64, limit: usize) -> Result<Vec<u64>, Self::Error>;
}

/// The documents sharing enough buckets of one sketch with document `id`, whose band keys are
/// `keys` (slot, key), under `rule` (a bucket over its --max-bucket, counting `id`, pairs
/// nobody; the evidence is asked across the sketches), each with the most bands any sketch
/// shares: the pairs of `id` that [`super::candidates`] and [`propose`] find when `id` is
/// banded with the table's documents. `sketch_of` gives a slot's sketch. Sorted by document.
pub fn candidates_of<B: Buckets>(
    id: u64,
    keys: &[(u32, u64)],
    table: &B,
    rule: BandRule,
    sketch_of: impl Fn(u32) -> usize,
) -> Result<Vec<(u64, u32)>, B::Error> {
    let mut by_sketch: std::collections::BTreeMap<usize, FxHashMap<u64, Shared>> =
        Default::default();
    for &(slot, key) in keys {
        let mut others = table.bucket(slot, key, rule.max_bucket.saturating_add(1))?;
        others.retain(|&o| o != id);
        // The bucket as it is with this document banded.
        if !rule.pairs(others.len() + 1) {
            continue;
        }
        let weight = rule.weight(others.len() + 1) as u32;
        let sketch = by_sketch.entry(sketch_of(slot)).or_default();
        for other in others {
            sketch.entry(other).or_default().add(weight);
        }
    }
    let lists = by_sketch
        .into_values()
        .map(|shared| {
            let mut list: Vec<Candidate> = shared
                .into_iter()
                .filter_map(|(other, s)| s.candidate(id, other, rule))
                .collect();
            list.sort_unstable();
            list
        })
        .collect();
    let mut out: Vec<(u64, u32)> = propose(lists, rule)
        .into_iter()
        .map(|c| (if c.a == id { c.b } else { c.a }, c.bands))
        .collect();
    out.sort_unstable();
    Ok(out)
}

/// Buckets in memory: documents inserted and removed one at a time, each bucket's documents
/// in id order.
#[derive(Debug, Default, Clone)]
pub struct BandTable {
    buckets: FxHashMap<(u32, u64), Vec<u64>>,
}

impl BandTable {
    /// Puts document `id` into the bucket of each of its keys (slot, key).
    pub fn insert(&mut self, id: u64, keys: &[(u32, u64)]) {
        for &k in keys {
            let docs = self.buckets.entry(k).or_default();
            if let Err(at) = docs.binary_search(&id) {
                docs.insert(at, id);
            }
        }
    }

    /// Takes document `id` out of the buckets of its keys.
    pub fn remove(&mut self, id: u64, keys: &[(u32, u64)]) {
        for k in keys {
            if let Some(docs) = self.buckets.get_mut(k) {
                docs.retain(|&d| d != id);
                if docs.is_empty() {
                    self.buckets.remove(k);
                }
            }
        }
    }
}

impl Buckets for BandTable {
    type Error = std::convert::Infallible;
    fn bucket(&self, slot: u32, key: u64, limit: usize) -> Result<Vec<u64>, Self::Error> {
        Ok(self
            .buckets
            .get(&(slot, key))
            .map(|d| d.iter().take(limit).copied().collect())
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::candidates;
    use proptest::prelude::*;

    /// Every document's candidates looked up in the table are the pairs of it that the
    /// corpus-wide `candidates` and `propose` find, over two sketches of `bands` bands each.
    fn agrees(keys: &[Vec<u64>], bands: usize, rule: BandRule) {
        let ids: Vec<u64> = (0..keys.len() as u64).map(|i| i * 3 + 1).collect();
        let mut lists = Vec::new();
        for sketch in 0..2 {
            let part: Vec<Vec<u64>> = keys
                .iter()
                .map(|k| k[sketch * bands..(sketch + 1) * bands].to_vec())
                .collect();
            lists.push(candidates(&ids, &part, rule));
        }
        let all = propose(lists, rule);
        let slotted = |k: &Vec<u64>| -> Vec<(u32, u64)> {
            k.iter().enumerate().map(|(s, &v)| (s as u32, v)).collect()
        };
        let mut table = BandTable::default();
        for (&id, k) in ids.iter().zip(keys) {
            table.insert(id, &slotted(k));
        }
        for (&id, k) in ids.iter().zip(keys) {
            let found = candidates_of(id, &slotted(k), &table, rule, |s| s as usize / bands)
                .expect("in memory");
            let want: Vec<(u64, u32)> = all
                .iter()
                .filter(|c| c.a == id || c.b == id)
                .map(|c| (if c.a == id { c.b } else { c.a }, c.bands))
                .collect();
            assert_eq!(found, want, "document {id}");
        }
    }

    proptest! {
        #[test]
        fn one_documents_lookup_finds_what_the_corpus_wide_banding_finds(
            keys in proptest::collection::vec(proptest::collection::vec(0u64..3, 8), 2..40),
            min in 1u32..3,
            max_bucket in prop_oneof![Just(0usize), 3usize..12],
            evidence_bucket in prop_oneof![Just(0usize), 3usize..8],
        ) {
            agrees(&keys, 4, BandRule::new(min, max_bucket, evidence_bucket));
        }
    }

    #[test]
    fn a_removed_document_leaves_its_buckets() {
        let mut t = BandTable::default();
        t.insert(5, &[(0, 9), (1, 7)]);
        t.insert(2, &[(0, 9)]);
        t.insert(5, &[(0, 9)]);
        assert_eq!(t.bucket(0, 9, 10).unwrap(), vec![2, 5]);
        assert_eq!(t.bucket(0, 9, 1).unwrap(), vec![2]);
        t.remove(5, &[(0, 9), (1, 7)]);
        assert_eq!(t.bucket(0, 9, 10).unwrap(), vec![2]);
        assert!(t.bucket(1, 7, 10).unwrap().is_empty());
        assert!(!t.buckets.contains_key(&(1, 7)));
    }
}
