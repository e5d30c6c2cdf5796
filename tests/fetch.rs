//! pl-fetch against the Paperless-compatible test server (tests/paperless_server.py), through
//! the real binary: full and incremental sync, deletions, faults, errors, a killed run, --dir.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server::{assert_no_token, stderr, Server, Tmp};

const BIN: &str = env!("CARGO_BIN_EXE_pl-fetch");
/// Distinctive, so finding it anywhere it must not be is unambiguous.
const TOKEN: &str = "tok-Zq9x7Secret-4f2a";

/// What only these tests ask the server.
impl Server {
    fn fault(&self, f: Value) {
        let mut f = f;
        f["action"] = json!("fault");
        self.ctl(f);
    }

    /// Paths of the requests the server saw (control requests excluded).
    fn paths(&self) -> Vec<String> {
        self.log()
            .iter()
            .map(|r| r["path"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Paths and Accept headers of the requests the server saw.
    fn requests_with_accept(&self) -> Vec<(String, String)> {
        self.log()
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap().to_owned();
                (s("path"), s("accept"))
            })
            .collect()
    }
}

/// pl-fetch with the server's address and token in its environment, fast retries.
fn fetch_cmd(server: &Server, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("PAPERLESS_URL")
        .env_remove("PAPERLESS_TOKEN")
        .env_remove("PAPERLESS_API_TOKEN")
        .env("PAPERLESS_URL", server.url())
        .env("PAPERLESS_TOKEN", TOKEN)
        .args(["--backoff", "20", "--connect-timeout", "3"]);
    if !args.contains(&"--timeout") {
        c.args(["--timeout", "3"]);
    }
    c.args(args);
    c
}

/// Runs pl-fetch and checks the token shows up in none of its output, nor in any file in `dir`.
fn fetch(server: &Server, dir: &Tmp, args: &[&str]) -> Output {
    let out = fetch_cmd(server, args).output().unwrap();
    assert_no_token(&out, dir, TOKEN);
    out
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "pl-fetch failed: {}", stderr(out));
    stderr(out)
}

/// One error line, exit 1.
fn fails(out: &Output, needles: &[&str]) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.contains("; retry ")).collect();
    assert_eq!(lines.len(), 1, "one error line expected: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "{n:?} not in {err}");
    }
    err
}

fn records(path: &Path) -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut m = BTreeMap::new();
    let mut last = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_u64().unwrap();
        assert!(id > last || m.is_empty(), "sorted by id");
        last = id;
        m.insert(id, v);
    }
    m
}

fn counts(err: &str) -> String {
    err.lines()
        .find(|l| l.contains("new "))
        .unwrap_or_else(|| panic!("no counts in {err}"))
        .trim_start_matches("pl-fetch: ")
        .to_owned()
}

fn corpus() -> Value {
    json!([
        {"title": "Invoice 1", "content": "Invoice one from ACME", "correspondent": "ACME",
         "document_type": "Invoice", "tags": ["finance", "2026"], "created": "2026-01-15"},
        {"title": "Invoice 1 copy", "content": "Invoice one from ACME.", "correspondent": "ACME",
         "document_type": "Invoice", "tags": ["finance"], "created": "2026-01-15"},
        {"title": "Letter", "content": "Dear sir", "tags": []},
        {"title": "Empty", "content": ""},
        {"title": "Ünïcode ✓", "content": "naïve café \u{1F600} \"quoted\"\nnew line",
         "archive_serial_number": 17}
    ])
}

/// The same library fetched in full into a fresh file, for comparison.
fn full_copy(server: &Server, dir: &Tmp, name: &str) -> Vec<u8> {
    let p = dir.path(name);
    ok(&fetch(server, dir, &["--full", "-o", p.to_str().unwrap()]));
    std::fs::read(p).unwrap()
}

#[test]
fn full_sync_writes_every_field_with_names() {
    let s = Server::start(TOKEN);
    let ids = s.add(corpus());
    let d = Tmp::new("fetch-full");
    let out = d.path("docs.ndjson");
    let err = ok(&fetch(&s, &d, &["-o", out.to_str().unwrap()]));
    assert_eq!(counts(&err), "new 5, changed 0, deleted 0, unchanged 0");
    let r = records(&out);
    assert_eq!(r.keys().copied().collect::<Vec<_>>(), ids);
    let first = &r[&ids[0]];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "title",
            "content",
            "created",
            "added",
            "modified",
            "correspondent",
            "document_type",
            "tags",
            "archive_serial_number",
            "original_file_name",
            "page_count",
            "mime_type",
            "url",
            "owner",
            "user_can_change"
        ]
    );
    assert_eq!(first["owner"], 1);
    assert_eq!(first["user_can_change"], true);
    assert_eq!(first["correspondent"], "ACME");
    assert_eq!(first["document_type"], "Invoice");
    assert_eq!(first["tags"], json!(["2026", "finance"]));
    assert_eq!(first["created"], "2026-01-15");
    assert_eq!(first["mime_type"], "application/pdf");
    assert_eq!(
        first["url"],
        format!("{}/documents/{}/details", s.url(), ids[0])
    );
    assert_eq!(r[&ids[2]]["correspondent"], Value::Null);
    assert_eq!(r[&ids[3]]["content"], "");
    assert_eq!(r[&ids[4]]["content"], corpus()[4]["content"]);
    assert_eq!(r[&ids[4]]["archive_serial_number"], 17);
    // Paged with an explicit unique ordering, limited fields, version 9.
    let reqs = s.paths();
    assert!(reqs
        .iter()
        .any(|p| p.starts_with("/api/documents/?ordering=id&fields=id,title,content")));
    // The state holds no content, no token (checked in `fetch`), and a checksum.
    let state: Value =
        serde_json::from_slice(&std::fs::read(d.path("docs.ndjson.state.json")).unwrap()).unwrap();
    assert_eq!(state["docs"].as_object().unwrap().len(), 5);
    assert!(!state.to_string().contains("Dear sir"));
    // Deterministic: a second full run gives the same bytes.
    assert_eq!(
        full_copy(&s, &d, "again.ndjson"),
        std::fs::read(&out).unwrap()
    );
}

#[test]
fn incremental_sync_merges_changes_additions_and_deletions() {
    let s = Server::start(TOKEN);
    let ids = s.add(corpus());
    let d = Tmp::new("fetch-incr");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    ok(&fetch(&s, &d, &["-o", o]));
    s.ctl(
        json!({"action": "update", "id": ids[1], "content": "changed text", "tags": ["new tag"]}),
    );
    s.ctl(json!({"action": "delete", "ids": [ids[2]]}));
    let added = s.add(json!([{"title": "Later", "content": "added later"}]));
    s.clear_log();
    let err = ok(&fetch(&s, &d, &["-v", "-o", o]));
    assert_eq!(counts(&err), "new 1, changed 1, deleted 1, unchanged 3");
    assert!(err.contains("incremental sync"), "{err}");
    // Only changed documents were listed, plus the cheap id list.
    let reqs = s.paths();
    let listings: Vec<&String> = reqs
        .iter()
        .filter(|p| p.contains("fields=id,title"))
        .collect();
    assert!(
        listings.iter().all(|p| p.contains("modified__gt=")),
        "{reqs:?}"
    );
    assert!(
        reqs.iter()
            .any(|p| p.contains("fields=id,owner,user_can_change&page_size=")),
        "{reqs:?}"
    );
    let r = records(&out);
    assert_eq!(r[&ids[1]]["content"], "changed text");
    assert_eq!(r[&ids[1]]["tags"], json!(["new tag"]));
    assert!(!r.contains_key(&ids[2]));
    assert_eq!(r[&added[0]]["title"], "Later");
    // The merged output equals a full fetch, byte for byte.
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
    // Nothing changed: nothing to do, and the file is not touched (make reruns nothing).
    let mtime = || std::fs::metadata(&out).unwrap().modified().unwrap();
    let before = mtime();
    std::thread::sleep(Duration::from_millis(20));
    let err = ok(&fetch(&s, &d, &["-o", o]));
    assert_eq!(counts(&err), "new 0, changed 0, deleted 0, unchanged 5");
    assert_eq!(mtime(), before);
    // A deletion alone (no `modified` moves) is noticed on the next run.
    s.ctl(json!({"action": "delete", "ids": [ids[0]]}));
    let err = ok(&fetch(&s, &d, &["-o", o]));
    assert_eq!(counts(&err), "new 0, changed 0, deleted 1, unchanged 4");
    assert!(!records(&out).contains_key(&ids[0]));
}

#[test]
fn an_owner_or_permission_change_without_modified_is_picked_up() {
    let s = Server::start(TOKEN);
    let mut docs = corpus();
    // Old `modified`s, one newest: an incremental sync's listing (`modified__gt`, less its
    // overlap) holds the newest alone, so the others' owners come from the id list.
    for (i, d) in docs.as_array_mut().unwrap().iter_mut().enumerate() {
        d["modified"] = json!(format!("202{i}-01-01T00:00:00Z"));
    }
    docs[3]["owner"] = json!(null);
    docs[4]["owner"] = json!(2);
    docs[4]["user_can_change"] = json!(false);
    let ids = s.add(docs);
    let d = Tmp::new("fetch-owner");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    ok(&fetch(&s, &d, &["-o", o]));
    let r = records(&out);
    assert_eq!(r[&ids[3]]["owner"], Value::Null);
    assert_eq!(
        (&r[&ids[4]]["owner"], &r[&ids[4]]["user_can_change"]),
        (&json!(2), &json!(false))
    );
    // A bulk edit of permissions leaves `modified` as it was: the listing's owners tell.
    s.ctl(json!({"action": "access", "id": ids[0], "owner": 2, "user_can_change": false}));
    s.ctl(json!({"action": "access", "id": ids[3], "owner": 1}));
    let err = ok(&fetch(&s, &d, &["-v", "-o", o]));
    assert_eq!(counts(&err), "new 0, changed 2, deleted 0, unchanged 3");
    assert!(err.contains("incremental sync"), "{err}");
    let r = records(&out);
    assert_eq!(
        (&r[&ids[0]]["owner"], &r[&ids[0]]["user_can_change"]),
        (&json!(2), &json!(false))
    );
    assert_eq!(r[&ids[3]]["owner"], 1);
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
}

#[test]
fn restored_documents_and_renamed_tags_are_picked_up() {
    let s = Server::start(TOKEN);
    let ids = s.add(corpus());
    let d = Tmp::new("fetch-restore");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    ok(&fetch(&s, &d, &["-o", o]));
    // Into the trash through the API, then back: its `modified` stays old.
    let (st, _) = s.http("DELETE", &format!("/api/documents/{}/", ids[3]), None, true);
    assert_eq!(st, 204);
    assert_eq!(
        counts(&ok(&fetch(&s, &d, &["-o", o]))),
        "new 0, changed 0, deleted 1, unchanged 4"
    );
    let (st, v) = s.http(
        "POST",
        "/api/trash/",
        Some(&json!({"action": "restore", "documents": [ids[3]]})),
        true,
    );
    assert_eq!((st, v["result"].as_str()), (200, Some("OK")));
    assert_eq!(
        counts(&ok(&fetch(&s, &d, &["-o", o]))),
        "new 1, changed 0, deleted 0, unchanged 4"
    );
    // A tag renamed on the server changes no document's `modified`: a full sync follows.
    s.ctl(json!({"action": "rename", "kind": "tags", "old": "finance", "new": "Finance"}));
    let err = ok(&fetch(&s, &d, &["-v", "-o", o]));
    assert!(err.contains("full sync"), "{err}");
    assert_eq!(counts(&err), "new 0, changed 2, deleted 0, unchanged 3");
    assert_eq!(records(&out)[&ids[1]]["tags"], json!(["Finance"]));
}

#[test]
fn pages_stay_correct_when_the_list_changes_between_pages() {
    let s = Server::start(TOKEN);
    let docs: Vec<Value> = (0..10)
        .map(|i| json!({"title": format!("doc {i}"), "content": format!("text {i}")}))
        .collect();
    let ids = s.add(Value::Array(docs));
    // Right before page 2 is answered, two documents of page 1 go and one comes: with
    // page-number paging, one document slides from page 2 to page 1 unseen.
    s.fault(
        json!({"kind": "mutate", "page": 2, "path": "ordering=id&fields=id,title",
                   "delete": [ids[0], ids[1]], "add": [{"title": "new", "content": "n"}]}),
    );
    let d = Tmp::new("fetch-shift");
    let out = d.path("docs.ndjson");
    let err = ok(&fetch(
        &s,
        &d,
        &["--page-size", "3", "-o", out.to_str().unwrap()],
    ));
    assert_eq!(counts(&err), "new 9, changed 0, deleted 0, unchanged 0");
    let r = records(&out);
    assert_eq!(r.len(), 9);
    assert!(!r.contains_key(&ids[0]) && r.contains_key(&ids[2]));
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
}

#[test]
fn incremental_pages_stay_correct_when_the_list_changes_between_pages() {
    let s = Server::start(TOKEN);
    let docs: Vec<Value> = (0..6)
        .map(|i| json!({"title": format!("doc {i}"), "content": format!("text {i}")}))
        .collect();
    let ids = s.add(Value::Array(docs));
    let d = Tmp::new("fetch-incr-shift");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    ok(&fetch(&s, &d, &["-o", o]));
    for id in &ids[1..5] {
        s.ctl(json!({"action": "update", "id": id, "content": format!("changed {id}")}));
    }
    // One document per page (all are listed: they are younger than the overlap); before
    // page 2 the first one goes, so the changed second one slides onto page 1 unseen.
    s.fault(json!({"kind": "mutate", "page": 2, "path": "modified__gt", "delete": [ids[0]]}));
    let err = ok(&fetch(&s, &d, &["--page-size", "1", "-o", o]));
    assert_eq!(counts(&err), "new 0, changed 4, deleted 1, unchanged 1");
    assert_eq!(
        records(&out)[&ids[1]]["content"],
        format!("changed {}", ids[1])
    );
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
}

#[test]
fn bad_token_missing_token_and_no_token_argument() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-auth");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    let r = fetch_cmd(&s, &["-o", o])
        .env("PAPERLESS_TOKEN", "wrong-token")
        .output()
        .unwrap();
    fails(&r, &["401", "Invalid token", "PAPERLESS_TOKEN"]);
    assert!(!out.exists(), "no output on error");
    let r = fetch_cmd(&s, &["-o", o])
        .env_remove("PAPERLESS_TOKEN")
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(stderr(&r).contains("PAPERLESS_TOKEN"));
    // There is no flag for a token: it would show in `ps` and shell history.
    let r = fetch_cmd(&s, &["--token", TOKEN]).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    // --token-file works, first line only.
    std::fs::write(d.path("token"), format!("{TOKEN}\nignored\n")).unwrap();
    let r = fetch_cmd(
        &s,
        &["--token-file", d.path("token").to_str().unwrap(), "-o", o],
    )
    .env_remove("PAPERLESS_TOKEN")
    .output()
    .unwrap();
    ok(&r);
    std::fs::remove_file(d.path("token")).unwrap();
    assert_no_token(&r, &d, TOKEN);
    assert_eq!(records(&out).len(), 5);
}

#[test]
fn wrong_address_not_paperless_and_forbidden_are_one_line_each() {
    let s = Server::start(TOKEN);
    let d = Tmp::new("fetch-addr");
    // A path prefix that the server does not have: Paperless redirects to its login page.
    let r = fetch_cmd(&s, &[])
        .env("PAPERLESS_URL", format!("{}/paperless", s.url()))
        .output()
        .unwrap();
    fails(&r, &["redirected", "login"]);
    // Something that is not Paperless answers 404.
    s.fault(json!({"kind": "status", "status": 404}));
    fails(&fetch(&s, &d, &[]), &["404", "PAPERLESS_URL"]);
    s.fault(json!({"kind": "status", "status": 403}));
    fails(
        &fetch(&s, &d, &[]),
        &["403", "permission to view documents"],
    );
    // A login page of a reverse proxy, answered with 200.
    s.fault(json!({"kind": "html"}));
    fails(
        &fetch(&s, &d, &[]),
        &["expected JSON", "text/html", "login page"],
    );
    // Nobody listening.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let r = fetch_cmd(&s, &["--retries", "1"])
        .env("PAPERLESS_URL", format!("http://127.0.0.1:{port}"))
        .output()
        .unwrap();
    fails(&r, &["gave up after 2 attempts"]);
    // Not a URL at all.
    let r = fetch_cmd(&s, &[])
        .env("PAPERLESS_URL", "paperless:8000")
        .output()
        .unwrap();
    fails(&r, &["http://"]);
}

#[test]
fn api_version_is_negotiated() {
    let s = Server::start(TOKEN);
    let ids = s.add(corpus());
    let d = Tmp::new("fetch-version");
    let version_of = |needle: &str| -> Vec<String> {
        s.requests_with_accept()
            .into_iter()
            .filter(|(p, _)| p.contains(needle))
            .map(|(_, a)| a)
            .collect()
    };
    // A 3.x server: version 9 first (every server since 2.15 speaks it), then 10, which it
    // offers in X-Api-Version and which does not repeat every id on every page.
    ok(&fetch(&s, &d, &[]));
    assert_eq!(
        version_of("/api/correspondents/"),
        ["application/json; version=9"]
    );
    for accept in version_of("/api/documents/") {
        assert_eq!(accept, "application/json; version=10");
    }
    // The id list, with owners: one page of the largest size.
    let id_list = "fields=id,owner,user_can_change&page_size=100000&";
    assert_eq!(version_of(id_list).len(), 1);
    // Asked for explicitly: kept; the id list asks for owners too, so it is a page as in 10.
    s.clear_log();
    let out9 = d.path("v9.ndjson");
    ok(&fetch(
        &s,
        &d,
        &["--api-version", "9", "-o", out9.to_str().unwrap()],
    ));
    assert!(version_of("/api/").iter().all(|a| a.ends_with("version=9")));
    assert_eq!(version_of(id_list).len(), 1);
    // A 2.x server speaks up to 9.
    s.ctl(
        json!({"action": "versions", "allowed": ["1", "2", "3", "4", "5", "6", "7", "8", "9"],
                 "default": "9"}),
    );
    s.clear_log();
    let out = d.path("v2x.ndjson");
    ok(&fetch(&s, &d, &["-o", out.to_str().unwrap()]));
    assert!(version_of("/api/").iter().all(|a| a.ends_with("version=9")));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out9).unwrap());
    // A server that speaks only 10 refuses 9 with a 406 that names no version (DRF checks
    // the version before the token); pl-fetch asks once without a version and learns 10.
    s.ctl(json!({"action": "versions", "allowed": ["10"], "default": "10"}));
    let out = d.path("v10.ndjson");
    let err = ok(&fetch(&s, &d, &["-o", out.to_str().unwrap()]));
    assert!(err.contains("using version 10"), "{err}");
    assert_eq!(records(&out).keys().copied().collect::<Vec<_>>(), ids);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out9).unwrap());
    // A server too old for version 9: one clear line.
    s.ctl(json!({"action": "versions", "allowed": ["7", "8"], "default": "8"}));
    fails(&fetch(&s, &d, &[]), &["406", "API version 9", "2.15"]);
    // The connection lost while asking which version it speaks: that is what the line says.
    s.ctl(json!({"action": "versions", "allowed": ["10"], "default": "10"}));
    s.ctl(json!({"action": "fault", "kind": "close", "after": 1}));
    let err = fails(
        &fetch(&s, &d, &[]),
        &["which API version", "after HTTP 406"],
    );
    assert!(!err.contains("refused API version"), "{err}");
    s.ctl(json!({"action": "clear_faults"}));
}

#[test]
fn retries_500s_429s_timeouts_and_cut_bodies() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-retry");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    s.fault(json!({"kind": "status", "status": 500, "count": 2}));
    s.fault(json!({"kind": "status", "status": 502, "count": 1, "path": "/api/tags/"}));
    s.fault(json!({"kind": "429", "retry_after": 1, "count": 1}));
    s.fault(json!({"kind": "truncate", "count": 1, "path": "ordering=id&fields=id,title"}));
    s.fault(json!({"kind": "delay", "seconds": 2, "count": 1, "path": "fields=id,owner"}));
    let t = Instant::now();
    let err = ok(&fetch(&s, &d, &["--timeout", "1", "-o", o]));
    assert!(
        t.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    for n in ["HTTP 500", "HTTP 502", "HTTP 429", "cut short", "timed out"] {
        assert!(err.contains(n), "{n:?} not in {err}");
    }
    assert_eq!(counts(&err), "new 5, changed 0, deleted 0, unchanged 0");
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
    // Retries are bounded; the previous output stays.
    let before = std::fs::read(&out).unwrap();
    s.fault(json!({"kind": "status", "status": 503, "count": 100}));
    let r = fetch(&s, &d, &["--retries", "2", "-o", o]);
    fails(&r, &["HTTP 503", "after 3 attempts"]);
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // Retry-After is capped.
    s.ctl(json!({"action": "clear_faults"}));
    s.fault(json!({"kind": "429", "retry_after": 3600, "count": 1}));
    let t = Instant::now();
    ok(&fetch(&s, &d, &["--max-retry-after", "1", "-o", o]));
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn empty_and_huge_contents_pass_through() {
    let s = Server::start(TOKEN);
    // 24 MB of text with multi-byte characters and escapes.
    let unit = "Lorem ipsum dolor sit amet, naïve café — \"quote\"\t\\ ";
    let huge: String = unit.repeat(24_000_000 / unit.len());
    let ids = s.add(json!([{"title": "huge", "content": huge}, {"title": "empty", "content": ""}]));
    let d = Tmp::new("fetch-huge");
    let out = d.path("docs.ndjson");
    ok(&fetch(
        &s,
        &d,
        &["--timeout", "30", "-o", out.to_str().unwrap()],
    ));
    let r = records(&out);
    assert_eq!(r[&ids[0]]["content"].as_str().unwrap(), huge);
    assert_eq!(r[&ids[1]]["content"], "");
}

#[test]
fn a_killed_run_leaves_output_and_state_and_the_next_run_is_right() {
    let s = Server::start(TOKEN);
    let ids = s.add(corpus());
    let d = Tmp::new("fetch-kill");
    let out = d.path("docs.ndjson");
    let state = d.path("docs.ndjson.state.json");
    let o = out.to_str().unwrap();
    ok(&fetch(&s, &d, &["-o", o]));
    let (before, state_before) = (std::fs::read(&out).unwrap(), std::fs::read(&state).unwrap());
    s.ctl(json!({"action": "update", "id": ids[0], "content": "edited"}));
    s.ctl(json!({"action": "delete", "ids": [ids[4]]}));
    // Hang on the id list, after the changes were read, and kill the process there.
    s.fault(json!({"kind": "delay", "seconds": 20, "path": "fields=id,owner"}));
    s.clear_log();
    let mut child = fetch_cmd(&s, &["--timeout", "60", "-o", o])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !s.paths().iter().any(|p| p.contains("fields=id&")) {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "never reached the id list"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), before);
    assert_eq!(std::fs::read(&state).unwrap(), state_before);
    s.ctl(json!({"action": "clear_faults"}));
    let err = ok(&fetch(&s, &d, &["-o", o]));
    assert_eq!(counts(&err), "new 0, changed 1, deleted 1, unchanged 3");
    assert_eq!(
        full_copy(&s, &d, "full.ndjson"),
        std::fs::read(&out).unwrap()
    );
    // A crash between writing the output and writing the state: the output no longer
    // matches the state's checksum, so the next run is a full one and right again.
    let mut text = std::fs::read(&out).unwrap();
    text.extend_from_slice(b"{\"id\":999,\"title\":\"stale\"}\n");
    std::fs::write(&out, &text).unwrap();
    s.ctl(json!({"action": "update", "id": ids[1], "title": "retitled"}));
    let err = ok(&fetch(&s, &d, &["-v", "-o", o]));
    assert!(err.contains("does not match its state"), "{err}");
    assert_eq!(counts(&err), "new 0, changed 1, deleted 1, unchanged 3");
    assert_eq!(
        full_copy(&s, &d, "full2.ndjson"),
        std::fs::read(&out).unwrap()
    );
}

#[test]
fn stdout_output_keeps_no_state() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-stdout");
    let r = fetch_cmd(&s, &["-q"]).current_dir(&d.0).output().unwrap();
    assert!(r.status.success());
    assert!(r.stderr.is_empty(), "-q: {}", stderr(&r));
    assert_eq!(String::from_utf8(r.stdout).unwrap().lines().count(), 5);
    assert_eq!(std::fs::read_dir(&d.0).unwrap().count(), 0);
}

#[test]
fn self_signed_tls_needs_ca_cert() {
    let d = Tmp::new("fetch-tls");
    let sh = |args: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(args)
            .current_dir(&d.0)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    // A CA and a leaf for 127.0.0.1 signed by it (webpki refuses a CA as the server's own).
    if !sh("openssl version") {
        eprintln!("skipped: no openssl to make certificates");
        return;
    }
    assert!(sh(
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
         -subj /CN=pl-test-ca 2>/dev/null && \
         openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 \
         2>/dev/null && printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext && \
         openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem \
         -days 2 -extfile ext 2>/dev/null"
    ));
    let s = Server::start_with(
        TOKEN,
        &[
            "--certfile",
            d.path("srv.pem").to_str().unwrap(),
            "--keyfile",
            d.path("srv.key").to_str().unwrap(),
        ],
    );
    let r = fetch(&s, &d, &["--retries", "0"]);
    fails(&r, &["TLS", "--ca-cert"]);
    let r = fetch(&s, &d, &["--ca-cert", d.path("ca.pem").to_str().unwrap()]);
    ok(&r);
    let r = fetch(&s, &d, &["--ca-cert", d.path("ext").to_str().unwrap()]);
    fails(&r, &["ext", "certificate"]);
}

#[test]
fn dir_mode_reads_text_files_with_stable_ids() {
    let d = Tmp::new("fetch-dir");
    let root = d.path("corpus");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.txt"), "alpha text").unwrap();
    std::fs::write(root.join("sub/b.md"), "# beta").unwrap();
    std::fs::write(root.join("sub/skip.pdf"), "x").unwrap();
    let out = d.path("docs.ndjson");
    let run = || {
        let r = Command::new(BIN)
            .env_remove("PAPERLESS_URL")
            .args(["--dir", root.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        ok(&r);
        records(&out)
    };
    let first = run();
    let by_title: BTreeMap<String, u64> = first
        .values()
        .map(|v| {
            (
                v["title"].as_str().unwrap().to_owned(),
                v["id"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by_title.keys().collect::<Vec<_>>(), ["a.txt", "sub/b.md"]);
    let a = &first[&by_title["a.txt"]];
    assert_eq!(a["content"], "alpha text");
    assert!(a["id"].as_u64().unwrap() < 1 << 53);
    let modified = a["modified"].as_str().unwrap();
    assert!(
        modified.len() == 20 && modified.ends_with('Z'),
        "{modified}"
    );
    std::fs::write(root.join("c.txt"), "gamma").unwrap();
    let second = run();
    assert_eq!(second.len(), 3);
    for (title, id) in &by_title {
        assert_eq!(
            second[id]["title"],
            title.as_str(),
            "ids stable across additions"
        );
    }
}

#[test]
fn a_server_that_echoes_the_token_never_makes_us_repeat_it() {
    let s = Server::start(TOKEN);
    s.add(json!([
        {"title": format!("note {TOKEN}"), "content": format!("the API token is {TOKEN}, keep it")}
    ]));
    let d = Tmp::new("fetch-echo");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    for status in [400, 401, 403, 404, 302, 500] {
        s.ctl(json!({"action": "fault", "kind": "echo", "status": status, "count": 10}));
        // `fetch` asserts that the token is in no output and no file of the folder.
        let r = fetch(&s, &d, &["--retries", "1", "-o", o]);
        let err = stderr(&r);
        assert_eq!(r.status.code(), Some(1), "HTTP {status}: {err}");
        // The server's text is still shown, with the token replaced.
        if status != 404 {
            assert!(err.contains("<token>"), "HTTP {status}: {err}");
        }
        s.ctl(json!({"action": "clear_faults"}));
    }
    // The header echoed base64-encoded: the encoded token is replaced too.
    s.ctl(json!({"action": "fault", "kind": "echo", "status": 401, "base64": true, "count": 10}));
    let r = fetch(&s, &d, &["--retries", "1", "-o", o]);
    let err = stderr(&r);
    assert!(
        err.contains("Invalid token: ") && err.contains("<token>"),
        "{err}"
    );
    s.ctl(json!({"action": "clear_faults"}));
    // A document whose title and text hold the token: written, the token replaced.
    ok(&fetch(&s, &d, &["-o", o]));
    let doc = records(&out).into_values().next().unwrap();
    assert_eq!(doc["title"], "note <token>");
    assert_eq!(doc["content"], "the API token is <token>, keep it");
}

#[test]
fn a_trickling_server_meets_the_deadline_and_a_huge_answer_the_cap() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-drip");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    // One byte every 0.3 s is never 1 s of silence: only the deadline stops it.
    s.ctl(json!({"action": "fault", "kind": "drip", "interval": 0.3, "count": 5}));
    let started = std::time::Instant::now();
    let r = fetch(
        &s,
        &d,
        &[
            "--timeout",
            "1",
            "--deadline",
            "2",
            "--retries",
            "0",
            "-o",
            o,
        ],
    );
    let took = started.elapsed();
    fails(&r, &["timed out"]);
    // The answer would take about 20 s.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert!(!out.exists(), "no output on error");
    s.ctl(json!({"action": "clear_faults"}));
    // An answer over the cap: one line, no retry, nothing written.
    s.ctl(json!({"action": "fault", "kind": "huge", "mb": 3, "count": 5}));
    let r = fetch(&s, &d, &["--max-answer-mb", "1", "-o", o]);
    let err = fails(&r, &["over 1 MiB", "--page-size"]);
    assert!(!err.contains("retry"), "{err}");
    assert!(!out.exists());
    s.ctl(json!({"action": "clear_faults"}));
    // Within both, the same library is fetched.
    ok(&fetch(
        &s,
        &d,
        &["--deadline", "30", "--max-answer-mb", "1", "-o", o],
    ));
    assert_eq!(records(&out).len(), 5);
}

#[test]
fn the_token_may_come_from_paperless_api_token_and_two_different_ones_are_refused() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-alias");
    let out = d.path("docs.ndjson");
    let o = out.to_str().unwrap();
    let r = fetch_cmd(&s, &["-o", o])
        .env_remove("PAPERLESS_TOKEN")
        .env("PAPERLESS_API_TOKEN", TOKEN)
        .output()
        .unwrap();
    ok(&r);
    assert_no_token(&r, &d, TOKEN);
    assert_eq!(records(&out).len(), 5);
    std::fs::remove_file(&out).unwrap();
    let r = fetch_cmd(&s, &["-o", o])
        .env("PAPERLESS_API_TOKEN", "another-token")
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(stderr(&r).contains("both set"), "{}", stderr(&r));
    assert_no_token(&r, &d, TOKEN);
    assert!(!out.exists(), "nothing fetched");
}

/// On a terminal pl-fetch shows a bar over the documents fetched, the server's count as its
/// total, with the time left; on a pipe only its one summary line; with -q nothing.
#[test]
fn fetch_shows_a_bar_on_a_terminal_only() {
    let s = Server::start(TOKEN);
    s.add(corpus());
    let d = Tmp::new("fetch-bar");
    let url = s.url();
    let env = [("PAPERLESS_URL", url.as_str()), ("PAPERLESS_TOKEN", TOKEN)];
    let args = ["--page-size", "2", "-o", "docs.ndjson"];
    let (code, shown) = crate::cli::stderr_on_a_terminal_with("pl-fetch", &args, &d.0, &env);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("pl-fetch: ")
            && shown.contains("/5 documents (")
            && shown.contains(" left)"),
        "{shown:?}"
    );
    let args = ["-q", "--page-size", "2", "--full", "-o", "docs.ndjson"];
    let (code, shown) = crate::cli::stderr_on_a_terminal_with("pl-fetch", &args, &d.0, &env);
    assert_eq!((code, shown.as_str()), (0, ""), "-q: nothing on a terminal");
    let err = ok(&fetch(
        &s,
        &d,
        &["--full", "-o", d.path("docs2.ndjson").to_str().unwrap()],
    ));
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with("pl-fetch: ") && !err.contains('\r') && !err.contains('\x1b'),
        "{err:?}"
    );
}
