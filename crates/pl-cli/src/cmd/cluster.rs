//! pl-cluster: scored pairs → duplicate groups.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Parser;
use pl_core::cluster::{
    apart_in_components, cluster_with, grouping_why, DocMeta, Linkage, ScoresLine,
};
use pl_core::owners::{owner_of, same_owner, Owner};
use pl_core::text_records::GroupRecord;
use rustc_hash::FxHashMap;

use crate::common::{Common, Log};
use crate::sides::read_field;
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{write_obj, NdjsonReader};

/// Join scored pairs into groups, strongest pairs first. By default (--linkage average) two
/// groups merge only when at least half of the pairs between their members passed scoring;
/// --linkage single is plain union-find (documents connected through any chain of pairs are
/// one group). Each group gets a confidence (its strongest pair's score, with that pair's
/// jaccard and fuzzy), and a primary, the document to keep: the earliest `added` (else
/// `created`), then the one with the most metadata (title, correspondent, document type, tags,
/// archive serial number), then the lowest id. Groups are sorted by confidence, highest first.
///
/// Pairs held apart (pl-score's `{"a","b","apart":true}` lines: the verifier dropped them as
/// two documents: their numbers disagree, none agreeing, or another addressee) are never in one group: average linkage does not
/// merge two groups with such a pair between them (--linkage single ignores them), and a
/// document that passed with two documents held apart, at scores within 0.01 of each other,
/// joins neither: its text does not tell which one it copies. A pair both kept and held apart
/// is refused. Memory: the pairs, and 16 bytes per pair held apart.
///
/// Owners (the docs' `owner`, as pl-fetch records it): a group never joins documents of two
/// owners. A kept pair whose documents have different owners is not a link; a document with
/// no owner (`null` or missing: Paperless shows it to every user) counts as an owner of its
/// own, joining only documents without owner. --across-owners lifts the rule.
#[derive(Debug, Parser)]
#[command(name = "pl-cluster", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// How pairs join: `average` (default) merges two groups only when at least half of the
    /// pairs between their members passed scoring, so one stray pair cannot chain a family of
    /// bills into a giant group; `single` is plain union-find (the reference behaviour).
    /// Pairs marked `"copy":true` (pl-lsh's exact copies) join first, and average linkage
    /// counts a pair to one copy of a text as a pair to each of its copies.
    #[arg(long, value_enum, default_value_t = LinkageArg::Average)]
    pub linkage: LinkageArg,
    /// Documents (docs or norm NDJSON) for the primary rule; without it the lowest id is primary.
    #[arg(long, value_name = "FILE", conflicts_with = "renumber")]
    pub docs: Option<PathBuf>,
    /// Read groups instead of pairs: the groups of several runs over disjoint connected
    /// components (as scripts/spark runs pl-cluster), written in the order and with the
    /// numbers one run over all the pairs gives them. A document in two groups is refused.
    #[arg(long)]
    pub renumber: bool,
    /// Say why two documents are or are not in one group, instead of writing the groups: one
    /// JSON object with their pair's score if it was kept, whether pl-score held them apart,
    /// which of them are torn between two documents held apart (they join no group), each one's
    /// group number (null: none), and when they are not in one group, the document pairs
    /// between their groups: how many, how many passed, how many are held apart (`between`).
    #[arg(long, value_name = "A,B", value_parser = crate::common::numbers::id_pair,
          conflicts_with = "renumber")]
    pub why: Option<(u64, u64)>,
    /// Let a group join documents of different owners (the docs' `owner`; no owner is an owner
    /// of its own). By default a pair across owners is no link, so every group is one owner's
    /// (or the ownerless documents'); pl-report says when a group spans owners.
    #[arg(long, conflicts_with = "renumber")]
    pub across_owners: bool,
}

/// The --linkage flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LinkageArg {
    /// Union-find.
    Single,
    /// Guarded merges.
    Average,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-cluster", &args.common);
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    if args.renumber {
        return renumber(&args, reader, &log);
    }
    let (mut pairs, mut apart) = (Vec::new(), Vec::new());
    let pb = log.progress("pairs");
    while let Some(l) = reader.next_with(|o| ScoresLine::from_obj(&o).map_err(|e| e.to_string()))? {
        match l {
            ScoresLine::Kept(p) => pairs.push(p),
            ScoresLine::Apart(a, b) => apart.push((a, b, reader.line())),
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let docs: FxHashMap<u64, (DocMeta, Owner)> = match &args.docs {
        Some(path) => {
            let wanted = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
            read_field(path, Some(&wanted), |d| {
                let owner = owner_of(&d).map_err(|e| e.to_string())?;
                Ok((DocMeta::from_record(&d), owner))
            })?
        }
        None => FxHashMap::default(),
    };
    if !args.across_owners {
        let owners = docs.iter().map(|(&id, (_, o))| (id, *o)).collect();
        let left_out;
        (pairs, left_out) = same_owner(pairs, &owners);
        if left_out > 0 {
            log.note(format!(
                "{left_out} pairs across owners are no link (--across-owners joins them)"
            ));
        }
    }
    // Held apart within the components of the pairs that link documents.
    let apart = held_apart(apart, &pairs, reader.name())?;
    let meta: FxHashMap<u64, DocMeta> = docs.into_iter().map(|(id, (m, _))| (id, m)).collect();
    let linkage = match args.linkage {
        LinkageArg::Single => Linkage::Single,
        LinkageArg::Average => Linkage::Average,
    };
    let mut out = create_output(args.common.output.as_deref())?;
    if let Some((a, b)) = args.why {
        write_obj(&mut out, &grouping_why(&pairs, &apart, linkage, (a, b)))?;
        return out.finish();
    }
    let groups = cluster_with(&pairs, &apart, &meta, linkage);
    for (i, g) in groups.iter().enumerate() {
        write_obj(&mut out, &g.to_record(i + 1))?;
    }
    out.finish()?;
    reader.report_skipped(&log);
    log.summary(format!(
        "{} groups from {} pairs",
        groups.len(),
        pairs.len()
    ));
    Ok(())
}

/// The pairs held apart inside the kept pairs' components; one that is also a kept pair is
/// refused, naming its line.
fn held_apart(
    apart: Vec<(u64, u64, u64)>,
    pairs: &[pl_core::cluster::ScoredPair],
    name: &str,
) -> Result<Vec<(u64, u64)>> {
    let mut kept: Vec<(u64, u64)> = pairs.iter().map(|p| (p.a, p.b)).collect();
    kept.sort_unstable();
    if let Some((a, b, line)) = apart
        .iter()
        .find(|(a, b, _)| kept.binary_search(&(*a, *b)).is_ok())
    {
        bail!("{name}: line {line}: pair ({a}, {b}) is both kept and held apart");
    }
    let apart: Vec<(u64, u64)> = apart.into_iter().map(|(a, b, _)| (a, b)).collect();
    Ok(apart_in_components(&kept, &apart))
}

/// --renumber: the groups of several runs as one run's.
fn renumber(args: &Args, mut reader: NdjsonReader, log: &Log) -> Result<()> {
    let mut groups = Vec::new();
    while let Some(g) = reader.next_with(|o| GroupRecord::from_obj(o).map_err(|e| e.to_string()))? {
        groups.push(g);
    }
    let groups = pl_core::cluster::renumber(groups)
        .map_err(|e| anyhow::anyhow!("{}: {e}", reader.name()))?;
    let mut out = create_output(args.common.output.as_deref())?;
    for g in &groups {
        write_obj(&mut out, g)?;
    }
    out.finish()?;
    reader.report_skipped(log);
    log.info(format!("{} groups renumbered", groups.len()));
    Ok(())
}
