//! pl-check: documents → their near-duplicates in the persistent index.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::text_records::DocRecord;
use serde_json::{Map, Value};

use crate::cmd::index::read_changes;
use crate::common::{Common, Log, ServerFlags, UsageError};
use pl_pipeline::index::{Access, Index, Prepared};
use pl_pipeline::io::{create_output, open_input, Output};
use pl_pipeline::ndjson::{write_obj, NdjsonReader};
use pl_pipeline::queue::{Queue, Taken};
use rustc_hash::FxHashSet;

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
/// pl-index --partial does). Owners (the docs' `owner`, as pl-fetch records it): an indexed
/// document of another owner than the checked one's is not reported (a document without
/// owner is an owner of its own), unless --across-owners; how many were left out is said.
/// Exit status 0: no near-duplicate, 3: some document has one.
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
    /// With --add: the documents are first queued in the index folder (queue/), and the
    /// index's writers' lock, which another pl-index or pl-check --add may hold, is waited
    /// for only until SECS seconds after pl-check started (the fetch included). When it is
    /// still held then, the documents are checked against the index as it stands and stay
    /// queued: the next pl-index or pl-check --add adds them. (The consume hook's mode.)
    #[arg(long, value_name = "SECS", requires = "add", value_parser = wait_secs)]
    pub wait: Option<f64>,
    /// Report near-duplicates of other owners too (the docs' `owner`; no owner is an owner
    /// of its own). By default a document's near-duplicates are its owner's documents only,
    /// as pl-cluster's groups are (the index's groups never join two owners).
    #[arg(long)]
    pub across_owners: bool,
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub common: Common,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<Checked> {
    let started = Instant::now();
    let log = crate::common::log("pl-check", &args.common);
    pl_pipeline::io::refuse_inside(
        ("-o", args.common.output.as_deref()),
        ("--index", &args.index),
    )?;
    // Read (fetched) before the index is opened: no writers' lock is held while Paperless
    // answers (a slow server made the hooks waiting behind it time out).
    let input = match args.id {
        Some(id) => fetch_one(&args, id)?,
        None => open_input(args.common.input.as_deref())?,
    };
    let mut reader = NdjsonReader::new(input, args.common.skip_invalid);
    let out = create_output(args.common.output.as_deref())?;
    let (found, checked) = if args.add {
        check_and_add(&args, &mut reader, out, started, &log)?
    } else {
        check_streamed(&args, &mut reader, out, &log)?
    };
    log.info(format!(
        "{} checked, {found} with near-duplicates",
        crate::common::count(checked, "document")
    ));
    Ok(Checked { found })
}

/// Checks without --add, one document at a time: read, checked, written, dropped (its
/// signature and band keys are most of what it costs), so memory does not grow with the
/// input. Returns the documents with near-duplicates and the documents checked.
fn check_streamed(
    args: &Args,
    reader: &mut NdjsonReader,
    mut out: Output,
    log: &Log,
) -> Result<(usize, u64)> {
    let mut index = Index::open(&args.index, &|p| p.clone(), Access::Read, log)?;
    index.explain(true)?;
    let mut seen = FxHashSet::default();
    let (mut found, mut checked) = (0usize, 0u64);
    while let Some(r) = read_record(reader, &mut seen)? {
        let bad = |e: String| anyhow!("{}: line {}: invalid record: {e}", reader.name(), r.line);
        let p = index.engine.prepare_doc(r.doc).map_err(bad)?;
        found += usize::from(check_one(
            &mut index,
            &p,
            args.across_owners,
            &mut out,
            log,
        )?);
        checked += 1;
    }
    out.finish()?;
    Ok((found, checked))
}

/// --add: the records read first (the lines are added, as pl-index --partial would), the
/// index opened for writing (or, past --wait, to read, the records queued), the queue added,
/// each document checked, then the documents added.
fn check_and_add(
    args: &Args,
    reader: &mut NdjsonReader,
    mut out: Output,
    started: Instant,
    log: &Log,
) -> Result<(usize, u64)> {
    let records = read_records(reader)?;
    let (mut index, writing) = open_index(args, &records, started, log)?;
    let own: FxHashSet<u64> = records.iter().map(|r| r.doc.id).collect();
    let taken = if writing {
        Some(add_queued(&mut index, &own, log)?)
    } else {
        None
    };
    index.explain(true)?;
    let (docs, raw) = prepare(records, &index, reader.name())?;
    let mut found = 0usize;
    for p in &docs {
        found += usize::from(check_one(&mut index, p, args.across_owners, &mut out, log)?);
    }
    out.finish()?;
    if writing && !docs.is_empty() {
        add_docs(&mut index, &args.index, reader.name(), raw, log)?;
    }
    if let Some(t) = taken {
        t.done()?;
    }
    Ok((found, docs.len() as u64))
}

/// One docs record (`line`, named `name` in errors) checked against the index open for
/// writing, then added: pl-check --add of one document, as pl-watch runs it for each webhook
/// (the index's queue/ added first, as pl-check --add adds it). Its near-duplicates, best
/// first, scored as if it were in the index (a document already indexed is re-checked, its
/// stored text replaced when it changed), and the time each step took.
pub fn check_and_add_one(
    index: &mut Index,
    name: &str,
    line: &str,
    across_owners: bool,
    log: &Log,
) -> Result<CheckedOne> {
    let started = Instant::now();
    let bad = |e: String| anyhow!("{name}: invalid record: {e}");
    let o = pl_core::fields::parse_object(line.trim_end()).map_err(|e| bad(e.to_string()))?;
    let doc = DocRecord::from_obj(o).map_err(|e| bad(e.to_string()))?;
    let may_change = pl_core::owners::may_change(&doc).map_err(|e| bad(e.to_string()))?;
    let own: FxHashSet<u64> = [doc.id].into_iter().collect();
    let taken = add_queued(index, &own, log)?;
    let queued = started.elapsed();
    index.explain(true)?;
    let p = index.engine.prepare_doc(doc).map_err(bad)?;
    let (dups, left_out) = index.check_owned(&p, across_owners)?;
    note_other_owners(p.id, left_out, log);
    let checked = started.elapsed();
    let dir = index.dir.clone();
    add_docs(index, &dir, name, format!("{}\n", line.trim_end()), log)?;
    taken.done()?;
    Ok(CheckedOne {
        dups,
        may_change,
        queued,
        check: checked - queued,
        add: started.elapsed() - checked,
    })
}

/// Says how many near-duplicates of document `id` were left out as another owner's.
fn note_other_owners(id: u64, left_out: usize, log: &Log) {
    if left_out > 0 {
        log.note(format!(
            "document {id}: {} of other owners not reported (--across-owners reports them)",
            crate::common::count(left_out as u64, "near-duplicate")
        ));
    }
}

/// What [`check_and_add_one`] found, and where its time went.
pub struct CheckedOne {
    /// The near-duplicates, best first.
    pub dups: Vec<pl_pipeline::index::NearDuplicate>,
    /// Whether the token's user may change the document (its `user_can_change`): when not,
    /// nothing is written to it.
    pub may_change: bool,
    /// Adding what the index's queue/ held.
    pub queued: Duration,
    /// Preparing the document and checking it.
    pub check: Duration,
    /// Adding it to the index.
    pub add: Duration,
}

/// Checks one prepared document and writes its record; whether it has near-duplicates.
fn check_one(
    index: &mut Index,
    p: &Prepared,
    across_owners: bool,
    out: &mut Output,
    log: &Log,
) -> Result<bool> {
    let started = Instant::now();
    let (dups, left_out) = index.check_owned(p, across_owners)?;
    note_other_owners(p.id, left_out, log);
    let mut rec = Map::new();
    rec.insert("id".into(), p.id.into());
    rec.insert(
        "duplicates".into(),
        Value::Array(dups.iter().map(|d| Value::Object(d.to_record())).collect()),
    );
    write_obj(out, &rec)?;
    log.info(format!(
        "document {}: checked in {:.1} ms",
        p.id,
        started.elapsed().as_secs_f64() * 1e3
    ));
    Ok(!dups.is_empty())
}

/// One docs record read: its line number, the record and the line itself.
struct Read {
    line: u64,
    doc: DocRecord,
    text: String,
}

/// The next docs record read (`None` at the end); an id given twice (`seen`: the ids read)
/// is refused.
fn read_record(reader: &mut NdjsonReader, seen: &mut FxHashSet<u64>) -> Result<Option<Read>> {
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
    Ok(Some(Read { line, doc, text }))
}

/// The docs records read (checked, each id once); they are prepared once the index's
/// parameters are known ([`prepare`]).
fn read_records(reader: &mut NdjsonReader) -> Result<Vec<Read>> {
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    while let Some(r) = read_record(reader, &mut seen)? {
        out.push(r);
    }
    Ok(out)
}

/// The records prepared for the index, and their lines as read (for --add).
fn prepare(records: Vec<Read>, index: &Index, name: &str) -> Result<(Vec<Prepared>, String)> {
    let mut docs = Vec::with_capacity(records.len());
    let mut raw = String::new();
    for r in records {
        let bad = |e: String| anyhow!("{name}: line {}: invalid record: {e}", r.line);
        docs.push(index.engine.prepare_doc(r.doc).map_err(bad)?);
        raw.push_str(&r.text);
        raw.push('\n');
    }
    Ok((docs, raw))
}

/// The index opened for the run, and whether for writing (--add). With --wait the records
/// are queued first, durably, and the writers' lock is waited for only until `--wait`
/// seconds after the start: when another run still holds it then, the index is opened to
/// read, the documents are checked, and they stay queued for the next writer.
fn open_index(args: &Args, records: &[Read], started: Instant, log: &Log) -> Result<(Index, bool)> {
    let same = |p: &pl_pipeline::index::Params| p.clone();
    if !args.add {
        return Ok((Index::open(&args.index, &same, Access::Read, log)?, false));
    }
    let Some(wait) = args.wait else {
        return Ok((Index::open(&args.index, &same, Access::Write, log)?, true));
    };
    if !args.index.join(pl_pipeline::index::DB_FILE).is_file() {
        // No index: its refusal, nothing queued in a folder that is not one.
        return Ok((Index::open(&args.index, &same, Access::Write, log)?, true));
    }
    let queue = Queue::of(&args.index);
    for r in records {
        queue.put(r.doc.id, &r.text)?;
    }
    let until = started + Duration::from_secs_f64(wait);
    if let Some(ix) = Index::open_until(&args.index, &same, Access::Write, Some(until), log)? {
        return Ok((ix, true));
    }
    log.note(format!(
        "{}: another run held the index's writers' lock past --wait {wait} s: {} queued in {} \
         for the next pl-index or pl-check --add, checked without being added",
        args.index.display(),
        crate::common::count(records.len() as u64, "document"),
        queue.dir().display()
    ));
    Ok((Index::open(&args.index, &same, Access::Read, log)?, false))
}

/// Adds the records the index's queue holds (but those of the documents `own`, which the
/// caller adds itself), as pl-index --partial would; the queue's files are removed by
/// [`Taken::done`] once the caller's update is committed. Damaged entries are set aside and
/// named.
pub fn add_queued(index: &mut Index, own: &FxHashSet<u64>, log: &Log) -> Result<Taken> {
    let queue = Queue::of(&index.dir);
    let taken = queue.take()?;
    for (p, why) in &taken.bad {
        log.note(format!(
            "{}: not a queued docs record ({why}): set aside, not added",
            p.display()
        ));
    }
    let lines: String = taken
        .records
        .iter()
        .filter(|(id, _)| !own.contains(id))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    if !lines.is_empty() {
        let dir = index.dir.clone();
        add_docs(index, &dir, &queue.dir().display().to_string(), lines, log)?;
    }
    Ok(taken)
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
    let changes = read_changes(&mut NdjsonReader::new(input, false), index, false, None)?;
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
    let rec = pl_paperless::record::fetch_record(&client, id)?;
    Ok(pl_pipeline::io::Input {
        name: format!("document {id}"),
        reader: Box::new(std::io::Cursor::new(rec.line)),
    })
}

/// --wait: seconds, from 0 to a day.
fn wait_secs(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=86400.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds from 0 to 86400")),
    }
}
