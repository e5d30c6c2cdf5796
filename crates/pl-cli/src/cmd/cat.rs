//! pl-cat: any stream → NDJSON for eyes and jq; groups → a readable table.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::page::GroupLines;
use pl_core::records::{Record, ShingleRec, SigRec};
use pl_core::stream::{is_binary, Kind, StreamReader};
use pl_core::terminal::visible;
use pl_core::text_records::GroupRecord;
use serde_json::Value;

use crate::common::Common;
use crate::sides::read_field;
use pl_pipeline::io::{create_output, open_input, Output};
use pl_pipeline::ndjson::NdjsonReader;

/// Print a stream as NDJSON: a binary shingle or signature stream becomes one JSON record per
/// line (with its parameters inline, readable back by every stage); NDJSON passes through
/// checked. With --table, a groups stream (pl-cluster output) is printed as a table (the
/// control characters of titles and dates shown as escapes such as `\x1b`).
#[derive(Debug, Parser)]
#[command(name = "pl-cat", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Print groups as a human-readable table (not records).
    #[arg(long)]
    pub table: bool,
    /// Documents (docs or norm NDJSON) to show titles and dates in the table.
    #[arg(long, value_name = "FILE", requires = "table")]
    pub docs: Option<PathBuf>,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-cat", &args.common);
    let mut input = open_input(args.common.input.as_deref())?;
    let mut out = create_output(args.common.output.as_deref())?;
    let binary = is_binary(
        input
            .reader
            .fill_buf()
            .with_context(|| input.name.clone())?,
    );
    if binary {
        let name = input.name.clone();
        let mut r = StreamReader::new(input.reader).with_context(|| name.clone())?;
        if args.table {
            let kind = match r.header().kind {
                Kind::Shingles => "shingle",
                Kind::Sigs => "signature",
            };
            anyhow::bail!(
                "{name}: a binary {kind} stream, not groups: --table prints pl-cluster's groups \
                 (without --table, pl-cat prints this stream as NDJSON)"
            );
        }
        match r.header().kind {
            Kind::Shingles => dump::<ShingleRec>(&mut r, &mut out, &name)?,
            Kind::Sigs => dump::<SigRec>(&mut r, &mut out, &name)?,
        }
    } else if args.table {
        table(
            &args,
            NdjsonReader::new(input, args.common.skip_invalid),
            &mut out,
        )?;
    } else {
        let mut reader = NdjsonReader::new(input, args.common.skip_invalid);
        while let Some(o) = reader.next_with(Ok)? {
            pl_pipeline::ndjson::write_obj(&mut out, &o)?;
        }
        reader.report_skipped(&log);
    }
    out.finish()
}

fn dump<T: Record>(
    r: &mut StreamReader<Box<dyn BufRead + Send>>,
    out: &mut Output,
    name: &str,
) -> Result<()> {
    let params = r.header().params;
    let mut buf = Vec::new();
    while r.next_frame(&mut buf).with_context(|| name.to_string())? {
        let rec = T::decode(&buf, &params)
            .map_err(|msg| anyhow::anyhow!("{name}: record {}: {msg}", r.count()))?;
        serde_json::to_writer(&mut *out, &rec.to_json(&params))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn table(args: &Args, mut reader: NdjsonReader, out: &mut Output) -> Result<()> {
    let docs = match &args.docs {
        Some(p) => read_field(p, None, |d| {
            let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
            let date = s(d.created());
            Ok((s(d.title()), date.get(..10).unwrap_or(&date).to_string()))
        })?,
        None => Default::default(),
    };
    let mut groups = 0;
    // One group per number and per document, as pl-report requires.
    let mut seen = GroupLines::default();
    while let Some(g) = reader.next_with(|o| Ok(GroupRecord::from_obj(o)?))? {
        let line = reader.line();
        seen.add(&g, line)
            .map_err(|msg| anyhow::anyhow!("{}: line {line}: {msg}", reader.name()))?;
        let (num, primary) = (g.group, g.primary);
        let dim = |d: Option<f64>| d.unwrap_or(f64::NAN);
        writeln!(
            out,
            "#{num}  confidence {:.3}  (jaccard {:.3}, fuzzy {:.3})  {} documents",
            g.confidence,
            dim(g.jaccard),
            dim(g.fuzzy),
            g.members.len()
        )?;
        let mut order = g.members;
        order.sort_by_key(|&m| (m != primary, m));
        for m in order {
            let (title, date) = docs
                .get(&m)
                .map(|(t, d)| (t.as_str(), d.as_str()))
                .unwrap_or(("", ""));
            let mark = if m == primary { "keep" } else { "    " };
            // A title (an emailed file's name) may hold what a terminal obeys.
            let (date, title) = (visible(date), visible(title));
            writeln!(out, "  {mark} {m:>7}  {date:<10}  {title}")?;
        }
        groups += 1;
    }
    writeln!(out, "{groups} groups")?;
    Ok(())
}
