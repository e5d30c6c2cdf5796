//! Owners (issue 58, item 2): pl-cluster never groups documents of two owners unless
//! --across-owners, and pl-report says when a group spans owners.

use crate::util::{fails, ndjson, ok, run, write};

/// 1, 2: user 7; 3: user 8; 4, 5: no owner (null, missing). Every pair between them passed.
const DOCS: &str = concat!(
    r#"{"id":1,"title":"a","content":"x","owner":7}"#,
    "\n",
    r#"{"id":2,"title":"b","content":"x","owner":7}"#,
    "\n",
    r#"{"id":3,"title":"c","content":"x","owner":8}"#,
    "\n",
    r#"{"id":4,"title":"d","content":"x","owner":null}"#,
    "\n",
    r#"{"id":5,"title":"e","content":"x"}"#,
    "\n"
);

fn scores() -> String {
    let mut s = String::new();
    for a in 1..=5u64 {
        for b in a + 1..=5 {
            s += &format!(
                "{{\"a\":{a},\"b\":{b},\"score\":0.95,\"jaccard\":0.95,\"fuzzy\":0.95}}\n"
            );
        }
    }
    s
}

fn members(groups: &[u8]) -> Vec<Vec<u64>> {
    ndjson(groups)
        .iter()
        .map(|g| {
            g["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_u64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn no_group_across_owners_unless_asked_and_the_report_says_so() {
    let d = tempfile::tempdir().unwrap();
    let docs = write(d.path(), "docs.ndjson", DOCS.as_bytes());
    let docs = docs.to_str().unwrap();
    for linkage in ["single", "average"] {
        let out = run(
            "pl-cluster",
            &["--docs", docs, "--linkage", linkage],
            scores().as_bytes(),
        );
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        // One owner's pair, and the ownerless pair (null and missing are both no owner).
        assert_eq!(members(&ok(out)), [vec![1, 2], vec![4, 5]], "{linkage}");
        assert!(err.contains("8 pairs across owners are no link"), "{err}");
    }
    let across = ok(run(
        "pl-cluster",
        &["--docs", docs, "--linkage", "single", "--across-owners"],
        scores().as_bytes(),
    ));
    assert_eq!(members(&across), [vec![1, 2, 3, 4, 5]]);
    // Without docs no owner is known: every document is ownerless, the pairs all link.
    let no_docs = ok(run(
        "pl-cluster",
        &["--linkage", "single"],
        scores().as_bytes(),
    ));
    assert_eq!(no_docs, across);
    // pl-report says a group spans owners, on stderr and on the page.
    let groups = write(d.path(), "groups.ndjson", &across);
    let out = run(
        "pl-report",
        &[groups.to_str().unwrap(), "--docs", docs],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let page = String::from_utf8(ok(out)).unwrap();
    assert!(
        err.contains(
            "1 groups join documents of different owners (pl-cluster --across-owners was given)"
        ),
        "{err}"
    );
    assert!(page.contains(r#""across_owners":1"#));
    // The default groups, one owner each: nothing said.
    let own = ok(run("pl-cluster", &["--docs", docs], scores().as_bytes()));
    let groups = write(d.path(), "own.ndjson", &own);
    let out = run(
        "pl-report",
        &[groups.to_str().unwrap(), "--docs", docs],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!String::from_utf8(ok(out))
        .unwrap()
        .contains(r#""across_owners":"#));
    assert!(!err.contains("owners"), "{err}");
}

#[test]
fn an_owner_that_is_not_a_user_id_is_refused_naming_the_line() {
    let d = tempfile::tempdir().unwrap();
    let bad = DOCS.replace(r#""owner":8"#, r#""owner":"bob""#);
    let docs = write(d.path(), "docs.ndjson", bad.as_bytes());
    let out = run(
        "pl-cluster",
        &["--docs", docs.to_str().unwrap()],
        scores().as_bytes(),
    );
    fails(
        out,
        1,
        "pl-cluster",
        &["docs.ndjson", "line 3", "\"owner\""],
    );
}

/// One text of the example corpus, as documents `ids` with their owners.
fn copies(owners: &[(u64, Option<u64>)]) -> String {
    let docs = std::fs::read_to_string(crate::util::repo().join("examples/docs.ndjson")).unwrap();
    let first: serde_json::Value = serde_json::from_str(docs.lines().next().unwrap()).unwrap();
    let text = first["content"].as_str().unwrap();
    owners
        .iter()
        .map(|&(id, owner)| {
            serde_json::json!({"id": id, "title": format!("copy {id}"), "content": text,
                               "owner": owner})
            .to_string()
                + "\n"
        })
        .collect()
}

fn dup_ids(out: &[u8]) -> Vec<u64> {
    let recs = ndjson(out);
    recs[0]["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_u64().unwrap())
        .collect()
}

/// The index keeps each document's owner (format 7): pl-check reports only the checked
/// document's owner's near-duplicates unless --across-owners, and says how many it left out;
/// the index's groups never join two owners. An index of format 6 (no owners) is refused by
/// pl-check, and a full pl-index run builds it again with them.
#[test]
fn the_index_checks_and_groups_one_owners_documents_and_builds_a_format_6_index_again() {
    let d = tempfile::tempdir().unwrap();
    let docs = copies(&[(1, Some(7)), (2, Some(7)), (3, Some(8)), (4, None)]);
    let docs = write(d.path(), "docs.ndjson", docs.as_bytes());
    let (ix, docs) = (
        d.path().join("ix").display().to_string(),
        docs.display().to_string(),
    );
    let build = || ok(run("pl-index", &["-q", "--index", &ix, &docs], b""));
    assert_eq!(members(&build()), [vec![1, 2]]);
    let new = copies(&[(10, Some(8))]);
    let out = run("pl-check", &["--index", &ix], new.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(dup_ids(&out.stdout), [3]);
    assert!(
        err.contains("document 10: 3 near-duplicates of other owners not reported"),
        "{err}"
    );
    let out = run(
        "pl-check",
        &["-q", "--index", &ix, "--across-owners"],
        new.as_bytes(),
    );
    assert_eq!(dup_ids(&out.stdout), [1, 2, 3, 4]);
    // No owner is an owner of its own.
    let out = run(
        "pl-check",
        &["-q", "--index", &ix],
        copies(&[(11, None)]).as_bytes(),
    );
    assert_eq!(dup_ids(&out.stdout), [4]);
    // An index of format 6: no owners' column.
    let db = rusqlite::Connection::open(d.path().join("ix/index.sqlite")).unwrap();
    db.execute_batch(
        "UPDATE meta SET value='6' WHERE key='format'; ALTER TABLE docs DROP COLUMN owner",
    )
    .unwrap();
    drop(db);
    fails(
        run("pl-check", &["--index", &ix], new.as_bytes()),
        1,
        "pl-check",
        &["format 6", "recorded no document's owner"],
    );
    assert_eq!(members(&build()), [vec![1, 2]]);
    let out = run("pl-check", &["-q", "--index", &ix], new.as_bytes());
    assert_eq!(dup_ids(&out.stdout), [3]);
}
