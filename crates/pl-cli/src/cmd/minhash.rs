//! pl-minhash: shingle stream → signature stream.

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::minhash::{MinHasher, Scheme, DEFAULT_SEED};
use pl_core::records::{expect_param, Format, RecordWriter, ShingleRec, SigRec};
use pl_core::stream::Params;
use rayon::prelude::*;

use crate::cmd::shingle::OutFormat;
use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::sides::open_records;

/// Compute a MinHash signature of K values for each shingle set: position i agrees between
/// two documents with probability equal to their Jaccard similarity. The parameters (K, seed,
/// scheme, and the shingling ones) are written into the stream header for later stages.
#[derive(Debug, Parser)]
#[command(name = "pl-minhash", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Signature length K. More is more accurate (standard error √(J(1−J)/K)) and slower.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
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
    /// Fail unless the shingles were made with this n-gram size.
    #[arg(long, value_name = "N")]
    pub ngram: Option<u32>,
    /// Output encoding.
    #[arg(long, value_enum, default_value_t = OutFormat::Binary)]
    pub format: OutFormat,
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

/// Records per chunk handed from the decoding thread to the hashing one.
const CHUNK: usize = 1024;

/// A chunk of shingle records and the stream's parameters as known after reading it.
type Chunk = (Vec<ShingleRec>, Option<Params>);

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-minhash", &args.common);
    if args.common.skip_invalid {
        return Err(UsageError("--skip-invalid does not apply to binary streams: a corrupt stream cannot be resynchronized".into()).into());
    }
    let (name, mut reader) = open_records::<ShingleRec>(open_input(args.common.input.as_deref())?)?;
    let scheme = Scheme::from(args.scheme);
    let hasher = MinHasher::with_scheme(args.perms as usize, args.seed, scheme);
    let mut writer: Option<RecordWriter<_>> = None;
    let mut out = Some(create_output(args.common.output.as_deref())?);
    let mut n = 0u64;
    let pb = log.progress("signatures");
    // Decoding runs on its own thread, a chunk ahead of hashing and writing, so the serial
    // parts of the stage overlap with the signatures; chunks still arrive in input order.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Chunk>>(2);
    std::thread::scope(|scope| -> Result<()> {
        let reader_name = name.clone();
        scope.spawn(move || loop {
            let mut chunk = Vec::with_capacity(CHUNK);
            let read = (|| -> Result<()> {
                while chunk.len() < CHUNK {
                    match reader.next().with_context(|| reader_name.clone())? {
                        Some(r) => chunk.push(r),
                        None => break,
                    }
                }
                Ok(())
            })();
            let last = read.is_err() || chunk.is_empty();
            let msg = read.map(|()| (chunk, reader.params()));
            // A closed channel means the consumer stopped on an error of its own.
            if tx.send(msg).is_err() || last {
                return;
            }
        });
        for msg in rx {
            let (chunk, stream_params) = msg?;
            if writer.is_none() {
                // The header is known once the first record (JSON) or the header (binary) is read.
                let sp = stream_params.unwrap_or(Params {
                    ngram: args.ngram.unwrap_or(3),
                    min_words: 0,
                    shingle_hash: pl_core::stream::SHINGLE_HASH_XXH3,
                    perms: 0,
                    scheme: 0,
                    seed: 0,
                });
                if let Some(n) = args.ngram {
                    expect_param(
                        "ngram",
                        n,
                        sp.ngram,
                        "re-run pl-shingle with the n-gram size this pipeline uses, or change --ngram",
                    )
                    .with_context(|| name.clone())?;
                }
                let params = Params {
                    perms: args.perms,
                    scheme: scheme.number(),
                    seed: args.seed,
                    ..sp
                };
                writer = Some(RecordWriter::new::<SigRec>(
                    out.take().expect("output"),
                    Format::from(args.format),
                    params,
                )?);
            }
            if chunk.is_empty() {
                break;
            }
            let sigs: Vec<SigRec> = chunk
                .par_iter()
                .map(|r| {
                    let mut sig = vec![0u32; hasher.perms()];
                    hasher.signature(&r.hashes, &mut sig);
                    SigRec {
                        id: r.id,
                        fingerprint: r.fingerprint,
                        size: r.hashes.len() as u64,
                        sig,
                    }
                })
                .collect();
            let w = writer.as_mut().expect("writer");
            for s in &sigs {
                w.write(s)?;
            }
            n += sigs.len() as u64;
            pb.inc(sigs.len() as u64);
        }
        Ok(())
    })?;
    writer.expect("writer").finish()?.finish()?;
    pb.finish_and_clear();
    log.info(format!("{n} signatures"));
    Ok(())
}
