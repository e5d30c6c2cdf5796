//! Two texts the same but for a passage each writes otherwise: another edition of terms or
//! of a contract, one section's sentences replaced. OCR garbles the words it misreads; it
//! does not write, in their place, other words that other documents use.

use super::Doc;
use crate::diff::{word_hunks, Hunk};
use crate::evidence::Side;
use crate::verify::words;

/// Equal words between two differing blocks that leave them one passage: new sentences share
/// a word or two with the old ones by chance (`the`, `shall`).
const BRIDGE_WORDS: usize = 3;

/// Words the two texts share before a passage and after it (and most of the words there): a
/// passage stands inside one text. A fax cover sheet, a page added or removed, a letterhead read otherwise, or a stray
/// page each copy holds at its end stand at an edge, with nothing shared on one side.
const MARGIN_WORDS: usize = 30;

/// Words that each side of a passage writes and the other side's passage has nothing like,
/// for it to be another passage: a few lines of text.
pub(super) const PASSAGE_WORDS: usize = 8;

/// How alike two words may be (normalized Indel similarity) and still be another word, not
/// OCR's reading of it (`landiord` for `landlord` is 0.875).
const OCR_ALIKE: f64 = 0.7;

/// Whether two texts write one passage otherwise: a stretch of differing blocks (bridged by
/// at most [`BRIDGE_WORDS`] equal words), with [`MARGIN_WORDS`] equal words before it and
/// after it, in which each side has at least [`PASSAGE_WORDS`] words of three letters or more, known to
/// another document of the corpus (words, not OCR noise), none as alike as
/// [`OCR_ALIKE`] to a word of the other side's passage. Two documents, as another value is:
/// a scan that lost a line has a passage on one side only, a rescan garbles words into noise
/// or into look-alikes, and a line read in another place is equal words moved, not replaced.
pub(super) fn passage_replaced(x: Doc, y: Doc, known: impl Fn(u32, Side) -> bool) -> bool {
    let (ix, iy) = (x.profile.ids(), y.profile.ids());
    if ix.len().min(iy.len()) < 2 * MARGIN_WORDS + 2 * PASSAGE_WORDS {
        return false;
    }
    // Aligned in one order whichever text comes first.
    let (x, y, sides) = if y.text < x.text {
        (y, x, [Side::B, Side::A])
    } else {
        (x, y, [Side::A, Side::B])
    };
    let (ix, iy) = (x.profile.ids(), y.profile.ids());
    let (wx, wy): (Vec<&str>, Vec<&str>) = (words(x.text).collect(), words(y.text).collect());
    if wx.len() != ix.len() || wy.len() != iy.len() {
        return false;
    }
    let passage = |blocks: &[Hunk]| {
        let old = distinct_words(
            blocks
                .iter()
                .flat_map(|h| h.old.clone().map(|i| (wx[i], ix[i]))),
        );
        let new = distinct_words(
            blocks
                .iter()
                .flat_map(|h| h.new.clone().map(|i| (wy[i], iy[i]))),
        );
        written_otherwise(&old, &new, |id| known(id, sides[0]))
            && written_otherwise(&new, &old, |id| known(id, sides[1]))
    };
    let hunks: Vec<Hunk> = word_hunks(ix, iy).collect();
    // Equal words before each hunk, and in all.
    let mut differing = 0;
    let equal_before: Vec<usize> = hunks
        .iter()
        .map(|h| {
            let equal = h.old.start - differing;
            differing += h.old.len();
            equal
        })
        .collect();
    let equal_words = wx.len() - differing;
    // Stretches of hunks (first, last), each bridged by at most BRIDGE_WORDS equal words.
    let mut stretches = Vec::new();
    let mut first = 0;
    for i in 1..=hunks.len() {
        if i == hunks.len() || hunks[i].old.start - hunks[i - 1].old.end > BRIDGE_WORDS {
            stretches.push((first, i - 1));
            first = i;
        }
    }
    // Shared text: MARGIN_WORDS equal words at least, and most of the words on that side.
    let shared = |equal: usize, words: usize| equal >= MARGIN_WORDS && 2 * equal >= words;
    stretches.into_iter().any(|(first, last)| {
        let (start, end) = (&hunks[first], &hunks[last]);
        let after = (wx.len() - end.old.end).max(wy.len() - end.new.end);
        shared(equal_before[first], start.old.start.max(start.new.start))
            && shared(equal_words - equal_before[last], after)
            && passage(&hunks[first..=last])
    })
}

impl super::Scorer<'_> {
    /// Whether a clean pair ([`crate::ledger::Rescue::clean_damage`]) writes a passage
    /// otherwise ([`passage_replaced`]). In a damaged pair, garble that spells words and a
    /// stray page each copy holds at one place look the same.
    pub(super) fn another_passage(
        &self,
        x: Doc,
        y: Doc,
        known: impl Fn(u32, Side) -> bool,
    ) -> bool {
        let clean = self.config.rescue.unwrap_or_default().clean_damage;
        let df = |id: u32| self.df(id);
        crate::ledger::damage(x.profile, y.profile, &df) < clean && passage_replaced(x, y, known)
    }
}

/// Known words of a side that a stretch's check reads at most, each compared with every
/// distinct word of the other side: a passage shows [`PASSAGE_WORDS`] long before, and a
/// stretch of heavy OCR damage across a long text is read no further. So a pair's check
/// costs at most this many Indel comparisons per word of its texts.
const READ_WORDS: usize = 64;

/// The words of a side of a stretch, each once, in order, with their lengths in characters.
fn distinct_words<'t>(words: impl Iterator<Item = (&'t str, u32)>) -> Vec<(&'t str, u32, usize)> {
    let mut seen = rustc_hash::FxHashSet::default();
    words
        .filter(|&(_, id)| seen.insert(id))
        .map(|(w, id)| (w, id, w.chars().count()))
        .collect()
}

/// Whether at least [`PASSAGE_WORDS`] of `side`'s words are known words of three letters or
/// more with nothing like them ([`OCR_ALIKE`]) among `other`'s (of the first [`READ_WORDS`]
/// such known words).
fn written_otherwise(
    side: &[(&str, u32, usize)],
    other: &[(&str, u32, usize)],
    known: impl Fn(u32) -> bool,
) -> bool {
    let mut n = 0;
    let words = side
        .iter()
        .filter(|&&(w, id, len)| len >= 3 && w.chars().all(char::is_alphabetic) && known(id));
    for &(w, _, len) in words.take(READ_WORDS) {
        let alike = other.iter().any(|&(v, _, other_len)| {
            // The similarity is at most 2·min / (sum) of the lengths: most words need no count.
            2.0 * len.min(other_len) as f64 >= (len + other_len) as f64 * OCR_ALIKE - 1e-9
                && rapidfuzz::distance::indel::normalized_similarity(w.chars(), v.chars())
                    >= OCR_ALIKE
        });
        if !alike {
            n += 1;
            if n >= PASSAGE_WORDS {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct six-letter words, `tag` their first letter.
    fn words(tag: char, n: usize) -> Vec<String> {
        let letter = |i: usize| char::from(b'a' + (i % 26) as u8);
        (0..n)
            .map(|i| {
                format!(
                    "{tag}{}{}q{}{}",
                    letter(i / 26),
                    letter(i),
                    letter(i / 26),
                    letter(i)
                )
            })
            .collect()
    }

    /// A side's words, each word's id its first place.
    fn side(words: &[String]) -> Vec<(&str, u32, usize)> {
        let id = |w: &String| words.iter().position(|v| v == w).unwrap() as u32;
        distinct_words(words.iter().map(|w| (w.as_str(), id(w))))
    }

    #[test]
    fn a_stretch_is_read_up_to_its_first_known_words() {
        // OCR's look-alikes (one letter changed), then the words of another passage.
        let garbled = words('k', READ_WORDS);
        let read: Vec<String> = garbled.iter().map(|w| w.replacen('q', "x", 1)).collect();
        let passage = words('z', PASSAGE_WORDS);
        let late: Vec<String> = garbled.iter().chain(&passage).cloned().collect();
        let early: Vec<String> = passage.iter().chain(&garbled).cloned().collect();
        let other = side(&read);
        assert!(written_otherwise(&side(&early), &other, |_| true));
        assert!(
            !written_otherwise(&side(&late), &other, |_| true),
            "read no further"
        );
        // Unknown words and repeats are not read, and count nothing.
        assert!(!written_otherwise(&side(&early), &other, |id| id >= PASSAGE_WORDS as u32));
        let repeated: Vec<String> = passage.iter().map(|_| passage[0].clone()).collect();
        assert!(!written_otherwise(&side(&repeated), &other, |_| true));
    }
}
