//! Text normalization: Unicode-aware lowercase, punctuation stripped, whitespace collapsed.

use xxhash_rust::xxh3::xxh3_128;

use crate::records::Fingerprint;

/// Normalizes `text` into `out` (cleared first) and returns the word count.
///
/// Letters and digits of any script are kept and lowercased (`Ä` → `ä`, `ß` stays);
/// whitespace separates words; every other character (punctuation, symbols, control
/// characters) is dropped without splitting the word, so `1.234,56` → `123456` and
/// `e-mail` → `email`. Words are joined by one ASCII space, with none at the ends.
pub fn normalize(text: &str, out: &mut String) -> usize {
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
        if c.is_alphanumeric() {
            if !in_word {
                if words > 0 {
                    buf.push(b' ');
                }
                words += 1;
                in_word = true;
            }
            if b.is_ascii() {
                buf.push(b.to_ascii_lowercase());
            } else {
                let mut utf8 = [0u8; 4];
                for l in c.to_lowercase() {
                    buf.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes());
                }
            }
        } else if c.is_whitespace() {
            in_word = false;
        }
    }
    *out = String::from_utf8(buf).expect("built from whole characters");
    words
}

/// The 128-bit fingerprint of a normalized text (xxh3-128 of its UTF-8 bytes).
pub fn fingerprint(norm: &str) -> Fingerprint {
    xxh3_128(norm.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, one character at a time: what the fast path must equal.
    fn normalize_by_chars(text: &str, out: &mut String) -> usize {
        out.clear();
        out.reserve(text.len());
        let mut words = 0;
        let mut in_word = false;
        for c in text.chars() {
            if c.is_alphanumeric() {
                if !in_word {
                    if words > 0 {
                        out.push(' ');
                    }
                    words += 1;
                    in_word = true;
                }
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.extend(c.to_lowercase());
                }
            } else if c.is_whitespace() {
                in_word = false;
            }
        }
        words
    }

    proptest::proptest! {
        #[test]
        fn the_fast_path_is_the_definition(text in "(\\PC|[ \\t\\n\\r\\x0b\\x0c.,ÄØßİẞ\u{85}\u{a0}a-zA-Z0-9])*") {
            let (mut fast, mut slow) = (String::from("stale"), String::new());
            let n = normalize(&text, &mut fast);
            proptest::prop_assert_eq!(n, normalize_by_chars(&text, &mut slow));
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    fn norm(s: &str) -> (String, usize) {
        let mut out = String::new();
        let n = normalize(s, &mut out);
        (out, n)
    }

    #[test]
    fn lowercases_and_strips_punctuation() {
        assert_eq!(norm("Hello, World!"), ("hello world".into(), 2));
    }

    #[test]
    fn keeps_letters_of_other_scripts() {
        assert_eq!(
            norm("ÄRGER über Straße, café; Øre"),
            ("ärger über straße café øre".into(), 5)
        );
    }

    #[test]
    fn collapses_whitespace_and_trims() {
        assert_eq!(norm("  a \t\n b\r\n\nc  "), ("a b c".into(), 3));
    }

    #[test]
    fn punctuation_inside_a_word_joins_it() {
        assert_eq!(norm("1.234,56 EUR e-mail"), ("123456 eur email".into(), 3));
    }

    #[test]
    fn punctuation_only_is_empty() {
        assert_eq!(norm(" -- !! "), (String::new(), 0));
    }

    #[test]
    fn fingerprint_depends_on_text() {
        assert_ne!(fingerprint("a b"), fingerprint("a c"));
        assert_eq!(fingerprint("a b"), fingerprint("a b"));
    }
}
