//! The other methods: the character-trigram index (against brute force), the trials preset,
//! `pl-lsh --explain` / `--trials-table`, and the Makefile presets on the example corpus.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::*;

const TRIGRAM: &str = env!("CARGO_BIN_EXE_pl-trigram");

fn trigram(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(TRIGRAM)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("pl-trigram runs")
}

/// A dir holding the example corpus normalized (norm.ndjson).
fn example_norm() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/docs.ndjson");
    ok(run_in(
        Some(d.path()),
        "pl-normalize",
        &[docs.to_str().unwrap(), "-o", "norm.ndjson"],
        b"",
    ));
    d
}

/// An independent brute force: every pair of the norm file, the sets of character triples
/// of `norm`'s digits view (its numbers' signs, separators, units, comparisons and brackets
/// left out)
/// compared directly.
/// Returns every pair's (a, b, overlap, max size).
fn brute(norm: &[serde_json::Value]) -> Vec<(u64, u64, usize, usize)> {
    type Triples = Vec<(char, char, char)>;
    let sets: Vec<(u64, Triples)> = norm
        .iter()
        .map(|r| {
            let chars: Vec<char> = r["norm"]
                .as_str()
                .unwrap()
                .chars()
                .filter(|c| !".,/:-()$%‰‱€£¥¢₹<>~≤≥≦≧≈±∓＜＞".contains(*c))
                .collect();
            let mut s: Vec<_> = chars.windows(3).map(|w| (w[0], w[1], w[2])).collect();
            s.sort_unstable();
            s.dedup();
            (r["id"].as_u64().unwrap(), s)
        })
        .collect();
    let mut out = Vec::new();
    for (i, (p, a)) in sets.iter().enumerate() {
        for (q, b) in &sets[i + 1..] {
            let (mut x, mut y, mut common) = (0, 0, 0usize);
            while x < a.len() && y < b.len() {
                match a[x].cmp(&b[y]) {
                    std::cmp::Ordering::Less => x += 1,
                    std::cmp::Ordering::Greater => y += 1,
                    std::cmp::Ordering::Equal => {
                        common += 1;
                        x += 1;
                        y += 1;
                    }
                }
            }
            out.push((*p.min(q), *p.max(q), common, a.len().max(b.len())));
        }
    }
    out
}

#[test]
fn trigram_index_equals_brute_force_on_the_example_corpus() {
    let d = example_norm();
    let norm = ndjson(&std::fs::read(d.path().join("norm.ndjson")).unwrap());
    let all_pairs = norm.len() * (norm.len() - 1) / 2;
    let every = brute(&norm);
    assert_eq!(every.len(), all_pairs);
    for t in ["0.5", "0.75", "0.9"] {
        let out = trigram(d.path(), &["-v", "--threshold", t, "norm.ndjson"]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let got = ok(out);
        let tf: f64 = t.parse().unwrap();
        let want: BTreeMap<(u64, u64), f64> = every
            .iter()
            .filter(|&&(_, _, o, m)| m > 0 && o as f64 / m as f64 >= tf)
            .map(|&(a, b, o, m)| ((a, b), o as f64 / m as f64))
            .collect();
        assert!(!want.is_empty(), "t={t}: the corpus has pairs");
        let pairs = ndjson(&got);
        let got_map: BTreeMap<(u64, u64), f64> = pairs
            .iter()
            .map(|p| {
                let (a, b) = (p["a"].as_u64().unwrap(), p["b"].as_u64().unwrap());
                assert!(a < b, "{p}");
                assert_eq!(p["score"], p["trigram"], "{p}");
                ((a, b), p["score"].as_f64().unwrap())
            })
            .collect();
        assert_eq!(got_map.len(), pairs.len(), "t={t}: each pair once");
        let keys = |m: &BTreeMap<(u64, u64), f64>| m.keys().copied().collect::<Vec<_>>();
        assert_eq!(keys(&got_map), keys(&want), "t={t}: same pair set");
        for (k, s) in &want {
            assert!(
                (got_map[k] - s).abs() <= 5e-7,
                "t={t} {k:?}: {} vs {s}",
                got_map[k]
            );
        }
        let sorted: Vec<(u64, u64)> = pairs
            .iter()
            .map(|p| (p["a"].as_u64().unwrap(), p["b"].as_u64().unwrap()))
            .collect();
        assert!(sorted.windows(2).all(|w| w[0] < w[1]), "sorted by (a, b)");
        // The --brute-force reference gives the same bytes.
        let bf = ok(trigram(
            d.path(),
            &["--brute-force", "--threshold", t, "norm.ndjson"],
        ));
        assert_eq!(bf, got, "t={t}: --brute-force equals the index");
        // The index verified only a part of all pairs (the count is in the -v report).
        let verified: usize = err
            .split(" verified")
            .next()
            .and_then(|s| s.rsplit(", ").next())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| panic!("no verified count in: {err}"));
        assert!(
            verified < all_pairs / 4,
            "t={t}: {verified} of {all_pairs}: {err}"
        );
        assert!(
            verified >= want.len(),
            "every pair found was verified: {err}"
        );
    }
}

#[test]
fn trigram_output_is_the_same_with_one_thread() {
    let d = example_norm();
    let many = ok(trigram(d.path(), &["norm.ndjson"]));
    let one = ok(trigram(d.path(), &["--threads", "1", "norm.ndjson"]));
    assert_eq!(many, one);
    assert!(!many.is_empty());
}

#[test]
fn trigram_pairs_make_groups() {
    let d = example_norm();
    let groups = ndjson(&ok(sh(
        d.path(),
        "pl-trigram norm.ndjson | pl-cluster --docs norm.ndjson",
    )));
    assert!(!groups.is_empty());
    assert!(groups[0]["jaccard"].is_null() && groups[0]["fuzzy"].is_null());
    assert!(groups[0]["confidence"].as_f64().unwrap() >= 0.75);
}

#[test]
fn trigram_errors_name_the_input_and_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "no-norm.ndjson",
        b"{\"id\":1,\"norm\":\"abc def\"}\n{\"id\":2,\"content\":\"x\"}\n",
    );
    fails(
        trigram(d.path(), &["no-norm.ndjson"]),
        1,
        "pl-trigram",
        &["no-norm.ndjson", "line 2", "norm", "pl-normalize"],
    );
    write(
        d.path(),
        "dup.ndjson",
        b"{\"id\":1,\"norm\":\"abc def\"}\n\n{\"id\":1,\"norm\":\"abc deg\"}\n",
    );
    fails(
        trigram(d.path(), &["dup.ndjson"]),
        1,
        "pl-trigram",
        &["dup.ndjson", "line 3", "duplicate id 1"],
    );
    // --skip-invalid goes on past both, counting them; the short one is never paired.
    write(
        d.path(),
        "mixed.ndjson",
        b"{\"id\":1,\"norm\":\"abc def\"}\nnot json\n{\"id\":2,\"norm\":\"abc def\"}\n{\"id\":3,\"norm\":\"ab\"}\n",
    );
    let out = trigram(d.path(), &["--skip-invalid", "mixed.ndjson"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let pairs = ndjson(&ok(out));
    assert_eq!(pairs.len(), 1);
    assert_eq!((&pairs[0]["a"], &pairs[0]["b"]), (&1.into(), &2.into()));
    assert!(err.contains("skipped 1 invalid"), "{err}");
    assert!(
        err.contains("1 documents have fewer than 3 characters"),
        "{err}"
    );
    let out = trigram(d.path(), &["--threshold", "0", "mixed.ndjson"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold"));
}

#[test]
fn explain_reports_the_share_missed_at_the_threshold() {
    let out = String::from_utf8(ok(run("pl-lsh", &["--explain"], b""))).unwrap();
    // The lines scripts/tuning_table.sh and the pipeline test read stay as they were.
    assert!(
        out.contains("K=256 permutations, 32 bands x 8 rows"),
        "{out}"
    );
    assert!(out.contains("\n      0.75       0.9658\n"), "{out}");
    assert!(out.contains("50% at similarity 0.619"), "{out}");
    assert!(
        out.contains("at the threshold 0.65: P(candidate) 0.6452, expected share of pairs missed by LSH 35.48%"),
        "{out}"
    );
    let rows = out
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("0.") || l.starts_with("1.")
        })
        .count();
    assert_eq!(rows, 11, "0.50 to 1.00 in steps of 0.05: {out}");
    // The trials preset: 6 bands of 14 rows, at least 2; at 0.9 the published 41.5%.
    let t = String::from_utf8(ok(run(
        "pl-lsh",
        &[
            "--explain",
            "--perms",
            "84",
            "--bands",
            "6",
            "--min-band-matches",
            "2",
            "--threshold",
            "0.9",
        ],
        b"",
    )))
    .unwrap();
    assert!(t.contains("6 bands x 14 rows, at least 2 band(s)"), "{t}");
    assert!(t.contains("\n      0.90       0.4151\n"), "{t}");
    assert!(t.contains("missed by LSH 58.49%"), "{t}");
    let out = run("pl-lsh", &["--explain", "--threshold", "2"], b"");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold"));
}

#[test]
fn trials_table_is_printed_from_the_formula() {
    let out = String::from_utf8(ok(run("pl-lsh", &["--trials-table"], b""))).unwrap();
    assert!(
        out.contains("| 14 | 84 | 2.6% | 12.0% | 41.5% | 87.9% | 100.0% |"),
        "{out}"
    );
    assert!(out.contains("| 10 | 60 | 12.9% | 33.7% |"), "{out}");
    assert!(out.contains("| 20 | 120 | 0.2% |"), "{out}");
    assert_eq!(out.lines().count(), 8, "header, rule, 6 rows: {out}");
}

#[test]
fn presets_run_each_method_on_the_example_corpus() {
    let d = tempfile::tempdir().unwrap();
    let work = d.path().join("work");
    let out = std::process::Command::new("make")
        .arg("-C")
        .arg(repo())
        .arg("presets")
        .arg(format!("WORK={}", work.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .output()
        .unwrap();
    let stdout = String::from_utf8(ok(out)).unwrap();
    for (preset, groups) in [
        ("preset-reference", "groups.ndjson"),
        ("preset-minhash", "groups.ndjson"),
        ("preset-oph", "groups.ndjson"),
        ("preset-chars", "groups.ndjson"),
        ("preset-trials", "groups.ndjson"),
        ("preset-trigram", "trigram-groups.ndjson"),
    ] {
        let dir = work.join(preset);
        let g = ndjson(&std::fs::read(dir.join(groups)).unwrap());
        assert!(!g.is_empty(), "{preset}: no groups");
        let eval: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("eval.json")).unwrap()).unwrap();
        for m in ["precision", "recall"] {
            let v = eval["pairs"][m].as_f64().unwrap();
            assert!(v > 0.0 && v <= 1.0, "{preset}: pairs {m} {v}");
        }
        assert!(
            stdout.contains(&format!("== {preset}: ")),
            "{preset}: no table in:\n{stdout}"
        );
    }
    assert_eq!(stdout.matches("pairs   precision").count(), 6, "{stdout}");
    // Each preset ran with its own parameters, in its own directory.
    let read = |p: &str| std::fs::read_to_string(work.join(p)).unwrap();
    assert_eq!(read("preset-trials/shingle.params"), "words 2 20\n");
    assert_eq!(read("preset-trials/minhash.params"), "84 42 classic\n");
    assert_eq!(read("preset-oph/minhash.params"), "256 42 oph\n");
    assert_eq!(read("preset-trials/lsh.params"), "6 2 50 0 0 0 20000\n");
    assert_eq!(read("preset-minhash/lsh.params"), "32 1 50 7 60 1 20000\n");
    assert_eq!(
        read("preset-reference/cluster.params"),
        "--linkage single\n"
    );
    assert_eq!(read("preset-chars/shingle.params"), "chars 5 20\n");
    assert!(work.join("preset-trigram/trigram-pairs.ndjson").exists());
    assert!(
        !work.join("preset-trigram/sigs.bin").exists(),
        "no MinHash for trigrams"
    );
}
