//! pl-apply's journal: NDJSON appended and synced record by record, so that a run killed at
//! any point leaves a true account; read back as the [`History`] of what earlier runs did.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pl_core::fields::parse_object;
use pl_core::time::format_utc;
use serde_json::{Map, Value};

use super::Op;
use crate::error::{Error, Result};

/// What earlier runs did, folded from the journal.
#[derive(Debug, Default)]
pub struct History {
    /// (op, id) → the last record about it, with its line's index as `seq`.
    pub last: BTreeMap<(Op, u64), Map<String, Value>>,
    /// id → `modified` the server had right after our last change to it.
    pub own_modified: BTreeMap<u64, String>,
    /// Tags pl-apply created (id → name) and no undo has deleted since.
    pub created_tags: BTreeMap<u64, String>,
}

impl History {
    /// The `result` of the last record about `op` on `id`.
    pub fn result(&self, op: Op, id: u64) -> Option<&str> {
        self.last
            .get(&(op, id))
            .and_then(|r| r.get("result"))
            .and_then(Value::as_str)
    }

    /// Whether `op` on `id` is in force: done (or found already so) and not undone since.
    pub fn in_force(&self, op: Op, id: u64) -> bool {
        let seq = |o: Op| {
            self.last
                .get(&(o, id))
                .and_then(|r| r.get("seq"))
                .and_then(Value::as_u64)
        };
        matches!(self.result(op, id), Some("ok") | Some("already"))
            && match (seq(op), seq(op.inverse())) {
                (Some(a), Some(b)) => a > b || !matches!(self.result(op.inverse(), id), Some("ok")),
                _ => true,
            }
    }

    /// Folds one journal record (line index `seq`) into the history; `Err` for a record
    /// that is no pl-apply journal record.
    fn fold(&mut self, mut o: Map<String, Value>, seq: usize) -> std::result::Result<(), ()> {
        let tag = o.get("tag_id").and_then(Value::as_u64);
        match (o.get("op").and_then(Value::as_str), tag, o.get("result")) {
            (Some("create-tag"), Some(t), Some(r)) if r == "ok" => {
                let name = o.get("tag").and_then(Value::as_str).unwrap_or_default();
                self.created_tags.insert(t, name.to_owned());
            }
            (Some("delete-tag"), Some(t), Some(r)) if r == "ok" => {
                self.created_tags.remove(&t);
            }
            _ => {}
        }
        let (Some(op), Some(id)) = (
            o.get("op").and_then(Value::as_str).and_then(Op::parse),
            o.get("id").and_then(Value::as_u64),
        ) else {
            return if o.get("op").is_none() {
                Err(())
            } else {
                Ok(())
            };
        };
        if let Some(m) = o.get("modified").and_then(Value::as_str) {
            self.own_modified.insert(id, m.to_owned());
        }
        o.insert("seq".into(), (seq as u64).into());
        self.last.insert((op, id), o);
        Ok(())
    }
}

/// The journal file, open for appending.
pub struct Journal {
    path: PathBuf,
    file: File,
}

/// The time now, as journal records give it.
fn now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    format_utc(i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 2))
}

impl Journal {
    /// The journal of a run reading `input`: `INPUT.journal.ndjson` beside it (`None` for
    /// `-`, stdin, which has no place to keep one).
    pub fn beside(input: &Path) -> Option<PathBuf> {
        if input == Path::new("-") {
            return None;
        }
        let mut s = input.as_os_str().to_owned();
        s.push(".journal.ndjson");
        Some(PathBuf::from(s))
    }

    /// Reads what earlier runs did from the journal at `path` (none when there is no file).
    pub fn read(path: &Path) -> Result<History> {
        let mut h = History::default();
        let f = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(h),
            Err(e) => return Err(io_error(path, "cannot open", e)),
        };
        // A run killed mid-write leaves a cut last line: it recorded nothing done. A bad line
        // with records after it is damage, and what it said is unknown: refused.
        let mut cut: Option<(usize, String)> = None;
        for (i, line) in BufReader::new(f).lines().enumerate() {
            let line = line.map_err(|e| io_error(path, "read failed", e))?;
            if line.trim().is_empty() {
                continue;
            }
            if let Some((at, msg)) = cut.take() {
                return Err(Error::file(path, format!(
                    "line {at}: {msg}, and records follow it: the journal is damaged (only a run killed mid-write leaves a cut line, at the end); repair the line or restore the file"
                )));
            }
            match parse_object(&line) {
                Ok(o) => h.fold(o, i).map_err(|()| {
                    Error::file(
                        path,
                        format!("line {}: not a pl-apply journal record", i + 1),
                    )
                })?,
                Err(e) => cut = Some((i + 1, e.to_string())),
            }
        }
        Ok(h)
    }

    /// Opens the journal at `path` for appending (created when missing).
    pub fn open(path: &Path) -> Result<Journal> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| io_error(path, "cannot open the journal", e))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file,
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `rec`, after the time it is written (`at`).
    pub fn write(&mut self, mut rec: Map<String, Value>) -> Result<()> {
        let mut o = Map::new();
        o.insert("at".into(), now().into());
        o.append(&mut rec);
        // A map of JSON values with string keys always serializes.
        let mut line = serde_json::to_vec(&o).expect("a JSON object serializes");
        line.push(b'\n');
        self.file
            .write_all(&line)
            .map_err(|e| io_error(&self.path, "cannot write the journal", e))
    }

    /// Forces what was written to disk: called before each request and after its outcome.
    pub fn sync(&mut self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.path, "cannot write the journal", e))
    }
}

fn io_error(path: &Path, what: &'static str, source: std::io::Error) -> Error {
    Error::Journal {
        path: path.to_path_buf(),
        what,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> Result<History> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        Journal::read(&p)
    }

    #[test]
    fn journal_folds_to_what_is_in_force() {
        let h = read(
            "fold.ndjson",
            &[
                r#"{"op":"run","mode":"tag"}"#,
                r#"{"op":"tag","id":5,"result":"started"}"#,
                r#"{"op":"tag","id":5,"result":"ok","modified":"2026-01-01T00:00:00Z"}"#,
                r#"{"op":"tag","id":6,"result":"already"}"#,
                r#"{"op":"tag","id":7,"result":"started"}"#,
                r#"{"op":"trash","id":8,"result":"ok"}"#,
                r#"{"op":"restore","id":8,"result":"ok"}"#,
                r#"{"op":"create-tag","tag":"dup","tag_id":3,"result":"ok"}"#,
                r#"{"op":"tag","id":9,"res"#,
            ]
            .join("\n"),
        )
        .unwrap();
        assert!(h.in_force(Op::Tag, 5));
        assert!(h.in_force(Op::Tag, 6));
        assert!(!h.in_force(Op::Tag, 7));
        assert_eq!(h.result(Op::Tag, 7), Some("started"));
        assert!(!h.in_force(Op::Trash, 8), "restored since");
        assert_eq!(h.own_modified[&5], "2026-01-01T00:00:00Z");
        assert_eq!(h.created_tags[&3], "dup");
        assert_eq!(
            h.result(Op::Tag, 9),
            None,
            "a cut last line records nothing"
        );
    }

    #[test]
    fn a_damaged_line_before_others_is_refused() {
        let e = read(
            "damaged.ndjson",
            "{\"op\":\"tag\",\"id\":5,\"result\":\"ok\"}\n{\"op\":\"trash\",\"id\n{\"op\":\"tag\",\"id\":6,\"result\":\"ok\"}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2") && e.contains("damaged"), "{e}");
    }

    #[test]
    fn a_record_without_op_is_no_journal() {
        let e = read("other.ndjson", "{\"id\":5}\n")
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("line 1: not a pl-apply journal record"), "{e}");
    }

    #[test]
    fn no_file_is_an_empty_history() {
        let h = Journal::read(Path::new("/nonexistent/pl-journal.ndjson")).unwrap();
        assert!(h.last.is_empty() && h.created_tags.is_empty());
    }
}
