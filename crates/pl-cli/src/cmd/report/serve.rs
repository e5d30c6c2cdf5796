//! `pl-report --serve`: the page on 127.0.0.1, and the decisions file written as the
//! reviewer decides. A few lines of HTTP/1.1 over std::net: one thread per connection,
//! `Connection: close`, three routes.
//!
//! - `GET /` → the page.
//! - `GET /decisions` → the decisions file (NDJSON; empty when there is none yet).
//! - `PUT /decisions` → the page's whole set of decisions as NDJSON; each record is checked
//!   (a known group, its members, a primary among them), its `modified` filled from the
//!   docs, and the file is replaced atomically (temporary file + rename).
//!
//! Only requests whose `Host` is this address are answered (a DNS-rebinding page cannot
//! reach it), a `PUT` with another `Origin` is refused, and `PUT` is not a method a page on
//! another site may send without a CORS preflight, which is never granted.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use pl_core::decision::Decision;
use serde_json::Value;

use super::{render, Args};
use crate::common::Log;
use crate::io::create_output;
use crate::ndjson::{parse_object, write_obj};

/// Largest request body accepted (a decisions set for a very large library fits easily).
const MAX_BODY: usize = 64 << 20;

/// group number → (members ascending, `modified` per member from the docs).
type GroupIndex = BTreeMap<u64, (Vec<u64>, BTreeMap<u64, Option<String>>)>;

/// What the handlers share.
struct State {
    page: String,
    groups: GroupIndex,
    file: PathBuf,
    hosts: [String; 2],
    origins: [String; 2],
    /// Serializes writes of the decisions file.
    lock: Mutex<()>,
}

/// Serves until killed.
pub fn serve(args: &Args, data: &Value, log: &Log) -> Result<()> {
    let file = args.decisions.clone().expect("checked by run");
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    let mut groups = BTreeMap::new();
    for g in data["groups"].as_array().into_iter().flatten() {
        let members: Vec<u64> = g["members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        let modified = members
            .iter()
            .map(|m| {
                let v = data["docs"][m.to_string()]["modified"]
                    .as_str()
                    .map(str::to_owned);
                (*m, v)
            })
            .collect();
        groups.insert(g["group"].as_u64().unwrap_or(0), (members, modified));
    }
    // The decisions file must be readable now, not at the first save.
    load(&file, &groups).with_context(|| file.display().to_string())?;
    let state = Arc::new(State {
        page: render(data),
        groups,
        file: file.clone(),
        hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        origins: [
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ],
        lock: Mutex::new(()),
    });
    // Always printed (also with -q): it is the only way to learn a free port's number.
    eprintln!(
        "pl-report: serving http://127.0.0.1:{port}/ ; decisions are saved to {} ; Ctrl-C stops",
        file.display()
    );
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        let st = Arc::clone(&state);
        let log = log.clone();
        std::thread::spawn(move || {
            if let Err(e) = handle(stream, &st) {
                log.info(format!("request failed: {e:#}"));
            }
        });
    }
    Ok(())
}

/// Reads and checks a decisions file (absent is empty).
fn load(file: &Path, groups: &GroupIndex) -> Result<Vec<Decision>> {
    match std::fs::read_to_string(file) {
        Ok(text) => parse_decisions(&text, groups).map_err(anyhow::Error::msg),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).context("cannot read"),
    }
}

/// Parses NDJSON decisions against the report's groups; `modified` comes from the docs.
fn parse_decisions(text: &str, groups: &GroupIndex) -> std::result::Result<Vec<Decision>, String> {
    let mut out: BTreeMap<u64, Decision> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| format!("line {}: {m}", i + 1);
        let mut d = parse_object(line)
            .and_then(|o| Decision::from_obj(&o))
            .map_err(at)?;
        let (members, modified) = groups
            .get(&d.group)
            .ok_or_else(|| at(format!("group {} is not in this report", d.group)))?;
        if &d.members != members {
            return Err(at(format!(
                "group {}: members differ from the report's",
                d.group
            )));
        }
        d.modified = modified.clone();
        out.insert(d.group, d);
    }
    Ok(out.into_values().collect())
}

/// One request, one answer.
fn handle(stream: TcpStream, st: &State) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut r = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or("").to_owned(),
        parts.next().unwrap_or("").to_owned(),
    );
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let mut w = stream;
    let host = headers.get("host").map(String::as_str).unwrap_or("");
    if !st.hosts.iter().any(|h| h == host) {
        return respond(&mut w, 403, "text/plain", b"unknown Host\n");
    }
    let path = path.split('?').next().unwrap_or("");
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
        ("PUT", "/decisions") => {
            if let Some(o) = headers.get("origin") {
                if !st.origins.iter().any(|x| x == o) {
                    return respond(&mut w, 403, "text/plain", b"foreign Origin\n");
                }
            }
            // A body without a length (chunked) is refused, never read as empty: an empty
            // set of decisions would replace the file.
            let n: Option<usize> = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .filter(|_| !headers.contains_key("transfer-encoding"));
            let Some(n) = n else {
                return respond(&mut w, 411, "text/plain", b"Content-Length required\n");
            };
            if n > MAX_BODY {
                return respond(&mut w, 413, "text/plain", b"too large\n");
            }
            let mut body = vec![0; n];
            r.read_exact(&mut body)?;
            let text = String::from_utf8_lossy(&body);
            match parse_decisions(&text, &st.groups) {
                Err(msg) => respond(&mut w, 400, "text/plain", msg.as_bytes()),
                Ok(ds) => {
                    let _g = st.lock.lock().unwrap_or_else(|e| e.into_inner());
                    match save(&st.file, &ds) {
                        Ok(()) => respond(
                            &mut w,
                            200,
                            "application/json",
                            format!("{{\"saved\":{}}}", ds.len()).as_bytes(),
                        ),
                        Err(e) => respond(&mut w, 500, "text/plain", format!("{e:#}").as_bytes()),
                    }
                }
            }
        }
        (_, "/") | (_, "/decisions") => respond(&mut w, 405, "text/plain", b"method not allowed\n"),
        _ => respond(&mut w, 404, "text/plain", b"not found\n"),
    }
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
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Payload Too Large",
        _ => "Internal Server Error",
    };
    write!(
        w,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    w.write_all(body)?;
    w.flush()?;
    Ok(())
}
