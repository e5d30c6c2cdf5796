//! Reading NDJSON records with line numbers, `--skip-invalid`, and order-preserving
//! parallel mapping.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{anyhow, Context, Result};
use pl_core::normalize::fingerprint;
use pl_core::records::{parse_fingerprint, Fingerprint};
use pl_core::shingle::{ShingleConfig, Shingler};
use pl_core::text_records::NormRecord;
use rayon::prelude::*;
// The record readers live in pl-core; these names are the tools' way to them.
pub use pl_core::fields::{get_f64, get_id, get_members, get_u64, get_unit, parse_object, Obj};

use crate::io::Input;
use crate::log::Log;

/// The default of `--max-doc-mb`: the largest record line read, in MiB. A norm line holds a
/// document's text twice (`content` and `norm`), so documents of up to about 16 MiB of text
/// pass every stage; one document costs a stage up to about 20 times its text in memory.
pub const DEFAULT_MAX_DOC_MB: u64 = 32;

/// The largest record line read, in bytes (`--max-doc-mb`, set once by [`Log::new`]).
static MAX_RECORD: AtomicUsize = AtomicUsize::new((DEFAULT_MAX_DOC_MB as usize) << 20);

/// Sets the largest record line every reader of this process reads (`--max-doc-mb`).
pub fn set_max_record(bytes: usize) {
    MAX_RECORD.store(bytes, Ordering::Relaxed);
}

/// The largest record line read, in bytes.
pub fn max_record() -> usize {
    MAX_RECORD.load(Ordering::Relaxed)
}

/// Document `id`'s norm record as pl-normalize writes it (the line, newline included),
/// refused when it is longer than [`max_record`]: the next stages could not read it. A norm
/// record holds the text twice (`content` and `norm`), so a document under the cap can make
/// one over it. pl-normalize, pl-index and pl-check apply this one limit
/// ([`check_norm_record`]), so the index refuses what `make groups` refuses.
pub fn norm_line(id: u64, rec: &NormRecord) -> Result<Vec<u8>, String> {
    check_norm_record(id, rec)?;
    let mut line = serde_json::to_vec(rec).map_err(|e| e.to_string())?;
    line.push(b'\n');
    Ok(line)
}

/// The refusal of [`norm_line`], the line's length counted without writing it.
pub fn check_norm_record(id: u64, rec: &NormRecord) -> Result<(), String> {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(1);
    serde_json::to_writer(&mut n, rec).map_err(|e| e.to_string())?;
    if n.0 > max_record() {
        return Err(format!(
            "document {id}: its norm record would be {} bytes, over the {} MiB one record may \
             take (--max-doc-mb)",
            n.0,
            max_record() >> 20
        ));
    }
    Ok(())
}

/// What [`read_line_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// The input ended: nothing read.
    End,
    /// A line of this many bytes (newline included) was appended.
    Line(usize),
    /// A line over the cap, of this many bytes: nothing appended, the line consumed; the
    /// message says how long it was and the id its first bytes name.
    TooLong(usize, String),
}

/// Reads one line into `buf` (appended) unless it is longer than [`max_record`]: a longer
/// one is read through without being kept, so one huge record costs no memory.
pub fn read_line_capped(r: &mut dyn BufRead, buf: &mut Vec<u8>) -> std::io::Result<LineRead> {
    let (max, start) = (max_record(), buf.len());
    let mut len = 0usize;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        let (take, done) = match memchr(avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if len + take <= max {
            buf.extend_from_slice(&avail[..take]);
        } else if len <= max {
            // The first bytes over the cap: keep what is there to find the id, then stop keeping.
            let keep = max.saturating_sub(buf.len() - start).min(take);
            buf.extend_from_slice(&avail[..keep]);
        }
        len += take;
        r.consume(take);
        if done {
            break;
        }
    }
    if len == 0 {
        return Ok(LineRead::End);
    }
    if len <= max {
        return Ok(LineRead::Line(len));
    }
    let id = leading_id(&buf[start..]);
    buf.truncate(start);
    let what = id.map_or_else(|| "a record".to_owned(), |id| format!("document {id}"));
    let msg = format!(
        "{what} is {len} bytes, over the {} MiB one record may take (--max-doc-mb)",
        max >> 20
    );
    Ok(LineRead::TooLong(len, msg))
}

fn memchr(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// The id of a record from its first bytes: the first `"id":` key of the object (one inside
/// a string is escaped, `\"id\"`, and not taken), `None` when there is none.
fn leading_id(b: &[u8]) -> Option<u64> {
    let mut from = 0;
    while let Some(i) = b[from..].windows(4).position(|w| w == b"\"id\"") {
        let at = from + i;
        from = at + 4;
        let before = b[..at].iter().rev().find(|c| !c.is_ascii_whitespace());
        if !matches!(before, Some(b'{') | Some(b',')) {
            continue;
        }
        let rest = &b[from..];
        let rest = &rest[rest.iter().position(|c| !c.is_ascii_whitespace())?..];
        let Some(rest) = rest.strip_prefix(b":") else {
            continue;
        };
        let rest = &rest[rest.iter().position(|c| !c.is_ascii_whitespace())?..];
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        return std::str::from_utf8(&rest[..digits]).ok()?.parse().ok();
    }
    None
}

/// Reads one JSON object per line; blank lines are ignored.
pub struct NdjsonReader {
    name: String,
    reader: Box<dyn BufRead + Send>,
    line: u64,
    /// Bytes read so far, and where the last line returned starts.
    pos: u64,
    start: u64,
    buf: Vec<u8>,
    skip_invalid: bool,
    skipped: u64,
    ids: IdLines,
    /// An error met while filling a chunk, given after that chunk's records are handled.
    deferred: Option<anyhow::Error>,
}

/// The line each document id was first read on: every stage keys documents by id, so a
/// repeated id (two records claiming one document) is refused rather than guessed around.
#[derive(Debug, Default)]
pub struct IdLines(rustc_hash::FxHashMap<u64, u64>);

impl IdLines {
    /// Records `id` as read on `line`; `Err` naming the first line when it was read before.
    pub fn check(&mut self, id: u64, line: u64) -> Result<(), String> {
        match self.0.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => {
                Err(format!("id {id} repeated (first on line {})", e.get()))
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(line);
                Ok(())
            }
        }
    }
}

impl NdjsonReader {
    /// Wraps an opened input.
    pub fn new(input: Input, skip_invalid: bool) -> Self {
        NdjsonReader {
            name: input.name,
            reader: input.reader,
            line: 0,
            pos: 0,
            start: 0,
            buf: Vec::new(),
            skip_invalid,
            skipped: 0,
            ids: IdLines::default(),
            deferred: None,
        }
    }

    /// Refuses `id` on `line` when an earlier line had it: an error, or with `--skip-invalid`
    /// a skipped record (`Ok(false)`).
    pub fn check_id(&mut self, line: u64, id: u64) -> Result<bool> {
        match self.ids.check(id, line) {
            Ok(()) => Ok(true),
            Err(msg) => self.invalid(line, &msg).map(|()| false),
        }
    }

    /// The next record that parses as a JSON object and passes `parse`, which returns its
    /// document id with it; a repeated id is refused ([`NdjsonReader::check_id`]).
    pub fn next_with_id<T>(
        &mut self,
        mut parse: impl FnMut(Obj) -> Result<(u64, T), String>,
    ) -> Result<Option<(u64, T)>> {
        while let Some((line, text)) = self.next_line()? {
            match parse_object(&text)
                .map_err(String::from)
                .and_then(&mut parse)
            {
                Ok((id, v)) => {
                    if self.check_id(line, id)? {
                        return Ok(Some((id, v)));
                    }
                }
                Err(msg) => self.invalid(line, &msg)?,
            }
        }
        Ok(None)
    }

    /// The input's name for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Records skipped as invalid so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The number of the last line read (that of the record `next_with` just returned).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The next non-blank line and its number, unparsed. A line that is not UTF-8, or longer
    /// than `--max-doc-mb`, is a bad record like any other: an error naming it, or skipped
    /// with `--skip-invalid`.
    pub fn next_line(&mut self) -> Result<Option<(u64, String)>> {
        loop {
            self.buf.clear();
            let read = read_line_capped(&mut self.reader, &mut self.buf)
                .with_context(|| format!("{}: line {}: read failed", self.name, self.line + 1))?;
            let n = match read {
                LineRead::End => return Ok(None),
                LineRead::Line(n) => n,
                LineRead::TooLong(n, msg) => {
                    self.start = self.pos;
                    self.pos += n as u64;
                    self.line += 1;
                    self.invalid(self.line, &msg)?;
                    continue;
                }
            };
            self.start = self.pos;
            self.pos += n as u64;
            self.line += 1;
            if is_blank(&self.buf) {
                continue;
            }
            match String::from_utf8(std::mem::take(&mut self.buf)) {
                Ok(text) => return Ok(Some((self.line, text))),
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    self.invalid(self.line, &format!("not UTF-8 text (byte {})", at + 1))?;
                }
            }
        }
    }

    /// Refills `chunk` with up to `n` unparsed lines; `false` when none were left.
    /// A bad line ends the chunk before it; its error comes with the next call, so the
    /// records before it are still handled (and written).
    pub fn next_chunk(&mut self, chunk: &mut Vec<(u64, String)>, n: usize) -> Result<bool> {
        self.next_chunk_at(chunk, &mut Vec::new(), n)
    }

    /// [`NdjsonReader::next_chunk`], also giving the byte offset each line starts at (its
    /// length is the line's, newline included), to read it again later.
    pub fn next_chunk_at(
        &mut self,
        chunk: &mut Vec<(u64, String)>,
        starts: &mut Vec<u64>,
        n: usize,
    ) -> Result<bool> {
        chunk.clear();
        starts.clear();
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        while chunk.len() < n {
            match self.next_line() {
                Ok(Some(l)) => {
                    chunk.push(l);
                    starts.push(self.start);
                }
                Ok(None) => break,
                Err(e) if chunk.is_empty() => return Err(e),
                Err(e) => {
                    self.deferred = Some(e);
                    break;
                }
            }
        }
        Ok(!chunk.is_empty())
    }

    /// Handles a bad record: an error naming input and line, or a count with `--skip-invalid`.
    pub fn invalid(&mut self, line: u64, msg: &str) -> Result<()> {
        if self.skip_invalid {
            self.skipped += 1;
            Ok(())
        } else {
            Err(anyhow!("{}: line {line}: {msg}", self.name))
        }
    }

    /// The next record that parses as a JSON object and passes `parse`.
    pub fn next_with<T>(
        &mut self,
        mut parse: impl FnMut(Obj) -> Result<T, String>,
    ) -> Result<Option<T>> {
        while let Some((line, text)) = self.next_line()? {
            match parse_object(&text)
                .map_err(String::from)
                .and_then(&mut parse)
            {
                Ok(v) => return Ok(Some(v)),
                Err(msg) => self.invalid(line, &msg)?,
            }
        }
        Ok(None)
    }

    /// The next record that deserializes as the typed record `T` (`what` names it in the
    /// error) and passes `f`: one parse of the line, straight into the type.
    pub fn next_typed<T: serde::de::DeserializeOwned, R, E: std::fmt::Display>(
        &mut self,
        what: &str,
        mut f: impl FnMut(T) -> Result<R, E>,
    ) -> Result<Option<R>> {
        while let Some((line, text)) = self.next_line()? {
            match serde_json::from_str::<T>(&text)
                .map_err(|e| format!("not a {what}: {e}"))
                .and_then(|t| f(t).map_err(|e| e.to_string()))
            {
                Ok(v) => return Ok(Some(v)),
                Err(msg) => self.invalid(line, &msg)?,
            }
        }
        Ok(None)
    }

    /// Reports the skip count, if any.
    pub fn report_skipped(&self, log: &Log) {
        if self.skipped > 0 {
            log.note(format!(
                "{}: skipped {} invalid records",
                self.name, self.skipped
            ));
        }
    }
}

/// A line with nothing but whitespace: NDJSON readers skip it. Bytes, so a reader may look
/// before checking UTF-8.
pub fn is_blank(line: &[u8]) -> bool {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(b) if b.is_ascii() => false,
        Some(_) => std::str::from_utf8(line).is_ok_and(|s| s.trim().is_empty()),
    }
}

/// The fields of a norm line (pl-normalize's output) the later stages read, borrowed from the
/// line: the other fields (the original `content` above all) are skipped without being copied.
#[derive(Debug, serde::Deserialize)]
pub struct NormFields<'a> {
    pub id: u64,
    #[serde(borrow)]
    pub norm: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    pub fingerprint: Option<std::borrow::Cow<'a, str>>,
}

/// The fast path for a well-formed norm line; `None` for any other line, which
/// [`norm_record`] reads with [`parse_object`] so that its error names the problem.
fn norm_fields(text: &str) -> Option<NormFields<'_>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// A norm line's id, text and fingerprint: the borrowed fast path for a well-formed line, the
/// generic object parser for any other, so that its error names the problem (`advice` says
/// what to feed a stage instead of a record without `norm`). Every stage reading pl-normalize's
/// output reads a line here.
pub fn norm_record<'a>(text: &'a str, advice: &str) -> Result<NormFields<'a>, String> {
    if let Some(f) = norm_fields(text) {
        return Ok(f);
    }
    let mut o = parse_object(text)?;
    let id = get_id(&o)?;
    let Some(serde_json::Value::String(norm)) = o.remove("norm") else {
        return Err(format!("missing \"norm\": {advice}"));
    };
    let fingerprint = match o.remove("fingerprint") {
        Some(serde_json::Value::String(f)) => Some(std::borrow::Cow::Owned(f)),
        _ => None,
    };
    Ok(NormFields {
        id,
        norm: std::borrow::Cow::Owned(norm),
        fingerprint,
    })
}

/// Writes a record (a JSON object, or a record type of `pl_core::text_records`) as one line.
pub fn write_obj(w: &mut impl Write, o: &impl serde::Serialize) -> Result<()> {
    serde_json::to_writer(&mut *w, o)?;
    w.write_all(b"\n")?;
    Ok(())
}

/// What `par_map_records`'s function makes of one record: nothing, or the record's
/// document id with its output line; `Err(msg)` for an invalid record.
pub type MappedRecord = Result<Option<(u64, Vec<u8>)>, String>;

/// Maps every record to zero or one output line in parallel, writing results in input
/// order. `f` returns the record's document id with its line, or `Err(msg)` for an invalid
/// record (a repeated id is one too); everything before it is written.
pub fn par_map_records(
    reader: &mut NdjsonReader,
    out: &mut impl Write,
    f: impl Fn(Obj) -> MappedRecord + Sync,
    mut on_record: impl FnMut(),
) -> Result<()> {
    par_parse(
        reader,
        2048,
        |text| parse_object(text).map_err(String::from).and_then(&f),
        |reader, line, mapped| {
            if let Some((id, bytes)) = mapped {
                if reader.check_id(line, id)? {
                    out.write_all(&bytes)?;
                    on_record();
                }
            }
            Ok(())
        },
    )
}

/// Parses the lines with `parse`, `chunk` lines at a time on every thread, and hands each
/// record to `take` with its line number, in input order; an invalid line is the reader's
/// error (or a skip), after every record before it was taken.
pub fn par_parse<T: Send>(
    reader: &mut NdjsonReader,
    chunk: usize,
    parse: impl Fn(&str) -> Result<T, String> + Sync,
    mut take: impl FnMut(&mut NdjsonReader, u64, T) -> Result<()>,
) -> Result<()> {
    let mut lines: Vec<(u64, String)> = Vec::with_capacity(chunk);
    while reader.next_chunk(&mut lines, chunk)? {
        let parsed: Vec<Result<T, String>> =
            lines.par_iter().map(|(_, text)| parse(text)).collect();
        for ((line, _), r) in lines.iter().zip(parsed) {
            match r {
                Ok(v) => take(reader, *line, v)?,
                Err(msg) => reader.invalid(*line, &msg)?,
            }
        }
    }
    Ok(())
}

/// One norm line (pl-normalize's output) cut into shingles in `sh.hashes`: its id and
/// fingerprint and whether it was short, or `None` for a document left out. What pl-shingle
/// does to each line, and pl-minhash reading normalized documents, through [`norm_record`]
/// (`advice` for a record without `norm`).
pub fn shingle_norm_line(
    text: &str,
    config: &ShingleConfig,
    advice: &str,
    sh: &mut Shingler,
) -> Result<Option<(u64, Fingerprint, bool)>, String> {
    let f = norm_record(text, advice)?;
    shingle_fields(f.id, &f.norm, f.fingerprint.as_deref(), config, sh)
}

fn shingle_fields(
    id: u64,
    norm: &str,
    fp: Option<&str>,
    config: &ShingleConfig,
    sh: &mut Shingler,
) -> Result<Option<(u64, Fingerprint, bool)>, String> {
    let Some(short) = config.shingle(norm, sh) else {
        return Ok(None);
    };
    Ok(Some((id, record_fingerprint(fp, norm)?, short)))
}

/// A norm record's fingerprint: its `fingerprint` field, else its normalized text's (read as
/// its text: a record without the field has no text as written to add). pl-shingle's
/// copy sets and pl-score's text counts both read it here, so that they cannot drift apart.
pub fn record_fingerprint(fp: Option<&str>, norm: &str) -> Result<Fingerprint, String> {
    match fp {
        Some(s) => {
            parse_fingerprint(s).ok_or_else(|| "\"fingerprint\" is not 32 hex digits".into())
        }
        None => Ok(fingerprint(norm, norm)),
    }
}

#[cfg(test)]
mod tests {
    use super::norm_record;
    use std::borrow::Cow;

    #[test]
    fn a_norm_line_is_read_the_fast_way_or_refused_with_what_to_feed() {
        let f = norm_record(
            r#"{"id":7,"content":"x","norm":"a b","fingerprint":"ff"}"#,
            "",
        )
        .unwrap();
        assert_eq!(
            (f.id, &*f.norm, f.fingerprint.as_deref()),
            (7, "a b", Some("ff"))
        );
        assert!(
            matches!(f.norm, Cow::Borrowed(_)),
            "a plain line is not copied"
        );
        // An escaped text takes the fast path too, unescaped.
        let f = norm_record(r#"{"id":8,"norm":"a\u0041"}"#, "").unwrap();
        assert_eq!((f.id, &*f.norm, f.fingerprint), (8, "aA", None));
        let e = norm_record(r#"{"id":9,"content":"x"}"#, "feed it pl-normalize").unwrap_err();
        assert_eq!(e, "missing \"norm\": feed it pl-normalize");
        assert!(norm_record(r#"{"norm":"a"}"#, "")
            .unwrap_err()
            .contains("id"));
        assert!(norm_record("{\"id\":1,", "").is_err());
    }
}
