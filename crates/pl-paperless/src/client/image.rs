//! A document's page image (its thumbnail, `/api/documents/ID/thumb/`) through the client:
//! the token, timeouts, retries and redaction of every other request, and an answer read only
//! up to the image's size limit. What the page shows is [`pl_core::thumb`]'s to decide.

use pl_core::thumb::{check_image, Cached, Unavailable};

use super::{timed_out, Answer, Client, Failed};
use crate::error::{Error, Result};

/// A 2xx answer as the server sent it (the token redacted): its content type and body, or
/// `None` for a body over the limit.
struct Raw {
    content_type: String,
    bytes: Option<Vec<u8>>,
}

fn raw_answer(
    client: &Client,
    _method: &str,
    _url: String,
    answer: Answer,
) -> std::result::Result<Raw, Failed> {
    let bytes = match answer.body {
        Ok(b) => Some(b),
        Err(ureq::Error::BodyExceedsLimit(_)) => None,
        Err(ureq::Error::Timeout(t)) => return Err(Failed::network(timed_out(t))),
        Err(e) => {
            let msg = client.token.redact_str(format!("answer cut short: {e}"));
            return Err(Failed::network(msg));
        }
    };
    Ok(Raw {
        content_type: answer.content_type,
        bytes,
    })
}

impl Client {
    /// Document `id`'s thumbnail: the image (its type by its bytes) when the answer is a WebP,
    /// PNG or JPEG of at most `max` bytes (a longer one is not read past `max + 1`), or why
    /// there is none: not found, permission denied, no answer after the retries, an HTTP error,
    /// not an image. `Err` only for what stops every image alike: the token refused, TLS, a
    /// redirect, a bad address, the API version.
    pub fn thumbnail(&self, id: u64, max: usize) -> Result<Cached> {
        let path = format!("/api/documents/{id}/thumb/");
        // This request's limit is the image's, not the client's for JSON lists.
        let limit = self.max_answer.replace(max as u64 + 1);
        let got = self.call_with("GET", &path, None, self.retry.retries, &raw_answer);
        self.max_answer.set(limit);
        match got {
            Ok(Raw { bytes: None, .. }) => Ok(Err(Unavailable::TooLarge(max >> 10))),
            Ok(Raw {
                content_type,
                bytes: Some(b),
            }) => Ok(check_image(&content_type, &b, max).map(|t| (t, b))),
            Err(e) => match e {
                Error::NotFound { .. } => {
                    Ok(Err(Unavailable::Fetch("not found (HTTP 404)".into())))
                }
                Error::Forbidden { .. } => Ok(Err(Unavailable::Fetch(
                    "permission denied (HTTP 403)".into(),
                ))),
                Error::Transport { msg, .. } => Ok(Err(Unavailable::Fetch(msg))),
                Error::Status { status, .. } => {
                    Ok(Err(Unavailable::Fetch(format!("HTTP {status}"))))
                }
                e => Err(e),
            },
        }
    }
}
