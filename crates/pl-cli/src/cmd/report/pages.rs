//! `pl-report --thumbs`: each document's first page (its Paperless thumbnail) on the page.
//! A static page embeds them as `data:` addresses, fetched once here; `--serve` fetches one
//! when the page asks for `/thumb/ID` (a member of the report's groups only) on a thread of
//! its own holding the client and the token, and keeps it in a bounded cache. The rules
//! (which bytes count as an image, the cache) are `pl_core::thumb`'s.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Mutex;

use anyhow::{anyhow, Result};
use pl_core::thumb::{data_uri, Cached, ImageCache, Unavailable, MAX_IMAGE};
use pl_paperless::Client;
use serde_json::{json, Map, Value};

use super::Args;
use crate::common::{Log, ServerFlags};

/// The most image bytes a static page embeds, all documents together; the documents after
/// that show "page image unavailable".
pub const MAX_EMBEDDED: usize = 64 << 20;
/// The most bytes `--serve` keeps in its cache of images (the oldest go first).
pub const CACHE_BUDGET: usize = 64 << 20;
/// Image requests waiting for the fetching thread at once: a slow Paperless holds at most
/// these connections of the server's 64 (the next image is answered "busy" at once), so the
/// page can always save its decisions.
pub const MAX_WAITING: usize = 8;

/// The server flags of the page images: the server of `--url` (PAPERLESS_URL), else
/// `--paperless-url`.
fn server_flags(args: &Args) -> ServerFlags {
    let mut flags = args.server.clone();
    if flags.url.is_none() {
        flags.url = args.paperless_url.clone();
    }
    flags
}

/// Embeds the page image of every member of the page's groups into `data["pages"]`
/// (`{"ID": {"src": "data:..."}}` or `{"ID": {"missing": "why"}}`), at most [`MAX_IMAGE`]
/// bytes each and [`MAX_EMBEDDED`] in all; says on stderr how many are missing and why.
pub fn embed(args: &Args, data: &mut Value, members: &BTreeSet<u64>, log: &Log) -> Result<()> {
    let client = server_flags(args).client("pl-report", 9, args.common.quiet)?;
    let mut pages = Map::new();
    let (mut bytes, mut missing) = (0usize, 0usize);
    for &id in members {
        let page = if bytes >= MAX_EMBEDDED {
            Err(Unavailable::Fetch(format!(
                "not embedded: the page's images passed {} MiB",
                MAX_EMBEDDED >> 20
            )))
        } else {
            client.thumbnail(id, MAX_IMAGE).map_err(|e| {
                anyhow!(e).context(format!("fetching the page image of document {id}"))
            })?
        };
        let entry = match page {
            Ok((t, b)) => {
                bytes += b.len();
                json!({"src": data_uri(t, &b)})
            }
            Err(why) => {
                missing += 1;
                log.info(format!("document {id}: page image unavailable: {why}"));
                json!({"missing": why.to_string()})
            }
        };
        pages.insert(id.to_string(), entry);
    }
    if missing > 0 {
        log.note(format!(
            "{missing} of {} page images unavailable (-v names them); the page says so in their place",
            members.len()
        ));
    }
    log.info(format!("{} KiB of page images embedded", bytes >> 10));
    data["pages"] = Value::Object(pages);
    data["meta"]["pages"] = "embedded".into();
    Ok(())
}

/// A page image for the server: cached, or an error that stops every image alike (the token
/// refused, ...), said in the answer.
pub type Fetched = Result<Cached, String>;

/// `--serve`'s page images: the report's documents, the cache, and the thread that fetches.
pub struct Served {
    ids: BTreeSet<u64>,
    cache: Mutex<ImageCache>,
    fetch: SyncSender<(u64, Sender<Fetched>)>,
    /// Requests waiting for the fetching thread (at most [`MAX_WAITING`]).
    waiting: AtomicUsize,
}

/// One request's place among the [`MAX_WAITING`], given back on drop.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Served {
    /// Starts the fetching thread (its client made there: it stays on that thread) for the
    /// members `ids`; `Err` when the client cannot be made (no token, a bad address).
    pub fn start(args: &Args, ids: BTreeSet<u64>, log: &Log) -> Result<Served> {
        let (fetch, asked) = mpsc::sync_channel(MAX_WAITING);
        let (ready, made) = mpsc::channel();
        let (flags, quiet, log) = (server_flags(args), args.common.quiet, log.clone());
        std::thread::spawn(move || match flags.client("pl-report", 9, quiet) {
            Ok(c) => {
                let _ = ready.send(Ok(()));
                fetching(&c, asked, &log);
            }
            Err(e) => {
                let _ = ready.send(Err(e));
            }
        });
        made.recv()
            .map_err(|_| anyhow!("the page images' thread ended"))??;
        Ok(Served {
            ids,
            cache: Mutex::new(ImageCache::new(CACHE_BUDGET)),
            fetch,
            waiting: AtomicUsize::new(0),
        })
    }

    /// Whether document `id` is a member of the report's groups (no other is fetched).
    pub fn serves(&self, id: u64) -> bool {
        self.ids.contains(&id)
    }

    /// Document `id`'s page image, from the cache or fetched (and then cached); `None` when
    /// [`MAX_WAITING`] requests wait for Paperless already.
    pub fn get(&self, id: u64) -> Option<Fetched> {
        if let Some(c) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            return Some(Ok(c.clone()));
        }
        let free = |n: usize| (n < MAX_WAITING).then_some(n + 1);
        if (self.waiting)
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, free)
            .is_err()
        {
            return None;
        }
        let _waiting = Waiting(&self.waiting);
        Some(self.fetched(id))
    }

    /// Asks the fetching thread for `id`'s image and caches what it says.
    fn fetched(&self, id: u64) -> Fetched {
        let (tx, rx) = mpsc::channel();
        self.fetch
            .send((id, tx))
            .map_err(|_| "the page images' thread ended".to_owned())?;
        let got = rx
            .recv()
            .map_err(|_| "the page images' thread ended".to_owned())?;
        if let Ok(c) = &got {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            cache.put(id, c.clone());
        }
        got
    }
}

/// The fetching thread: one image at a time, until the server ends.
fn fetching(client: &Client, asked: Receiver<(u64, Sender<Fetched>)>, log: &Log) {
    for (id, answer) in asked {
        let got = client.thumbnail(id, MAX_IMAGE).map_err(|e| {
            let msg = format!("the page image of document {id}: {e}");
            log.note(&msg);
            msg
        });
        let _ = answer.send(got);
    }
}
