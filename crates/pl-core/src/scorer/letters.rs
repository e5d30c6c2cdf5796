//! Two texts whose letters are the same: their numbers alone tell them apart.

use super::Doc;
use crate::evidence::{numeric, Evidence};

/// Whether a pair writes other numbers in its replaced blocks ([`Evidence::numbers_replaced`]:
/// one is enough, so a count stopped after one decides as the whole count does) in two texts
/// whose words without digits are the same, in order (OCR left no mark on their letters): two
/// documents, as another value is — born-digital texts, an invoice corrected in one amount
/// (`174.66`, `1746.50` for `174.65`). A scan that misreads a digit misreads letters as well.
pub(super) fn another_number(e: &Evidence, (x, y): (&str, &str)) -> bool {
    e.numbers_replaced > 0 && same_letters(x, y)
}

/// Whether two texts' words that are not numbers ([`numeric`]) are the same, in order, and
/// at least [`LETTER_WORDS`] of them: enough for OCR to have left its mark on some had it read
/// them.
pub(super) fn same_letters(x: &str, y: &str) -> bool {
    let letters = |t| crate::verify::words(t).filter(|w| !numeric(w));
    letters(x).eq(letters(y)) && letters(x).nth(LETTER_WORDS - 1).is_some()
}

/// The words not numbers two texts must share, in order, for their numbers alone to tell
/// them apart ([`another_number`]): a table of figures says nothing of what OCR did.
pub(super) const LETTER_WORDS: usize = 10;

/// The fuzzy samples of a pair: of the digits views, or of the texts as written when the
/// digits views are one text (two texts that differ only in their numbers' signs and
/// separators are never both at 1, which is an exact copy's score).
pub(super) fn samples<'a>(x: Doc<'a>, y: Doc<'a>) -> (&'a str, &'a str) {
    if x.text.len() == y.text.len() && x.text == y.text {
        (
            x.written.sample().unwrap_or(x.sample),
            y.written.sample().unwrap_or(y.sample),
        )
    } else {
        (x.sample, y.sample)
    }
}
