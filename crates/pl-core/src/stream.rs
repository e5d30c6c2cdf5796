//! The binary record stream used for shingles and signatures.
//!
//! Layout (all integers little-endian; docs/FORMATS.md has the byte-by-byte table):
//!
//! ```text
//! header  40 bytes: magic "\x89PLD", version u16, kind u8, part u8,
//!                   ngram u32, min_words u32, shingle_hash u32, perms u32, scheme u32,
//!                   seed u64, checksum u32 (xxh3-64 of bytes 0..36, low 32 bits)
//! frame   u32 length (< 0xFFFF_FFFF) + payload (bincode-compatible fixint layout)
//! trailer u32 0xFFFF_FFFF, u64 record count, u64 xxh3-64 over all payload bytes
//! ```
//!
//! The trailer is what makes truncation detectable: a stream cut at a frame boundary
//! has no trailer, and a reader reports it instead of returning short output.

use std::io::{BufRead, Read, Write};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{Error, Result};

/// First bytes of every binary stream. The non-ASCII lead byte can never start an NDJSON line.
pub const MAGIC: [u8; 4] = [0x89, b'P', b'L', b'D'];
/// The format version this crate writes and reads.
pub const VERSION: u16 = 1;
/// Header size in bytes.
pub const HEADER_LEN: usize = 40;
const TRAILER_TAG: u32 = u32::MAX;
/// Largest frame a reader accepts; anything larger is treated as corruption.
pub const MAX_FRAME: u32 = 1 << 30;

/// What the records of a stream are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Sorted, deduplicated u64 shingle hashes per document.
    Shingles = 1,
    /// MinHash signatures per document.
    Sigs = 2,
}

impl Kind {
    /// The name used in JSON records and messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Shingles => "shingles",
            Kind::Sigs => "sigs",
        }
    }

    /// The kind and the tool that writes it, as a stage given something else says it:
    /// `"sigs" (pl-minhash writes them: run it first)`.
    pub fn read_first(self) -> &'static str {
        match self {
            Kind::Shingles => "\"shingles\" (pl-shingle writes them: run it first)",
            Kind::Sigs => "\"sigs\" (pl-minhash writes them: run it first)",
        }
    }

    fn from_u8(v: u8) -> Option<Kind> {
        match v {
            1 => Some(Kind::Shingles),
            2 => Some(Kind::Sigs),
            _ => None,
        }
    }

    /// Parses a kind name.
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "shingles" => Some(Kind::Shingles),
            "sigs" => Some(Kind::Sigs),
            _ => None,
        }
    }
}

/// The shingle hash scheme: xxh3-64 (seed 0) of the UTF-8 bytes of the n words joined by one space.
pub const SHINGLE_HASH_XXH3: u32 = 1;
/// Character shingles: xxh3-64 (seed 0) of every n consecutive characters of the normalized text.
pub const SHINGLE_HASH_CHARS_XXH3: u32 = 2;

/// Which words of each document a stream's records cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Part {
    /// The whole text.
    #[default]
    Whole = 0,
    /// The first words only (`pl-shingle --part head:N`).
    Head = 1,
    /// The last words only (`pl-shingle --part tail:N`).
    Tail = 2,
}

impl Part {
    /// The name used in JSON records and messages.
    pub fn name(self) -> &'static str {
        match self {
            Part::Whole => "whole",
            Part::Head => "head",
            Part::Tail => "tail",
        }
    }

    /// The part of a header byte or JSON number.
    pub fn from_number(v: u64) -> Option<Part> {
        match v {
            0 => Some(Part::Whole),
            1 => Some(Part::Head),
            2 => Some(Part::Tail),
            _ => None,
        }
    }
}

/// The parameters that produced a stream. Every later stage checks the ones it depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Words per shingle.
    pub ngram: u32,
    /// Documents with fewer words were skipped.
    pub min_words: u32,
    /// Shingle hash scheme ([`SHINGLE_HASH_XXH3`]).
    pub shingle_hash: u32,
    /// Signature length K (0 in a shingle stream).
    pub perms: u32,
    /// MinHash scheme (see [`crate::minhash::Scheme`]; 0 in a shingle stream).
    pub scheme: u32,
    /// MinHash seed (0 in a shingle stream).
    pub seed: u64,
    /// Which words of each document were shingled.
    pub part: Part,
}

impl Params {
    /// Checks that a head or tail sketch's parameters (`self`) are those of the whole texts'
    /// signatures (`whole`) but for the part, so that their candidates can be added.
    pub fn check_part_of(&self, whole: &Params) -> crate::Result<()> {
        use crate::records::expect_param;
        const ADVICE: &str = "make the part signatures with the whole texts' flags";
        for (what, want, got) in [
            ("perms (signature length K)", whole.perms, self.perms),
            ("ngram", whole.ngram, self.ngram),
            ("shingle_hash", whole.shingle_hash, self.shingle_hash),
            ("scheme", whole.scheme, self.scheme),
        ] {
            expect_param(what, want, got, ADVICE)?;
        }
        expect_param("seed", whole.seed, self.seed, ADVICE)
    }
}

impl Params {
    /// Checks a shingle stream's parameters (`self`) against the shingling flags a stage
    /// reading it was given (`None`: not given, anything goes): n-gram size, part and
    /// minimum words. The unit is checked by [`Params::expect_shingle_hash`].
    pub fn expect_shingling(
        &self,
        ngram: Option<u32>,
        part: Option<Part>,
        min_words: Option<u32>,
    ) -> crate::Result<()> {
        use crate::records::expect_param;
        if let Some(n) = ngram {
            expect_param(
                "ngram",
                n,
                self.ngram,
                "re-run pl-shingle with the n-gram size this pipeline uses, or change --ngram",
            )?;
        }
        if let Some(part) = part {
            expect_param(
                "part",
                part.name(),
                self.part.name(),
                "re-run pl-shingle with the --part this pipeline uses, or change --part",
            )?;
        }
        if let Some(m) = min_words {
            expect_param(
                "min_words",
                m,
                self.min_words,
                "re-run pl-shingle with the --min-words this pipeline uses, or change --min-words",
            )?;
        }
        Ok(())
    }

    /// Checks a shingle stream's shingle hash (`self`'s: it names the unit) against the one
    /// of the unit a stage was given.
    pub fn expect_shingle_hash(&self, want: u32) -> crate::Result<()> {
        crate::records::expect_param(
            "shingle_hash",
            want,
            self.shingle_hash,
            "re-run pl-shingle with the --unit this pipeline uses, or change --unit",
        )
    }
}

/// A stream header: kind and parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Record kind.
    pub kind: Kind,
    /// Producing parameters.
    pub params: Params,
}

impl Header {
    /// Encodes the 40-byte header.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&MAGIC);
        b[4..6].copy_from_slice(&VERSION.to_le_bytes());
        b[6] = self.kind as u8;
        b[7] = self.params.part as u8;
        let p = &self.params;
        b[8..12].copy_from_slice(&p.ngram.to_le_bytes());
        b[12..16].copy_from_slice(&p.min_words.to_le_bytes());
        b[16..20].copy_from_slice(&p.shingle_hash.to_le_bytes());
        b[20..24].copy_from_slice(&p.perms.to_le_bytes());
        b[24..28].copy_from_slice(&p.scheme.to_le_bytes());
        b[28..36].copy_from_slice(&p.seed.to_le_bytes());
        let sum = xxh3_64(&b[0..36]) as u32;
        b[36..40].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Decodes and validates a 40-byte header.
    pub fn decode(b: &[u8; HEADER_LEN]) -> Result<Header> {
        if b[0..4] != MAGIC {
            return Err(Error::Stream(
                "not a paperless-dedupe binary stream (bad magic bytes)".into(),
            ));
        }
        let version = u16::from_le_bytes([b[4], b[5]]);
        if version != VERSION {
            return Err(Error::Stream(format!(
                "binary stream format version {version}, this build reads version {VERSION}: regenerate the stream with this build"
            )));
        }
        let sum = u32_at(b, 36);
        if sum != xxh3_64(&b[0..36]) as u32 {
            return Err(Error::Stream(
                "corrupt binary stream header (checksum mismatch)".into(),
            ));
        }
        let kind = Kind::from_u8(b[6])
            .ok_or_else(|| Error::Stream(format!("unknown record kind {} in header", b[6])))?;
        let part = Part::from_number(u64::from(b[7]))
            .ok_or_else(|| Error::Stream(format!("unknown part {} in header", b[7])))?;
        Ok(Header {
            kind,
            params: Params {
                ngram: u32_at(b, 8),
                min_words: u32_at(b, 12),
                shingle_hash: u32_at(b, 16),
                perms: u32_at(b, 20),
                scheme: u32_at(b, 24),
                seed: u64::from_le_bytes(b[28..36].try_into().expect("8 bytes")),
                part,
            },
        })
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Writes a binary stream: header, frames, then the trailer on [`StreamWriter::finish`].
pub struct StreamWriter<W: Write> {
    w: W,
    count: u64,
    hasher: Box<Xxh3>, // boxed: the xxh3 state is ~600 bytes
}

impl<W: Write> StreamWriter<W> {
    /// Starts a stream by writing its header.
    pub fn new(mut w: W, header: &Header) -> Result<Self> {
        w.write_all(&header.encode())?;
        Ok(StreamWriter {
            w,
            count: 0,
            hasher: Box::new(Xxh3::new()),
        })
    }

    /// Writes one frame.
    pub fn write_frame(&mut self, payload: &[u8]) -> Result<()> {
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&l| l <= MAX_FRAME)
            .ok_or_else(|| Error::Config(format!("record too large: {} bytes", payload.len())))?;
        self.w.write_all(&len.to_le_bytes())?;
        self.w.write_all(payload)?;
        self.hasher.update(payload);
        self.count += 1;
        Ok(())
    }

    /// Writes the trailer and returns the inner writer (not flushed).
    pub fn finish(mut self) -> Result<W> {
        self.w.write_all(&TRAILER_TAG.to_le_bytes())?;
        self.w.write_all(&self.count.to_le_bytes())?;
        self.w.write_all(&self.hasher.digest().to_le_bytes())?;
        Ok(self.w)
    }
}

/// Reads the frames of a binary stream whose header has already been consumed.
pub struct StreamReader<R: Read> {
    r: R,
    header: Header,
    count: u64,
    hasher: Box<Xxh3>, // boxed: the xxh3 state is ~600 bytes
    done: bool,
}

impl<R: BufRead> StreamReader<R> {
    /// Reads and validates the header.
    pub fn new(mut r: R) -> Result<Self> {
        let mut h = [0u8; HEADER_LEN];
        read_exact_or(&mut r, &mut h, || {
            Error::Stream("truncated binary stream: incomplete header".into())
        })?;
        Ok(Self::with_header(r, Header::decode(&h)?))
    }
}

impl<R: Read> StreamReader<R> {
    /// Continues a stream whose header was read by the caller.
    pub fn with_header(r: R, header: Header) -> Self {
        StreamReader {
            r,
            header,
            count: 0,
            hasher: Box::new(Xxh3::new()),
            done: false,
        }
    }

    /// The stream's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Number of frames read so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Reads the next frame into `buf`; `Ok(false)` after a valid trailer.
    pub fn next_frame(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        let record = self.count + 1;
        let mut len = [0u8; 4];
        read_exact_or(&mut self.r, &mut len, || {
            Error::Stream(format!(
                "truncated binary stream: ends after {} records without its end marker",
                self.count
            ))
        })?;
        let len = u32::from_le_bytes(len);
        if len == TRAILER_TAG {
            return self.read_trailer().map(|()| false);
        }
        if len > MAX_FRAME {
            return Err(Error::Record {
                record,
                msg: format!("corrupt frame length {len}"),
            });
        }
        buf.clear();
        buf.resize(len as usize, 0);
        read_exact_or(&mut self.r, buf, || Error::Record {
            record,
            msg: "truncated binary stream: record cut short".into(),
        })?;
        self.hasher.update(buf);
        self.count = record;
        Ok(true)
    }

    fn read_trailer(&mut self) -> Result<()> {
        let mut t = [0u8; 16];
        read_exact_or(&mut self.r, &mut t, || {
            Error::Stream("truncated binary stream: end marker cut short".into())
        })?;
        let count = u64::from_le_bytes(t[0..8].try_into().expect("8 bytes"));
        let sum = u64::from_le_bytes(t[8..16].try_into().expect("8 bytes"));
        if count != self.count {
            return Err(Error::Stream(format!(
                "corrupt binary stream: end marker counts {count} records, read {}",
                self.count
            )));
        }
        if sum != self.hasher.digest() {
            return Err(Error::Stream(
                "corrupt binary stream: checksum mismatch".into(),
            ));
        }
        let mut extra = [0u8; 1];
        if self.r.read(&mut extra)? != 0 {
            return Err(Error::Stream(
                "corrupt binary stream: data after the end marker".into(),
            ));
        }
        self.done = true;
        Ok(())
    }
}

fn read_exact_or<R: Read>(r: &mut R, buf: &mut [u8], eof: impl FnOnce() -> Error) -> Result<()> {
    match r.read_exact(buf) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(eof()),
        Err(e) => Err(e.into()),
    }
}

/// Is this the start of a binary stream (as opposed to NDJSON)?
pub fn is_binary(first_bytes: &[u8]) -> bool {
    first_bytes.first() == Some(&MAGIC[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shingle_stream_is_checked_against_the_flags_given() {
        let sp = Params {
            ngram: 5,
            min_words: 20,
            shingle_hash: 7,
            perms: 0,
            scheme: 0,
            seed: 0,
            part: Part::Whole,
        };
        assert!(sp.expect_shingling(None, None, None).is_ok());
        assert!(sp
            .expect_shingling(Some(5), Some(Part::Whole), Some(20))
            .is_ok());
        let e = sp
            .expect_shingling(Some(4), None, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("ngram: stream has 5, this stage expects 4"),
            "{e}"
        );
        assert!(sp.expect_shingling(None, Some(Part::Head), None).is_err());
        assert!(sp.expect_shingling(None, None, Some(10)).is_err());
        assert!(sp.expect_shingle_hash(7).is_ok() && sp.expect_shingle_hash(8).is_err());
    }

    fn header() -> Header {
        Header {
            kind: Kind::Sigs,
            params: Params {
                ngram: 3,
                min_words: 20,
                shingle_hash: SHINGLE_HASH_XXH3,
                perms: 256,
                scheme: 1,
                seed: 42,
                part: Part::Tail,
            },
        }
    }

    #[test]
    fn a_part_must_match_the_whole_but_for_the_part() {
        let part = header().params;
        let whole = Params {
            part: Part::Whole,
            min_words: 5,
            ..part
        };
        assert!(part.check_part_of(&whole).is_ok());
        let other = Params { seed: 7, ..whole };
        let e = part.check_part_of(&other).unwrap_err().to_string();
        assert!(
            e.contains("seed") && e.contains("whole texts' flags"),
            "{e}"
        );
    }

    fn stream(frames: &[&[u8]]) -> Vec<u8> {
        let mut w = StreamWriter::new(Vec::new(), &header()).unwrap();
        for f in frames {
            w.write_frame(f).unwrap();
        }
        w.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut r = StreamReader::new(bytes)?;
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while r.next_frame(&mut buf)? {
            out.push(buf.clone());
        }
        Ok(out)
    }

    #[test]
    fn header_round_trip() {
        let h = header();
        assert_eq!(Header::decode(&h.encode()).unwrap(), h);
    }

    #[test]
    fn frames_round_trip() {
        let bytes = stream(&[b"abc", b"", b"hello"]);
        assert_eq!(
            read_all(&bytes).unwrap(),
            vec![b"abc".to_vec(), vec![], b"hello".to_vec()]
        );
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = stream(&[b"abc", b"defg"]);
        for cut in 0..bytes.len() {
            assert!(read_all(&bytes[..cut]).is_err(), "cut at {cut} accepted");
        }
    }

    #[test]
    fn flipped_payload_byte_is_caught() {
        let mut bytes = stream(&[b"abc"]);
        bytes[HEADER_LEN + 5] ^= 1;
        let err = read_all(&bytes).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
    }

    #[test]
    fn trailing_data_is_an_error() {
        let mut bytes = stream(&[b"abc"]);
        bytes.push(0);
        assert!(read_all(&bytes).is_err());
    }

    #[test]
    fn wrong_version_names_both() {
        let mut h = header().encode();
        h[4] = 9;
        let err = Header::decode(&h).unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
    }
}
