//! pl-score: candidate pairs → scored pairs over the threshold.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::minhash::estimate_jaccard;
use pl_core::records::{expect_param, SigRec};
use pl_core::score::{fuzzy_ratio, fuzzy_sample, round6, Weights, DEFAULT_FUZZY_SAMPLE};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_u64, write_obj, NdjsonReader, Obj};
use crate::sides::{read_all, read_field};

/// Score each candidate pair: score = (wj·jaccard + wf·fuzzy) / (wj + wf), where jaccard is
/// estimated from the signatures and fuzzy is the normalized Indel similarity (rapidfuzz's
/// ratio) of the first --fuzzy-sample characters of the two normalized texts. Pairs under
/// --threshold are dropped; the rest are written as {"a","b","score","jaccard","fuzzy"} plus
/// the candidate's other fields.
#[derive(Debug, Parser)]
#[command(name = "pl-score", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Signature stream of the documents (pl-minhash output).
    #[arg(long, value_name = "FILE")]
    pub sigs: PathBuf,
    /// Normalized documents (pl-normalize output), for the fuzzy ratio.
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    /// Keep pairs scoring at least this. Lower finds noisier duplicates and more false pairs.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// Weight of the Jaccard estimate.
    #[arg(long, default_value_t = pl_core::score::DEFAULT_JACCARD_WEIGHT)]
    pub jaccard_weight: f64,
    /// Weight of the fuzzy ratio (0 = Jaccard only, no --norm needed).
    #[arg(long, default_value_t = pl_core::score::DEFAULT_FUZZY_WEIGHT)]
    pub fuzzy_weight: f64,
    /// Characters of each normalized text compared by the fuzzy ratio (its cost grows with it).
    #[arg(long, default_value_t = DEFAULT_FUZZY_SAMPLE)]
    pub fuzzy_sample: usize,
    /// Sort the sample's words before the ratio (the reference product's token-sort ratio):
    /// forgives reordered lines, but also reordered content.
    #[arg(long)]
    pub sort_words: bool,
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
}

struct Cand {
    a: u64,
    b: u64,
    rest: Obj,
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
    if fuzzy && args.norm.is_none() {
        return Err(UsageError(
            "--norm FILE is needed for the fuzzy ratio (or set --fuzzy-weight 0)".into(),
        )
        .into());
    }
    // Candidates first, so only the texts of documents that appear in a pair are loaded.
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
        Ok(Cand { a, b, rest: o })
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
    let sigs: FxHashMap<u64, Vec<u32>> = sig_recs
        .into_iter()
        .filter(|s| wanted.contains(&s.id))
        .map(|s| (s.id, s.sig))
        .collect();
    let samples: FxHashMap<u64, Vec<char>> = match (&args.norm, fuzzy) {
        (Some(path), true) => read_field(path, Some(&wanted), |o| match o.get("norm") {
            Some(Value::String(s)) => Ok(fuzzy_sample(s, args.fuzzy_sample, args.sort_words)),
            _ => Err("missing \"norm\": pass the output of pl-normalize as --norm".into()),
        })?,
        _ => FxHashMap::default(),
    };
    for c in &cands {
        for id in [c.a, c.b] {
            if !sigs.contains_key(&id) {
                return Err(anyhow!(
                    "{}: document {id} of pair ({}, {}) has no signature in {}",
                    reader.name(),
                    c.a,
                    c.b,
                    args.sigs.display()
                ));
            }
            if fuzzy && !samples.contains_key(&id) {
                return Err(anyhow!(
                    "{}: document {id} of pair ({}, {}) is not in {}",
                    reader.name(),
                    c.a,
                    c.b,
                    args.norm.as_ref().expect("norm").display()
                ));
            }
        }
    }
    log.info(format!(
        "{} candidate pairs, {} documents loaded",
        cands.len(),
        sigs.len()
    ));
    let weights = Weights {
        jaccard: args.jaccard_weight,
        fuzzy: args.fuzzy_weight,
    };
    let scored: Vec<Option<(f64, f64, f64)>> = cands
        .par_iter()
        .map(|c| {
            let j = estimate_jaccard(&sigs[&c.a], &sigs[&c.b]);
            let f = if fuzzy {
                fuzzy_ratio(&samples[&c.a], &samples[&c.b])
            } else {
                0.0
            };
            let s = weights.combine(j, f);
            (s >= args.threshold).then_some((s, j, f))
        })
        .collect();
    let mut out = create_output(args.common.output.as_deref())?;
    let mut kept = 0u64;
    for (c, s) in cands.into_iter().zip(scored) {
        let Some((score, j, f)) = s else { continue };
        let mut o = Obj::new();
        o.insert("a".into(), c.a.into());
        o.insert("b".into(), c.b.into());
        o.insert("score".into(), round6(score).into());
        o.insert("jaccard".into(), round6(j).into());
        o.insert("fuzzy".into(), round6(f).into());
        for (k, v) in c.rest {
            o.entry(k).or_insert(v);
        }
        write_obj(&mut out, &o)?;
        kept += 1;
    }
    out.finish()?;
    reader.report_skipped(&log);
    log.info(format!("{kept} pairs at or over {}", args.threshold));
    Ok(())
}
