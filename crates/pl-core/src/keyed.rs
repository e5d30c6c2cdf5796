//! LSH as keyed rows, for runs spread over machines (docs/SCALE.md): each document's band
//! keys and copy key as rows (`pl-lsh --emit band-keys`), and the candidate pairs of those
//! rows grouped by bucket (`pl-lsh --from-keys`), the very pairs [`crate::lsh::candidates`],
//! [`crate::lsh::copy_sets`] and [`crate::lsh::union`] give on one machine.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use crate::lsh::{is_empty_signature, number_pairs, propose, with_copies, BandRule, Candidate};
use crate::records::{fingerprint_hex, parse_fingerprint, parse_hash_hex, Fingerprint};

/// A row of band keys: one document's key in one band of one sketch (`sketch` 0 is the
/// whole texts', 1.. the `--also` streams' in order), or its copy key; `id` one document,
/// or `ids` the documents of a bucket grouped. docs/FORMATS.md, band keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRecord {
    /// The sketch: 0 the whole texts, then each `--also` stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sketch: Option<u32>,
    /// The band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<u32>,
    /// The bucket key of the band (16 hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The copy key: the fingerprint (32 hex digits) and the signature's hash (32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<String>,
    /// One document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The documents of a grouped bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<u64>>,
    /// A number the document holds (`pl-lsh --numbers`): its hash, 16 hex digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
}

/// A pair's band count and evidence in one sketch, over the buckets one run saw
/// (`--from-keys --partial`): those of several runs over disjoint buckets add up to the pair's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairBands {
    /// The smaller id.
    pub a: u64,
    /// The larger id.
    pub b: u64,
    /// The sketch.
    pub sketch: u32,
    /// Bands shared in the buckets seen.
    pub bands: u64,
    /// The weights of those buckets summed ([`crate::lsh::BandRule::weight`]).
    pub evidence: u64,
}

/// The copy key of a document, or `None` for an empty shingle set (never collapsed): two
/// documents are copies when their fingerprints and signatures are equal
/// ([`crate::lsh::copy_sets`]); the signature enters as its 128-bit hash.
pub fn copy_key(fingerprint: Fingerprint, sig: &[u32]) -> Option<String> {
    if is_empty_signature(sig) {
        return None;
    }
    let bytes: Vec<u8> = sig.iter().flat_map(|v| v.to_le_bytes()).collect();
    Some(format!(
        "{}{:032x}",
        fingerprint_hex(fingerprint),
        xxh3_128(&bytes)
    ))
}

fn parse_copy_key(s: &str) -> Option<(Fingerprint, u128)> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let fp = parse_fingerprint(&s[..32])?;
    let sig = u128::from_str_radix(&s[32..], 16).ok()?;
    (!s[32..].starts_with('+')).then_some((fp, sig))
}

/// A bucket: sketch, band, key.
type Bucket = (u32, u32, u64);

/// Copy sets as star pairs (representative, member), the members, and the counts.
type CopyStars = (Vec<(u64, u64)>, Vec<u64>, GroupedCounts);

/// Band-key rows gathered by bucket, and copy-key rows by copy key.
#[derive(Debug, Default)]
pub struct Grouped {
    buckets: FxHashMap<Bucket, Vec<u64>>,
    copies: FxHashMap<(Fingerprint, u128), Vec<u64>>,
    sketches: u32,
    /// (number hash, document) of the number rows.
    numbers: Vec<(u64, u64)>,
}

/// What [`Grouped::candidates`] found besides the pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupedCounts {
    /// Buckets that paired their documents (two or more, at most the rule's largest).
    pub buckets: usize,
    /// Copy sets of two or more documents, and the documents in them.
    pub copy_sets: usize,
    /// Documents in copy sets, representatives included.
    pub copy_docs: usize,
}

/// What is wrong with band-key rows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// Neither or both of `id` and `ids`.
    #[error("a band-key row has \"id\" or \"ids\", one of them")]
    IdOrIds,
    /// A number row with a band or copy field.
    #[error("a number row has \"number\" and \"id\" alone")]
    NumberRowFields,
    /// A band row's fields mixed with a copy row's.
    #[error("a band-key row has \"sketch\", \"band\" and \"key\", or \"copy\" alone")]
    RowFields,
    /// A field that is not the hex digits it must be.
    #[error("\"{field}\" is not {digits} hex digits")]
    NotHex {
        /// The field.
        field: &'static str,
        /// The digits it must have.
        digits: u8,
    },
    /// A document in two copy sets.
    #[error("document {0} has two copy keys")]
    TwoCopyKeys(u64),
    /// A document twice in one band of a sketch.
    #[error("document {id} is in two buckets of band {band} of sketch {sketch}")]
    TwoBuckets {
        /// The document.
        id: u64,
        /// The band.
        band: u32,
        /// The sketch.
        sketch: u32,
    },
    /// Copy rows given to a partial run.
    #[error("copy rows are not taken with --partial: leave the members of copy sets out of the buckets before splitting them")]
    CopyRowsPartial,
    /// Number rows given to a partial run.
    #[error("number rows are not taken with --partial: their pairs need every document's numbers")]
    NumberRowsPartial,
    /// A part's band keys without the whole text's.
    #[error("document {0} has band keys of a part but none of its whole text (sketch 0)")]
    PartWithoutWhole(u64),
}

impl Grouped {
    /// Adds one row; `Err` says what is wrong with it.
    pub fn add(&mut self, rec: KeyRecord) -> Result<(), KeysError> {
        let hex = |field, digits| KeysError::NotHex { field, digits };
        let ids = match (rec.id, rec.ids) {
            (Some(id), None) => vec![id],
            (None, Some(ids)) => ids,
            _ => return Err(KeysError::IdOrIds),
        };
        if let Some(number) = rec.number {
            if rec.sketch.is_some() || rec.band.is_some() || rec.key.is_some() || rec.copy.is_some()
            {
                return Err(KeysError::NumberRowFields);
            }
            let h = parse_hash_hex(&number).ok_or(hex("number", 16))?;
            self.numbers.extend(ids.into_iter().map(|id| (h, id)));
            return Ok(());
        }
        match (rec.sketch, rec.band, rec.key, rec.copy) {
            (Some(sketch), Some(band), Some(key), None) => {
                let key = parse_hash_hex(&key).ok_or(hex("key", 16))?;
                self.sketches = self.sketches.max(sketch + 1);
                self.buckets
                    .entry((sketch, band, key))
                    .or_default()
                    .extend(ids);
            }
            (None, None, None, Some(copy)) => {
                let key = parse_copy_key(&copy).ok_or(hex("copy", 64))?;
                self.copies.entry(key).or_default().extend(ids);
            }
            _ => return Err(KeysError::RowFields),
        }
        Ok(())
    }

    /// The copy sets: their star pairs (representative, member), sorted, and the members
    /// other than representatives, sorted. A document in two copy sets is refused.
    fn copy_sets(&mut self) -> Result<CopyStars, KeysError> {
        let mut pairs = Vec::new();
        let mut counts = GroupedCounts::default();
        let mut seen = Vec::new();
        for ids in self.copies.values_mut() {
            ids.sort_unstable();
            ids.dedup();
            seen.extend_from_slice(ids);
            if ids.len() >= 2 {
                counts.copy_sets += 1;
                counts.copy_docs += ids.len();
                pairs.extend(ids[1..].iter().map(|&m| (ids[0], m)));
            }
        }
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
            return Err(KeysError::TwoCopyKeys(w[0]));
        }
        pairs.sort_unstable();
        let mut members: Vec<u64> = pairs.iter().map(|p| p.1).collect();
        members.sort_unstable();
        Ok((pairs, members, counts))
    }

    /// Each sketch's pairs with the bands they share in the buckets given, members of copy
    /// sets other than their representatives left out; sorted by (sketch, a, b). A document
    /// twice in one band of a sketch is refused.
    fn pair_bands(
        &mut self,
        skip: &[u64],
        rule: BandRule,
    ) -> Result<(Vec<PairBands>, usize), KeysError> {
        let mut keys: Vec<Bucket> = self.buckets.keys().copied().collect();
        keys.sort_unstable();
        let mut placed: Vec<(u32, u32, u64)> = Vec::new();
        let mut pairs: Vec<(u32, u64, u64, u64)> = Vec::new();
        let mut buckets = 0;
        for k in keys {
            let ids = self.buckets.get_mut(&k).expect("a key of the map");
            ids.retain(|id| skip.binary_search(id).is_err());
            ids.sort_unstable();
            placed.extend(ids.iter().map(|&id| (k.0, k.1, id)));
            if !rule.pairs(ids.len()) {
                continue;
            }
            buckets += 1;
            let w = rule.weight(ids.len());
            for (i, &x) in ids.iter().enumerate() {
                pairs.extend(ids[i + 1..].iter().map(|&y| (k.0, x, y, w)));
            }
        }
        placed.sort_unstable();
        if let Some(w) = placed.windows(2).find(|w| w[0] == w[1]) {
            return Err(KeysError::TwoBuckets {
                id: w[0].2,
                band: w[0].1,
                sketch: w[0].0,
            });
        }
        pairs.sort_unstable();
        let counted = pairs
            .chunk_by(|x, y| x.0 == y.0 && x.1 == y.1 && x.2 == y.2)
            .map(|run| PairBands {
                a: run[0].1,
                b: run[0].2,
                sketch: run[0].0,
                bands: run.len() as u64,
                evidence: run.iter().map(|p| p.3).sum(),
            })
            .collect();
        Ok((counted, buckets))
    }

    /// The band counts of the buckets given, per sketch, for a run over some of the buckets
    /// of a corpus (`--from-keys --partial`): nothing is dropped by `--min-band-matches`,
    /// which only the counts added up can decide. Copy rows are refused here: the members
    /// of copy sets are left out before buckets are split between runs.
    pub fn partial(mut self, rule: BandRule) -> Result<Vec<PairBands>, KeysError> {
        if !self.copies.is_empty() {
            return Err(KeysError::CopyRowsPartial);
        }
        if !self.numbers.is_empty() {
            return Err(KeysError::NumberRowsPartial);
        }
        Ok(self.pair_bands(&[], rule)?.0)
    }

    /// The candidate pairs of every bucket of a corpus, as [`crate::lsh`] finds them on one
    /// machine: copy sets collapsed to their lowest id (star pairs marked `true`, with
    /// `all_bands` bands), then each sketch's pairs sharing enough buckets under `rule`,
    /// each pair once with the most bands any sketch gave it; sorted by (a, b).
    pub fn candidates(
        mut self,
        rule: BandRule,
        all_bands: u32,
    ) -> Result<(Vec<(Candidate, bool)>, GroupedCounts), KeysError> {
        let (copy_pairs, members, mut counts) = self.copy_sets()?;
        let whole: Vec<u64> = {
            let mut w: Vec<u64> = self
                .buckets
                .iter()
                .filter(|(k, _)| k.0 == 0)
                .flat_map(|(_, ids)| ids.iter().copied())
                .collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        if let Some(&id) = self
            .buckets
            .iter()
            .filter(|(k, _)| k.0 > 0)
            .flat_map(|(_, ids)| ids)
            .find(|id| whole.binary_search(id).is_err())
        {
            return Err(KeysError::PartWithoutWhole(id));
        }
        let (counted, buckets) = self.pair_bands(&members, rule)?;
        counts.buckets = buckets;
        let mut lists: Vec<Vec<Candidate>> = vec![Vec::new(); self.sketches.max(1) as usize];
        for p in counted {
            if rule.enough(p.bands) {
                lists[p.sketch as usize].push(Candidate {
                    a: p.a,
                    b: p.b,
                    bands: p.bands as u32,
                    evidence: u32::try_from(p.evidence).unwrap_or(u32::MAX),
                });
            }
        }
        // The pairs the numbers propose, among the banded documents (`--numbers`).
        let numbers = std::mem::take(&mut self.numbers);
        if !numbers.is_empty() {
            let banded =
                |d: u64| whole.binary_search(&d).is_ok() && members.binary_search(&d).is_err();
            lists.push(number_pairs(numbers, banded));
        }
        let cands = propose(lists, rule);
        let out = with_copies(&cands, &copy_pairs, all_bands).collect();
        Ok((out, counts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::{candidates, copy_sets, Banding};
    use crate::minhash::splitmix64;
    use crate::records::hash_hex;
    use proptest::prelude::*;

    fn rows(ids: &[u64], fps: &[u128], sketches: &[Vec<Vec<u32>>], b: &Banding) -> Vec<KeyRecord> {
        let mut out = Vec::new();
        for (d, &id) in ids.iter().enumerate() {
            if let Some(copy) = copy_key(fps[d], &sketches[0][d]) {
                out.push(KeyRecord {
                    copy: Some(copy),
                    id: Some(id),
                    ..KeyRecord::default()
                });
            }
            for (s, sigs) in sketches.iter().enumerate() {
                for (band, k) in b.keys(&sigs[d]).into_iter().enumerate() {
                    out.push(KeyRecord {
                        sketch: Some(s as u32),
                        band: Some(band as u32),
                        key: Some(hash_hex(k)),
                        id: Some(id),
                        ..KeyRecord::default()
                    });
                }
            }
        }
        out
    }

    /// What pl-lsh finds on one machine (its `find`, without the file reading).
    fn one_machine(
        ids: &[u64],
        fps: &[u128],
        sketches: &[Vec<Vec<u32>>],
        b: &Banding,
        rule: BandRule,
    ) -> Vec<(Candidate, bool)> {
        let c = copy_sets(ids, fps, &sketches[0]);
        let banded = c.keep_banded(ids.to_vec());
        let lists = sketches
            .iter()
            .map(|sigs| {
                let keys: Vec<Vec<u64>> = c
                    .keep_banded(sigs.clone())
                    .iter()
                    .map(|s| b.keys(s))
                    .collect();
                candidates(&banded, &keys, rule)
            })
            .collect();
        let cands = propose(lists, rule);
        with_copies(&cands, &c.pairs, b.bands as u32).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Rows in any order, grouped or split into partial runs, give pl-lsh's pairs.
        #[test]
        fn grouped_rows_give_the_one_machine_pairs(seed in any::<u64>(), n in 2usize..40, m in 1u32..3, parts in 1usize..4, cap in 0usize..8, ev in prop::sample::select(vec![0usize, 2, 3, 5, 9])) {
            let b = Banding::new(8, 4).unwrap();
            let rule = BandRule::new(m, cap, ev);
            let mut st = seed;
            let mut rnd = |k: u64| splitmix64(&mut st) % k;
            let ids: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
            let mut fps = Vec::new();
            let mut sketches: Vec<Vec<Vec<u32>>> = vec![Vec::new(); parts];
            for _ in 0..n {
                // Few values, so bands collide; a third of documents copy an earlier one.
                let copy = !fps.is_empty() && rnd(3) == 0;
                let from = if copy { rnd(fps.len() as u64) as usize } else { usize::MAX };
                for s in sketches.iter_mut() {
                    let sig: Vec<u32> = if copy { s[from].clone() } else if rnd(7) == 0 { vec![u32::MAX; 8] } else { (0..8).map(|_| rnd(3) as u32).collect() };
                    s.push(sig);
                }
                fps.push(if copy { fps[from] } else { u128::from(rnd(1 << 20) as u32) + 1000 });
            }
            let want = one_machine(&ids, &fps, &sketches, &b, rule);
            let mut all = rows(&ids, &fps, &sketches, &b);
            all.reverse();
            let mut g = Grouped::default();
            for r in all.clone() { g.add(r).unwrap(); }
            let (got, _) = g.candidates(rule, 4).unwrap();
            prop_assert_eq!(&got, &want);
            // The same through partial runs over a split of the buckets, added up.
            let mut whole = Grouped::default();
            for r in all.iter().filter(|r| r.copy.is_some()).cloned() { whole.add(r).unwrap(); }
            let (copy_pairs, members, _) = whole.copy_sets().unwrap();
            let mut runs: Vec<Grouped> = (0..3).map(|_| Grouped::default()).collect();
            for r in all.into_iter().filter(|r| r.copy.is_none() && members.binary_search(&r.id.unwrap()).is_err()) {
                let k = (r.band.unwrap() as usize + r.key.as_ref().unwrap().len()) % 3;
                runs[k].add(r).unwrap();
            }
            let mut sums: FxHashMap<(u32, u64, u64), (u64, u64)> = FxHashMap::default();
            for run in runs { for p in run.partial(rule).unwrap() { let e = sums.entry((p.sketch, p.a, p.b)).or_default(); e.0 += p.bands; e.1 += p.evidence; } }
            let mut lists = vec![Vec::new(); parts];
            for ((s, a, bb), (n, evidence)) in sums { if n >= u64::from(m) { lists[s as usize].push(Candidate { a, b: bb, bands: n as u32, evidence: evidence as u32 }); } }
            for l in lists.iter_mut() { l.sort_unstable(); }
            let merged: Vec<(Candidate, bool)> = with_copies(&propose(lists, rule), &copy_pairs, 4).collect();
            prop_assert_eq!(merged, want);
        }
    }

    #[test]
    fn contradictions_are_refused() {
        let row = |sketch, band, key: u64, id| KeyRecord {
            sketch: Some(sketch),
            band: Some(band),
            key: Some(hash_hex(key)),
            id: Some(id),
            ..KeyRecord::default()
        };
        let mut g = Grouped::default();
        g.add(row(0, 0, 1, 5)).unwrap();
        g.add(row(0, 0, 2, 5)).unwrap();
        let err = g
            .candidates(BandRule::new(1, 0, 0), 1)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("document 5 is in two buckets of band 0"),
            "{err}"
        );
        let mut g = Grouped::default();
        g.add(row(1, 0, 1, 5)).unwrap();
        let err = g
            .candidates(BandRule::new(1, 0, 0), 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("none of its whole text"), "{err}");
        let fp = copy_key(7, &[1, 2]).unwrap();
        let mut g = Grouped::default();
        for (key, id) in [(fp.clone(), 1), (fp, 2), (copy_key(8, &[1, 2]).unwrap(), 2)] {
            g.add(KeyRecord {
                copy: Some(key),
                id: Some(id),
                ..KeyRecord::default()
            })
            .unwrap();
        }
        assert!(g
            .candidates(BandRule::new(1, 0, 0), 1)
            .unwrap_err()
            .to_string()
            .contains("two copy keys"));
    }

    #[test]
    fn malformed_rows_say_what_is_wrong() {
        let mut g = Grouped::default();
        let bad = [
            (
                KeyRecord {
                    sketch: Some(0),
                    band: Some(0),
                    key: Some("xyz".into()),
                    id: Some(1),
                    ..KeyRecord::default()
                },
                "16 hex",
            ),
            (
                KeyRecord {
                    sketch: Some(0),
                    band: Some(0),
                    key: Some(hash_hex(1)),
                    ..KeyRecord::default()
                },
                "\"id\" or \"ids\"",
            ),
            (
                KeyRecord {
                    copy: Some("00".into()),
                    id: Some(1),
                    ..KeyRecord::default()
                },
                "64 hex",
            ),
            (
                KeyRecord {
                    band: Some(0),
                    copy: Some("00".into()),
                    id: Some(1),
                    ..KeyRecord::default()
                },
                "alone",
            ),
        ];
        for (rec, want) in bad {
            let err = g.add(rec).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
        assert_eq!(
            copy_key(1, &[u32::MAX; 4]),
            None,
            "an empty set has no copy key"
        );
        let row = serde_json::to_string(&KeyRecord {
            sketch: Some(0),
            band: Some(3),
            key: Some(hash_hex(255)),
            id: Some(9),
            ..KeyRecord::default()
        })
        .unwrap();
        assert_eq!(
            row,
            r#"{"sketch":0,"band":3,"key":"00000000000000ff","id":9}"#
        );
    }
}
