//! pl-report: groups (+ docs) → one self-contained HTML review page, or a live one on
//! 127.0.0.1 that saves each decision to a file.

mod pages;
mod serve;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::Parser;
use pl_core::owners::{owner_of, spans_owners, Owner};
use pl_core::page::{
    check_ids, link_documents, page_doc, page_group, safe_url, script_json, sort_groups, GroupLines,
};
use pl_core::sha256::{base64, hex, sha256};
use pl_core::text_records::GroupRecord;
use serde_json::{json, Map, Value};

use crate::common::{Common, Log, ServerFlags, UsageError};
use crate::sides::read_field;
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{get_u64, get_unit, NdjsonReader};
use rustc_hash::FxHashMap;

const TEMPLATE: &str = include_str!("report/page.html");
const STYLE: &str = include_str!("report/page.css");
const SCRIPT: &str = include_str!("report/page.js");

/// Build a review page from pl-cluster's groups: one HTML file that works offline (no
/// network, everything inline), groups sorted by confidence with filters (confidence, size,
/// status, text), each group's members side by side (title, correspondent, type, tags, dates,
/// pages, scores; the primary marked), a word diff of any two members' texts, and a link to
/// each document in Paperless; with --thumbs, each document's first page (its Paperless
/// thumbnail) beside its fields and its text. Per group: duplicates / not duplicates / ignore / another
/// primary, with the keyboard (press ? on the page). Decisions stay in the browser
/// (localStorage) and are exported as a decisions NDJSON file for pl-apply; groups export as
/// CSV.
///
/// With --serve the page is served on 127.0.0.1 instead and every decision is written at
/// once to --decisions FILE (atomically), which the page also loads when opened.
///
/// With --thumbs the page shows each document's thumbnail, fetched from Paperless with the
/// token (PAPERLESS_URL or --paperless-url; PAPERLESS_TOKEN or --token-file): a file page
/// embeds them (fetched once now, at most 512 KiB each and 64 MiB in all); with --serve the
/// page asks this server for /thumb/ID, which fetches the image (a member of the groups only)
/// and keeps it in memory (at most 64 MiB, the oldest dropped first). The token never reaches
/// the page. Only WebP, PNG and JPEG images are shown; a page image that is missing, refused,
/// late or not an image is replaced by "page image unavailable".
///
/// All document text and metadata is treated as untrusted: it reaches the page only as JSON
/// data and is shown as text; the page's Content-Security-Policy allows its own script and
/// nothing else.
#[derive(Debug, Parser)]
#[command(name = "pl-report", version)]
pub struct Args {
    /// Documents (docs or norm NDJSON): titles, metadata, texts and `modified` for the page.
    #[arg(long, value_name = "FILE")]
    pub docs: Option<PathBuf>,
    /// Scored pairs (pl-score output): shows each member's scores against the primary.
    #[arg(long, value_name = "FILE")]
    pub scores: Option<PathBuf>,
    /// Paperless-NGX address for links to documents whose record has no `url`
    /// ({URL}/documents/{id}/details); default: --url (PAPERLESS_URL) when set.
    #[arg(long, value_name = "URL")]
    pub paperless_url: Option<String>,
    /// Show each document's first page, its Paperless thumbnail (needs the server and its
    /// token: PAPERLESS_URL or --paperless-url, PAPERLESS_TOKEN or --token-file). Embedded in
    /// the file (at most 512 KiB each, 64 MiB in all), or with --serve fetched when the page
    /// asks and kept in memory (at most 64 MiB).
    #[arg(long)]
    pub thumbs: bool,
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
    /// The tag pl-apply will add (its --tag): the page's decision buttons and plan say so.
    #[arg(long, default_value = "duplicate", value_name = "NAME", help_heading = APPLY_HEADING)]
    pub tag: String,
    /// pl-apply will move the duplicates to the trash (its --delete).
    #[arg(long, help_heading = APPLY_HEADING)]
    pub delete: bool,
    /// pl-apply will add a note pointing to the primary (its --note).
    #[arg(long, help_heading = APPLY_HEADING)]
    pub note: bool,
    /// pl-apply will link the duplicates to their primary in this document-link field (its
    /// --link FIELD).
    #[arg(long, value_name = "FIELD", help_heading = APPLY_HEADING)]
    pub link: Option<String>,
    /// The server the page images come from (--thumbs).
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub common: Common,
}

/// The help heading of the flags that tell the page what pl-apply will do.
const APPLY_HEADING: &str = "What pl-apply will do (the page shows it; pass pl-apply the same)";

fn read_groups(args: &Args) -> Result<Vec<GroupRecord>> {
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let mut groups = Vec::new();
    let mut seen = GroupLines::default();
    while let Some(g) = reader.next_with(|o| {
        // The page filters by confidence: it must be from 0 to 1. Errors name the group.
        let number = get_u64(&o, "group")?;
        let in_group = |e: String| format!("group {number}: {e}");
        get_unit(&o, "confidence").map_err(|e| in_group(e.to_string()))?;
        get_u64(&o, "primary")?;
        let g = GroupRecord::from_obj(o).map_err(|e| in_group(e.to_string()))?;
        check_ids(&g).map_err(|e| in_group(e.to_string()))?;
        Ok(g)
    })? {
        let line = reader.line();
        seen.add(&g, line)
            .map_err(|msg| anyhow!("{}: line {line}: {msg}", reader.name()))?;
        groups.push(g);
    }
    sort_groups(&mut groups);
    Ok(groups)
}

/// The members' documents as the page shows them, by id, linked to --paperless-url when
/// their records have no `url`; and how many groups join documents of different owners
/// (made with pl-cluster --across-owners), said on the page and on stderr.
fn page_docs(
    args: &Args,
    groups: &[GroupRecord],
    log: &Log,
) -> Result<(BTreeMap<u64, Value>, usize)> {
    let wanted: rustc_hash::FxHashSet<u64> = groups
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    let read = match &args.docs {
        Some(p) => read_field(p, Some(&wanted), |d| {
            let owner = owner_of(&d).map_err(|e| e.to_string())?;
            Ok((page_doc(d, args.max_text), owner))
        })?,
        None => FxHashMap::default(),
    };
    let owners: FxHashMap<u64, Owner> = read.iter().map(|(&id, (_, o))| (id, *o)).collect();
    let across = groups
        .iter()
        .filter(|g| spans_owners(&g.members, &owners))
        .count();
    if across > 0 {
        log.note(format!(
            "{across} groups join documents of different owners (pl-cluster --across-owners was given)"
        ));
    }
    let mut docs: BTreeMap<u64, Value> = read.into_iter().map(|(id, (d, _))| (id, d)).collect();
    // Links from --paperless-url (or the server's address) for records without their own `url`.
    if let Some(base) = link_base(args) {
        link_documents(&mut docs, &base);
    }
    let missing = wanted.iter().filter(|id| !docs.contains_key(id)).count();
    if args.docs.is_some() && missing > 0 {
        log.note(format!(
            "{missing} group members have no record in the docs file"
        ));
    }
    Ok((docs, across))
}

/// The address documents are linked to: --paperless-url, else the server's (--url).
fn link_base(args: &Args) -> Option<String> {
    match (&args.paperless_url, &args.server.url) {
        (Some(u), _) => safe_url(u),
        (None, Some(u)) => pl_paperless::client::normalize_base(u)
            .ok()
            .and_then(|u| safe_url(&u)),
        (None, None) => None,
    }
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
            Ok((
                a,
                b,
                f("score"),
                f("jaccard"),
                f("fuzzy"),
                o.contains_key("apart"),
            ))
        })? {
            let (a, b, s, j, f, apart) = rec;
            if apart {
                // A pair held apart has no scores to show.
                continue;
            }
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
    let (docs, across_owners) = page_docs(args, groups, log)?;
    let mut pairs = group_pairs(args, groups)?;
    let groups: Vec<Value> = groups
        .iter()
        .map(|g| page_group(g, pairs.remove(&g.group).unwrap_or_default()))
        .collect();
    let docs_obj: Map<String, Value> = docs
        .into_iter()
        .map(|(id, d)| (id.to_string(), d))
        .collect();
    let body = json!({"groups": groups, "docs": docs_obj});
    let report_id = hex(&sha256(body.to_string().as_bytes())[..12]);
    let mut meta = json!({
        "title": args.title,
        "report_id": report_id,
        "generated_by": concat!("pl-report ", env!("CARGO_PKG_VERSION")),
        "serve": args.serve,
        "decisions_file": args.decisions.as_ref().map(|p| p.display().to_string()),
        "apply": {"tag": args.tag, "delete": args.delete, "note": args.note, "link": args.link},
    });
    if across_owners > 0 {
        meta["across_owners"] = across_owners.into();
    }
    Ok(json!({
        "meta": meta,
        "groups": body["groups"],
        "docs": body["docs"],
    }))
}

/// The whole page: the template with the CSP, style, data and script put in.
pub fn render(data: &Value) -> String {
    // A served page's images come from its own server (/thumb/ID); a file's are inside it.
    let img = if data["meta"]["pages"] == "served" {
        "'self' data:"
    } else {
        "data:"
    };
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; img-src {img}; \
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
    let log = crate::common::log("pl-report", &args.common);
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
    if args.thumbs && args.server.url.is_none() && args.paperless_url.is_none() {
        return Err(UsageError(
            "--thumbs needs the Paperless server: set PAPERLESS_URL (or --paperless-url) and \
             PAPERLESS_TOKEN (or --token-file)"
                .into(),
        )
        .into());
    }
    let groups = read_groups(&args)?;
    let mut data = build_data(&args, &groups, &log)?;
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
        let pages = match args.thumbs {
            true => Some(pages::Served::start(&args, members, &log)?),
            false => None,
        };
        if pages.is_some() {
            data["meta"]["pages"] = "served".into();
        }
        return serve::serve(&args, &data, pages, &log);
    }
    if args.thumbs {
        pages::embed(&args, &mut data, &members, &log)?;
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
