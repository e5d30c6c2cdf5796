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
use crate::util::{bin_dir, ok, repo, run, small_corpus};

/// A token with the characters JSON escapes (`"`, `\`, `/`); no form of it may reach a log.
const TOKEN: &str = r#"SECRET123"\/tok"#;
/// The part of [`TOKEN`] every escaped form of it still shows.
const CORE: &str = "SECRET123";

/// An index, a token file and a server holding the consumed document; folder removed and
/// server killed on drop.
struct Setup {
    dir: tempfile::TempDir,
    server: Server,
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
        let docs_path = dir.path().join("docs.ndjson");
        std::fs::write(&docs_path, indexed).unwrap();
        let ix = dir.path().join("index");
        ok(run(
            "pl-index",
            &[
                "--index",
                ix.to_str().unwrap(),
                docs_path.to_str().unwrap(),
                "-q",
            ],
            b"",
        ));
        let ids = server.add(json!([{"title": "rescan", "content": rescan["content"]}]));
        assert_eq!(ids, vec![1]);
        std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
        Setup { dir, server }
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
        assert!(!stderr.contains(CORE), "token on stderr: {stderr}");
        assert!(!log.contains(CORE), "token in the log: {log}");
        (out, log.lines().map(str::to_owned).collect())
    }

    fn fault(&self, f: Value) {
        let mut f = f;
        f["action"] = json!("fault");
        self.server.ctl(f);
    }
}

/// A running hook, in its own process group: killed with everything it started on drop.
struct Hook(Option<Child>);

impl Hook {
    fn start(env: &Path) -> Hook {
        use std::os::unix::process::CommandExt;
        let child = Command::new("bash")
            .arg(repo().join("scripts/paperless-consume-hook.sh"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("PL_HOOK_ENV", env)
            .env("DOCUMENT_ID", "1")
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
    ];
    for (i, f) in faults.into_iter().enumerate() {
        s.server.ctl(json!({"action": "clear_faults"}));
        s.fault(f.clone());
        let (_, log) = s.hook(&format!("echo{i}"), "");
        assert_eq!(log.len(), 1, "one line per failure ({f}): {log:?}");
        assert!(log[0].contains("failed"), "{log:?}");
        assert!(
            i == 2 || log[0].contains("Invalid token: Token <token>"),
            "the server's text, redacted: {log:?}"
        );
    }
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
