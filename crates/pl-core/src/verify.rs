//! The verifier: are the differences between two texts what OCR does, or what a different
//! document says?
//!
//! A rescan differs from its original by misread characters (`rn`/`m`, `0`/`O`, `1`/`l`),
//! dropped, split and merged words, and added or removed blocks (a page, a stamp, a cover
//! sheet). A sibling from the same template differs by *substitutions*: another invoice
//! number, another date, another amount, another recipient's name. The verifier aligns the two
//! word sequences (a shortest edit script, [`crate::diff`]), and for every replaced block
//! checks whether the two sides are the same text up to OCR confusions. What is not is an unexplained substitution; its weight
//! is its rarity in the corpus (the smaller of the two sides' rarest word), so a common word
//! garbled beyond repair weighs little and a swapped name or number weighs much.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// Character sequences OCR confuses, folded to one form before comparing (multi-character
/// ones first).
const FOLD_SEQ: [(&str, &str); 5] = [
    ("rn", "m"),
    ("ri", "n"),
    ("vv", "w"),
    ("cl", "d"),
    ("li", "h"),
];

/// Single characters OCR confuses, folded to one representative.
fn fold_char(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | 'i' | '|' => 'l',
        '5' => 's',
        '8' | '6' | 'h' | 'ß' => 'b',
        '9' => 'g',
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
fn fold_into(words: &[&str], out: &mut Vec<char>) {
    out.clear();
    let mut chars = words.iter().flat_map(|w| w.chars()).peekable();
    while let Some(c) = chars.next() {
        let folded = match chars.peek() {
            Some(&next) => FOLD_SEQ
                .iter()
                .find(|(from, _)| {
                    let mut f = from.chars();
                    f.next() == Some(c) && f.next() == Some(next)
                })
                .map(|(_, to)| to.chars().next().expect("one character")),
            None => None,
        };
        match folded {
            Some(to) => {
                chars.next();
                out.push(fold_char(to));
            }
            None => out.push(fold_char(c)),
        }
    }
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

/// An unexplained substitution: the two sides and their weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Substitution {
    /// Words of the first text.
    pub a: String,
    /// Words of the second text.
    pub b: String,
    /// Rarity weight.
    pub weight: f64,
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

/// Words of a text by index, for indexes that only grow (the ops of a diff come in order):
/// one pass over the text, no list of every word.
struct WordCursor<'a> {
    text: &'a str,
    /// Byte offset of word `index`'s search start.
    pos: usize,
    index: usize,
}

impl<'a> WordCursor<'a> {
    fn new(text: &'a str) -> Self {
        WordCursor {
            text,
            pos: 0,
            index: 0,
        }
    }

    /// The next word, as [`words`] gives them.
    fn next_word(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        while bytes.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        self.pos = memchr::memchr(b' ', &bytes[start..]).map_or(bytes.len(), |e| start + e);
        self.index += 1;
        Some(&self.text[start..self.pos])
    }

    /// Words `from..from + len`; `from` is not before the end of the last call's words.
    fn words(&mut self, from: usize, len: usize) -> Vec<&'a str> {
        debug_assert!(from >= self.index, "word indexes only grow");
        while self.index < from && self.next_word().is_some() {}
        (0..len).map_while(|_| self.next_word()).collect()
    }
}

/// The unexplained substitutions between two normalized texts (words separated by single
/// spaces). `idf` gives a word hash's rarity weight. Deterministic (no time limit).
pub fn unexplained(a: &str, b: &str, idf: impl Fn(u64) -> f64) -> Vec<Substitution> {
    let hash = |t| {
        let mut hashes = Vec::new();
        word_hashes(t, &mut hashes);
        hashes
    };
    align(a, &hash(a), b, &hash(b), |&h| idf(h), f64::INFINITY)
}

/// The unexplained substitutions of `a` against `b` whose words have the keys `ka` and `kb`
/// (one per word, equal keys for equal words) and rarity `weight`. Stops once their total
/// weight is over `stop_above`: the pair has failed, and what follows cannot change that.
fn align<K: Copy + Eq + Into<u64>>(
    a: &str,
    ka: &[K],
    b: &str,
    kb: &[K],
    weight: impl Fn(&K) -> f64,
    stop_above: f64,
) -> Vec<Substitution> {
    let rarest = |k: &[K]| k.iter().map(&weight).fold(0.0f64, f64::max);
    let (mut wa, mut wb) = (WordCursor::new(a), WordCursor::new(b));
    let mut out = Vec::new();
    let mut total = 0.0;
    for h in crate::diff::hunks(ka, kb) {
        if h.old.is_empty() || h.new.is_empty() {
            continue;
        }
        let (x, y) = (
            wa.words(h.old.start, h.old.len()),
            wb.words(h.new.start, h.new.len()),
        );
        if !explained(&x, &y) {
            let w = rarest(&ka[h.old]).min(rarest(&kb[h.new]));
            out.push(Substitution {
                a: x.join(" "),
                b: y.join(" "),
                weight: w,
            });
            total += w;
            if total > stop_above {
                break;
            }
        }
    }
    out
}

/// [`unexplained`] under the better of the two alignments, so that the verdict does not depend
/// on which text is `a`: the alignment of a moved block depends on the order (from one side a
/// reordered letterhead is a deletion and an insertion, from the other a replacement of one
/// line by another). `a` is aligned against `b` first; only when that leaves more than
/// `max_weight` unexplained is `b` aligned against `a`, and the lighter of the two is returned
/// (the first on a tie). A pair passes (total weight at most `max_weight`) exactly when one of
/// the two alignments explains it, whichever side it was given on — so copies of one text get
/// the same verdict against any other document. The substitutions' `a` and `b` still name
/// `a`'s and `b`'s words. Of a pair that fails, only the substitutions up to the first that
/// takes the total over `max_weight` are listed.
///
/// `ia` and `ib` are the texts' word ids from one [`Vocab`], `idf` its [`Vocab::idf`].
pub fn unexplained_either(
    a: &str,
    ia: &[u32],
    b: &str,
    ib: &[u32],
    idf: &[f64],
    max_weight: f64,
) -> Vec<Substitution> {
    let total = |subs: &[Substitution]| subs.iter().map(|s| s.weight).sum::<f64>();
    let weight = |&id: &u32| idf[id as usize];
    let ab = align(a, ia, b, ib, weight, max_weight);
    let w = total(&ab);
    if w <= max_weight {
        return ab;
    }
    let ba: Vec<Substitution> = align(b, ib, a, ia, weight, max_weight)
        .into_iter()
        .map(|s| Substitution {
            a: s.b,
            b: s.a,
            weight: s.weight,
        })
        .collect();
    if total(&ba) < w {
        ba
    } else {
        ab
    }
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

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.docs.into()
    }

    /// Each id's rarity, `ln(N / df)` and at least 0.01, as [`crate::distinct::DocFreq::idf`].
    pub fn idf(&self) -> Vec<f64> {
        let n = f64::from(self.docs.max(1));
        self.df
            .iter()
            .map(|&df| (n / f64::from(df.max(1))).ln().max(0.01))
            .collect()
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

    /// [`unexplained_either`] with every word weighing 1.
    fn either(a: &str, b: &str, max: f64) -> Vec<Substitution> {
        let mut vocab = Vocab::default();
        let (mut ia, mut ib) = (Vec::new(), Vec::new());
        add_text(&mut vocab, a, &mut ia);
        add_text(&mut vocab, b, &mut ib);
        let ones = vec![1.0; ia.iter().chain(&ib).max().map_or(0, |&m| m as usize + 1)];
        unexplained_either(a, &ia, b, &ib, &ones, max)
    }

    /// The fold as first written: each sequence replaced through the whole text in turn.
    fn fold_by_passes(text: &str) -> String {
        let mut s = text.to_string();
        for (from, to) in FOLD_SEQ {
            s = s.replace(from, to);
        }
        s.chars().map(fold_char).collect()
    }

    proptest::proptest! {
        /// The one-pass fold is the fold by successive passes, also across word boundaries.
        #[test]
        fn one_pass_fold_is_the_fold_by_passes(words in proptest::collection::vec("[rnivcldh015 ]{0,8}", 0..5)) {
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

        /// Stopping at the first substitution over the allowance gives the full alignment's
        /// verdict, and the same list when the pair passes.
        #[test]
        fn early_stop_keeps_the_verdict(a in "[ab1 ]{0,40}", b in "[ab1 ]{0,40}", max in 0.0f64..3.0) {
            let full = |x: &str, y: &str| unexplained(x, y, |_| 1.0);
            let weight = |s: &[Substitution]| s.iter().map(|s| s.weight).sum::<f64>();
            let passes = weight(&full(&a, &b)) <= max || weight(&full(&b, &a)) <= max;
            let got = either(&a, &b, max);
            proptest::prop_assert_eq!(weight(&got) <= max, passes);
            if passes && weight(&full(&a, &b)) <= max {
                proptest::prop_assert_eq!(got, full(&a, &b));
            }
        }
    }

    #[test]
    fn word_cursor_gives_the_words_by_index() {
        let text = " alpha  beta gamma delta ";
        let all: Vec<&str> = words(text).collect();
        let mut c = WordCursor::new(text);
        assert_eq!(c.words(1, 2), all[1..3]);
        assert_eq!(c.words(3, 1), all[3..4]);
        assert!(c.words(4, 1).is_empty(), "past the end");
        assert_eq!(WordCursor::new(text).words(0, 9), all);
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
        let idf = v.idf();
        assert_eq!(idf[a], 0.01, "a word in every document weighs the floor");
        assert!((idf[b] - 2f64.ln()).abs() < 1e-12);
    }

    fn un(a: &str, b: &str) -> Vec<(String, String)> {
        unexplained(a, b, |_| 1.0)
            .into_iter()
            .map(|s| (s.a, s.b))
            .collect()
    }

    #[test]
    fn ocr_confusions_are_explained() {
        assert!(un(
            "rechnung vom 01 03 2024 modern",
            "rechnurig vom 0l o3 2024 modem"
        )
        .is_empty());
        assert!(un("the upon window total 1234", "fhe upori vvindow tota1 1234").is_empty());
    }

    #[test]
    fn split_merged_and_dropped_characters_are_explained() {
        assert!(un("rechnung nummer 2012", "rech nung nummer 212").is_empty());
        assert!(un("nelson family", "nelsonfamily").is_empty());
    }

    #[test]
    fn insertions_and_deletions_are_not_substitutions() {
        assert!(
            un("a b c d", "x a b c d y z").is_empty(),
            "a page or stamp added"
        );
    }

    #[test]
    fn other_numbers_and_names_are_not_explained() {
        assert_eq!(
            un("invoice re2024001 total", "invoice re2024002 total"),
            vec![("re2024001".into(), "re2024002".into())]
        );
        assert_eq!(
            un("dear frau hannah meier", "dear herrn bernd meier").len(),
            1
        );
        assert_eq!(un("date 01012019 end", "date 14082019 end").len(), 1);
    }

    #[test]
    fn either_alignment_explains_a_moved_block() {
        // A reordered letterhead: one direction aligns it as a deletion and an insertion,
        // the other as a replacement of "phone 870 8321145" by "city of camden clerks office".
        let a = "city of camden clerks office records division 539 mill street camden pa 83623 \
                 phone 870 8321145 mr joshua ross 2196 walnut avenue";
        let b = "records division 539 mill street phone 870 8321145 camden pa 83623 city of \
                 camden clerks office mr joshua ross 2196 walnut avenue";
        let plain = |x: &str, y: &str| unexplained(x, y, |_| 1.0).len();
        assert_ne!(
            plain(a, b),
            plain(b, a),
            "the alignment depends on the order"
        );
        assert!(either(a, b, 0.0).is_empty());
        assert!(either(b, a, 0.0).is_empty());
        // Another number is unexplained from both sides, and named by side.
        let (x, y) = ("invoice re2024001 total", "invoice re2024002 total");
        for (p, q) in [(x, y), (y, x)] {
            let s = either(p, q, 0.0);
            assert_eq!(s.len(), 1);
            assert_eq!((s[0].a.as_str(), s[0].b.as_str()), (&p[8..17], &q[8..17]));
        }
        // The first alignment is kept when it is within the allowance.
        let s = either(x, y, 1.0);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn weight_is_the_rarer_side_minimum() {
        let w = unexplained("x common y", "x zzzrare y", |h| {
            if h == xxh3_64(b"common") {
                0.5
            } else {
                9.0
            }
        });
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].weight, 0.5);
    }
}
