//! The verdict on a pair: kept, or dropped and why, and the step of the cascade that decided
//! it.

use super::Dims;

/// Why a pair was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Under the minimum similarity (possibly before measuring the fuzzy ratio).
    Similarity,
    /// Distinctive tokens under `distinct_min`.
    Distinct,
    /// More conflicts than its OCR damage allows.
    Conflicts,
    /// Refused by its numbers before the alignment ([`crate::ledger::refuses`]).
    Numbers,
    /// Its match probability ([`super::policy`]) under the threshold.
    Probability,
}

impl Reason {
    /// The name used in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Similarity => "similarity",
            Reason::Distinct => "distinct",
            Reason::Conflicts => "conflicts",
            Reason::Numbers => "numbers",
            Reason::Probability => "probability",
        }
    }

    /// Whether a pair dropped for this reason is held apart, or (a ledger counted under a rule
    /// that left it undecided, `decided` false) may be ([`crate::ledger::Ledger::may_be_apart`]):
    /// one refused by its numbers always is, and so is one the verifier dropped for another
    /// value or another addressee or signer ([`crate::evidence::Evidence::addressee_subs`]), or
    /// another passage ([`crate::evidence::Evidence::passage_replaced`]).
    pub fn may_be_apart(self, dims: &Dims, decided: bool) -> bool {
        match self {
            Reason::Numbers => true,
            // Another value or another addressee: two documents, as numbers standing apart are.
            Reason::Conflicts => {
                dims.another_value
                    || dims
                        .evidence
                        .as_ref()
                        .is_some_and(|e| e.addressee_subs > 0 || e.passage_replaced)
                    || dims
                        .ledger
                        .as_ref()
                        .is_some_and(|l| l.may_be_apart(decided))
            }
            Reason::Similarity | Reason::Distinct | Reason::Probability => false,
        }
    }
}

/// The verdict on a pair.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Kept, with its dimensions.
    Kept(Dims),
    /// Dropped, with the dimensions measured until then.
    Dropped(Dims, Reason),
}

/// The step of the cascade that decided a pair, cheapest first: what `pl-score -v` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One normalized text twice: kept without comparing.
    Identical,
    /// Under the minimum similarity even with a perfect fuzzy ratio (or the best the two
    /// sample lengths allow): dropped before any text was compared.
    Bound,
    /// Distinctive tokens under `distinct_min`.
    Distinct,
    /// Refused by its numbers before the alignment.
    Numbers,
    /// The verifier, settled at a differing block before the end of the alignment.
    Settled,
    /// The verifier, after the whole alignment.
    Conflicts,
    /// The fuzzy ratio, measured after the verifier kept the pair.
    Fuzzy,
    /// Its match probability under the threshold.
    Probability,
    /// Kept after every step, the alignment's rejection overruled by the ledger.
    Rescued,
    /// Kept after every step.
    Kept,
}

impl Step {
    /// Every step, in cascade order.
    pub const ALL: [Step; 10] = [
        Step::Identical,
        Step::Bound,
        Step::Distinct,
        Step::Numbers,
        Step::Settled,
        Step::Conflicts,
        Step::Fuzzy,
        Step::Probability,
        Step::Rescued,
        Step::Kept,
    ];

    /// How `-v` names the step.
    pub fn name(self) -> &'static str {
        match self {
            Step::Identical => "identical texts (kept unmeasured)",
            Step::Bound => "similarity bound (dropped before comparing texts)",
            Step::Distinct => "distinctive tokens",
            Step::Numbers => "numbers against each other (dropped before aligning)",
            Step::Settled => "verifier, settled at an early block",
            Step::Conflicts => "verifier, whole alignment",
            Step::Fuzzy => "fuzzy ratio",
            Step::Probability => "match probability under --threshold",
            Step::Rescued => "kept by the ledger (the alignment rejected it)",
            Step::Kept => "kept after every step",
        }
    }
}

impl Verdict {
    /// The step that decided the pair (a pair of identical texts is [`Step::Kept`] here: only
    /// the caller knows it did not compare them).
    pub fn step(&self) -> Step {
        match self {
            Verdict::Kept(d) if d.rescued => Step::Rescued,
            Verdict::Kept(_) => Step::Kept,
            Verdict::Dropped(_, Reason::Distinct) => Step::Distinct,
            Verdict::Dropped(_, Reason::Numbers) => Step::Numbers,
            Verdict::Dropped(_, Reason::Probability) => Step::Probability,
            Verdict::Dropped(d, Reason::Conflicts) => {
                if d.evidence.as_ref().is_some_and(|e| e.stopped) {
                    Step::Settled
                } else {
                    Step::Conflicts
                }
            }
            Verdict::Dropped(d, Reason::Similarity) => {
                if d.evidence.is_none() && d.fuzzy.is_none() {
                    Step::Bound
                } else {
                    Step::Fuzzy
                }
            }
        }
    }
}
