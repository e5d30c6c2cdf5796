//! `pl-report --serve`: the page on 127.0.0.1, and the decisions file written as the
//! reviewer decides. A few lines of HTTP/1.1 over std::net: one thread per connection,
//! `Connection: close`, three routes.
//!
//! - `GET /` → the page.
//! - `GET /thumb/ID` → document ID's page image (with `--thumbs`; [`super::pages`]): only a
//!   member of the report's groups (else 403), a WebP, PNG or JPEG image, or a 404 saying why
//!   there is none; at most `pages::MAX_WAITING` wait for Paperless at once (else 503), so a
//!   slow Paperless cannot take the connections the decisions need. The token stays in this
//!   process: the page never sees it.
//! - `GET /decisions` → the decisions file (NDJSON; empty when there is none yet).
//! - `PUT /decisions` → decisions as NDJSON, merged into the file per group: each record is
//!   checked (a known group, its members, a primary among them), its `modified` filled from
//!   the docs, and replaces its group's decision; `{"group":N,"decision":"pending"}` takes a
//!   group's decision back; groups the body does not name are kept. The page sends the one
//!   group it changed, so two tabs (or fifty requests at once) lose nothing of each other's.
//!   The file is rewritten atomically (temporary file + rename) under a lock.
//!
//! Bounded: at most [`MAX_CONNECTIONS`] connections at once, a request head of at most
//! [`MAX_HEAD`] bytes, [`IO_TIMEOUT`] of silence, and the whole request (head and body) within
//! [`REQUEST_DEADLINE`] (else 408). A body holds at most what the page's groups can need, every
//! one decided (`PageGroups::body_limit`, and never over [`MAX_BODY`]; else 413, unread), and
//! each of its lines is refused before it is parsed when it holds more JSON values than a
//! decision of the page's largest group (`PageGroups::line_values`: a body of small integers
//! parsed cost 40 times its size), so a body costs about twice its bytes while it is read
//! and parsed. When every connection is taken, a new one closes the oldest still sending its
//! request (a client trickling its head cannot hold the server: a page's request arrives at
//! once), or, when all are past that, is answered 503. The bodies being read, all
//! connections together, hold at most [`BODIES_AT_ONCE`] bodies of the limit: a body that
//! would pass that is answered 503 unread.
//!
//! Only requests whose `Host` is this address are answered (a DNS-rebinding page cannot
//! reach it), a `PUT` with another `Origin` is refused, and `PUT` is not a method a page on
//! another site may send without a CORS preflight, which is never granted.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use pl_core::decision::Decision;
use pl_core::page::{parse_changes, parse_decisions, PageGroups};
use pl_core::thumb::thumb_path_id;
use serde_json::Value;

use super::pages::Served;
use super::{render, Args};
use crate::common::Log;
use pl_pipeline::io::create_output;
use pl_pipeline::ndjson::write_obj;

/// Largest request body accepted, whatever the page (a decisions set for a very large library
/// fits easily); a smaller page takes less (`PageGroups::body_limit`).
const MAX_BODY: usize = 64 << 20;
/// Largest request line and headers together.
const MAX_HEAD: u64 = 16 << 10;
/// Connections served at once: a local page opening hundreds cannot exhaust threads.
const MAX_CONNECTIONS: usize = 64;
/// Silence on a connection before it is dropped.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// The whole request, head and body, must have arrived by then (a local page sends even a
/// [`MAX_BODY`] body in well under a second).
const REQUEST_DEADLINE: Duration = Duration::from_secs(20);
/// Request bodies of the page's limit held at once by all the connections being read.
const BODIES_AT_ONCE: usize = 4;

/// What the handlers share.
struct State {
    page: String,
    /// The page images (`--thumbs`).
    pages: Option<Served>,
    groups: PageGroups,
    file: PathBuf,
    hosts: [String; 2],
    origins: [String; 2],
    /// Serializes reads and merges of the decisions file.
    lock: Mutex<()>,
    /// Connections being served.
    active: AtomicUsize,
    /// Connections still sending their request, by arrival (the oldest first), to close the
    /// oldest when all are taken.
    reading: Mutex<BTreeMap<u64, TcpStream>>,
    /// Arrivals so far (the next connection's number).
    arrivals: AtomicU64,
    /// Bytes of the bodies being read (at most `budget`).
    bodies: AtomicUsize,
    /// The largest body this page's decisions need (at most [`MAX_BODY`]).
    body_limit: usize,
    /// [`BODIES_AT_ONCE`] bodies of `body_limit`.
    budget: usize,
}

/// A connection's place in [`State::reading`], given up when its request is read (or it ends).
struct Reading<'a>(&'a State, u64);

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        let mut r = self.0.reading.lock().unwrap_or_else(|e| e.into_inner());
        r.remove(&self.1);
    }
}

/// `n` bytes of the bodies' budget, given back on drop.
struct BodyBytes<'a>(&'a AtomicUsize, usize);

impl<'a> BodyBytes<'a> {
    fn take(used: &'a AtomicUsize, budget: usize, n: usize) -> Option<BodyBytes<'a>> {
        used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| {
            (u + n <= budget).then_some(u + n)
        })
        .ok()
        .map(|_| BodyBytes(used, n))
    }
}

impl Drop for BodyBytes<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, Ordering::SeqCst);
    }
}

/// The request's bytes, read by [`REQUEST_DEADLINE`] after it began (a read past it fails
/// with `TimedOut`), never waiting longer than [`IO_TIMEOUT`] for one.
struct DeadlineReader {
    stream: TcpStream,
    until: Instant,
}

impl Read for DeadlineReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request did not arrive in time",
            ));
        }
        self.stream.set_read_timeout(Some(left.min(IO_TIMEOUT)))?;
        self.stream.read(buf)
    }
}

/// Counts a connection while it is served.
struct Active<'a>(&'a AtomicUsize);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves until killed.
pub fn serve(args: &Args, data: &Value, pages: Option<Served>, log: &Log) -> Result<()> {
    let file = args.decisions.clone().expect("checked by run");
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    let groups = PageGroups::of(data);
    let body_limit = groups.body_limit().clamp(1 << 10, MAX_BODY);
    // The decisions file must be readable now, not at the first save.
    load(&file, &groups).with_context(|| file.display().to_string())?;
    let state = Arc::new(State {
        page: render(data),
        pages,
        groups,
        file: file.clone(),
        hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        origins: [
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ],
        lock: Mutex::new(()),
        active: AtomicUsize::new(0),
        reading: Mutex::new(BTreeMap::new()),
        arrivals: AtomicU64::new(0),
        bodies: AtomicUsize::new(0),
        body_limit,
        budget: BODIES_AT_ONCE * body_limit,
    });
    // Always printed (also with -q): it is the only way to learn a free port's number.
    eprintln!(
        "pl-report: serving http://127.0.0.1:{port}/ ; decisions are saved to {} ; Ctrl-C stops",
        file.display()
    );
    for conn in listener.incoming() {
        let Ok(mut stream) = conn else { continue };
        if state.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS && !close_oldest(&state) {
            state.active.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = respond(&mut stream, 503, "text/plain", b"too many connections\n");
            continue;
        }
        let number = state.arrivals.fetch_add(1, Ordering::SeqCst);
        if let Ok(s) = stream.try_clone() {
            let mut r = state.reading.lock().unwrap_or_else(|e| e.into_inner());
            r.insert(number, s);
        }
        let st = Arc::clone(&state);
        let log = log.clone();
        std::thread::spawn(move || {
            let _active = Active(&st.active);
            let reading = Reading(&st, number);
            if let Err(e) = handle(stream, &st, reading) {
                log.info(format!("request failed: {e:#}"));
            }
        });
    }
    Ok(())
}

/// Closes the connection that has been sending its request the longest (its thread then
/// ends); `false` when every connection has its request in already.
fn close_oldest(st: &State) -> bool {
    let oldest = {
        let mut r = st.reading.lock().unwrap_or_else(|e| e.into_inner());
        r.pop_first()
    };
    match oldest {
        Some((_, s)) => {
            let _ = s.shutdown(std::net::Shutdown::Both);
            true
        }
        None => false,
    }
}

/// Reads and checks a decisions file (absent is empty).
fn load(file: &Path, groups: &PageGroups) -> Result<Vec<Decision>> {
    match std::fs::read_to_string(file) {
        Ok(text) => parse_decisions(&text, groups).map_err(anyhow::Error::new),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).context("cannot read"),
    }
}

/// A request's first line and headers (names lowercased).
struct Head {
    method: String,
    path: String,
    headers: BTreeMap<String, String>,
}

/// Reads a request's head: `None` when it does not end within `MAX_HEAD` bytes.
fn read_head(r: &mut BufReader<DeadlineReader>) -> Result<Option<Head>> {
    let mut head = (&mut *r).take(MAX_HEAD);
    let mut line = String::new();
    head.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or("").to_owned(),
        parts.next().unwrap_or("").to_owned(),
    );
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if head.read_line(&mut h)? == 0 {
            return Ok(None);
        }
        if h.trim().is_empty() {
            return Ok(Some(Head {
                method,
                path,
                headers,
            }));
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
}

/// One request, one answer; `reading` is given up once the request is in.
fn handle(stream: TcpStream, st: &State, reading: Reading) -> Result<()> {
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut r = BufReader::new(DeadlineReader {
        stream: stream.try_clone()?,
        until: Instant::now() + REQUEST_DEADLINE,
    });
    let mut w = stream;
    let head = match read_head(&mut r) {
        Err(e) if timed_out(&e) => return too_late(&mut w),
        head => head?,
    };
    let Some(Head {
        method,
        path,
        headers,
    }) = head
    else {
        respond(&mut w, 431, "text/plain", b"request head too large\n")?;
        // Read what the client still sends (bounded) before closing: closing on unread
        // bytes resets the connection, and the client would never see the answer.
        w.set_read_timeout(Some(Duration::from_secs(1)))?;
        let _ = std::io::copy(&mut r.take(MAX_BODY as u64), &mut std::io::sink());
        return Ok(());
    };
    let host = headers.get("host").map(String::as_str).unwrap_or("");
    if !st.hosts.iter().any(|h| h == host) {
        return respond(&mut w, 403, "text/plain", b"unknown Host\n");
    }
    let path = path.split('?').next().unwrap_or("");
    if (method.as_str(), path) == ("PUT", "/decisions") {
        return put_decisions(&mut r, &mut w, &headers, st, reading);
    }
    drop(reading);
    match (method.as_str(), path) {
        ("GET", "/") | ("GET", "/index.html") => {
            respond(&mut w, 200, "text/html; charset=utf-8", st.page.as_bytes())
        }
        ("GET", "/decisions") => {
            let _g = st.lock.lock().unwrap_or_else(|e| e.into_inner());
            let body = match std::fs::read(&st.file) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return respond(&mut w, 500, "text/plain", e.to_string().as_bytes()),
            };
            respond(&mut w, 200, "application/x-ndjson", &body)
        }
        ("GET", p) if p.starts_with("/thumb/") => page_image(&mut w, st, p),
        (_, "/") | (_, "/decisions") => respond(&mut w, 405, "text/plain", b"method not allowed\n"),
        _ => respond(&mut w, 404, "text/plain", b"not found\n"),
    }
}

/// `GET /thumb/ID`: a member's page image, or why there is none.
fn page_image(w: &mut TcpStream, st: &State, path: &str) -> Result<()> {
    let Some(pages) = &st.pages else {
        return respond(
            w,
            404,
            "text/plain",
            b"no page images: pl-report runs without --thumbs\n",
        );
    };
    let Some(id) = thumb_path_id(path) else {
        return respond(w, 404, "text/plain", b"not found\n");
    };
    if !pages.serves(id) {
        let msg = format!("document {id} is not in this report\n");
        return respond(w, 403, "text/plain", msg.as_bytes());
    }
    let Some(got) = pages.get(id) else {
        let msg = format!(
            "busy: {} page images are being fetched from Paperless; try again\n",
            super::pages::MAX_WAITING
        );
        return respond(w, 503, "text/plain", msg.as_bytes());
    };
    match got {
        Ok(Ok((image_type, bytes))) => send(w, 200, image_type, "private, max-age=600", &bytes),
        Ok(Err(why)) => {
            let msg = format!("page image unavailable: {why}\n");
            respond(w, 404, "text/plain", msg.as_bytes())
        }
        Err(msg) => respond(w, 502, "text/plain", format!("{msg}\n").as_bytes()),
    }
}

/// Whether a read failed for the request's deadline (or its silence timeout).
fn timed_out(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|e| {
            matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            )
        })
    })
}

/// The 408 a request gets when it is not in by its deadline.
fn too_late(w: &mut TcpStream) -> Result<()> {
    let msg = format!(
        "request not complete in time ({} s for all of it, {} s of silence)\n",
        REQUEST_DEADLINE.as_secs(),
        IO_TIMEOUT.as_secs()
    );
    respond(w, 408, "text/plain", msg.as_bytes())
}

/// `PUT /decisions`: the page's changes merged into the decisions file.
fn put_decisions(
    r: &mut BufReader<DeadlineReader>,
    w: &mut TcpStream,
    headers: &BTreeMap<String, String>,
    st: &State,
    reading: Reading,
) -> Result<()> {
    if let Some(o) = headers.get("origin") {
        if !st.origins.iter().any(|x| x == o) {
            return respond(w, 403, "text/plain", b"foreign Origin\n");
        }
    }
    // A body without a length (chunked) is refused, never read as empty: an empty set of
    // decisions would replace the file.
    let n: Option<usize> = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .filter(|_| !headers.contains_key("transfer-encoding"));
    let Some(n) = n else {
        return respond(w, 411, "text/plain", b"Content-Length required\n");
    };
    if n > st.body_limit {
        let msg = format!(
            "too large: the decisions of this report's groups need at most {} bytes\n",
            st.body_limit
        );
        return respond(w, 413, "text/plain", msg.as_bytes());
    }
    let Some(_held) = BodyBytes::take(&st.bodies, st.budget, n) else {
        let msg = format!(
            "busy: the request bodies being read would pass {} bytes; try again\n",
            st.budget
        );
        return respond(w, 503, "text/plain", msg.as_bytes());
    };
    let mut body = vec![0; n];
    match r.read_exact(&mut body) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            return too_late(w)
        }
        read => read?,
    }
    drop(reading);
    let text = String::from_utf8_lossy(&body);
    match parse_changes(&text, &st.groups) {
        Err(e) => respond(w, 400, "text/plain", e.to_string().as_bytes()),
        Ok(changes) => {
            let _g = st.lock.lock().unwrap_or_else(|e| e.into_inner());
            match merge(&st.file, &st.groups, changes) {
                Ok(n) => respond(
                    w,
                    200,
                    "application/json",
                    format!("{{\"saved\":{n}}}").as_bytes(),
                ),
                Err(e) => respond(w, 500, "text/plain", format!("{e:#}").as_bytes()),
            }
        }
    }
}

/// Merges changes into the decisions file (the caller holds the lock); the number of
/// decisions it then holds.
fn merge(
    file: &Path,
    groups: &PageGroups,
    changes: BTreeMap<u64, Option<Decision>>,
) -> Result<usize> {
    let mut all: BTreeMap<u64, Decision> = load(file, groups)
        .with_context(|| file.display().to_string())?
        .into_iter()
        .map(|d| (d.group, d))
        .collect();
    for (g, d) in changes {
        match d {
            Some(d) => all.insert(g, d),
            None => all.remove(&g),
        };
    }
    let ds: Vec<Decision> = all.into_values().collect();
    save(file, &ds)?;
    Ok(ds.len())
}

/// Replaces the decisions file atomically.
fn save(file: &Path, ds: &[Decision]) -> Result<()> {
    let mut out = create_output(Some(file))?;
    for d in ds {
        write_obj(&mut out, &d.to_obj())?;
    }
    out.finish()
}

fn respond(w: &mut TcpStream, status: u16, ctype: &str, body: &[u8]) -> Result<()> {
    send(w, status, ctype, "no-store", body)
}

/// An answer with its `Cache-Control`.
fn send(w: &mut TcpStream, status: u16, ctype: &str, cache: &str, body: &[u8]) -> Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        502 => "Bad Gateway",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    };
    // One buffer, so the head never reaches the client in pieces (an unbuffered `write!`
    // sends each formatted fragment as its own segment).
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Cache-Control: {cache}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    w.write_all(&out)?;
    w.flush()?;
    Ok(())
}
