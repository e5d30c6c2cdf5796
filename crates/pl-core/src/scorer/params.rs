//! A run's scoring parameters: pl-score's flags, as an index records them.

use super::{Config, Rescue, Verifier, Weights};

/// A run's scoring parameters, as pl-score's flags name them and an index records them:
/// `Default` is pl-score's defaults. One type for every tool that scores (pl-score, pl-index,
/// pl-check through its index), turned into the cascade's [`Config`] by [`ScoreParams::config`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ScoreParams {
    /// Score a pair needs: its match probability, or its similarity where there is none.
    pub threshold: f64,
    /// Similarity a pair needs before its texts are compared.
    pub min_similarity: f64,
    /// Weight of the similarity (Jaccard or containment).
    pub jaccard_weight: f64,
    /// Weight of the fuzzy ratio (0: not measured).
    pub fuzzy_weight: f64,
    /// Characters of each text the fuzzy ratio compares.
    pub fuzzy_sample: usize,
    /// Sort the sample's words before the ratio.
    pub sort_words: bool,
    /// Words of a text the verifier aligns.
    pub max_words: usize,
    /// The larger of Jaccard and containment (else Jaccard alone).
    pub containment: bool,
    /// Verify pairs by their differences.
    pub verify: bool,
    /// The order-free evidence: rescue, refusal by numbers, pairs held apart.
    pub rescue: bool,
    /// [`Verifier::allow`].
    pub allow_conflicts: f64,
    /// [`Verifier::per_garbled`].
    pub conflicts_per_garbled: f64,
    /// [`Verifier::word_weight`].
    pub word_conflict_weight: f64,
    /// [`Verifier::one_digit_weight`].
    pub one_digit_weight: f64,
    /// [`Config::distinct_min`].
    pub distinct_min: f64,
    /// [`Config::distinct_penalty`].
    pub distinct_penalty: f64,
}

impl Default for ScoreParams {
    fn default() -> ScoreParams {
        let v = Verifier::default();
        ScoreParams {
            threshold: crate::score::DEFAULT_THRESHOLD,
            min_similarity: crate::score::DEFAULT_MIN_SIMILARITY,
            jaccard_weight: crate::score::DEFAULT_JACCARD_WEIGHT,
            fuzzy_weight: crate::score::DEFAULT_FUZZY_WEIGHT,
            fuzzy_sample: crate::score::DEFAULT_FUZZY_SAMPLE,
            sort_words: false,
            max_words: crate::verify::DEFAULT_MAX_WORDS,
            containment: true,
            verify: true,
            rescue: true,
            allow_conflicts: v.allow,
            conflicts_per_garbled: v.per_garbled,
            word_conflict_weight: v.word_weight,
            one_digit_weight: v.one_digit_weight,
            distinct_min: 0.0,
            distinct_penalty: 0.0,
        }
    }
}

impl ScoreParams {
    /// Whether a kept pair gets a match probability: the policy was fitted with the
    /// verifier's evidence and the order-free evidence, so it needs both.
    pub fn has_probability(&self) -> bool {
        self.verify && self.rescue
    }

    /// The cascade's configuration. Without a match probability the score is the similarity,
    /// so the threshold gates it with the minimum similarity.
    pub fn config(&self) -> Config {
        let min_similarity = if self.has_probability() {
            self.min_similarity
        } else {
            self.min_similarity.max(self.threshold)
        };
        Config {
            min_similarity,
            threshold: self.threshold,
            weights: Weights {
                jaccard: self.jaccard_weight,
                fuzzy: self.fuzzy_weight,
            },
            containment: self.containment,
            verifier: self.verify.then_some(Verifier {
                allow: self.allow_conflicts,
                per_garbled: self.conflicts_per_garbled,
                word_weight: self.word_conflict_weight,
                one_digit_weight: self.one_digit_weight,
            }),
            distinct_min: self.distinct_min,
            distinct_penalty: self.distinct_penalty,
            rescue: self.rescue.then(Rescue::default),
        }
    }

    /// The first parameter outside the values its flag takes (a share from 0 to 1, a weight
    /// of 0 or more, [`crate::verify::MAX_WORDS_RANGE`]), as its flag and value; `None` when
    /// every one is in range. Flags are checked as they are parsed; this is for parameters
    /// read back from where they were recorded (an index).
    pub fn out_of_range(&self) -> Option<String> {
        let shares = [
            ("--threshold", self.threshold),
            ("--min-similarity", self.min_similarity),
            ("--distinct-min", self.distinct_min),
            ("--distinct-penalty", self.distinct_penalty),
        ];
        let weights = [
            ("--jaccard-weight", self.jaccard_weight),
            ("--fuzzy-weight", self.fuzzy_weight),
            ("--allow-conflicts", self.allow_conflicts),
            ("--conflicts-per-garbled", self.conflicts_per_garbled),
            ("--word-conflict-weight", self.word_conflict_weight),
            ("--one-digit-weight", self.one_digit_weight),
        ];
        let words = crate::verify::MAX_WORDS_RANGE;
        (shares.iter())
            .find(|(_, v)| !(0.0..=1.0).contains(v))
            .map(|(f, v)| format!("{f} {v}, not from 0 to 1"))
            .or_else(|| {
                (weights.iter())
                    .find(|(_, v)| !(v.is_finite() && *v >= 0.0))
                    .map(|(f, v)| format!("{f} {v}, not a weight of 0 or more"))
            })
            .or_else(|| {
                (!words.contains(&self.max_words)).then(|| {
                    format!(
                        "--max-words {}, not from {} to {}",
                        self.max_words,
                        words.start(),
                        words.end()
                    )
                })
            })
    }

    /// The parameters as pl-score's `--flag value` pairs (a switch as `true` or `false`), in a
    /// fixed order, for messages.
    pub fn flags(&self) -> Vec<(&'static str, String)> {
        vec![
            ("--threshold", self.threshold.to_string()),
            ("--min-similarity", self.min_similarity.to_string()),
            ("--jaccard-weight", self.jaccard_weight.to_string()),
            ("--fuzzy-weight", self.fuzzy_weight.to_string()),
            ("--fuzzy-sample", self.fuzzy_sample.to_string()),
            ("--sort-words", self.sort_words.to_string()),
            ("--max-words", self.max_words.to_string()),
            ("--no-containment", (!self.containment).to_string()),
            ("--no-verify", (!self.verify).to_string()),
            ("--no-rescue", (!self.rescue).to_string()),
            ("--allow-conflicts", self.allow_conflicts.to_string()),
            (
                "--conflicts-per-garbled",
                self.conflicts_per_garbled.to_string(),
            ),
            (
                "--word-conflict-weight",
                self.word_conflict_weight.to_string(),
            ),
            ("--one-digit-weight", self.one_digit_weight.to_string()),
            ("--distinct-min", self.distinct_min.to_string()),
            ("--distinct-penalty", self.distinct_penalty.to_string()),
        ]
    }
}
