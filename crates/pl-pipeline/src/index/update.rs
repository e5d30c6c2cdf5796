//! Updating the index: a bulk build from nothing, and an update that redoes only what the
//! changed documents touch (their candidates, the buckets that weigh otherwise).

use super::recheck::PairCheck;
use super::*;

impl Tx<'_> {
    /// Builds an empty index from all its documents, as pl-lsh and pl-score would.
    pub(super) fn bulk(
        &self,
        docs: Vec<Prepared>,
        sources: &FxHashMap<u64, u64>,
        summary: &mut Summary,
        log: &Log,
    ) -> Result<()> {
        let signed: Vec<&Prepared> = docs.iter().filter(|p| p.sig.is_some()).collect();
        let ids: Vec<u64> = signed.iter().map(|p| p.id).collect();
        let fps: Vec<u128> = signed.iter().map(|p| p.fp).collect();
        let sigs: Vec<Vec<u32>> = signed
            .iter()
            .map(|p| p.sig.as_ref().expect("signed").sig.clone())
            .collect();
        let copies = lsh::copy_sets(&ids, &fps, &sigs);
        drop(sigs);
        let banded: FxHashSet<u64> = ids
            .iter()
            .zip(&copies.banded)
            .filter(|(_, &b)| b)
            .map(|(&id, _)| id)
            .collect();
        self.store_all(&docs, &banded, sources)?;
        // pl-lsh: whole texts, then each part, among the banded documents; their union.
        let bands = self.engine.banding.bands;
        let mut lists = Vec::new();
        for part in 0..=self.engine.parts.len() {
            let (mut pids, mut pkeys) = (Vec::new(), Vec::new());
            for p in docs.iter().filter(|p| banded.contains(&p.id)) {
                let k: Vec<u64> = p
                    .keys
                    .iter()
                    .filter(|(slot, _)| *slot as usize / bands == part)
                    .map(|&(_, k)| k)
                    .collect();
                if !k.is_empty() {
                    pids.push(p.id);
                    pkeys.push(k);
                }
            }
            lists.push(lsh::candidates(&pids, &pkeys, self.engine.rule));
        }
        // pl-lsh --numbers: every document's numbers counted, the banded ones paired.
        if self.engine.numbers {
            let postings: Vec<(u64, u64)> = docs
                .iter()
                .flat_map(|p| p.numbers.iter().map(move |&h| (h, p.id)))
                .collect();
            lists.push(lsh::number_pairs(postings, |d| banded.contains(&d)));
        }
        let cands = lsh::propose(lists, self.engine.rule);
        let list: Vec<(Candidate, bool)> =
            lsh::with_copies(&cands, &copies.pairs, bands as u32).collect();
        summary.rescored_docs = docs.len();
        summary.pairs_scored = list.len();
        // pl-score, on the norm lines written to a temporary file beside the index (created
        // exclusively, removed when dropped).
        let norm = crate::io::temp_beside(self.dir, "bulk-norm.ndjson")
            .with_context(|| format!("{}: cannot create a temporary file", self.dir.display()))?;
        (|| {
            let mut f = std::io::BufWriter::new(norm.as_file());
            for p in &docs {
                writeln!(f, "{}", p.line)?;
            }
            f.flush()
        })()
        .with_context(|| format!("{}: write failed", norm.path().display()))?;
        let kept = self.score_file(norm.path(), &docs, &list, log)?;
        summary.pairs_kept = kept;
        Ok(())
    }

    /// Stores every document of a first build: its row and bands (when `banded`), the corpus
    /// counts, and the postings of rare words.
    fn store_all(
        &self,
        docs: &[Prepared],
        banded: &FxHashSet<u64>,
        sources: &FxHashMap<u64, u64>,
    ) -> Result<()> {
        let (mut words, mut tokens): (FxHashMap<u64, i64>, FxHashMap<u64, i64>) =
            Default::default();
        for p in docs {
            let on = banded.contains(&p.id);
            self.insert_doc(p, sources[&p.id], on)?;
            if on {
                self.set_keys(p.id, &p.keys, true)?;
            }
            for &w in &p.words {
                *words.entry(w).or_default() += 1;
            }
            for &t in &p.tokens {
                *tokens.entry(t).or_default() += 1;
            }
        }
        self.add_counts("words", &words)?;
        self.add_counts("tokens", &tokens)?;
        for p in docs {
            for &w in &p.words {
                if words[&w] <= few_max(p.numbers.binary_search(&w).is_ok()) {
                    self.exec(
                        "INSERT INTO few(hash, id) VALUES (?1, ?2)",
                        [w as i64, p.id as i64],
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Updates a non-empty index: the documents touched, and those whose pairs they change.
    pub(super) fn incremental(
        &self,
        docs: Vec<Prepared>,
        deleted: Vec<u64>,
        sources: &FxHashMap<u64, u64>,
        summary: &mut Summary,
        log: &Log,
    ) -> Result<Vec<u64>> {
        let started = std::time::Instant::now();
        let changing: Vec<u64> = docs.iter().map(|p| p.id).collect();
        let large_before = self.large_copy_sets_words()?;
        let mut d = self.swap_docs(&docs, &deleted, &changing, sources, summary)?;
        d.large_texts = large_before;
        for (w, ids) in self.large_copy_sets_words()? {
            d.large_texts.entry(w).or_default().extend(ids);
        }
        self.recollapse(&mut d)?;
        self.reweighed_buckets(&mut d, log)?;
        self.moved_words(&mut d, summary, log)?;
        let mut gone = deleted;
        gone.extend(d.affected.iter().copied());
        gone.sort_unstable();
        gone.dedup();
        // What clustering must look at again: these documents, the new ones and the partners
        // these lose (their components may split).
        let mut touched: Vec<u64> = gone.iter().chain(&changing).copied().collect();
        for &id in &gone {
            touched.extend(self.partners(id)?);
            for sql in [
                "DELETE FROM pairs WHERE a=?1",
                "DELETE FROM pairs WHERE b=?1",
                "DELETE FROM apart WHERE a=?1",
                "DELETE FROM apart WHERE b=?1",
            ] {
                self.exec(sql, [id as i64])?;
            }
        }
        let memo = PairCheck::new(
            std::mem::take(&mut d.now_sizes),
            std::mem::take(&mut d.flipped),
        );
        touched.extend(self.drop_unproposed(&d.unpaired, &d.affected, memo, log)?);
        let mut ids: Vec<u64> = d.affected.iter().copied().collect();
        ids.sort_unstable();
        summary.rescored_docs = ids.len();
        let list = self.candidates_of(&ids, &mut d.keys, &d.numbers_of)?;
        summary.pairs_scored = list.len();
        log.info(format!(
            "{} candidate pairs of {} documents found in {:.2} s",
            list.len(),
            ids.len(),
            started.elapsed().as_secs_f64()
        ));
        let scored = self.score(&list, None, Some(log))?;
        summary.pairs_kept = scored.kept.len();
        log.info(format!(
            "scored, {} kept, {} held apart, at {:.2} s",
            scored.kept.len(),
            scored.apart.len(),
            started.elapsed().as_secs_f64()
        ));
        for (_, _, rec) in scored.kept {
            self.insert_pair(&rec)?;
        }
        for (a, b) in scored.apart {
            self.hold_apart(a, b)?;
        }
        Ok(touched)
    }

    /// Takes the old versions of `deleted` and `changing` out (their counts, bands and rows)
    /// and puts `docs` in (banded by [`Tx::recollapse`], with their copy sets).
    fn swap_docs(
        &self,
        docs: &[Prepared],
        deleted: &[u64],
        changing: &[u64],
        sources: &FxHashMap<u64, u64>,
        summary: &mut Summary,
    ) -> Result<Delta> {
        let mut d = Delta::default();
        for &id in deleted.iter().chain(changing) {
            let Some((old, banded)) = self.stored(id)? else {
                continue;
            };
            if changing.contains(&id) {
                summary.changed += 1;
            }
            for &w in &old.words {
                *d.words.entry(w).or_default() -= 1;
                d.moves.entry(w).or_default().0.push(id);
            }
            d.numbers.extend(old.numbers.iter().copied());
            for &t in &old.tokens {
                *d.tokens.entry(t).or_default() -= 1;
            }
            if banded {
                self.note_sizes(&old.keys, &mut d.sizes)?;
                self.set_keys(id, &old.keys, false)?;
            }
            self.exec("DELETE FROM docs WHERE id=?1", [id as i64])?;
            d.fps.insert(old.fp);
            d.affected.insert(id);
        }
        summary.added = docs.len() - summary.changed;
        for p in docs {
            self.insert_doc(p, sources[&p.id], false)?;
            for &w in &p.words {
                *d.words.entry(w).or_default() += 1;
                d.moves.entry(w).or_default().1.push(p.id);
            }
            d.numbers.extend(p.numbers.iter().copied());
            for &t in &p.tokens {
                *d.tokens.entry(t).or_default() += 1;
            }
            d.fps.insert(p.fp);
            d.affected.insert(p.id);
        }
        d.keys = docs.iter().map(|p| (p.id, p.keys.clone())).collect();
        d.numbers_of = docs.iter().map(|p| (p.id, p.numbers.clone())).collect();
        Ok(d)
    }

    /// The copy sets of every text the update touched, collapsed as pl-lsh collapses them:
    /// the lowest id of each (text, signature) banded, the others not.
    fn recollapse(&self, d: &mut Delta) -> Result<()> {
        let mut fps: Vec<u128> = d.fps.iter().copied().collect();
        fps.sort_unstable();
        for fp in fps {
            let members = self.same_text(fp)?;
            let mut reps: Vec<(&Vec<u32>, u64)> = Vec::new();
            for (id, sig) in &members {
                let Some(sig) = sig else { continue };
                let banded_now = if lsh::is_empty_signature(sig) {
                    true
                } else {
                    match reps.iter().find(|(s, _)| *s == sig) {
                        Some(_) => false,
                        None => {
                            reps.push((sig, *id));
                            true
                        }
                    }
                };
                let banded_was: bool = sql(
                    self.dir,
                    self.tx
                        .query_row("SELECT banded FROM docs WHERE id=?1", [*id as i64], |r| {
                            r.get(0)
                        }),
                )?;
                if banded_now != banded_was {
                    let k = self.keys_of(*id, &mut d.keys)?;
                    self.note_sizes(&k, &mut d.sizes)?;
                    self.set_keys(*id, &k, banded_now)?;
                    self.exec(
                        "UPDATE docs SET banded=?2 WHERE id=?1",
                        params![*id as i64, banded_now],
                    )?;
                }
            }
            // Whatever the set was or became, its members' copy pairs and representative may
            // have changed.
            d.affected.extend(members.iter().map(|(id, _)| *id));
        }
        Ok(())
    }

    /// A document's band keys: prepared by this update, or its stored text prepared again.
    fn keys_of(
        &self,
        id: u64,
        keys: &mut FxHashMap<u64, Vec<(u32, u64)>>,
    ) -> Result<Vec<(u32, u64)>> {
        if let Some(k) = keys.get(&id) {
            return Ok(k.clone());
        }
        let k = self.stored_banding(id)?.expect("a stored document").keys;
        keys.insert(id, k.clone());
        Ok(k)
    }

    /// The buckets whose weight changed ([`lsh::BandRule::weight`]: they grew or shrank
    /// while the evidence rule is on, or crossed --max-bucket). One that weighs more (it
    /// shrank, or pairs again) may propose pairs it did not: its documents look for their
    /// candidates again. One that weighs less (it grew, or stopped pairing) only takes
    /// evidence and bands from the pairs among its documents, which are dropped
    /// (`rebanded`) when they are not proposed any more; a pair's verdict does not depend
    /// on its bands or evidence, so nothing is scored again for it.
    fn reweighed_buckets(&self, d: &mut Delta, log: &Log) -> Result<()> {
        let rule = self.engine.rule;
        let weighs = |size: usize| {
            if rule.needed() > 0 {
                rule.weight(size)
            } else {
                u64::from(rule.pairs(size))
            }
        };
        let (mut crossed, looked_before) = (0usize, d.affected.len());
        for (&(slot, key), &before) in &d.sizes {
            let now = self.whole_bucket(slot, key)?;
            // A bucket of one pairs nobody; one of two pairs only the document that came in,
            // whose candidates are looked up anyway (or went out, whose pairs are gone).
            let (was, is) = (weighs(before.max(2)), weighs(now.len().max(2)));
            if rule.pairs(before) != rule.pairs(now.len()) {
                d.flipped.insert((slot, key));
            }
            d.now_sizes.insert((slot, key), now.len());
            if was != is {
                crossed += 1;
                if was > is {
                    for &x in &now {
                        d.unpaired.entry(x).or_default().extend(&now);
                    }
                } else {
                    d.affected.extend(now);
                }
            }
        }
        if crossed > 0 {
            log.info(format!(
                "{crossed} buckets weigh otherwise (--max-bucket {}, --evidence-bucket {}): {} more documents look for their candidates again, {} have their stored pairs looked up again",
                rule.max_bucket_flag(),
                rule.evidence_bucket,
                d.affected.len() - looked_before,
                d.unpaired.len()
            ));
        }
        Ok(())
    }

    /// The words (verifier word hashes) of every text more documents have than the scorer's
    /// count lines tell apart ([`TEXT_LINES`]), with those documents and how many they are:
    /// only such a word's holders can all be one text at a count where no line moves, and
    /// only at that count.
    fn large_copy_sets_words(&self) -> Result<FxHashMap<u64, Vec<(i64, u64)>>> {
        let fps: Vec<Vec<u8>> = self.rows(
            "SELECT fp FROM docs GROUP BY fp HAVING COUNT(*) > ?1",
            [TEXT_LINES],
            |r| r.get(0),
        )?;
        let mut out: FxHashMap<u64, Vec<(i64, u64)>> = FxHashMap::default();
        for fp in fps {
            let docs: Vec<(i64, String)> = self.rows(
                "SELECT id, line FROM docs WHERE fp=?1 ORDER BY id",
                [fp],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let Some((id, line)) = docs.first() else {
                continue;
            };
            let norm = super::stored_norm(self.dir, *id as u64, line)?.norm;
            let n = docs.len() as i64;
            for w in super::engine::index_words(&norm, &self.engine.scoring.opts).1 {
                out.entry(w)
                    .or_default()
                    .extend(docs.iter().map(|&(id, _)| (n, id as u64)));
            }
        }
        Ok(out)
    }

    /// The postings of the words whose count did not change but whose holders did (one
    /// document lost the word, another gained it), while the word is in `few`. (They were
    /// left as they were: `pl-index --verify` found postings of a document that no longer held
    /// the word, and none of the one that did.)
    fn repost_uncounted(&self, d: &Delta, counted: &FxHashSet<u64>) -> Result<()> {
        let mut words: Vec<u64> = d
            .moves
            .keys()
            .copied()
            .filter(|h| !counted.contains(h))
            .collect();
        words.sort_unstable();
        for h in words {
            let n: i64 = (self.row("SELECT n FROM words WHERE hash=?1", [h as i64], |r| {
                r.get(0)
            }))?
            .unwrap_or(0);
            if n == 0 || n > few_max(d.numbers.contains(&h)) {
                continue;
            }
            let (removed, added) = &d.moves[&h];
            for &id in removed {
                self.exec(
                    "DELETE FROM few WHERE hash=?1 AND id=?2",
                    [h as i64, id as i64],
                )?;
            }
            for &id in added {
                self.exec(
                    "INSERT OR IGNORE INTO few(hash, id) VALUES (?1, ?2)",
                    [h as i64, id as i64],
                )?;
            }
        }
        Ok(())
    }

    /// The corpus counts changed, the postings of rare words kept, and the holders of every
    /// word whose count moved to another of the scorer's lines added to the affected.
    fn moved_words(&self, d: &mut Delta, summary: &mut Summary, log: &Log) -> Result<()> {
        let changed = self.add_counts("words", &d.words)?;
        self.add_counts("tokens", &d.tokens)?;
        self.repost_uncounted(d, &changed.iter().map(|c| c.0).collect())?;
        let holders_before = d.affected.len();
        let mut rescan: FxHashMap<u64, bool> = FxHashMap::default();
        for (h, old, new) in changed {
            let number = d.numbers.contains(&h);
            let few = few_max(number);
            // The verifier knows a word when a document with another text has it: a word of a
            // large copy set's text may cross that line where no count line moves.
            let large = d.one_text_holders(h, old, new);
            let flip = count_line(old, number) != count_line(new, number) || large.is_some();
            summary.flipped_words += usize::from(flip);
            let (removed, added) = d.moves.get(&h).cloned().unwrap_or_default();
            if old <= few {
                // Its postings are in `few`: the holders are found without a scan.
                if flip {
                    d.affected.extend(self.posted(h)?);
                    d.affected.extend(added.iter().copied());
                }
                if new <= few {
                    for id in removed {
                        self.exec(
                            "DELETE FROM few WHERE hash=?1 AND id=?2",
                            [h as i64, id as i64],
                        )?;
                    }
                    for id in added {
                        self.exec(
                            "INSERT OR IGNORE INTO few(hash, id) VALUES (?1, ?2)",
                            [h as i64, id as i64],
                        )?;
                    }
                } else {
                    self.exec("DELETE FROM few WHERE hash=?1", [h as i64])?;
                }
            } else if new <= few {
                // Rare again (documents deleted or changed): its postings are found by reading
                // every stored text once, for all such words together.
                rescan.insert(h, flip);
            } else if let Some(members) = large {
                // Its holders, if one text, are that set's documents.
                d.affected
                    .extend(members.iter().chain(&added).chain(&removed));
            }
        }
        if !rescan.is_empty() {
            let found = self.holders(&rescan)?;
            log.info(format!(
                "{} words became rare again: every stored text read once to find their {} documents",
                rescan.len(),
                found.len()
            ));
            for (h, id) in found {
                self.exec(
                    "INSERT OR IGNORE INTO few(hash, id) VALUES (?1, ?2)",
                    [h as i64, id as i64],
                )?;
                if rescan[&h] {
                    d.affected.insert(id);
                }
            }
        }
        if summary.flipped_words > 0 {
            log.info(format!(
                "{} words crossed a count line: {} more documents rescored",
                summary.flipped_words,
                d.affected.len() - holders_before
            ));
        }
        Ok(())
    }

    /// The candidates of `ids` (sorted), as pl-lsh finds them: banded documents' buckets
    /// looked up, and each one's copy pairs with its set's representative.
    fn candidates_of(
        &self,
        ids: &[u64],
        keys: &mut FxHashMap<u64, Vec<(u32, u64)>>,
        numbers_of: &FxHashMap<u64, Vec<u64>>,
    ) -> Result<Vec<(Candidate, bool)>> {
        let all = self.engine.banding.bands as u32;
        let mut cands: BTreeMap<(u64, u64), (u32, bool)> = BTreeMap::new();
        let counts = Counts::stored(self);
        for &id in ids {
            let row: Option<(bool, Vec<u8>)> = self.row(
                "SELECT banded, fp FROM docs WHERE id=?1",
                [id as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let Some((banded, fp)) = row else { continue };
            if banded {
                let k = self.keys_of(id, keys)?;
                for (other, bands) in self.lookup(id, &k)? {
                    let key = (id.min(other), id.max(other));
                    let c = cands.entry(key).or_insert((0, false));
                    c.0 = c.0.max(bands);
                }
                // The pairs by numbers have no band: a band's count wins (pl-lsh's union).
                if self.engine.numbers {
                    let numbers = match numbers_of.get(&id) {
                        Some(n) => n.clone(),
                        None => self.stored_numbers(id)?,
                    };
                    for other in self.number_partners(id, &numbers, &counts)? {
                        cands
                            .entry((id.min(other), id.max(other)))
                            .or_insert((0, false));
                    }
                }
            }
            let fp = u128::from_le_bytes(fp.try_into().map_err(|_| anyhow!("bad fingerprint"))?);
            let members = self.same_text(fp)?;
            let mine = members
                .iter()
                .find(|(m, _)| *m == id)
                .and_then(|(_, s)| s.clone());
            if let Some(sig) = mine.filter(|s| !lsh::is_empty_signature(s)) {
                let set: Vec<u64> = members
                    .iter()
                    .filter(|(_, s)| s.as_ref() == Some(&sig))
                    .map(|(m, _)| *m)
                    .collect();
                let rep = set[0];
                for &m in &set[1..] {
                    if rep == id || m == id {
                        cands.insert((rep, m), (all, true));
                    }
                }
            }
        }
        Ok(cands
            .into_iter()
            .map(|((a, b), (bands, copy))| (Candidate::scored(a, b, bands), copy))
            .collect())
    }
}

/// What an update changes, gathered step by step.
#[derive(Default)]
struct Delta {
    /// Change of each word's and distinctive token's document count.
    words: FxHashMap<u64, i64>,
    tokens: FxHashMap<u64, i64>,
    /// Which documents each word leaves and enters, for its postings while it is rare.
    moves: FxHashMap<u64, (Vec<u64>, Vec<u64>)>,
    /// The words among them that are the ledger's numbers.
    numbers: FxHashSet<u64>,
    /// Texts (fingerprints) whose copy sets may have changed.
    fps: FxHashSet<u128>,
    /// Documents whose candidates are found and scored again.
    affected: FxHashSet<u64>,
    /// Each bucket's size before this update, for those whose documents change.
    sizes: FxHashMap<(u32, u64), usize>,
    /// Band keys known without preparing a stored text again.
    keys: FxHashMap<u64, Vec<(u32, u64)>>,
    /// The numbers of the documents this update puts in (pl-lsh --numbers).
    numbers_of: FxHashMap<u64, Vec<u64>>,
    /// The buckets of `sizes` that started or stopped pairing ([`lsh::BandRule::pairs`]).
    flipped: FxHashSet<(u32, u64)>,
    /// The size of each bucket of `sizes` after the update.
    now_sizes: FxHashMap<(u32, u64), usize>,
    /// Documents of buckets that weigh less (grown, or over --max-bucket), each with the
    /// documents it shares such a bucket with: only their pairs lost evidence or bands.
    unpaired: FxHashMap<u64, FxHashSet<u64>>,
    /// The words of the texts more than [`TEXT_LINES`] documents have, before or after the
    /// update, with those documents and how many they are.
    large_texts: FxHashMap<u64, Vec<(i64, u64)>>,
}

impl Delta {
    /// The documents of the copy sets whose text holds word `h` and that are as many as its
    /// count before or after the update (`old`, `new`): the only ones whose holders may all
    /// be one text at a count where no line moves. `None` when there are none.
    fn one_text_holders(&self, h: u64, old: i64, new: i64) -> Option<Vec<u64>> {
        let sets = self.large_texts.get(&h)?;
        if old.min(new) <= TEXT_LINES {
            return None;
        }
        let ids: Vec<u64> = sets
            .iter()
            .filter(|&&(n, _)| n == old || n == new)
            .map(|&(_, id)| id)
            .collect();
        (!ids.is_empty()).then_some(ids)
    }
}
