//! Scoring in the index: the candidate pairs an update found, with pl-score's code and the
//! corpus counts kept in the database, and the holders of words whose count line moved.

use super::*;

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
        let texts = NormTexts::read(norm_path, &wanted, &job.opts, job.budget, None)?;
        let sigs: FxHashMap<u64, SigRec> = docs
            .iter()
            .filter(|p| wanted.contains(&p.id))
            .filter_map(|p| p.sig.clone().map(|s| (p.id, s)))
            .collect();
        let mut inputs = Inputs {
            sigs,
            sigs_name: "the index".into(),
            shingles: None,
            texts: Some((texts, norm_path.display().to_string())),
        };
        let mut kept_lines = Vec::new();
        let sinks = Sinks {
            kept: &mut kept_lines,
            rejected: None,
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
        let mut flush = |chunk: &mut Vec<(u64, String)>| {
            let found: Vec<(u64, u64)> = chunk
                .par_iter()
                .flat_map_iter(|(id, line)| {
                    let norm = crate::ndjson::norm_of(line);
                    counted_words(&norm, opts)
                        .1
                        .into_iter()
                        .filter(|h| words.contains_key(h))
                        .map(|h| (h, *id))
                        .collect::<Vec<_>>()
                })
                .collect();
            out.extend(found);
            chunk.clear();
        };
        for r in rows {
            chunk.push(sql(self.dir, r)?);
            if chunk.len() >= 4096 {
                flush(&mut chunk);
            }
        }
        flush(&mut chunk);
        Ok(out)
    }

    /// Scores candidate pairs with the corpus counts in the index (`extra`: a document being
    /// checked, counted as if it were added). Returns the kept pairs' records, in order.
    pub(super) fn score(
        &self,
        list: &[(Candidate, bool)],
        extra: Option<&Prepared>,
    ) -> Result<Vec<(u64, u64, String)>> {
        if list.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<u64> = list.iter().flat_map(|(c, _)| [c.a, c.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        // Signatures first: a pair whose similarity cannot reach the threshold even with a
        // perfect fuzzy ratio is dropped by the scorer's first step, before it reads a text,
        // so only the other pairs' documents are read and counted.
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
                        sig: blob_sig(&sig),
                    },
                );
            }
        }
        let inputs = Inputs {
            sigs,
            sigs_name: "the index".into(),
            shingles: None,
            texts: None,
        };
        let job = &self.engine.scoring;
        let cfg = &job.config;
        let hopeless = |c: &Cand| -> bool {
            if !inputs.sigs.contains_key(&c.a) || !inputs.sigs.contains_key(&c.b) {
                return true;
            }
            if !job.fuzzy || cfg.threshold <= 0.0 {
                return false;
            }
            let sim = inputs.similarity(c);
            let s = if cfg.containment {
                sim.jaccard.max(sim.containment)
            } else {
                sim.jaccard
            };
            !sim.identical && cfg.weights.fuzzy_needed(s, cfg.threshold) - 1e-9 > 1.0
        };
        let cands: Vec<Cand> = list
            .iter()
            .map(|&(c, copy)| cand_of(c, copy))
            .collect::<Result<Vec<Cand>>>()?
            .into_iter()
            .filter(|c| !hopeless(c))
            .collect();
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
        // The counts as they are with `extra` in the index.
        let delta = |h: u64, of: fn(&Prepared) -> &Vec<u64>| -> i64 {
            let plus = extra.is_some_and(|p| of(p).binary_search(&h).is_ok());
            let minus = stored_extra
                .as_ref()
                .is_some_and(|p| of(p).binary_search(&h).is_ok());
            i64::from(plus) - i64::from(minus)
        };
        let get = |table: &str, h: u64| -> Result<i64> {
            let q = format!("SELECT n FROM {table} WHERE hash=?1");
            Ok(sql(
                self.dir,
                self.tx
                    .prepare_cached(&q)
                    .and_then(|mut s| s.query_row([h as i64], |r| r.get(0)).optional()),
            )?
            .unwrap_or(0))
        };
        let mut docs = self.count_of("docs")?;
        if extra.is_some() && stored_extra.is_none() {
            docs += 1;
        }
        let opts = &self.engine.scoring.opts;
        let mut token_set: Vec<u64> = Vec::new();
        for (_, line) in &lines {
            if let Some(f) = crate::ndjson::norm_fields(line) {
                token_set.extend(counted_words(&f.norm, opts).0);
            } else {
                let o = pl_core::fields::parse_object(line).map_err(|e| anyhow!("{e}"))?;
                let norm = o.get("norm").and_then(Value::as_str).unwrap_or_default();
                token_set.extend(counted_words(norm, opts).0);
            }
        }
        token_set.sort_unstable();
        token_set.dedup();
        let mut df_counts = Vec::with_capacity(token_set.len());
        for &t in &token_set {
            let n = get("tokens", t)? + delta(t, |p| &p.tokens);
            df_counts.push((t, n.max(0) as u32));
        }
        let df = DocFreq::from_counts(docs, df_counts);
        let refs: Vec<(u64, &str)> = lines.iter().map(|(id, l)| (*id, l.as_str())).collect();
        let (sides, counts) = sides_of_lines(&refs, opts, &df, |h| {
            Ok((get("words", h)? + delta(h, |p| &p.words)).max(0) as u32)
        })?;
        let scorer = Scorer {
            config: &job.config,
            doc_counts: &counts,
            explain: job.explain,
        };
        let verdicts: Vec<Option<Verdict>> = cands
            .par_iter()
            .map(|c| {
                if !inputs.sigs.contains_key(&c.a) || !inputs.sigs.contains_key(&c.b) {
                    return None;
                }
                let sim = inputs.similarity(c);
                let docs = sides
                    .get(&c.a)
                    .zip(sides.get(&c.b))
                    .map(|(x, y)| (x.doc(), y.doc()));
                Some(scorer.score(sim, docs, job.fuzzy))
            })
            .collect();
        let mut out = Vec::new();
        for (c, v) in cands.iter().zip(verdicts) {
            if let Some(Verdict::Kept(d)) = v {
                let mut rec = job.record(c, &d, &sides);
                rec.pass_through(c.rest.to_obj());
                out.push((c.a, c.b, serde_json::to_string(&rec)?));
            }
        }
        Ok(out)
    }
}
