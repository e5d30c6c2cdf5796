//! The plan of an undo: what the journal records as done and still in force, taken back —
//! restored from the trash first, then the tags and notes off — and the tags pl-apply created
//! deleted once no document carries them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::execute::{execute, Mode};
use super::{count, count_op, History, Journal, Link, Op, Server, Status, Step};
use crate::error::{Error, Result};
use crate::links::{entry_value, links_to};
use crate::write::DocState;

/// The deletion of a tag pl-apply created.
#[derive(Debug)]
pub struct TagStep {
    /// The tag's id.
    pub tag_id: u64,
    /// Its name.
    pub name: String,
    /// Planned, done, skipped or failed.
    pub status: Status,
    /// Why it is skipped or failed.
    pub reason: Option<String>,
}

impl TagStep {
    fn skip(&mut self, why: String) {
        self.status = Status::Skipped;
        self.reason = Some(why);
    }

    /// The plan record.
    pub fn record(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("action".into(), "delete-tag".into());
        o.insert("tag".into(), self.name.clone().into());
        o.insert("tag_id".into(), self.tag_id.into());
        o.insert("status".into(), self.status.as_str().into());
        if let Some(r) = &self.reason {
            o.insert("reason".into(), r.clone().into());
        }
        o
    }

    fn journal_record(&self, result: &str) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("op".into(), "delete-tag".into());
        o.insert("tag".into(), self.name.clone().into());
        o.insert("tag_id".into(), self.tag_id.into());
        o.insert("result".into(), result.into());
        if let Some(r) = self.reason.as_ref().filter(|_| result == "failed") {
            o.insert("error".into(), r.clone().into());
        }
        o
    }
}

/// Why a created tag stays: the documents that still carry it (the first few named).
fn carried_by(ids: &[u64]) -> String {
    let named: Vec<String> = ids.iter().take(5).map(|i| format!("#{i}")).collect();
    format!(
        "still on {} document{} ({}{}), so the tag stays",
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        named.join(", "),
        if ids.len() > 5 { ", ..." } else { "" }
    )
}

/// ", delete the tag \"duplicate\"" for the summary lines, or nothing.
fn deleted_tags(names: &[&str], verb: &str) -> String {
    if names.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!(", {verb} the tag {}", quoted.join(", "))
}

/// The steps of an undo, checked, and what it needs to carry them out.
#[derive(Debug)]
pub struct UndoPlan {
    /// One step per document and operation taken back.
    pub steps: Vec<Step>,
    /// The tags pl-apply created.
    pub tag_steps: Vec<TagStep>,
    /// The live documents among the steps' when planned.
    live: BTreeMap<u64, DocState>,
    /// What the server still showed of the run after the undo and its settling: one line
    /// each (empty when it showed the state before the run).
    pub unconfirmed: Vec<String>,
    /// Changes taken back again because they landed (again) after the first pass.
    pub again: usize,
}

/// The steps that take back what `history` holds in force, or may (a request whose outcome
/// was not seen: the server's state decides): latest first per document, restores, then
/// untags, then notes (found by their text: the journal's, or the one pl-apply writes for
/// `base`).
fn undo_steps(history: &History, base: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for ((op, id), rec) in &history.last {
        if !matches!(op, Op::Tag | Op::Trash | Op::Note | Op::Link) {
            continue;
        }
        let ok = history.result(*op, *id) == Some("ok") && history.in_force(*op, *id);
        if !ok && !history.maybe_in_force(*op, *id) {
            continue;
        }
        let field = |k: &str| rec.get(k).and_then(Value::as_u64);
        let note = match (
            rec.get("note").and_then(Value::as_str),
            field("group"),
            field("primary"),
        ) {
            _ if *op != Op::Note => None,
            (Some(n), ..) => Some(n.to_owned()),
            (None, Some(g), Some(p)) => Some(super::plan::note_text(base, p, g)),
            _ => None,
        };
        steps.push(Step {
            op: op.inverse(),
            id: *id,
            group: field("group"),
            primary: field("primary"),
            tag_id: field("tag_id"),
            note_id: field("note_id"),
            note,
            field_id: field("field_id"),
            link: (*op == Op::Link).then(|| Link::from_journal(rec)).flatten(),
            status: Status::Planned,
            reason: None,
        });
    }
    steps.sort_by_key(|s| (order(s.op), s.id));
    steps
}

/// Restores first, then untags, then notes.
fn order(op: Op) -> u8 {
    match op {
        Op::Restore => 0,
        Op::Untag => 1,
        _ => 2,
    }
}

/// Whether an unlink step still has the primary's entry of the field to drop: Paperless
/// left it there empty, and the primary had none before the run.
pub(super) fn primary_left_empty(s: &Step, live: &BTreeMap<u64, DocState>) -> bool {
    let (Some(f), Some(p)) = (s.field_id, s.primary) else {
        return false;
    };
    let had = s.link.as_ref().is_some_and(|l| l.primary_had);
    let entry = live.get(&p).and_then(|d| entry_value(&d.custom_fields, f));
    let empty = |v: &Value| v.is_null() || v.as_array().is_some_and(Vec::is_empty);
    !had && entry.is_some_and(empty)
}

/// Whether an unlink step has anything left to do: the document links to the primary, or
/// the primary's emptied entry is still there.
pub(super) fn unlink_due(s: &Step, live: &BTreeMap<u64, DocState>) -> bool {
    let linked = |d: &DocState| {
        let (f, p) = (s.field_id.unwrap_or(0), s.primary.unwrap_or(0));
        links_to(&d.custom_fields, f, p)
    };
    live.get(&s.id).is_some_and(linked) || primary_left_empty(s, live)
}

/// The rules for one undo step, given the live documents, the trash and the documents being
/// restored: what it may not do, or has no need to.
fn undo_verdict(
    s: &Step,
    live: &BTreeMap<u64, DocState>,
    trashed: &BTreeSet<u64>,
    restoring: &BTreeSet<u64>,
) -> Option<(Status, String)> {
    let id = s.id;
    match s.op {
        Op::Restore if !trashed.contains(&id) => Some(if live.contains_key(&id) {
            (Status::Skipped, "not in the trash: restored already".into())
        } else {
            (
                Status::Refused,
                format!(
                    "#{id} is neither in the trash nor among the documents (the trash was emptied?)"
                ),
            )
        }),
        Op::Untag => match (live.get(&id), s.tag_id) {
            (None, Some(_)) if restoring.contains(&id) => None,
            (None, _) if trashed.contains(&id) => Some((
                Status::Refused,
                format!("#{id} is in the trash, and not by this journal: restore it first"),
            )),
            (None, _) => Some((
                Status::Refused,
                format!("#{id} is not in Paperless any more"),
            )),
            (Some(d), Some(t)) if !d.tags.contains(&t) => {
                Some((Status::Skipped, "the tag is off already".into()))
            }
            (_, None) => Some((
                Status::Refused,
                "the journal does not name the tag id".into(),
            )),
            _ => None,
        },
        Op::Unlink => match live.get(&id) {
            _ if s.field_id.is_none() || s.primary.is_none() => Some((
                Status::Refused,
                "the journal names no field id or primary".into(),
            )),
            None if restoring.contains(&id) => None,
            None => Some((
                Status::Refused,
                format!(
                    "#{id} is not among the documents (in the trash, not by this journal, or gone)"
                ),
            )),
            Some(_) if !unlink_due(s, live) => {
                Some((Status::Skipped, "the link is gone already".into()))
            }
            _ => None,
        },
        Op::Unnote => match (live.get(&id), s.note_id) {
            (_, None) if s.note.is_none() => Some((
                Status::Refused,
                "the journal names neither the note's id nor its text".into(),
            )),
            (None, None) if restoring.contains(&id) => Some((
                Status::Skipped,
                "its notes are read, and ours deleted, once it is restored".into(),
            )),
            (None, _) if restoring.contains(&id) => None,
            (None, _) => Some((
                Status::Refused,
                format!(
                    "#{id} is not among the documents (in the trash, not by this journal, or gone)"
                ),
            )),
            _ => None,
        },
        _ => None,
    }
}

impl UndoPlan {
    /// Plans the undo of what `history` (read from `journal`) records as done, against what
    /// the server holds now.
    pub fn new(server: &impl Server, history: &History, journal: &Path) -> Result<UndoPlan> {
        if history.last.is_empty() {
            return Err(Error::file(
                journal,
                "no pl-apply journal records in it (or no such file)",
            ));
        }
        let mut steps = undo_steps(history, server.base());
        let links = steps.iter().filter(|s| s.op == Op::Unlink);
        let primaries = links.filter_map(|s| s.primary);
        let ids: BTreeSet<u64> = steps.iter().map(|s| s.id).chain(primaries).collect();
        let ids: Vec<u64> = ids.into_iter().collect();
        let live = server.doc_states(&ids)?;
        let trashed = server.trashed()?;
        // Restores run first, so a document both trashed and tagged gets its tag off afterwards.
        let restoring: BTreeSet<u64> = steps
            .iter()
            .filter(|s| s.op == Op::Restore && trashed.contains(&s.id))
            .map(|s| s.id)
            .collect();
        for s in &mut steps {
            if let Some((status, why)) = undo_verdict(s, &live, &trashed, &restoring) {
                s.set(status, why);
            }
        }
        let mut steps = super::settle::our_notes(server, steps, &live)?;
        steps.sort_by_key(|s| (order(s.op), s.id));
        let tag_steps = tag_steps(server, history, &steps)?;
        Ok(UndoPlan {
            steps,
            tag_steps,
            live,
            unconfirmed: Vec::new(),
            again: 0,
        })
    }

    /// One line per step refused.
    pub fn refusals(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter(|s| s.status == Status::Refused)
            .map(|s| {
                format!(
                    "refused {} #{}: {}",
                    s.op.as_str(),
                    s.id,
                    s.reason.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    /// The plan records: the steps, then the tag deletions (`tag`: the name tag steps give).
    pub fn records(&self, tag: &str) -> Vec<Map<String, Value>> {
        let steps = self.steps.iter().map(|s| s.record(tag));
        steps
            .chain(self.tag_steps.iter().map(TagStep::record))
            .collect()
    }

    fn tags_at(&self, status: Status) -> Vec<&str> {
        self.tag_steps
            .iter()
            .filter(|t| t.status == status)
            .map(|t| t.name.as_str())
            .collect()
    }

    /// The summary's words for the unlink steps at `status` (nothing in an undo of no link).
    fn links(&self, words: impl Fn(usize) -> String, status: Status) -> String {
        match self.steps.iter().any(|s| s.op == Op::Unlink) {
            true => words(count_op(&self.steps, Op::Unlink, status)),
            false => String::new(),
        }
    }

    /// The plan in one line, for a run without --yes.
    pub fn summary(&self) -> String {
        let n = |op: Op| count_op(&self.steps, op, Status::Planned);
        format!(
            "undo plan: restore {} from the trash, remove the tag from {}, delete {} notes{}{}; {} skipped, {} refused; nothing changed (add --yes to apply)",
            n(Op::Restore),
            n(Op::Untag),
            n(Op::Unnote),
            self.links(|n| format!(", remove {n} links"), Status::Planned),
            deleted_tags(&self.tags_at(Status::Planned), "delete"),
            count(&self.steps, Status::Skipped),
            count(&self.steps, Status::Refused)
        )
    }

    /// What was done, in one line, after [`UndoPlan::carry_out`].
    pub fn done_summary(&self, journal: &Path) -> String {
        let done = |op: Op| count_op(&self.steps, op, Status::Done);
        let again = match self.again {
            0 => String::new(),
            n => format!(" ({n} of them on reading the server back)"),
        };
        format!(
            "restored {}, untagged {}, notes deleted {}{}{}{again}, {} skipped, {} refused, {} failed{}; journal {}",
            done(Op::Restore),
            done(Op::Untag),
            done(Op::Unnote),
            self.links(|n| format!(", unlinked {n}"), Status::Done),
            deleted_tags(&self.tags_at(Status::Done), "deleted"),
            count(&self.steps, Status::Skipped),
            count(&self.steps, Status::Refused),
            count(&self.steps, Status::Failed),
            super::unknown(&self.steps),
            journal.display()
        )
    }

    /// Carries the undo out (the records name the tag `tag`), then reads the server back
    /// (after `settle`, when a request whose outcome was not seen is younger than that; `wait`
    /// is told) and takes back again what landed late; what it still shows is in
    /// [`UndoPlan::unconfirmed`]. `Ok(Some(error))` when a request failed, as for
    /// [`super::ApplyPlan::carry_out`].
    pub fn carry_out(
        &mut self,
        server: &impl Server,
        history: &History,
        journal: &mut Journal,
        undo: super::settle::UndoRun<'_>,
    ) -> Result<Option<Error>> {
        let (batch, tag) = (undo.batch, undo.tag);
        let mut run = Map::new();
        run.insert("op".into(), "run".into());
        run.insert("mode".into(), "undo".into());
        run.insert("server".into(), server.base().into());
        run.insert("release".into(), json!(server.release()));
        journal.write(run)?;
        // Found undone already: journaled as undone, so that the journal no longer holds the
        // change in force and a later run does not skip the document as done. When the
        // journal shows our own request started or unknown (a resumed undo whose request
        // landed unanswered), the change is ours and so is `modified`; otherwise (a change by
        // hand) it is marked `found` and carries no `modified`, so a later run refuses the
        // edited document.
        for s in self.steps.iter().filter(|s| s.status == Status::Skipped) {
            let extra = match self.live.get(&s.id) {
                Some(d) if history.unsure(s.op, s.id) => {
                    vec![("modified", json!(d.modified))]
                }
                _ => vec![("found", json!(true))],
            };
            journal.write(s.journal_record("ok", tag, &extra))?;
        }
        let ops = [Op::Restore, Op::Untag, Op::Unnote, Op::Unlink];
        let mode = Mode::Undo { tag };
        let mut failed = execute(server, &mut self.steps, &ops, journal, batch, mode)?;
        self.delete_tags(server, journal, &mut failed)?;
        if failed.is_none() {
            failed = super::settle::settle(self, server, journal, &undo)?;
        }
        Ok(failed)
    }

    /// A tag this undo deleted that is back by name (a creation of ours that landed late):
    /// deleted again when no document carries it; `Ok(lines)` say what stays.
    pub(super) fn tags_back(
        &mut self,
        server: &impl Server,
        journal: &mut Journal,
    ) -> Result<(Option<Error>, Vec<String>)> {
        let mut problems = Vec::new();
        let deleted: Vec<String> = self
            .tags_at(Status::Done)
            .into_iter()
            .map(str::to_owned)
            .collect();
        for name in deleted {
            let Some(tag_id) = server.tag_id(&name)? else {
                continue;
            };
            let on: Vec<u64> = server.tagged(tag_id)?.into_iter().collect();
            if !on.is_empty() {
                problems.push(format!("the tag {name:?} is back, {}", carried_by(&on)));
                continue;
            }
            self.tag_steps.push(TagStep {
                tag_id,
                name,
                status: Status::Planned,
                reason: None,
            });
            self.again += 1;
        }
        let mut failed = None;
        self.delete_tags(server, journal, &mut failed)?;
        Ok((failed, problems))
    }

    /// The created tags last, after every document's tag came off; asked again, as others
    /// may have tagged documents since the plan.
    fn delete_tags(
        &mut self,
        server: &impl Server,
        journal: &mut Journal,
        failed: &mut Option<Error>,
    ) -> Result<()> {
        for t in self
            .tag_steps
            .iter_mut()
            .filter(|t| t.status == Status::Planned)
        {
            if failed.is_some() {
                t.skip("not tried: an earlier request failed".into());
                continue;
            }
            let keep = server.tagged(t.tag_id)?;
            if !keep.is_empty() {
                t.skip(carried_by(&keep.into_iter().collect::<Vec<_>>()));
                continue;
            }
            journal.write(t.journal_record("started"))?;
            journal.sync()?;
            match server.delete_tag(t.tag_id) {
                Ok(()) => t.status = Status::Done,
                Err(Error::NotFound { .. }) => t.skip("the tag is gone already".into()),
                Err(e) => {
                    t.status = Status::Failed;
                    t.reason = Some(e.to_string());
                    journal.write(t.journal_record("failed"))?;
                    *failed = Some(Error::Stopped {
                        what: format!(
                            "deleting the tag {:?} failed (run the undo again to resume)",
                            t.name
                        ),
                        source: Box::new(e),
                    });
                    continue;
                }
            }
            journal.write(t.journal_record("ok"))?;
            journal.sync()?;
        }
        Ok(())
    }
}

/// A tag pl-apply created goes too, once no document carries it any more; so does one it set
/// out to create without seeing the answer, found by name.
fn tag_steps(server: &impl Server, history: &History, steps: &[Step]) -> Result<Vec<TagStep>> {
    let untagging = |t: u64| -> BTreeSet<u64> {
        steps
            .iter()
            .filter(|s| s.op == Op::Untag && s.tag_id == Some(t) && s.status == Status::Planned)
            .map(|s| s.id)
            .collect()
    };
    let mut tag_steps = Vec::new();
    let mut created = history.created_tags.clone();
    for name in history.pending_tags.keys() {
        if let Some(t) = server.tag_id(name)? {
            created.entry(t).or_insert_with(|| name.clone());
        }
    }
    for (&tag_id, name) in &created {
        let mut t = TagStep {
            tag_id,
            name: name.clone(),
            status: Status::Planned,
            reason: None,
        };
        if !server.tag_exists(tag_id)? {
            t.skip("the tag is gone already".into());
        } else {
            let keep: Vec<u64> = server
                .tagged(tag_id)?
                .difference(&untagging(tag_id))
                .copied()
                .collect();
            if !keep.is_empty() {
                t.skip(carried_by(&keep));
            }
        }
        tag_steps.push(t);
    }
    Ok(tag_steps)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{decision, FakeServer};
    use super::super::{ApplyOptions, ApplyPlan, Live};
    use super::*;

    /// A journal's path in a folder of its own, removed when the returned guard drops.
    fn journal_path(name: &str) -> (std::path::PathBuf, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        (dir.path().join(name), dir)
    }

    /// Applies `delete`/`note` to one group {1 (primary), 2, 3} with --yes.
    fn applied(server: &FakeServer, p: &Path, delete: bool, note: bool) {
        let ds = [decision(1, 1, &[1, 2, 3])];
        let opts = ApplyOptions {
            tag: "duplicate".into(),
            delete,
            note,
            link: None,
        };
        let h = Journal::read(p).unwrap();
        let live = Live::fetch(server, &ds).unwrap();
        let mut plan = ApplyPlan::new(server, &ds, &h, live, opts).unwrap();
        let mut j = Journal::open(p).unwrap();
        assert!(plan
            .carry_out(server, &h, &mut j, "d", 50)
            .unwrap()
            .is_none());
    }

    fn undone(server: &FakeServer, p: &Path) -> UndoPlan {
        let h = Journal::read(p).unwrap();
        let mut plan = UndoPlan::new(server, &h, p).unwrap();
        let mut j = Journal::open(p).unwrap();
        let run = super::super::UndoRun {
            batch: 50,
            tag: "duplicate",
            settle: std::time::Duration::ZERO,
            wait: &|_| {},
        };
        assert!(plan.carry_out(server, &h, &mut j, run).unwrap().is_none());
        plan
    }

    #[test]
    fn undo_takes_back_tags_notes_and_the_created_tag() {
        let server = FakeServer::with_docs(1..=3);
        let (p, _dir) = journal_path("tags.ndjson");
        applied(&server, &p, false, true);
        let tag = server.tag_id("duplicate").unwrap().unwrap();
        assert_eq!(server.tagged(tag).unwrap().len(), 2);
        assert_eq!(server.notes(2).unwrap().len(), 1);
        let plan = undone(&server, &p);
        assert_eq!(
            plan.done_summary(Path::new("j")),
            "restored 0, untagged 2, notes deleted 2, deleted the tag \"duplicate\", 0 skipped, 0 refused, 0 failed; journal j"
        );
        assert!(!server.tag_exists(tag).unwrap());
        assert!(server.notes(2).unwrap().is_empty());
        // Nothing is in force any more: a second undo has nothing to do.
        let h = Journal::read(&p).unwrap();
        assert!(undo_steps(&h, server.base()).is_empty());
    }

    #[test]
    fn undo_restores_what_it_trashed_and_refuses_what_is_gone() {
        let server = FakeServer::with_docs(1..=3);
        let (p, _dir) = journal_path("trash.ndjson");
        applied(&server, &p, true, false);
        assert_eq!(server.trashed().unwrap().len(), 2);
        server.purge(3);
        let h = Journal::read(&p).unwrap();
        let plan = UndoPlan::new(&server, &h, &p).unwrap();
        let st: Vec<(Op, u64, Status)> =
            plan.steps.iter().map(|s| (s.op, s.id, s.status)).collect();
        assert_eq!(
            st,
            [
                (Op::Restore, 2, Status::Planned),
                (Op::Restore, 3, Status::Refused)
            ]
        );
        assert_eq!(
            plan.refusals(),
            ["refused restore #3: #3 is neither in the trash nor among the documents (the trash was emptied?)"]
        );
    }

    #[test]
    fn a_created_tag_still_carried_by_others_stays() {
        let server = FakeServer::with_docs(1..=4);
        let (p, _dir) = journal_path("carried.ndjson");
        applied(&server, &p, false, false);
        let tag = server.tag_id("duplicate").unwrap().unwrap();
        server.add_tag(&[4], tag).unwrap();
        let plan = undone(&server, &p);
        assert_eq!(plan.tag_steps[0].status, Status::Skipped);
        assert_eq!(
            plan.tag_steps[0].reason.as_deref(),
            Some("still on 1 document (#4), so the tag stays")
        );
    }

    #[test]
    fn a_tag_created_but_never_attached_is_deleted_by_undo() {
        let server = FakeServer::with_docs(1..=3);
        let (p, _dir) = journal_path("unattached.ndjson");
        server.fail_on(2);
        let ds = [decision(1, 1, &[1, 2, 3])];
        let opts = ApplyOptions {
            tag: "duplicate".into(),
            delete: false,
            note: false,
            link: None,
        };
        let h = Journal::read(&p).unwrap();
        let live = Live::fetch(&server, &ds).unwrap();
        let mut plan = ApplyPlan::new(&server, &ds, &h, live, opts).unwrap();
        let mut j = Journal::open(&p).unwrap();
        let e = plan.carry_out(&server, &h, &mut j, "d", 50).unwrap();
        assert!(e.unwrap().to_string().contains("failed; nothing after"));
        let tag = server.tag_id("duplicate").unwrap().expect("created");
        assert!(
            server.tagged(tag).unwrap().is_empty(),
            "refused: on no document"
        );
        let plan = undone(&server, &p);
        assert_eq!(plan.tag_steps[0].status, Status::Done);
        assert!(!server.tag_exists(tag).unwrap());
    }

    #[test]
    fn an_empty_journal_is_refused() {
        let server = FakeServer::with_docs(1..=1);
        let e = UndoPlan::new(&server, &History::default(), Path::new("j.ndjson"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "j.ndjson: no pl-apply journal records in it (or no such file)"
        );
    }
}
