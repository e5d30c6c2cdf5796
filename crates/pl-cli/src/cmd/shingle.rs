//! pl-shingle: norm NDJSON → shingle stream (binary by default).

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::normalize::fingerprint;
use pl_core::records::{parse_fingerprint, Format, RecordWriter, ShingleRec};
use pl_core::shingle::{shingles, word_count};
use pl_core::stream::{Params, SHINGLE_HASH_XXH3};
use rayon::prelude::*;
use serde_json::Value;

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_id, NdjsonReader, Obj};

/// Turn each normalized document into its set of word n-gram shingles, hashed to u64 with
/// xxh3-64 and sorted. Documents with fewer than --min-words words are skipped (and counted
/// on stderr): too short to tell a duplicate from a form letter.
#[derive(Debug, Parser)]
#[command(name = "pl-shingle", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Words per shingle. Larger n is stricter: fewer shared shingles for the same edits.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub ngram: u32,
    /// Skip documents with fewer words than this.
    #[arg(long, default_value_t = 20)]
    pub min_words: u32,
    /// Output encoding: binary (compact, default) or json (one record per line, for eyes and jq).
    #[arg(long, value_enum, default_value_t = OutFormat::Binary)]
    pub format: OutFormat,
}

/// Output format flag shared by the record-stream tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    /// Binary record stream.
    Binary,
    /// NDJSON.
    Json,
}

impl From<OutFormat> for Format {
    fn from(f: OutFormat) -> Format {
        match f {
            OutFormat::Binary => Format::Binary,
            OutFormat::Json => Format::Json,
        }
    }
}

fn shingle_record(o: &Obj, ngram: usize, min_words: usize) -> Result<Option<ShingleRec>, String> {
    let id = get_id(o)?;
    let norm = match o.get("norm") {
        Some(Value::String(s)) => s.as_str(),
        _ => return Err("missing \"norm\": feed pl-shingle the output of pl-normalize".into()),
    };
    if word_count(norm) < min_words {
        return Ok(None);
    }
    let fingerprint = match o.get("fingerprint") {
        Some(Value::String(s)) => {
            parse_fingerprint(s).ok_or("\"fingerprint\" is not 32 hex digits")?
        }
        _ => fingerprint(norm),
    };
    let mut hashes = Vec::new();
    shingles(norm, ngram, &mut hashes);
    Ok(Some(ShingleRec {
        id,
        fingerprint,
        hashes,
    }))
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-shingle", &args.common);
    if args.min_words == 0 {
        return Err(UsageError("--min-words must be at least 1".into()).into());
    }
    let input = open_input(args.common.input.as_deref())?;
    let name = input.name.clone();
    let mut reader = NdjsonReader::new(input, args.common.skip_invalid);
    let params = Params {
        ngram: args.ngram,
        min_words: args.min_words,
        shingle_hash: SHINGLE_HASH_XXH3,
        perms: 0,
        scheme: 0,
        seed: 0,
    };
    let mut w = RecordWriter::new::<ShingleRec>(
        create_output(args.common.output.as_deref())?,
        args.format.into(),
        params,
    )?;
    let (mut written, mut short) = (0u64, 0u64);
    let pb = log.progress("documents");
    let mut chunk = Vec::with_capacity(2048);
    loop {
        chunk.clear();
        while chunk.len() < 2048 {
            match reader.next_line()? {
                Some(l) => chunk.push(l),
                None => break,
            }
        }
        if chunk.is_empty() {
            break;
        }
        let recs: Vec<_> = chunk
            .par_iter()
            .map(|(_, text)| {
                crate::ndjson::parse_object(text)
                    .and_then(|o| shingle_record(&o, args.ngram as usize, args.min_words as usize))
            })
            .collect();
        for ((line, _), r) in chunk.iter().zip(recs) {
            match r {
                Ok(Some(rec)) => {
                    w.write(&rec).with_context(|| name.clone())?;
                    written += 1;
                }
                Ok(None) => short += 1,
                Err(msg) => reader.invalid(*line, &msg)?,
            }
            pb.inc(1);
        }
    }
    w.finish()?.finish()?;
    pb.finish_and_clear();
    reader.report_skipped(&log);
    if short > 0 {
        log.note(format!(
            "skipped {short} documents under {} words",
            args.min_words
        ));
    }
    log.info(format!("{written} documents shingled"));
    Ok(())
}
