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

/// Words from either end of both texts within which a passage is not counted: a fax cover
/// sheet, a page added or removed, a letterhead read otherwise.
const MARGIN_WORDS: usize = 30;

/// Words that each side of a passage writes and the other side's passage has nothing like,
/// for it to be another passage: a few lines of text.
pub(super) const PASSAGE_WORDS: usize = 8;

/// How alike two words may be (normalized Indel similarity) and still be another word, not
/// OCR's reading of it (`landiord` for `landlord` is 0.875).
const OCR_ALIKE: f64 = 0.7;

/// Whether two texts, away from their first and last [`MARGIN_WORDS`] words, write one passage
/// otherwise: a stretch of differing blocks (bridged by at most [`BRIDGE_WORDS`] equal words)
/// in which each side has at least [`PASSAGE_WORDS`] words of three letters or more, known to
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
    let inner = |r: &Hunk| {
        r.old.start >= MARGIN_WORDS
            && r.new.start >= MARGIN_WORDS
            && r.old.end + MARGIN_WORDS <= wx.len()
            && r.new.end + MARGIN_WORDS <= wy.len()
    };
    let passage = |blocks: &[Hunk]| {
        let old: Vec<(&str, u32)> = blocks
            .iter()
            .flat_map(|h| h.old.clone().map(|i| (wx[i], ix[i])))
            .collect();
        let new: Vec<(&str, u32)> = blocks
            .iter()
            .flat_map(|h| h.new.clone().map(|i| (wy[i], iy[i])))
            .collect();
        written_otherwise(&old, &new, |id| known(id, sides[0]))
            && written_otherwise(&new, &old, |id| known(id, sides[1]))
    };
    let mut stretches: Vec<Vec<Hunk>> = Vec::new();
    for h in word_hunks(ix, iy) {
        match stretches.last_mut() {
            Some(s) if h.old.start - s[s.len() - 1].old.end <= BRIDGE_WORDS => s.push(h),
            _ => stretches.push(vec![h]),
        }
    }
    stretches.iter().any(|blocks| {
        let (first, last) = (&blocks[0], &blocks[blocks.len() - 1]);
        inner(&Hunk {
            old: first.old.start..last.old.end,
            new: first.new.start..last.new.end,
        }) && passage(blocks)
    })
}

/// Whether at least [`PASSAGE_WORDS`] of `side`'s words are known words of three letters or
/// more with nothing like them ([`OCR_ALIKE`]) among `other`'s.
fn written_otherwise(
    side: &[(&str, u32)],
    other: &[(&str, u32)],
    known: impl Fn(u32) -> bool,
) -> bool {
    let mut seen: Vec<u32> = Vec::new();
    let mut n = 0;
    for &(w, id) in side {
        let word = w.chars().all(char::is_alphabetic) && w.chars().nth(2).is_some();
        if !word || seen.contains(&id) || !known(id) {
            continue;
        }
        seen.push(id);
        let alike = other.iter().any(|&(v, _)| {
            rapidfuzz::distance::indel::normalized_similarity(w.chars(), v.chars()) >= OCR_ALIKE
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
