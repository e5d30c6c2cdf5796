//! Word n-gram shingles of a normalized text, hashed to u64.

use memchr::memchr_iter;
use xxhash_rust::xxh3::xxh3_64;

/// Appends the sorted, deduplicated shingle hashes of `norm` to `out` (cleared first).
///
/// `norm` must be normalized (words separated by single spaces). A shingle is `ngram`
/// consecutive words joined by one space, hashed with xxh3-64 (seed 0) — a byte slice of
/// `norm`, so no allocation per word. A text with fewer than `ngram` words (but at least
/// one) yields one shingle of the whole text.
pub fn shingles(norm: &str, ngram: usize, out: &mut Vec<u64>) {
    assert!(ngram > 0, "ngram must be at least 1");
    out.clear();
    let bytes = norm.as_bytes();
    if bytes.is_empty() {
        return;
    }
    // starts[i] = byte offset where word i begins; ends via the next start - 1.
    let mut starts: Vec<usize> = Vec::with_capacity(bytes.len() / 5 + 1);
    starts.push(0);
    starts.extend(memchr_iter(b' ', bytes).map(|i| i + 1));
    let words = starts.len();
    if words < ngram {
        out.push(whole_text_shingle(norm));
        return;
    }
    out.reserve(words + 1 - ngram);
    for i in 0..=words - ngram {
        let end = if i + ngram < words {
            starts[i + ngram] - 1
        } else {
            bytes.len()
        };
        out.push(xxh3_64(&bytes[starts[i]..end]));
    }
    out.sort_unstable();
    out.dedup();
}

/// The single shingle of a text too short to cut: the hash of the whole normalized text.
pub fn whole_text_shingle(norm: &str) -> u64 {
    xxh3_64(norm.as_bytes())
}

/// Appends the sorted, deduplicated character n-gram hashes of `norm` to `out` (cleared
/// first): every window of `n` consecutive characters (spaces included), hashed with xxh3-64.
/// One OCR error breaks at most `n` of them, against three whole-word shingles for word
/// 3-grams, so character shingles keep noisy rescans much closer to their original.
pub fn char_shingles(norm: &str, n: usize, out: &mut Vec<u64>) {
    assert!(n > 0, "n must be at least 1");
    out.clear();
    let bytes = norm.as_bytes();
    if bytes.is_empty() {
        return;
    }
    let mut starts: Vec<usize> = norm.char_indices().map(|(i, _)| i).collect();
    let chars = starts.len();
    starts.push(bytes.len());
    if chars < n {
        out.push(whole_text_shingle(norm));
        return;
    }
    out.reserve(chars + 1 - n);
    for i in 0..=chars - n {
        out.push(xxh3_64(&bytes[starts[i]..starts[i + n]]));
    }
    out.sort_unstable();
    out.dedup();
}

/// Counts the words of a normalized text.
pub fn word_count(norm: &str) -> usize {
    if norm.is_empty() {
        0
    } else {
        memchr::memchr_iter(b' ', norm.as_bytes()).count() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(s: &str, n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        shingles(s, n, &mut out);
        out
    }

    #[test]
    fn trigrams_of_five_words() {
        let mut want = vec![xxh3_64(b"a b c"), xxh3_64(b"b c d"), xxh3_64(b"c d e")];
        want.sort_unstable();
        assert_eq!(sh("a b c d e", 3), want);
    }

    #[test]
    fn repeats_are_removed() {
        assert_eq!(sh("a b a b a b", 2).len(), 2);
    }

    #[test]
    fn short_text_is_one_shingle() {
        assert_eq!(sh("a b", 3), vec![xxh3_64(b"a b")]);
        assert!(sh("", 3).is_empty());
    }

    #[test]
    fn exactly_ngram_words() {
        assert_eq!(sh("a b c", 3), vec![xxh3_64(b"a b c")]);
    }

    #[test]
    fn character_shingles_slide_over_characters() {
        let mut out = Vec::new();
        char_shingles("äb c", 2, &mut out);
        let mut want = vec![xxh3_64("äb".as_bytes()), xxh3_64(b"b "), xxh3_64(b" c")];
        want.sort_unstable();
        assert_eq!(out, want);
        char_shingles("a", 3, &mut out);
        assert_eq!(out, vec![xxh3_64(b"a")]);
    }

    #[test]
    fn counts_words() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("a"), 1);
        assert_eq!(word_count("a bb c"), 3);
    }
}
