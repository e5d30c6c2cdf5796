//! The write-back of one document that has near-copies in the index, as pl-watch does it
//! after each webhook (the consume hook's Python writes the same tag and note): the tag,
//! created when missing, and a note naming and linking the originals; with pl-watch --link,
//! also the "Duplicate of" document link to them ([`link`]). Nothing is deleted.
//!
//! Done again for the same document and originals it changes nothing (the tag is there, and
//! a note with the same text is not added twice), so a document processed twice, after a
//! crash between the write-back and the end of its turn in the queue, still has one note
//! (and each link once).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::links::with_links;
use crate::lookup::Lookups;

/// The most originals a note names (the hook's limit too).
pub const MAX_NAMED: usize = 10;

/// The first words of every note this module writes.
pub const NOTE_START: &str = "Possible duplicate (paperless-dedupe) of";

/// An original a note names: its id, title (empty when the server would not say) and the
/// pair's score.
#[derive(Debug, Clone, PartialEq)]
pub struct Original {
    /// The original's document id.
    pub id: u64,
    /// Its title, as the server has it.
    pub title: String,
    /// The pair's score (pl-score's).
    pub score: f64,
}

/// The note for a document with near-copies (`originals`, best first; at most
/// [`MAX_NAMED`] named), each linked at `public` (the Paperless address people open, without
/// a trailing `/`), as the consume hook words it.
pub fn note_text(public: &str, originals: &[Original], total: usize) -> String {
    let mut lines = vec![format!(
        "{NOTE_START} {total} document(s) already in the library:"
    )];
    for o in originals.iter().take(MAX_NAMED) {
        lines.push(format!(
            "- #{} {} (score {:.2}): {public}/documents/{}/details",
            o.id, o.title, o.score, o.id
        ));
    }
    lines.push(
        "Nothing was deleted: compare them, and remove the tag if they are different documents."
            .to_string(),
    );
    lines.join("\n")
}

/// What [`flag`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flagged {
    /// The tag's id.
    pub tag: u64,
    /// Whether a note was added (false: the same note was there already).
    pub noted: bool,
    /// The time each step took: "tag", "titles", "note".
    pub steps: Vec<(&'static str, Duration)>,
}

/// Tags document `id` with `tag_name` (its id from `lookups`; created when missing) and notes
/// its near-copies (`dups`: `(id, score)`, best first). Idempotent: see the module's notes.
/// Four requests: the tag added, the originals' titles (one request for all), the document's
/// notes read, the note added. A tag id the server refuses (400, 404: the tag was deleted
/// since it was looked up) is looked up again (created when gone) and the tag added again,
/// once.
pub fn flag(
    client: &Client,
    lookups: &mut Lookups,
    id: u64,
    dups: &[(u64, f64)],
    tag_name: &str,
    public: &str,
) -> Result<Flagged> {
    let mut at = Instant::now();
    let mut steps = Vec::new();
    let mut step = |name| {
        steps.push((name, at.elapsed()));
        at = Instant::now();
    };
    let mut tag = lookups.tag_id(client, tag_name)?;
    match client.add_tag(&[id], tag) {
        Err(Error::Status { status: 400, .. } | Error::NotFound { .. }) => {
            lookups.forget_tag(tag);
            tag = lookups.tag_id(client, tag_name)?;
            client.add_tag(&[id], tag)?;
        }
        r => r?,
    }
    step("tag");
    let named: Vec<u64> = dups.iter().take(MAX_NAMED).map(|&(d, _)| d).collect();
    let titles = titles_of(client, &named);
    let originals: Vec<Original> = dups
        .iter()
        .take(MAX_NAMED)
        .map(|&(d, score)| Original {
            id: d,
            title: titles.get(&d).cloned().unwrap_or_default(),
            score,
        })
        .collect();
    step("titles");
    let text = note_text(public, &originals, dups.len());
    let notes = client.notes(id)?;
    let noted = if notes.iter().any(|(_, t)| *t == text) {
        false
    } else {
        client.add_note_after(id, &text, &notes)?;
        true
    };
    step("note");
    Ok(Flagged { tag, noted, steps })
}

/// What [`link`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked {
    /// The link field's id.
    pub field: u64,
    /// The originals linked now (the others were linked already, or are in `missing`).
    pub added: Vec<u64>,
    /// The originals the server does not show (deleted, in the trash, not visible to the
    /// token): not linked.
    pub missing: Vec<u64>,
}

/// Links document `id` to its originals (`originals`, ids) through the document-link custom
/// field named `name` (`field`: its id once known; looked up, and created when missing, when
/// `None`), as pl-apply --link links a copy to its primary: the originals' ids are added to the
/// document's value of the field by a read-modify-write of its `custom_fields` that sends every
/// other entry back as read; Paperless shows the link on both documents. Only originals that
/// exist are linked (both documents must exist). Done again it changes nothing. Two or three
/// requests: the document's and the originals' states (one request), the PATCH when something
/// is added, and the field looked up (created) the first time. A field id the server refuses
/// (400: deleted since it was looked up) is looked up again (created when gone) and the whole
/// done again, once.
pub fn link(
    client: &Client,
    field: &mut Option<u64>,
    name: &str,
    id: u64,
    originals: &[u64],
) -> Result<Linked> {
    match link_once(client, field, name, id, originals) {
        Err(Error::Status { status: 400, .. }) => {
            *field = None;
            link_once(client, field, name, id, originals)
        }
        r => r,
    }
}

fn link_once(
    client: &Client,
    field: &mut Option<u64>,
    name: &str,
    id: u64,
    originals: &[u64],
) -> Result<Linked> {
    let f = match *field {
        Some(f) => f,
        None => match client.link_field(name)? {
            Some(f) => f,
            None => client.create_link_field(name)?,
        },
    };
    *field = Some(f);
    let mut ids = vec![id];
    ids.extend(originals.iter().filter(|&&o| o != id));
    let mut live = client.doc_states(&ids)?;
    let url = || format!("{}/api/documents/{id}/", client.base());
    let doc = live.remove(&id).ok_or_else(|| Error::NotFound {
        url: url(),
        detail: "not among the live documents".into(),
    })?;
    let (present, missing): (Vec<u64>, Vec<u64>) =
        ids[1..].iter().partition(|o| live.contains_key(o));
    let changed = with_links(&doc.custom_fields, f, &present)
        .map_err(|msg| Error::Shape { url: url(), msg })?;
    let added = match changed {
        Some((list, added)) => {
            client.set_custom_fields(id, &list)?;
            added
        }
        None => Vec::new(),
    };
    Ok(Linked {
        field: f,
        added,
        missing,
    })
}

/// The titles of documents `ids`, in one request; a document the server will not show (gone,
/// not visible) or an answer that failed leaves its title out: the note still names and
/// links it.
fn titles_of(client: &Client, ids: &[u64]) -> BTreeMap<u64, String> {
    let list: Vec<String> = ids.iter().map(u64::to_string).collect();
    let query = format!("fields=id,title&id__in={}", list.join(","));
    let mut out = BTreeMap::new();
    let _ = client.for_each_page("/api/documents/", &query, MAX_NAMED as u32, |p| {
        for d in &p.results {
            if let (Some(i), Some(t)) = (
                d.get("id").and_then(Value::as_u64),
                d.get("title").and_then(Value::as_str),
            ) {
                out.insert(i, t.to_owned());
            }
        }
        Ok(true)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_and_links_at_most_ten_originals_as_the_hook_does() {
        let o = |id, title: &str, score| Original {
            id,
            title: title.to_string(),
            score,
        };
        let text = note_text(
            "https://p.example.org",
            &[o(8, "Invoice 2024-117", 0.9372), o(9, "", 0.8)],
            2,
        );
        assert_eq!(
            text,
            "Possible duplicate (paperless-dedupe) of 2 document(s) already in the library:\n\
             - #8 Invoice 2024-117 (score 0.94): https://p.example.org/documents/8/details\n\
             - #9  (score 0.80): https://p.example.org/documents/9/details\n\
             Nothing was deleted: compare them, and remove the tag if they are different documents."
        );
        let many: Vec<Original> = (1..=12).map(|i| o(i, "t", 0.9)).collect();
        let text = note_text("http://x", &many, 12);
        assert!(text.starts_with(&format!("{NOTE_START} 12 document(s)")));
        assert_eq!(text.lines().filter(|l| l.starts_with("- #")).count(), 10);
    }
}
