//! The stage modes of a run over several machines (docs/SCALE.md), each against the
//! one-machine stage it stands in for: pl-lsh --emit band-keys | --from-keys, pl-score
//! --count-corpus / --corpus-counts, pl-cluster --renumber.

use crate::util::*;

/// The example corpus through the default pipeline (head and tail sketches too).
fn example_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let docs = std::fs::read(repo().join("examples/docs.ndjson")).unwrap();
    write(d.path(), "docs.ndjson", &docs);
    ok(sh(
        d.path(),
        "pl-normalize -q docs.ndjson -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
         && pl-minhash -q norm.ndjson --part head:60 -o heads.bin \
         && pl-minhash -q norm.ndjson --part tail:60 -o tails.bin \
         && pl-lsh -q sigs.bin --also heads.bin --also tails.bin -o cands.ndjson \
         && pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson --threshold 0.65 -o scores.ndjson \
         && pl-cluster -q scores.ndjson --docs norm.ndjson -o groups.ndjson",
    ));
    d
}

fn read(d: &tempfile::TempDir, name: &str) -> Vec<u8> {
    std::fs::read(d.path().join(name)).unwrap()
}

#[test]
fn band_keys_in_any_order_give_pl_lsh_candidates() {
    let d = example_dir();
    for flags in [
        "",
        "--min-band-matches 3",
        "--bands 64",
        "--evidence-bucket 0",
        "--evidence-bucket 3",
    ] {
        let sketches = "sigs.bin --also heads.bin --also tails.bin";
        let want = ok(sh(d.path(), &format!("pl-lsh -q {sketches} {flags}")));
        let got = ok(sh(
            d.path(),
            &format!(
                "pl-lsh -q {sketches} {flags} --emit band-keys | sort -r | pl-lsh -q --from-keys {flags}"
            ),
        ));
        assert_eq!(got, want, "flags {flags:?}: candidates differ");
        let want = String::from_utf8(want).unwrap();
        assert!(want.lines().count() > 100, "{flags}");
        assert!(
            want.contains("\"copy\":true"),
            "the corpus has copies: the collapse is tested"
        );
    }
    // One partial run over every bucket counts what pl-lsh counts (sketch 0, no collapse): its
    // band counts are every pair's, its evidence what --evidence-bucket asks of them.
    let rows = String::from_utf8(ok(sh(
        d.path(),
        "pl-lsh -q sigs.bin --emit band-keys --no-collapse",
    )))
    .unwrap();
    assert!(
        rows.lines().all(|l| l.starts_with("{\"sketch\":0,")),
        "no copy rows"
    );
    let partial = String::from_utf8(ok(run(
        "pl-lsh",
        &["-q", "--from-keys", "--partial"],
        rows.as_bytes(),
    )))
    .unwrap();
    let cands = |flags: &str| {
        String::from_utf8(ok(sh(
            d.path(),
            &format!("pl-lsh -q sigs.bin --no-collapse {flags}"),
        )))
        .unwrap()
    };
    let as_cands = |least: u64| -> String {
        ndjson(partial.as_bytes())
            .iter()
            .filter(|r| r["evidence"].as_u64().unwrap() >= least)
            .map(|r| {
                format!(
                    "{{\"a\":{},\"b\":{},\"bands\":{}}}\n",
                    r["a"], r["b"], r["bands"]
                )
            })
            .collect()
    };
    assert_eq!(as_cands(0), cands("--evidence-bucket 0"));
    // The default asks one bucket of 7 documents' weight, 720720 / 6.
    let want = cands("");
    assert_eq!(as_cands(120_120), want);
    assert!(
        want.lines().count() < as_cands(0).lines().count(),
        "the rule drops some pairs"
    );
}

/// pl-lsh --numbers on the real-OCR fixture: pairs sharing rare numbers are added with no
/// band, the bands' pairs unchanged; the same pairs through band-key rows (as pl-spark runs
/// it), and their number rows refused by a partial run.
#[test]
fn number_pairs_are_added_to_the_bands_and_found_from_key_rows_too() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/ocr/docs.ndjson");
    ok(sh(
        d.path(),
        &format!(
            "pl-normalize -q {} -o norm.ndjson && pl-minhash -q norm.ndjson -o sigs.bin \
             && pl-minhash -q norm.ndjson --part head:60 -o heads.bin",
            docs.display()
        ),
    ));
    // Every band's pair proposed (no evidence asked), so that the numbers' pairs stand apart.
    let sketches = "sigs.bin --also heads.bin --evidence-bucket 0";
    let bands = ndjson(&ok(sh(d.path(), &format!("pl-lsh -q {sketches}"))));
    let out = sh(
        d.path(),
        &format!("pl-lsh -v {sketches} --numbers norm.ndjson"),
    );
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    let with = ok(out);
    let both = ndjson(&with);
    assert!(
        log.contains("pairs share two numbers that at most 6 documents hold"),
        "{log}"
    );
    let by_pair =
        |v: &[serde_json::Value]| -> std::collections::BTreeMap<(u64, u64), serde_json::Value> {
            v.iter().map(|r| (pair_of(r), r.clone())).collect()
        };
    let (old, new) = (by_pair(&bands), by_pair(&both));
    for (p, r) in &old {
        assert_eq!(new.get(p), Some(r), "a band's pair changed");
    }
    let added: Vec<&serde_json::Value> = new
        .iter()
        .filter(|(p, _)| !old.contains_key(p))
        .map(|(_, r)| r)
        .collect();
    assert!(added.len() >= 100, "{} pairs added", added.len());
    assert!(added
        .iter()
        .all(|r| r["bands"] == 0 && r.get("copy").is_none()));
    // Many added pairs are duplicates the bands missed (the scorer sorts the rest out).
    let truth: std::collections::BTreeMap<u64, u64> =
        ndjson(&std::fs::read(repo().join("examples/ocr/truth.ndjson")).unwrap())
            .iter()
            .map(|t| (t["id"].as_u64().unwrap(), t["cluster"].as_u64().unwrap()))
            .collect();
    let true_pairs = added
        .iter()
        .filter(|r| truth[&r["a"].as_u64().unwrap()] == truth[&r["b"].as_u64().unwrap()])
        .count();
    assert!(true_pairs >= 50, "{true_pairs} of {} true", added.len());
    // The rows of pl-spark's keys stage, in any order, give the same candidates.
    let rows = ok(sh(
        d.path(),
        &format!(
            "pl-lsh -q {sketches} --numbers norm.ndjson --emit band-keys | sort -r > rows.ndjson"
        ),
    ));
    assert!(rows.is_empty());
    let got = ok(sh(
        d.path(),
        "pl-lsh -q --from-keys rows.ndjson --evidence-bucket 0",
    ));
    assert_eq!(got, with, "candidates from the rows differ");
    let out = sh(
        d.path(),
        "grep '\"number\"' rows.ndjson | pl-lsh -q --from-keys --partial",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !out.status.success() && err.contains("number rows are not taken with --partial"),
        "{err}"
    );
}

#[test]
fn keyed_mode_errors_name_the_input_and_record() {
    let bad = [
        (
            "{\"sketch\":0,\"band\":0,\"key\":\"zz\",\"id\":1}\n",
            "<stdin>: line 1: \"key\" is not 16 hex digits",
        ),
        (
            "{\"sketch\":0,\"band\":0,\"key\":\"00000000000000aa\",\"id\":1}\n{\"band\":1,\"id\":2}\n",
            "<stdin>: line 2: a band-key row has",
        ),
        (
            "{\"sketch\":0,\"band\":0,\"key\":\"00000000000000aa\",\"id\":1,\"extra\":1}\n",
            "<stdin>: line 1: not a band-key row: unknown field `extra`",
        ),
        (
            "{\"sketch\":0,\"band\":0,\"key\":\"00000000000000aa\",\"id\":1}\n{\"sketch\":0,\"band\":0,\"key\":\"00000000000000bb\",\"id\":1}\n",
            "<stdin>: document 1 is in two buckets of band 0 of sketch 0",
        ),
    ];
    for (input, want) in bad {
        let out = run("pl-lsh", &["--from-keys"], input.as_bytes());
        assert!(!out.status.success(), "{input}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "want {want:?} in {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let out = run(
        "pl-lsh",
        &["--from-keys", "--partial"],
        b"{\"copy\":\"00000000000000000000000000000001000000000000000000000000000000aa\",\"id\":1}\n",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("copy rows are not taken with --partial"));
}

/// --numbers refuses what pl-lsh cannot read as pl-normalize's output, naming the file and
/// its line, and a number row with other fields; writes nothing then.
#[test]
fn number_inputs_that_cannot_be_read_are_refused() {
    let d = example_dir();
    let norm = String::from_utf8(read(&d, "norm.ndjson")).unwrap();
    let first = norm.lines().next().unwrap().to_string();
    for (name, text, want) in [
        (
            "nonorm.ndjson",
            format!("{first}\n{{\"id\":99999}}\n"),
            "nonorm.ndjson: line 2: missing \"norm\": give pl-normalize's output",
        ),
        (
            "twice.ndjson",
            format!("{first}\n{first}\n"),
            "twice.ndjson: line 2:",
        ),
        (
            "cut.ndjson",
            format!("{first}\n{{\"id\":5,\"norm\":\"a"),
            "cut.ndjson: line 2:",
        ),
    ] {
        write(d.path(), name, text.as_bytes());
        let out = sh(
            d.path(),
            &format!("pl-lsh -q sigs.bin --numbers {name} -o c.ndjson"),
        );
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "{name}");
        assert!(
            err.contains(want) && err.lines().count() == 1,
            "{name}: {err}"
        );
        assert!(
            !d.path().join("c.ndjson").exists(),
            "{name}: an output was left"
        );
    }
    let out = run(
        "pl-lsh",
        &["-q", "--from-keys"],
        b"{\"number\":\"00000000000000aa\",\"key\":\"00000000000000aa\",\"id\":1}\n",
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !out.status.success() && err.contains("line 1: a number row has"),
        "{err}"
    );
}

/// What a corpus-counts record counts (`None`: the header).
fn count_key(v: &serde_json::Value) -> Option<String> {
    let keys: Vec<String> = ["token", "word", "text"]
        .iter()
        .filter_map(|k| v.get(*k).map(|h| format!("{k} {h}")))
        .collect();
    assert!(keys.len() <= 1, "one kind of entry a record: {v}");
    keys.into_iter().next()
}

/// The corpus cut in three: the parts' counts added up are the corpus's, and the pairs of
/// one part's documents, scored with a norm file of only those documents and the counts,
/// score as in the whole corpus (and differently without the counts).
#[test]
fn corpus_counts_make_a_part_score_as_the_whole() {
    let d = example_dir();
    ok(sh(
        d.path(),
        "split -n l/3 -d norm.ndjson part && for p in part00 part01 part02; do \
           pl-score -q --count-corpus --norm $p -o $p.counts; done \
         && pl-score -q --count-corpus --norm norm.ndjson -o whole.counts",
    ));
    let mut sum: std::collections::BTreeMap<String, u64> = Default::default();
    let mut header = (0u64, None);
    for p in ["part00", "part01", "part02"] {
        for line in String::from_utf8(read(&d, &format!("{p}.counts")))
            .unwrap()
            .lines()
        {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let n = v["documents"].as_u64().unwrap();
            match count_key(&v) {
                Some(k) => *sum.entry(k).or_default() += n,
                None => header = (header.0 + n, v.get("max_words").cloned()),
            }
        }
    }
    let mut whole: std::collections::BTreeMap<String, u64> = Default::default();
    let whole_text = String::from_utf8(read(&d, "whole.counts")).unwrap();
    let mut merged = String::new();
    for line in whole_text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let n = v["documents"].as_u64().unwrap();
        match count_key(&v) {
            Some(k) => {
                whole.insert(k, n);
            }
            None => assert_eq!((n, v.get("max_words").cloned()), header),
        }
        // Counts of one may be left out.
        if n >= 2 {
            merged.push_str(line);
            merged.push('\n');
        }
    }
    assert_eq!(sum, whole);
    assert!(whole.len() > 1000, "{}", whole.len());
    assert!(
        whole.iter().any(|(k, &n)| k.starts_with("text") && n >= 2),
        "the re-uploads' texts are counted"
    );
    write(d.path(), "merged.counts", merged.as_bytes());
    // The pairs of part01's documents, and a norm file of only their documents.
    let part: std::collections::HashSet<u64> = String::from_utf8(read(&d, "part01"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let (mut cands, mut need) = (String::new(), std::collections::HashSet::new());
    for line in String::from_utf8(read(&d, "cands.ndjson")).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (a, b) = (v["a"].as_u64().unwrap(), v["b"].as_u64().unwrap());
        if part.contains(&a) || part.contains(&b) {
            cands.push_str(line);
            cands.push('\n');
            need.extend([a, b]);
        }
    }
    let sub: String = String::from_utf8(read(&d, "norm.ndjson"))
        .unwrap()
        .lines()
        .filter(|l| {
            need.contains(
                &serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .map(|l| format!("{l}\n"))
        .collect();
    write(d.path(), "sub.cands", cands.as_bytes());
    write(d.path(), "sub.norm", sub.as_bytes());
    let score = |norm: &str, extra: &str| {
        ok(sh(
            d.path(),
            &format!(
                "pl-score -q sub.cands --sigs sigs.bin --norm {norm} --threshold 0.65 {extra}"
            ),
        ))
    };
    let want = score("norm.ndjson", "");
    assert!(want.len() > 1000);
    assert_eq!(score("sub.norm", "--corpus-counts merged.counts"), want);
    assert_ne!(
        score("sub.norm", ""),
        want,
        "the counts make the difference"
    );
    // Counts that do not hold the file's documents, or of another --max-words, are refused.
    let out = sh(
        d.path(),
        "pl-score -q sub.cands --sigs sigs.bin --norm norm.ndjson --corpus-counts part00.counts",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("norm.ndjson: the corpus counts do not hold"),
        "{err}"
    );
    let out = sh(
        d.path(),
        "pl-score -q sub.cands --sigs sigs.bin --norm sub.norm --corpus-counts merged.counts --max-words 50",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--max-words 20000, this run has 50"),
        "{err}"
    );
}

#[test]
fn renumbered_groups_of_split_runs_are_the_whole_run() {
    let d = example_dir();
    // Scores split by connected component (whole components per run).
    let groups = String::from_utf8(read(&d, "groups.ndjson")).unwrap();
    let scores = String::from_utf8(read(&d, "scores.ndjson")).unwrap();
    let pair = |line: &str| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        (v["a"].as_u64().unwrap(), v["b"].as_u64().unwrap())
    };
    let mut root: std::collections::HashMap<u64, u64> = Default::default();
    fn find(root: &mut std::collections::HashMap<u64, u64>, x: u64) -> u64 {
        let p = *root.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = find(root, p);
        root.insert(x, r);
        r
    }
    for line in scores.lines() {
        let (a, b) = pair(line);
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        root.insert(ra.max(rb), ra.min(rb));
    }
    let mut part_of = std::collections::HashMap::new();
    for line in scores.lines() {
        let r = find(&mut root, pair(line).0);
        let next = part_of.len() % 3;
        part_of.entry(r).or_insert(next);
    }
    assert!(part_of.len() > 10, "{} components", part_of.len());
    let mut parts = [String::new(), String::new(), String::new()];
    for line in scores.lines() {
        let k = part_of[&find(&mut root, pair(line).0)];
        parts[k].push_str(line);
        parts[k].push('\n');
    }
    for (i, p) in parts.iter().enumerate() {
        write(d.path(), &format!("s{i}"), p.as_bytes());
    }
    let out = ok(sh(
        d.path(),
        "for i in 0 1 2; do pl-cluster -q s$i --docs norm.ndjson; done | pl-cluster -q --renumber",
    ));
    assert_eq!(out, groups.as_bytes());
    let twice = format!("{groups}{}", groups.lines().next().unwrap());
    let out = run("pl-cluster", &["--renumber"], twice.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("<stdin>: document") && err.contains("in two groups"),
        "{err}"
    );
}

/// pl-spark applies the rule pl-lsh --print-rule states for its parameters (no constant of
/// its own): the flags as given, the evidence a pair needs (one bucket of --evidence-bucket
/// documents' weight), and the numbers' rule; a rule pl-lsh refuses is refused here too.
#[test]
fn the_printed_band_rule_is_the_flags_rule() {
    let sheet = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["--print-rule"];
        all.extend_from_slice(args);
        serde_json::from_slice(&ok(run("pl-lsh", &all, b""))).unwrap()
    };
    let d = sheet(&[]);
    assert_eq!(d["min_band_matches"], 1);
    assert_eq!(d["max_bucket"], 50);
    assert_eq!(d["evidence_bucket"], 7);
    assert_eq!(
        d["needed"].as_u64().unwrap(),
        d["evidence_unit"].as_u64().unwrap() / 6
    );
    assert_eq!(
        (d["number_bucket"].as_u64(), d["number_matches"].as_u64()),
        (Some(6), Some(2))
    );
    let s = sheet(&[
        "--bands",
        "64",
        "--min-band-matches",
        "40",
        "--max-bucket",
        "0",
        "--evidence-bucket",
        "3",
    ]);
    assert_eq!(
        (s["min_band_matches"].as_u64(), s["max_bucket"].as_u64()),
        (Some(40), Some(0))
    );
    assert_eq!(
        s["needed"].as_u64().unwrap(),
        s["evidence_unit"].as_u64().unwrap() / 2
    );
    assert_eq!(sheet(&["--evidence-bucket", "0"])["needed"], 0);
    let refused = run("pl-lsh", &["--print-rule", "--evidence-bucket", "1"], b"");
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.lines()
            .next()
            .unwrap()
            .contains("a bucket of 1 document pairs nobody"),
        "{err}"
    );
    assert!(refused.stdout.is_empty());
}
