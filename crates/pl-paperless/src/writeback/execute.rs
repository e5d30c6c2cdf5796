//! The one executor of the write-back, for apply and undo alike: the planned steps in
//! batches, each batch journaled as started (and synced) before its request and as ok or
//! failed after it, so that the journal always tells what may have landed.

use std::collections::BTreeMap;

use serde_json::json;

use super::plan::MAY_NOT_CHANGE;
use super::{Journal, Op, Server, Status, Step};
use crate::error::{Error, Result};
use crate::links::{links_to, with_link, without_empty, without_link};
use crate::write::{DeleteMethod, DocState};

/// Which run the executor serves.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// An apply, naming the tag (created on its first use when missing) and trashing with
    /// `method`.
    Apply {
        /// The tag's name.
        tag: &'a str,
        /// How documents go to the trash.
        method: DeleteMethod,
    },
    /// An undo; `tag` is the name its records give the tag.
    Undo {
        /// The tag's name.
        tag: &'a str,
    },
}

impl<'a> Mode<'a> {
    /// The tag's name in journal records.
    fn tag(self) -> &'a str {
        match self {
            Mode::Apply { tag, .. } | Mode::Undo { tag } => tag,
        }
    }
}

/// What one request did for each step of its batch (by index), when it stopped half way.
#[derive(Default)]
struct Landed {
    /// Steps whose request landed (per-document requests only).
    handled: BTreeMap<usize, Option<u64>>,
    /// Steps whose note or link was gone already (unnote, unlink).
    gone: Vec<usize>,
}

/// Carries out the planned steps: `order`'s operations one after the other, within one each
/// tag in the order it first appears, `batch` documents a request. Journal and steps say
/// what happened to each; `Ok(Some(error))` names the request that failed, after which
/// nothing was tried. `Err` only when the journal cannot be written or the server not asked
/// what landed.
pub fn execute(
    server: &impl Server,
    steps: &mut [Step],
    order: &[Op],
    journal: &mut Journal,
    batch: usize,
    mode: Mode,
) -> Result<Option<Error>> {
    for &op in order {
        let mut tags: Vec<Option<u64>> = Vec::new();
        for s in steps
            .iter()
            .filter(|s| s.op == op && s.status == Status::Planned)
        {
            if !tags.contains(&s.tag_id) {
                tags.push(s.tag_id);
            }
        }
        for tag_id in tags {
            let planned: Vec<usize> = (0..steps.len())
                .filter(|&i| {
                    steps[i].op == op
                        && steps[i].status == Status::Planned
                        && steps[i].tag_id == tag_id
                })
                .collect();
            if op == Op::Tag && tag_id.is_none() {
                let id = create(server, journal, Named::Tag, mode.tag())?;
                planned.iter().for_each(|&i| steps[i].tag_id = Some(id));
            }
            let field = |i: usize| steps[i].link.as_ref().map(|l| l.field.clone());
            if let Some(name) = planned.first().and_then(|&i| field(i)) {
                if op == Op::Link && steps[planned[0]].field_id.is_none() {
                    let id = create(server, journal, Named::LinkField, &name)?;
                    planned.iter().for_each(|&i| steps[i].field_id = Some(id));
                }
            }
            for chunk in planned.chunks(batch) {
                match run_batch(server, steps, chunk, journal, mode)? {
                    None => {}
                    Some(e) if forbidden(&e) && chunk.len() > 1 => {
                        if let Some(e) = one_by_one(server, steps, chunk, journal, mode, e)? {
                            return Ok(Some(e));
                        }
                    }
                    Some(e) => return Ok(Some(e)),
                }
            }
        }
    }
    Ok(None)
}

/// Whether a batch stopped on a 403: the token's user may not change one of its documents.
fn forbidden(e: &Error) -> bool {
    matches!(e, Error::Stopped { source, .. } if matches!(**source, Error::Forbidden { .. }))
}

/// After a batch of several documents answered 403 (`first`): each one sent alone. When
/// some land, those the server refuses alone are refused (the token's user may not change
/// them: permissions changed since planning); when none does, the token lacks the right to
/// change documents at all, and the run stops on `first`. `Some(error)` when it stops.
fn one_by_one(
    server: &impl Server,
    steps: &mut [Step],
    batch: &[usize],
    journal: &mut Journal,
    mode: Mode,
    first: Error,
) -> Result<Option<Error>> {
    let (mut refused, mut landed) = (Vec::new(), false);
    for &i in batch {
        if steps[i].status != Status::Failed {
            continue;
        }
        steps[i].status = Status::Planned;
        steps[i].reason = None;
        match run_batch(server, steps, &[i], journal, mode)? {
            None => landed = true,
            Some(e) if forbidden(&e) => refused.push(i),
            Some(e) => return Ok(Some(e)),
        }
    }
    if !landed && !refused.is_empty() {
        return Ok(Some(first));
    }
    journal.settled(refused.len() as u64);
    for i in refused {
        let why = format!("{MAY_NOT_CHANGE} (the server answered 403)");
        steps[i].set(Status::Refused, why);
    }
    Ok(None)
}

/// What [`create`] creates.
#[derive(Clone, Copy)]
enum Named {
    Tag,
    LinkField,
}

/// Creates the missing tag or link field before its first use, journaled before (by name)
/// and after (with its id), so that an undo deletes a tag again even when the answer was
/// lost: a creation whose outcome was not seen is looked up by name. (An undo leaves a link
/// field it created: deleting a field deletes every value of it, set by anyone.)
fn create(server: &impl Server, journal: &mut Journal, what: Named, name: &str) -> Result<u64> {
    let (op, key, id_key) = match what {
        Named::Tag => ("create-tag", "tag", "tag_id"),
        Named::LinkField => ("create-field", "field", "field_id"),
    };
    let record = |result: &str, id: Option<u64>| {
        let mut o = serde_json::Map::new();
        o.insert("op".into(), op.into());
        o.insert(key.into(), name.into());
        if let Some(id) = id {
            o.insert(id_key.into(), id.into());
        }
        o.insert("result".into(), result.into());
        o
    };
    journal.write(record("started", None))?;
    journal.sync()?;
    let made = match what {
        Named::Tag => server.create_tag(name),
        Named::LinkField => server.create_link_field(name),
    };
    let find = || match what {
        Named::Tag => server.tag_id(name),
        Named::LinkField => server.link_field(name),
    };
    let id = match made {
        Ok(id) => id,
        Err(e) => match find() {
            Ok(Some(id)) => id,
            _ => {
                let result = if e.may_have_landed() {
                    "unknown"
                } else {
                    "failed"
                };
                journal.write(record(result, None))?;
                journal.sync()?;
                return Err(e);
            }
        },
    };
    journal.write(record("ok", Some(id)))?;
    journal.sync()?;
    Ok(id)
}

/// Sends the request of one batch (one per document for notes): `Ok(Some(via))` when all
/// landed (`via`: the delete method, for the trash), with what each per-document request did
/// in `landed`.
fn request(
    server: &impl Server,
    steps: &[Step],
    batch: &[usize],
    mode: Mode,
    landed: &mut Landed,
) -> std::result::Result<Option<DeleteMethod>, Error> {
    let ids: Vec<u64> = batch.iter().map(|&i| steps[i].id).collect();
    let first = &steps[batch[0]];
    match (first.op, mode) {
        (Op::Tag, _) => server
            .add_tag(&ids, first.tag_id.expect("a tag id"))
            .map(|()| None),
        (Op::Trash, Mode::Apply { method, .. }) => server.trash(&ids, method).map(Some),
        (Op::Trash, Mode::Undo { .. }) => unreachable!("an undo trashes nothing"),
        (Op::Restore, _) => server.restore(&ids).map(|()| None),
        (Op::Untag, _) => server
            .remove_tag(&ids, first.tag_id.expect("checked"))
            .map(|()| None),
        (Op::Note, _) => batch
            .iter()
            .try_for_each(|&i| {
                let n = server.add_note(steps[i].id, steps[i].note.as_deref().unwrap_or(""))?;
                landed.handled.insert(i, Some(n));
                Ok(())
            })
            .map(|()| None),
        (Op::Link | Op::Unlink, _) => batch
            .iter()
            .try_for_each(|&i| {
                if !relink(server, &steps[i])? {
                    landed.gone.push(i);
                }
                landed.handled.insert(i, None);
                Ok(())
            })
            .map(|()| None),
        // A note deleted by hand meanwhile is fine.
        (Op::Unnote, _) => batch
            .iter()
            .try_for_each(|&i| {
                match server.delete_note(steps[i].id, steps[i].note_id.expect("checked")) {
                    Err(Error::NotFound { .. }) => landed.gone.push(i),
                    r => r?,
                }
                landed.handled.insert(i, None);
                Ok(())
            })
            .map(|()| None),
    }
}

/// Document `id`'s custom fields, read from the server.
fn custom_fields(server: &impl Server, id: u64) -> Result<Vec<serde_json::Value>> {
    let mut live = server.doc_states(&[id])?;
    live.remove(&id)
        .map(|d| d.custom_fields)
        .ok_or_else(|| Error::NotFound {
            url: format!("{}/api/documents/{id}/", server.base()),
            detail: "not among the live documents".into(),
        })
}

/// A link step's read-modify-write of the document's custom fields: link adds the primary's
/// id to the link field's value, unlink takes it out (the entry as it was before the run once
/// empty) and then drops the primary's entry of the field when Paperless's mirroring left it
/// empty and the primary had none before. Every other entry is sent back as read. `Ok(false)`
/// when the document was linked (unlink: not linked) already.
fn relink(server: &impl Server, s: &Step) -> Result<bool> {
    let (field, primary) = (
        s.field_id.expect("a field id"),
        s.primary.expect("a primary"),
    );
    let list = custom_fields(server, s.id)?;
    let before = s.link.as_ref().and_then(|l| l.before.as_ref());
    let changed = match s.op {
        Op::Link => with_link(&list, field, primary),
        _ => without_link(&list, field, primary, before),
    }
    .map_err(|msg| Error::Shape {
        url: format!("{}/api/documents/{}/", server.base(), s.id),
        msg,
    })?;
    let did = changed.is_some();
    if let Some(new) = changed {
        server.set_custom_fields(s.id, &new)?;
    }
    if s.op == Op::Unlink && !s.link.as_ref().is_some_and(|l| l.primary_had) {
        let on_primary = server.doc_states(&[primary])?.remove(&primary);
        if let Some(new) = on_primary.and_then(|d| without_empty(&d.custom_fields, field)) {
            server.set_custom_fields(primary, &new)?;
        }
    }
    Ok(did)
}

/// Which steps of `batch` (by index) the server shows done now, with the note's id for a
/// note: read after a request that failed, whose change may have landed all the same.
fn shown_done(
    server: &impl Server,
    steps: &[Step],
    batch: &[usize],
) -> Result<BTreeMap<usize, Option<u64>>> {
    let op = steps[batch[0]].op;
    let ids: Vec<u64> = batch.iter().map(|&i| steps[i].id).collect();
    let mut done = BTreeMap::new();
    match op {
        Op::Trash => {
            let trashed = server.trashed()?;
            done.extend(
                batch
                    .iter()
                    .filter(|&&i| trashed.contains(&steps[i].id))
                    .map(|&i| (i, None)),
            );
        }
        Op::Restore | Op::Tag | Op::Untag => {
            let live = server.doc_states(&ids)?;
            for &i in batch {
                let (s, d) = (&steps[i], live.get(&steps[i].id));
                let tagged = |d: &DocState| s.tag_id.is_some_and(|t| d.tags.contains(&t));
                let shown = match op {
                    Op::Restore => d.is_some(),
                    Op::Tag => d.is_some_and(tagged),
                    _ => d.is_some_and(|d| !tagged(d)),
                };
                if shown {
                    done.insert(i, None);
                }
            }
        }
        Op::Link | Op::Unlink => {
            let live = server.doc_states(&ids)?;
            for &i in batch {
                let s = &steps[i];
                let (field, primary) = (s.field_id.unwrap_or(0), s.primary.unwrap_or(0));
                let linked = live
                    .get(&s.id)
                    .map(|d| links_to(&d.custom_fields, field, primary));
                if linked == Some(op == Op::Link) {
                    done.insert(i, None);
                }
            }
        }
        Op::Note | Op::Unnote => {
            for &i in batch {
                let notes = server.notes(steps[i].id)?;
                let s = &steps[i];
                let found = notes
                    .iter()
                    .filter(|(_, t)| Some(t) == s.note.as_ref())
                    .map(|(n, _)| *n)
                    .max();
                match op {
                    Op::Note if found.is_some() => {
                        done.insert(i, found);
                    }
                    Op::Unnote if !notes.iter().any(|(n, _)| Some(*n) == s.note_id) => {
                        done.insert(i, None);
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(done)
}

/// One batch: journaled as started (on disk before the request, so a run killed from here on
/// is resumable), sent, and each step's outcome journaled with what the server has now for
/// what landed, so a later run knows the change was ours. After a failure the server is read:
/// what it shows done is `ok`; the rest is `failed` when the server refused the request, or
/// `unknown` when its outcome was not seen (it may land later).
fn run_batch(
    server: &impl Server,
    steps: &mut [Step],
    batch: &[usize],
    journal: &mut Journal,
    mode: Mode,
) -> Result<Option<Error>> {
    let tag = mode.tag();
    let op = steps[batch[0]].op;
    let ids: Vec<u64> = batch.iter().map(|&i| steps[i].id).collect();
    for &i in batch {
        journal.write(steps[i].journal_record("started", tag, &[]))?;
    }
    journal.sync()?;
    let mut landed = Landed::default();
    let done = request(server, steps, batch, mode, &mut landed);
    // A copy of the request that went unanswered before a retry may land later.
    let unanswered = server.take_unanswered() || done.as_ref().is_err_and(Error::may_have_landed);
    let mut check_failed = None;
    if done.is_err() {
        let rest: Vec<usize> = batch
            .iter()
            .copied()
            .filter(|i| !landed.handled.contains_key(i))
            .collect();
        match shown_done(server, steps, &rest) {
            Ok(shown) => landed.handled.extend(shown),
            Err(e) => check_failed = Some(e.to_string()),
        }
    }
    let landed_ids: Vec<u64> = batch
        .iter()
        .filter(|i| done.is_ok() || landed.handled.contains_key(i))
        .map(|&i| steps[i].id)
        .collect();
    // A trashed document has no state to give; a link's primary has a new `modified`.
    let mut read_back = landed_ids.clone();
    if matches!(op, Op::Link | Op::Unlink) && !landed_ids.is_empty() {
        read_back.extend(batch.iter().filter_map(|&i| steps[i].primary));
        read_back.sort_unstable();
        read_back.dedup();
    }
    let after = if op == Op::Trash || landed_ids.is_empty() {
        BTreeMap::new()
    } else {
        server.doc_states(&read_back).unwrap_or_default()
    };
    let unknown = done.as_ref().is_err_and(Error::may_have_landed);
    let outcome = Outcome {
        done: &done,
        landed: &landed,
        after: &after,
        unanswered,
        unknown: unknown || check_failed.is_some(),
        check_failed,
    };
    journal_outcomes(steps, batch, journal, tag, &outcome)?;
    let Err(e) = done else {
        return Ok(None);
    };
    // The server shows every change landed (a 500 after the change, a lost answer): go on.
    if batch
        .iter()
        .all(|&i| matches!(steps[i].status, Status::Done | Status::Skipped))
    {
        return Ok(None);
    }
    Ok(Some(stopped(e, op, &ids, unknown, journal, mode)))
}

/// What one batch's request did, as [`journal_outcomes`] needs it.
struct Outcome<'a> {
    done: &'a std::result::Result<Option<DeleteMethod>, Error>,
    landed: &'a Landed,
    /// The landed documents' state right after.
    after: &'a BTreeMap<u64, DocState>,
    /// A copy of the request went unanswered before a retry.
    unanswered: bool,
    /// What the server does not show is `unknown` (else `failed`).
    unknown: bool,
    /// Why the server could not be read after the failure.
    check_failed: Option<String>,
}

/// Sets each step of `batch` to its outcome and journals it (synced).
fn journal_outcomes(
    steps: &mut [Step],
    batch: &[usize],
    journal: &mut Journal,
    tag: &str,
    o: &Outcome,
) -> Result<()> {
    let Outcome {
        done,
        landed,
        after,
        unanswered,
        ..
    } = *o;
    let error = done.as_ref().err().map(ToString::to_string);
    for &i in batch {
        let s = &mut steps[i];
        if error.is_none() || landed.handled.contains_key(&i) {
            if landed.gone.contains(&i) {
                let what = match s.op {
                    Op::Link => "linked already",
                    Op::Unlink => "the link is gone already",
                    _ => "the note is gone already",
                };
                s.set(Status::Skipped, what.into());
            } else {
                s.status = Status::Done;
            }
            if let Some(&Some(n)) = landed.handled.get(&i) {
                s.note_id = Some(n);
            }
            let mut extra = vec![];
            if let Some(d) = after.get(&s.id) {
                extra.push(("modified", json!(d.modified)));
            }
            let primary = s.primary.and_then(|p| after.get(&p));
            if let Some(d) = primary.filter(|_| matches!(s.op, Op::Link | Op::Unlink)) {
                extra.push(("primary_modified", json!(d.modified)));
            }
            if let Ok(Some(v)) = &done {
                extra.push(("via", json!(v.as_str())));
            }
            if unanswered {
                extra.push(("unanswered", json!(true)));
            }
            journal.write(s.journal_record("ok", tag, &extra))?;
        } else {
            let mut msg = error.clone().unwrap_or_default();
            if let Some(c) = &o.check_failed {
                msg += &format!("; reading the server after it failed: {c}");
            }
            let (status, result) = if o.unknown {
                (Status::Unknown, "unknown")
            } else {
                (Status::Failed, "failed")
            };
            s.set(status, msg.clone());
            journal.write(s.journal_record(result, tag, &[("error", json!(msg))]))?;
        }
    }
    let settled = batch.iter().filter(|&&i| {
        matches!(
            steps[i].status,
            Status::Done | Status::Skipped | Status::Refused
        )
    });
    journal.settled(settled.count() as u64);
    journal.sync()
}

/// The error that stops a run after the request of `op` on `ids` failed with `e`.
fn stopped(e: Error, op: Op, ids: &[u64], unknown: bool, journal: &Journal, mode: Mode) -> Error {
    let outcome = if unknown {
        "failed without an answer that says whether it landed: what the server does not show is journaled as unknown (it may still land)"
    } else {
        "failed"
    };
    let what = match mode {
        Mode::Apply { .. } => format!(
            "{} of documents {ids:?} {outcome}; nothing after them was tried (the journal {} has the details; run again to resume: the server's state is read first)",
            op.as_str(),
            journal.path().display()
        ),
        Mode::Undo { .. } => format!(
            "{} of documents {ids:?} {outcome} (run the undo again to resume)",
            op.as_str()
        ),
    };
    Error::Stopped {
        what,
        source: Box::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{step, FakeServer};
    use super::*;

    /// A journal in a folder of its own, removed when the returned guard drops.
    fn journal(name: &str) -> (Journal, std::path::PathBuf, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        (Journal::open(&p).unwrap(), p, dir)
    }

    #[test]
    fn batches_are_journaled_before_and_after_and_the_tag_created_once() {
        let server = FakeServer::with_docs(1..=5);
        let (mut j, p, _dir) = journal("batches.ndjson");
        let mut steps: Vec<Step> = (2..=5).map(|id| step(Op::Tag, id, None)).collect();
        let mode = Mode::Apply {
            tag: "dup",
            method: DeleteMethod::Endpoint,
        };
        let failed = execute(&server, &mut steps, &[Op::Tag], &mut j, 3, mode).unwrap();
        assert!(failed.is_none());
        assert!(steps.iter().all(|s| s.status == Status::Done));
        let tag = server.tag_id("dup").unwrap().unwrap();
        assert_eq!(server.tagged(tag).unwrap().len(), 4);
        let h = Journal::read(&p).unwrap();
        assert!(h.created_tags.contains_key(&tag));
        assert!((2..=5).all(|id| h.in_force(Op::Tag, id)));
        assert_eq!(
            server.requests(),
            ["create-tag", "add_tag 2,3,4", "add_tag 5"]
        );
    }

    #[test]
    fn each_batch_reports_the_steps_it_settled_and_a_403_retry_counts_once() {
        let server = FakeServer::with_docs(1..=7);
        server.forbid(3);
        let (mut j, _p, _dir) = journal("settled.ndjson");
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = seen.clone();
        j.on_settled(move |n| sink.borrow_mut().push(n));
        let mut steps: Vec<Step> = (2..=7).map(|id| step(Op::Tag, id, None)).collect();
        let mode = Mode::Apply {
            tag: "dup",
            method: DeleteMethod::Endpoint,
        };
        assert!(execute(&server, &mut steps, &[Op::Tag], &mut j, 3, mode)
            .unwrap()
            .is_none());
        let seen = seen.borrow();
        // Batch 2,3,4 answered 403: nothing settled, then 2 and 4 alone, then 3 refused;
        // batch 5,6,7 at once.
        assert_eq!(*seen, [0, 1, 0, 1, 1, 3], "{seen:?}");
        assert_eq!(seen.iter().sum::<u64>(), steps.len() as u64);
    }

    #[test]
    fn a_failed_request_stops_the_run_and_is_journaled() {
        let server = FakeServer::with_docs(1..=4);
        server.fail_on(3);
        let (mut j, p, _dir) = journal("failed.ndjson");
        let mut steps: Vec<Step> = (2..=4).map(|id| step(Op::Note, id, None)).collect();
        for s in &mut steps {
            s.note = Some("see #1".into());
        }
        let mode = Mode::Apply {
            tag: "dup",
            method: DeleteMethod::Endpoint,
        };
        let e = execute(&server, &mut steps, &[Op::Note], &mut j, 1, mode)
            .unwrap()
            .expect("a failure");
        assert!(
            e.to_string()
                .starts_with("note of documents [3] failed; nothing after them was tried"),
            "{e}"
        );
        let st: Vec<Status> = steps.iter().map(|s| s.status).collect();
        assert_eq!(st, [Status::Done, Status::Failed, Status::Planned]);
        let h = Journal::read(&p).unwrap();
        assert_eq!(h.result(Op::Note, 3), Some("failed"));
        assert_eq!(h.result(Op::Note, 4), None, "nothing after it was tried");
    }

    #[test]
    fn a_batch_answered_403_is_sent_again_one_by_one_and_the_refused_document_skipped() {
        let server = FakeServer::with_docs(1..=5);
        server.forbid(3);
        let (mut j, p, _dir) = journal("forbidden.ndjson");
        let mut steps: Vec<Step> = (2..=5).map(|id| step(Op::Tag, id, Some(9))).collect();
        server.create_tag("dup").unwrap();
        let tag = server.tag_id("dup").unwrap().unwrap();
        steps.iter_mut().for_each(|s| s.tag_id = Some(tag));
        let mode = Mode::Apply {
            tag: "dup",
            method: DeleteMethod::Endpoint,
        };
        let failed = execute(&server, &mut steps, &[Op::Tag], &mut j, 3, mode).unwrap();
        assert!(failed.is_none(), "{failed:?}");
        let st: Vec<Status> = steps.iter().map(|s| s.status).collect();
        assert_eq!(
            st,
            [Status::Done, Status::Refused, Status::Done, Status::Done]
        );
        assert_eq!(
            steps[1].reason.as_deref(),
            Some("the token's user may not change it (the server answered 403)")
        );
        assert_eq!(
            server.tagged(tag).unwrap().into_iter().collect::<Vec<_>>(),
            [2, 4, 5]
        );
        assert_eq!(
            server.requests(),
            [
                "create-tag",
                "add_tag 2,3,4",
                "add_tag 2",
                "add_tag 3",
                "add_tag 4",
                "add_tag 5"
            ]
        );
        let h = Journal::read(&p).unwrap();
        assert!([2, 4, 5].iter().all(|&id| h.in_force(Op::Tag, id)));
        assert!(!h.in_force(Op::Tag, 3));
    }

    #[test]
    fn a_403_on_every_document_alone_stops_the_run_on_the_batch_s_error() {
        let server = FakeServer::with_docs(1..=3);
        server.forbid(2);
        server.forbid(3);
        let (mut j, _, _dir) = journal("all-forbidden.ndjson");
        let mut steps: Vec<Step> = (2..=3).map(|id| step(Op::Trash, id, None)).collect();
        let mode = Mode::Apply {
            tag: "dup",
            method: DeleteMethod::Endpoint,
        };
        let e = execute(&server, &mut steps, &[Op::Trash], &mut j, 2, mode)
            .unwrap()
            .expect("stopped");
        assert!(
            e.to_string()
                .starts_with("trash of documents [2, 3] failed"),
            "{e}"
        );
        assert!(steps.iter().all(|s| s.status == Status::Failed));
    }

    #[test]
    fn a_note_gone_already_is_skipped() {
        let server = FakeServer::with_docs(1..=2);
        let (mut j, _, _dir) = journal("gone.ndjson");
        let mut steps = vec![step(Op::Unnote, 2, None)];
        steps[0].note_id = Some(99);
        let mode = Mode::Undo { tag: "dup" };
        assert!(
            execute(&server, &mut steps, &[Op::Unnote], &mut j, 10, mode)
                .unwrap()
                .is_none()
        );
        assert_eq!(steps[0].status, Status::Skipped);
        assert_eq!(steps[0].reason.as_deref(), Some("the note is gone already"));
    }
}
