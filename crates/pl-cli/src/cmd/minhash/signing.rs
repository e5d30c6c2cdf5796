//! pl-minhash's machinery: telling normalized documents from a shingle stream, reading
//! ahead on one thread, signing chunks on the rayon pool into preallocated slots, and
//! writing the signatures on a third thread, chunks in input order. The tool itself
//! (`cmd::minhash`) wires these up; the signatures are `pl_core::minhash`'s.

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender};

use anyhow::{anyhow, Context, Result};
use pl_core::minhash::MinHasher;
use pl_core::records::{
    encode_sig_into, sig_payload_len, Format, RecordWriter, ShingleRec, SigRec,
};
use pl_core::shingle::{ShingleConfig, Shingler};
use pl_core::stream::{is_binary, Params};
use rayon::prelude::*;

use crate::sides::Records;
use pl_pipeline::io::{create_output, Input};
use pl_pipeline::ndjson::shingle_norm_line;
use pl_pipeline::ndjson::{is_blank, read_line_capped, LineRead};

/// Where and how the writing thread writes the signatures.
pub struct SigOutput<'a> {
    /// The output file (`None`: stdout).
    pub path: Option<&'a Path>,
    /// Binary or NDJSON.
    pub format: Format,
    /// The signature length K.
    pub perms: usize,
}

/// Records per chunk handed from the reading thread to the hashing one.
pub const CHUNK: usize = 1024;
/// A chunk of normalized documents also ends once it holds this many bytes.
const CHUNK_BYTES: usize = 8 << 20;
/// Documents per rayon task at least: each task sets up its buffers once.
const MIN_TASK: usize = 64;

/// What became of one input record.
#[derive(Debug, Clone)]
pub enum Outcome {
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
pub struct Batch {
    out: Vec<u8>,
    outcomes: Vec<Outcome>,
    /// Slots from here on are not written.
    pub cut: usize,
}

/// What the writing thread is told.
pub enum ToWriter {
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
pub struct Lines {
    buf: Vec<u8>,
    lines: Vec<(u64, usize, usize)>,
    /// The lines over `--max-doc-mb` (kept empty in `buf`), by index in `lines`: their error.
    too_long: Vec<(usize, String)>,
}

/// Tells normalized documents from a shingle stream: a binary stream starts with its magic
/// byte, an NDJSON shingle record has "kind". The first non-blank line is read whole to
/// look, then put back in front of the rest. An empty input is an empty shingle stream.
pub fn sniff(mut input: Input) -> Result<(Input, bool)> {
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
        let read = read_line_capped(&mut input.reader, &mut head)
            .with_context(|| format!("{name}: line {}: read failed", line + 1))?;
        line += 1;
        match read {
            LineRead::End => break false,
            LineRead::TooLong(_, msg) => anyhow::bail!("{name}: line {line}: {msg}"),
            LineRead::Line(_) => {}
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

/// What became of the normalized documents so far.
#[derive(Default)]
pub struct Counts {
    /// Signatures written.
    pub written: u64,
    /// Documents left out (short with --short skip, or empty).
    pub left: u64,
    /// Short documents signed as one whole-text shingle.
    pub whole: u64,
    /// Invalid records skipped (--skip-invalid).
    pub invalid: u64,
}

/// Counts what became of each record of a signed chunk; a repeated id is a bad record like
/// any other (not written). `Err("line N: ...")` at the first bad record unless
/// `skip_invalid`, with the batch cut there.
pub fn tally(
    chunk: &Lines,
    batch: &mut Batch,
    ids: &mut pl_pipeline::ndjson::IdLines,
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
pub fn sign_norm_chunk(
    chunk: &Lines,
    config: &ShingleConfig,
    hasher: &MinHasher,
    batch: &mut Batch,
) {
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
    for (i, msg) in &chunk.too_long {
        batch.outcomes[*i] = Outcome::Bad(msg.clone());
    }
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
    match shingle_norm_line(
        text,
        config,
        "feed pl-minhash the output of pl-normalize",
        sh,
    ) {
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
pub fn read_lines(
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
        chunk.too_long.clear();
        let mut end = false;
        while chunk.lines.len() < CHUNK && chunk.buf.len() < CHUNK_BYTES {
            let start = chunk.buf.len();
            match read_line_capped(&mut r, &mut chunk.buf) {
                Ok(LineRead::End) => {
                    end = true;
                    break;
                }
                Ok(LineRead::TooLong(_, msg)) => {
                    line += 1;
                    chunk.too_long.push((chunk.lines.len(), msg));
                    chunk.lines.push((line, start, start));
                }
                Ok(LineRead::Line(_)) => {
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
pub fn write_sigs(
    to: &SigOutput,
    name: &str,
    from_main: Receiver<ToWriter>,
    free: &SyncSender<Batch>,
) -> Result<u64> {
    let mut out = Some(create_output(to.path)?);
    let mut w: Option<RecordWriter<_>> = None;
    let rec_len = sig_payload_len(to.perms);
    let mut n = 0u64;
    for msg in from_main {
        match msg {
            ToWriter::Start(params) => {
                w = Some(RecordWriter::new::<SigRec>(
                    out.take().expect("one start"),
                    to.format,
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

/// A chunk of shingle records and the stream's parameters as known after reading it.
pub type Chunk = (Vec<ShingleRec>, Option<Params>);

/// Reads the shingle stream in chunks of [`CHUNK`] records, each sent with the stream's
/// parameters as known after it; the last message is an empty chunk or an error.
pub fn read_shingle_chunks(
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
pub fn sign_shingle_chunk(chunk: &[ShingleRec], hasher: &MinHasher, batch: &mut Batch) {
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
