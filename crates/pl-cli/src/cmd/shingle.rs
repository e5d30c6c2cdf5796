//! pl-shingle: norm NDJSON → shingle stream (binary by default).

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::normalize::fingerprint;
use pl_core::records::{parse_fingerprint, Format, RecordWriter, ShingleRec};
use pl_core::shingle::{char_shingles, shingles, whole_text_shingle, word_count};
use pl_core::stream::{Params, SHINGLE_HASH_CHARS_XXH3, SHINGLE_HASH_XXH3};
use rayon::prelude::*;
use serde_json::Value;

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_id, NdjsonReader};

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
    /// Shingle unit: words (n words joined by a space) or chars (n consecutive characters,
    /// spaces included; far more robust to OCR errors, use n = 5 or so).
    #[arg(long, value_enum, default_value_t = Unit::Words)]
    pub unit: Unit,
    /// What becomes of documents under --min-words: `whole` (default) gives each one shingle of
    /// its whole text, so exact copies of a short receipt still pair and nothing else does;
    /// `skip` leaves them out (the reference product's behaviour). Empty texts are always
    /// left out.
    #[arg(long, value_enum, default_value_t = Short::Whole)]
    pub short: Short,
    /// Documents with fewer words than this are too short to shingle (see --short).
    #[arg(long, default_value_t = 20)]
    pub min_words: u32,
    /// Output encoding: binary (compact, default) or json (one record per line, for eyes and jq).
    #[arg(long, value_enum, default_value_t = OutFormat::Binary)]
    pub format: OutFormat,
}

/// What becomes of short documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Short {
    /// One shingle of the whole text: only exact copies match.
    Whole,
    /// Left out.
    Skip,
}

/// What a shingle is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Unit {
    /// Word n-grams.
    Words,
    /// Character n-grams.
    Chars,
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

/// A shingle record, or `None` for a document left out; the flag says it was short.
/// The fields pl-shingle reads, borrowed from the line: the other fields (the original
/// `content` above all) are skipped without being copied.
#[derive(serde::Deserialize)]
struct NormFields<'a> {
    id: u64,
    #[serde(borrow)]
    norm: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    fingerprint: Option<std::borrow::Cow<'a, str>>,
}

/// One norm line to its shingle record. Well-formed lines take the borrowed fast path; any
/// other line goes through the generic object parser, whose errors name the problem.
fn shingle_line(text: &str, args: &Args) -> Result<(Option<ShingleRec>, bool), String> {
    if text.trim_start().starts_with('{') {
        if let Ok(f) = serde_json::from_str::<NormFields>(text) {
            return shingle_fields(f.id, &f.norm, f.fingerprint.as_deref(), args);
        }
    }
    let o = crate::ndjson::parse_object(text)?;
    let id = get_id(&o)?;
    let norm = match o.get("norm") {
        Some(Value::String(s)) => s.as_str(),
        _ => return Err("missing \"norm\": feed pl-shingle the output of pl-normalize".into()),
    };
    let fp = match o.get("fingerprint") {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    shingle_fields(id, norm, fp, args)
}

fn shingle_fields(
    id: u64,
    norm: &str,
    fp: Option<&str>,
    args: &Args,
) -> Result<(Option<ShingleRec>, bool), String> {
    let short = word_count(norm) < args.min_words as usize;
    if short && (args.short == Short::Skip || norm.is_empty()) {
        return Ok((None, true));
    }
    let fingerprint = match fp {
        Some(s) => parse_fingerprint(s).ok_or("\"fingerprint\" is not 32 hex digits")?,
        None => fingerprint(norm),
    };
    let mut hashes = Vec::new();
    match (short, args.unit) {
        (true, _) => hashes.push(whole_text_shingle(norm)),
        (false, Unit::Words) => shingles(norm, args.ngram as usize, &mut hashes),
        (false, Unit::Chars) => char_shingles(norm, args.ngram as usize, &mut hashes),
    }
    Ok((
        Some(ShingleRec {
            id,
            fingerprint,
            hashes,
        }),
        short,
    ))
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
        shingle_hash: match args.unit {
            Unit::Words => SHINGLE_HASH_XXH3,
            Unit::Chars => SHINGLE_HASH_CHARS_XXH3,
        },
        perms: 0,
        scheme: 0,
        seed: 0,
    };
    let mut w = RecordWriter::new::<ShingleRec>(
        create_output(args.common.output.as_deref())?,
        args.format.into(),
        params,
    )?;
    let (mut written, mut skipped, mut whole) = (0u64, 0u64, 0u64);
    let pb = log.progress("documents");
    let mut chunk = Vec::with_capacity(2048);
    loop {
        if !reader.next_chunk(&mut chunk, 2048)? {
            break;
        }
        let recs: Vec<_> = chunk
            .par_iter()
            .map(|(_, text)| shingle_line(text, &args))
            .collect();
        for ((line, _), r) in chunk.iter().zip(recs) {
            match r {
                Ok((Some(rec), short)) => {
                    w.write(&rec).with_context(|| name.clone())?;
                    written += 1;
                    whole += u64::from(short);
                }
                Ok((None, _)) => skipped += 1,
                Err(msg) => reader.invalid(*line, &msg)?,
            }
            pb.inc(1);
        }
    }
    w.finish()?.finish()?;
    pb.finish_and_clear();
    reader.report_skipped(&log);
    if skipped > 0 {
        log.note(format!(
            "skipped {skipped} documents under {} words",
            args.min_words
        ));
    }
    if whole > 0 {
        log.note(format!(
            "{whole} documents under {} words kept as one whole-text shingle (they match exact copies only)",
            args.min_words
        ));
    }
    log.info(format!("{written} documents shingled"));
    Ok(())
}
