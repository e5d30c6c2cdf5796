//! pl-lsh: signature stream → candidate pairs NDJSON.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use pl_core::keyed::{copy_key, Grouped, KeyRecord};
use pl_core::lsh::{
    candidates, copy_sets, number_pairs, with_copies, BandRule, Banding, Candidate, CopySets,
    SigDigest, NUMBER_BUCKET,
};
use pl_core::records::{expect_param, hash_hex, SigRec};
use pl_core::stream::{Params, Part};
use pl_core::text_records::CandRecord;
use rayon::prelude::*;

use crate::common::{numbers, Log, Threaded, UsageError};
use crate::sides::{open_records, Records};
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{norm_record, par_parse, write_obj, NdjsonReader};
use pl_pipeline::score_sides::number_hashes;

mod why;

/// Find candidate pairs: cut each signature into bands of rows; two documents whose band
/// values are identical in at least --min-band-matches bands become a candidate pair
/// `{"a","b","bands"}` (a < b, each pair once, sorted). More bands (fewer rows each) find
/// less similar pairs and cost more scoring; see --explain. A bucket of more than
/// --max-bucket documents (boilerplate they all share) pairs none of them.
///
/// Exact copies (equal fingerprints: the same text, written alike) are collapsed first: only the
/// lowest id of each copy set is banded, and each other member is paired with it once,
/// `{"a","b","bands","copy":true}`, so 50 copies of one document make 49 pairs to score, not
/// 1,225. pl-cluster keeps a copy set together as one unit; --no-collapse bands every document.
#[derive(Debug, Parser)]
#[command(name = "pl-lsh", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    /// Number of bands b; rows per band r = K / b (K must divide evenly).
    #[arg(long, default_value_t = 32)]
    pub bands: usize,
    /// A pair is a candidate when at least this many bands agree.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_band_matches: u32,
    /// A bucket holding more than N banded documents pairs none of them: what that many
    /// documents share (a template's letterhead, a licence's closing lines) is boilerplate,
    /// not evidence of duplication, and pairing it costs N·(N−1)/2 comparisons for nothing.
    /// Exact copies are paired whatever the size (they are collapsed before banding); a
    /// duplicate inside a template family still meets its copy in the buckets of what the
    /// two hold apart from the template. 0: no limit (every bucket pairs its documents).
    #[arg(long, value_name = "N", default_value_t = pl_core::lsh::DEFAULT_MAX_BUCKET)]
    pub max_bucket: usize,
    /// A pair is proposed only when the buckets it shares, in every sketch where it has
    /// enough bands, are worth one bucket of N documents: a shared bucket of n documents
    /// weighs 1/(n − 1), so one of N, two of 2N − 1 or three of 3N − 2 are enough. Siblings
    /// of one template meet only in the buckets many of them share; a copy also meets its
    /// original in buckets of few. Exact copies and pairs the numbers propose need none.
    /// 0: any shared bucket is enough.
    #[arg(long, value_name = "N", default_value_t = pl_core::lsh::DEFAULT_EVIDENCE_BUCKET,
          value_parser = evidence_bucket)]
    pub evidence_bucket: usize,
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
    /// Print, for --perms (default 256), --bands and --min-band-matches, the probability that
    /// a pair becomes a candidate at similarities 0.50 to 1.00, the similarity where it
    /// crosses 50%, and the share of pairs at --threshold that LSH would miss; then exit
    /// (reads no input).
    #[arg(long)]
    pub explain: bool,
    /// With --explain: the similarity whose pairs should not be missed (pl-score's
    /// --min-similarity). The curve is over the Jaccard similarity of the shingle sets, so this
    /// reads it as a Jaccard value (pl-score's similarity mixes in the fuzzy ratio, usually
    /// close to it for true copies).
    #[arg(long, default_value_t = pl_core::score::DEFAULT_MIN_SIMILARITY, value_parser = numbers::unit)]
    pub threshold: f64,
    /// Print the trials method's probability table (6 trials of h hashes, duplicate when at
    /// least 2 agree; h = 10..20 at 80-100% overlap) as Markdown and exit (reads no input).
    #[arg(long, conflicts_with = "explain")]
    pub trials_table: bool,
    /// Band every document, copies too: k copies of one text then make k·(k−1)/2 candidate
    /// pairs instead of k − 1 star pairs marked `"copy":true` (the behaviour before copies
    /// were collapsed).
    #[arg(long)]
    pub no_collapse: bool,
    /// Signatures of the heads or tails of the same documents (`pl-minhash --part head:N`),
    /// banded the same way; their candidates are added to the whole texts' (`bands`: the most
    /// any sketch gave the pair). A copy with a page added or removed, or a cover sheet,
    /// shares one edge with its original even when their whole texts share too little.
    /// Repeatable.
    #[arg(long, value_name = "FILE")]
    pub also: Vec<std::path::PathBuf>,
    /// What to write: `candidates` (the pairs), or `band-keys`: a row per document and band,
    /// `{"sketch","band","key","id"}` (sketch 0 the whole texts, then each --also stream), and
    /// a row `{"copy","id"}` per document with a non-empty shingle set, for a run spread over
    /// machines that groups the rows by bucket itself (docs/SCALE.md). --from-keys makes the
    /// candidates of such rows.
    #[arg(long, value_enum, default_value_t = Emit::Candidates, conflicts_with = "from_keys")]
    pub emit: Emit,
    /// Read band-key rows (`--emit band-keys`, in any order, or grouped by bucket with
    /// `"ids":[...]`) instead of signatures, and write the candidate pairs pl-lsh finds from
    /// the signatures themselves: the same pairs, copies collapsed the same way.
    #[arg(long, conflicts_with_all = ["also", "no_collapse"])]
    pub from_keys: bool,
    /// With --from-keys, for one of several runs over disjoint sets of whole buckets: write
    /// each pair's band count and evidence in each sketch, `{"a","b","sketch","bands",
    /// "evidence"}`, unfiltered; those of the runs add up to the pair's (then
    /// --min-band-matches applies to each sketch, the most bands of any sketch is kept, the
    /// evidence of those sketches summed asked of --evidence-bucket, and the copy pairs are
    /// added: scripts/spark does this).
    #[arg(long, requires = "from_keys")]
    pub partial: bool,
    /// Normalized documents (pl-normalize output, the documents of the signatures): two
    /// documents sharing at least 2 numbers (a digit and three characters: invoice numbers,
    /// dates, amounts) that at most 6 documents hold are a candidate too, `"bands":0` when no
    /// band proposed them. A copy with a page added or removed, or read badly, keeps its
    /// original's numbers where its whole text's bands miss it. The numbers are read as
    /// pl-score's verifier reads them (a text cut to --max-words). With --emit band-keys, a row
    /// `{"number","id"}` per document and number.
    #[arg(long, value_name = "FILE", conflicts_with = "from_keys")]
    pub numbers: Option<PathBuf>,
    /// With --numbers: the words of a text read, as pl-score's --max-words (a longer text on
    /// its first and last halves of this).
    #[arg(long, value_name = "N", default_value_t = pl_core::verify::DEFAULT_MAX_WORDS,
          value_parser = crate::score_flags::max_words_parser(), requires = "numbers")]
    pub max_words: usize,
    /// Say why two documents are or are not a candidate pair, instead of writing the pairs:
    /// one JSON object with, for each sketch (the whole texts, then each --also stream), the
    /// buckets the two share and how many documents each holds (a bucket over --max-bucket
    /// pairs nobody), with --numbers the numbers they share and how many documents hold each,
    /// and whether they are exact copies (a copy's pairs are its copy set's lowest id's).
    #[arg(long, value_name = "A,B", value_parser = numbers::id_pair,
          conflicts_with_all = ["from_keys", "explain", "trials_table"])]
    pub why: Option<(u64, u64)>,
    /// Print the band rule of --min-band-matches, --max-bucket and --evidence-bucket as one
    /// JSON object (with the evidence unit a bucket's weight is made of, the evidence a pair
    /// needs, and the rule of --numbers), then exit (reads no input): what pl-spark applies.
    #[arg(long, conflicts_with_all = ["explain", "trials_table", "why", "from_keys"])]
    pub print_rule: bool,
}

impl Args {
    /// The band rule of --min-band-matches, --max-bucket and --evidence-bucket.
    fn rule(&self) -> BandRule {
        BandRule::new(self.min_band_matches, self.max_bucket, self.evidence_bucket)
    }
}

/// `--evidence-bucket`: 0 (off), or a bucket of at least 2 documents (the band rule's check,
/// [`pl_core::lsh::check_evidence_bucket`]; pl-index's flag too).
pub fn evidence_bucket(s: &str) -> Result<usize, String> {
    let n = s.parse::<usize>().map_err(|e| e.to_string())?;
    pl_core::lsh::check_evidence_bucket(n)
}

/// What pl-lsh writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// Candidate pairs.
    Candidates,
    /// Band-key rows.
    BandKeys,
}

/// The whole texts' signatures, as read.
struct Whole {
    name: String,
    params: Option<Params>,
    ids: Vec<u64>,
    fingerprints: Vec<u128>,
    sigs: Vec<Vec<u32>>,
}

/// Reads the main input: whole texts' signatures (a head or tail stream goes with --also).
fn read_whole(args: &Args, log: &Log) -> Result<Whole> {
    let (name, mut reader) = open_records::<SigRec>(open_input(args.common.input.as_deref())?)?;
    check_whole_part(&name, reader.params())?;
    let (mut ids, mut fingerprints, mut sigs) = (Vec::new(), Vec::new(), Vec::new());
    let pb = log.progress("signatures");
    while let Some(r) = reader.next().with_context(|| name.clone())? {
        ids.push(r.id);
        fingerprints.push(r.fingerprint);
        sigs.push(r.sig);
        pb.inc(1);
    }
    pb.finish_and_clear();
    let params = reader.params();
    Ok(Whole {
        name,
        params,
        ids,
        fingerprints,
        sigs,
    })
}

/// The whole texts' stream as banding needs it: each signature's band keys and digest, not the
/// signature (4 bytes × K a document, 1 KB at K = 256), which is read a chunk at a time.
struct Banded {
    name: String,
    params: Option<Params>,
    ids: Vec<u64>,
    fingerprints: Vec<u128>,
    digests: Vec<SigDigest>,
    keys: Vec<Vec<u64>>,
}

/// Signatures held at once while [`read_banded`] turns them into band keys.
const SIG_CHUNK: usize = 1 << 14;

/// Reads the whole texts' signatures as [`read_whole`] does, keeping their band keys and
/// digests; checks `--perms` and makes the banding at the first record.
fn read_banded(args: &Args, log: &Log) -> Result<(Banded, Option<Banding>)> {
    let (name, mut reader) = open_records::<SigRec>(open_input(args.common.input.as_deref())?)?;
    check_whole_part(&name, reader.params())?;
    let mut b = Banded {
        name,
        params: None,
        ids: Vec::new(),
        fingerprints: Vec::new(),
        digests: Vec::new(),
        keys: Vec::new(),
    };
    let mut banding = None;
    let mut chunk: Vec<SigRec> = Vec::with_capacity(SIG_CHUNK);
    let pb = log.progress("signatures");
    loop {
        let r = reader.next().with_context(|| b.name.clone())?;
        let end = r.is_none();
        if let Some(r) = r {
            b.ids.push(r.id);
            b.fingerprints.push(r.fingerprint);
            chunk.push(r);
            pb.inc(1);
        }
        if chunk.len() == SIG_CHUNK || (end && !chunk.is_empty()) {
            let banding = match banding {
                Some(x) => x,
                None => *banding.insert(banding_of(args, &b.name, reader.params())?),
            };
            let done: Vec<(Vec<u64>, SigDigest)> = chunk
                .par_iter()
                .map(|r| (banding.keys(&r.sig), SigDigest::of(&r.sig)))
                .collect();
            chunk.clear();
            for (k, d) in done {
                b.keys.push(k);
                b.digests.push(d);
            }
        }
        if end {
            break;
        }
    }
    pb.finish_and_clear();
    b.params = reader.params();
    Ok((b, banding))
}

/// Refuses a head or tail stream given as the whole texts' one.
fn check_whole_part(name: &str, params: Option<Params>) -> Result<()> {
    if params.is_some_and(|p| p.part != Part::Whole) {
        return Err(UsageError(format!(
            "{name}: signatures of document {}s: give the whole texts' signatures first and this stream with --also",
            params.map_or("", |p| p.part.name())
        ))
        .into());
    }
    Ok(())
}

/// The banding of a stream of `params`, `--perms` checked against them.
fn banding_of(args: &Args, name: &str, params: Option<Params>) -> Result<Banding> {
    let params = params.context("a signature record before the stream's parameters")?;
    if let Some(k) = args.perms {
        expect_param(
            "perms (signature length K)",
            k,
            params.perms,
            "re-run pl-minhash with --perms matching this stage, or change --perms",
        )
        .with_context(|| name.to_string())?;
    }
    Ok(Banding::new(params.perms as usize, args.bands).map_err(|e| UsageError(e.to_string()))?)
}

/// (number hash, document) for every number of every document of --numbers. All count in
/// how many documents hold a number; only those with a signature (`known`, sorted) are paired
/// (pl-shingle gives an empty text none).
fn read_numbers(args: &Args, known: &[u64], log: &Log) -> Result<Vec<(u64, u64)>> {
    let Some(path) = &args.numbers else {
        return Ok(Vec::new());
    };
    let mut reader = NdjsonReader::new(open_input(Some(path))?, false);
    let (mut postings, mut unsigned) = (Vec::new(), 0usize);
    // Parsed on every thread: a million documents' texts are gigabytes.
    let parse = |text: &str| -> Result<(u64, Vec<u64>), String> {
        let f = norm_record(text, "give pl-normalize's output")?;
        Ok((f.id, number_hashes(&f.norm, args.max_words)))
    };
    par_parse(&mut reader, 2048, parse, |reader, line, (id, numbers)| {
        if reader.check_id(line, id)? {
            unsigned += usize::from(known.binary_search(&id).is_err());
            postings.extend(numbers.into_iter().map(|h| (h, id)));
        }
        Ok(())
    })?;
    if unsigned > 0 {
        log.info(format!(
            "{}: {unsigned} documents have no signature: their numbers are counted, they are not paired",
            reader.name()
        ));
    }
    Ok(postings)
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-lsh", &args.common);
    BandRule::checked(
        args.min_band_matches,
        args.max_bucket,
        args.evidence_bucket,
        args.bands,
    )
    .map_err(UsageError)?;
    if args.explain {
        return explain(&args);
    }
    if args.print_rule {
        return print_rule(&args);
    }
    if args.trials_table {
        let mut out = create_output(args.common.output.as_deref())?;
        out.write_all(pl_core::trials::table().as_bytes())?;
        return out.finish();
    }
    if args.from_keys {
        return from_keys(&args, &log);
    }
    if args.why.is_some() || args.emit == Emit::BandKeys {
        return explain_or_emit(&args, &log);
    }
    let (whole, banding) = read_banded(&args, &log)?;
    let (Some(params), Some(banding)) = (whole.params, banding) else {
        // No signature: the numbers are still read (and checked), and nothing is paired.
        read_numbers(&args, &[], &log)?;
        return create_output(args.common.output.as_deref())?.finish();
    };
    let mut out = create_output(args.common.output.as_deref())?;
    log.info(format!(
        "{} signatures read; {} bands x {} rows",
        whole.ids.len(),
        banding.bands,
        banding.rows
    ));
    let (cands, copies) = find(&args, &log, whole, &params, &banding)?;
    let copy_pairs: &[(u64, u64)] = copies.as_ref().map_or(&[], |c| &c.pairs);
    let written = write_candidates(&mut out, &cands, copy_pairs, banding.bands as u32, &log)?;
    out.finish()?;
    if copies.is_some() {
        log.summary(format!(
            "{written} candidate pairs: {} between banded documents, {} copy pairs",
            cands.len(),
            copy_pairs.len()
        ));
    } else {
        log.summary(format!("{written} candidate pairs"));
    }
    Ok(())
}

/// `--why` and `--emit band-keys`: the whole texts' signatures held as read (the one pair's
/// Jaccard needs them; the band-key rows are written from them).
fn explain_or_emit(args: &Args, log: &Log) -> Result<()> {
    let whole = read_whole(args, log)?;
    let postings = {
        let mut known = whole.ids.clone();
        known.sort_unstable();
        read_numbers(args, &known, log)?
    };
    let mut out = create_output(args.common.output.as_deref())?;
    let Some(params) = whole.params else {
        return out.finish();
    };
    let banding = banding_of(args, &whole.name, Some(params))?;
    if let Some(pair) = args.why {
        why::explain_pair(args, whole, postings, &params, &banding, pair, &mut out)?;
        return out.finish();
    }
    let rows = emit_band_keys(args, whole, postings, &params, &banding, &mut out)?;
    log.info(format!("{rows} band-key rows"));
    out.finish()
}

/// Writes the candidates, the copy pairs among them, with a bar on a terminal; how many.
fn write_candidates(
    out: &mut impl Write,
    cands: &[pl_core::lsh::Candidate],
    copy_pairs: &[(u64, u64)],
    bands: u32,
    log: &Log,
) -> Result<usize> {
    let mut written = 0usize;
    let pb = log.bar("candidates", (cands.len() + copy_pairs.len()) as u64);
    for (c, copy) in with_copies(cands, copy_pairs, bands) {
        write_obj(out, &CandRecord::new(c, copy))?;
        written += 1;
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(written)
}

/// The candidate pairs of the banded documents (the whole texts', the parts' of --also, the
/// numbers' of --numbers), and the copy sets collapsed before banding (none with
/// --no-collapse). The numbers are read once the whole texts' pairs are counted, so that the
/// two are never held at once.
fn find(
    args: &Args,
    log: &Log,
    whole: Banded,
    params: &Params,
    banding: &Banding,
) -> Result<(Vec<Candidate>, Option<CopySets>)> {
    let mut known = whole.ids.clone();
    known.sort_unstable();
    // Copies share every band, so they are a candidate pair whatever --min-band-matches is
    // (it is at most --bands).
    let copies = if args.no_collapse {
        None
    } else {
        let c = copy_sets(&whole.ids, &whole.fingerprints, &whole.digests);
        log.info(format!(
            "{} documents collapsed into {} copy sets (equal fingerprints); {} signatures banded",
            c.docs,
            c.sets,
            c.banded.iter().filter(|&&b| b).count()
        ));
        Some(c)
    };
    drop((whole.fingerprints, whole.digests));
    let (banded_ids, keys) = match &copies {
        None => (whole.ids, whole.keys),
        Some(c) => (c.keep_banded(whole.ids), c.keep_banded(whole.keys)),
    };
    let mut lists = vec![candidates(&banded_ids, &keys, args.rule())];
    drop(keys);
    let mut banded = banded_ids;
    banded.sort_unstable();
    if args.numbers.is_some() {
        let postings = read_numbers(args, &known, log)?;
        let by_numbers = number_pairs(postings, |d| banded.binary_search(&d).is_ok());
        log.info(format!(
            "{} pairs share two numbers that at most {NUMBER_BUCKET} documents hold",
            by_numbers.len()
        ));
        lists.push(by_numbers);
    }
    for path in &args.also {
        let part = part_candidates(path, params, &known, &banded, banding, args.rule())?;
        lists.push(part);
    }
    let from_others: usize = lists[1..].iter().map(Vec::len).sum();
    let banded_pairs: usize = lists.iter().map(Vec::len).sum();
    let cands = pl_core::lsh::propose(lists, args.rule());
    log.info(format!(
        "{} candidate pairs from {} sketches ({from_others} from the parts and numbers, before the union; {banded_pairs} in all before --evidence-bucket {})",
        cands.len(),
        args.also.len() + 1,
        args.evidence_bucket
    ));
    Ok((cands, copies))
}

/// The candidates of a head or tail signature stream at `path`, among the documents banded
/// in the whole-text stream (`banded`, sorted: copies other than their set's representative
/// are paired through it). Its parameters must be the whole stream's but for the part, and
/// every id in it one of the whole stream's (`known`, sorted), once.
fn part_candidates(
    path: &std::path::Path,
    whole: &Params,
    known: &[u64],
    banded: &[u64],
    banding: &Banding,
    rule: BandRule,
) -> Result<Vec<Candidate>> {
    Ok(match read_part_keys(path, whole, known, banded, banding)? {
        Some((_, ids, keys)) => candidates(&ids, &keys, rule),
        None => Vec::new(),
    })
}

/// A part stream's name, and the ids and band keys of its banded documents.
type PartKeys = (String, Vec<u64>, Vec<Vec<u64>>);

/// The band keys of the documents of the part stream at `path` that are `banded` (sorted),
/// with the stream's name and their ids; `None` when the stream is empty (no parameters).
/// Checked as [`part_candidates`] says.
fn read_part_keys(
    path: &std::path::Path,
    whole: &Params,
    known: &[u64],
    banded: &[u64],
    banding: &Banding,
) -> Result<Option<PartKeys>> {
    let (name, mut reader) = open_part(path)?;
    let (mut ids, mut keys) = (Vec::new(), Vec::new());
    let mut seen = rustc_hash::FxHashSet::default();
    let mut n = 0u64;
    while let Some(r) = reader.next().with_context(|| name.clone())? {
        n += 1;
        check_part_id(&name, n, r.id, &mut seen, known)?;
        if banded.binary_search(&r.id).is_ok() {
            ids.push(r.id);
            keys.push(banding.keys(&r.sig));
        }
    }
    if !check_part_params(&name, reader.params(), whole)? {
        return Ok(None);
    }
    Ok(Some((name, ids, keys)))
}

fn open_part(path: &std::path::Path) -> Result<(String, Records<SigRec>)> {
    open_records::<SigRec>(open_input(Some(path))?)
}

/// Refuses an id of a head or tail stream that is repeated or not among the whole texts'.
fn check_part_id(
    name: &str,
    n: u64,
    id: u64,
    seen: &mut rustc_hash::FxHashSet<u64>,
    known: &[u64],
) -> Result<()> {
    if !seen.insert(id) {
        anyhow::bail!("{name}: record {n}: id {id} repeated");
    }
    if known.binary_search(&id).is_err() {
        anyhow::bail!("{name}: record {n}: id {id} is not among the whole texts' signatures");
    }
    Ok(())
}

/// A head or tail stream's parameters must be the whole stream's but for the part; `false`
/// for an empty stream.
fn check_part_params(name: &str, p: Option<Params>, whole: &Params) -> Result<bool> {
    let Some(p) = p else {
        return Ok(false);
    };
    if p.part == Part::Whole {
        anyhow::bail!("{name}: whole-text signatures given with --also (it takes head or tail signatures: pl-minhash --part)");
    }
    p.check_part_of(whole).with_context(|| name.to_string())?;
    Ok(true)
}

/// --emit band-keys: each document's copy key (unless --no-collapse) and band keys, the whole
/// texts' (sketch 0) then each --also stream's; returns the rows written.
fn emit_band_keys(
    args: &Args,
    whole: Whole,
    postings: Vec<(u64, u64)>,
    params: &Params,
    banding: &Banding,
    out: &mut impl Write,
) -> Result<u64> {
    let mut rows = 0u64;
    let mut seen = rustc_hash::FxHashSet::default();
    for (n, &id) in whole.ids.iter().enumerate() {
        if !seen.insert(id) {
            anyhow::bail!("{}: record {}: id {id} repeated", whole.name, n + 1);
        }
    }
    let mut write_keys = |out: &mut dyn Write, sketch: u32, id: u64, sig: &[u32]| -> Result<()> {
        for (band, key) in banding.keys(sig).into_iter().enumerate() {
            let rec = KeyRecord {
                sketch: Some(sketch),
                band: Some(band as u32),
                key: Some(hash_hex(key)),
                id: Some(id),
                ..KeyRecord::default()
            };
            write_obj(&mut &mut *out, &rec)?;
            rows += 1;
        }
        Ok(())
    };
    for ((&id, &fp), sig) in whole.ids.iter().zip(&whole.fingerprints).zip(&whole.sigs) {
        if let Some(copy) = copy_key(fp, sig).filter(|_| !args.no_collapse) {
            let rec = KeyRecord {
                copy: Some(copy),
                id: Some(id),
                ..KeyRecord::default()
            };
            write_obj(out, &rec)?;
        }
        write_keys(out, 0, id, sig)?;
    }
    let mut known: Vec<u64> = whole.ids;
    known.sort_unstable();
    for (i, path) in args.also.iter().enumerate() {
        let (name, mut reader) = open_part(path)?;
        let mut seen = rustc_hash::FxHashSet::default();
        let mut n = 0u64;
        while let Some(r) = reader.next().with_context(|| name.clone())? {
            n += 1;
            check_part_id(&name, n, r.id, &mut seen, &known)?;
            write_keys(out, i as u32 + 1, r.id, &r.sig)?;
        }
        check_part_params(&name, reader.params(), params)?;
    }
    for &(h, id) in &postings {
        let rec = KeyRecord {
            number: Some(hash_hex(h)),
            id: Some(id),
            ..KeyRecord::default()
        };
        write_obj(out, &rec)?;
    }
    Ok(rows + known.len() as u64 + postings.len() as u64)
}

/// --from-keys: the candidates (or with --partial the band counts) of band-key rows.
fn from_keys(args: &Args, log: &Log) -> Result<()> {
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let mut grouped = Grouped::default();
    while let Some(()) = reader.next_typed("band-key row", |rec: KeyRecord| grouped.add(rec))? {}
    let name = reader.name().to_string();
    let mut out = create_output(args.common.output.as_deref())?;
    if args.partial {
        let pairs = grouped
            .partial(args.rule())
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        for p in &pairs {
            write_obj(&mut out, p)?;
        }
        out.finish()?;
        log.info(format!("{} pair band counts", pairs.len()));
        return Ok(());
    }
    let (cands, counts) = grouped
        .candidates(args.rule(), args.bands as u32)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    for &(c, copy) in &cands {
        write_obj(&mut out, &CandRecord::new(c, copy))?;
    }
    out.finish()?;
    reader.report_skipped(log);
    log.info(format!(
        "{} candidate pairs from {} buckets; {} documents in {} copy sets",
        cands.len(),
        counts.buckets,
        counts.copy_docs,
        counts.copy_sets
    ));
    Ok(())
}

/// --print-rule: the band rule of the flags, one JSON object.
fn print_rule(args: &Args) -> Result<()> {
    let mut out = create_output(args.common.output.as_deref())?;
    serde_json::to_writer(&mut out, &args.rule().sheet())?;
    out.write_all(b"\n")?;
    out.finish()
}

/// --explain: the S-curve of --perms (default 256), --bands and --min-band-matches.
fn explain(args: &Args) -> Result<()> {
    let perms = args.perms.unwrap_or(256) as usize;
    let b = Banding::new(perms, args.bands).map_err(|e| UsageError(e.to_string()))?;
    let m = args.min_band_matches as usize;
    let mut out = create_output(args.common.output.as_deref())?;
    out.write_all(pl_core::lsh::explain(perms, &b, m, args.threshold).as_bytes())?;
    let rule = args.rule();
    let cap = match rule.max_bucket_flag() {
        0 => "every bucket pairs its documents (--max-bucket 0)".to_string(),
        n => format!(
            "a bucket of more than {n} documents pairs none of them (--max-bucket): the curve holds for pairs that meet in smaller buckets"
        ),
    };
    writeln!(out, "{cap}")?;
    out.finish()
}
