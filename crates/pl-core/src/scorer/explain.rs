//! What `--explain` prints of a verdict: the computation that made it, term by term, so that
//! the explanation and the verdict cannot diverge (a test recomputes every verdict from it).

use serde::{Deserialize, Serialize};

use super::policy::{features, Policy, Probability};
use super::{Config, Dims, Verifier, CLEAN_DAMAGE};
use crate::evidence::Evidence;

/// Whether a scan is clean: at most [`CLEAN_DAMAGE`] garbled words per matched word.
pub fn is_clean(e: &Evidence) -> bool {
    (e.garbled as f64) <= CLEAN_DAMAGE * e.matched as f64
}

/// One kind of conflict in a pair's conflict weight: how many, and what each weighs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Term {
    /// What the conflicts are.
    pub class: String,
    /// How many the alignment found.
    pub count: usize,
    /// What one weighs.
    pub each: f64,
}

impl Term {
    /// What they weigh together.
    pub fn weight(&self) -> f64 {
        self.count as f64 * self.each
    }
}

/// A verdict as computed, in the cascade's order: the alignment's conflict terms against
/// their allowance, the value written otherwise, the order-free rescue, then the score
/// against the threshold (or the numbers that judge a pair under it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Computation {
    /// The conflicts that weigh, by kind.
    pub terms: Vec<Term>,
    /// Their sum: the pair's conflict weight.
    pub conflict_weight: f64,
    /// The weight the pair may have: `--allow-conflicts` plus `--conflicts-per-garbled` per
    /// garbled word.
    pub allowance: f64,
    /// Whether the scan is clean (a one-digit misread weighs twice, a rare word counts).
    pub clean: bool,
    /// `conflict_weight ≤ allowance`.
    pub aligned_passes: bool,
    /// The alignment matched a third of the shorter text or more (else two texts that share
    /// little: dropped unless the ledger rescues the pair).
    pub one_text_aligned: bool,
    /// A passage written otherwise in a clean pair otherwise one text (another edition): drops
    /// the pair whatever the alignment found, no ledger rescues it, and it is held apart.
    pub passage_replaced: bool,
    /// A number the other text writes as another value in a pair OCR did not damage: drops
    /// the pair whatever else agrees.
    pub another_value: bool,
    /// Kept by the order-free evidence although the alignment failed (`ledger.balance`).
    pub rescued: bool,
    /// The similarity and the minimum it is held against.
    pub similarity: f64,
    /// The minimum similarity (`--min-similarity`).
    pub min_similarity: f64,
    /// Under the minimum similarity but judged by the verifier: two rare numbers in both
    /// texts and a third of the shorter text aligned.
    pub by_numbers: bool,
    /// The match probability as computed ([`super::policy`]): the policy's prior and each
    /// finding's contribution to the log-odds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<Probability>,
    /// The score a pair needs (`--threshold`): its match probability, or its similarity
    /// where it has none.
    pub threshold: f64,
}

impl Computation {
    /// The computation of a verified pair's verdict (`None` when it was not verified).
    pub fn of(config: &Config, dims: &Dims) -> Option<Computation> {
        let (v, e) = (config.verifier?, dims.evidence.as_ref()?);
        let terms = v.terms(e);
        Some(Computation {
            conflict_weight: v.weight(e),
            terms,
            allowance: v.allowance(e),
            clean: is_clean(e),
            aligned_passes: v.passes(e),
            one_text_aligned: dims.one_text_aligned,
            passage_replaced: e.passage_replaced,
            another_value: dims.another_value,
            rescued: dims.rescued,
            similarity: dims.similarity,
            min_similarity: config.min_similarity,
            by_numbers: dims.by_numbers,
            probability: features(&v, dims).map(|x| Policy::fitted().probability(&x)),
            threshold: config.threshold,
        })
    }

    /// The verdict the computation gives: the alignment passes with no passage replaced (or
    /// the ledger rescues it), no value is written otherwise, the similarity reaches its
    /// minimum (or the numbers judge it), and the score (the match probability, else the
    /// similarity) the threshold.
    pub fn keeps(&self) -> bool {
        let score = self.probability.as_ref().map_or(self.similarity, |p| p.p);
        (self.aligned_passes && self.one_text_aligned && !self.passage_replaced || self.rescued)
            && !self.another_value
            && (self.similarity >= self.min_similarity || self.by_numbers)
            && score >= self.threshold
    }
}

impl Verifier {
    /// The conflicts that weigh, one term per kind: what the weight is the sum of, as
    /// `--explain` lists it.
    pub fn terms(&self, e: &Evidence) -> Vec<Term> {
        self.parts(e)
            .into_iter()
            .filter(|&(_, count, _)| count > 0)
            .map(|(class, count, each)| Term {
                class: class.to_string(),
                count,
                each,
            })
            .collect()
    }
}
