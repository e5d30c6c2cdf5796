//! The consume hook (scripts/paperless-consume-hook.sh) against the test server: what it logs
//! never holds the token in any form, one line per failure, no redirect is followed, and its
//! time limit is never "none".
//!
//! Each test builds a small index (documents 101..105) and puts a rescan of document 105 on the
//! server as document 1, the document the hook is run for (as Paperless runs it after a
//! consumption); the index is only read (PL_HOOK_ADD=0).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server::Server;
use crate::util::{bin_dir, repo, small_corpus};

/// A token with the characters JSON escapes (`"`, `\`, `/`); no form of it may reach a log.
const TOKEN: &str = r#"SECRET123"\/tok"#;
/// The part of [`TOKEN`] every escaped form of it still shows.
const CORE: &str = "SECRET123";

/// An index, a token file and a server holding the consumed document; folder removed and
/// server killed on drop.
struct Setup {
    dir: tempfile::TempDir,
    server: Server,
    /// The text of document 1 (the rescan of 105).
    rescan: Value,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(TOKEN);
        let mut docs: Vec<Value> = crate::util::ndjson(small_corpus(5).as_bytes());
        let rescan = docs.pop().unwrap();
        assert_eq!(rescan["id"], 1005);
        let indexed: String = docs
            .iter_mut()
            .map(|d| {
                d["id"] = json!(d["id"].as_u64().unwrap() + 100);
                format!("{d}\n")
            })
            .collect();
        crate::util::index_docs(dir.path(), &indexed);
        let ids = server.add(json!([{"title": "rescan", "content": rescan["content"]}]));
        assert_eq!(ids, vec![1]);
        std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
        Setup {
            dir,
            server,
            rescan: rescan["content"].clone(),
        }
    }

    /// Puts `n` more rescans of 105 on the server (documents 2, 3, ...).
    fn more_rescans(&self, n: usize) {
        let docs: Vec<Value> = (0..n)
            .map(|i| json!({"title": format!("rescan {}", i + 2), "content": self.rescan}))
            .collect();
        let ids = self.server.add(json!(docs));
        assert_eq!(ids, (2..2 + n as u64).collect::<Vec<_>>());
    }

    /// The ids the index holds.
    fn indexed(&self) -> Vec<u64> {
        crate::util::indexed_ids(&self.path("index"))
    }

    /// The files the index's queue holds.
    fn queued(&self) -> Vec<String> {
        std::fs::read_dir(self.path("index").join("queue"))
            .map(|rd| {
                rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether document `id` on the server has the tag `possible-duplicate`.
    fn tagged(&self, id: u64) -> bool {
        let (_, tags) = self.server.http(
            "GET",
            "/api/tags/?name__iexact=possible-duplicate",
            None,
            true,
        );
        let Some(tag) = tags["results"][0]["id"].as_u64() else {
            return false;
        };
        let (_, doc) = self
            .server
            .http("GET", &format!("/api/documents/{id}/"), None, true);
        doc["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_u64() == Some(tag))
    }

    /// Runs the hook for documents `ids` at once with the env file `name` (created with
    /// `extra`); each one's log lines (its own log file).
    fn hooks_at_once(&self, name: &str, extra: &str, ids: &[u64]) -> Vec<Vec<String>> {
        let runs: Vec<_> = ids
            .iter()
            .map(|id| {
                let env = self.env_file(&format!("{name}{id}"), extra);
                Hook::start_as(&env, &id.to_string())
            })
            .collect();
        runs.into_iter()
            .zip(ids)
            .map(|(h, id)| {
                let out = h.wait(Duration::from_secs(120));
                assert_eq!(out.status.code(), Some(0));
                let log = std::fs::read_to_string(self.path(&format!("{name}{id}.log")))
                    .unwrap_or_default();
                assert_no_core(&log);
                assert_no_core(&String::from_utf8_lossy(&out.stderr));
                log.lines().map(str::to_owned).collect()
            })
            .collect()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes the env file `name` (the common settings, then `extra` lines); returns its path.
    fn env_file(&self, name: &str, extra: &str) -> PathBuf {
        let p = self.path(name);
        let q = |p: PathBuf| format!("'{}'", p.display());
        let text = format!(
            "PL_INDEX={}\nPL_BIN={}\nPL_TOKEN_FILE={}\nPAPERLESS_URL={}\nPL_HOOK_LOG={}\n\
             PL_HOOK_ADD=0\n{extra}\n",
            q(self.path("index")),
            q(bin_dir()),
            q(self.path("token")),
            self.server.url(),
            q(self.path(&format!("{name}.log"))),
        );
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Runs the hook for document 1 with the env file `name` (created with `extra`); returns
    /// its output and the lines its log file got.
    fn hook(&self, name: &str, extra: &str) -> (Output, Vec<String>) {
        let env = self.env_file(name, extra);
        let out = Hook::start(&env).wait(Duration::from_secs(120));
        let log = std::fs::read_to_string(self.path(&format!("{name}.log"))).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "the hook never fails: {stderr}");
        assert_no_core(&stderr);
        assert_no_core(&log);
        (out, log.lines().map(str::to_owned).collect())
    }

    fn fault(&self, f: Value) {
        let mut f = f;
        f["action"] = json!("fault");
        self.server.ctl(f);
    }
}

/// Neither the token's core nor its first five characters, in any letter case (a cut
/// before redacting left a prefix).
fn assert_no_core(text: &str) {
    let lower = text.to_lowercase();
    for part in [CORE, &CORE[..5]] {
        assert!(
            !lower.contains(&part.to_lowercase()),
            "{part:?} of the token in: {text}"
        );
    }
}

/// A running hook, in its own process group: killed with everything it started on drop.
struct Hook(Option<Child>);

impl Hook {
    fn start(env: &Path) -> Hook {
        Hook::start_as(env, "1")
    }

    /// The hook for DOCUMENT_ID `id`.
    fn start_as(env: &Path, id: &str) -> Hook {
        use std::os::unix::process::CommandExt;
        let child = Command::new("bash")
            .arg(repo().join("scripts/paperless-consume-hook.sh"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("PL_HOOK_ENV", env)
            .env("DOCUMENT_ID", id)
            .env("DOCUMENT_FILE_NAME", "document-1.pdf")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        Hook(Some(child))
    }

    /// Its output once it ends; a hook still running after `limit` is a failure.
    fn wait(mut self, limit: Duration) -> Output {
        let start = Instant::now();
        let child = self.0.as_mut().unwrap();
        while child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < limit, "the hook ran past {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Hook {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", c.id())])
                .status();
            let _ = c.wait();
        }
    }
}

#[test]
fn hook_tags_a_duplicate_and_logs_server_errors_without_the_token() {
    let s = Setup::new();
    let (_, log) = s.hook("plain", "");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].ends_with("tagged possible-duplicate and noted 1 original(s): 105"),
        "{log:?}"
    );
    // A server echoing the Authorization header in its error, as JSON (`"` and `\` escaped),
    // with `/` escaped too, from the tagging step and from pl-check's own request.
    let faults = [
        json!({"kind": "echo", "status": 403, "path": "/api/documents/bulk_edit/"}),
        json!({"kind": "echo", "status": 500, "path": "/notes/", "escape_slash": true}),
        json!({"kind": "echo", "status": 401, "path": "/api/documents/1/", "escape_slash": true, "count": 2}),
        // The header base64-encoded, `/` escaped.
        json!({"kind": "echo", "status": 403, "path": "/api/documents/bulk_edit/", "base64": true, "escape_slash": true}),
    ];
    for (i, f) in faults.into_iter().enumerate() {
        s.server.ctl(json!({"action": "clear_faults"}));
        s.fault(f.clone());
        let (_, log) = s.hook(&format!("echo{i}"), "");
        assert_eq!(log.len(), 1, "one line per failure ({f}): {log:?}");
        assert!(log[0].contains("failed"), "{log:?}");
        assert!(
            i == 2 || log[0].contains("Invalid token: Token <token>") || i == 3,
            "the server's text, redacted: {log:?}"
        );
        assert!(
            i != 3 || log[0].contains("<token>"),
            "base64, redacted: {log:?}"
        );
    }
}

/// The token from PAPERLESS_API_TOKEN, the alias of PAPERLESS_TOKEN the pl-* tools accept
/// (issue 58): the document is checked, tagged and noted; a server echoing it in an error
/// never gets it into the log; none set is said, and both set to different tokens refused.
#[test]
fn hook_takes_the_token_from_paperless_api_token_as_the_tools_do() {
    let s = Setup::new();
    let alias = format!("PL_TOKEN_FILE=\nPAPERLESS_API_TOKEN='{TOKEN}'");
    let (_, log) = s.hook("alias", &alias);
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].ends_with("tagged possible-duplicate and noted 1 original(s): 105"),
        "{log:?}"
    );
    // The tagging step's request refused with the token echoed: redacted (`hook` checks).
    s.fault(json!({"kind": "echo", "status": 403, "path": "/api/documents/bulk_edit/"}));
    let (_, log) = s.hook("alias-echo", &alias);
    assert!(
        log.len() == 1 && log[0].contains("Invalid token: Token <token>"),
        "{log:?}"
    );
    let (_, log) = s.hook("none", "PL_TOKEN_FILE=\nPAPERLESS_API_TOKEN='  '");
    assert!(log.len() == 1 && log[0].contains("no API token"), "{log:?}");
    let both =
        format!("PL_TOKEN_FILE=\nPAPERLESS_TOKEN=other-token\nPAPERLESS_API_TOKEN='{TOKEN}'");
    let (_, log) = s.hook("both", &both);
    assert!(
        log.len() == 1 && log[0].contains("both set, to different tokens"),
        "{log:?}"
    );
}

#[test]
fn hook_follows_no_redirect_with_the_token() {
    let s = Setup::new();
    let other = Server::start(TOKEN);
    s.fault(
        json!({"kind": "redirect", "path": "/api/tags/?name__iexact", "location": other.url()}),
    );
    let (_, log) = s.hook("redirect", "");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(!log[0].contains("tagged"), "no success: {log:?}");
    assert!(
        log[0].contains("tagging failed") && log[0].contains("redirect"),
        "{log:?}"
    );
    let seen = other.log();
    assert!(
        seen.iter().all(|r| r["auth"] == json!(false)),
        "the other address got the token: {seen:?}"
    );
}

#[test]
fn hook_timeout_of_zero_or_garbage_is_the_default() {
    let s = Setup::new();
    // pl-check's fetch answered one byte a second for minutes (its own limits allow that).
    s.fault(
        json!({"kind": "drip", "path": "/api/documents/1/", "interval": 1, "pad": 600, "count": 4}),
    );
    let runs: Vec<_> = ["0", "abc", ""]
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let env = s.env_file(&format!("t{i}"), &format!("PL_HOOK_TIMEOUT='{t}'"));
            Hook::start(&env)
        })
        .collect();
    for (i, h) in runs.into_iter().enumerate() {
        // 20 s and the 2 s of `timeout -k`; a hook with no limit runs for minutes.
        let out = h.wait(Duration::from_secs(90));
        assert_eq!(out.status.code(), Some(0));
        let log = std::fs::read_to_string(s.path(&format!("t{i}.log"))).unwrap();
        assert!(
            log.contains("pl-check took more than 20 s: skipped"),
            "{log}"
        );
        assert_eq!(log.contains("PL_HOOK_TIMEOUT is not"), i < 2, "{log}");
    }
}

#[test]
fn hook_logs_a_timeout_in_its_tagging_step_in_one_line() {
    let s = Setup::new();
    // An answer later than the step's 10 s per request.
    s.fault(json!({"kind": "delay", "path": "/api/tags/?name__iexact", "seconds": 12}));
    let (_, log) = s.hook("slow", "");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("tagging failed (exit 1): GET /api/tags/?name__iexact=possible-duplicate: no answer within 10 s"),
        "{log:?}"
    );
    // An answer trickling past the step's own limit: it is stopped, one line says so.
    s.server.ctl(json!({"action": "clear_faults"}));
    s.fault(json!({"kind": "drip", "path": "/api/tags/?name__iexact", "interval": 1, "pad": 600}));
    let (_, log) = s.hook("drip", "PL_HOOK_TIMEOUT=3");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].ends_with("tagging took more than 3 s: skipped"),
        "{log:?}"
    );
    for l in &log {
        assert!(!l.contains("Traceback") && !l.contains("File \""), "{l}");
    }
}

#[test]
fn five_hooks_on_a_slow_server_are_all_checked_indexed_and_tagged() {
    let s = Setup::new();
    s.more_rescans(4);
    // The tag exists (its creation is another test's race).
    s.server
        .add(json!([{"title": "tagged", "content": "x", "tags": ["possible-duplicate"]}]));
    // Each hook's fetch of its document answered after 3 s: no lock may be held meanwhile.
    s.fault(json!({"kind": "delay", "path": "/api/documents/", "seconds": 3, "count": 5}));
    let logs = s.hooks_at_once("slow", "PL_HOOK_ADD=1\nPL_HOOK_TIMEOUT=8", &[1, 2, 3, 4, 5]);
    for (i, log) in logs.iter().enumerate() {
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(
            log[0].contains("tagged possible-duplicate"),
            "hook {}: {log:?}",
            i + 1
        );
        assert!(!log[0].contains("queued"), "{log:?}");
    }
    assert_eq!(s.indexed(), vec![1, 2, 3, 4, 5, 101, 102, 103, 104, 105]);
    assert!((1..=5).all(|id| s.tagged(id)));
    assert_eq!(s.queued(), Vec::<String>::new());
}

#[test]
fn a_hook_outlasted_by_another_writer_checks_and_leaves_the_document_queued() {
    let s = Setup::new();
    s.more_rescans(1);
    // A cron pl-index holding the writers' lock far longer than the hook's time limit.
    let lock = s.path("index").join("index.lock");
    // (-o: the lock is flock's own, not its child's, so killing flock ends it.)
    let mut holder = Command::new("flock")
        .arg("-o")
        .arg(&lock)
        .args(["sleep", "60"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (_, log) = s.hook("busy", "PL_HOOK_ADD=1\nPL_HOOK_TIMEOUT=4");
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains(
            "tagged possible-duplicate and noted 1 original(s): 105; queued in the index folder"
        ),
        "{log:?}"
    );
    assert!(
        !s.indexed().contains(&1),
        "not added while the lock was held"
    );
    let queued = s.queued();
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert!(queued[0].starts_with("00000000000000000001."), "{queued:?}");
    // The next writer (another hook) adds it, then its own document, and empties the queue.
    let env = s.env_file("next", "PL_HOOK_ADD=1");
    let out = Hook::start_as(&env, "2").wait(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0));
    let log = std::fs::read_to_string(s.path("next.log")).unwrap();
    assert!(log.contains("tagged possible-duplicate"), "{log}");
    assert!(!log.contains("queued"), "{log}");
    assert_eq!(s.indexed(), vec![1, 2, 101, 102, 103, 104, 105]);
    assert_eq!(s.queued(), Vec::<String>::new());
}

#[test]
fn hooks_creating_the_tag_at_once_all_tag_their_document() {
    let s = Setup::new();
    s.more_rescans(4);
    // The five hooks' tag searches answered at once: all five find no tag and create it.
    s.fault(
        json!({"kind": "gather", "path": "/api/tags/?name__iexact", "seconds": 15, "count": 5}),
    );
    let logs = s.hooks_at_once("race", "", &[1, 2, 3, 4, 5]);
    for log in &logs {
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(log[0].contains("tagged possible-duplicate"), "{log:?}");
    }
    let posts = s
        .server
        .log()
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/api/tags/")
        .count();
    assert!(
        posts >= 2,
        "the creations raced ({posts}): {:?}",
        s.server
            .log()
            .iter()
            .map(|r| format!("{} {}", r["method"], r["path"]))
            .collect::<Vec<_>>()
    );
    assert!((1..=5).all(|id| s.tagged(id)));
    let (_, tags) = s.server.http("GET", "/api/tags/", None, true);
    assert_eq!(tags["count"], 1, "one tag: {tags}");
}

#[test]
fn an_echo_of_the_token_in_another_case_or_cut_is_never_logged() {
    let s = Setup::new();
    // Upper-cased, from pl-check's own request and from the tagging step.
    for (i, path) in ["/api/documents/1/", "/api/documents/bulk_edit/"]
        .iter()
        .enumerate()
    {
        s.server.ctl(json!({"action": "clear_faults"}));
        s.fault(json!({"kind": "echo", "status": 403, "path": path, "upper": true, "count": 2}));
        let (_, log) = s.hook(&format!("upper{i}"), "");
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(log[0].contains("failed"), "{log:?}");
        assert!(
            log[0].contains("<token>"),
            "the server's text, redacted: {log:?}"
        );
    }
    // A body that is not JSON, the token across the 200 characters a message shows.
    // (The token starts 32 characters into the JSON: at 182, 192 and 195.)
    for pad in [150, 160, 163] {
        s.server.ctl(json!({"action": "clear_faults"}));
        s.fault(
            json!({"kind": "echo", "status": 200, "path": "/api/tags/?name__iexact",
            "pad": pad, "ctype": "text/plain"}),
        );
        let (_, log) = s.hook(&format!("cut{pad}"), "");
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(log[0].contains("is not JSON"), "{log:?}");
    }
}

#[test]
fn a_document_id_that_is_not_a_number_is_refused_on_one_escaped_line() {
    let s = Setup::new();
    for (i, id) in [
        "1\n2026-01-01T00:00:00Z forged: tagged",
        "12abc",
        " 1",
        "-1",
        "1e3",
        "01",
    ]
    .iter()
    .enumerate()
    {
        let env = s.env_file(&format!("id{i}"), "");
        let out = Hook::start_as(&env, id).wait(Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(0));
        let log = std::fs::read_to_string(s.path(&format!("id{i}.log"))).unwrap();
        assert_eq!(log.lines().count(), 1, "{id:?}: {log}");
        assert!(
            log.contains("document ?: DOCUMENT_ID is not a document id (a decimal number)"),
            "{log}"
        );
        if i == 0 {
            assert!(log.contains("$'1\\n2026-01-01T"), "escaped: {log}");
        }
    }
    assert!(s.server.log().is_empty(), "nothing was asked of the server");
}

#[test]
fn pl_check_never_repeats_the_token_in_any_case_or_escape() {
    let s = Setup::new();
    for (i, f) in [
        json!({"kind": "echo", "status": 403, "path": "/api/documents/1/", "upper": true}),
        json!({"kind": "echo", "status": 400, "path": "/api/documents/1/", "upper": true, "escape_slash": true}),
        json!({"kind": "echo", "status": 403, "path": "/api/tags/", "upper": true, "pad": 250, "ctype": "text/plain"}),
    ]
    .into_iter()
    .enumerate()
    {
        s.server.ctl(json!({"action": "clear_faults"}));
        s.fault(f.clone());
        let out = Command::new(crate::util::bin("pl-check"))
            .args(["--index", s.path("index").to_str().unwrap(), "--id", "1", "--retries", "0"])
            .arg("--token-file")
            .arg(s.path("token"))
            .env("PAPERLESS_URL", s.server.url())
            .env_remove("PAPERLESS_TOKEN")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{i}: {err}");
        assert_no_core(&err);
        assert_no_core(&String::from_utf8_lossy(&out.stdout));
        if i < 2 {
            assert!(err.contains("<token>"), "{i}: the server's text, redacted: {err}");
        }
    }
}

#[test]
fn hook_leaves_a_document_the_token_may_not_change_alone() {
    let s = Setup::new();
    s.server
        // Owned by the indexed documents' owner (another's near-copies are not its matches),
        // shared read-only with the token's user.
        .ctl(json!({"action": "access", "id": 1, "owner": 1, "user_can_change": false}));
    let (_, log) = s.hook("locked", "");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].ends_with("skipped: the token's user may not change #1 (owner 1)"),
        "{log:?}"
    );
    assert!(!s.tagged(1));
    assert!(
        s.server.log().iter().all(|r| r["method"] == "GET"),
        "no write"
    );
}
