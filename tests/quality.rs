//! The example corpus against its truth: the demo's groups must keep the precision and recall
//! recorded in tests/quality-floor.json (regenerate with `make quality-floor` after a real
//! improvement; a drop fails here).

use crate::util::*;

#[test]
fn demo_groups_meet_the_recorded_quality() {
    let d = tempfile::tempdir().unwrap();
    let work = d.path().join("work");
    ok(std::process::Command::new("make")
        .arg("-C")
        .arg(repo())
        .args(["groups", "eval"])
        .arg(format!("WORK={}", work.display()))
        .arg(format!("BIN={}", bin_dir().display()))
        .arg("CARGO_BUILD=true")
        .output()
        .unwrap());
    let got: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.join("eval.json")).unwrap()).unwrap();
    let floor: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo().join("tests/quality-floor.json")).unwrap())
            .unwrap();
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
            "{section} {metric} fell to {g:.4}, recorded {f:.4}"
        );
    }
    // The planted groups are there: most true pairs are found at all.
    assert!(got["pairs"]["recall"].as_f64().unwrap() > 0.5);
}
