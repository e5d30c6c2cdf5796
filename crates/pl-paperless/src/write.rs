//! The write side pl-apply needs: the current state of given documents, the trash, tags by
//! name (created when missing, deleted again by an undo), adding and removing a tag, moving
//! documents to the trash and restoring them. Every call goes through [`Client`]'s request, retry and error handling.
//!
//! Deleting differs between releases: Paperless-NGX 3.x has `POST /api/documents/delete/`
//! and deprecates `bulk_edit` `"method":"delete"`, which 2.x uses. [`Client::delete_method`]
//! picks one from the release the server names in `X-Version` (learned from any earlier
//! answer), and [`Client::trash`] falls back to `bulk_edit` when the delete endpoint is
//! missing (404 or 405).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::api::MAX_PAGE_SIZE;
use crate::client::Client;
use crate::error::{Error, Result};

/// Ids per request in `id__in` lists (keeps URLs short).
const IDS_PER_REQUEST: usize = 100;

/// What pl-apply needs to know about a live document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocState {
    /// `modified` as the server wrote it.
    pub modified: String,
    /// Tag ids.
    pub tags: BTreeSet<u64>,
    /// The `custom_fields` list as the server gave it (`{"field", "value"}` entries).
    pub custom_fields: Vec<Value>,
    /// Whether the token's user may change it (`user_can_change`; true when the server does
    /// not say, as before 1.14).
    pub can_change: bool,
}

/// How documents are moved to the trash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteMethod {
    /// `POST /api/documents/delete/` (3.x).
    Endpoint,
    /// `POST /api/documents/bulk_edit/` with `"method":"delete"` (2.x).
    BulkEdit,
}

impl DeleteMethod {
    /// The name used in journals and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            DeleteMethod::Endpoint => "documents/delete",
            DeleteMethod::BulkEdit => "bulk_edit delete",
        }
    }
}

fn shape(url: String, msg: &str) -> Error {
    Error::Shape {
        url,
        msg: msg.to_owned(),
    }
}

fn id_list(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

impl Client {
    /// `modified`, tags and custom fields of the given documents that exist and are not in the trash
    /// (absent ids are simply not in the map).
    pub fn doc_states(&self, ids: &[u64]) -> Result<BTreeMap<u64, DocState>> {
        let mut out = BTreeMap::new();
        for chunk in ids.chunks(IDS_PER_REQUEST) {
            let query = format!(
                "ordering=id&fields=id,modified,tags,custom_fields,user_can_change&id__in={}",
                id_list(chunk)
            );
            self.for_each_page("/api/documents/", &query, MAX_PAGE_SIZE, |p| {
                for d in &p.results {
                    let url = || format!("{}/api/documents/?{query}", self.base());
                    let id = d
                        .get("id")
                        .and_then(Value::as_u64)
                        .ok_or_else(|| shape(url(), "a document without id"))?;
                    let modified = d
                        .get("modified")
                        .and_then(Value::as_str)
                        .ok_or_else(|| shape(url(), "a document without modified"))?
                        .to_owned();
                    let tags = d
                        .get("tags")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_u64).collect())
                        .unwrap_or_default();
                    let custom_fields = d
                        .get("custom_fields")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let can_change = d.get("user_can_change").and_then(Value::as_bool);
                    let state = DocState {
                        modified,
                        tags,
                        custom_fields,
                        can_change: can_change.unwrap_or(true),
                    };
                    out.insert(id, state);
                }
                Ok(true)
            })?;
        }
        Ok(out)
    }

    /// Ids of the documents in the trash.
    pub fn trashed(&self) -> Result<BTreeSet<u64>> {
        self.ids_where("/api/trash/", "", |_| true)
    }

    /// The ids of the records on every page of `path?query` that `keep` accepts (a record
    /// without an id is an error).
    fn ids_where(
        &self,
        path: &str,
        query: &str,
        keep: impl Fn(&Value) -> bool,
    ) -> Result<BTreeSet<u64>> {
        let mut out = BTreeSet::new();
        self.for_each_page(path, query, MAX_PAGE_SIZE, |p| {
            for d in p.results.iter().filter(|d| keep(d)) {
                out.insert(d.get("id").and_then(Value::as_u64).ok_or_else(|| {
                    shape(
                        format!("{}{path}?{query}", self.base()),
                        "a document without id",
                    )
                })?);
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// The id of the tag named exactly `name`, if there is one.
    pub fn tag_id(&self, name: &str) -> Result<Option<u64>> {
        Ok(self
            .names("/api/tags/")?
            .into_iter()
            .find(|(_, n)| n == name)
            .map(|(id, _)| id))
    }

    /// Creates the tag `name` (no automatic matching) and returns its id; if another client
    /// created it meanwhile, that one's id.
    pub fn create_tag(&self, name: &str) -> Result<u64> {
        let created = self.post_json(
            "/api/tags/",
            &json!({"name": name, "matching_algorithm": 0}),
        );
        match created {
            Ok(v) => v.get("id").and_then(Value::as_u64).ok_or_else(|| {
                shape(
                    format!("{}/api/tags/", self.base()),
                    "the created tag has no id",
                )
            }),
            Err(e @ Error::Status { status: 400, .. }) => match self.tag_id(name)? {
                Some(id) => Ok(id),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// Whether tag `id` exists (the tag endpoint answers for it).
    pub fn tag_exists(&self, id: u64) -> Result<bool> {
        match self.get_json(&format!("/api/tags/{id}/")) {
            Ok(_) => Ok(true),
            Err(Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The documents that carry tag `tag`: the live ones, and those in the trash (which get
    /// it back when restored).
    pub fn tagged(&self, tag: u64) -> Result<BTreeSet<u64>> {
        let query = format!("ordering=id&fields=id&tags__id__all={tag}");
        let mut out = self.ids_where("/api/documents/", &query, |_| true)?;
        out.extend(self.ids_where("/api/trash/", "", |d| {
            d.get("tags")
                .and_then(Value::as_array)
                .is_some_and(|t| t.iter().any(|x| x.as_u64() == Some(tag)))
        })?);
        Ok(out)
    }

    /// Deletes tag `id` (Paperless takes it off every document, in the trash too).
    pub fn delete_tag(&self, id: u64) -> Result<()> {
        self.delete(&format!("/api/tags/{id}/"))?;
        Ok(())
    }

    /// `bulk_edit` `method` with `parameters` on `ids`.
    pub fn bulk_edit(&self, ids: &[u64], method: &str, parameters: Value) -> Result<()> {
        let v = self.post_json(
            "/api/documents/bulk_edit/",
            &json!({"documents": ids, "method": method, "parameters": parameters}),
        )?;
        check_ok(&format!("{}/api/documents/bulk_edit/", self.base()), &v)
    }

    /// Adds tag `tag` to `ids`.
    pub fn add_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        self.bulk_edit(ids, "add_tag", json!({"tag": tag}))
    }

    /// Removes tag `tag` from `ids`.
    pub fn remove_tag(&self, ids: &[u64], tag: u64) -> Result<()> {
        self.bulk_edit(ids, "remove_tag", json!({"tag": tag}))
    }

    /// The delete call this server wants, from the release it named (`X-Version`) in an
    /// earlier answer: 3.x and later the delete endpoint, 2.x `bulk_edit`; unknown: the
    /// endpoint (with the fallback of [`Client::trash`]).
    pub fn delete_method(&self) -> DeleteMethod {
        let major = self.server().release.as_deref().and_then(|r| {
            r.trim_start_matches('v')
                .split('.')
                .next()?
                .parse::<u32>()
                .ok()
        });
        match major {
            Some(m) if m < 3 => DeleteMethod::BulkEdit,
            _ => DeleteMethod::Endpoint,
        }
    }

    /// Moves `ids` to the trash (restorable there); returns the method that did it.
    pub fn trash(&self, ids: &[u64], method: DeleteMethod) -> Result<DeleteMethod> {
        match method {
            DeleteMethod::BulkEdit => {
                self.bulk_edit(ids, "delete", json!({}))?;
                Ok(DeleteMethod::BulkEdit)
            }
            DeleteMethod::Endpoint => {
                match self.post_json("/api/documents/delete/", &json!({"documents": ids})) {
                    Ok(v) => {
                        check_ok(&format!("{}/api/documents/delete/", self.base()), &v)?;
                        Ok(DeleteMethod::Endpoint)
                    }
                    // No such endpoint on this release: the 2.x way.
                    Err(Error::NotFound { .. }) | Err(Error::Status { status: 405, .. }) => {
                        self.trash(ids, DeleteMethod::BulkEdit)
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// The notes of document `id`: (note id, text).
    pub fn notes(&self, id: u64) -> Result<Vec<(u64, String)>> {
        let path = format!("/api/documents/{id}/notes/");
        let v = self.get_json(&path)?;
        parse_notes(&format!("{}{path}", self.base()), &v)
    }

    /// Adds a note to document `id`; returns the new note's id (the highest id with this
    /// text in the answer, which lists all the document's notes). A note is no idempotent
    /// write, so it is never sent twice blindly: after a try whose answer was not seen, the
    /// document's notes are read, and the note is sent again only when this text is not
    /// among them (a first try that lands later still makes a second note: an undo deletes
    /// every note with this text).
    pub fn add_note(&self, id: u64, text: &str) -> Result<u64> {
        self.add_note_after(id, text, &self.notes(id)?)
    }

    /// [`Client::add_note`] when the document's notes were just read (`notes`): one request
    /// fewer.
    pub fn add_note_after(&self, id: u64, text: &str, notes: &[(u64, String)]) -> Result<u64> {
        let path = format!("/api/documents/{id}/notes/");
        let url = format!("{}{path}", self.base());
        let ours = |notes: &[(u64, String)]| {
            let ids = notes.iter().filter(|(_, t)| t == text).map(|(n, _)| *n);
            ids.max()
        };
        let before = ours(notes);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let e = match self.call("POST", &path, Some(&json!({"note": text})), 0) {
                Ok(v) => {
                    let found = ours(&parse_notes(&url, &v)?);
                    return found.ok_or_else(|| shape(url, "the note is not in the answer"));
                }
                Err(e) => e,
            };
            if !e.may_have_landed() || attempt > self.retry.retries {
                return Err(e);
            }
            let wait = self.retry.backoff(attempt);
            (self.notify)(&format!(
                "{e}; reading the notes of #{id} before retry {attempt} of {} in {:.1}s",
                self.retry.retries,
                wait.as_secs_f64()
            ));
            std::thread::sleep(wait);
            match ours(&self.notes(id)?) {
                Some(n) if Some(n) != before => return Ok(n),
                _ => {}
            }
        }
    }

    /// Whether a write since the last call went unanswered before being sent again (its
    /// first copy may still land on the server); clears the mark.
    pub fn take_unanswered(&self) -> bool {
        self.unanswered.replace(false)
    }

    /// Deletes note `note` of document `id`.
    pub fn delete_note(&self, id: u64, note: u64) -> Result<()> {
        self.delete(&format!("/api/documents/{id}/notes/?id={note}"))?;
        Ok(())
    }

    /// Restores `ids` from the trash.
    pub fn restore(&self, ids: &[u64]) -> Result<()> {
        self.post_json(
            "/api/trash/",
            &json!({"action": "restore", "documents": ids}),
        )?;
        Ok(())
    }
}

/// A notes answer: a list of `{"id", "note", ...}`; Paperless answers failures with
/// `{"error": ...}` and status 200.
fn parse_notes(url: &str, v: &Value) -> Result<Vec<(u64, String)>> {
    let Value::Array(a) = v else {
        let detail = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("not a list");
        return Err(shape(url.to_owned(), &format!("notes: {detail}")));
    };
    a.iter()
        .map(|n| {
            match (
                n.get("id").and_then(Value::as_u64),
                n.get("note").and_then(Value::as_str),
            ) {
                (Some(i), Some(t)) => Ok((i, t.to_owned())),
                _ => Err(shape(url.to_owned(), "a note without id or text")),
            }
        })
        .collect()
}

/// A bulk answer is `{"result":"OK"}` (or plain text `OK`); anything else is a failure.
fn check_ok(url: &str, v: &Value) -> Result<()> {
    let ok = match v {
        Value::Object(o) => o
            .get("result")
            .and_then(Value::as_str)
            .is_some_and(|r| r.eq_ignore_ascii_case("ok")),
        Value::String(s) => s.trim().eq_ignore_ascii_case("ok"),
        Value::Null => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        let s = v.to_string();
        Err(shape(
            url.to_owned(),
            &format!(
                "expected {{\"result\": \"OK\"}}, got {}",
                &s[..s.len().min(200)]
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_answers() {
        assert!(check_ok("u", &json!({"result": "OK"})).is_ok());
        assert!(check_ok("u", &json!("OK\n")).is_ok());
        let e = check_ok("u", &json!("Insufficient permissions"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Insufficient permissions"), "{e}");
    }

    #[test]
    fn notes_answers() {
        let v = json!([{"id": 3, "note": "a", "created": "x", "user": {}}, {"id": 9, "note": "b"}]);
        assert_eq!(
            parse_notes("u", &v).unwrap(),
            vec![(3, "a".to_string()), (9, "b".to_string())]
        );
        let e = parse_notes("u", &json!({"error": "Error saving note"}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Error saving note"), "{e}");
    }

    #[test]
    fn id_lists() {
        assert_eq!(id_list(&[3, 10, 7]), "3,10,7");
    }
}
