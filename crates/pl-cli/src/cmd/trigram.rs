//! pl-trigram: norm NDJSON → pairs `{"a","b","score","trigram"}` by character-trigram similarity.

use anyhow::Result;
use clap::Parser;
use pl_core::score::round6;
use pl_core::text_records::ScoreRecord;
use pl_core::trigram::{
    brute_force_row, check_threshold, sort_pairs, trigrams, JoinStats, Scratch, Trigram,
    TrigramIndex, TrigramPair, DEFAULT_THRESHOLD,
};
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use serde_json::Value;

use crate::common::{Threaded, UsageError};
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{get_id, parse_object, write_obj, NdjsonReader};

/// Find every pair of documents whose sets of character trigrams (three consecutive
/// characters of the normalized text, spaces included) are similar: similarity =
/// |A ∩ B| / max(|A|, |B|). Writes `{"a","b","score","trigram"}` (a < b, sorted by (a, b),
/// each pair once; score and trigram are both the similarity, to 6 decimals) for the pairs
/// at or over --threshold; pl-cluster takes them as they are.
///
/// Exact: no pair over the threshold is missed. It does not compare all pairs: an inverted
/// index over the rarest trigrams of each document (prefix filtering) and the size bound
/// (min/max size must reach the threshold) find the candidates, which are then counted
/// exactly. Best for short documents and as a verifier of the MinHash pipeline. Documents
/// with fewer than 3 characters have no trigrams and are never paired (counted on stderr).
#[derive(Debug, Parser)]
#[command(name = "pl-trigram", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
    /// Keep pairs whose trigram similarity is at least this, in (0, 1]. Lower finds more
    /// damaged copies, more false pairs, and costs more (the index prefixes grow).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD, value_parser = parse_threshold)]
    pub threshold: f64,
    /// Compare every pair instead of using the index (quadratic): a reference for testing
    /// and measuring the index, same output. Not for large corpora.
    #[arg(long)]
    pub brute_force: bool,
}

fn parse_threshold(s: &str) -> Result<f64, String> {
    let t: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    check_threshold(t).map(|()| t).map_err(|e| e.to_string())
}

/// A document's id and its trigram set.
type Doc = (u64, Vec<Trigram>);

/// Reads the norm records: (id, trigram set) in input order, and the count of documents
/// without trigrams.
fn read_sets(reader: &mut NdjsonReader) -> Result<(Vec<Doc>, usize)> {
    const CHUNK: usize = 2048;
    let mut docs = Vec::new();
    let mut seen = FxHashSet::default();
    let mut empty = 0;
    let mut chunk: Vec<(u64, String)> = Vec::with_capacity(CHUNK);
    loop {
        if !reader.next_chunk(&mut chunk, CHUNK)? {
            return Ok((docs, empty));
        }
        let parsed: Vec<Result<Doc, String>> = chunk
            .par_iter()
            .map(|(_, text)| {
                let o = parse_object(text)?;
                let id = get_id(&o)?;
                let norm = match o.get("norm") {
                    Some(Value::String(s)) => s,
                    Some(_) => return Err("\"norm\" is not a string".into()),
                    None => return Err("missing \"norm\" (run pl-normalize first)".into()),
                };
                let mut set = Vec::new();
                trigrams(norm, &mut set);
                Ok((id, set))
            })
            .collect();
        for ((line, _), r) in chunk.iter().zip(parsed) {
            match r {
                Ok((id, _)) if !seen.insert(id) => {
                    reader.invalid(*line, &format!("duplicate id {id}"))?
                }
                Ok((id, set)) => {
                    if set.is_empty() {
                        empty += 1;
                    }
                    docs.push((id, set));
                }
                Err(msg) => reader.invalid(*line, &msg)?,
            }
        }
    }
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-trigram", &args.common);
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let (docs, empty) = read_sets(&mut reader)?;
    reader.report_skipped(&log);
    if empty > 0 {
        log.note(format!(
            "{empty} documents have fewer than 3 characters (no trigrams) and are never paired"
        ));
    }
    let n = docs.len() as u64;
    log.info(format!(
        "{n} documents read, {} trigrams in all",
        docs.iter().map(|d| d.1.len() as u64).sum::<u64>()
    ));
    let t = args.threshold;
    let (pairs, stats) = if args.brute_force {
        let pairs = brute_force(&docs, t);
        let st = JoinStats {
            verified: n * n.saturating_sub(1) / 2,
            pairs: pairs.len() as u64,
            ..JoinStats::default()
        };
        (pairs, st)
    } else {
        let idx = TrigramIndex::build(docs, t).map_err(|e| UsageError(e.to_string()))?;
        log.info("index built");
        join(&idx)
    };
    let mut out = create_output(args.common.output.as_deref())?;
    for p in &pairs {
        writeln_pair(&mut out, p, round6(p.similarity))?;
    }
    out.finish()?;
    log.info(format!(
        "{} pairs at or over {t}; {} index entries scanned, {} candidates met, {} dropped by \
         the positional filter, {} by the count filter, {} verified ({:.4}% of all {} pairs)",
        stats.pairs,
        stats.postings,
        stats.candidates,
        stats.pruned,
        stats.counted_out,
        stats.verified,
        if n > 1 {
            100.0 * stats.verified as f64 / (n * (n - 1) / 2) as f64
        } else {
            0.0
        },
        n * n.saturating_sub(1) / 2
    ));
    Ok(())
}

fn writeln_pair(out: &mut impl std::io::Write, p: &TrigramPair, s: f64) -> Result<()> {
    let rec = ScoreRecord {
        a: p.a,
        b: p.b,
        score: s,
        trigram: Some(s),
        ..ScoreRecord::default()
    };
    write_obj(out, &rec)
}

/// Probes every document of the index in parallel; the pairs come out sorted.
fn join(idx: &TrigramIndex) -> (Vec<TrigramPair>, JoinStats) {
    const CHUNK: usize = 64;
    let parts: Vec<(Vec<TrigramPair>, JoinStats)> = (0..idx.len().div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Scratch::default, |scratch, c| {
            let (mut v, mut st) = (Vec::new(), JoinStats::default());
            for x in c * CHUNK..((c + 1) * CHUNK).min(idx.len()) {
                st.add(&idx.probe(x, scratch, &mut v));
            }
            (v, st)
        })
        .collect();
    let mut st = JoinStats::default();
    let mut pairs = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    for (v, s) in parts {
        st.add(&s);
        pairs.extend(v);
    }
    sort_pairs(&mut pairs);
    (pairs, st)
}

/// Compares every pair, rows in parallel; the pairs come out sorted.
fn brute_force(docs: &[Doc], t: f64) -> Vec<TrigramPair> {
    let mut pairs: Vec<TrigramPair> = (0..docs.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut v = Vec::new();
            brute_force_row(docs, i, t, &mut v);
            v
        })
        .collect();
    sort_pairs(&mut pairs);
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_flag_is_checked() {
        assert_eq!(parse_threshold("0.8"), Ok(0.8));
        assert!(parse_threshold("0").is_err());
        assert!(parse_threshold("1.5").is_err());
        assert!(parse_threshold("x").is_err());
    }

    #[test]
    fn pairs_are_written_in_the_documented_shape() {
        let mut out = Vec::new();
        let p = TrigramPair {
            a: 3,
            b: 9,
            overlap: 7,
            similarity: 0.875,
        };
        writeln_pair(&mut out, &p, round6(p.similarity)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"a\":3,\"b\":9,\"score\":0.875,\"trigram\":0.875}\n"
        );
    }
}
