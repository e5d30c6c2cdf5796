//! pl-lsh --why: whether two documents are a candidate pair, and the buckets, numbers and
//! copy sets that decide it, by the rules the candidates are found with.

use std::io::Write;

use anyhow::{Context, Result};
use pl_core::lsh::{
    copy_sets, numbers_propose, shared_buckets, shared_numbers, Banding, Candidate, Shared,
    SharedBucket, EVIDENCE_UNIT,
};
use pl_core::minhash::estimate_jaccard;
use pl_core::stream::Params;

use super::{read_part_keys, Args, Whole};
use pl_pipeline::ndjson::write_obj;

/// What `--why` writes.
#[derive(serde::Serialize)]
struct Why {
    a: u64,
    b: u64,
    /// Whether pl-lsh writes the pair.
    candidate: bool,
    /// The whole texts' Jaccard similarity estimated from their signatures.
    jaccard: f64,
    /// When the two are exact copies of one text: the pair is written only between the copy
    /// set's lowest id and each other member.
    copies: bool,
    /// The pair banded in their place when either is a copy of a lower id (its pairs are that
    /// id's): `[a's, b's]`, absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    banded_as: Option<(u64, u64)>,
    /// The weights of the buckets shared in the sketches that propose the pair, summed (a
    /// bucket of n documents weighs 1/(n − 1)), and what --evidence-bucket asks (0: nothing).
    evidence: f64,
    evidence_needed: f64,
    sketches: Vec<SketchWhy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    numbers: Option<NumbersWhy>,
}

/// The buckets the pair shares in one sketch.
#[derive(serde::Serialize)]
struct SketchWhy {
    /// `whole`, or the --also file.
    sketch: String,
    /// Each band the two share a bucket in, and its documents.
    shared: Vec<SharedBucket>,
    /// Of those, the buckets small enough to pair their documents (at most --max-bucket).
    pairing: usize,
    /// Whether they make the pair a candidate of this sketch (at least --min-band-matches).
    proposes: bool,
    /// The weights of the buckets that pair, summed.
    evidence: f64,
    /// The candidate of this sketch, as pl-lsh counts it (`None`: too few buckets pair).
    #[serde(skip)]
    candidate: Option<Candidate>,
}

/// The numbers the pair shares (--numbers).
#[derive(serde::Serialize)]
struct NumbersWhy {
    /// How many documents hold each number the two share, ascending.
    held_by: Vec<usize>,
    /// Whether they make the pair a candidate (two numbers held by at most 6 documents).
    proposes: bool,
}

/// Writes the account of `pair` (ids, `a < b`) to `out`.
pub(super) fn explain_pair(
    args: &Args,
    whole: Whole,
    postings: Vec<(u64, u64)>,
    params: &Params,
    banding: &Banding,
    (a, b): (u64, u64),
    out: &mut impl Write,
) -> Result<()> {
    let index = |id: u64| {
        whole.ids.iter().position(|&x| x == id).with_context(|| {
            format!(
                "{}: no signature of document {id} (--why {a},{b})",
                whole.name
            )
        })
    };
    let (xa, xb) = (index(a)?, index(b)?);
    let jaccard = estimate_jaccard(&whole.sigs[xa], &whole.sigs[xb]);
    let copies =
        (!args.no_collapse).then(|| copy_sets(&whole.ids, &whole.fingerprints, &whole.sigs));
    // The id each document is banded as: its copy set's lowest, or itself.
    let rep = |id: u64| {
        copies
            .as_ref()
            .and_then(|c| c.pairs.iter().find(|p| p.1 == id))
            .map_or(id, |p| p.0)
    };
    let (ra, rb) = (rep(a), rep(b));
    let mut why = Why {
        a,
        b,
        candidate: false,
        jaccard: (jaccard * 1e6).round() / 1e6,
        copies: ra == rb,
        banded_as: ((ra, rb) != (a, b)).then_some((ra, rb)),
        evidence: 0.0,
        evidence_needed: 0.0,
        sketches: Vec::new(),
        numbers: None,
    };
    if ra == rb {
        why.candidate = a == ra;
        return write_obj(out, &why);
    }
    let banded: Vec<bool> = copies.map_or_else(|| vec![true; whole.ids.len()], |c| c.banded);
    let (banded_ids, keys): (Vec<u64>, Vec<Vec<u64>>) = (whole.ids.iter().zip(&whole.sigs))
        .zip(&banded)
        .filter(|p| *p.1)
        .map(|((&id, s), _)| (id, banding.keys(s)))
        .unzip();
    why.sketches
        .push(sketch("whole", &banded_ids, &keys, (ra, rb), args));
    drop(keys);
    let mut known = whole.ids.clone();
    known.sort_unstable();
    let mut sorted_banded = banded_ids;
    sorted_banded.sort_unstable();
    for path in &args.also {
        if let Some((name, ids, keys)) =
            read_part_keys(path, params, &known, &sorted_banded, banding)?
        {
            why.sketches
                .push(sketch(&name, &ids, &keys, (ra, rb), args));
        }
    }
    if args.numbers.is_some() {
        why.numbers = Some(numbers_why(postings, (ra, rb)));
    }
    why.decide(args.rule(), (ra, rb) == (a, b));
    write_obj(out, &why)
}

impl Why {
    /// The verdict of `rule` on the sketches' and numbers' accounts: a candidate when the
    /// pair is banded as itself (`as_itself`) and its numbers propose it, or some sketch does
    /// and the evidence of those that do is enough.
    fn decide(&mut self, rule: pl_core::lsh::BandRule, as_itself: bool) {
        let lists: Vec<Vec<Candidate>> = (self.sketches.iter())
            .map(|s| s.candidate.into_iter().collect())
            .collect();
        let evidence = lists.iter().flatten().map(|c| u64::from(c.evidence)).sum();
        self.evidence = units(evidence);
        self.evidence_needed = units(rule.needed());
        // pl-lsh's own verdict on the sketches' candidates.
        let banded = !pl_core::lsh::propose(lists, rule).is_empty();
        let numbered = self.numbers.as_ref().is_some_and(|n| n.proposes);
        self.candidate = as_itself && (banded || numbered);
    }
}

/// How the numbers shared by the documents banded as `ra` and `rb` propose them, from the
/// number postings `(number, document)`.
fn numbers_why(mut postings: Vec<(u64, u64)>, (ra, rb): (u64, u64)) -> NumbersWhy {
    postings.sort_unstable();
    postings.dedup();
    let shared = shared_numbers(&postings, ra, rb);
    let mut held_by: Vec<usize> = shared.iter().map(|s| s.1).collect();
    held_by.sort_unstable();
    NumbersWhy {
        held_by,
        proposes: numbers_propose(&shared),
    }
}

/// The buckets `pair` shares among the documents `ids` with band keys `keys`.
fn sketch(name: &str, ids: &[u64], keys: &[Vec<u64>], pair: (u64, u64), args: &Args) -> SketchWhy {
    let at = |id: u64| ids.iter().position(|&x| x == id);
    let shared = match (at(pair.0), at(pair.1)) {
        (Some(x), Some(y)) => shared_buckets(keys, x, y),
        _ => Vec::new(),
    };
    let counted = Shared::of(&shared, args.rule());
    let candidate = counted.candidate(pair.0, pair.1, args.rule());
    SketchWhy {
        sketch: name.to_string(),
        pairing: counted.bands as usize,
        proposes: candidate.is_some(),
        evidence: units(u64::from(counted.evidence)),
        candidate,
        shared,
    }
}

/// Evidence as buckets of two documents, to six decimals.
fn units(evidence: u64) -> f64 {
    (evidence as f64 / EVIDENCE_UNIT as f64 * 1e6).round() / 1e6
}
