//! Checking again the stored pairs of buckets that weigh less after an update (they grew, or
//! stopped pairing): a pair that neither its buckets nor its numbers propose any more is
//! dropped, as pl-lsh would not find it.

use super::*;

impl Tx<'_> {
    /// [`Tx::rebanded`] for each document of `unpaired` (with the documents it shares a
    /// bucket that weighs less with) not scored again anyway (`affected`): the documents of
    /// the pairs dropped.
    pub(super) fn drop_unproposed(
        &self,
        unpaired: &FxHashMap<u64, FxHashSet<u64>>,
        affected: &FxHashSet<u64>,
        mut memo: PairCheck,
        log: &Log,
    ) -> Result<Vec<u64>> {
        let mut ids: Vec<(&u64, &FxHashSet<u64>)> = unpaired.iter().collect();
        ids.sort_unstable_by_key(|(id, _)| **id);
        let mut todo = Vec::new();
        for (&id, with) in ids {
            if !affected.contains(&id) {
                todo.push(self.to_recheck(id, with, affected, &mut memo)?);
            }
        }
        let docs = todo.iter().flat_map(|t| {
            (t.pairs.iter().map(|(a, b, _)| (*a, *b)))
                .chain(t.apart.iter().copied())
                .flat_map(|(a, b)| [a, b])
        });
        self.remember(docs.collect(), &mut memo)?;
        let mut touched = Vec::new();
        for t in todo {
            touched.extend(self.rebanded(t, &mut memo)?);
        }
        let dropped = touched.len() / 2;
        if dropped > 0 {
            log.info(format!(
                "{dropped} stored pairs no longer proposed by their buckets or numbers: dropped"
            ));
        }
        Ok(touched)
    }

    /// The stored pairs of `id` to check once a bucket of its weighs less (it grew, or
    /// stopped pairing): only its pairs with a document of `with` (sharing a bucket that
    /// weighs less) can have changed; pairs with a document of `redo` (scored again anyway)
    /// and copy pairs are left alone, and a pair is taken once, from the first of its
    /// documents to come.
    fn to_recheck(
        &self,
        id: u64,
        with: &FxHashSet<u64>,
        redo: &FxHashSet<u64>,
        memo: &mut PairCheck,
    ) -> Result<Recheck> {
        let other = |a: u64, b: u64| if a == id { b } else { a };
        let mut looked = |a: u64, b: u64| {
            with.contains(&other(a, b))
                && !redo.contains(&other(a, b))
                && memo.checked.insert((a, b))
        };
        let pairs: Vec<(u64, u64, String)> = self
            .rows(
                "SELECT a, b, rec FROM pairs WHERE (a=?1 OR b=?1) AND copy=0",
                [id as i64],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)? as u64,
                        r.get::<_, i64>(1)? as u64,
                        r.get::<_, String>(2)?,
                    ))
                },
            )?
            .into_iter()
            .filter(|(a, b, _)| looked(*a, *b))
            .collect();
        let apart: Vec<(u64, u64)> = self
            .rows(
                "SELECT a, b FROM apart WHERE a=?1 OR b=?1",
                [id as i64],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )?
            .into_iter()
            .filter(|(a, b)| looked(*a, *b))
            .collect();
        Ok(Recheck { pairs, apart })
    }

    /// The stored pairs of [`Tx::to_recheck`]: a pair (kept or held apart) that neither its
    /// bands nor its numbers propose any more is dropped, the others keep their verdict with
    /// their new band count (pl-lsh's candidates looked up again, nothing scored). The
    /// documents of the dropped pairs.
    fn rebanded(
        &self,
        Recheck { pairs, apart }: Recheck,
        memo: &mut PairCheck,
    ) -> Result<Vec<u64>> {
        let mut dropped = Vec::new();
        for (a, b, rec) in pairs {
            match self.proposed_pair(a, b, memo)? {
                Proposal::Dropped => {
                    self.exec(
                        "DELETE FROM pairs WHERE a=?1 AND b=?2",
                        [a as i64, b as i64],
                    )?;
                    dropped.extend([a, b]);
                }
                Proposal::Unchanged => {}
                Proposal::Bands(bands) => {
                    let mut o = pl_core::fields::parse_object(&rec).map_err(|e| anyhow!("{e}"))?;
                    if o.get("bands").and_then(Value::as_u64) != Some(u64::from(bands)) {
                        o.insert("bands".into(), bands.into());
                        self.exec(
                            "UPDATE pairs SET rec=?3 WHERE a=?1 AND b=?2",
                            params![a as i64, b as i64, serde_json::to_string(&o)?],
                        )?;
                    }
                }
            }
        }
        // Pairs held apart go with their band the same way.
        for (a, b) in apart {
            if self.proposed_pair(a, b, memo)? == Proposal::Dropped {
                self.exec(
                    "DELETE FROM apart WHERE a=?1 AND b=?2",
                    [a as i64, b as i64],
                )?;
                dropped.extend([a, b]);
            }
        }
        Ok(dropped)
    }

    /// Whether the stored pair of banded documents `(x, y)` is proposed now, and with how
    /// many bands, as pl-lsh's `propose` decides it: the buckets the two share in each sketch
    /// (each bucket's size read once an update), and their numbers. Only the pair's own
    /// buckets are read, not every document of every bucket of either; and while none of
    /// them started or stopped pairing in this update (its bands are as stored), only until
    /// their weights are evidence enough.
    fn proposed_pair(&self, x: u64, y: u64, memo: &mut PairCheck) -> Result<Proposal> {
        let rule = self.engine.rule;
        let PairCheck {
            docs,
            sizes,
            pairing,
            flipped,
            ..
        } = memo;
        // Both documents' keys were read before any pair was checked (`drop_unproposed`).
        let (dx, dy) = (&docs[&x], &docs[&y]);
        let shared: Vec<(u32, u64)> = dx
            .keys
            .iter()
            .filter(|k| dy.keys.binary_search(k).is_ok())
            .copied()
            .collect();
        let steady = !shared.iter().any(|k| flipped.contains(k));
        let mut by_part: BTreeMap<usize, lsh::Shared> = BTreeMap::new();
        for (slot, key) in shared {
            // Both documents are banded, so in the bucket: its size is pl-lsh's.
            let size = match sizes.entry((slot, key)) {
                std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => *e.insert(
                    lsh::Buckets::bucket(self, slot, key, rule.max_bucket.saturating_add(1))?.len(),
                ),
            };
            if rule.pairs(size) {
                let part = by_part.entry(self.engine.part_of_slot(slot)).or_default();
                part.add(rule.weight(size) as u32);
                // More buckets only add evidence: the pair stays, with the bands it has.
                if steady && evident(&by_part, rule) {
                    return Ok(Proposal::Unchanged);
                }
            }
        }
        let mut lists: Vec<Vec<Candidate>> = by_part
            .into_values()
            .filter_map(|s| s.candidate(x, y, rule))
            .map(|c| vec![c])
            .collect();
        if self.engine.numbers && self.number_pair(&dx.numbers, &dy.numbers, pairing)? {
            lists.push(vec![Candidate::scored(x.min(y), x.max(y), 0)]);
        }
        Ok(match lsh::propose(lists, rule).first() {
            Some(c) => Proposal::Bands(c.bands),
            None => Proposal::Dropped,
        })
    }

    /// Whether two banded documents share enough numbers that pair documents now (pl-lsh
    /// --numbers, as [`Tx::number_partners`] finds them); both lists sorted. `pairing`
    /// remembers which numbers pair documents.
    fn number_pair(
        &self,
        x: &[u64],
        y: &[u64],
        pairing: &mut FxHashMap<u64, bool>,
    ) -> Result<bool> {
        let counts = Counts::stored(self);
        let mut shared = 0;
        for &h in x.iter().filter(|h| y.binary_search(h).is_ok()) {
            let pairs = match pairing.entry(h) {
                std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    *e.insert(counts.pairing_number(h)?)
                }
            };
            if pairs {
                shared += 1;
                if shared >= lsh::NUMBER_MATCHES {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// A stored document's band keys and numbers, from its stored signature and text
    /// ([`Engine::banding_of`]); `None` when it is not stored.
    pub(super) fn stored_banding(&self, id: u64) -> Result<Option<Banded>> {
        Ok(self.stored_bandings(&[id])?.pop().flatten())
    }

    /// [`Tx::stored_banding`] of each of `ids`, in order: read one by one, prepared on every
    /// thread.
    fn stored_bandings(&self, ids: &[u64]) -> Result<Vec<Option<Banded>>> {
        let mut rows = Vec::with_capacity(ids.len());
        for &id in ids {
            rows.push(
                self.row("SELECT line, sig FROM docs WHERE id=?1", [id as i64], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Option<Vec<u8>>>(1)?))
                })?,
            );
        }
        let (dir, engine) = (self.dir, self.engine);
        let perms = engine.hasher.perms();
        ids.par_iter()
            .zip(rows)
            .map(|(&id, row)| {
                let Some((line, sig)) = row else {
                    return Ok(None);
                };
                let sig = sig
                    .map(|b| blob_sig(&b, perms).map_err(|e| damaged_doc(dir, id, e)))
                    .transpose()?;
                let norm = super::stored_norm(dir, id, &line)?.norm;
                let (keys, numbers) = engine.banding_of(sig.as_deref(), &norm);
                Ok(Some(Banded { keys, numbers }))
            })
            .collect()
    }

    /// Reads the band keys (sorted) and numbers of the stored documents `ids` not in `memo`
    /// yet into it.
    fn remember(&self, mut ids: Vec<u64>, memo: &mut PairCheck) -> Result<()> {
        ids.retain(|id| !memo.docs.contains_key(id));
        ids.sort_unstable();
        ids.dedup();
        // A batch of texts at a time: what is held is the keys, not the texts.
        for batch in ids.chunks(PREPARE_BATCH) {
            for (id, doc) in batch.iter().zip(self.stored_bandings(batch)?) {
                let mut doc = doc.expect("a document of a bucket is stored");
                doc.keys.sort_unstable();
                memo.docs.insert(*id, doc);
            }
        }
        Ok(())
    }
}

/// Stored texts read and prepared together by [`Tx::remember`].
const PREPARE_BATCH: usize = 256;

/// The stored pairs of one document to check again ([`Tx::to_recheck`]): kept pairs with
/// their records, pairs held apart.
struct Recheck {
    pairs: Vec<(u64, u64, String)>,
    apart: Vec<(u64, u64)>,
}

/// What [`Tx::proposed_pair`] finds of a stored pair.
#[derive(Debug, PartialEq)]
enum Proposal {
    /// Neither its buckets nor its numbers propose it any more.
    Dropped,
    /// Proposed, with this many bands.
    Bands(u32),
    /// Proposed, with the bands it was stored with.
    Unchanged,
}

/// Whether the buckets counted so far make a pair evident to `propose`: the summed evidence
/// of the sketches where it shares enough buckets.
fn evident(by_part: &BTreeMap<usize, lsh::Shared>, rule: lsh::BandRule) -> bool {
    let evidence: u64 = by_part
        .values()
        .filter(|s| rule.enough(u64::from(s.bands)))
        .map(|s| u64::from(s.evidence))
        .sum();
    rule.evident(evidence)
}

/// A stored document's band keys and numbers.
pub(super) struct Banded {
    pub(super) keys: Vec<(u32, u64)>,
    numbers: Vec<u64>,
}

/// What the stored pairs of the documents in reweighed buckets are checked with, read once
/// an update: each document's band keys and numbers, each bucket's size, and whether each
/// number pairs documents.
#[derive(Default)]
pub(super) struct PairCheck {
    docs: FxHashMap<u64, Banded>,
    sizes: FxHashMap<(u32, u64), usize>,
    pairing: FxHashMap<u64, bool>,
    checked: FxHashSet<(u64, u64)>,
    /// The buckets that started or stopped pairing in this update.
    flipped: FxHashSet<(u32, u64)>,
}

impl PairCheck {
    /// A check knowing the size of the buckets the update changed, and which of them started
    /// or stopped pairing.
    pub(super) fn new(
        sizes: FxHashMap<(u32, u64), usize>,
        flipped: FxHashSet<(u32, u64)>,
    ) -> PairCheck {
        PairCheck {
            sizes,
            flipped,
            ..PairCheck::default()
        }
    }
}
