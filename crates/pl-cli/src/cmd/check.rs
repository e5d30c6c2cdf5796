//! pl-check: documents → their near-duplicates in the persistent index.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::text_records::DocRecord;
use serde_json::{Map, Value};

use crate::cmd::index::read_changes;
use crate::common::{Common, Log, ServerFlags, UsageError};
use pl_pipeline::index::{Access, Index, Prepared};
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{write_obj, NdjsonReader};

/// Exit status when some document has a near-duplicate in the index.
pub const FOUND: u8 = 3;

/// How many of the checked documents have a near-duplicate: the exit status says whether any
/// has ([`FOUND`]).
pub struct Checked {
    /// Documents with a near-duplicate.
    pub found: usize,
}

impl crate::common::Outcome for Checked {
    fn status(&self) -> u8 {
        if self.found > 0 {
            FOUND
        } else {
            0
        }
    }
}

/// Check documents against the persistent index of pl-index: for each docs record (pl-fetch's
/// output; stdin by default), or the one document --id fetches from Paperless, one line
/// `{"id", "duplicates": [{"id", "score", ...}]}`, best first: the indexed documents it
/// shares a band bucket (or its whole text) with whose pair pl-score keeps, with pl-score's
/// dimensions and the verifier's explanation (`only_a`/`only_b`: distinctive words only one
/// side has, `conflicts_a`/`conflicts_b`, `evidence`; `a` is the lower id of the two). The
/// document is scored as if it were in the index. --add also indexes the documents (as
/// pl-index --partial does). Exit status 0: no near-duplicate, 3: some document has one.
#[derive(Debug, Parser)]
#[command(name = "pl-check", version)]
pub struct Args {
    /// The index folder (pl-index --index).
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Also add the documents to the index (their groups updated).
    #[arg(long)]
    pub add: bool,
    /// Check the document with this id, fetched from Paperless (PAPERLESS_URL,
    /// PAPERLESS_TOKEN or --token-file), instead of reading docs records.
    #[arg(long, value_name = "N", conflicts_with = "input")]
    pub id: Option<u64>,
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub common: Common,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<Checked> {
    let log = crate::common::log("pl-check", &args.common);
    pl_pipeline::io::refuse_inside(
        ("-o", args.common.output.as_deref()),
        ("--index", &args.index),
    )?;
    let access = if args.add {
        Access::Write
    } else {
        Access::Read
    };
    let mut index = Index::open(&args.index, &|p| p.clone(), access, &log)?;
    index.explain(true)?;
    let input = match args.id {
        Some(id) => fetch_one(&args, id)?,
        None => open_input(args.common.input.as_deref())?,
    };
    let mut reader = NdjsonReader::new(input, args.common.skip_invalid);
    let mut out = create_output(args.common.output.as_deref())?;
    // One document at a time: read, checked, written, dropped (its signature and band keys
    // are most of what it costs); --add keeps the lines read, as pl-index --partial would.
    let mut raw = args.add.then(String::new);
    let mut seen = rustc_hash::FxHashSet::default();
    let (mut found, mut checked) = (0usize, 0u64);
    while let Some(p) = read_doc(&mut reader, &index, &mut seen, raw.as_mut())? {
        let started = std::time::Instant::now();
        let dups = index.check(&p)?;
        if !dups.is_empty() {
            found += 1;
        }
        checked += 1;
        let mut rec = Map::new();
        rec.insert("id".into(), p.id.into());
        rec.insert(
            "duplicates".into(),
            Value::Array(dups.iter().map(|d| Value::Object(d.to_record())).collect()),
        );
        write_obj(&mut out, &rec)?;
        log.info(format!(
            "document {}: checked in {:.1} ms",
            p.id,
            started.elapsed().as_secs_f64() * 1e3
        ));
    }
    out.finish()?;
    if let Some(raw) = raw.filter(|r| !r.is_empty()) {
        add_docs(&mut index, &args.index, reader.name(), raw, &log)?;
    }
    log.info(format!(
        "{} checked, {found} with near-duplicates",
        crate::common::count(checked, "document")
    ));
    Ok(Checked { found })
}

/// The next docs record read, prepared for the index (`None` at the end); its line appended
/// to `raw` (for --add). An id given twice (`seen`: the ids read) is refused.
fn read_doc(
    reader: &mut NdjsonReader,
    index: &Index,
    seen: &mut rustc_hash::FxHashSet<u64>,
    raw: Option<&mut String>,
) -> Result<Option<Prepared>> {
    let Some((line, text)) = reader.next_line()? else {
        return Ok(None);
    };
    let bad = |e: String| anyhow!("{}: line {line}: invalid record: {e}", reader.name());
    let o = pl_core::fields::parse_object(&text).map_err(|e| bad(e.to_string()))?;
    let doc = DocRecord::from_obj(o).map_err(|e| bad(e.to_string()))?;
    if !seen.insert(doc.id) {
        return Err(anyhow!(
            "{}: line {line}: id {} repeated",
            reader.name(),
            doc.id
        ));
    }
    let p = index.engine.prepare_doc(doc).map_err(bad)?;
    if let Some(raw) = raw {
        raw.push_str(&text);
        raw.push('\n');
    }
    Ok(Some(p))
}

/// Adds the checked documents' records (`raw`, read from `name`) to the index in `dir`
/// (--add), their groups updated.
fn add_docs(index: &mut Index, dir: &Path, name: &str, raw: String, log: &Log) -> Result<()> {
    // The same reading as pl-index --partial, of the records already read; its pairs stored
    // as pl-index stores them.
    index.explain(false)?;
    let input = pl_pipeline::io::Input {
        name: name.to_string(),
        reader: Box::new(std::io::Cursor::new(raw.into_bytes())),
    };
    let changes = read_changes(&mut NdjsonReader::new(input, false), index, false)?;
    let s = index.update(
        changes.docs,
        changes.relabeled,
        changes.deleted,
        &changes.sources,
        log,
    )?;
    log.info(format!(
        "{} added, {} changed in {}; {} groups",
        s.added,
        s.changed,
        dir.display(),
        s.groups
    ));
    Ok(())
}

/// One document from Paperless, as a docs record.
fn fetch_one(args: &Args, id: u64) -> Result<pl_pipeline::io::Input> {
    if args.common.input.is_some() {
        return Err(UsageError("--id and an input file exclude each other".into()).into());
    }
    let client = args.server.client("pl-check", 9, args.common.quiet)?;
    let names = pl_paperless::record::Names::fetch(&client)?;
    let doc = client.get_json(&format!(
        "/api/documents/{id}/?fields={}",
        pl_paperless::api::DOC_FIELDS
    ))?;
    let rec = pl_paperless::record::to_record(&doc, &names, client.base())
        .ok_or_else(|| anyhow!("document {id}: the server's answer has no id"))?;
    Ok(pl_pipeline::io::Input {
        name: format!("document {id}"),
        reader: Box::new(std::io::Cursor::new(rec.line)),
    })
}
