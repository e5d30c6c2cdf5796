//! Paperless-NGX's workflow webhooks as pl-watch receives them: one HTTP/1.1 request read
//! from a connection within bounds (its head, its body and its time), the shared secret
//! compared in constant time, the document id in the body, and the answer.
//!
//! A plain `std::net` server with httparse (hyper's request parser, already built for the
//! HTTP client) reading the head: the requests are tiny and few, and every bound is ours.
//! (tiny_http, the small synchronous server crate, has had no release since 2022 and reads a
//! request's head without a size limit: its issue 56, open since 2015.)

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The header that carries the shared secret.
pub const SECRET_HEADER: &str = "x-pl-secret";

/// Most headers a request may have.
const MAX_HEADERS: usize = 48;

/// The bounds of one request.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request line and headers, in bytes (431 past it).
    pub head: usize,
    /// Largest body, in bytes (413 past it).
    pub body: usize,
    /// Longest time to receive the whole request (408 past it).
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head: 16 << 10,
            body: 64 << 10,
            time: Duration::from_secs(10),
        }
    }
}

/// Why a request is refused: its HTTP status and a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status answered.
    pub status: u16,
    /// What is wrong, one line.
    pub reason: String,
}

impl Refusal {
    /// A refusal with `status`.
    pub fn new(status: u16, reason: impl Into<String>) -> Refusal {
        Refusal {
            status,
            reason: reason.into(),
        }
    }
}

/// A request's head: method, path (without its query) and headers (names lower-cased).
#[derive(Debug, Clone)]
pub struct Head {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, query cut off.
    pub path: String,
    headers: Vec<(String, Vec<u8>)>,
    /// The body's bytes read with the head.
    rest: Vec<u8>,
}

impl Head {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// A reader of a connection that gives up at a deadline (each read waits only for the time
/// left): a client sending one byte a second cannot hold a handler past [`Limits::time`].
pub struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl<'a> Deadline<'a> {
    /// Reads `stream` until `time` from now.
    pub fn new(stream: &'a TcpStream, time: Duration) -> Deadline<'a> {
        Deadline {
            stream,
            until: Instant::now() + time,
        }
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

/// A read error as a refusal: a timeout is 408, anything else (the client went away) 400.
fn read_failed(e: std::io::Error) -> Refusal {
    match e.kind() {
        ErrorKind::TimedOut | ErrorKind::WouldBlock => {
            Refusal::new(408, "the request was not received in time")
        }
        _ => Refusal::new(400, format!("the request could not be read: {e}")),
    }
}

/// Reads a request's head (at most `limits.head` bytes, at most [`MAX_HEADERS`] headers).
pub fn read_head(r: &mut impl Read, limits: &Limits) -> Result<Head, Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let room = (limits.head + 1).saturating_sub(buf.len()).min(chunk.len());
        let n = r.read(&mut chunk[..room]).map_err(read_failed)?;
        if n == 0 {
            return Err(Refusal::new(
                400,
                "the connection closed before the request's end",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
                let path = req.path.unwrap_or("/");
                return Ok(Head {
                    method: req.method.unwrap_or("").to_string(),
                    path: path.split('?').next().unwrap_or("").to_string(),
                    headers: req
                        .headers
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
                        .collect(),
                    rest: buf[len..].to_vec(),
                });
            }
            Ok(httparse::Status::Partial) if buf.len() > limits.head => {
                return Err(Refusal::new(
                    431,
                    format!("the request's head is over {} bytes", limits.head),
                ));
            }
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => {
                return Err(Refusal::new(
                    431,
                    format!("more than {MAX_HEADERS} headers"),
                ))
            }
            Err(e) => return Err(Refusal::new(400, format!("not an HTTP request: {e}"))),
        }
    }
}

/// Reads the body `head` announces (Content-Length, at most `limits.body` bytes; a chunked
/// body is refused).
pub fn read_body(r: &mut impl Read, head: Head, limits: &Limits) -> Result<Vec<u8>, Refusal> {
    if head.header("transfer-encoding").is_some() {
        return Err(Refusal::new(
            411,
            "a chunked body is not accepted: send Content-Length",
        ));
    }
    let len = match head.header("content-length") {
        None => return Err(Refusal::new(411, "no Content-Length")),
        Some(v) => std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| Refusal::new(400, "Content-Length is not a number"))?,
    };
    if len > limits.body as u64 {
        return Err(Refusal::new(
            413,
            format!("the body is {len} bytes, over the limit of {}", limits.body),
        ));
    }
    let len = len as usize;
    let mut body = head.rest;
    if body.len() > len {
        body.truncate(len);
    }
    let mut chunk = [0u8; 4096];
    while body.len() < len {
        let want = (len - body.len()).min(chunk.len());
        let n = r.read(&mut chunk[..want]).map_err(read_failed)?;
        if n == 0 {
            return Err(Refusal::new(400, "the body ended before Content-Length"));
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(body)
}

/// Whether `given` is `secret`, compared in constant time (both hashed first, so neither the
/// bytes nor the length of the secret show in the time taken).
pub fn secret_matches(given: Option<&[u8]>, secret: &[u8]) -> bool {
    let Some(given) = given else {
        return false;
    };
    let (a, b) = (
        pl_core::sha256::sha256(given),
        pl_core::sha256::sha256(secret),
    );
    let diff = a.iter().zip(&b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // An empty secret never matches (pl-watch refuses one at start; this is the second lock).
    diff == 0 && !secret.is_empty()
}

/// The document id a webhook's body names: a JSON object with `doc_id` (a number, or its
/// decimal digits as a string: Paperless fills `"{{doc_id}}"` in), else `doc_url` (the
/// document's address, `.../documents/ID/...`). Anything else is refused with why.
pub fn document_id(body: &[u8]) -> Result<u64, String> {
    const HOW: &str = "send {\"doc_id\": \"{{doc_id}}\"}";
    let v: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON ({e}): {HOW}"))?;
    let Value::Object(o) = v else {
        return Err(format!("the body is not a JSON object: {HOW}"));
    };
    if let Some(id) = o.get("doc_id") {
        return match id {
            Value::Number(n) => n.as_u64().filter(|&i| valid(i)).map(Ok),
            Value::String(s) => Some(decimal_id(s.trim())),
            _ => None,
        }
        .unwrap_or_else(|| Err(format!("doc_id is not a document id: {}", shown(id))));
    }
    if let Some(url) = o.get("doc_url") {
        return url
            .as_str()
            .and_then(id_in_url)
            .ok_or_else(|| format!("doc_url names no document: {}", shown(url)));
    }
    Err(format!("no doc_id or doc_url in the body: {HOW}"))
}

/// A document id: from 1 to the largest SQLite integer.
fn valid(id: u64) -> bool {
    id >= 1 && id <= i64::MAX as u64
}

/// A decimal document id (no sign, no leading zero).
fn decimal_id(s: &str) -> Result<u64, String> {
    let ok = !s.is_empty() && s.len() <= 19 && !s.starts_with('0');
    match s.parse::<u64>() {
        Ok(i) if ok && s.bytes().all(|b| b.is_ascii_digit()) && valid(i) => Ok(i),
        _ => Err(format!(
            "doc_id is not a document id: {}",
            shown(&Value::String(s.to_string()))
        )),
    }
}

/// The id in `.../documents/ID/...` (the last `/documents/` of the address).
fn id_in_url(url: &str) -> Option<u64> {
    let at = url.rfind("/documents/")?;
    let rest = &url[at + "/documents/".len()..];
    let digits = rest.split(['/', '?', '#']).next()?;
    decimal_id(digits).ok()
}

/// A value in a message: JSON-escaped (one line), cut to 60 characters.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// The reason phrase of the statuses pl-watch answers.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// Writes an answer: `status` and a JSON body (one line), then the connection closes. One
/// buffer, so the head never reaches the client in pieces.
pub fn respond(w: &mut impl Write, status: u16, body: &Value) -> std::io::Result<()> {
    let body = format!("{body}\n");
    let out = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        reason(status),
        body.len()
    );
    w.write_all(out.as_bytes())?;
    w.flush()
}

/// After a refusal: what the client still sends is read (at most `most` bytes, for at most a
/// second) before the connection closes. Closing on unread bytes resets the connection, and
/// the client would never see the answer.
pub fn drain(stream: &TcpStream, most: u64) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let until = Instant::now() + Duration::from_secs(1);
    let mut r = Deadline { stream, until }.take(most);
    let _ = std::io::copy(&mut r, &mut std::io::sink());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(raw: &str, limits: &Limits) -> Result<Head, Refusal> {
        read_head(&mut raw.as_bytes(), limits)
    }

    #[test]
    fn a_request_s_head_and_body_are_read_within_their_bounds() {
        let l = Limits::default();
        let raw = "POST /webhook?x=1 HTTP/1.1\r\nHost: a\r\nX-PL-Secret: s3\r\n\
                   Content-Length: 13\r\n\r\n{\"doc_id\":12}";
        let mut r = raw.as_bytes();
        let head = read_head(&mut r, &l).unwrap();
        assert_eq!(
            (head.method.as_str(), head.path.as_str()),
            ("POST", "/webhook")
        );
        assert_eq!(head.header(SECRET_HEADER), Some(&b"s3"[..]));
        let body = read_body(&mut r, head, &l).unwrap();
        assert_eq!(document_id(&body), Ok(12));

        let small = Limits {
            body: 8,
            head: 64,
            ..l
        };
        let h = head_of("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", &small).unwrap();
        assert_eq!(read_body(&mut &b""[..], h, &small).unwrap_err().status, 413);
        let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(100));
        assert_eq!(head_of(&long, &small).unwrap_err().status, 431);
        let many: String = (0..60).map(|i| format!("H{i}: v\r\n")).collect();
        let many = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert_eq!(head_of(&many, &l).unwrap_err().status, 431);
        let h = head_of("POST / HTTP/1.1\r\n\r\n", &l).unwrap();
        assert_eq!(read_body(&mut &b""[..], h, &l).unwrap_err().status, 411);
        let h = head_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &l).unwrap();
        assert_eq!(read_body(&mut &b""[..], h, &l).unwrap_err().status, 411);
        let h = head_of("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", &l).unwrap();
        assert_eq!(read_body(&mut &b""[..], h, &l).unwrap_err().status, 400);
        assert_eq!(head_of("GET / HTTP/1.1\r\n", &l).unwrap_err().status, 400);
        assert_eq!(
            head_of("\x01\x02 nonsense\r\n\r\n", &l).unwrap_err().status,
            400
        );
    }

    #[test]
    fn the_secret_must_match_exactly() {
        assert!(secret_matches(Some(b"s3cret"), b"s3cret"));
        assert!(!secret_matches(Some(b"s3cre"), b"s3cret"));
        assert!(!secret_matches(Some(b"s3cret "), b"s3cret"));
        assert!(!secret_matches(None, b"s3cret"));
        assert!(!secret_matches(Some(b""), b""));
    }

    #[test]
    fn the_document_id_comes_from_doc_id_or_doc_url() {
        assert_eq!(document_id(br#"{"doc_id": "42"}"#), Ok(42));
        assert_eq!(document_id(br#"{"doc_id": 7}"#), Ok(7));
        assert_eq!(
            document_id(br#"{"doc_url": "http://p:8000/documents/31/"}"#),
            Ok(31)
        );
        assert_eq!(
            document_id(br#"{"doc_url": "https://p/x/documents/5/details"}"#),
            Ok(5)
        );
        for bad in [
            &br#"{"doc_id": "042"}"#[..],
            br#"{"doc_id": "-1"}"#,
            br#"{"doc_id": 0}"#,
            br#"{"doc_id": "{{doc_id}}"}"#,
            br#"{"doc_id": 1.5}"#,
            br#"{"doc_id": "99999999999999999999"}"#,
            br#"{"doc_url": "http://p/documents/"}"#,
            br#"{"other": 1}"#,
            b"[1]",
            b"doc_id=3",
        ] {
            let e = document_id(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        let e = document_id(br#"{"doc_id": "1\n2"}"#).unwrap_err();
        assert!(e.contains(r#""1\n2""#) && !e.contains('\n'), "{e}");
    }

    #[test]
    fn an_answer_is_one_json_body_with_its_length() {
        let mut out = Vec::new();
        respond(&mut out, 202, &serde_json::json!({"queued": 3})).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("HTTP/1.1 202 Accepted\r\n"), "{s}");
        assert!(
            s.contains("Content-Length: 13\r\n") && s.ends_with("{\"queued\":3}\n"),
            "{s}"
        );
    }
}
