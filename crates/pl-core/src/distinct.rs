//! The distinctive-token dimension: what tells a duplicate from a sibling made from the same
//! template. Two bills of one utility share most words and differ in the invoice number,
//! dates, amounts and meter readings; two scans of one bill share those too.
//!
//! A distinctive token is a word of the normalized text that holds a digit and at least two
//! characters (numbers, dates, amounts, invoice and customer numbers, IBAN parts). Each is
//! weighted by its rarity in the corpus, `idf = ln(N / df)`, so what a whole template family
//! shares (the vendor's phone number, its IBAN) weighs little and what only this document
//! has (its invoice number) weighs much. The dimension is the weighted Jaccard of the two
//! documents' token sets: `Σ idf(A∩B) / Σ idf(A∪B)`.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// Hashes of the distinctive tokens of a normalized text, sorted, without repeats.
pub fn distinctive_tokens(norm: &str, out: &mut Vec<u64>) {
    out.clear();
    for w in crate::verify::words(norm) {
        if is_distinctive(w) {
            out.push(xxh3_64(w.as_bytes()));
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// The distinctive tokens themselves, for explanations, in text order without repeats.
pub fn distinctive_words(norm: &str) -> Vec<&str> {
    let mut seen = rustc_hash::FxHashSet::default();
    crate::verify::words(norm)
        .filter(|w| is_distinctive(w) && seen.insert(*w))
        .collect()
}

/// A word with a digit and at least two characters.
pub fn is_distinctive(w: &str) -> bool {
    w.len() >= 2 && w.bytes().any(|b| b.is_ascii_digit())
}

/// Document frequencies of distinctive tokens over a corpus.
#[derive(Debug, Default, Clone)]
pub struct DocFreq {
    df: FxHashMap<u64, u32>,
    docs: u64,
}

impl DocFreq {
    /// Frequencies counted elsewhere (the persistent index, `--corpus-counts`): `docs`
    /// documents, and the document frequency of each token that matters to the caller (a token
    /// left out counts as in one document).
    pub fn from_counts(docs: u64, counts: impl IntoIterator<Item = (u64, u32)>) -> DocFreq {
        DocFreq {
            df: counts.into_iter().collect(),
            docs,
        }
    }

    /// Counts one document's token set (sorted, unique).
    pub fn add(&mut self, tokens: &[u64]) {
        self.docs += 1;
        for &t in tokens {
            *self.df.entry(t).or_insert(0) += 1;
        }
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Each token's hash and document count, in no particular order.
    pub fn counts(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.df.iter().map(|(&t, &n)| (t, n))
    }

    /// `ln(N / df)`, at least a small positive weight so a token in every document still counts.
    pub fn idf(&self, token: u64) -> f64 {
        let df = self.df.get(&token).copied().unwrap_or(1).max(1) as f64;
        ((self.docs.max(1) as f64) / df).ln().max(0.01)
    }

    /// Sets each token's weight to its [`idf`](Self::idf), for [`weighted_similarity`]: a
    /// document met in many pairs is weighed once.
    pub fn weigh(&self, tokens: &mut [(u64, f64)]) {
        for (t, w) in tokens {
            *w = self.idf(*t);
        }
    }

    /// The weighted Jaccard of two token sets; `None` when neither has a distinctive token
    /// (the dimension then says nothing).
    pub fn similarity(&self, a: &[u64], b: &[u64]) -> Option<f64> {
        let weighed = |tokens: &[u64]| {
            let mut v: Vec<(u64, f64)> = tokens.iter().map(|&t| (t, 0.0)).collect();
            self.weigh(&mut v);
            v
        };
        weighted_similarity(&weighed(a), &weighed(b))
    }
}

/// [`DocFreq::similarity`] of two sets already weighed by [`DocFreq::weigh`].
pub fn weighted_similarity(a: &[(u64, f64)], b: &[(u64, f64)]) -> Option<f64> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let (mut i, mut j) = (0, 0);
    let (mut inter, mut union) = (0.0, 0.0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&(x, w)), Some(&(y, _))) if x == y => {
                inter += w;
                union += w;
                i += 1;
                j += 1;
            }
            (Some(&(x, w)), Some(&(y, _))) if x < y => {
                union += w;
                i += 1;
            }
            (Some(&(_, w)), None) => {
                union += w;
                i += 1;
            }
            (_, Some(&(_, w))) => {
                union += w;
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    Some(inter / union)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<u64> {
        let mut v = Vec::new();
        distinctive_tokens(s, &mut v);
        v
    }

    #[test]
    fn picks_words_with_digits() {
        assert_eq!(
            distinctive_words("rechnung re2024001 vom 15032024 1 summe 12345 eur"),
            vec!["re2024001", "15032024", "12345"]
        );
    }

    #[test]
    fn shared_rare_tokens_score_high_template_tokens_low() {
        let mut df = DocFreq::default();
        // A family of ten bills sharing the vendor number 4711, each with its own invoice number;
        // bill 0 has a rescan (same invoice number).
        let bills: Vec<String> = (0..10)
            .map(|i| format!("stadtwerke 4711 rechnung re{i}00{i} betrag {i}99"))
            .collect();
        for b in &bills {
            df.add(&toks(b));
        }
        df.add(&toks(&bills[0]));
        let dup = df.similarity(&toks(&bills[0]), &toks(&bills[0])).unwrap();
        let sibling = df.similarity(&toks(&bills[0]), &toks(&bills[1])).unwrap();
        assert_eq!(dup, 1.0);
        assert!(
            sibling < 0.1,
            "template siblings share only the common token: {sibling}"
        );
    }

    #[test]
    fn no_tokens_is_no_evidence() {
        let df = DocFreq::default();
        assert_eq!(df.similarity(&[], &[]), None);
        assert_eq!(df.similarity(&[1], &[]), Some(0.0));
    }
}
