//! Text normalization: Unicode NFC, lowercase, decimal digits of every script read as ASCII
//! digits, numbers kept with their sign and inner separators, other punctuation stripped,
//! whitespace collapsed.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use xxhash_rust::xxh3::xxh3_128;

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
///   `/`, the fullwidth `．`, `，`, `／` and `：` as their ASCII forms; so `174.65`, `1746.5`, `1/12/2024` and `11/2/2024` stay four different numbers;
/// - a dash (or U+2212) that starts a word and is followed by a digit is a minus sign,
///   written `-` (`-174.65`); a dash inside a word of letters joins it (`e-mail` → `email`);
/// - whitespace separates words; every other character (other punctuation, `+`, `%`,
///   currency and other symbols, control characters) is dropped without splitting the word.
///
/// Words are joined by one ASCII space, with none at the ends.
pub fn normalize(text: &str, out: &mut String) -> usize {
    let composed;
    let text = if text.is_ascii() || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        text
    } else {
        composed = text.nfc().collect::<String>();
        composed.as_str()
    };
    // An ASCII byte is its own character and is lowercased in place; only the other characters
    // are decoded (most OCR text is ASCII, and decoding every character was most of the time).
    let mut buf = std::mem::take(out).into_bytes();
    buf.clear();
    buf.reserve(text.len());
    let bytes = text.as_bytes();
    let mut words = 0;
    let mut in_word = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let c = if b.is_ascii() {
            b as char
        } else {
            text[i..].chars().next().expect("a char boundary")
        };
        i += c.len_utf8();
        let kept = match class(c) {
            Class::Space => {
                in_word = false;
                continue;
            }
            Class::Other => continue,
            Class::Mark if !in_word => continue,
            Class::Mark => Kept::Char(c),
            Class::Digit(d) => Kept::Byte(d),
            Class::Alnum => Kept::Lower(c),
            Class::Sep(s) | Class::Dash(s) if in_word => {
                if !(buf.last().is_some_and(u8::is_ascii_digit) && digit_at(text, i)) {
                    continue;
                }
                Kept::Byte(s)
            }
            Class::Sep(_) => continue,
            Class::Dash(s) => {
                if !digit_at(text, i) {
                    continue;
                }
                Kept::Byte(s)
            }
        };
        if !in_word {
            if words > 0 {
                buf.push(b' ');
            }
            words += 1;
            in_word = true;
        }
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
    *out = String::from_utf8(buf).expect("built from whole characters");
    words
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
fn class(c: char) -> Class {
    if c.is_ascii() {
        let b = c as u8;
        return match b {
            b'0'..=b'9' => Class::Digit(b),
            b'.' | b',' | b'/' | b':' => Class::Sep(b),
            b'-' => Class::Dash(b'-'),
            _ if b.is_ascii_alphabetic() => Class::Alnum,
            _ if c.is_whitespace() => Class::Space,
            _ => Class::Other,
        };
    }
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
        _ => {}
    }
    match c.general_category() {
        GeneralCategory::NonspacingMark
        | GeneralCategory::SpacingMark
        | GeneralCategory::EnclosingMark => Class::Mark,
        GeneralCategory::DashPunctuation => Class::Dash(b'-'),
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
/// ledger's numbers, the distinctive tokens): the normalized text without its numbers' signs
/// and separators (`-174.65` is read `17465`), as normalization wrote numbers before it kept
/// them. OCR reads `.` for `,` or `:`, drops a separator or a minus sign; the fingerprint
/// (exact copies) and [`crate::written`] read the normalized text itself. Borrowed when the
/// text has none.
pub fn digits_view(norm: &str) -> Cow<'_, str> {
    let marks = |b: &u8| matches!(b, b'.' | b',' | b'/' | b':' | b'-');
    if !norm.as_bytes().iter().any(marks) {
        return Cow::Borrowed(norm);
    }
    let plain: Vec<u8> = norm.bytes().filter(|b| !marks(b)).collect();
    Cow::Owned(String::from_utf8(plain).expect("only ASCII bytes removed"))
}

/// The 128-bit fingerprint of a normalized text (xxh3-128 of its UTF-8 bytes).
pub fn fingerprint(norm: &str) -> Fingerprint {
    xxh3_128(norm.as_bytes())
}

#[cfg(test)]
mod tests;
