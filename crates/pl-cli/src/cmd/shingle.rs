//! pl-shingle: norm NDJSON → shingle stream (binary by default).

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::records::{Format, RecordWriter, ShingleRec};
use pl_core::shingle::{ShingleConfig, Shingler};
use rayon::prelude::*;

use crate::common::{Log, Threaded};
use pl_pipeline::io::{create_output, open_input, refuse_binary_on_terminal};
use pl_pipeline::ndjson::{shingle_norm_line, NdjsonReader};
use pl_pipeline::params::check_min_words;

/// Turn each normalized document into its set of word n-gram shingles, hashed to u64 with
/// xxh3-64 and sorted. Documents with fewer than --min-words words are skipped (and counted
/// on stderr): too short to tell a duplicate from a form letter.
#[derive(Debug, Parser)]
#[command(name = "pl-shingle", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    #[command(flatten)]
    pub shingling: ShingleFlags,
    /// Output encoding: binary (compact, default) or json (one record per line, for eyes and jq).
    #[arg(long, value_enum, default_value_t = OutFormat::Binary)]
    pub format: OutFormat,
}

/// How documents are cut into shingles: pl-shingle's flags, which pl-minhash takes too when
/// it reads normalized documents. Unset flags take the defaults named in their help.
#[derive(Debug, Clone, clap::Args)]
pub struct ShingleFlags {
    /// Characters per shingle (words with --unit words); default 5. Larger n is stricter:
    /// fewer shared shingles for the same edits.
    #[arg(long, value_name = "N", value_parser = ngram_parser())]
    pub ngram: Option<u32>,
    /// Shingle unit: chars (n consecutive characters, spaces included; the default, robust to
    /// OCR errors) or words (n words joined by a space; use n = 3 or so).
    #[arg(long, value_enum)]
    pub unit: Option<Unit>,
    /// What becomes of documents under --min-words: `whole` (default) gives each one shingle of
    /// its whole text, so exact copies of a short receipt still pair and nothing else does;
    /// `skip` leaves them out (the reference product's behaviour). Empty texts are always
    /// left out.
    #[arg(long, value_enum)]
    pub short: Option<Short>,
    /// Shingle only part of each document: `head:N` its first N words, `tail:N` its last N
    /// (documents not half again as long as N are left out); default `whole`. Candidates from
    /// head and tail sketches (`pl-lsh --also`) find a copy with a page more or less, or a
    /// cover sheet, whose whole text shares too little with its original.
    #[arg(long, value_name = "PART", value_parser = parse_part)]
    pub part: Option<(pl_core::stream::Part, usize)>,
    /// Documents with fewer words than this (default 20) are too short to shingle (see --short).
    #[arg(long, value_name = "N")]
    pub min_words: Option<u32>,
}

impl ShingleFlags {
    /// The configuration these flags give, defaults filled in.
    pub fn config(&self) -> Result<ShingleConfig> {
        let min_words = self
            .min_words
            .unwrap_or(pl_core::shingle::DEFAULT_MIN_WORDS as u32);
        check_min_words(min_words as usize)?;
        Ok(ShingleConfig {
            ngram: self
                .ngram
                .map_or(pl_core::shingle::DEFAULT_NGRAM, |n| n as usize),
            unit: match self.unit {
                Some(Unit::Words) => pl_core::shingle::Unit::Words,
                Some(Unit::Chars) => pl_core::shingle::Unit::Chars,
                None => pl_core::shingle::DEFAULT_UNIT,
            },
            short: match self.short.unwrap_or(Short::Whole) {
                Short::Whole => pl_core::shingle::Short::Whole,
                Short::Skip => pl_core::shingle::Short::Skip,
            },
            min_words: min_words as usize,
            part: self.part.map_or(pl_core::stream::Part::Whole, |p| p.0),
            part_words: self.part.map_or(0, |p| p.1),
        })
    }
}

/// --ngram's values, which pl-index takes too: from 1 to 64 units.
pub fn ngram_parser() -> clap::builder::RangedI64ValueParser<u32> {
    let range = pl_core::shingle::NGRAM_RANGE;
    clap::value_parser!(u32).range(*range.start() as i64..=*range.end() as i64)
}

/// Parses `whole`, `head:N` or `tail:N` (N ≥ 1).
fn parse_part(s: &str) -> std::result::Result<(pl_core::stream::Part, usize), String> {
    use pl_core::stream::Part;
    if s == "whole" {
        return Ok((Part::Whole, 0));
    }
    let bad = || format!("{s:?}: expected whole, head:N or tail:N with N at least 1");
    let (part, n) = s.split_once(':').ok_or_else(bad)?;
    let part = match part {
        "head" => Part::Head,
        "tail" => Part::Tail,
        _ => return Err(bad()),
    };
    match n.parse::<usize>() {
        Ok(n) if n >= 1 => Ok((part, n)),
        _ => Err(bad()),
    }
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

/// What both shingling tools say of short documents: notes for the whole texts (pl-shingle
/// prints each, pl-minhash adds them to its summary line); for a head or tail part, only a
/// detail with `-v`.
pub fn short_notes(log: &Log, config: &ShingleConfig, skipped: u64, whole: u64) -> Vec<String> {
    if config.part != pl_core::stream::Part::Whole {
        if skipped > 0 {
            log.info(format!(
                "{skipped} documents of at most {} words have no {} part (their whole-text sketch covers it)",
                config.part_words * 3 / 2,
                config.part.name()
            ));
        }
        return Vec::new();
    }
    let mut notes = Vec::new();
    if skipped > 0 {
        notes.push(format!(
            "skipped {skipped} documents under {} words",
            config.min_words
        ));
    }
    if whole > 0 {
        notes.push(format!(
            "{whole} documents under {} words kept as one whole-text shingle (they match exact copies only)",
            config.min_words
        ));
    }
    notes
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-shingle", &args.common);
    if args.format == OutFormat::Binary {
        refuse_binary_on_terminal(args.common.output.as_deref())?;
    }
    let config = args.shingling.config()?;
    let input = open_input(args.common.input.as_deref())?;
    let name = input.name.clone();
    let mut reader = NdjsonReader::new(input, args.common.skip_invalid);
    let mut w = RecordWriter::new::<ShingleRec>(
        create_output(args.common.output.as_deref())?,
        args.format.into(),
        config.stream_params(),
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
            .map_init(Shingler::default, |sh, (_, text)| {
                shingle_norm_line(
                    text,
                    &config,
                    "feed pl-shingle the output of pl-normalize",
                    sh,
                )
                .map(|r| {
                    r.map(|(id, fingerprint, short)| {
                        let hashes = sh.hashes.clone();
                        (
                            ShingleRec {
                                id,
                                fingerprint,
                                hashes,
                            },
                            short,
                        )
                    })
                })
            })
            .collect();
        for ((line, _), r) in chunk.iter().zip(recs) {
            match r {
                Ok(Some((rec, short))) => {
                    if !reader.check_id(*line, rec.id)? {
                        continue;
                    }
                    w.write(&rec).with_context(|| name.clone())?;
                    written += 1;
                    whole += u64::from(short);
                }
                Ok(None) => skipped += 1,
                Err(msg) => reader.invalid(*line, &msg)?,
            }
            pb.inc(1);
        }
    }
    w.finish()?.finish()?;
    pb.finish_and_clear();
    reader.report_skipped(&log);
    for note in short_notes(&log, &config, skipped, whole) {
        log.note(note);
    }
    log.info(format!("{written} documents shingled"));
    Ok(())
}
