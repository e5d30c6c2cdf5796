//! Reading NDJSON records with line numbers, `--skip-invalid`, and order-preserving
//! parallel mapping.

use std::io::{BufRead, Write};

use anyhow::{anyhow, Context, Result};
use rayon::prelude::*;
// The record readers live in pl-core; these names are the tools' way to them.
pub use pl_core::fields::{get_f64, get_id, get_members, get_u64, get_unit, parse_object, Obj};

use crate::common::Log;
use crate::io::Input;

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

    /// The next non-blank line and its number, unparsed. A line that is not UTF-8 is a bad
    /// record like any other: an error naming it, or skipped with `--skip-invalid`.
    pub fn next_line(&mut self) -> Result<Option<(u64, String)>> {
        loop {
            self.buf.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .with_context(|| format!("{}: line {}: read failed", self.name, self.line + 1))?;
            if n == 0 {
                return Ok(None);
            }
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
    pub fn next_typed<T: serde::de::DeserializeOwned, R>(
        &mut self,
        what: &str,
        mut f: impl FnMut(T) -> Result<R, String>,
    ) -> Result<Option<R>> {
        while let Some((line, text)) = self.next_line()? {
            match serde_json::from_str::<T>(&text)
                .map_err(|e| format!("not a {what}: {e}"))
                .and_then(&mut f)
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
#[derive(serde::Deserialize)]
pub struct NormFields<'a> {
    pub id: u64,
    #[serde(borrow)]
    pub norm: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    pub fingerprint: Option<std::borrow::Cow<'a, str>>,
}

/// The fast path for a well-formed norm line; `None` for any other line, which the caller
/// reads with [`parse_object`] so that its error names the problem.
pub fn norm_fields(text: &str) -> Option<NormFields<'_>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
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
