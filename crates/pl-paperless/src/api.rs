//! The few list endpoints pl-fetch needs: documents page by page, the id list, and the
//! id → name lists of correspondents, document types and tags.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::client::Client;
use crate::error::{Error, Result};

/// The document fields the pipeline needs (`fields=` keeps pages small: no notes, no
/// permission lists, no custom fields): the owner and whether the token's user may change
/// the document are among them.
pub const DOC_FIELDS: &str = "id,title,content,created,added,modified,correspondent,\
document_type,tags,archive_serial_number,original_file_name,page_count,mime_type,owner,\
user_can_change";

/// Who owns a document, whether the token's user may change it, and who else may see or
/// change it, as the server says (`owner`: a user id, `None` for no owner; `can_change`: `None`
/// when the server did not say; `permissions`: `None` when it did not list them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Access {
    /// `owner`.
    pub owner: Option<u64>,
    /// `user_can_change`.
    pub can_change: Option<bool>,
    /// `permissions` (the listing's with `full_perms=true`).
    pub permissions: Option<Permissions>,
}

impl Access {
    /// Read from a document object (the API's, or a docs record). A `permissions` object of
    /// another shape than Paperless's is none.
    pub fn of(doc: &Value) -> Access {
        Access {
            owner: doc.get("owner").and_then(Value::as_u64),
            can_change: doc.get("user_can_change").and_then(Value::as_bool),
            permissions: doc.get("permissions").and_then(Permissions::of),
        }
    }
}

/// A document's permission lists, as Paperless gives them with `full_perms=true`: the users
/// and groups (ids, ascending, each once) granted view and change on it (its owner is not
/// among them unless granted too).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Permissions {
    /// `view.users`.
    pub view_users: Vec<u64>,
    /// `view.groups`.
    pub view_groups: Vec<u64>,
    /// `change.users`.
    pub change_users: Vec<u64>,
    /// `change.groups`.
    pub change_groups: Vec<u64>,
}

impl Permissions {
    /// `{"view": {"users": [..], "groups": [..]}, "change": {..}}`; `None` for another shape.
    pub fn of(v: &Value) -> Option<Permissions> {
        let ids = |action: &str, target: &str| -> Option<Vec<u64>> {
            let mut ids = v
                .get(action)?
                .get(target)?
                .as_array()?
                .iter()
                .map(Value::as_u64)
                .collect::<Option<Vec<u64>>>()?;
            ids.sort_unstable();
            ids.dedup();
            Some(ids)
        };
        Some(Permissions {
            view_users: ids("view", "users")?,
            view_groups: ids("view", "groups")?,
            change_users: ids("change", "users")?,
            change_groups: ids("change", "groups")?,
        })
    }

    /// As a docs record holds it: Paperless's shape, ids ascending.
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "view": {"users": self.view_users, "groups": self.view_groups},
            "change": {"users": self.change_users, "groups": self.change_groups},
        })
    }
}

/// Largest page size the server allows (`StandardPagination.max_page_size`).
pub const MAX_PAGE_SIZE: u32 = 100_000;

/// One page of a list answer.
#[derive(Debug)]
pub struct Page {
    /// The items.
    pub results: Vec<Value>,
    /// The size of the whole filtered list, as the server counted it for this page.
    pub count: u64,
    /// `all` (every id of the filtered list), sent by API versions below 10.
    pub all: Option<Vec<u64>>,
}

fn shape(url: String, msg: &str) -> Error {
    Error::Shape {
        url,
        msg: msg.to_owned(),
    }
}

fn parse_page(path_query: &str, v: Value, base: &str) -> Result<(Page, bool)> {
    let url = || format!("{base}{path_query}");
    let Value::Object(mut o) = v else {
        return Err(shape(
            url(),
            "not a JSON object (is this a Paperless-NGX server?)",
        ));
    };
    let results = match o.remove("results") {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(shape(
                url(),
                "no \"results\" list (is this a Paperless-NGX server?)",
            ))
        }
    };
    let count = o.get("count").and_then(Value::as_u64).unwrap_or(0);
    let all = match o.get("all") {
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|x| {
                    x.as_u64()
                        .ok_or_else(|| shape(url(), "\"all\" holds a non-id"))
                })
                .collect::<Result<Vec<u64>>>()?,
        ),
        _ => None,
    };
    let more = o.get("next").is_some_and(|n| !n.is_null());
    Ok((
        Page {
            results,
            count,
            all,
        },
        more,
    ))
}

/// Ids gathered page by page, and whether they make the whole list the server counted.
#[derive(Debug, Default)]
pub struct IdListing {
    count: Option<u64>,
    ids: Vec<u64>,
    changed: bool,
}

impl IdListing {
    /// One page: the count the server gave with it, and its ids.
    pub fn page(&mut self, count: u64, ids: Vec<u64>) {
        self.changed |= self.count.is_some_and(|c| c != count);
        self.count = Some(count);
        self.ids.extend(ids);
    }

    /// The ids, ascending, when they are the whole list: every page counted the same, and
    /// there are as many distinct ids as counted; else why not.
    pub fn whole(mut self) -> std::result::Result<Vec<u64>, String> {
        self.ids.sort_unstable();
        self.ids.dedup();
        let n = self.ids.len() as u64;
        match self.count {
            _ if self.changed => {
                Err("the document list changed while it was read (the pages' counts differ)".into())
            }
            Some(c) if c == n => Ok(self.ids),
            Some(c) => Err(format!(
                "{n} document ids read where the server counted {c} (the list changed while it was read, or a page was lost)"
            )),
            None => Err("no page of the document list was read".into()),
        }
    }
}

impl Client {
    /// Pages through `path?query` (query without `page`/`page_size`), calling `f` per page
    /// until it returns `false` or the list ends. A 404 on a later page means the list shrank
    /// while paging: the end.
    pub fn for_each_page(
        &self,
        path: &str,
        query: &str,
        page_size: u32,
        mut f: impl FnMut(Page) -> Result<bool>,
    ) -> Result<()> {
        let sep = if query.is_empty() { "" } else { "&" };
        for page in 1u64.. {
            let pq = format!("{path}?{query}{sep}page_size={page_size}&page={page}");
            let v = match self.get_json(&pq) {
                Err(Error::NotFound { .. }) if page > 1 => return Ok(()),
                r => r?,
            };
            let (p, more) = parse_page(&pq, v, self.base())?;
            let empty = p.results.is_empty();
            if !f(p)? || !more || empty {
                break;
            }
        }
        Ok(())
    }

    /// Every document id the token can see, ascending: one request on API versions below 10
    /// (the `all` field), else `fields=id` pages of the largest size.
    pub fn document_ids(&self) -> Result<Vec<u64>> {
        self.document_ids_where("")
    }

    /// The ids of the documents matching `filter` (query parameters, already encoded, e.g.
    /// `modified__gt=...`; empty for all), ascending.
    pub fn document_ids_where(&self, filter: &str) -> Result<Vec<u64>> {
        let mut ids = Vec::new();
        let sep = if filter.is_empty() { "" } else { "&" };
        self.for_each_page(
            "/api/documents/",
            &format!("ordering=id&fields=id{sep}{filter}"),
            if self.api_version() < 10 {
                1
            } else {
                MAX_PAGE_SIZE
            },
            |p| {
                if let Some(all) = p.all {
                    ids = all;
                    return Ok(false);
                }
                for d in &p.results {
                    ids.push(d.get("id").and_then(Value::as_u64).ok_or_else(|| {
                        shape(
                            format!("{}/api/documents/", self.base()),
                            "a document without id",
                        )
                    })?);
                }
                Ok(true)
            },
        )?;
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// Every document id the token can see, ascending, from a listing known to be whole
    /// (what a service may delete by): `fields=id` pages of `page_size`, or the `all` list of
    /// the first answer where the API version (below 10) sends one. A listing that fails on
    /// any page, or that changes while it is read (the pages' counts differ, a page gone,
    /// fewer or more ids than counted), is an error: nothing may be concluded from it.
    pub fn whole_document_ids(&self, page_size: u32) -> Result<Vec<u64>> {
        let mut listing = IdListing::default();
        let url = format!("{}/api/documents/", self.base());
        self.for_each_page(
            "/api/documents/",
            "ordering=id&fields=id",
            page_size.max(1),
            |p| {
                // The version is known once answered (a 406 may have changed it): `all` is
                // there, or not.
                if let Some(all) = p.all {
                    listing = IdListing::default();
                    listing.page(p.count, all);
                    return Ok(false);
                }
                let ids = p
                    .results
                    .iter()
                    .map(|d| d.get("id").and_then(Value::as_u64))
                    .collect::<Option<Vec<u64>>>()
                    .ok_or_else(|| shape(url.clone(), "a document without id"))?;
                listing.page(p.count, ids);
                Ok(true)
            },
        )?;
        listing.whole().map_err(|why| shape(url, &why))
    }

    /// Every document the token can see, by id, with who owns it, whether the token's user
    /// may change it and its permission lists: `fields=id,owner,user_can_change` pages of the
    /// largest size, then `full_perms=true&fields=id,permissions` ones (Paperless drops
    /// `user_can_change` from an answer with `full_perms`; a server that sends no
    /// `permissions` leaves them `None`). An incremental sync compares them with its previous
    /// output, since a change of owner or permissions through a bulk edit leaves `modified`
    /// as it was. A `permissions` of another shape is refused.
    pub fn document_access(&self) -> Result<BTreeMap<u64, Access>> {
        let url = || format!("{}/api/documents/", self.base());
        let id_of = |d: &Value| {
            d.get("id")
                .and_then(Value::as_u64)
                .ok_or_else(|| shape(url(), "a document without id"))
        };
        let mut m = BTreeMap::new();
        self.for_each_page(
            "/api/documents/",
            "ordering=id&fields=id,owner,user_can_change",
            MAX_PAGE_SIZE,
            |p| {
                for d in &p.results {
                    m.insert(id_of(d)?, Access::of(d));
                }
                Ok(true)
            },
        )?;
        self.for_each_page(
            "/api/documents/",
            "ordering=id&full_perms=true&fields=id,permissions",
            MAX_PAGE_SIZE,
            |p| {
                for d in &p.results {
                    let id = id_of(d)?;
                    let Some(v) = d.get("permissions") else {
                        continue;
                    };
                    let perms = Permissions::of(v).ok_or_else(|| {
                        shape(
                            url(),
                            &format!("document {id}: permissions of another shape"),
                        )
                    })?;
                    // A document added between the two listings is left to the next sync.
                    if let Some(a) = m.get_mut(&id) {
                        a.permissions = Some(perms);
                    }
                }
                Ok(true)
            },
        )?;
        Ok(m)
    }

    /// The id → name map of a list endpoint (`/api/tags/`, `/api/correspondents/`,
    /// `/api/document_types/`).
    pub fn names(&self, path: &str) -> Result<BTreeMap<u64, String>> {
        let mut m = BTreeMap::new();
        self.for_each_page(path, "", MAX_PAGE_SIZE, |p| {
            for o in &p.results {
                let id = o.get("id").and_then(Value::as_u64);
                let name = o.get("name").and_then(Value::as_str);
                match (id, name) {
                    (Some(id), Some(name)) => {
                        m.insert(id, name.to_owned());
                    }
                    _ => {
                        return Err(shape(
                            format!("{}{path}", self.base()),
                            "an entry without id or name",
                        ))
                    }
                }
            }
            Ok(true)
        })?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permission_lists_are_read_sorted_once_each_and_another_shape_is_none() {
        let v = json!({"view": {"users": [9, 3, 9], "groups": []},
                       "change": {"users": [3], "groups": [7, 2]}});
        let p = Permissions::of(&v).unwrap();
        assert_eq!(p.view_users, [3, 9]);
        assert_eq!(p.change_groups, [2, 7]);
        assert_eq!(
            p.to_value().to_string(),
            r#"{"view":{"users":[3,9],"groups":[]},"change":{"users":[3],"groups":[2,7]}}"#
        );
        for bad in [
            json!({"view": {"users": [1], "groups": []}}),
            json!({"view": {"users": ["1"], "groups": []}, "change": {"users": [], "groups": []}}),
            json!([]),
        ] {
            assert_eq!(Permissions::of(&bad), None, "{bad}");
        }
        let a = Access::of(&json!({"id": 1, "owner": 4, "permissions": v}));
        assert_eq!(
            (a.owner, a.can_change, a.permissions),
            (Some(4), None, Some(p))
        );
    }

    #[test]
    fn a_listing_is_whole_only_when_its_pages_agree_and_hold_every_id_counted() {
        let mut l = IdListing::default();
        l.page(5, vec![4, 1]);
        l.page(5, vec![2, 9, 3]);
        assert_eq!(l.whole(), Ok(vec![1, 2, 3, 4, 9]));
        // A page lost (a 404 on the last page reads as the end): fewer ids than counted.
        let mut l = IdListing::default();
        l.page(5, vec![1, 2]);
        assert!(l
            .whole()
            .unwrap_err()
            .contains("2 document ids read where the server counted 5"));
        // A document deleted between two pages: the counts differ (and an id shifted onto a
        // page already read is missed).
        let mut l = IdListing::default();
        l.page(5, vec![1, 2]);
        l.page(4, vec![4, 9]);
        assert!(l.whole().unwrap_err().contains("changed while it was read"));
        // One added between two pages repeats an id: as many rows as counted, fewer ids.
        let mut l = IdListing::default();
        l.page(4, vec![1, 2]);
        l.page(4, vec![2, 3]);
        assert!(l.whole().is_err());
        assert!(IdListing::default().whole().is_err());
        let mut empty = IdListing::default();
        empty.page(0, vec![]);
        assert_eq!(empty.whole(), Ok(vec![]));
    }
}
