//! What can go wrong talking to a server or keeping the local copy, one variant per thing the
//! user can act on. Messages name the URL (which never holds the token) and say what to check.

use std::path::PathBuf;

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// 401: no token, or the server does not know it.
    #[error("{url}: the server refused the token (HTTP 401: {detail}); check PAPERLESS_TOKEN or --token-file")]
    Unauthorized {
        /// The request URL.
        url: String,
        /// The server's `detail`.
        detail: String,
    },
    /// 403: the token's user may not do this.
    #[error("{url}: permission denied (HTTP 403: {detail}); the token's user lacks the permission to {action} documents")]
    Forbidden {
        /// The request URL.
        url: String,
        /// What was refused: "view" for a read, "change" for a write.
        action: &'static str,
        /// The server's `detail`.
        detail: String,
    },
    /// 404 on something that must exist.
    #[error("{url}: not found (HTTP 404); is PAPERLESS_URL the address of a Paperless-NGX server, including any path prefix?")]
    NotFound {
        /// The request URL.
        url: String,
        /// The server's `detail`, if it sent JSON.
        detail: String,
    },
    /// 406: the server does not speak the requested API version.
    #[error("{url}: the server refused API version {requested} (HTTP 406: {detail}); Paperless-NGX 2.15 or newer is needed (or choose another with --api-version)")]
    ApiVersion {
        /// The request URL.
        url: String,
        /// The version asked for.
        requested: u32,
        /// The server's `detail`.
        detail: String,
    },
    /// 2xx, but not JSON: typically a reverse proxy's or single sign-on login page.
    #[error("{url}: expected JSON but the server answered {content_type}; a login page of a reverse proxy or single sign-on in front of Paperless? (use an address that reaches the API directly)")]
    NotJson {
        /// The request URL.
        url: String,
        /// The content type received.
        content_type: String,
    },
    /// 3xx: redirects are not followed, so the token never travels to another address.
    #[error("{url}: redirected (HTTP {status}) to {location}; set PAPERLESS_URL to the address the API answers on (a redirect to a login page means the address is wrong)")]
    Redirect {
        /// The request URL.
        url: String,
        /// The status.
        status: u16,
        /// The `Location` header.
        location: String,
    },
    /// An answer over `--max-answer-mb`.
    #[error("{url}: the answer is over {limit_mb} MiB (--max-answer-mb); ask for fewer documents per request with --page-size")]
    TooLarge {
        /// The request URL.
        url: String,
        /// The limit.
        limit_mb: u64,
    },
    /// TLS handshake or certificate failure.
    #[error("{url}: TLS failed: {msg}; for a self-signed certificate pass its CA with --ca-cert")]
    Tls {
        /// The request URL.
        url: String,
        /// What the TLS layer said.
        msg: String,
    },
    /// Connection refused, reset, timed out or cut short, after every retry.
    #[error("{url}: {msg} (gave up after {attempts} attempts)")]
    Transport {
        /// The request URL.
        url: String,
        /// What happened last.
        msg: String,
        /// Attempts made.
        attempts: u32,
    },
    /// An HTTP status that retrying did not fix, or one that is not worth retrying.
    #[error("{url}: HTTP {status} (after {attempts} attempts): {body}")]
    Status {
        /// The request URL.
        url: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The start of the body, for the user.
        body: String,
    },
    /// A body that is not the JSON expected (cut short, or a different shape).
    #[error("{url}: unexpected answer: {msg}")]
    Shape {
        /// The request URL.
        url: String,
        /// What is wrong with it.
        msg: String,
    },
    /// A local file (token, CA certificate, state, corpus file).
    #[error("{}: {msg}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        msg: String,
    },
    /// A setting that cannot work (bad URL, empty token, id collision).
    #[error("{0}")]
    Config(String),
    /// pl-apply's journal could not be opened, read or written.
    #[error("{}: {what}", path.display())]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What failed ("cannot open the journal", "cannot write the journal", ...).
        what: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A write request failed and the run stopped there: what came before is done and
    /// journaled, nothing after it was tried.
    #[error("{what}")]
    Stopped {
        /// What failed, and how to resume.
        what: String,
        /// The server's error.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// Whether a write that ended in this error may have changed the server all the same:
    /// no answer (timeout, cut short), a 5xx, or a 2xx answer we could not read. A refusal
    /// the server answered (4xx, a redirect, TLS, a bad address) changed nothing.
    pub fn may_have_landed(&self) -> bool {
        match self {
            Error::Status { status, .. } => *status >= 500 || *status == 408,
            Error::Transport { .. }
            | Error::Shape { .. }
            | Error::NotJson { .. }
            | Error::TooLarge { .. } => true,
            Error::Stopped { source, .. } => source.may_have_landed(),
            _ => false,
        }
    }

    /// Whether the server refused the request itself, for good: asking the same again gets
    /// the same answer (403, 404, and any other 4xx but 401, the token, which every request
    /// meets alike; 406, the API version; 408 and 429, which ask to try later). A service
    /// drops what it was doing for the document and goes on.
    pub fn refused_for_good(&self) -> bool {
        match self {
            Error::Forbidden { .. } | Error::NotFound { .. } => true,
            Error::Status { status, .. } => {
                (400..500).contains(status) && !matches!(status, 401 | 406 | 408 | 429)
            }
            Error::Stopped { source, .. } => source.refused_for_good(),
            _ => false,
        }
    }

    pub(crate) fn file(path: &std::path::Path, msg: impl std::fmt::Display) -> Error {
        Error::File {
            path: path.to_path_buf(),
            msg: msg.to_string(),
        }
    }
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_the_request_is_for_good_and_trouble_of_the_server_or_the_token_is_not() {
        let status = |status| Error::Status {
            url: "u".into(),
            status,
            attempts: 1,
            body: String::new(),
        };
        let forbidden = Error::Forbidden {
            url: "u".into(),
            action: "change",
            detail: String::new(),
        };
        let not_found = Error::NotFound {
            url: "u".into(),
            detail: String::new(),
        };
        for e in [forbidden, not_found, status(400), status(409), status(422)] {
            assert!(e.refused_for_good(), "{e}");
        }
        let transport = Error::Transport {
            url: "u".into(),
            msg: "connection refused".into(),
            attempts: 2,
        };
        let token = Error::Unauthorized {
            url: "u".into(),
            detail: String::new(),
        };
        for e in [
            status(500),
            status(503),
            status(408),
            status(429),
            status(401),
            transport,
            token,
        ] {
            assert!(!e.refused_for_good(), "{e}");
        }
        let stopped = |source| Error::Stopped {
            what: "w".into(),
            source: Box::new(source),
        };
        assert!(stopped(status(403)).refused_for_good());
        assert!(!stopped(status(502)).refused_for_good());
    }
}
