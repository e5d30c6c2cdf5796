//! What holding a document's side costs, estimated from its parsed line before the side is
//! built: the budget of `--text-memory` is spent by these estimates, so each one is at least
//! what the side takes on the heap ([`super::Side::heap_bytes`]), part by part.

use pl_core::evidence::Profile;

use super::{Parsed, SideOptions};

/// The bytes the side of `p` takes at most, beyond the 512 bytes of its record and map entry
/// (counted with them): its text (and sorted sample, explained words), 16 bytes per
/// distinctive token, and for the verifier its profile (4 bytes a word, 17 per distinct word,
/// 28 and 4 a byte per word holding a digit, 4 per 4 bytes of text holding a digit up to 2 a
/// byte of text, its addressee slots) and its numbers as written (24 and its length each, and
/// its sample as written).
/// [`PER_DISTINCT`] bytes for each distinct word are not in it: the caller counts them.
pub(super) fn estimate(p: &Parsed<'_>, opts: &SideOptions) -> u64 {
    let text = p.norm.len() as u64;
    // Without the verifier only the fuzzy sample is kept (4 bytes a character at most).
    let sample = text.min(4 * opts.fuzzy_sample as u64);
    let kept = if opts.verify { text } else { sample };
    let mut cost = 512 + kept + 16 * p.tokens.len() as u64;
    if opts.sort_words {
        cost += sample;
    }
    if opts.explain {
        cost += text + 24 * pl_core::shingle::word_count(&p.norm) as u64;
    }
    if !opts.verify {
        return cost;
    }
    // Ids in text order; the distinct ones are counted with the vocabulary (PER_DISTINCT).
    cost += 4 * p.hashes.len() as u64;
    let numbers = DigitWords::of(&p.norm);
    // Each number's place (8), its folded span (16) and characters (4 bytes each).
    cost += 24 * numbers.count + 4 * numbers.bytes;
    cost += (16 * numbers.digits).min(2 * text);
    cost += Profile::MAX_SLOT_BYTES as u64;
    let written = match &p.marked {
        Some(m) => {
            let sample = (m.len() as u64).min(4 * opts.fuzzy_sample as u64);
            DigitWords::of(m).written() + sample
        }
        None => numbers.written(),
    };
    cost + written
}

/// Bytes of a verified side per distinct word: its id and count, its folded form and times.
pub(super) const PER_DISTINCT: u64 = 17;

/// How many distinct ids `ids` holds, with `seen` (one bit per id, left cleared).
pub(super) fn distinct(ids: &[u32], seen: &mut Vec<u64>) -> u64 {
    let mut n = 0;
    for &id in ids {
        let (w, bit) = (id as usize / 64, 1u64 << (id % 64));
        if w >= seen.len() {
            seen.resize(w + 1, 0);
        }
        n += u64::from(seen[w] & bit == 0);
        seen[w] |= bit;
    }
    for &id in ids {
        seen[id as usize / 64] = 0;
    }
    n
}

/// The words of a text that hold a digit: how many, their bytes, their digits.
#[derive(Default)]
struct DigitWords {
    count: u64,
    bytes: u64,
    digits: u64,
}

impl DigitWords {
    fn of(text: &str) -> DigitWords {
        // One pass over the bytes: the words are those between single spaces.
        let mut d = DigitWords::default();
        let (mut len, mut digits) = (0u64, 0u64);
        for &c in text.as_bytes().iter().chain([b' '].iter()) {
            if c == b' ' {
                if digits > 0 {
                    d.count += 1;
                    d.bytes += len;
                    d.digits += digits;
                }
                (len, digits) = (0, 0);
            } else {
                len += 1;
                digits += u64::from(c.is_ascii_digit());
            }
        }
        d
    }

    /// What [`pl_core::written::Written`] holds of them at most: 24 bytes and the word each.
    fn written(&self) -> u64 {
        24 * self.count + self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_line, side};
    use super::*;
    use pl_core::verify::Vocab;

    /// Texts whose sides cost the most for their length, each part of the estimate in turn.
    fn texts() -> Vec<String> {
        let mut x: u64 = 7;
        let mut next = |n: usize, alphabet: &[u8]| -> String {
            (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(x >> 59) as usize % alphabet.len()] as char
                })
                .collect()
        };
        let short: Vec<String> = (0..3000).map(|_| next(2, b"abcdefghijklmnop")).collect();
        let codes: Vec<String> = (0..2000).map(|_| next(6, b"0123456789ab")).collect();
        let marked: Vec<String> = (0..2000)
            .map(|i| format!("{}.{},{}", i % 97, next(3, b"0123456789"), i))
            .collect();
        vec![
            "dear ms fisher invoice 4711 of 12 march 2024 amount 66870 eur".repeat(40),
            short.join(" "),
            codes.join(" "),
            marked.join(" "),
            format!("{} -12,50 eur {}", short.join(" "), marked.join(" ")),
            "gebucht 12.03.2024 bezahlt am 1.4. eingegangen ".repeat(300),
            "ä ö ü ß € ".repeat(500),
        ]
    }

    #[test]
    fn digit_words_are_the_words_the_profile_reads() {
        let mut all = texts();
        all.extend(["", " ", "a1  b22 ", "12", "x y", " 7 ", "ä1 €2"].map(String::from));
        for text in &all {
            let mut want = (0, 0, 0);
            for w in pl_core::verify::words(text) {
                let digits = w.bytes().filter(u8::is_ascii_digit).count() as u64;
                if digits > 0 {
                    want = (want.0 + 1, want.1 + w.len() as u64, want.2 + digits);
                }
            }
            let d = DigitWords::of(text);
            assert_eq!((d.count, d.bytes, d.digits), want, "{text:?}");
        }
    }

    #[test]
    fn a_side_takes_at_most_its_estimate() {
        for (verify, max_words, sort_words, explain) in [
            (true, 20_000, false, false),
            (true, 500, false, false),
            (true, 20_000, true, true),
            (false, 20_000, true, true),
            (false, 20_000, false, false),
        ] {
            let opts = SideOptions {
                verify,
                max_words,
                fuzzy_sample: 1000,
                sort_words,
                explain,
            };
            for (i, text) in texts().iter().enumerate() {
                let line = serde_json::json!({"id": i, "norm": text}).to_string();
                let mut p = parse_line(&line, &opts).unwrap();
                let mut sorted = p.hashes.clone();
                sorted.sort_unstable();
                sorted.dedup();
                let (mut ids, mut seen) = (Vec::new(), Vec::new());
                Vocab::default().add(&p.hashes, &mut ids);
                assert_eq!(distinct(&ids, &mut seen), sorted.len() as u64);
                assert!(seen.iter().all(|&w| w == 0), "left cleared");
                let estimate = estimate(&p, &opts) + PER_DISTINCT * sorted.len() as u64;
                let mut s = side(&mut p, &opts);
                if verify {
                    let mut ids = Vec::new();
                    Vocab::default().add(&p.hashes, &mut ids);
                    s.profile.set_ids(ids);
                }
                let heap = s.heap_bytes() as u64;
                assert!(
                    heap <= estimate,
                    "text {i} ({} bytes, verify {verify}, max {max_words}): takes {heap}, estimated {estimate}",
                    text.len()
                );
                if verify && !explain {
                    assert!(
                        estimate <= 4 * heap + 16384,
                        "text {i}: estimated {estimate}, takes {heap}: more than it takes, not far more"
                    );
                }
            }
        }
    }
}
