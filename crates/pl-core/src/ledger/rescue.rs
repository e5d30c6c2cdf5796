//! When the order-free evidence overrules the alignment's rejection: [`Rescue`].

use super::{Balance, Ledger, REFUSE_NUMBERS};

/// When the ledger overrules the alignment's rejection: rare numbers that agree outweigh
/// `per_number` times the numbers and `per_word` times the known words that stand against
/// each other, by `margin` (a date against weighs as two numbers). A clean pair (less damage
/// than `clean_damage`) is never rescued when a known word stands against another or a number
/// is near another: without OCR damage those are real differences (one letter sent to two
/// people, next year's premium notice); under a fifth of that damage, a word against on
/// either side counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rescue {
    /// Agreeing rare numbers needed at least.
    pub min_agree: usize,
    /// Agreement needed per number against.
    pub per_number: f64,
    /// Agreement needed per known word against.
    pub per_word: f64,
    /// Agreement needed beyond the weighed disagreement.
    pub margin: f64,
    /// Damage under which a pair counts as clean: no known word may stand against another.
    pub clean_damage: f64,
    /// The wide agreement: numbers at most [`WIDE_DF`](super::WIDE_DF) documents have, in both texts, needed
    /// beyond the weighed disagreement ([`Rescue::wide_per_number`], `wide_per_word`).
    pub wide_margin: f64,
    /// Wide agreement needed per number against.
    pub wide_per_number: f64,
    /// Wide agreement needed per known word against.
    pub wide_per_word: f64,
    /// Whether [`Ledger::apart`] is decided without `explain` (pl-score leaves it to the end,
    /// for the pairs that can change a group: [`crate::scorer::Scorer::held_apart`]).
    pub apart: bool,
    /// Numbers standing against each other that refuse a pair before it is aligned
    /// ([`refuses`](super::refuses); 0: never).
    pub refuse_numbers: usize,
}

impl Default for Rescue {
    fn default() -> Rescue {
        Rescue {
            min_agree: 2,
            per_number: 3.0,
            per_word: 0.5,
            margin: 2.0,
            clean_damage: super::CLEAN_DAMAGE,
            wide_margin: 9.0,
            wide_per_number: 2.0,
            wide_per_word: 0.25,
            apart: true,
            refuse_numbers: REFUSE_NUMBERS,
        }
    }
}

impl Rescue {
    /// How many numbers may stand against each other with `agree` rare numbers agreeing before
    /// the pair fails; `None` when `agree` alone fails it.
    pub fn number_room(&self, agree: usize) -> Option<usize> {
        self.room(agree, agree as f64 - self.margin, self.per_number)
    }

    /// How many known words may stand against each other with the numbers counted so far
    /// before the pair fails; `None` when the numbers alone fail it.
    pub fn word_room(&self, l: &Ledger) -> Option<usize> {
        let left = l.agree as f64 - self.per_number * self.numbers_weighed(l) - self.margin;
        let room = self.room(l.agree, left, self.per_word)?;
        if l.damage < self.clean_damage {
            return (l.near == 0).then_some(0);
        }
        Some(room)
    }

    /// How many items of weight `each` fit in the evidence `left` once `agree` reached
    /// `min_agree`; `None` when nothing is left. Weight 0: no limit.
    fn room(&self, agree: usize, left: f64, each: f64) -> Option<usize> {
        if agree < self.min_agree || left < -1e-9 {
            return None;
        }
        Some(if each > 0.0 {
            (left / each + 1e-9).floor() as usize
        } else {
            usize::MAX - 1
        })
    }

    /// Whether `wide` numbers agreeing could keep a pair with nothing against it.
    pub(super) fn wide_may_keep(&self, wide: usize) -> bool {
        wide as f64 >= self.wide_margin - 1e-9
    }

    /// How many numbers may stand against each other with `wide` numbers agreeing widely
    /// before the wide agreement fails; `None` when it fails alone.
    pub fn wide_number_room(&self, wide: usize) -> Option<usize> {
        self.wide_may_keep(wide)
            .then(|| ((wide as f64 - self.wide_margin) / self.wide_per_number + 1e-9) as usize)
    }

    /// How many known words may stand against each other with the numbers counted so far
    /// before the wide agreement fails; `None` when the numbers alone fail it.
    pub fn wide_word_room(&self, l: &Ledger) -> Option<usize> {
        let left = l.wide as f64 - self.wide_per_number * self.numbers_weighed(l);
        (left >= self.wide_margin - 1e-9).then(|| {
            if self.wide_per_word > 0.0 {
                ((left - self.wide_margin) / self.wide_per_word + 1e-9) as usize
            } else {
                usize::MAX - 1
            }
        })
    }

    /// Whether the evidence keeps the pair: the rare numbers' balance, or the wide one (a
    /// copy whose every rare number is shared by more than [`RARE_DF`](super::RARE_DF) documents, its
    /// cluster's copies).
    pub fn keeps(&self, l: &Ledger) -> bool {
        let b = self.balance(l);
        let rare = !b.clean_refused && l.agree >= self.min_agree && b.rare >= -1e-9;
        rare || b.wide >= -1e-9
    }

    /// The numbers that weigh against a pair: every one in a clean pair, the values alone
    /// in a damaged one ([`Ledger::values_against`]).
    pub fn numbers_weighed(&self, l: &Ledger) -> f64 {
        if l.damage < self.clean_damage {
            l.numbers_against as f64
        } else {
            l.values_against as f64
        }
    }

    /// The ledger's counts weighed.
    pub fn balance(&self, l: &Ledger) -> Balance {
        let (na, wa) = (self.numbers_weighed(l), l.words_against as f64);
        Balance {
            rare: l.agree as f64 - self.per_number * na - self.per_word * wa - self.margin,
            wide: l.wide as f64
                - self.wide_per_number * na
                - self.wide_per_word * wa
                - self.wide_margin,
            clean_refused: l.damage < self.clean_damage && (l.words_against > 0 || l.near > 0),
        }
    }
}
