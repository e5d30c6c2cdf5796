//! pl-score: candidate pairs → scored pairs over the threshold.

use std::borrow::Cow;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::distinct::{distinctive_tokens, distinctive_words, weighted_similarity, DocFreq};
use pl_core::minhash::{estimate_jaccard, exact_jaccard};
use pl_core::records::{expect_param, ShingleRec, SigRec};
use pl_core::score::{
    containment_estimate, exact_containment, fuzzy_ratio_at_least, fuzzy_sample, round6, Weights,
    DEFAULT_FUZZY_SAMPLE,
};
use pl_core::verify::{unexplained_either, word_hashes, Substitution, Vocab};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_id, get_u64, parse_object, write_obj, NdjsonReader, Obj};
use crate::sides::read_all;

/// Score each candidate pair and keep those at or over --threshold.
///
/// score = (wj·J + wf·F) / (wj + wf), where J is the Jaccard similarity of the shingle sets
/// (estimated from the signatures, or exact with --exact) — or, with --containment, the larger
/// of J and the containment |A∩B| / min(|A|,|B|), so a scan with a page more still matches —
/// and F is the normalized Indel similarity (rapidfuzz's ratio) of the first --fuzzy-sample
/// characters of the two normalized texts.
///
/// The distinctive-token dimension D compares the words holding digits (invoice numbers,
/// dates, amounts, references), each weighted by its rarity in the --norm corpus: two bills
/// from one template share the words but not these. --distinct-min drops pairs whose D is
/// under it; --distinct-penalty S instead multiplies the score by 1 − S·(1 − D) (the
/// reference product's way). Pairs where neither text has such a word are judged without D.
///
/// Then the verifier aligns the two texts word by word: a replaced block that is not the same
/// text up to OCR confusions (rn/m, 0/o, 1/l, split or merged words, a dropped character) is
/// an unexplained substitution — another invoice number, date or name, as in two bills from
/// one template. Pairs with any (see --max-unexplained) are dropped; --no-verify keeps them.
///
/// Output: {"a","b","score","jaccard","fuzzy","containment","distinct","unexplained"} plus the
/// candidate's other fields; --explain adds the distinctive words found in only one of the
/// two texts and the unexplained substitutions.
#[derive(Debug, Parser)]
#[command(name = "pl-score", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Signature stream of the documents (pl-minhash output).
    #[arg(long, value_name = "FILE")]
    pub sigs: PathBuf,
    /// Normalized documents (pl-normalize output), for the fuzzy ratio and the distinctive
    /// tokens; their rarity is counted over every document of this file.
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    /// Keep pairs scoring at least this. Lower finds noisier duplicates and more false pairs.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// Weight of the Jaccard (or containment) dimension.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_JACCARD_WEIGHT)]
    pub jaccard_weight: f64,
    /// Weight of the fuzzy ratio (0 = no fuzzy ratio).
    #[arg(long, default_value_t = pl_core::score::DEFAULT_FUZZY_WEIGHT)]
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
    /// Drop a pair when the rarity weights of its unexplained substitutions — differences OCR
    /// does not make: another number, date, amount or name — add up to more than this.
    /// 0 (default) tolerates none; a rare word weighs about ln(documents).
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    pub max_unexplained: f64,
    /// Drop pairs whose distinctive-token similarity is under this (0 = off).
    #[arg(long, default_value_t = 0.0)]
    pub distinct_min: f64,
    /// Multiply the score by 1 − S·(1 − D) (0 = off).
    #[arg(long, default_value_t = 0.0, value_name = "S")]
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
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
}

struct Cand {
    a: u64,
    b: u64,
    rest: Rest,
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
    /// Word ids of `text` in the corpus vocabulary, for the verifier.
    ids: Vec<u32>,
    /// Distinctive tokens and their rarity (weighed once the whole file is counted).
    tokens: Vec<(u64, f64)>,
    words: Vec<String>,
}

impl Side {
    fn sample(&self) -> &str {
        self.sorted_sample
            .as_deref()
            .unwrap_or(&self.text[..self.sample_end])
    }
}

/// The dimensions of one pair.
struct Dims {
    score: f64,
    jaccard: f64,
    fuzzy: Option<f64>,
    containment: f64,
    distinct: Option<f64>,
    unexplained: Vec<Substitution>,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-score", &args.common);
    if args.jaccard_weight < 0.0
        || args.fuzzy_weight < 0.0
        || args.jaccard_weight + args.fuzzy_weight <= 0.0
    {
        return Err(UsageError("weights must be non-negative and not both zero".into()).into());
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
    let mut cands = Vec::new();
    while let Some(c) = reader.next_with(|mut o| {
        let (a, b) = (get_u64(&o, "a")?, get_u64(&o, "b")?);
        if a >= b {
            return Err(format!("pair ({a}, {b}) is not ordered a < b"));
        }
        o.remove("a");
        o.remove("b");
        Ok(Cand {
            a,
            b,
            rest: Rest::new(o),
        })
    })? {
        cands.push(c);
    }
    let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
    let (params, sig_recs) = read_all::<SigRec>(&args.sigs)?;
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
    let (sides, df, idf) = match &args.norm {
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
    let weights = Weights {
        jaccard: args.jaccard_weight,
        fuzzy: args.fuzzy_weight,
    };
    let score_pair = |c: &Cand| {
        let (sa, sb) = (&sigs[&c.a], &sigs[&c.b]);
        let pair = sides.get(&c.a).zip(sides.get(&c.b));
        let score_of = |jaccard, containment, fuzzy: Option<f64>, distinct| {
            weights.combine(
                effective_jaccard(&args, jaccard, containment),
                fuzzy.unwrap_or(0.0),
            ) * distinct_factor(&args, distinct)
        };
        let gated = |distinct: Option<f64>| {
            args.distinct_min > 0.0 && distinct.is_some_and(|d| d < args.distinct_min)
        };
        if identical_texts(sa, sb, exact_shingles) {
            // The values the comparisons below give for one text twice, without running
            // them; one text twice has no substitution to find.
            let distinct = pair.filter(|(x, _)| !x.tokens.is_empty()).map(|_| 1.0);
            let fuzzy = (pair.is_some() && fuzzy).then_some(1.0);
            let score = score_of(1.0, 1.0, fuzzy, distinct);
            return (score >= args.threshold && !gated(distinct)).then_some(Dims {
                score,
                jaccard: 1.0,
                fuzzy,
                containment: 1.0,
                distinct,
                unexplained: Vec::new(),
            });
        }
        let (jaccard, containment) = if args.exact {
            let (x, y) = (&shingles[&c.a], &shingles[&c.b]);
            (exact_jaccard(x, y), exact_containment(x, y))
        } else {
            let j = estimate_jaccard(&sa.sig, &sb.sig);
            (j, containment_estimate(j, sa.size, sb.size))
        };
        let distinct = pair.and_then(|(x, y)| weighted_similarity(&x.tokens, &y.tokens));
        if gated(distinct) {
            return None;
        }
        // The cheap dimensions first. A pair that cannot reach the threshold even with a
        // perfect fuzzy ratio — or the best its two lengths allow — is dropped unmeasured.
        let fuzzy_cutoff = match pair {
            Some((x, y)) if fuzzy => {
                let cutoff = fuzzy_needed(&args, &weights, jaccard, containment, distinct) - 1e-9;
                if cutoff > 1.0 || length_bound(x, y) < cutoff - 1e-12 {
                    return None;
                }
                Some(cutoff)
            }
            _ => {
                if score_of(jaccard, containment, None, distinct) < args.threshold {
                    return None;
                }
                None
            }
        };
        // Then the verifier, before the fuzzy ratio: template siblings (most candidates
        // of a real archive) pass the score and fail here, and the ratio is needed only
        // for pairs that are kept. A pair passes when either alignment order explains it,
        // so the verdict does not depend on which document has the lower id (a copy set is
        // scored through its lowest id only).
        let unexplained = match pair {
            Some((x, y)) if verify => {
                unexplained_either(&x.text, &x.ids, &y.text, &y.ids, &idf, args.max_unexplained)
            }
            _ => Vec::new(),
        };
        if unexplained.iter().map(|s| s.weight).sum::<f64>() > args.max_unexplained {
            return None;
        }
        // The distance computation stops once the needed ratio is out of reach.
        let fuzzy = match (pair, fuzzy_cutoff) {
            (Some((x, y)), Some(cutoff)) => {
                Some(fuzzy_ratio_at_least(x.sample(), y.sample(), cutoff)?)
            }
            _ => None,
        };
        let score = score_of(jaccard, containment, fuzzy, distinct);
        (score >= args.threshold).then_some(Dims {
            score,
            jaccard,
            fuzzy,
            containment,
            distinct,
            unexplained,
        })
    };
    let mut out = create_output(args.common.output.as_deref())?;
    let mut kept = 0u64;
    for block in cands.chunks(SCORE_BLOCK) {
        let scored: Vec<Option<Dims>> = block.par_iter().map(&score_pair).collect();
        for (c, s) in block.iter().zip(scored) {
            let Some(d) = s else { continue };
            let mut o = Obj::new();
            o.insert("a".into(), c.a.into());
            o.insert("b".into(), c.b.into());
            o.insert("score".into(), round6(d.score).into());
            o.insert("jaccard".into(), round6(d.jaccard).into());
            o.insert("fuzzy".into(), d.fuzzy.map(round6).into());
            o.insert("containment".into(), round6(d.containment).into());
            o.insert("distinct".into(), d.distinct.map(round6).into());
            if verify {
                // + 0.0: the sum of nothing is -0.0, printed as such.
                let w: f64 = d.unexplained.iter().map(|s| s.weight).sum::<f64>() + 0.0;
                o.insert("unexplained".into(), round6(w).into());
            }
            if args.explain {
                let (x, y) = (&sides[&c.a].words, &sides[&c.b].words);
                let only = |p: &[String], q: &[String]| -> Value {
                    let q: FxHashSet<&String> = q.iter().collect();
                    p.iter()
                        .filter(|w| !q.contains(w))
                        .take(20)
                        .cloned()
                        .collect::<Vec<_>>()
                        .into()
                };
                o.insert("only_a".into(), only(x, y));
                o.insert("only_b".into(), only(y, x));
                let subs: Vec<Value> = d
                    .unexplained
                    .iter()
                    .take(20)
                    .map(|s| serde_json::json!([s.a, s.b]))
                    .collect();
                o.insert("substitutions".into(), subs.into());
            }
            for (k, v) in c.rest.to_obj() {
                o.entry(k).or_insert(v);
            }
            write_obj(&mut out, &o)?;
            kept += 1;
        }
    }
    out.finish()?;
    reader.report_skipped(&log);
    log.info(format!("{kept} pairs at or over {}", args.threshold));
    Ok(())
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

/// The highest fuzzy ratio two samples' lengths allow: the Indel distance is at least the
/// difference of the lengths.
fn length_bound(x: &Side, y: &Side) -> f64 {
    let (a, b) = (x.sample_chars, y.sample_chars);
    if a + b == 0 {
        return 1.0;
    }
    1.0 - a.abs_diff(b) as f64 / (a + b) as f64
}

/// The Jaccard dimension of the score: Jaccard, or the larger of it and containment.
fn effective_jaccard(args: &Args, jaccard: f64, containment: f64) -> f64 {
    if args.no_containment {
        jaccard
    } else {
        jaccard.max(containment)
    }
}

/// The factor --distinct-penalty applies to the score (1 when off or without tokens).
fn distinct_factor(args: &Args, distinct: Option<f64>) -> f64 {
    match (args.distinct_penalty > 0.0, distinct) {
        (true, Some(d)) => 1.0 - args.distinct_penalty * (1.0 - d),
        _ => 1.0,
    }
}

/// The smallest fuzzy ratio with which a pair of these other dimensions reaches
/// --threshold (see [`Weights::fuzzy_needed`]), the distinctive-token penalty included.
fn fuzzy_needed(
    args: &Args,
    weights: &Weights,
    jaccard: f64,
    containment: f64,
    distinct: Option<f64>,
) -> f64 {
    let penalty = distinct_factor(args, distinct);
    if args.threshold <= 0.0 {
        f64::NEG_INFINITY
    } else if penalty <= 0.0 {
        f64::INFINITY
    } else {
        weights.fuzzy_needed(
            effective_jaccard(args, jaccard, containment),
            args.threshold / penalty,
        )
    }
}

/// Reads the norm file once: the rarity of distinctive tokens and (for the verifier) of words
/// over every document, and the fuzzy sample, tokens and word ids of the documents in `wanted`.
fn read_sides(
    path: &std::path::Path,
    wanted: &FxHashSet<u64>,
    args: &Args,
) -> Result<(FxHashMap<u64, Side>, DocFreq, Vec<f64>)> {
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
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut unwanted_ids = Vec::new();
    let parse = |text: &str| -> Result<Parsed, String> {
        let mut o = parse_object(text)?;
        let id = get_id(&o)?;
        let Some(Value::String(norm)) = o.remove("norm") else {
            return Err("missing \"norm\": pass the output of pl-normalize as --norm".into());
        };
        let mut tokens = Vec::new();
        distinctive_tokens(&norm, &mut tokens);
        let mut hashes = Vec::new();
        if !args.no_verify {
            word_hashes(&norm, &mut hashes);
        }
        let side = wanted.contains(&id).then(|| side(norm, &tokens, args));
        Ok(Parsed {
            id,
            tokens,
            hashes,
            side,
        })
    };
    while r.next_chunk(&mut chunk, CHUNK)? {
        let parsed: Vec<Result<Parsed, String>> =
            chunk.par_iter().map(|(_, text)| parse(text)).collect();
        for ((line, _), p) in chunk.iter().zip(parsed) {
            let p = match p {
                Ok(p) => p,
                Err(msg) => {
                    r.invalid(*line, &msg)?;
                    continue;
                }
            };
            df.add(&p.tokens);
            let mut side = p.side;
            if !args.no_verify {
                let ids = side.as_mut().map_or(&mut unwanted_ids, |s| &mut s.ids);
                vocab.add(&p.hashes, ids);
            }
            if let Some(side) = side {
                sides.insert(p.id, side);
            }
        }
    }
    sides
        .par_iter_mut()
        .for_each(|(_, s)| df.weigh(&mut s.tokens));
    Ok((sides, df, vocab.idf()))
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
        ids: Vec::new(),
        tokens: tokens.iter().map(|&t| (t, 0.0)).collect(),
        words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
