//! Whether a word is what OCR could make of a word near it on the other side.

use super::Scratch;
use crate::verify::{edits_within, fold_char, fold_into};

/// Characters from which a token may have two characters misread (an IBAN, a policy number,
/// a customer number), where a date or an amount has eight or fewer.
pub(crate) const LONG_TOKEN: usize = 10;

/// Whether two long tokens are one read twice: at most two characters substituted, dropped or
/// added (Levenshtein, after OCR folding), the longer of [`LONG_TOKEN`] characters or more.
/// Another reference of the same scheme mostly differs in more places; the Indel distance the
/// rules above use counts a substitution twice, so two misread digits were a conflict.
pub(super) fn long_misread(a: &[char], b: &[char]) -> bool {
    a.len().max(b.len()) >= LONG_TOKEN
        && a.len().abs_diff(b.len()) <= 2
        && edits_within(a, b, 2).is_some()
}

/// The number inside a token that has letters glued to it (`number91943446715`,
/// `25009000eur`): from its first digit to its last; `None` for a token that is all number or
/// has no digit.
pub(super) fn glued_core(t: &[u8]) -> Option<&[u8]> {
    let first = t.iter().position(u8::is_ascii_digit)?;
    let last = t.iter().rposition(u8::is_ascii_digit)?;
    (first > 0 || last + 1 < t.len()).then(|| &t[first..=last])
}

/// How near two tokens are when one has a label or a unit glued to its number and the other
/// does not: their numbers compared alone (folded), the same number or one long one read
/// twice ([`Near::Yes`]), one character off from four ([`Near::OneDigit`]); `None` otherwise
/// (two labels glued to one number, `a12` and `b12`, are two references).
fn glued_near(w: &[u8], o: &[u8]) -> Option<Near> {
    let (gw, go) = (glued_core(w), glued_core(o));
    if gw.is_some() == go.is_some() {
        return None;
    }
    let folded = |t: &[u8]| -> Vec<char> { t.iter().map(|&b| fold_char(char::from(b))).collect() };
    let (cw, co) = (folded(gw.unwrap_or(w)), folded(go.unwrap_or(o)));
    if cw.len().min(co.len()) < 2 {
        return None;
    }
    if cw == co || long_misread(&cw, &co) {
        return Some(Near::Yes);
    }
    let one = cw.len().min(co.len()) >= 4 && edits_within(&cw, &co, 1).is_some();
    one.then_some(Near::OneDigit)
}

/// How near a word is to what the other text has around it.
pub(super) enum Near {
    /// What OCR makes of it.
    Yes,
    /// A number with one digit read as another.
    OneDigit,
    /// Nothing like it.
    No,
}

/// The words around a block on the other side, folded once for all the words compared with
/// them. Each word's forms are ranges into shared buffers: one allocation per buffer, not
/// four per word.
pub(super) struct Around<'a> {
    /// The words joined without spaces, sequence-folded.
    joined: Vec<char>,
    words: Vec<AroundWord<'a>>,
    /// Every word sequence-folded, then every word character-folded, end to end.
    folded: Vec<char>,
    chars: Vec<char>,
    /// Every word's digits, end to end.
    skeletons: Vec<u8>,
}

/// One word around a block: its sequence-folded and character-folded forms and its digits
/// (ranges into [`Around`]'s buffers), and its bytes.
struct AroundWord<'a> {
    folded: std::ops::Range<usize>,
    chars: std::ops::Range<usize>,
    skeleton: std::ops::Range<usize>,
    bytes: &'a [u8],
}

impl AroundWord<'_> {
    fn folded<'b>(&self, a: &'b Around) -> &'b [char] {
        &a.folded[self.folded.clone()]
    }
    fn chars<'b>(&self, a: &'b Around) -> &'b [char] {
        &a.chars[self.chars.clone()]
    }
    fn skeleton<'b>(&self, a: &'b Around) -> &'b [u8] {
        &a.skeletons[self.skeleton.clone()]
    }
}

/// The digits of a token, in order.
pub(super) fn skeleton(t: &str) -> impl Iterator<Item = u8> + '_ {
    t.bytes().filter(u8::is_ascii_digit)
}

impl<'a> Around<'a> {
    pub(super) fn new(others: &[&'a str], buf: &mut Scratch) -> Around<'a> {
        let mut joined = Vec::new();
        fold_into(others, &mut joined);
        let mut a = Around {
            joined,
            words: Vec::with_capacity(others.len()),
            folded: Vec::new(),
            chars: Vec::new(),
            skeletons: Vec::new(),
        };
        for o in others {
            fold_into(&[*o], &mut buf.chars);
            let f = a.folded.len();
            a.folded.extend_from_slice(&buf.chars);
            let c = a.chars.len();
            a.chars.extend(o.chars().map(fold_char));
            let k = a.skeletons.len();
            a.skeletons.extend(skeleton(o));
            a.words.push(AroundWord {
                folded: f..a.folded.len(),
                chars: c..a.chars.len(),
                skeleton: k..a.skeletons.len(),
                bytes: o.as_bytes(),
            });
        }
        a
    }
}

/// Whether `w` is what OCR could make of one of the words `around` (or of a piece of their
/// joined, folded form): a token with digits may lose or gain one character; a word may differ
/// by about one character in four. An Indel distance is at least the difference of the
/// lengths: a word whose lengths already rule it out is not measured.
pub(super) fn near_any(w: &str, digits: bool, around: &Around, buf: &mut Scratch) -> Near {
    use rapidfuzz::distance::indel::BatchComparator;
    fold_into(&[w], &mut buf.chars);
    let fw = &buf.chars;
    // Short tokens are inside every text and one character from many others: only the same
    // token, up to OCR, is near.
    if fw.len() < 4 {
        // A number glued to a label or a unit on the other side (`weighti599kg`) is that
        // number too.
        let same = around.words.iter().any(|o| {
            o.folded(around) == fw.as_slice()
                || (digits && glued_core(o.bytes).is_some_and(|c| c == w.as_bytes()))
        });
        return if same { Near::Yes } else { Near::No };
    }
    let joined = &around.joined;
    if fw.len() <= joined.len() && joined.windows(fw.len()).any(|win| win == fw.as_slice()) {
        return Near::Yes;
    }
    // Characters folded one by one too: the sequence fold reads `ri` as `n`, which a
    // misread `1` next to an `r` also makes.
    let cw = super::folded(w);
    if digits && split_misread(&cw, around) {
        return Near::Yes;
    }
    let sw: Vec<u8> = skeleton(w).collect();
    let mut cmp: Option<(BatchComparator<char>, BatchComparator<char>)> = None;
    let mut near = Near::No;
    for o in &around.words {
        let (of, oc) = (o.folded(around), o.chars(around));
        let (fa, fb) = (fw.len(), of.len());
        let (ca, cb) = (cw.len(), oc.len());
        // Lower bounds of the two distances below.
        let (lb1, lb2) = (fa.abs_diff(fb), ca.abs_diff(cb));
        let measurable = if digits {
            lb1.min(lb2) <= 2
        } else {
            lb1 * 4 <= fa + fb || lb2 * 4 <= ca + cb
        };
        // The distance chosen as below, or None when both bounds already fail every test.
        let measured = measurable.then(|| {
            let (f, c) = cmp.get_or_insert_with(|| {
                (
                    BatchComparator::new(fw.iter().copied()),
                    BatchComparator::new(cw.iter().copied()),
                )
            });
            let d1 = f.distance(of.iter().copied());
            let d2 = c.distance(oc.iter().copied());
            if d2 < d1 {
                (d2, ca, cb)
            } else {
                (d1, fa, fb)
            }
        });
        if !digits {
            if measured.is_some_and(|(d, la, lb)| d * 4 <= la + lb) {
                return Near::Yes;
            }
            continue;
        }
        match digits_near(w, (&cw, &sw), o, around, measured) {
            Near::Yes => return Near::Yes,
            Near::OneDigit => near = Near::OneDigit,
            Near::No => {}
        }
    }
    near
}

/// How near a token with digits is to one word `o` around it, given its character-folded
/// form and digits (`cw`, `sw`) and the Indel distance `measured` (with the two lengths) by
/// [`near_any`]. An Indel distance of 1 is one character dropped or added; long tokens may
/// gain or lose two. Of one length, a digit read as a letter leaves the other digits in order;
/// a digit read as another digit is another number, or a rough scan.
fn digits_near(
    w: &str,
    (cw, sw): (&[char], &[u8]),
    o: &AroundWord,
    around: &Around,
    measured: Option<(usize, usize, usize)>,
) -> Near {
    let oc = o.chars(around);
    let same_len = w.len() == o.bytes.len();
    let os = o.skeleton(around);
    // Two characters more or fewer in a long token is OCR, unless they are zeros: an amount a
    // hundred times the other (`10000000` and `100000`).
    let zeros_apart = || {
        let not_zero = |c: &&u8| **c != b'0';
        sw.len() != os.len() && sw.iter().filter(not_zero).eq(os.iter().filter(not_zero))
    };
    if measured.is_some_and(|(d, la, lb)| {
        d <= 1 || (d == 2 && la != lb && la + lb >= 12 && !zeros_apart())
    }) || (same_len && rapidfuzz::distance::indel::distance(sw, os) <= 1)
        || long_misread(cw, oc)
    {
        return Near::Yes;
    }
    if let Some(near) = glued_near(w.as_bytes(), o.bytes) {
        return near;
    }
    let one_char =
        measured.is_some_and(|(d, la, lb)| d <= 2 && la == lb) && edits_within(cw, oc, 1).is_some();
    let one_digit = same_len
        && w.len() >= 4
        && sw.len() == os.len()
        && w.bytes().zip(o.bytes).filter(|(x, y)| x != *y).count() == 1;
    if one_char || one_digit {
        Near::OneDigit
    } else {
        Near::No
    }
}

/// Whether a long token (character-folded) is a number the other side split in two or three
/// (`18005933655` and `1800593 2655`), read with a character or two wrong: consecutive words
/// around, each with a digit, joined ([`long_misread`]). Only numbers are joined: folding
/// makes digits look like letters, so a label beside them would match too.
fn split_misread(cw: &[char], around: &Around) -> bool {
    if cw.len() < LONG_TOKEN {
        return false;
    }
    let numbers = |ws: &[AroundWord]| ws.iter().all(|o| !o.skeleton(around).is_empty());
    (2..=3).any(|n| {
        around.words.windows(n).any(|ws| {
            // `long_misread` asks lengths within two of each other: measured before joining.
            let len: usize = ws.iter().map(|o| o.chars(around).len()).sum();
            len.abs_diff(cw.len()) <= 2 && numbers(ws) && {
                let joined: Vec<char> = ws.iter().flat_map(|o| o.chars(around)).copied().collect();
                long_misread(cw, &joined)
            }
        })
    })
}

/// A word that is mostly a number: half its characters or more are digits (`17465`, `2o19`,
/// `kd1577518`), not a name with a digit (`atspi2core`).
pub(crate) fn numeric(w: &str) -> bool {
    let digits = w.bytes().filter(u8::is_ascii_digit).count();
    digits > 0 && 2 * digits >= w.len()
}

/// Whether the words of a replaced block write other numbers on its two sides: their
/// [`numeric`] words, joined, differ in a digit (`174.66` or `1746.50` for `174.65`, `1008` for
/// `1006`), not where a letter stands for the digit OCR confuses it with (`2o19` is `2019`,
/// `8161s61` is `8161561`), nor in where the words break (`20.06 2019` is `20.06.2019`).
pub(super) fn other_numbers(x: &[&str], y: &[&str]) -> bool {
    fn chars<'w>(words: &'w [&str]) -> impl Iterator<Item = char> + 'w {
        words.iter().filter(|w| numeric(w)).flat_map(|w| w.chars())
    }
    let (mut a, mut b) = (chars(x), chars(y));
    let same = |a: char, b: char| {
        a == b || (a.is_ascii_digit() != b.is_ascii_digit() && fold_char(a) == fold_char(b))
    };
    loop {
        match (a.next(), b.next()) {
            (None, None) => return false,
            (Some(p), Some(q)) if same(p, q) => {}
            _ => return true,
        }
    }
}

/// `r` and [`super::NEAR_WINDOW`] words each side, within a text of `len` words: where a
/// garbled word's counterpart may sit.
pub(super) fn widened(r: &std::ops::Range<usize>, len: usize) -> std::ops::Range<usize> {
    r.start.saturating_sub(super::NEAR_WINDOW)..(r.end + super::NEAR_WINDOW).min(len)
}

/// Words of the other side a word of a long block is compared with, each way from its place
/// scaled to the other side's length: OCR keeps a text's order, so a misread word stands near
/// where its word stood, and a block of n and m words costs about n × 5 × [`SPAN_STEP`]
/// comparisons, not n × m (two unrelated pages facing each other).
const SPAN_STEP: usize = 128;

/// The other side's words near a block, folded once ([`Around`]); for a side longer than
/// five [`SPAN_STEP`]s, only those around the place of the word asked about, folded again
/// when the place moves on by a step.
pub(super) struct NearWords<'t> {
    others: &'t [&'t str],
    /// Words on this side of the block, to scale a word's place to the other side.
    len: usize,
    /// The step the folded window stands at, and the window.
    window: Option<(usize, Around<'t>)>,
}

impl<'t> NearWords<'t> {
    pub(super) fn new(others: &'t [&'t str], len: usize) -> NearWords<'t> {
        NearWords {
            others,
            len,
            window: None,
        }
    }

    /// The words near word `i` of this side of the block, folded.
    pub(super) fn at(&mut self, i: usize, buf: &mut Scratch) -> &Around<'t> {
        let m = self.others.len();
        let windowed = m > 5 * SPAN_STEP;
        let step = if windowed {
            i * m / self.len.max(1) / SPAN_STEP
        } else {
            0
        };
        if self.window.as_ref().is_none_or(|(s, _)| *s != step) {
            let range = if windowed {
                step.saturating_sub(2) * SPAN_STEP..((step + 3) * SPAN_STEP).min(m)
            } else {
                0..m
            };
            self.window = Some((step, Around::new(&self.others[range], buf)));
        }
        &self.window.as_ref().expect("set above").1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_block_is_read_around_each_words_place() {
        // 2,000 distinct words facing a block of 1,000: word i stands where word 2i does.
        // Six letters OCR's folding confuses with none of the others, scattered by a
        // multiplicative hash: two words share few of them.
        let name = |i: usize| {
            let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let letter = |k: u32| char::from(b"bfgkpqxz"[(h >> (3 * k + 20)) as usize % 8]);
            (0..6).map(letter).collect::<String>() + "stem"
        };
        let others: Vec<String> = (0..2000).map(name).collect();
        let others: Vec<&str> = others.iter().map(String::as_str).collect();
        let mut near = NearWords::new(&others, 1000);
        let buf = &mut Scratch::default();
        let misread = |i: usize| name(i).replace("stem", "sten");
        // Misread near its place (word 1002 at place 500): OCR's.
        assert!(matches!(
            near_any(&misread(1002), false, near.at(500, buf), buf),
            Near::Yes
        ));
        // Its look-alike a page away: not read.
        assert!(matches!(
            near_any(&misread(100), false, near.at(900, buf), buf),
            Near::No
        ));
        assert!(near.at(900, buf).words.len() <= 5 * SPAN_STEP);
        // A side of five steps or fewer is read whole, wherever the word stands.
        let short = &others[..5 * SPAN_STEP];
        let mut near = NearWords::new(short, 10);
        assert_eq!(near.at(9, buf).words.len(), short.len());
        assert!(matches!(
            near_any(&misread(0), false, near.at(9, buf), buf),
            Near::Yes
        ));
    }
}
