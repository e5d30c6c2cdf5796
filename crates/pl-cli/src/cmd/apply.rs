//! pl-apply: review decisions (or groups over a confidence) → tags or the trash (and notes,
//! "Duplicate of" links) in Paperless-NGX, planned first, journaled, resumable, undoable.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use clap::Parser;
use pl_core::decision::{at_least, check_consistent, keep_duplicates, Decision, InputKind};
use pl_paperless::writeback::{
    count, ApplyOptions, ApplyPlan, History, Journal, Live, Status, Step, UndoPlan, UndoRun,
};
use pl_paperless::Client;
use serde_json::Value;

use crate::common::{numbers, Log, OutputFlags, Refused, ServerFlags, UsageError};
use crate::sides::read_field;
use pl_pipeline::io::{create_output, open_input, Output};
use pl_pipeline::ndjson::{write_obj, NdjsonReader};

/// pl-apply's words for `-o` (its flag is [`OutputFlags`]'s).
const OUTPUT_HELP: &str = "Write the plan records to this file instead of stdout";
/// pl-apply's words for `-v`.
const VERBOSE_HELP: &str = "Print server details and timings on stderr";

/// Apply review decisions to Paperless-NGX: the non-primary members of every group decided
/// "duplicate" get a tag (default `duplicate`, created when missing), or with --delete are
/// moved to the Paperless trash (restorable there). Without --yes nothing is changed: the plan
/// is printed, one NDJSON record per document on stdout, and a summary on stderr. --note and
/// --link FIELD also point each of them to its primary, in a note and in a document-link
/// custom field that Paperless shows on both documents.
///
/// Safety rules: a primary is never touched (nor any document that is the primary of some
/// group), but for the link Paperless mirrors on it with --link; a document whose `modified` in Paperless is newer than when it was scored (the
/// decisions' `modified`, or --docs) is refused, and so is every member of a group whose
/// primary changed or is gone; a document the token's user may not change (Paperless's
/// `user_can_change` false, asked before planning, or a 403 to it alone) is refused, one line
/// each, and counted in the summary; every change is written to a journal (NDJSON) before and after
/// it is made, so a re-run skips what is done, an interrupted run resumes, and
/// `--undo JOURNAL` removes the tags, notes and links it added and restores what it trashed. A
/// request whose answer was not seen (a timeout, a 5xx) is checked against the server: what
/// landed is journaled ok, the rest "unknown" (exit 1), read again by a re-run or an undo
/// before acting. A note is never sent again before the document's notes show it missing.
///
/// Input: a decisions file (pl-report), or pl-cluster groups with --min-confidence X (every
/// group at or over X counts as decided "duplicate", with its primary) and --docs.
///
/// Server and token as for pl-fetch: PAPERLESS_URL (or --url), PAPERLESS_TOKEN or
/// --token-file; the token is never accepted on the command line, printed or written.
#[derive(Debug, Parser)]
#[command(name = "pl-apply", version)]
#[command(mut_args(|a| OutputFlags::reword(a, OUTPUT_HELP, VERBOSE_HELP)))]
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
    /// Also link each non-primary member to its primary through the document-link custom
    /// field FIELD (created when missing): the primary's id is added to the member's value of
    /// it, every other custom field kept as it is; Paperless shows the link on both documents.
    /// --undo takes out only the links it added (the field itself stays).
    #[arg(long, value_name = "FIELD")]
    pub link: Option<String>,
    /// Do it. Without --yes the plan is printed and nothing changes.
    #[arg(long)]
    pub yes: bool,
    /// Journal file, appended to (default: INPUT.journal.ndjson; required with stdin).
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Undo what this journal records as done, or as unknown, as the server shows it: remove
    /// the tags, notes and links added (every note of ours, found by its text; a link's
    /// custom field entry put back as it was before), restore from the
    /// trash; then read the server back, take back again what landed late, and exit 1 naming
    /// what still differs from before the run. Planned first like everything else; needs --yes
    /// to act.
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = ["input", "min_confidence", "docs", "delete", "note", "link"])]
    pub undo: Option<PathBuf>,
    /// With --undo: how long after a request whose outcome was not seen (the journal's, or
    /// the undo's own) to read the server back and take back again what landed late; the undo
    /// waits only when such a request is younger than this. A request that reaches the server
    /// later still lands after the undo: raise it after a run whose answers were lost.
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = numbers::seconds, requires = "undo")]
    pub settle: f64,
    /// Documents per write request.
    #[arg(long, default_value_t = 50, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub batch: u32,
    /// API version to ask for (9 works on 2.15+ and 3.x; a server offering another is followed).
    #[arg(long, default_value_t = 9, value_name = "N")]
    pub api_version: u32,
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub out: OutputFlags,
}

/// The run's end: the request that failed (exit 1), else exit 3 when any document was refused
/// (the plan and summary name them), 0 otherwise.
fn outcome(failed: Option<pl_paperless::Error>, steps: &[Step]) -> Result<()> {
    if let Some(e) = failed {
        return Err(e.into());
    }
    let refused = count(steps, Status::Refused);
    if refused == 0 {
        return Ok(());
    }
    Err(Refused(format!(
        "{refused} documents refused (exit 3): see the records with \"status\":\"refused\""
    ))
    .into())
}

/// The input's records as decisions, each with its line.
struct Records {
    name: String,
    read: Vec<(u64, Decision)>,
    /// Whether they were groups (which carry no `modified`).
    groups_seen: bool,
}

/// Reads the input's records: decisions, or groups over --min-confidence as "duplicate"
/// decisions.
fn read_records(args: &Args) -> Result<Records> {
    let input = open_input(args.input.as_deref())?;
    let name = input.name.clone();
    let mut reader = NdjsonReader::new(input, false);
    let mut read = Vec::new();
    let mut groups_seen = false;
    let mut decisions_seen = false;
    while let Some((kind, d)) = reader
        .next_with(|o| Decision::from_input(&o, args.min_confidence).map_err(|e| e.to_string()))?
    {
        match kind {
            InputKind::Decision => decisions_seen = true,
            InputKind::Group => groups_seen = true,
        }
        if let Some(d) = d {
            read.push((reader.line(), d));
        }
    }
    if groups_seen && decisions_seen {
        return Err(anyhow!("{name}: mixes decisions and groups"));
    }
    Ok(Records {
        name,
        read,
        groups_seen,
    })
}

/// The "duplicate" decisions to act on, checked, with `modified` gaps filled from --docs.
fn read_input(args: &Args, log: &Log) -> Result<(String, Vec<Decision>)> {
    let Records {
        name,
        read,
        groups_seen,
    } = read_records(args)?;
    // Contradictions are refused before anything is planned, let alone written.
    check_consistent(&read).map_err(|msg| anyhow!("{name}: {msg}"))?;
    let mut out = at_least(read, args.min_confidence);
    if groups_seen && args.docs.is_none() {
        return Err(UsageError(
            "groups carry no `modified`: pass --docs FILE (the docs they were scored from)".into(),
        )
        .into());
    }
    if let Some(p) = &args.docs {
        let wanted = out.iter().flat_map(|d| d.members.iter().copied()).collect();
        let modified = read_field(p, Some(&wanted), |d| {
            Ok(d.modified().and_then(Value::as_str).map(str::to_owned))
        })?;
        for d in &mut out {
            d.fill_modified(|id| modified.get(&id).cloned().flatten());
        }
    }
    let skipped = keep_duplicates(&mut out);
    if skipped > 0 {
        log.info(format!(
            "{skipped} groups decided not duplicates or ignored: left alone"
        ));
    }
    Ok((name, out))
}

/// The journal: --undo's, --journal, or INPUT.journal.ndjson.
fn journal_path(args: &Args) -> Result<PathBuf> {
    let beside = || args.input.as_deref().and_then(Journal::beside);
    let path = args.undo.clone().or_else(|| args.journal.clone());
    path.or_else(beside).ok_or_else(|| {
        UsageError("reading stdin: name the journal with --journal FILE".into()).into()
    })
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::plain_log("pl-apply", &args.out);
    if let Some(m) = args.min_confidence {
        if !(0.0..=1.0).contains(&m) {
            return Err(UsageError("--min-confidence must be within 0 and 1".into()).into());
        }
    }
    if args.tag.trim().is_empty() {
        return Err(UsageError("--tag must not be empty".into()).into());
    }
    if args.link.as_deref().is_some_and(|f| f.trim().is_empty()) {
        return Err(UsageError("--link must name a custom field".into()).into());
    }
    let journal_path = journal_path(&args)?;
    // The plan renamed over the journal would lose what undo needs.
    pl_pipeline::io::refuse_same_file(
        ("-o", args.out.output.as_deref()),
        ("the journal", Some(&journal_path)),
    )?;
    let history = Journal::read(&journal_path)?;
    let client = args
        .server
        .client("pl-apply", args.api_version, args.out.quiet)?;
    let mut out = create_output(args.out.output.as_deref())?;
    let run = Run {
        args: &args,
        client: &client,
        history: &history,
        journal_path: &journal_path,
        log: &log,
    };
    let result = if args.undo.is_some() {
        undo(&run, &mut out)
    } else {
        apply(&run, &mut out)
    };
    out.finish()?;
    result
}

/// With --yes, carries a plan out in batches of --batch, journaled, with a bar over its
/// `planned` changes on a terminal: the request that failed, if one did. Without it,
/// nothing (the plan is only printed).
fn with_yes(
    run: &Run,
    planned: u64,
    carry_out: impl FnOnce(&mut Journal, usize) -> pl_paperless::Result<Option<pl_paperless::Error>>,
) -> Result<Option<pl_paperless::Error>> {
    if !run.args.yes {
        return Ok(None);
    }
    let mut journal = Journal::open(run.journal_path)?;
    let bar = run.log.bar("changes", planned);
    let pb = bar.clone();
    journal.on_settled(move |n| pb.inc(n));
    let failed = carry_out(&mut journal, run.args.batch as usize);
    bar.finish_and_clear();
    Ok(failed?)
}

/// How many of `steps` are to be done.
fn planned(steps: &[Step]) -> u64 {
    steps.iter().filter(|s| s.status == Status::Planned).count() as u64
}

/// What an apply and an undo work with.
struct Run<'a> {
    args: &'a Args,
    client: &'a Client,
    /// The journal's earlier runs.
    history: &'a History,
    journal_path: &'a Path,
    log: &'a Log,
}

/// Checks, plans and (with --yes) carries out the decisions.
fn apply(run: &Run, out: &mut Output) -> Result<()> {
    let Run {
        args,
        client,
        history,
        journal_path,
        log,
    } = *run;
    let (input_name, decisions) = read_input(args, log)?;
    let live = Live::fetch(client, &decisions)?;
    log.info(format!(
        "server {} (API {}), {} decisions, {} documents",
        client.server().release.as_deref().unwrap_or("?"),
        client.api_version(),
        decisions.len(),
        live.ids.len()
    ));
    let opts = ApplyOptions {
        tag: args.tag.clone(),
        delete: args.delete,
        note: args.note,
        link: args.link.clone(),
    };
    let mut plan = ApplyPlan::new(client, &decisions, history, live, opts)?;
    let refused = plan.refusals();
    refused.iter().for_each(|r| log.note(r));
    let failed = with_yes(run, planned(&plan.steps), |journal, batch| {
        plan.carry_out(client, history, journal, &input_name, batch)
    })?;
    // Refused while carried out: the server answered 403 to the document alone.
    for r in plan.refusals().into_iter().filter(|r| !refused.contains(r)) {
        log.note(r);
    }
    for s in &plan.steps {
        write_obj(out, &s.record(&args.tag))?;
    }
    if !args.yes {
        log.note(plan.summary());
    } else {
        log.note(plan.done_summary(journal_path));
        if let Some(method) = plan.deleted_with() {
            log.info(format!("deleted with {method}"));
        }
    }
    outcome(failed, &plan.steps)
}

/// Plans and (with --yes) undoes what the journal records as done.
fn undo(run: &Run, out: &mut Output) -> Result<()> {
    let tag = &run.args.tag;
    let mut plan = UndoPlan::new(run.client, run.history, run.journal_path)?;
    plan.refusals().into_iter().for_each(|r| run.log.note(r));
    let wait = |msg: &str| run.log.note(msg);
    let failed = with_yes(run, planned(&plan.steps), |journal, batch| {
        let undo_run = UndoRun {
            batch,
            tag,
            settle: std::time::Duration::from_secs_f64(run.args.settle),
            wait: &wait,
        };
        plan.carry_out(run.client, run.history, journal, undo_run)
    })?;
    for r in plan.records(tag) {
        write_obj(out, &r)?;
    }
    run.log.note(if run.args.yes {
        plan.done_summary(run.journal_path)
    } else {
        plan.summary()
    });
    if failed.is_none() && !plan.unconfirmed.is_empty() {
        return Err(anyhow!(
            "the undo could not confirm the state before the run: {} (run the undo again; the journal {} has what was done)",
            plan.unconfirmed.join("; "),
            run.journal_path.display()
        ));
    }
    outcome(failed, &plan.steps)
}
