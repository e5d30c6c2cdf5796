//! pl-eval: groups (or scored pairs) against a truth file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Parser;
use pl_core::eval::{evaluate, Report, TruthDoc};
use pl_core::text_records::TruthRecord;

use crate::common::{Common, Log};
use crate::io::{create_output, open_input, Output};
use crate::ndjson::{get_members, get_u64, NdjsonReader};

/// Measure how well groups (pl-cluster output) or scored pairs (pl-score output, with
/// --pairs) match a truth file of `{"id","cluster","kind","noise","family"}` lines: pairwise
/// precision/recall/F1, B-cubed precision/recall, recall per kind of copy and per noise level,
/// and how many hard-negative pairs (same template family, different document) were grouped.
#[derive(Debug, Parser)]
#[command(name = "pl-eval", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// The truth file.
    #[arg(long, value_name = "FILE")]
    pub truth: PathBuf,
    /// The input is scored pairs, each its own group of two (no transitive closure).
    #[arg(long)]
    pub pairs: bool,
    /// Output: json (one object) or table (for people).
    #[arg(long, value_enum, default_value_t = EvalFormat::Json)]
    pub format: EvalFormat,
}

/// Output format of pl-eval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalFormat {
    /// One JSON object.
    Json,
    /// A readable table.
    Table,
}

/// Reads a truth file.
pub fn read_truth(path: &std::path::Path) -> Result<Vec<TruthDoc>> {
    let mut r = NdjsonReader::new(open_input(Some(path))?, false);
    let mut out = Vec::new();
    while let Some((_, t)) = r.next_with_id(|o| {
        let t = TruthRecord::from_obj(o)?;
        Ok((
            t.id,
            TruthDoc {
                id: t.id,
                cluster: t.cluster,
                kind: t.kind.unwrap_or_else(|| "original".into()),
                noise: t.noise.unwrap_or(0.0),
                family: t.family,
            },
        ))
    })? {
        out.push(t);
    }
    Ok(out)
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-eval", &args.common);
    let truth = read_truth(&args.truth)?;
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let pairs = args.pairs;
    let mut groups = Vec::new();
    while let Some(g) = reader.next_with(|o| {
        if pairs {
            Ok(vec![get_u64(&o, "a")?, get_u64(&o, "b")?])
        } else {
            if !o.contains_key("members") {
                return Err("missing \"members\" (pass --pairs for pl-score output)".into());
            }
            Ok(get_members(&o)?)
        }
    })? {
        groups.push(g);
    }
    let report = if pairs {
        evaluate_pairs(&groups, &truth)
    } else {
        evaluate(&groups, &truth)
    };
    let mut out = create_output(args.common.output.as_deref())?;
    match args.format {
        EvalFormat::Json => {
            serde_json::to_writer(&mut out, &report)?;
            out.write_all(b"\n")?;
        }
        EvalFormat::Table => table(&report, &mut out)?,
    }
    reader.report_skipped(&log);
    out.finish()
}

/// Pairs are evaluated as groups after union: a pair list is what pl-cluster would join.
fn evaluate_pairs(pairs: &[Vec<u64>], truth: &[TruthDoc]) -> Report {
    let scored: Vec<pl_core::cluster::ScoredPair> = pairs
        .iter()
        .map(|p| pl_core::cluster::ScoredPair {
            a: p[0].min(p[1]),
            b: p[0].max(p[1]),
            score: 1.0,
            jaccard: 1.0,
            fuzzy: 1.0,
            copy: false,
        })
        .collect();
    let groups: Vec<Vec<u64>> = pl_core::cluster::cluster(&scored, &Default::default())
        .into_iter()
        .map(|g| g.members)
        .collect();
    evaluate(&groups, truth)
}

/// Writes the report as a table.
pub fn table(r: &Report, out: &mut Output) -> Result<()> {
    writeln!(
        out,
        "pairs   precision {:.4}  recall {:.4}  F1 {:.4}  (found {}, false {}, missed {})",
        r.pairs.precision,
        r.pairs.recall,
        r.pairs.f1,
        r.true_pairs_found,
        r.false_pairs,
        r.missed_pairs
    )?;
    writeln!(
        out,
        "B-cubed precision {:.4}  recall {:.4}  F1 {:.4}",
        r.bcubed.precision, r.bcubed.recall, r.bcubed.f1
    )?;
    writeln!(
        out,
        "hard negatives grouped: {} of {} pairs",
        r.hard_negatives_grouped, r.hard_negative_pairs
    )?;
    let mut noise: Vec<_> = r.by_noise.iter().collect();
    noise.sort_by(|a, b| noise_rank(a.0).total_cmp(&noise_rank(b.0)));
    for (title, rows) in [
        ("kind of copy", r.by_kind.iter().collect()),
        ("noise", noise),
    ] {
        writeln!(out, "{title:<22} pairs   found  recall")?;
        for (k, c) in rows {
            writeln!(
                out,
                "  {k:<20} {:>5}  {:>6}  {:.4}",
                c.pairs, c.found, c.recall
            )?;
        }
    }
    Ok(())
}

/// Where a noise level ("0%", "≤1%", ..., "≤15%", ">15%") comes in the table: by level, not
/// as its label sorts.
fn noise_rank(label: &str) -> f64 {
    let above = label.starts_with('>');
    let n: f64 = label
        .trim_start_matches(['≤', '>'])
        .trim_end_matches('%')
        .parse()
        .unwrap_or(f64::MAX);
    n + if above { 0.5 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn noise_levels_in_order() {
        let mut l = ["≤10%", ">15%", "0%", "≤15%", "≤3%", "≤1%", "≤5%"];
        l.sort_by(|a, b| super::noise_rank(a).total_cmp(&super::noise_rank(b)));
        assert_eq!(l, ["0%", "≤1%", "≤3%", "≤5%", "≤10%", "≤15%", ">15%"]);
    }
}
