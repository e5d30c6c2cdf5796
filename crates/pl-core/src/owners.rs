//! Owners: a group never joins documents of two owners unless asked to (`--across-owners`).
//!
//! A docs record's `owner` is its owner's Paperless user id, or `null` (missing: the same) for
//! a document without owner, which Paperless shows to every user. No owner is an owner of its
//! own: a document without owner joins only documents without owner, so a group is always
//! what one user (or everyone) owns. A kept pair whose two documents have different owners is
//! not a link; since owners are equal or not, every component of the pairs left is one owner's,
//! whatever the linkage. The rule reads nothing but the pairs and each document's owner
//! (9 bytes a document).

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::cluster::ScoredPair;
use crate::fields::FieldError;
use crate::text_records::DocRecord;

/// A document's owner: a Paperless user id, `None` for no owner.
pub type Owner = Option<u64>;

/// The `owner` of a docs or norm record: a non-negative integer, `null` or missing (no
/// owner); anything else is refused.
pub fn owner_of(d: &DocRecord) -> Result<Owner, FieldError> {
    match d.owner() {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| FieldError::NotU64("owner".into())),
    }
}

/// Whether the token's user may change the document: its docs record's `user_can_change`
/// (pl-fetch's), `true` when missing (records of other tools, or of a pl-fetch before it was
/// recorded: Paperless still refuses a write it does not allow); anything but a boolean is
/// refused.
pub fn may_change(d: &DocRecord) -> Result<bool, FieldError> {
    match d.fields().get("user_can_change") {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(FieldError::NotBool("user_can_change".into())),
    }
}

/// The pairs whose two documents have one owner (documents not in `owners` have none), in
/// their order, and how many were left out.
pub fn same_owner(
    pairs: Vec<ScoredPair>,
    owners: &FxHashMap<u64, Owner>,
) -> (Vec<ScoredPair>, usize) {
    let n = pairs.len();
    let owner = |id: u64| owners.get(&id).copied().flatten();
    let kept: Vec<ScoredPair> = pairs
        .into_iter()
        .filter(|p| owner(p.a) == owner(p.b))
        .collect();
    let left_out = n - kept.len();
    (kept, left_out)
}

/// Whether `members` belong to more than one owner (a group made with `--across-owners`).
pub fn spans_owners(members: &[u64], owners: &FxHashMap<u64, Owner>) -> bool {
    let owner = |id: &u64| owners.get(id).copied().flatten();
    members
        .first()
        .is_some_and(|f| members.iter().any(|m| owner(m) != owner(f)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::parse_object;

    fn pair(a: u64, b: u64) -> ScoredPair {
        ScoredPair {
            a,
            b,
            score: 0.9,
            similarity: 0.9,
            jaccard: 0.9,
            fuzzy: 0.9,
            copy: false,
        }
    }

    fn doc(line: &str) -> DocRecord {
        DocRecord::from_obj(parse_object(line).unwrap()).unwrap()
    }

    #[test]
    fn owner_is_an_id_null_or_missing_and_nothing_else() {
        assert_eq!(owner_of(&doc(r#"{"id":1,"owner":7}"#)), Ok(Some(7)));
        assert_eq!(owner_of(&doc(r#"{"id":1,"owner":null}"#)), Ok(None));
        assert_eq!(owner_of(&doc(r#"{"id":1}"#)), Ok(None));
        let e = owner_of(&doc(r#"{"id":1,"owner":"admin"}"#)).unwrap_err();
        assert!(e.to_string().contains("\"owner\""), "{e}");
    }

    #[test]
    fn user_can_change_false_is_the_only_no() {
        assert_eq!(
            may_change(&doc(r#"{"id":1,"user_can_change":false}"#)),
            Ok(false)
        );
        assert_eq!(
            may_change(&doc(r#"{"id":1,"user_can_change":true}"#)),
            Ok(true)
        );
        assert_eq!(may_change(&doc(r#"{"id":1}"#)), Ok(true));
        assert!(may_change(&doc(r#"{"id":1,"user_can_change":"no"}"#)).is_err());
    }

    #[test]
    fn a_pair_across_owners_is_no_link_and_no_owner_is_an_owner_of_its_own() {
        // 1, 2: user 7; 3: user 8; 4, 5: no owner; 6: not in the docs (no owner).
        let owners: FxHashMap<u64, Owner> = [
            (1, Some(7)),
            (2, Some(7)),
            (3, Some(8)),
            (4, None),
            (5, None),
        ]
        .into_iter()
        .collect();
        let pairs = vec![pair(1, 2), pair(1, 3), pair(2, 4), pair(4, 5), pair(5, 6)];
        let (kept, left_out) = same_owner(pairs, &owners);
        let ids: Vec<(u64, u64)> = kept.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ids, [(1, 2), (4, 5), (5, 6)]);
        assert_eq!(left_out, 2);
        assert!(!spans_owners(&[1, 2], &owners));
        assert!(!spans_owners(&[4, 5, 6], &owners));
        assert!(spans_owners(&[1, 3], &owners));
        assert!(spans_owners(&[2, 4], &owners));
        assert!(!spans_owners(&[], &owners));
    }
}
