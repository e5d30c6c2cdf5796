//! pl-index and pl-check: the persistent index gives the groups of the full pipeline after
//! any series of additions, changes and deletions; its parameters and format are checked;
//! pl-check finds a document's near-duplicates and says so in its exit status.

use std::path::Path;

use serde_json::Value;

use crate::util::{bin_dir, ndjson, ok, repo, run, sh};

/// The example corpus's docs records, parsed.
fn examples() -> Vec<serde_json::Map<String, Value>> {
    corpus("examples/docs.ndjson")
}

/// A corpus of the repository's docs records, parsed.
fn corpus(path: &str) -> Vec<serde_json::Map<String, Value>> {
    std::fs::read_to_string(repo().join(path))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_docs(path: &Path, docs: &[serde_json::Map<String, Value>]) {
    let text: String = docs
        .iter()
        .map(|d| serde_json::to_string(d).unwrap() + "\n")
        .collect();
    std::fs::write(path, text).unwrap();
}

/// `make groups` (pipeline.mk, the default parameters but `vars`) on `docs` in a fresh folder.
fn full_groups(dir: &Path, docs: &Path, vars: &[&str]) -> Vec<u8> {
    let _ = std::fs::remove_dir_all(dir.join("work"));
    make_in(dir, "groups", docs, vars)
}

/// pipeline.mk's `target` on `docs` with `vars`, in `dir/work` as it is; its groups.
fn make_in(dir: &Path, target: &str, docs: &Path, vars: &[&str]) -> Vec<u8> {
    let work = dir.join("work");
    let out = std::process::Command::new("make")
        .arg("-s")
        .arg("-f")
        .arg(repo().join("pipeline.mk"))
        .arg(target)
        .arg(format!("WORK={}", work.display()))
        .arg(format!("DOCS={}", docs.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg(format!("SCRIPTS={}", repo().join("scripts").display()))
        .args(vars)
        .env_remove("PAPERLESS_URL")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "make {target}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(work.join("groups.ndjson")).unwrap()
}

/// A small deterministic generator (no dependency, the same series on every machine).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn incremental_updates_give_the_full_pipelines_groups() {
    let logs = updates_against_make(&[], &[]);
    assert!(
        logs[1..].iter().all(|s| !s.contains("built from scratch")),
        "later steps are incremental: {logs:?}"
    );
}

/// The example corpus, its documents owned by user 7, user 8 or nobody (by id).
fn owned_examples() -> Vec<serde_json::Map<String, Value>> {
    let mut pool = examples();
    for d in &mut pool {
        let owner = match d["id"].as_u64().unwrap() % 3 {
            0 => Value::Null,
            r => (r + 6).into(),
        };
        d.insert("owner".into(), owner);
    }
    pool
}

/// Owners (issue 58): the index's groups never join two owners, as make's do not (pl-cluster
/// without --across-owners); through additions, deletions, changes and documents given to
/// another owner (their text the same), the index's groups stay make's. With
/// `pl-index --across-owners` they stay make's with `CLUSTER_FLAGS=--across-owners`.
#[test]
fn updates_of_two_owners_keep_the_index_equal_to_make() {
    let d = tempfile::tempdir().unwrap();
    let (owned, plain) = (d.path().join("owned.ndjson"), d.path().join("plain.ndjson"));
    write_docs(&owned, &owned_examples());
    write_docs(&plain, &examples());
    let across = ["CLUSTER_FLAGS=--across-owners"];
    assert_ne!(
        full_groups(d.path(), &owned, &[]),
        full_groups(d.path(), &plain, &[]),
        "owners change make's groups"
    );
    assert_ne!(
        full_groups(d.path(), &owned, &[]),
        full_groups(d.path(), &owned, &across),
        "--across-owners changes make's groups"
    );
    updates_of(owned_examples(), &[], &[]);
    updates_of(owned_examples(), &across, &["--across-owners"]);
}

/// `pl-index --across-owners` is recorded with the index: a later run without it keeps to it
/// (make's groups with `CLUSTER_FLAGS=--across-owners`), `make index` passes it on, pl-check
/// then reports near-duplicates of every owner, and asking for it of an index built without it
/// is refused, naming the flag.
#[test]
fn across_owners_is_recorded_by_the_index() {
    let d = tempfile::tempdir().unwrap();
    let mut docs = owned_examples();
    let path = d.path().join("docs.ndjson");
    write_docs(&path, &docs);
    let across = ["CLUSTER_FLAGS=--across-owners"];
    let want = full_groups(d.path(), &path, &across);
    let (ix, own_ix) = (d.path().join("ix"), d.path().join("own"));
    let (ix_arg, own_arg) = (ix.display().to_string(), own_ix.display().to_string());
    let docs_arg = path.display().to_string();
    let built = ok(run(
        "pl-index",
        &["--index", &ix_arg, &docs_arg, "--across-owners"],
        b"",
    ));
    assert_eq!(
        String::from_utf8_lossy(&built),
        String::from_utf8_lossy(&want)
    );
    // A document of another owner's, a copy of a grouped one: joined without asking again.
    let grouped = ndjson(&want)
        .iter()
        .find_map(|g| g["members"].as_array().map(|m| m[0].as_u64().unwrap()))
        .unwrap();
    let mut copy = docs.iter().find(|x| x["id"] == grouped).unwrap().clone();
    let (new_id, new_owner) = (100_000u64, 99u64);
    copy.insert("id".into(), new_id.into());
    copy.insert("owner".into(), new_owner.into());
    docs.push(copy.clone());
    write_docs(&path, &docs);
    let (got, _, log) = update_and_make(d.path(), &ix_arg, &path);
    let want = full_groups(d.path(), &path, &across);
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{log}"
    );
    assert!(
        ndjson(&got)
            .iter()
            .any(|g| g["members"].as_array().unwrap().contains(&new_id.into())),
        "the other owner's copy is grouped: {}",
        String::from_utf8_lossy(&got)
    );
    // pl-check reports it, though not asked for --across-owners.
    copy.insert("id".into(), (new_id + 1).into());
    let line = format!("{}\n", Value::Object(copy.clone()));
    let out = run("pl-check", &["--index", &ix_arg], line.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dups = checked["duplicates"].as_array().unwrap();
    assert!(dups.iter().any(|x| x["id"] == grouped), "{checked}");
    // make index passes CLUSTER_FLAGS=--across-owners on, and keeps the groups.
    let work = d.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let _ = std::fs::remove_dir_all(work.join("index"));
    std::fs::rename(&ix, work.join("index")).unwrap();
    let by_make = make_in(d.path(), "index", &path, &across);
    assert_eq!(
        String::from_utf8_lossy(&by_make),
        String::from_utf8_lossy(&want)
    );
    // An index built without it refuses it.
    ok(run("pl-index", &["--index", &own_arg, &docs_arg], b""));
    let out = run(
        "pl-index",
        &["--index", &own_arg, &docs_arg, "--across-owners"],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("built with --across-owners false, asked for --across-owners true"),
        "{err}"
    );
}

/// An update clusters again only the components it touches: a member made the earliest
/// (so the primary of its group), a group's primary deleted, a chain's middle changed. Each
/// time the groups are make's, and the log counts far fewer documents clustered than the
/// index holds.
#[test]
fn an_update_clusters_only_the_touched_components_and_keeps_makes_groups() {
    let d = tempfile::tempdir().unwrap();
    let mut live = examples();
    let docs = d.path().join("docs.ndjson");
    let ix = d.path().join("index").display().to_string();
    let update = |live: &[serde_json::Map<String, Value>], what: &str| {
        write_docs(&docs, live);
        let out = run(
            "pl-index",
            &["--index", &ix, &docs.display().to_string(), "-v"],
            b"",
        );
        let log = String::from_utf8_lossy(&out.stderr).to_string();
        let got = ok(out);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&full_groups(d.path(), &docs, &[])),
            "{what}: the index's groups differ from make groups ({log})"
        );
        (crate::util::ndjson(&got), log)
    };
    let (groups, log) = update(&live, "the first build");
    assert!(log.contains("every component clustered"), "{log}");
    let big = groups
        .iter()
        .find(|g| g["members"].as_array().unwrap().len() >= 3)
        .expect("a group of three");
    let member = |i: usize| big["members"][i].as_u64().unwrap();
    let other = (0..3).map(member).find(|&m| m != big["primary"]).unwrap();
    let at = |live: &[serde_json::Map<String, Value>], id: u64| {
        live.iter().position(|d| d["id"] == id).unwrap()
    };
    // Another member becomes the earliest: the primary moves, the text is the same.
    let i = at(&live, other);
    live[i].insert("added".into(), "2000-01-01T00:00:00+00:00".into());
    let (groups, log) = update(&live, "a member made the earliest");
    let moved = groups
        .iter()
        .find(|g| g["members"].as_array().unwrap().contains(&other.into()));
    assert_eq!(moved.unwrap()["primary"], other, "{log}");
    let reached = |log: &str| -> usize {
        let n = log.split("the touched components (").nth(1).expect(log);
        n.split(' ').next().unwrap().parse().unwrap()
    };
    assert!(
        reached(&log) >= 3 && reached(&log) < live.len() / 4,
        "{log}"
    );
    // The new primary deleted, then another member's text changed.
    live.remove(at(&live, other));
    let (_, log) = update(&live, "a primary deleted");
    assert!(reached(&log) < live.len() / 4, "{log}");
    let j = at(&live, member(2));
    let text = live[j]["content"].as_str().unwrap().replacen('e', "x", 40);
    live[j].insert("content".into(), text.into());
    update(&live, "a member's text changed");
}

/// pl-score's flags are index parameters too (make passes SCORE_FLAGS to pl-index): updates
/// with them keep make's groups, `make index` and `make groups` take them, the index records
/// them, and a run asking for other values is refused, naming the flag.
#[test]
fn scoring_flags_are_recorded_by_the_index_and_keep_makes_groups() {
    let variants: [(&str, &[&str]); 2] = [
        (
            "--allow-conflicts 1 --one-digit-weight 0",
            &["--allow-conflicts", "1", "--one-digit-weight", "0"],
        ),
        (
            "--no-verify --no-containment",
            &["--no-verify", "--no-containment"],
        ),
    ];
    let d = tempfile::tempdir().unwrap();
    let docs = d.path().join("docs.ndjson");
    write_docs(&docs, &examples());
    let defaults = full_groups(d.path(), &docs, &[]);
    for (score_flags, flags) in variants {
        let vars = [format!("SCORE_FLAGS={score_flags}")];
        let vars: Vec<&str> = vars.iter().map(String::as_str).collect();
        let want = full_groups(d.path(), &docs, &vars);
        assert_ne!(want, defaults, "{score_flags} changes make's groups");
        updates_against_make(&vars, flags);
        // Through make: the index built with the flags, then the groups from it.
        for target in ["index", "groups"] {
            let got = make_in(d.path(), target, &docs, &vars);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "make {target}"
            );
        }
    }
    // Recorded: the same value again is taken, another is refused.
    let ix = d.path().join("ix").display().to_string();
    let docs_arg = docs.display().to_string();
    let index = |flags: &[&str]| {
        let mut argv = vec!["--index", ix.as_str(), docs_arg.as_str(), "-o", "/dev/null"];
        argv.extend(flags);
        run("pl-index", &argv, b"")
    };
    ok(index(&["--allow-conflicts", "1"]));
    ok(index(&["--allow-conflicts", "1"]));
    ok(index(&[]));
    let out = index(&["--allow-conflicts", "0.5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("built with --allow-conflicts 1, asked for --allow-conflicts 0.5"),
        "{err}"
    );
    // Distinctive-token weights move with every document: refused, with the reason.
    let fresh = d.path().join("ix-distinct").display().to_string();
    let out = run(
        "pl-index",
        &["--index", &fresh, &docs_arg, "--distinct-penalty", "0.5"],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--distinct-penalty"),
        "{err}"
    );
}

/// With a bucket limit this small (at 3 the example corpus no longer shows the difference),
/// additions and deletions push buckets over it and back:
/// the documents of such a bucket find their candidates again, and the groups stay make's.
#[test]
fn buckets_crossing_the_limit_keep_the_index_equal_to_make() {
    let logs = updates_against_make(&["MAX_BUCKET=2"], &["--max-bucket", "2"]);
    assert!(
        logs.iter()
            .any(|s| s.contains("weigh otherwise (--max-bucket 2")),
        "some bucket crossed the limit: {logs:?}"
    );
    // Both ways: buckets that pair again, and buckets that stopped pairing, whose documents
    // only have their stored pairs looked up again.
    assert!(
        logs.iter()
            .any(|s| s.contains("weigh otherwise (--max-bucket 2")
                && !s.contains(", 0 have their stored pairs looked up again")),
        "some bucket stopped pairing: {logs:?}"
    );
}

/// With the evidence rule asking more than the example corpus's templates give, additions
/// crowd the buckets some stored pairs stood on (their pairs are dropped, not scored again)
/// and deletions thin them out again (their documents look for candidates again): the groups
/// stay make's.
#[test]
fn buckets_gaining_and_losing_evidence_keep_the_index_equal_to_make() {
    let logs = updates_against_make(&["EVIDENCE_BUCKET=3"], &["--evidence-bucket", "3"]);
    assert!(
        logs.iter()
            .any(|s| s.contains("no longer proposed by their buckets or numbers")),
        "some stored pair lost its evidence: {logs:?}"
    );
    assert!(
        logs.iter()
            .any(|s| s.contains("weigh otherwise") && !s.contains(": 0 more documents look")),
        "some bucket gained weight: {logs:?}"
    );
}

/// The real-OCR fixture, where copies of one document put their numbers in four to seven
/// documents: additions and deletions move numbers across the ledger's wide-agreement line,
/// and the holders must be scored again.
#[test]
fn updates_of_rough_scans_keep_the_index_equal_to_make() {
    let logs = updates_of(corpus("examples/ocr/docs.ndjson"), &[], &[]);
    assert!(
        logs[1..].iter().any(|s| s.contains("crossed a count line")),
        "some number moved: {logs:?}"
    );
}

/// Copies among four to six put their numbers in that many documents, and the ledger's wide
/// agreement keeps some of their pairs. Seven notes quoting those numbers push each into more
/// than six documents: the pairs lose that agreement, and the index must score their
/// documents again (their words crossed a count line) to give make's groups.
#[test]
fn numbers_leaving_the_wide_agreement_rescore_their_holders() {
    let d = tempfile::tempdir().unwrap();
    let mut docs = corpus("examples/ocr/docs.ndjson");
    let path = d.path().join("docs.ndjson");
    write_docs(&path, &docs);
    let before = full_groups(d.path(), &path, &["SCORE_FLAGS=--explain"]);
    let scores = ndjson(&std::fs::read(d.path().join("work/scores.ndjson")).unwrap());
    let mut numbers: Vec<String> = Vec::new();
    for r in &scores {
        let l = &r["ledger"];
        if r["rescued"] == true && l["agree"].as_u64().unwrap() < 2 {
            for list in ["agreed", "agreed_wide"] {
                for t in l["tokens"][list].as_array().unwrap() {
                    numbers.push(t.as_str().unwrap().to_string());
                }
            }
        }
    }
    numbers.sort();
    numbers.dedup();
    assert!(numbers.len() >= 9, "{numbers:?}");
    let index = d.path().join("index").display().to_string();
    let docs_arg = path.display().to_string();
    ok(run("pl-index", &["--index", &index, &docs_arg], b""));
    let last = docs.iter().filter_map(|d| d["id"].as_u64()).max().unwrap();
    for i in 1..=7u64 {
        let note = serde_json::json!({
            "id": last + i,
            "title": format!("Notiz {i}"),
            "content": format!("Notiz {i} zum Vorgang {}: {}", 7919 * i, numbers.join(" ")),
        });
        docs.push(note.as_object().unwrap().clone());
    }
    write_docs(&path, &docs);
    let (got, want, log) = update_and_make(d.path(), &index, &path);
    assert_ne!(want, before, "the notes changed make's groups");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{log}"
    );
    assert!(log.contains("crossed a count line"), "{log}");
}

/// A word only the copies of one scan have is OCR noise to the verifier, not a word: their
/// rescan reads another string there and is kept. A note with that word makes it known
/// without moving its count across any other line (four documents to five, with postings;
/// six to seven, without): the index must score the copies' pairs again to give make's
/// groups, where the rescan now stands apart.
#[test]
fn noise_of_a_reuploaded_scan_that_another_text_has_rescores_its_copies() {
    for copies in [4, 6] {
        noise_known_through_a_note(copies);
    }
}

fn noise_known_through_a_note(copies: u64) {
    let d = tempfile::tempdir().unwrap();
    let mut docs = examples();
    let path = d.path().join("docs.ndjson");
    let last = docs.iter().filter_map(|d| d["id"].as_u64()).max().unwrap();
    let (letter, doc) = (payment_letter, payment_doc);
    for i in 1..=copies {
        docs.push(doc(last + i, letter("qwertzuiopas")));
    }
    let rescan = last + copies + 1;
    docs.push(doc(rescan, letter("mnbvcxylkjh")));
    write_docs(&path, &docs);
    let before = full_groups(d.path(), &path, &[]);
    let index = d.path().join("index").display().to_string();
    let docs_arg = path.display().to_string();
    assert_eq!(
        ok(run("pl-index", &["--index", &index, &docs_arg], b"")),
        before
    );
    let grouped = |groups: &[u8]| {
        ndjson(groups).iter().any(|g| {
            let m = g["members"].as_array().unwrap();
            m.iter().any(|x| x.as_u64() == Some(rescan)) && m.len() as u64 == copies + 1
        })
    };
    assert!(grouped(&before), "the rescan is grouped with the copies");
    docs.push(doc(
        rescan + 1,
        "Notiz zum Vorgang qwertzuiopas, bitte prüfen".into(),
    ));
    write_docs(&path, &docs);
    let (got, want, log) = update_and_make(d.path(), &index, &path);
    assert!(
        !grouped(&want),
        "the noise is a word now: the rescan stands apart"
    );
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{copies} copies: {log}"
    );
}

/// A scan reads `768` where its original has `738` (and `Dienstleisler` for `Dienstleister`:
/// a scan that misreads a digit misreads letters too): another value while six documents hold
/// `738`, a template's constant misread once seven do. The note that brings `738` to seven
/// documents must make the index score the pair again, as make does.
#[test]
fn a_number_becoming_a_constant_rescores_its_holders() {
    let d = tempfile::tempdir().unwrap();
    let mut docs = examples();
    let path = d.path().join("docs.ndjson");
    let last = docs.iter().filter_map(|d| d["id"].as_u64()).max().unwrap();
    let (letter, doc) = (payment_letter, payment_doc);
    let (original, scan) = (last + 1, last + 2);
    let note = |i: u64| {
        doc(
            scan + i,
            format!("Notiz {i}: Ortstermin 738, Zähler {}", 7919 * i),
        )
    };
    docs.push(doc(original, letter("738")));
    docs.push(doc(
        scan,
        letter("768").replace("Dienstleister", "Dienstleisler"),
    ));
    // Six documents hold `738`, one line under a constant.
    docs.extend((1..=5).map(note));
    write_docs(&path, &docs);
    let grouped = |groups: &[u8]| {
        ndjson(groups).iter().any(|g| {
            let m = g["members"].as_array().unwrap();
            [original, scan]
                .iter()
                .all(|id| m.iter().any(|x| x.as_u64() == Some(*id)))
        })
    };
    let before = full_groups(d.path(), &path, &[]);
    assert!(!grouped(&before), "738 and 768 are two values");
    let index = d.path().join("index").display().to_string();
    let docs_arg = path.display().to_string();
    assert_eq!(
        ok(run("pl-index", &["--index", &index, &docs_arg], b"")),
        before
    );
    docs.push(note(6));
    write_docs(&path, &docs);
    let (got, want, log) = update_and_make(d.path(), &index, &path);
    assert!(
        grouped(&want),
        "seven documents hold 738: the scan misread it"
    );
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{log}"
    );
}

/// pl-index's update of the index `index` from `docs` (its groups and `-v` log), and
/// `make groups`' of the same docs in `dir`.
fn update_and_make(dir: &Path, index: &str, docs: &Path) -> (Vec<u8>, Vec<u8>, String) {
    let out = run(
        "pl-index",
        &["--index", index, &docs.display().to_string(), "-v"],
        b"",
    );
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    (ok(out), full_groups(dir, docs, &[]), log)
}

/// A utility's payment letter with `detail` as its contract number.
fn payment_letter(detail: &str) -> String {
    format!(
        "Stadtwerke Kesselbach Kundenservice. Sehr geehrte Frau Albers, wir bestätigen den \
         Eingang Ihrer Zahlung für den Vertrag {detail} und danken Ihnen für Ihr Vertrauen. \
         Ihr Abschlag bleibt unverändert, die nächste Ablesung erfolgt im Frühjahr durch \
         unseren Dienstleister. Bei Fragen erreichen Sie uns werktags von acht bis achtzehn \
         Uhr telefonisch oder jederzeit über das Kundenportal. Mit freundlichen Grüßen, Ihr \
         Kundenservice der Stadtwerke Kesselbach"
    )
}

/// A docs record titled "Zahlung".
fn payment_doc(id: u64, content: String) -> serde_json::Map<String, Value> {
    serde_json::json!({"id": id, "title": "Zahlung", "content": content})
        .as_object()
        .unwrap()
        .clone()
}

/// Six rounds of additions, deletions and changes of the example corpus, each given to
/// pl-index (with `flags`) and compared with `make groups` (with `vars`); pl-index's logs.
fn updates_against_make(vars: &[&str], flags: &[&str]) -> Vec<String> {
    updates_of(examples(), vars, flags)
}

/// [`updates_against_make`] on the documents `pool`.
fn updates_of(
    pool: Vec<serde_json::Map<String, Value>>,
    vars: &[&str],
    flags: &[&str],
) -> Vec<String> {
    let d = tempfile::tempdir().unwrap();
    let mut rng = Lcg(19);
    // Start from about 60% of the corpus.
    let mut live: Vec<serde_json::Map<String, Value>> =
        pool.iter().filter(|_| rng.below(10) < 6).cloned().collect();
    let index = d.path().join("index");
    let docs = d.path().join("docs.ndjson");
    let index_arg = index.display().to_string();
    let docs_arg = docs.display().to_string();
    let mut rescored = Vec::new();
    for step in 0..6 {
        if step > 0 {
            // Additions from the rest of the pool.
            for _ in 0..rng.below(25) + 5 {
                let cand = &pool[rng.below(pool.len())];
                if !live.iter().any(|x| x["id"] == cand["id"]) {
                    live.push(cand.clone());
                }
            }
            // Deletions.
            for _ in 0..rng.below(12) + 2 {
                let i = rng.below(live.len());
                live.remove(i);
            }
            // Changes: a sentence added, another document's text (an exact copy), or
            // a number changed.
            for _ in 0..rng.below(8) + 2 {
                let i = rng.below(live.len());
                let other = pool[rng.below(pool.len())]["content"].clone();
                let text = live[i]["content"].as_str().unwrap_or("").to_string();
                let new = match rng.below(3) {
                    0 => format!("{text}\nPlease keep this letter for your records 2024."),
                    1 => other.as_str().unwrap_or("").to_string(),
                    _ => text.replacen('1', "7", 1),
                };
                live[i].insert("content".into(), Value::String(new));
            }
            // A title change only: the text is the same.
            let i = rng.below(live.len());
            live[i].insert("title".into(), Value::String(format!("renamed {step}")));
            // Documents with owners: one given to another owner (the text the same).
            if pool[0].contains_key("owner") {
                let k = rng.below(live.len());
                let other = if live[k]["owner"] == 7 { 8 } else { 7 };
                live[k].insert("owner".into(), other.into());
            }
        }
        // Shuffled order: the index does not depend on the order of DOCS.
        for i in (1..live.len()).rev() {
            let j = rng.below(i + 1);
            live.swap(i, j);
        }
        write_docs(&docs, &live);
        let mut argv = vec!["--index", &index_arg, &docs_arg, "-v"];
        argv.extend(flags);
        let out = run("pl-index", &argv, b"");
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let got = ok(out);
        let mut sorted_docs = live.clone();
        sorted_docs.sort_by_key(|d| d["id"].as_u64());
        write_docs(&docs, &sorted_docs);
        let want = full_groups(d.path(), &docs, vars);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "step {step}: the index's groups differ from make groups ({stderr})"
        );
        assert!(!want.is_empty());
        // The pairs kept and held apart, too: a pair the index should have dropped may leave
        // the groups alone.
        let db = rusqlite::Connection::open(index.join("index.sqlite")).unwrap();
        let stored = |table: &str| -> Vec<(u64, u64, bool)> {
            let mut stmt = db
                .prepare(&format!("SELECT a, b FROM {table} ORDER BY a, b"))
                .unwrap();
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)? as u64,
                    r.get::<_, i64>(1)? as u64,
                    table == "apart",
                ))
            });
            rows.unwrap().map(Result::unwrap).collect()
        };
        // make writes the pairs held apart inside its components, the index every one: as
        // pl-score --apart-all on make's candidates, with make's scoring flags.
        let score_flags = vars
            .iter()
            .find_map(|v| v.strip_prefix("SCORE_FLAGS="))
            .unwrap_or("");
        let scored = ok(sh(
            &d.path().join("work"),
            &format!(
                "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --apart-all {score_flags}"
            ),
        ));
        let mut kept: Vec<(u64, u64, bool)> = ndjson(&scored)
            .iter()
            .map(|r| {
                let id = |k: &str| r[k].as_u64().unwrap();
                (id("a"), id("b"), r.get("apart").is_some())
            })
            .collect();
        kept.sort_unstable();
        let (apart, kept): (Vec<_>, Vec<_>) = kept.into_iter().partition(|p| p.2);
        assert_eq!(
            stored("pairs"),
            kept,
            "step {step}: the index keeps other pairs than make"
        );
        // With the bands pl-lsh found them by: an update counts again those of the pairs its
        // buckets reweighed.
        let bands_of = |recs: Vec<String>| -> Vec<(u64, u64, u64)> {
            let mut v: Vec<(u64, u64, u64)> = recs
                .iter()
                .map(|r| {
                    let r: Value = serde_json::from_str(r).unwrap();
                    let n = |k: &str| r[k].as_u64().unwrap_or(u64::MAX);
                    (n("a"), n("b"), n("bands"))
                })
                .collect();
            v.sort_unstable();
            v
        };
        let mut stmt = db.prepare("SELECT rec FROM pairs").unwrap();
        let recs = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
        let made: Vec<String> = String::from_utf8_lossy(&scored)
            .lines()
            .filter(|l| !l.contains("\"apart\""))
            .map(str::to_string)
            .collect();
        assert_eq!(
            bands_of(recs.map(Result::unwrap).collect()),
            bands_of(made),
            "step {step}: the index stores other bands than make's candidates have"
        );
        assert_eq!(
            stored("apart"),
            apart,
            "step {step}: the index holds other pairs apart"
        );
        rescored.push(stderr);
    }
    rescored
}

#[test]
fn other_parameters_and_formats_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let index = d.path().join("ix");
    let ix = index.display().to_string();
    let docs = repo().join("examples/docs.ndjson").display().to_string();
    ok(run(
        "pl-index",
        &["--index", &ix, &docs, "-q", "-o", "/dev/null"],
        b"",
    ));
    let out = run("pl-index", &["--index", &ix, &docs, "--bands", "16"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("built with --bands 32, asked for --bands 16") && err.contains(&ix),
        "{err}"
    );
    // The same parameters given explicitly are fine.
    ok(run(
        "pl-index",
        &["--index", &ix, &docs, "--bands", "32", "-q"],
        b"",
    ));
    // Another format is refused, naming both versions and the folder.
    let db = rusqlite::Connection::open(index.join("index.sqlite")).unwrap();
    db.execute("UPDATE meta SET value='99' WHERE key='format'", [])
        .unwrap();
    drop(db);
    let out = run("pl-check", &["--index", &ix], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "index format 99, this build reads format {}",
            pl_pipeline::index::FORMAT
        )) && err.contains(&ix),
        "{err}"
    );
    // No index: pl-check says how to build one.
    let none = d.path().join("none").display().to_string();
    let out = run("pl-check", &["--index", &none], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no index here"));
}

#[test]
fn check_finds_a_near_duplicate_and_exits_3() {
    let d = tempfile::tempdir().unwrap();
    let pool = examples();
    // A planted pair of the truth file: the first cluster with two members.
    let truth = std::fs::read_to_string(repo().join("examples/truth.ndjson")).unwrap();
    let mut by_cluster: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
    for l in truth.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        by_cluster
            .entry(v["cluster"].as_u64().unwrap())
            .or_default()
            .push(v["id"].as_u64().unwrap());
    }
    let groups = ok(run(
        "pl-index",
        &[
            "--index",
            &d.path().join("probe").display().to_string(),
            &repo().join("examples/docs.ndjson").display().to_string(),
        ],
        b"",
    ));
    // A document the full run groups with another, taken out of the index and checked.
    let first: Value =
        serde_json::from_slice(groups.split(|&b| b == b'\n').next().unwrap()).unwrap();
    let members: Vec<u64> = first["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let probe = *members.last().unwrap();
    assert!(by_cluster.values().any(|c| c.contains(&probe)));
    let rest: Vec<_> = pool
        .iter()
        .filter(|x| x["id"].as_u64() != Some(probe))
        .cloned()
        .collect();
    let docs = d.path().join("rest.ndjson");
    write_docs(&docs, &rest);
    let ix = d.path().join("ix").display().to_string();
    ok(run(
        "pl-index",
        &["--index", &ix, &docs.display().to_string(), "-q"],
        b"",
    ));
    let doc = pool
        .iter()
        .find(|x| x["id"].as_u64() == Some(probe))
        .unwrap();
    let line = serde_json::to_string(doc).unwrap() + "\n";
    let out = run("pl-check", &["--index", &ix], line.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["id"].as_u64(), Some(probe));
    let dups = rec["duplicates"].as_array().unwrap();
    let ids: Vec<u64> = dups.iter().map(|x| x["id"].as_u64().unwrap()).collect();
    assert!(
        members.iter().any(|m| *m != probe && ids.contains(m)),
        "{ids:?} holds a member of {members:?}"
    );
    let scores: Vec<f64> = dups.iter().map(|x| x["score"].as_f64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );
    assert!(
        dups[0].get("evidence").is_some(),
        "the verifier's explanation"
    );
    // Checking changes nothing; a text like no other finds nothing and exits 0.
    let odd = r#"{"id":999999,"title":"odd","content":"Zebra quartz violin 12 harbour lantern mosaic 88 orbit walnut fjord 31 cobalt meadow tulip 45 granite saffron pylon 77 ember lagoon"}"#;
    let out = run("pl-check", &["--index", &ix], format!("{odd}\n").as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["duplicates"], Value::Array(vec![]));
    // --add indexes the probe: the index's groups are then the full corpus's.
    let out = run(
        "pl-check",
        &["--index", &ix, "--add", "-q"],
        line.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(3));
    let after = ok(run("pl-index", &["--index", &ix, "--partial", "-q"], b""));
    assert_eq!(
        String::from_utf8_lossy(&after),
        String::from_utf8_lossy(&groups)
    );
}

#[test]
fn repeated_ids_and_bad_records_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let ix = d.path().join("ix").display().to_string();
    let twice = "{\"id\":1,\"content\":\"a b c\"}\n{\"id\":1,\"content\":\"d e f\"}\n";
    let out = run("pl-index", &["--index", &ix], twice.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: id 1 repeated"), "{err}");
    // (That first build did not finish: pl-check would refuse the index; build it.)
    ok(run(
        "pl-index",
        &["--index", &ix, "-q"],
        b"{\"id\":1,\"content\":\"a b c\"}\n",
    ));
    let out = run("pl-check", &["--index", &ix], b"{\"title\":\"no id\"}\n");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>: line 1: invalid record"), "{err}");
}

#[test]
fn a_killed_update_leaves_the_previous_index_usable() {
    let d = tempfile::tempdir().unwrap();
    let pool = examples();
    let first = d.path().join("first.ndjson");
    write_docs(&first, &pool[..200]);
    let all = repo().join("examples/docs.ndjson").display().to_string();
    let ix = d.path().join("ix").display().to_string();
    let before = ok(run(
        "pl-index",
        &["--index", &ix, &first.display().to_string()],
        b"",
    ));
    let fresh = d.path().join("fresh").display().to_string();
    let after = ok(run("pl-index", &["--index", &fresh, &all], b""));
    // An update of 120 documents killed at some point of its run.
    for delay_ms in [5, 40, 120] {
        let mut child = std::process::Command::new(crate::util::bin("pl-index"))
            .args(["--index", &ix, &all, "-q", "-o", "/dev/null"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        // The index answers with the groups before the update or after it, nothing between.
        let now = ok(run("pl-index", &["--index", &ix, "--partial"], b""));
        assert!(
            now == before || now == after,
            "killed after {delay_ms} ms: groups neither before nor after the update"
        );
        if now == after {
            // The update had finished: take it back for the next round.
            ok(run(
                "pl-index",
                &["--index", &ix, &first.display().to_string(), "-q"],
                b"",
            ));
            let back = ok(run("pl-index", &["--index", &ix, "--partial"], b""));
            assert_eq!(back, before);
        }
    }
    // And the next run completes it.
    let done = ok(run("pl-index", &["--index", &ix, &all], b""));
    assert_eq!(
        String::from_utf8_lossy(&done),
        String::from_utf8_lossy(&after)
    );
}
