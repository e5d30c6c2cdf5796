//! Every shell block of README.md and docs/*.md, run as written (issue 34): after `make
//! install` into a temporary PREFIX, with only the installed tools on PATH, in a fresh folder
//! per file, the blocks of one file in their order. Paperless is the test server on
//! 127.0.0.1 holding the example corpus; the review page's `--serve` is answered as the page
//! would. A block that cannot run here says why on the line before its fence:
//!
//! ```text
//! <!-- docs-test: skip: the reason -->
//! ```
//!
//! Only the placeholders the docs use for what a user fills in are replaced
//! ([`PLACEHOLDERS`]): the Paperless address, the token, the password and `/dedupe/`.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use serde_json::Value;

use crate::server::{stderr, Server};
use crate::util::*;

const TOKEN: &str = "docs-test-token";
const MARK: &str = "<!-- docs-test: skip: ";

/// The documents checked, in the order a reader meets them: README.md, then every docs/*.md
/// (a test below fails when a page of docs/ is missing here).
const FILES: [&str; 16] = [
    "README.md",
    "docs/PAPERLESS.md",
    "docs/REVIEW.md",
    "docs/USAGE.md",
    "docs/PIPELINE.md",
    "docs/VERDICT.md",
    "docs/TUNING.md",
    "docs/INDEX.md",
    "docs/RESULTS.md",
    "docs/QUALITY.md",
    "docs/SPEED.md",
    "docs/METHODS.md",
    "docs/SCALE.md",
    "docs/FORMATS.md",
    "docs/DEVELOPMENT.md",
    "ARCHITECTURE.md",
];

/// What a newcomer reads to the end (issue 60): the rest lives in docs/.
const README_MAX_LINES: usize = 250;

/// One fenced block of shell.
#[derive(Debug)]
struct Block {
    file: &'static str,
    /// The line of its opening fence.
    line: usize,
    text: String,
    /// Why it is not run, from the marker before it.
    skip: Option<String>,
}

/// The shell blocks (```sh, ```bash, ```shell) of a file; a marker that is not right before
/// one, or says no reason, is an error.
fn blocks(file: &'static str) -> Vec<Block> {
    let md = std::fs::read_to_string(repo().join(file)).unwrap();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    let mut in_other = false;
    let mut prev = "";
    for (i, line) in md.lines().enumerate() {
        if let Some(b) = open.as_mut() {
            if line.starts_with("```") {
                out.push(open.take().unwrap());
            } else {
                b.text.push_str(line);
                b.text.push('\n');
            }
        } else if in_other {
            in_other = !line.starts_with("```");
        } else if let Some(lang) = line.strip_prefix("```") {
            let skip = prev.strip_prefix(MARK).map(|r| {
                let reason = r
                    .strip_suffix(" -->")
                    .unwrap_or_else(|| panic!("{file}:{i}: a docs-test marker ends with \" -->\""));
                assert!(
                    !reason.trim().is_empty(),
                    "{file}:{i}: a skip says no reason"
                );
                reason.to_owned()
            });
            if ["sh", "bash", "shell"].contains(&lang) {
                open = Some(Block {
                    file,
                    line: i + 1,
                    text: String::new(),
                    skip,
                });
            } else {
                assert!(
                    skip.is_none(),
                    "{file}:{i}: a docs-test marker before a {lang:?} block"
                );
                in_other = true;
            }
        } else {
            assert!(
                !prev.starts_with(MARK),
                "{file}:{i}: a docs-test marker not followed by a fence"
            );
        }
        prev = line;
    }
    assert!(open.is_none(), "{file}: a block is never closed");
    out
}

/// What the docs leave to the user, filled in for the test: (as written, as run).
const PLACEHOLDERS: [(&str, &str); 4] = [
    ("https://paperless.example.org", "{url}"),
    ("PAPERLESS_TOKEN=...", "PAPERLESS_TOKEN={token}"),
    ("\"password\": \"...\"", "\"password\": \"test-password\""),
    (" /dedupe/", " {home}/dedupe/"),
];

fn filled(text: &str, url: &str, home: &Path) -> String {
    let mut t = text.to_owned();
    for (from, to) in PLACEHOLDERS {
        let to = to
            .replace("{url}", url)
            .replace("{token}", TOKEN)
            .replace("{home}", &home.display().to_string());
        t = t.replace(from, &to);
    }
    t
}

#[test]
fn every_shell_block_is_run_or_says_why_not() {
    let all: Vec<Block> = FILES.iter().flat_map(|f| blocks(f)).collect();
    let run = all.iter().filter(|b| b.skip.is_none()).count();
    assert!(all.len() >= 20 && run >= 13, "{all:#?}");
    // The parser sees a marker and refuses one that lost its block.
    let skipped: Vec<&Block> = all.iter().filter(|b| b.skip.is_some()).collect();
    assert!(
        skipped.iter().any(|b| b.text.contains("make demo")),
        "{skipped:#?}"
    );
}

#[test]
fn every_page_of_docs_is_checked() {
    let mut pages: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    let missing: Vec<&String> = pages
        .iter()
        .filter(|p| !FILES.contains(&p.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "not in FILES, so never run: {missing:?}"
    );
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(
        n <= README_MAX_LINES,
        "README.md has {n} lines, at most {README_MAX_LINES}: move the detail into docs/"
    );
    let first = &blocks("README.md")[0];
    assert_eq!(
        first
            .text
            .lines()
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>(),
        ["make demo", "make test"],
        "{first:#?}"
    );
    assert!(
        first.line < 10,
        "the two commands open the README: {first:#?}"
    );
}

/// A folder of the user's: the example corpus as docs.ndjson, examples/ beside it, a token
/// file, two notes under ~/notes, an empty /dedupe.
fn home_for(root: &Path, file: &str) -> PathBuf {
    let home = root.join(file.replace(['/', '.'], "-"));
    user_home(&home);
    for d in ["notes/2026", "dedupe"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    std::fs::write(home.join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(
        home.join("notes/todo.md"),
        "# To do\nPay the invoice 4711.\n",
    )
    .unwrap();
    std::fs::write(
        home.join("notes/2026/letter.txt"),
        "Dear Sir,\nthank you.\n",
    )
    .unwrap();
    home
}

/// A browser for `xdg-open`: it checks that it was given a page and says so on stdout.
fn fake_opener(root: &Path) -> PathBuf {
    let dir = root.join("opener");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("xdg-open");
    std::fs::write(
        &script,
        "#!/bin/sh\ngrep -q '<!DOCTYPE html>' \"$1\" && echo \"opened $1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// A `pl-report --serve` started by a block: killed on drop, so a failing test leaves none.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs a `--serve` block as a reviewer uses it: waits for the address it prints, opens the
/// page, decides every group "duplicate" as the page's buttons do, and stops it.
fn review(mut cmd: std::process::Command, home: &Path) {
    let mut child = Serving(cmd.stderr(Stdio::piped()).spawn().unwrap());
    let port = served_port(&mut child.0);
    let host = format!("Host: 127.0.0.1:{port}");
    let (s, page) = http(port, &format!("GET / HTTP/1.1\r\n{host}\r\n\r\n"));
    assert!(s == 200 && page.contains("<!DOCTYPE html>"), "{s}");
    let groups = ndjson(&std::fs::read(home.join("work/groups.ndjson")).unwrap());
    assert!(!groups.is_empty());
    let body: String = groups
        .iter()
        .map(|g| {
            format!(
                "{}\n",
                serde_json::json!({"group": g["group"], "decision": "duplicate",
                    "primary": g["primary"], "members": g["members"],
                    "decided_at": "2026-11-26T10:00:00.000Z"})
            )
        })
        .collect();
    let (s, saved) = http(
        port,
        &format!(
            "PUT /decisions HTTP/1.1\r\n{host}\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert_eq!((s, saved), (200, format!("{{\"saved\":{}}}", groups.len())));
}

/// The documents the test server holds, by id ascending.
fn library(server: &Server) -> Vec<Value> {
    let (s, v) = server.http("GET", "/api/documents/?page_size=100000", None, true);
    assert_eq!(s, 200);
    let mut docs = v["results"].as_array().unwrap().clone();
    docs.sort_by_key(|d| d["id"].as_u64());
    docs
}

#[test]
fn every_documented_command_runs_as_written_after_make_install() {
    let d = tempfile::tempdir().unwrap();
    let prefix = d.path().join("prefix");
    ok(make_install("install", &prefix, None));
    let opener = fake_opener(d.path());
    let server = Server::start(TOKEN);
    let corpus: Vec<Value> = ndjson(&std::fs::read(repo().join("examples/docs.ndjson")).unwrap());
    let ids = server.add(Value::Array(corpus.clone()));
    let want: Vec<u64> = corpus.iter().map(|d| d["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, want, "the server numbers the corpus as its ids");
    let path = format!(
        "{}/bin:{}:/usr/local/bin:/usr/bin:/bin",
        prefix.display(),
        opener.display()
    );
    let mut ran = 0;
    for file in FILES {
        let home = home_for(d.path(), file);
        // Exports of one block hold for the next, as in the reader's shell.
        let mut exports = String::new();
        for b in blocks(file) {
            if b.skip.is_some() {
                continue;
            }
            let text = filled(&b.text, &server.url(), &home);
            // As a reader's shell runs it: each command must succeed, a pipe as its last stage.
            let script = format!("set -e +o pipefail\n{exports}{text}");
            let mut cmd = installed_shell(&prefix, &home, &script);
            cmd.env("PATH", &path);
            if text.contains("--serve") {
                review(cmd, &home);
            } else {
                let out = cmd.output().unwrap();
                assert!(
                    out.status.success(),
                    "{}:{} failed:\n{text}\n{}",
                    b.file,
                    b.line,
                    stderr(&out)
                );
            }
            ran += 1;
            exports.extend(
                text.lines()
                    .filter(|l| l.starts_with("export "))
                    .map(|l| format!("{l}\n")),
            );
        }
        after(file, &home, &server);
    }
    assert!(ran >= 13, "{ran} blocks ran");
}

/// What the blocks of a file must have done, beyond exiting 0.
fn after(file: &str, home: &Path, server: &Server) {
    let lines = |p: &str| {
        std::fs::read_to_string(home.join(p))
            .unwrap_or_else(|e| panic!("{file}: {p}: {e}"))
            .lines()
            .count()
    };
    match file {
        "README.md" => {
            // Fetched from the server, reviewed (every group decided), planned.
            assert_eq!(lines("work/docs.ndjson"), 320);
            assert!(home.join("work/report.html").is_file());
            assert!(lines("work/decisions.ndjson") > 10);
        }
        "docs/PIPELINE.md" => assert!(lines("groups.ndjson") > 10),
        "docs/INDEX.md" => {
            assert!(home.join("ix").is_dir() && lines("check.ndjson") == 320);
        }
        "docs/PAPERLESS.md" => {
            // The fetched library, then the notes read from the folder.
            assert_eq!(lines("docs.ndjson"), 320);
            assert!(home.join("dedupe/index").is_dir());
            assert_eq!(lines("work/docs.ndjson"), 2);
        }
        "docs/REVIEW.md" => {
            // Tagged, noted, trashed, and undone: nothing in the trash, no tag left.
            assert!(home.join("work/report.html").is_file());
            let (s, trash) = server.http("GET", "/api/trash/", None, true);
            assert_eq!((s, trash["count"].as_u64()), (200, Some(0)), "{trash}");
            let (s, tags) = server.http("GET", "/api/tags/?page_size=1000", None, true);
            assert_eq!(s, 200);
            let names: Vec<&str> = tags["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|t| t["name"].as_str())
                .collect();
            assert!(!names.contains(&"duplicate"), "{names:?}");
            let corpus = ndjson(&std::fs::read(home.join("docs.ndjson")).unwrap());
            let docs = library(server);
            assert_eq!(docs.len(), corpus.len());
            for (d, c) in docs.iter().zip(&corpus) {
                assert_eq!(
                    d["tags"].as_array().unwrap().len(),
                    c["tags"].as_array().unwrap().len(),
                    "{d}\n{c}"
                );
            }
            // Each op of the apply (tag, note, trash) was journaled and undone, its notes too.
            let journal =
                ndjson(&std::fs::read(home.join("work/decisions.ndjson.journal.ndjson")).unwrap());
            for op in ["tag", "note", "trash", "untag", "unnote", "restore"] {
                assert!(
                    journal.iter().any(|r| r["op"] == op),
                    "no {op} in the journal"
                );
            }
            assert!(docs
                .iter()
                .all(|d| d["notes"].as_array().unwrap().is_empty()));
        }
        _ => {}
    }
}
