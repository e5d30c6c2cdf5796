//! pl-minhash: shingle stream, or normalized documents, → signature stream.

use std::io::{BufRead, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use anyhow::{anyhow, Context, Result};
use clap::Parser;
use pl_core::minhash::{MinHasher, Scheme, DEFAULT_SEED};
use pl_core::records::{
    encode_sig_into, expect_param, sig_payload_len, Format, RecordWriter, ShingleRec, SigRec,
};
use pl_core::shingle::{ShingleConfig, Shingler};
use pl_core::stream::{is_binary, Params};
use rayon::prelude::*;

use crate::cmd::shingle::{note_short, shingle_norm_line, OutFormat, ShingleFlags};
use crate::common::{Log, Threaded, UsageError};
use crate::io::{create_output, open_input, refuse_binary_on_terminal, Input};
use crate::ndjson::is_blank;
use crate::sides::{open_records, Records};

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
    #[command(flatten)]
    pub shingling: ShingleFlags,
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

/// Records per chunk handed from the reading thread to the hashing one.
const CHUNK: usize = 1024;
/// A chunk of normalized documents also ends once it holds this many bytes.
const CHUNK_BYTES: usize = 8 << 20;
/// Documents per rayon task at least: each task sets up its buffers once.
const MIN_TASK: usize = 64;

/// What became of one input record.
#[derive(Debug, Clone)]
enum Outcome {
    /// A signature was made for document `id`; `short` for a short document (one whole-text
    /// shingle).
    Sig { id: u64, short: bool },
    /// Left out: under --min-words with --short skip, or empty.
    Left,
    /// Not a valid record: the message.
    Bad(String),
}

/// The signatures of one chunk, encoded, on their way to the writing thread: `out` holds
/// one payload slot per record, `outcomes` what became of each; slots from `cut` on are not
/// written (the records after an invalid one).
#[derive(Default)]
struct Batch {
    out: Vec<u8>,
    outcomes: Vec<Outcome>,
    cut: usize,
}

/// What the writing thread is told.
enum ToWriter {
    /// The stream's header parameters: the output starts.
    Start(Params),
    /// Signatures to write.
    Batch(Batch),
    /// All written: end the stream (trailer) and finish the output.
    Finish,
}

/// Normalized documents read ahead: the lines' bytes, back to back, and where each starts
/// and ends, with its line number.
#[derive(Default)]
struct Lines {
    buf: Vec<u8>,
    lines: Vec<(u64, usize, usize)>,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-minhash", &args.common);
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

/// Tells normalized documents from a shingle stream: a binary stream starts with its magic
/// byte, an NDJSON shingle record has "kind". The first non-blank line is read whole to
/// look, then put back in front of the rest. An empty input is an empty shingle stream.
fn sniff(mut input: Input) -> Result<(Input, bool)> {
    let name = input.name.clone();
    let first = input
        .reader
        .fill_buf()
        .with_context(|| format!("{name}: read failed"))?;
    if first.is_empty() || is_binary(first) {
        return Ok((input, false));
    }
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow, default)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let mut head = Vec::new();
    let mut line = 0u64;
    let norm = loop {
        let at = head.len();
        let n = input
            .reader
            .read_until(b'\n', &mut head)
            .with_context(|| format!("{name}: line {}: read failed", line + 1))?;
        line += 1;
        if n == 0 {
            break false;
        }
        if !is_blank(&head[at..]) {
            break !matches!(
                serde_json::from_slice::<Probe>(&head[at..]),
                Ok(Probe { kind: Some(_) })
            );
        }
    };
    let rest = std::mem::replace(&mut input.reader, Box::new(std::io::empty()));
    input.reader = Box::new(std::io::Cursor::new(head).chain(rest));
    Ok((input, norm))
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
    let mut ids = crate::ndjson::IdLines::default();
    let mut failure: Option<anyhow::Error> = None;
    let (to_main, from_reader) = sync_channel::<Result<Lines>>(2);
    let (free_lines, spare_lines) = sync_channel::<Lines>(4);
    let (to_writer, from_main) = sync_channel::<ToWriter>(2);
    let (free_batch, spare_batch) = sync_channel::<Batch>(4);
    std::thread::scope(|scope| -> Result<()> {
        let reader_name = name.clone();
        scope.spawn(move || read_lines(input.reader, &reader_name, &to_main, &spare_lines));
        let writer = scope.spawn(|| write_sigs(args, &name, from_main, &free_batch));
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
    note_short(log, &config, counts.left, counts.whole);
    log.info(format!("{} documents shingled and signed", counts.written));
    Ok(())
}

/// What became of the normalized documents so far.
#[derive(Default)]
struct Counts {
    written: u64,
    left: u64,
    whole: u64,
    invalid: u64,
}

/// Counts what became of each record of a signed chunk; a repeated id is a bad record like
/// any other (not written). `Err("line N: ...")` at the first bad record unless
/// `skip_invalid`, with the batch cut there.
fn tally(
    chunk: &Lines,
    batch: &mut Batch,
    ids: &mut crate::ndjson::IdLines,
    counts: &mut Counts,
    skip_invalid: bool,
) -> std::result::Result<(), String> {
    for i in 0..chunk.lines.len() {
        let line = chunk.lines[i].0;
        if let Outcome::Sig { id, .. } = batch.outcomes[i] {
            if let Err(msg) = ids.check(id, line) {
                batch.outcomes[i] = Outcome::Bad(msg);
            }
        }
        match &batch.outcomes[i] {
            Outcome::Sig { short, .. } => {
                counts.written += 1;
                counts.whole += u64::from(*short);
            }
            Outcome::Left => counts.left += 1,
            Outcome::Bad(_) if skip_invalid => counts.invalid += 1,
            Outcome::Bad(msg) => {
                batch.cut = i;
                return Err(format!("line {line}: {msg}"));
            }
        }
    }
    Ok(())
}

/// Every line of `chunk` to its signature payload in `batch`, on the rayon pool.
fn sign_norm_chunk(chunk: &Lines, config: &ShingleConfig, hasher: &MinHasher, batch: &mut Batch) {
    let rec_len = sig_payload_len(hasher.perms());
    let n = chunk.lines.len();
    batch.out.resize(n * rec_len, 0);
    batch.outcomes.clear();
    batch.outcomes.resize(n, Outcome::Left);
    chunk
        .lines
        .par_iter()
        .zip(batch.out.par_chunks_mut(rec_len))
        .zip(batch.outcomes.par_iter_mut())
        .with_min_len(MIN_TASK)
        .for_each_init(
            || (Shingler::default(), vec![0u32; hasher.perms()]),
            |(sh, sig), ((&(_, start, end), slot), outcome)| {
                *outcome = sign_norm_line(&chunk.buf[start..end], config, hasher, sh, sig, slot);
            },
        );
    batch.cut = n;
}

/// One line of normalized document to its signature payload in `slot`.
fn sign_norm_line(
    line: &[u8],
    config: &ShingleConfig,
    hasher: &MinHasher,
    sh: &mut Shingler,
    sig: &mut [u32],
    slot: &mut [u8],
) -> Outcome {
    let Ok(text) = std::str::from_utf8(line) else {
        return Outcome::Bad("invalid UTF-8".into());
    };
    match shingle_norm_line(text, config, "pl-minhash", sh) {
        Ok(Some((id, fingerprint, short))) => {
            hasher.signature(&sh.hashes, sig);
            encode_sig_into(id, fingerprint, sh.hashes.len() as u64, sig, slot);
            Outcome::Sig { id, short }
        }
        Ok(None) => Outcome::Left,
        Err(msg) => Outcome::Bad(msg),
    }
}

/// The reading thread of normalized documents: non-blank lines in chunks, reusing the
/// buffers the hashing thread hands back. Stops at the end, at a read error (sent on), or
/// when the hashing thread has hung up.
fn read_lines(
    mut r: Box<dyn BufRead + Send>,
    name: &str,
    to_main: &SyncSender<Result<Lines>>,
    spare: &Receiver<Lines>,
) {
    let mut line = 0u64;
    loop {
        let mut chunk = spare.try_recv().unwrap_or_default();
        chunk.buf.clear();
        chunk.lines.clear();
        let mut end = false;
        while chunk.lines.len() < CHUNK && chunk.buf.len() < CHUNK_BYTES {
            let start = chunk.buf.len();
            match r.read_until(b'\n', &mut chunk.buf) {
                Ok(0) => {
                    end = true;
                    break;
                }
                Ok(_) => {
                    line += 1;
                    if is_blank(&chunk.buf[start..]) {
                        chunk.buf.truncate(start);
                    } else {
                        chunk.lines.push((line, start, chunk.buf.len()));
                    }
                }
                Err(e) => {
                    let e = anyhow!(e).context(format!("{name}: line {}: read failed", line + 1));
                    let _ = to_main.send(Err(e));
                    return;
                }
            }
        }
        if !chunk.lines.is_empty() && to_main.send(Ok(chunk)).is_err() {
            return;
        }
        if end {
            return;
        }
    }
}

/// The writing thread: creates the output, writes the header on `Start`, the signatures of
/// each batch up to its cut, and the trailer on `Finish`; without `Finish` (the hashing
/// thread stopped on an error) the output is dropped as it is: stdout keeps what was
/// written, a file output is never renamed into place. Returns the records written.
fn write_sigs(
    args: &Args,
    name: &str,
    from_main: Receiver<ToWriter>,
    free: &SyncSender<Batch>,
) -> Result<u64> {
    let mut out = Some(create_output(args.common.output.as_deref())?);
    let mut w: Option<RecordWriter<_>> = None;
    let rec_len = sig_payload_len(args.perms as usize);
    let mut n = 0u64;
    for msg in from_main {
        match msg {
            ToWriter::Start(params) => {
                w = Some(RecordWriter::new::<SigRec>(
                    out.take().expect("one start"),
                    Format::from(args.format),
                    params,
                )?);
            }
            ToWriter::Batch(batch) => {
                let w = w.as_mut().expect("started");
                for (o, payload) in batch.outcomes[..batch.cut]
                    .iter()
                    .zip(batch.out.chunks_exact(rec_len))
                {
                    if let Outcome::Sig { .. } = o {
                        w.write_payload::<SigRec>(payload)
                            .with_context(|| name.to_string())?;
                        n += 1;
                    }
                }
                let _ = free.try_send(batch);
            }
            ToWriter::Finish => {
                w.take().expect("started").finish()?.finish()?;
                return Ok(n);
            }
        }
    }
    Ok(n)
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

/// A chunk of shingle records and the stream's parameters as known after reading it.
type Chunk = (Vec<ShingleRec>, Option<Params>);

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
        let writer = scope.spawn(|| write_sigs(args, &name, from_main, &free_batch));
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
    log.info(format!("{n} signatures"));
    Ok(())
}

/// Reads the shingle stream in chunks of [`CHUNK`] records, each sent with the stream's
/// parameters as known after it; the last message is an empty chunk or an error.
fn read_shingle_chunks(
    reader: &mut Records<ShingleRec>,
    name: &str,
    tx: &SyncSender<Result<Chunk>>,
) {
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let read = (|| -> Result<()> {
            while chunk.len() < CHUNK {
                match reader.next().with_context(|| name.to_owned())? {
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
    }
}

/// Every shingle record of `chunk` to its signature payload in `batch`, on the rayon pool.
fn sign_shingle_chunk(chunk: &[ShingleRec], hasher: &MinHasher, batch: &mut Batch) {
    let rec_len = sig_payload_len(hasher.perms());
    batch.out.resize(chunk.len() * rec_len, 0);
    batch.outcomes.clear();
    let signed = Outcome::Sig {
        id: 0,
        short: false,
    };
    batch.outcomes.resize(chunk.len(), signed);
    batch.cut = chunk.len();
    chunk
        .par_iter()
        .zip(batch.out.par_chunks_mut(rec_len))
        .with_min_len(MIN_TASK)
        .for_each_init(
            || vec![0u32; hasher.perms()],
            |sig, (r, slot)| {
                hasher.signature(&r.hashes, sig);
                encode_sig_into(r.id, r.fingerprint, r.hashes.len() as u64, sig, slot);
            },
        );
}

/// The signature stream's header from the shingle stream's, after checking the shingling
/// flags given against it.
fn stream_header(args: &Args, name: &str, stream_params: Option<Params>) -> Result<Params> {
    let flags = &args.shingling;
    let sp = match stream_params {
        Some(sp) => sp,
        None => Params {
            min_words: 0,
            ..flags.config()?.stream_params()
        },
    };
    if let Some(n) = flags.ngram {
        expect_param(
            "ngram",
            n,
            sp.ngram,
            "re-run pl-shingle with the n-gram size this pipeline uses, or change --ngram",
        )
        .with_context(|| name.to_string())?;
    }
    if stream_params.is_some() {
        if let Some((part, _)) = flags.part {
            expect_param(
                "part",
                part.name(),
                sp.part.name(),
                "re-run pl-shingle with the --part this pipeline uses, or change --part",
            )
            .with_context(|| name.to_string())?;
        }
        if let Some(m) = flags.min_words {
            expect_param(
                "min_words",
                m,
                sp.min_words,
                "re-run pl-shingle with the --min-words this pipeline uses, or change --min-words",
            )
            .with_context(|| name.to_string())?;
        }
        if flags.unit.is_some() {
            let want = flags.config()?.shingle_hash();
            expect_param(
                "shingle_hash",
                want,
                sp.shingle_hash,
                "re-run pl-shingle with the --unit this pipeline uses, or change --unit",
            )
            .with_context(|| name.to_string())?;
        }
    }
    Ok(sig_params(args, sp))
}
