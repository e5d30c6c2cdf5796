//! What a run's groups say at its end (`pl-dedupe run`): how many there are, and how sure
//! the least sure of them is. A group's confidence is its strongest pair's score, the match
//! probability the threshold gates, so that is the dial a user turns for fewer, surer groups.

use std::path::Path;

use anyhow::Result;
use pl_core::text_records::GroupRecord;

use crate::io::open_input;
use crate::ndjson::NdjsonReader;

/// The groups of a run, counted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Summary {
    /// Groups in the file.
    pub groups: u64,
    /// The lowest confidence of a group (`None` without groups, or without a number).
    pub weakest: Option<f64>,
}

/// Counts the groups of `groups` and finds the lowest confidence.
pub fn summarize(groups: &Path) -> Result<Summary> {
    let mut reader = NdjsonReader::new(open_input(Some(groups))?, false);
    let mut summary = Summary::default();
    while let Some(g) = reader.next_with(|o| GroupRecord::from_obj(o).map_err(|e| e.to_string()))? {
        summary.groups += 1;
        if !g.confidence.is_nan() {
            summary.weakest = Some(
                summary
                    .weakest
                    .map_or(g.confidence, |w| w.min(g.confidence)),
            );
        }
    }
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

    #[test]
    fn groups_are_counted_with_the_lowest_confidence() {
        let d = tempfile::tempdir().unwrap();
        let groups = file(
            d.path(),
            "groups.ndjson",
            "{\"group\":1,\"confidence\":0.98,\"pair\":[1,2],\"primary\":1,\"members\":[1,2]}\n\
             {\"group\":2,\"confidence\":0.61,\"pair\":[7,3],\"primary\":3,\"members\":[3,7]}\n\
             {\"group\":3,\"confidence\":null,\"primary\":8,\"members\":[8,9]}\n",
        );
        let s = summarize(&groups).unwrap();
        assert_eq!(
            s,
            Summary {
                groups: 3,
                weakest: Some(0.61)
            }
        );
        let empty = file(d.path(), "none.ndjson", "");
        assert_eq!(summarize(&empty).unwrap(), Summary::default());
    }

    #[test]
    fn a_bad_line_is_named_with_its_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let groups = file(d.path(), "groups.ndjson", "{\"group\":1}\n");
        let err = format!("{:#}", summarize(&groups).unwrap_err());
        assert!(err.contains("groups.ndjson: line 1: "), "{err}");
    }
}
