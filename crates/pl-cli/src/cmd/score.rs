//! pl-score: candidate pairs → scored pairs over the threshold.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::batches::Batch;
use pl_core::evidence::Side as ConflictSide;
use pl_core::minhash::{estimate_jaccard, exact_jaccard};
use pl_core::records::{expect_param, ShingleRec, SigRec};
use pl_core::score::{
    containment_estimate, exact_containment, round6, Weights, DEFAULT_FUZZY_SAMPLE,
};
use pl_core::scorer::{Config, Dims, Scorer, Similarity, Step, Verdict, Verifier};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::{numbers, Log, Threaded, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_u64, par_parse, parse_object, write_obj, NdjsonReader, Obj};
use crate::reorder::Reorder;
use crate::score_sides::{NormTexts, SideOptions, Sides};
use crate::sides::read_filtered;

/// Score each candidate pair and keep those at or over --threshold whose differences are OCR's.
///
/// score = (wj·J + wf·F) / (wj + wf), where J is the Jaccard similarity of the shingle sets
/// (estimated from the signatures, or exact with --exact) — by default the larger of J and the
/// containment |A∩B| / min(|A|,|B|), so a scan with a page more still matches (see
/// --no-containment) — and F is the normalized Indel similarity (rapidfuzz's ratio) of the
/// first --fuzzy-sample characters of the two normalized texts.
///
/// Then the verifier aligns the two texts word by word and sorts every difference: OCR damage
/// (misread characters, split and merged words, stray marks, a block read in another order) or
/// a conflict (a number, date, amount or known word one text has and the other has nowhere,
/// even up to OCR). A pair is dropped when its conflicts weigh more than
/// --allow-conflicts + --conflicts-per-garbled × its garbled words: two bills from one
/// template disagree in clean values with nothing garbled around them, a rough rescan
/// disagrees a little where it is damaged a lot. --no-verify keeps pairs unverified.
///
/// The distinctive-token dimension D compares the words holding digits, each weighted by its
/// rarity in the --norm corpus; --distinct-min drops pairs whose D is under it;
/// --distinct-penalty S multiplies the score by 1 − S·(1 − D) (the reference product's way).
///
/// Output: {"a","b","score","jaccard","fuzzy","containment","distinct","conflicts","garbled"}
/// plus the candidate's other fields; --explain adds the distinctive words found in only one
/// text and the conflict words of each; --rejected FILE writes the dropped pairs too, with
/// the step that dropped them.
#[derive(Debug, Parser)]
#[command(name = "pl-score", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    /// Signature stream of the documents (pl-minhash output).
    #[arg(long, value_name = "FILE")]
    pub sigs: PathBuf,
    /// Normalized documents (pl-normalize output), for the fuzzy ratio and the distinctive
    /// tokens; their rarity is counted over every document of this file.
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    /// Keep pairs scoring at least this. Lower finds noisier duplicates and more false pairs.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_THRESHOLD, value_parser = numbers::unit)]
    pub threshold: f64,
    /// Weight of the Jaccard (or containment) dimension.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_JACCARD_WEIGHT, value_parser = numbers::non_negative)]
    pub jaccard_weight: f64,
    /// Weight of the fuzzy ratio (0 = no fuzzy ratio).
    #[arg(long, default_value_t = pl_core::score::DEFAULT_FUZZY_WEIGHT, value_parser = numbers::non_negative)]
    pub fuzzy_weight: f64,
    /// Characters of each normalized text compared by the fuzzy ratio (its cost grows with it).
    #[arg(long, default_value_t = DEFAULT_FUZZY_SAMPLE)]
    pub fuzzy_sample: usize,
    /// Sort the sample's words before the ratio (the reference product's token-sort ratio):
    /// forgives reordered lines, but also reordered content.
    #[arg(long)]
    pub sort_words: bool,
    /// Use Jaccard alone instead of the larger of Jaccard and containment (by default one
    /// document that holds the other, a page added or removed, scores as a duplicate).
    #[arg(long)]
    pub no_containment: bool,
    /// Keep pairs without verifying their differences (the reference product's behaviour).
    #[arg(long)]
    pub no_verify: bool,
    /// Words of a document the verifier aligns: a longer one is compared on its first and
    /// last halves of this, and its pairs say `"sampled":true`. Bounds what one pair costs:
    /// N²/8 bytes per thread at most (50 MB at the default; 1.25 GB at the largest, 100000).
    #[arg(long, value_name = "N", default_value_t = pl_core::verify::DEFAULT_MAX_WORDS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=100_000))]
    pub max_words: usize,
    /// Conflict weight every verified pair may have (a digit conflict weighs 1).
    #[arg(long, default_value_t = pl_core::scorer::DEFAULT_ALLOW, value_name = "W",
          value_parser = numbers::non_negative)]
    pub allow_conflicts: f64,
    /// Conflict weight allowed per word of OCR damage the pair shows.
    #[arg(long, default_value_t = pl_core::scorer::DEFAULT_PER_GARBLED, value_name = "W",
          value_parser = numbers::non_negative)]
    pub conflicts_per_garbled: f64,
    /// Weight of a conflicting word (a name, other wording) against a conflicting number.
    #[arg(long, default_value_t = pl_core::scorer::DEFAULT_WORD_WEIGHT, value_name = "W",
          value_parser = numbers::non_negative)]
    pub word_conflict_weight: f64,
    /// Weight of a number that differs from its counterpart in one digit (a rough scan misreads
    /// a digit now and then; the next invoice number differs in one too).
    #[arg(long, default_value_t = pl_core::scorer::DEFAULT_ONE_DIGIT_WEIGHT, value_name = "W",
          value_parser = numbers::non_negative)]
    pub one_digit_weight: f64,
    /// Drop pairs whose distinctive-token similarity is under this (0 = off).
    #[arg(long, default_value_t = 0.0, value_parser = numbers::unit)]
    pub distinct_min: f64,
    /// Multiply the score by 1 − S·(1 − D) (0 = off).
    #[arg(long, default_value_t = 0.0, value_name = "S", value_parser = numbers::unit)]
    pub distinct_penalty: f64,
    /// Exact Jaccard and containment from the shingle sets (needs --shingles) instead of the
    /// signature estimate: slower, no estimation error.
    #[arg(long, requires = "shingles")]
    pub exact: bool,
    /// Shingle stream of the documents (pl-shingle output), for --exact.
    #[arg(long, value_name = "FILE")]
    pub shingles: Option<PathBuf>,
    /// Add to each pair the distinctive words only one text has (`only_a`, `only_b`).
    #[arg(long)]
    pub explain: bool,
    /// Also write the dropped candidates here, each with its dimensions and `"dropped"`: the
    /// step that dropped it (score, distinct, conflicts).
    #[arg(long, value_name = "FILE")]
    pub rejected: Option<PathBuf>,
    /// Memory, in MB, for the documents of the pairs held at once (their texts, word ids and
    /// samples, counted as 4 bytes per byte of normalized text, an upper bound: about twice what
    /// they take). When they need more, the pairs are
    /// scored in batches of documents whose texts are read again from --norm by offset, so
    /// memory does not grow with the corpus; output and verdicts are the same.
    #[arg(long, value_name = "MB", default_value_t = 512,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub text_memory: u64,
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
}

struct Cand {
    a: u64,
    b: u64,
    rest: Rest,
}

impl Cand {
    /// A candidate line, read the fast way when it is what pl-lsh writes (tens of millions of
    /// lines at a million documents), else as any JSON object.
    fn parse(text: &str) -> Result<Cand, String> {
        let cand = match serde_json::from_str::<LshFields>(text) {
            Ok(f) => Cand {
                a: f.a,
                b: f.b,
                rest: f.bands.map_or(Rest::None, Rest::Bands),
            },
            Err(_) => {
                let mut o = parse_object(text)?;
                let (a, b) = (get_u64(&o, "a")?, get_u64(&o, "b")?);
                o.remove("a");
                o.remove("b");
                Cand {
                    a,
                    b,
                    rest: Rest::new(o),
                }
            }
        };
        if cand.a >= cand.b {
            return Err(format!(
                "pair ({}, {}) is not ordered a < b",
                cand.a, cand.b
            ));
        }
        Ok(cand)
    }
}

/// A candidate line as pl-lsh writes it: `a`, `b` and `bands` (a number, not null), nothing
/// else.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LshFields {
    a: u64,
    b: u64,
    #[serde(default, deserialize_with = "some_u64")]
    bands: Option<u64>,
}

fn some_u64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    <u64 as serde::Deserialize>::deserialize(d).map(Some)
}

/// A candidate's fields other than `a` and `b`, passed through to the output. Held compactly:
/// a million-document archive makes tens of millions of candidates, and a JSON map each
/// would take more memory than the documents.
enum Rest {
    None,
    /// Only `bands`, as pl-lsh writes it.
    Bands(u64),
    Fields(Box<Obj>),
}

impl Rest {
    fn new(o: Obj) -> Rest {
        match o.get("bands").and_then(Value::as_u64) {
            _ if o.is_empty() => Rest::None,
            Some(n) if o.len() == 1 => Rest::Bands(n),
            _ => Rest::Fields(Box::new(o)),
        }
    }

    /// The fields, in their input order.
    fn to_obj(&self) -> Obj {
        match self {
            Rest::None => Obj::new(),
            Rest::Bands(n) => Obj::from_iter([("bands".to_string(), Value::from(*n))]),
            Rest::Fields(o) => (**o).clone(),
        }
    }
}

/// Candidate lines parsed at once.
const CAND_CHUNK: usize = 1 << 14;

/// Candidates scored at once: bounds the memory of the results, whatever the number of
/// candidates.
const SCORE_BLOCK: usize = 1 << 18;

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-score", &args.common);
    if args.jaccard_weight + args.fuzzy_weight <= 0.0 {
        return Err(UsageError("--jaccard-weight and --fuzzy-weight are both 0".into()).into());
    }
    let fuzzy = args.fuzzy_weight > 0.0;
    let distinct = args.distinct_min > 0.0 || args.distinct_penalty > 0.0;
    if (fuzzy || distinct || args.explain) && args.norm.is_none() {
        return Err(UsageError(
            "--norm FILE is needed for the fuzzy ratio and distinctive tokens (or set --fuzzy-weight 0)".into(),
        )
        .into());
    }
    // Candidates first, so only the documents that appear in a pair are kept in memory.
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    // Tens of millions of lines at a million documents: parsed a chunk at a time on every
    // thread, taken in order.
    let mut cands = Vec::new();
    par_parse(&mut reader, CAND_CHUNK, Cand::parse, |_, _, c| {
        cands.push(c);
        Ok(())
    })?;
    cands.shrink_to_fit();
    let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
    let (params, sig_recs) = read_filtered::<SigRec>(&args.sigs, |s| wanted.contains(&s.id))?;
    if let Some(p) = params.filter(|p| p.part != pl_core::stream::Part::Whole) {
        anyhow::bail!(
            "{}: signatures of document {}s: --sigs takes the whole texts' signatures (parts are for pl-lsh --also)",
            args.sigs.display(),
            p.part.name()
        );
    }
    if let (Some(k), Some(p)) = (args.perms, params) {
        expect_param(
            "perms (signature length K)",
            k,
            p.perms,
            "use the signatures this pipeline made",
        )
        .map_err(|e| anyhow!("{}: {e}", args.sigs.display()))?;
    }
    let sigs: FxHashMap<u64, SigRec> = sig_recs.into_iter().map(|s| (s.id, s)).collect();
    let shingles: FxHashMap<u64, Vec<u64>> = match (&args.shingles, args.exact) {
        (Some(path), true) => read_filtered::<ShingleRec>(path, |s| wanted.contains(&s.id))?
            .1
            .into_iter()
            .map(|s| (s.id, s.hashes))
            .collect(),
        _ => FxHashMap::default(),
    };
    let verify = !args.no_verify;
    if verify && args.norm.is_none() {
        return Err(UsageError(
            "--norm FILE is needed to verify pairs (or pass --no-verify)".into(),
        )
        .into());
    }
    let opts = SideOptions {
        verify,
        max_words: args.max_words,
        fuzzy_sample: args.fuzzy_sample,
        sort_words: args.sort_words,
        explain: args.explain,
    };
    let budget = args.text_memory.saturating_mul(1 << 20);
    let mut texts = match &args.norm {
        Some(path) => Some(NormTexts::read(path, &wanted, &opts, budget)?),
        None => None,
    };
    for c in &cands {
        for id in [c.a, c.b] {
            let missing = if !sigs.contains_key(&id) {
                Some(args.sigs.display().to_string())
            } else if args.exact && !shingles.contains_key(&id) {
                args.shingles.as_ref().map(|p| p.display().to_string())
            } else if texts.as_ref().is_some_and(|t| !t.contains(id)) {
                args.norm.as_ref().map(|p| p.display().to_string())
            } else {
                None
            };
            if let Some(file) = missing {
                return Err(anyhow!(
                    "{}: document {id} of pair ({}, {}) is not in {file}",
                    reader.name(),
                    c.a,
                    c.b
                ));
            }
        }
    }
    let exact_shingles = args.exact.then_some(&shingles);
    let copies = cands
        .iter()
        .filter(|c| identical_texts(&sigs[&c.a], &sigs[&c.b], exact_shingles))
        .count();
    log.info(format!(
        "{} candidate pairs ({copies} of identical texts, scored without comparing), {} documents loaded, {} in the corpus",
        cands.len(),
        sigs.len(),
        texts.as_ref().map_or(0, |t| t.docs())
    ));
    let held = match texts.as_mut() {
        Some(t) => t.take_held(),
        None => Some(Sides::default()),
    };
    let to_read = if held.is_none() { texts.as_ref() } else { None };
    let (batches, doc_ids) = plan_batches(&cands, to_read, budget)?;
    if batches.len() > 1 {
        log.info(format!(
            "the pairs' documents need more than --text-memory {} MB: scored in {} batches, {} texts read again from {} for {} documents",
            args.text_memory,
            batches.len(),
            batches.iter().map(|b| b.docs.len()).sum::<usize>(),
            args.norm.as_ref().map_or(String::new(), |p| p.display().to_string()),
            doc_ids.len()
        ));
    }
    let verifier = (!args.no_verify).then(|| verifier_of(&args));
    let config = Config {
        threshold: args.threshold,
        weights: Weights {
            jaccard: args.jaccard_weight,
            fuzzy: args.fuzzy_weight,
        },
        containment: !args.no_containment,
        verifier,
        distinct_min: args.distinct_min,
        distinct_penalty: args.distinct_penalty,
    };
    let scorer = Scorer {
        config: &config,
        doc_counts: texts.as_ref().map_or(&[], |t| t.doc_counts()),
    };
    let ladder = Ladder::default();
    let score_pair = |c: &Cand, sides: &Sides| {
        let start = std::time::Instant::now();
        let (sa, sb) = (&sigs[&c.a], &sigs[&c.b]);
        let identical = identical_texts(sa, sb, exact_shingles);
        let (jaccard, containment) = if identical {
            (1.0, 1.0)
        } else if args.exact {
            let (x, y) = (&shingles[&c.a], &shingles[&c.b]);
            (exact_jaccard(x, y), exact_containment(x, y))
        } else {
            let j = estimate_jaccard(&sa.sig, &sb.sig);
            (j, containment_estimate(j, sa.size, sb.size))
        };
        let sim = Similarity {
            jaccard,
            containment,
            identical,
        };
        let docs = sides
            .get(&c.a)
            .zip(sides.get(&c.b))
            .map(|(x, y)| (x.doc(), y.doc()));
        let verdict = scorer.score(sim, docs, fuzzy);
        let step = if identical {
            Step::Identical
        } else {
            verdict.step()
        };
        ladder.add(step, start.elapsed());
        verdict
    };
    let mut out = create_output(args.common.output.as_deref())?;
    let mut rejected = match &args.rejected {
        Some(path) => Some(create_output(Some(path))?),
        None => None,
    };
    // Lines of several batches come back in candidate order through a temporary file.
    let mut reorder = match batches.len() {
        0 | 1 => None,
        _ => Some(Reorder::new(cands.len())?),
    };
    let (mut kept, mut dropped) = (0u64, [0u64; 3]);
    let mut line = Vec::new();
    for batch in &batches {
        let loaded;
        let sides = match (&held, &texts) {
            (Some(held), _) => held,
            (None, Some(t)) => {
                let ids: Vec<u64> = batch.docs.iter().map(|&d| doc_ids[d as usize]).collect();
                loaded = t.load(&ids, &opts)?;
                &loaded
            }
            (None, None) => unreachable!("texts are held unless read from --norm"),
        };
        for block in batch.pairs.chunks(SCORE_BLOCK) {
            let scored: Vec<Verdict> = block
                .par_iter()
                .map(|&i| score_pair(&cands[i as usize], sides))
                .collect();
            for (&i, v) in block.iter().zip(scored) {
                let c = &cands[i as usize];
                let (d, reason) = match v {
                    Verdict::Kept(d) => (d, None),
                    Verdict::Dropped(d, r) => {
                        dropped[r as usize] += 1;
                        (d, Some(r))
                    }
                };
                if reason.is_none() {
                    kept += 1;
                } else if rejected.is_none() {
                    continue;
                }
                let mut rec = record(c, &d, &args, sides);
                rec.dropped = reason.map(|r| r.as_str().to_string());
                rec.pass_through(c.rest.to_obj());
                match (reorder.as_mut(), reason, rejected.as_mut()) {
                    (Some(r), _, _) => {
                        line.clear();
                        write_obj(&mut line, &rec)?;
                        r.put(i as usize, u8::from(reason.is_some()), &line)?;
                    }
                    (None, None, _) => write_obj(&mut out, &rec)?,
                    (None, Some(_), Some(w)) => write_obj(w, &rec)?,
                    (None, Some(_), None) => {
                        unreachable!("dropped pairs are skipped without --rejected")
                    }
                }
            }
        }
    }
    if let Some(r) = reorder {
        r.drain(|sink, line| match (sink, rejected.as_mut()) {
            (0, _) => Ok(out.write_all(line)?),
            (_, Some(w)) => Ok(w.write_all(line)?),
            (_, None) => unreachable!("only kept pairs are put without --rejected"),
        })?;
    }
    out.finish()?;
    if let Some(w) = rejected {
        w.finish()?;
    }
    reader.report_skipped(&log);
    ladder.report(&log);
    log.info(format!(
        "{kept} pairs at or over {}; dropped: {} by score, {} by distinctive tokens, {} by conflicts",
        args.threshold, dropped[0], dropped[1], dropped[2]
    ));
    Ok(())
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
struct Ladder {
    pairs: [AtomicU64; Step::ALL.len()],
    nanos: [AtomicU64; Step::ALL.len()],
}

impl Ladder {
    fn add(&self, step: Step, took: std::time::Duration) {
        self.pairs[step as usize].fetch_add(1, Ordering::Relaxed);
        self.nanos[step as usize].fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    }

    fn report(&self, log: &Log) {
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

/// The verifier the flags describe.
fn verifier_of(args: &Args) -> Verifier {
    Verifier {
        allow: args.allow_conflicts,
        per_garbled: args.conflicts_per_garbled,
        word_weight: args.word_conflict_weight,
        one_digit_weight: args.one_digit_weight,
    }
}

/// The output record of a scored pair (without the candidate's passthrough fields).
fn record(c: &Cand, d: &Dims, args: &Args, sides: &Sides) -> pl_core::text_records::ScoreRecord {
    let mut r = pl_core::text_records::ScoreRecord {
        a: c.a,
        b: c.b,
        score: round6(d.score),
        jaccard: Some(round6(d.jaccard)),
        fuzzy: Some(d.fuzzy.map(round6)),
        containment: Some(round6(d.containment)),
        distinct: Some(d.distinct.map(round6)),
        ..Default::default()
    };
    if let Some(e) = &d.evidence {
        r.conflicts = Some(round6(verifier_of(args).weight(e)));
        r.garbled = Some(e.garbled);
        if [c.a, c.b]
            .iter()
            .any(|id| sides.get(id).is_some_and(|s| s.sampled))
        {
            r.sampled = Some(true);
        }
    }
    if args.explain {
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

/// Whether two documents are one normalized text: equal fingerprints, and (so that every
/// dimension comes out exactly as comparing them would give) equal non-empty signatures and,
/// for --exact, equal shingle sets. Documents with an empty shingle set are compared as usual.
fn identical_texts(a: &SigRec, b: &SigRec, shingles: Option<&FxHashMap<u64, Vec<u64>>>) -> bool {
    a.fingerprint == b.fingerprint
        && a.size == b.size
        && a.size > 0
        && !a.sig.is_empty()
        && a.sig == b.sig
        && shingles.is_none_or(|s| {
            let (x, y) = (&s[&a.id], &s[&b.id]);
            !x.is_empty() && x == y
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_reads_the_same_by_either_path() {
        for line in [
            r#"{"a":1,"b":2,"bands":3}"#,
            r#"{"b":2,"a":1}"#,
            r#"{"a":1,"b":2,"bands":null}"#,
            r#"{"a":1,"b":2,"bands":3,"copy":true}"#,
            r#"{"a":1,"b":2,"bands":3,"bands":4}"#,
            r#"{"a":1,"b":2,"bands":2.5}"#,
        ] {
            let c = Cand::parse(line).unwrap();
            let mut o = parse_object(line).unwrap();
            assert_eq!((c.a, c.b), (1, 2), "{line}");
            o.remove("a");
            o.remove("b");
            assert_eq!(c.rest.to_obj(), o, "{line}");
        }
        for (line, err) in [
            (r#"{"a":2,"b":2}"#, "not ordered"),
            (r#"{"a":1.0,"b":2}"#, "invalid \"a\""),
            (r#"{"a":1}"#, "missing or invalid \"b\""),
        ] {
            let e = Cand::parse(line).err().unwrap();
            assert!(e.contains(err), "{line}: {e}");
        }
    }

    #[test]
    fn candidate_fields_come_back_as_given() {
        for line in [
            r#"{}"#,
            r#"{"bands":3}"#,
            r#"{"bands":-1}"#,
            r#"{"note":"x","bands":2}"#,
            r#"{"bands":2,"j":0.1000000000000000055511151231257827}"#,
        ] {
            let o = parse_object(line).unwrap();
            assert_eq!(Rest::new(o.clone()).to_obj(), o, "{line}");
        }
        let bands = parse_object(r#"{"bands":7}"#).unwrap();
        assert!(
            matches!(Rest::new(bands), Rest::Bands(7)),
            "held as a number"
        );
    }
}
