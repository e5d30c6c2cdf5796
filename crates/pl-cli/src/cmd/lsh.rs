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
    /// Print the candidate probability per similarity for these settings and exit (reads no input).
    #[arg(long)]
    pub explain: bool,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-lsh", &args.common);
    if args.explain {
        return explain(&args);
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
    out.finish()
}
