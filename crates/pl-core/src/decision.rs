//! Review decisions: what a person decided about one group in `pl-report`, read by
//! `pl-apply`. One NDJSON record per decided group (the layout is in docs/FORMATS.md):
//!
//! ```json
//! {"group":3,"decision":"duplicate","primary":40,"members":[40,46,65],
//!  "modified":{"40":"2026-01-02T10:00:00Z","46":"…","65":"…"},"confidence":0.98,
//!  "decided_at":"2026-11-23T04:10:00.000Z"}
//! ```

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::fields::{get_f64, get_u64, FieldError};

/// What was decided about a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The members are duplicates of the primary: pl-apply acts on the others.
    Duplicate,
    /// Not duplicates: nothing to do, and the group can be hidden next time.
    NotDuplicate,
    /// Left alone on purpose.
    Ignore,
}

impl Verdict {
    /// The name used in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Duplicate => "duplicate",
            Verdict::NotDuplicate => "not-duplicate",
            Verdict::Ignore => "ignore",
        }
    }

    /// Parses a record's `decision`.
    pub fn parse(s: &str) -> Option<Verdict> {
        match s {
            "duplicate" => Some(Verdict::Duplicate),
            "not-duplicate" => Some(Verdict::NotDuplicate),
            "ignore" => Some(Verdict::Ignore),
            _ => None,
        }
    }
}

/// One decision record, written with its fields in the documented order (`modified` keyed
/// by the ids as strings, ascending; `null` for what is unknown).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The group number of pl-cluster's output.
    pub group: u64,
    /// The verdict.
    pub decision: Verdict,
    /// The document to keep (pl-cluster's, or the one the reviewer chose).
    pub primary: u64,
    /// Every member, ascending, the primary included.
    pub members: Vec<u64>,
    /// Each member's `modified` as the report saw it (None when the docs did not say):
    /// pl-apply refuses a document changed in Paperless since.
    pub modified: BTreeMap<u64, Option<String>>,
    /// The group's confidence, for the record.
    pub confidence: Option<f64>,
    /// When the decision was made (RFC 3339), for the record.
    pub decided_at: Option<String>,
}

/// What is wrong with a decision, or with the decisions of one file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecisionError {
    /// A field missing or of the wrong kind.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A verdict other than the three.
    #[error("\"decision\" is {0:?}; expected \"duplicate\", \"not-duplicate\" or \"ignore\"")]
    UnknownVerdict(String),
    /// No verdict.
    #[error("missing \"decision\": is this a decisions file?")]
    NoVerdict,
    /// A list of ids missing or not a list.
    #[error("missing or invalid \"{0}\" (a list of document ids)")]
    NotIds(String),
    /// A list of ids holding something else.
    #[error("\"{key}\" holds {value}, not a document id")]
    NotId {
        /// The list.
        key: String,
        /// What it holds.
        value: String,
    },
    /// A member listed twice.
    #[error("group {0}: a member is listed twice")]
    MemberTwice(u64),
    /// A primary that is not a member.
    #[error("group {group}: primary {primary} is not one of the members")]
    PrimaryNotMember {
        /// The group.
        group: u64,
        /// Its primary.
        primary: u64,
    },
    /// `modified` keyed by something other than an id.
    #[error("\"modified\" has key {0:?}, not a document id")]
    ModifiedKey(String),
    /// `modified` naming a document that is not a member.
    #[error("group {group}: \"modified\" names {id}, not a member")]
    ModifiedNotMember {
        /// The group.
        group: u64,
        /// The document.
        id: u64,
    },
    /// A `modified` value that is not a string.
    #[error("\"modified\" of {0} is not a string")]
    ModifiedNotString(u64),
    /// `modified` that is not an object.
    #[error("\"modified\" is not an object")]
    ModifiedNotObject,
    /// pl-apply's input record that is neither kind.
    #[error("neither a decision nor a group record")]
    NeitherKind,
    /// A group record without --min-confidence.
    #[error("a group record: pl-apply acts on groups only with --min-confidence X (or give it the decisions exported by pl-report)")]
    GroupWithoutMin,
    /// One group decided twice in a file.
    #[error("group {group} decided twice: {how}")]
    DecidedTwice {
        /// The group.
        group: u64,
        /// How the two decisions differ, and their lines.
        how: String,
    },
    /// A document in two groups of a file.
    #[error("document {id} is in group {first_group} (line {first_line}, primary {first_primary}) and group {group} (line {line}, primary {primary}): the file does not come from one pl-cluster run")]
    TwoGroups {
        /// The document.
        id: u64,
        /// The first group, its line and primary.
        first_group: u64,
        /// Its line.
        first_line: u64,
        /// Its primary.
        first_primary: u64,
        /// The second group.
        group: u64,
        /// Its line.
        line: u64,
        /// Its primary.
        primary: u64,
    },
}

fn ids(v: Option<&Value>, key: &str) -> Result<Vec<u64>, DecisionError> {
    let a = v
        .and_then(Value::as_array)
        .ok_or_else(|| DecisionError::NotIds(key.into()))?;
    a.iter()
        .map(|x| {
            x.as_u64().ok_or_else(|| DecisionError::NotId {
                key: key.into(),
                value: x.to_string(),
            })
        })
        .collect()
}

impl Decision {
    /// Reads and checks a record: a known verdict, members unique, the primary among them,
    /// `modified` keyed by members only.
    pub fn from_obj(o: &Map<String, Value>) -> Result<Decision, DecisionError> {
        let num = |k: &str| get_u64(o, k);
        let group = num("group")?;
        let decision = match o.get("decision") {
            Some(Value::String(s)) => {
                Verdict::parse(s).ok_or_else(|| DecisionError::UnknownVerdict(s.clone()))?
            }
            _ => return Err(DecisionError::NoVerdict),
        };
        let primary = num("primary")?;
        let mut members = ids(o.get("members"), "members")?;
        members.sort_unstable();
        let n = members.len();
        members.dedup();
        if members.len() != n {
            return Err(DecisionError::MemberTwice(group));
        }
        if !members.contains(&primary) {
            return Err(DecisionError::PrimaryNotMember { group, primary });
        }
        let mut modified: BTreeMap<u64, Option<String>> =
            members.iter().map(|&m| (m, None)).collect();
        match o.get("modified") {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    let id: u64 = k
                        .parse()
                        .map_err(|_| DecisionError::ModifiedKey(k.clone()))?;
                    let slot = modified
                        .get_mut(&id)
                        .ok_or(DecisionError::ModifiedNotMember { group, id })?;
                    *slot = match v {
                        Value::String(s) => Some(s.clone()),
                        Value::Null => None,
                        _ => return Err(DecisionError::ModifiedNotString(id)),
                    };
                }
            }
            Some(_) => return Err(DecisionError::ModifiedNotObject),
        }
        Ok(Decision {
            group,
            decision,
            primary,
            members,
            modified,
            confidence: o.get("confidence").and_then(Value::as_f64),
            decided_at: o
                .get("decided_at")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// Reads a pl-cluster group as a "duplicate" decision when its confidence is at least
    /// `min` (`None` under it).
    pub fn from_group(o: &Map<String, Value>, min: f64) -> Result<Option<Decision>, DecisionError> {
        let confidence = get_f64(o, "confidence")?;
        if confidence < min {
            return Ok(None);
        }
        let mut g = o.clone();
        g.insert("decision".into(), Verdict::Duplicate.as_str().into());
        Decision::from_obj(&g).map(Some)
    }

    /// Fills the members' unknown `modified` from `known` (the docs they were scored from).
    pub fn fill_modified(&mut self, known: impl Fn(u64) -> Option<String>) {
        for (&id, m) in self.modified.iter_mut() {
            if m.is_none() {
                *m = known(id);
            }
        }
    }

    /// The record, fields in the documented order.
    pub fn to_obj(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(o)) => o,
            _ => unreachable!("a struct of plain fields serializes as an object"),
        }
    }
}

/// What a record of pl-apply's input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A review decision (pl-report's).
    Decision,
    /// A group (pl-cluster's).
    Group,
}

impl Decision {
    /// Reads one record of pl-apply's input: a decision, or a group, which is a "duplicate"
    /// decision when it is at least `min` confident (`None` under it). A group without `min`
    /// (--min-confidence) is refused.
    pub fn from_input(
        o: &Map<String, Value>,
        min: Option<f64>,
    ) -> Result<(InputKind, Option<Decision>), DecisionError> {
        if o.contains_key("decision") {
            return Ok((InputKind::Decision, Some(Decision::from_obj(o)?)));
        }
        if !o.contains_key("members") {
            return Err(DecisionError::NeitherKind);
        }
        let Some(min) = min else {
            return Err(DecisionError::GroupWithoutMin);
        };
        Ok((InputKind::Group, Decision::from_group(o, min)?))
    }
}

/// The decisions of groups at least `min` confident (all without `min`; a decision without a
/// confidence counts), their lines dropped.
pub fn at_least(read: Vec<(u64, Decision)>, min: Option<f64>) -> Vec<Decision> {
    read.into_iter()
        .map(|(_, d)| d)
        .filter(|d| match (min, d.confidence) {
            (Some(min), Some(c)) => c >= min,
            _ => true,
        })
        .collect()
}

/// Keeps the "duplicate" decisions, the only ones that change anything; how many others
/// (not duplicates, ignored) there were.
pub fn keep_duplicates(decisions: &mut Vec<Decision>) -> usize {
    let before = decisions.len();
    decisions.retain(|d| d.decision == Verdict::Duplicate);
    before - decisions.len()
}

/// Checks that the decisions of one file agree with each other, before anything acts on them:
/// a group is decided once, and a document belongs to one group. `decisions` holds each
/// decision with the line it was read from; the error names both lines.
pub fn check_consistent(decisions: &[(u64, Decision)]) -> Result<(), DecisionError> {
    let mut groups: BTreeMap<u64, (u64, &Decision)> = BTreeMap::new();
    let mut owner: BTreeMap<u64, (u64, &Decision)> = BTreeMap::new();
    for (line, d) in decisions {
        if let Some((first, e)) = groups.insert(d.group, (*line, d)) {
            let how = if e.decision != d.decision {
                format!(
                    "{} on line {first}, {} on line {line}",
                    e.decision.as_str(),
                    d.decision.as_str()
                )
            } else if e.primary != d.primary || e.members != d.members {
                format!("other members or primary on line {first} and line {line}")
            } else {
                format!("on line {first} and line {line}")
            };
            return Err(DecisionError::DecidedTwice {
                group: d.group,
                how,
            });
        }
        for &m in &d.members {
            if let Some((first, e)) = owner.insert(m, (*line, d)) {
                return Err(DecisionError::TwoGroups {
                    id: m,
                    first_group: e.group,
                    first_line: first,
                    first_primary: e.primary,
                    group: d.group,
                    line: *line,
                    primary: d.primary,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_input_is_decisions_or_confident_groups() {
        let group = obj(json!({"group": 1, "confidence": 0.8, "primary": 1, "members": [1, 2]}));
        assert!(Decision::from_input(&group, None)
            .unwrap_err()
            .to_string()
            .starts_with("a group record"));
        let (kind, d) = Decision::from_input(&group, Some(0.9)).unwrap();
        assert_eq!((kind, d), (InputKind::Group, None));
        let (_, d) = Decision::from_input(&group, Some(0.8)).unwrap();
        assert_eq!(d.unwrap().decision, Verdict::Duplicate);
        let other = obj(json!({"group": 1}));
        assert_eq!(
            Decision::from_input(&other, None).unwrap_err().to_string(),
            "neither a decision nor a group record"
        );
        let mut dec = group.clone();
        dec.insert("decision".into(), "ignore".into());
        let (kind, d) = Decision::from_input(&dec, None).unwrap();
        assert_eq!(kind, InputKind::Decision);
        let d = d.unwrap();
        let mut low = d.clone();
        low.confidence = Some(0.5);
        let mut unknown = d.clone();
        unknown.confidence = None;
        let mut dup = d.clone();
        dup.decision = Verdict::Duplicate;
        let read = vec![(1, d), (2, low), (3, unknown), (4, dup)];
        let mut kept = at_least(read.clone(), Some(0.6));
        assert_eq!(kept.len(), 3);
        assert_eq!(at_least(read, None).len(), 4);
        assert_eq!(keep_duplicates(&mut kept), 2);
        assert_eq!(kept.len(), 1);
    }
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_group_over_the_confidence_is_a_duplicate_decision() {
        let g = obj(json!({"group": 2, "confidence": 0.9, "primary": 5, "members": [5, 7]}));
        let d = Decision::from_group(&g, 0.8).unwrap().unwrap();
        assert_eq!(
            (d.decision, d.primary, d.members),
            (Verdict::Duplicate, 5, vec![5, 7])
        );
        assert_eq!(Decision::from_group(&g, 0.95).unwrap(), None);
        let e = Decision::from_group(&obj(json!({"group": 2})), 0.5)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "missing or invalid \"confidence\" (a number)");
    }

    #[test]
    fn unknown_modified_is_filled_and_known_kept() {
        let mut d = Decision::from_obj(&obj(json!({"group": 1, "decision": "duplicate",
            "primary": 1, "members": [1, 2], "modified": {"1": "a"}})))
        .unwrap();
        d.fill_modified(|id| Some(format!("docs {id}")));
        assert_eq!(d.modified[&1].as_deref(), Some("a"));
        assert_eq!(d.modified[&2].as_deref(), Some("docs 2"));
    }

    #[test]
    fn round_trips_in_order() {
        let d = Decision::from_obj(&obj(json!({"group": 3, "decision": "duplicate",
            "primary": 46, "members": [65, 40, 46], "modified": {"40": "2026-01-01T00:00:00Z"},
            "confidence": 0.9, "decided_at": "2026-11-23T04:10:00Z"})))
        .unwrap();
        assert_eq!(d.members, vec![40, 46, 65]);
        assert_eq!(d.modified[&40].as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(d.modified[&65], None);
        assert_eq!(
            Value::Object(d.to_obj()).to_string(),
            r#"{"group":3,"decision":"duplicate","primary":46,"members":[40,46,65],"modified":{"40":"2026-01-01T00:00:00Z","46":null,"65":null},"confidence":0.9,"decided_at":"2026-11-23T04:10:00Z"}"#
        );
        assert_eq!(Decision::from_obj(&d.to_obj()).unwrap(), d);
    }

    #[test]
    fn rejects_what_pl_apply_must_not_guess() {
        let bad = [
            (
                json!({"group": 1, "primary": 1, "members": [1, 2]}),
                "decisions file",
            ),
            (
                json!({"group": 1, "decision": "delete", "primary": 1, "members": [1, 2]}),
                "\"delete\"",
            ),
            (
                json!({"group": 1, "decision": "duplicate", "primary": 9, "members": [1, 2]}),
                "not one of the members",
            ),
            (
                json!({"group": 1, "decision": "duplicate", "primary": 1, "members": [1, 1]}),
                "twice",
            ),
            (
                json!({"group": 1, "decision": "duplicate", "primary": 1, "members": [1, 2], "modified": {"7": "x"}}),
                "not a member",
            ),
            (
                json!({"group": 1, "decision": "duplicate", "primary": 1, "members": "1,2"}),
                "members",
            ),
        ];
        for (v, needle) in bad {
            let e = Decision::from_obj(&obj(v.clone())).unwrap_err().to_string();
            assert!(e.contains(needle), "{v}: {e}");
        }
    }

    #[test]
    fn contradictions_are_refused_with_both_lines() {
        let d = |group: u64, decision: &str, primary: u64, members: &[u64]| {
            Decision::from_obj(&obj(json!({"group": group, "decision": decision,
                "primary": primary, "members": members})))
            .unwrap()
        };
        let ok = vec![
            (1, d(1, "duplicate", 2, &[2, 3])),
            (2, d(2, "ignore", 4, &[4, 5])),
        ];
        assert_eq!(check_consistent(&ok), Ok(()));
        let mut twice = ok.clone();
        twice.push((4, d(1, "not-duplicate", 2, &[2, 3])));
        let e = check_consistent(&twice).unwrap_err().to_string();
        assert!(
            e.contains("group 1 decided twice: duplicate on line 1, not-duplicate on line 4"),
            "{e}"
        );
        let mut other = ok.clone();
        other.push((3, d(1, "duplicate", 3, &[2, 3])));
        let e = check_consistent(&other).unwrap_err().to_string();
        assert!(
            e.contains("other members or primary on line 1 and line 3"),
            "{e}"
        );
        let mut same = ok.clone();
        same.push((3, ok[0].1.clone()));
        assert!(check_consistent(&same)
            .unwrap_err()
            .to_string()
            .contains("on line 1 and line 3"));
        let mut shared = ok;
        shared.push((5, d(7, "duplicate", 9, &[3, 9])));
        let e = check_consistent(&shared).unwrap_err().to_string();
        assert!(
            e.contains(
                "document 3 is in group 1 (line 1, primary 2) and group 7 (line 5, primary 9)"
            ),
            "{e}"
        );
    }
}
