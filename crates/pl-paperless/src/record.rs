//! Turning the API's document objects into docs NDJSON records with names instead of ids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::{Access, Permissions};
use crate::client::Client;
use crate::error::Result;

/// The id → name maps used to resolve a document's references (kept in the state file too).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Names {
    /// `/api/correspondents/`
    pub correspondents: BTreeMap<u64, String>,
    /// `/api/document_types/`
    pub document_types: BTreeMap<u64, String>,
    /// `/api/tags/`
    pub tags: BTreeMap<u64, String>,
}

impl Names {
    /// Fetches the three lists, each once.
    pub fn fetch(client: &Client) -> Result<Names> {
        Ok(Names {
            correspondents: client.names("/api/correspondents/")?,
            document_types: client.names("/api/document_types/")?,
            tags: client.names("/api/tags/")?,
        })
    }

    /// Whether a name known before was renamed or removed: records that did not change on
    /// the server may then carry a stale name, so the sync must be a full one. New names do
    /// not matter (a document using one has a new `modified`).
    pub fn renamed_since(&self, old: &Names) -> bool {
        [
            (&old.correspondents, &self.correspondents),
            (&old.document_types, &self.document_types),
            (&old.tags, &self.tags),
        ]
        .iter()
        .any(|(o, n)| o.iter().any(|(id, name)| n.get(id) != Some(name)))
    }
}

/// Document `id` fetched from the server as a docs record (the fields pl-fetch writes, names
/// resolved): what pl-check --id and pl-watch check. Fetches the name lists too (three small
/// requests), so a tag renamed since is never written under its old name.
pub fn fetch_record(client: &Client, id: u64) -> Result<Record> {
    let names = Names::fetch(client)?;
    let path = format!("/api/documents/{id}/?fields={}", crate::api::DOC_FIELDS);
    let doc = client.get_json(&path)?;
    to_record(&doc, &names, client.base()).ok_or_else(|| crate::Error::Shape {
        url: format!("{}{path}", client.base()),
        msg: format!("document {id}: the answer has no id"),
    })
}

/// A name for an id reference: the name, `#ID` when the token's user cannot see the object,
/// `null` for no reference.
fn resolve(map: &BTreeMap<u64, String>, v: Option<&Value>) -> Value {
    match v.and_then(Value::as_u64) {
        Some(id) => Value::String(map.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))),
        None => Value::Null,
    }
}

/// One output record: its id, its NDJSON line (with the newline) and its `modified`.
#[derive(Debug, Clone)]
pub struct Record {
    /// Document id.
    pub id: u64,
    /// The line as written to the output.
    pub line: Vec<u8>,
    /// `modified` as the server wrote it ("" if absent).
    pub modified: String,
}

impl Record {
    /// The record with `permissions` set to `p` (after the other fields, replacing any there):
    /// the documents listing gives no permission lists beside `user_can_change`, so a sync
    /// adds those of its `full_perms` listing.
    pub fn with_permissions(mut self, p: &Permissions) -> Record {
        let mut o: Map<String, Value> =
            serde_json::from_slice(&self.line).expect("a record's line is a JSON object");
        o.shift_remove("permissions");
        o.insert("permissions".into(), p.to_value());
        self.line = serde_json::to_vec(&Value::Object(o)).expect("a JSON value serializes");
        self.line.push(b'\n');
        self
    }
}

/// Converts one document object of the API into a record in the fixed field order
/// (id, title, content, created, added, modified, correspondent, document_type, tags,
/// archive_serial_number, original_file_name, page_count, mime_type, url, owner,
/// user_can_change, then permissions where the object has them). `owner` is the owner's user
/// id, `null` for a document without owner (Paperless shows those to every user);
/// `user_can_change` is whether the token's user may change the document, `null` when the
/// server did not say; `permissions` its permission lists ([`Permissions`]), absent when the
/// object has none. `None` if it has no numeric id.
pub fn to_record(doc: &Value, names: &Names, base: &str) -> Option<Record> {
    let id = doc.get("id")?.as_u64()?;
    let field = |k: &str| doc.get(k).cloned().unwrap_or(Value::Null);
    let content = match doc.get("content") {
        Some(Value::String(s)) => Value::String(s.clone()),
        _ => Value::String(String::new()),
    };
    let mut tags: Vec<String> = doc
        .get("tags")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|t| match resolve(&names.tags, Some(t)) {
                    Value::String(s) => s,
                    _ => t.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    tags.sort_unstable();
    tags.dedup();
    let modified = doc
        .get("modified")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut o = Map::new();
    o.insert("id".into(), id.into());
    o.insert("title".into(), field("title"));
    o.insert("content".into(), content);
    o.insert("created".into(), field("created"));
    o.insert("added".into(), field("added"));
    o.insert("modified".into(), field("modified"));
    o.insert(
        "correspondent".into(),
        resolve(&names.correspondents, doc.get("correspondent")),
    );
    o.insert(
        "document_type".into(),
        resolve(&names.document_types, doc.get("document_type")),
    );
    o.insert(
        "tags".into(),
        Value::Array(tags.into_iter().map(Value::String).collect()),
    );
    o.insert(
        "archive_serial_number".into(),
        field("archive_serial_number"),
    );
    o.insert("original_file_name".into(), field("original_file_name"));
    o.insert("page_count".into(), field("page_count"));
    o.insert("mime_type".into(), field("mime_type"));
    o.insert(
        "url".into(),
        Value::String(format!("{base}/documents/{id}/details")),
    );
    let access = Access::of(doc);
    o.insert(
        "owner".into(),
        access.owner.map_or(Value::Null, Value::from),
    );
    o.insert(
        "user_can_change".into(),
        access.can_change.map_or(Value::Null, Value::Bool),
    );
    if let Some(p) = &access.permissions {
        o.insert("permissions".into(), p.to_value());
    }
    let mut line = serde_json::to_vec(&Value::Object(o)).expect("a JSON value serializes");
    line.push(b'\n');
    Some(Record { id, line, modified })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_names_in_fixed_order() {
        let mut names = Names::default();
        names.tags.insert(1, "zeta".into());
        names.tags.insert(5, "alpha".into());
        names.correspondents.insert(4, "ACME".into());
        let doc = json!({"id": 123, "correspondent": 4, "document_type": 2, "title": "Invoice",
            "content": "text", "tags": [1, 5, 9], "created": "2026-01-15",
            "modified": "2026-02-01T10:22:33.123456+01:00", "added": "2026-01-16T08:00:00+01:00",
            "archive_serial_number": null, "original_file_name": "scan.pdf", "page_count": 2,
            "mime_type": "application/pdf", "notes": [], "owner": 3, "user_can_change": false});
        let r = to_record(&doc, &names, "http://h").unwrap();
        assert_eq!(r.id, 123);
        assert_eq!(r.modified, "2026-02-01T10:22:33.123456+01:00");
        assert_eq!(
            String::from_utf8(r.line).unwrap(),
            concat!(
                r#"{"id":123,"title":"Invoice","content":"text","created":"2026-01-15","#,
                r#""added":"2026-01-16T08:00:00+01:00","modified":"2026-02-01T10:22:33.123456+01:00","#,
                r##""correspondent":"ACME","document_type":"#2","tags":["#9","alpha","zeta"],"##,
                r#""archive_serial_number":null,"original_file_name":"scan.pdf","page_count":2,"#,
                r#""mime_type":"application/pdf","url":"http://h/documents/123/details","#,
                r#""owner":3,"user_can_change":false}"#,
                "\n"
            )
        );
    }

    #[test]
    fn permissions_come_last_and_are_set_once() {
        let names = Names::default();
        let perms = json!({"view": {"users": [5, 2], "groups": [1]},
                           "change": {"users": [], "groups": []}});
        let want = r#","user_can_change":true,"permissions":{"view":{"users":[2,5],"groups":[1]},"change":{"users":[],"groups":[]}}}"#;
        let listed = json!({"id": 1, "owner": 3, "user_can_change": true, "permissions": perms});
        let line = String::from_utf8(to_record(&listed, &names, "b").unwrap().line).unwrap();
        assert!(line.ends_with(&format!("{want}\n")), "{line}");
        // Set on a record without them, and again on one with them: the same line.
        let plain = json!({"id": 1, "owner": 3, "user_can_change": true});
        let p = Permissions::of(&perms).unwrap();
        let r = to_record(&plain, &names, "b").unwrap().with_permissions(&p);
        assert_eq!(String::from_utf8(r.line.clone()).unwrap(), line);
        assert_eq!(
            String::from_utf8(r.with_permissions(&p).line).unwrap(),
            line
        );
    }

    #[test]
    fn null_content_is_empty_and_missing_id_is_skipped() {
        let names = Names::default();
        let r = to_record(&json!({"id": 1, "content": null}), &names, "b").unwrap();
        let line = String::from_utf8(r.line).unwrap();
        assert!(line.contains(r#""content":"""#));
        // No owner (Paperless: visible to all), and a server that does not say who may change.
        assert!(line.ends_with(",\"owner\":null,\"user_can_change\":null}\n"));
        assert!(to_record(&json!({"title": "x"}), &names, "b").is_none());
    }

    #[test]
    fn renames_and_removals_count_additions_do_not() {
        let mut a = Names::default();
        a.tags.insert(1, "x".into());
        let mut b = a.clone();
        b.correspondents.insert(7, "new".into());
        assert!(!b.renamed_since(&a));
        b.tags.insert(1, "y".into());
        assert!(b.renamed_since(&a));
        b.tags.clear();
        assert!(b.renamed_since(&a));
    }
}
