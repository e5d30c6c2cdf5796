//! pl-watch, the webhook service, against the test server (tests/paperless_server.py): the
//! secret and the bounds of a request, a document checked, added and tagged and noted, again
//! when it is updated, nothing lost or done twice across kill -9, SIGTERM draining, and the
//! token in no output.
//!
//! The server holds the originals (ids 1..N, the same ids in the index) and, after them, the
//! rescans of every fifth one (`small_corpus`), which the webhooks name.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::server::Server;
use crate::util::{bin, http, small_corpus};

const TOKEN: &str = "W4tchT0ken-9f3e";
const SECRET: &str = "hook-s3cret";

/// A server with the corpus, its index, the secret and token files; folder removed and server
/// killed on drop.
struct Setup {
    dir: tempfile::TempDir,
    server: Server,
    /// Ids of the rescans on the server, each a near-copy of an original.
    rescans: Vec<u64>,
}

impl Setup {
    fn new(originals: u64) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(TOKEN);
        let docs: Vec<Value> = crate::util::ndjson(small_corpus(originals).as_bytes());
        let (orig, copies): (Vec<Value>, Vec<Value>) = docs
            .into_iter()
            .partition(|d| d["id"].as_u64().unwrap() <= originals);
        let on_server = |d: &[Value]| -> Vec<Value> {
            d.iter()
                .map(|d| json!({"title": d["title"], "content": d["content"]}))
                .collect()
        };
        let ids = server.add(json!(on_server(&orig)));
        assert_eq!(ids, (1..=originals).collect::<Vec<_>>());
        let rescans = server.add(json!(on_server(&copies)));
        let lines: String = orig.iter().map(|d| format!("{d}\n")).collect();
        crate::util::index_docs(dir.path(), &lines);
        std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
        std::fs::write(dir.path().join("secret"), format!("{SECRET}\n")).unwrap();
        Setup {
            dir,
            server,
            rescans,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Starts pl-watch on a free port; its stderr goes to `log` in the folder.
    fn start(&self, log: &str) -> Watch {
        self.start_with(log, &[], &[])
    }

    /// [`Setup::start`] with more arguments and environment variables.
    fn start_with(&self, log: &str, args: &[&str], env: &[(&str, &str)]) -> Watch {
        // What the log held before: its "listening" line is this run's, after it.
        let before = std::fs::read_to_string(self.path(log)).map_or(0, |t| t.len());
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path(log))
            .unwrap();
        let child = Command::new(bin("pl-watch"))
            .args(["--index", self.path("index").to_str().unwrap()])
            .args([
                "--listen",
                "127.0.0.1:0",
                "--retries",
                "1",
                "--backoff",
                "50",
            ])
            .arg("-o")
            .arg(self.path("watch.ndjson"))
            .arg("--token-file")
            .arg(self.path("token"))
            .arg("--secret-file")
            .arg(self.path("secret"))
            .env("PAPERLESS_URL", self.server.url())
            .env_remove("PAPERLESS_TOKEN")
            .env_remove("PAPERLESS_API_TOKEN")
            .env_remove("PL_WATCH_SECRET")
            .env_remove("PL_LINK_FIELD")
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap();
        let mut w = Watch {
            child,
            port: 0,
            log: self.path(log),
        };
        // A child that never listens is killed with `w` when the wait fails.
        wait_long("pl-watch listening", || {
            let text = std::fs::read_to_string(&w.log).unwrap_or_default();
            let text = text.get(before..).unwrap_or("");
            if let Some(rest) = text.split("listening on http://127.0.0.1:").nth(1) {
                w.port = rest.split('/').next().unwrap().parse().unwrap();
            }
            w.port != 0
        });
        w
    }

    /// pl-watch started with every rescan posted, on a server answering each notes request
    /// `secs` late (so that a kill or a stop lands mid-run).
    fn all_posted_with_slow_notes(&self, secs: f64) -> Watch {
        self.server
            .ctl(json!({"action": "fault", "kind": "delay", "seconds": secs,
                               "path": "/notes/", "count": 100000}));
        let w = self.start("watch.log");
        for &id in &self.rescans {
            w.post_id(id);
        }
        w
    }

    /// The notes of document `id` on the server, and whether it has the tag.
    fn notes_and_tag(&self, id: u64) -> (Vec<String>, bool) {
        let (_, notes) =
            self.server
                .http("GET", &format!("/api/documents/{id}/notes/"), None, true);
        let notes = notes
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["note"].as_str().unwrap().to_string())
            .collect();
        let (_, tags) = self.server.http(
            "GET",
            "/api/tags/?name__iexact=possible-duplicate",
            None,
            true,
        );
        let tagged = tags["results"][0]["id"].as_u64().is_some_and(|tag| {
            let (_, doc) = self
                .server
                .http("GET", &format!("/api/documents/{id}/"), None, true);
            doc["tags"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t.as_u64() == Some(tag))
        });
        (notes, tagged)
    }

    /// The ids the index holds.
    fn indexed(&self) -> Vec<u64> {
        crate::util::indexed_ids(&self.path("index"))
    }

    /// Entries the inbox holds, read from its file (the service may be dead).
    fn inbox_len(&self) -> u64 {
        let db = rusqlite::Connection::open(self.path("index").join("watch.sqlite")).unwrap();
        db.query_row("SELECT count(*) FROM inbox", [], |r| r.get::<_, i64>(0))
            .unwrap() as u64
    }

    /// Requests of the server that fetched a document.
    fn document_fetches(&self) -> usize {
        self.server
            .log()
            .iter()
            .filter(|r| {
                let p = r["path"].as_str().unwrap_or("");
                p.starts_with("/api/documents/") && p.contains("fields=id,title,content")
            })
            .count()
    }
}

/// A running pl-watch, killed on drop.
struct Watch {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Watch {
    /// POST /webhook with `body` and the secret header `secret` (none: no header).
    fn post(&self, body: &str, secret: Option<&str>) -> (u16, String) {
        let header = secret.map_or(String::new(), |s| format!("X-PL-Secret: {s}\r\n"));
        http(
            self.port,
            &format!(
                "POST /webhook HTTP/1.1\r\nHost: x\r\n{header}Content-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    }

    fn post_id(&self, id: u64) {
        let (status, body) = self.post(&format!(r#"{{"doc_id": "{id}"}}"#), Some(SECRET));
        assert_eq!(status, 202, "{body}");
    }

    /// The queue length /health reports.
    fn queue(&self) -> u64 {
        let (status, body) = http(self.port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["queue"]
            .as_u64()
            .unwrap()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the inbox is empty (long: the machine may be busy with other tests).
    fn drained(&self) {
        wait_long("the inbox drained", || self.queue() == 0);
    }

    fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `f` holds, for at most two minutes (a hang is a failure).
fn wait_long(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn no_token(text: &str) {
    assert!(!text.contains(TOKEN), "the token in: {text}");
    assert!(!text.contains(SECRET), "the secret in: {text}");
}

#[test]
fn watch_refuses_a_missing_or_wrong_secret_an_oversize_body_and_a_body_naming_no_document() {
    let s = Setup::new(10);
    let w = s.start("watch.log");
    s.server.clear_log();
    let body = r#"{"doc_id": "3"}"#;
    for secret in [None, Some("wrong"), Some("hook-s3cre"), Some("HOOK-S3CRET")] {
        let (status, answer) = w.post(body, secret);
        assert_eq!(status, 401, "{secret:?}: {answer}");
    }
    let big = format!(r#"{{"doc_id": "3", "pad": "{}"}}"#, "x".repeat(70 << 10));
    let (status, answer) = w.post(&big, Some(SECRET));
    assert_eq!(status, 413, "{answer}");
    for (bad, why) in [
        ("not json", "not JSON"),
        (r#"{"doc_id": "{{doc_id}}"}"#, "not a document id"),
        (r#"{"title": "x"}"#, "no doc_id or doc_url"),
    ] {
        let (status, answer) = w.post(bad, Some(SECRET));
        assert_eq!(status, 400, "{bad}: {answer}");
        let v: Value = serde_json::from_str(&answer).unwrap();
        assert!(v["error"].as_str().unwrap().contains(why), "{answer}");
        assert_eq!(answer.trim_end().lines().count(), 1, "{answer}");
    }
    let (status, _) = http(w.port, "GET /webhook HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(status, 405);
    assert_eq!(w.queue(), 0, "nothing queued");
    assert_eq!(s.inbox_len(), 0);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.document_fetches(), 0, "nothing fetched");
    no_token(&w.log());
}

#[test]
fn watch_tags_and_notes_a_near_copy_and_checks_an_updated_document_again() {
    let s = Setup::new(10);
    let w = s.start("watch.log");
    // A rescan of 5, by doc_id; a rescan of 10, by doc_url.
    let (copy5, copy10) = (s.rescans[0], s.rescans[1]);
    w.post_id(copy5);
    let url = format!(r#"{{"doc_url": "{}/documents/{copy10}/"}}"#, s.server.url());
    assert_eq!(w.post(&url, Some(SECRET)).0, 202);
    // An original: no near-copy in the index but itself.
    w.post_id(3);
    w.drained();
    for (copy, original) in [(copy5, 5), (copy10, 10)] {
        let (notes, tagged) = s.notes_and_tag(copy);
        assert!(tagged, "{copy} tagged");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains(&format!("- #{original} doc {original} (score ")),
            "{notes:?}"
        );
        assert!(notes[0].contains(&format!("{}/documents/{original}/details", s.server.url())));
    }
    assert_eq!(s.notes_and_tag(3), (vec![], false), "3 has no near-copy");
    // -o: a record per document processed.
    let recs = crate::util::ndjson(&std::fs::read(s.path("watch.ndjson")).unwrap());
    let of = |id: u64| recs.iter().find(|r| r["id"] == id).unwrap().clone();
    let r = of(copy5);
    assert_eq!(
        (&r["duplicates"], &r["tagged"], &r["noted"]),
        (&json!([5]), &json!(true), &json!(true))
    );
    assert!(r["received"].as_i64().unwrap() <= r["done"].as_i64().unwrap());
    assert_eq!(of(3)["duplicates"], json!([]));
    assert!(s.indexed().contains(&copy5) && s.indexed().contains(&copy10));

    // Document Updated: 3's text replaced by a copy of 7's is checked again.
    let (_, seven) = s.server.http("GET", "/api/documents/7/", None, true);
    s.server
        .ctl(json!({"action": "update", "id": 3, "content": seven["content"]}));
    w.post_id(3);
    w.drained();
    let (notes, tagged) = s.notes_and_tag(3);
    assert!(tagged && notes.len() == 1, "{notes:?}");
    assert!(notes[0].contains("- #7 doc 7 (score 1.00)"), "{notes:?}");
    // The same webhook again: the tag is there, no second note.
    w.post_id(3);
    w.drained();
    assert_eq!(s.notes_and_tag(3).0.len(), 1);
    assert!(
        w.log().contains("its note was there already"),
        "{}",
        w.log()
    );
    no_token(&w.log());
}

/// Every rescan tagged, with exactly one note, and in the index.
fn each_processed_once(s: &Setup) {
    for &id in &s.rescans {
        let (notes, tagged) = s.notes_and_tag(id);
        assert!(tagged, "{id} not tagged");
        assert_eq!(notes.len(), 1, "{id}: {notes:?}");
    }
    let indexed = s.indexed();
    assert!(s.rescans.iter().all(|id| indexed.contains(id)));
}

#[test]
fn watch_killed_mid_run_loses_nothing_and_processes_each_document_once() {
    let s = Setup::new(150);
    assert_eq!(s.rescans.len(), 30);
    // Every note request answered 0.15 s late, so the kills land mid-run.
    let mut w = s.all_posted_with_slow_notes(0.15);
    for round in 1..=3 {
        let done = |w: &Watch| w.log().matches("tagged possible-duplicate").count();
        wait_long("some documents processed", || done(&w) >= 5 * round);
        w.kill9();
        assert!(s.inbox_len() > 0, "round {round}: killed before the end");
        w = s.start("watch.log");
    }
    w.drained();
    each_processed_once(&s);
    no_token(&w.log());
}

#[test]
fn watch_stops_on_sigterm_after_its_document_and_keeps_the_rest() {
    let s = Setup::new(50);
    let mut w = s.all_posted_with_slow_notes(0.3);
    wait_long("one document processed", || w.log().contains("tagged"));
    let pid = w.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = w.child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{}", w.log());
    assert!(w.log().contains("left in the inbox"), "{}", w.log());
    let left = s.inbox_len();
    assert!(left > 0 && left < s.rescans.len() as u64, "{left} left");
    let w = s.start("watch.log");
    w.drained();
    each_processed_once(&s);
}

#[test]
fn watch_receives_webhooks_while_another_writer_holds_the_index() {
    let s = Setup::new(10);
    // Another writer (a cron pl-index) holds the writers' lock for a while.
    let lock = s.path("index").join("index.lock");
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sleep", "6"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let w = s.start("watch.log");
    assert!(
        holder.try_wait().unwrap().is_none(),
        "listening while the other writer still holds the lock"
    );
    w.post_id(s.rescans[0]);
    assert_eq!(w.queue(), 1, "kept in the inbox while the index is busy");
    holder.wait().unwrap();
    w.drained();
    assert!(
        s.notes_and_tag(s.rescans[0]).1,
        "tagged once the lock was free"
    );
    assert!(
        w.log().contains("another run is writing the index"),
        "{}",
        w.log()
    );
}

#[test]
fn watch_keeps_a_document_the_server_fails_on_and_never_logs_the_token_it_echoes() {
    let s = Setup::new(10);
    // The first two fetches of the document (one request and its retry) answer 500 with the
    // Authorization header echoed in the body and a header; the third succeeds.
    s.server.ctl(
        json!({"action": "fault", "kind": "echo", "status": 500, "count": 2,
                        "path": "fields=id,title,content"}),
    );
    let w = s.start("watch.log");
    let copy = s.rescans[0];
    w.post_id(copy);
    w.drained();
    let (notes, tagged) = s.notes_and_tag(copy);
    assert!(tagged && notes.len() == 1, "{notes:?}");
    let log = w.log();
    assert!(log.contains(&format!("document {copy}: ")), "{log}");
    assert!(
        log.contains("HTTP 500") && log.contains("kept, tried again"),
        "{log}"
    );
    // A document the server does not have is dropped, said in one line.
    w.post_id(999);
    w.drained();
    assert!(w.log().contains("document 999: ") && w.log().contains("dropped from the inbox"));
    no_token(&w.log());
    no_token(&std::fs::read_to_string(s.path("watch.ndjson")).unwrap());
}

#[test]
fn watch_looks_the_name_lists_up_once_and_finds_a_deleted_tag_again() {
    let s = Setup::new(15);
    let w = s.start("watch.log");
    let (a, b, c) = (s.rescans[0], s.rescans[1], s.rescans[2]);
    w.post_id(a);
    w.drained();
    assert!(s.notes_and_tag(a).1, "{a} tagged");
    // The tag deleted in Paperless: the id pl-watch holds is refused, the tag made again.
    let (_, tags) = s.server.http(
        "GET",
        "/api/tags/?name__iexact=possible-duplicate",
        None,
        true,
    );
    let old = tags["results"][0]["id"].as_u64().unwrap();
    let (status, _) = s
        .server
        .http("DELETE", &format!("/api/tags/{old}/"), None, true);
    assert_eq!(status, 204);
    w.post_id(b);
    w.post_id(c);
    w.drained();
    for id in [b, c] {
        let (notes, tagged) = s.notes_and_tag(id);
        assert!(tagged && notes.len() == 1, "{id}: {notes:?}");
    }
    let (_, tags) = s.server.http(
        "GET",
        "/api/tags/?name__iexact=possible-duplicate",
        None,
        true,
    );
    assert_ne!(tags["results"][0]["id"].as_u64(), Some(old), "made again");
    // At once: not after a failed try and a pause (nor a minute later, when the lists expire).
    assert!(!w.log().contains("tagging failed"), "{}", w.log());
    // Requests per path over the three documents: the lists once (the tags again when the
    // tag was missing: at the start and after its deletion), each document read once, its
    // originals' titles in one request, its notes read once.
    // pl-watch's requests: those with an Accept header (the test's own have none).
    let log = s.server.log();
    let count = |f: &dyn Fn(&str, &str) -> bool| {
        log.iter()
            .filter(|r| r["accept"].as_str().unwrap().contains("application/json"))
            .filter(|r| f(r["method"].as_str().unwrap(), r["path"].as_str().unwrap()))
            .count()
    };
    let list = |kind: &str| count(&|m, p| m == "GET" && p.starts_with(&format!("/api/{kind}/?")));
    assert_eq!(list("correspondents"), 1);
    assert_eq!(list("document_types"), 1);
    assert_eq!(
        list("tags"),
        3,
        "at the start, for the missing tag, after its deletion"
    );
    assert_eq!(s.document_fetches(), 3);
    let titles = count(&|m, p| m == "GET" && p.contains("fields=id,title&id__in="));
    assert_eq!(titles, 3);
    assert_eq!(count(&|m, p| m == "GET" && p.ends_with("/notes/")), 3);
    assert_eq!(count(&|m, p| m == "POST" && p.ends_with("/notes/")), 3);
    // Four adds of the tag: one refused (the deleted tag's id), then sent again.
    assert_eq!(
        count(&|m, p| m == "POST" && p == "/api/documents/bulk_edit/"),
        4
    );
    assert_eq!(count(&|m, p| m == "POST" && p == "/api/tags/"), 2);
    assert!(w.log().contains("1 near-duplicate"), "{}", w.log());
}

/// Document `id`'s custom fields on the server.
fn custom_fields(s: &Setup, id: u64) -> Value {
    let (status, v) = s
        .server
        .http("GET", &format!("/api/documents/{id}/"), None, true);
    assert_eq!(status, 200, "{v}");
    v["custom_fields"].clone()
}

#[test]
fn watch_links_a_near_copy_to_its_original_keeping_other_fields_and_adds_no_link_twice() {
    let s = Setup::new(10);
    let copy = s.rescans[0];
    // A text field set on the copy before it is processed: kept as it is.
    let body = json!({"name": "Account", "data_type": "string"});
    let (status, v) = s
        .server
        .http("POST", "/api/custom_fields/", Some(&body), true);
    assert_eq!(status, 201, "{v}");
    let account = v["id"].as_u64().unwrap();
    let kept = json!({"value": "Kto 5", "field": account});
    let body = json!({"custom_fields": [kept]});
    let (status, v) = s.server.http(
        "PATCH",
        &format!("/api/documents/{copy}/"),
        Some(&body),
        true,
    );
    assert_eq!(status, 200, "{v}");
    let w = s.start_with("watch.log", &["--link", "Duplicate of"], &[]);
    w.post_id(copy);
    w.drained();
    // The field was created as a document link, once.
    let (_, fields) = s
        .server
        .http("GET", "/api/custom_fields/?page_size=1000", None, true);
    let named: Vec<&Value> = fields["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["name"] == "Duplicate of")
        .collect();
    assert_eq!(named.len(), 1, "{fields}");
    assert_eq!(named[0]["data_type"], "documentlink");
    let field = named[0]["id"].as_u64().unwrap();
    let linked = json!([kept, {"value": [5], "field": field}]);
    assert_eq!(custom_fields(&s, copy), linked);
    // Seen from the original too (the server mirrors links as Paperless does).
    assert_eq!(
        custom_fields(&s, 5),
        json!([{"value": [copy], "field": field}])
    );
    let (notes, tagged) = s.notes_and_tag(copy);
    assert!(tagged && notes.len() == 1, "{notes:?}");
    assert!(
        w.log().contains("linked to 5 through \"Duplicate of\""),
        "{}",
        w.log()
    );
    // An original without near-copies is not linked.
    w.post_id(3);
    w.drained();
    assert_eq!(custom_fields(&s, 3), json!([]));
    drop(w);
    // The same webhook again, after a restart, with the environment's form of --link: nothing
    // added twice.
    let w = s.start_with("watch2.log", &[], &[("PL_LINK_FIELD", "Duplicate of")]);
    w.post_id(copy);
    w.drained();
    assert_eq!(custom_fields(&s, copy), linked);
    assert_eq!(
        custom_fields(&s, 5),
        json!([{"value": [copy], "field": field}])
    );
    assert!(
        w.log().contains("linked through \"Duplicate of\" already"),
        "{}",
        w.log()
    );
    assert_eq!(s.notes_and_tag(copy).0.len(), 1);
    no_token(&w.log());
}

/// Owners (issue 58): a copy owned by another user than its original's is not reported as its
/// near-copy (the log says one was left out), and a document the token's user may not change
/// (`user_can_change` false) is checked and indexed but neither tagged nor noted, the log
/// naming it.
#[test]
fn watch_neither_matches_across_owners_nor_writes_what_it_may_not_change() {
    let s = Setup::new(10);
    let w = s.start("watch.log");
    let (copy5, copy10) = (s.rescans[0], s.rescans[1]);
    s.server
        .ctl(json!({"action": "access", "id": copy5, "owner": 2}));
    s.server
        .ctl(json!({"action": "access", "id": copy10, "user_can_change": false}));
    w.post_id(copy5);
    w.post_id(copy10);
    w.drained();
    assert_eq!(
        s.notes_and_tag(copy5),
        (vec![], false),
        "another owner's copy"
    );
    assert_eq!(
        s.notes_and_tag(copy10),
        (vec![], false),
        "may not change it"
    );
    let log = w.log();
    assert!(
        log.contains(&format!(
            "document {copy5}: 1 near-duplicate of other owners not reported"
        )),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "document {copy10}: 1 near-duplicate (10): not tagged or noted: the token's user may not change it"
        )),
        "{log}"
    );
    let recs = crate::util::ndjson(&std::fs::read(s.path("watch.ndjson")).unwrap());
    let of = |id: u64| recs.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(of(copy5)["duplicates"], json!([]));
    assert_eq!(
        (&of(copy10)["duplicates"], &of(copy10)["tagged"]),
        (&json!([10]), &json!(false))
    );
    assert!(s.indexed().contains(&copy5) && s.indexed().contains(&copy10));
}

/// The sync's lines of the log, in order.
fn sync_lines(w: &Watch) -> Vec<String> {
    w.log()
        .lines()
        .filter(|l| l.contains("pl-watch: sync: "))
        .map(str::to_owned)
        .collect()
}

/// Deletions (issue 58): a document deleted in Paperless is taken out of the index by the
/// periodic sync, and no longer matches a copy of it.
#[test]
fn watch_s_sync_takes_a_document_deleted_in_paperless_out_of_the_index() {
    let s = Setup::new(10);
    let copy5 = s.rescans[0];
    let w = s.start_with("watch.log", &["--sync-every", "1"], &[]);
    assert!(s.indexed().contains(&5));
    s.server.ctl(json!({"action": "delete", "ids": [5]}));
    wait_long("the sync took 5 out", || {
        w.log()
            .contains("sync: 1 document no longer in Paperless taken out of the index (5)")
    });
    assert!(!s.indexed().contains(&5), "{:?}", s.indexed());
    // A copy of 5 posted now matches nothing: 5 is gone.
    w.post_id(copy5);
    w.drained();
    assert!(
        w.log()
            .contains(&format!("document {copy5}: no near-duplicate")),
        "{}",
        w.log()
    );
    assert_eq!(s.notes_and_tag(copy5), (vec![], false));
    // Nothing else was taken out; the next syncs find nothing more gone.
    let mut left: Vec<u64> = (1..=10).filter(|&i| i != 5).collect();
    left.push(copy5);
    assert_eq!(s.indexed(), left);
    assert_eq!(
        sync_lines(&w)
            .iter()
            .filter(|l| l.contains("taken out"))
            .count(),
        1
    );
    no_token(&w.log());
}

/// A sync whose listing fails on its second page, or changes while it is read (a document
/// deleted between two pages), removes nothing; the next whole listing removes what is gone.
/// A listing that would take out more than half of the index removes nothing either.
#[test]
fn watch_s_sync_removes_nothing_on_a_listing_that_fails_or_changes_midway() {
    let s = Setup::new(10);
    // API version 10: the listing in pages (version 9 sends every id in one answer).
    s.server
        .ctl(json!({"action": "versions", "allowed": ["10"], "default": "10"}));
    s.server.ctl(json!({"action": "delete", "ids": [5]}));
    // The first sync: page 1 answered, page 2 (and its retry) 500. The second: document 2
    // deleted just before page 2 is answered (page 2 then starts one later: 6 is on no page
    // read, and a listing believed whole would take it out).
    let page2 = "ordering=id&fields=id&page_size=4&page=2";
    s.server
        .ctl(json!({"action": "fault", "kind": "status", "status": 500,
                        "path": page2, "count": 2}));
    s.server
        .ctl(json!({"action": "fault", "kind": "mutate", "page": 2, "delete": [2]}));
    let w = s.start_with("watch.log", &["--sync-every", "1", "--page-size", "4"], &[]);
    wait_long("a sync took documents out", || {
        sync_lines(&w).iter().any(|l| l.contains("taken out"))
    });
    let lines = sync_lines(&w);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        lines[0].contains("listing the documents failed")
            && lines[0].contains("HTTP 500")
            && lines[0].contains("nothing removed from the index"),
        "{lines:#?}"
    );
    assert!(
        lines[1].contains("changed while it was read") && lines[1].contains("nothing removed"),
        "{lines:#?}"
    );
    assert!(
        lines[2].contains("2 documents no longer in Paperless taken out of the index (2, 5)"),
        "{lines:#?}"
    );
    assert_eq!(s.indexed(), vec![1, 3, 4, 6, 7, 8, 9, 10]);
    // Six of the eight gone at once (a token that sees fewer documents?): nothing removed.
    s.server
        .ctl(json!({"action": "delete", "ids": [1, 3, 4, 6, 7, 8]}));
    wait_long("the sync refused", || {
        w.log()
            .contains("which would take 6 of the index's 8 out (more than half): nothing removed")
    });
    assert_eq!(s.indexed(), vec![1, 3, 4, 6, 7, 8, 9, 10]);
    no_token(&w.log());
}

/// A document whose write-back Paperless refuses for good (403 on its notes) is dropped from
/// the inbox in one line naming it and the status, not tried again, and the next document is
/// processed (before, it was put back first in line and retried forever).
#[test]
fn watch_drops_a_document_paperless_refuses_for_good_and_goes_on() {
    let s = Setup::new(10);
    let (copy5, copy10) = (s.rescans[0], s.rescans[1]);
    let notes = format!("/api/documents/{copy5}/notes/");
    s.server
        .ctl(json!({"action": "fault", "kind": "status", "status": 403,
                        "path": notes, "count": 100000}));
    let w = s.start("watch.log");
    w.post_id(copy5);
    w.post_id(copy10);
    w.drained();
    let (n, tagged) = s.notes_and_tag(copy10);
    assert!(tagged && n.len() == 1, "the next document processed: {n:?}");
    let log = w.log();
    let refused: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(&format!("document {copy5}: ")))
        .collect();
    assert_eq!(refused.len(), 1, "{log}");
    assert!(
        refused[0].contains("HTTP 403") && refused[0].contains("dropped from the inbox"),
        "{log}"
    );
    // Not tried again: one request of its notes.
    std::thread::sleep(Duration::from_millis(1500));
    let asked = s
        .server
        .log()
        .iter()
        .filter(|r| r["path"].as_str().unwrap_or("").ends_with(&notes))
        .count();
    assert_eq!(asked, 1, "{log}");
    assert!(
        s.indexed().contains(&copy5),
        "checked and indexed all the same"
    );
    no_token(&log);
}
