//! pl-report: groups (+ docs) → one self-contained HTML review page, or a live one on
//! 127.0.0.1 that saves each decision to a file.

mod serve;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Parser;
use pl_core::sha256::{base64, hex, sha256};
use pl_core::text_records::{DocRecord, GroupRecord, NormRecord};
use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use crate::common::{Common, Log, UsageError};
use crate::io::{create_output, open_input};
use crate::ndjson::{get_u64, get_unit, NdjsonReader, Obj};
use crate::sides::read_field;
use pl_core::fields::FieldError;

const TEMPLATE: &str = include_str!("report/page.html");
/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_PAGE_ID: u64 = (1 << 53) - 1;
const STYLE: &str = include_str!("report/page.css");
const SCRIPT: &str = include_str!("report/page.js");

/// Build a review page from pl-cluster's groups: one HTML file that works offline (no
/// network, everything inline), groups sorted by confidence with filters (confidence, size,
/// status, text), each group's members side by side (title, correspondent, type, tags, dates,
/// pages, scores; the primary marked), a word diff of any two members' texts, and a link to
/// each document in Paperless. Per group: duplicates / not duplicates / ignore / another
/// primary, with the keyboard (press ? on the page). Decisions stay in the browser
/// (localStorage) and are exported as a decisions NDJSON file for pl-apply; groups export as
/// CSV.
///
/// With --serve the page is served on 127.0.0.1 instead and every decision is written at
/// once to --decisions FILE (atomically), which the page also loads when opened.
///
/// All document text and metadata is treated as untrusted: it reaches the page only as JSON
/// data and is shown as text; the page's Content-Security-Policy allows its own script and
/// nothing else.
#[derive(Debug, Parser)]
#[command(name = "pl-report", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Documents (docs or norm NDJSON): titles, metadata, texts and `modified` for the page.
    #[arg(long, value_name = "FILE")]
    pub docs: Option<PathBuf>,
    /// Scored pairs (pl-score output): shows each member's scores against the primary.
    #[arg(long, value_name = "FILE")]
    pub scores: Option<PathBuf>,
    /// Paperless-NGX address for links to documents whose record has no `url`
    /// ({URL}/documents/{id}/details).
    #[arg(long, value_name = "URL")]
    pub paperless_url: Option<String>,
    /// Characters of each document's text kept in the page (longer texts are cut, and the
    /// page says so); bounds the page size and the diff work.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub max_text: usize,
    /// Page title.
    #[arg(long, default_value = "Duplicate review", value_name = "TEXT")]
    pub title: String,
    /// Serve the page on 127.0.0.1 and save decisions to --decisions as they are made.
    #[arg(long)]
    pub serve: bool,
    /// Port for --serve (default: a free one; the address is printed on stderr).
    #[arg(long, default_value_t = 0, value_name = "PORT", requires = "serve")]
    pub port: u16,
    /// Decisions file --serve reads at start and rewrites on every decision.
    #[arg(long, value_name = "FILE", requires = "serve")]
    pub decisions: Option<PathBuf>,
}

fn read_groups(args: &Args) -> Result<Vec<GroupRecord>> {
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let mut groups = Vec::new();
    // Where each group number and each member was first read: one group per number, one
    // group per document.
    let mut numbers: FxHashMap<u64, u64> = FxHashMap::default();
    let mut owners: FxHashMap<u64, u64> = FxHashMap::default();
    while let Some(g) = reader.next_with(|o| {
        // The page filters by confidence: it must be from 0 to 1. Errors name the group.
        let number = get_u64(&o, "group")?;
        let in_group = |e: FieldError| format!("group {number}: {e}");
        get_unit(&o, "confidence").map_err(in_group)?;
        get_u64(&o, "primary")?;
        let g = GroupRecord::from_obj(o).map_err(in_group)?;
        // The page's JavaScript numbers hold integers exactly up to 2^53 - 1: a larger id
        // would come back from the page as another document's.
        for &id in g.members.iter().chain([&number]) {
            if id > MAX_PAGE_ID {
                return Err(format!(
                    "group {number}: id {id} is over {MAX_PAGE_ID}, the largest the review page holds exactly"
                ));
            }
        }

        Ok(g)
    })? {
        let line = reader.line();
        let name = reader.name();
        if let Some(first) = numbers.insert(g.group, line) {
            bail!("{name}: line {line}: group {} repeated (first on line {first})", g.group);
        }
        for &m in &g.members {
            if let Some(first) = owners.insert(m, line) {
                bail!(
                    "{name}: line {line}: document {m} is in group {} and in the group on line {first}",
                    g.group
                );
            }
        }
        groups.push(g);
    }
    // Highest confidence first; ties by group number (pl-cluster's order already).
    groups.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.group.cmp(&b.group))
    });
    Ok(groups)
}

/// Only http(s) links are kept: a `javascript:` URL in a document record must not be clickable.
fn safe_url(s: &str) -> Option<String> {
    let l = s.trim().to_ascii_lowercase();
    (l.starts_with("http://") || l.starts_with("https://")).then(|| s.trim().to_owned())
}

/// The fields of a docs record the page shows, text cut at `max_text` characters.
fn page_doc(doc: DocRecord, max_text: usize) -> Value {
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

/// The members' documents as the page shows them, by id, linked to --paperless-url when
/// their records have no `url`.
fn page_docs(args: &Args, groups: &[GroupRecord], log: &Log) -> Result<BTreeMap<u64, Value>> {
    let wanted: rustc_hash::FxHashSet<u64> = groups
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    let docs: BTreeMap<u64, Value> = match &args.docs {
        Some(p) => read_field(p, Some(&wanted), |d| Ok(page_doc(d, args.max_text)))?
            .into_iter()
            .collect(),
        None => BTreeMap::new(),
    };
    // Links from --paperless-url for records without their own `url`.
    let base = args.paperless_url.as_deref().and_then(safe_url);
    let docs: BTreeMap<u64, Value> = docs
        .into_iter()
        .map(|(id, mut d)| {
            if let (Value::Null, Some(b)) = (&d["url"], &base) {
                d["url"] = Value::String(format!(
                    "{}/documents/{id}/details",
                    b.trim_end_matches('/')
                ));
            }
            (id, d)
        })
        .collect();
    let missing = wanted.iter().filter(|id| !docs.contains_key(id)).count();
    if args.docs.is_some() && missing > 0 {
        log.note(format!(
            "{missing} group members have no record in the docs file"
        ));
    }
    Ok(docs)
}

/// The scores of the pairs inside each group (from --scores), for the per-member columns.
fn group_pairs(args: &Args, groups: &[GroupRecord]) -> Result<BTreeMap<u64, Vec<Value>>> {
    let group_of: BTreeMap<u64, u64> = groups
        .iter()
        .flat_map(|g| g.members.iter().map(move |&m| (m, g.group)))
        .collect();
    let mut pairs: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    if let Some(p) = &args.scores {
        let mut r = NdjsonReader::new(open_input(Some(p))?, false);
        while let Some(rec) = r.next_with(|o| {
            let (a, b) = (get_u64(&o, "a")?, get_u64(&o, "b")?);
            let f = |k: &str| o.get(k).cloned().unwrap_or(Value::Null);
            Ok((a, b, f("score"), f("jaccard"), f("fuzzy")))
        })? {
            let (a, b, s, j, f) = rec;
            if let (Some(ga), Some(gb)) = (group_of.get(&a), group_of.get(&b)) {
                if ga == gb {
                    pairs.entry(*ga).or_default().push(json!([a, b, s, j, f]));
                }
            }
        }
    }
    Ok(pairs)
}

/// The page data: meta, groups (sorted), docs by id.
fn build_data(args: &Args, groups: &[GroupRecord], log: &Log) -> Result<Value> {
    let docs = page_docs(args, groups, log)?;
    let mut pairs = group_pairs(args, groups)?;
    let groups: Vec<Value> = groups
        .iter()
        .map(|g| {
            // The page shows the documented fields only, members ascending.
            let mut members = g.members.clone();
            members.sort_unstable();
            let shown = GroupRecord {
                members,
                rest: Obj::new(),
                ..g.clone()
            };
            let mut o = serde_json::to_value(shown).expect("a group record serializes");
            o["pairs"] = Value::Array(pairs.remove(&g.group).unwrap_or_default());
            o
        })
        .collect();
    let docs_obj: Map<String, Value> = docs
        .into_iter()
        .map(|(id, d)| (id.to_string(), d))
        .collect();
    let body = json!({"groups": groups, "docs": docs_obj});
    let report_id = hex(&sha256(body.to_string().as_bytes())[..12]);
    Ok(json!({
        "meta": {
            "title": args.title,
            "report_id": report_id,
            "generated_by": concat!("pl-report ", env!("CARGO_PKG_VERSION")),
            "serve": args.serve,
            "decisions_file": args.decisions.as_ref().map(|p| p.display().to_string()),
        },
        "groups": body["groups"],
        "docs": body["docs"],
    }))
}

/// The whole page: the template with the CSP, style, data and script put in.
pub fn render(data: &Value) -> String {
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; img-src data:; \
         connect-src 'self'; base-uri 'none'; form-action 'none'",
        base64(&sha256(SCRIPT.as_bytes())),
        base64(&sha256(STYLE.as_bytes()))
    );
    let json = script_json(data);
    // Split the template at its markers once, so nothing in the data is ever read as one.
    let mut out = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len() + json.len());
    let mut rest = TEMPLATE;
    for (marker, value) in [
        ("{{CSP}}", csp.as_str()),
        ("{{STYLE}}", STYLE),
        ("{{DATA}}", json.as_str()),
        ("{{SCRIPT}}", SCRIPT),
    ] {
        let (head, tail) = rest.split_once(marker).expect("template has every marker");
        out.push_str(head);
        out.push_str(value);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::new("pl-report", &args.common);
    if args.serve && args.common.output.is_some() {
        return Err(UsageError("--serve serves the page; -o does not apply".into()).into());
    }
    if args.serve && args.decisions.is_none() {
        return Err(UsageError(
            "--serve needs --decisions FILE, where each decision is saved".into(),
        )
        .into());
    }
    // The first decision must not be the first to find out that it cannot be saved.
    if let Some(dir) = args
        .decisions
        .as_deref()
        .filter(|_| args.serve)
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        return Err(UsageError(format!(
            "--decisions: the folder {} does not exist",
            dir.display()
        ))
        .into());
    }
    if let Some(u) = &args.paperless_url {
        if safe_url(u).is_none() {
            return Err(UsageError(format!(
                "--paperless-url must start with http:// or https:// (got {u:?})"
            ))
            .into());
        }
    }
    let groups = read_groups(&args)?;
    let data = build_data(&args, &groups, &log)?;
    let members: BTreeSet<u64> = groups
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    log.info(format!(
        "{} groups, {} documents",
        groups.len(),
        members.len()
    ));
    if args.serve {
        return serve::serve(&args, &data, &log);
    }
    let page = render(&data);
    let mut out = create_output(args.common.output.as_deref())?;
    out.write_all(page.as_bytes()).context("writing the page")?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(safe_url("javascript:alert(1)"), None);
        assert_eq!(safe_url("data:text/html,x"), None);
    }

    #[test]
    fn page_has_every_part_once_and_a_matching_csp() {
        let page =
            render(&json!({"meta": {}, "groups": [], "docs": {"1": {"title": "{{SCRIPT}}"}}}));
        assert_eq!(page.matches("<script>").count(), 1);
        assert!(page.contains(&format!("'sha256-{}'", base64(&sha256(SCRIPT.as_bytes())))));
        assert!(
            page.contains(r#""title":"{{SCRIPT}}""#),
            "data is not a marker"
        );
        assert_eq!(page.matches("{{").count(), 1);
    }
}
