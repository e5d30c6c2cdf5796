//! A name that stands against another although the other text has it too: the multiset
//! view of a replaced block's known words ([`Evidence::outnumbered_subs`]).

use super::{folded, near_any, Around, Evidence, Near, Profile, Scratch};

impl Profile {
    /// How many times the text has the word of id `id`.
    fn times(&self, id: u32) -> u32 {
        self.distinct
            .binary_search(&id)
            .map_or(0, |i| self.counts[i])
    }

    /// Of the words both texts have, how many this text has more times than `other`, and how
    /// many there are: a letter and its copy to another person differ in a name or two, a
    /// scan in every word a misread took from it.
    fn counts_over(&self, other: &Profile) -> (usize, usize) {
        let (mut i, mut j, mut over, mut shared) = (0, 0, 0, 0);
        while i < self.distinct.len() && j < other.distinct.len() {
            match self.distinct[i].cmp(&other.distinct[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    over += usize::from(self.counts[i] > other.counts[j]);
                    i += 1;
                    j += 1;
                }
            }
        }
        (over, shared)
    }

    /// Whether the text has `word` as often as `this` text does, or (when it lacks the word
    /// itself) up to OCR folding: the words compared as multisets, so that a name a letter
    /// repeats elsewhere (its sender's) does not hide the recipient's name it replaces.
    fn has_as_often(&self, word: &str, id: u32, this: &Profile, buf: &mut Scratch) -> bool {
        match self.times(id) {
            0 => self.has_folded(word, buf),
            n => {
                let mine = this.times(id);
                n >= mine || mine > NAME_TIMES
            }
        }
    }
}

/// Times a text may hold a word for it to be outnumbered: a name stands in an address and a
/// greeting, a word the text repeats more is its wording, which a misread thins.
pub const NAME_TIMES: u32 = 3;

/// Share of the words both texts have that the text of an outnumbered word may have more
/// times than the other for it to stand against a name ([`Evidence::outnumbered_subs`]):
/// more, and the other text's misreads explain the counts. A page or cover sheet added to the
/// other text only raises its counts.
pub const OUTNUMBERED_SHARE: f64 = 0.05;

/// Sets `outnumbered_subs` to the outnumbered words' substitutions of the texts that have
/// more of the shared words than the other for at most [`OUTNUMBERED_SHARE`] of them.
pub(super) fn weigh_outnumbered(e: &mut Evidence, pa: &Profile, pb: &Profile) {
    e.outnumbered_subs = [(pa, pb), (pb, pa)]
        .into_iter()
        .zip(e.outnumbered_in)
        .filter(|&((this, other), subs)| {
            subs > 0 && {
                let (over, shared) = this.counts_over(other);
                over as f64 <= OUTNUMBERED_SHARE * shared as f64
            }
        })
        .map(|(_, subs)| subs)
        .sum();
}

/// Whether `b`, a word of four characters or more, shares more than half its characters
/// with `a` once both are OCR-folded (normalized Indel similarity): a misread, however rough
/// (`after` read `aber`), not another name (`mary` facing `mr joshua`, `koch` facing `pohl`).
fn loosely_alike(a: &str, b: &str) -> bool {
    b.chars().count() >= 4
        && rapidfuzz::distance::indel::normalized_similarity(folded(a), folded(b)) > 0.5 + 1e-9
}

/// What a word of letters the other text has, or one no other document uses, can still say
/// against a known word facing it: `(rare, outnumbered)`. Rare: only this document uses it
/// (a rare name) and nothing near it is in the other text. Outnumbered: a known word (`known`)
/// the other text has fewer times, like none of the words it faces (the recipient's name
/// where the sender's, which the letter repeats, has it too). `near` holds the other text's
/// words near the block (`other_words`), folded once when first needed.
pub(super) fn name_standing<'t>(
    (w, id, known): (&str, u32, bool),
    [this, other]: [&Profile; 2],
    facing: &[&str],
    (near, other_words): (&mut Option<Around<'t>>, &[&'t str]),
    buf: &mut Scratch,
) -> (bool, bool) {
    if !other.has(w, id, buf) {
        let around = near.get_or_insert_with(|| Around::new(other_words, buf));
        return (matches!(near_any(w, false, around, buf), Near::No), false);
    }
    let outnumbered = known
        && !other.has_as_often(w, id, this, buf)
        && !facing.iter().any(|f| loosely_alike(w, f));
    (false, outnumbered)
}
