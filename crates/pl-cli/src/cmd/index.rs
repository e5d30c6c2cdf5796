//! pl-index: docs NDJSON → the persistent index (created or updated in place) → groups.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::{Args as ClapArgs, Parser};
use pl_core::text_records::DocRecord;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::common::{Common, Log};
use crate::score_flags::ScoreFlags;
use pl_pipeline::index::{src_hash, Access, Index, Params, Prepared};
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::NdjsonReader;

/// Build or update the persistent index of a library (one SQLite file in --index DIR) from
/// docs NDJSON (pl-fetch's output), and write its duplicate groups as pl-cluster does.
/// Only new and changed documents are normalized and signed, and only the pairs they touch
/// are scored again; the groups are those `make groups` gives on the same documents with the
/// same parameters. A document missing from DOCS is deleted from the index (not with
/// --partial; a DOCS that would delete more than half of the index is refused unless
/// --allow-mass-delete). Parameters are recorded when the index is created; a later run that
/// asks for others is refused. An update is one transaction: a killed run leaves the previous
/// index. Writers (pl-index, pl-check --add) take turns: each waits for the one running.
#[derive(Debug, Parser)]
#[command(name = "pl-index", version)]
pub struct Args {
    /// The index folder (created with the index).
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// DOCS holds only new or changed documents: delete nothing.
    #[arg(long)]
    pub partial: bool,
    /// Let a full DOCS delete more than half of the index's documents (refused otherwise:
    /// an empty or cut input would empty the index).
    #[arg(long, conflicts_with = "partial")]
    pub allow_mass_delete: bool,
    /// Compare every table of the index with a fresh build of its documents (in a temporary
    /// folder: as long and as large as a first build), and exit 1 naming each table that
    /// differs; reads no DOCS, writes nothing.
    #[arg(long, conflicts_with_all = ["partial", "allow_mass_delete", "input", "output"])]
    pub verify: bool,
    #[command(flatten)]
    pub params: ParamFlags,
    #[command(flatten)]
    pub common: Common,
}

/// The pipeline's parameters, as pipeline.mk passes them to each stage; unset ones are the
/// index's (or, at creation, the defaults).
#[derive(Debug, Clone, ClapArgs)]
pub struct ParamFlags {
    /// Shingle unit: chars or words (pl-shingle --unit).
    #[arg(long, value_parser = ["chars", "words"], help_heading = "Index parameters (recorded at creation)")]
    pub unit: Option<String>,
    /// Units per shingle (pl-shingle --ngram).
    #[arg(long, value_parser = crate::cmd::shingle::ngram_parser(), help_heading = "Index parameters (recorded at creation)")]
    pub ngram: Option<u32>,
    /// Fewer words make a document short (pl-shingle --min-words).
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub min_words: Option<usize>,
    /// Signature length K (pl-minhash --perms).
    #[arg(long, value_parser = crate::cmd::minhash::perms_parser(), help_heading = "Index parameters (recorded at creation)")]
    pub perms: Option<u32>,
    /// MinHash seed (pl-minhash --seed).
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub seed: Option<u64>,
    /// classic or oph (pl-minhash --scheme).
    #[arg(long, value_parser = ["classic", "oph"], help_heading = "Index parameters (recorded at creation)")]
    pub scheme: Option<String>,
    /// LSH bands (pl-lsh --bands).
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub bands: Option<usize>,
    /// Bands that must agree (pl-lsh --min-band-matches).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), help_heading = "Index parameters (recorded at creation)")]
    pub min_band_matches: Option<u32>,
    /// Largest bucket whose documents are paired, 0 for no limit (pl-lsh --max-bucket).
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub max_bucket: Option<usize>,
    /// Bucket whose weight a pair's shared buckets must reach, 0 for none (pl-lsh
    /// --evidence-bucket).
    #[arg(long, value_parser = crate::cmd::lsh::evidence_bucket, help_heading = "Index parameters (recorded at creation)")]
    pub evidence_bucket: Option<usize>,
    /// Words of each head and tail sketched apart, 0 for none (make's EDGE_WORDS).
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub edge_words: Option<usize>,
    /// 1: documents sharing two numbers that at most 6 documents hold are candidates too, 0:
    /// the bands alone (make's NUMBERS, pl-lsh --numbers).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=1), help_heading = "Index parameters (recorded at creation)")]
    pub numbers: Option<u8>,
    #[command(flatten)]
    pub score: ScoreFlags,
    /// average or single (pl-cluster --linkage).
    #[arg(long, value_parser = ["average", "single"], help_heading = "Index parameters (recorded at creation)")]
    pub linkage: Option<String>,
    /// Groups may join documents of different owners (pl-cluster --across-owners), and
    /// pl-check and pl-watch then report near-duplicates of any owner; recorded with the index:
    /// runs without it keep to the index's choice, and asking for it of an index built without
    /// it is refused.
    #[arg(long, help_heading = "Index parameters (recorded at creation)")]
    pub across_owners: bool,
}

impl ParamFlags {
    /// `base` with the flags given.
    pub fn over(&self, base: &Params) -> Params {
        let mut p = base.clone();
        macro_rules! set {
            ($($f:ident),*) => {$(if let Some(v) = &self.$f { p.$f = v.clone(); })*};
        }
        if let Some(v) = self.ngram {
            p.ngram = v as usize;
        }
        if let Some(v) = self.perms {
            p.perms = v as usize;
        }
        set!(
            unit,
            min_words,
            seed,
            scheme,
            bands,
            min_band_matches,
            max_bucket,
            evidence_bucket,
            edge_words,
            numbers,
            linkage
        );
        p.score = self.score.over(&base.score);
        p.across_owners |= self.across_owners;
        p
    }
}

/// The documents of a run against an index: what is new or changed (prepared), what only
/// changed outside its text, what is gone.
pub struct Changes {
    pub docs: Vec<Prepared>,
    pub relabeled: Vec<Prepared>,
    pub deleted: Vec<u64>,
    pub sources: FxHashMap<u64, u64>,
    pub unchanged: usize,
}

/// Reads docs records and sorts them against the index: a line seen before (the same bytes)
/// is not parsed again. Repeated ids are refused. With `log`, a bar over the documents
/// prepared (normalized, shingled, signed) on a terminal.
pub fn read_changes(
    reader: &mut NdjsonReader,
    index: &Index,
    full: bool,
    log: Option<&Log>,
) -> Result<Changes> {
    let stored = index.sources()?;
    // An index whose rows are not trusted is built again: every document is new to it.
    let rebuild = index.distrust().is_some();
    let known = if rebuild {
        FxHashMap::default()
    } else {
        stored.clone()
    };
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut fresh: Vec<(u64, String)> = Vec::new();
    let mut unchanged = 0;
    while let Some((line, text)) = reader.next_line()? {
        match known.get(&src_hash(&text)) {
            Some(&id) => {
                if !seen.insert(id) {
                    return Err(anyhow!("{}: line {line}: id {id} repeated", reader.name()));
                }
                unchanged += 1;
            }
            None => fresh.push((line, text)),
        }
    }
    let stored_ids: FxHashSet<u64> = stored.values().copied().collect();
    let mut changes = Changes {
        docs: Vec::new(),
        relabeled: Vec::new(),
        deleted: Vec::new(),
        sources: FxHashMap::default(),
        unchanged,
    };
    let name = reader.name().to_string();
    let bar = log.map_or_else(indicatif::ProgressBar::hidden, |l| {
        l.bar("documents prepared", fresh.len() as u64)
    });
    let prepared = prepare_all(&fresh, index, &name, &bar);
    bar.finish_and_clear();
    let texts = index.texts_of(
        &prepared
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|(_, p)| p.id)
            .filter(|id| !rebuild && stored_ids.contains(id))
            .collect::<Vec<u64>>(),
    )?;
    for (r, (_, text)) in prepared.into_iter().zip(&fresh) {
        let (line, p) = r?;
        if !seen.insert(p.id) {
            return Err(anyhow!("{name}: line {line}: id {} repeated", p.id));
        }
        changes.sources.insert(p.id, src_hash(text));
        let same_text = match texts.get(&p.id) {
            Some((fp, norm)) if *fp == p.fp => {
                *norm == pl_pipeline::index::stored_norm(&index.dir, p.id, &p.line)?.norm
            }
            _ => false,
        };
        if same_text {
            changes.relabeled.push(p)
        } else {
            changes.docs.push(p)
        }
    }
    if full {
        let mut gone: Vec<u64> = stored_ids.difference(&seen).copied().collect();
        gone.sort_unstable();
        changes.deleted = gone;
    }
    Ok(changes)
}

/// The docs records `fresh` (line number, text) of the input `name`, each prepared for the
/// index (in parallel), or the error naming its line; `bar` counts them.
fn prepare_all(
    fresh: &[(u64, String)],
    index: &Index,
    name: &str,
    bar: &indicatif::ProgressBar,
) -> Vec<Result<(u64, Prepared)>> {
    use rayon::prelude::*;
    let engine = &index.engine;
    fresh
        .par_iter()
        .map(|(line, text)| {
            let bad = |e: String| anyhow!("{name}: line {line}: invalid record: {e}");
            let o = pl_core::fields::parse_object(text).map_err(|e| bad(e.to_string()))?;
            let doc = DocRecord::from_obj(o).map_err(|e| bad(e.to_string()))?;
            let p = engine.prepare_doc(doc).map_err(bad)?;
            bar.inc(1);
            Ok((*line, p))
        })
        .collect()
}

/// Refuses a full input that would delete more than half of the `stored` documents: most
/// likely an empty, cut or wrong file rather than a library that shrank that much.
fn refuse_mass_delete(input: &str, deleted: usize, stored: u64) -> Result<()> {
    if pl_pipeline::index::mass_delete(deleted, stored) {
        return Err(anyhow!(
            "{input}: would delete {deleted} of the index's {stored} documents (more than half): \
             DOCS must list every document (use --partial for only new or changed ones), or pass \
             --allow-mass-delete if the library really lost them"
        ));
    }
    Ok(())
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-index", &args.common);
    pl_pipeline::io::refuse_inside(
        ("-o", args.common.output.as_deref()),
        ("--index", &args.index),
    )?;
    if args.verify {
        return verify(&args, &log);
    }
    // A --partial run adds to a built index: the first build takes every document.
    let access = if args.partial {
        Access::Write
    } else {
        Access::Create
    };
    let mut index = Index::open(&args.index, &|p| args.params.over(p), access, &log)?;
    if let Some(why) = index.distrust() {
        log.note(format!(
            "{}: {why}: built again from the documents given",
            args.index.join(pl_pipeline::index::DB_FILE).display()
        ));
    }
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let changes = read_changes(&mut reader, &index, !args.partial, Some(&log))?;
    if !args.allow_mass_delete {
        refuse_mass_delete(reader.name(), changes.deleted.len(), index.docs()?)?;
    }
    let unchanged = changes.unchanged;
    let mut summary = index.update(
        changes.docs,
        changes.relabeled,
        changes.deleted,
        &changes.sources,
        &log,
    )?;
    summary.unchanged = unchanged;
    // What hooks queued while another run held the lock (pl-check --add --wait): consumed
    // after this run's input was fetched, so added even when a full run's input lacks them.
    let queued = crate::cmd::check::add_queued(&mut index, &Default::default(), &log)?;
    let mut out = create_output(args.common.output.as_deref())?;
    index.groups(&mut out)?;
    out.finish()?;
    queued.done()?;
    log.summary(format!(
        "{}: {} added, {} changed, {} relabeled, {} deleted, {} unchanged; {} documents rescored ({} words crossed a count line), {} pairs scored, {} kept; {} groups{}",
        args.index.display(),
        summary.added,
        summary.changed,
        summary.relabeled,
        summary.deleted,
        summary.unchanged,
        summary.rescored_docs,
        summary.flipped_words,
        summary.pairs_scored,
        summary.pairs_kept,
        summary.groups,
        if summary.bulk { " (built from scratch)" } else { "" },
    ));
    Ok(())
}

/// `--verify`: the index compared with a fresh build of its documents; an error naming each
/// table that differs.
fn verify(args: &Args, log: &Log) -> Result<()> {
    let mut index = Index::open(&args.index, &|p| args.params.over(p), Access::Verify, log)?;
    let db = args.index.join(pl_pipeline::index::DB_FILE);
    let (docs, differs) = match (index.verify(log), index.distrust()) {
        (Err(e), Some(d)) => {
            return Err(e.context(format!(
                "{}: {d}; a fresh build of its documents failed",
                db.display()
            )))
        }
        (r, _) => r?,
    };
    let mut why: Vec<String> = differs
        .iter()
        .map(|d| {
            format!(
                "table {} differs ({} rows, {} in the fresh build)",
                d.table, d.stored, d.built
            )
        })
        .collect();
    if let Some(d) = index.distrust() {
        why.insert(0, d.to_string());
    }
    if why.is_empty() {
        log.note(format!(
            "{}: every table is what a fresh build of its {} gives",
            db.display(),
            crate::common::count(docs, "document")
        ));
        return Ok(());
    }
    Err(anyhow!(
        "{}: {} (compared with a fresh build of its {}): run pl-index --index {} DOCS with every \
         document (not --partial) to build it again",
        db.display(),
        why.join("; "),
        crate::common::count(docs, "document"),
        args.index.display()
    ))
}
