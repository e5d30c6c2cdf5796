//! Scoring in the index: the candidate pairs an update found, with pl-score's code and the
//! corpus counts kept in the database, and the holders of words whose count line moved.

use super::*;

/// What [`Tx::score`] gives: the kept pairs' records, in order, and the pairs held apart.
#[derive(Default)]
pub(super) struct Scored {
    pub kept: Vec<(u64, u64, String)>,
    pub apart: Vec<(u64, u64)>,
}

impl Tx<'_> {
    pub(super) fn score_file(
        &self,
        norm_path: &Path,
        docs: &[Prepared],
        list: &[(Candidate, bool)],
        log: &Log,
    ) -> Result<usize> {
        let cands: Vec<Cand> = list
            .iter()
            .map(|&(c, copy)| cand_of(c, copy))
            .collect::<Result<_>>()?;
        let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
        let job = &self.engine.scoring;
        let texts = NormTexts::read(norm_path, &wanted, &job.opts, job.budget, 0, None)?;
        let sigs: FxHashMap<u64, SigRec> = docs
            .iter()
            .filter(|p| wanted.contains(&p.id))
            .filter_map(|p| p.sig.clone().map(|s| (p.id, s)))
            .collect();
        let mut inputs = Inputs {
            sigs: Sigs::held(sigs, "the index"),
            shingles: None,
            texts: Some((texts, norm_path.display().to_string())),
        };
        let mut kept_lines = Vec::new();
        let sinks = Sinks {
            kept: &mut kept_lines,
            rejected: None,
            apart: Apart::All,
        };
        let counts = score_all(job, &mut inputs, &cands, sinks, log)?;
        for line in kept_lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.insert_pair(std::str::from_utf8(line).expect("records are UTF-8"))?;
        }
        Ok(counts.kept as usize)
    }

    /// `(word, document)` for every stored document whose verifier words include one of
    /// `words`: every stored text is read once.
    pub(super) fn holders(&self, words: &FxHashMap<u64, bool>) -> Result<Vec<(u64, u64)>> {
        let mut st = sql(self.dir, self.tx.prepare("SELECT id, line FROM docs"))?;
        let rows = sql(
            self.dir,
            st.query_map([], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            }),
        )?;
        let mut chunk: Vec<(u64, String)> = Vec::new();
        let mut out = Vec::new();
        let opts = &self.engine.scoring.opts;
        let dir = self.dir;
        let mut flush = |chunk: &mut Vec<(u64, String)>| -> Result<()> {
            let found: Vec<Vec<(u64, u64)>> = chunk
                .par_iter()
                .map(|(id, line)| {
                    let norm = super::stored_norm(dir, *id, line)?.norm;
                    Ok(super::engine::index_words(&norm, opts)
                        .1
                        .into_iter()
                        .filter(|h| words.contains_key(h))
                        .map(|h| (h, *id))
                        .collect())
                })
                .collect::<Result<_>>()?;
            out.extend(found.into_iter().flatten());
            chunk.clear();
            Ok(())
        };
        for r in rows {
            chunk.push(sql(self.dir, r)?);
            if chunk.len() >= 4096 {
                flush(&mut chunk)?;
            }
        }
        flush(&mut chunk)?;
        Ok(out)
    }

    /// Scores candidate pairs with the corpus counts in the index (`extra`: a document being
    /// checked, counted as if it were added), with a bar over the pairs verified when `log`
    /// is given (and stderr a terminal). Returns the kept pairs' records, in order, and the
    /// pairs held apart.
    pub(super) fn score(
        &self,
        list: &[(Candidate, bool)],
        extra: Option<&Prepared>,
        log: Option<&Log>,
    ) -> Result<Scored> {
        if list.is_empty() {
            return Ok(Scored::default());
        }
        let (sigs, stored_extra) = self.signatures(list, extra)?;
        let inputs = Inputs {
            sigs: Sigs::held(sigs, "the index"),
            shingles: None,
            texts: None,
        };
        let counts = Counts {
            tx: self,
            extra,
            stored_extra: stored_extra.as_ref(),
        };
        let cands = self.hopeful(list, &inputs, &counts)?;
        let lines = self.lines_of(&cands, extra)?;
        let job = &self.engine.scoring;
        let df = counts.doc_freq(&lines, &job.opts)?;
        let refs: Vec<(u64, &str)> = lines.iter().map(|(id, l)| (*id, l.as_str())).collect();
        let (sides, word_counts) = sides_of_lines(
            &refs,
            &job.opts,
            &df,
            |h| Ok(counts.n("words", h, |p| &p.words)?.max(0) as u32),
            |id| counts.copies(id),
        )?;
        let scorer = Scorer {
            config: &job.config,
            doc_counts: &word_counts,
            explain: job.explain,
        };
        let bar = log.map_or_else(indicatif::ProgressBar::hidden, |l| {
            l.bar("candidates rescored", cands.len() as u64)
        });
        let held = inputs
            .sigs
            .all_held()
            .expect("the index's signatures are held");
        let verdicts: Vec<Option<Verdict>> = cands
            .par_iter()
            .map(|c| {
                bar.inc(1);
                if !inputs.sigs.contains(c.a) || !inputs.sigs.contains(c.b) {
                    return None;
                }
                let sim = inputs.similarity(c, held);
                let docs = sides
                    .get(&c.a)
                    .zip(sides.get(&c.b))
                    .map(|(x, y)| (x.doc(), y.doc()));
                Some(scorer.score(sim, docs, job.fuzzy))
            })
            .collect();
        bar.finish_and_clear();
        let mut out = Scored::default();
        for (c, v) in cands.iter().zip(verdicts) {
            match v {
                Some(Verdict::Kept(d)) => {
                    let mut rec = job.record(c, &d, &sides);
                    rec.pass_through(c.rest.to_obj());
                    out.kept.push((c.a, c.b, serde_json::to_string(&rec)?));
                }
                Some(Verdict::Dropped(d, r)) if r.may_be_apart(&d, true) => {
                    out.apart.push((c.a, c.b));
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The signatures of the documents of `list` (`extra`'s own, not its stored one), and
    /// the stored version of `extra`, if any.
    fn signatures(
        &self,
        list: &[(Candidate, bool)],
        extra: Option<&Prepared>,
    ) -> Result<(FxHashMap<u64, SigRec>, Option<Prepared>)> {
        let mut ids: Vec<u64> = list.iter().flat_map(|(c, _)| [c.a, c.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut sigs: FxHashMap<u64, SigRec> = FxHashMap::default();
        let mut stored_extra: Option<Prepared> = None;
        for &id in &ids {
            if let Some(p) = extra.filter(|p| p.id == id) {
                if let Some(s) = &p.sig {
                    sigs.insert(id, s.clone());
                }
                stored_extra = self.stored(id)?.map(|(s, _)| s);
                continue;
            }
            let (size, sig, fp): (Option<i64>, Option<Vec<u8>>, Vec<u8>) = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT size, sig, fp FROM docs WHERE id=?1")
                    .and_then(|mut s| {
                        s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    }),
            )?;
            if let (Some(size), Some(sig)) = (size, sig) {
                let fingerprint =
                    u128::from_le_bytes(fp.try_into().map_err(|_| anyhow!("bad fingerprint"))?);
                sigs.insert(
                    id,
                    SigRec {
                        id,
                        fingerprint,
                        size: size as u64,
                        sig: self.sig_of(id, &sig)?,
                    },
                );
            }
        }
        Ok((sigs, stored_extra))
    }

    /// The candidates the scorer may keep. Signatures first: a pair whose similarity cannot
    /// reach the minimum similarity even with a perfect fuzzy ratio is dropped by the scorer's first
    /// step, before it reads a text, so only the other pairs' documents are read and counted.
    fn hopeful(
        &self,
        list: &[(Candidate, bool)],
        inputs: &Inputs,
        counts: &Counts,
    ) -> Result<Vec<Cand>> {
        let job = &self.engine.scoring;
        let cfg = &job.config;
        let held = inputs
            .sigs
            .all_held()
            .expect("the index's signatures are held");
        let low = |c: &Cand| -> bool {
            if !inputs.sigs.contains(c.a) || !inputs.sigs.contains(c.b) {
                return true;
            }
            if !job.fuzzy || cfg.min_similarity <= 0.0 {
                return false;
            }
            let sim = inputs.similarity(c, held);
            let s = if cfg.containment {
                sim.jaccard.max(sim.containment)
            } else {
                sim.jaccard
            };
            !sim.identical && cfg.weights.fuzzy_needed(s, cfg.min_similarity) - 1e-9 > 1.0
        };
        // A pair whose texts share two rare numbers is the verifier's to judge, whatever its
        // score (`Scorer::by_numbers`): its documents' numbers are read to find it.
        let judged_by_numbers = cfg.verifier.is_some() && cfg.rescue.is_some();
        let mut numbers: FxHashMap<u64, Vec<u64>> = FxHashMap::default();
        let mut out = Vec::new();
        for &(c, copy) in list {
            let c = cand_of(c, copy)?;
            let present = inputs.sigs.contains(c.a) && inputs.sigs.contains(c.b);
            if !present
                || (low(&c)
                    && !(judged_by_numbers && self.share_numbers(&c, counts, &mut numbers)?))
            {
                continue;
            }
            out.push(c);
        }
        Ok(out)
    }

    /// Whether the pair's texts share [`lsh::NUMBER_MATCHES`] numbers that at most
    /// [`pl_core::ledger::WIDE_DF`] documents hold, as the scorer counts them; `numbers`
    /// caches each document's.
    fn share_numbers(
        &self,
        c: &Cand,
        counts: &Counts,
        numbers: &mut FxHashMap<u64, Vec<u64>>,
    ) -> Result<bool> {
        for id in [c.a, c.b] {
            if let std::collections::hash_map::Entry::Vacant(e) = numbers.entry(id) {
                e.insert(match counts.extra.filter(|p| p.id == id) {
                    Some(p) => p.numbers.clone(),
                    None => self.stored_numbers(id)?,
                });
            }
        }
        let (x, y) = (&numbers[&c.a], &numbers[&c.b]);
        let mut shared = 0;
        for &h in x.iter().filter(|h| y.binary_search(h).is_ok()) {
            if counts.pairing_number(h)? {
                shared += 1;
                if shared >= lsh::NUMBER_MATCHES {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The stored lines of the documents of `cands` (`extra`'s own line for it), by id.
    fn lines_of(&self, cands: &[Cand], extra: Option<&Prepared>) -> Result<Vec<(u64, String)>> {
        let mut ids: Vec<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut lines: Vec<(u64, String)> = Vec::with_capacity(ids.len());
        for &id in &ids {
            if let Some(p) = extra.filter(|p| p.id == id) {
                lines.push((id, p.line.clone()));
                continue;
            }
            let line: String = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT line FROM docs WHERE id=?1")
                    .and_then(|mut s| s.query_row([id as i64], |r| r.get(0))),
            )?;
            lines.push((id, line));
        }
        Ok(lines)
    }
}

/// The corpus counts as they are with a checked document (`extra`) in the index: its own
/// words counted, its stored version's (if any) not.
pub(super) struct Counts<'a, 'b> {
    pub(super) tx: &'a Tx<'b>,
    pub(super) extra: Option<&'a Prepared>,
    pub(super) stored_extra: Option<&'a Prepared>,
}

impl<'a, 'b> Counts<'a, 'b> {
    /// The counts as the index holds them (no document being checked).
    pub(super) fn stored(tx: &'a Tx<'b>) -> Counts<'a, 'b> {
        Counts {
            tx,
            extra: None,
            stored_extra: None,
        }
    }

    /// Documents holding `h` (a hash of `table`: words or tokens); `of` gives a prepared
    /// document's hashes of that table.
    pub(super) fn n(&self, table: &str, h: u64, of: fn(&Prepared) -> &Vec<u64>) -> Result<i64> {
        let holds = |p: Option<&Prepared>| p.is_some_and(|p| of(p).binary_search(&h).is_ok());
        let delta = i64::from(holds(self.extra)) - i64::from(holds(self.stored_extra));
        let q = format!("SELECT n FROM {table} WHERE hash=?1");
        let stored: Option<i64> = self.tx.row(&q, [h as i64], |r| r.get(0))?;
        Ok(stored.unwrap_or(0) + delta)
    }

    /// Documents with the normalized text of document `id` (at least 1), as [`Counts::n`]
    /// counts them.
    pub(super) fn copies(&self, id: u64) -> Result<u32> {
        // One query: the document's fingerprint and how many stored documents have it.
        let (fp, stored): (Vec<u8>, i64) = match self.extra.filter(|p| p.id == id) {
            Some(p) => {
                let fp = p.fp.to_le_bytes().to_vec();
                let q = "SELECT COUNT(*) FROM docs WHERE fp=?1";
                let n = self.tx.row(q, [&fp], |r| r.get(0))?.unwrap_or(0);
                (fp, n)
            }
            None => {
                let q = "SELECT d.fp, (SELECT COUNT(*) FROM docs c WHERE c.fp=d.fp) \
                         FROM docs d WHERE d.id=?1";
                self.tx
                    .row(q, [id as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .ok_or_else(|| anyhow!("document {id} is not in the index"))?
            }
        };
        let has = |p: Option<&Prepared>| p.is_some_and(|p| p.fp.to_le_bytes()[..] == fp[..]);
        let delta = i64::from(has(self.extra)) - i64::from(has(self.stored_extra));
        Ok((stored + delta).max(1) as u32)
    }

    /// Whether the number of hash `h` pairs the documents holding it (as pl-lsh --numbers
    /// and the scorer's say over the threshold read it): two to [`lsh::NUMBER_BUCKET`] hold it.
    pub(super) fn pairing_number(&self, h: u64) -> Result<bool> {
        let n = self.n("words", h, |p| &p.words)?;
        Ok((2..=lsh::NUMBER_BUCKET as i64).contains(&n))
    }

    /// The distinctive tokens' document frequencies over the documents of `lines`.
    fn doc_freq(&self, lines: &[(u64, String)], opts: &SideOptions) -> Result<DocFreq> {
        let mut docs = self.tx.count_of("docs")?;
        if self.extra.is_some() && self.stored_extra.is_none() {
            docs += 1;
        }
        let mut token_set: Vec<u64> = Vec::new();
        for (id, line) in lines {
            let f = super::stored_norm(self.tx.dir, *id, line)?;
            token_set.extend(counted_words(&f.norm, opts).0);
        }
        token_set.sort_unstable();
        token_set.dedup();
        let mut df_counts = Vec::with_capacity(token_set.len());
        for &t in &token_set {
            df_counts.push((t, self.n("tokens", t, |p| &p.tokens)?.max(0) as u32));
        }
        Ok(DocFreq::from_counts(docs, df_counts))
    }
}
