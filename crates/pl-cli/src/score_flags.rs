//! The scoring flags, stated once: pl-score takes them over the defaults, pl-index over the
//! parameters its index records ([`ScoreParams`]), so `make`'s SCORE_FLAGS mean the same to
//! both. A flag left out is the base's value, which is why each is optional here and its
//! default is written in its help (a test checks it against [`ScoreParams::default`]).

use clap::Args;
use pl_core::scorer::ScoreParams;

use crate::common::numbers;

const HEADING: &str = "Scoring";

/// pl-score's parameters (pl-index records them with its index).
#[derive(Debug, Clone, Default, Args)]
pub struct ScoreFlags {
    /// Keep pairs scoring at least this. A verified pair's score is its match probability:
    /// the fitted policy's estimate that the two are one document (`--print-policy`), so the
    /// default keeps a pair more likely one document than two. Higher trades duplicates found
    /// for false pairs avoided, lower the other way. Without the probability (--no-verify,
    /// --no-rescue) the score is the similarity, and this gates it too [default: 0.5].
    #[arg(long, value_parser = numbers::unit, help_heading = HEADING)]
    pub threshold: Option<f64>,
    /// Similarity (Jaccard or containment, mixed with the fuzzy ratio) a pair needs before its
    /// texts are compared, unless two rare numbers in both vouch for it: the cheap gate in
    /// front of the verifier. Lower compares more pairs, at the verifier's cost
    /// [default: 0.65].
    #[arg(long, value_parser = numbers::unit, help_heading = HEADING)]
    pub min_similarity: Option<f64>,
    /// Weight of the Jaccard (or containment) dimension [default: 0.55].
    #[arg(long, value_parser = numbers::non_negative, help_heading = HEADING)]
    pub jaccard_weight: Option<f64>,
    /// Weight of the fuzzy ratio (0 = no fuzzy ratio) [default: 0.45].
    #[arg(long, value_parser = numbers::non_negative, help_heading = HEADING)]
    pub fuzzy_weight: Option<f64>,
    /// Characters of each normalized text compared by the fuzzy ratio (its cost grows with it)
    /// [default: 10000].
    #[arg(long, help_heading = HEADING)]
    pub fuzzy_sample: Option<usize>,
    /// Sort the sample's words before the ratio (the reference product's token-sort ratio):
    /// forgives reordered lines, but also reordered content.
    #[arg(long, help_heading = HEADING)]
    pub sort_words: bool,
    /// Use Jaccard alone instead of the larger of Jaccard and containment (by default one
    /// document that holds the other, a page added or removed, scores as a duplicate).
    #[arg(long, help_heading = HEADING)]
    pub no_containment: bool,
    /// Keep pairs without verifying their differences (the reference product's behaviour).
    #[arg(long, help_heading = HEADING)]
    pub no_verify: bool,
    /// Drop every pair the verifier's alignment rejects, instead of keeping those whose rare
    /// numbers agree wherever they stand in the text (a block read in another order, a number
    /// split in two) far more than any stand against each other. Turns the rest of the ledger
    /// off too: no pair is held apart, none is refused by its numbers before the alignment,
    /// and numbers have no say over the threshold.
    #[arg(long, help_heading = HEADING)]
    pub no_rescue: bool,
    /// Words of a document the verifier aligns: a longer one is compared on its first and
    /// last halves of this, and its pairs say `"sampled":true`. Bounds what one pair costs:
    /// N²/8 bytes per thread at most (50 MB at the default; 1.25 GB at the largest, 100000)
    /// [default: 20000].
    #[arg(long, value_name = "N", value_parser = max_words_parser(), help_heading = HEADING)]
    pub max_words: Option<usize>,
    /// Conflict weight every verified pair may have (a digit conflict weighs 1)
    /// [default: 0.5].
    #[arg(long, value_name = "W", value_parser = numbers::non_negative, help_heading = HEADING)]
    pub allow_conflicts: Option<f64>,
    /// Conflict weight allowed per word of OCR damage the pair shows [default: 0].
    #[arg(long, value_name = "W", value_parser = numbers::non_negative, help_heading = HEADING)]
    pub conflicts_per_garbled: Option<f64>,
    /// Weight of a conflicting word (a name, other wording) against a conflicting number
    /// [default: 1].
    #[arg(long, value_name = "W", value_parser = numbers::non_negative, help_heading = HEADING)]
    pub word_conflict_weight: Option<f64>,
    /// Weight of a number that differs from its counterpart in one digit (a rough scan misreads
    /// a digit now and then; the next invoice number differs in one too), twice that in a clean
    /// scan (garbled words at most 5% of the matched ones) [default: 0.25].
    #[arg(long, value_name = "W", value_parser = numbers::non_negative, help_heading = HEADING)]
    pub one_digit_weight: Option<f64>,
    /// Drop pairs whose distinctive-token similarity is under this (0 = off) [default: 0].
    #[arg(long, value_parser = numbers::unit, help_heading = HEADING)]
    pub distinct_min: Option<f64>,
    /// Multiply the score by 1 − S·(1 − D) (0 = off) [default: 0].
    #[arg(long, value_name = "S", value_parser = numbers::unit, help_heading = HEADING)]
    pub distinct_penalty: Option<f64>,
}

impl ScoreFlags {
    /// `base` with the flags given.
    pub fn over(&self, base: &ScoreParams) -> ScoreParams {
        let mut p = base.clone();
        macro_rules! set {
            ($($f:ident),*) => {$(if let Some(v) = self.$f { p.$f = v; })*};
        }
        set!(
            threshold,
            min_similarity,
            jaccard_weight,
            fuzzy_weight,
            fuzzy_sample,
            max_words,
            allow_conflicts,
            conflicts_per_garbled,
            word_conflict_weight,
            one_digit_weight,
            distinct_min,
            distinct_penalty
        );
        p.sort_words |= self.sort_words;
        p.containment &= !self.no_containment;
        p.verify &= !self.no_verify;
        p.rescue &= !self.no_rescue;
        p
    }
}

/// --max-words's values: from 2 to 100,000 words.
pub fn max_words_parser() -> clap::builder::RangedU64ValueParser<usize> {
    let range = pl_core::verify::MAX_WORDS_RANGE;
    clap::builder::RangedU64ValueParser::<usize>::new()
        .range(*range.start() as u64..=*range.end() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapped {
        #[command(flatten)]
        flags: ScoreFlags,
    }

    #[test]
    fn each_help_states_the_default_the_library_has() {
        let defaults = ScoreParams::default().flags();
        let cmd = <Wrapped as clap::CommandFactory>::command();
        let mut checked = 0;
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let flag = format!("--{long}");
            let (_, value) = defaults
                .iter()
                .find(|(f, _)| *f == flag)
                .unwrap_or_else(|| panic!("{flag} is not a ScoreParams flag"));
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            if arg.get_action().takes_values() {
                assert!(
                    help.ends_with(&format!("[default: {value}]")),
                    "{flag}: help {help:?} does not end with [default: {value}]"
                );
            } else {
                assert_eq!(value, "false", "{flag} is a switch, off by default");
            }
            checked += 1;
        }
        assert_eq!(checked, defaults.len(), "every parameter has a flag");
    }

    #[test]
    fn flags_left_out_keep_the_base_and_given_ones_replace_it() {
        let base = ScoreParams {
            threshold: 0.8,
            containment: false,
            ..ScoreParams::default()
        };
        let none = Wrapped::parse_from(["x"]).flags;
        assert_eq!(none.over(&base), base);
        let some = Wrapped::parse_from(["x", "--threshold", "0.7", "--no-verify"]).flags;
        let p = some.over(&base);
        assert_eq!((p.threshold, p.verify, p.containment), (0.7, false, false));
        assert!(Wrapped::try_parse_from(["x", "--threshold", "1.5"]).is_err());
    }
}
