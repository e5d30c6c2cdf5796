//! pl-eval: groups (or scored pairs) against a truth file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::eval::{evaluate, evaluate_pairs, noise_rank, Report, TruthDoc};
use pl_core::page::GroupLines;
use pl_core::text_records::TruthRecord;

use crate::common::Common;
use pl_pipeline::io::{create_output, open_input, Output};
use pl_pipeline::ndjson::{get_members, get_u64, NdjsonReader};

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
        Ok((t.id, TruthDoc::from(t)))
    })? {
        out.push(t);
    }
    Ok(out)
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-eval", &args.common);
    let truth = read_truth(&args.truth)?;
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let pairs = args.pairs;
    let mut groups = Vec::new();
    // One group per number and per document, as pl-report requires (pairs overlap freely).
    let mut seen = GroupLines::default();
    while let Some((number, g)) = reader.next_with(|o| {
        if pairs {
            Ok((None, vec![get_u64(&o, "a")?, get_u64(&o, "b")?]))
        } else {
            if !o.contains_key("members") {
                return Err("missing \"members\" (pass --pairs for pl-score output)".into());
            }
            let number = match o.contains_key("group") {
                true => Some(get_u64(&o, "group")?),
                false => None,
            };
            Ok((number, get_members(&o)?))
        }
    })? {
        if !pairs {
            let line = reader.line();
            seen.add_members(number, &g, line)
                .map_err(|msg| anyhow!("{}: line {line}: {msg}", reader.name()))?;
        }
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
