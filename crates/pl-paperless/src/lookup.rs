//! The lookups a service keeps across documents (pl-watch): the id → name lists a document's
//! references resolve through (tags, correspondents, document types), the tag it writes among
//! them. Fetched once, not per document: a document costs one request to read.
//!
//! When they are fetched again: a list when a document refers to an id it does not hold (a
//! tag, correspondent or type created since), the tags when the tag written is missing from
//! them or the server refuses its id (deleted since: see [`crate::flag::flag`]), and all
//! three when older than [`MAX_AGE`] (a rename shows within that time; meanwhile a record
//! may carry the old name, as the records indexed before the rename do).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::Client;
use crate::error::Result;
use crate::record::{to_record, Names, Record};

/// How long the lists are used before being fetched again.
pub const MAX_AGE: Duration = Duration::from_secs(60);

/// The three lists of [`Names`], by their endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `/api/tags/`
    Tags,
    /// `/api/correspondents/`
    Correspondents,
    /// `/api/document_types/`
    DocumentTypes,
}

impl Kind {
    fn path(self) -> &'static str {
        match self {
            Kind::Tags => "/api/tags/",
            Kind::Correspondents => "/api/correspondents/",
            Kind::DocumentTypes => "/api/document_types/",
        }
    }

    fn map(self, names: &mut Names) -> &mut BTreeMap<u64, String> {
        match self {
            Kind::Tags => &mut names.tags,
            Kind::Correspondents => &mut names.correspondents,
            Kind::DocumentTypes => &mut names.document_types,
        }
    }
}

/// The lists a document's references miss in `names`: an id it refers to that the list does
/// not hold (each list once).
pub fn missing(doc: &Value, names: &Names) -> Vec<Kind> {
    let ids = |k: &str| -> Vec<u64> {
        match doc.get(k) {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_u64).collect(),
            Some(v) => v.as_u64().into_iter().collect(),
            None => Vec::new(),
        }
    };
    let mut out = Vec::new();
    for (kind, key, map) in [
        (Kind::Tags, "tags", &names.tags),
        (Kind::Correspondents, "correspondent", &names.correspondents),
        (Kind::DocumentTypes, "document_type", &names.document_types),
    ] {
        if ids(key).iter().any(|i| !map.contains_key(i)) {
            out.push(kind);
        }
    }
    out
}

/// The lists held, and when they were fetched.
#[derive(Debug)]
pub struct Lookups {
    held: Option<(Names, Instant)>,
    max_age: Duration,
    fetches: u64,
}

impl Lookups {
    /// Nothing held yet; the lists are fetched again when older than `max_age`.
    pub fn new(max_age: Duration) -> Lookups {
        Lookups {
            held: None,
            max_age,
            fetches: 0,
        }
    }

    /// How many list requests were made (for the log and tests).
    pub fn fetches(&self) -> u64 {
        self.fetches
    }

    /// The lists, fetched when none are held or they are older than the limit.
    fn names(&mut self, client: &Client) -> Result<&mut Names> {
        let fresh = self
            .held
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() < self.max_age);
        if !fresh {
            let names = Names::fetch(client)?;
            self.fetches += 3;
            self.held = Some((names, Instant::now()));
        }
        Ok(&mut self.held.as_mut().expect("fetched above").0)
    }

    /// Fetches the list `kind` again.
    fn refetch(&mut self, client: &Client, kind: Kind) -> Result<()> {
        let list = client.names(kind.path())?;
        self.fetches += 1;
        *kind.map(self.names(client)?) = list;
        Ok(())
    }

    /// Document `id` as a docs record (as [`crate::record::fetch_record`] makes it), its
    /// references resolved through the lists held: one request, and one per list it misses.
    pub fn record(&mut self, client: &Client, id: u64) -> Result<Record> {
        let path = format!("/api/documents/{id}/?fields={}", crate::api::DOC_FIELDS);
        let doc = client.get_json(&path)?;
        for kind in missing(&doc, self.names(client)?) {
            self.refetch(client, kind)?;
        }
        let names = self.names(client)?;
        to_record(&doc, names, client.base()).ok_or_else(|| crate::Error::Shape {
            url: format!("{}{path}", client.base()),
            msg: format!("document {id}: the answer has no id"),
        })
    }

    /// The id of the tag named exactly `name`: from the list held, else from the list fetched
    /// again, else created.
    pub fn tag_id(&mut self, client: &Client, name: &str) -> Result<u64> {
        let find = |n: &Names| n.tags.iter().find(|(_, t)| *t == name).map(|(&i, _)| i);
        if let Some(id) = find(self.names(client)?) {
            return Ok(id);
        }
        self.refetch(client, Kind::Tags)?;
        if let Some(id) = find(self.names(client)?) {
            return Ok(id);
        }
        let id = client.create_tag(name)?;
        self.names(client)?.tags.insert(id, name.to_string());
        Ok(id)
    }

    /// Tag `id` is gone from the server (it refused it): dropped from the list held, so the
    /// next [`Lookups::tag_id`] asks the server again.
    pub fn forget_tag(&mut self, id: u64) {
        if let Some((names, _)) = self.held.as_mut() {
            names.tags.remove(&id);
        }
    }
}

impl Default for Lookups {
    fn default() -> Lookups {
        Lookups::new(MAX_AGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reference_the_lists_lack_names_its_list_once() {
        let mut n = Names::default();
        n.tags.insert(1, "a".into());
        n.correspondents.insert(4, "ACME".into());
        let doc = json!({"id": 9, "tags": [1], "correspondent": 4, "document_type": null});
        assert_eq!(missing(&doc, &n), vec![]);
        let doc = json!({"id": 9, "tags": [1, 2, 3], "correspondent": 4, "document_type": 7});
        assert_eq!(missing(&doc, &n), vec![Kind::Tags, Kind::DocumentTypes]);
        let doc = json!({"id": 9, "correspondent": 5});
        assert_eq!(missing(&doc, &n), vec![Kind::Correspondents]);
    }
}
