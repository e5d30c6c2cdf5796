//! pl-score: candidate pairs → the pairs whose match probability reaches the threshold.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::corpus::{CorpusCounts, CountRecord};
use pl_core::records::{expect_param, ShingleRec};
use pl_core::scorer::ScoreParams;
use rustc_hash::FxHashSet;

use crate::common::{Log, Threaded, UsageError};
use crate::score_flags::ScoreFlags;
use crate::sides::read_filtered;
use pl_pipeline::candidates::read_candidates;
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{write_obj, NdjsonReader};
use pl_pipeline::params::check_weights;
use pl_pipeline::score_sides::{NormTexts, SideOptions};
use pl_pipeline::score_sigs::Sigs;
use pl_pipeline::scoring::{score_all, Apart, Inputs, Scoring, Sinks};

/// Score each candidate pair and keep those whose score reaches --threshold: the match
/// probability that the two are one document.
///
/// First the similarity: (wj·J + wf·F) / (wj + wf), where J is the Jaccard similarity of the
/// shingle sets (estimated from the signatures, or exact with --exact) — by default the larger
/// of J and the containment |A∩B| / min(|A|,|B|), so a scan with a page more still matches (see
/// --no-containment) — and F is the normalized Indel similarity (rapidfuzz's ratio) of the
/// first --fuzzy-sample characters of the two normalized texts. A pair under --min-similarity
/// is dropped before its texts are compared, unless two numbers that at most six documents
/// hold are in both texts and its alignment matches a third of the shorter text
/// (`"by_numbers"`): a badly read scan scores low while its invoice number and amounts survive.
///
/// Then the verifier aligns the two texts word by word and sorts every difference: OCR damage
/// (misread characters, split and merged words, stray marks, a block read in another order) or
/// a conflict (a number, date, amount or known word one text has and the other has nowhere,
/// even up to OCR). A pair is dropped when its conflicts weigh more than
/// --allow-conflicts + --conflicts-per-garbled × its garbled words: two bills from one
/// template disagree in clean values with nothing garbled around them, a rough rescan
/// disagrees a little where it is damaged a lot. A pair whose alignment matches less than a
/// third of the shorter text is dropped too: two texts that share little, whatever their
/// conflicts. --no-verify keeps pairs unverified.
///
/// Every pair the verifier keeps gets its match probability as its `"score"`: a logistic model
/// over the verdict's findings (similarity, conflict weight, rare numbers agreeing and standing
/// against each other, damage, …) whose weights `make fit` fitted on labelled corpora
/// (--print-policy prints them). A pair whose score is under --threshold is dropped: no pair,
/// the ones compared for their numbers included, skips that dial. Without the probability
/// (--no-verify, --no-rescue) the score is the similarity.
///
/// The distinctive-token dimension D compares the words holding digits, each weighted by its
/// rarity in the --norm corpus; --distinct-min drops pairs whose D is under it;
/// --distinct-penalty S multiplies the similarity by 1 − S·(1 − D) (the reference product's
/// way).
///
/// A pair the verifier drops whose numbers disagree, with none agreeing (no rare number, none
/// of the wide agreement, and two or more standing against each other), or that names another
/// addressee or signer, or writes a value otherwise in a clean scan, is held apart: two
/// documents, not two readings of one. pl-cluster never puts such a pair in one group.
///
/// Output: {"a","b","score","similarity","jaccard","fuzzy","containment","distinct",
/// "conflicts","garbled"}
/// plus the candidate's other fields, in candidate order; then the pairs held apart whose
/// documents the kept pairs connect, {"a","b","apart":true}, sorted (--apart-all: every one);
/// --explain adds the distinctive words found in only one text and the conflict words of
/// each; --rejected FILE writes the dropped pairs too, with the step that dropped them.
#[derive(Debug, Parser)]
#[command(name = "pl-score", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    /// Signature stream of the documents (pl-minhash output).
    #[arg(long, value_name = "FILE", required_unless_present_any = ["count_corpus", "print_policy"])]
    pub sigs: Option<PathBuf>,
    /// Normalized documents (pl-normalize output), for the fuzzy ratio and the distinctive
    /// tokens; their rarity is counted over every document of this file.
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    #[command(flatten)]
    pub score: ScoreFlags,
    /// Exact Jaccard and containment from the shingle sets (needs --shingles) instead of the
    /// signature estimate: slower, no estimation error.
    #[arg(long, requires = "shingles")]
    pub exact: bool,
    /// Shingle stream of the documents (pl-shingle output), for --exact.
    #[arg(long, value_name = "FILE")]
    pub shingles: Option<PathBuf>,
    /// Add to each pair the distinctive words only one text has (`only_a`, `only_b`).
    #[arg(long)]
    pub explain: bool,
    /// Also write the dropped candidates here, each with its dimensions and `"dropped"`: the
    /// step that dropped it (similarity, distinct, numbers, conflicts, probability).
    #[arg(long, value_name = "FILE")]
    pub rejected: Option<PathBuf>,
    /// Print the fitted policy (the prior and each finding's weight in log-odds, and how they
    /// were fitted) as JSON and exit.
    #[arg(long, exclusive = true)]
    pub print_policy: bool,
    /// Write every pair held apart, not only those whose documents the kept pairs connect:
    /// for a run over part of the candidates, whose pairs are clustered with others'
    /// (scripts/spark).
    #[arg(long)]
    pub apart_all: bool,
    /// Memory, in MB, for the documents of the pairs held at once (their texts, word ids,
    /// profiles and samples, each estimated from its text at more than it takes: about 5 bytes
    /// per byte of normalized text, docs/SPEED.md; and their signatures, 4 × K bytes, unless
    /// --sigs is NDJSON or a pipe and held whole). When they need more (or seem to, their
    /// cost so far scaled to the whole --norm file), the pairs are scored in batches of
    /// documents whose texts and signatures are read again by offset, so memory does not grow
    /// with the corpus; output and verdicts are the same.
    #[arg(long, value_name = "MB", default_value_t = 512,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub text_memory: u64,
    /// Fail unless the signatures have this length K.
    #[arg(long, value_name = "K")]
    pub perms: Option<u32>,
    /// Write the counts of --norm instead of scoring (reads no candidates and no --sigs): its
    /// documents, and how many hold each distinctive token and (unless --no-verify) each word,
    /// as NDJSON. Counts of parts of a corpus add up to the corpus's; a run spread over
    /// machines passes their sum back with --corpus-counts (docs/SCALE.md).
    #[arg(long, conflicts_with_all = ["corpus_counts", "rejected"])]
    pub count_corpus: bool,
    /// Weigh rarities by these corpus counts (--count-corpus records, added up; a token or word
    /// left out counts as in one document) instead of counting --norm, which then needs to
    /// hold only the pairs' documents: scores are those of a run whose --norm is the corpus.
    #[arg(long, value_name = "FILE", requires = "norm")]
    pub corpus_counts: Option<PathBuf>,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    if args.print_policy {
        println!("{}", pl_core::scorer::policy::POLICY_JSON.trim_end());
        return Ok(());
    }
    let log = crate::common::log("pl-score", &args.common);
    let params = args.score.over(&ScoreParams::default());
    check_flags(&args, &params)?;
    let opts = SideOptions::of(&params, args.explain);
    if args.count_corpus {
        return count_corpus(&args, &opts, &log);
    }
    let counts = args.corpus_counts.as_deref().map(read_counts).transpose()?;
    // Candidates first, so only the documents that appear in a pair are kept in memory.
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let cands = read_candidates(&mut reader)?;
    let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
    let budget = args.text_memory.saturating_mul(1 << 20);
    let mut inputs = read_inputs(
        &args,
        params.verify,
        &wanted,
        &opts,
        budget,
        counts.as_ref(),
    )?;
    inputs.check(&cands, reader.name())?;
    log.info(format!(
        "{} candidate pairs ({} of identical texts, scored without comparing), {} documents loaded, {} in the corpus",
        cands.len(),
        inputs.copies(&cands),
        inputs.sigs.len(),
        inputs.texts.as_ref().map_or(0, |(t, _)| t.docs())
    ));
    let job = Scoring::of(&params, args.explain, budget);
    let mut out = create_output(args.common.output.as_deref())?;
    let mut rejected = match &args.rejected {
        Some(path) => Some(create_output(Some(path))?),
        None => None,
    };
    let sinks = Sinks {
        kept: &mut out,
        rejected: rejected.as_mut(),
        apart: if args.apart_all {
            Apart::All
        } else {
            Apart::InComponents
        },
    };
    let counts = score_all(&job, &mut inputs, &cands, sinks, &log)?;
    out.finish()?;
    if let Some(w) = rejected {
        w.finish()?;
    }
    reader.report_skipped(&log);
    counts.ladder.report(&log);
    let [similarity, distinct, conflicts, numbers, probability] = counts.dropped;
    log.summary(format!(
        "{} candidates scored: {} kept at or over {}; dropped {similarity} under similarity {}, \
         {distinct} by distinctive tokens, {conflicts} by conflicts, {numbers} by numbers \
         before aligning, {probability} under the threshold; {} held apart",
        cands.len(),
        counts.kept,
        params.threshold,
        params.config().min_similarity,
        counts.apart
    ));
    Ok(())
}

/// Refuses flags that contradict each other (a usage error, before any input is read; the
/// verifier's need of --norm is checked once the signatures are read).
fn check_flags(args: &Args, p: &ScoreParams) -> Result<()> {
    check_weights(p.jaccard_weight, p.fuzzy_weight)?;
    pl_pipeline::io::refuse_same_file(
        ("-o", args.common.output.as_deref()),
        ("--rejected", args.rejected.as_deref()),
    )?;
    let fuzzy = p.fuzzy_weight > 0.0;
    let distinct = p.distinct_min > 0.0 || p.distinct_penalty > 0.0;
    if (fuzzy || distinct || args.explain) && args.norm.is_none() {
        return Err(UsageError(
            "--norm FILE is needed for the fuzzy ratio and distinctive tokens (or set --fuzzy-weight 0)".into(),
        )
        .into());
    }
    Ok(())
}

/// The signatures, shingle sets (--exact) and norm texts of the documents in `wanted`; a
/// verifier without --norm is refused after the signatures are read.
fn read_inputs(
    args: &Args,
    verify: bool,
    wanted: &FxHashSet<u64>,
    opts: &SideOptions,
    budget: u64,
    counts: Option<&CorpusCounts>,
) -> Result<Inputs> {
    let sigs = args.sigs.as_deref().expect("clap requires --sigs");
    let (params, sig_recs) = Sigs::read(sigs, wanted)?;
    if let Some(p) = params.filter(|p| p.part != pl_core::stream::Part::Whole) {
        anyhow::bail!(
            "{}: signatures of document {}s: --sigs takes the whole texts' signatures (parts are for pl-lsh --also)",
            sigs.display(),
            p.part.name()
        );
    }
    if let (Some(k), Some(p)) = (args.perms, params) {
        expect_param(
            "perms (signature length K)",
            k,
            p.perms,
            "use the signatures this pipeline made",
        )
        .map_err(|e| anyhow!("{}: {e}", sigs.display()))?;
    }
    let shingles = match (&args.shingles, args.exact) {
        (Some(path), true) => {
            let recs = read_filtered::<ShingleRec>(path, |s| wanted.contains(&s.id))?.1;
            let set = recs.into_iter().map(|s| (s.id, s.hashes)).collect();
            Some((set, path.display().to_string()))
        }
        _ => None,
    };
    // Checked here, after the signatures, as it always was: their errors come first.
    if verify && args.norm.is_none() {
        return Err(UsageError(
            "--norm FILE is needed to verify pairs (or pass --no-verify)".into(),
        )
        .into());
    }
    let texts = match &args.norm {
        Some(path) => Some((
            NormTexts::read(path, wanted, opts, budget, sig_recs.cost(), counts)?,
            path.display().to_string(),
        )),
        None => None,
    };
    Ok(Inputs {
        sigs: sig_recs,
        shingles,
        texts,
    })
}

/// --count-corpus: the counts of --norm.
fn count_corpus(args: &Args, opts: &SideOptions, log: &Log) -> Result<()> {
    let norm = args
        .norm
        .as_deref()
        .ok_or_else(|| UsageError("--count-corpus counts the documents of --norm FILE".into()))?;
    let texts = NormTexts::read(norm, &FxHashSet::default(), opts, 0, 0, None)?;
    let counts = texts.counts(opts);
    let mut out = create_output(args.common.output.as_deref())?;
    for rec in counts.records() {
        write_obj(&mut out, &rec)?;
    }
    out.finish()?;
    log.info(format!(
        "{} documents: {} distinctive tokens, {} words",
        counts.documents,
        counts.tokens.len(),
        counts.words.len()
    ));
    Ok(())
}

/// Reads --corpus-counts.
fn read_counts(path: &std::path::Path) -> Result<CorpusCounts> {
    let mut reader = NdjsonReader::new(open_input(Some(path))?, false);
    let mut counts = CorpusCounts::default();
    let mut header = false;
    while let Some(()) = reader.next_typed("corpus-counts record", |rec: CountRecord| {
        counts.add(rec, &mut header)
    })? {}
    counts
        .check(header)
        .map_err(|e| anyhow!("{}: {e}", reader.name()))?;
    Ok(counts)
}
