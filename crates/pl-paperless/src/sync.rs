//! Incremental sync: the previous output plus its state file, the server's changes since the
//! newest `modified` seen, and the full id list every time (so deletions are always noticed),
//! merged into the new output.
//!
//! Crash safety comes from the write order: the output is renamed into place first, then the
//! state, which records the length and xxh3 of the output it belongs to. A run stopped between
//! the two leaves a state that no longer matches the output, and the next run syncs in full.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::api::{Access, DOC_FIELDS};
use crate::client::{encode, Client};
use crate::error::{Error, Result};
use crate::record::{to_record, Names, Record};
use pl_core::time::{format_utc, parse_rfc3339};

/// Version of the state file layout; another version means a full sync (2: records carry
/// `owner` and `user_can_change`, which an output of version 1 lacks; 3: and `permissions`).
pub const STATE_FORMAT: u32 = 3;

/// What the state file remembers about one document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DocState {
    /// `modified` as the server wrote it.
    pub modified: String,
    /// xxh3-64 (hex) of the document's output line: content and metadata.
    pub fp: String,
}

/// The state file beside the output (no secrets in it: no token, no content).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    /// [`STATE_FORMAT`].
    pub format: u32,
    /// The server the output came from.
    pub base_url: String,
    /// The newest `modified` seen on the server (its clock, not ours), UTC.
    pub last_modified: Option<String>,
    /// The name lists the records were resolved with.
    pub names: Names,
    /// Byte length of the output this state belongs to.
    pub output_len: u64,
    /// xxh3-64 (hex) of that output.
    pub output_xxh3: String,
    /// Per document id.
    pub docs: BTreeMap<u64, DocState>,
}

/// The local copy as found before a sync.
#[derive(Debug, Default)]
pub struct Local {
    /// The previous output's lines by id (used for counts, and kept when unchanged).
    pub records: BTreeMap<u64, Vec<u8>>,
    /// Each record's owner, `user_can_change` and `permissions`, compared with the server's
    /// listings.
    pub access: BTreeMap<u64, Access>,
    /// The state, when it is usable for an incremental sync.
    pub state: Option<State>,
    /// Why the sync must be a full one, if it must.
    pub full_reason: Option<String>,
}

fn digest_hex(bytes: &[u8]) -> String {
    format!("{:016x}", xxh3_64(bytes))
}

/// Reads the previous output and its state, deciding whether they can be trusted.
pub fn load_local(output: &Path, state_path: &Path, base: &str) -> Result<Local> {
    let bytes = match std::fs::read(output) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Local {
                full_reason: Some("no previous output".into()),
                ..Local::default()
            })
        }
        Err(e) => return Err(Error::file(output, e)),
    };
    let mut local = Local::default();
    for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let v = serde_json::from_slice::<Value>(line).ok();
        let id = v.as_ref().and_then(|v| v.get("id").and_then(Value::as_u64));
        match (id, v) {
            (Some(id), Some(v)) if line.ends_with(b"\n") => {
                local.records.insert(id, line.to_vec());
                local.access.insert(id, Access::of(&v));
            }
            _ => {
                local.records.clear();
                local.full_reason = Some(format!(
                    "previous output {} is not docs NDJSON (line {})",
                    output.display(),
                    n + 1
                ));
                return Ok(local);
            }
        }
    }
    let state: State = match std::fs::read(state_path) {
        Ok(s) => match serde_json::from_slice(&s) {
            Ok(st) => st,
            Err(e) => {
                local.full_reason = Some(format!("state file unreadable ({e})"));
                return Ok(local);
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            local.full_reason = Some("no state file".into());
            return Ok(local);
        }
        Err(e) => return Err(Error::file(state_path, e)),
    };
    let reason = if state.format != STATE_FORMAT {
        Some(format!(
            "state file format {} is not {STATE_FORMAT}",
            state.format
        ))
    } else if state.base_url != base {
        Some(format!(
            "the server address changed (was {})",
            state.base_url
        ))
    } else if state.output_len != bytes.len() as u64 || state.output_xxh3 != digest_hex(&bytes) {
        Some("the output does not match its state (edited, or an interrupted run)".into())
    } else if !state.docs.keys().eq(local.records.keys()) {
        Some("the state lists other documents than the output".into())
    } else {
        None
    };
    local.full_reason = reason;
    if local.full_reason.is_none() {
        local.state = Some(state);
    }
    Ok(local)
}

/// Sync settings.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Ignore the state: fetch everything.
    pub full: bool,
    /// Documents per page.
    pub page_size: u32,
    /// How far before the newest `modified` seen an incremental sync starts looking, in
    /// microseconds: covers saves that committed late (re-fetched ones count as unchanged).
    pub overlap_micros: i64,
    /// After the first answer, move to the newest API version this crate knows that the
    /// server offers (see [`Client::upgrade_version`]).
    pub upgrade_version: bool,
}

/// The newest API version whose answers this crate knows.
pub const NEWEST_KNOWN_VERSION: u32 = 10;

/// new / changed / deleted / unchanged, against the previous output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Ids not in the previous output.
    pub new: u64,
    /// Ids whose record differs.
    pub changed: u64,
    /// Ids gone from the server.
    pub deleted: u64,
    /// Ids whose record is the same.
    pub unchanged: u64,
}

/// Progress of a sync, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Documents received so far.
    pub done: u64,
    /// Documents expected (grows when gaps are filled).
    pub total: u64,
}

/// The result of a sync: the records to write, and what to record in the state.
#[derive(Debug)]
pub struct Synced {
    /// Output lines by id.
    pub records: BTreeMap<u64, Vec<u8>>,
    /// Counts against the previous output.
    pub counts: Counts,
    /// Whether this was a full sync.
    pub full: bool,
    /// Documents asked for by id to fill gaps (restored from the trash, or shifted while paging).
    pub filled: u64,
    /// Why it was a full sync.
    pub full_reason: Option<String>,
    docs: BTreeMap<u64, DocState>,
    names: Names,
    base_url: String,
}

impl Synced {
    /// Writes the records in id order, returning the state that belongs to exactly these bytes.
    pub fn write_to(&self, w: &mut impl Write) -> std::io::Result<State> {
        let mut h = Xxh3::new();
        let mut len = 0u64;
        for line in self.records.values() {
            w.write_all(line)?;
            h.update(line);
            len += line.len() as u64;
        }
        let newest = self
            .docs
            .values()
            .filter_map(|d| parse_rfc3339(&d.modified))
            .max();
        Ok(State {
            format: STATE_FORMAT,
            base_url: self.base_url.clone(),
            last_modified: newest.map(format_utc),
            names: self.names.clone(),
            output_len: len,
            output_xxh3: format!("{:016x}", h.digest()),
            docs: self.docs.clone(),
        })
    }
}

/// Ids per `id__in` request when filling gaps.
const ID_CHUNK: usize = 200;

/// Runs a sync against `client`, given the local copy.
pub fn sync(
    client: &Client,
    local: Local,
    opts: &SyncOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Synced> {
    let names = Names::fetch(client)?;
    if opts.upgrade_version {
        client.upgrade_version(NEWEST_KNOWN_VERSION);
    }
    let base = client.base().to_owned();
    let full_reason = full_sync_reason(&local, opts, &names);
    let incremental = full_reason.is_none() && local.state.is_some();
    // No newest `modified` (the library was empty): fetch everything, which is cheap then.
    let since = match &local.state {
        Some(st) if incremental => st.last_modified.as_deref().and_then(parse_rfc3339),
        _ => None,
    };
    let mut received = Received {
        names: &names,
        base: &base,
        progress,
        fetched: BTreeMap::new(),
        done: 0,
        total: 0,
    };
    let filter = since.map(|t| {
        format!(
            "modified__gt={}",
            encode(&format_utc(t - opts.overlap_micros))
        )
    });
    let query = match &filter {
        Some(f) => format!("ordering=id&fields={DOC_FIELDS}&{f}"),
        None => format!("ordering=id&fields={DOC_FIELDS}"),
    };
    client.for_each_page("/api/documents/", &query, opts.page_size, |p| {
        received.take(p, 0)
    })?;
    // Page-number paging skips a document when one before it goes away between two pages.
    // The ids of the listing, asked for once more afterwards in one cheap request, show
    // which changed documents were skipped; the full id list covers everything else.
    let changed_ids: HashSet<u64> = match &filter {
        Some(f) => client.document_ids_where(f)?.into_iter().collect(),
        None => HashSet::new(),
    };
    // The id list comes last, so documents added while paging are in it; with each one's
    // owner, user_can_change and permissions, which a bulk edit of permissions changes
    // without `modified`.
    let access = client.document_access()?;
    let ids: Vec<u64> = access.keys().copied().collect();
    let known = |id: &u64| {
        received.fetched.contains_key(id)
            || (incremental
                && local.records.contains_key(id)
                && !changed_ids.contains(id)
                && local.access.get(id) == access.get(id))
    };
    let missing: Vec<u64> = ids.iter().copied().filter(|id| !known(id)).collect();
    let filled = missing.len() as u64;
    fill_gaps(client, &mut received, &missing, opts.page_size)?;
    let fetched = permissions_added(received.fetched, &access);
    let merged = merge(ids, fetched, &local, incremental);
    Ok(Synced {
        records: merged.records,
        counts: merged.counts,
        full: !incremental,
        full_reason: if incremental {
            None
        } else {
            full_reason.or_else(|| Some("no usable state".into()))
        },
        filled,
        docs: merged.docs,
        names,
        base_url: base,
    })
}

/// The records fetched, with the permission lists of the id list's listing (the documents'
/// listing has none) where the server gave them.
fn permissions_added(
    fetched: BTreeMap<u64, Record>,
    access: &BTreeMap<u64, Access>,
) -> BTreeMap<u64, Record> {
    let perms = |id: &u64| access.get(id).and_then(|a| a.permissions.as_ref());
    fetched
        .into_iter()
        .map(|(id, r)| match perms(&id) {
            Some(p) => (id, r.with_permissions(p)),
            None => (id, r),
        })
        .collect()
}

/// Why this sync must fetch everything (`--full`, a renamed name, or what the local copy
/// lacks), or `None` when an incremental one may do.
fn full_sync_reason(local: &Local, opts: &SyncOptions, names: &Names) -> Option<String> {
    if opts.full {
        Some("--full".into())
    } else if local
        .state
        .as_ref()
        .is_some_and(|s| names.renamed_since(&s.names))
    {
        Some("a correspondent, document type or tag was renamed or removed".into())
    } else {
        local.full_reason.clone()
    }
}

/// The documents fetched so far, as records, and the progress reported for them.
struct Received<'a> {
    names: &'a Names,
    base: &'a str,
    progress: &'a mut dyn FnMut(Progress),
    fetched: BTreeMap<u64, Record>,
    done: u64,
    total: u64,
}

impl Received<'_> {
    /// Adds one page; `start` is `done` when its listing began, so `total` follows `count`.
    fn take(&mut self, page: crate::api::Page, start: u64) -> Result<bool> {
        let base = self.base;
        for d in &page.results {
            let r = to_record(d, self.names, base).ok_or_else(|| Error::Shape {
                url: format!("{base}/api/documents/"),
                msg: "a document without a numeric id".into(),
            })?;
            self.fetched.insert(r.id, r);
            self.done += 1;
        }
        self.total = self.total.max(start + page.count).max(self.done);
        (self.progress)(Progress {
            done: self.done,
            total: self.total,
        });
        Ok(true)
    }
}

/// Fetches the `missing` documents by id, [`ID_CHUNK`] to a request: those the listing
/// skipped or did not cover.
fn fill_gaps(
    client: &Client,
    received: &mut Received,
    missing: &[u64],
    page_size: u32,
) -> Result<()> {
    for chunk in missing.chunks(ID_CHUNK) {
        let start = received.done;
        let list: Vec<String> = chunk.iter().map(u64::to_string).collect();
        let q = format!(
            "ordering=id&fields={DOC_FIELDS}&id__in={}",
            encode(&list.join(","))
        );
        client.for_each_page("/api/documents/", &q, page_size, |p| {
            received.take(p, start)
        })?;
    }
    Ok(())
}

/// The new output's lines and state entries, with the counts against the previous output.
struct Merged {
    records: BTreeMap<u64, Vec<u8>>,
    docs: BTreeMap<u64, DocState>,
    counts: Counts,
}

/// Puts together the documents on the server (`ids`): fetched ones as fetched, the others
/// as the previous output has them when the sync is incremental.
fn merge(
    ids: Vec<u64>,
    mut fetched: BTreeMap<u64, Record>,
    local: &Local,
    incremental: bool,
) -> Merged {
    let mut records = BTreeMap::new();
    let mut docs = BTreeMap::new();
    let mut counts = Counts::default();
    let prev_docs = local.state.as_ref().map(|s| &s.docs);
    for id in ids {
        let (line, modified) = if let Some(r) = fetched.remove(&id) {
            (r.line, r.modified)
        } else if let (true, Some(line), Some(d)) = (
            incremental,
            local.records.get(&id),
            prev_docs.and_then(|m| m.get(&id)),
        ) {
            (line.clone(), d.modified.clone())
        } else {
            // Deleted after the id list was read.
            continue;
        };
        match local.records.get(&id) {
            None => counts.new += 1,
            Some(old) if *old == line => counts.unchanged += 1,
            Some(_) => counts.changed += 1,
        }
        docs.insert(
            id,
            DocState {
                modified,
                fp: digest_hex(&line),
            },
        );
        records.insert(id, line);
    }
    // Deleted: gone from the server's list, or from the server after it was read.
    counts.deleted = local
        .records
        .keys()
        .filter(|id| !records.contains_key(id))
        .count() as u64;
    Merged {
        records,
        docs,
        counts,
    }
}
