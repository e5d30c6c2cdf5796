//! pl-watch's listening side: the acceptor, a fixed number of handler threads (each with its
//! own inbox connection), the answers, and SIGTERM/SIGINT received on a thread of their own.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use pl_paperless::webhook::{self, Deadline, Limits, Refusal};
use pl_pipeline::inbox::Inbox;
use serde_json::{json, Value};

use super::Args;
use crate::common::Log;

/// What the threads share with the worker: the stop flag and the worker's wake-up.
pub struct Shared {
    stop: AtomicBool,
    pending: Mutex<bool>,
    wake: Condvar,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            pending: Mutex::new(false),
            wake: Condvar::new(),
        }
    }

    /// Whether a stop was asked for.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Wakes the worker (a document was queued, or a stop asked for).
    fn notify(&self) {
        *self.pending.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.wake.notify_all();
    }

    /// Waits until notified or `most` has passed.
    pub fn wait(&self, most: Duration) {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if !*p && !self.stopping() {
            p = self
                .wake
                .wait_timeout(p, most)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *p = false;
    }
}

/// What a handler needs.
struct Ctx {
    secret: Vec<u8>,
    limits: Limits,
    shared: Arc<Shared>,
    log: Log,
}

/// Starts listening on `--listen`: signals received on their own thread (blocked here, before
/// any thread starts, so that every thread inherits the mask), an acceptor and the handlers.
/// Returns the address listened on.
pub fn serve(
    args: &Args,
    secret: Vec<u8>,
    dir: &Path,
    shared: Arc<Shared>,
    log: &Log,
) -> Result<SocketAddr> {
    let signals = block_signals();
    let listener = TcpListener::bind(&args.listen)
        .with_context(|| format!("--listen {}: cannot listen", args.listen))?;
    let addr = listener.local_addr().context("--listen")?;
    let ctx = Arc::new(Ctx {
        secret,
        limits: Limits {
            body: (args.max_body_kb as usize) << 10,
            ..Limits::default()
        },
        shared: Arc::clone(&shared),
        log: log.clone(),
    });
    let n = args.handlers as usize;
    let (tx, rx) = sync_channel::<TcpStream>(4 * n);
    let rx = Arc::new(Mutex::new(rx));
    for _ in 0..n {
        let inbox = Inbox::open(dir)?;
        let (ctx, rx) = (Arc::clone(&ctx), Arc::clone(&rx));
        std::thread::spawn(move || handle_all(&ctx, &inbox, &rx));
    }
    let s = Arc::clone(&shared);
    std::thread::spawn(move || {
        let mut sig = 0;
        // SAFETY: the set was filled by block_signals; sig is a valid out-pointer.
        unsafe { libc::sigwait(&signals, &mut sig) };
        s.stop.store(true, Ordering::SeqCst);
        s.notify();
        // Wakes the acceptor, which then stops taking connections.
        let _ = TcpStream::connect(addr);
    });
    let log = log.clone();
    std::thread::spawn(move || accept_all(&listener, &tx, &shared, &log));
    Ok(addr)
}

/// Blocks SIGTERM and SIGINT in this thread (and the threads it starts): they are taken by
/// `sigwait` on the signal thread, never delivered in the middle of a document.
fn block_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; the calls only
    // read and write the set and this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

/// Hands each connection to a handler; when all are busy and the backlog is full, answers
/// 503 at once. Stops taking connections once a stop is asked for.
fn accept_all(listener: &TcpListener, tx: &SyncSender<TcpStream>, shared: &Shared, log: &Log) {
    for conn in listener.incoming() {
        if shared.stopping() {
            break;
        }
        let Ok(stream) = conn else { continue };
        if let Err(TrySendError::Full(s) | TrySendError::Disconnected(s)) = tx.try_send(stream) {
            let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
            let busy = json!({"error": "busy: too many requests at once, try again"});
            let _ = webhook::respond(&mut &s, 503, &busy);
            log.note("refused a connection with 503: every handler busy and the backlog full");
        }
    }
}

/// A handler thread: answers connections one at a time.
fn handle_all(ctx: &Ctx, inbox: &Inbox, rx: &Mutex<Receiver<TcpStream>>) {
    loop {
        let next = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(stream) = next else { return };
        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        let (status, body) = answer(&stream, ctx, inbox);
        let _ = webhook::respond(&mut &stream, status, &body);
        if status >= 400 {
            webhook::drain(&stream, (ctx.limits.body as u64).max(1 << 20));
            let why = body["error"].as_str().unwrap_or("");
            ctx.log.note(format!("{peer}: answered {status}: {why}"));
        } else {
            ctx.log.info(format!("{peer}: answered {status}: {body}"));
        }
    }
}

/// A refusal as an answer.
fn refused(r: Refusal) -> (u16, Value) {
    (r.status, json!({"error": r.reason}))
}

/// The answer to one request.
fn answer(stream: &TcpStream, ctx: &Ctx, inbox: &Inbox) -> (u16, Value) {
    let mut r = Deadline::new(stream, ctx.limits.time);
    let head = match webhook::read_head(&mut r, &ctx.limits) {
        Ok(h) => h,
        Err(e) => return refused(e),
    };
    let queue = |inbox: &Inbox| inbox.len().map_or(Value::Null, Value::from);
    match (head.method.as_str(), head.path.as_str()) {
        ("GET", "/health") => (200, json!({"status": "ok", "queue": queue(inbox)})),
        ("POST", "/webhook") => {
            if !webhook::secret_matches(head.header(webhook::SECRET_HEADER), &ctx.secret) {
                return refused(Refusal::new(
                    401,
                    "no X-PL-Secret header, or the wrong secret",
                ));
            }
            let body = match webhook::read_body(&mut r, head, &ctx.limits) {
                Ok(b) => b,
                Err(e) => return refused(e),
            };
            let id = match webhook::document_id(&body) {
                Ok(id) => id,
                Err(why) => return refused(Refusal::new(400, why)),
            };
            if let Err(e) = inbox.push(id) {
                return refused(Refusal::new(500, format!("{e:#}")));
            }
            ctx.shared.notify();
            (202, json!({"queued": id, "queue": queue(inbox)}))
        }
        (_, "/health" | "/webhook") => refused(Refusal::new(405, "GET /health, POST /webhook")),
        _ => refused(Refusal::new(
            404,
            "no such path: POST /webhook, GET /health",
        )),
    }
}
