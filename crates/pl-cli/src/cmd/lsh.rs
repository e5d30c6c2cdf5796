//! pl-lsh: signature stream → candidate pairs NDJSON.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::lsh::{candidate_probability, candidates, half_point, Banding};
use pl_core::records::{expect_param, SigRec};
use rayon::prelude::*;

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::sides::open_records;

/// Find candidate pairs: cut each signature into bands of rows; two documents whose band
/// values are identical in at least --min-band-matches bands become a candidate pair
/// `{"a","b","bands"}` (a < b, each pair once, sorted). More bands (fewer rows each) find
/// less similar pairs and cost more scoring; see --explain.
#[derive(Debug, Parser)]
#[command(name = "pl-lsh", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Number of bands b; rows per band r = K / b (K must divide evenly).
    #[arg(long, default_value_t = 32)]
    pub bands: usize,
    /// A pair is a candidate when at least this many bands agree.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_band_matches: u32,
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
    /// Print, for --perms (default 256), --bands and --min-band-matches, the probability that
    /// a pair becomes a candidate at similarities 0.50 to 1.00, the similarity where it
    /// crosses 50%, and the share of pairs at --threshold that LSH would miss; then exit
    /// (reads no input).
    #[arg(long)]
    pub explain: bool,
    /// With --explain: the score threshold whose pairs should not be missed. The curve is over
    /// the Jaccard similarity of the shingle sets, so this reads the threshold as a Jaccard
    /// value (pl-score's score mixes in the fuzzy ratio, usually close to it for true copies).
    #[arg(long, default_value_t = pl_core::score::DEFAULT_THRESHOLD, value_parser = parse_unit)]
    pub threshold: f64,
    /// Print the trials method's probability table (6 trials of h hashes, duplicate when at
    /// least 2 agree; h = 10..20 at 80-100% overlap) as Markdown and exit (reads no input).
    #[arg(long, conflicts_with = "explain")]
    pub trials_table: bool,
}

fn parse_unit(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("{s:?} is not a number from 0 to 1")),
    }
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-lsh", &args.common);
    if args.explain {
        return explain(&args);
    }
    if args.trials_table {
        let mut out = create_output(args.common.output.as_deref())?;
        out.write_all(pl_core::trials::table().as_bytes())?;
        return out.finish();
    }
    let (name, mut reader) = open_records::<SigRec>(open_input(args.common.input.as_deref())?)?;
    let (mut ids, mut sigs) = (Vec::new(), Vec::new());
    while let Some(r) = reader.next().with_context(|| name.clone())? {
        ids.push(r.id);
        sigs.push(r.sig);
    }
    let mut out = create_output(args.common.output.as_deref())?;
    let Some(params) = reader.params() else {
        return out.finish();
    };
    if let Some(k) = args.perms {
        expect_param(
            "perms (signature length K)",
            k,
            params.perms,
            "re-run pl-minhash with --perms matching this stage, or change --perms",
        )
        .with_context(|| name.clone())?;
    }
    let banding =
        Banding::new(params.perms as usize, args.bands).map_err(|e| UsageError(e.to_string()))?;
    log.info(format!(
        "{} signatures read; {} bands x {} rows",
        ids.len(),
        banding.bands,
        banding.rows
    ));
    let keys: Vec<Vec<u64>> = sigs
        .par_iter()
        .map(|s| (0..banding.bands).map(|b| banding.key(s, b)).collect())
        .collect();
    drop(sigs);
    let cands = candidates(&ids, &keys, args.min_band_matches);
    for c in &cands {
        writeln!(out, "{{\"a\":{},\"b\":{},\"bands\":{}}}", c.a, c.b, c.bands)?;
    }
    out.finish()?;
    log.info(format!("{} candidate pairs", cands.len()));
    Ok(())
}

fn explain(args: &Args) -> Result<()> {
    let perms = args.perms.unwrap_or(256) as usize;
    let b = Banding::new(perms, args.bands).map_err(|e| UsageError(e.to_string()))?;
    let m = args.min_band_matches as usize;
    let mut out = create_output(args.common.output.as_deref())?;
    writeln!(
        out,
        "K={perms} permutations, {} bands x {} rows, at least {m} band(s) must match",
        b.bands, b.rows
    )?;
    writeln!(out, "similarity  P(candidate)")?;
    for i in 0..=10 {
        let s = 0.5 + 0.05 * i as f64;
        writeln!(
            out,
            "{s:>10.2}  {:>11.4}",
            candidate_probability(s, b.rows, b.bands, m)
        )?;
    }
    writeln!(
        out,
        "50% at similarity {:.3}",
        half_point(b.rows, b.bands, m)
    )?;
    let t = args.threshold;
    let p = candidate_probability(t, b.rows, b.bands, m);
    writeln!(
        out,
        "at the threshold {t}: P(candidate) {p:.4}, expected share of pairs missed by LSH {:.2}%",
        100.0 * (1.0 - p)
    )?;
    out.finish()
}
