//! Text normalization: Unicode NFC, lowercase, decimal digits of every script read as ASCII
//! digits, numbers kept with their sign and inner separators, other punctuation stripped,
//! whitespace collapsed.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use xxhash_rust::xxh3::Xxh3;

use crate::records::Fingerprint;

/// Normalizes `text` into `out` (cleared first) and returns the word count.
///
/// The text is first brought to Unicode NFC (canonical composition: `u` + U+0308 is `ü`;
/// compatibility forms such as `²` or `ﬁ` stay what they are). Then, character by character:
///
/// - a decimal digit of any script (Unicode category Nd: Arabic-Indic `١`, Devanagari `१`,
///   fullwidth `１`) is written as its ASCII digit;
/// - letters and other numeric characters (`²`, `½`) are kept and lowercased (`Ä` → `ä`,
///   `ß` stays); a combining mark NFC left (no precomposed form) is kept inside a word;
/// - a number's inner separators are kept: `.`, `,`, `/`, `:` or a dash (any dash, U+2212
///   minus included, written `-`) between two digits, the Arabic decimal and thousands
///   separators U+066B and U+066C as `.` and `,`, the fraction slashes U+2044 and U+2215 as
///   `/`, the fullwidth `．`, `，`, `／` and `：` as their ASCII forms; so `174.65`, `1746.5`,
///   `1/12/2024` and `11/2/2024` stay four different numbers;
/// - a dash (or U+2212) that starts a word and is followed by a digit or a unit is a minus
///   sign, written `-` (`-174.65`, `-$174.65`), and so is one after a unit or `(` and before a
///   digit (`$-174.65`), one right after an amount's two decimals at a word's end (`174,65-`,
///   a bank statement's debit) and one standing alone before an amount with its cents, after
///   a word without digits (`Saldo - 5,00` is `saldo -5,00`); a dash inside a word of letters
///   joins it (`e-mail` → `email`);
/// - a unit is kept as written: a currency symbol (Unicode category Sc: `$`, `€`, `£`, `¥`)
///   or a percent or per-mille sign (`%`, `‰`, `‱`, fullwidth `％`); a word of units and
///   signs alone (`1.250,00 €`, `€ 5`, `5 %`) is joined to the number before it (one that
///   opens a value, `(€ 5`, to the number after it), else to the number after it, else
///   dropped; so `$174.65`, `€174.65` and `174.65%` stay three values;
/// - `(` before a digit, a unit or a dash, and `)` after a digit or a unit, are kept
///   (`($174.65)`, an accountant's negative amount);
/// - a comparison (`<`, `>`, `~`, `≤`, `≥`, `≈`, `±`) before a number is kept, standing alone
///   too, joined to the number after it (`< 5` is `<5`): a lab value under or over a limit;
/// - a `+` that ends a word after a letter or a digit is kept (`A+` and `A-` are two blood
///   groups or grades, `18+`, `C++`); another `+` is dropped (`+49`, `5+3`);
/// - a form's box is a word of its own, `☐` when empty (`☐`, `□`) and `☒` when ticked or
///   crossed (`☑`, `☒`, `✓`, `✔`, `✗`, `✘`, `⊠`, `■`): `☒ Ja ☐ Nein` and `☐ Ja ☒ Nein` are
///   two texts;
/// - whitespace separates words; every other character (other punctuation, `+`, other
///   symbols, control characters) is dropped without splitting the word.
///
/// Words are joined by one ASCII space, with none at the ends. The similarity stages read
/// the text without its numbers' signs, separators, units, comparisons and brackets
/// ([`digits_view`]).
pub fn normalize(text: &str, out: &mut String) -> usize {
    normalize_composed(&nfc(text), out)
}

/// [`normalize`] and the document's [`fingerprint`], the text brought to NFC once for both.
pub fn normalize_with_fingerprint(text: &str, out: &mut String) -> (usize, Fingerprint) {
    let text = nfc(text);
    let words = normalize_composed(&text, out);
    (words, fingerprint_composed(&text, out))
}

/// [`normalize`] of a text already in NFC.
fn normalize_composed(text: &str, out: &mut String) -> usize {
    // An ASCII byte is its own character and is lowercased in place; only the other characters
    // are decoded (most OCR text is ASCII, and decoding every character was most of the time).
    let mut buf = std::mem::take(out).into_bytes();
    buf.clear();
    buf.reserve(text.len());
    let bytes = text.as_bytes();
    let mut words = 0;
    let mut in_word = false;
    // Whether the word being written has a letter or a digit, and whether a word of units
    // and signs alone was written (joined to a number or dropped at the end).
    let (mut word_has_alnum, mut marks_only) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let c = if b.is_ascii() {
            b as char
        } else {
            text[i..].chars().next().expect("a char boundary")
        };
        i += c.len_utf8();
        let class = class(c);
        if class == Class::Space {
            marks_only |= in_word && !word_has_alnum;
            in_word = false;
            continue;
        }
        if let Class::Tick(tick) = class {
            // A box, ticked or not, is a word of its own: `☒ Ja ☐ Nein`, `☐Ja ☒Nein`.
            marks_only |= in_word && !word_has_alnum;
            if words > 0 {
                buf.push(b' ');
            }
            words += 1;
            buf.extend_from_slice(tick.encode_utf8(&mut [0u8; 4]).as_bytes());
            in_word = false;
            continue;
        }
        let Some(kept) = kept((c, class), (text, i), &buf, in_word, word_has_alnum) else {
            continue;
        };
        if !in_word {
            if words > 0 {
                buf.push(b' ');
            }
            words += 1;
            in_word = true;
            word_has_alnum = false;
        }
        word_has_alnum |= matches!(kept, Kept::Byte(b'0'..=b'9') | Kept::Lower(_));
        let mut utf8 = [0u8; 4];
        match kept {
            Kept::Byte(b) => buf.push(b),
            Kept::Char(c) => buf.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes()),
            Kept::Lower(c) if c.is_ascii() => buf.push(c.to_ascii_lowercase() as u8),
            Kept::Lower(c) => {
                for l in c.to_lowercase() {
                    buf.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes());
                }
            }
        }
    }
    marks_only |= in_word && !word_has_alnum;
    if marks_only {
        let joined = join_marks(std::str::from_utf8(&buf).expect("built from whole characters"));
        words = joined.1;
        buf = joined.0.into_bytes();
    }
    *out = String::from_utf8(buf).expect("built from whole characters");
    words
}

/// What is written of `c` (of class `class`), whose next character starts at byte `i` of
/// `text`, after the text written so far (`buf`; `in_word`: its last word goes on, `alnum`:
/// that word has a letter or a digit): `None` drops it. Whitespace is the caller's.
#[inline]
fn kept(
    (c, class): (char, Class),
    (text, i): (&str, usize),
    buf: &[u8],
    in_word: bool,
    alnum: bool,
) -> Option<Kept> {
    Some(match class {
        Class::Space | Class::Other => return None,
        // After a letter or a digit only: never a word of marks.
        Class::Mark if !(in_word && alnum) => return None,
        Class::Mark => Kept::Char(c),
        Class::Tick(tick) => Kept::Char(tick),
        Class::Digit(d) => Kept::Byte(d),
        Class::Alnum => Kept::Lower(c),
        Class::Unit => Kept::Char(c),
        // Standing alone too (`< 5`): its number is after the space.
        Class::Relation if opens(text[i..].trim_start()) => Kept::Char(c),
        Class::Relation => return None,
        Class::Open if opens(&text[i..]) => Kept::Byte(b'('),
        Class::Close if in_word && closes(buf) => Kept::Byte(b')'),
        Class::Open | Class::Close => return None,
        Class::Sep(s) | Class::Dash(s) if in_word => {
            let after_digit = buf.last().is_some_and(u8::is_ascii_digit);
            let separates = after_digit && digit_at(text, i);
            let dash = matches!(class, Class::Dash(_));
            let sign = dash && (signs_inside(buf, text, i) || debit_at(buf, text, i));
            if !(separates || sign) {
                return None;
            }
            Kept::Byte(s)
        }
        Class::Sep(_) => return None,
        // At a word's end: `A+` (a blood group, a grade), `18+`, `C++`.
        Class::Plus if in_word && alnum && !alnum_at(text, i) => Kept::Byte(b'+'),
        Class::Plus => return None,
        Class::Dash(s) if digit_at(text, i) || unit_at(text, i) || minus_alone(buf, text, i) => {
            Kept::Byte(s)
        }
        Class::Dash(_) => return None,
    })
}

/// What normalization makes of one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A decimal digit, as its ASCII byte.
    Digit(u8),
    /// A letter or another numeric character: kept, lowercased.
    Alnum,
    /// A combining mark: kept inside a word.
    Mark,
    /// Whitespace: ends a word.
    Space,
    /// A separator kept between two digits, as its ASCII byte.
    Sep(u8),
    /// A dash: a separator between two digits, a minus sign before one at a word's start.
    Dash(u8),
    /// A currency symbol or a percent sign: kept, it tells one value from another.
    Unit,
    /// `(`: kept before a number.
    Open,
    /// `)`: kept after a number.
    Close,
    /// A comparison (`<`, `≥`, `~`, `±`): kept before a number (`<5`, `< 5`), a lab value's
    /// side of a limit.
    Relation,
    /// A form's box, as its word: `☐` empty, `☒` ticked (every tick and cross).
    Tick(char),
    /// `+`: kept at the end of a word (`A+`, `18+`).
    Plus,
    /// Anything else: dropped.
    Other,
}

/// What is written for a character kept.
enum Kept {
    Byte(u8),
    Char(char),
    Lower(char),
}

/// The class of one character.
#[inline(always)]
fn class(c: char) -> Class {
    if c.is_ascii() {
        let b = c as u8;
        return match b {
            b'0'..=b'9' => Class::Digit(b),
            b'.' | b',' | b'/' | b':' => Class::Sep(b),
            b'-' => Class::Dash(b'-'),
            b'$' | b'%' => Class::Unit,
            b'+' => Class::Plus,
            b'(' => Class::Open,
            b'<' | b'>' | b'~' => Class::Relation,
            b')' => Class::Close,
            _ if b.is_ascii_alphabetic() => Class::Alnum,
            _ if c.is_whitespace() => Class::Space,
            _ => Class::Other,
        };
    }
    class_beyond_ascii(c)
}

/// [`class`] of a character outside ASCII.
fn class_beyond_ascii(c: char) -> Class {
    if c.is_whitespace() {
        return Class::Space;
    }
    if let Some(d) = decimal_digit(c) {
        return Class::Digit(b'0' + d);
    }
    if c.is_alphanumeric() {
        return Class::Alnum;
    }
    match c {
        '\u{066B}' | '\u{FF0E}' => return Class::Sep(b'.'),
        '\u{066C}' | '\u{FF0C}' => return Class::Sep(b','),
        '\u{2044}' | '\u{2215}' | '\u{FF0F}' => return Class::Sep(b'/'),
        '\u{FF1A}' => return Class::Sep(b':'),
        '\u{2212}' => return Class::Dash(b'-'),
        _ if is_percent(c) => return Class::Unit,
        '\u{2610}' | '\u{25A1}' => return Class::Tick('☐'),
        '\u{2611}' | '\u{2612}' | '\u{2713}' | '\u{2714}' | '\u{2717}' | '\u{2718}'
        | '\u{22A0}' | '\u{25A0}' => return Class::Tick('☒'),
        _ if is_relation(c) => return Class::Relation,
        _ => {}
    }
    match c.general_category() {
        GeneralCategory::NonspacingMark
        | GeneralCategory::SpacingMark
        | GeneralCategory::EnclosingMark => Class::Mark,
        GeneralCategory::DashPunctuation => Class::Dash(b'-'),
        GeneralCategory::CurrencySymbol => Class::Unit,
        _ => Class::Other,
    }
}

/// Whether the character starting at byte `i` of `text` (if any) is a decimal digit.
fn digit_at(text: &str, i: usize) -> bool {
    match text.as_bytes().get(i) {
        None => false,
        Some(b) if b.is_ascii() => b.is_ascii_digit(),
        Some(_) => text[i..]
            .chars()
            .next()
            .is_some_and(|c| decimal_digit(c).is_some()),
    }
}

/// Whether the character starting at byte `i` of `text` (if any) is a letter or a digit.
fn alnum_at(text: &str, i: usize) -> bool {
    text[i..].chars().next().is_some_and(char::is_alphanumeric)
}

/// Whether the character starting at byte `i` of `text` (if any) is a unit.
fn unit_at(text: &str, i: usize) -> bool {
    text[i..]
        .chars()
        .next()
        .is_some_and(|c| class(c) == Class::Unit)
}

/// Whether a `(` or a comparison before `rest` opens a number: a digit, a unit or a dash
/// follows it.
fn opens(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_some_and(|c| matches!(class(c), Class::Digit(_) | Class::Unit | Class::Dash(_)))
}

/// Whether a `)` closes a number: the word written so far (`buf`'s end) ends with a digit or
/// a unit.
fn closes(buf: &[u8]) -> bool {
    last_char(buf).is_some_and(|c| c.is_ascii_digit() || class(c) == Class::Unit)
}

/// The last character of `buf` (whole UTF-8 characters).
fn last_char(buf: &[u8]) -> Option<char> {
    let from = buf.len().saturating_sub(4);
    let tail = &buf[from..];
    (0..tail.len())
        .find_map(|k| std::str::from_utf8(&tail[k..]).ok())
        .and_then(|s| s.chars().last())
}

/// Whether a dash inside a word, before the character at byte `i`, is a minus sign after a
/// unit, a comparison or `(` (`$-5`, `(-5)`, `<-5`): a digit follows and the word so far has
/// no letter or digit.
fn signs_inside(buf: &[u8], text: &str, i: usize) -> bool {
    let word = &buf[buf.iter().rposition(|&b| b == b' ').map_or(0, |k| k + 1)..];
    digit_at(text, i)
        && !word.is_empty()
        && std::str::from_utf8(word).is_ok_and(|w| {
            w.chars()
                .all(|c| matches!(class(c), Class::Open | Class::Unit | Class::Relation))
        })
}

/// Whether a dash standing alone, before the character at byte `i` (a space), is the minus
/// sign of the amount after it (`Saldo - 5,00`, `- € 1.250,00`; joined to it, `-5,00`): the
/// next word, units before it aside, starts with an amount with its cents, and the word
/// before the dash holds no digit (`100,00 - 5,00` is a sum, `3 - 5` a range). A dash before
/// any other word is punctuation, a bullet before a quantity too (`- 3 Flaschen`).
fn minus_alone(buf: &[u8], text: &str, i: usize) -> bool {
    let rest = &text[i..];
    if !rest.starts_with(char::is_whitespace) {
        return false;
    }
    let last_word = &buf[buf.iter().rposition(|&b| b == b' ').map_or(0, |k| k + 1)..];
    if last_word.iter().any(u8::is_ascii_digit) {
        return false;
    }
    let unit = |c: char| class(c) == Class::Unit;
    let next = rest
        .split(char::is_whitespace)
        .map(|w| w.trim_start_matches(unit))
        .find(|w| !w.is_empty())
        .unwrap_or("");
    // Its digits and separators, up to what ends the sentence (`5,00.`).
    let number = next
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map_or(next, |end| &next[..end])
        .trim_end_matches(['.', ',']);
    number.starts_with(|c: char| c.is_ascii_digit()) && ends_in_cents(number.as_bytes())
}

/// Whether a dash inside a word, before the character at byte `i`, is a debit's minus sign
/// written after the amount (`174,65-`): the word ends with a separator and two digits, and
/// the dash ends the word.
fn debit_at(buf: &[u8], text: &str, i: usize) -> bool {
    let ends_word = text[i..]
        .chars()
        .next()
        .is_none_or(|c| matches!(class(c), Class::Space | Class::Close));
    ends_word && ends_in_cents(buf)
}

/// Whether a number (its bytes as written) ends in a separator and two digits: an amount's
/// cents.
pub fn ends_in_cents(b: &[u8]) -> bool {
    b.len() >= 3
        && matches!(b[b.len() - 3], b'.' | b',')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
}

/// Whether a character is a form's box as normalization writes it (`☐` empty, `☒` ticked).
pub fn is_tick(c: char) -> bool {
    matches!(c, '☐' | '☒')
}

/// Whether a unit is a percent or per-mille sign, not a currency.
pub fn is_percent(c: char) -> bool {
    matches!(c, '%' | '\u{2030}' | '\u{2031}' | '\u{FF05}' | '\u{FE6A}')
}

/// Joins each word of units and signs alone (no letter or digit: `€`, `%`, `-€`) to the
/// number before it (a word holding a digit), else to the number after it, else drops it;
/// one that opens a value (`(€`, `-€`, `<`) joins the number after it. Returns the text and its
/// word count.
pub(crate) fn join_marks(norm: &str) -> (String, usize) {
    let has_digit = |w: &str| w.bytes().any(|b| b.is_ascii_digit());
    let marks_only = |w: &str| !w.chars().any(|c| c.is_alphanumeric() || is_tick(c));
    let mut out = String::with_capacity(norm.len());
    let mut words = 0;
    // Marks waiting for the number after them; whether the last word written holds a digit.
    let (mut carry, mut last_digit) = (String::new(), false);
    for w in norm.split(' ') {
        if !marks_only(w) {
            if words > 0 {
                out.push(' ');
            }
            last_digit = has_digit(w);
            // Marks carried to a word without a digit are no number's: dropped.
            if last_digit {
                out.push_str(&carry);
            }
            carry.clear();
            out.push_str(w);
            words += 1;
        } else if carry.is_empty() && !opens_value(w) && last_digit {
            out.push_str(w);
        } else {
            carry.push_str(w);
        }
    }
    (out, words)
}

/// The value of a decimal digit of any script (Unicode general category Nd), `None` for any
/// other character. Unicode assigns decimal digits only in runs of ten consecutive code
/// points, 0 to 9 in order (a stability guarantee), so a digit's value is its distance from
/// the start of its block of consecutive digits, modulo 10.
pub fn decimal_digit(c: char) -> Option<u8> {
    if c.is_ascii() {
        return c.is_ascii_digit().then(|| c as u8 - b'0');
    }
    let nd = |c: char| c.is_numeric() && c.general_category() == GeneralCategory::DecimalNumber;
    if !nd(c) {
        return None;
    }
    let mut start = c as u32;
    while let Some(p) = start.checked_sub(1).and_then(char::from_u32) {
        if !nd(p) {
            break;
        }
        start -= 1;
    }
    Some(((c as u32 - start) % 10) as u8)
}

/// The text the similarity stages read (shingles, the fuzzy sample, the verifier's words, the
/// ledger's numbers, the distinctive tokens): the normalized text without its numbers'
/// signs, separators, units, comparisons and brackets and its words' final `+` (`-174.65`
/// and `($174.65)` are read `17465`, `<5` is `5`), as
/// normalization wrote numbers before it kept them. OCR reads `.` for `,` or `:`, drops a
/// separator, a minus sign or a currency symbol; the fingerprint (exact copies) and
/// [`crate::written`] read the normalized text itself. Borrowed when the text has none.
pub fn digits_view(norm: &str) -> Cow<'_, str> {
    let Some(first) = next_mark(norm, 0) else {
        return Cow::Borrowed(norm);
    };
    let bytes = norm.as_bytes();
    let mut plain = Vec::with_capacity(bytes.len());
    // Copied a run of characters at a time, between the marks.
    let (mut kept, mut mark) = (0, Some(first));
    while let Some(i) = mark {
        plain.extend_from_slice(&bytes[kept..i]);
        kept = i + norm[i..].chars().next().map_or(1, char::len_utf8);
        mark = next_mark(norm, kept);
    }
    plain.extend_from_slice(&bytes[kept..]);
    Cow::Owned(String::from_utf8(plain).expect("whole characters removed"))
}

/// The byte offset of the first [`is_mark`] character of `norm` from byte `i` (a character
/// boundary): ASCII read as bytes, continuation bytes and the lead bytes of Latin letters
/// (`ä`, `ß`, up to U+024F: no unit, no comparison) skipped, only the rest decoded.
fn next_mark(norm: &str, from: usize) -> Option<usize> {
    let bytes = norm.as_bytes();
    (from..bytes.len()).find(|&i| match bytes[i] {
        b if b.is_ascii() => ASCII_MARKS[b as usize],
        0x80..=0xBF | 0xC3..=0xC9 => false,
        _ => is_mark(norm[i..].chars().next().expect("a char boundary")),
    })
}

/// Whether a word of marks alone opens a value: it starts with `(`, a dash or a comparison.
fn opens_value(w: &str) -> bool {
    w.starts_with(['(', '-']) || w.chars().next().is_some_and(is_relation)
}

/// A character of a normalized text that [`digits_view`] does not read: a number's sign,
/// separator, unit, comparison or bracket, a word's final `+`.
pub fn is_mark(c: char) -> bool {
    if c.is_ascii() {
        is_ascii_mark(c as u8)
    } else {
        is_unit(c) || is_relation(c)
    }
}

/// [`is_mark`] of an ASCII byte.
fn is_ascii_mark(b: u8) -> bool {
    ASCII_MARKS.get(b as usize).copied().unwrap_or(false)
}

/// The ASCII marks, by byte.
const ASCII_MARKS: [bool; 128] = {
    let mut marks = [false; 128];
    let mut i = 0;
    let list = b".,/:-+()$%<>~";
    while i < list.len() {
        marks[list[i] as usize] = true;
        i += 1;
    }
    marks
};

/// Whether a character is a comparison a value is written with (`<5`, `≥ 10`, `~3`, `±0.5`).
pub fn is_relation(c: char) -> bool {
    matches!(
        c,
        '<' | '>' | '~' | '≤' | '≥' | '≦' | '≧' | '≈' | '±' | '∓' | '＜' | '＞'
    )
}

/// Whether a character is a unit: a currency symbol or a percent or per-mille sign (what
/// [`class`] reads as one, letters ruled out first: most characters beyond ASCII are).
pub fn is_unit(c: char) -> bool {
    match c {
        '$' | '%' => true,
        // ASCII, and the Latin letters (`ä`, `ß`) most texts beyond ASCII hold.
        _ if (c as u32) < 0x250 && !matches!(c, '\u{A2}'..='\u{A5}') => false,
        _ if c.is_alphanumeric() => false,
        _ => class_beyond_ascii(c) == Class::Unit,
    }
}

/// `text` in Unicode NFC, borrowed when it is (most text is ASCII).
fn nfc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfc().collect())
    }
}

/// The 128-bit fingerprint of a document: xxh3-128 of its normalized text and of its text as
/// written, its words (runs without white space, in NFC) joined by one space. Equal
/// fingerprints are an exact copy: the same words with the same marks, spaced and broken into
/// lines as may be.
/// Normalization drops marks that can make another document (`A-` for `A`, a dot in an
/// e-mail address, `2×3` for `23`): texts it reads alike but written otherwise are two texts,
/// weighed as any pair is. `norm` is `text`'s normalized text ([`normalize`]); a record with
/// no text as written passes its `norm` twice.
pub fn fingerprint(text: &str, norm: &str) -> Fingerprint {
    fingerprint_composed(&nfc(text), norm)
}

/// [`fingerprint`] of a text already in NFC.
fn fingerprint_composed(text: &str, norm: &str) -> Fingerprint {
    let mut h = Xxh3::new();
    h.update(norm.as_bytes());
    // Not in any UTF-8 text: the normalized text ends here.
    h.update(&[0xff]);
    // The words joined by one space, as `split_whitespace` cuts them: hashed a run at a
    // time, a run ending only where white space other than one ASCII space stands (a call
    // to hash each word cost more than hashing the bytes). Trimmed: a space is never last.
    let text = text.trim();
    let bytes = text.as_bytes();
    let (mut run, mut i) = (0, 0);
    while i < bytes.len() {
        let (white, len) = match bytes[i] {
            b if b.is_ascii() => (char::from(b).is_whitespace(), 1),
            _ => {
                let c = text[i..].chars().next().expect("i is at a character");
                (c.is_whitespace(), c.len_utf8())
            }
        };
        if !white {
            i += len;
            continue;
        }
        let end = i;
        i += len;
        while let Some(c) = text[i..].chars().next().filter(|c| c.is_whitespace()) {
            i += c.len_utf8();
        }
        if i - end > 1 || bytes[end] != b' ' {
            h.update(&bytes[run..end]);
            h.update(b" ");
            run = i;
        }
    }
    h.update(&bytes[run..]);
    h.digest128()
}

#[cfg(test)]
mod tests;
