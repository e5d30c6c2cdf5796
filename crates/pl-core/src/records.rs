//! Shingle and signature records, in their binary and JSON forms, and a reader that
//! autodetects which form a stream uses.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::error::{Error, Result};
use crate::fields::FieldError;
use crate::stream::{is_binary, Header, Kind, Params, StreamReader, StreamWriter};

/// A 128-bit fingerprint of a normalized text, written as 32 lowercase hex digits in JSON.
pub type Fingerprint = u128;

/// Formats a fingerprint as 32 hex digits.
pub fn fingerprint_hex(f: Fingerprint) -> String {
    format!("{f:032x}")
}

/// Parses 32 hex digits.
pub fn parse_fingerprint(s: &str) -> Option<Fingerprint> {
    (s.len() == 32)
        .then(|| u128::from_str_radix(s, 16).ok())
        .flatten()
}

/// Formats a 64-bit hash (a band key, a token's or word's hash) as 16 hex digits.
pub fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

/// Parses exactly 16 hex digits.
pub fn parse_hash_hex(s: &str) -> Option<u64> {
    let ok = s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| u64::from_str_radix(s, 16).ok()).flatten()
}

/// What is wrong with one shingle or signature record (the reader adds the input and the
/// line or record number).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RecordError {
    /// A payload shorter than its fields.
    #[error("record payload too short")]
    TooShort,
    /// A payload whose vector length does not match the bytes left.
    #[error("record payload length mismatch: {n} elements of {elem} bytes, {left} bytes left")]
    LengthMismatch {
        /// The length the payload declares.
        n: u64,
        /// Bytes per element.
        elem: usize,
        /// Bytes left for the elements.
        left: usize,
    },
    /// A JSON record of another kind.
    #[error("record kind is {got:?}, this stage reads {} records", expected.read_first())]
    OtherKind {
        /// The record's kind.
        got: String,
        /// The kind this stage reads.
        expected: Kind,
    },
    /// A JSON record without `kind`: another stage's output (a docs or norm record, say).
    #[error("no \"kind\": this stage reads {} records", .0.read_first())]
    NoKind(Kind),
    /// A parameter that is not a non-negative integer.
    #[error("\"{0}\" is not a non-negative integer")]
    NotU64(String),
    /// A required field that is missing.
    #[error("missing \"{0}\"")]
    Missing(String),
    /// A parameter over 32 bits.
    #[error("\"{0}\" out of range")]
    OutOfRange(String),
    /// A `part` other than 0, 1 or 2.
    #[error("\"part\" is not 0 (whole), 1 (head) or 2 (tail)")]
    Part,
    /// A `fingerprint` that is not 32 hex digits.
    #[error("\"fingerprint\" is not 32 hex digits")]
    Fingerprint,
    /// Shingle hashes out of order or repeated (binary form).
    #[error("shingle hashes are not sorted and unique")]
    HashesUnsorted,
    /// Shingle hashes out of order or repeated (JSON form).
    #[error("\"shingles\" are not sorted and unique")]
    ShinglesUnsorted,
    /// A JSON field that is not an array of the integers it holds.
    #[error("\"{field}\" is not an array of {of}")]
    NotArray {
        /// The field.
        field: &'static str,
        /// Its element type.
        of: &'static str,
    },
    /// A binary signature whose length is not the header's.
    #[error("signature has {n} values, the header says {perms}")]
    SigLength {
        /// Values in the record.
        n: usize,
        /// The header's signature length.
        perms: u32,
    },
    /// A JSON signature whose length is not its `perms`.
    #[error("\"sig\" has {n} values, \"perms\" says {perms}")]
    SigPerms {
        /// Values in the record.
        n: usize,
        /// The record's `perms`.
        perms: u32,
    },
    /// A typed field that is missing or invalid.
    #[error(transparent)]
    Field(#[from] FieldError),
}

/// One record of a binary-capable stream.
pub trait Record: Sized {
    /// The kind written in the stream header.
    const KIND: Kind;
    /// The document id.
    fn id(&self) -> u64;
    /// Appends the bincode-compatible payload to `buf`.
    fn encode(&self, buf: &mut Vec<u8>);
    /// Decodes a payload; `params` is the stream's header.
    fn decode(payload: &[u8], params: &Params) -> std::result::Result<Self, RecordError>;
    /// The JSON form (a record with the producing parameters inline).
    fn to_json(&self, params: &Params) -> Value;
    /// Reads the JSON form, returning the record and the parameters it carries.
    fn from_json(v: Map<String, Value>) -> std::result::Result<(Self, Params), RecordError>;
}

/// A document's set of shingle hashes, sorted ascending without repeats.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShingleRec {
    /// Document id.
    pub id: u64,
    /// Fingerprint of the normalized text.
    pub fingerprint: Fingerprint,
    /// Sorted, deduplicated shingle hashes.
    pub hashes: Vec<u64>,
}

/// A document's MinHash signature.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SigRec {
    /// Document id.
    pub id: u64,
    /// Fingerprint of the normalized text.
    pub fingerprint: Fingerprint,
    /// Number of shingles the signature was made from (for the containment estimate).
    pub size: u64,
    /// K minimum hash values.
    pub sig: Vec<u32>,
}

struct Cursor<'a> {
    b: &'a [u8],
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> std::result::Result<[u8; N], RecordError> {
        if self.b.len() < N {
            return Err(RecordError::TooShort);
        }
        let (head, rest) = self.b.split_at(N);
        self.b = rest;
        Ok(head.try_into().expect("N bytes"))
    }
    fn u64(&mut self) -> std::result::Result<u64, RecordError> {
        self.take::<8>().map(u64::from_le_bytes)
    }
    fn u128(&mut self) -> std::result::Result<u128, RecordError> {
        self.take::<16>().map(u128::from_le_bytes)
    }
    /// A bincode `Vec` length, checked against the bytes left so a corrupt length cannot
    /// make us allocate gigabytes.
    fn len(&mut self, elem: usize) -> std::result::Result<usize, RecordError> {
        let n = self.u64()?;
        if n.checked_mul(elem as u64) != Some(self.b.len() as u64) {
            return Err(RecordError::LengthMismatch {
                n,
                elem,
                left: self.b.len(),
            });
        }
        Ok(n as usize)
    }
}

fn json_params(v: &mut Map<String, Value>, kind: Kind) -> std::result::Result<Params, RecordError> {
    match v.remove("kind") {
        Some(Value::String(k)) if k == kind.name() => {}
        Some(Value::String(k)) => {
            return Err(RecordError::OtherKind {
                got: k,
                expected: kind,
            })
        }
        _ => return Err(RecordError::NoKind(kind)),
    }
    let mut num = |name: &str, required: bool| -> std::result::Result<u64, RecordError> {
        match v.remove(name) {
            Some(x) => x.as_u64().ok_or_else(|| RecordError::NotU64(name.into())),
            None if required => Err(RecordError::Missing(name.into())),
            None => Ok(0),
        }
    };
    let sigs = kind == Kind::Sigs;
    let small =
        |x: u64, name: &str| u32::try_from(x).map_err(|_| RecordError::OutOfRange(name.into()));
    Ok(Params {
        ngram: small(num("ngram", true)?, "ngram")?,
        min_words: small(num("min_words", true)?, "min_words")?,
        shingle_hash: small(num("shingle_hash", true)?, "shingle_hash")?,
        perms: small(num("perms", sigs)?, "perms")?,
        scheme: small(num("scheme", sigs)?, "scheme")?,
        seed: num("seed", sigs)?,
        part: crate::stream::Part::from_number(num("part", false)?).ok_or(RecordError::Part)?,
    })
}

/// A JSON record with its stream's part, named only when not the whole text (so records of
/// whole-text streams read as they always did).
fn with_part(mut v: Value, p: &Params) -> Value {
    if p.part != crate::stream::Part::Whole {
        v["part"] = json!(p.part as u8);
    }
    v
}

fn json_id_fp(v: &mut Map<String, Value>) -> std::result::Result<(u64, Fingerprint), RecordError> {
    let id = v
        .remove("id")
        .and_then(|x| x.as_u64())
        .ok_or(FieldError::NotU64("id".into()))?;
    let fp = match v.remove("fingerprint") {
        Some(Value::String(s)) => parse_fingerprint(&s).ok_or(RecordError::Fingerprint)?,
        _ => return Err(RecordError::Missing("fingerprint".into())),
    };
    Ok((id, fp))
}

impl Record for ShingleRec {
    const KIND: Kind = Kind::Shingles;

    fn id(&self) -> u64 {
        self.id
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.id.to_le_bytes());
        buf.extend_from_slice(&self.fingerprint.to_le_bytes());
        buf.extend_from_slice(&(self.hashes.len() as u64).to_le_bytes());
        for h in &self.hashes {
            buf.extend_from_slice(&h.to_le_bytes());
        }
    }

    fn decode(payload: &[u8], _params: &Params) -> std::result::Result<Self, RecordError> {
        let mut c = Cursor { b: payload };
        let id = c.u64()?;
        let fingerprint = c.u128()?;
        let n = c.len(8)?;
        let hashes: Vec<u64> =
            c.b.chunks_exact(8)
                .map(|x| u64::from_le_bytes(x.try_into().expect("8 bytes")))
                .collect();
        debug_assert_eq!(hashes.len(), n);
        if hashes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(RecordError::HashesUnsorted);
        }
        Ok(ShingleRec {
            id,
            fingerprint,
            hashes,
        })
    }

    fn to_json(&self, p: &Params) -> Value {
        with_part(
            json!({"kind": "shingles", "id": self.id, "fingerprint": fingerprint_hex(self.fingerprint),
               "ngram": p.ngram, "min_words": p.min_words, "shingle_hash": p.shingle_hash,
               "shingles": self.hashes}),
            p,
        )
    }

    fn from_json(mut v: Map<String, Value>) -> std::result::Result<(Self, Params), RecordError> {
        let params = json_params(&mut v, Kind::Shingles)?;
        let (id, fingerprint) = json_id_fp(&mut v)?;
        let hashes: Vec<u64> = match v.remove("shingles") {
            Some(x) => serde_json::from_value(x).map_err(|_| RecordError::NotArray {
                field: "shingles",
                of: "u64",
            })?,
            None => return Err(RecordError::Missing("shingles".into())),
        };
        if hashes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(RecordError::ShinglesUnsorted);
        }
        Ok((
            ShingleRec {
                id,
                fingerprint,
                hashes,
            },
            params,
        ))
    }
}

impl Record for SigRec {
    const KIND: Kind = Kind::Sigs;

    fn id(&self) -> u64 {
        self.id
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        let at = buf.len();
        buf.resize(at + sig_payload_len(self.sig.len()), 0);
        encode_sig_into(
            self.id,
            self.fingerprint,
            self.size,
            &self.sig,
            &mut buf[at..],
        );
    }

    fn decode(payload: &[u8], params: &Params) -> std::result::Result<Self, RecordError> {
        let mut c = Cursor { b: payload };
        let id = c.u64()?;
        let fingerprint = c.u128()?;
        let size = c.u64()?;
        let n = c.len(4)?;
        if n != params.perms as usize {
            return Err(RecordError::SigLength {
                n,
                perms: params.perms,
            });
        }
        let sig =
            c.b.chunks_exact(4)
                .map(|x| u32::from_le_bytes(x.try_into().expect("4 bytes")))
                .collect();
        Ok(SigRec {
            id,
            fingerprint,
            size,
            sig,
        })
    }

    fn to_json(&self, p: &Params) -> Value {
        with_part(
            json!({"kind": "sigs", "id": self.id, "fingerprint": fingerprint_hex(self.fingerprint), "size": self.size,
               "ngram": p.ngram, "min_words": p.min_words, "shingle_hash": p.shingle_hash,
               "perms": p.perms, "scheme": p.scheme, "seed": p.seed, "sig": self.sig}),
            p,
        )
    }

    fn from_json(mut v: Map<String, Value>) -> std::result::Result<(Self, Params), RecordError> {
        let params = json_params(&mut v, Kind::Sigs)?;
        let (id, fingerprint) = json_id_fp(&mut v)?;
        let size = v
            .remove("size")
            .and_then(|x| x.as_u64())
            .ok_or(FieldError::NotU64("size".into()))?;
        let sig: Vec<u32> = match v.remove("sig") {
            Some(x) => serde_json::from_value(x).map_err(|_| RecordError::NotArray {
                field: "sig",
                of: "u32",
            })?,
            None => return Err(RecordError::Missing("sig".into())),
        };
        if sig.len() != params.perms as usize {
            return Err(RecordError::SigPerms {
                n: sig.len(),
                perms: params.perms,
            });
        }
        Ok((
            SigRec {
                id,
                fingerprint,
                size,
                sig,
            },
            params,
        ))
    }
}

/// Bytes of the payload of a signature record with K values: id, fingerprint, size, K, values.
pub fn sig_payload_len(perms: usize) -> usize {
    8 + 16 + 8 + 8 + 4 * perms
}

/// Writes the payload of a signature record into `out`, which is exactly
/// [`sig_payload_len`]`(sig.len())` bytes: the encoding of [`SigRec`] without building one,
/// so a stage can fill a preallocated buffer from many threads.
pub fn encode_sig_into(id: u64, fingerprint: Fingerprint, size: u64, sig: &[u32], out: &mut [u8]) {
    assert_eq!(
        out.len(),
        sig_payload_len(sig.len()),
        "signature payload length"
    );
    out[0..8].copy_from_slice(&id.to_le_bytes());
    out[8..24].copy_from_slice(&fingerprint.to_le_bytes());
    out[24..32].copy_from_slice(&size.to_le_bytes());
    out[32..40].copy_from_slice(&(sig.len() as u64).to_le_bytes());
    for (o, h) in out[40..].chunks_exact_mut(4).zip(sig) {
        o.copy_from_slice(&h.to_le_bytes());
    }
}

/// Output encoding of a record stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Header + length-prefixed frames + trailer.
    Binary,
    /// One JSON object per line, parameters inline.
    Json,
}

/// Writes records of one kind in either format.
pub enum RecordWriter<W: Write> {
    /// Binary stream.
    Binary(StreamWriter<W>, Vec<u8>),
    /// NDJSON.
    Json(W, Params),
}

impl<W: Write> RecordWriter<W> {
    /// Starts a stream of records of kind `T`.
    pub fn new<T: Record>(w: W, format: Format, params: Params) -> Result<Self> {
        Ok(match format {
            Format::Binary => RecordWriter::Binary(
                StreamWriter::new(
                    w,
                    &Header {
                        kind: T::KIND,
                        params,
                    },
                )?,
                Vec::new(),
            ),
            Format::Json => RecordWriter::Json(w, params),
        })
    }

    /// Writes one record.
    pub fn write<T: Record>(&mut self, rec: &T) -> Result<()> {
        match self {
            RecordWriter::Binary(w, buf) => {
                buf.clear();
                rec.encode(buf);
                w.write_frame(buf)
            }
            RecordWriter::Json(w, params) => {
                serde_json::to_writer(&mut *w, &rec.to_json(params))
                    .map_err(std::io::Error::from)?;
                w.write_all(b"\n")?;
                Ok(())
            }
        }
    }

    /// Writes one record given as its encoded payload ([`Record::encode`]'s bytes): copied
    /// as a frame in the binary form, decoded and written as JSON in the other.
    pub fn write_payload<T: Record>(&mut self, payload: &[u8]) -> Result<()> {
        match self {
            RecordWriter::Binary(w, _) => w.write_frame(payload),
            RecordWriter::Json(_, params) => {
                let rec = T::decode(payload, params).map_err(|e| Error::Config(e.to_string()))?;
                self.write(&rec)
            }
        }
    }

    /// Ends the stream (writes the binary trailer) and returns the writer, unflushed.
    pub fn finish(self) -> Result<W> {
        match self {
            RecordWriter::Binary(w, _) => w.finish(),
            RecordWriter::Json(w, _) => Ok(w),
        }
    }
}

/// Reads records of one kind from a binary or NDJSON stream, detected by the first byte.
pub struct RecordReader<T: Record, R: BufRead> {
    src: Source<R>,
    params: Option<Params>,
    pending: Option<T>,
    buf: Vec<u8>,
    /// Where each id was first read (record number or line): a repeated id is refused, as
    /// every stage keys its documents by id.
    seen: rustc_hash::FxHashMap<u64, u64>,
}

enum Source<R: BufRead> {
    Binary(StreamReader<R>),
    Json { r: R, line: u64, text: Vec<u8> },
}

impl<T: Record, R: BufRead> RecordReader<T, R> {
    /// Opens a stream, reading the header (binary) or the first record (JSON).
    pub fn new(mut r: R) -> Result<Self> {
        let binary = is_binary(r.fill_buf()?);
        let src = if binary {
            let s = StreamReader::new(r)?;
            if s.header().kind != T::KIND {
                return Err(Error::Mismatch {
                    what: "record kind",
                    expected: T::KIND.name().into(),
                    got: s.header().kind.name().into(),
                    advice: "feed this stage the output of the stage before it",
                });
            }
            Source::Binary(s)
        } else {
            Source::Json {
                r,
                line: 0,
                text: Vec::new(),
            }
        };
        let mut me = RecordReader {
            params: match &src {
                Source::Binary(s) => Some(s.header().params),
                Source::Json { .. } => None,
            },
            src,
            pending: None,
            buf: Vec::new(),
            seen: rustc_hash::FxHashMap::default(),
        };
        if !binary {
            me.pending = me.next_json()?;
        }
        Ok(me)
    }

    /// The producing parameters; `None` for an empty NDJSON stream.
    pub fn params(&self) -> Option<Params> {
        self.params
    }

    /// Is the input the binary form?
    pub fn is_binary(&self) -> bool {
        matches!(self.src, Source::Binary(_))
    }

    fn next_json(&mut self) -> Result<Option<T>> {
        let Source::Json { r, line, text } = &mut self.src else {
            unreachable!("JSON source")
        };
        loop {
            text.clear();
            if r.read_until(b'\n', text)? == 0 {
                return Ok(None);
            }
            *line += 1;
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let at = *line;
            let bad = |msg: String| Error::Line { line: at, msg };
            let text = std::str::from_utf8(text)
                .map_err(|e| bad(format!("not UTF-8 text (byte {})", e.valid_up_to() + 1)))?;
            let map: Map<String, Value> =
                serde_json::from_str(text).map_err(|e| bad(format!("invalid JSON: {e}")))?;
            let (rec, params) = T::from_json(map).map_err(|e| bad(e.to_string()))?;
            if let Some(first) = self.seen.insert(rec.id(), at) {
                return Err(bad(format!(
                    "id {} repeated (first on line {first})",
                    rec.id()
                )));
            }
            match self.params {
                None => self.params = Some(params),
                Some(p) if p != params => {
                    return Err(bad(format!(
                        "parameters differ from the first record's ({params:?} vs {p:?})"
                    )))
                }
                Some(_) => {}
            }
            return Ok(Some(rec));
        }
    }

    /// The next record, or `None` at a valid end of stream.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<T>> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        match &mut self.src {
            Source::Binary(s) => {
                if !s.next_frame(&mut self.buf)? {
                    return Ok(None);
                }
                let params = s.header().params;
                let record = s.count();
                let rec = T::decode(&self.buf, &params).map_err(|e| Error::Record {
                    record,
                    msg: e.to_string(),
                })?;
                if let Some(first) = self.seen.insert(rec.id(), record) {
                    return Err(Error::Record {
                        record,
                        msg: format!("id {} repeated (first at record {first})", rec.id()),
                    });
                }
                Ok(Some(rec))
            }
            Source::Json { .. } => self.next_json(),
        }
    }
}

/// Checks a stream's parameter against what a stage expects.
pub fn expect_param<V: PartialEq + std::fmt::Display>(
    what: &'static str,
    expected: V,
    got: V,
    advice: &'static str,
) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::Mismatch {
            what,
            expected: expected.to_string(),
            got: got.to_string(),
            advice,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Signature parameters for `perms > 0`, shingle parameters (no MinHash fields) for 0.
    fn params(perms: u32) -> Params {
        Params {
            ngram: 3,
            min_words: 20,
            shingle_hash: 1,
            perms,
            scheme: u32::from(perms > 0),
            seed: if perms > 0 { 7 } else { 0 },
            part: crate::stream::Part::Head,
        }
    }

    #[test]
    fn payloads_write_the_same_stream_as_records() {
        let recs = [
            SigRec {
                id: 3,
                fingerprint: 0xABCD << 64 | 9,
                size: 17,
                sig: vec![1, u32::MAX, 7, 0],
            },
            SigRec {
                id: 5,
                fingerprint: 1,
                size: 0,
                sig: vec![u32::MAX; 4],
            },
        ];
        for format in [Format::Binary, Format::Json] {
            let mut a = RecordWriter::new::<SigRec>(Vec::new(), format, params(4)).unwrap();
            let mut b = RecordWriter::new::<SigRec>(Vec::new(), format, params(4)).unwrap();
            for r in &recs {
                a.write(r).unwrap();
                let mut payload = vec![0u8; sig_payload_len(r.sig.len())];
                encode_sig_into(r.id, r.fingerprint, r.size, &r.sig, &mut payload);
                let mut encoded = Vec::new();
                r.encode(&mut encoded);
                assert_eq!(payload, encoded);
                b.write_payload::<SigRec>(&payload).unwrap();
            }
            assert_eq!(a.finish().unwrap(), b.finish().unwrap(), "{format:?}");
        }
    }

    #[test]
    fn a_repeated_id_is_refused_with_both_positions() {
        let rec = |id| ShingleRec {
            id,
            fingerprint: 1,
            hashes: vec![id],
        };
        for format in [Format::Binary, Format::Json] {
            let mut w = RecordWriter::new::<ShingleRec>(Vec::new(), format, params(0)).unwrap();
            for id in [4, 9, 4] {
                w.write(&rec(id)).unwrap();
            }
            let bytes = w.finish().unwrap();
            let mut r = RecordReader::<ShingleRec, _>::new(&bytes[..]).unwrap();
            assert_eq!(r.next().unwrap().unwrap().id, 4);
            assert_eq!(r.next().unwrap().unwrap().id, 9);
            let err = r.next().unwrap_err().to_string();
            let want = match format {
                Format::Binary => "id 4 repeated (first at record 1)",
                Format::Json => "id 4 repeated (first on line 1)",
            };
            assert!(err.contains(want), "{format:?}: {err}");
        }
    }

    fn round_trip<T: Record + Clone + PartialEq + std::fmt::Debug>(
        recs: &[T],
        p: Params,
        format: Format,
    ) -> Vec<T> {
        let mut w = RecordWriter::new::<T>(Vec::new(), format, p).unwrap();
        for r in recs {
            w.write(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r = RecordReader::<T, _>::new(&bytes[..]).unwrap();
        let mut out = Vec::new();
        while let Some(x) = r.next().unwrap() {
            out.push(x);
        }
        if !recs.is_empty() {
            assert_eq!(r.params(), Some(p));
        }
        out
    }

    proptest! {
        #[test]
        fn shingles_round_trip(recs in prop::collection::vec(
            (any::<u64>(), any::<u128>(), prop::collection::btree_set(any::<u64>(), 0..50)), 0..20),
            json in any::<bool>()) {
            let recs: Vec<ShingleRec> = recs.into_iter().map(|(id, fingerprint, s)| ShingleRec {
                id, fingerprint, hashes: s.into_iter().collect() }).collect();
            let format = if json { Format::Json } else { Format::Binary };
            prop_assert_eq!(round_trip(&recs, params(0), format), recs);
        }

        #[test]
        fn sigs_round_trip(recs in prop::collection::vec(
            (any::<u64>(), any::<u128>(), any::<u64>(), prop::collection::vec(any::<u32>(), 16)), 0..20),
            json in any::<bool>()) {
            let recs: Vec<SigRec> = recs.into_iter().map(|(id, fingerprint, size, sig)| SigRec {
                id, fingerprint, size, sig }).collect();
            let format = if json { Format::Json } else { Format::Binary };
            prop_assert_eq!(round_trip(&recs, params(16), format), recs);
        }
    }

    #[test]
    fn wrong_kind_is_a_mismatch() {
        let w = RecordWriter::new::<ShingleRec>(Vec::new(), Format::Binary, params(0)).unwrap();
        let bytes = w.finish().unwrap();
        let err = RecordReader::<SigRec, _>::new(&bytes[..])
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("record kind") && err.contains("shingles"),
            "{err}"
        );
    }

    #[test]
    fn json_errors_name_the_line() {
        let text = "\n{\"kind\":\"sigs\"}\n";
        let err = RecordReader::<SigRec, _>::new(text.as_bytes())
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("line 2:"), "{err}");
    }

    #[test]
    fn corrupt_length_does_not_allocate() {
        let mut buf = Vec::new();
        SigRec {
            id: 1,
            fingerprint: 2,
            size: 3,
            sig: vec![1, 2],
        }
        .encode(&mut buf);
        buf[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(SigRec::decode(&buf, &params(2)).is_err());
    }
}
