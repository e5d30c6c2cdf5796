//! The write-back of pl-apply: review decisions planned into steps (tag, trash, note or link
//! a duplicate; untag, restore, unnote or unlink it again in an undo), checked against the safety rules
//! ([`plan`]: a primary is never touched, but for the link Paperless mirrors on it; a document
//! changed since scoring is refused), carried
//! out by one executor ([`execute`]) that journals every request before and after it is made
//! ([`journal`]), so that a re-run skips what is done, an interrupted run resumes, and an undo
//! ([`undo`]) takes back exactly what the journal records.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::client::Client;
use crate::error::Result;
use crate::write::{DeleteMethod, DocState};

pub mod execute;
pub mod journal;
pub mod plan;
pub mod settle;
pub mod undo;

pub use journal::{History, Journal};
pub use plan::{ApplyOptions, ApplyPlan, Live};
pub use settle::UndoRun;
pub use undo::UndoPlan;

/// What is done to one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// Add the tag.
    Tag,
    /// Move to the trash.
    Trash,
    /// Add a note pointing to the primary.
    Note,
    /// Take the tag off (undo of [`Op::Tag`]).
    Untag,
    /// Restore from the trash (undo of [`Op::Trash`]).
    Restore,
    /// Delete the note (undo of [`Op::Note`]).
    Unnote,
    /// Link to the primary through the document-link field ([`crate::links`]).
    Link,
    /// Take the link out again (undo of [`Op::Link`]).
    Unlink,
}

impl Op {
    /// The name in plan records and journals.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Tag => "tag",
            Op::Trash => "trash",
            Op::Untag => "untag",
            Op::Restore => "restore",
            Op::Note => "note",
            Op::Unnote => "unnote",
            Op::Link => "link",
            Op::Unlink => "unlink",
        }
    }

    /// Parses a journal's `op` (other ops, such as `run`, are `None`).
    pub fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "tag" => Op::Tag,
            "trash" => Op::Trash,
            "untag" => Op::Untag,
            "restore" => Op::Restore,
            "note" => Op::Note,
            "unnote" => Op::Unnote,
            "link" => Op::Link,
            "unlink" => Op::Unlink,
            _ => return None,
        })
    }

    /// The operation that undoes this one.
    pub fn inverse(self) -> Op {
        match self {
            Op::Tag => Op::Untag,
            Op::Trash => Op::Restore,
            Op::Untag => Op::Tag,
            Op::Restore => Op::Trash,
            Op::Note => Op::Unnote,
            Op::Unnote => Op::Note,
            Op::Link => Op::Unlink,
            Op::Unlink => Op::Link,
        }
    }
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// To be done (with --yes).
    Planned,
    /// Done in this run.
    Done,
    /// Nothing to do (done before, or found so).
    Skipped,
    /// Not done on purpose: a safety rule forbids it.
    Refused,
    /// The request failed: the server refused it, and its state shows it did not land.
    Failed,
    /// The request's outcome was not seen (no answer, or an answer that may follow a change)
    /// and the server does not show it landed: it may still land. A re-run and an undo read
    /// the server before acting on it.
    Unknown,
}

impl Status {
    /// The name in plan records.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Planned => "planned",
            Status::Done => "done",
            Status::Skipped => "skipped",
            Status::Refused => "refused",
            Status::Failed => "failed",
            Status::Unknown => "unknown",
        }
    }
}

/// A link step's field and what it found before the run, which an undo puts back.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The field's name.
    pub field: String,
    /// The value of the document's entry of the field before the run; `None`: no entry.
    pub before: Option<Value>,
    /// Whether the primary had an entry of the field before the run (Paperless adds one to
    /// it when the document links to it; an undo removes it again once empty).
    pub primary_had: bool,
}

impl Link {
    /// The link's journal fields.
    fn journal(&self, o: &mut Map<String, Value>) {
        o.insert("field".into(), self.field.clone().into());
        if let Some(b) = &self.before {
            o.insert("field_before".into(), b.clone());
        }
        o.insert("primary_had_field".into(), self.primary_had.into());
    }

    /// The link a journal record names, if it names a field.
    pub fn from_journal(rec: &Map<String, Value>) -> Option<Link> {
        Some(Link {
            field: rec.get("field")?.as_str()?.to_owned(),
            before: rec.get("field_before").cloned(),
            primary_had: rec.get("primary_had_field").and_then(Value::as_bool) == Some(true),
        })
    }
}

/// One line of the plan: an operation on one document.
#[derive(Debug, Clone)]
pub struct Step {
    /// What is done.
    pub op: Op,
    /// The document.
    pub id: u64,
    /// Its group (from the decisions, or the journal in an undo).
    pub group: Option<u64>,
    /// Its group's primary.
    pub primary: Option<u64>,
    /// The tag's id (tag, untag).
    pub tag_id: Option<u64>,
    /// The note's id (note, unnote).
    pub note_id: Option<u64>,
    /// The note's text (note).
    pub note: Option<String>,
    /// The document-link field's id (link, unlink).
    pub field_id: Option<u64>,
    /// What a link needs to be taken back exactly (link, unlink).
    pub link: Option<Link>,
    /// Where it stands.
    pub status: Status,
    /// Why it is skipped, refused or failed.
    pub reason: Option<String>,
}

impl Step {
    /// Sets the status and its reason.
    pub fn set(&mut self, status: Status, reason: String) {
        self.status = status;
        self.reason = Some(reason);
    }

    /// The plan record (`tag` is the tag's name, written on tag and untag steps).
    pub fn record(&self, tag: &str) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("action".into(), self.op.as_str().into());
        o.insert("id".into(), self.id.into());
        o.insert("group".into(), json!(self.group));
        o.insert("primary".into(), json!(self.primary));
        if matches!(self.op, Op::Tag | Op::Untag) {
            o.insert("tag".into(), tag.into());
        }
        if let Some(n) = &self.note {
            o.insert("note".into(), n.clone().into());
        }
        if let Some(l) = &self.link {
            o.insert("field".into(), l.field.clone().into());
        }
        o.insert("status".into(), self.status.as_str().into());
        if let Some(r) = &self.reason {
            o.insert("reason".into(), r.clone().into());
        }
        o
    }

    /// The journal record of this step with `result` (started, ok, already, failed, unknown)
    /// and `extra` fields; a note's records carry its text, by which an undo finds it.
    pub fn journal_record(
        &self,
        result: &str,
        tag: &str,
        extra: &[(&str, Value)],
    ) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("op".into(), self.op.as_str().into());
        o.insert("id".into(), self.id.into());
        if let Some(g) = self.group {
            o.insert("group".into(), g.into());
        }
        if let Some(p) = self.primary {
            o.insert("primary".into(), p.into());
        }
        if let Some(t) = self.tag_id {
            o.insert("tag".into(), tag.into());
            o.insert("tag_id".into(), t.into());
        }
        if let Some(n) = self.note_id {
            o.insert("note_id".into(), n.into());
        }
        if let Some(n) = &self.note {
            o.insert("note".into(), n.clone().into());
        }
        if let Some(f) = self.field_id {
            o.insert("field_id".into(), f.into());
        }
        if let Some(l) = &self.link {
            l.journal(&mut o);
        }
        o.insert("result".into(), result.into());
        for (k, v) in extra {
            o.insert((*k).into(), v.clone());
        }
        o
    }
}

/// How many of `steps` stand at `status`.
pub fn count(steps: &[Step], status: Status) -> usize {
    steps.iter().filter(|s| s.status == status).count()
}

/// ", N unknown" for the summary lines when a step's outcome was not seen, or nothing.
pub fn unknown(steps: &[Step]) -> String {
    match count(steps, Status::Unknown) {
        0 => String::new(),
        n => format!(", {n} unknown (not seen to land; the journal says so, and a re-run or an undo reads the server first)"),
    }
}

/// How many of `steps` do `op` and stand at `status`.
pub fn count_op(steps: &[Step], op: Op, status: Status) -> usize {
    steps
        .iter()
        .filter(|s| s.op == op && s.status == status)
        .count()
}

/// The server calls the write-back makes: [`Client`]'s, or an in-memory server in tests.
pub trait Server {
    /// The server's address (notes link to it; the journal names it).
    fn base(&self) -> &str;
    /// The release the server named, if any.
    fn release(&self) -> Option<String>;
    /// See [`Client::doc_states`].
    fn doc_states(&self, ids: &[u64]) -> Result<BTreeMap<u64, DocState>>;
    /// See [`Client::trashed`].
    fn trashed(&self) -> Result<BTreeSet<u64>>;
    /// See [`Client::tag_id`].
    fn tag_id(&self, name: &str) -> Result<Option<u64>>;
    /// See [`Client::create_tag`].
    fn create_tag(&self, name: &str) -> Result<u64>;
    /// See [`Client::tag_exists`].
    fn tag_exists(&self, id: u64) -> Result<bool>;
    /// See [`Client::tagged`].
    fn tagged(&self, tag: u64) -> Result<BTreeSet<u64>>;
    /// See [`Client::delete_tag`].
    fn delete_tag(&self, id: u64) -> Result<()>;
    /// See [`Client::add_tag`].
    fn add_tag(&self, ids: &[u64], tag: u64) -> Result<()>;
    /// See [`Client::remove_tag`].
    fn remove_tag(&self, ids: &[u64], tag: u64) -> Result<()>;
    /// See [`Client::delete_method`].
    fn delete_method(&self) -> DeleteMethod;
    /// See [`Client::trash`].
    fn trash(&self, ids: &[u64], method: DeleteMethod) -> Result<DeleteMethod>;
    /// See [`Client::restore`].
    fn restore(&self, ids: &[u64]) -> Result<()>;
    /// See [`Client::notes`].
    fn notes(&self, id: u64) -> Result<Vec<(u64, String)>>;
    /// See [`Client::add_note`].
    fn add_note(&self, id: u64, text: &str) -> Result<u64>;
    /// See [`Client::delete_note`].
    fn delete_note(&self, id: u64, note: u64) -> Result<()>;
    /// See [`Client::link_field`].
    fn link_field(&self, name: &str) -> Result<Option<u64>>;
    /// See [`Client::create_link_field`].
    fn create_link_field(&self, name: &str) -> Result<u64>;
    /// See [`Client::set_custom_fields`].
    fn set_custom_fields(&self, id: u64, list: &[Value]) -> Result<()>;
    /// See [`Client::take_unanswered`].
    fn take_unanswered(&self) -> bool {
        false
    }
}

impl Server for Client {
    fn base(&self) -> &str {
        Client::base(self)
    }
    fn release(&self) -> Option<String> {
        self.server().release
    }
    fn doc_states(&self, ids: &[u64]) -> Result<BTreeMap<u64, DocState>> {
        Client::doc_states(self, ids)
    }
    fn trashed(&self) -> Result<BTreeSet<u64>> {
        Client::trashed(self)
    }
    fn tag_id(&self, name: &str) -> Result<Option<u64>> {
        Client::tag_id(self, name)
    }
    fn create_tag(&self, name: &str) -> Result<u64> {
        Client::create_tag(self, name)
    }
    fn tag_exists(&self, id: u64) -> Result<bool> {
        Client::tag_exists(self, id)
    }
    fn tagged(&self, tag: u64) -> Result<BTreeSet<u64>> {
        Client::tagged(self, tag)
    }
    fn delete_tag(&self, id: u64) -> Result<()> {
        Client::delete_tag(self, id)
    }
    fn add_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        Client::add_tag(self, ids, tag)
    }
    fn remove_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        Client::remove_tag(self, ids, tag)
    }
    fn delete_method(&self) -> DeleteMethod {
        Client::delete_method(self)
    }
    fn trash(&self, ids: &[u64], method: DeleteMethod) -> Result<DeleteMethod> {
        Client::trash(self, ids, method)
    }
    fn restore(&self, ids: &[u64]) -> Result<()> {
        Client::restore(self, ids)
    }
    fn notes(&self, id: u64) -> Result<Vec<(u64, String)>> {
        Client::notes(self, id)
    }
    fn add_note(&self, id: u64, text: &str) -> Result<u64> {
        Client::add_note(self, id, text)
    }
    fn delete_note(&self, id: u64, note: u64) -> Result<()> {
        Client::delete_note(self, id, note)
    }
    fn link_field(&self, name: &str) -> Result<Option<u64>> {
        Client::link_field(self, name)
    }
    fn create_link_field(&self, name: &str) -> Result<u64> {
        Client::create_link_field(self, name)
    }
    fn set_custom_fields(&self, id: u64, list: &[Value]) -> Result<()> {
        Client::set_custom_fields(self, id, list)
    }
    fn take_unanswered(&self) -> bool {
        Client::take_unanswered(self)
    }
}

#[cfg(test)]
pub(crate) mod fake;
#[cfg(test)]
mod link_tests;
