//! pl-apply --link against the Paperless-compatible test server (tests/paperless_server.py,
//! whose document links are mirrored as Paperless 3.0.5 mirrors them): the link seen from
//! both documents, every other custom field kept, a re-run that adds nothing, an undo that
//! leaves every custom field list exactly as it was, a 403, and a link that timed out but
//! landed.

use std::path::Path;

use serde_json::{json, Value};

use crate::apply::{apply, apply_net, journal, ok, results, setup, statuses, SLOW_NET, TOKEN};
use crate::server::{stderr, Server, Tmp};

const FIELD: &str = "Duplicate of";

/// Document `id`'s custom fields.
fn custom_fields(server: &Server, id: u64) -> Value {
    let (s, v) = server.http("GET", &format!("/api/documents/{id}/"), None, true);
    assert_eq!(s, 200, "{v}");
    v["custom_fields"].clone()
}

/// The custom fields of documents 1..=n.
fn all_fields(server: &Server, n: u64) -> Vec<Value> {
    (1..=n).map(|id| custom_fields(server, id)).collect()
}

/// The id of the custom field `name`.
fn field_id(server: &Server, name: &str) -> Option<u64> {
    let (_, v) = server.http("GET", "/api/custom_fields/?page_size=1000", None, true);
    let fields = v["results"].as_array().unwrap();
    let f = fields.iter().find(|f| f["name"] == name)?;
    assert_eq!(f["data_type"], "documentlink");
    f["id"].as_u64()
}

/// The group {1 (primary), 2, 3} of 4 documents, 1 and 2 with an "Account" field set (and
/// #2 linked to #4 through FIELD when `linked`): the decisions file, with `modified` as the
/// server has it after that.
fn library(server: &Server, dir: &Tmp, linked: bool) -> std::path::PathBuf {
    let dec = setup(server, dir, 4, &[("duplicate", 1, &[1, 2, 3])]);
    let post = |name: &str, kind: &str| {
        let body = json!({"name": name, "data_type": kind});
        let (s, v) = server.http("POST", "/api/custom_fields/", Some(&body), true);
        assert_eq!(s, 201, "{v}");
        v["id"].as_u64().unwrap()
    };
    let account = post("Account", "string");
    let mut two = vec![json!({"value": "Kto 2", "field": account})];
    if linked {
        two.push(json!({"value": [4], "field": post(FIELD, "documentlink")}));
    }
    for (id, list) in [
        (1, vec![json!({"value": "Kto 1", "field": account})]),
        (2, two),
    ] {
        let body = json!({"custom_fields": list});
        let (s, v) = server.http("PATCH", &format!("/api/documents/{id}/"), Some(&body), true);
        assert_eq!(s, 200, "{v}");
    }
    // Scored after these edits.
    let mut text = String::new();
    for line in std::fs::read_to_string(&dec).unwrap().lines() {
        let mut d: Value = serde_json::from_str(line).unwrap();
        for id in 1..=3u64 {
            let (_, doc) = server.http("GET", &format!("/api/documents/{id}/"), None, true);
            d["modified"][id.to_string()] = doc["modified"].clone();
        }
        text += &format!("{d}\n");
    }
    std::fs::write(&dec, text).unwrap();
    server.clear_log();
    dec
}

fn undo(server: &Server, dir: &Tmp, journal: &Path) -> String {
    let j = journal.to_str().unwrap();
    stderr(&ok_out(apply(
        server,
        dir,
        &["--undo", j, "--yes", "--settle", "0.1"],
    )))
}

fn ok_out(out: std::process::Output) -> std::process::Output {
    ok(&out);
    out
}

#[test]
fn a_link_is_seen_from_both_documents_added_once_and_undone_exactly() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-link");
    let dec = library(&server, &dir, true);
    let d = dec.to_str().unwrap();
    let before = all_fields(&server, 4);
    let f = field_id(&server, FIELD).unwrap();
    let out = ok_out(apply(&server, &dir, &[d, "--link", FIELD, "--yes"]));
    assert!(stderr(&out).contains("linked 2"), "{}", stderr(&out));
    // The copy keeps its other fields and links; the primary shows the link back.
    assert_eq!(
        custom_fields(&server, 2),
        json!([before[1][0], {"value": [4, 1], "field": f}])
    );
    assert_eq!(
        custom_fields(&server, 3),
        json!([{"value": [1], "field": f}])
    );
    assert_eq!(
        custom_fields(&server, 1),
        json!([before[0][0], {"value": [2, 3], "field": f}])
    );
    // A re-run sends nothing, though the mirrored link changed the primary.
    server.clear_log();
    let plan = ok(&apply(&server, &dir, &[d, "--link", FIELD, "--yes"]));
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    assert!(plan.iter().all(|r| r["status"] == "skipped"), "{plan:?}");
    let err = undo(&server, &dir, &dir.path("decisions.ndjson.journal.ndjson"));
    assert!(err.contains("unlinked 2"), "{err}");
    assert_eq!(all_fields(&server, 4), before);
}

#[test]
fn the_field_is_created_and_a_plan_changes_nothing() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-link-plan");
    let dec = library(&server, &dir, false);
    let d = dec.to_str().unwrap();
    let out = apply(&server, &dir, &[d, "--link", FIELD]);
    let plan = ok(&out);
    assert!(
        stderr(&out)
            .contains("link 2 to their primary in \"Duplicate of\" (the field will be created)"),
        "{}",
        stderr(&out)
    );
    assert!(plan
        .iter()
        .any(|r| r["action"] == "link" && r["field"] == FIELD));
    assert!(server.writes().is_empty() && field_id(&server, FIELD).is_none());
    ok(&apply(&server, &dir, &[d, "--link", FIELD, "--yes"]));
    assert!(field_id(&server, FIELD).is_some());
    // Another field of that name but not a document link is refused before any write.
    let other = Tmp::new("apply-link-type");
    let server = Server::start(TOKEN);
    let dec = library(&server, &other, false);
    let out = apply(
        &server,
        &other,
        &[dec.to_str().unwrap(), "--link", "Account", "--yes"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("data type string, not documentlink"), "{err}");
    assert!(server.writes().is_empty());
}

#[test]
fn a_link_refused_with_403_is_failed_and_leaves_the_fields() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-link-403");
    let dec = library(&server, &dir, false);
    let before = all_fields(&server, 4);
    // Every change answered 403 (a token that may read but not write): sent again one by one,
    // none lands, and the run stops on the batch's error.
    server.ctl(
        json!({"action": "fault", "kind": "status", "status": 403, "count": 100,
                      "path": "/api/documents/", "method": "PATCH"}),
    );
    let out = apply(
        &server,
        &dir,
        &[dec.to_str().unwrap(), "--link", FIELD, "--yes"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("permission denied (HTTP 403"), "{err}");
    assert!(err.contains("link of documents [2, 3] failed"), "{err}");
    let j = journal(&dir.path("decisions.ndjson.journal.ndjson"));
    // The batch, then each document alone: every try failed.
    let links: std::collections::BTreeSet<(String, u64, String)> = results(&j)
        .into_iter()
        .filter(|r| r.0 == "link" && r.2 != "started")
        .collect();
    assert_eq!(
        links,
        [
            ("link".into(), 2, "failed".into()),
            ("link".into(), 3, "failed".into())
        ]
        .into()
    );
    assert_eq!(all_fields(&server, 4), before);
    undo(&server, &dir, &dir.path("decisions.ndjson.journal.ndjson"));
    assert_eq!(all_fields(&server, 4), before);
}

#[test]
fn a_link_that_timed_out_but_landed_is_ok_and_undone() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("apply-link-slow");
    let dec = library(&server, &dir, true);
    let before = all_fields(&server, 4);
    // Every try lands at once and answers after 3 s: the client gives up on all three.
    server.ctl(
        json!({"action": "fault", "kind": "slow", "seconds": 3, "count": 3,
                      "path": "/api/documents/3/", "method": "PATCH"}),
    );
    let d = dec.to_str().unwrap();
    let out = apply_net(&server, &dir, SLOW_NET, &[d, "--link", FIELD, "--yes"]);
    let err = stderr(&out);
    assert!(out.status.success(), "the server shows it landed: {err}");
    let jp = dir.path("decisions.ndjson.journal.ndjson");
    let j = journal(&jp);
    let last = j
        .iter()
        .rev()
        .find(|r| r["op"] == "link" && r["id"] == 3)
        .unwrap();
    assert_eq!(
        (&last["result"], &last["unanswered"]),
        (&json!("ok"), &json!(true))
    );
    let f = field_id(&server, FIELD).unwrap();
    assert_eq!(
        custom_fields(&server, 3),
        json!([{"value": [1], "field": f}])
    );
    let plan = ok(&apply(&server, &dir, &[d, "--link", FIELD, "--yes"]));
    assert_eq!(statuses(&plan).len(), 4, "{plan:?}");
    undo(&server, &dir, &jp);
    assert_eq!(all_fields(&server, 4), before);
}
