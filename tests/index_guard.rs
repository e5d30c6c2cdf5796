//! The persistent index under attack: recognised by its own meta table (an empty, damaged or
//! partial file is refused, never rebuilt), its rows edited by hand rewritten or refused,
//! guarded against a full input that would empty it, shared by writers running at once,
//! readable when the user may not write it, and exact for ids up to 2^64 − 1.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{bin, fails, ok, run, small_corpus, write};

/// The lines of `small_corpus(60)`: 60 documents, then 12 rescans (ids 1005, 1010, … 1060)
/// each a near-duplicate of the document with its id less 1000.
fn corpus() -> Vec<String> {
    small_corpus(60).lines().map(|l| format!("{l}\n")).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn an_empty_damaged_or_partial_index_is_refused_never_rebuilt() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(20).as_bytes());
    let one = corpus()[0].clone();
    let ix = d.path().join("ix");
    std::fs::create_dir(&ix).unwrap();
    let db = ix.join("index.sqlite");
    let (ixs, dbs) = (path(&ix), path(&db));
    // A 0-byte file (a first build cut by a full disk): refused by every tool, and left as
    // it is (not rebuilt with the default parameters).
    std::fs::write(&db, b"").unwrap();
    for args in [vec!["--index", &ixs], vec!["--index", &ixs, "--add"]] {
        let out = run("pl-check", &args, one.as_bytes());
        fails(
            out,
            1,
            "pl-check",
            &[&dbs, "empty file", "pl-index --index"],
        );
    }
    let out = run("pl-index", &["--index", &ixs, &path(&docs)], b"");
    fails(out, 1, "pl-index", &[&dbs, "empty file"]);
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
    // A first build that stopped before its documents were in (here at a bad record) left
    // an index that is not taken for an empty library; the next build completes it.
    std::fs::remove_file(&db).unwrap();
    let bad = write(
        d.path(),
        "bad.ndjson",
        b"{\"id\":1,\"content\":\"a\"}\nnot json\n",
    );
    let out = run("pl-index", &["--index", &ixs, &path(&bad)], b"");
    fails(out, 1, "pl-index", &["bad.ndjson", "line 2"]);
    let out = run("pl-check", &["--index", &ixs], one.as_bytes());
    fails(out, 1, "pl-check", &[&dbs, "first build did not finish"]);
    ok(run("pl-index", &["--index", &ixs, &path(&docs), "-q"], b""));
    ok(run("pl-check", &["--index", &ixs], one.as_bytes()));
    // Bytes that are no database, or a database cut short: refused by every tool with the
    // way out (pl-index said only "index database: file is not a database"), left as it is.
    let whole = std::fs::read(&db).unwrap();
    for damaged in [vec![7u8; 8192], whole[..whole.len() / 2].to_vec()] {
        std::fs::write(&db, &damaged).unwrap();
        let out = run("pl-check", &["--index", &ixs], one.as_bytes());
        fails(out, 1, "pl-check", &[&dbs, "not", "pl-index --index"]);
        let out = run("pl-index", &["--index", &ixs, &path(&docs)], b"");
        fails(out, 1, "pl-index", &[&dbs, "remove it", "pl-index --index"]);
        assert!(
            std::fs::read(&db).unwrap() == damaged,
            "the file was written"
        );
    }
    // A real index whose meta table holds no parameters, or is gone.
    std::fs::remove_file(&db).unwrap();
    ok(run("pl-index", &["--index", &ixs, &path(&docs), "-q"], b""));
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM meta WHERE key='params'", [])
        .unwrap();
    drop(conn);
    let out = run("pl-check", &["--index", &ixs], one.as_bytes());
    fails(
        out,
        1,
        "pl-check",
        &[&dbs, "no parameters", "pl-index --index"],
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DROP TABLE meta", []).unwrap();
    drop(conn);
    for tool in ["pl-check", "pl-index"] {
        let out = run(tool, &["--index", &ixs, &path(&docs)], b"");
        fails(out, 1, tool, &[&dbs, "no meta table", "pl-index --index"]);
    }
}

#[test]
fn a_full_input_that_would_empty_the_index_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let lines = corpus();
    let docs = write(d.path(), "docs.ndjson", lines.concat().as_bytes());
    let ix = path(&d.path().join("ix"));
    let groups = ok(run("pl-index", &["--index", &ix, &path(&docs), "-q"], b""));
    assert!(!groups.is_empty());
    // An empty input would delete all 72 documents: refused, the index as it was.
    let out = run("pl-index", &["--index", &ix, "/dev/null"], b"");
    fails(
        out,
        1,
        "pl-index",
        &[
            "/dev/null",
            "delete 72 of the index's 72",
            "--allow-mass-delete",
        ],
    );
    let few = write(d.path(), "few.ndjson", lines[..30].concat().as_bytes());
    let out = run("pl-index", &["--index", &ix, &path(&few)], b"");
    fails(out, 1, "pl-index", &["few.ndjson", "delete 42 of"]);
    let now = ok(run("pl-index", &["--index", &ix, "--partial"], b""));
    assert_eq!(now, groups);
    // Half of it is not more than half; and asked for, anything goes.
    let half = write(d.path(), "half.ndjson", lines[..36].concat().as_bytes());
    ok(run("pl-index", &["--index", &ix, &path(&half), "-q"], b""));
    let out = run(
        "pl-index",
        &["--index", &ix, "/dev/null", "--allow-mass-delete"],
        b"",
    );
    assert!(ok(out).is_empty());
}

/// Spawns pl-check --add on one document.
fn spawn_add(ix: &str, line: &str, dir: &Path, n: usize) -> std::process::Child {
    let input = write(dir, &format!("add{n}.ndjson"), line.as_bytes());
    Command::new(bin("pl-check"))
        .args(["--index", ix, "--add", "-q", &path(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a pl-check and asserts it found the near-duplicate (exit 3).
fn found(child: std::process::Child) {
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn writers_at_once_take_turns_and_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let lines = corpus();
    // The index without ten of the rescans; then ten pl-check --add at once, one each.
    let (base, extra) = lines.split_at(62);
    let docs = write(d.path(), "base.ndjson", base.concat().as_bytes());
    let ix = path(&d.path().join("ix"));
    ok(run("pl-index", &["--index", &ix, &path(&docs), "-q"], b""));
    let children: Vec<_> = extra
        .iter()
        .enumerate()
        .map(|(n, l)| spawn_add(&ix, l, d.path(), n))
        .collect();
    children.into_iter().for_each(found);
    let all = write(d.path(), "all.ndjson", lines.concat().as_bytes());
    let fresh = path(&d.path().join("fresh"));
    let want = ok(run(
        "pl-index",
        &["--index", &fresh, &path(&all), "-q"],
        b"",
    ));
    let got = ok(run("pl-index", &["--index", &ix, "--partial", "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    // A build and additions at once: whichever runs first, the index ends as a fresh build
    // of everything (the additions are in the build's input too).
    let ix2 = path(&d.path().join("ix2"));
    let first = write(d.path(), "first.ndjson", lines[..40].concat().as_bytes());
    ok(run(
        "pl-index",
        &["--index", &ix2, &path(&first), "-q"],
        b"",
    ));
    let build = Command::new(bin("pl-index"))
        .args(["--index", &ix2, &path(&all), "-q", "-o", "/dev/null"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let adds: Vec<_> = extra[..4]
        .iter()
        .enumerate()
        .map(|(n, l)| spawn_add(&ix2, l, d.path(), 20 + n))
        .collect();
    let out = build.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    adds.into_iter().for_each(found);
    let got = ok(run("pl-index", &["--index", &ix2, &path(&all), "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

/// Writers at once while their documents push buckets over a tiny `--max-bucket` and back:
/// each waits its turn, re-derives the candidates of every bucket that crossed the limit, and
/// the index ends as a fresh build of everything at that limit.
#[test]
fn writers_at_once_across_the_bucket_limit_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let lines: Vec<String> =
        std::fs::read_to_string(crate::util::repo().join("examples/docs.ndjson"))
            .unwrap()
            .lines()
            .map(|l| format!("{l}\n"))
            .collect();
    let (base, extra) = lines.split_at(lines.len() - 12);
    let docs = write(d.path(), "base.ndjson", base.concat().as_bytes());
    let ix = path(&d.path().join("ix"));
    let limit = ["--max-bucket", "2"];
    ok(run(
        "pl-index",
        &[&["--index", &ix, &path(&docs), "-q"][..], &limit[..]].concat(),
        b"",
    ));
    let children: Vec<_> = extra
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let input = write(d.path(), &format!("add{n}.ndjson"), l.as_bytes());
            Command::new(bin("pl-check"))
                .args(["--index", &ix, "--add", "-v", &path(&input)])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut logs = String::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        // 0: no near-duplicate, 3: one found; anything else is a failure.
        assert!(matches!(out.status.code(), Some(0 | 3)), "stderr: {err}");
        logs += &err;
    }
    assert!(
        logs.contains("weigh otherwise (--max-bucket 2"),
        "some addition moved a bucket over the limit: {logs}"
    );
    let all = write(d.path(), "all.ndjson", lines.concat().as_bytes());
    let fresh = |name: &str, flags: &[&str]| {
        let ix = path(&d.path().join(name));
        ok(run(
            "pl-index",
            &[&["--index", &ix, &path(&all), "-q"][..], flags].concat(),
            b"",
        ))
    };
    let want = fresh("fresh", &limit);
    assert_ne!(
        want,
        fresh("unlimited", &["--max-bucket", "0"]),
        "the limit changes the groups"
    );
    let got = ok(run("pl-index", &["--index", &ix, "--partial", "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn ids_beyond_2_63_update_as_a_fresh_build_does() {
    let d = tempfile::tempdir().unwrap();
    let lines = corpus();
    // (id, the line it copies): two copy sets mixing small and big ids, one big alone.
    let big = [
        (u64::MAX - 2, 0),
        ((1 << 53) + 3, 0),
        (1 << 63, 1),
        ((1 << 63) - 1, 1),
        (u64::MAX, 2),
    ];
    let mut docs: Vec<String> = lines.clone();
    for (id, src) in big {
        let mut v: serde_json::Value = serde_json::from_str(&lines[src]).unwrap();
        v["id"] = id.into();
        docs.push(format!("{v}\n"));
    }
    // Two copies only big ids hold: a group whose smallest member is over 2^63, tied on
    // confidence with the copy sets above, written after them as pl-cluster orders ids.
    for id in [(1u64 << 63) + 6, (1 << 63) + 5] {
        let text = "A letter only these two copies hold: reference 99812-77, signed twice.";
        docs.push(format!(
            "{}\n",
            serde_json::json!({"id": id, "content": text})
        ));
    }
    let all = write(d.path(), "all.ndjson", docs.concat().as_bytes());
    let fresh = path(&d.path().join("fresh"));
    let want = ok(run(
        "pl-index",
        &["--index", &fresh, &path(&all), "-q"],
        b"",
    ));
    let order: Vec<(f64, u64)> = crate::util::ndjson(&want)
        .iter()
        .map(|g| {
            let first = g["members"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|m| m.as_u64())
                .min();
            (g["confidence"].as_f64().unwrap(), first.unwrap())
        })
        .collect();
    assert!(order.iter().any(|&(_, first)| first > 1 << 63), "{order:?}");
    for w in order.windows(2) {
        assert!(
            w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1),
            "groups out of pl-cluster's order: {w:?}"
        );
    }
    // The same documents added in steps: the big ids last, then one of them deleted.
    let ix = path(&d.path().join("ix"));
    let part = write(d.path(), "part.ndjson", docs[..60].concat().as_bytes());
    ok(run("pl-index", &["--index", &ix, &path(&part), "-q"], b""));
    let got = ok(run("pl-index", &["--index", &ix, &path(&all), "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    let fewer = write(
        d.path(),
        "fewer.ndjson",
        docs[..docs.len() - 1].concat().as_bytes(),
    );
    let fresh2 = path(&d.path().join("fresh2"));
    let want = ok(run(
        "pl-index",
        &["--index", &fresh2, &path(&fewer), "-q"],
        b"",
    ));
    let got = ok(run("pl-index", &["--index", &ix, &path(&fewer), "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn an_index_the_user_may_not_write_is_checked() {
    let d = tempfile::tempdir().unwrap();
    let lines = corpus();
    let docs = write(d.path(), "docs.ndjson", lines[..60].concat().as_bytes());
    let probe = write(d.path(), "probe.ndjson", lines[60].as_bytes());
    let ix = d.path().join("ix");
    ok(run(
        "pl-index",
        &["--index", &path(&ix), &path(&docs), "-q"],
        b"",
    ));
    let want = run("pl-check", &["--index", &path(&ix), &path(&probe)], b"");
    assert_eq!(want.status.code(), Some(3));
    // As root, another user (the index stays root's, mode 644 in a 755 folder); else the
    // index made read-only (444 in a 555 folder).
    let check = |add: bool| {
        let mut args = vec!["--index".to_string(), path(&ix), path(&probe)];
        if add {
            args.push("--add".into());
        }
        let mut cmd = if is_root() {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(bin("pl-check"));
            c
        } else {
            Command::new(bin("pl-check"))
        };
        cmd.args(&args).output().unwrap()
    };
    std::fs::set_permissions(d.path(), perms(0o755)).unwrap();
    if !is_root() {
        std::fs::set_permissions(ix.join("index.sqlite"), perms(0o444)).unwrap();
        std::fs::set_permissions(&ix, perms(0o555)).unwrap();
    }
    let got = check(false);
    assert_eq!(
        got.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert_eq!(got.stdout, want.stdout);
    // Adding needs to write: refused in one line naming the index.
    let out = check(true);
    fails(out, 1, "pl-check", &[&path(&ix)]);
    std::fs::set_permissions(&ix, perms(0o755)).unwrap();
}

fn perms(mode: u32) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(mode)
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

#[test]
fn index_flags_are_checked_as_the_stages_check_them() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", small_corpus(5).as_bytes());
    let ix = d.path().join("ix");
    // Each flag is refused by pl-index with the stage's own words, nothing made.
    let cases: [(&[&str], &str, &str); 6] = [
        (
            &["--jaccard-weight", "0", "--fuzzy-weight", "0"],
            "pl-score",
            "--jaccard-weight and --fuzzy-weight are both 0",
        ),
        (&["--max-words", "0"], "pl-score", "0 is not in 2..=100000"),
        (
            &["--perms", "100000000"],
            "pl-minhash",
            "100000000 is not in 1..=65536",
        ),
        (
            &["--min-words", "0"],
            "pl-shingle",
            "--min-words must be at least 1",
        ),
        (
            &["--evidence-bucket", "1"],
            "pl-lsh",
            "a bucket of 1 document pairs nobody",
        ),
        (&["--min-band-matches", "0"], "pl-lsh", "0 is not in 1.."),
    ];
    for (flags, stage, words) in cases {
        let mut theirs_args = flags.to_vec();
        if stage == "pl-score" {
            theirs_args.extend(["--sigs", "/dev/null"]);
        }
        let theirs = run(stage, &theirs_args, b"");
        assert_eq!(theirs.status.code(), Some(2), "{stage} {flags:?}");
        assert!(String::from_utf8_lossy(&theirs.stderr).contains(words));
        let mut args = vec!["--index", ix.to_str().unwrap(), docs.to_str().unwrap()];
        args.extend(flags);
        let ours = run("pl-index", &args, b"");
        let err = String::from_utf8_lossy(&ours.stderr);
        assert_eq!(ours.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(words), "{flags:?}: {err}");
        assert!(!ix.exists(), "{flags:?} made no index");
    }
}

/// Copies the index folder `from` to `to` (the database and its WAL files).
fn copy_index(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Applies `damage` to the index in `ix` where no guard sees it (as a disk's damage would):
/// its triggers dropped, then made again as they were.
fn unseen(ix: &Path, damage: &str) {
    let conn = rusqlite::Connection::open(ix.join("index.sqlite")).unwrap();
    let guards: Vec<(String, String)> = conn
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!guards.is_empty());
    for (name, _) in &guards {
        conn.execute_batch(&format!("DROP TRIGGER {name}")).unwrap();
    }
    conn.execute_batch(damage).unwrap();
    for (_, sql) in &guards {
        conn.execute_batch(sql).unwrap();
    }
}

#[test]
fn damaged_rows_are_rewritten_by_an_update_or_refused_never_written_on() {
    let d = tempfile::tempdir().unwrap();
    let lines = corpus();
    let docs = write(d.path(), "docs.ndjson", lines.concat().as_bytes());
    let built = d.path().join("built");
    ok(run(
        "pl-index",
        &["--index", &path(&built), &path(&docs), "-q"],
        b"",
    ));
    // A rescan of document 5 arrives: it joins 5 and its rescan 1005.
    let five: serde_json::Value = serde_json::from_str(&lines[4]).unwrap();
    let mut new = five.clone();
    new["id"] = 5005.into();
    new["content"] = format!("{} w1 stamp", five["content"].as_str().unwrap()).into();
    let new = write(d.path(), "new.ndjson", format!("{new}\n").as_bytes());
    let add_then_groups = |ix: &Path| {
        let out = run(
            "pl-check",
            &["--index", &path(ix), "--add", "-q", &path(&new)],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(ok(run(
            "pl-index",
            &["--index", &path(ix), "--partial"],
            b"",
        )))
        .unwrap()
    };
    let clean = d.path().join("clean");
    copy_index(&built, &clean);
    let want = add_then_groups(&clean);
    assert!(want.contains("5005"), "{want}");
    // Rows of the touched component damaged where no guard sees it (a change by hand is
    // refused: tests/index_trust.rs): the update rescores and reclusters the component, so
    // the groups are the undamaged index's.
    for (i, damage) in [
        "INSERT INTO apart VALUES(5, 1005)",
        "INSERT INTO apart VALUES(5, 777777)",
        "UPDATE pairs SET score = 7 WHERE a = 5 AND b = 1005",
        "UPDATE pairs SET rec = 'garbage' WHERE a = 5 AND b = 1005",
        "DELETE FROM pairs WHERE a = 5 AND b = 1005",
        "DELETE FROM members WHERE id = 1005",
        "UPDATE members SET first = 777777 WHERE id = 1005",
        "INSERT INTO few VALUES(123, 777777)",
    ]
    .into_iter()
    .enumerate()
    {
        let ix = d.path().join(format!("damaged{i}"));
        copy_index(&built, &ix);
        unseen(&ix, damage);
        assert_eq!(add_then_groups(&ix), want, "{damage}");
    }
    // A stored document's line or signature damaged: refused, naming the document, the
    // index as it was.
    for damage in [
        "UPDATE docs SET line = 'garbage' WHERE id = 5",
        "UPDATE docs SET line = '{\"id\":5}' WHERE id = 5",
        "UPDATE docs SET sig = x'01020304' WHERE id = 5",
    ] {
        let ix = d.path().join("baddoc");
        let _ = std::fs::remove_dir_all(&ix);
        copy_index(&built, &ix);
        unseen(&ix, damage);
        let before = std::fs::read(ix.join("index.sqlite")).unwrap();
        let out = run(
            "pl-check",
            &["--index", &path(&ix), "--add", "-q", &path(&new)],
            b"",
        );
        fails(
            out,
            1,
            "pl-check",
            &["index.sqlite", "table docs, document 5", "damaged record"],
        );
        assert!(
            std::fs::read(ix.join("index.sqlite")).unwrap() == before,
            "{damage}"
        );
    }
    // A stored group's record damaged: refused, naming the table and the group.
    let ix = d.path().join("badgroup");
    copy_index(&built, &ix);
    unseen(&ix, "UPDATE groups SET rec = 'garbage' WHERE first = 5");
    let out = run("pl-index", &["--index", &path(&ix), "--partial"], b"");
    fails(
        out,
        1,
        "pl-index",
        &[
            "index.sqlite",
            "table groups",
            "document 5",
            "damaged record",
        ],
    );
}

#[test]
fn recorded_parameters_edited_unseen_are_refused_never_used() {
    // The parameters were checked when given as flags only: read back edited they were used
    // (--perms 2^30 aborted out of memory, --max-words 10^8 let one pair's alignment grow
    // past 4 GB, --threshold 7 kept no pair, --numbers 2 read as 0, a parameter this build
    // does not know ignored).
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", corpus().concat().as_bytes());
    let built = d.path().join("built");
    ok(run(
        "pl-index",
        &["--index", &path(&built), &path(&docs), "-q"],
        b"",
    ));
    for (set, said) in [
        (
            "'$.perms', 1073741824",
            "--perms 1073741824, not from 1 to 65536",
        ),
        (
            "'$.max_words', 100000000",
            "--max-words 100000000, not from 2",
        ),
        ("'$.threshold', 7", "--threshold 7, not from 0 to 1"),
        ("'$.numbers', 2", "--numbers 2, not from 0 to 1"),
        ("'$.bands', 7", "cannot be cut into 7 bands"),
        ("'$.a_later_knob', 1", "unknown parameter \"a_later_knob\""),
    ] {
        let ix = d.path().join("edited");
        let _ = std::fs::remove_dir_all(&ix);
        copy_index(&built, &ix);
        unseen(
            &ix,
            &format!("UPDATE meta SET value = json_set(value, {set}) WHERE key = 'params'"),
        );
        let before = std::fs::read(ix.join("index.sqlite")).unwrap();
        for tool in ["pl-index", "pl-check"] {
            let out = run(tool, &["--index", &path(&ix), &path(&docs), "-q"], b"");
            fails(
                out,
                1,
                tool,
                &["index.sqlite: not an index", said, "remove it"],
            );
        }
        let after = std::fs::read(ix.join("index.sqlite")).unwrap();
        assert!(after == before, "{set}: the index was written");
    }
}
