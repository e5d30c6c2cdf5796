//! When the index is believed: a first build that did not finish, rows changed outside
//! pl-index (refused, found by --verify, built again by a full run), readers and --verify racing
//! a writer, one limit of a document's size for the index and the pipeline.

use std::path::Path;

use crate::util::{fails, ok, run, sh, small_corpus, write};

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Copies the index folder `from` to `to` (the database and its WAL files).
fn copy_index(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_partial_run_never_marks_an_unfinished_first_build_built() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(20).as_bytes());
    let ix = d.path().join("ix");
    let (ixs, dbs) = (path(&ix), path(&ix.join("index.sqlite")));
    // --partial adds to a built index: none here, nothing made.
    let out = run(
        "pl-index",
        &["--index", &ixs, "--partial", "/dev/null"],
        b"",
    );
    fails(out, 1, "pl-index", &[&ixs, "no index here"]);
    assert!(!ix.exists());
    // A first build that stopped (here at a bad record) is not completed by a --partial run.
    let bad = write(
        d.path(),
        "bad.ndjson",
        b"{\"id\":1,\"content\":\"a\"}\nnot json\n",
    );
    fails(
        run("pl-index", &["--index", &ixs, &path(&bad)], b""),
        1,
        "pl-index",
        &["bad.ndjson", "line 2"],
    );
    for input in ["/dev/null", docs.to_str().unwrap()] {
        let out = run("pl-index", &["--index", &ixs, "--partial", input], b"");
        fails(
            out,
            1,
            "pl-index",
            &[&dbs, "first build did not finish", "not --partial"],
        );
    }
    let one = small_corpus(20).lines().next().unwrap().to_owned();
    let out = run("pl-check", &["--index", &ixs], one.as_bytes());
    fails(out, 1, "pl-check", &[&dbs, "first build did not finish"]);
    // The full run builds it; then --partial adds.
    ok(run("pl-index", &["--index", &ixs, &path(&docs), "-q"], b""));
    ok(run(
        "pl-index",
        &["--index", &ixs, "--partial", "/dev/null"],
        b"",
    ));
}

/// One damage of a table: `(table, how, sql)`: a row deleted, a row duplicated (under
/// another key), a row's values copied over another's.
fn damages() -> Vec<(&'static str, &'static str, String)> {
    let mut out = Vec::new();
    // The tables, their key and other columns.
    let tables: [(&str, &[&str], &[&str]); 9] = [
        (
            "docs",
            &["id"],
            &[
                "src", "fp", "size", "sig", "banded", "added", "richness", "line",
            ],
        ),
        ("bands", &["key", "slot", "id"], &[]),
        ("words", &["hash"], &["n"]),
        ("tokens", &["hash"], &["n"]),
        ("few", &["hash", "id"], &[]),
        (
            "pairs",
            &["a", "b"],
            &["score", "jaccard", "fuzzy", "copy", "rec"],
        ),
        ("apart", &["a", "b"], &[]),
        ("groups", &["first"], &["confidence", "rec"]),
        ("members", &["id"], &["first"]),
    ];
    for (t, key, rest) in tables {
        let k = key.join(", ");
        let all: Vec<&str> = key.iter().chain(rest.iter()).copied().collect();
        let cols = all.join(", ");
        // The first and the last row by key.
        let first = format!("({k}) = (SELECT {k} FROM {t} ORDER BY {k} LIMIT 1)");
        let last = format!("({k}) = (SELECT {k} FROM {t} ORDER BY {k} DESC LIMIT 1)");
        out.push((t, "delete", format!("DELETE FROM {t} WHERE {first}")));
        // Duplicated: the same values under a key no row has (the last key column + 2^40).
        let shifted: Vec<String> = all
            .iter()
            .map(|c| {
                if *c == key[key.len() - 1] {
                    format!("{c} + 1099511627776")
                } else {
                    (*c).to_owned()
                }
            })
            .collect();
        out.push((
            t,
            "duplicate",
            format!(
                "INSERT INTO {t}({cols}) SELECT {} FROM {t} WHERE {first}",
                shifted.join(", ")
            ),
        ));
        // Copied over: the first row takes the last one's values (for a table that is all key,
        // its key but the last column: the row moves to the last row's bucket or word).
        let over: &[&str] = if rest.is_empty() {
            &key[..key.len() - 1]
        } else {
            rest
        };
        let set = over.join(", ");
        out.push((
            t,
            "copy",
            format!(
                "UPDATE OR REPLACE {t} SET ({set}) = (SELECT {set} FROM {t} WHERE {last}) WHERE {first}"
            ),
        ));
    }
    out
}

#[test]
fn damaged_rows_are_refused_found_and_built_again_never_believed() {
    let d = tempfile::tempdir().unwrap();
    let corpus = small_corpus(60);
    let docs = write(d.path(), "docs.ndjson", corpus.as_bytes());
    let built = d.path().join("built");
    let want = ok(run(
        "pl-index",
        &["--index", &path(&built), &path(&docs), "-q"],
        b"",
    ));
    assert!(!want.is_empty());
    let check = |ix: &Path| run("pl-check", &["--index", &path(ix), "-q", &path(&docs)], b"");
    let clean = check(&built);
    assert_eq!(clean.status.code(), Some(3));
    let verified = run("pl-index", &["--index", &path(&built), "--verify"], b"");
    ok(verified);
    let mut damages = damages();
    assert_eq!(damages.len(), 27);
    // A table with no row here (no pair is held apart) gets one instead.
    let conn = rusqlite::Connection::open(built.join("index.sqlite")).unwrap();
    let rows = |t: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
            .unwrap()
    };
    damages.retain(|(t, _, _)| rows(t) > 0);
    assert!(damages.len() >= 24, "{}", damages.len());
    if rows("apart") == 0 {
        let insert = "INSERT INTO apart VALUES(5, 1005)".to_owned();
        damages.push(("apart", "insert", insert));
    }
    drop(conn);
    for (i, (table, how, damage)) in damages.into_iter().enumerate() {
        let ix = d.path().join(format!("damaged{i}"));
        copy_index(&built, &ix);
        let db = ix.join("index.sqlite");
        let conn = rusqlite::Connection::open(&db).unwrap();
        let changed = conn.execute(&damage, []).unwrap();
        assert_eq!(changed, 1, "{damage}");
        drop(conn);
        let what = format!("{table} {how}: {damage}");
        let named = format!("changed outside pl-index (table {table})");
        // Refused by every reader and writer that would believe it, the file as it was.
        let before = std::fs::read(&db).unwrap();
        let err = fails(check(&ix), 1, "pl-check", &[&path(&db), &named]);
        assert!(err.contains("with every document"), "{what}: {err}");
        let add = run(
            "pl-check",
            &["--index", &path(&ix), "--add", &path(&docs)],
            b"",
        );
        fails(add, 1, "pl-check", &[&named]);
        let partial = run("pl-index", &["--index", &path(&ix), "--partial"], b"");
        fails(partial, 1, "pl-index", &[&named]);
        assert!(std::fs::read(&db).unwrap() == before, "{what}");
        // --verify names the table changed (the tables that differ from a fresh build of the
        // stored documents are those the damage reaches: a deleted document's bands, …).
        let verify = run("pl-index", &["--index", &path(&ix), "--verify"], b"");
        fails(verify, 1, "pl-index", &[&named, "fresh build"]);
        // A full run builds it again: the clean index's groups and checks, trusted again.
        let out = run("pl-index", &["--index", &path(&ix), &path(&docs)], b"");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(err.contains("built again"), "{what}: {err}");
        assert_eq!(ok(out), want, "{what}");
        let again = check(&ix);
        assert_eq!(again.status.code(), Some(3), "{what}");
        assert_eq!(again.stdout, clean.stdout, "{what}");
        ok(run("pl-index", &["--index", &path(&ix), "--verify"], b""));
    }
}

#[test]
fn guards_removed_or_meta_changed_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(20).as_bytes());
    let built = d.path().join("built");
    let want = ok(run(
        "pl-index",
        &["--index", &path(&built), &path(&docs), "-q"],
        b"",
    ));
    // The guard dropped before the damage: the missing guard is seen, a full run rebuilds.
    let ix = d.path().join("unguarded");
    copy_index(&built, &ix);
    let conn = rusqlite::Connection::open(ix.join("index.sqlite")).unwrap();
    conn.execute_batch("DROP TRIGGER guard_words_delete; DELETE FROM words")
        .unwrap();
    drop(conn);
    let out = run("pl-check", &["--index", &path(&ix), &path(&docs)], b"");
    fails(out, 1, "pl-check", &["guard triggers were removed"]);
    assert_eq!(
        ok(run(
            "pl-index",
            &["--index", &path(&ix), &path(&docs), "-q"],
            b""
        )),
        want
    );
    // The parameters changed by hand: not built again in place (they cannot be trusted).
    let ix = d.path().join("meta");
    copy_index(&built, &ix);
    let conn = rusqlite::Connection::open(ix.join("index.sqlite")).unwrap();
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'docs'", [])
        .unwrap();
    drop(conn);
    for tool in ["pl-index", "pl-check"] {
        let out = run(tool, &["--index", &path(&ix), &path(&docs)], b"");
        fails(
            out,
            1,
            tool,
            &["table meta", "parameters cannot be trusted", "remove it"],
        );
    }
}

#[test]
fn verify_finds_what_no_guard_saw_and_passes_after_updates() {
    let d = tempfile::tempdir().unwrap();
    let lines: Vec<String> = small_corpus(60).lines().map(|l| format!("{l}\n")).collect();
    let ix = d.path().join("ix");
    // A series of updates: the index stays what a fresh build of its documents gives.
    let first = write(d.path(), "a.ndjson", lines[..50].concat().as_bytes());
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&first), "-q"],
        b"",
    ));
    let mut later = lines[5..].to_vec();
    later[3] = later[3].replace("w1", "w2");
    let second = write(d.path(), "b.ndjson", later.concat().as_bytes());
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&second), "-q"],
        b"",
    ));
    let add = write(d.path(), "c.ndjson", lines[2].as_bytes());
    let out = run(
        "pl-check",
        &["--index", &path(&ix), "--add", &path(&add)],
        b"",
    );
    assert!(matches!(out.status.code(), Some(0 | 3)), "{out:?}");
    let out = run("pl-index", &["--index", &path(&ix), "--verify"], b"");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("what a fresh build of its 68 documents gives"),
        "{err}"
    );
    ok(out);
    // A value changed where no trigger sees it (a disk's damage): found by --verify alone.
    let conn = rusqlite::Connection::open(ix.join("index.sqlite")).unwrap();
    let guard: String = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'guard_words_update'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute_batch(&format!(
        "DROP TRIGGER guard_words_update; UPDATE words SET n = n + 1 WHERE hash = (SELECT min(hash) FROM words); {guard}"
    ))
    .unwrap();
    drop(conn);
    let out = run("pl-index", &["--index", &path(&ix), "--verify"], b"");
    let err = fails(
        out,
        1,
        "pl-index",
        &["table words differs", "with every document"],
    );
    assert!(!err.contains("table docs"), "{err}");
}

/// An index of 60 documents in `d`, and a writer updating it again and again (the library
/// with and without its last documents, each run a transaction and a checkpoint into the
/// database file) until told to stop; it answers how many runs it made. Also the lines.
fn racing_writer(
    d: &Path,
) -> (
    std::path::PathBuf,
    Vec<String>,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<usize>,
) {
    let lines: Vec<String> = small_corpus(60).lines().map(|l| format!("{l}\n")).collect();
    let docs = write(d, "docs.ndjson", lines.concat().as_bytes());
    let ix = d.join("ix");
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&docs), "-q"],
        b"",
    ));
    let fewer = write(
        d,
        "fewer.ndjson",
        lines[..lines.len() - 6].concat().as_bytes(),
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (ix, docs, fewer, stop) = (path(&ix), path(&docs), path(&fewer), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let input = if n % 2 == 0 { &fewer } else { &docs };
                ok(run(
                    "pl-index",
                    &["--index", &ix, input, "-q", "-o", "/dev/null"],
                    b"",
                ));
                n += 1;
            }
            n
        })
    };
    (ix, lines, stop, writer)
}

#[test]
fn readers_racing_a_writer_read_a_healthy_index() {
    let d = tempfile::tempdir().unwrap();
    let (ix, lines, stop, writer) = racing_writer(d.path());
    let some = write(d.path(), "some.ndjson", lines[..8].concat().as_bytes());
    let mut reads = 0;
    while reads < 80 {
        let out = run(
            "pl-check",
            &["--index", &path(&ix), "-q", &path(&some)],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "read {reads}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        reads += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let writes = writer.join().unwrap();
    assert!(writes > 5, "the writer ran {writes} times");
}

#[test]
fn verify_racing_a_writer_compares_one_state_of_the_index() {
    // --verify read the documents, built them again, then read the tables: a writer that
    // committed in between had its tables compared with the documents before it (seen: 6
    // of 10 runs exited 1, "table docs differs (295 rows, 300 in the fresh build)").
    let d = tempfile::tempdir().unwrap();
    let (ix, _, stop, writer) = racing_writer(d.path());
    for n in 0..25 {
        let out = run("pl-index", &["--verify", "--index", &path(&ix)], b"");
        assert!(
            out.status.success(),
            "verify {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let writes = writer.join().unwrap();
    assert!(writes > 5, "the writer ran {writes} times");
}

#[test]
fn one_limit_of_a_documents_size_for_the_index_and_the_pipeline() {
    let d = tempfile::tempdir().unwrap();
    // Under 1 MiB as a docs line, over it as a norm record (the text twice).
    let big: String = (0..125_000).map(|i| format!("w{} ", i % 997)).collect();
    assert!(big.len() > 600_000 && big.len() < 1 << 20);
    let line = serde_json::json!({"id": 7, "content": big}).to_string() + "\n";
    let mut corpus = small_corpus(5);
    corpus += &line;
    let docs = write(d.path(), "docs.ndjson", corpus.as_bytes());
    let ix = d.path().join("ix");
    let limit = ["--max-doc-mb", "1"];
    let words = "document 7: its norm record would be";
    let theirs = fails(
        run("pl-normalize", &[&limit[..], &[&path(&docs)]].concat(), b""),
        1,
        "pl-normalize",
        &[words, "--max-doc-mb"],
    );
    let n = theirs
        .split(words)
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let index = fails(
        run(
            "pl-index",
            &[&limit[..], &["--index", &path(&ix), &path(&docs)]].concat(),
            b"",
        ),
        1,
        "pl-index",
        &[words, &n, "docs.ndjson"],
    );
    assert!(index.contains("line 7"), "{index}");
    // The index built without it, pl-check refuses it the same way.
    let five = write(d.path(), "five.ndjson", small_corpus(5).as_bytes());
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&five), "-q"],
        b"",
    ));
    let check = run(
        "pl-check",
        &[&limit[..], &["--index", &path(&ix)]].concat(),
        line.as_bytes(),
    );
    fails(check, 1, "pl-check", &[words, &n]);
}

#[test]
fn a_first_build_cut_by_a_full_disk_names_the_file() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(60).as_bytes());
    let one = small_corpus(60).lines().next().unwrap().to_owned();
    // Files may grow to N KiB (a full disk, as the writes see it), at each step of a build:
    // the temporary database, the index, its write-ahead log.
    for kib in [16, 100, 200] {
        let script = format!(
            "trap '' XFSZ; ulimit -f {kib}; exec pl-index --index ix docs.ndjson -q -o /dev/null"
        );
        let out = sh(d.path(), &script);
        let err = fails(out, 1, "pl-index", &["ix/"]);
        assert!(
            err.contains("ix/index.sqlite") || err.contains("ix/.index.sqlite"),
            "{kib} KiB: the file is named: {err}"
        );
        // Nothing believed: no index, or one whose first build did not finish.
        let out = run(
            "pl-check",
            &["--index", &path(&d.path().join("ix"))],
            one.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1), "{kib} KiB");
        std::fs::remove_dir_all(d.path().join("ix")).unwrap();
    }
}

/// Peak resident memory of `tool args` (KiB), by /usr/bin/time.
fn peak_kib(tool: &str, args: &[&str]) -> u64 {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "peak %M"])
        .arg(crate::util::bin(tool))
        .args(args)
        .output()
        .expect("/usr/bin/time runs");
    assert!(matches!(out.status.code(), Some(0 | 3)), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().rev().find(|l| l.starts_with("peak ")).unwrap();
    line[5..].trim().parse().unwrap()
}

#[test]
fn check_memory_does_not_grow_with_its_input() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(20).as_bytes());
    let ix = d.path().join("ix");
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&docs), "-q"],
        b"",
    ));
    // Documents with words of their own: each checked, none a candidate.
    let input = |n: u64| {
        let lines: String = (0..n)
            .map(|i| {
                let words: Vec<String> = (0..150).map(|j| format!("x{}", i * 1000 + j)).collect();
                serde_json::json!({"id": 100_000 + i, "content": words.join(" ")}).to_string()
                    + "\n"
            })
            .collect();
        write(d.path(), &format!("in{n}.ndjson"), lines.as_bytes())
    };
    let (few, many) = (input(500), input(5000));
    let args = |f: &Path| {
        vec![
            "--index".to_owned(),
            path(&ix),
            "-q".into(),
            "-o".into(),
            "/dev/null".into(),
            path(f),
        ]
    };
    let a = args(&few);
    let b = args(&many);
    let small = peak_kib(
        "pl-check",
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let large = peak_kib(
        "pl-check",
        &b.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    // Collecting every prepared document first cost about 4 KiB each: 18 MiB more here.
    assert!(
        large < small + 6 * 1024,
        "500 documents: {small} KiB, 5000: {large} KiB"
    );
}
