//! pl-apply: review decisions (or groups over a confidence) → tags or the trash in
//! Paperless-NGX, planned first, journaled, resumable, undoable.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Context, Result};
use clap::Parser;
use pl_core::decision::{check_consistent, Decision, Verdict};
use pl_core::time::{format_utc, parse_rfc3339};
use pl_paperless::write::DeleteMethod;
use pl_paperless::Client;
use serde_json::{json, Map, Value};

use crate::common::{numbers, Log, Refused, ServerFlags, UsageError, COMMON_HEADING};
use crate::io::{create_output, open_input, Output};
use crate::ndjson::{get_f64, get_u64, parse_object, write_obj, NdjsonReader};
use crate::sides::read_field;

/// Apply review decisions to Paperless-NGX: the non-primary members of every group decided
/// "duplicate" get a tag (default `duplicate`, created when missing), or with --delete are
/// moved to the Paperless trash (restorable there). Without --yes nothing is changed: the plan
/// is printed, one NDJSON record per document on stdout, and a summary on stderr.
///
/// Safety rules: a primary is never touched (nor any document that is the primary of some
/// group); a document whose `modified` in Paperless is newer than when it was scored (the
/// decisions' `modified`, or --docs) is refused, and so is every member of a group whose
/// primary changed or is gone; every change is written to a journal (NDJSON) before and after
/// it is made, so a re-run skips what is done, an interrupted run resumes, and
/// `--undo JOURNAL` removes the tags and notes it added and restores what it trashed.
///
/// Input: a decisions file (pl-report), or pl-cluster groups with --min-confidence X (every
/// group at or over X counts as decided "duplicate", with its primary) and --docs.
///
/// Server and token as for pl-fetch: PAPERLESS_URL (or --url), PAPERLESS_TOKEN or
/// --token-file; the token is never accepted on the command line, printed or written.
#[derive(Debug, Parser)]
#[command(name = "pl-apply", version)]
pub struct Args {
    /// Decisions or groups NDJSON (default: stdin).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Treat the input as pl-cluster groups: every group with at least this confidence is a
    /// set of duplicates. With a decisions file: only decisions of groups this confident.
    #[arg(long, value_name = "X", value_parser = numbers::unit)]
    pub min_confidence: Option<f64>,
    /// Docs (or norm) NDJSON the groups were scored from: their `modified` is the reference
    /// for the changed-since-scoring rule (needed for groups; fills gaps in decisions).
    #[arg(long, value_name = "FILE")]
    pub docs: Option<PathBuf>,
    /// Tag added to the non-primary members.
    #[arg(long, default_value = "duplicate", value_name = "NAME")]
    pub tag: String,
    /// Move the non-primary members to the Paperless trash instead of tagging them.
    #[arg(long)]
    pub delete: bool,
    /// Also add a note to each non-primary member pointing to its primary ("Duplicate of
    /// document #12: URL"); --undo deletes it again.
    #[arg(long)]
    pub note: bool,
    /// Do it. Without --yes the plan is printed and nothing changes.
    #[arg(long)]
    pub yes: bool,
    /// Journal file, appended to (default: INPUT.journal.ndjson; required with stdin).
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Undo what this journal records as done: remove the tags and notes added, restore from the
    /// trash. Planned first like everything else; needs --yes to act.
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = ["input", "min_confidence", "docs", "delete", "note"])]
    pub undo: Option<PathBuf>,
    /// Documents per write request.
    #[arg(long, default_value_t = 50, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub batch: u32,
    /// API version to ask for (9 works on 2.15+ and 3.x; a server offering another is followed).
    #[arg(long, default_value_t = 9, value_name = "N")]
    pub api_version: u32,
    #[command(flatten)]
    pub server: ServerFlags,
    /// Write the plan records to this file instead of stdout.
    #[arg(short, long, value_name = "FILE", help_heading = COMMON_HEADING)]
    pub output: Option<PathBuf>,
    /// Print nothing on stderr but errors.
    #[arg(short, long, help_heading = COMMON_HEADING)]
    pub quiet: bool,
    /// Print server details and timings on stderr.
    #[arg(short, long, conflicts_with = "quiet", help_heading = COMMON_HEADING)]
    pub verbose: bool,
}

/// What is done to one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Tag,
    Trash,
    Note,
    Untag,
    Restore,
    Unnote,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Tag => "tag",
            Op::Trash => "trash",
            Op::Untag => "untag",
            Op::Restore => "restore",
            Op::Note => "note",
            Op::Unnote => "unnote",
        }
    }
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "tag" => Op::Tag,
            "trash" => Op::Trash,
            "untag" => Op::Untag,
            "restore" => Op::Restore,
            "note" => Op::Note,
            "unnote" => Op::Unnote,
            _ => return None,
        })
    }
    /// The operation that undoes this one.
    fn inverse(self) -> Op {
        match self {
            Op::Tag => Op::Untag,
            Op::Trash => Op::Restore,
            Op::Untag => Op::Tag,
            Op::Restore => Op::Trash,
            Op::Note => Op::Unnote,
            Op::Unnote => Op::Note,
        }
    }
}

/// One line of the plan.
#[derive(Debug, Clone)]
struct Step {
    op: Op,
    id: u64,
    group: Option<u64>,
    primary: Option<u64>,
    tag_id: Option<u64>,
    /// The note's id (note, unnote).
    note_id: Option<u64>,
    /// The note's text (note).
    note: Option<String>,
    /// planned, done, skipped, refused, failed
    status: &'static str,
    reason: Option<String>,
}

impl Step {
    fn record(&self, tag: &str) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("action".into(), self.op.as_str().into());
        o.insert("id".into(), self.id.into());
        o.insert("group".into(), json!(self.group));
        o.insert("primary".into(), json!(self.primary));
        if matches!(self.op, Op::Tag | Op::Untag) {
            o.insert("tag".into(), tag.into());
        }
        if let Some(n) = &self.note {
            o.insert("note".into(), n.clone().into());
        }
        o.insert("status".into(), self.status.into());
        if let Some(r) = &self.reason {
            o.insert("reason".into(), r.clone().into());
        }
        o
    }
}

fn now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    format_utc(i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 2))
}

/// The journal: NDJSON appended and synced record by record.
struct Journal {
    path: PathBuf,
    file: Option<File>,
}

/// What earlier runs did, folded from the journal.
#[derive(Debug, Default)]
struct History {
    /// (op, id) → the last record about it.
    last: BTreeMap<(Op, u64), Map<String, Value>>,
    /// id → `modified` the server had right after our last change to it.
    own_modified: BTreeMap<u64, String>,
    /// Tags pl-apply created (id → name) and no undo has deleted since.
    created_tags: BTreeMap<u64, String>,
}

impl History {
    fn result(&self, op: Op, id: u64) -> Option<&str> {
        self.last
            .get(&(op, id))
            .and_then(|r| r.get("result"))
            .and_then(Value::as_str)
    }
    /// Whether `op` on `id` is in force: done (or found already so) and not undone since.
    fn in_force(&self, op: Op, id: u64) -> bool {
        let seq = |o: Op| {
            self.last
                .get(&(o, id))
                .and_then(|r| r.get("seq"))
                .and_then(Value::as_u64)
        };
        matches!(self.result(op, id), Some("ok") | Some("already"))
            && match (seq(op), seq(op.inverse())) {
                (Some(a), Some(b)) => a > b || !matches!(self.result(op.inverse(), id), Some("ok")),
                _ => true,
            }
    }
}

impl Journal {
    fn read(path: &Path) -> Result<History> {
        let mut h = History::default();
        let f = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(h),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot open", path.display())),
        };
        // A run killed mid-write leaves a cut last line: it recorded nothing done. A bad line
        // with records after it is damage, and what it said is unknown: refused.
        let mut cut: Option<(usize, String)> = None;
        for (i, line) in BufReader::new(f).lines().enumerate() {
            let line = line.with_context(|| format!("{}: read failed", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            if let Some((at, msg)) = cut.take() {
                return Err(anyhow!(
                    "{}: line {at}: {msg}, and records follow it: the journal is damaged (only a run killed mid-write leaves a cut line, at the end); repair the line or restore the file",
                    path.display()
                ));
            }
            let mut o = match parse_object(&line) {
                Ok(o) => o,
                Err(msg) => {
                    cut = Some((i + 1, msg));
                    continue;
                }
            };
            let tag = o.get("tag_id").and_then(Value::as_u64);
            match (o.get("op").and_then(Value::as_str), tag, o.get("result")) {
                (Some("create-tag"), Some(t), Some(r)) if r == "ok" => {
                    let name = o.get("tag").and_then(Value::as_str).unwrap_or_default();
                    h.created_tags.insert(t, name.to_owned());
                }
                (Some("delete-tag"), Some(t), Some(r)) if r == "ok" => {
                    h.created_tags.remove(&t);
                }
                _ => {}
            }
            let (Some(op), Some(id)) = (
                o.get("op").and_then(Value::as_str).and_then(Op::parse),
                o.get("id").and_then(Value::as_u64),
            ) else {
                if o.get("op").is_none() {
                    return Err(anyhow!(
                        "{}: line {}: not a pl-apply journal record",
                        path.display(),
                        i + 1
                    ));
                }
                continue;
            };
            if let Some(m) = o.get("modified").and_then(Value::as_str) {
                h.own_modified.insert(id, m.to_owned());
            }
            o.insert("seq".into(), (i as u64).into());
            h.last.insert((op, id), o);
        }
        Ok(h)
    }

    fn open(path: &Path) -> Result<Journal> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("{}: cannot open the journal", path.display()))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Some(file),
        })
    }

    fn write(&mut self, mut rec: Map<String, Value>) -> Result<()> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        let mut o = Map::new();
        o.insert("at".into(), now().into());
        o.append(&mut rec);
        let mut line = serde_json::to_vec(&o)?;
        line.push(b'\n');
        f.write_all(&line)
            .with_context(|| format!("{}: cannot write the journal", self.path.display()))
    }

    /// Forces what was written to disk: called before each request and after its outcome.
    fn sync(&mut self) -> Result<()> {
        match self.file.as_mut() {
            Some(f) => f
                .sync_data()
                .with_context(|| format!("{}: cannot write the journal", self.path.display())),
            None => Ok(()),
        }
    }
}

fn step_journal(s: &Step, result: &str, tag: &str, extra: &[(&str, Value)]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("op".into(), s.op.as_str().into());
    o.insert("id".into(), s.id.into());
    if let Some(g) = s.group {
        o.insert("group".into(), g.into());
    }
    if let Some(p) = s.primary {
        o.insert("primary".into(), p.into());
    }
    if let Some(t) = s.tag_id {
        o.insert("tag".into(), tag.into());
        o.insert("tag_id".into(), t.into());
    }
    if let Some(n) = s.note_id {
        o.insert("note_id".into(), n.into());
    }
    o.insert("result".into(), result.into());
    for (k, v) in extra {
        o.insert((*k).into(), v.clone());
    }
    o
}

/// Exit 3 when any document was refused (the plan and summary name them), 0 otherwise.
fn refused_exit(refused: usize) -> Result<()> {
    if refused == 0 {
        return Ok(());
    }
    Err(Refused(format!(
        "{refused} documents refused (exit 3): see the records with \"status\":\"refused\""
    ))
    .into())
}

/// Marks a step failed with the server's error, in the plan and in the journal.
fn record_failure(journal: &mut Journal, s: &mut Step, tag: &str, msg: String) -> Result<()> {
    s.status = "failed";
    s.reason = Some(msg.clone());
    journal.write(step_journal(s, "failed", tag, &[("error", json!(msg))]))
}

/// Reads decisions, or groups over --min-confidence as "duplicate" decisions.
fn read_input(args: &Args, log: &Log) -> Result<(String, Vec<Decision>)> {
    let input = open_input(args.input.as_deref())?;
    let name = input.name.clone();
    let mut reader = NdjsonReader::new(input, false);
    let mut read = Vec::new();
    let mut groups_seen = false;
    let mut decisions_seen = false;
    while let Some(d) = reader.next_with(|o| {
        if o.contains_key("decision") {
            decisions_seen = true;
            return Decision::from_obj(&o).map(Some);
        }
        if !o.contains_key("members") {
            return Err("neither a decision nor a group record".into());
        }
        groups_seen = true;
        let Some(min) = args.min_confidence else {
            return Err(
                "a group record: pl-apply acts on groups only with --min-confidence X (or give it the decisions exported by pl-report)"
                    .into(),
            );
        };
        let confidence = get_f64(&o, "confidence")?;
        if confidence < min {
            return Ok(None);
        }
        let mut g = o.clone();
        g.insert("decision".into(), "duplicate".into());
        let _ = get_u64(&o, "group")?;
        Decision::from_obj(&g).map(Some)
    })? {
        if let Some(d) = d {
            read.push((reader.line(), d));
        }
    }
    if groups_seen && decisions_seen {
        return Err(anyhow!("{name}: mixes decisions and groups"));
    }
    // Contradictions are refused before anything is planned, let alone written.
    check_consistent(&read).map_err(|msg| anyhow!("{name}: {msg}"))?;
    let mut out: Vec<Decision> = read
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| match (args.min_confidence, d.confidence) {
            (Some(min), Some(c)) => c >= min,
            _ => true,
        })
        .collect();
    if groups_seen && args.docs.is_none() {
        return Err(UsageError(
            "groups carry no `modified`: pass --docs FILE (the docs they were scored from)".into(),
        )
        .into());
    }
    // Fill `modified` gaps from --docs.
    if let Some(p) = &args.docs {
        let wanted = out.iter().flat_map(|d| d.members.iter().copied()).collect();
        let modified = read_field(p, Some(&wanted), |o| {
            Ok(o.get("modified").and_then(Value::as_str).map(str::to_owned))
        })?;
        for d in &mut out {
            for (id, m) in d.modified.iter_mut() {
                if m.is_none() {
                    *m = modified.get(id).cloned().flatten();
                }
            }
        }
    }
    let skipped = out
        .iter()
        .filter(|d| d.decision != Verdict::Duplicate)
        .count();
    if skipped > 0 {
        log.info(format!(
            "{skipped} groups decided not duplicates or ignored: left alone"
        ));
    }
    out.retain(|d| d.decision == Verdict::Duplicate);
    Ok((name, out))
}

fn instant(s: &str) -> Option<i64> {
    parse_rfc3339(s)
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = Log::plain("pl-apply", args.quiet, args.verbose);
    if let Some(m) = args.min_confidence {
        if !(0.0..=1.0).contains(&m) {
            return Err(UsageError("--min-confidence must be within 0 and 1".into()).into());
        }
    }
    if args.tag.trim().is_empty() {
        return Err(UsageError("--tag must not be empty".into()).into());
    }
    let journal_path = match (&args.undo, &args.journal, &args.input) {
        (Some(j), _, _) => j.clone(),
        (None, Some(j), _) => j.clone(),
        (None, None, Some(p)) if p != Path::new("-") => {
            let mut s = p.as_os_str().to_owned();
            s.push(".journal.ndjson");
            PathBuf::from(s)
        }
        _ => {
            return Err(
                UsageError("reading stdin: name the journal with --journal FILE".into()).into(),
            )
        }
    };
    let history = Journal::read(&journal_path)?;
    let client = args
        .server
        .client("pl-apply", args.api_version, args.quiet)?;
    let mut out = create_output(args.output.as_deref())?;
    let result = if args.undo.is_some() {
        undo(&args, &client, &history, &journal_path, &mut out, &log)
    } else {
        apply(&args, &client, &history, &journal_path, &mut out, &log)
    };
    out.finish()?;
    result
}

/// The note pointing a duplicate to its primary.
fn note_text(base: &str, primary: u64, group: u64) -> String {
    format!(
        "Duplicate of document #{primary}: {base}/documents/{primary}/details (found by paperless-dedupe, group {group}; pl-apply --undo removes this note)"
    )
}

/// Checks, plans and (with --yes) carries out the decisions.
fn apply(
    args: &Args,
    client: &Client,
    history: &History,
    journal_path: &Path,
    out: &mut Output,
    log: &Log,
) -> Result<()> {
    let (input_name, decisions) = read_input(args, log)?;
    let main = if args.delete { Op::Trash } else { Op::Tag };
    // A note goes on before a document leaves for the trash, after its tag otherwise.
    let ops: Vec<Op> = match (main, args.note) {
        (Op::Trash, true) => vec![Op::Note, Op::Trash],
        (m, true) => vec![m, Op::Note],
        (m, false) => vec![m],
    };
    // Every primary anywhere is off limits, even where it is a plain member elsewhere.
    let primaries: BTreeMap<u64, u64> = decisions.iter().map(|d| (d.primary, d.group)).collect();
    let all: Vec<u64> = decisions
        .iter()
        .flat_map(|d| d.members.iter().copied())
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    let live = client.doc_states(&all)?;
    let trashed = if all.iter().any(|id| !live.contains_key(id)) {
        client.trashed()?
    } else {
        BTreeSet::new()
    };
    let server = client.server();
    log.info(format!(
        "server {} (API {}), {} decisions, {} documents",
        server.release.as_deref().unwrap_or("?"),
        client.api_version(),
        decisions.len(),
        all.len()
    ));
    let tag_id = if ops.contains(&Op::Tag) {
        client.tag_id(&args.tag)?
    } else {
        None
    };
    // Documents whose present `modified` comes from a change of ours that landed but was not
    // journaled as done (a run killed mid-request).
    let mut ours: BTreeSet<u64> = BTreeSet::new();
    let changed_since = |id: u64,
                         scored: &Option<String>,
                         ours: &BTreeSet<u64>|
     -> Option<String> {
        let now = &live.get(&id)?.modified;
        if ours.contains(&id) {
            return None;
        }
        let Some(scored) = scored else {
            return Some(format!(
                    "no `modified` for #{id} in the decisions or --docs: cannot tell whether it changed since it was scored"
                ));
        };
        let (Some(t_now), Some(t_scored)) = (instant(now), instant(scored)) else {
            return (now != scored).then(|| {
                format!("#{id} has modified {now} in Paperless, {scored} when it was scored")
            });
        };
        let own = history
            .own_modified
            .get(&id)
            .and_then(|m| instant(m))
            .is_some_and(|t| t == t_now);
        (t_now > t_scored && !own).then(|| {
            format!("#{id} was modified in Paperless at {now}, after it was scored ({scored})")
        })
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut seen = BTreeSet::new();
    for d in &decisions {
        let group_problem = if !live.contains_key(&d.primary) {
            Some(format!(
                "the primary #{} is not in Paperless (deleted or in the trash)",
                d.primary
            ))
        } else {
            changed_since(d.primary, &d.modified[&d.primary], &ours)
                .map(|why| format!("the primary changed: {why}"))
        };
        for &id in d.members.iter().filter(|&&m| m != d.primary) {
            if !seen.insert(id) {
                continue;
            }
            let has_tag =
                tag_id.is_some_and(|t| live.get(&id).is_some_and(|l| l.tags.contains(&t)));
            let text = note_text(client.base(), d.primary, d.group);
            // Changes of an interrupted run that landed without being journaled as done: they
            // bumped `modified` themselves, so they must not count as someone else's edit.
            let mut landed: BTreeMap<Op, Option<u64>> = BTreeMap::new();
            if live.contains_key(&id) && !primaries.contains_key(&id) {
                for &op in &ops {
                    if history.result(op, id) != Some("started") {
                        continue;
                    }
                    if op == Op::Tag && has_tag {
                        landed.insert(op, None);
                    } else if op == Op::Note {
                        let found = client
                            .notes(id)?
                            .into_iter()
                            .filter(|(_, t)| *t == text)
                            .map(|(n, _)| n)
                            .max();
                        if found.is_some() {
                            landed.insert(op, found);
                        }
                    }
                }
            }
            if !landed.is_empty() {
                ours.insert(id);
            }
            for &op in &ops {
                let mut s = Step {
                    op,
                    id,
                    group: Some(d.group),
                    primary: Some(d.primary),
                    tag_id: if op == Op::Tag { tag_id } else { None },
                    note_id: None,
                    note: (op == Op::Note).then(|| text.clone()),
                    status: "planned",
                    reason: None,
                };
                let started = history.result(op, id) == Some("started");
                let verdict: Option<(&'static str, String)> = if let Some(g) = primaries.get(&id) {
                    Some(("refused", format!("#{id} is the primary of group {g}")))
                } else if history.in_force(op, id) {
                    Some(("skipped", "done in an earlier run (journal)".into()))
                } else if let Some(why) = &group_problem {
                    Some(("refused", why.clone()))
                } else if op == Op::Trash && trashed.contains(&id) {
                    Some((
                        "skipped",
                        if started {
                            "in the trash: the interrupted run's request had landed".into()
                        } else {
                            "already in the trash".into()
                        },
                    ))
                } else if op == Op::Note && trashed.contains(&id) && history.in_force(Op::Trash, id)
                {
                    Some(("skipped", "in the trash since an earlier run".into()))
                } else if !live.contains_key(&id) {
                    Some((
                        "refused",
                        format!(
                            "#{id} is not in Paperless (deleted, or not visible to this token)"
                        ),
                    ))
                } else if let Some(n) = landed.get(&op) {
                    s.note_id = *n;
                    Some((
                        "skipped",
                        format!(
                            "{}: the interrupted run's request had landed",
                            if op == Op::Tag { "tagged" } else { "noted" }
                        ),
                    ))
                } else if let Some(why) = changed_since(id, &d.modified[&id], &ours) {
                    Some(("refused", why))
                } else if op == Op::Tag && has_tag {
                    Some(("skipped", format!("already tagged {:?}", args.tag)))
                } else {
                    None
                };
                if let Some((status, why)) = verdict {
                    s.status = status;
                    s.reason = Some(why);
                }
                steps.push(s);
            }
        }
    }
    fn count(steps: &[Step], st: &str) -> usize {
        steps.iter().filter(|s| s.status == st).count()
    }
    let n_op = |steps: &[Step], op: Op, st: &str| {
        steps
            .iter()
            .filter(|s| s.op == op && s.status == st)
            .count()
    };
    for s in steps
        .iter()
        .filter(|s| s.status == "refused" && s.op == ops[0])
    {
        log.note(format!(
            "refused #{} (group {}): {}",
            s.id,
            s.group.unwrap_or(0),
            s.reason.as_deref().unwrap_or("")
        ));
    }
    let n_main = n_op(&steps, main, "planned");
    let mut what = match main {
        Op::Tag => format!(
            "tag {n_main} documents {:?}{}",
            args.tag,
            if tag_id.is_none() && n_main > 0 {
                " (the tag will be created)"
            } else {
                ""
            }
        ),
        _ => format!("move {n_main} documents to the trash"),
    };
    if args.note {
        what += &format!(", add a note to {}", n_op(&steps, Op::Note, "planned"));
    }
    if !args.yes {
        for s in &steps {
            write_obj(out, &s.record(&args.tag))?;
        }
        log.note(format!(
            "plan: {what}; {} skipped, {} refused; nothing changed (add --yes to apply)",
            count(&steps, "skipped"),
            count(&steps, "refused")
        ));
        return refused_exit(count(&steps, "refused"));
    }
    // Journal first: a run that dies after this point can be resumed or undone.
    let mut journal = Journal::open(journal_path)?;
    for s in steps.iter().filter(|s| s.status == "skipped") {
        let reason = s.reason.as_deref().unwrap_or("");
        if reason.starts_with("already tagged") && !history.in_force(s.op, s.id) {
            // So that an undo leaves a tag alone that was there before.
            journal.write(step_journal(s, "already", &args.tag, &[]))?;
        } else if reason.contains("landed") {
            // As a change made in this run is journaled: `modified` when the document is
            // live (a trashed one has none to give).
            let modified: Vec<(&str, Value)> = live
                .get(&s.id)
                .map(|d| ("modified", json!(d.modified)))
                .into_iter()
                .collect();
            journal.write(step_journal(s, "ok", &args.tag, &modified))?;
        }
    }
    let mut run = Map::new();
    run.insert("op".into(), "run".into());
    run.insert("mode".into(), main.as_str().into());
    run.insert("note".into(), args.note.into());
    run.insert("input".into(), input_name.into());
    run.insert("server".into(), client.base().into());
    run.insert("release".into(), json!(client.server().release));
    run.insert("planned".into(), count(&steps, "planned").into());
    journal.write(run)?;
    let method = client.delete_method();
    let mut failed: Option<anyhow::Error> = None;
    'ops: for &op in &ops {
        let planned: Vec<usize> = (0..steps.len())
            .filter(|&i| steps[i].op == op && steps[i].status == "planned")
            .collect();
        if planned.is_empty() {
            continue;
        }
        if op == Op::Tag && tag_id.is_none() {
            let id = client.create_tag(&args.tag)?;
            let mut o = Map::new();
            o.insert("op".into(), "create-tag".into());
            o.insert("tag".into(), args.tag.clone().into());
            o.insert("tag_id".into(), id.into());
            o.insert("result".into(), "ok".into());
            journal.write(o)?;
            for &i in &planned {
                steps[i].tag_id = Some(id);
            }
        }
        for batch in planned.chunks(args.batch as usize) {
            let ids: Vec<u64> = batch.iter().map(|&i| steps[i].id).collect();
            for &i in batch {
                journal.write(step_journal(&steps[i], "started", &args.tag, &[]))?;
            }
            // On disk before the request: a run killed from here on is resumable.
            journal.sync()?;
            // Notes are one request per document, tags and the trash one per batch.
            let mut note_ids: BTreeMap<usize, u64> = BTreeMap::new();
            let done: pl_paperless::Result<Option<DeleteMethod>> = match op {
                Op::Tag => client
                    .add_tag(&ids, steps[batch[0]].tag_id.expect("a tag id"))
                    .map(|()| None),
                Op::Trash => client.trash(&ids, method).map(Some),
                _ => batch
                    .iter()
                    .try_for_each(|&i| {
                        let n =
                            client.add_note(steps[i].id, steps[i].note.as_deref().unwrap_or(""))?;
                        note_ids.insert(i, n);
                        Ok(())
                    })
                    .map(|()| None),
            };
            // What the server has now for what landed, so a later run knows it was ours.
            let landed: Vec<u64> = batch
                .iter()
                .filter(|i| done.is_ok() || note_ids.contains_key(i))
                .map(|&i| steps[i].id)
                .collect();
            let after = if op == Op::Trash || landed.is_empty() {
                BTreeMap::new()
            } else {
                client.doc_states(&landed)?
            };
            let error = done.as_ref().err().map(ToString::to_string);
            for &i in batch {
                let s = &mut steps[i];
                if error.is_none() || note_ids.contains_key(&i) {
                    s.status = "done";
                    s.note_id = note_ids.get(&i).copied();
                    let mut extra = vec![];
                    if let Some(d) = after.get(&s.id) {
                        extra.push(("modified", json!(d.modified)));
                    }
                    if let Ok(Some(v)) = &done {
                        extra.push(("via", json!(v.as_str())));
                    }
                    journal.write(step_journal(s, "ok", &args.tag, &extra))?;
                } else {
                    record_failure(
                        &mut journal,
                        s,
                        &args.tag,
                        error.clone().unwrap_or_default(),
                    )?;
                }
            }
            journal.sync()?;
            if let Err(e) = done {
                failed = Some(anyhow!(e).context(format!(
                    "{} of documents {:?} failed; nothing after them was tried (the journal {} has the details; run again to resume)",
                    op.as_str(),
                    ids,
                    journal_path.display()
                )));
                break 'ops;
            }
        }
    }
    journal.sync()?;
    for s in &steps {
        write_obj(out, &s.record(&args.tag))?;
    }
    let verb = if main == Op::Tag {
        "tagged"
    } else {
        "moved to the trash"
    };
    let notes = if args.note {
        format!(", noted {}", n_op(&steps, Op::Note, "done"))
    } else {
        String::new()
    };
    log.note(format!(
        "{verb} {}{notes}, {} skipped, {} refused, {} failed; journal {}",
        n_op(&steps, main, "done"),
        count(&steps, "skipped"),
        count(&steps, "refused"),
        count(&steps, "failed"),
        journal_path.display()
    ));
    if main == Op::Trash && n_op(&steps, main, "done") > 0 {
        log.info(format!("deleted with {}", method.as_str()));
    }
    match failed {
        Some(e) => Err(e),
        None => refused_exit(count(&steps, "refused")),
    }
}

/// The deletion of a tag pl-apply created, in an undo.
#[derive(Debug)]
struct TagStep {
    tag_id: u64,
    name: String,
    /// planned, done, skipped, failed
    status: &'static str,
    reason: Option<String>,
}

impl TagStep {
    fn skip(&mut self, why: String) {
        self.status = "skipped";
        self.reason = Some(why);
    }

    fn record(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("action".into(), "delete-tag".into());
        o.insert("tag".into(), self.name.clone().into());
        o.insert("tag_id".into(), self.tag_id.into());
        o.insert("status".into(), self.status.into());
        if let Some(r) = &self.reason {
            o.insert("reason".into(), r.clone().into());
        }
        o
    }

    fn journal(&self, result: &str) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("op".into(), "delete-tag".into());
        o.insert("tag".into(), self.name.clone().into());
        o.insert("tag_id".into(), self.tag_id.into());
        o.insert("result".into(), result.into());
        if let Some(r) = self.reason.as_ref().filter(|_| result == "failed") {
            o.insert("error".into(), r.clone().into());
        }
        o
    }
}

/// Why a created tag stays: the documents that still carry it (the first few named).
fn carried_by(ids: &[u64]) -> String {
    let named: Vec<String> = ids.iter().take(5).map(|i| format!("#{i}")).collect();
    format!(
        "still on {} document{} ({}{}), so the tag stays",
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        named.join(", "),
        if ids.len() > 5 { ", ..." } else { "" }
    )
}

/// ", delete the tag \"duplicate\"" for the summary lines, or nothing.
fn deleted_tags(names: &[&str], verb: &str) -> String {
    if names.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!(", {verb} the tag {}", quoted.join(", "))
}

/// Plans and (with --yes) undoes what the journal records as done.
fn undo(
    args: &Args,
    client: &Client,
    history: &History,
    journal_path: &Path,
    out: &mut Output,
    log: &Log,
) -> Result<()> {
    if history.last.is_empty() {
        return Err(anyhow!(
            "{}: no pl-apply journal records in it (or no such file)",
            journal_path.display()
        ));
    }
    // Latest first per document: restore what is trashed, then take the tags off.
    let mut steps: Vec<Step> = Vec::new();
    for ((op, id), rec) in &history.last {
        if !matches!(op, Op::Tag | Op::Trash | Op::Note) || history.result(*op, *id) != Some("ok") {
            continue;
        }
        if !history.in_force(*op, *id) {
            continue;
        }
        let tag_id = rec.get("tag_id").and_then(Value::as_u64);
        steps.push(Step {
            op: op.inverse(),
            id: *id,
            group: rec.get("group").and_then(Value::as_u64),
            primary: rec.get("primary").and_then(Value::as_u64),
            tag_id,
            note_id: rec.get("note_id").and_then(Value::as_u64),
            note: None,
            status: "planned",
            reason: None,
        });
    }
    let order = |op: Op| match op {
        Op::Restore => 0,
        Op::Untag => 1,
        _ => 2,
    };
    steps.sort_by_key(|s| (order(s.op), s.id));
    let ids: Vec<u64> = steps.iter().map(|s| s.id).collect();
    let live = client.doc_states(&ids)?;
    let trashed = client.trashed()?;
    // Restores run first, so a document both trashed and tagged gets its tag off afterwards.
    let restoring: BTreeSet<u64> = steps
        .iter()
        .filter(|s| s.op == Op::Restore && trashed.contains(&s.id))
        .map(|s| s.id)
        .collect();
    for s in &mut steps {
        match s.op {
            Op::Restore if !trashed.contains(&s.id) => {
                if live.contains_key(&s.id) {
                    s.status = "skipped";
                    s.reason = Some("not in the trash: restored already".into());
                } else {
                    s.status = "refused";
                    s.reason = Some(format!(
                        "#{} is neither in the trash nor among the documents (the trash was emptied?)",
                        s.id
                    ));
                }
            }
            Op::Untag => match (live.get(&s.id), s.tag_id) {
                (None, Some(_)) if restoring.contains(&s.id) => {}
                (None, _) if trashed.contains(&s.id) => {
                    s.status = "refused";
                    s.reason = Some(format!(
                        "#{} is in the trash, and not by this journal: restore it first",
                        s.id
                    ));
                }
                (None, _) => {
                    s.status = "refused";
                    s.reason = Some(format!("#{} is not in Paperless any more", s.id));
                }
                (Some(d), Some(t)) if !d.tags.contains(&t) => {
                    s.status = "skipped";
                    s.reason = Some("the tag is off already".into());
                }
                (_, None) => {
                    s.status = "refused";
                    s.reason = Some("the journal does not name the tag id".into());
                }
                _ => {}
            },
            Op::Unnote => match (live.get(&s.id), s.note_id) {
                (_, None) => {
                    s.status = "refused";
                    s.reason = Some("the journal does not name the note id".into());
                }
                (None, _) if restoring.contains(&s.id) => {}
                (None, _) => {
                    s.status = "refused";
                    s.reason = Some(format!(
                        "#{} is not among the documents (in the trash, not by this journal, or gone)",
                        s.id
                    ));
                }
                _ => {}
            },
            _ => {}
        }
    }
    // A tag pl-apply created goes too, once no document carries it any more.
    let untagging = |t: u64| -> BTreeSet<u64> {
        steps
            .iter()
            .filter(|s| s.op == Op::Untag && s.tag_id == Some(t) && s.status == "planned")
            .map(|s| s.id)
            .collect()
    };
    let mut tag_steps: Vec<TagStep> = Vec::new();
    for (&tag_id, name) in &history.created_tags {
        let mut t = TagStep {
            tag_id,
            name: name.clone(),
            status: "planned",
            reason: None,
        };
        if !client.tag_exists(tag_id)? {
            t.skip("the tag is gone already".into());
        } else {
            let keep: Vec<u64> = client
                .tagged(tag_id)?
                .difference(&untagging(tag_id))
                .copied()
                .collect();
            if !keep.is_empty() {
                t.skip(carried_by(&keep));
            }
        }
        tag_steps.push(t);
    }
    let count = |steps: &[Step], st: &str| steps.iter().filter(|s| s.status == st).count();
    for s in steps.iter().filter(|s| s.status == "refused") {
        log.note(format!(
            "refused {} #{}: {}",
            s.op.as_str(),
            s.id,
            s.reason.as_deref().unwrap_or("")
        ));
    }
    let n = |op: Op| {
        steps
            .iter()
            .filter(|s| s.op == op && s.status == "planned")
            .count()
    };
    let tags_planned: Vec<&str> = tag_steps
        .iter()
        .filter(|t| t.status == "planned")
        .map(|t| t.name.as_str())
        .collect();
    if !args.yes {
        for s in &steps {
            write_obj(out, &s.record(&args.tag))?;
        }
        for t in &tag_steps {
            write_obj(out, &t.record())?;
        }
        log.note(format!(
            "undo plan: restore {} from the trash, remove the tag from {}, delete {} notes{}; {} skipped, {} refused; nothing changed (add --yes to apply)",
            n(Op::Restore),
            n(Op::Untag),
            n(Op::Unnote),
            deleted_tags(&tags_planned, "delete"),
            count(&steps, "skipped"),
            count(&steps, "refused")
        ));
        return refused_exit(count(&steps, "refused"));
    }
    let mut journal = Journal::open(journal_path)?;
    let mut run = Map::new();
    run.insert("op".into(), "run".into());
    run.insert("mode".into(), "undo".into());
    run.insert("server".into(), client.base().into());
    run.insert("release".into(), json!(client.server().release));
    journal.write(run)?;
    // Found undone already: journaled as undone, so that the journal no longer holds the
    // change in force and a later run does not skip the document as done. When the journal
    // shows our own request started (a resumed undo whose request landed before the run
    // stopped), the change is ours and so is `modified`; otherwise (a change by hand) it is
    // marked `found` and carries no `modified`, so a later run refuses the edited document.
    for s in steps.iter().filter(|s| s.status == "skipped") {
        let extra = match live.get(&s.id) {
            Some(d) if history.result(s.op, s.id) == Some("started") => {
                vec![("modified", json!(d.modified))]
            }
            _ => vec![("found", json!(true))],
        };
        journal.write(step_journal(s, "ok", &args.tag, &extra))?;
    }
    let mut failed = None;
    // One request per batch of the same operation (and tag).
    let mut keys: Vec<(Op, Option<u64>)> = steps
        .iter()
        .filter(|s| s.status == "planned")
        .map(|s| (s.op, s.tag_id))
        .collect();
    keys.dedup();
    'outer: for (op, tag_id) in keys {
        let idx: Vec<usize> = (0..steps.len())
            .filter(|&i| {
                steps[i].status == "planned" && steps[i].op == op && steps[i].tag_id == tag_id
            })
            .collect();
        for batch in idx.chunks(args.batch as usize) {
            let ids: Vec<u64> = batch.iter().map(|&i| steps[i].id).collect();
            for &i in batch {
                journal.write(step_journal(&steps[i], "started", &args.tag, &[]))?;
            }
            journal.sync()?;
            // Notes go one request per document; a note deleted by hand meanwhile is fine.
            let mut handled: BTreeSet<usize> = BTreeSet::new();
            let mut gone: BTreeSet<usize> = BTreeSet::new();
            let r = match op {
                Op::Restore => client.restore(&ids),
                Op::Untag => client.remove_tag(&ids, tag_id.expect("checked")),
                _ => batch.iter().try_for_each(|&i| {
                    match client.delete_note(steps[i].id, steps[i].note_id.expect("checked")) {
                        Err(pl_paperless::Error::NotFound { .. }) => {
                            gone.insert(i);
                        }
                        r => r?,
                    }
                    handled.insert(i);
                    Ok(())
                }),
            };
            let landed: Vec<u64> = batch
                .iter()
                .filter(|i| r.is_ok() || handled.contains(i))
                .map(|&i| steps[i].id)
                .collect();
            let after = if landed.is_empty() {
                BTreeMap::new()
            } else {
                client.doc_states(&landed)?
            };
            let error = r.as_ref().err().map(ToString::to_string);
            for &i in batch {
                let s = &mut steps[i];
                if error.is_none() || handled.contains(&i) {
                    if gone.contains(&i) {
                        s.status = "skipped";
                        s.reason = Some("the note is gone already".into());
                    } else {
                        s.status = "done";
                    }
                    let mut extra = vec![];
                    if let Some(d) = after.get(&s.id) {
                        extra.push(("modified", json!(d.modified)));
                    }
                    journal.write(step_journal(s, "ok", &args.tag, &extra))?;
                } else {
                    record_failure(
                        &mut journal,
                        s,
                        &args.tag,
                        error.clone().unwrap_or_default(),
                    )?;
                }
            }
            journal.sync()?;
            if let Err(e) = r {
                failed = Some(anyhow!(e).context(format!(
                    "{} of documents {ids:?} failed (run the undo again to resume)",
                    op.as_str()
                )));
                break 'outer;
            }
        }
    }
    // The tags last, after every document's tag came off; asked again, as others may have
    // tagged documents since the plan.
    for t in tag_steps.iter_mut().filter(|t| t.status == "planned") {
        if failed.is_some() {
            t.skip("not tried: an earlier request failed".into());
            continue;
        }
        let keep = client.tagged(t.tag_id)?;
        if !keep.is_empty() {
            t.skip(carried_by(&keep.into_iter().collect::<Vec<_>>()));
            continue;
        }
        journal.write(t.journal("started"))?;
        journal.sync()?;
        match client.delete_tag(t.tag_id) {
            Ok(()) => t.status = "done",
            Err(pl_paperless::Error::NotFound { .. }) => t.skip("the tag is gone already".into()),
            Err(e) => {
                t.status = "failed";
                t.reason = Some(e.to_string());
                journal.write(t.journal("failed"))?;
                failed = Some(anyhow!(e).context(format!(
                    "deleting the tag {:?} failed (run the undo again to resume)",
                    t.name
                )));
                continue;
            }
        }
        journal.write(t.journal("ok"))?;
        journal.sync()?;
    }
    for s in &steps {
        write_obj(out, &s.record(&args.tag))?;
    }
    for t in &tag_steps {
        write_obj(out, &t.record())?;
    }
    let done = |op: Op| {
        steps
            .iter()
            .filter(|s| s.op == op && s.status == "done")
            .count()
    };
    let tags_done: Vec<&str> = tag_steps
        .iter()
        .filter(|t| t.status == "done")
        .map(|t| t.name.as_str())
        .collect();
    log.note(format!(
        "restored {}, untagged {}, notes deleted {}{}, {} skipped, {} refused, {} failed; journal {}",
        done(Op::Restore),
        done(Op::Untag),
        done(Op::Unnote),
        deleted_tags(&tags_done, "deleted"),
        count(&steps, "skipped"),
        count(&steps, "refused"),
        count(&steps, "failed"),
        journal_path.display()
    ));
    match failed {
        Some(e) => Err(e),
        None => refused_exit(count(&steps, "refused")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(lines: &[&str]) -> History {
        let dir = std::env::temp_dir().join(format!("pl-apply-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("j{}.ndjson", lines.len()));
        std::fs::write(&p, lines.join("\n")).unwrap();
        let h = Journal::read(&p).unwrap();
        let _ = std::fs::remove_file(&p);
        h
    }

    #[test]
    fn journal_folds_to_what_is_in_force() {
        let h = hist(&[
            r#"{"op":"run","mode":"tag"}"#,
            r#"{"op":"tag","id":5,"result":"started"}"#,
            r#"{"op":"tag","id":5,"result":"ok","modified":"2026-01-01T00:00:00Z"}"#,
            r#"{"op":"tag","id":6,"result":"already"}"#,
            r#"{"op":"tag","id":7,"result":"started"}"#,
            r#"{"op":"trash","id":8,"result":"ok"}"#,
            r#"{"op":"restore","id":8,"result":"ok"}"#,
            r#"{"op":"tag","id":9,"res"#,
        ]);
        assert!(h.in_force(Op::Tag, 5));
        assert!(h.in_force(Op::Tag, 6));
        assert!(!h.in_force(Op::Tag, 7));
        assert_eq!(h.result(Op::Tag, 7), Some("started"));
        assert!(!h.in_force(Op::Trash, 8), "restored since");
        assert_eq!(h.own_modified[&5], "2026-01-01T00:00:00Z");
        assert_eq!(
            h.result(Op::Tag, 9),
            None,
            "a cut last line records nothing"
        );
    }

    #[test]
    fn a_damaged_line_before_others_is_refused() {
        let dir = std::env::temp_dir().join(format!("pl-apply-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("damaged.ndjson");
        std::fs::write(
            &p,
            "{\"op\":\"tag\",\"id\":5,\"result\":\"ok\"}\n{\"op\":\"trash\",\"id\n{\"op\":\"tag\",\"id\":6,\"result\":\"ok\"}\n",
        )
        .unwrap();
        let e = format!("{:#}", Journal::read(&p).unwrap_err());
        let _ = std::fs::remove_file(&p);
        assert!(e.contains("line 2") && e.contains("damaged"), "{e}");
    }
}
