//! The harness shared by the pl-fetch and pl-apply tests: the Paperless-compatible test server
//! (tests/paperless_server.py) on 127.0.0.1, plain HTTP requests to it and its control
//! endpoint, a temporary directory, and the check that a token leaks nowhere.
//!
//! Each test module adds its own queries in its own `impl Server` block.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use serde_json::{json, Value};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/paperless_server.py"
);

/// A test server on a free port, killed on drop.
pub struct Server {
    child: Child,
    port: u16,
    tls: bool,
    token: &'static str,
}

impl Server {
    /// A plain HTTP server that accepts `token`.
    pub fn start(token: &'static str) -> Server {
        Server::start_with(token, &[])
    }

    /// A server with extra arguments to the script (any extra arguments mean TLS).
    pub fn start_with(token: &'static str, extra: &[&str]) -> Server {
        let mut child = Command::new("python3")
            .arg(SCRIPT)
            .args(["--token", token])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the test server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("server said {line:?}"))
            .parse()
            .unwrap();
        Server {
            child,
            port,
            tls: !extra.is_empty(),
            token,
        }
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// One plain HTTP request (the tests need no client library); returns status and JSON.
    pub fn http(&self, method: &str, path: &str, body: Option<&Value>, auth: bool) -> (u16, Value) {
        assert!(!self.tls, "control requests need the plain server");
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        let auth = if auth {
            format!("Authorization: Token {}\r\n", self.token)
        } else {
            String::new()
        };
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut resp = Vec::new();
        s.read_to_end(&mut resp).unwrap();
        let split = resp.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&resp[..split]).to_string();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let json = serde_json::from_slice(&resp[split + 4..]).unwrap_or(Value::Null);
        (status, json)
    }

    /// A control request; it must succeed.
    pub fn ctl(&self, v: Value) -> Value {
        let (status, out) = self.http("POST", "/__control__", Some(&v), false);
        assert_eq!(status, 200, "control {v}: {out}");
        out
    }

    /// Adds documents; returns their ids.
    pub fn add(&self, docs: Value) -> Vec<u64> {
        self.ctl(json!({"action": "add", "docs": docs}))["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    }

    /// The requests the server saw since the last clear (control requests excluded), as the
    /// server logs them (`method`, `path`, `accept`, ...).
    pub fn log(&self) -> Vec<Value> {
        let (_, out) = self.http("GET", "/__control__", None, false);
        out["requests"].as_array().unwrap().clone()
    }

    pub fn clear_log(&self) {
        self.ctl(json!({"action": "clear_log"}));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary directory `pl-{name}-{pid}`, emptied on creation and removed on drop.
pub struct Tmp(pub PathBuf);

impl Tmp {
    pub fn new(name: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("pl-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Checks that `token` shows up neither in a run's output nor in any file in `dir`.
pub fn assert_no_token(out: &Output, dir: &Tmp, token: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains(token), "token on stdout");
    assert!(!stderr.contains(token), "token on stderr: {stderr}");
    for e in std::fs::read_dir(&dir.0).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            let bytes = std::fs::read(&p).unwrap();
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "token in {}",
                p.display()
            );
        }
    }
}

/// A run's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Waits until `f` holds (a hang is a failure).
pub fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
