//! pl-watch: Paperless-NGX's workflow webhooks → each named document checked against the
//! persistent index held open, added to it, and tagged and noted when it has near-copies.

mod http;

use pl_pipeline::index::NearDuplicate;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use pl_paperless::lookup::Lookups;
use pl_paperless::{Client, Error as ApiError};
use pl_pipeline::inbox::{Entry, Inbox};
use pl_pipeline::index::{Access, Index, Pruned};

use crate::common::{Log, OutputFlags, ServerFlags, UsageError};
use http::Shared;

/// pl-watch's words for `-o` (its flag is [`OutputFlags`]'s).
const OUTPUT_HELP: &str = "Append one record per document processed to this file, flushed at once: {\"id\", \"duplicates\": [ids], \"tagged\", \"noted\", \"received\", \"done\"} (times in Unix milliseconds); a log for programs";
/// pl-watch's words for `-v`.
const VERBOSE_HELP: &str = "Also print each request answered, and timings";

/// Receive Paperless-NGX's workflow webhooks and check each document they name against the
/// persistent index of pl-index, held open between documents: POST /webhook with the header
/// X-PL-Secret and the body {"doc_id": "{{doc_id}}"} (or {"doc_url": "{{doc_url}}"}) queues
/// the document in the index folder's inbox (watch.sqlite) before it is answered (202); a
/// worker then fetches it from Paperless (PAPERLESS_URL, PAPERLESS_TOKEN or its alias
/// PAPERLESS_API_TOKEN, or --token-file), checks it and adds it to the index (as pl-check
/// --add), and when it has near-copies adds the tag (--tag) and a note naming and linking the
/// originals, as the consume hook does, and with --link FIELD links it to them through that
/// document-link custom field (as pl-apply --link does). The lists of tags, correspondents and document types
/// are kept between documents: fetched again when a document names one they lack, when the
/// server refuses the tag's id (deleted: made again), and once a minute (renames).
/// A document updated (Document Updated) is checked again, its text replaced in the index.
/// Owners: a document's near-copies are its owner's documents only (--across-owners: any
/// owner's), and a document the token's user may not change (Paperless's
/// `user_can_change` false) is checked and indexed but neither tagged nor noted, which the
/// log says.
/// Deletions: at the start and every --sync-every seconds the worker lists every document id
/// Paperless has, and takes the indexed documents it lacks out of the index (deleted in
/// Paperless, they match nothing any more); a listing that fails or changes while it is read
/// removes nothing (logged, tried at the next sync), nor one that would remove more than half
/// of the index. A document the server refuses for good (403, 404, 400 on the document or its
/// write-back) is dropped from the inbox in one log line; a server that fails (5xx, no
/// answer) keeps it, tried again after a pause.
/// GET /health answers {"status":"ok","queue":N}. Nothing is deleted in Paperless. A wrong or missing
/// secret is refused (401), a body over --max-body-kb too (413), a body naming no document
/// (400). SIGTERM or SIGINT: no new request is taken, the document being processed is
/// finished, exit 0; the inbox keeps the others for the next start, which processes them
/// first (a kill -9 loses nothing either). While it runs it holds the index's writers' lock:
/// a consume hook's pl-check --add --wait then checks and queues its document in queue/,
/// which pl-watch adds with its next document.
#[derive(Debug, Parser)]
#[command(name = "pl-watch", version)]
#[command(mut_args(|a| OutputFlags::reword(a, OUTPUT_HELP, VERBOSE_HELP)))]
pub struct Args {
    /// The index folder (pl-index --index); the inbox is kept in it.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Where to listen, HOST:PORT. Paperless must reach it; keep it off the internet (a
    /// private network, or 127.0.0.1 when Paperless runs on the same host).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    pub listen: String,
    /// Read the shared secret (the X-PL-Secret header's value) from the first line of this
    /// file instead of PL_WATCH_SECRET; never on a command line.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    /// The tag a document with near-copies gets (created when missing).
    #[arg(long, value_name = "NAME", default_value = "possible-duplicate")]
    pub tag: String,
    /// Also link a document with near-copies to its originals through the document-link
    /// custom field FIELD (created when missing), as pl-apply --link links a copy to its
    /// primary: the originals' ids are added to the document's value of it, every other custom
    /// field kept as it is; Paperless shows the link on both documents. Only originals that
    /// still exist are linked; a link there already is not added again.
    #[arg(long, env = "PL_LINK_FIELD", value_name = "FIELD")]
    pub link: Option<String>,
    /// Report and tag near-copies of other owners too (the documents' `owner`; no owner is an
    /// owner of its own). By default a document's near-copies are its owner's documents only,
    /// as pl-check's; how many were left out is logged.
    #[arg(long)]
    pub across_owners: bool,
    /// The Paperless address people open, for the links in the notes (default: PAPERLESS_URL).
    #[arg(long, env = "PL_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// Largest webhook body, in KiB (a larger one is refused, 413).
    #[arg(long, value_name = "KB", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_body_kb: u64,
    /// Requests handled at once; more connections wait, and past a backlog of four times as
    /// many they are refused (503).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub handlers: u64,
    /// Seconds between two syncs (the first at the start): every document id Paperless still
    /// has is listed, and the indexed documents it lacks (deleted in Paperless) are taken out
    /// of the index. 0: no sync.
    #[arg(long, env = "PL_SYNC_EVERY", value_name = "SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub sync_every: u64,
    /// Document ids per request of the sync's listing (API version 9 sends them all with the
    /// first answer). The server allows up to 100000.
    #[arg(long, value_name = "N", default_value_t = pl_paperless::api::MAX_PAGE_SIZE,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub page_size: u32,
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub out: OutputFlags,
}

/// Runs the service until SIGTERM or SIGINT.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::plain_log("pl-watch", &args.out);
    if args.link.as_deref().is_some_and(|f| f.trim().is_empty()) {
        return Err(UsageError("--link must name a custom field".into()).into());
    }
    let secret = read_secret(&args)?;
    let client = args.server.client("pl-watch", 9, args.out.quiet)?;
    let public = match &args.public_url {
        Some(u) => pl_paperless::client::normalize_base(u).context("--public-url")?,
        None => client.base().to_string(),
    };
    let same = |p: &pl_pipeline::index::Params| p.clone();
    if !args.index.join(pl_pipeline::index::DB_FILE).is_file() {
        // No index: its refusal, before anything is made in the folder.
        Index::open(&args.index, &same, Access::Write, &log)?;
    }
    let inbox = Inbox::open(&args.index)?;
    let waiting = inbox.recover()?;
    let shared = Arc::new(Shared::new());
    // Listening before the index is opened: while another writer (a cron pl-index) holds its
    // lock, webhooks are still received and kept in the inbox.
    let addr = http::serve(&args, secret, &args.index, Arc::clone(&shared), &log)?;
    log.note(format!(
        "listening on http://{addr}/ (POST /webhook, GET /health); index {}; {} waiting",
        args.index.display(),
        crate::common::count(waiting, "document")
    ));
    let index = Index::open(&args.index, &same, Access::Write, &log)?;
    let mut worker = Worker {
        index,
        client,
        lookups: Lookups::default(),
        inbox,
        tag: args.tag.clone(),
        link: args.link.clone(),
        link_field: None,
        across_owners: args.across_owners,
        sync_every: (args.sync_every > 0).then(|| Duration::from_secs(args.sync_every)),
        next_sync: Instant::now(),
        page_size: args.page_size,
        public,
        log: log.clone(),
        out: args.out.output.as_deref().map(open_append).transpose()?,
    };
    worker.drain(&shared)?;
    log.note(format!(
        "stopped: {} left in the inbox for the next start",
        crate::common::count(worker.inbox.len()?, "document")
    ));
    Ok(())
}

/// The shared secret from --secret-file (first line) or PL_WATCH_SECRET; an empty one is
/// refused.
fn read_secret(args: &Args) -> Result<Vec<u8>> {
    let s = match &args.secret_file {
        Some(p) => std::fs::read_to_string(p)
            .with_context(|| format!("{}: cannot read the secret file", p.display()))?
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        None => std::env::var("PL_WATCH_SECRET").unwrap_or_default(),
    };
    if s.is_empty() {
        return Err(UsageError(
            "no shared secret: set PL_WATCH_SECRET or pass --secret-file (never an argument)"
                .into(),
        )
        .into());
    }
    Ok(s.into_bytes())
}

/// A document processed: its near-duplicates (ids, best first), and whether it was tagged
/// and a note added.
struct Outcome {
    duplicates: Vec<u64>,
    tagged: bool,
    noted: bool,
}

/// The worker: the index held open, the client and the lookups it keeps across documents,
/// the inbox, the -o file.
struct Worker {
    index: Index,
    client: Client,
    lookups: Lookups,
    inbox: Inbox,
    tag: String,
    /// --link's field name, and its id once looked up.
    link: Option<String>,
    link_field: Option<u64>,
    across_owners: bool,
    /// --sync-every (`None`: 0, no sync), when the next is due, --page-size.
    sync_every: Option<Duration>,
    next_sync: Instant,
    page_size: u32,
    public: String,
    log: Log,
    out: Option<std::fs::File>,
}

/// What became of a document's turn.
enum Turn {
    /// Processed (or dropped, said why: `None`): out of the inbox.
    Done(Option<Outcome>),
    /// The server failed: it waits again, tried after a pause.
    Again,
}

impl Worker {
    /// Processes the inbox in order until asked to stop; a document being processed is
    /// finished first.
    fn drain(&mut self, shared: &Shared) -> Result<()> {
        let mut pause = Duration::ZERO;
        while !shared.stopping() {
            if self.sync_every.is_some() && Instant::now() >= self.next_sync {
                self.sync()?;
            }
            let Some(e) = self.inbox.take()? else {
                shared.wait(Duration::from_secs(1));
                continue;
            };
            match self.process(e)? {
                Turn::Done(outcome) => {
                    if let Some(o) = outcome {
                        self.write_record(&e, &o)?;
                    }
                    self.inbox.done(e.seq)?;
                    pause = Duration::ZERO;
                }
                Turn::Again => {
                    self.inbox.put_back(e.seq)?;
                    pause = (pause * 2).clamp(Duration::from_secs(1), Duration::from_secs(60));
                    shared.wait(pause);
                }
            }
        }
        Ok(())
    }

    /// The sync: every document id Paperless has listed, and the indexed documents it lacks
    /// taken out of the index. Between two documents, on the worker: it never races one. A
    /// listing that fails removes nothing (one line; the next sync tries again).
    fn sync(&mut self) -> Result<()> {
        let every = self.sync_every.unwrap_or_default();
        let started = Instant::now();
        self.next_sync = started + every;
        let next = format!("tried again in {} s", every.as_secs());
        let listed = match self.client.whole_document_ids(self.page_size) {
            Ok(ids) => ids,
            Err(err) => {
                self.log.note(format!(
                    "sync: listing the documents failed: {err}: nothing removed from the index, {next}"
                ));
                return Ok(());
            }
        };
        let took = || format!("{:.2} s", started.elapsed().as_secs_f64());
        match self.index.prune(&listed, &self.log)? {
            Pruned::Deleted(gone, _) if gone.is_empty() => self.log.info(format!(
                "sync: {} listed, none gone from the index ({})",
                crate::common::count(listed.len() as u64, "document"),
                took()
            )),
            Pruned::Deleted(gone, s) => self.log.note(format!(
                "sync: {} no longer in Paperless taken out of the index ({}); {} groups ({})",
                crate::common::count(gone.len() as u64, "document"),
                some_ids(&gone),
                s.groups,
                took()
            )),
            Pruned::Refused { gone, stored } => self.log.note(format!(
                "sync: Paperless lists {} documents, which would take {gone} of the index's {stored} out (more than half): nothing removed (a token that sees fewer documents? if the library really lost them, build the index again with pl-index), {next}",
                listed.len()
            )),
        }
        Ok(())
    }

    /// One document: fetched, checked and added, tagged and noted when it has near-copies.
    fn process(&mut self, e: Entry) -> Result<Turn> {
        let id = e.id;
        let mut steps = Steps::new(unix_ms() - e.received);
        let rec = match self.lookups.record(&self.client, id) {
            Ok(r) => r,
            Err(err) if err.refused_for_good() => {
                self.log
                    .note(format!("document {id}: {err}: dropped from the inbox"));
                return Ok(Turn::Done(None));
            }
            Err(err) => {
                self.log
                    .note(format!("document {id}: {err}: kept, tried again"));
                return Ok(Turn::Again);
            }
        };
        steps.lap("fetch");
        let line = String::from_utf8_lossy(&rec.line).into_owned();
        let name = format!("document {id}");
        let c = crate::cmd::check::check_and_add_one(
            &mut self.index,
            &name,
            &line,
            self.across_owners,
            &self.log,
        )?;
        steps.lap("check and add");
        steps
            .detail
            .extend([("queue/", c.queued), ("check", c.check), ("add", c.add)]);
        if c.dups.is_empty() || !c.may_change {
            return Ok(self.unwritten(id, &c.dups, &steps));
        }
        let pairs: Vec<(u64, f64)> = c.dups.iter().map(|d| (d.id, d.pair.score)).collect();
        let ids: Vec<String> = pairs.iter().map(|(d, _)| d.to_string()).collect();
        let flagged = pl_paperless::flag::flag(
            &self.client,
            &mut self.lookups,
            id,
            &pairs,
            &self.tag,
            &self.public,
        )
        .and_then(|f| Ok((f, self.link_originals(id, &pairs)?)));
        match flagged {
            Ok((f, linked)) => {
                steps.lap("write-back");
                steps.detail.extend(f.steps.iter().copied());
                let noted = if f.noted {
                    "noted"
                } else {
                    "its note was there already"
                };
                self.log.note(format!(
                    "document {id}: {} ({}): tagged {}, {noted}{linked} ({})",
                    crate::common::count(pairs.len() as u64, "near-duplicate"),
                    ids.join(", "),
                    self.tag,
                    steps.total()
                ));
                self.log.info(format!("document {id}: {}", steps.detail()));
                Ok(Turn::Done(Some(Outcome {
                    duplicates: pairs.iter().map(|(d, _)| *d).collect(),
                    tagged: true,
                    noted: f.noted,
                })))
            }
            Err(err) => Ok(self.unflagged(id, &err)),
        }
    }

    /// The write-back of document `id` failed with `err`: when the
    /// server refused it for good (403, 404, 400: asking again gets the same answer) the
    /// document is dropped from the inbox, said once; else it waits to be tried again.
    fn unflagged(&self, id: u64, err: &ApiError) -> Turn {
        if !err.refused_for_good() {
            self.log.note(format!(
                "document {id}: checked and indexed, but tagging failed: {err}: kept, tried again"
            ));
            return Turn::Again;
        }
        self.log.note(format!(
            "document {id}: checked and indexed, but Paperless refused the write-back: {err}: dropped from the inbox, not tried again"
        ));
        // No -o record: what landed before the refusal is not known (the log says why).
        Turn::Done(None)
    }

    /// --link: document `id` linked to its originals (`pairs`' ids); the log's words for it
    /// ("" without --link).
    fn link_originals(&mut self, id: u64, pairs: &[(u64, f64)]) -> Result<String, ApiError> {
        let Some(name) = &self.link else {
            return Ok(String::new());
        };
        let originals: Vec<u64> = pairs.iter().map(|(d, _)| *d).collect();
        let l = pl_paperless::flag::link(&self.client, &mut self.link_field, name, id, &originals)?;
        let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let mut words = if l.added.is_empty() {
            format!(", linked through {name:?} already")
        } else {
            format!(", linked to {} through {name:?}", list(&l.added))
        };
        if !l.missing.is_empty() {
            words += &format!(" (not to {}: not on the server)", list(&l.missing));
        }
        Ok(words)
    }

    /// A document processed that nothing is written to: it has no near-duplicate, or the
    /// token's user may not change it (said, with its near-duplicates).
    fn unwritten(&self, id: u64, dups: &[NearDuplicate], steps: &Steps) -> Turn {
        if dups.is_empty() {
            self.log.note(format!(
                "document {id}: no near-duplicate ({})",
                steps.total()
            ));
        } else {
            let ids: Vec<String> = dups.iter().map(|d| d.id.to_string()).collect();
            self.log.note(format!(
                "document {id}: {} ({}): not tagged or noted: the token's user may not change it (Paperless: user_can_change false) ({})",
                crate::common::count(dups.len() as u64, "near-duplicate"),
                ids.join(", "),
                steps.total()
            ));
        }
        self.log.info(format!("document {id}: {}", steps.detail()));
        Turn::Done(Some(Outcome {
            duplicates: dups.iter().map(|d| d.id).collect(),
            tagged: false,
            noted: false,
        }))
    }

    /// -o: the document's record, appended and flushed.
    fn write_record(&mut self, e: &Entry, o: &Outcome) -> Result<()> {
        let Some(f) = self.out.as_mut() else {
            return Ok(());
        };
        let done = unix_ms();
        let rec = serde_json::json!({"id": e.id, "duplicates": o.duplicates, "tagged": o.tagged,
                                     "noted": o.noted, "received": e.received, "done": done});
        use std::io::Write;
        f.write_all(format!("{rec}\n").as_bytes())
            .and_then(|()| f.flush())
            .context("-o: write failed")
    }
}

/// Up to ten ids, then how many more: "3, 8, 12" or "1, 2, ..., 10 and 5 more".
fn some_ids(ids: &[u64]) -> String {
    let shown: Vec<String> = ids.iter().take(10).map(u64::to_string).collect();
    match ids.len().saturating_sub(10) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Now, in Unix milliseconds.
fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Where a document's time went: the wait in the inbox, then each step (the log line's
/// "fetch, check and add, write-back"), and with -v each step's parts.
struct Steps {
    waited_ms: i64,
    started: Instant,
    at: Instant,
    laps: Vec<(&'static str, Duration)>,
    detail: Vec<(&'static str, Duration)>,
}

impl Steps {
    fn new(waited_ms: i64) -> Steps {
        let now = Instant::now();
        Steps {
            waited_ms: waited_ms.max(0),
            started: now,
            at: now,
            laps: Vec::new(),
            detail: Vec::new(),
        }
    }

    /// Step `name` ended now.
    fn lap(&mut self, name: &'static str) {
        self.laps.push((name, self.at.elapsed()));
        self.at = Instant::now();
    }

    /// "0.23 s: fetch 0.04, check and add 0.05, write-back 0.14".
    fn total(&self) -> String {
        let laps: Vec<String> = self
            .laps
            .iter()
            .map(|(n, d)| format!("{n} {:.2}", d.as_secs_f64()))
            .collect();
        format!(
            "{:.2} s: {}",
            self.started.elapsed().as_secs_f64(),
            laps.join(", ")
        )
    }

    /// "received 12 ms before; fetch 3.1 ms, queue/ 0.2 ms, ..." (milliseconds).
    fn detail(&self) -> String {
        let ms = |d: &Duration| d.as_secs_f64() * 1e3;
        let fetch = self.laps.first().map_or(0.0, |(_, d)| ms(d));
        let parts: Vec<String> = self
            .detail
            .iter()
            .map(|(n, d)| format!("{n} {:.1} ms", ms(d)))
            .collect();
        format!(
            "received {} ms before it was taken; fetch {fetch:.1} ms, {}",
            self.waited_ms,
            parts.join(", ")
        )
    }
}

/// The -o file, opened to append (created when missing; a link at its name is refused).
fn open_append(path: &std::path::Path) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .with_context(|| format!("{}: cannot open to append", path.display()))
}
