//! The match probability of a pair the verifier kept: a logistic model over the verdict's
//! findings. Its weights are fitted, not typed: `make fit` (scripts/fit_policy.py) estimates
//! them from labelled corpora into `policy.json`, which every tool that scores reads from
//! here, so pl-score, the index and pl-spark weigh alike.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::{explain::is_clean, Dims, Verifier};

/// The fitted policy, as `make fit` wrote it.
pub const POLICY_JSON: &str = include_str!("policy.json");

/// What the model reads of a pair, in the policy file's order. Counts enter as `ln(1 + n)`:
/// the tenth agreeing number says less than the second.
pub const FEATURES: [&str; 23] = [
    "similarity",
    "conflict_weight",
    "clean",
    "rescued",
    "by_numbers",
    "numbers_agree",
    "numbers_agree_wide",
    "numbers_against",
    "words_against",
    "damage",
    "garbled_share",
    "matched_share",
    "rare_word_subs",
    "one_digit_subs",
    "word_subs",
    "digit_subs",
    "inner_words",
    "inner_numbers",
    "inner_words_pristine",
    "longest_replaced",
    "longest_replaced_pristine",
    "addressee_names",
    "facing_words",
];

/// Damage at which a text is about a third as pristine ([`pristine`]): a clean scan's few
/// garbled words are below it, a rough one's far above.
const PRISTINE_DAMAGE: f64 = 0.005;

/// How far the pair's damage (the ledger's share of garbled words) is from none, 1 when
/// there is none: wording one text has and the other not, or a passage rewritten, says
/// "another document" where OCR did not touch the texts, and little where it did.
fn pristine(damage: f64) -> f64 {
    (-damage / PRISTINE_DAMAGE).exp()
}

/// Conflict weight above which more conflicts say nothing new (the allowance is 0.5).
const CONFLICT_CAP: f64 = 6.0;

/// One feature's weight in the policy file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Weight {
    /// The feature ([`FEATURES`]).
    pub feature: String,
    /// Its log-odds per unit.
    pub weight: f64,
}

/// The policy: the prior log-odds and one weight per feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// How the weights were made (the command and the corpora).
    pub fitted: String,
    /// Log-odds of a kept pair with every feature at 0.
    pub prior: f64,
    /// The weights, in [`FEATURES`]' order.
    pub weights: Vec<Weight>,
}

/// One feature's part in a pair's log-odds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    /// The feature.
    pub feature: String,
    /// Its value for the pair.
    pub value: f64,
    /// The policy's weight.
    pub weight: f64,
    /// `value × weight`.
    pub contribution: f64,
}

/// A pair's match probability as computed: the prior plus the contributions is the log-odds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probability {
    /// The policy's prior log-odds.
    pub prior: f64,
    /// Every feature's contribution.
    pub terms: Vec<Contribution>,
    /// `prior + Σ contribution`.
    pub log_odds: f64,
    /// `1 / (1 + e^−log_odds)`.
    pub p: f64,
}

impl Policy {
    /// The policy in `policy.json`, read once (a test checks it parses and names
    /// [`FEATURES`] in order).
    pub fn fitted() -> &'static Policy {
        static POLICY: OnceLock<Policy> = OnceLock::new();
        POLICY.get_or_init(|| Policy::parse(POLICY_JSON).expect("policy.json is checked by a test"))
    }

    /// A policy from its JSON, refused unless it weighs exactly [`FEATURES`], in order.
    pub fn parse(json: &str) -> Result<Policy, String> {
        let p: Policy = serde_json::from_str(json).map_err(|e| format!("policy: {e}"))?;
        let names: Vec<&str> = p.weights.iter().map(|w| w.feature.as_str()).collect();
        if names != FEATURES {
            return Err(format!(
                "policy: weighs {names:?}, the scorer reads {FEATURES:?}"
            ));
        }
        if !p.prior.is_finite() || p.weights.iter().any(|w| !w.weight.is_finite()) {
            return Err("policy: a weight is not a finite number".into());
        }
        Ok(p)
    }

    /// The probability of the features `x` ([`features`]).
    pub fn probability(&self, x: &[f64; FEATURES.len()]) -> Probability {
        let terms: Vec<Contribution> = self
            .weights
            .iter()
            .zip(x)
            .map(|(w, &value)| Contribution {
                feature: w.feature.clone(),
                value,
                weight: w.weight,
                contribution: value * w.weight,
            })
            .collect();
        let log_odds = self.prior + terms.iter().map(|t| t.contribution).sum::<f64>();
        Probability {
            prior: self.prior,
            terms,
            log_odds,
            p: 1.0 / (1.0 + (-log_odds).exp()),
        }
    }

    /// The probability of a verified pair (`None` when the verifier did not read it).
    pub fn of(&self, v: &Verifier, dims: &Dims) -> Option<f64> {
        features(v, dims).map(|x| self.probability(&x).p)
    }
}

/// What the model reads of a verified pair: `None` without the verifier's evidence or the
/// order-free evidence (`--no-rescue`), which the policy was fitted with, and for an exact
/// copy ([`Dims::one_text`]), whose score is its similarity, not an estimate.
pub fn features(v: &Verifier, dims: &Dims) -> Option<[f64; FEATURES.len()]> {
    if dims.one_text {
        return None;
    }
    let e = dims.evidence.as_ref()?;
    let l = dims.ledger.as_ref()?;
    let words = (e.matched + e.replaced + e.added + 1) as f64;
    let count = |n: usize| (n as f64).ln_1p();
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let ledger = |f: fn(&crate::ledger::Ledger) -> usize| count(f(l));
    let (inner, longest, pristine) = (
        count(e.inner_words),
        count(e.longest_replaced),
        pristine(l.damage),
    );
    Some([
        dims.similarity,
        v.weight(e).min(CONFLICT_CAP),
        flag(is_clean(e)),
        flag(dims.rescued),
        flag(dims.by_numbers),
        ledger(|l| l.agree),
        ledger(|l| l.wide),
        ledger(|l| l.numbers_against),
        ledger(|l| l.words_against),
        l.damage,
        e.garbled as f64 / words,
        e.matched as f64 / words,
        count(e.rare_word_subs),
        count(e.one_digit_subs),
        count(e.word_subs),
        count(e.digit_subs),
        inner,
        count(e.inner_added.saturating_sub(e.inner_words)),
        inner * pristine,
        longest,
        longest * pristine,
        count(e.addressee_subs + e.addressee_unfaced),
        count(e.facing_words),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Evidence;

    #[test]
    fn the_committed_policy_weighs_what_the_scorer_reads() {
        let p = Policy::parse(POLICY_JSON).unwrap();
        assert_eq!(p.weights.len(), FEATURES.len());
    }

    #[test]
    fn verdict_md_lists_the_policy_pl_score_reads() {
        let doc = include_str!("../../../../docs/VERDICT.md");
        let p = Policy::fitted();
        let row = |name: &str, w: f64| format!("| {name} | {w:.4} |");
        assert!(doc.contains(&row("prior (every finding at 0)", p.prior)));
        for w in &p.weights {
            let line = row(&format!("`{}`", w.feature), w.weight);
            assert!(
                doc.contains(&line),
                "docs/VERDICT.md lacks {line}: run make fit"
            );
        }
    }

    #[test]
    fn a_policy_naming_other_features_is_refused() {
        let json = r#"{"fitted":"x","prior":0,"weights":[{"feature":"similarity","weight":1}]}"#;
        assert!(Policy::parse(json)
            .unwrap_err()
            .contains("the scorer reads"));
    }

    #[test]
    fn the_contributions_sum_to_the_log_odds_and_the_probability_is_its_logistic() {
        let dims = Dims {
            ledger: Some(crate::ledger::Ledger::default()),
            similarity: 0.8,
            evidence: Some(Evidence {
                matched: 90,
                replaced: 5,
                garbled: 3,
                word_subs: 1,
                ..Evidence::default()
            }),
            ..Dims::default()
        };
        let x = features(&Verifier::default(), &dims).unwrap();
        let prob = Policy::fitted().probability(&x);
        let sum: f64 = prob.terms.iter().map(|t| t.contribution).sum();
        assert!((prob.prior + sum - prob.log_odds).abs() < 1e-12);
        assert!((prob.p - 1.0 / (1.0 + (-prob.log_odds).exp())).abs() < 1e-12);
        assert!(prob.p > 0.0 && prob.p < 1.0);
        assert_eq!(x[1], 1.0, "one known word against another weighs 1");
    }

    #[test]
    fn an_unverified_pair_has_no_probability() {
        assert_eq!(
            Policy::fitted().of(&Verifier::default(), &Dims::default()),
            None
        );
    }
}
