//! pl-score's run over its candidates: each pair through the scorer's cascade
//! ([`pl_core::scorer`]) with its documents' signatures and sides, a batch of documents at a
//! time when their texts do not fit `--text-memory`, and the scored records written in
//! candidate order.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{anyhow, Result};
use pl_core::batches::Batch;
use pl_core::cluster::apart_in_components;
use pl_core::evidence::Side as ConflictSide;
use pl_core::minhash::{estimate_jaccard, exact_jaccard};
use pl_core::score::{containment_estimate, exact_containment, round6};
use pl_core::scorer::{Computation, Config, Dims, Reason, Scorer, Similarity, Step, Verdict};
use pl_core::text_records::{ApartRecord, ScoreRecord};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::candidates::Cand;
use crate::log::Log;
use crate::ndjson::write_obj;
use crate::reorder::Reorder;
use crate::score_sides::{NormTexts, SideOptions, Sides};
use crate::score_sigs::{SigMap, Sigs};

/// Candidates scored at once: bounds the memory of the results, whatever the number of
/// candidates.
const SCORE_BLOCK: usize = 1 << 18;

/// What the pairs' documents are scored with, and the names of the files they came from.
pub struct Inputs {
    pub sigs: Sigs,
    /// Shingle sets, with --exact.
    pub shingles: Option<(FxHashMap<u64, Vec<u64>>, String)>,
    /// The norm file, counted, with --norm.
    pub texts: Option<(NormTexts, String)>,
}

impl Inputs {
    /// Refuses a pair whose document one of the inputs lacks, naming the pair and the file.
    pub fn check(&self, cands: &[Cand], cands_name: &str) -> Result<()> {
        for c in cands {
            for id in [c.a, c.b] {
                let missing = if !self.sigs.contains(id) {
                    Some(self.sigs.name())
                } else if let Some((_, name)) =
                    self.shingles.as_ref().filter(|(s, _)| !s.contains_key(&id))
                {
                    Some(name.as_str())
                } else if let Some((_, name)) = self.texts.as_ref().filter(|(t, _)| !t.contains(id))
                {
                    Some(name.as_str())
                } else {
                    None
                };
                if let Some(file) = missing {
                    return Err(anyhow!(
                        "{cands_name}: document {id} of pair ({}, {}) is not in {file}",
                        c.a,
                        c.b
                    ));
                }
            }
        }
        Ok(())
    }

    /// Pairs of two copies of one text, which are scored without comparing them.
    pub fn copies(&self, cands: &[Cand]) -> usize {
        cands.iter().filter(|c| self.identical(c)).count()
    }

    /// Whether a pair's documents are one normalized text: equal fingerprints, and (so that
    /// every dimension comes out exactly as comparing them would give) equal non-empty
    /// signatures and, for --exact, equal shingle sets. Documents with an empty shingle set are
    /// compared as usual.
    fn identical(&self, c: &Cand) -> bool {
        self.sigs.identical(c.a, c.b)
            && self.shingles.as_ref().is_none_or(|(s, _)| {
                let (x, y) = (&s[&c.a], &s[&c.b]);
                !x.is_empty() && x == y
            })
    }

    /// The pair's Jaccard and containment: estimated from the signatures (`sigs`: those of its
    /// batch), exact from the shingle sets with --exact, 1 for two copies.
    pub fn similarity(&self, c: &Cand, sigs: &SigMap) -> Similarity {
        let identical = self.identical(c);
        let (jaccard, containment) = if identical {
            (1.0, 1.0)
        } else if let Some((s, _)) = &self.shingles {
            let (x, y) = (&s[&c.a], &s[&c.b]);
            (exact_jaccard(x, y), exact_containment(x, y))
        } else {
            let (sa, sb) = (&sigs[&c.a], &sigs[&c.b]);
            let j = estimate_jaccard(&sa.sig, &sb.sig);
            (j, containment_estimate(j, sa.size, sb.size))
        };
        Similarity {
            jaccard,
            containment,
            identical,
        }
    }
}

/// How pairs are scored and what their records say.
pub struct Scoring {
    pub config: Config,
    /// Whether the fuzzy ratio is computed.
    pub fuzzy: bool,
    /// Add the words only one text has and the conflict words.
    pub explain: bool,
    pub opts: SideOptions,
    /// Bytes of sides held at once, as [`crate::score_sides::NormTexts::cost`] estimates them.
    pub budget: u64,
}

impl Scoring {
    /// The scoring the parameters describe, holding at most `budget` bytes of documents.
    pub fn of(p: &pl_core::scorer::ScoreParams, explain: bool, budget: u64) -> Scoring {
        Scoring {
            config: p.config(),
            fuzzy: p.fuzzy_weight > 0.0,
            explain,
            opts: SideOptions::of(p, explain),
            budget,
        }
    }
}

/// Where records go: the kept pairs and the pairs held apart, and the dropped ones with
/// --rejected.
pub struct Sinks<'a, W: Write> {
    pub kept: &'a mut W,
    pub rejected: Option<&'a mut W>,
    pub apart: Apart,
}

/// Which pairs held apart are written (after the kept pairs, sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apart {
    /// Those whose documents the kept pairs connect: the only ones that can change a group,
    /// when every candidate is scored in one run.
    InComponents,
    /// Every one: for runs that score a part of the candidates (scripts/spark) or keep the
    /// pairs for later updates (the index).
    All,
}

/// Pairs kept, and dropped by each reason (score, distinct, conflicts, numbers); the pairs held apart
/// written; the steps that decided them.
pub struct Counts {
    pub kept: u64,
    pub apart: u64,
    pub dropped: [u64; 5],
    pub ladder: Ladder,
}

/// Scores every candidate and writes each kept pair (and with `rejected`, each dropped one)
/// in candidate order, then the pairs held apart ([`Apart`]), sorted; `-v` says how many pairs
/// each step of the cascade decided. Memory: 16 bytes per kept pair and per pair held apart.
pub fn score_all<W: Write>(
    job: &Scoring,
    inputs: &mut Inputs,
    cands: &[Cand],
    sinks: Sinks<'_, W>,
    log: &Log,
) -> Result<Counts> {
    let held = match inputs.texts.as_mut() {
        Some((t, _)) => t.take_held(),
        None => Some(Sides::default()),
    };
    let (batches, doc_ids) = plan(job, inputs, held.is_none(), cands, log)?;
    let inputs = &*inputs;
    let config = job.run_config(sinks.apart);
    let scorer = Scorer {
        config: &config,
        doc_counts: inputs.texts.as_ref().map_or(&[], |(t, _)| t.doc_counts()),
        explain: job.explain,
    };
    let ladder = Ladder::default();
    let score_pair = |c: &Cand, s: &Sides, sigs: &SigMap| {
        score_one(&scorer, job.fuzzy, inputs, c, (s, sigs), &ladder)
    };
    let apart_decided = config.rescue.is_some_and(|r| r.apart);
    let mut tally = Tally::default();
    let mut out = PairOut::new(sinks, batches.len(), cands.len())?;
    let pb = log.bar("candidates", cands.len() as u64);
    for batch in &batches {
        let (loaded, loaded_sigs) = read_batch(inputs, batch, &doc_ids, held.is_some(), job)?;
        let sides = held
            .as_ref()
            .or(loaded.as_ref())
            .expect("texts held or read");
        let sigs = inputs
            .sigs
            .all_held()
            .or(loaded_sigs.as_ref())
            .expect("signatures held or read");
        for block in batch.pairs.chunks(SCORE_BLOCK) {
            let scored: Vec<Verdict> = block
                .par_iter()
                .map(|&i| score_pair(&cands[i as usize], sides, sigs))
                .collect();
            for (&i, v) in block.iter().zip(scored) {
                let c = &cands[i as usize];
                let (d, reason) = tally.count(c, v, apart_decided);
                if reason.is_some() && out.sinks.rejected.is_none() {
                    continue;
                }
                let mut rec = job.record(c, &d, sides);
                rec.dropped = reason.map(|r| r.as_str().to_string());
                rec.pass_through(c.rest.to_obj());
                out.put(i as usize, &rec, reason.is_some())?;
            }
            pb.inc(block.len() as u64);
        }
    }
    pb.finish_and_clear();
    out.drain()?;
    let apart = match out.sinks.apart {
        Apart::InComponents => {
            let maybe = apart_in_components(&tally.kept_pairs, &tally.apart);
            decide_apart(&scorer, maybe, held.as_ref(), inputs, job)?
        }
        Apart::All => {
            let mut all = tally.apart;
            all.sort_unstable();
            all
        }
    };
    out.apart(&apart)?;
    Ok(Counts {
        kept: tally.kept,
        apart: apart.len() as u64,
        dropped: tally.dropped,
        ladder,
    })
}

/// The batches of the candidates and the documents they read; texts not held are read again
/// from --norm, batch by batch.
fn plan(
    job: &Scoring,
    inputs: &Inputs,
    read_again: bool,
    cands: &[Cand],
    log: &Log,
) -> Result<(Vec<Batch>, Vec<u64>)> {
    let to_read = inputs.texts.as_ref().filter(|_| read_again).map(|(t, _)| t);
    let (batches, doc_ids) = plan_batches(cands, to_read, job.budget)?;
    if let (Some((_, name)), true) = (&inputs.texts, to_read.is_some()) {
        log.info(batches_said(&batches, doc_ids.len(), name, job.budget));
    }
    Ok((batches, doc_ids))
}

/// The verdict on candidate `c`, its time added to the step of the cascade that decided it.
fn score_one(
    scorer: &Scorer,
    fuzzy: bool,
    inputs: &Inputs,
    c: &Cand,
    (sides, sigs): (&Sides, &SigMap),
    ladder: &Ladder,
) -> Verdict {
    let start = std::time::Instant::now();
    let sim = inputs.similarity(c, sigs);
    let docs = sides
        .get(&c.a)
        .zip(sides.get(&c.b))
        .map(|(x, y)| (x.doc(), y.doc()));
    let verdict = scorer.score(sim, docs, fuzzy);
    let step = if sim.identical {
        Step::Identical
    } else {
        verdict.step()
    };
    ladder.add(step, start.elapsed());
    verdict
}

/// What `-v` says of a run whose texts are read again: how many batches, how much is read.
fn batches_said(batches: &[Batch], docs: usize, name: &str, budget: u64) -> String {
    let read: usize = batches.iter().map(|b| b.docs.len()).sum();
    let mb = budget >> 20;
    if batches.len() == 1 {
        format!("{read} texts read again from {name} in one batch: held, they seemed to need more than --text-memory {mb} MB")
    } else {
        format!(
            "the pairs' documents need more than --text-memory {mb} MB: scored in {} batches, {read} texts read again from {name} for {docs} documents",
            batches.len(),
        )
    }
}

/// What a batch reads again: its documents' texts from --norm unless every text is held
/// (`texts_held`), and their signatures unless every one is held (with held texts, the
/// batch is every pair and its signatures every document's).
fn read_batch(
    inputs: &Inputs,
    batch: &Batch,
    doc_ids: &[u64],
    texts_held: bool,
    job: &Scoring,
) -> Result<(Option<Sides>, Option<SigMap>)> {
    let ids: Vec<u64> = match texts_held {
        true if inputs.sigs.all_held().is_some() => Vec::new(),
        true => inputs.sigs.ids(),
        false => batch.docs.iter().map(|&d| doc_ids[d as usize]).collect(),
    };
    let sides = match (&inputs.texts, texts_held) {
        (Some((t, _)), false) => Some(t.load(&ids, &job.opts)?),
        (None, false) => unreachable!("texts are held unless read from --norm"),
        (_, true) => None,
    };
    Ok((sides, inputs.sigs.load(&ids)?))
}

/// What scoring has found so far: the pairs kept and dropped, and those that may be held
/// apart. Memory: 16 bytes per kept pair and per pair that may be held apart.
#[derive(Default)]
struct Tally {
    kept: u64,
    dropped: [u64; 5],
    kept_pairs: Vec<(u64, u64)>,
    apart: Vec<(u64, u64)>,
}

impl Tally {
    /// Counts the verdict on `c`; gives its dimensions and why it was dropped. `apart_decided`:
    /// whether the ledgers decided the pairs held apart ([`pl_core::ledger::Rescue::apart`]).
    fn count(&mut self, c: &Cand, v: Verdict, apart_decided: bool) -> (Dims, Option<Reason>) {
        let (d, reason) = match v {
            Verdict::Kept(d) => (d, None),
            Verdict::Dropped(d, r) => {
                self.dropped[r as usize] += 1;
                (d, Some(r))
            }
        };
        if reason.is_none() {
            self.kept += 1;
            self.kept_pairs.push((c.a, c.b));
        } else if reason.is_some_and(|r| r.may_be_apart(&d, apart_decided)) {
            // Held apart, or (undecided) may be: no number agrees widely.
            self.apart.push((c.a, c.b));
        }
        (d, reason)
    }
}

/// Where the scored pairs go: straight to their sinks, or, scored in several batches,
/// through a temporary file that gives them back in candidate order.
struct PairOut<'a, W: Write> {
    sinks: Sinks<'a, W>,
    reorder: Option<Reorder>,
    line: Vec<u8>,
}

impl<'a, W: Write> PairOut<'a, W> {
    /// Out to `sinks`, in candidate order for `records` candidates when in `batches`.
    fn new(sinks: Sinks<'a, W>, batches: usize, records: usize) -> Result<PairOut<'a, W>> {
        Ok(PairOut {
            sinks,
            reorder: match batches {
                0 | 1 => None,
                _ => Some(Reorder::new(records)?),
            },
            line: Vec::new(),
        })
    }

    /// Writes candidate `i`'s record (`dropped`: to the rejected pairs' sink).
    fn put(&mut self, i: usize, rec: &ScoreRecord, dropped: bool) -> Result<()> {
        match (self.reorder.as_mut(), dropped, self.sinks.rejected.as_mut()) {
            (Some(r), _, _) => {
                self.line.clear();
                write_obj(&mut self.line, rec)?;
                r.put(i, u8::from(dropped), &self.line)?;
            }
            (None, false, _) => write_obj(self.sinks.kept, rec)?,
            (None, true, Some(w)) => write_obj(w, rec)?,
            (None, true, None) => unreachable!("dropped pairs are skipped without --rejected"),
        }
        Ok(())
    }

    /// Writes the records held back, in candidate order.
    fn drain(&mut self) -> Result<()> {
        let Some(r) = self.reorder.take() else {
            return Ok(());
        };
        let sinks = &mut self.sinks;
        r.drain(|sink, line| match (sink, sinks.rejected.as_mut()) {
            (0, _) => Ok(sinks.kept.write_all(line)?),
            (_, Some(w)) => Ok(w.write_all(line)?),
            (_, None) => unreachable!("only kept pairs are put without --rejected"),
        })
    }

    /// Writes the pairs held apart, after the kept ones.
    fn apart(&mut self, apart: &[(u64, u64)]) -> Result<()> {
        for &(a, b) in apart {
            write_obj(self.sinks.kept, &ApartRecord { a, b, apart: true })?;
        }
        Ok(())
    }
}

/// The pairs of `maybe` (dropped by the verifier, none of their numbers agreeing widely,
/// inside a component of the kept pairs) that the ledger holds apart, in order; their texts
/// from `held`, else read again from --norm.
fn decide_apart(
    scorer: &Scorer,
    maybe: Vec<(u64, u64)>,
    held: Option<&Sides>,
    inputs: &Inputs,
    job: &Scoring,
) -> Result<Vec<(u64, u64)>> {
    let loaded;
    let sides = match (held, &inputs.texts) {
        (Some(h), _) => h,
        (None, Some((t, _))) => {
            let mut ids: Vec<u64> = maybe.iter().flat_map(|&(a, b)| [a, b]).collect();
            ids.sort_unstable();
            ids.dedup();
            loaded = t.load(&ids, &job.opts)?;
            &loaded
        }
        (None, None) => return Ok(Vec::new()),
    };
    Ok(maybe
        .into_par_iter()
        .filter(|(a, b)| match (sides.get(a), sides.get(b)) {
            (Some(x), Some(y)) => scorer.held_apart(x.doc(), y.doc()),
            _ => false,
        })
        .collect())
}

impl Scoring {
    /// The config a run scores with: writing only the pairs held apart inside the kept pairs'
    /// components, pl-score decides them at the end, for those pairs alone (most rejected
    /// pairs never need it); writing every one, while scoring.
    fn run_config(&self, apart: Apart) -> Config {
        let mut config = self.config.clone();
        if let Some(r) = config.rescue.as_mut() {
            r.apart = apart == Apart::All;
        }
        config
    }

    /// The output record of a scored pair (without the candidate's passthrough fields).
    pub fn record(&self, c: &Cand, d: &Dims, sides: &Sides) -> ScoreRecord {
        let mut r = ScoreRecord {
            a: c.a,
            b: c.b,
            score: round6(d.score()),
            similarity: Some(round6(d.similarity)),
            jaccard: Some(round6(d.jaccard)),
            fuzzy: Some(d.fuzzy.map(round6)),
            containment: Some(round6(d.containment)),
            distinct: Some(d.distinct.map(round6)),
            ..Default::default()
        };
        if let (Some(e), Some(v)) = (&d.evidence, &self.config.verifier) {
            r.conflicts = Some(round6(v.weight(e)));
            r.garbled = Some(e.garbled);
            if [c.a, c.b]
                .iter()
                .any(|id| sides.get(id).is_some_and(|s| s.sampled))
            {
                r.sampled = Some(true);
            }
        }
        if d.rescued {
            r.rescued = Some(true);
        }
        if d.by_numbers && d.similarity < self.config.min_similarity {
            r.by_numbers = Some(true);
        }
        if self.explain {
            r.computation = Computation::of(&self.config, d);
            r.ledger = d.ledger.clone();
            if let (Some(x), Some(y)) = (sides.get(&c.a), sides.get(&c.b)) {
                let only = |p: &[String], q: &[String]| -> Option<Vec<String>> {
                    let q: FxHashSet<&String> = q.iter().collect();
                    Some(
                        p.iter()
                            .filter(|w| !q.contains(w))
                            .take(20)
                            .cloned()
                            .collect(),
                    )
                };
                r.only_a = only(&x.words, &y.words);
                r.only_b = only(&y.words, &x.words);
            }
            if let Some(e) = &d.evidence {
                r.evidence = Some(e.clone());
                let side = |s: ConflictSide| -> Option<Vec<String>> {
                    Some(
                        e.conflicts
                            .iter()
                            .filter(|c| c.side == s)
                            .take(20)
                            .map(|c| c.word.clone())
                            .collect(),
                    )
                };
                r.conflicts_a = side(ConflictSide::A);
                r.conflicts_b = side(ConflictSide::B);
            }
        }
        r
    }
}

/// The batches to score the candidates in, and the id of each dense document number: one
/// batch of every pair when the texts are held (`texts` is `None`), else planned over the
/// texts' costs ([`pl_core::batches::plan`]).
fn plan_batches(
    cands: &[Cand],
    texts: Option<&NormTexts>,
    budget: u64,
) -> Result<(Vec<Batch>, Vec<u64>)> {
    let n = u32::try_from(cands.len())
        .map_err(|_| anyhow!("over 4,294,967,295 candidate pairs: split the input"))?;
    let Some(texts) = texts else {
        let all = Batch {
            docs: Vec::new(),
            pairs: (0..n).collect(),
        };
        return Ok((vec![all], Vec::new()));
    };
    let mut dense: FxHashMap<u64, u32> = FxHashMap::default();
    let mut ids = Vec::new();
    let mut number = |id: u64| {
        *dense.entry(id).or_insert_with(|| {
            ids.push(id);
            ids.len() as u32 - 1
        })
    };
    let pairs: Vec<(u32, u32)> = cands.iter().map(|c| (number(c.a), number(c.b))).collect();
    let costs: Vec<u64> = ids.iter().map(|&id| texts.cost(id)).collect();
    Ok((pl_core::batches::plan(&pairs, &costs, budget), ids))
}

/// Pairs decided by each step of the cascade and the time they took (summed over threads),
/// for `-v`.
#[derive(Default)]
pub struct Ladder {
    pairs: [AtomicU64; Step::ALL.len()],
    nanos: [AtomicU64; Step::ALL.len()],
}

impl Ladder {
    fn add(&self, step: Step, took: std::time::Duration) {
        self.pairs[step as usize].fetch_add(1, Ordering::Relaxed);
        self.nanos[step as usize].fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    }

    /// One line per step, for `-v`.
    pub fn report(&self, log: &Log) {
        for step in Step::ALL {
            let n = self.pairs[step as usize].load(Ordering::Relaxed);
            let s = self.nanos[step as usize].load(Ordering::Relaxed) as f64 / 1e9;
            let per = if n > 0 { s * 1e6 / n as f64 } else { 0.0 };
            log.info(format!(
                "step {}: {n} pairs, {s:.2} s of thread time ({per:.1} µs per pair)",
                step.name()
            ));
        }
    }
}
