//! The HTTP side: one agent with timeouts, token auth, API version negotiation, bounded
//! retries with exponential backoff and jitter, and a clear error for everything else.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::error::{Error, Result};

mod image;

/// An API token. It is sent only in the `Authorization` header: `Debug` hides it and no error
/// message carries it.
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<hidden>)")
    }
}

impl Token {
    /// A token from a string (surrounding whitespace, e.g. the newline of a file, is dropped).
    pub fn new(s: &str) -> Result<Token> {
        let t = s.trim();
        if t.is_empty() {
            return Err(Error::Config("the token is empty".into()));
        }
        // A header value must be visible ASCII; say so without echoing the value.
        if !t.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::Config(
                "the token contains spaces or non-ASCII characters; copy it again from Paperless"
                    .into(),
            ));
        }
        Ok(Token(t.to_owned()))
    }

    /// What a token is replaced with wherever a server repeats it.
    pub const REDACTED: &'static str = crate::redact::REDACTED;

    /// `bytes` with every occurrence of the token replaced by [`Token::REDACTED`]: a server
    /// that echoes the Authorization header in a body or header must not make us print or
    /// write it. Any letter case and the escaped forms count ([`crate::redact`]).
    pub fn redact(&self, bytes: Vec<u8>) -> Vec<u8> {
        crate::redact::redact(self.0.as_bytes(), bytes)
    }

    /// [`Token::redact`] for a text.
    pub fn redact_str(&self, s: String) -> String {
        crate::redact::redact_str(self.0.as_bytes(), s)
    }

    /// Reads the token from a file (its first line).
    pub fn from_file(path: &Path) -> Result<Token> {
        let s = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
        Token::new(s.lines().next().unwrap_or("")).map_err(|e| Error::file(path, e))
    }
}

pub use crate::retry::Retry;

/// Connection settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Time to establish a connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// Longest silence while waiting for or reading an answer.
    pub read_timeout: Duration,
    /// Longest a request may take from start to its answer's last byte, however steadily
    /// the server trickles it.
    pub deadline: Duration,
    /// Largest answer body read, in bytes: a bigger one is an error, not a memory blow-up.
    pub max_answer: u64,
    /// API version asked for in `Accept` (9 works on Paperless-NGX 2.15+ and 3.x).
    pub api_version: u32,
    /// Retry policy.
    pub retry: Retry,
    /// PEM file with the CA certificate(s) to trust instead of the built-in roots.
    pub ca_cert: Option<PathBuf>,
}

/// Default of [`Options::deadline`], in seconds.
pub const DEFAULT_DEADLINE_SECS: u64 = 600;
/// Default of [`Options::max_answer`], in MiB.
pub const DEFAULT_MAX_ANSWER_MB: u64 = 1024;

impl Default for Options {
    fn default() -> Options {
        Options {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(60),
            deadline: Duration::from_secs(DEFAULT_DEADLINE_SECS),
            max_answer: DEFAULT_MAX_ANSWER_MB << 20,
            api_version: 9,
            retry: Retry::default(),
            ca_cert: None,
        }
    }
}

/// What the server said about itself (from `X-Api-Version` / `X-Version`).
#[derive(Debug, Clone, Default)]
pub struct ServerInfo {
    /// Highest API version the server speaks.
    pub api_version: Option<String>,
    /// Paperless-NGX release.
    pub release: Option<String>,
}

/// A Paperless-NGX API client.
pub struct Client {
    agent: ureq::Agent,
    base: String,
    token: Token,
    version: Cell<u32>,
    pub(crate) retry: Retry,
    server: RefCell<ServerInfo>,
    pub(crate) notify: Box<dyn Fn(&str)>,
    max_answer: Cell<u64>,
    /// A write went unanswered (or got a 5xx) before a retry: that copy may still land.
    pub(crate) unanswered: Cell<bool>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("version", &self.version.get())
            .finish_non_exhaustive()
    }
}

/// The outcome of one attempt that did not succeed.
enum Failed {
    /// Worth another try (after its `wait`, or the backoff).
    Retry(Retryable),
    /// Try once more at once with this API version.
    Renegotiate(u32),
    /// 406 without a version hint: ask once without a version to learn the server's.
    Probe(String),
    /// Give up now.
    Fatal(Error),
}

/// A failure worth another try: what went wrong, and how long the server asked us to wait.
struct Retryable {
    msg: String,
    status: Option<u16>,
    body: String,
    wait: Option<Duration>,
}

impl Failed {
    /// A failure of the network or of the answer's transfer, worth another try.
    fn network(msg: String) -> Failed {
        Failed::Retry(Retryable {
            msg,
            status: None,
            body: String::new(),
            wait: None,
        })
    }
}

impl Retryable {
    /// The error reported once no retry is left: the last status if there was one, else the
    /// network trouble.
    fn into_error(self, url: String, attempts: u32) -> Error {
        match self.status {
            Some(status) => Error::Status {
                url,
                status,
                attempts,
                body: self.body,
            },
            None => Error::Transport {
                url,
                msg: self.msg,
                attempts,
            },
        }
    }
}

/// What takes a 2xx answer: the client, the method, the URL and the answer.
type Accept<T> = dyn Fn(&Client, &str, String, Answer) -> std::result::Result<T, Failed>;

/// An answer's status, the headers acted on (token redacted) and its body as read.
struct Answer {
    status: u16,
    /// Lowercase; empty when the header is missing.
    content_type: String,
    /// `X-Api-Version`: the highest API version the server speaks.
    offered: Option<String>,
    location: Option<String>,
    retry_after: Option<Duration>,
    /// The body up to [`Options::max_answer`], or why it could not be read.
    body: std::result::Result<Vec<u8>, ureq::Error>,
}

/// Normalizes a base URL: scheme required, trailing `/` and a trailing `/api` dropped.
pub fn normalize_base(url: &str) -> Result<String> {
    let u = url.trim();
    // user:password@ would end up in messages and in the state file: tokens only.
    let authority = u.split_once("://").map_or(u, |(_, rest)| rest);
    if authority.split('/').next().unwrap_or("").contains('@') {
        return Err(Error::Config(
            "PAPERLESS_URL must not hold a user name or password; use an API token".into(),
        ));
    }
    if pl_core::page::safe_url(u).is_none() {
        return Err(Error::Config(format!(
            "PAPERLESS_URL must start with http:// or https:// (got {u:?})"
        )));
    }
    if u.contains(['?', '#']) || u.contains(char::is_whitespace) {
        return Err(Error::Config(format!(
            "PAPERLESS_URL must be a plain address without query or spaces (got {u:?})"
        )));
    }
    let mut b = u.trim_end_matches('/');
    if let Some(s) = b.strip_suffix("/api") {
        b = s;
    }
    Ok(b.to_owned())
}

/// Percent-encodes a query value (everything but unreserved characters), so a `+` in a
/// timestamp is not read as a space.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn load_ca(path: &Path) -> Result<Vec<ureq::tls::Certificate<'static>>> {
    let pem = std::fs::read(path).map_err(|e| Error::file(path, e))?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item.map_err(|e| Error::file(path, format!("not a PEM file: {e}")))? {
            ureq::tls::PemItem::Certificate(c) => certs.push(c.to_owned()),
            _ => continue,
        }
    }
    if certs.is_empty() {
        return Err(Error::file(path, "no PEM certificate in it"));
    }
    Ok(certs)
}

fn detail_of(body: &[u8], content_type: &str) -> String {
    if content_type.contains("html") {
        return "an HTML page".into();
    }
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        if let Some(d) = v.get("detail").and_then(Value::as_str) {
            return d.to_owned();
        }
        return snippet(v.to_string().as_bytes());
    }
    snippet(body)
}

/// The start of a body, on one line, for an error message.
fn snippet(body: &[u8]) -> String {
    let s = String::from_utf8_lossy(&body[..body.len().min(300)]);
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.trim().is_empty() {
        "(empty body)".into()
    } else {
        s.trim().to_owned()
    }
}

fn parse_retry_after(v: Option<&str>) -> Option<Duration> {
    v?.trim().parse::<u64>().ok().map(Duration::from_secs)
}

impl Client {
    /// A client for `base_url` (e.g. `https://paperless.example.org`).
    pub fn new(base_url: &str, token: Token, opts: &Options) -> Result<Client> {
        let base = normalize_base(base_url)?;
        let mut cfg = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are reported, not followed: the token must not travel elsewhere.
            .max_redirects(0)
            .timeout_connect(Some(opts.connect_timeout))
            .timeout_per_read(Some(opts.read_timeout))
            .timeout_send_request(Some(opts.read_timeout))
            .timeout_global(Some(opts.deadline))
            .user_agent(concat!("pl-fetch/", env!("CARGO_PKG_VERSION")));
        if let Some(ca) = &opts.ca_cert {
            let certs = load_ca(ca)?;
            cfg = cfg.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&certs))
                    .build(),
            );
        }
        Ok(Client {
            agent: cfg.build().into(),
            base,
            token,
            version: Cell::new(opts.api_version),
            retry: opts.retry.clone(),
            server: RefCell::new(ServerInfo::default()),
            notify: Box::new(|_| {}),
            max_answer: Cell::new(opts.max_answer),
            unanswered: Cell::new(false),
        })
    }

    /// Calls `f` with a one-line note before each retry (what failed, when the next try is).
    pub fn on_retry(mut self, f: impl Fn(&str) + 'static) -> Client {
        self.notify = Box::new(f);
        self
    }

    /// The normalized base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The API version in use (after any negotiation).
    pub fn api_version(&self) -> u32 {
        self.version.get()
    }

    /// Moves to the highest API version the server offers (`X-Api-Version` of an earlier
    /// answer), up to `highest_known`; never down. Version 10 drops the `all` id list that
    /// version 9 repeats on every page, which costs much on big libraries.
    pub fn upgrade_version(&self, highest_known: u32) {
        if let Some(v) = self.offered_version().map(|v| v.min(highest_known)) {
            if v > self.version.get() {
                self.version.set(v);
            }
        }
    }

    /// The API version the server's last `X-Api-Version` header offered, if it named one.
    fn offered_version(&self) -> Option<u32> {
        let server = self.server.borrow();
        server.api_version.as_deref().and_then(|v| v.parse().ok())
    }

    /// What the server told about itself so far.
    pub fn server(&self) -> ServerInfo {
        self.server.borrow().clone()
    }

    /// GETs `path_query` (starting with `/api/`) and returns its JSON, retrying what is worth it.
    pub fn get_json(&self, path_query: &str) -> Result<Value> {
        self.call("GET", path_query, None, self.retry.retries)
    }

    /// POSTs a JSON body; the answer's JSON, or a JSON string holding a plain-text answer.
    pub fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        self.call("POST", path, Some(body), self.retry.retries)
    }

    /// DELETEs `path` (204 gives `null`).
    pub fn delete(&self, path: &str) -> Result<Value> {
        self.call("DELETE", path, None, self.retry.retries)
    }

    /// `method` on `path_query`, with up to `retries` retries of what is worth it.
    pub(crate) fn call(
        &self,
        method: &str,
        path_query: &str,
        body: Option<&Value>,
        retries: u32,
    ) -> Result<Value> {
        self.call_with(method, path_query, body, retries, &Client::accepted)
    }

    /// [`Client::call`], a 2xx answer taken by `accept` (the JSON one, or an image's).
    fn call_with<T>(
        &self,
        method: &str,
        path_query: &str,
        body: Option<&Value>,
        retries: u32,
        accept: &Accept<T>,
    ) -> Result<T> {
        let url = format!("{}{}", self.base, path_query);
        let mut attempt = 0u32;
        let mut renegotiated = false;
        loop {
            attempt += 1;
            match self.once(method, &url, body, Some(self.version.get()), accept) {
                Ok(v) => return Ok(v),
                Err(Failed::Fatal(e)) => return Err(e),
                Err(Failed::Renegotiate(v)) if !renegotiated => {
                    renegotiated = true;
                    self.switch_version(v);
                    attempt -= 1;
                }
                Err(Failed::Probe(detail)) if !renegotiated => {
                    renegotiated = true;
                    self.probe_version(method, &url, body, detail)?;
                    attempt -= 1;
                }
                Err(Failed::Renegotiate(_)) | Err(Failed::Probe(_)) => {
                    return Err(Error::ApiVersion {
                        url,
                        requested: self.version.get(),
                        detail: "refused again after switching versions".into(),
                    })
                }
                Err(Failed::Retry(failure)) => {
                    let landing = method != "GET" && failure.status != Some(429);
                    self.unanswered.set(self.unanswered.get() || landing);
                    if attempt > retries {
                        return Err(failure.into_error(url, attempt));
                    }
                    self.wait_before_retry(&url, attempt, &failure);
                }
            }
        }
    }

    /// Moves to API version `v`, which the server offered after refusing the one in use,
    /// and says so.
    fn switch_version(&self, v: u32) {
        (self.notify)(&format!(
            "the server refused API version {}; using version {v} that it offers",
            self.version.get()
        ));
        self.version.set(v);
    }

    /// After a 406 that named no version: asks once without one to learn a version the
    /// server speaks and moves to it, or fails with the refusal's `detail`.
    fn probe_version(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        detail: String,
    ) -> Result<()> {
        let requested = self.version.get();
        // Ask without a version: the answer's X-Api-Version names one it speaks. A network
        // failure then is what to report, not the version.
        if let Err(Failed::Retry(r)) = self.once(method, url, body, None, &|_, _, _, _| Ok(())) {
            if r.status.is_none() {
                return Err(Error::Transport {
                    url: url.to_owned(),
                    msg: format!(
                        "{} (asking without a version which API version the server speaks, after HTTP 406)",
                        r.msg
                    ),
                    attempts: 2,
                });
            }
        }
        match self.offered_version() {
            // Below 9 the answers have other shapes (`created` a datetime).
            Some(v) if v != requested && v >= 9 => {
                self.switch_version(v);
                Ok(())
            }
            _ => Err(Error::ApiVersion {
                url: url.to_owned(),
                requested,
                detail,
            }),
        }
    }

    /// Says what failed and when the next try is, then sleeps until then: the server's
    /// `Retry-After` (capped) if it sent one, else the backoff for `attempt`.
    fn wait_before_retry(&self, url: &str, attempt: u32, failure: &Retryable) {
        let delay = failure
            .wait
            .map(|w| w.min(self.retry.max_retry_after))
            .unwrap_or_else(|| self.retry.backoff(attempt));
        (self.notify)(&format!(
            "{url}: {}; retry {attempt} of {} in {:.1}s",
            failure.msg,
            self.retry.retries,
            delay.as_secs_f64()
        ));
        std::thread::sleep(delay);
    }

    fn once<T>(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        version: Option<u32>,
        accept: &Accept<T>,
    ) -> std::result::Result<T, Failed> {
        let sent = self.send(method, url, body, version);
        // Everything the server says passes through the token's redaction before we look at
        // it: its headers, its body, the transport's error text.
        let resp = sent.map_err(|e| transport_failure(url, e, &self.token))?;
        let answer = self.read_answer(resp);
        let url = url.to_owned();
        match answer.status {
            200..=299 => accept(self, method, url, answer),
            300..=399 => Err(Failed::Fatal(Error::Redirect {
                url,
                status: answer.status,
                location: answer
                    .location
                    .unwrap_or_else(|| "(no Location header)".into()),
            })),
            _ => Err(self.refused(method, url, version, answer)),
        }
    }

    /// Sends one request with the token and the API version (`None`: no version) asked for.
    fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        version: Option<u32>,
    ) -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let accept = match version {
            Some(v) => format!("application/json; version={v}"),
            None => "application/json".to_owned(),
        };
        let auth = format!("Token {}", self.token.0);
        match (method, body) {
            ("POST", Some(b)) => self
                .agent
                .post(url)
                .header("Authorization", &auth)
                .header("Accept", &accept)
                .header("Content-Type", "application/json")
                .send(b.to_string().as_bytes()),
            ("PATCH", Some(b)) => self
                .agent
                .patch(url)
                .header("Authorization", &auth)
                .header("Accept", &accept)
                .header("Content-Type", "application/json")
                .send(b.to_string().as_bytes()),
            ("DELETE", _) => self
                .agent
                .delete(url)
                .header("Authorization", &auth)
                .header("Accept", &accept)
                .call(),
            _ => self
                .agent
                .get(url)
                .header("Authorization", &auth)
                .header("Accept", &accept)
                .call(),
        }
    }

    /// Reads the headers acted on and the body (up to the size limit), token redacted, and
    /// records what the server says about itself.
    fn read_answer(&self, mut resp: ureq::http::Response<ureq::Body>) -> Answer {
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| self.token.redact_str(v.to_owned()))
        };
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let offered = header("x-api-version");
        if let Some(v) = offered.clone() {
            let mut s = self.server.borrow_mut();
            s.api_version = Some(v);
            s.release = header("x-version");
        }
        let location = header("location");
        let retry_after = parse_retry_after(header("retry-after").as_deref());
        let body = resp
            .body_mut()
            .with_config()
            .limit(self.max_answer.get())
            .read_to_vec()
            .map(|b| self.token.redact(b));
        Answer {
            status,
            content_type,
            offered,
            location,
            retry_after,
            body,
        }
    }

    /// A 2xx answer's value: its JSON, `null` for 204, or the text of a plain-text answer to
    /// a write.
    fn accepted(
        &self,
        method: &str,
        url: String,
        answer: Answer,
    ) -> std::result::Result<Value, Failed> {
        let Answer {
            status,
            content_type,
            body: read,
            ..
        } = answer;
        if status == 204 {
            return Ok(Value::Null);
        }
        if !content_type.is_empty() && !content_type.contains("json") {
            if content_type.starts_with("text/plain") && method != "GET" {
                // bulk_edit and friends answer plain text on some outcomes.
                let text = read.unwrap_or_default();
                return Ok(Value::String(String::from_utf8_lossy(&text).into_owned()));
            }
            return Err(Failed::Fatal(Error::NotJson { url, content_type }));
        }
        let bytes = read.map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => Failed::Fatal(Error::TooLarge {
                url: url.clone(),
                limit_mb: self.max_answer.get() >> 20,
            }),
            ureq::Error::Timeout(t) => Failed::network(timed_out(t)),
            e => Failed::network(self.token.redact_str(format!("answer cut short: {e}"))),
        })?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Failed::network(format!("answer is not valid JSON (cut short?): {e}")))
    }

    /// What a 4xx or 5xx answer means: give up, try another API version, or retry (5xx and
    /// 429, after the server's `Retry-After` where it applies).
    fn refused(&self, method: &str, url: String, version: Option<u32>, answer: Answer) -> Failed {
        let status = answer.status;
        let bytes = answer.body.unwrap_or_default();
        let detail = detail_of(&bytes, &answer.content_type);
        match status {
            401 => Failed::Fatal(Error::Unauthorized { url, detail }),
            403 => Failed::Fatal(Error::Forbidden {
                url,
                detail,
                action: if method == "GET" { "view" } else { "change" },
            }),
            404 => Failed::Fatal(Error::NotFound { url, detail }),
            406 => match answer.offered.and_then(|v| v.parse::<u32>().ok()) {
                Some(v) if Some(v) != version && v >= 9 => Failed::Renegotiate(v),
                _ => Failed::Probe(detail),
            },
            429 => Failed::Retry(Retryable {
                msg: "HTTP 429 (too many requests)".into(),
                status: Some(status),
                body: detail,
                wait: answer.retry_after,
            }),
            500..=599 => Failed::Retry(Retryable {
                msg: format!("HTTP {status}"),
                status: Some(status),
                body: detail,
                wait: answer.retry_after.filter(|_| status == 503),
            }),
            _ => Failed::Fatal(Error::Status {
                url,
                status,
                attempts: 1,
                body: detail,
            }),
        }
    }
}

/// What a timeout of ureq's means here.
fn timed_out(t: ureq::Timeout) -> String {
    match t {
        ureq::Timeout::Global => "timed out: the request took longer than --deadline".into(),
        t => format!("timed out ({t})"),
    }
}

/// Sorts a ureq error into fatal (TLS, bad address) or worth retrying (network trouble).
fn transport_failure(url: &str, e: ureq::Error, token: &Token) -> Failed {
    let msg = token.redact_str(e.to_string());
    let lower = msg.to_ascii_lowercase();
    let tls = matches!(
        e,
        ureq::Error::Tls(_) | ureq::Error::Pem(_) | ureq::Error::Rustls(_)
    ) || lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        // rustls reached through an io::Error: e.g. https:// to a plain-HTTP port.
        || lower.contains("corrupt message")
        || lower.contains("alert");
    if tls {
        return Failed::Fatal(Error::Tls {
            url: url.to_owned(),
            msg,
        });
    }
    match e {
        ureq::Error::BadUri(_) | ureq::Error::Http(_) => {
            Failed::Fatal(Error::Config(format!("{url}: not a usable address: {msg}")))
        }
        ureq::Error::Timeout(t) => Failed::network(timed_out(t)),
        _ => Failed::network(msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_redacted_wherever_it_appears() {
        let t = Token::new("s3cr3t").unwrap();
        assert_eq!(
            t.redact(b"Token s3cr3t, again s3cr3ts3cr3t".to_vec()),
            b"Token <token>, again <token><token>"
        );
        assert_eq!(t.redact(b"nothing here".to_vec()), b"nothing here");
        assert_eq!(t.redact_str("x s3cr3t".into()), "x <token>");
        assert_eq!(format!("{t:?}"), "Token(<hidden>)");
    }

    #[test]
    fn base_urls_are_normalized() {
        assert_eq!(normalize_base("http://h:8000/").unwrap(), "http://h:8000");
        assert_eq!(normalize_base("https://h/p/api/").unwrap(), "https://h/p");
        assert!(normalize_base("h:8000").is_err());
        assert!(normalize_base("http://h/?x=1").is_err());
        for u in ["https://me:secret@h/", "me:secret@h"] {
            let e = normalize_base(u).unwrap_err().to_string();
            assert!(!e.contains("secret"), "{e}");
        }
        assert_eq!(normalize_base("https://h/a@b").unwrap(), "https://h/a@b");
    }

    #[test]
    fn encoding_keeps_plus_signs_apart() {
        assert_eq!(
            encode("2026-01-01T00:00:00+00:00"),
            "2026-01-01T00%3A00%3A00%2B00%3A00"
        );
        assert_eq!(encode("a b,c"), "a%20b%2Cc");
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let r = Retry {
            retries: 10,
            base: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(60),
        };
        for n in 1..=10 {
            let full = Duration::from_millis(100 * (1 << (n - 1))).min(Duration::from_secs(1));
            let d = r.backoff(n);
            assert!(d <= full && d >= full / 2, "{n}: {d:?}");
        }
    }

    #[test]
    fn tokens_are_hidden_and_checked() {
        let t = Token::new(" abc123\n").unwrap();
        assert_eq!(format!("{t:?}"), "Token(<hidden>)");
        assert!(Token::new("  ").is_err());
        let e = Token::new("abc déf").unwrap_err().to_string();
        assert!(!e.contains("abc"), "{e}");
    }
}
