//! The plan of an apply and its safety rules: the non-primary members of every group decided
//! "duplicate" are tagged, trashed or noted; a primary never is (nor any document that is the
//! primary of some group); a document whose `modified` in Paperless is newer than when it was
//! scored is refused, and so is every member of a group whose primary changed or is gone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pl_core::decision::Decision;
use pl_core::time::parse_rfc3339;
use serde_json::{json, Map, Value};

use super::execute::{execute, Mode};
use super::{count, count_op, unknown, History, Journal, Link, Op, Server, Status, Step};
use crate::error::{Error, Result};
use crate::links::{entry_value, links_to};
use crate::write::{DeleteMethod, DocState};

/// What an apply does, from its flags.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// The tag added to the duplicates.
    pub tag: String,
    /// Move the duplicates to the trash instead of tagging them.
    pub delete: bool,
    /// Also add a note pointing to the primary.
    pub note: bool,
    /// Also link each duplicate to its primary through the document-link custom field of
    /// this name (created when missing).
    pub link: Option<String>,
}

/// What the server holds for the decided documents, asked once before planning.
#[derive(Debug, Default)]
pub struct Live {
    /// Every member of every decision, ascending.
    pub ids: Vec<u64>,
    /// The live ones (neither deleted nor in the trash).
    pub docs: BTreeMap<u64, DocState>,
    /// The trash (asked only when a member is not live).
    pub trashed: BTreeSet<u64>,
}

impl Live {
    /// Asks the server about every member of `decisions`.
    pub fn fetch(server: &impl Server, decisions: &[Decision]) -> Result<Live> {
        let ids: Vec<u64> = decisions
            .iter()
            .flat_map(|d| d.members.iter().copied())
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .collect();
        let docs = server.doc_states(&ids)?;
        let trashed = if ids.iter().any(|id| !docs.contains_key(id)) {
            server.trashed()?
        } else {
            BTreeSet::new()
        };
        Ok(Live { ids, docs, trashed })
    }
}

/// The reason given for a document the token's user may not change, whether Paperless said so
/// before planning (`user_can_change`) or answered a write with 403.
pub const MAY_NOT_CHANGE: &str = "the token's user may not change it";

/// ", N of them ... may not change" after a summary's refused count, or nothing.
fn not_theirs(steps: &[Step], main: Op) -> String {
    let n = steps
        .iter()
        .filter(|s| s.op == main && s.status == Status::Refused)
        .filter(|s| {
            s.reason
                .as_deref()
                .is_some_and(|r| r.starts_with(MAY_NOT_CHANGE))
        })
        .count();
    match n {
        0 => String::new(),
        n => format!(" ({n} documents {MAY_NOT_CHANGE})"),
    }
}

/// The note pointing a duplicate to its primary.
pub fn note_text(base: &str, primary: u64, group: u64) -> String {
    format!(
        "Duplicate of document #{primary}: {base}/documents/{primary}/details (found by paperless-dedupe, group {group}; pl-apply --undo removes this note)"
    )
}

/// Why document `id` counts as changed since it was scored (`scored`, its `modified` then),
/// or `None` when it did not change: its present `modified` is the one it had then, or the
/// one our own last change left (`own`, from the journal; `ours`: a change of ours that
/// landed but was not journaled as done).
pub fn changed_since(
    id: u64,
    now: &str,
    scored: Option<&str>,
    own: Option<&str>,
    ours: bool,
) -> Option<String> {
    if ours {
        return None;
    }
    let Some(scored) = scored else {
        return Some(format!(
            "no `modified` for #{id} in the decisions or --docs: cannot tell whether it changed since it was scored"
        ));
    };
    let (Some(t_now), Some(t_scored)) = (parse_rfc3339(now), parse_rfc3339(scored)) else {
        return (now != scored).then(|| {
            format!("#{id} has modified {now} in Paperless, {scored} when it was scored")
        });
    };
    let own = own.and_then(parse_rfc3339).is_some_and(|t| t == t_now);
    (t_now > t_scored && !own).then(|| {
        format!("#{id} was modified in Paperless at {now}, after it was scored ({scored})")
    })
}

/// The steps of an apply, checked, and what it needs to carry them out.
#[derive(Debug)]
pub struct ApplyPlan {
    /// The flags.
    pub opts: ApplyOptions,
    /// The main operation (tag or trash).
    pub main: Op,
    /// The operations per document, in the order they are carried out.
    pub ops: Vec<Op>,
    /// The tag's id, when it exists already.
    pub tag_id: Option<u64>,
    /// The link field's id, when it exists already.
    pub field_id: Option<u64>,
    /// One step per document and operation.
    pub steps: Vec<Step>,
    /// What the server held when planned.
    pub live: Live,
    /// How documents were moved to the trash, once carried out.
    pub method: Option<DeleteMethod>,
}

/// The planner's view of one run: the rules need all of it.
struct Planner<'a, S: Server> {
    server: &'a S,
    history: &'a History,
    live: &'a Live,
    ops: &'a [Op],
    tag: &'a str,
    tag_id: Option<u64>,
    /// The link field's name and id (when it exists).
    field: Option<&'a str>,
    field_id: Option<u64>,
    /// Every primary anywhere → its group: off limits, even where it is a plain member elsewhere.
    primaries: BTreeMap<u64, u64>,
    /// Documents whose present `modified` comes from a change of ours that landed but was not
    /// journaled as done (a run killed mid-request).
    ours: BTreeSet<u64>,
}

impl<S: Server> Planner<'_, S> {
    fn changed(&self, id: u64, scored: Option<&str>) -> Option<String> {
        let now = &self.live.docs.get(&id)?.modified;
        let own = self.history.own_modified.get(&id).map(String::as_str);
        changed_since(id, now, scored, own, self.ours.contains(&id))
    }

    /// Why no member of `d` may be touched: its primary is gone or changed.
    fn group_problem(&self, d: &Decision) -> Option<String> {
        if !self.live.docs.contains_key(&d.primary) {
            return Some(format!(
                "the primary #{} is not in Paperless (deleted or in the trash)",
                d.primary
            ));
        }
        self.changed(d.primary, d.modified[&d.primary].as_deref())
            .map(|why| format!("the primary changed: {why}"))
    }

    /// Whether `id` links to `primary` through the link field.
    fn linked(&self, id: u64, primary: u64) -> bool {
        let fields = self.live.docs.get(&id).map(|d| d.custom_fields.as_slice());
        self.field_id
            .is_some_and(|f| fields.is_some_and(|l| links_to(l, f, primary)))
    }

    /// A link step's [`Link`]: the document's entry of the field before the run, from the
    /// server, or from the journal when a request of an interrupted run may have changed it.
    fn link_of(&self, id: u64, primary: u64) -> Option<Link> {
        let field = self.field?;
        if self.history.unsure(Op::Link, id) {
            if let Some(l) = self
                .history
                .last
                .get(&(Op::Link, id))
                .and_then(Link::from_journal)
            {
                return Some(l);
            }
        }
        let entry = |doc: u64| {
            let f = self.field_id?;
            entry_value(&self.live.docs.get(&doc)?.custom_fields, f).cloned()
        };
        Some(Link {
            field: field.to_owned(),
            before: entry(id),
            primary_had: entry(primary).is_some(),
        })
    }

    fn has_tag(&self, id: u64) -> bool {
        self.tag_id
            .is_some_and(|t| self.live.docs.get(&id).is_some_and(|l| l.tags.contains(&t)))
    }

    /// Changes of an interrupted run that landed without being journaled as done: they bumped
    /// `modified` themselves, so they must not count as someone else's edit. Op → the note's id.
    fn landed(&self, id: u64, primary: u64, text: &str) -> Result<BTreeMap<Op, Option<u64>>> {
        let mut landed = BTreeMap::new();
        if !self.live.docs.contains_key(&id) || self.primaries.contains_key(&id) {
            return Ok(landed);
        }
        for &op in self.ops {
            if !self.history.unsure(op, id) {
                continue;
            }
            if (op == Op::Tag && self.has_tag(id)) || (op == Op::Link && self.linked(id, primary)) {
                landed.insert(op, None);
            } else if op == Op::Note {
                let found = self
                    .server
                    .notes(id)?
                    .into_iter()
                    .filter(|(_, t)| t == text)
                    .map(|(n, _)| n)
                    .max();
                if found.is_some() {
                    landed.insert(op, found);
                }
            }
        }
        Ok(landed)
    }

    /// The rules, in order: what `s` may not do, or has no need to.
    fn verdict(
        &self,
        s: &mut Step,
        d: &Decision,
        group_problem: Option<&String>,
        landed: &BTreeMap<Op, Option<u64>>,
    ) -> Option<(Status, String)> {
        let (op, id) = (s.op, s.id);
        let trashed = self.live.trashed.contains(&id);
        if let Some(g) = self.primaries.get(&id) {
            Some((
                Status::Refused,
                format!("#{id} is the primary of group {g}"),
            ))
        } else if self.history.in_force(op, id) {
            Some((Status::Skipped, "done in an earlier run (journal)".into()))
        } else if let Some(why) = group_problem {
            Some((Status::Refused, why.clone()))
        } else if op == Op::Trash && trashed {
            Some((
                Status::Skipped,
                if self.history.unsure(op, id) {
                    "in the trash: the interrupted run's request had landed".into()
                } else {
                    "already in the trash".into()
                },
            ))
        } else if matches!(op, Op::Note | Op::Link)
            && trashed
            && self.history.in_force(Op::Trash, id)
        {
            Some((Status::Skipped, "in the trash since an earlier run".into()))
        } else if !self.live.docs.contains_key(&id) {
            Some((
                Status::Refused,
                format!("#{id} is not in Paperless (deleted, or not visible to this token)"),
            ))
        } else if !self.live.docs[&id].can_change {
            Some((
                Status::Refused,
                format!("{MAY_NOT_CHANGE} (Paperless: user_can_change false)"),
            ))
        } else if let Some(n) = landed.get(&op) {
            s.note_id = *n;
            Some((
                Status::Skipped,
                format!(
                    "{}: the interrupted run's request had landed",
                    match op {
                        Op::Tag => "tagged",
                        Op::Link => "linked",
                        _ => "noted",
                    }
                ),
            ))
        } else if let Some(why) = self.changed(id, d.modified[&id].as_deref()) {
            Some((Status::Refused, why))
        } else if op == Op::Tag && self.has_tag(id) {
            Some((Status::Skipped, format!("already tagged {:?}", self.tag)))
        } else if op == Op::Link && self.linked(id, d.primary) {
            Some((
                Status::Skipped,
                format!(
                    "already linked to #{} in {:?}",
                    d.primary,
                    self.field.unwrap_or("")
                ),
            ))
        } else {
            None
        }
    }

    /// The steps of every non-primary member of `d` not planned before (in `seen`).
    fn plan_group(
        &mut self,
        d: &Decision,
        seen: &mut BTreeSet<u64>,
        steps: &mut Vec<Step>,
    ) -> Result<()> {
        let text = note_text(self.server.base(), d.primary, d.group);
        let mut members = Vec::new();
        for &id in d.members.iter().filter(|&&m| m != d.primary) {
            if !seen.insert(id) {
                continue;
            }
            let landed = self.landed(id, d.primary, &text)?;
            if !landed.is_empty() {
                self.ours.insert(id);
            }
            // Paperless mirrors a link on the primary, which bumps its `modified`.
            if landed.contains_key(&Op::Link) {
                self.ours.insert(d.primary);
            }
            members.push((id, landed));
        }
        let group_problem = self.group_problem(d);
        for (id, landed) in members {
            for &op in self.ops {
                let mut s = Step {
                    op,
                    id,
                    group: Some(d.group),
                    primary: Some(d.primary),
                    tag_id: if op == Op::Tag { self.tag_id } else { None },
                    note_id: None,
                    note: (op == Op::Note).then(|| text.clone()),
                    field_id: if op == Op::Link { self.field_id } else { None },
                    link: if op == Op::Link {
                        self.link_of(id, d.primary)
                    } else {
                        None
                    },
                    status: Status::Planned,
                    reason: None,
                };
                if let Some((status, why)) =
                    self.verdict(&mut s, d, group_problem.as_ref(), &landed)
                {
                    s.set(status, why);
                }
                steps.push(s);
            }
        }
        Ok(())
    }
}

impl ApplyPlan {
    /// Plans `decisions` (all "duplicate") against what the server holds (`live`) and what
    /// earlier runs did (`history`); asks the server for the tag, and for the notes of a
    /// document an interrupted run was noting.
    pub fn new(
        server: &impl Server,
        decisions: &[Decision],
        history: &History,
        live: Live,
        opts: ApplyOptions,
    ) -> Result<ApplyPlan> {
        let main = if opts.delete { Op::Trash } else { Op::Tag };
        // A note and a link go on before a document leaves for the trash, after its tag
        // otherwise.
        let extra = [(opts.note, Op::Note), (opts.link.is_some(), Op::Link)];
        let extra = extra.iter().filter(|(on, _)| *on).map(|&(_, op)| op);
        let ops: Vec<Op> = match main {
            Op::Trash => extra.chain([Op::Trash]).collect(),
            m => std::iter::once(m).chain(extra).collect(),
        };
        let field_id = match &opts.link {
            Some(name) => server.link_field(name)?,
            None => None,
        };
        let tag_id = if ops.contains(&Op::Tag) {
            server.tag_id(&opts.tag)?
        } else {
            None
        };
        let mut planner = Planner {
            server,
            history,
            live: &live,
            ops: &ops,
            tag: &opts.tag,
            tag_id,
            field: opts.link.as_deref(),
            field_id,
            primaries: decisions.iter().map(|d| (d.primary, d.group)).collect(),
            ours: BTreeSet::new(),
        };
        let mut steps = Vec::new();
        let mut seen = BTreeSet::new();
        for d in decisions {
            planner.plan_group(d, &mut seen, &mut steps)?;
        }
        Ok(ApplyPlan {
            opts,
            main,
            ops,
            tag_id,
            field_id,
            steps,
            live,
            method: None,
        })
    }

    /// One line per document refused (its first operation's step).
    pub fn refusals(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter(|s| s.status == Status::Refused && s.op == self.ops[0])
            .map(|s| {
                format!(
                    "refused #{} (group {}): {}",
                    s.id,
                    s.group.unwrap_or(0),
                    s.reason.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    /// The plan in one line, for a run without --yes.
    pub fn summary(&self) -> String {
        let n_main = count_op(&self.steps, self.main, Status::Planned);
        let mut what = match self.main {
            Op::Tag => format!(
                "tag {n_main} documents {:?}{}",
                self.opts.tag,
                if self.tag_id.is_none() && n_main > 0 {
                    " (the tag will be created)"
                } else {
                    ""
                }
            ),
            _ => format!("move {n_main} documents to the trash"),
        };
        if self.opts.note {
            what += &format!(
                ", add a note to {}",
                count_op(&self.steps, Op::Note, Status::Planned)
            );
        }
        if let Some(f) = &self.opts.link {
            let n = count_op(&self.steps, Op::Link, Status::Planned);
            what += &format!(
                ", link {n} to their primary in {f:?}{}",
                if self.field_id.is_none() && n > 0 {
                    " (the field will be created)"
                } else {
                    ""
                }
            );
        }
        format!(
            "plan: {what}; {} skipped, {} refused{}; nothing changed (add --yes to apply)",
            count(&self.steps, Status::Skipped),
            count(&self.steps, Status::Refused),
            not_theirs(&self.steps, self.main)
        )
    }

    /// What was done, in one line, after [`ApplyPlan::carry_out`].
    pub fn done_summary(&self, journal: &Path) -> String {
        let verb = if self.main == Op::Tag {
            "tagged"
        } else {
            "moved to the trash"
        };
        let notes = if self.opts.note {
            format!(", noted {}", count_op(&self.steps, Op::Note, Status::Done))
        } else {
            String::new()
        };
        let links = match self.opts.link {
            Some(_) => format!(", linked {}", count_op(&self.steps, Op::Link, Status::Done)),
            None => String::new(),
        };
        format!(
            "{verb} {}{notes}{links}, {} skipped, {} refused{}, {} failed{}; journal {}",
            count_op(&self.steps, self.main, Status::Done),
            count(&self.steps, Status::Skipped),
            count(&self.steps, Status::Refused),
            not_theirs(&self.steps, self.main),
            count(&self.steps, Status::Failed),
            unknown(&self.steps),
            journal.display()
        )
    }

    /// How documents were moved to the trash, when some were.
    pub fn deleted_with(&self) -> Option<&'static str> {
        let trashed = self.main == Op::Trash && count_op(&self.steps, Op::Trash, Status::Done) > 0;
        self.method.filter(|_| trashed).map(DeleteMethod::as_str)
    }

    /// Carries the plan out, journal first: a run that dies after this point can be resumed
    /// or undone. `Ok(Some(error))` when a request failed: the steps say which, the journal
    /// too, and nothing after it was tried.
    pub fn carry_out(
        &mut self,
        server: &impl Server,
        history: &History,
        journal: &mut Journal,
        input_name: &str,
        batch: usize,
    ) -> Result<Option<Error>> {
        let tag = self.opts.tag.as_str();
        for s in self.steps.iter().filter(|s| s.status == Status::Skipped) {
            let reason = s.reason.as_deref().unwrap_or("");
            let already =
                reason.starts_with("already tagged") || reason.starts_with("already linked");
            if already && !history.in_force(s.op, s.id) {
                // So that an undo leaves a tag or link alone that was there before.
                journal.write(s.journal_record("already", tag, &[]))?;
            } else if reason.contains("landed") {
                // As a change made in this run is journaled: `modified` when the document is
                // live (a trashed one has none to give).
                let modified: Vec<(&str, Value)> = self
                    .live
                    .docs
                    .get(&s.id)
                    .map(|d| ("modified", json!(d.modified)))
                    .into_iter()
                    .collect();
                journal.write(s.journal_record("ok", tag, &modified))?;
            }
        }
        // A tag an earlier run created without seeing the answer: found, so an undo deletes it.
        if let Some(t) = self.tag_id.filter(|t| {
            history.pending_tags.contains_key(tag) && !history.created_tags.contains_key(t)
        }) {
            let mut o = Map::new();
            o.insert("op".into(), "create-tag".into());
            o.insert("tag".into(), tag.into());
            o.insert("tag_id".into(), t.into());
            o.insert("result".into(), "ok".into());
            o.insert("found".into(), true.into());
            journal.write(o)?;
        }
        let mut run = Map::new();
        run.insert("op".into(), "run".into());
        run.insert("mode".into(), self.main.as_str().into());
        run.insert("note".into(), self.opts.note.into());
        if let Some(f) = &self.opts.link {
            run.insert("link".into(), f.clone().into());
        }
        run.insert("input".into(), input_name.into());
        run.insert("server".into(), server.base().into());
        run.insert("release".into(), json!(server.release()));
        run.insert("planned".into(), count(&self.steps, Status::Planned).into());
        journal.write(run)?;
        let method = server.delete_method();
        self.method = Some(method);
        let mode = Mode::Apply { tag, method };
        let failed = execute(server, &mut self.steps, &self.ops, journal, batch, mode)?;
        journal.sync()?;
        Ok(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{decision, FakeServer};
    use super::*;

    fn opts(delete: bool, note: bool) -> ApplyOptions {
        ApplyOptions {
            tag: "duplicate".into(),
            delete,
            note,
            link: None,
        }
    }

    fn plan(server: &FakeServer, decisions: &[Decision], o: ApplyOptions) -> ApplyPlan {
        let live = Live::fetch(server, decisions).unwrap();
        ApplyPlan::new(server, decisions, &History::default(), live, o).unwrap()
    }

    fn statuses(p: &ApplyPlan) -> Vec<(Op, u64, Status)> {
        p.steps.iter().map(|s| (s.op, s.id, s.status)).collect()
    }

    #[test]
    fn a_document_the_token_may_not_change_is_refused_and_counted() {
        let server = FakeServer::with_docs(1..=4);
        server.lock(3);
        let p = plan(&server, &[decision(1, 1, &[1, 2, 3, 4])], opts(false, true));
        assert_eq!(
            statuses(&p),
            vec![
                (Op::Tag, 2, Status::Planned),
                (Op::Note, 2, Status::Planned),
                (Op::Tag, 3, Status::Refused),
                (Op::Note, 3, Status::Refused),
                (Op::Tag, 4, Status::Planned),
                (Op::Note, 4, Status::Planned)
            ]
        );
        assert_eq!(
            p.refusals(),
            ["refused #3 (group 1): the token's user may not change it (Paperless: user_can_change false)"]
        );
        assert!(
            p.summary().contains(
                "2 refused (1 documents the token's user may not change it); nothing changed"
            ),
            "{}",
            p.summary()
        );
    }

    #[test]
    fn never_the_primary_even_where_it_is_a_member_elsewhere() {
        let server = FakeServer::with_docs(1..=5);
        let ds = [decision(1, 1, &[1, 2]), decision(2, 2, &[2, 3])];
        let p = plan(&server, &ds, opts(false, false));
        assert_eq!(
            statuses(&p),
            vec![(Op::Tag, 2, Status::Refused), (Op::Tag, 3, Status::Planned)]
        );
        assert_eq!(
            p.steps[0].reason.as_deref(),
            Some("#2 is the primary of group 2")
        );
    }

    #[test]
    fn a_document_changed_since_scoring_is_refused_and_so_is_a_changed_primarys_group() {
        let server = FakeServer::with_docs(1..=6);
        server.touch(3, "2026-02-01T00:00:00Z");
        server.touch(4, "2026-02-01T00:00:00Z");
        let ds = [decision(1, 1, &[1, 2, 3]), decision(2, 4, &[4, 5])];
        let p = plan(&server, &ds, opts(false, false));
        assert_eq!(
            statuses(&p),
            vec![
                (Op::Tag, 2, Status::Planned),
                (Op::Tag, 3, Status::Refused),
                (Op::Tag, 5, Status::Refused)
            ]
        );
        assert!(p.steps[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("after it was scored"));
        assert!(p.steps[2]
            .reason
            .as_deref()
            .unwrap()
            .starts_with("the primary changed: #4 was modified"));
        assert_eq!(p.refusals().len(), 2);
    }

    #[test]
    fn changed_since_compares_instants_and_forgives_our_own_change() {
        let t0 = "2026-01-01T00:00:00Z";
        let t1 = "2026-01-01T01:00:00+01:00"; // the same instant
        let t2 = "2026-01-02T00:00:00Z";
        assert_eq!(changed_since(7, t1, Some(t0), None, false), None);
        assert!(changed_since(7, t2, Some(t0), None, false).is_some());
        assert_eq!(changed_since(7, t2, Some(t0), Some(t2), false), None);
        assert_eq!(changed_since(7, t2, Some(t0), None, true), None);
        assert!(changed_since(7, t0, None, None, false)
            .unwrap()
            .starts_with("no `modified` for #7"));
        assert!(changed_since(7, "x", Some("y"), None, false).is_some());
    }

    #[test]
    fn trash_with_notes_notes_first_and_skips_what_is_trashed() {
        let server = FakeServer::with_docs(1..=3);
        server.trash(&[3], DeleteMethod::Endpoint).unwrap();
        let p = plan(&server, &[decision(1, 1, &[1, 2, 3])], opts(true, true));
        assert_eq!(p.ops, vec![Op::Note, Op::Trash]);
        assert_eq!(
            statuses(&p),
            vec![
                (Op::Note, 2, Status::Planned),
                (Op::Trash, 2, Status::Planned),
                (Op::Note, 3, Status::Refused),
                (Op::Trash, 3, Status::Skipped)
            ]
        );
        assert!(p
            .summary()
            .starts_with("plan: move 1 documents to the trash, add a note to 1;"));
    }
}
