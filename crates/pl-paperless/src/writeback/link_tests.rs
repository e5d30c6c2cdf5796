//! The "Duplicate of" link through plan, executor and undo, on the in-memory server (whose
//! links are symmetric, as Paperless's are).

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::fake::{decision, FakeServer};
use super::settle::UndoRun;
use super::{ApplyOptions, ApplyPlan, Journal, Live, Op, Server, Status, UndoPlan};
use crate::error::Error;

const FIELD: &str = "Duplicate of";

fn opts(delete: bool) -> ApplyOptions {
    ApplyOptions {
        tag: "duplicate".into(),
        delete,
        note: false,
        link: Some(FIELD.into()),
    }
}

/// Plans and carries out the group {1 (primary), 2, 3}: the plan, and the error that stopped it.
fn apply(server: &FakeServer, p: &Path, delete: bool) -> (ApplyPlan, Option<Error>) {
    let ds = [decision(1, 1, &[1, 2, 3])];
    let h = Journal::read(p).unwrap();
    let live = Live::fetch(server, &ds).unwrap();
    let mut plan = ApplyPlan::new(server, &ds, &h, live, opts(delete)).unwrap();
    let mut j = Journal::open(p).unwrap();
    let failed = plan.carry_out(server, &h, &mut j, "d", 50).unwrap();
    (plan, failed)
}

fn undo(server: &FakeServer, p: &Path) -> UndoPlan {
    let h = Journal::read(p).unwrap();
    let mut plan = UndoPlan::new(server, &h, p).unwrap();
    let mut j = Journal::open(p).unwrap();
    let run = UndoRun {
        batch: 50,
        tag: "duplicate",
        settle: Duration::ZERO,
        wait: &|_| {},
    };
    let failed = plan.carry_out(server, &h, &mut j, run).unwrap();
    assert!(failed.is_none(), "{failed:?}");
    plan
}

/// Documents 1..=3, each with a field of its own set (#2 also linked to #9 through the link
/// field when `linked` is given, its id).
fn library(linked: Option<u64>) -> FakeServer {
    let server = FakeServer::with_docs(1..=9);
    for id in 1..=3 {
        let mut l = vec![json!({"value": format!("text {id}"), "field": 50})];
        if let (2, Some(f)) = (id, linked) {
            l.push(json!({"value": [9], "field": f}));
        }
        server.put_custom_fields(id, l);
    }
    server
}

fn links_of(server: &FakeServer, id: u64, field: u64) -> Option<Value> {
    crate::links::entry_value(&server.custom_fields(id), field).cloned()
}

#[test]
fn a_link_is_seen_from_both_sides_added_once_and_undone_exactly() {
    let server = library(None);
    let before: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.ndjson");
    let (plan, failed) = apply(&server, &p, false);
    assert!(failed.is_none(), "{failed:?}");
    assert!(plan.done_summary(&p).starts_with("tagged 2, linked 2,"));
    let f = server
        .link_field(FIELD)
        .unwrap()
        .expect("the field is created");
    assert_eq!(links_of(&server, 2, f), Some(json!([1])));
    assert_eq!(links_of(&server, 3, f), Some(json!([1])));
    assert_eq!(links_of(&server, 1, f), Some(json!([2, 3])), "mirrored");
    assert_eq!(
        server.custom_fields(2)[0],
        before[1][0],
        "the other field kept"
    );
    // A re-run writes nothing, the primary's mirrored link bumping its `modified` included.
    let writes = server.requests().len();
    let (again, failed) = apply(&server, &p, false);
    assert!(failed.is_none());
    assert_eq!(server.requests().len(), writes);
    assert!(again.steps.iter().all(|s| s.status == Status::Skipped));
    let plan = undo(&server, &p);
    assert!(plan.done_summary(&p).contains("unlinked 2"), "{plan:?}");
    let after: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    assert_eq!(
        after, before,
        "every list exactly as before, the primary's too"
    );
    assert!(
        server.link_field(FIELD).unwrap().is_some(),
        "the field stays"
    );
}

#[test]
fn an_existing_link_value_keeps_its_other_links_and_a_link_there_before_stays() {
    let server = library(None);
    let f = server.create_link_field(FIELD).unwrap();
    server.put_custom_fields(2, vec![json!({"value": [9], "field": f})]);
    server.put_custom_fields(3, vec![json!({"value": [1], "field": f})]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.ndjson");
    let (plan, _) = apply(&server, &p, false);
    let link = |id| plan.steps.iter().find(|s| s.op == Op::Link && s.id == id);
    assert_eq!(link(2).unwrap().status, Status::Done);
    assert_eq!(
        link(3).unwrap().reason.as_deref(),
        Some("already linked to #1 in \"Duplicate of\"")
    );
    assert_eq!(links_of(&server, 2, f), Some(json!([9, 1])));
    undo(&server, &p);
    assert_eq!(links_of(&server, 2, f), Some(json!([9])));
    assert_eq!(
        links_of(&server, 3, f),
        Some(json!([1])),
        "not ours to take"
    );
}

#[test]
fn a_link_that_landed_without_an_answer_is_ok_and_undone() {
    let server = library(None);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.ndjson");
    let before: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    server.faults_only_on("custom_fields");
    server.ghost_on(Some(3));
    let (_, failed) = apply(&server, &p, false);
    server.ghost_on(None);
    assert!(failed.is_none(), "the server shows it landed: {failed:?}");
    let h = Journal::read(&p).unwrap();
    assert_eq!(h.result(Op::Link, 3), Some("ok"));
    assert!(h.unsure_since.is_some(), "a lost answer: maybe a late copy");
    undo(&server, &p);
    let after: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    assert_eq!(after, before);
}

#[test]
fn a_link_not_seen_to_land_is_unknown_and_undone_once_it_lands() {
    let server = library(None);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.ndjson");
    let before: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    // The tag lands; #3's link request gets no answer and does not land (yet).
    server.faults_only_on("custom_fields");
    server.lost_on(Some(3));
    let (_, failed) = apply(&server, &p, false);
    assert!(failed.is_some());
    assert_eq!(
        Journal::read(&p).unwrap().result(Op::Link, 3),
        Some("unknown")
    );
    server.lost_on(None);
    // It lands after all.
    let f = server.link_field(FIELD).unwrap().unwrap();
    let late = crate::links::with_link(&server.custom_fields(3), f, 1)
        .unwrap()
        .unwrap();
    server.set_custom_fields(3, &late).unwrap();
    // A re-run finds it landed: ours, and so is the primary's `modified` its mirror bumped.
    let (plan, failed) = apply(&server, &p, false);
    assert!(failed.is_none(), "{failed:?}");
    assert!(plan.refusals().is_empty(), "{:?}", plan.refusals());
    let link = plan.steps.iter().find(|s| s.op == Op::Link && s.id == 3);
    assert_eq!(
        link.unwrap().reason.as_deref(),
        Some("linked: the interrupted run's request had landed")
    );
    undo(&server, &p);
    let after: Vec<Vec<Value>> = (1..=3).map(|id| server.custom_fields(id)).collect();
    assert_eq!(after, before);
}

#[test]
fn the_primarys_mirrored_link_is_no_edit_for_a_later_run() {
    let server = library(None);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.ndjson");
    assert!(apply(&server, &p, false).1.is_none());
    let (plan, failed) = apply(&server, &p, true);
    assert!(failed.is_none(), "{failed:?}");
    let trash: Vec<Status> = plan
        .steps
        .iter()
        .filter(|s| s.op == Op::Trash)
        .map(|s| s.status)
        .collect();
    assert_eq!(trash, [Status::Done, Status::Done], "{:?}", plan.refusals());
}
