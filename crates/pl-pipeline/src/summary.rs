//! What a run's groups say at its end (`pl-dedupe run`): how many there are, and why any
//! stands below the threshold. A group's confidence is its strongest pair's score, so a group
//! below the threshold is one whose every pair is; pl-score keeps such a pair only when the
//! verifier decided it on the rare numbers both texts hold (`"by_numbers":true` on its line).
//! Reads the groups once and the scores once, holding only the pairs of the groups below.

use std::path::Path;

use anyhow::Result;
use pl_core::fields::get_u64;
use pl_core::text_records::GroupRecord;
use rustc_hash::FxHashSet;

use crate::io::open_input;
use crate::ndjson::NdjsonReader;

/// The groups of a run, counted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Groups in the file.
    pub groups: u64,
    /// Groups whose confidence is below the threshold.
    pub low: u64,
    /// Of those, the groups whose strongest pair the rare numbers kept (`by_numbers`).
    pub by_numbers: u64,
    /// The strongest pair of the first group below the threshold that the numbers did not
    /// keep (the one to ask `why` about).
    pub unexplained: Option<[u64; 2]>,
    /// Whether the scores were read: without them (an index's groups) no group below the
    /// threshold is known to be kept by its numbers.
    pub scored: bool,
}

/// Counts the groups of `groups` and those under `threshold`, and reads `scores` (pl-score's
/// output the groups were made from; `None` when there is none, as for an index's groups)
/// for why each of those was kept.
pub fn summarize(groups: &Path, scores: Option<&Path>, threshold: f64) -> Result<Summary> {
    let mut reader = NdjsonReader::new(open_input(Some(groups))?, false);
    let mut summary = Summary {
        scored: scores.is_some(),
        ..Summary::default()
    };
    // The strongest pair of each group below the threshold, in file order.
    let mut low: Vec<[u64; 2]> = Vec::new();
    while let Some(g) = reader.next_with(|o| GroupRecord::from_obj(o).map_err(|e| e.to_string()))? {
        summary.groups += 1;
        if g.confidence < threshold {
            summary.low += 1;
            if let Some([a, b]) = g.pair {
                low.push([a.min(b), a.max(b)]);
            }
        }
    }
    let mut kept: FxHashSet<[u64; 2]> = FxHashSet::default();
    if let (Some(path), false) = (scores, low.is_empty()) {
        let wanted: FxHashSet<[u64; 2]> = low.iter().copied().collect();
        let mut reader = NdjsonReader::new(open_input(Some(path))?, false);
        while let Some(pair) = reader.next_with(|o| {
            let id = |k: &str| get_u64(&o, k).map_err(|e| e.to_string());
            let (a, b) = (id("a")?, id("b")?);
            let numbers = o.get("by_numbers").and_then(|v| v.as_bool()) == Some(true);
            Ok(numbers.then_some([a.min(b), a.max(b)]))
        })? {
            if let Some(p) = pair.filter(|p| wanted.contains(p)) {
                kept.insert(p);
            }
        }
    }
    summary.by_numbers = low.iter().filter(|p| kept.contains(*p)).count() as u64;
    summary.unexplained = low.into_iter().find(|p| !kept.contains(p));
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    const GROUPS: &str = "\
{\"group\":1,\"confidence\":0.98,\"pair\":[1,2],\"primary\":1,\"members\":[1,2]}
{\"group\":2,\"confidence\":0.44,\"pair\":[7,3],\"primary\":3,\"members\":[3,7]}
{\"group\":3,\"confidence\":0.29,\"pair\":[8,9],\"primary\":8,\"members\":[8,9]}
";

    #[test]
    fn groups_below_the_threshold_are_told_apart_by_what_kept_them() {
        let d = tempfile::tempdir().unwrap();
        let groups = file(d.path(), "groups.ndjson", GROUPS);
        let scores = file(
            d.path(),
            "scores.ndjson",
            "{\"a\":1,\"b\":2,\"score\":0.98}\n{\"a\":3,\"b\":7,\"score\":0.44,\"by_numbers\":true}\n\
             {\"a\":8,\"b\":9,\"score\":0.29}\n{\"a\":4,\"b\":5,\"apart\":true}\n",
        );
        let s = summarize(&groups, Some(&scores), 0.65).unwrap();
        assert_eq!(
            s,
            Summary {
                groups: 3,
                low: 2,
                by_numbers: 1,
                unexplained: Some([8, 9]),
                scored: true,
            }
        );
        // Under a lower threshold none is below it; without scores none is explained.
        assert_eq!(summarize(&groups, Some(&scores), 0.2).unwrap().low, 0);
        let s = summarize(&groups, None, 0.65).unwrap();
        assert_eq!(
            (s.low, s.by_numbers, s.unexplained, s.scored),
            (2, 0, Some([3, 7]), false)
        );
    }

    #[test]
    fn a_bad_line_is_named_with_its_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let groups = file(d.path(), "groups.ndjson", "{\"group\":1}\n");
        let err = format!("{:#}", summarize(&groups, None, 0.65).unwrap_err());
        assert!(err.contains("groups.ndjson: line 1: "), "{err}");
    }
}
