//! Corpus counts: what pl-score counts over the whole norm file (how many documents, and how
//! many hold each distinctive token and, for the verifier, each word), as records a run spread
//! over machines adds up and passes back with `pl-score --corpus-counts` (docs/SCALE.md), so
//! each machine scores its pairs as if it had read the whole corpus.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::distinct::DocFreq;
use crate::records::{fingerprint_hex, hash_hex, parse_fingerprint, parse_hash_hex, Fingerprint};

/// A corpus-counts record: the header `{"documents","max_words"}` (`max_words` when words
/// were counted: the verifier counts the words of a long text's two ends only), a
/// token's or word's hash (16 hex digits) with the documents that hold it, or a normalized
/// text's fingerprint (32 hex digits) with the documents that have it (every text is counted,
/// so that the counts of parts add up; only those of two documents or more are kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountRecord {
    /// A distinctive token's hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// A word's hash (the verifier's word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word: Option<String>,
    /// A normalized text's fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Documents: in the corpus (header), or holding the token or word, or with the text.
    pub documents: u64,
    /// Header: the verifier's --max-words, when words were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_words: Option<u64>,
}

/// What is wrong with corpus-counts records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountsError {
    /// A second header record.
    #[error("a second header (\"documents\" alone)")]
    SecondHeader,
    /// A record with both a token and a word.
    #[error("a record has \"token\" or \"word\", not both")]
    TokenAndWord,
    /// A text record with a hash or `max_words` besides.
    #[error("a record with \"text\" has \"documents\" alone besides")]
    TextWithHash,
    /// `max_words` outside the header.
    #[error("\"max_words\" belongs to the header")]
    MaxWordsOutsideHeader,
    /// A hash that is not 16 hex digits.
    #[error("\"{0}\" is not 16 hex digits")]
    BadHash(String),
    /// A fingerprint that is not 32 hex digits.
    #[error("\"{0}\" is not 32 hex digits")]
    BadFingerprint(String),
    /// A hash or a text given twice.
    #[error("{kind} {key} given twice")]
    Twice {
        /// `hash` or `text`.
        kind: &'static str,
        /// The hash or fingerprint as given.
        key: String,
    },
    /// A count over what a `u32` holds.
    #[error("a count of {0} documents is out of range")]
    OutOfRange(u64),
    /// No header record.
    #[error("no header record {{\"documents\":N}}")]
    NoHeader,
    /// A count over the corpus's documents.
    #[error("a hash is counted in {n} documents, more than the corpus's {documents}")]
    OverDocuments {
        /// The count.
        n: u32,
        /// The corpus's documents.
        documents: u64,
    },
}

/// The counts of a corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusCounts {
    /// Documents in the corpus.
    pub documents: u64,
    /// --max-words of the word counts; `None` when words were not counted.
    pub max_words: Option<u64>,
    /// Documents holding each distinctive token (a token left out: one).
    pub tokens: FxHashMap<u64, u32>,
    /// Documents holding each word (a word left out: one).
    pub words: FxHashMap<u64, u32>,
    /// Documents with each normalized text, by fingerprint (a text left out: one).
    pub texts: FxHashMap<Fingerprint, u32>,
}

impl CorpusCounts {
    /// The counts as records: the header, then tokens and words, each sorted by hash.
    pub fn records(&self) -> Vec<CountRecord> {
        let mut out = vec![CountRecord {
            documents: self.documents,
            max_words: self.max_words,
            ..CountRecord::default()
        }];
        let sorted = |m: &FxHashMap<u64, u32>| {
            let mut v: Vec<(u64, u32)> = m.iter().map(|(&h, &n)| (h, n)).collect();
            v.sort_unstable();
            v
        };
        for (h, n) in sorted(&self.tokens) {
            out.push(CountRecord {
                token: Some(hash_hex(h)),
                documents: n.into(),
                ..CountRecord::default()
            });
        }
        for (h, n) in sorted(&self.words) {
            out.push(CountRecord {
                word: Some(hash_hex(h)),
                documents: n.into(),
                ..CountRecord::default()
            });
        }
        let mut texts: Vec<(Fingerprint, u32)> = self.texts.iter().map(|(&f, &n)| (f, n)).collect();
        texts.sort_unstable();
        for (f, n) in texts {
            out.push(CountRecord {
                text: Some(fingerprint_hex(f)),
                documents: n.into(),
                ..CountRecord::default()
            });
        }
        out
    }

    /// Adds one record read back; `Err` says what is wrong with it (a second header, a hash
    /// given twice, a count over the corpus's documents is caught by [`Self::check`]).
    pub fn add(&mut self, rec: CountRecord, header_seen: &mut bool) -> Result<(), CountsError> {
        let count = |n: u64| u32::try_from(n).map_err(|_| CountsError::OutOfRange(n));
        if let Some(t) = rec.text {
            if rec.token.is_some() || rec.word.is_some() || rec.max_words.is_some() {
                return Err(CountsError::TextWithHash);
            }
            let f = parse_fingerprint(&t).ok_or_else(|| CountsError::BadFingerprint(t.clone()))?;
            if self.texts.insert(f, count(rec.documents)?).is_some() {
                return Err(CountsError::Twice {
                    kind: "text",
                    key: t,
                });
            }
            return Ok(());
        }
        let entry = match (rec.token, rec.word) {
            (None, None) => {
                if std::mem::replace(header_seen, true) {
                    return Err(CountsError::SecondHeader);
                }
                self.documents = rec.documents;
                self.max_words = rec.max_words;
                return Ok(());
            }
            (Some(t), None) => (&mut self.tokens, t),
            (None, Some(w)) => (&mut self.words, w),
            (Some(_), Some(_)) => return Err(CountsError::TokenAndWord),
        };
        if rec.max_words.is_some() {
            return Err(CountsError::MaxWordsOutsideHeader);
        }
        let (map, h) = entry;
        let hash = parse_hash_hex(&h).ok_or_else(|| CountsError::BadHash(h.clone()))?;
        if map.insert(hash, count(rec.documents)?).is_some() {
            return Err(CountsError::Twice {
                kind: "hash",
                key: h,
            });
        }
        Ok(())
    }

    /// Refuses counts that contradict themselves: no header, or a token or word in more
    /// documents than the corpus has.
    pub fn check(&self, header_seen: bool) -> Result<(), CountsError> {
        if !header_seen {
            return Err(CountsError::NoHeader);
        }
        let over = self
            .tokens
            .values()
            .chain(self.words.values())
            .chain(self.texts.values())
            .find(|&&n| u64::from(n) > self.documents);
        match over {
            Some(&n) => Err(CountsError::OverDocuments {
                n,
                documents: self.documents,
            }),
            None => Ok(()),
        }
    }

    /// The token frequencies as the distinctive-token dimension weighs them.
    pub fn doc_freq(&self) -> DocFreq {
        DocFreq::from_counts(self.documents, self.tokens.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_to_the_same_counts() {
        let c = CorpusCounts {
            documents: 10,
            max_words: Some(4000),
            tokens: [(3, 2), (1, 5)].into_iter().collect(),
            words: [(7, 10)].into_iter().collect(),
            texts: [(9, 1), (5, 3)].into_iter().collect(),
        };
        let recs = c.records();
        let line = serde_json::to_string(&recs[1]).unwrap();
        assert_eq!(line, r#"{"token":"0000000000000001","documents":5}"#);
        let mut back = CorpusCounts::default();
        let mut header = false;
        for r in recs {
            back.add(r, &mut header).unwrap();
        }
        back.check(header).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn contradictions_are_refused() {
        let mut c = CorpusCounts::default();
        let mut header = false;
        let tok = |n| CountRecord {
            token: Some(hash_hex(1)),
            documents: n,
            ..CountRecord::default()
        };
        assert!(c
            .check(false)
            .unwrap_err()
            .to_string()
            .contains("no header"));
        c.add(tok(3), &mut header).unwrap();
        assert_eq!(
            c.add(tok(3), &mut header).unwrap_err(),
            CountsError::Twice {
                kind: "hash",
                key: hash_hex(1)
            }
        );
        c.add(
            CountRecord {
                documents: 2,
                ..CountRecord::default()
            },
            &mut header,
        )
        .unwrap();
        assert!(c
            .check(header)
            .unwrap_err()
            .to_string()
            .contains("more than the corpus's 2"));
        let again = c.add(
            CountRecord {
                documents: 2,
                ..CountRecord::default()
            },
            &mut header,
        );
        assert!(again.unwrap_err().to_string().contains("second header"));
        let bad = CountRecord {
            word: Some("12".into()),
            documents: 1,
            ..CountRecord::default()
        };
        assert!(c
            .add(bad, &mut header)
            .unwrap_err()
            .to_string()
            .contains("16 hex"));
        let text = |n| CountRecord {
            text: Some(fingerprint_hex(7)),
            documents: n,
            ..CountRecord::default()
        };
        c.add(text(1), &mut header).unwrap();
        assert!(c
            .add(text(1), &mut header)
            .unwrap_err()
            .to_string()
            .contains("twice"));
        let both = CountRecord {
            word: Some(hash_hex(2)),
            ..text(1)
        };
        assert!(c.add(both, &mut header).is_err());
    }
}
