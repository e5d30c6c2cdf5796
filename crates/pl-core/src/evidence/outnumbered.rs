//! A name that stands against another although the other text has it too: the multiset
//! view of a replaced block's known words ([`Evidence::outnumbered_subs`]).

use super::{folded, near_any, Evidence, Near, NearWords, Profile, Scratch};

impl Profile {
    /// How many times the text has the word of id `id`.
    fn times(&self, id: u32) -> u32 {
        self.distinct
            .binary_search(&id)
            .map_or(0, |i| self.counts[i])
    }

    /// The words both texts have, in id order: each id with this text's count and `other`'s.
    pub(super) fn shared_counts<'p>(
        &'p self,
        other: &'p Profile,
    ) -> impl Iterator<Item = (u32, u32, u32)> + 'p {
        let (mut i, mut j) = (0, 0);
        std::iter::from_fn(move || {
            while i < self.distinct.len() && j < other.distinct.len() {
                match self.distinct[i].cmp(&other.distinct[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        let shared = (self.distinct[i], self.counts[i], other.counts[j]);
                        (i, j) = (i + 1, j + 1);
                        return Some(shared);
                    }
                }
            }
            None
        })
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
pub(super) fn weigh_outnumbered(e: &mut Evidence, [a, b]: [(&str, &Profile); 2]) {
    e.outnumbered_subs = [(a, b), (b, a)]
        .into_iter()
        .zip(e.outnumbered_in)
        .filter(|&((this, other), subs)| {
            subs > 0 && {
                let (over, shared) = counts_over(this, other.1);
                over as f64 <= OUTNUMBERED_SHARE * shared as f64
            }
        })
        .map(|(_, subs)| subs)
        .sum();
}

/// Of the words both texts have, how many are words of letters (two or more) that `this`
/// text has more times than `other`, and how many there are: a letter and its copy to another
/// person differ in a name or two, a scan in every word a misread took from it. A number, or a
/// stray letter a rough scan reads in its margins, is not wording: it is counted among the
/// words both have, never as one this text has more of. The counts are merged from the
/// profiles; only the words counted more are looked up in the text, once.
fn counts_over((a, pa): (&str, &Profile), pb: &Profile) -> (usize, usize) {
    let mut shared = 0;
    let more: Vec<u32> = pa
        .shared_counts(pb)
        .inspect(|_| shared += 1)
        .filter(|&(_, n, m)| n > m)
        .map(|(id, _, _)| id)
        .collect();
    // Whether each of `more` (sorted, as `distinct` is) is a word of letters.
    let mut letters: Vec<Option<bool>> = vec![None; more.len()];
    let mut left = more.len();
    for (w, id) in crate::verify::words(a).zip(pa.ids()) {
        if left == 0 {
            break;
        }
        if let Ok(k) = more.binary_search(id) {
            if letters[k].is_none() {
                letters[k] = Some(w.chars().nth(1).is_some() && w.chars().all(char::is_alphabetic));
                left -= 1;
            }
        }
    }
    let over = letters.iter().filter(|l| **l == Some(true)).count();
    (over, shared)
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
/// words near the block, read around the word's place `i` in it.
pub(super) fn name_standing<'t>(
    (w, id, known): (&str, u32, bool),
    [this, other]: [&Profile; 2],
    facing: &[&str],
    (near, i): (&mut NearWords<'t>, usize),
    buf: &mut Scratch,
) -> (bool, bool) {
    if !other.has(w, id, buf) {
        return (
            matches!(near_any(w, false, near.at(i, buf), buf), Near::No),
            false,
        );
    }
    let outnumbered = known
        && !other.has_as_often(w, id, this, buf)
        && !facing.iter().any(|f| loosely_alike(w, f));
    (false, outnumbered)
}
