//! The example corpus and the real-OCR fixture (examples/ocr/) against their truth: the groups
//! `make groups` makes of each must keep the precision and recall recorded in
//! tests/quality-floor.json, `{"example": pl-eval's JSON, "ocr": pl-eval's JSON}` (regenerate
//! both with `make quality-floor` after a real improvement; a drop fails here).

use crate::util::*;

/// Runs `make groups eval` with `vars` into a temporary WORK and checks its evaluation against
/// the floor recorded under `key`; returns the evaluation.
fn meets_the_floor(key: &str, vars: &[&str]) -> serde_json::Value {
    let d = tempfile::tempdir().unwrap();
    let work = d.path().join("work");
    ok(std::process::Command::new("make")
        .arg("-C")
        .arg(repo())
        .args(["groups", "eval"])
        .arg(format!("WORK={}", work.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .args(vars)
        .output()
        .unwrap());
    let got: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.join("eval.json")).unwrap()).unwrap();
    let floors: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo().join("tests/quality-floor.json")).unwrap())
            .unwrap();
    let floor = &floors[key];
    assert!(
        floor.is_object(),
        "tests/quality-floor.json has no {key:?} (make quality-floor)"
    );
    for (section, metric) in [
        ("pairs", "precision"),
        ("pairs", "recall"),
        ("pairs", "f1"),
        ("bcubed", "precision"),
        ("bcubed", "recall"),
    ] {
        let g = got[section][metric].as_f64().unwrap();
        let f = floor[section][metric].as_f64().unwrap();
        assert!(
            g >= f - 0.005,
            "{key}: {section} {metric} fell to {g:.4}, recorded {f:.4}"
        );
    }
    got
}

#[test]
fn demo_groups_meet_the_recorded_quality() {
    let got = meets_the_floor("example", &[]);
    // The planted groups are there: most true pairs are found at all.
    assert!(got["pairs"]["recall"].as_f64().unwrap() > 0.5);
}

#[test]
fn real_ocr_groups_meet_the_recorded_quality() {
    let got = meets_the_floor(
        "ocr",
        &[
            "DOCS=examples/ocr/docs.ndjson",
            "TRUTH=examples/ocr/truth.ndjson",
        ],
    );
    // The truth's CER buckets reach past the generator's 10 % ("scan" records are read too).
    assert!(got["by_noise"][">15%"]["pairs"].as_u64().unwrap() > 0);
}
