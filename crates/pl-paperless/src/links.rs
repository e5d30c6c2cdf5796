//! The "Duplicate of" link pl-apply sets: a custom field of data type `documentlink` whose
//! value on a copy lists its primary. A document's `custom_fields` is a list of
//! `{"field": ID, "value": ...}` entries, and a PATCH of it replaces the whole list, so a link
//! is added by a read-modify-write that keeps every other entry and value exactly as read
//! ([`with_link`]), and taken out again the same way ([`without_link`]).
//!
//! Paperless (2.2 and later; 3.0.5 checked) makes these links symmetric: setting the copy's
//! value adds the copy to the target's own entry of the field, creating that entry when
//! missing, and taking the target out of the copy's value takes the copy out of the target's.
//! An entry it created on the target stays behind, empty; [`without_empty`] removes it.

use serde_json::{json, Value};

use crate::api::MAX_PAGE_SIZE;
use crate::client::Client;
use crate::error::{Error, Result};

/// The data type of a document-link custom field.
pub const DOCUMENT_LINK: &str = "documentlink";

fn field_of(entry: &Value) -> Option<u64> {
    entry.get("field").and_then(Value::as_u64)
}

/// The value of `field`'s entry in a `custom_fields` list: `None` when there is no entry.
pub fn entry_value(list: &[Value], field: u64) -> Option<&Value> {
    let entry = list.iter().find(|e| field_of(e) == Some(field))?;
    Some(entry.get("value").unwrap_or(&Value::Null))
}

/// The document ids in a link value (null: none).
fn targets(v: &Value) -> std::result::Result<Vec<Value>, String> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(a) => Ok(a.clone()),
        other => Err(format!(
            "the value of a document-link field is {other}, not a list of document ids"
        )),
    }
}

/// Whether `list` links to `target` through `field`.
pub fn links_to(list: &[Value], field: u64, target: u64) -> bool {
    entry_value(list, field)
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|t| t.as_u64() == Some(target)))
}

/// `list` with `target` added to `field`'s links: appended to the entry's value, or a new
/// entry at the end; every other entry and value as it was. `Ok(None)`: linked already.
pub fn with_link(
    list: &[Value],
    field: u64,
    target: u64,
) -> std::result::Result<Option<Vec<Value>>, String> {
    if links_to(list, field, target) {
        return Ok(None);
    }
    let mut out = list.to_vec();
    match out.iter_mut().find(|e| field_of(e) == Some(field)) {
        Some(e) => {
            let mut ids = targets(e.get("value").unwrap_or(&Value::Null))?;
            ids.push(target.into());
            e["value"] = Value::Array(ids);
        }
        None => out.push(json!({"value": [target], "field": field})),
    }
    Ok(Some(out))
}

/// A `custom_fields` list with links added, and the targets added.
pub type Linked = (Vec<Value>, Vec<u64>);

/// `list` with each of `targets` added to `field`'s links in turn (see [`with_link`]), and
/// the targets added (those not linked already, in their order). `Ok(None)`: all linked
/// already.
pub fn with_links(
    list: &[Value],
    field: u64,
    targets: &[u64],
) -> std::result::Result<Option<Linked>, String> {
    let mut out = list.to_vec();
    let mut added = Vec::new();
    for &t in targets {
        if let Some(next) = with_link(&out, field, t)? {
            out = next;
            added.push(t);
        }
    }
    Ok((!added.is_empty()).then_some((out, added)))
}

/// `list` with `target` taken out of `field`'s links, every other entry and value as it was;
/// when no link is left, the entry is put back as it was before the link was added
/// (`before`: `None` when there was no entry, which is removed; a null value stays null).
/// `Ok(None)`: not linked.
pub fn without_link(
    list: &[Value],
    field: u64,
    target: u64,
    before: Option<&Value>,
) -> std::result::Result<Option<Vec<Value>>, String> {
    if !links_to(list, field, target) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        if field_of(e) != Some(field) {
            out.push(e.clone());
            continue;
        }
        let ids = targets(e.get("value").unwrap_or(&Value::Null))?;
        let left: Vec<Value> = ids
            .into_iter()
            .filter(|t| t.as_u64() != Some(target))
            .collect();
        let value = match (left.is_empty(), before) {
            (true, None) => continue,
            (true, Some(Value::Null)) => Value::Null,
            _ => Value::Array(left),
        };
        let mut e = e.clone();
        e["value"] = value;
        out.push(e);
    }
    Ok(Some(out))
}

/// `list` without `field`'s entry when it holds no link (null or empty), every other entry
/// as it was; `None` when there is no such entry or it links somewhere.
pub fn without_empty(list: &[Value], field: u64) -> Option<Vec<Value>> {
    let v = entry_value(list, field)?;
    let empty = v.is_null() || v.as_array().is_some_and(Vec::is_empty);
    empty.then(|| {
        list.iter()
            .filter(|e| field_of(e) != Some(field))
            .cloned()
            .collect()
    })
}

impl Client {
    /// The id of the custom field named exactly `name`, if there is one; an error when it
    /// is not a document-link field.
    pub fn link_field(&self, name: &str) -> Result<Option<u64>> {
        let mut found = None;
        self.for_each_page("/api/custom_fields/", "", MAX_PAGE_SIZE, |p| {
            for f in &p.results {
                if f.get("name").and_then(Value::as_str) != Some(name) {
                    continue;
                }
                let url = format!("{}/api/custom_fields/", self.base());
                let id = f.get("id").and_then(Value::as_u64);
                let kind = f.get("data_type").and_then(Value::as_str).unwrap_or("?");
                if kind != DOCUMENT_LINK {
                    return Err(Error::Shape {
                        url,
                        msg: format!("the custom field {name:?} has data type {kind}, not {DOCUMENT_LINK}: choose another name for --link"),
                    });
                }
                found = Some(id.ok_or_else(|| Error::Shape {
                    url,
                    msg: "a custom field without id".into(),
                })?);
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(found)
    }

    /// Creates the document-link custom field `name` and returns its id; if another client
    /// created it meanwhile, that one's id.
    pub fn create_link_field(&self, name: &str) -> Result<u64> {
        let created = self.post_json(
            "/api/custom_fields/",
            &json!({"name": name, "data_type": DOCUMENT_LINK}),
        );
        match created {
            Ok(v) => v
                .get("id")
                .and_then(Value::as_u64)
                .ok_or_else(|| Error::Shape {
                    url: format!("{}/api/custom_fields/", self.base()),
                    msg: "the created custom field has no id".into(),
                }),
            Err(e @ Error::Status { status: 400, .. }) => match self.link_field(name)? {
                Some(id) => Ok(id),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// Replaces document `id`'s custom fields with `list` (a PATCH: the entries left out are
    /// removed).
    pub fn set_custom_fields(&self, id: u64, list: &[Value]) -> Result<()> {
        self.call(
            "PATCH",
            &format!("/api/documents/{id}/"),
            Some(&json!({"custom_fields": list})),
            self.retry.retries,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list with a text field, a link field 7 to #3, and a select field.
    fn list() -> Vec<Value> {
        vec![
            json!({"value": "Kto 12", "field": 2}),
            json!({"value": [3], "field": 7}),
            json!({"value": "opt-a", "field": 9}),
        ]
    }

    #[test]
    fn a_link_is_appended_and_every_other_entry_kept() {
        let out = with_link(&list(), 7, 12).unwrap().unwrap();
        assert_eq!(
            out,
            vec![
                json!({"value": "Kto 12", "field": 2}),
                json!({"value": [3, 12], "field": 7}),
                json!({"value": "opt-a", "field": 9}),
            ]
        );
        assert!(with_link(&out, 7, 12).unwrap().is_none(), "no link twice");
        assert!(links_to(&out, 7, 12) && !links_to(&out, 2, 12));
    }

    #[test]
    fn a_missing_entry_is_added_at_the_end_and_a_null_value_filled() {
        let out = with_link(&list(), 8, 1).unwrap().unwrap();
        assert_eq!(out[..3], list()[..]);
        assert_eq!(out[3], json!({"value": [1], "field": 8}));
        let null = vec![json!({"value": null, "field": 8})];
        assert_eq!(
            with_link(&null, 8, 1).unwrap().unwrap(),
            vec![json!({"value": [1], "field": 8})]
        );
        let bad = vec![json!({"value": "x", "field": 8})];
        assert!(with_link(&bad, 8, 1).unwrap_err().contains("not a list"));
    }

    #[test]
    fn several_links_are_added_once_each_and_every_other_entry_kept() {
        let (out, added) = with_links(&list(), 7, &[3, 12, 12, 5]).unwrap().unwrap();
        assert_eq!(added, vec![12, 5], "3 was linked already, 12 once");
        assert_eq!(
            out,
            vec![
                json!({"value": "Kto 12", "field": 2}),
                json!({"value": [3, 12, 5], "field": 7}),
                json!({"value": "opt-a", "field": 9}),
            ]
        );
        assert!(with_links(&out, 7, &[5, 3]).unwrap().is_none());
        assert!(with_links(&list(), 7, &[]).unwrap().is_none());
    }

    #[test]
    fn taking_a_link_out_restores_the_list_as_it_was() {
        let before = list();
        // An entry that held other links: only ours goes.
        let linked = with_link(&before, 7, 12).unwrap().unwrap();
        let back = without_link(&linked, 7, 12, entry_value(&before, 7)).unwrap();
        assert_eq!(back.unwrap(), before);
        // An entry we created goes entirely.
        let linked = with_link(&before, 8, 12).unwrap().unwrap();
        let back = without_link(&linked, 8, 12, entry_value(&before, 8)).unwrap();
        assert_eq!(back.unwrap(), before);
        // A null entry is null again.
        let null = vec![
            json!({"value": null, "field": 8}),
            json!({"value": 1, "field": 2}),
        ];
        let linked = with_link(&null, 8, 12).unwrap().unwrap();
        let back = without_link(&linked, 8, 12, entry_value(&null, 8)).unwrap();
        assert_eq!(back.unwrap(), null);
        // A link added meanwhile by someone else stays; not linked: nothing to do.
        let mut both = with_link(&before, 8, 12).unwrap().unwrap();
        both = with_link(&both, 8, 40).unwrap().unwrap();
        let back = without_link(&both, 8, 12, None).unwrap().unwrap();
        assert_eq!(entry_value(&back, 8), Some(&json!([40])));
        assert!(without_link(&before, 8, 12, None).unwrap().is_none());
    }

    #[test]
    fn only_an_empty_entry_is_dropped() {
        let mut l = list();
        l.push(json!({"value": [], "field": 8}));
        assert_eq!(without_empty(&l, 8).unwrap(), list());
        assert!(without_empty(&list(), 7).is_none(), "it links to #3");
        assert!(without_empty(&list(), 8).is_none(), "no entry");
    }
}
