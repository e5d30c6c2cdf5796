//! pl-minhash: shingle stream, or normalized documents, → signature stream.

use std::sync::mpsc::sync_channel;

use anyhow::{anyhow, Context, Result};
use clap::Parser;
use pl_core::minhash::{MinHasher, Scheme, DEFAULT_SEED};
use pl_core::records::{Format, ShingleRec};
use pl_core::stream::Params;

mod signing;

use crate::cmd::shingle::{short_notes, OutFormat, ShingleFlags};
use crate::common::{Log, Threaded, UsageError};
use crate::sides::open_records;
use pl_pipeline::io::{open_input, refuse_binary_on_terminal, Input};
use signing::{
    read_lines, read_shingle_chunks, sign_norm_chunk, sign_shingle_chunk, sniff, tally, write_sigs,
    Batch, Chunk, Counts, Lines, SigOutput, ToWriter,
};

/// Compute a MinHash signature of K values for each shingle set: position i agrees between
/// two documents with probability equal to their Jaccard similarity. The parameters (K, seed,
/// scheme, and the shingling ones) are written into the stream header for later stages.
///
/// The input is either pl-shingle's output (binary or NDJSON), or pl-normalize's: normalized
/// documents, which pl-minhash then cuts into shingles itself exactly as pl-shingle does,
/// with the same flags (--ngram, --unit, --short, --min-words), so `pl-minhash norm.ndjson`
/// writes the very bytes of `pl-shingle norm.ndjson | pl-minhash`, in one process and
/// without the shingle stream in between. Which input it is, is detected: a binary stream
/// starts with its magic byte, an NDJSON shingle record carries "kind"; any other NDJSON is
/// taken for normalized documents. Reading a shingle stream, --ngram, --unit and
/// --min-words only check that the stream was made with those values, and --short does not
/// apply.
#[derive(Debug, Parser)]
#[command(name = "pl-minhash", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    /// Signature length K. More is more accurate (standard error √(J(1−J)/K)) and slower.
    #[arg(long, default_value_t = 256, value_parser = perms_parser())]
    pub perms: u32,
    /// Seed of the hash functions; signatures are comparable only with the same seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// How signatures are computed: `classic` = K hash functions, the minimum of each (K
    /// operations per shingle); `oph` = one-permutation hashing with densification (one hash
    /// per shingle into K bins; empty bins copy a filled one), many times faster, the same
    /// expected agreement J, slightly noisier on documents with fewer shingles than K.
    /// Signatures of different schemes are not comparable.
    #[arg(long, value_enum, default_value_t = SchemeArg::Classic)]
    pub scheme: SchemeArg,
    #[command(flatten)]
    pub shingling: ShingleFlags,
    /// Output encoding.
    #[arg(long, value_enum, default_value_t = OutFormat::Binary)]
    pub format: OutFormat,
}

/// --perms's values, which pl-index takes too: a signature length from 1 to 65,536.
pub fn perms_parser() -> clap::builder::RangedI64ValueParser<u32> {
    let range = pl_core::minhash::PERMS_RANGE;
    clap::value_parser!(u32).range(*range.start() as i64..=*range.end() as i64)
}

/// `--scheme` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemeArg {
    /// K independent hash functions (scheme 1).
    Classic,
    /// One-permutation hashing with densification (scheme 2).
    Oph,
}

impl From<SchemeArg> for Scheme {
    fn from(s: SchemeArg) -> Scheme {
        match s {
            SchemeArg::Classic => Scheme::Classic,
            SchemeArg::Oph => Scheme::Oph,
        }
    }
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-minhash", &args.common);
    if args.format == OutFormat::Binary {
        refuse_binary_on_terminal(args.common.output.as_deref())?;
    }
    let input = open_input(args.common.input.as_deref())?;
    let (input, norm) = sniff(input)?;
    if norm {
        run_norm(&args, &log, input)
    } else {
        run_shingles(&args, &log, input)
    }
}

/// Normalized documents → signatures: read on one thread, shingled and hashed on the rayon
/// pool into preallocated slots, written on a third thread, chunks in input order.
fn run_norm(args: &Args, log: &Log, input: Input) -> Result<()> {
    let config = args.shingling.config()?;
    let name = input.name.clone();
    let skip_invalid = args.common.skip_invalid;
    let scheme = Scheme::from(args.scheme);
    let hasher = MinHasher::with_scheme(args.perms as usize, args.seed, scheme);
    let params = sig_params(args, config.stream_params());
    let pb = log.progress("documents");
    let mut counts = Counts::default();
    let mut ids = pl_pipeline::ndjson::IdLines::default();
    let mut failure: Option<anyhow::Error> = None;
    let (to_main, from_reader) = sync_channel::<Result<Lines>>(2);
    let (free_lines, spare_lines) = sync_channel::<Lines>(4);
    let (to_writer, from_main) = sync_channel::<ToWriter>(2);
    let (free_batch, spare_batch) = sync_channel::<Batch>(4);
    std::thread::scope(|scope| -> Result<()> {
        let reader_name = name.clone();
        scope.spawn(move || read_lines(input.reader, &reader_name, &to_main, &spare_lines));
        let writer = scope.spawn(|| write_sigs(&sig_output(args), &name, from_main, &free_batch));
        let mut sent = to_writer.send(ToWriter::Start(params)).is_ok();
        for chunk in from_reader {
            if !sent {
                break;
            }
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            };
            let mut batch = spare_batch.try_recv().unwrap_or_default();
            sign_norm_chunk(&chunk, &config, &hasher, &mut batch);
            if let Err(msg) = tally(&chunk, &mut batch, &mut ids, &mut counts, skip_invalid) {
                failure = Some(anyhow!("{name}: {msg}"));
            }
            pb.inc(batch.cut as u64);
            sent = to_writer.send(ToWriter::Batch(batch)).is_ok();
            // A full return channel only means the reader has spares enough.
            let _ = free_lines.try_send(chunk);
            if failure.is_some() {
                break;
            }
        }
        if sent && failure.is_none() {
            let _ = to_writer.send(ToWriter::Finish);
        }
        drop(to_writer);
        let wrote = writer.join().expect("writer thread")?;
        debug_assert!(failure.is_some() || wrote == counts.written);
        Ok(())
    })?;
    pb.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    if counts.invalid > 0 {
        log.note(format!(
            "{name}: skipped {} invalid records",
            counts.invalid
        ));
    }
    // One line on a pipe: what was signed, and what became of the short documents.
    let signed = format!(
        "{} signed",
        crate::common::count(counts.written, "document")
    );
    let notes = short_notes(log, &config, counts.left, counts.whole);
    log.summary(
        std::iter::once(signed)
            .chain(notes)
            .collect::<Vec<_>>()
            .join("; "),
    );
    Ok(())
}

/// Where the writing thread writes: -o, --format, --perms.
fn sig_output(args: &Args) -> SigOutput<'_> {
    SigOutput {
        path: args.common.output.as_deref(),
        format: Format::from(args.format),
        perms: args.perms as usize,
    }
}

/// The signature stream's parameters: the shingling ones of `shingles`, ours for MinHash.
fn sig_params(args: &Args, shingles: Params) -> Params {
    Params {
        perms: args.perms,
        scheme: Scheme::from(args.scheme).number(),
        seed: args.seed,
        ..shingles
    }
}

/// Shingle stream → signatures: decoded on one thread, hashed and encoded on the rayon pool,
/// written on a third thread; chunks stay in input order.
fn run_shingles(args: &Args, log: &Log, input: Input) -> Result<()> {
    if args.common.skip_invalid {
        return Err(UsageError("--skip-invalid does not apply to binary streams: a corrupt stream cannot be resynchronized".into()).into());
    }
    if args.shingling.short.is_some() {
        return Err(UsageError(
            "--short applies to normalized documents: this input is a shingle stream, made with pl-shingle's --short".into(),
        )
        .into());
    }
    let (name, mut reader) = open_records::<ShingleRec>(input)?;
    let hasher = MinHasher::with_scheme(args.perms as usize, args.seed, args.scheme.into());
    let mut n = 0u64;
    let pb = log.progress("signatures");
    let (tx, rx) = sync_channel::<Result<Chunk>>(2);
    let (to_writer, from_main) = sync_channel::<ToWriter>(2);
    let (free_batch, spare_batch) = sync_channel::<Batch>(4);
    let mut failure: Option<anyhow::Error> = None;
    std::thread::scope(|scope| -> Result<()> {
        let reader_name = name.clone();
        scope.spawn(move || read_shingle_chunks(&mut reader, &reader_name, &tx));
        let writer = scope.spawn(|| write_sigs(&sig_output(args), &name, from_main, &free_batch));
        let mut started = false;
        let mut sent = true;
        for msg in rx {
            let (chunk, stream_params) = match msg {
                Ok(m) => m,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            };
            if !started {
                // The header is known once the first record (JSON) or the header (binary) is read.
                match stream_header(args, &name, stream_params) {
                    Ok(p) => sent = to_writer.send(ToWriter::Start(p)).is_ok(),
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
                started = true;
            }
            if chunk.is_empty() || !sent {
                break;
            }
            let mut batch = spare_batch.try_recv().unwrap_or_default();
            sign_shingle_chunk(&chunk, &hasher, &mut batch);
            n += chunk.len() as u64;
            pb.inc(chunk.len() as u64);
            sent = to_writer.send(ToWriter::Batch(batch)).is_ok();
        }
        if sent && failure.is_none() {
            let _ = to_writer.send(ToWriter::Finish);
        }
        drop(to_writer);
        writer.join().expect("writer thread")?;
        Ok(())
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    pb.finish_and_clear();
    log.summary(format!("{} signed", crate::common::count(n, "document")));
    Ok(())
}

/// The signature stream's header from the shingle stream's, after checking the shingling
/// flags given against it.
fn stream_header(args: &Args, name: &str, stream_params: Option<Params>) -> Result<Params> {
    let flags = &args.shingling;
    let Some(sp) = stream_params else {
        // No header to check against (an empty NDJSON stream): the flags' own.
        let sp = Params {
            min_words: 0,
            ..flags.config()?.stream_params()
        };
        return Ok(sig_params(args, sp));
    };
    let part = flags.part.map(|(part, _)| part);
    sp.expect_shingling(flags.ngram, part, flags.min_words)
        .with_context(|| name.to_string())?;
    if flags.unit.is_some() {
        sp.expect_shingle_hash(flags.config()?.shingle_hash())
            .with_context(|| name.to_string())?;
    }
    Ok(sig_params(args, sp))
}
