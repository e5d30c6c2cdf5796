//! What pl-report's review page holds, and the rules of what may go in it: http(s) links
//! only, ids a JavaScript number holds exactly, one group per number and per document, the
//! documents' fields it shows, and JSON that cannot end the script element it sits in.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use crate::decision::{Decision, DecisionError};
use crate::fields::{parse_object, FieldError};
use crate::text_records::{DocRecord, GroupRecord, NormRecord};

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_PAGE_ID: u64 = (1 << 53) - 1;

/// What keeps a group off the page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// An id over [`MAX_PAGE_ID`].
    #[error("id {0} is over {MAX_PAGE_ID}, the largest the review page holds exactly")]
    IdTooLarge(u64),
    /// A group number read before.
    #[error("group {group} repeated (first on line {first})")]
    GroupRepeated {
        /// The number.
        group: u64,
        /// The line it was first read on.
        first: u64,
    },
    /// A document in two groups.
    #[error("document {id} is in {this} and in the group on line {first}")]
    InTwoGroups {
        /// The document.
        id: u64,
        /// The group it is in now ("group N", or "a group").
        this: String,
        /// The line of the group it was in first.
        first: u64,
    },
}

/// The page's JavaScript numbers hold integers exactly up to 2^53 - 1: a larger id would
/// come back from the page as another document's. `Err` names the first such id of `g`
/// (its members, then its number).
pub fn check_ids(g: &GroupRecord) -> Result<(), PageError> {
    match g
        .members
        .iter()
        .chain([&g.group])
        .find(|&&id| id > MAX_PAGE_ID)
    {
        Some(&id) => Err(PageError::IdTooLarge(id)),
        None => Ok(()),
    }
}

/// `s` trimmed when it is an http(s) address, else `None`: a `javascript:` URL in a document
/// record must not be clickable, and a server address is nothing else either.
pub fn safe_url(s: &str) -> Option<String> {
    let l = s.trim().to_ascii_lowercase();
    (l.starts_with("http://") || l.starts_with("https://")).then(|| s.trim().to_owned())
}

/// The page of document `id` on the Paperless-NGX server at `base`.
pub fn document_link(base: &str, id: u64) -> String {
    format!("{}/documents/{id}/details", base.trim_end_matches('/'))
}

/// Where each group number and each member was first read: one group per number, one group
/// per document. pl-report, pl-eval and pl-cat --table refuse the same groups files with it.
#[derive(Debug, Default)]
pub struct GroupLines {
    numbers: FxHashMap<u64, u64>,
    owners: FxHashMap<u64, u64>,
}

impl GroupLines {
    /// Notes group `g`, read on `line`; `Err` when its number or one of its members was
    /// read before.
    pub fn add(&mut self, g: &GroupRecord, line: u64) -> Result<(), PageError> {
        self.add_members(Some(g.group), &g.members, line)
    }

    /// Notes a group's `members`, read on `line`, and its number when it has one (pl-eval
    /// reads groups without numbers too); `Err` when the number or a member was read before.
    pub fn add_members(
        &mut self,
        number: Option<u64>,
        members: &[u64],
        line: u64,
    ) -> Result<(), PageError> {
        if let Some(n) = number {
            if let Some(first) = self.numbers.insert(n, line) {
                return Err(PageError::GroupRepeated { group: n, first });
            }
        }
        for &m in members {
            if let Some(first) = self.owners.insert(m, line) {
                let this = number.map_or_else(|| "a group".to_owned(), |n| format!("group {n}"));
                return Err(PageError::InTwoGroups { id: m, this, first });
            }
        }
        Ok(())
    }
}

/// The page's order: highest confidence first; ties by group number (pl-cluster's order
/// already).
pub fn sort_groups(groups: &mut [GroupRecord]) {
    groups.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.group.cmp(&b.group))
    });
}

/// A group as the page shows it: the documented fields only, members ascending, and the
/// scores of its pairs.
pub fn page_group(g: &GroupRecord, pairs: Vec<Value>) -> Value {
    let mut members = g.members.clone();
    members.sort_unstable();
    let shown = GroupRecord {
        members,
        rest: Map::new(),
        ..g.clone()
    };
    let mut o = serde_json::to_value(shown).expect("a group record serializes");
    o["pairs"] = Value::Array(pairs);
    o
}

/// The fields of a docs record the page shows, text cut at `max_text` characters; `url` is
/// `null` unless the record holds an http(s) one.
pub fn page_doc(doc: DocRecord, max_text: usize) -> Value {
    let norm = NormRecord::from(doc);
    let doc = norm.doc();
    let mut d = Map::new();
    for (k, v) in [
        ("title", doc.title()),
        ("correspondent", doc.correspondent()),
        ("document_type", doc.document_type()),
        ("tags", doc.tags()),
        ("created", doc.created()),
        ("added", doc.added()),
        ("modified", doc.modified()),
        ("page_count", doc.page_count()),
        ("archive_serial_number", doc.archive_serial_number()),
        ("original_file_name", doc.original_file_name()),
    ] {
        d.insert(k.into(), v.cloned().unwrap_or(Value::Null));
    }
    let url = doc.url().and_then(Value::as_str).and_then(safe_url);
    d.insert("url".into(), url.map(Value::String).unwrap_or(Value::Null));
    let text = match doc.content() {
        Some(Value::String(s)) => s.as_str(),
        // A norm record without its docs' `content` shows its normalized text.
        _ => norm.norm().and_then(Value::as_str).unwrap_or(""),
    };
    let cut = text.char_indices().nth(max_text).map(|(i, _)| i);
    d.insert(
        "content".into(),
        Value::String(text[..cut.unwrap_or(text.len())].to_owned()),
    );
    d.insert("truncated".into(), Value::Bool(cut.is_some()));
    Value::Object(d)
}

/// Links the documents whose record has no `url` to their page on the server at `base`.
pub fn link_documents(docs: &mut BTreeMap<u64, Value>, base: &str) {
    for (&id, d) in docs.iter_mut() {
        if d["url"].is_null() {
            d["url"] = Value::String(document_link(base, id));
        }
    }
}

/// JSON that is safe inside `<script type="application/json">`: no `<`, `>`, `&` (so no
/// `</script>` or `<!--`), and no U+2028/2029. These occur only inside JSON strings, where
/// the `\u` escapes mean the same.
pub fn script_json(v: &Value) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page's groups by number: each one's members (ascending) and their `modified` as the
/// page's docs say, what the decisions saved from the page are checked against.
#[derive(Debug, Default)]
pub struct PageGroups(BTreeMap<u64, PageMembers>);

/// A page group's members, ascending, and each one's `modified` (`None`: the docs did not say).
pub type PageMembers = (Vec<u64>, BTreeMap<u64, Option<String>>);

impl PageGroups {
    /// The groups of the page data `data` (`{"groups": [...], "docs": {...}}`).
    pub fn of(data: &Value) -> PageGroups {
        let mut groups = BTreeMap::new();
        for g in data["groups"].as_array().into_iter().flatten() {
            let members: Vec<u64> = g["members"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            let modified = members
                .iter()
                .map(|m| {
                    let v = data["docs"][m.to_string()]["modified"]
                        .as_str()
                        .map(str::to_owned);
                    (*m, v)
                })
                .collect();
            groups.insert(g["group"].as_u64().unwrap_or(0), (members, modified));
        }
        PageGroups(groups)
    }

    /// Whether group `g` is on the page.
    pub fn contains(&self, g: u64) -> bool {
        self.0.contains_key(&g)
    }

    /// Group `g`'s members and their `modified`.
    pub fn get(&self, g: u64) -> Option<&PageMembers> {
        self.0.get(&g)
    }

    /// The most bytes decisions of these groups can need as the page writes them (every group
    /// decided, one line each): per group [`LINE_BYTES`], and per member [`MEMBER_BYTES`] and
    /// its `modified` six times over (every character `\u`-escaped). A body over it is not
    /// the page's.
    pub fn body_limit(&self) -> usize {
        self.0
            .values()
            .map(|(members, modified)| {
                let texts: usize = modified.values().flatten().map(|s| 6 * s.len()).sum();
                LINE_BYTES + MEMBER_BYTES * members.len() + texts
            })
            .sum()
    }

    /// The most values ([`crate::fields::values_bound`]) one decision line of these groups
    /// needs: the record's own fields and, per member of the largest group, its id in
    /// `members` and its key and value in `modified`.
    pub fn line_values(&self) -> usize {
        let largest = self.0.values().map(|(m, _)| m.len()).max().unwrap_or(0);
        64 + 4 * largest
    }
}

/// The bytes a decision line needs besides its members: the keys, the group, verdict,
/// primary, confidence and decided_at (a date the page writes).
pub const LINE_BYTES: usize = 512;
/// The bytes a member needs in a decision line: its id in `members`, and as a key of
/// `modified` with the quotes, colon, commas and a `null`.
pub const MEMBER_BYTES: usize = 64;

/// What is wrong with a line of decisions the page sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChangeError {
    /// Not a JSON object.
    #[error("line {0}: {1}")]
    Object(usize, FieldError),
    /// A decision that does not read.
    #[error("line {0}: {1}")]
    Decision(usize, DecisionError),
    /// A take-back without a group number.
    #[error("line {0}: missing or invalid \"group\"")]
    NoGroup(usize),
    /// A group the report does not have.
    #[error("line {0}: group {1} is not in this report")]
    NotInReport(usize, u64),
    /// A group named twice.
    #[error("line {0}: group {1} named twice")]
    NamedTwice(usize, u64),
    /// Members other than the report's.
    #[error("line {0}: group {1}: members differ from the report's")]
    OtherMembers(usize, u64),
    /// A line holding more values than a decision of the page's largest group does.
    #[error("line {0}: {1} values or more, more than a decision of this report has ({2} at most): not parsed")]
    TooManyValues(usize, usize, usize),
}

/// Parses NDJSON decisions against the report's groups; `modified` comes from the docs.
pub fn parse_decisions(text: &str, groups: &PageGroups) -> Result<Vec<Decision>, ChangeError> {
    let changes = parse_changes(text, groups)?;
    Ok(changes.into_values().flatten().collect())
}

/// Parses NDJSON decisions against the report's groups, by group: `None` for a group taken
/// back (`"decision":"pending"`). A group named twice is refused. What parsing a line costs is
/// bounded before it is parsed: a line with more values than a decision of the largest group
/// ([`PageGroups::line_values`]) is refused unread.
pub fn parse_changes(
    text: &str,
    groups: &PageGroups,
) -> Result<BTreeMap<u64, Option<Decision>>, ChangeError> {
    let mut out: BTreeMap<u64, Option<Decision>> = BTreeMap::new();
    let most = groups.line_values();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let values = crate::fields::values_bound(line);
        if values > most {
            return Err(ChangeError::TooManyValues(n, values, most));
        }
        let o = parse_object(line).map_err(|e| ChangeError::Object(n, e))?;
        if o.get("decision").and_then(Value::as_str) == Some("pending") {
            let g = o
                .get("group")
                .and_then(Value::as_u64)
                .ok_or(ChangeError::NoGroup(n))?;
            if !groups.contains(g) {
                return Err(ChangeError::NotInReport(n, g));
            }
            if out.insert(g, None).is_some() {
                return Err(ChangeError::NamedTwice(n, g));
            }
            continue;
        }
        let mut d = Decision::from_obj(&o).map_err(|e| ChangeError::Decision(n, e))?;
        let (members, modified) = groups
            .get(d.group)
            .ok_or(ChangeError::NotInReport(n, d.group))?;
        if &d.members != members {
            return Err(ChangeError::OtherMembers(n, d.group));
        }
        d.modified = modified.clone();
        let g = d.group;
        if out.insert(g, Some(d)).is_some() {
            return Err(ChangeError::NamedTwice(n, g));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn group(number: u64, members: &[u64]) -> GroupRecord {
        serde_json::from_value(json!({
            "group": number, "confidence": 0.9, "primary": members[0], "members": members
        }))
        .unwrap()
    }

    #[test]
    fn decisions_are_checked_against_the_page() {
        let data = json!({
            "groups": [{"group": 1, "members": [1, 2]}],
            "docs": {"1": {"modified": "2024-01-01T00:00:00Z"}}
        });
        let groups = PageGroups::of(&data);
        let ok = r#"{"group":1,"decision":"duplicate","primary":1,"members":[1,2]}"#;
        let ds = parse_decisions(ok, &groups).unwrap();
        assert_eq!(ds[0].modified[&1].as_deref(), Some("2024-01-01T00:00:00Z"));
        assert_eq!(ds[0].modified[&2], None);
        let pending = r#"{"group":1,"decision":"pending"}"#;
        assert_eq!(parse_changes(pending, &groups).unwrap()[&1], None);
        let twice = format!("{ok}\n\n{pending}");
        assert_eq!(
            parse_changes(&twice, &groups).unwrap_err().to_string(),
            "line 3: group 1 named twice"
        );
        let other = r#"{"group":2,"decision":"duplicate","primary":1,"members":[1,2]}"#;
        assert_eq!(
            parse_decisions(other, &groups).unwrap_err().to_string(),
            "line 1: group 2 is not in this report"
        );
        let members = r#"{"group":1,"decision":"duplicate","primary":1,"members":[1,3]}"#;
        assert!(parse_decisions(members, &groups)
            .unwrap_err()
            .to_string()
            .contains("members differ"));
    }

    #[test]
    fn what_a_body_and_a_line_may_cost_follows_the_page() {
        let data = json!({
            "groups": [{"group": 1, "members": [1, 2]}, {"group": 2, "members": [3, 4, 5]}],
            "docs": {"1": {"modified": "2024-01-01T00:00:00Z"}}
        });
        let groups = PageGroups::of(&data);
        assert_eq!(
            groups.body_limit(),
            2 * LINE_BYTES + 5 * MEMBER_BYTES + 6 * "2024-01-01T00:00:00Z".len()
        );
        assert_eq!(groups.line_values(), 64 + 4 * 3);
        // The page's own line for its largest group, every member's `modified` set, fits
        // both bounds.
        let full = json!({"group": 2, "decision": "duplicate", "primary": 3, "members": [3, 4, 5],
            "modified": {"3": "2024-01-01T00:00:00.000000+00:00", "4": null, "5": null},
            "confidence": 0.987654321, "decided_at": "2026-11-29T02:37:13.123Z"})
        .to_string();
        assert!(full.len() < groups.body_limit());
        assert!(parse_changes(&full, &groups).is_ok());
        // Small integers by the thousand in a field nobody reads: refused before parsing.
        let padded = format!(
            r#"{{"group":1,"decision":"duplicate","primary":1,"members":[1,2],"x":[{}]}}"#,
            vec!["0"; 1000].join(",")
        );
        assert_eq!(
            parse_changes(&padded, &groups).unwrap_err(),
            ChangeError::TooManyValues(1, 1013, 76)
        );
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = json!({"t": "</script><script>alert(1)</script><!-- & \u{2028}\u{2029}"});
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert!(!s.contains('\u{2028}') && !s.contains('\u{2029}'));
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }

    #[test]
    fn only_http_links() {
        assert_eq!(safe_url(" https://p/x "), Some("https://p/x".into()));
        assert_eq!(safe_url("HTTP://p"), Some("HTTP://p".into()));
        assert_eq!(safe_url("javascript:alert(1)"), None);
        assert_eq!(safe_url("data:text/html,x"), None);
        assert_eq!(
            document_link("https://p/x/", 7),
            "https://p/x/documents/7/details"
        );
    }

    #[test]
    fn ids_over_2_pow_53_are_refused() {
        assert!(check_ids(&group(1, &[MAX_PAGE_ID, 2])).is_ok());
        let e = check_ids(&group(1, &[MAX_PAGE_ID + 1, 2]))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("id 9007199254740992 is over 9007199254740991"),
            "{e}"
        );
        assert!(check_ids(&group(MAX_PAGE_ID + 1, &[1, 2])).is_err());
    }

    #[test]
    fn one_group_per_number_and_per_document() {
        let mut seen = GroupLines::default();
        seen.add(&group(1, &[1, 2]), 1).unwrap();
        let e = seen.add(&group(1, &[3, 4]), 2).unwrap_err().to_string();
        assert_eq!(e, "group 1 repeated (first on line 1)");
        let e = seen.add(&group(2, &[5, 2]), 3).unwrap_err().to_string();
        assert_eq!(e, "document 2 is in group 2 and in the group on line 1");
    }

    #[test]
    fn groups_by_confidence_then_number() {
        let mut gs = vec![group(2, &[1, 2]), group(1, &[3, 4]), group(3, &[5, 6])];
        gs[2].confidence = 0.95;
        sort_groups(&mut gs);
        assert_eq!(gs.iter().map(|g| g.group).collect::<Vec<_>>(), [3, 1, 2]);
    }

    #[test]
    fn a_page_doc_keeps_the_shown_fields_and_cuts_the_text() {
        let doc: DocRecord = serde_json::from_value(json!({
            "id": 1, "title": "T", "content": "abcdef", "url": "javascript:x", "extra": 1
        }))
        .unwrap();
        let d = page_doc(doc, 3);
        assert_eq!(d["content"], "abc");
        assert_eq!(d["truncated"], true);
        assert_eq!(d["url"], Value::Null);
        assert!(d.get("extra").is_none() && d.get("id").is_none());
        let mut docs = BTreeMap::from([(1, d)]);
        link_documents(&mut docs, "https://p/");
        assert_eq!(docs[&1]["url"], "https://p/documents/1/details");
    }
}
