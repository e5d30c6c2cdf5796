//! Two texts the same word for word but for a word or two: OCR garbles a word, it does not
//! write another word in its place, nor add or drop one in a text it read without a mark.

use super::letters::LETTER_WORDS;
use super::Doc;
use crate::diff::{word_hunks, Hunk};
use crate::evidence::{Evidence, Side};
use crate::normalize::is_tick;
use crate::verify::{explained, words};

/// Most blocks two texts may differ in for each to be read as an edit: beyond, the
/// differences are a scan's.
const MOST_EDITS: usize = 2;

/// Most words an edit has on either side: a longer block is a passage, a stamp or a page,
/// which the verifier and the match probability weigh.
const EDIT_WORDS: usize = 3;

/// Words that turn a sentence into its opposite, in the languages the corpora hold
/// ([`words_edited`]); not `no`, which abbreviates a number (`Invoice No. 4711`) and
/// a scan may lose beside it.
const NEGATIONS: [&str; 13] = [
    "not", "never", "none", "nor", "nicht", "kein", "keine", "keinen", "keinem", "keiner",
    "keines", "nie", "niemals",
];

/// Units a quantity is written in (a word after a number): one for another is another
/// quantity, whatever few letters tell them apart (`mg`, `g`, `µg`).
const UNITS: [&str; 34] = [
    "mg", "µg", "μg", "mcg", "ug", "g", "kg", "t", "ml", "µl", "μl", "l", "dl", "cl", "mm", "cm",
    "dm", "m", "km", "qm", "m²", "m³", "wh", "kwh", "mwh", "w", "kw", "mw", "v", "kv", "mv", "a",
    "ma", "mmol",
];

/// The blocks in which two texts, otherwise the same word for word, write other words
/// (`approved` / `not approved`, `March` / `May`, `Lukas` / `Anna`): two documents, as another
/// value is; so are a form's [`other_boxes`]. Each block is away from both texts' ends (a
/// page, a cover sheet) and holds at most [`EDIT_WORDS`] words a side: a unit for another
/// after a number ([`UNITS`]), a negation one side has and the other not
/// ([`NEGATIONS`]), or as many words for as many, all of letters alone, of two or more, and
/// known to another document of the corpus (words, not OCR noise; none a number, which have
/// their own rules), each [`unlike`] the one it stands for and together not what OCR makes of
/// the other side ([`explained`]: a split, a glued word, `borne` / `bone`); the words taken
/// out in one place are not those put in at another (a line moved). 0 when any difference
/// is not such an edit (the differences may be a scan's: OCR drops a word now and then),
/// when there are more than [`MOST_EDITS`], when the count `e` stopped early, or when the
/// texts share fewer than [`LETTER_WORDS`] words.
pub(super) fn words_edited(
    e: &Evidence,
    x: Doc,
    y: Doc,
    known: impl Fn(u32, Side) -> bool,
) -> usize {
    if other_boxes(x.text, y.text) {
        return 1;
    }
    if e.stopped
        || e.matched < LETTER_WORDS
        || e.replaced + e.added == 0
        || e.replaced + e.added > 2 * EDIT_WORDS * MOST_EDITS
    {
        return 0;
    }
    // Aligned in one order whichever text comes first.
    let (x, y, sides) = if y.text < x.text {
        (y, x, [Side::B, Side::A])
    } else {
        (x, y, [Side::A, Side::B])
    };
    let (ix, iy) = (x.profile.ids(), y.profile.ids());
    let hunks: Vec<Hunk> = word_hunks(ix, iy).take(MOST_EDITS + 1).collect();
    if hunks.is_empty() || hunks.len() > MOST_EDITS {
        return 0;
    }
    let (wx, wy): (Vec<&str>, Vec<&str>) = (words(x.text).collect(), words(y.text).collect());
    if wx.len() != ix.len() || wy.len() != iy.len() {
        return 0;
    }
    let is_word = |(w, &id): (&&str, &u32), side: Side| {
        w.chars().all(char::is_alphabetic) && w.chars().nth(1).is_some() && known(id, side)
    };
    let edited = |h: &Hunk| {
        let (a, b) = (&wx[h.old.clone()], &wy[h.new.clone()]);
        a.len() == b.len()
            && a.iter()
                .zip(&ix[h.old.clone()])
                .all(|w| is_word(w, sides[0]))
            && b.iter()
                .zip(&iy[h.new.clone()])
                .all(|w| is_word(w, sides[1]))
            && a.iter().zip(b).all(|(v, w)| unlike(v, w))
            && !explained(a, b)
    };
    let all_edits = hunks.iter().all(|h| {
        let inner =
            h.old.start > 0 && h.new.start > 0 && h.old.end < wx.len() && h.new.end < wy.len();
        let (a, b) = (&wx[h.old.clone()], &wy[h.new.clone()]);
        inner
            && a.len() <= EDIT_WORDS
            && b.len() <= EDIT_WORDS
            && (other_unit(a, b, wx[h.old.start - 1])
                // Another word added or dropped may be a word the scan lost.
                || (a.is_empty() || b.is_empty())
                    && a.iter().chain(b).all(|w| NEGATIONS.contains(w))
                || edited(h))
    });
    if !all_edits {
        return 0;
    }
    if moved(&hunks, ix, iy) {
        return 0;
    }
    hunks.len()
}

/// Whether the words the blocks take out of one text are those they put in the other: a
/// line moved, not an edit.
fn moved(hunks: &[Hunk], ix: &[u32], iy: &[u32]) -> bool {
    let taken = |ids: &[u32], side: fn(&Hunk) -> std::ops::Range<usize>| {
        let mut out: Vec<u32> = hunks
            .iter()
            .flat_map(|h| ids[side(h)].iter().copied())
            .collect();
        out.sort_unstable();
        out
    };
    taken(ix, |h| h.old.clone()) == taken(iy, |h| h.new.clone())
}

/// Whether a block writes a quantity in another unit than the other text (`5 mg`, `5 µg`):
/// one word a side, both [`UNITS`], after a number.
fn other_unit(a: &[&str], b: &[&str], before: &str) -> bool {
    matches!((a, b), ([u], [v]) if UNITS.contains(u) && UNITS.contains(v))
        && before.bytes().any(|c| c.is_ascii_digit())
}

/// Whether two words, as written (no OCR folds), share at most half their characters and
/// neither holds the other: OCR's garble keeps most of a word (`herrn` read `herrri`, a
/// garble other scans of a large archive repeat, so that other documents hold it), a word
/// cut short keeps its part (`son` of `sonthofen`, the rest under a stamp); another word
/// does neither (`march`, `may`; `lukas`, `anna`).
fn unlike(v: &str, w: &str) -> bool {
    let d = rapidfuzz::distance::indel::distance(v.chars(), w.chars());
    2 * d >= v.chars().count() + w.chars().count() && !v.contains(w) && !w.contains(v)
}

/// Whether two texts are one form with other boxes ticked: as many boxes ([`is_tick`]) in
/// both, the words without them the same, the texts not (`☒ ja ☐ nein`, `☐ ja ☒ nein`). A
/// box is a word of its own; a scan that lost one has fewer.
fn other_boxes(x: &str, y: &str) -> bool {
    let has_box = |t: &str| t.contains('☐') || t.contains('☒');
    if x == y || !has_box(x) || !has_box(y) {
        return false;
    }
    let is_box = |w: &&str| w.chars().all(is_tick);
    let boxes = |t| words(t).filter(is_box).count();
    let rest = |t| words(t).filter(|w| !is_box(w));
    boxes(x) == boxes(y) && rest(x).eq(rest(y))
}

#[cfg(test)]
mod tests {
    use super::other_boxes;

    #[test]
    fn a_form_with_other_boxes_ticked_is_another_one() {
        let form = "einwilligung ☒ ja ☐ nein ort datum";
        assert!(other_boxes(form, "einwilligung ☐ ja ☒ nein ort datum"));
        assert!(other_boxes(form, "einwilligung ☒ ja ☒ nein ort datum"));
        assert!(!other_boxes(form, form));
        // A scan that lost a box, or other words: not this rule's.
        assert!(!other_boxes(form, "einwilligung ja ☐ nein ort datum"));
        assert!(!other_boxes(form, "einwilligung ☐ ja ☒ nein ort daturn"));
        assert!(!other_boxes("ja nein", "nein ja"));
    }
}
