//! Helpers shared by the integration tests: the real binaries, temp dirs, small corpora.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Path of a tool built by cargo for this test run.
pub fn bin(tool: &str) -> PathBuf {
    let p = match tool {
        "pl-normalize" => env!("CARGO_BIN_EXE_pl-normalize"),
        "pl-shingle" => env!("CARGO_BIN_EXE_pl-shingle"),
        "pl-minhash" => env!("CARGO_BIN_EXE_pl-minhash"),
        "pl-lsh" => env!("CARGO_BIN_EXE_pl-lsh"),
        "pl-score" => env!("CARGO_BIN_EXE_pl-score"),
        "pl-cluster" => env!("CARGO_BIN_EXE_pl-cluster"),
        "pl-cat" => env!("CARGO_BIN_EXE_pl-cat"),
        "pl-apply" => env!("CARGO_BIN_EXE_pl-apply"),
        "pl-eval" => env!("CARGO_BIN_EXE_pl-eval"),
        "pl-fetch" => env!("CARGO_BIN_EXE_pl-fetch"),
        "pl-report" => env!("CARGO_BIN_EXE_pl-report"),
        "pl-trigram" => env!("CARGO_BIN_EXE_pl-trigram"),
        "pl-index" => env!("CARGO_BIN_EXE_pl-index"),
        "pl-check" => env!("CARGO_BIN_EXE_pl-check"),
        "pl-watch" => env!("CARGO_BIN_EXE_pl-watch"),
        "pl-dedupe" => env!("CARGO_BIN_EXE_pl-dedupe"),
        other => panic!("unknown tool {other}"),
    };
    PathBuf::from(p)
}

/// The directory holding the binaries (for shell pipes and `make BIN=`).
pub fn bin_dir() -> PathBuf {
    bin("pl-cat").parent().unwrap().to_path_buf()
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs a tool with arguments and stdin bytes; times out after 60 s (a hang is a failure).
pub fn run(tool: &str, args: &[&str], stdin: &[u8]) -> Output {
    run_in(None, tool, args, stdin)
}

/// Like [`run`], in a working directory.
pub fn run_in(dir: Option<&Path>, tool: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = assert_cmd::Command::new(bin(tool));
    cmd.args(args)
        .write_stdin(stdin.to_vec())
        .timeout(Duration::from_secs(60));
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.output().expect("tool runs")
}

/// Runs a shell command line (bash, pipefail) with the binaries on PATH.
pub fn sh(dir: &Path, script: &str) -> Output {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    out
}

/// Asserts success and returns stdout, printing stderr on failure.
pub fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "failed with {:?}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Asserts a clean failure: the given exit code, one line on stderr prefixed by the tool,
/// mentioning every needle. Returns stderr.
pub fn fails(out: Output, code: i32, tool: &str, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "exit status; stderr:\n{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected:\n{err}"
    );
    assert!(err.starts_with(&format!("{tool}: ")), "prefix: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    err
}

/// A small deterministic corpus: `n` unrelated documents from a fixed vocabulary, and for
/// every fifth one a rescan-like copy (a misread letter, a split word) with id 1000 + i.
///
/// Rescans take the ids 1000 + i, or 10·n + i when n reaches 1000, so that no id repeats.
pub fn small_corpus(n: u64) -> String {
    let copy_base = if n < 1000 { 1000 } else { 10 * n };
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z ^ (z >> 27)
    };
    let mut out = String::new();
    let mut copies = Vec::new();
    for id in 1..=n {
        let words: Vec<String> = (0..120).map(|_| format!("w{}", next() % 3000)).collect();
        if id % 5 == 0 {
            let mut c = words.clone();
            // OCR-like damage: a misread letter and a split word.
            c[10] = c[10].replace('w', "vv");
            let w = c[60].clone();
            c[60] = format!("{} {}", &w[..2], &w[2..]);
            copies.push((copy_base + id, c.join(" ")));
        }
        out += &doc_line(id, &words.join(" "), "2024-01-01T00:00:00Z");
    }
    for (id, text) in copies {
        out += &doc_line(id, &text, "2024-02-01T00:00:00Z");
    }
    out
}

fn doc_line(id: u64, content: &str, added: &str) -> String {
    let v = serde_json::json!({"id": id, "title": format!("doc {id}"), "content": content, "added": added});
    format!("{v}\n")
}

/// The docs lines `lines` written to `dir/docs.ndjson` and indexed by pl-index into
/// `dir/index`, whose path is returned (the hook's and pl-watch's tests start from one).
pub fn index_docs(dir: &Path, lines: &str) -> PathBuf {
    // Owned, as pl-fetch would record them, by the fake server's user (1), who owns what it
    // adds: the index matches one owner's documents only.
    let owned: String = lines
        .lines()
        .map(|l| {
            let mut d: serde_json::Value = serde_json::from_str(l).unwrap();
            if d.get("owner").is_none() {
                d["owner"] = 1.into();
            }
            format!("{d}\n")
        })
        .collect();
    let docs_path = dir.join("docs.ndjson");
    std::fs::write(&docs_path, owned).unwrap();
    let ix = dir.join("index");
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
    ix
}

/// The ids the index in `ix` holds, read from its database.
pub fn indexed_ids(ix: &Path) -> Vec<u64> {
    let db = rusqlite::Connection::open_with_flags(
        ix.join("index.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let mut st = db.prepare("SELECT id FROM docs ORDER BY id").unwrap();
    let ids = st.query_map([], |r| r.get::<_, i64>(0)).unwrap();
    ids.map(|i| i.unwrap() as u64).collect()
}

/// Writes a file in a directory and returns its path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

/// The pair `(a, b)` of a candidate or score record.
pub fn pair_of(r: &serde_json::Value) -> (u64, u64) {
    (r["a"].as_u64().unwrap(), r["b"].as_u64().unwrap())
}

/// Parses NDJSON into values.
pub fn ndjson(bytes: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `make install` (or uninstall) with PREFIX and DESTDIR, the test's binaries, and no build.
pub fn make_install(target: &str, prefix: &Path, destdir: Option<&Path>) -> std::process::Output {
    let mut cmd = Command::new("make");
    cmd.arg("-C")
        .arg(repo())
        .arg(target)
        .arg(format!("PREFIX={}", prefix.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true");
    if let Some(d) = destdir {
        cmd.arg(format!("DESTDIR={}", d.display()));
    }
    cmd.output().unwrap()
}

/// Runs a bash script with only the installed tools (and the system's) on PATH.
pub fn with_installed(prefix: &Path, dir: &Path, script: &str) -> std::process::Output {
    installed_shell(prefix, dir, script).output().unwrap()
}

/// The command [`with_installed`] runs, to add to its environment.
pub fn installed_shell(prefix: &Path, dir: &Path, script: &str) -> Command {
    let mut cmd = Command::new("bash");
    cmd.args(["-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env(
            "PATH",
            format!("{}/bin:/usr/local/bin:/usr/bin:/bin", prefix.display()),
        )
        .env_remove("PAPERLESS_URL")
        .env_remove("PAPERLESS_TOKEN")
        .env("HOME", dir)
        .stdin(std::process::Stdio::null());
    cmd
}

/// A user's folder outside the clone: the example corpus as `docs.ndjson`, and `examples/`
/// (corpus and truth) beside it, as the README's commands expect.
pub fn user_home(home: &Path) {
    std::fs::create_dir_all(home.join("examples")).unwrap();
    for f in ["docs.ndjson", "truth.ndjson"] {
        std::fs::copy(
            repo().join("examples").join(f),
            home.join("examples").join(f),
        )
        .unwrap();
    }
    std::fs::copy(
        repo().join("examples/docs.ndjson"),
        home.join("docs.ndjson"),
    )
    .unwrap();
}

/// The port a `--serve` child prints on its first stderr line (`http://127.0.0.1:PORT/`).
pub fn served_port(child: &mut std::process::Child) -> u16 {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().expect("stderr piped"))
        .read_line(&mut line)
        .unwrap();
    line.split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("--serve printed no address: {line:?}"))
}

/// One HTTP/1.1 exchange with 127.0.0.1:`port`: the status (0 when none) and the body.
pub fn http(port: u16, request: &str) -> (u16, String) {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut r = String::new();
    s.read_to_string(&mut r).unwrap();
    let status = r
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = r.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
    (status, body)
}

/// `make groups` (the default pipeline) on a docs file's text, its groups.
pub fn make_groups(docs: &str) -> Vec<serde_json::Value> {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", docs.as_bytes());
    let out = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(repo())
        .arg("groups")
        .arg(format!("WORK={}", d.path().join("work").display()))
        .arg(format!("DOCS={}", d.path().join("docs.ndjson").display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .env_remove("PAPERLESS_URL")
        .output()
        .unwrap();
    ok(out);
    ndjson(&std::fs::read(d.path().join("work/groups.ndjson")).unwrap())
}

/// `pl-index` on a docs file's text in a new index, its groups.
pub fn index_groups(docs: &str) -> Vec<serde_json::Value> {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", docs.as_bytes());
    ndjson(&ok(sh(
        d.path(),
        "pl-index -q --index ix docs.ndjson -o /dev/stdout",
    )))
}

/// The kept pairs of pl-score's records (not those held apart).
pub fn kept_pairs(records: &[serde_json::Value]) -> std::collections::BTreeSet<(u64, u64)> {
    records
        .iter()
        .filter(|r| r.get("apart").is_none())
        .map(pair_of)
        .collect()
}

/// The members of every group record.
pub fn group_members(groups: &[serde_json::Value]) -> Vec<Vec<u64>> {
    groups
        .iter()
        .map(|g| {
            let m = g["members"].as_array().unwrap();
            m.iter().map(|m| m.as_u64().unwrap()).collect()
        })
        .collect()
}
