//! pl-apply's journal: NDJSON appended and synced record by record, so that a run killed at
//! any point leaves a true account; read back as the [`History`] of what earlier runs did.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pl_core::fields::parse_object;
use pl_core::time::{format_utc, parse_rfc3339, Micros};
use serde_json::{Map, Value};

use super::Op;
use crate::error::{Error, Result};

/// What earlier runs did, folded from the journal.
#[derive(Debug, Default)]
pub struct History {
    /// (op, id) → the last record about it, with its line's index as `seq`.
    pub last: BTreeMap<(Op, u64), Map<String, Value>>,
    /// id → `modified` the server had right after our last change to it (a link's primary
    /// included, whose mirrored link bumps it).
    pub own_modified: BTreeMap<u64, String>,
    /// Tags pl-apply created (id → name) and no undo has deleted since.
    pub created_tags: BTreeMap<u64, String>,
    /// Tags pl-apply set out to create and saw no outcome for (started, unknown), by name,
    /// with when: an undo looks them up.
    pub pending_tags: BTreeMap<String, Option<Micros>>,
    /// When the latest request whose outcome was not seen was sent (µs since the epoch): an
    /// `unknown` or `unanswered` record, or a `started` one with no outcome after it. Such a
    /// request may still land; an undo waits for it to settle.
    pub unsure_since: Option<Micros>,
}

impl History {
    /// The `result` of the last record about `op` on `id`.
    pub fn result(&self, op: Op, id: u64) -> Option<&str> {
        self.last
            .get(&(op, id))
            .and_then(|r| r.get("result"))
            .and_then(Value::as_str)
    }

    /// Whether the last request of `op` on `id` went without a seen outcome (`started` with
    /// nothing after it: a killed run; `unknown`): it may have landed, or land later.
    pub fn unsure(&self, op: Op, id: u64) -> bool {
        matches!(self.result(op, id), Some("started") | Some("unknown"))
    }

    /// Whether `op` on `id` is in force: done (or found already so) and not undone since.
    pub fn in_force(&self, op: Op, id: u64) -> bool {
        matches!(self.result(op, id), Some("ok") | Some("already")) && !self.undone_since(op, id)
    }

    /// Whether `op` on `id` may be in force: its outcome unseen, and not undone since.
    pub fn maybe_in_force(&self, op: Op, id: u64) -> bool {
        self.unsure(op, id) && !self.undone_since(op, id)
    }

    /// Whether the inverse of `op` on `id` was done after the last record of `op`.
    fn undone_since(&self, op: Op, id: u64) -> bool {
        let seq = |o: Op| {
            self.last
                .get(&(o, id))
                .and_then(|r| r.get("seq"))
                .and_then(Value::as_u64)
        };
        match (seq(op), seq(op.inverse())) {
            (Some(a), Some(b)) => a < b && self.result(op.inverse(), id) == Some("ok"),
            _ => false,
        }
    }

    /// Folds one journal record (line index `seq`) into the history; `Err` for a record
    /// that is no pl-apply journal record. `open`: the requests started with no outcome
    /// journaled yet, and when.
    fn fold(
        &mut self,
        mut o: Map<String, Value>,
        seq: usize,
        open: &mut BTreeMap<(Op, u64), Option<Micros>>,
    ) -> std::result::Result<(), ()> {
        let tag = o.get("tag_id").and_then(Value::as_u64);
        let name = o.get("tag").and_then(Value::as_str).unwrap_or_default();
        let result = o.get("result").and_then(Value::as_str).unwrap_or_default();
        let at = o.get("at").and_then(Value::as_str).and_then(parse_rfc3339);
        if result == "unknown" || o.get("unanswered") == Some(&Value::Bool(true)) {
            self.unsure_since = self.unsure_since.max(at);
        }
        match (o.get("op").and_then(Value::as_str), tag, result) {
            (Some("create-tag"), Some(t), "ok") => {
                self.pending_tags.remove(name);
                self.created_tags.insert(t, name.to_owned());
            }
            (Some("create-tag"), None, "started" | "unknown") => {
                self.pending_tags.insert(name.to_owned(), at);
            }
            (Some("create-tag"), None, "failed") => {
                self.pending_tags.remove(name);
            }
            (Some("delete-tag"), Some(t), "ok") => {
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
        // A request started again before the last one's outcome was journaled: that one (a
        // killed run's) may still be under way.
        let earlier = if result == "started" {
            open.insert((op, id), at).flatten()
        } else {
            open.remove(&(op, id)).flatten()
        };
        if result == "started" {
            self.unsure_since = self.unsure_since.max(earlier);
        }
        if let Some(m) = o.get("modified").and_then(Value::as_str) {
            self.own_modified.insert(id, m.to_owned());
        }
        // A link is mirrored on the primary, which bumps its `modified` too.
        let primary = o.get("primary").and_then(Value::as_u64);
        if let (Some(p), Some(m)) = (primary, o.get("primary_modified").and_then(Value::as_str)) {
            self.own_modified.insert(p, m.to_owned());
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
    /// Told how many steps each batch settled, for a progress bar.
    on_settled: Option<Box<dyn FnMut(u64)>>,
}

/// The time now, in µs since the epoch.
pub fn now_micros() -> Micros {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 2)
}

/// The time now, as journal records give it.
fn now() -> String {
    format_utc(now_micros())
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
        let f = match no_follow(path, OpenOptions::new().read(true)) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(h),
            Err(e) => return Err(io_error(path, "cannot open", e)),
        };
        // A run killed mid-write leaves a cut last line: it recorded nothing done. A bad line
        // with records after it is damage, and what it said is unknown: refused.
        let mut cut: Option<(usize, String)> = None;
        let mut open = BTreeMap::new();
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
                Ok(o) => h.fold(o, i, &mut open).map_err(|()| {
                    Error::file(
                        path,
                        format!("line {}: not a pl-apply journal record", i + 1),
                    )
                })?,
                Err(e) => cut = Some((i + 1, e.to_string())),
            }
        }
        let tags = h.pending_tags.values().flatten().max().copied();
        h.unsure_since = h
            .unsure_since
            .max(open.into_values().flatten().max())
            .max(tags);
        Ok(h)
    }

    /// Opens the journal at `path` for appending (created when missing), never through a
    /// symbolic link planted at its name.
    pub fn open(path: &Path) -> Result<Journal> {
        let file = no_follow(path, OpenOptions::new().create(true).append(true))
            .map_err(|e| io_error(path, "cannot open the journal", e))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            on_settled: None,
        })
    }

    /// Calls `f` with the number of steps each batch settled (done, skipped or refused) once
    /// its outcomes are journaled: a run's progress. A step that failed is not counted.
    pub fn on_settled(&mut self, f: impl FnMut(u64) + 'static) {
        self.on_settled = Some(Box::new(f));
    }

    /// Reports `n` steps settled to [`Journal::on_settled`]'s callback.
    pub(crate) fn settled(&mut self, n: u64) {
        if let Some(f) = &mut self.on_settled {
            f(n);
        }
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

/// Opens `path` with `opts`, refusing a symbolic link at its name (`O_NOFOLLOW`): a link
/// planted there would have the journal's lines written into, or read from, its target.
fn no_follow(path: &Path, opts: &mut OpenOptions) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    opts.custom_flags(libc::O_NOFOLLOW).open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            std::io::Error::other("it is a symbolic link, which the journal never follows (remove the link, or name the journal's own file)")
        } else {
            e
        }
    })
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
    fn what_may_still_land_is_unsure_and_what_was_answered_is_not() {
        let at = |s: u32| format!("\"at\":\"2026-01-01T00:00:{s:02}Z\"");
        let answered = read(
            "answered.ndjson",
            &[
                format!(
                    r#"{{{},"op":"create-tag","tag":"dup","result":"started"}}"#,
                    at(1)
                ),
                format!(
                    r#"{{{},"op":"create-tag","tag":"dup","tag_id":3,"result":"ok"}}"#,
                    at(2)
                ),
                format!(r#"{{{},"op":"tag","id":5,"result":"started"}}"#, at(3)),
                format!(r#"{{{},"op":"tag","id":5,"result":"ok"}}"#, at(4)),
            ]
            .join("\n"),
        )
        .unwrap();
        assert_eq!(answered.unsure_since, None);
        assert!(answered.pending_tags.is_empty());
        // A killed run's request (started twice, the first with no outcome), an unknown one
        // and a tag creation never answered: the latest of them counts.
        let h = read(
            "unsure.ndjson",
            &[
                format!(r#"{{{},"op":"trash","id":5,"result":"started"}}"#, at(1)),
                format!(r#"{{{},"op":"trash","id":5,"result":"started"}}"#, at(7)),
                format!(r#"{{{},"op":"trash","id":5,"result":"ok"}}"#, at(8)),
                format!(r#"{{{},"op":"note","id":6,"result":"unknown"}}"#, at(3)),
                format!(
                    r#"{{{},"op":"create-tag","tag":"dup","result":"started"}}"#,
                    at(2)
                ),
            ]
            .join("\n"),
        )
        .unwrap();
        assert_eq!(h.unsure_since, parse_rfc3339("2026-01-01T00:00:03Z"));
        assert!(h.maybe_in_force(Op::Note, 6) && !h.in_force(Op::Note, 6));
        assert!(h.pending_tags.contains_key("dup"));
        let killed = read(
            "killed.ndjson",
            &format!(r#"{{{},"op":"trash","id":5,"result":"started"}}"#, at(9)),
        )
        .unwrap();
        assert_eq!(killed.unsure_since, parse_rfc3339("2026-01-01T00:00:09Z"));
    }

    #[test]
    fn a_link_planted_at_the_journal_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious\n").unwrap();
        let p = dir.path().join("j.ndjson");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let e = Journal::open(&p).err().expect("refused");
        let e = format!("{e}: {}", std::error::Error::source(&e).unwrap());
        assert!(e.contains("symbolic link"), "{e}");
        assert!(Journal::read(&p).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    }

    #[test]
    fn no_file_is_an_empty_history() {
        let h = Journal::read(Path::new("/nonexistent/pl-journal.ndjson")).unwrap();
        assert!(h.last.is_empty() && h.created_tags.is_empty());
    }
}
