//! The write-back of one document that has near-copies in the index, as pl-watch does it
//! after each webhook (the consume hook's Python writes the same tag and note): the tag,
//! created when missing, and a note naming and linking the originals. Nothing is deleted.
//!
//! Done again for the same document and originals it changes nothing (the tag is there, and
//! a note with the same text is not added twice), so a document processed twice, after a
//! crash between the write-back and the end of its turn in the queue, still has one note.

use serde_json::Value;

use crate::client::Client;
use crate::error::Result;

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
}

/// Tags document `id` with `tag_name` (created when missing) and notes its near-copies
/// (`dups`: `(id, score)`, best first). Idempotent: see the module's notes.
pub fn flag(
    client: &Client,
    id: u64,
    dups: &[(u64, f64)],
    tag_name: &str,
    public: &str,
) -> Result<Flagged> {
    let tag = match client.tag_id(tag_name)? {
        Some(t) => t,
        None => client.create_tag(tag_name)?,
    };
    client.add_tag(&[id], tag)?;
    let originals: Vec<Original> = dups
        .iter()
        .take(MAX_NAMED)
        .map(|&(d, score)| Original {
            id: d,
            title: title_of(client, d),
            score,
        })
        .collect();
    let text = note_text(public, &originals, dups.len());
    let noted = if client.notes(id)?.iter().any(|(_, t)| *t == text) {
        false
    } else {
        client.add_note(id, &text)?;
        true
    };
    Ok(Flagged { tag, noted })
}

/// A document's title, or "" when the server will not say (gone, not visible, unreachable):
/// the note still names and links it.
fn title_of(client: &Client, id: u64) -> String {
    client
        .get_json(&format!("/api/documents/{id}/?fields=id,title"))
        .ok()
        .and_then(|v| v.get("title").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
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
