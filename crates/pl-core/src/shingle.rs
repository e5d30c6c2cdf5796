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
    shingles_with(norm, ngram, &mut Vec::new(), out);
}

/// [`shingles`] with a caller's buffer for the word offsets, so a loop over documents
/// allocates nothing once the buffers have grown.
pub fn shingles_with(norm: &str, ngram: usize, starts: &mut Vec<usize>, out: &mut Vec<u64>) {
    assert!(ngram > 0, "ngram must be at least 1");
    out.clear();
    let bytes = norm.as_bytes();
    if bytes.is_empty() {
        return;
    }
    // starts[i] = byte offset where word i begins; ends via the next start - 1.
    starts.clear();
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
    char_shingles_with(norm, n, &mut Vec::new(), out);
}

/// [`char_shingles`] with a caller's buffer for the character offsets.
pub fn char_shingles_with(norm: &str, n: usize, starts: &mut Vec<usize>, out: &mut Vec<u64>) {
    assert!(n > 0, "n must be at least 1");
    out.clear();
    let bytes = norm.as_bytes();
    if bytes.is_empty() {
        return;
    }
    starts.clear();
    starts.extend(norm.char_indices().map(|(i, _)| i));
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

/// What a shingle is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `ngram` words joined by one space ([`shingles`]).
    Words,
    /// `ngram` consecutive characters ([`char_shingles`]).
    Chars,
}

/// What becomes of a document with fewer than `min_words` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Short {
    /// One shingle of its whole text ([`whole_text_shingle`]): only exact copies match.
    Whole,
    /// Left out.
    Skip,
}

/// Default shingle unit: characters, which OCR damage spares far better than words (one
/// misread character breaks n word n-grams but only n character n-grams of one word).
pub const DEFAULT_UNIT: Unit = Unit::Chars;
/// Default units per shingle.
pub const DEFAULT_NGRAM: usize = 5;

/// The shingle sizes `--ngram` may take.
pub const NGRAM_RANGE: std::ops::RangeInclusive<usize> = 1..=64;
/// Default least words for a document to be shingled rather than taken whole.
pub const DEFAULT_MIN_WORDS: usize = 20;

/// How documents are cut into shingles: pl-shingle's parameters, and pl-minhash's when it
/// reads normalized documents itself. One implementation, so both give the same sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShingleConfig {
    /// Words (or characters) per shingle, at least 1.
    pub ngram: usize,
    /// Words or characters.
    pub unit: Unit,
    /// What becomes of short documents.
    pub short: Short,
    /// Documents with fewer words are short.
    pub min_words: usize,
    /// Which words are shingled: the whole text, or its first or last `part_words`.
    pub part: crate::stream::Part,
    /// Words of a head or tail part.
    pub part_words: usize,
}

/// Buffers reused from one document to the next: [`ShingleConfig::shingle`] allocates
/// nothing once they have grown to the largest document.
#[derive(Debug, Default, Clone)]
pub struct Shingler {
    starts: Vec<usize>,
    /// The shingle hashes of the last document shingled, sorted, without repeats.
    pub hashes: Vec<u64>,
}

impl ShingleConfig {
    /// The `shingle_hash` number a stream header records for this unit.
    pub fn shingle_hash(&self) -> u32 {
        match self.unit {
            Unit::Words => crate::stream::SHINGLE_HASH_XXH3,
            Unit::Chars => crate::stream::SHINGLE_HASH_CHARS_XXH3,
        }
    }

    /// The header parameters of a shingle stream made with this configuration.
    pub fn stream_params(&self) -> crate::stream::Params {
        crate::stream::Params {
            ngram: self.ngram as u32,
            min_words: self.min_words as u32,
            shingle_hash: self.shingle_hash(),
            perms: 0,
            scheme: 0,
            seed: 0,
            part: self.part,
        }
    }

    /// Cuts one normalized text's digits view ([`crate::normalize::digits_view`]) into
    /// `sh.hashes`. `None`: the document is left out (short
    /// with [`Short::Skip`], or empty); `Some(short)`: shingled, `short` when it fell under
    /// `min_words` and became one whole-text shingle.
    pub fn shingle(&self, norm: &str, sh: &mut Shingler) -> Option<bool> {
        sh.hashes.clear();
        let plain = crate::normalize::digits_view(norm);
        let norm = self.part_of(&plain)?;
        let short = word_count(norm) < self.min_words;
        if short && (self.short == Short::Skip || norm.is_empty()) {
            return None;
        }
        match (short, self.unit) {
            (true, _) => sh.hashes.push(whole_text_shingle(norm)),
            (false, Unit::Words) => shingles_with(norm, self.ngram, &mut sh.starts, &mut sh.hashes),
            (false, Unit::Chars) => {
                char_shingles_with(norm, self.ngram, &mut sh.starts, &mut sh.hashes)
            }
        }
        Some(short)
    }
}

impl ShingleConfig {
    /// The words of `norm` this configuration shingles, or `None` when a head or tail part
    /// is asked of a text that is not half again as long as the part (its whole-text sketch
    /// already is one of its edges).
    pub fn part_of<'t>(&self, norm: &'t str) -> Option<&'t str> {
        use crate::stream::Part;
        let n = self.part_words;
        if self.part == Part::Whole {
            return Some(norm);
        }
        let words = word_count(norm);
        if n == 0 || 2 * words <= 3 * n {
            return None;
        }
        let mut spaces = memchr_iter(b' ', norm.as_bytes());
        Some(match self.part {
            Part::Head => &norm[..spaces.nth(n - 1).expect("more than n words")],
            _ => &norm[spaces.nth(words - n - 1).expect("more than n words") + 1..],
        })
    }
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

    fn config(unit: Unit, short: Short) -> ShingleConfig {
        ShingleConfig {
            part: crate::stream::Part::Whole,
            part_words: 0,
            ngram: 2,
            unit,
            short,
            min_words: 3,
        }
    }

    #[test]
    fn config_cuts_like_the_plain_functions() {
        let mut sh = Shingler::default();
        let c = config(Unit::Words, Short::Whole);
        assert_eq!(c.shingle("a b c d", &mut sh), Some(false));
        assert_eq!(sh.hashes, self::sh("a b c d", 2));
        // The buffers are reused: a shorter document leaves nothing of the longer one.
        assert_eq!(c.shingle("x y z", &mut sh), Some(false));
        assert_eq!(sh.hashes, self::sh("x y z", 2));
        let c = config(Unit::Chars, Short::Whole);
        assert_eq!(c.shingle("ab cd e", &mut sh), Some(false));
        let mut want = Vec::new();
        char_shingles("ab cd e", 2, &mut want);
        assert_eq!(sh.hashes, want);
    }

    #[test]
    fn config_short_documents() {
        let mut sh = Shingler::default();
        let whole = config(Unit::Words, Short::Whole);
        assert_eq!(whole.shingle("a b", &mut sh), Some(true));
        assert_eq!(sh.hashes, vec![whole_text_shingle("a b")]);
        assert_eq!(whole.shingle("", &mut sh), None);
        assert!(sh.hashes.is_empty());
        let skip = config(Unit::Chars, Short::Skip);
        assert_eq!(skip.shingle("a b", &mut sh), None);
        assert_eq!(skip.shingle("a b c", &mut sh), Some(false));
    }

    #[test]
    fn config_header_parameters() {
        let p = config(Unit::Chars, Short::Skip).stream_params();
        assert_eq!(
            (p.ngram, p.min_words, p.perms, p.scheme, p.seed),
            (2, 3, 0, 0, 0)
        );
        assert_eq!(p.shingle_hash, crate::stream::SHINGLE_HASH_CHARS_XXH3);
        let p = config(Unit::Words, Short::Whole).stream_params();
        assert_eq!(p.shingle_hash, crate::stream::SHINGLE_HASH_XXH3);
    }

    #[test]
    fn counts_words() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("a"), 1);
        assert_eq!(word_count("a bb c"), 3);
    }

    #[test]
    fn head_and_tail_parts_take_the_first_and_last_words() {
        use crate::stream::Part;
        let text = "a b c d e f g h";
        let part = |part, part_words| {
            ShingleConfig {
                part,
                part_words,
                ..config(Unit::Words, Short::Whole)
            }
            .part_of(text)
        };
        assert_eq!(part(Part::Whole, 0), Some(text));
        assert_eq!(part(Part::Head, 3), Some("a b c"));
        assert_eq!(part(Part::Tail, 3), Some("f g h"));
        assert_eq!(part(Part::Tail, 5), Some("d e f g h"), "8 words > 1.5 x 5");
        // Not half again as long as the part: left out (its whole sketch covers its edges).
        assert_eq!(part(Part::Head, 6), None);
        assert_eq!(part(Part::Tail, 0), None);
        let mut sh = Shingler::default();
        let c = ShingleConfig {
            part: Part::Head,
            part_words: 3,
            ..config(Unit::Words, Short::Whole)
        };
        c.shingle(text, &mut sh);
        let mut want = Shingler::default();
        config(Unit::Words, Short::Whole).shingle("a b c", &mut want);
        assert_eq!(
            sh.hashes, want.hashes,
            "a head is shingled like a text of its words"
        );
    }
}
