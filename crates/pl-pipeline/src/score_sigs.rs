//! The signatures of pl-score's pairs (`--sigs`). Of each document in a pair pl-score holds
//! 48 bytes: its fingerprint, shingle count, where its record is and a digest of its
//! signature, which tell copies apart. The signatures themselves (4 × K bytes each, 1 KB at
//! K = 256) are read again by offset a batch of documents at a time from a binary stream in
//! a file, and held only when the stream cannot be read again (NDJSON, a pipe) or come from
//! the index.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{anyhow, Context, Result};
use pl_core::records::{sig_payload_len, Fingerprint, Record, RecordReader, SigRec};
use pl_core::stream::{Params, HEADER_LEN};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::io::open_input;
use crate::score_sides::reopenable;

/// Signatures by document id.
pub type SigMap = FxHashMap<u64, SigRec>;

/// What is held of one document's signature.
#[derive(Debug, Clone, Copy)]
struct SigAt {
    fingerprint: Fingerprint,
    size: u64,
    /// The xxh3 hash of its values, and how many there are.
    digest: u64,
    len: u32,
    /// Where its payload starts in the file (read again only).
    offset: u64,
}

impl SigAt {
    fn of(s: &SigRec, offset: u64) -> SigAt {
        SigAt {
            fingerprint: s.fingerprint,
            size: s.size,
            digest: pl_core::minhash::sig_hash(&s.sig),
            len: s.sig.len() as u32,
            offset,
        }
    }
}

/// The pairs' documents' signatures.
pub struct Sigs {
    name: String,
    at: FxHashMap<u64, SigAt>,
    /// Every signature, when they cannot be read again.
    held: Option<SigMap>,
    file: Option<File>,
    /// The stream's header (a binary stream's, read again).
    params: Option<Params>,
}

impl Sigs {
    /// Reads the signature stream at `path`, keeping the documents in `wanted`: their
    /// signatures are held unless the stream is binary and in a file, to be read again.
    /// Returns the stream's parameters (`None` for an empty NDJSON stream).
    pub fn read(path: &Path, wanted: &FxHashSet<u64>) -> Result<(Option<Params>, Sigs)> {
        let input = open_input(Some(path))?;
        let name = input.name;
        let mut r: RecordReader<SigRec, _> =
            RecordReader::new(input.reader).with_context(|| name.clone())?;
        let file = r.is_binary().then(|| reopenable(path)).flatten();
        let mut sigs = Sigs {
            at: FxHashMap::default(),
            held: file.is_none().then(SigMap::default),
            file,
            params: r.params(),
            name,
        };
        let mut offset = HEADER_LEN as u64;
        while let Some(rec) = r.next().with_context(|| sigs.name.clone())? {
            let payload = sig_payload_len(rec.sig.len()) as u64;
            if wanted.contains(&rec.id) {
                // The payload follows its 4-byte length.
                sigs.at.insert(rec.id, SigAt::of(&rec, offset + 4));
                if let Some(held) = sigs.held.as_mut() {
                    held.insert(rec.id, rec);
                }
            }
            offset += 4 + payload;
        }
        Ok((r.params(), sigs))
    }

    /// Signatures already in memory (the index's), named `name` in errors.
    pub fn held(map: SigMap, name: &str) -> Sigs {
        Sigs {
            name: name.to_string(),
            at: map.iter().map(|(&id, s)| (id, SigAt::of(s, 0))).collect(),
            held: Some(map),
            file: None,
            params: None,
        }
    }

    /// The name of the stream, for errors.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Documents whose signature is known.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Whether document `id`'s signature is known.
    pub fn contains(&self, id: u64) -> bool {
        self.at.contains_key(&id)
    }

    /// What a document's signature takes in memory while its batch is scored (0 when they are
    /// all held anyway).
    pub fn cost(&self) -> u64 {
        match (&self.held, self.params) {
            (None, Some(p)) => 4 * u64::from(p.perms) + std::mem::size_of::<SigRec>() as u64 + 16,
            _ => 0,
        }
    }

    /// Whether documents `a` and `b` have one normalized text and one non-empty signature
    /// (their digests equal: unequal signatures of one text, possible only in a stream made
    /// by hand, are told apart but with odds of 2^-64).
    pub fn identical(&self, a: u64, b: u64) -> bool {
        let (x, y) = (&self.at[&a], &self.at[&b]);
        x.fingerprint == y.fingerprint
            && x.size == y.size
            && x.size > 0
            && x.len > 0
            && x.len == y.len
            && x.digest == y.digest
    }

    /// The signatures of `ids`, read again from the file on every thread; `None` when every
    /// signature is held ([`Sigs::all_held`]).
    pub fn load(&self, ids: &[u64]) -> Result<Option<SigMap>> {
        let (Some(file), Some(params), None) = (&self.file, &self.params, &self.held) else {
            return Ok(None);
        };
        ids.par_iter()
            .map_init(Vec::new, |buf, &id| {
                let at = &self.at[&id];
                let changed = || {
                    anyhow!(
                        "{}: changed while pl-score read it (document {id} is no longer at byte {})",
                        self.name,
                        at.offset
                    )
                };
                buf.resize(sig_payload_len(at.len as usize), 0);
                file.read_exact_at(buf, at.offset)
                    .map_err(|e| anyhow!("{}: byte {}: {e}", self.name, at.offset))?;
                let rec = SigRec::decode(buf, params).map_err(|_| changed())?;
                if rec.id != id || SigAt::of(&rec, at.offset).digest != at.digest {
                    return Err(changed());
                }
                Ok((id, rec))
            })
            .collect::<Result<SigMap>>()
            .map(Some)
    }

    /// The held signatures, when every one is.
    pub fn all_held(&self) -> Option<&SigMap> {
        self.held.as_ref()
    }

    /// Every document's id whose signature is known, in no order.
    pub fn ids(&self) -> Vec<u64> {
        self.at.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pl_core::records::{Format, RecordWriter};
    use pl_core::stream::{Part, SHINGLE_HASH_XXH3};

    fn recs() -> Vec<SigRec> {
        (1..=6u64)
            .map(|id| SigRec {
                id,
                fingerprint: u128::from(id % 3),
                size: id % 3,
                // Documents 1 and 4 are one text (and 3 and 6 empty).
                sig: (0..8).map(|i| (id % 3) as u32 * 100 + i).collect(),
            })
            .collect()
    }

    fn write(dir: &Path, format: Format) -> std::path::PathBuf {
        let params = Params {
            ngram: 5,
            min_words: 20,
            shingle_hash: SHINGLE_HASH_XXH3,
            perms: 8,
            scheme: 0,
            seed: 42,
            part: Part::Whole,
        };
        let path = dir.join(format!("{format:?}.sigs"));
        let mut w = RecordWriter::new::<SigRec>(Vec::new(), format, params).unwrap();
        for r in recs() {
            w.write(&r).unwrap();
        }
        std::fs::write(&path, w.finish().unwrap()).unwrap();
        path
    }

    #[test]
    fn a_binary_file_is_read_again_by_offset_and_ndjson_held() {
        let dir = tempfile::tempdir().unwrap();
        let wanted: FxHashSet<u64> = [1, 2, 4, 5].into_iter().collect();
        let all = recs();
        for (format, held) in [(Format::Binary, false), (Format::Json, true)] {
            let (_, sigs) = Sigs::read(&write(dir.path(), format), &wanted).unwrap();
            assert_eq!(sigs.len(), 4);
            assert!(sigs.contains(5) && !sigs.contains(3));
            assert_eq!(sigs.all_held().is_some(), held, "{format:?}");
            assert_eq!(sigs.cost() > 0, !held);
            let got = match sigs.load(&[5, 1]).unwrap() {
                Some(loaded) => loaded,
                None => sigs.all_held().unwrap().clone(),
            };
            assert_eq!(got[&5], all[4]);
            assert_eq!(got[&1], all[0]);
            assert!(sigs.identical(1, 4) && !sigs.identical(1, 2));
        }
    }

    #[test]
    fn a_file_changed_under_the_reader_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), Format::Binary);
        let (_, sigs) = Sigs::read(&path, &[2, 5].into_iter().collect()).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let at = sigs.at[&5].offset as usize;
        bytes[at + 40] ^= 1; // its first value
        std::fs::write(&path, bytes).unwrap();
        assert!(sigs.load(&[2]).is_ok());
        let err = sigs.load(&[5]).unwrap_err().to_string();
        assert!(err.contains("changed while pl-score read it"), "{err}");
    }

    #[test]
    fn empty_signatures_are_never_identical() {
        let sigs = Sigs::held(recs().into_iter().map(|r| (r.id, r)).collect(), "the index");
        // 3 and 6: one text whose shingle set is empty.
        assert!(!sigs.identical(3, 6));
        assert!(sigs.identical(2, 5));
    }
}
