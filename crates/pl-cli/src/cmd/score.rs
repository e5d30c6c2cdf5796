//! pl-score: candidate pairs → scored pairs over the threshold.

use std::borrow::Cow;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::distinct::{distinctive_tokens, distinctive_words, DocFreq};
use pl_core::evidence::{Profile, Side as ConflictSide};
use pl_core::minhash::{estimate_jaccard, exact_jaccard};
use pl_core::records::{expect_param, ShingleRec, SigRec};
use pl_core::score::{
    containment_estimate, exact_containment, fuzzy_sample, round6, Weights, DEFAULT_FUZZY_SAMPLE,
};
use pl_core::scorer::{Config, Dims, Doc, Scorer, Similarity, Step, Verdict, Verifier};
use pl_core::verify::{edge_sample, word_hashes, Vocab};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::{numbers, Log, Threaded, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{
    get_id, get_u64, norm_fields, par_parse, parse_object, write_obj, NdjsonReader, Obj,
};
use crate::sides::read_all;

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

/// What is kept of each document that appears in a pair.
#[derive(Default)]
struct Side {
    /// The normalized text: whole for the verifier, else only the fuzzy sample.
    text: String,
    /// The fuzzy sample: `text[..sample_end]`, or with --sort-words this.
    sorted_sample: Option<String>,
    sample_end: usize,
    /// Characters in the fuzzy sample.
    sample_chars: usize,
    /// The verifier's view: word ids in the corpus vocabulary, words present.
    profile: Profile,
    /// Distinctive tokens and their rarity (weighed once the whole file is counted).
    tokens: Vec<(u64, f64)>,
    words: Vec<String>,
    /// Longer than --max-words: `text` holds its two ends only.
    sampled: bool,
    /// The word ids, until the profile takes them once every document is counted.
    ids: Vec<u32>,
}

impl Side {
    fn doc(&self) -> Doc<'_> {
        Doc {
            text: &self.text,
            sample: self
                .sorted_sample
                .as_deref()
                .unwrap_or(&self.text[..self.sample_end]),
            sample_chars: self.sample_chars,
            tokens: &self.tokens,
            profile: &self.profile,
        }
    }
}

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
    let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
    let (params, sig_recs) = read_all::<SigRec>(&args.sigs)?;
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
    let sigs: FxHashMap<u64, SigRec> = sig_recs
        .into_iter()
        .filter(|s| wanted.contains(&s.id))
        .map(|s| (s.id, s))
        .collect();
    let shingles: FxHashMap<u64, Vec<u64>> = match (&args.shingles, args.exact) {
        (Some(path), true) => read_all::<ShingleRec>(path)?
            .1
            .into_iter()
            .filter(|s| wanted.contains(&s.id))
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
    let (sides, df, doc_counts) = match &args.norm {
        Some(path) => read_sides(path, &wanted, &args)?,
        None => Default::default(),
    };
    for c in &cands {
        for id in [c.a, c.b] {
            let missing = if !sigs.contains_key(&id) {
                Some(args.sigs.display().to_string())
            } else if args.exact && !shingles.contains_key(&id) {
                args.shingles.as_ref().map(|p| p.display().to_string())
            } else if args.norm.is_some() && !sides.contains_key(&id) {
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
        df.docs()
    ));
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
        doc_counts: &doc_counts,
    };
    let ladder = Ladder::default();
    let score_pair = |c: &Cand| {
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
    let (mut kept, mut dropped) = (0u64, [0u64; 3]);
    for block in cands.chunks(SCORE_BLOCK) {
        let scored: Vec<Verdict> = block.par_iter().map(&score_pair).collect();
        for (c, v) in block.iter().zip(scored) {
            let (d, reason) = match v {
                Verdict::Kept(d) => (d, None),
                Verdict::Dropped(d, r) => {
                    dropped[r as usize] += 1;
                    (d, Some(r))
                }
            };
            let sink = match (reason, rejected.as_mut()) {
                (None, _) => &mut out,
                (Some(_), Some(w)) => w,
                (Some(_), None) => continue,
            };
            let mut rec = record(c, &d, &args, &sides);
            rec.dropped = reason.map(|r| r.as_str().to_string());
            rec.pass_through(c.rest.to_obj());
            write_obj(sink, &rec)?;
            if reason.is_none() {
                kept += 1;
            }
        }
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
fn record(
    c: &Cand,
    d: &Dims,
    args: &Args,
    sides: &FxHashMap<u64, Side>,
) -> pl_core::text_records::ScoreRecord {
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

/// Reads the norm file once: the rarity of distinctive tokens and (for the verifier) of words
/// over every document, and the fuzzy sample, tokens and word ids of the documents in `wanted`.
fn read_sides(
    path: &std::path::Path,
    wanted: &FxHashSet<u64>,
    args: &Args,
) -> Result<(FxHashMap<u64, Side>, DocFreq, Vec<u32>)> {
    /// One line of --norm, parsed and tokenized on a worker thread.
    struct Parsed {
        id: u64,
        tokens: Vec<u64>,
        hashes: Vec<u64>,
        side: Option<Side>,
    }
    const CHUNK: usize = 2048;
    let mut r = NdjsonReader::new(open_input(Some(path))?, false);
    let mut df = DocFreq::default();
    let mut vocab = Vocab::default();
    let mut sides = FxHashMap::default();
    let mut ids = Vec::new();
    let parse = |text: &str| -> Result<Parsed, String> {
        let (id, norm) = match norm_fields(text) {
            Some(f) => (f.id, f.norm),
            None => {
                let mut o = parse_object(text)?;
                let id = get_id(&o)?;
                let Some(Value::String(norm)) = o.remove("norm") else {
                    return Err(
                        "missing \"norm\": pass the output of pl-normalize as --norm".into(),
                    );
                };
                (id, Cow::Owned(norm))
            }
        };
        let mut tokens = Vec::new();
        distinctive_tokens(&norm, &mut tokens);
        // A text too long to align within bounded memory is verified on its two ends.
        let (norm, sampled) = match (args.no_verify, edge_sample(&norm, args.max_words)) {
            (false, Some(sample)) => (Cow::Owned(sample), true),
            _ => (norm, false),
        };
        let mut hashes = Vec::new();
        if !args.no_verify {
            word_hashes(&norm, &mut hashes);
        }
        let side = wanted.contains(&id).then(|| Side {
            sampled,
            ..side(norm.into_owned(), &tokens, args)
        });
        Ok(Parsed {
            id,
            tokens,
            hashes,
            side,
        })
    };
    // Counting is serial (ids are given in file order): it runs on one thread while the
    // next chunk is parsed on the others.
    let mut consume = |r: &mut NdjsonReader,
                       chunk: &[(u64, String)],
                       parsed: Vec<Result<Parsed, String>>|
     -> Result<()> {
        for ((line, _), p) in chunk.iter().zip(parsed) {
            let p = match p {
                Ok(p) => p,
                Err(msg) => {
                    r.invalid(*line, &msg)?;
                    continue;
                }
            };
            if !r.check_id(*line, p.id)? {
                continue;
            }
            df.add(&p.tokens);
            let mut side = p.side;
            if !args.no_verify {
                vocab.add(&p.hashes, &mut ids);
                if let Some(s) = side.as_mut() {
                    s.ids = std::mem::take(&mut ids);
                }
            }
            if let Some(side) = side {
                sides.insert(p.id, side);
            }
        }
        Ok(())
    };
    /// A chunk's lines and what parsing made of each.
    type ParsedChunk = (Vec<(u64, String)>, Vec<Result<Parsed, String>>);
    let mut current: Option<ParsedChunk> = None;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let more = match r.next_chunk(&mut chunk, CHUNK) {
            Ok(more) => more,
            Err(e) => {
                if let Some((c, p)) = current.take() {
                    consume(&mut r, &c, p)?;
                }
                return Err(e);
            }
        };
        let (parsed, done) = rayon::join(
            || -> Vec<Result<Parsed, String>> {
                chunk.par_iter().map(|(_, text)| parse(text)).collect()
            },
            || match current.take() {
                Some((c, p)) => consume(&mut r, &c, p),
                None => Ok(()),
            },
        );
        done?;
        if !more {
            break;
        }
        current = Some((chunk, parsed));
    }
    sides.par_iter_mut().for_each(|(_, s)| {
        s.profile.set_ids(std::mem::take(&mut s.ids));
        df.weigh(&mut s.tokens);
    });
    Ok((sides, df, vocab.doc_counts().to_vec()))
}

/// What scoring keeps of a document that is in a pair (its word ids are filled in later).
fn side(norm: String, tokens: &[u64], args: &Args) -> Side {
    let sample = fuzzy_sample(&norm, args.fuzzy_sample, args.sort_words);
    let sample_chars = sample.chars().count();
    let (sorted_sample, sample_end) = match sample {
        Cow::Owned(sorted) => (Some(sorted), 0),
        Cow::Borrowed(prefix) => (None, prefix.len()),
    };
    let words = if args.explain {
        distinctive_words(&norm)
            .into_iter()
            .map(String::from)
            .collect()
    } else {
        Vec::new()
    };
    let profile = if args.no_verify {
        Profile::default()
    } else {
        Profile::new(&norm)
    };
    let mut text = norm;
    if args.no_verify {
        text.truncate(sample_end);
        text.shrink_to_fit();
    }
    Side {
        text,
        sample_chars,
        sorted_sample,
        sample_end,
        profile,
        tokens: tokens.iter().map(|&t| (t, 0.0)).collect(),
        words,
        sampled: false,
        ids: Vec::new(),
    }
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
