//! Whether a number the alignment found against another is what OCR made of it: a short
//! number with a digit lost or read as a letter, a fragment of a longer one, a template's
//! constant misread, an impossible day.

use super::{folded, Side};

/// Whether a short number (under four characters) is what OCR made of the word facing it in
/// the other side of its block, one character dropped or added (`112` read `12`) or a digit
/// read as a letter (`28b` for `280`): as a number that differs in one digit, not another
/// value. Only the word in the same place counts: a short number is one character from many
/// others around it.
pub(super) fn short_misread(w: &str, facing: &str) -> bool {
    let digits = |t: &str| t.bytes().any(|c| c.is_ascii_digit());
    let (a, b) = (folded(w), folded(facing));
    a.len() < 4
        && a.len().min(b.len()) >= 2
        && digits(w)
        && digits(facing)
        && (rapidfuzz::distance::indel::distance(a.iter().copied(), b.iter().copied()) == 1
            || letter_for_digit(w.as_bytes(), facing.as_bytes()))
}

/// Whether two tokens of one length differ in one place only, a digit on one side and a
/// letter on the other (`28b` for `280`): a digit OCR read as a letter.
fn letter_for_digit(a: &[u8], b: &[u8]) -> bool {
    let mut differ = a.iter().zip(b).filter(|(x, y)| x != y);
    a.len() == b.len()
        && differ.next().is_some_and(|(x, y)| {
            x.is_ascii_digit() != y.is_ascii_digit()
                && (x.is_ascii_alphabetic() || y.is_ascii_alphabetic())
        })
        && differ.next().is_none()
}

/// Whether word `at` of its text's words `own`, beside a month's name (`july 35 2019`,
/// `35 juli 2019`), and the word `facing` it are two digits each, one of them another, one a
/// day no date has (32 to 99) and the other a day (1 to 31): what OCR made of that day, not
/// another date (asked of each side, as every digit misread is).
pub(super) fn impossible_day(own: &[&str], at: usize, facing: &str) -> bool {
    let day = |t: &str| {
        (t.len() == 2 && t.bytes().all(|c| c.is_ascii_digit()))
            .then(|| t.parse::<u32>().ok())
            .flatten()
    };
    let (Some(w), Some(f)) = (own.get(at).and_then(|w| day(w)), day(facing)) else {
        return false;
    };
    let month = |j: Option<usize>| {
        j.and_then(|j| own.get(j))
            .is_some_and(|m| crate::stamp::MONTHS.contains(m))
    };
    let one_digit = own[at]
        .bytes()
        .zip(facing.bytes())
        .filter(|(x, y)| x != y)
        .count()
        == 1;
    let (valid, impossible) = (1..=31, 32..=99);
    (valid.contains(&w) && impossible.contains(&f) || impossible.contains(&w) && valid.contains(&f))
        && one_digit
        && (month(at.checked_sub(1)) || month(Some(at + 1)))
}

/// Whether one of two numbers facing each other is a short number (two or three digits) at
/// the start or the end of the other, longer by two or more: what OCR kept of it where it could
/// not read the rest (`083` for `81083`, `71` for `694571`). Weighed as a digit misread.
pub(super) fn short_fragment(w: &str, facing: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let (short, long) = if w.len() <= facing.len() {
        (w, facing)
    } else {
        (facing, w)
    };
    (2..4).contains(&short.len())
        && long.len() >= short.len() + 2
        && digits(short)
        && digits(long)
        && (long.starts_with(short) || long.ends_with(short))
}

/// Whether `w` (word `i` of its side of a block, id `id`; the block starts at word `start` of
/// its text's words `own`) is what OCR made of a word facing it on the other side: a short
/// number with a digit more or less in its place ([`short_misread`]), a short number at an end
/// of a number in its block, or the other way round ([`short_fragment`]), a template's
/// constant a word away at most ([`constant_misread`]), or a day beside a month
/// ([`impossible_day`]).
pub(super) fn misread_facing(
    (w, id, i): (&str, u32, usize),
    side: Side,
    (facing, facing_ids): (&[&str], &[u32]),
    (own, start): (&[&str], usize),
    known: impl Fn(u32, Side) -> bool,
    constant: impl Fn(u32) -> bool,
) -> bool {
    facing.get(i).is_some_and(|c| short_misread(w, c))
        || facing
            .get(i)
            .is_some_and(|c| impossible_day(own, start + i, c))
        || facing.iter().any(|c| short_fragment(w, c))
        || (i.saturating_sub(1)..(i + 2).min(facing.len())).any(|j| {
            let c = facing_ids[j];
            constant_misread(
                (w, !known(id, side), constant(id)),
                (facing[j], !known(c, side.other()), constant(c)),
            )
        })
}

/// Whether a number only its own text holds is what OCR made of a template's constant facing
/// it (a number [`CONSTANT_DF`](super::CONSTANT_DF) documents or more hold: the `112` of
/// every letter to one street, read `142`): at most three characters inserted or deleted
/// between them after folding (one misread and one dropped), both mostly digits. Each side is
/// `(word, rare, constant)`, in either order. A sibling's fields are values of their own on
/// both sides, not a constant.
pub(super) fn constant_misread(x: (&str, bool, bool), y: (&str, bool, bool)) -> bool {
    let ((w, rare, _), (c, _, constant)) = if x.1 { (x, y) } else { (y, x) };
    // Half their characters digits or more: a number (`42a`, `xx39`), not a name with a digit
    // (`libgl1` and `libglx0` are two packages).
    let numeric = |t: &str| 2 * t.bytes().filter(u8::is_ascii_digit).count() >= t.len();
    if !(rare && constant && numeric(w) && numeric(c) && crate::ledger::is_number(c)) {
        return false;
    }
    let (a, b) = (folded(w), folded(c));
    a.len() >= 2 && rapidfuzz::distance::indel::distance(a.iter().copied(), b.iter().copied()) <= 3
}
