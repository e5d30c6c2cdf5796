//! An undo acts on what the server shows, not only on what the journal says: the notes of
//! ours on a document are found by their text (a retried note may have made two), and after
//! the undo the server is read back — once every request whose outcome was not seen has had
//! `settle` to land — and what landed late is taken back again. What it still shows of the
//! run is reported, so an undo that cannot confirm the state before the run says so.
//!
//! The residual risk: a request of ours that reaches the server later than `settle` after it
//! was sent (a server or proxy holding it for longer) lands after the undo has finished, and
//! nothing on our side can see it coming. Paperless offers no conditional write that would
//! fence it off.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::execute::{execute, Mode};
use super::journal::now_micros;
use super::undo::UndoPlan;
use super::{Journal, Op, Server, Status, Step};
use crate::error::{Error, Result};
use crate::write::DocState;

/// How an undo is carried out.
pub struct UndoRun<'a> {
    /// Documents per write request.
    pub batch: usize,
    /// The tag's name in journal records.
    pub tag: &'a str,
    /// How long after a request whose outcome was not seen the undo waits before reading the
    /// server back.
    pub settle: Duration,
    /// Told when the undo waits, and why.
    pub wait: &'a dyn Fn(&str),
}

/// Rounds of "read back, take back again" after the first pass.
const ROUNDS: usize = 3;

/// The ids of the notes of ours on `s`'s document among `notes`: its text, or the journal's id.
fn ours(s: &Step, notes: &[(u64, String)]) -> Vec<u64> {
    let mine = |(n, t): &&(u64, String)| Some(*n) == s.note_id || Some(t) == s.note.as_ref();
    notes.iter().filter(mine).map(|(n, _)| *n).collect()
}

/// The unnote steps of live documents, one per note of ours the server shows (none left:
/// skipped); the other steps as they are.
pub(super) fn our_notes(
    server: &impl Server,
    steps: Vec<Step>,
    live: &BTreeMap<u64, DocState>,
) -> Result<Vec<Step>> {
    let mut out = Vec::with_capacity(steps.len());
    for mut s in steps {
        if s.op != Op::Unnote || s.status != Status::Planned || !live.contains_key(&s.id) {
            out.push(s);
            continue;
        }
        let found = ours(&s, &server.notes(s.id)?);
        if found.is_empty() {
            s.set(
                Status::Skipped,
                "no note of ours on it: deleted already, or it never landed".into(),
            );
            out.push(s);
            continue;
        }
        for n in found {
            let mut one = s.clone();
            one.note_id = Some(n);
            out.push(one);
        }
    }
    Ok(out)
}

/// What the server still shows of the run, after `steps` took it back: steps to take it back
/// again, and what cannot be (one line each).
fn recheck(server: &impl Server, steps: &[Step]) -> Result<(Vec<Step>, Vec<String>)> {
    let settled = |s: &&Step| matches!(s.status, Status::Done | Status::Skipped | Status::Unknown);
    // An unlink's primary too: Paperless's mirror of the link is there.
    let primaries = steps
        .iter()
        .filter(|s| s.op == Op::Unlink)
        .filter_map(|s| s.primary);
    let ids: Vec<u64> = steps
        .iter()
        .filter(settled)
        .map(|s| s.id)
        .chain(primaries)
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    let live = server.doc_states(&ids)?;
    let trashed = if ids.iter().any(|id| !live.contains_key(id)) {
        server.trashed()?
    } else {
        BTreeSet::new()
    };
    let (mut again, mut gone) = (Vec::new(), BTreeSet::new());
    let mut seen = BTreeSet::new();
    for s in steps.iter().filter(settled) {
        if !seen.insert((s.op, s.id)) {
            continue;
        }
        let redo = |note_id: Option<u64>| Step {
            note_id,
            status: Status::Planned,
            reason: None,
            ..s.clone()
        };
        match (s.op, live.get(&s.id)) {
            (Op::Restore, None) if trashed.contains(&s.id) => again.push(redo(None)),
            (_, None) if trashed.contains(&s.id) => {}
            (_, None) => {
                gone.insert(s.id);
            }
            (Op::Untag, Some(d)) if s.tag_id.is_some_and(|t| d.tags.contains(&t)) => {
                again.push(redo(None));
            }
            (Op::Unlink, Some(_)) if super::undo::unlink_due(s, &live) => again.push(redo(None)),
            (Op::Unnote, Some(_)) => {
                let notes = server.notes(s.id)?;
                again.extend(ours(s, &notes).into_iter().map(|n| redo(Some(n))));
            }
            _ => {}
        }
    }
    let problems = gone
        .iter()
        .map(|id| format!("#{id} is neither live nor in the trash"));
    Ok((again, problems.collect()))
}

/// After the first pass of an undo: waits out the requests whose outcome was not seen (the
/// journal's, this undo's included), reads the server back, takes back again what landed
/// late, and records in `plan.unconfirmed` what it still shows.
pub(super) fn settle(
    plan: &mut UndoPlan,
    server: &impl Server,
    journal: &mut Journal,
    run: &UndoRun<'_>,
) -> Result<Option<Error>> {
    let deleted_tags = plan.tag_steps.iter().any(|t| t.status == Status::Done);
    if plan.steps.is_empty() && !deleted_tags {
        return Ok(None); // nothing of this undo's to read back, nothing to wait for
    }
    let unsure = Journal::read(journal.path())?.unsure_since;
    let settle = i64::try_from(run.settle.as_micros()).unwrap_or(i64::MAX / 4);
    if let Some(left) = unsure.map(|t| t.saturating_add(settle) - now_micros()) {
        if left > 0 {
            (run.wait)(&format!(
                "a request whose outcome was not seen may still land: reading the server back in {:.1}s (--settle)",
                left as f64 / 1e6
            ));
            std::thread::sleep(Duration::from_micros(left.unsigned_abs()));
        }
    }
    let (failed, mut tags) = plan.tags_back(server, journal)?;
    if failed.is_some() {
        return Ok(failed);
    }
    let mode = Mode::Undo { tag: run.tag };
    let ops = [Op::Restore, Op::Untag, Op::Unnote, Op::Unlink];
    for _ in 0..ROUNDS {
        let (again, problems) = recheck(server, &plan.steps)?;
        if again.is_empty() {
            tags.extend(problems);
            plan.unconfirmed = tags;
            return Ok(None);
        }
        let start = plan.steps.len();
        plan.again += again.len();
        plan.steps.extend(again);
        let failed = execute(
            server,
            &mut plan.steps[start..],
            &ops,
            journal,
            run.batch,
            mode,
        )?;
        if failed.is_some() {
            return Ok(failed);
        }
    }
    let (again, mut problems) = recheck(server, &plan.steps)?;
    problems.append(&mut tags);
    problems.extend(again.iter().map(|s| {
        format!(
            "{} #{} is needed again after {ROUNDS} rounds: something keeps changing it",
            s.op.as_str(),
            s.id
        )
    }));
    plan.unconfirmed = problems;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{decision, FakeServer};
    use super::super::{ApplyOptions, ApplyPlan, History, Live};
    use super::*;

    fn run(wait: &dyn Fn(&str)) -> UndoRun<'_> {
        UndoRun {
            batch: 50,
            tag: "duplicate",
            settle: Duration::ZERO,
            wait,
        }
    }

    /// Applies --delete --note to the group {1 (primary), 2, 3}: `Some(error)` if it stopped.
    fn apply(server: &FakeServer, p: &std::path::Path) -> Option<Error> {
        let ds = [decision(1, 1, &[1, 2, 3])];
        let opts = ApplyOptions {
            tag: "duplicate".into(),
            delete: true,
            note: true,
            link: None,
        };
        let h = Journal::read(p).unwrap();
        let live = Live::fetch(server, &ds).unwrap();
        let mut plan = ApplyPlan::new(server, &ds, &h, live, opts).unwrap();
        let mut j = Journal::open(p).unwrap();
        plan.carry_out(server, &h, &mut j, "d", 50).unwrap()
    }

    fn undo(server: &FakeServer, p: &std::path::Path) -> UndoPlan {
        let h = Journal::read(p).unwrap();
        let mut plan = UndoPlan::new(server, &h, p).unwrap();
        let mut j = Journal::open(p).unwrap();
        let failed = plan.carry_out(server, &h, &mut j, run(&|_| {})).unwrap();
        assert!(failed.is_none(), "{failed:?}");
        plan
    }

    #[test]
    fn a_write_that_landed_without_an_answer_is_ok_and_undone() {
        let server = FakeServer::with_docs(1..=3);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.ndjson");
        server.ghost_on(Some(3));
        // The server shows #3's note and then its trash: ok, and the run goes on.
        assert!(apply(&server, &p).is_none());
        let h = Journal::read(&p).unwrap();
        assert_eq!(h.result(Op::Note, 3), Some("ok"));
        assert_eq!(h.result(Op::Trash, 3), Some("ok"));
        assert!(h.unsure_since.is_some(), "a lost answer: maybe a late copy");
        server.ghost_on(None);
        let plan = undo(&server, &p);
        assert!(plan.unconfirmed.is_empty(), "{:?}", plan.unconfirmed);
        assert!(server.notes(2).unwrap().is_empty() && server.notes(3).unwrap().is_empty());
        assert!(server.trashed().unwrap().is_empty());
    }

    #[test]
    fn a_write_not_seen_to_land_is_unknown_and_undone_once_it_lands() {
        let server = FakeServer::with_docs(1..=3);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.ndjson");
        server.lost_on(Some(2));
        apply(&server, &p).expect("stopped");
        let h = Journal::read(&p).unwrap();
        assert_eq!(h.result(Op::Note, 2), Some("unknown"));
        assert!(h.maybe_in_force(Op::Note, 2));
        // It lands after all, twice (a retried copy): the undo deletes both, by their text.
        server.lost_on(None);
        let text = super::super::plan::note_text(server.base(), 1, 1);
        server.add_note(2, &text).unwrap();
        server.add_note(2, &text).unwrap();
        let plan = undo(&server, &p);
        assert!(server.notes(2).unwrap().is_empty());
        let unnotes = plan
            .steps
            .iter()
            .filter(|s| s.op == Op::Unnote && s.status == Status::Done);
        assert_eq!(unnotes.count(), 2);
        // Undone twice: nothing left to do, nothing unconfirmed.
        let again = undo(&server, &p);
        assert!(again.steps.iter().all(|s| s.status != Status::Done));
        assert!(again.unconfirmed.is_empty());
        let _ = History::default();
    }

    #[test]
    fn what_lands_after_the_first_pass_is_taken_back_again() {
        let server = FakeServer::with_docs(1..=3);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.ndjson");
        assert!(apply(&server, &p).is_none());
        let h = Journal::read(&p).unwrap();
        let mut plan = UndoPlan::new(&server, &h, &p).unwrap();
        let mut j = Journal::open(&p).unwrap();
        // The first pass restores; a late copy of the trash request lands right after.
        let ids = [2, 3];
        let first = execute(
            &server,
            &mut plan.steps,
            &[Op::Restore, Op::Untag, Op::Unnote],
            &mut j,
            50,
            Mode::Undo { tag: "duplicate" },
        )
        .unwrap();
        assert!(first.is_none());
        server
            .trash(&ids, crate::write::DeleteMethod::Endpoint)
            .unwrap();
        assert!(settle(&mut plan, &server, &mut j, &run(&|_| {}))
            .unwrap()
            .is_none());
        assert_eq!(plan.again, 2);
        assert!(server.trashed().unwrap().is_empty());
        assert!(plan.unconfirmed.is_empty());
        // A document purged meanwhile cannot be confirmed: said so.
        server
            .trash(&[2], crate::write::DeleteMethod::Endpoint)
            .unwrap();
        server.purge(2);
        let (_, problems) = recheck(&server, &plan.steps).unwrap();
        assert_eq!(problems, ["#2 is neither live nor in the trash"]);
    }
}
