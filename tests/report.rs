//! pl-report through the real binary, without a browser (tests/browser/ drives the page in
//! Chromium): byte-identical pages, untrusted text only inside the escaped JSON, the CSP,
//! clear errors, and --serve's HTTP rules.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::util::{fails, http, ok, served_port, write};

const BIN: &str = env!("CARGO_BIN_EXE_pl-report");

/// Runs pl-report (util::run knows only the pipeline tools); a hang is a failure.
fn run(_tool: &str, args: &[&str], stdin: &[u8]) -> std::process::Output {
    assert_cmd::Command::new(BIN)
        .args(args)
        .write_stdin(stdin.to_vec())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("pl-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

const EVIL: &str =
    "</script><script>window.__pwned=1</script>\"><img src=x onerror=alert(1)>\u{2028}<!--";

fn corpus(dir: &std::path::Path) -> (String, String) {
    let docs: String = (1..=4)
        .map(|id| {
            format!(
                "{}\n",
                json!({"id": id, "title": format!("{EVIL} {id}"), "content": format!("{EVIL} words {id}"),
                       "tags": [EVIL], "correspondent": EVIL, "modified": "2026-01-01T00:00:00Z",
                       "url": if id == 1 { "javascript:alert(1)".to_string() } else { format!("https://p.example/documents/{id}/details") }})
            )
        })
        .collect();
    let groups = "{\"group\":2,\"confidence\":0.8,\"jaccard\":0.7,\"fuzzy\":0.9,\"pair\":[1,4],\"primary\":1,\"members\":[1,4]}\n\
                  {\"group\":1,\"confidence\":0.95,\"jaccard\":null,\"fuzzy\":null,\"pair\":[2,3],\"primary\":2,\"members\":[2,3]}\n";
    (
        write(dir, "docs.ndjson", docs.as_bytes())
            .display()
            .to_string(),
        write(dir, "groups.ndjson", groups.as_bytes())
            .display()
            .to_string(),
    )
}

/// The JSON data block of a page.
fn data_of(page: &str) -> Value {
    let start = page.find("id=\"pl-data\">").unwrap() + "id=\"pl-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

#[test]
fn pages_are_deterministic_and_data_stays_data() {
    let dir = tmp("page");
    let (docs, groups) = corpus(&dir);
    let a = ok(run("pl-report", &[&groups, "--docs", &docs], b""));
    let b = ok(run("pl-report", &[&groups, "--docs", &docs], b""));
    assert_eq!(a, b, "same input, same bytes");
    let page = String::from_utf8(a).unwrap();
    // One script element that runs, one data block; no markup from the documents.
    assert_eq!(page.matches("<script>").count(), 1);
    assert_eq!(page.matches("<script").count(), 2);
    assert!(!page.contains("<img") && !page.contains("__pwned=1</script>"));
    assert!(!page.contains('\u{2028}'));
    assert!(page.contains("script-src 'sha256-") && page.contains("default-src 'none'"));
    // The data round-trips exactly; groups by confidence; the javascript: link is dropped.
    let data = data_of(&page);
    assert_eq!(data["docs"]["2"]["title"], format!("{EVIL} 2"));
    assert_eq!(data["docs"]["1"]["url"], Value::Null);
    assert_eq!(
        data["docs"]["3"]["url"],
        "https://p.example/documents/3/details"
    );
    let order: Vec<u64> = data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_u64().unwrap())
        .collect();
    assert_eq!(order, vec![1, 2]);
    // --paperless-url fills links only where a record has none; --max-text cuts texts.
    let page = String::from_utf8(ok(run(
        "pl-report",
        &[
            &groups,
            "--docs",
            &docs,
            "--paperless-url",
            "http://pl.local/",
            "--max-text",
            "5",
        ],
        b"",
    )))
    .unwrap();
    let data = data_of(&page);
    assert_eq!(
        data["docs"]["1"]["url"],
        "http://pl.local/documents/1/details"
    );
    assert_eq!(
        data["docs"]["3"]["url"],
        "https://p.example/documents/3/details"
    );
    assert_eq!(data["docs"]["3"]["content"], "</scr");
    assert_eq!(data["docs"]["3"]["truncated"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_page_is_told_what_pl_apply_will_do() {
    let dir = tmp("apply-plan");
    let (docs, groups) = corpus(&dir);
    let page = |args: &[&str]| {
        let mut a = vec![groups.as_str(), "--docs", docs.as_str()];
        a.extend_from_slice(args);
        data_of(&String::from_utf8(ok(run("pl-report", &a, b""))).unwrap())["meta"]["apply"].clone()
    };
    assert_eq!(
        page(&[]),
        json!({"tag": "duplicate", "delete": false, "note": false, "link": null})
    );
    assert_eq!(
        page(&["--note", "--link", EVIL, "--tag", "dup", "--delete"]),
        json!({"tag": "dup", "delete": true, "note": true, "link": EVIL})
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_input_and_line() {
    let dir = tmp("errors");
    let g = write(
        &dir,
        "g.ndjson",
        b"{\"group\":1,\"confidence\":0.9,\"primary\":7,\"members\":[1,2]}\n",
    );
    fails(
        run("pl-report", &[g.to_str().unwrap()], b""),
        1,
        "pl-report",
        &["g.ndjson", "line 1", "primary 7 is not a member"],
    );
    // What the page could not show truthfully: an id a JavaScript number cannot hold, a group
    // twice, a document in two groups, a confidence out of range.
    let cases: [(&str, &[&str]); 4] = [
        (
            "{\"group\":1,\"confidence\":0.9,\"primary\":9007199254740993,\"members\":[1,9007199254740993]}\n",
            &["line 1", "id 9007199254740993 is over 9007199254740991"],
        ),
        (
            "{\"group\":1,\"confidence\":0.9,\"primary\":1,\"members\":[1,2]}\n{\"group\":1,\"confidence\":0.8,\"primary\":3,\"members\":[3,4]}\n",
            &["line 2", "group 1 repeated (first on line 1)"],
        ),
        (
            "{\"group\":1,\"confidence\":0.9,\"primary\":1,\"members\":[1,2]}\n{\"group\":2,\"confidence\":0.8,\"primary\":3,\"members\":[3,2]}\n",
            &["line 2", "document 2 is in group 2 and in the group on line 1"],
        ),
        (
            "{\"group\":1,\"confidence\":1.5,\"primary\":1,\"members\":[1,2]}\n",
            &["line 1", "\"confidence\" is 1.5, not from 0 to 1"],
        ),
    ];
    for (text, needles) in cases {
        let g = write(&dir, "bad.ndjson", text.as_bytes());
        let mut want = vec!["bad.ndjson"];
        want.extend_from_slice(needles);
        fails(
            run("pl-report", &[g.to_str().unwrap()], b""),
            1,
            "pl-report",
            &want,
        );
    }
    fails(
        run("pl-report", &["--serve"], b""),
        2,
        "pl-report",
        &["--decisions"],
    );
    fails(
        run(
            "pl-report",
            &[
                "--serve",
                "--decisions",
                "/nonexistent-folder/decisions.ndjson",
            ],
            b"",
        ),
        2,
        "pl-report",
        &["/nonexistent-folder", "does not exist"],
    );
    fails(
        run("pl-report", &["--paperless-url", "javascript:x"], b""),
        2,
        "pl-report",
        &["http://"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts `pl-report --serve` on `groups` and `docs`; the child and its port.
fn serve_on(groups: &str, docs: &str, file: &std::path::Path) -> (std::process::Child, u16) {
    let mut child = Command::new(BIN)
        .args([groups, "--docs", docs, "--serve", "--decisions"])
        .arg(file)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let port = served_port(&mut child);
    (child, port)
}

#[test]
fn serve_writes_checked_decisions_atomically() {
    let dir = tmp("serve");
    let (docs, groups) = corpus(&dir);
    let file = dir.join("decisions.ndjson");
    let (child, port) = serve_on(&groups, &docs, &file);
    let mut served = Served(child, dir.clone());
    let host = format!("Host: 127.0.0.1:{port}");
    let (s, page) = http(port, &format!("GET / HTTP/1.1\r\n{host}\r\n\r\n"));
    assert_eq!(s, 200);
    assert_eq!(data_of(&page)["meta"]["serve"], true);
    let (s, body) = http(port, &format!("GET /decisions HTTP/1.1\r\n{host}\r\n\r\n"));
    assert_eq!((s, body.as_str()), (200, ""));
    // A decision: saved with `modified` from the docs, whatever the page sent.
    let d = "{\"group\":2,\"decision\":\"duplicate\",\"primary\":4,\"members\":[1,4],\"modified\":{\"1\":\"forged\"},\"decided_at\":\"2026-11-23T04:00:00.000Z\"}\n";
    let put = |body: &str, extra: &str| {
        http(
            port,
            &format!(
                "PUT /decisions HTTP/1.1\r\n{host}\r\n{extra}Content-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let (s, body) = put(d, "");
    assert_eq!((s, body.as_str()), (200, "{\"saved\":1}"));
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        saved,
        "{\"group\":2,\"decision\":\"duplicate\",\"primary\":4,\"members\":[1,4],\"modified\":{\"1\":\"2026-01-01T00:00:00Z\",\"4\":\"2026-01-01T00:00:00Z\"},\"confidence\":null,\"decided_at\":\"2026-11-23T04:00:00.000Z\"}\n"
    );
    // Refused, file untouched: a foreign Origin, another Host, an unknown group, members that
    // differ, a primary outside the group.
    assert_eq!(put(d, "Origin: http://evil.example\r\n").0, 403);
    let (s, _) = http(
        port,
        &format!("GET / HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n"),
    );
    assert_eq!(s, 403);
    for bad in [
        "{\"group\":9,\"decision\":\"duplicate\",\"primary\":1,\"members\":[1,3]}\n",
        "{\"group\":2,\"decision\":\"duplicate\",\"primary\":1,\"members\":[1,2,4]}\n",
        "{\"group\":2,\"decision\":\"duplicate\",\"primary\":2,\"members\":[1,4]}\n",
        "not json\n",
    ] {
        let (s, body) = put(bad, "");
        assert_eq!(s, 400, "{bad}: {body}");
        assert!(body.starts_with("line 1: "), "{body}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), saved);
    // No temporary files left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    served.stop();
    // A decisions file that does not fit the report is an error at start, not at the first save.
    std::fs::write(
        &file,
        "{\"group\":77,\"decision\":\"ignore\",\"primary\":1,\"members\":[1]}\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .args([&groups, "--serve", "--decisions"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("decisions.ndjson") && err.contains("group 77"),
        "{err}"
    );
}

#[test]
fn serve_merges_saves_per_group_and_stays_bounded() {
    let dir = tmp("serve-merge");
    // 50 groups of two documents each.
    let docs: String = (1..=100)
        .map(|id| format!("{}\n", json!({"id": id, "title": format!("doc {id}"), "content": "x", "modified": "2026-01-01T00:00:00Z"})))
        .collect();
    let groups: String = (1..=50u64)
        .map(|g| format!("{}\n", json!({"group": g, "confidence": 0.9, "primary": 2 * g - 1, "members": [2 * g - 1, 2 * g]})))
        .collect();
    let docs = write(&dir, "docs.ndjson", docs.as_bytes())
        .display()
        .to_string();
    let groups = write(&dir, "groups.ndjson", groups.as_bytes())
        .display()
        .to_string();
    let file = dir.join("decisions.ndjson");
    let (child, port) = serve_on(&groups, &docs, &file);
    let _served = Served(child, dir.clone());
    let put = move |body: String| {
        http(
            port,
            &format!(
                "PUT /decisions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let decision = |g: u64, verdict: &str| {
        format!(
            "{}\n",
            json!({"group": g, "decision": verdict, "primary": 2 * g - 1, "members": [2 * g - 1, 2 * g]})
        )
    };
    // Fifty single-decision saves at once, as fifty tabs would send them: all fifty kept.
    let threads: Vec<_> = (1..=50u64)
        .map(|g| {
            let body = decision(g, if g % 2 == 0 { "duplicate" } else { "ignore" });
            std::thread::spawn(move || put(body))
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap().0, 200);
    }
    let lines = |f: &std::path::Path| -> Vec<Value> {
        std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let saved = lines(&file);
    assert_eq!(saved.len(), 50);
    assert!(saved.iter().all(|d| d["decision"]
        == if d["group"].as_u64().unwrap() % 2 == 0 {
            "duplicate"
        } else {
            "ignore"
        }));
    // Two writers: one changes group 3, the other takes group 4 back; the rest stays.
    assert_eq!(put(decision(3, "not-duplicate")).0, 200);
    let (s, body) = put("{\"group\":4,\"decision\":\"pending\"}\n".into());
    assert_eq!((s, body.as_str()), (200, "{\"saved\":49}"));
    let saved = lines(&file);
    assert_eq!(saved.len(), 49);
    assert!(saved
        .iter()
        .any(|d| d["group"] == 3 && d["decision"] == "not-duplicate"));
    assert!(saved.iter().all(|d| d["group"] != 4));
    // A group named twice in one body is refused, the file untouched.
    let before = std::fs::read_to_string(&file).unwrap();
    let (s, body) = put(decision(5, "duplicate") + &decision(5, "ignore"));
    assert_eq!(s, 400, "{body}");
    assert!(body.contains("group 5 named twice"), "{body}");
    // A request head over the bound: 431, nothing read further.
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Pad: {}\r\n\r\n",
        "a".repeat(20 << 10)
    );
    assert_eq!(http(port, &huge).0, 431);
    // Idle connections cannot hold the server: with 70 open (more than it serves at once),
    // a GET is answered at once, the oldest idle one closed for it.
    let idle: Vec<TcpStream> = (0..70)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let (s, body) = http(
        port,
        &format!("GET /decisions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    );
    assert_eq!((s, body.as_str()), (200, before.as_str()));
    drop(idle);
    let mut answered = false;
    for _ in 0..50 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let (s, body) = http(
            port,
            &format!("GET /decisions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
        );
        if s == 200 {
            assert_eq!(body, before);
            answered = true;
            break;
        }
    }
    assert!(answered, "the server never answered again");
}

/// A `pl-report --serve` child and its folder: killed and removed on drop (a failing test too).
struct Served(std::process::Child, std::path::PathBuf);

impl Served {
    /// Stops the server, keeping the folder.
    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

/// What `s` answered: empty when nothing came within `wait`; once something came, everything
/// up to the server's close (a response may arrive in several segments).
fn answer(s: &mut TcpStream, wait: std::time::Duration) -> String {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut buf = vec![0; 4096];
    let mut got = Vec::new();
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                    .unwrap();
            }
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn serve_outlasts_slow_clients_and_bounds_the_bodies_it_holds() {
    let dir = tmp("serve-slow");
    let (docs, groups) = corpus(&dir);
    let (child, port) = serve_on(&groups, &docs, &dir.join("decisions.ndjson"));
    let _served = Served(child, dir.clone());
    let head = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    // A client sending a header line every second (never silent long enough for the
    // silence timeout) is answered 408 once the request's deadline is past.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(head.as_bytes()).unwrap();
    let mut got = String::new();
    for _ in 0..60 {
        got = answer(&mut slow, std::time::Duration::from_secs(1));
        if !got.is_empty() || slow.write_all(b"X-Slow: 1\r\n").is_err() {
            break;
        }
    }
    assert!(got.starts_with("HTTP/1.1 408"), "{got:?}");
    assert!(got.contains("request not complete in time"), "{got}");
    // Seventy such clients at once: a normal GET is still answered.
    let mut slow: Vec<TcpStream> = (0..70)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    for s in &mut slow {
        let _ = s.write_all(b"X-Slow: 1\r\n");
    }
    let (status, page) = http(port, &format!("{head}\r\n"));
    assert_eq!(status, 200);
    assert!(page.contains("<html"), "the page");
    drop(slow);
    // A body over what the page's decisions can need is answered 413 at once, unread; the
    // answer says the limit.
    let put = |n: usize| {
        format!("PUT /decisions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {n}\r\n\r\n")
    };
    let mut big = TcpStream::connect(("127.0.0.1", port)).unwrap();
    big.write_all(put(63 << 20).as_bytes()).unwrap();
    let got = answer(&mut big, std::time::Duration::from_secs(10));
    assert!(got.starts_with("HTTP/1.1 413"), "{got}");
    let limit: usize = got
        .split("need at most ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{got}"));
    assert!(limit < 1 << 20, "a small page's limit: {limit}");
    // Five bodies of the limit announced at once (none sent yet): four fit the budget; the
    // fifth is answered 503 at once, unread.
    let mut puts: Vec<TcpStream> = (0..5)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(put(limit).as_bytes()).unwrap();
            s
        })
        .collect();
    let mut answers = Vec::new();
    for _ in 0..300 {
        answers = puts
            .iter_mut()
            .map(|s| answer(s, std::time::Duration::from_millis(20)))
            .filter(|a| !a.is_empty())
            .collect();
        if !answers.is_empty() {
            break;
        }
    }
    let busy = format!("request bodies being read would pass {} bytes", 4 * limit);
    assert!(
        answers
            .iter()
            .any(|a| a.starts_with("HTTP/1.1 503") && a.contains(&busy)),
        "{answers:?}"
    );
}

#[test]
fn serve_refuses_a_line_of_more_values_than_a_decision_has_before_parsing_it() {
    let dir = tmp("serve-values");
    let (docs, groups) = corpus(&dir);
    let file = dir.join("decisions.ndjson");
    let (child, port) = serve_on(&groups, &docs, &file);
    let _served = Served(child, dir.clone());
    let put = |body: &str| {
        http(
            port,
            &format!(
                "PUT /decisions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    // Small integers, within the page's byte limit, in the members and in a field nobody
    // reads: refused by their count (a decision of a two-member group has few values).
    let many = vec!["1"; 400].join(",");
    for body in [
        format!(r#"{{"group":1,"decision":"duplicate","primary":2,"members":[{many}]}}"#),
        format!(r#"{{"group":1,"decision":"duplicate","primary":2,"members":[2,3],"x":[{many}]}}"#),
    ] {
        let (status, text) = put(&body);
        assert_eq!(status, 400, "{text}");
        assert!(
            text.contains("line 1: 4")
                && text
                    .contains("more than a decision of this report has (72 at most): not parsed"),
            "{text}"
        );
    }
    assert!(!file.exists(), "nothing saved");
    // The page's own decision is saved.
    let ok = r#"{"group":1,"decision":"duplicate","primary":2,"members":[2,3],"modified":{"2":"2026-01-01T00:00:00Z","3":null},"confidence":0.95,"decided_at":"2026-11-29T02:37:13.123Z"}"#;
    assert_eq!(put(ok).0, 200);
}
