//! Evaluation against a truth file: pairwise precision/recall/F1, B-cubed precision/recall,
//! recall per class of duplicate, and how many hard-negative pairs were grouped.
//!
//! Everything is counted through contingency tables (predicted group × truth cluster), so a
//! group of thousands of members costs linear time, never its quadratic number of pairs.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::text_records::TruthRecord;

/// What the truth says of one document.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthDoc {
    /// Document id.
    pub id: u64,
    /// Id of the original; equal ids are duplicates of each other.
    pub cluster: u64,
    /// How the document was made ("original", "rescan", ...).
    pub kind: String,
    /// OCR noise level applied.
    pub noise: f64,
    /// Template family (same family, other cluster = hard negative).
    pub family: Option<String>,
}

/// A truth record as the evaluation reads it: a copy of unknown kind is an `original`, of
/// unknown noise noiseless.
impl From<TruthRecord> for TruthDoc {
    fn from(t: TruthRecord) -> TruthDoc {
        TruthDoc {
            id: t.id,
            cluster: t.cluster,
            kind: t.kind.unwrap_or_else(|| "original".into()),
            noise: t.noise.unwrap_or(0.0),
            family: t.family,
        }
    }
}

/// Precision, recall and F1 with their counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Prf {
    /// Share of predicted pairs that are true.
    pub precision: f64,
    /// Share of true pairs that were predicted.
    pub recall: f64,
    /// Harmonic mean.
    pub f1: f64,
}

impl Prf {
    fn new(precision: f64, recall: f64) -> Prf {
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }
}

/// Recall within one class of true pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct ClassRecall {
    /// True pairs of this class.
    pub pairs: u64,
    /// Of them, predicted.
    pub found: u64,
    /// found / pairs.
    pub recall: f64,
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Pairwise scores.
    pub pairs: Prf,
    /// True positive pairs.
    pub true_pairs_found: u64,
    /// Predicted pairs that are not duplicates.
    pub false_pairs: u64,
    /// True pairs not predicted.
    pub missed_pairs: u64,
    /// B-cubed scores over every document of the truth.
    pub bcubed: Prf,
    /// Hard-negative pairs (same family, different cluster) in the truth.
    pub hard_negative_pairs: u64,
    /// Of them, predicted together.
    pub hard_negatives_grouped: u64,
    /// Recall by the kind of the copy.
    pub by_kind: BTreeMap<String, ClassRecall>,
    /// Recall by the larger noise level of the pair.
    pub by_noise: BTreeMap<String, ClassRecall>,
}

/// Recall by class label.
type ByClass = BTreeMap<String, ClassRecall>;

/// `a / b`, 1 when there is nothing to find.
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

fn pairs_of(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The class label of a true pair: the copy's kind (both kinds when neither is the original).
fn kind_label(x: &TruthDoc, y: &TruthDoc) -> String {
    let mut k: Vec<&str> = [x, y]
        .iter()
        .filter(|d| d.kind != "original")
        .map(|d| d.kind.as_str())
        .collect();
    k.sort_unstable();
    k.dedup();
    if k.is_empty() {
        "original".into()
    } else {
        k.join("+")
    }
}

fn noise_label(x: &TruthDoc, y: &TruthDoc) -> String {
    let n = x.noise.max(y.noise);
    match n {
        n if n <= 0.0 => "0%".into(),
        n if n <= 0.01 => "≤1%".into(),
        n if n <= 0.03 => "≤3%".into(),
        n if n <= 0.05 => "≤5%".into(),
        n if n <= 0.10 => "≤10%".into(),
        // Real OCR (examples/ocr: the noise is the scan's character error rate) goes beyond
        // the generator's 10%.
        n if n <= 0.15 => "≤15%".into(),
        _ => ">15%".into(),
    }
}

/// Evaluates predicted groups (each a list of ids) against the truth. Documents in no group
/// are singletons; ids not in the truth are ignored.
pub fn evaluate(groups: &[Vec<u64>], truth: &[TruthDoc]) -> Report {
    let by_id: FxHashMap<u64, &TruthDoc> = truth.iter().map(|t| (t.id, t)).collect();
    let mut pred: FxHashMap<u64, usize> = FxHashMap::default();
    for (g, members) in groups.iter().enumerate() {
        for id in members {
            if by_id.contains_key(id) {
                pred.insert(*id, g);
            }
        }
    }
    // Singletons get their own group numbers after the predicted ones.
    let group_of = |id: u64| {
        pred.get(&id)
            .copied()
            .unwrap_or(groups.len() + by_id.len() + id as usize)
    };
    let mut cluster_size: FxHashMap<u64, u64> = FxHashMap::default();
    let mut group_size: FxHashMap<usize, u64> = FxHashMap::default();
    let mut cell: FxHashMap<(usize, u64), u64> = FxHashMap::default();
    for t in truth {
        *cluster_size.entry(t.cluster).or_default() += 1;
        *group_size.entry(group_of(t.id)).or_default() += 1;
        *cell.entry((group_of(t.id), t.cluster)).or_default() += 1;
    }
    let tp: u64 = cell.values().map(|&n| pairs_of(n)).sum();
    let predicted: u64 = group_size.values().map(|&n| pairs_of(n)).sum();
    let actual: u64 = cluster_size.values().map(|&n| pairs_of(n)).sum();
    let pairs = Prf::new(ratio(tp, predicted), ratio(tp, actual));

    let (mut bp, mut br) = (0.0, 0.0);
    for t in truth {
        let n = cell[&(group_of(t.id), t.cluster)] as f64;
        bp += n / group_size[&group_of(t.id)] as f64;
        br += n / cluster_size[&t.cluster] as f64;
    }
    let docs = truth.len().max(1) as f64;
    let bcubed = Prf::new(bp / docs, br / docs);

    let (hard_negative_pairs, hard_negatives_grouped) = hard_negatives(truth, &group_of);
    let (by_kind, by_noise) = class_recall(truth, &group_of);
    let _ = by_id;
    Report {
        pairs,
        true_pairs_found: tp,
        false_pairs: predicted - tp,
        missed_pairs: actual - tp,
        bcubed,
        hard_negative_pairs,
        hard_negatives_grouped,
        by_kind,
        by_noise,
    }
}

/// Hard negatives (documents of one family in different clusters): their pairs, and those
/// of them put in one group (`group_of` a document's group).
fn hard_negatives(truth: &[TruthDoc], group_of: &impl Fn(u64) -> usize) -> (u64, u64) {
    let (mut fam, mut fam_cluster) = (FxHashMap::default(), FxHashMap::default());
    let (mut gfam, mut gfam_cluster) = (FxHashMap::default(), FxHashMap::default());
    for t in truth {
        if let Some(f) = &t.family {
            *fam.entry(f.as_str()).or_insert(0u64) += 1;
            *fam_cluster.entry((f.as_str(), t.cluster)).or_insert(0u64) += 1;
            let g = group_of(t.id);
            *gfam.entry((g, f.as_str())).or_insert(0u64) += 1;
            *gfam_cluster
                .entry((g, f.as_str(), t.cluster))
                .or_insert(0u64) += 1;
        }
    }
    let sum = |m: &mut dyn Iterator<Item = u64>| m.map(pairs_of).sum::<u64>();
    let hard_negative_pairs =
        sum(&mut fam.values().copied()) - sum(&mut fam_cluster.values().copied());
    let hard_negatives_grouped =
        sum(&mut gfam.values().copied()) - sum(&mut gfam_cluster.values().copied());
    (hard_negative_pairs, hard_negatives_grouped)
}

/// Recall by the class of the true pairs: by kind and by noise level. True pairs are few
/// (clusters are small), so they are enumerated.
fn class_recall(truth: &[TruthDoc], group_of: &impl Fn(u64) -> usize) -> (ByClass, ByClass) {
    let mut members: BTreeMap<u64, Vec<&TruthDoc>> = BTreeMap::new();
    for t in truth {
        members.entry(t.cluster).or_default().push(t);
    }
    let (mut by_kind, mut by_noise): (ByClass, ByClass) = Default::default();
    for ms in members.values() {
        for (i, x) in ms.iter().enumerate() {
            for y in &ms[i + 1..] {
                let found = group_of(x.id) == group_of(y.id);
                for (map, label) in [
                    (&mut by_kind, kind_label(x, y)),
                    (&mut by_noise, noise_label(x, y)),
                ] {
                    let c = map.entry(label).or_default();
                    c.pairs += 1;
                    c.found += u64::from(found);
                }
            }
        }
    }
    for c in by_kind.values_mut().chain(by_noise.values_mut()) {
        c.recall = ratio(c.found, c.pairs);
    }
    (by_kind, by_noise)
}

/// Pairs are evaluated as groups after union: a pair list is what pl-cluster would join.
pub fn evaluate_pairs(pairs: &[Vec<u64>], truth: &[TruthDoc]) -> Report {
    let scored: Vec<crate::cluster::ScoredPair> = pairs
        .iter()
        .map(|p| crate::cluster::ScoredPair {
            a: p[0].min(p[1]),
            b: p[0].max(p[1]),
            score: 1.0,
            similarity: 1.0,
            jaccard: 1.0,
            fuzzy: 1.0,
            copy: false,
        })
        .collect();
    let groups: Vec<Vec<u64>> = crate::cluster::cluster(&scored, &Default::default())
        .into_iter()
        .map(|g| g.members)
        .collect();
    evaluate(&groups, truth)
}

/// Where a noise level ("0%", "≤1%", ..., "≤15%", ">15%") comes in the table: by level, not
/// as its label sorts.
pub fn noise_rank(label: &str) -> f64 {
    let above = label.starts_with('>');
    let n: f64 = label
        .trim_start_matches(['≤', '>'])
        .trim_end_matches('%')
        .parse()
        .unwrap_or(f64::MAX);
    n + if above { 0.5 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_levels_in_order() {
        let mut l = ["≤10%", ">15%", "0%", "≤15%", "≤3%", "≤1%", "≤5%"];
        l.sort_by(|a, b| noise_rank(a).total_cmp(&noise_rank(b)));
        assert_eq!(l, ["0%", "≤1%", "≤3%", "≤5%", "≤10%", "≤15%", ">15%"]);
    }

    fn t(id: u64, cluster: u64, kind: &str, family: Option<&str>) -> TruthDoc {
        TruthDoc {
            id,
            cluster,
            kind: kind.into(),
            noise: if kind == "rescan" { 0.05 } else { 0.0 },
            family: family.map(String::from),
        }
    }

    fn truth() -> Vec<TruthDoc> {
        vec![
            t(1, 1, "original", Some("bill")),
            t(2, 1, "rescan", Some("bill")),
            t(3, 3, "original", Some("bill")),
            t(4, 4, "original", None),
            t(5, 4, "reupload", None),
            t(6, 4, "rescan", None),
        ]
    }

    #[test]
    fn perfect_prediction() {
        let r = evaluate(&[vec![1, 2], vec![4, 5, 6]], &truth());
        assert_eq!(r.pairs, Prf::new(1.0, 1.0));
        assert_eq!(r.bcubed, Prf::new(1.0, 1.0));
        assert_eq!((r.hard_negative_pairs, r.hard_negatives_grouped), (2, 0));
        assert_eq!(r.by_kind["rescan"].pairs, 2);
        assert_eq!(r.by_kind["rescan+reupload"].pairs, 1, "copy-copy pair");
    }

    #[test]
    fn merged_template_counts_false_pairs_and_hard_negatives() {
        let r = evaluate(&[vec![1, 2, 3], vec![4, 5]], &truth());
        // predicted pairs: 3 + 1 = 4, true among them: (1,2), (4,5) = 2; true pairs: 1 + 3 = 4.
        assert_eq!(
            (r.true_pairs_found, r.false_pairs, r.missed_pairs),
            (2, 2, 2)
        );
        assert_eq!(r.pairs.precision, 0.5);
        assert_eq!(r.pairs.recall, 0.5);
        assert_eq!(r.hard_negatives_grouped, 2);
        assert_eq!(r.by_kind["rescan"].found, 1);
        // B-cubed precision: docs 1,2 → 2/3; 3 → 1/3; 4,5 → 1; 6 → 1. Mean = (4/3+1/3+3)/6.
        assert!((r.bcubed.precision - (2.0 / 3.0 * 2.0 + 1.0 / 3.0 + 3.0) / 6.0).abs() < 1e-12);
    }

    #[test]
    fn noise_buckets() {
        let at = |noise: f64| TruthDoc {
            id: 1,
            cluster: 1,
            kind: "rescan".into(),
            noise,
            family: None,
        };
        for (noise, label) in [
            (0.0, "0%"),
            (0.01, "≤1%"),
            (0.02, "≤3%"),
            (0.05, "≤5%"),
            (0.10, "≤10%"),
            (0.1001, "≤15%"),
            (0.15, "≤15%"),
            (0.1501, ">15%"),
            (0.9, ">15%"),
        ] {
            assert_eq!(noise_label(&at(noise), &at(0.0)), label, "noise {noise}");
            assert_eq!(
                noise_label(&at(0.0), &at(noise)),
                label,
                "the larger of the two"
            );
        }
        // A pair is labelled by its noisier document.
        let t = vec![
            TruthDoc {
                noise: 0.004,
                ..at(0.0)
            },
            TruthDoc {
                id: 2,
                noise: 0.12,
                ..at(0.0)
            },
        ];
        let r = evaluate(&[vec![1, 2]], &t);
        assert_eq!(r.by_noise.keys().collect::<Vec<_>>(), ["≤15%"]);
        assert_eq!(r.by_noise["≤15%"].found, 1);
    }

    #[test]
    fn nothing_predicted() {
        let r = evaluate(&[], &truth());
        assert_eq!(r.pairs.recall, 0.0);
        assert_eq!(r.pairs.precision, 1.0, "no predictions, no false ones");
        assert_eq!(r.missed_pairs, 4);
    }
}
