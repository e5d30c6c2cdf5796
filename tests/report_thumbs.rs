//! pl-report --thumbs against the Paperless-compatible test server: the page images served
//! through --serve (members of the groups only, cached, the token never in the page or an
//! answer), embedded in a file page, and each missing one (404, timeout, not an image, too
//! large) said in its place.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

use pl_core::sha256::base64;
use serde_json::{json, Value};

use crate::server::{assert_no_token, stderr, Server, Tmp};
use crate::util::{fails, served_port, write};

const BIN: &str = env!("CARGO_BIN_EXE_pl-report");
const TOKEN: &str = "thumbtoken0123456789abcdef0123456789abcd";

/// A lossless 1x1 WebP and a PNG signature with a header: what the server hands out.
const WEBP: &[u8] =
    b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0/\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
const HOSTILE: &str = "<img src=x onerror=\"window.__pwned=1\">";

/// Documents 1..=6 on the server: 1 a WebP, 2 a PNG labelled WebP, 3 without a thumbnail,
/// 4 an HTML page, 5 outside every group, 6 over the size limit; and the docs and groups
/// files ({1,2}, {3,4,6}).
fn library(server: &Server, dir: &Tmp) -> (String, String) {
    let thumb = |b: &[u8], ctype: &str| json!({"b64": base64(b), "ctype": ctype});
    let big: Vec<u8> = PNG
        .iter()
        .copied()
        .chain(std::iter::repeat_n(0, 600 << 10))
        .collect();
    let docs = json!([
        {"title": format!("{HOSTILE} one"), "content": "a b c", "thumb": thumb(WEBP, "image/webp")},
        {"title": "two", "content": "a b d", "thumb": thumb(PNG, "image/webp")},
        {"title": "three", "content": "x y z"},
        {"title": "four", "content": "x y w", "thumb": thumb(b"<html><script>alert(1)</script>", "text/html")},
        {"title": "five", "content": "q", "thumb": thumb(WEBP, "image/webp")},
        {"title": "six", "content": "x y v", "thumb": thumb(&big, "image/png")},
    ]);
    assert_eq!(server.add(docs.clone()), vec![1, 2, 3, 4, 5, 6]);
    let lines: String = docs
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            format!(
                "{}\n",
                json!({"id": i + 1, "title": d["title"], "content": d["content"], "modified": "2026-01-01T00:00:00Z"})
            )
        })
        .collect();
    let groups = "{\"group\":1,\"confidence\":0.9,\"jaccard\":0.8,\"fuzzy\":0.9,\"pair\":[1,2],\"primary\":1,\"members\":[1,2]}\n\
                  {\"group\":2,\"confidence\":0.8,\"jaccard\":0.7,\"fuzzy\":0.9,\"pair\":[3,4],\"primary\":3,\"members\":[3,4,6]}\n";
    (
        write(&dir.0, "docs.ndjson", lines.as_bytes())
            .display()
            .to_string(),
        write(&dir.0, "groups.ndjson", groups.as_bytes())
            .display()
            .to_string(),
    )
}

/// pl-report with the server's address and the token in the environment, never in argv.
fn report(server: &Server, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("PAPERLESS_URL", server.url())
        .env("PAPERLESS_TOKEN", TOKEN);
    c
}

/// One GET to 127.0.0.1:`port`: status, head and body as bytes.
fn get(port: u16, path: &str) -> (u16, String, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").unwrap();
    let mut r = Vec::new();
    s.read_to_end(&mut r).unwrap();
    let split = r.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&r[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, r[split + 4..].to_vec())
}

/// The thumbnail requests the server saw, by document.
fn thumb_requests(server: &Server, id: u64) -> usize {
    let path = format!("/api/documents/{id}/thumb/");
    server
        .log()
        .iter()
        .filter(|r| r["path"].as_str() == Some(path.as_str()))
        .count()
}

fn data_of(page: &str) -> Value {
    let start = page.find("id=\"pl-data\">").unwrap() + "id=\"pl-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

#[test]
fn serve_fetches_the_groups_page_images_and_keeps_the_token() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("report-thumbs-serve");
    let (docs, groups) = library(&server, &dir);
    let decisions = dir.path("decisions.ndjson");
    let mut child = report(&server, &[&groups, "--docs", &docs, "--thumbs", "--serve"])
        .arg("--decisions")
        .arg(&decisions)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let port = served_port(&mut child);
    let mut answers = Vec::new();
    let (s, head, page) = get(port, "/");
    assert_eq!(s, 200);
    let page = String::from_utf8(page).unwrap();
    assert!(head.contains("img-src 'self' data:") || page.contains("img-src 'self' data:"));
    let data = data_of(&page);
    assert_eq!(data["meta"]["pages"], "served");
    // Links go to the server's documents (no --paperless-url given).
    assert_eq!(
        data["docs"]["2"]["url"],
        format!("{}/documents/2/details", server.url())
    );
    answers.push(page.into_bytes());
    // A WebP, and a PNG Paperless labelled WebP: each served with the type its bytes have.
    for (id, want, ctype) in [(1, WEBP, "image/webp"), (2, PNG, "image/png")] {
        let (s, head, body) = get(port, &format!("/thumb/{id}"));
        assert_eq!(s, 200, "{head}");
        assert!(
            head.contains(&format!("Content-Type: {ctype}\r\n")),
            "{head}"
        );
        assert!(head.contains("X-Content-Type-Options: nosniff"), "{head}");
        assert_eq!(body, want);
        answers.push(head.into_bytes());
    }
    // Cached: asked again, not fetched again.
    assert_eq!(get(port, "/thumb/1").2, WEBP);
    assert_eq!(thumb_requests(&server, 1), 1);
    // What has no image says why, as text.
    for (id, why) in [
        (3, "page image unavailable: not found (HTTP 404)"),
        (4, "page image unavailable: not an image (text/html)"),
        (6, "page image unavailable: over 512 KiB"),
    ] {
        let (s, head, body) = get(port, &format!("/thumb/{id}"));
        assert_eq!(
            (s, String::from_utf8_lossy(&body).trim()),
            (404, why),
            "{head}"
        );
        assert!(head.contains("Content-Type: text/plain"), "{head}");
        answers.push(body);
    }
    // No open proxy: a document outside the groups, or anything but an id, is not fetched.
    server.clear_log();
    assert_eq!(get(port, "/thumb/5").0, 403);
    for p in ["/thumb/05", "/thumb/1/../5", "/thumb/-1", "/thumb/"] {
        assert_eq!(get(port, p).0, 404, "{p}");
    }
    assert_eq!(server.log().len(), 0, "{:?}", server.log());
    // A server answering with the token (an echo) cannot pass it on.
    server.ctl(
        json!({"action": "fault", "kind": "echo", "status": 200, "ctype": "image/png",
                      "path": "/api/documents/2/thumb/"}),
    );
    let _ = child.kill();
    let _ = child.wait();
    let mut child = report(&server, &[&groups, "--docs", &docs, "--thumbs", "--serve"])
        .arg("--decisions")
        .arg(&decisions)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let port = served_port(&mut child);
    let (s, head, body) = get(port, "/thumb/2");
    assert_eq!(
        (s, String::from_utf8_lossy(&body).trim()),
        (
            404,
            "page image unavailable: the bytes are not a WebP, PNG or JPEG image"
        )
    );
    answers.push(head.into_bytes());
    let _ = child.kill();
    let _ = child.wait();
    for a in &answers {
        assert!(
            !a.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
            "the token in an answer"
        );
    }
}

#[test]
fn a_file_page_embeds_page_images_only_with_thumbs() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("report-thumbs-file");
    let (docs, groups) = library(&server, &dir);
    // Without --thumbs: no image, and Paperless is not asked.
    let out = report(&server, &[&groups, "--docs", &docs])
        .output()
        .unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(data_of(&page).get("pages").is_none());
    assert!(!page.contains("data:image/"));
    assert_eq!(server.log().len(), 0);
    // Document 2's thumbnail comes late: a timeout is one more image unavailable.
    server.ctl(json!({"action": "fault", "kind": "delay", "seconds": 3,
                      "path": "/api/documents/2/thumb/"}));
    let file = dir.path("report.html");
    let out: Output = report(&server, &[&groups, "--docs", &docs, "--thumbs"])
        .args(["--timeout", "1", "--retries", "0", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("4 of 5 page images unavailable"),
        "{}",
        stderr(&out)
    );
    let page = std::fs::read_to_string(&file).unwrap();
    let data = data_of(&page);
    assert_eq!(data["meta"]["pages"], "embedded");
    let pages = &data["pages"];
    assert_eq!(
        pages["1"]["src"],
        format!("data:image/webp;base64,{}", base64(WEBP))
    );
    assert!(
        pages["2"]["missing"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{pages}"
    );
    assert_eq!(pages["3"]["missing"], "not found (HTTP 404)");
    assert_eq!(pages["4"]["missing"], "not an image (text/html)");
    assert_eq!(pages["6"]["missing"], "over 512 KiB");
    assert!(pages.get("5").is_none(), "only the groups' documents");
    assert_eq!(thumb_requests(&server, 5), 0);
    // The CSP lets the page show data: images only, and the title stays inside the JSON.
    assert!(page.contains("img-src data:;"));
    assert!(!page.contains("<img"));
    assert_no_token(&out, &dir, TOKEN);
}

#[test]
fn thumbs_need_a_server_and_a_token_that_works() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("report-thumbs-errors");
    let (docs, groups) = library(&server, &dir);
    let out = Command::new(BIN)
        .args([&groups, "--docs", &docs, "--thumbs"])
        .env_remove("PAPERLESS_URL")
        .output()
        .unwrap();
    fails(
        out,
        2,
        "pl-report",
        &["--thumbs needs the Paperless server"],
    );
    // A token the server refuses stops the run: every image would be missing.
    let bad = "wrongtoken0123456789abcdef0123456789abcd";
    let out = report(&server, &[&groups, "--docs", &docs, "--thumbs"])
        .env("PAPERLESS_TOKEN", bad)
        .output()
        .unwrap();
    let err = fails(out, 1, "pl-report", &["document 1", "refused the token"]);
    assert!(!err.contains(bad));
}

#[test]
fn a_slow_paperless_holds_at_most_eight_image_requests() {
    let server = Server::start(TOKEN);
    let dir = Tmp::new("report-thumbs-slow");
    let (docs, groups) = library(&server, &dir);
    // The first thumbnail asked for takes 3 s; the requests after it wait in line.
    server.ctl(json!({"action": "fault", "kind": "delay", "seconds": 3,
                      "path": "/api/documents/1/thumb/"}));
    let mut child = report(&server, &[&groups, "--docs", &docs, "--thumbs", "--serve"])
        .arg("--decisions")
        .arg(dir.path("decisions.ndjson"))
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let port = served_port(&mut child);
    let asks: Vec<_> = (0..12)
        .map(|_| std::thread::spawn(move || get(port, "/thumb/1").0))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Meanwhile the decisions are answered at once.
    let start = std::time::Instant::now();
    assert_eq!(get(port, "/decisions").0, 200);
    assert!(start.elapsed() < std::time::Duration::from_secs(1));
    let mut statuses: Vec<u16> = asks.into_iter().map(|t| t.join().unwrap()).collect();
    statuses.sort_unstable();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(statuses, [[200; 8].as_slice(), &[503; 4]].concat());
}
