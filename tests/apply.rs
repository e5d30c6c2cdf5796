//! pl-apply against the Paperless-compatible test server (tests/paperless_server.py), through
//! the real binary: plan only without --yes, primaries never touched, documents changed since
//! scoring refused, the journal, an idempotent re-run, a killed run resumed, undo of tags and
//! of the trash, and the 2.x and 3.x ways of deleting.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::server::{assert_no_token, stderr, wait_for, Server, Tmp};

const BIN: &str = env!("CARGO_BIN_EXE_pl-apply");
pub(crate) const TOKEN: &str = "tok-Apply7Secret-9b1c";

/// What only these tests ask the server.
impl Server {
    /// The live documents by id (not the trash).
    fn docs(&self) -> Vec<Value> {
        let (s, v) = self.http(
            "GET",
            "/api/documents/?page_size=100000&ordering=id",
            None,
            true,
        );
        assert_eq!(s, 200);
        v["results"].as_array().unwrap().clone()
    }

    fn doc(&self, id: u64) -> Option<Value> {
        self.docs().into_iter().find(|d| d["id"] == id)
    }

    fn trash(&self) -> Vec<u64> {
        let (s, v) = self.http("GET", "/api/trash/?page_size=100000", None, true);
        assert_eq!(s, 200);
        let mut ids: Vec<u64> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_u64().unwrap())
            .collect();
        ids.sort_unstable();
        ids
    }

    fn tag_id(&self, name: &str) -> Option<u64> {
        let (_, v) = self.http("GET", "/api/tags/?page_size=1000", None, true);
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["id"].as_u64().unwrap())
    }

    fn tags_of(&self, id: u64) -> Vec<u64> {
        self.doc(id)
            .map(|d| {
                d["tags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_u64().unwrap())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// "METHOD path" of the requests seen since the last clear (control excluded).
    fn requests(&self) -> Vec<String> {
        self.log()
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    r["method"].as_str().unwrap(),
                    r["path"].as_str().unwrap()
                )
            })
            .collect()
    }

    pub(crate) fn writes(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| !r.starts_with("GET "))
            .collect()
    }
}

fn apply_cmd(server: &Server, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("PAPERLESS_TOKEN")
        .env("PAPERLESS_URL", server.url())
        .env("PAPERLESS_TOKEN", TOKEN)
        .args(["--backoff", "20", "--timeout", "10"])
        .args(args);
    c
}

/// Runs pl-apply; the token must show up nowhere (outputs, files in `dir`).
pub(crate) fn apply(server: &Server, dir: &Tmp, args: &[&str]) -> Output {
    let out = apply_cmd(server, args).output().unwrap();
    assert_no_token(&out, dir, TOKEN);
    out
}

/// The plan records a run printed.
fn plan_of(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub(crate) fn ok(out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "pl-apply failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    plan_of(out)
}

/// The plan records of a run that refused some documents: exit 3, and the summary says so.
fn refused(out: &Output) -> Vec<Value> {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "exit 3 expected: {err}");
    assert!(err.contains("documents refused (exit 3)"), "{err}");
    plan_of(out)
}

/// (id, status) of the plan records.
pub(crate) fn statuses(plan: &[Value]) -> Vec<(u64, String)> {
    plan.iter()
        .map(|r| {
            (
                r["id"].as_u64().unwrap(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub(crate) fn journal(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A library of `n` documents and the decisions file for `groups` ([primary, members...]),
/// with `modified` as the server has it now.
pub(crate) fn setup(
    server: &Server,
    dir: &Tmp,
    n: usize,
    groups: &[(&str, u64, &[u64])],
) -> PathBuf {
    let ids = server.add(Value::Array(
        (0..n)
            .map(|i| json!({"title": format!("doc {i}"), "content": format!("text {i}")}))
            .collect(),
    ));
    assert_eq!(ids, (1..=n as u64).collect::<Vec<_>>());
    let docs = server.docs();
    let modified = |id: u64| {
        docs.iter().find(|d| d["id"] == id).unwrap()["modified"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let mut text = String::new();
    for (i, (decision, primary, members)) in groups.iter().enumerate() {
        let m: serde_json::Map<String, Value> = members
            .iter()
            .map(|&id| (id.to_string(), json!(modified(id))))
            .collect();
        text += &format!(
            "{}\n",
            json!({"group": i + 1, "decision": decision, "primary": primary,
                   "members": members, "modified": m, "confidence": 0.9,
                   "decided_at": "2026-11-23T04:00:00Z"})
        );
    }
    let p = dir.path("decisions.ndjson");
    std::fs::write(&p, text).unwrap();
    server.clear_log();
    p
}

#[test]
fn plans_without_yes_and_changes_nothing() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-plan");
    let dec = setup(
        &server,
        &dir,
        7,
        &[
            ("duplicate", 1, &[1, 2, 3]),
            ("not-duplicate", 4, &[4, 5]),
            ("ignore", 6, &[6, 7]),
        ],
    );
    let out = apply(&server, &dir, &[dec.to_str().unwrap()]);
    let plan = ok(&out);
    assert_eq!(
        statuses(&plan),
        vec![(2, "planned".into()), (3, "planned".into())],
        "only the duplicate group's non-primaries"
    );
    assert!(plan
        .iter()
        .all(|r| r["action"] == "tag" && r["primary"] == 1));
    let err = stderr(&out);
    assert!(
        err.contains("tag 2 documents \"duplicate\" (the tag will be created)")
            && err.contains("nothing changed (add --yes to apply)"),
        "{err}"
    );
    assert!(server.writes().is_empty(), "writes: {:?}", server.writes());
    assert_eq!(server.tag_id("duplicate"), None, "no tag created");
    assert!(!dir.path("decisions.ndjson.journal.ndjson").exists());
    // The same for --delete.
    let plan = ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--delete"]));
    assert!(plan
        .iter()
        .all(|r| r["action"] == "trash" && r["status"] == "planned"));
    assert!(server.writes().is_empty());
    assert!(server.trash().is_empty());
}

#[test]
fn tags_journals_and_reruns_idempotently() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-tag");
    let dec = setup(
        &server,
        &dir,
        5,
        &[("duplicate", 1, &[1, 2, 3]), ("duplicate", 5, &[4, 5])],
    );
    let d = dec.to_str().unwrap();
    let plan = ok(&apply(&server, &dir, &[d, "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into()), (4, "done".into())]
    );
    let tag = server.tag_id("duplicate").expect("tag created");
    for id in [2, 3, 4] {
        assert_eq!(server.tags_of(id), vec![tag], "#{id}");
    }
    for id in [1, 5] {
        assert!(server.tags_of(id).is_empty(), "primary #{id} touched");
    }
    // The journal: a run record, the tag creation, started + ok for each, with `modified`.
    let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
    assert_eq!(j[0]["op"], "run");
    assert!(j
        .iter()
        .any(|r| r["op"] == "create-tag" && r["tag_id"] == tag));
    for id in [2u64, 3, 4] {
        let rs: Vec<&Value> = j
            .iter()
            .filter(|r| r["id"] == id && r["op"] == "tag")
            .collect();
        assert_eq!(rs.len(), 2, "#{id}: {rs:?}");
        assert_eq!(rs[0]["result"], "started");
        assert_eq!(rs[1]["result"], "ok");
        assert_eq!(
            rs[1]["modified"],
            server.doc(id).unwrap()["modified"],
            "the journal keeps the server's modified after the change"
        );
        assert!(rs[1]["at"].as_str().unwrap().ends_with('Z'));
    }
    // Re-run: nothing written, everything skipped as done.
    server.clear_log();
    let plan = ok(&apply(&server, &dir, &[d, "--yes"]));
    assert!(plan.iter().all(|r| r["status"] == "skipped"), "{plan:?}");
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    // Our own tagging bumped `modified`: a later --delete of the same decisions is not refused.
    let plan = ok(&apply(&server, &dir, &[d, "--delete", "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into()), (4, "done".into())]
    );
    assert_eq!(server.trash(), vec![2, 3, 4]);
    // Undo of both runs: restored first, then the tags come off.
    let j = dir.path("decisions.ndjson.journal.ndjson");
    let plan = ok(&apply(
        &server,
        &dir,
        &["--undo", j.to_str().unwrap(), "--yes"],
    ));
    let actions: Vec<(String, u64, String)> = plan
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["id"].as_u64().or(r["tag_id"].as_u64()).unwrap(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut want: Vec<(String, u64, String)> = ["restore", "untag"]
        .iter()
        .flat_map(|a| [2u64, 3, 4].map(|id| (a.to_string(), id, "done".to_string())))
        .collect();
    // The tag pl-apply created goes too: no document carries it any more.
    want.push(("delete-tag".into(), tag, "done".into()));
    assert_eq!(actions, want);
    assert!(server.trash().is_empty());
    for id in 1..=5 {
        assert!(server.tags_of(id).is_empty(), "#{id} still tagged");
    }
    assert_eq!(server.tag_id("duplicate"), None);
}

#[test]
fn undo_deletes_the_tag_it_created_once_no_document_carries_it() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-undo-created-tag");
    let dec = setup(&server, &dir, 4, &[("duplicate", 1, &[1, 2, 3])]);
    ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    let tag = server.tag_id("duplicate").expect("created");
    let j = dir.path("decisions.ndjson.journal.ndjson");
    let js = j.to_str().unwrap();
    // Someone tags #4 by hand, then moves it to the trash: it still carries the tag there.
    server.ctl(json!({"action": "update", "id": 4, "tags": ["duplicate"]}));
    server.ctl(json!({"action": "delete", "ids": [4]}));
    let delete_tag = |plan: &[Value]| -> Value {
        let rs: Vec<&Value> = plan
            .iter()
            .filter(|r| r["action"] == "delete-tag")
            .collect();
        assert_eq!(rs.len(), 1, "{plan:?}");
        rs[0].clone()
    };
    let out = apply(&server, &dir, &["--undo", js]);
    let t = delete_tag(&ok(&out));
    assert_eq!(t["status"], "skipped");
    assert_eq!(t["tag_id"], tag);
    assert_eq!(
        t["reason"], "still on 1 document (#4), so the tag stays",
        "{t}"
    );
    let out = apply(&server, &dir, &["--undo", js, "--yes"]);
    let plan = ok(&out);
    assert_eq!(delete_tag(&plan)["status"], "skipped");
    assert!(server.tags_of(2).is_empty() && server.tags_of(3).is_empty());
    assert_eq!(
        server.tag_id("duplicate"),
        Some(tag),
        "#4 in the trash holds it"
    );
    // The trash emptied: the next undo deletes the tag, and says so.
    let (s, _) = server.http(
        "POST",
        "/api/trash/",
        Some(&json!({"action": "empty", "documents": [4]})),
        true,
    );
    assert_eq!(s, 200);
    let out = apply(&server, &dir, &["--undo", js]);
    let plan = ok(&out);
    assert_eq!(delete_tag(&plan)["status"], "planned");
    assert!(
        stderr(&out).contains(", delete the tag \"duplicate\";"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.tag_id("duplicate"), Some(tag), "only planned");
    server.clear_log();
    let out = apply(&server, &dir, &["--undo", js, "--yes"]);
    assert_eq!(delete_tag(&ok(&out))["status"], "done");
    assert!(stderr(&out).contains("deleted the tag \"duplicate\""));
    assert_eq!(server.tag_id("duplicate"), None);
    assert!(server
        .writes()
        .contains(&format!("DELETE /api/tags/{tag}/")));
    let rs: Vec<Value> = journal(&j)
        .into_iter()
        .filter(|r| r["op"] == "delete-tag")
        .collect();
    assert_eq!(rs.len(), 2, "started, ok: {rs:?}");
    assert_eq!(
        (&rs[0]["result"], &rs[1]["result"]),
        (&json!("started"), &json!("ok"))
    );
    // Done: a further undo has nothing to do, and sends nothing.
    server.clear_log();
    assert!(ok(&apply(&server, &dir, &["--undo", js, "--yes"])).is_empty());
    assert!(server.writes().is_empty());
    // Apply again: the tag is created anew, and one undo takes the tags and the tag away.
    ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    let again = server.tag_id("duplicate").expect("created again");
    assert_ne!(again, tag);
    let plan = ok(&apply(&server, &dir, &["--undo", js, "--yes"]));
    assert_eq!(delete_tag(&plan)["status"], "done");
    assert_eq!(server.tag_id("duplicate"), None);
}

#[test]
fn never_touches_a_primary() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-primary");
    // #3 is the primary of group 2 and a plain member of group 1: a file no pl-cluster run
    // makes, refused whole before any write.
    let dec = setup(
        &server,
        &dir,
        5,
        &[("duplicate", 1, &[1, 2, 3]), ("duplicate", 3, &[3, 4])],
    );
    for mode in [&[][..], &["--delete"][..]] {
        let mut args = vec![dec.to_str().unwrap(), "--yes"];
        args.extend_from_slice(mode);
        let out = apply(&server, &dir, &args);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(
            err.contains(
                "document 3 is in group 1 (line 1, primary 1) and group 2 (line 2, primary 3)"
            ),
            "{err}"
        );
        assert!(server.writes().is_empty(), "{:?}", server.writes());
        assert!(!dir.path("decisions.ndjson.journal.ndjson").exists());
    }
    // One group each: the primaries are left alone, the others tagged, then trashed.
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-primary2");
    let dec = setup(
        &server,
        &dir,
        5,
        &[("duplicate", 1, &[1, 2]), ("duplicate", 3, &[3, 4])],
    );
    for mode in [&[][..], &["--delete"][..]] {
        let mut args = vec![dec.to_str().unwrap(), "--yes"];
        args.extend_from_slice(mode);
        let plan = ok(&apply(&server, &dir, &args));
        assert!(
            plan.iter().all(|r| r["id"] != 1 && r["id"] != 3),
            "{plan:?}"
        );
        for id in [1, 3] {
            let d = server.doc(id).expect("primary still there");
            assert!(d["tags"].as_array().unwrap().is_empty(), "#{id} tagged");
        }
    }
    assert_eq!(server.trash(), vec![2, 4]);
}

#[test]
fn refuses_documents_changed_since_scoring() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-modified");
    let dec = setup(
        &server,
        &dir,
        6,
        &[("duplicate", 1, &[1, 2, 3]), ("duplicate", 4, &[4, 5, 6])],
    );
    // A member edited in Paperless after scoring, and a group whose primary was edited.
    server.ctl(json!({"action": "update", "id": 3, "title": "edited by hand"}));
    server.ctl(json!({"action": "update", "id": 4, "content": "rewritten"}));
    server.clear_log();
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]);
    let plan = refused(&out);
    assert_eq!(
        statuses(&plan),
        vec![
            (2, "done".into()),
            (3, "refused".into()),
            (5, "refused".into()),
            (6, "refused".into())
        ]
    );
    let r3 = plan.iter().find(|r| r["id"] == 3).unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(r3.contains("after it was scored"), "{r3}");
    let r5 = plan.iter().find(|r| r["id"] == 5).unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(r5.contains("the primary changed"), "{r5}");
    for id in [3, 5, 6] {
        assert!(server.tags_of(id).is_empty(), "#{id} tagged");
    }
    // A trashed primary: its group is refused (never leave a group without its original).
    let dir2 = Tmp::new("apply-modified2");
    let server2 = Server::start(TOKEN);
    let dec2 = setup(&server2, &dir2, 3, &[("duplicate", 1, &[1, 2, 3])]);
    server2.ctl(json!({"action": "delete", "ids": [1]}));
    let plan = refused(&apply(
        &server2,
        &dir2,
        &[dec2.to_str().unwrap(), "--delete", "--yes"],
    ));
    assert!(plan.iter().all(|r| r["status"] == "refused"
        && r["reason"]
            .as_str()
            .unwrap()
            .contains("primary #1 is not in Paperless")));
    assert_eq!(server2.trash(), vec![1]);
    // No `modified` to compare with: refused, not guessed.
    let p = dir2.path("bare.ndjson");
    std::fs::write(
        &p,
        "{\"group\":1,\"decision\":\"duplicate\",\"primary\":2,\"members\":[2,3]}\n",
    )
    .unwrap();
    let plan = refused(&apply(&server2, &dir2, &[p.to_str().unwrap()]));
    assert_eq!(plan[0]["status"], "refused");
    assert!(plan[0]["reason"]
        .as_str()
        .unwrap()
        .contains("no `modified`"));
}

#[test]
fn a_killed_run_resumes() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-kill");
    let dec = setup(&server, &dir, 5, &[("duplicate", 1, &[1, 2, 3, 4, 5])]);
    let jpath = dir.path("decisions.ndjson.journal.ndjson");
    // One document per request; the first two requests pass, the third hangs for 3 s.
    server.ctl(
        json!({"action": "fault", "kind": "delay", "seconds": 0, "count": 2, "path": "bulk_edit"}),
    );
    server.ctl(
        json!({"action": "fault", "kind": "delay", "seconds": 3, "count": 1, "path": "bulk_edit"}),
    );
    let mut child = apply_cmd(&server, &[dec.to_str().unwrap(), "--yes", "--batch", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = |j: &[Value]| j.iter().filter(|r| r["result"] == "started").count();
    // At least: the tag's creation is journaled as started too, and the third document's
    // start passes in a moment.
    wait_for("the third request", || started(&journal(&jpath)) >= 3);
    // Killed once the server has the third request (it logs it before the delay).
    let bulk = || {
        server
            .requests()
            .iter()
            .filter(|r| r.contains("bulk_edit"))
            .count()
    };
    wait_for("the server to get the third request", || bulk() == 3);
    child.kill().unwrap();
    child.wait().unwrap();
    let j = journal(&jpath);
    let oks: Vec<u64> = j
        .iter()
        .filter(|r| r["result"] == "ok" && r["op"] == "tag")
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(oks, vec![2, 3], "killed after two documents");
    // The hung request still lands on the server after the client died: wait for it.
    let tag = server.tag_id("duplicate").unwrap();
    wait_for("the hung request", || server.tags_of(4) == vec![tag]);
    server.clear_log();
    let plan = ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--yes", "--batch", "1"],
    ));
    assert_eq!(
        statuses(&plan),
        vec![
            (2, "skipped".into()),
            (3, "skipped".into()),
            (4, "skipped".into()),
            (5, "done".into())
        ]
    );
    assert!(plan[2]["reason"]
        .as_str()
        .unwrap()
        .contains("interrupted run"));
    for id in 2..=5 {
        assert_eq!(server.tags_of(id), vec![tag], "#{id}");
    }
    // Exactly one write on resume: #5's tag.
    let writes = server.writes();
    assert_eq!(
        writes,
        vec!["POST /api/documents/bulk_edit/".to_string()],
        "{writes:?}"
    );
    // The journal now says #4 is done, so undo will take its tag off too.
    let j = journal(&jpath);
    assert!(j.iter().any(|r| r["id"] == 4 && r["result"] == "ok"));
}

#[test]
fn undo_removes_only_the_tags_it_added() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-undo-tag");
    let dec = setup(&server, &dir, 4, &[("duplicate", 1, &[1, 2, 3, 4])]);
    // #4 carried the tag before pl-apply ran: undo must leave it.
    server.ctl(json!({"action": "update", "id": 4, "tags": ["duplicate"]}));
    let docs = server.docs();
    let m4 = docs[3]["modified"].as_str().unwrap().to_owned();
    let mut text = std::fs::read_to_string(&dec).unwrap();
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    let mut v = v;
    v["modified"]["4"] = json!(m4);
    text = format!("{v}\n");
    std::fs::write(&dec, text).unwrap();
    let plan = ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![
            (2, "done".into()),
            (3, "done".into()),
            (4, "skipped".into())
        ]
    );
    let tag = server.tag_id("duplicate").unwrap();
    let j = dir.path("decisions.ndjson.journal.ndjson");
    let js = j.to_str().unwrap();
    // Undo: planned first, nothing changes without --yes.
    server.clear_log();
    let plan = ok(&apply(&server, &dir, &["--undo", js]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "planned".into()), (3, "planned".into())]
    );
    assert!(plan.iter().all(|r| r["action"] == "untag"));
    assert!(server.writes().is_empty());
    let plan = ok(&apply(&server, &dir, &["--undo", js, "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into())]
    );
    assert!(server.tags_of(2).is_empty() && server.tags_of(3).is_empty());
    assert_eq!(
        server.tags_of(4),
        vec![tag],
        "a tag that was there before stays"
    );
    // Undo again: nothing left to do.
    server.clear_log();
    let plan = ok(&apply(&server, &dir, &["--undo", js, "--yes"]));
    assert!(plan.is_empty(), "{plan:?}");
    assert!(server.writes().is_empty());
}

#[test]
fn trash_and_undo_with_3x_and_2x() {
    for release in ["3.0.5", "2.20.5"] {
        let server = Server::start(TOKEN);
        let dir = Tmp::new(&format!("apply-trash-{release}"));
        server.ctl(json!({"action": "release", "release": release}));
        if release.starts_with('2') {
            server.ctl(json!({"action": "versions", "allowed": ["7", "8", "9"], "default": "9"}));
        }
        let dec = setup(&server, &dir, 4, &[("duplicate", 2, &[1, 2, 3, 4])]);
        let out = apply(
            &server,
            &dir,
            &[dec.to_str().unwrap(), "--delete", "--yes", "-v"],
        );
        let plan = ok(&out);
        assert_eq!(
            statuses(&plan),
            vec![(1, "done".into()), (3, "done".into()), (4, "done".into())],
            "{release}"
        );
        assert_eq!(server.trash(), vec![1, 3, 4], "{release}");
        assert!(server.doc(2).is_some(), "{release}: primary kept");
        let writes = server.writes();
        if release.starts_with('3') {
            assert_eq!(
                writes,
                vec!["POST /api/documents/delete/".to_string()],
                "{release}"
            );
            assert!(stderr(&out).contains("deleted with documents/delete"));
        } else {
            assert_eq!(
                writes,
                vec!["POST /api/documents/bulk_edit/".to_string()],
                "{release}"
            );
            assert!(stderr(&out).contains("deleted with bulk_edit delete"));
        }
        let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
        assert!(
            j.iter()
                .filter(|r| r["op"] == "trash" && r["result"] == "ok")
                .count()
                == 3
        );
        // Re-run: already done, nothing sent.
        server.clear_log();
        let plan = ok(&apply(
            &server,
            &dir,
            &[dec.to_str().unwrap(), "--delete", "--yes"],
        ));
        assert!(plan.iter().all(|r| r["status"] == "skipped"));
        assert!(server.writes().is_empty());
        // Undo restores all three.
        let js = dir.path("decisions.ndjson.journal.ndjson");
        let plan = ok(&apply(
            &server,
            &dir,
            &["--undo", js.to_str().unwrap(), "--yes"],
        ));
        assert!(
            plan.iter()
                .all(|r| r["action"] == "restore" && r["status"] == "done"),
            "{plan:?}"
        );
        assert!(server.trash().is_empty(), "{release}");
        assert_eq!(server.docs().len(), 4);
    }
}

#[test]
fn groups_over_a_confidence_with_docs() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-groups");
    setup(&server, &dir, 4, &[]);
    let docs: String = server
        .docs()
        .iter()
        .map(|d| format!("{}\n", json!({"id": d["id"], "modified": d["modified"]})))
        .collect();
    std::fs::write(dir.path("docs.ndjson"), docs).unwrap();
    std::fs::write(
        dir.path("groups.ndjson"),
        "{\"group\":1,\"confidence\":0.97,\"jaccard\":0.9,\"fuzzy\":0.99,\"pair\":[1,2],\"primary\":1,\"members\":[1,2]}\n\
         {\"group\":2,\"confidence\":0.8,\"jaccard\":0.7,\"fuzzy\":0.9,\"pair\":[3,4],\"primary\":3,\"members\":[3,4]}\n",
    )
    .unwrap();
    let g = dir.path("groups.ndjson");
    let g = g.to_str().unwrap();
    // Groups without --min-confidence: a clear error.
    let out = apply(&server, &dir, &[g]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--min-confidence"),
        "{}",
        stderr(&out)
    );
    // Without --docs: a usage error.
    let out = apply(&server, &dir, &[g, "--min-confidence", "0.9"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let d = dir.path("docs.ndjson");
    let plan = ok(&apply(
        &server,
        &dir,
        &[
            g,
            "--min-confidence",
            "0.9",
            "--docs",
            d.to_str().unwrap(),
            "--yes",
            "--tag",
            "dup-bulk",
        ],
    ));
    assert_eq!(statuses(&plan), vec![(2, "done".into())]);
    let tag = server.tag_id("dup-bulk").unwrap();
    assert_eq!(server.tags_of(2), vec![tag]);
    assert!(server.tags_of(4).is_empty(), "under the confidence");
}

#[test]
fn errors_are_one_line() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-errors");
    let bad = dir.path("bad.ndjson");
    std::fs::write(
        &bad,
        "{\"group\":1,\"decision\":\"duplicate\",\"primary\":9,\"members\":[1,2]}\n",
    )
    .unwrap();
    let out = apply(&server, &dir, &[bad.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("pl-apply: ") && err.contains("line 1") && err.contains("primary 9"),
        "{err}"
    );
    // No token: usage error, and the token is never taken from argv.
    let out = Command::new(BIN)
        .env_remove("PAPERLESS_TOKEN")
        .env("PAPERLESS_URL", server.url())
        .arg(bad.to_str().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("PAPERLESS_TOKEN"));
    let out = Command::new(BIN).args(["--token", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A wrong token: one line naming the 401, nothing written.
    let dec = setup(&server, &dir, 2, &[("duplicate", 1, &[1, 2])]);
    let out = apply_cmd(&server, &[dec.to_str().unwrap(), "--yes"])
        .env("PAPERLESS_TOKEN", "wrong-token")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("HTTP 401"), "{}", stderr(&out));
    assert!(!dir.path("decisions.ndjson.journal.ndjson").exists());
    // A token that may read but not write: one line naming the 403 and the missing right.
    server.ctl(json!({"action": "fault", "kind": "status", "status": 403, "count": 1, "path": "bulk_edit"}));
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("HTTP 403") && err.contains("permission to change documents"),
        "{err}"
    );
    server.ctl(json!({"action": "clear_faults"}));
    // A failing write: exit 1; a 500 may follow a change, so the server is read and, the
    // change not showing, the journal says unknown; a re-run finishes the job.
    server.ctl(json!({"action": "fault", "kind": "status", "status": 500, "count": 10, "path": "bulk_edit"}));
    let out = apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--yes", "--retries", "1"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("HTTP 500") && err.contains("run again to resume"),
        "{err}"
    );
    let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
    assert!(j.iter().any(|r| r["id"] == 2 && r["result"] == "unknown"));
    server.ctl(json!({"action": "clear_faults"}));
    let plan = ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    assert_eq!(statuses(&plan), vec![(2, "done".into())]);
}

/// The notes of a live document: (id, text).
fn notes(server: &Server, id: u64) -> Vec<(u64, String)> {
    let (s, v) = server.http("GET", &format!("/api/documents/{id}/notes/"), None, true);
    assert_eq!(s, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["id"].as_u64().unwrap(),
                n["note"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn notes_point_to_the_primary_and_undo_deletes_them() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-notes");
    let dec = setup(&server, &dir, 4, &[("duplicate", 1, &[1, 2, 3])]);
    let d = dec.to_str().unwrap();
    let out = apply(&server, &dir, &[d, "--note"]);
    let plan = ok(&out);
    let acts: Vec<(String, u64)> = plan
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["id"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        acts,
        vec![
            ("tag".into(), 2),
            ("note".into(), 2),
            ("tag".into(), 3),
            ("note".into(), 3)
        ]
    );
    assert!(stderr(&out).contains("add a note to 2"), "{}", stderr(&out));
    assert!(server.writes().is_empty());
    let text = format!(
        "Duplicate of document #1: {}/documents/1/details (found by paperless-dedupe, group 1; pl-apply --undo removes this note)",
        server.url()
    );
    assert_eq!(plan[1]["note"], text.as_str());
    let plan = ok(&apply(&server, &dir, &[d, "--note", "--yes"]));
    assert!(plan.iter().all(|r| r["status"] == "done"), "{plan:?}");
    for id in [2, 3] {
        let n = notes(&server, id);
        assert_eq!(n.len(), 1, "#{id}");
        assert_eq!(n[0].1, text);
    }
    assert!(notes(&server, 1).is_empty(), "the primary got a note");
    let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
    assert!(j.iter().any(|r| r["op"] == "note"
        && r["id"] == 2
        && r["result"] == "ok"
        && r["note_id"].as_u64() == Some(notes(&server, 2)[0].0)));
    // Re-run: nothing; then to the trash, notes kept (done), then undo everything.
    server.clear_log();
    let plan = ok(&apply(&server, &dir, &[d, "--note", "--yes"]));
    assert!(plan.iter().all(|r| r["status"] == "skipped"));
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    let plan = ok(&apply(&server, &dir, &[d, "--note", "--delete", "--yes"]));
    let st: Vec<(String, String)> = plan
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        st,
        vec![
            ("note".into(), "skipped".into()),
            ("trash".into(), "done".into()),
            ("note".into(), "skipped".into()),
            ("trash".into(), "done".into())
        ]
    );
    let j = dir.path("decisions.ndjson.journal.ndjson");
    let plan = ok(&apply(
        &server,
        &dir,
        &["--undo", j.to_str().unwrap(), "--yes"],
    ));
    let acts: Vec<(String, u64, String)> = plan
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["id"].as_u64().or(r["tag_id"].as_u64()).unwrap(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let tag = journal(&j)
        .iter()
        .find(|r| r["op"] == "create-tag" && r["result"] == "ok")
        .and_then(|r| r["tag_id"].as_u64())
        .unwrap();
    let mut want: Vec<(String, u64, String)> = ["restore", "untag", "unnote"]
        .iter()
        .flat_map(|a| [2u64, 3].map(|id| (a.to_string(), id, "done".to_string())))
        .collect();
    want.push(("delete-tag".into(), tag, "done".into()));
    assert_eq!(acts, want);
    for id in [2, 3] {
        assert!(notes(&server, id).is_empty(), "#{id} keeps its note");
        assert!(server.tags_of(id).is_empty());
    }
    assert!(server.trash().is_empty());
}

#[test]
fn an_interrupted_note_that_landed_is_not_an_edit() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-note-landed");
    let dec = setup(&server, &dir, 2, &[("duplicate", 1, &[1, 2])]);
    // As if a run was killed after sending the note for #2: it landed (bumping `modified`),
    // the journal only says "started".
    let text = format!(
        "Duplicate of document #1: {}/documents/1/details (found by paperless-dedupe, group 1; pl-apply --undo removes this note)",
        server.url()
    );
    let (s, _) = server.http(
        "POST",
        "/api/documents/2/notes/",
        Some(&json!({"note": text})),
        true,
    );
    assert_eq!(s, 200);
    let jpath = dir.path("decisions.ndjson.journal.ndjson");
    std::fs::write(
        &jpath,
        "{\"at\":\"2026-11-23T04:00:00Z\",\"op\":\"note\",\"id\":2,\"group\":1,\"primary\":1,\"result\":\"started\"}\n",
    )
    .unwrap();
    let plan = ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--note", "--yes"],
    ));
    let st: Vec<(String, String)> = plan
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        st,
        vec![
            ("tag".into(), "done".into()),
            ("note".into(), "skipped".into())
        ]
    );
    assert_eq!(notes(&server, 2).len(), 1, "no second note");
    // Without that journal line the same bump is someone else's edit: refused.
    let dir2 = Tmp::new("apply-note-landed2");
    let server2 = Server::start(TOKEN);
    let dec2 = setup(&server2, &dir2, 2, &[("duplicate", 1, &[1, 2])]);
    server2.http(
        "POST",
        "/api/documents/2/notes/",
        Some(&json!({"note": "by hand"})),
        true,
    );
    let plan = refused(&apply(
        &server2,
        &dir2,
        &[dec2.to_str().unwrap(), "--note", "--yes"],
    ));
    assert!(plan.iter().all(|r| r["status"] == "refused"), "{plan:?}");
}

#[test]
fn undo_copes_with_a_note_deleted_by_hand() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-note-gone");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--note", "--yes"],
    ));
    let n2 = notes(&server, 2)[0].0;
    let (s, _) = server.http(
        "DELETE",
        &format!("/api/documents/2/notes/?id={n2}"),
        None,
        true,
    );
    assert_eq!(s, 200);
    let j = dir.path("decisions.ndjson.journal.ndjson");
    let plan = ok(&apply(
        &server,
        &dir,
        &["--undo", j.to_str().unwrap(), "--yes"],
    ));
    let unnote: Vec<(u64, String)> = plan
        .iter()
        .filter(|r| r["action"] == "unnote")
        .map(|r| {
            (
                r["id"].as_u64().unwrap(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(unnote, vec![(2, "skipped".into()), (3, "done".into())]);
    assert!(notes(&server, 3).is_empty());
    assert!(server.tags_of(2).is_empty() && server.tags_of(3).is_empty());
}

#[test]
fn a_request_that_never_left_is_sent_on_resume() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-never-left");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    // Killed between journaling "started" and sending: the server never saw it.
    std::fs::write(
        dir.path("decisions.ndjson.journal.ndjson"),
        "{\"at\":\"2026-11-23T04:00:00Z\",\"op\":\"trash\",\"id\":2,\"group\":1,\"primary\":1,\"result\":\"started\"}\n",
    )
    .unwrap();
    let plan = ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--delete", "--yes"],
    ));
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into())]
    );
    assert_eq!(server.trash(), vec![2, 3]);
}

#[test]
fn a_server_that_echoes_the_token_leaves_it_out_of_journal_and_plan() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-echo");
    let dec = setup(&server, &dir, 2, &[("duplicate", 1, &[1, 2])]);
    for status in [400, 500] {
        server.ctl(json!({"action": "fault", "kind": "echo", "status": status, "count": 10, "path": "bulk_edit"}));
        // `apply` asserts that the token is in no output and in no file of the folder: the
        // journal records the failure with the server's text.
        let out = apply(
            &server,
            &dir,
            &[dec.to_str().unwrap(), "--yes", "--retries", "1"],
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
        let failed = j
            .iter()
            .rev()
            .find(|r| r["result"] == if status == 400 { "failed" } else { "unknown" })
            .unwrap();
        assert!(
            failed["error"].as_str().unwrap().contains("<token>"),
            "{failed}"
        );
        server.ctl(json!({"action": "clear_faults"}));
    }
}

#[test]
fn contradictions_and_a_damaged_journal_are_refused_before_any_write() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-contradict");
    let dec = setup(
        &server,
        &dir,
        3,
        &[("duplicate", 1, &[1, 2]), ("not-duplicate", 1, &[1, 2])],
    );
    // setup numbers the groups 1 and 2: make the second record decide group 1 again.
    let text = std::fs::read_to_string(&dec)
        .unwrap()
        .replace("{\"group\":2,", "{\"group\":1,");
    std::fs::write(&dec, &text).unwrap();
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("group 1 decided twice: duplicate on line 1, not-duplicate on line 2"),
        "{err}"
    );
    assert!(server.writes().is_empty());
    // Either order: refused.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&dec, format!("{}\n{}\n", lines[1], lines[0])).unwrap();
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not-duplicate on line 1, duplicate on line 2"));
    assert!(server.writes().is_empty());
    // A sound file is applied; then a damaged line in the middle of the journal stops undo.
    std::fs::write(&dec, format!("{}\n", lines[0])).unwrap();
    ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    assert_eq!(server.tags_of(2).len(), 1);
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    let journal = std::fs::read_to_string(&jp).unwrap();
    let mut damaged: Vec<String> = journal.lines().map(str::to_owned).collect();
    let n = damaged.len();
    assert!(n >= 3, "{journal}");
    let half = damaged[1].len() / 2;
    damaged[1].truncate(half);
    std::fs::write(&jp, damaged.join("\n") + "\n").unwrap();
    server.clear_log();
    let out = apply(&server, &dir, &["--undo", jp.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("line 2") && err.contains("damaged"), "{err}");
    assert!(server.writes().is_empty());
    assert_eq!(server.tags_of(2).len(), 1, "still tagged");
}

#[test]
fn a_plan_written_over_the_journal_is_refused() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-over-journal");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2])]);
    ok(&apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]));
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    let journal = std::fs::read(&jp).unwrap();
    server.clear_log();
    // The plan renamed over the journal would leave undo nothing to read: by either name.
    let named = dir.path("./decisions.ndjson.journal.ndjson");
    for o in [&jp, &named] {
        let out = apply(
            &server,
            &dir,
            &[dec.to_str().unwrap(), "-o", o.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("same file") && err.contains("journal"),
            "{err}"
        );
        assert!(server.writes().is_empty());
    }
    assert_eq!(std::fs::read(&jp).unwrap(), journal);
}

#[test]
fn an_undo_that_landed_before_it_was_stopped_is_journaled_on_resume() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-undo-landed");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--delete", "--yes"],
    ));
    assert_eq!(server.trash(), vec![2, 3]);
    // The undo's restore of #2 and #3 reached Paperless, and the run was killed before it
    // journaled the outcome: the journal ends with the two `started` records.
    let js = dir.path("decisions.ndjson.journal.ndjson");
    let mut text = std::fs::read_to_string(&js).unwrap();
    for id in [2, 3] {
        text += &format!(
            "{}\n",
            json!({"op": "restore", "id": id, "group": 1, "primary": 1, "result": "started"})
        );
    }
    std::fs::write(&js, text).unwrap();
    let (status, _) = server.http(
        "POST",
        "/api/trash/",
        Some(&json!({"action": "restore", "documents": [2, 3]})),
        true,
    );
    assert_eq!(status, 200);
    let plan = ok(&apply(
        &server,
        &dir,
        &["--undo", js.to_str().unwrap(), "--yes"],
    ));
    assert!(
        plan.iter().all(|r| r["status"] == "skipped"
            && r["reason"].as_str().unwrap().contains("restored already")),
        "{plan:?}"
    );
    let j = journal(&js);
    let landed: Vec<u64> = j
        .iter()
        .filter(|r| r["op"] == "restore" && r["result"] == "ok" && r["modified"].is_string())
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(landed, vec![2, 3]);
    // The journal no longer holds the trash in force: the same decisions trash them again
    // (before, both were skipped as "done in an earlier run" although live).
    server.clear_log();
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--delete", "--yes"]);
    let plan = plan_of(&out);
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into())],
        "{}",
        stderr(&out)
    );
    assert_eq!(server.trash(), vec![2, 3]);
    // Restored by hand, with no request of ours under way: journaled as `found`, and a later
    // run refuses the documents (restoring changed them), rather than trusting the change.
    let (status, _) = server.http(
        "POST",
        "/api/trash/",
        Some(&json!({"action": "restore", "documents": [2, 3]})),
        true,
    );
    assert_eq!(status, 200);
    ok(&apply(
        &server,
        &dir,
        &["--undo", js.to_str().unwrap(), "--yes"],
    ));
    let j = journal(&js);
    let found = j
        .iter()
        .filter(|r| r["op"] == "restore" && r["found"] == true)
        .count();
    assert_eq!(found, 2);
    let plan = refused(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--delete", "--yes"],
    ));
    assert!(plan.iter().all(|r| r["status"] == "refused"), "{plan:?}");
}

/// pl-apply with the given network settings (apply_cmd's are --backoff 20 --timeout 10).
pub(crate) fn apply_net(server: &Server, dir: &Tmp, net: &[&str], args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    c.env("PAPERLESS_URL", server.url())
        .env("PAPERLESS_TOKEN", TOKEN)
        .args(net)
        .args(args);
    let out = c.output().unwrap();
    assert_no_token(&out, dir, TOKEN);
    out
}

/// What an undo must bring back: the live documents with their tags and notes, the trash,
/// and the tags that exist (by name).
fn snapshot(server: &Server) -> Value {
    let docs: Vec<Value> = server
        .docs()
        .iter()
        .map(|d| {
            let id = d["id"].as_u64().unwrap();
            let n: Vec<String> = notes(server, id).into_iter().map(|(_, t)| t).collect();
            json!({"id": id, "tags": d["tags"], "notes": n})
        })
        .collect();
    let (_, tags) = server.http("GET", "/api/tags/?page_size=1000", None, true);
    let names: Vec<Value> = tags["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    json!({"docs": docs, "trash": server.trash(), "tags": names})
}

/// (op, id, result) of the journal's records about documents.
pub(crate) fn results(j: &[Value]) -> Vec<(String, u64, String)> {
    j.iter()
        .filter(|r| r["id"].is_u64())
        .map(|r| {
            (
                r["op"].as_str().unwrap().to_owned(),
                r["id"].as_u64().unwrap(),
                r["result"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub(crate) const SLOW_NET: &[&str] = &["--timeout", "1", "--retries", "2", "--backoff", "20"];

#[test]
fn a_trash_that_timed_out_but_landed_is_unknown_then_resumed_and_undone() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-unknown-trash");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let before = snapshot(&server);
    let d = dec.to_str().unwrap();
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // Every try waits 4 s, then lands: the client gives up on all three at about 3 s.
    server.ctl(json!({"action": "fault", "kind": "delay", "seconds": 4, "count": 3, "path": "documents/delete"}));
    let out = apply_net(&server, &dir, SLOW_NET, &[d, "--delete", "--yes"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("journaled as unknown"), "{err}");
    assert!(err.contains("2 unknown"), "{err}");
    let trash: Vec<(String, u64, String)> = results(&journal(&jp))
        .into_iter()
        .filter(|r| r.0 == "trash" && r.2 != "started")
        .collect();
    assert_eq!(
        trash,
        vec![
            ("trash".into(), 2, "unknown".into()),
            ("trash".into(), 3, "unknown".into())
        ]
    );
    wait_for("the late trash", || server.trash() == vec![2, 3]);
    // The re-run reads the server: the change is there, and now journaled as ours.
    let plan = ok(&apply(&server, &dir, &[d, "--delete", "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "skipped".into()), (3, "skipped".into())]
    );
    assert!(
        plan[0]["reason"].as_str().unwrap().contains("landed"),
        "{plan:?}"
    );
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "0.1"],
    );
    ok(&out);
    assert!(stderr(&out).contains("restored 2"), "{}", stderr(&out));
    assert_eq!(snapshot(&server), before);
    // Undone twice: nothing to do, and the state holds.
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "0.1"],
    );
    ok(&out);
    assert!(stderr(&out).contains("restored 0"), "{}", stderr(&out));
    assert_eq!(snapshot(&server), before);
}

#[test]
fn an_undo_right_after_an_unknown_outcome_waits_for_it_to_land() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-unknown-tag");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let (s, _) = server.http(
        "POST",
        "/api/tags/",
        Some(&json!({"name": "duplicate"})),
        true,
    );
    assert_eq!(s, 201);
    let before = snapshot(&server);
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // Every try of the tag request waits 5 s, then lands: the client gives up at about 3 s.
    server.ctl(
        json!({"action": "fault", "kind": "delay", "seconds": 5, "count": 3, "path": "bulk_edit"}),
    );
    let out = apply_net(&server, &dir, SLOW_NET, &[dec.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(server.tags_of(2).is_empty(), "not landed yet");
    // Undone before the tags land: the undo finds nothing to take off, waits out --settle,
    // then sees the tags that landed late and takes them off.
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "8"],
    );
    let err = stderr(&out);
    ok(&out);
    assert!(
        err.contains("may still land") && err.contains("2 of them on reading the server back"),
        "{err}"
    );
    assert_eq!(snapshot(&server), before, "{err}");
}

#[test]
fn a_slow_note_is_not_posted_twice() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-slow-note");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let before = snapshot(&server);
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // The note lands at once; its answer comes after the client gave up.
    server.ctl(
        json!({"action": "fault", "kind": "slow", "seconds": 2, "count": 1,
                      "path": "/api/documents/2/notes/", "method": "POST"}),
    );
    let out = apply_net(
        &server,
        &dir,
        SLOW_NET,
        &[dec.to_str().unwrap(), "--note", "--yes"],
    );
    ok(&out);
    assert_eq!(notes(&server, 2).len(), 1, "{}", stderr(&out));
    assert_eq!(notes(&server, 3).len(), 1);
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "0.1"],
    );
    ok(&out);
    assert_eq!(snapshot(&server), before, "{}", stderr(&out));
}

#[test]
fn an_undo_deletes_every_note_of_ours_and_a_tag_created_without_an_answer() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-two-notes");
    let dec = setup(&server, &dir, 2, &[("duplicate", 1, &[1, 2])]);
    let before = snapshot(&server);
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // The tag's creation lands 4 s late, after every try timed out: unknown, the run stops.
    server.ctl(json!({"action": "fault", "kind": "delay", "seconds": 4, "count": 3, "path": "/api/tags/", "method": "POST"}));
    let out = apply_net(
        &server,
        &dir,
        SLOW_NET,
        &[dec.to_str().unwrap(), "--note", "--yes"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    wait_for("the late tag", || server.tag_id("duplicate").is_some());
    let j = journal(&jp);
    assert!(
        j.iter()
            .any(|r| r["op"] == "create-tag" && r["result"] == "unknown"),
        "{j:?}"
    );
    // A re-run tags and notes; a copy of the note lands once more (as a retried POST could).
    ok(&apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--note", "--yes"],
    ));
    let text = notes(&server, 2)[0].1.clone();
    server.http(
        "POST",
        "/api/documents/2/notes/",
        Some(&json!({"note": text})),
        true,
    );
    assert_eq!(notes(&server, 2).len(), 2);
    // The last of the three tag creations lands at about 6 s, after the undo's first pass
    // deleted the tag: the undo, waiting out --settle, deletes it again.
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "5"],
    );
    ok(&out);
    assert!(
        stderr(&out).contains("of them on reading the server back"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&server), before, "{}", stderr(&out));
}

#[test]
fn a_500_after_the_change_landed_is_ok() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-500-landed");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // Every try lands (the first) or finds it done (400 behind the 500), then answers 500.
    server.ctl(json!({"action": "fault", "kind": "slow", "seconds": 0, "status": 500, "count": 3, "path": "documents/delete"}));
    let out = apply_net(
        &server,
        &dir,
        SLOW_NET,
        &[dec.to_str().unwrap(), "--delete", "--yes"],
    );
    ok(&out);
    assert_eq!(server.trash(), vec![2, 3]);
    let oks: Vec<u64> = results(&journal(&jp))
        .into_iter()
        .filter(|r| r.0 == "trash" && r.2 == "ok")
        .map(|r| r.1)
        .collect();
    assert_eq!(oks, vec![2, 3]);
    ok(&apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "0.1"],
    ));
    assert!(server.trash().is_empty());
}

#[test]
fn a_killed_runs_request_that_lands_after_the_undo_is_taken_back() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-kill-inflight");
    let dec = setup(
        &server,
        &dir,
        8,
        &[("duplicate", 1, &[1, 2, 3, 4, 5, 6, 7, 8])],
    );
    let before = snapshot(&server);
    let d = dec.to_str().unwrap();
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    // The first trash request hangs 5 s on the server, then lands.
    server.ctl(json!({"action": "fault", "kind": "delay", "seconds": 5, "count": 1, "path": "documents/delete"}));
    let mut child = apply_cmd(&server, &[d, "--delete", "--yes"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let sent = || {
        server
            .requests()
            .iter()
            .any(|r| r.contains("documents/delete"))
    };
    wait_for("the trash request", sent);
    child.kill().unwrap();
    child.wait().unwrap();
    // Resumed: the request is still under way, so the resume trashes them itself.
    ok(&apply(&server, &dir, &[d, "--delete", "--yes"]));
    assert_eq!(server.trash(), (2..=8).collect::<Vec<u64>>());
    // The undo restores them; the killed run's request lands after that (at 5 s), and the
    // undo, waiting out --settle, takes it back again.
    let out = apply(
        &server,
        &dir,
        &["--undo", jp.to_str().unwrap(), "--yes", "--settle", "8"],
    );
    let err = stderr(&out);
    ok(&out);
    assert!(
        err.contains("7 of them on reading the server back"),
        "{err}"
    );
    assert_eq!(snapshot(&server), before, "{err}");
    // Undone again at once (default --settle, 30 s): nothing to take back, so no waiting.
    let out = apply(&server, &dir, &["--undo", jp.to_str().unwrap(), "--yes"]);
    let err = stderr(&out);
    ok(&out);
    assert!(
        err.contains("restored 0,") && !err.contains("may still land"),
        "{err}"
    );
    assert_eq!(snapshot(&server), before, "{err}");
}

#[test]
fn the_journal_never_follows_a_planted_link() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-journal-link");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let victim = dir.path("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    std::os::unix::fs::symlink(&victim, &jp).unwrap();
    for args in [
        vec![dec.to_str().unwrap(), "--yes"],
        vec!["--undo", jp.to_str().unwrap(), "--yes"],
    ] {
        let out = apply(&server, &dir, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
        assert!(server.writes().is_empty());
    }
    // A dangling link: nothing is created at its target.
    std::fs::remove_file(&jp).unwrap();
    let nowhere = dir.path("nowhere");
    std::os::unix::fs::symlink(&nowhere, &jp).unwrap();
    let out = apply(&server, &dir, &[dec.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert!(
        !nowhere.exists(),
        "the journal was created through the link"
    );
    assert!(server.writes().is_empty());
}

#[test]
fn an_undo_whose_restore_landed_without_an_answer_is_finished_by_the_next() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-undo-unknown");
    let dec = setup(&server, &dir, 3, &[("duplicate", 1, &[1, 2, 3])]);
    let before = snapshot(&server);
    let d = dec.to_str().unwrap();
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    let js = jp.to_str().unwrap();
    ok(&apply(&server, &dir, &[d, "--delete", "--yes"]));
    // The restore lands 5 s late, after every try timed out: unknown, the undo stops.
    server.ctl(
        json!({"action": "fault", "kind": "delay", "seconds": 5, "count": 3,
                      "path": "/api/trash/", "method": "POST"}),
    );
    let out = apply_net(
        &server,
        &dir,
        SLOW_NET,
        &["--undo", js, "--yes", "--settle", "0.1"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let unknown = results(&journal(&jp))
        .into_iter()
        .filter(|r| r.0 == "restore" && r.2 == "unknown")
        .count();
    assert_eq!(unknown, 2);
    wait_for("the late restore", || server.trash().is_empty());
    // The next undo finds them restored by our own request: journaled with `modified`, so
    // the same decisions trash them again later instead of refusing them as edited.
    let out = apply(&server, &dir, &["--undo", js, "--yes", "--settle", "0.1"]);
    ok(&out);
    assert_eq!(snapshot(&server), before, "{}", stderr(&out));
    let plan = ok(&apply(&server, &dir, &[d, "--delete", "--yes"]));
    assert_eq!(
        statuses(&plan),
        vec![(2, "done".into()), (3, "done".into())]
    );
}

#[test]
fn never_writes_a_document_the_token_may_not_change() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-owner");
    let dec = setup(&server, &dir, 4, &[("duplicate", 1, &[1, 2, 3, 4])]);
    // #3 belongs to another user who shared it for viewing only: Paperless says
    // user_can_change false for it (a bulk edit of permissions: `modified` unchanged).
    server.ctl(json!({"action": "access", "id": 3, "owner": 2, "user_can_change": false}));
    for mode in [&["--note"][..], &["--delete"][..]] {
        let mut args = vec![dec.to_str().unwrap(), "--yes"];
        args.extend_from_slice(mode);
        let out = apply(&server, &dir, &args);
        let plan = refused(&out);
        let err = stderr(&out);
        assert!(
            err.contains("refused #3 (group 1): the token's user may not change it"),
            "{err}"
        );
        assert!(
            err.contains("1 documents the token's user may not change it"),
            "{err}"
        );
        assert!(plan
            .iter()
            .filter(|r| r["id"] == 3)
            .all(|r| r["status"] == "refused"));
        // No note was posted on #3 (a bulk edit naming it would have answered 403).
        assert!(
            server.writes().iter().all(|w| !w.contains("/documents/3/")),
            "{:?}",
            server.writes()
        );
        assert!(server.doc(3).unwrap()["tags"]
            .as_array()
            .unwrap()
            .is_empty());
    }
    assert_eq!(server.trash(), vec![2, 4]);
    assert!(server.doc(3).is_some());
}

/// On a terminal pl-apply --yes (and --undo) shows a bar over the changes it makes, with the
/// time left; on a pipe only its one summary line; with -q nothing.
#[test]
fn apply_shows_a_bar_of_its_changes_on_a_terminal_only() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-bar");
    let dec = setup(&server, &dir, 4, &[("duplicate", 1, &[1, 2, 3, 4])]);
    let dec = dec.to_str().unwrap();
    let url = server.url();
    let env = [("PAPERLESS_URL", url.as_str()), ("PAPERLESS_TOKEN", TOKEN)];
    let args = [dec, "--yes", "--batch", "1", "-o", "plan.ndjson"];
    let (code, shown) = crate::cli::stderr_on_a_terminal_with("pl-apply", &args, &dir.0, &env);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("pl-apply: ") && shown.contains("/3 changes (") && shown.contains(" left)"),
        "{shown:?}"
    );
    assert!((2..=4).all(|id| server.tags_of(id).len() == 1));
    let journal = dir.path("decisions.ndjson.journal.ndjson");
    let undo = [
        "--undo",
        journal.to_str().unwrap(),
        "--yes",
        "--settle",
        "0.1",
    ];
    let (code, shown) = crate::cli::stderr_on_a_terminal_with("pl-apply", &undo, &dir.0, &env);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("/3 changes (") && shown.contains(" left)"),
        "{shown:?}"
    );
    // On a pipe: the summary line alone.
    let out = apply(&server, &dir, &[dec, "--yes", "--batch", "1"]);
    ok(&out);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with("pl-apply: ") && !err.contains('\r') && !err.contains('\x1b'),
        "{err:?}"
    );
    let out = apply(
        &server,
        &dir,
        &["-q", "--undo", journal.to_str().unwrap(), "--yes"],
    );
    ok(&out);
    assert!(out.stderr.is_empty(), "-q: {}", stderr(&out));
}
