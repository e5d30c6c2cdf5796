//! An in-memory Paperless for the write-back's tests: documents with `modified`, tags, notes
//! and custom fields (document links symmetric, as Paperless makes them), a trash, and every
//! write request logged; each change bumps `modified`, as the real server does.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use pl_core::decision::{Decision, Verdict};
use serde_json::Value;

use super::{Op, Server, Status, Step};
use crate::error::{Error, Result};
use crate::write::{DeleteMethod, DocState};

/// When every document was scored, and last modified until a test changes it.
pub const SCORED: &str = "2026-01-01T00:00:00Z";

#[derive(Debug, Default)]
struct Doc {
    modified: String,
    tags: BTreeSet<u64>,
    trashed: bool,
    notes: Vec<(u64, String)>,
    custom_fields: Vec<Value>,
    /// The token's user may not change it: `user_can_change` false, writes answer 403.
    locked: bool,
    /// Writes answer 403 though `user_can_change` says yes (permissions changed meanwhile).
    forbidden: bool,
}

#[derive(Debug, Default)]
struct State {
    docs: BTreeMap<u64, Doc>,
    tags: BTreeMap<u64, String>,
    /// The document-link custom fields.
    fields: BTreeMap<u64, String>,
    next_id: u64,
    clock: u32,
    fail_on: Option<u64>,
    ghost_on: Option<u64>,
    lost_on: Option<u64>,
    /// Faults hit only requests whose log line starts with this.
    faults_only: Option<String>,
    requests: Vec<String>,
}

/// The fake server.
#[derive(Debug, Default)]
pub struct FakeServer(RefCell<State>);

fn list(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

impl FakeServer {
    /// Live documents `ids`, untagged, modified at [`SCORED`].
    pub fn with_docs(ids: impl IntoIterator<Item = u64>) -> FakeServer {
        let s = FakeServer::default();
        for id in ids {
            let doc = Doc {
                modified: SCORED.into(),
                ..Doc::default()
            };
            s.0.borrow_mut().docs.insert(id, doc);
        }
        s.0.borrow_mut().next_id = 100;
        s
    }

    /// An edit by someone else at `modified`.
    pub fn touch(&self, id: u64, modified: &str) {
        self.0.borrow_mut().docs.get_mut(&id).unwrap().modified = modified.into();
    }

    /// Document `id` is another user's, which the token's user may not change.
    pub fn lock(&self, id: u64) {
        self.0.borrow_mut().docs.get_mut(&id).unwrap().locked = true;
    }

    /// Writes on document `id` answer 403, though the server says the user may change it.
    pub fn forbid(&self, id: u64) {
        self.0.borrow_mut().docs.get_mut(&id).unwrap().forbidden = true;
    }

    /// The trash emptied of `id`.
    pub fn purge(&self, id: u64) {
        self.0.borrow_mut().docs.remove(&id);
    }

    /// Write requests on document `id` fail from now on.
    pub fn fail_on(&self, id: u64) {
        self.0.borrow_mut().fail_on = Some(id);
    }

    /// Write requests on document `id` land, and then their answer is lost (a timeout).
    pub fn ghost_on(&self, id: Option<u64>) {
        self.0.borrow_mut().ghost_on = id;
    }

    /// Write requests on document `id` get no answer and do not land (yet).
    pub fn lost_on(&self, id: Option<u64>) {
        self.0.borrow_mut().lost_on = id;
    }

    /// Document `id`'s custom fields.
    pub fn custom_fields(&self, id: u64) -> Vec<Value> {
        self.0.borrow().docs[&id].custom_fields.clone()
    }

    /// Sets document `id`'s custom fields by hand (no link mirrored).
    pub fn put_custom_fields(&self, id: u64, list: Vec<Value>) {
        self.0.borrow_mut().docs.get_mut(&id).unwrap().custom_fields = list;
    }

    /// Mirrors the links of `id` that changed from `old` to `new` on their targets, as
    /// Paperless does: a target gains `id` in its entry of the field (created when missing)
    /// or loses it (the entry stays).
    fn mirror(&self, id: u64, old: &[Value], new: &[Value]) {
        let links = |l: &[Value]| -> BTreeSet<(u64, u64)> {
            l.iter()
                .filter_map(|e| {
                    let f = e.get("field")?.as_u64()?;
                    let v = e.get("value")?.as_array()?;
                    Some(v.iter().filter_map(move |t| Some((f, t.as_u64()?))))
                })
                .flatten()
                .collect()
        };
        let (before, after) = (links(old), links(new));
        let mut s = self.0.borrow_mut();
        s.clock += 1;
        let modified = format!("2026-03-01T00:00:{:02}Z", s.clock);
        for &(_, t) in after.symmetric_difference(&before) {
            if let Some(d) = s.docs.get_mut(&t) {
                d.modified = modified.clone();
            }
        }
        for &(f, t) in after.difference(&before) {
            let Some(d) = s.docs.get_mut(&t) else {
                continue;
            };
            d.custom_fields = crate::links::with_link(&d.custom_fields, f, id)
                .unwrap()
                .unwrap_or_else(|| d.custom_fields.clone());
        }
        for &(f, t) in before.difference(&after) {
            let Some(d) = s.docs.get_mut(&t) else {
                continue;
            };
            let kept = Some(&Value::Array(vec![]));
            if let Some(l) = crate::links::without_link(&d.custom_fields, f, id, kept).unwrap() {
                d.custom_fields = l;
            }
        }
    }

    /// The faults above hit only requests whose log line starts with `what` ("custom_fields").
    pub fn faults_only_on(&self, what: &str) {
        self.0.borrow_mut().faults_only = Some(what.into());
    }

    /// The write requests so far.
    pub fn requests(&self) -> Vec<String> {
        self.0.borrow().requests.clone()
    }

    /// Logs a write request on `ids`, fails it when asked to, and applies `change` to each
    /// document with a new `modified`.
    fn write(&self, what: String, ids: &[u64], change: impl Fn(&mut Doc)) -> Result<()> {
        let mut s = self.0.borrow_mut();
        s.requests.push(what.clone());
        let hit = |f: Option<u64>| {
            let only = s
                .faults_only
                .as_ref()
                .is_none_or(|o| what.starts_with(o.as_str()));
            only && f.is_some_and(|f| ids.contains(&f))
        };
        let (fail, lost, ghost) = (hit(s.fail_on), hit(s.lost_on), hit(s.ghost_on));
        if fail {
            return Err(Error::Status {
                url: what,
                status: 400,
                attempts: 1,
                body: "refused on purpose".into(),
            });
        }
        if ids
            .iter()
            .any(|id| s.docs.get(id).is_some_and(|d| d.locked || d.forbidden))
        {
            return Err(Error::Forbidden {
                url: what,
                action: "change",
                detail: "Insufficient permissions".into(),
            });
        }
        let timeout = || Error::Transport {
            url: what.clone(),
            msg: "timed out".into(),
            attempts: 1,
        };
        if lost {
            return Err(timeout());
        }
        s.clock += 1;
        let modified = format!("2026-03-01T00:00:{:02}Z", s.clock);
        for id in ids {
            let d = s.docs.get_mut(id).expect("a known document");
            change(d);
            d.modified = modified.clone();
        }
        if ghost {
            return Err(timeout());
        }
        Ok(())
    }
}

impl Server for FakeServer {
    fn base(&self) -> &str {
        "http://paperless.test"
    }
    fn release(&self) -> Option<String> {
        Some("3.0.0".into())
    }
    fn doc_states(&self, ids: &[u64]) -> Result<BTreeMap<u64, DocState>> {
        let s = self.0.borrow();
        let live = ids.iter().filter_map(|id| {
            let d = s.docs.get(id).filter(|d| !d.trashed)?;
            let state = DocState {
                modified: d.modified.clone(),
                tags: d.tags.clone(),
                custom_fields: d.custom_fields.clone(),
                can_change: !d.locked,
            };
            Some((*id, state))
        });
        Ok(live.collect())
    }
    fn trashed(&self) -> Result<BTreeSet<u64>> {
        let s = self.0.borrow();
        Ok(s.docs
            .iter()
            .filter(|(_, d)| d.trashed)
            .map(|(id, _)| *id)
            .collect())
    }
    fn tag_id(&self, name: &str) -> Result<Option<u64>> {
        let s = self.0.borrow();
        Ok(s.tags.iter().find(|(_, n)| *n == name).map(|(id, _)| *id))
    }
    fn create_tag(&self, name: &str) -> Result<u64> {
        let mut s = self.0.borrow_mut();
        s.requests.push("create-tag".into());
        s.next_id += 1;
        let id = s.next_id;
        s.tags.insert(id, name.into());
        Ok(id)
    }
    fn tag_exists(&self, id: u64) -> Result<bool> {
        Ok(self.0.borrow().tags.contains_key(&id))
    }
    fn tagged(&self, tag: u64) -> Result<BTreeSet<u64>> {
        let s = self.0.borrow();
        let ids = s.docs.iter().filter(|(_, d)| d.tags.contains(&tag));
        Ok(ids.map(|(id, _)| *id).collect())
    }
    fn delete_tag(&self, id: u64) -> Result<()> {
        let mut s = self.0.borrow_mut();
        s.requests.push(format!("delete-tag {id}"));
        s.tags.remove(&id);
        s.docs.values_mut().for_each(|d| {
            d.tags.remove(&id);
        });
        Ok(())
    }
    fn add_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        self.write(format!("add_tag {}", list(ids)), ids, |d| {
            d.tags.insert(tag);
        })
    }
    fn remove_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        self.write(format!("remove_tag {}", list(ids)), ids, |d| {
            d.tags.remove(&tag);
        })
    }
    fn delete_method(&self) -> DeleteMethod {
        DeleteMethod::Endpoint
    }
    fn trash(&self, ids: &[u64], method: DeleteMethod) -> Result<DeleteMethod> {
        self.write(format!("trash {}", list(ids)), ids, |d| d.trashed = true)?;
        Ok(method)
    }
    fn restore(&self, ids: &[u64]) -> Result<()> {
        self.write(format!("restore {}", list(ids)), ids, |d| d.trashed = false)
    }
    fn notes(&self, id: u64) -> Result<Vec<(u64, String)>> {
        Ok(self.0.borrow().docs[&id].notes.clone())
    }
    fn add_note(&self, id: u64, text: &str) -> Result<u64> {
        let note = {
            let mut s = self.0.borrow_mut();
            s.next_id += 1;
            s.next_id
        };
        self.write(format!("note {id}"), &[id], |d| {
            d.notes.push((note, text.into()));
        })?;
        Ok(note)
    }
    fn link_field(&self, name: &str) -> Result<Option<u64>> {
        let s = self.0.borrow();
        Ok(s.fields.iter().find(|(_, n)| *n == name).map(|(id, _)| *id))
    }
    fn create_link_field(&self, name: &str) -> Result<u64> {
        let mut s = self.0.borrow_mut();
        s.requests.push("create-field".into());
        s.next_id += 1;
        let id = s.next_id;
        s.fields.insert(id, name.into());
        Ok(id)
    }
    fn set_custom_fields(&self, id: u64, list: &[Value]) -> Result<()> {
        let old = self.custom_fields(id);
        let r = self.write(format!("custom_fields {id}"), &[id], |d| {
            d.custom_fields = list.to_vec();
        });
        if self.custom_fields(id) == list {
            self.mirror(id, &old, list);
        }
        r
    }
    fn delete_note(&self, id: u64, note: u64) -> Result<()> {
        let known = self.0.borrow().docs[&id]
            .notes
            .iter()
            .any(|(n, _)| *n == note);
        if !known {
            return Err(Error::NotFound {
                url: format!("note {note}"),
                detail: String::new(),
            });
        }
        self.write(format!("unnote {id}"), &[id], |d| {
            d.notes.retain(|(n, _)| *n != note);
        })
    }
}

/// A "duplicate" decision with every member scored at [`SCORED`].
pub fn decision(group: u64, primary: u64, members: &[u64]) -> Decision {
    Decision {
        group,
        decision: Verdict::Duplicate,
        primary,
        members: members.to_vec(),
        modified: members.iter().map(|&m| (m, Some(SCORED.into()))).collect(),
        confidence: None,
        decided_at: None,
    }
}

/// A planned step of `op` on `id`.
pub fn step(op: Op, id: u64, tag_id: Option<u64>) -> Step {
    Step {
        op,
        id,
        group: Some(1),
        primary: Some(1),
        tag_id,
        note_id: None,
        note: None,
        field_id: None,
        link: None,
        status: Status::Planned,
        reason: None,
    }
}
