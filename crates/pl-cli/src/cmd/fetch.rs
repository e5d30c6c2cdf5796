//! pl-fetch: a Paperless-NGX server (or a folder of text files) → docs NDJSON, incrementally.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Parser;
use pl_paperless::sync::{load_local, sync, Local, Progress, SyncOptions};

use crate::common::{Log, OutputFlags, ServerFlags, UsageError};
use pl_pipeline::io::create_output;

/// pl-fetch's words for `-o` (its flag is [`OutputFlags`]'s).
const OUTPUT_HELP: &str = "Write the records to this file (replaced atomically) and keep the sync state beside it; without it records go to stdout and every run is a full sync";
/// pl-fetch's words for `-v`.
const VERBOSE_HELP: &str = "Print the server version, sync mode and timings on stderr";

/// Fetch documents from a Paperless-NGX server (2.15 or newer, 3.x) as docs NDJSON: one
/// record per line, sorted by id, with id, title, content, created, added, modified,
/// correspondent, document_type, tags (names, sorted), archive_serial_number,
/// original_file_name, page_count, mime_type and url (the document's page in Paperless).
///
/// The server is PAPERLESS_URL (or --url); the API token is PAPERLESS_TOKEN (or its alias
/// PAPERLESS_API_TOKEN) or the first line of --token-file. The token is never accepted on the
/// command line, printed, or written.
///
/// With -o FILE the sync is incremental: a state file beside the output (FILE.state.json)
/// remembers the newest `modified` seen and a fingerprint per document; the next run asks
/// only for documents modified since, plus the full id list to notice deletions, and merges
/// both into FILE. Output and state are replaced atomically; an interrupted run leaves both
/// as they were. stderr reports `new N, changed N, deleted N, unchanged N`.
///
/// With --dir PATH the documents are the .txt and .md files under PATH instead (title = the
/// path relative to PATH, id = a hash of it, stable across runs).
#[derive(Debug, Parser)]
#[command(name = "pl-fetch", version)]
#[command(mut_args(|a| OutputFlags::reword(a, OUTPUT_HELP, VERBOSE_HELP)))]
pub struct Args {
    /// Read a folder of .txt/.md files (recursively) instead of a server (wins over --url).
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// State file (default: the output's path plus `.state.json`). Needs --output.
    #[arg(long, value_name = "FILE", requires = "output")]
    pub state: Option<PathBuf>,
    /// Fetch everything, ignoring the state (renames on the server are noticed anyway; a
    /// weekly --full also catches changes whose `modified` bump came late).
    #[arg(long)]
    pub full: bool,
    /// Documents per request (the server allows up to 100000).
    #[arg(long, default_value_t = 100, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub page_size: u32,
    /// API version to ask for (default: 9, which Paperless-NGX 2.15+ and 3.x speak, then 10
    /// when the server offers it, as 10 does not repeat every id on every page). A server
    /// that refuses the version asked for and names another in X-Api-Version gets that one.
    #[arg(long, value_name = "N")]
    pub api_version: Option<u32>,
    /// Seconds before the newest `modified` seen where an incremental sync starts looking
    /// (covers saves committed late; documents fetched again count as unchanged).
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub overlap: u64,
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub out: OutputFlags,
}

/// `docs.ndjson` → `docs.ndjson.state.json`.
fn default_state(output: &Path) -> PathBuf {
    let mut s = output.as_os_str().to_owned();
    s.push(".state.json");
    PathBuf::from(s)
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::plain_log("pl-fetch", &args.out);
    if let Some(dir) = &args.dir {
        return run_dir(dir, &args, &log);
    }
    if args.server.url.is_none() {
        return Err(UsageError(
            "no server: set PAPERLESS_URL (or --url), or read a folder with --dir PATH".into(),
        )
        .into());
    }
    let client = args
        .server
        .client("pl-fetch", args.api_version.unwrap_or(9), args.out.quiet)?;
    let state_path = args
        .out
        .output
        .as_deref()
        .filter(|p| *p != Path::new("-"))
        .map(|o| args.state.clone().unwrap_or_else(|| default_state(o)));
    let local = match (&args.out.output, &state_path) {
        (Some(out), Some(st)) => load_local(out, st, client.base())?,
        _ => Local {
            full_reason: Some("output to stdout".into()),
            ..Local::default()
        },
    };
    // The server's count, once its first page answers, is the total.
    let pb = log.bar("documents", 0);
    let synced = sync(
        &client,
        local,
        &SyncOptions {
            full: args.full,
            page_size: args.page_size,
            overlap_micros: i64::try_from(args.overlap.saturating_mul(1_000_000))
                .unwrap_or(i64::MAX / 2),
            upgrade_version: args.api_version.is_none(),
        },
        &mut |p: Progress| {
            pb.set_length(p.total);
            pb.set_position(p.done);
        },
    )?;
    pb.finish_and_clear();
    if let Some(why) = &synced.full_reason {
        log.info(format!("full sync: {why}"));
    }
    let server = client.server();
    log.info(format!(
        "server {} (API {} of {}), {} sync, {} fetched by id",
        server.release.as_deref().unwrap_or("?"),
        client.api_version(),
        server.api_version.as_deref().unwrap_or("?"),
        if synced.full { "full" } else { "incremental" },
        synced.filled
    ));
    // Output first, then the state that names its checksum: a crash between the two leaves
    // a state that does not match, and the next run syncs in full. Files whose bytes would
    // not change are left alone, so make does not rerun the stages after this one.
    let mut bytes = Vec::new();
    let state = synced.write_to(&mut bytes).context("writing the output")?;
    write_if_changed(args.out.output.as_deref(), &bytes)?;
    if let Some(st) = &state_path {
        let mut json = serde_json::to_vec(&state).context("writing the state")?;
        json.push(b'\n');
        write_if_changed(Some(st), &json)?;
    }
    let c = synced.counts;
    log.note(format!(
        "new {}, changed {}, deleted {}, unchanged {}",
        c.new, c.changed, c.deleted, c.unchanged
    ));
    Ok(())
}

/// Replaces `path` atomically with `bytes` unless it holds them already (stdout for `None`).
fn write_if_changed(path: Option<&Path>, bytes: &[u8]) -> Result<()> {
    if let Some(p) = path.filter(|p| *p != Path::new("-")) {
        let same_len = std::fs::metadata(p).is_ok_and(|m| m.len() == bytes.len() as u64);
        if same_len && std::fs::read(p).is_ok_and(|old| old == bytes) {
            return Ok(());
        }
    }
    let mut out = create_output(path)?;
    out.write_all(bytes)?;
    out.finish()
}

fn run_dir(dir: &Path, args: &Args, log: &Log) -> Result<()> {
    if args.server.token_file.is_some() || args.state.is_some() || args.full {
        return Err(UsageError(
            "--dir reads a folder: --token-file, --state and --full do not apply".into(),
        )
        .into());
    }
    let corpus = pl_paperless::dir::scan(dir)?;
    for f in &corpus.outside {
        log.note(format!(
            "{}: a link to a file outside {}; not read",
            dir.join(f).display(),
            dir.display()
        ));
    }
    for f in &corpus.lossy {
        log.note(format!(
            "{}: not UTF-8; invalid bytes replaced",
            dir.join(f).display()
        ));
    }
    let mut out = create_output(args.out.output.as_deref())?;
    for line in corpus.records.values() {
        out.write_all(line)?;
    }
    out.finish()?;
    log.note(format!(
        "{} from {}",
        crate::common::count(corpus.records.len() as u64, "document"),
        dir.display()
    ));
    if corpus.other_files > 0 {
        // A folder of PDFs gives no documents: say why instead of a bare "0 documents".
        log.note(format!(
            "{} not read: --dir reads .txt and .md files only (text, not scans)",
            crate::common::count(corpus.other_files, "other file")
        ));
    }
    Ok(())
}
