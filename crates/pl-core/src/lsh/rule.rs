//! The band rule: which shared buckets propose a pair, and the evidence they must weigh.

use super::{EVIDENCE_UNIT, NUMBER_BUCKET, NUMBER_MATCHES};

/// The band rule: which shared buckets propose a pair, and how many make it a candidate.
/// pl-lsh, `--from-keys`, the index and pl-spark all ask this one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandRule {
    /// A pair is a candidate when it shares at least this many buckets of one sketch.
    pub min_matches: u32,
    /// A bucket holding more banded documents than this proposes no pair: what that many
    /// documents share is boilerplate (a template's letterhead, a licence's last lines), not
    /// evidence of duplication. `usize::MAX`: no limit.
    pub max_bucket: usize,
    /// A pair must share buckets worth one bucket of this many documents (each shared
    /// bucket of n documents weighs 1/(n − 1)): siblings of a template meet in buckets of
    /// many documents, copies also in buckets of few. 0: any shared bucket is enough.
    pub evidence_bucket: usize,
}

/// The default largest bucket whose documents are paired.
pub const DEFAULT_MAX_BUCKET: usize = 50;
/// The default bucket whose weight a pair's shared buckets must reach.
pub const DEFAULT_EVIDENCE_BUCKET: usize = 7;

impl Default for BandRule {
    fn default() -> BandRule {
        BandRule {
            min_matches: 1,
            max_bucket: DEFAULT_MAX_BUCKET,
            evidence_bucket: DEFAULT_EVIDENCE_BUCKET,
        }
    }
}

impl BandRule {
    /// The rule of the command-line flags: `--max-bucket 0` means no limit,
    /// `--evidence-bucket 0` no evidence asked.
    pub fn new(min_matches: u32, max_bucket: usize, evidence_bucket: usize) -> BandRule {
        BandRule {
            min_matches,
            max_bucket: if max_bucket == 0 {
                usize::MAX
            } else {
                max_bucket
            },
            evidence_bucket,
        }
    }

    /// The rule of the flags, checked as every stage that takes them checks them (pl-lsh,
    /// `--from-keys`, the index): at least one and at most `bands` bands must agree, and
    /// `--evidence-bucket` must be 0 or at least 2 ([`check_evidence_bucket`]). The message
    /// names the flag.
    pub fn checked(
        min_matches: u32,
        max_bucket: usize,
        evidence_bucket: usize,
        bands: usize,
    ) -> Result<BandRule, String> {
        if min_matches == 0 {
            return Err("--min-band-matches must be at least 1".into());
        }
        if min_matches as usize > bands {
            return Err(format!(
                "--min-band-matches {min_matches} is more than the {bands} bands: no pair could be a candidate"
            ));
        }
        check_evidence_bucket(evidence_bucket)?;
        Ok(BandRule::new(min_matches, max_bucket, evidence_bucket))
    }

    /// The evidence a shared bucket of `size` banded documents gives each of its pairs:
    /// [`EVIDENCE_UNIT`] / (size − 1) (at least 1), none when it pairs nobody.
    pub fn weight(&self, size: usize) -> u64 {
        if self.pairs(size) {
            (EVIDENCE_UNIT / (size as u64 - 1)).max(1)
        } else {
            0
        }
    }

    /// Whether a pair's summed bucket weights are evidence enough: at least one bucket of
    /// `evidence_bucket` documents weighs.
    pub fn evident(&self, evidence: u64) -> bool {
        evidence >= self.needed()
    }

    /// The evidence a pair needs: one bucket of `evidence_bucket` documents' (0: none).
    pub fn needed(&self) -> u64 {
        if self.evidence_bucket < 2 {
            0
        } else {
            EVIDENCE_UNIT / (self.evidence_bucket as u64 - 1)
        }
    }

    /// The limit as the flag writes it (0: none).
    pub fn max_bucket_flag(&self) -> usize {
        if self.max_bucket == usize::MAX {
            0
        } else {
            self.max_bucket
        }
    }

    /// Whether a bucket of `size` banded documents pairs them.
    pub fn pairs(&self, size: usize) -> bool {
        size >= 2 && size <= self.max_bucket
    }

    /// Whether `bands` shared buckets of one sketch make a candidate.
    pub fn enough(&self, bands: u64) -> bool {
        bands >= u64::from(self.min_matches)
    }

    /// The rule's numbers, for a program that applies it elsewhere (pl-spark, in Spark's
    /// DataFrames): the flags, the evidence unit and what a pair needs, the numbers' rule.
    pub fn sheet(&self) -> RuleSheet {
        RuleSheet {
            min_band_matches: self.min_matches,
            max_bucket: self.max_bucket_flag(),
            evidence_bucket: self.evidence_bucket,
            evidence_unit: EVIDENCE_UNIT,
            needed: self.needed(),
            number_bucket: NUMBER_BUCKET,
            number_matches: NUMBER_MATCHES,
        }
    }
}

/// `--evidence-bucket`: 0 (no evidence asked) or a bucket of at least 2 documents; a bucket
/// of 1 pairs nobody, refused with the way out.
pub fn check_evidence_bucket(n: usize) -> Result<usize, String> {
    if n == 1 {
        return Err(
            "--evidence-bucket 1: a bucket of 1 document pairs nobody: give 0 (off) or 2 or more"
                .into(),
        );
    }
    Ok(n)
}

/// [`BandRule::sheet`]: a bucket of n documents (2 ≤ n ≤ `max_bucket`, 0 no limit) weighs
/// max(1, `evidence_unit` div (n − 1)); a sketch where a pair shares at least
/// `min_band_matches` such buckets proposes it, and the proposing sketches' weights summed
/// must reach `needed`; a number that 2 to `number_bucket` documents hold pairs them when they
/// share `number_matches` such numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RuleSheet {
    /// `--min-band-matches`.
    pub min_band_matches: u32,
    /// `--max-bucket` (0: no limit).
    pub max_bucket: usize,
    /// `--evidence-bucket` (0: no evidence asked).
    pub evidence_bucket: usize,
    /// [`EVIDENCE_UNIT`].
    pub evidence_unit: u64,
    /// [`BandRule::needed`].
    pub needed: u64,
    /// [`NUMBER_BUCKET`].
    pub number_bucket: usize,
    /// [`NUMBER_MATCHES`].
    pub number_matches: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_are_checked_once_for_every_stage() {
        assert_eq!(BandRule::checked(2, 0, 7, 32), Ok(BandRule::new(2, 0, 7)));
        for (min, evidence, words) in [
            (0, 7, "--min-band-matches must be at least 1"),
            (33, 7, "--min-band-matches 33 is more than the 32 bands"),
            (
                1,
                1,
                "--evidence-bucket 1: a bucket of 1 document pairs nobody",
            ),
        ] {
            let e = BandRule::checked(min, 50, evidence, 32).unwrap_err();
            assert!(e.contains(words), "{e}");
        }
        assert_eq!(check_evidence_bucket(0), Ok(0));
        assert_eq!(check_evidence_bucket(2), Ok(2));
    }
}
