//! The verifier's building blocks: OCR folding, the test whether a replaced block is the same
//! text up to OCR ([`explained`]), words of a normalized text, and the corpus vocabulary that
//! gives every word a dense id. [`crate::evidence`] aligns two texts with them and counts
//! their differences; [`crate::scorer`] judges the counts.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// Character sequences OCR confuses, folded to one form before comparing (multi-character
/// ones first).
const FOLD_SEQ: [([char; 2], char); 6] = [
    (['r', 'n'], 'm'),
    (['r', 'i'], 'n'),
    (['v', 'v'], 'w'),
    (['c', 'l'], 'd'),
    (['l', 'i'], 'h'),
    (['i', 'i'], 'u'),
];

/// Single characters OCR confuses, folded to one representative.
pub(crate) fn fold_char(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | 'i' | '|' => 'l',
        '5' => 's',
        '8' | '6' | 'h' | 'ß' => 'b',
        '9' => 'g',
        '2' => 'z',
        '4' => 'a',
        'c' => 'e',
        'f' => 't',
        'ä' => 'a',
        'ö' => 'o',
        'ü' => 'u',
        other => other,
    }
}

/// The OCR-folded form of the words joined without spaces, into `out` (cleared first):
/// confusable sequences and characters mapped to one form.
///
/// One pass, leftmost match first, which is what replacing each sequence of [`FOLD_SEQ`]
/// through the whole text in turn gives: no replacement creates another sequence, and where
/// two sequences overlap ("cli") the one listed first also starts first.
pub(crate) fn fold_into(words: &[&str], out: &mut Vec<char>) {
    out.clear();
    if let [w] = words {
        if w.is_ascii() {
            fold_ascii(w.as_bytes(), |c| out.push(char::from(c)));
            return;
        }
    }
    if words.iter().all(|w| w.is_ascii()) {
        fold_chars(words.iter().flat_map(|w| w.bytes().map(char::from)), |c| {
            out.push(c)
        });
    } else {
        fold_chars(words.iter().flat_map(|w| w.chars()), |c| out.push(c));
    }
}

/// The OCR fold of a sequence of characters, each folded character given to `push`. A
/// character that may start a sequence of [`FOLD_SEQ`] waits for the next one.
pub(crate) fn fold_chars(chars: impl Iterator<Item = char>, mut push: impl FnMut(char)) {
    let mut pending: Option<char> = None;
    for c in chars {
        if let Some(p) = pending.take() {
            if let Some(to) = sequence(p, c) {
                push(fold_char(to));
                continue;
            }
            push(fold_char(p));
        }
        // Only these characters start a sequence of FOLD_SEQ: the others skip the search.
        if matches!(c, 'r' | 'v' | 'c' | 'l' | 'i') {
            pending = Some(c);
        } else {
            push(fold_char(c));
        }
    }
    if let Some(p) = pending {
        push(fold_char(p));
    }
}

/// [`fold_chars`] of an ASCII word, byte by byte (an ASCII word folds to ASCII): the
/// verifier folds every word of every text, and this is its common case.
pub(crate) fn fold_ascii(word: &[u8], mut push: impl FnMut(u8)) {
    let fold = |c: u8| fold_char(char::from(c)) as u8;
    let mut i = 0;
    while i < word.len() {
        let c = word[i];
        // Only these bytes start a sequence of FOLD_SEQ: the others skip the search.
        if matches!(c, b'r' | b'v' | b'c' | b'l' | b'i') {
            if let Some(to) = word
                .get(i + 1)
                .and_then(|&d| sequence(char::from(c), char::from(d)))
            {
                push(fold_char(to) as u8);
                i += 2;
                continue;
            }
        }
        push(fold(c));
        i += 1;
    }
}

/// The Levenshtein distance of `a` and `b` when it is at most `max`, else `None`: measured
/// within that bound, which costs less than the whole distance (what the OCR tolerances ask).
pub(crate) fn edits_within(a: &[char], b: &[char], max: usize) -> Option<usize> {
    use rapidfuzz::distance::levenshtein;
    levenshtein::distance_with_args(
        a.iter().copied(),
        b.iter().copied(),
        &levenshtein::Args::default().score_cutoff(max),
    )
}

/// What the sequence of [`FOLD_SEQ`] starting with `a`, `b` folds to.
fn sequence(a: char, b: char) -> Option<char> {
    FOLD_SEQ
        .iter()
        .find(|(from, _)| *from == [a, b])
        .map(|&(_, to)| to)
}

/// Is the replacement of words `x` by words `y` explained by OCR errors?
///
/// Both sides are joined without spaces (so split and merged words compare equal) and folded.
/// Equal folded forms are explained. Otherwise, with a digit on either side, at most one
/// character may be dropped or added (a substituted digit is another number); without digits,
/// the Indel distance may be 2 plus one per 16 characters.
pub fn explained(x: &[&str], y: &[&str]) -> bool {
    let (mut fx, mut fy) = (Vec::new(), Vec::new());
    fold_into(x, &mut fx);
    fold_into(y, &mut fy);
    if fx == fy {
        return true;
    }
    let d = rapidfuzz::distance::indel::distance(fx.iter().copied(), fy.iter().copied());
    let digits = x
        .iter()
        .chain(y)
        .any(|w| w.bytes().any(|b| b.is_ascii_digit()));
    if digits {
        d <= 1
    } else {
        d <= 2 + (fx.len() + fy.len()) / 16
    }
}

/// Default words of a document the verifier compares: a longer one is compared on its first
/// and last halves of this ([`edge_sample`]), so one pair's alignment stays within about 50 MB
/// (the bit-parallel LCS keeps n·m/64 machine words).
pub const DEFAULT_MAX_WORDS: usize = 20_000;

/// The values `--max-words` may take: from 2 words (a first and a last half) to 100,000 (one
/// pair's alignment then needs up to 1.25 GB).
pub const MAX_WORDS_RANGE: std::ops::RangeInclusive<usize> = 2..=100_000;

/// The first ⌈max/2⌉ and the last ⌊max/2⌋ words of a normalized text that has more than `max`
/// words, joined by one space; `None` when it has at most `max` (compare it whole).
pub fn edge_sample(norm: &str, max: usize) -> Option<String> {
    let n = crate::shingle::word_count(norm);
    if n <= max {
        return None;
    }
    let head = max.div_ceil(2);
    let tail = max - head;
    let mut spaces = memchr::memchr_iter(b' ', norm.as_bytes());
    let head_end = if head == 0 {
        0
    } else {
        spaces.nth(head - 1).expect("more than max words")
    };
    let mut out = String::with_capacity(norm.len().min(max * 16));
    out.push_str(&norm[..head_end]);
    if tail > 0 {
        let tail_start = memchr::memchr_iter(b' ', norm.as_bytes())
            .nth(n - tail - 1)
            .expect("more than max words")
            + 1;
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&norm[tail_start..]);
    }
    Some(out)
}

/// The words of a normalized text (separated by single spaces), as the verifier counts them.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b' ', text.as_bytes())
        .chain(std::iter::once(text.len()))
        .filter_map(move |end| {
            // Spaces are ASCII, so both ends are char boundaries.
            let w = &text[start..end];
            start = end + 1;
            (!w.is_empty()).then_some(w)
        })
}

/// The hashes of a normalized text's words, in text order, as [`Vocab`] keys them.
pub fn word_hashes(norm: &str, out: &mut Vec<u64>) {
    out.clear();
    out.extend(words(norm).map(|w| xxh3_64(w.as_bytes())));
}

/// The words of a corpus: a dense id per distinct word (by its xxh3 hash), so that alignments
/// compare integers and a word's rarity is an array lookup, and the number of documents each
/// word is in.
#[derive(Debug, Default, Clone)]
pub struct Vocab {
    ids: FxHashMap<u64, u32>,
    df: Vec<u32>,
    last_doc: Vec<u32>,
    docs: u32,
}

impl Vocab {
    /// Counts one document, given its [`word_hashes`] (taken by the caller, on any thread:
    /// hashing is the part of counting that parallelizes), and puts the ids of its words, in
    /// text order, into `out`.
    pub fn add(&mut self, hashes: &[u64], out: &mut Vec<u32>) {
        self.docs += 1;
        out.clear();
        // Exact: scoring keeps the ids of every document in a pair, a million of them.
        out.reserve_exact(hashes.len());
        for &h in hashes {
            let next = self.df.len() as u32;
            let id = *self.ids.entry(h).or_insert(next);
            if id == next {
                self.df.push(0);
                self.last_doc.push(0);
            }
            let i = id as usize;
            if self.last_doc[i] != self.docs {
                self.last_doc[i] = self.docs;
                self.df[i] += 1;
            }
            out.push(id);
        }
    }

    /// Puts the ids of words already counted into `out`, in text order, as [`Vocab::add`] gave
    /// them; `None` when a word was never counted.
    pub fn lookup(&self, hashes: &[u64], out: &mut Vec<u32>) -> Option<()> {
        out.clear();
        out.reserve_exact(hashes.len());
        for h in hashes {
            out.push(*self.ids.get(h)?);
        }
        Some(())
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.docs.into()
    }

    /// The number of documents each id is in.
    pub fn doc_counts(&self) -> &[u32] {
        &self.df
    }

    /// Each word's hash and the number of documents it is in, in id order.
    pub fn counts(&self) -> Vec<(u64, u32)> {
        let mut out = vec![(0, 0); self.df.len()];
        for (&h, &id) in &self.ids {
            out[id as usize] = (h, self.df[id as usize]);
        }
        out
    }

    /// Replaces the document counts by those of a larger corpus: `count(hash)` for each word
    /// counted here. `Err(hash)` for the first word whose count there is less than here.
    pub fn set_doc_counts(&mut self, count: impl Fn(u64) -> u32) -> Result<(), u64> {
        for (&h, &id) in &self.ids {
            let c = count(h);
            if c < self.df[id as usize] {
                return Err(h);
            }
            self.df[id as usize] = c;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts `text` in `v`, its word ids into `ids`.
    fn add_text(v: &mut Vocab, text: &str, ids: &mut Vec<u32>) {
        let mut hashes = Vec::new();
        word_hashes(text, &mut hashes);
        v.add(&hashes, ids);
    }

    /// The fold as first written: each sequence replaced through the whole text in turn.
    fn fold_by_passes(text: &str) -> String {
        let mut s = text.to_string();
        for (from, to) in FOLD_SEQ {
            s = s.replace(&String::from_iter(from), &to.to_string());
        }
        s.chars().map(fold_char).collect()
    }

    proptest::proptest! {
        /// The one-pass fold is the fold by successive passes, also across word boundaries.
        #[test]
        fn one_pass_fold_is_the_fold_by_passes(words in proptest::collection::vec("[rnivcldh0145a äß]{0,8}", 0..5)) {
            let joined = words.concat();
            let fold = |w: &[&str]| {
                let mut out = Vec::new();
                fold_into(w, &mut out);
                out.into_iter().collect::<String>()
            };
            proptest::prop_assert_eq!(fold(&[&joined]), fold_by_passes(&joined));
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(fold(&refs), fold_by_passes(&joined));
        }
    }

    proptest::proptest! {
        /// The fold of an ASCII word byte by byte is the fold by successive passes.
        #[test]
        fn ascii_fold_is_the_fold_by_passes(word in "[rnivcldhfu0125689a|]{0,12}") {
            let mut out = Vec::new();
            fold_ascii(word.as_bytes(), |c| out.push(char::from(c)));
            proptest::prop_assert_eq!(out.into_iter().collect::<String>(), fold_by_passes(&word));
        }
    }

    #[test]
    fn an_umlaut_read_as_two_letters_folds_as_the_umlaut() {
        let fold = |w: &str| {
            let mut out = Vec::new();
            fold_into(&[w], &mut out);
            out
        };
        assert_eq!(fold("fiir"), fold("für"));
        assert_eq!(fold("piinktlich"), fold("pünktlich"));
        assert!(explained(&["fiir"], &["für"]));
        assert_ne!(fold("fiir"), fold("fir"));
    }

    #[test]
    fn the_fold_fast_path_knows_every_sequence_start() {
        for ([c, _], _) in FOLD_SEQ {
            assert!(matches!(c, 'r' | 'v' | 'c' | 'l' | 'i'), "{c}");
        }
    }

    #[test]
    fn vocab_counts_documents_not_occurrences() {
        let mut v = Vocab::default();
        let mut ids = Vec::new();
        add_text(&mut v, "a b a", &mut ids);
        assert_eq!(ids[0], ids[2]);
        assert_ne!(ids[0], ids[1]);
        let (a, b) = (ids[0] as usize, ids[1] as usize);
        add_text(&mut v, "a  c", &mut ids);
        assert_eq!(ids.len(), 2, "empty words are not words");
        assert_eq!(v.docs(), 2);
        assert_eq!(v.doc_counts()[a], 2, "a word in every document");
        assert_eq!(v.doc_counts()[b], 1);
        let mut again = Vec::new();
        let mut hashes = Vec::new();
        word_hashes("a  c", &mut hashes);
        assert_eq!(v.lookup(&hashes, &mut again), Some(()));
        assert_eq!(again, ids, "a lookup gives the ids counting gave");
        word_hashes("a zz", &mut hashes);
        assert_eq!(v.lookup(&hashes, &mut again), None, "a word never counted");
    }

    #[test]
    fn long_texts_are_sampled_at_both_ends() {
        assert_eq!(edge_sample("a b c d e", 5), None);
        assert_eq!(edge_sample("a b c d e f", 5).as_deref(), Some("a b c e f"));
        assert_eq!(edge_sample("a b c d e f", 4).as_deref(), Some("a b e f"));
        assert_eq!(edge_sample("a b c", 1).as_deref(), Some("a"));
        assert_eq!(edge_sample("a b c", 0).as_deref(), Some(""));
    }
}
