//! Sending requests to the server: the HTTP client, the bearer token, retries with backoff for
//! what may pass (connection refused or reset, HTTP 5xx) and clear failures for what will not
//! (HTTP 4xx, with the server's own error message). Error bodies and the `/models` list are read
//! only up to their caps ([`super::limits`]).

use super::limits::{read_capped, size, BodyEnd, MAX_ERROR_BODY, MAX_MODELS_BODY};
use super::wire::{clip, error_message};
use std::time::Duration;

/// Why a request got no usable response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    /// The server answered with a status that retrying will not change (4xx, 501, or a 5xx the
    /// caller declared final).
    #[error("{url} answered HTTP {status}: {message}")]
    Rejected {
        url: String,
        status: u16,
        message: String,
    },
    /// Nothing listening, or the connection broke, on every try.
    #[error("cannot reach {url}: {reason} after {tries} tries; is the server running?")]
    Unreachable {
        url: String,
        reason: String,
        tries: usize,
    },
    /// The server kept failing (5xx) on every try.
    #[error("{url} answered HTTP {status} after {tries} tries: {message}")]
    ServerError {
        url: String,
        status: u16,
        message: String,
        tries: usize,
    },
    /// The request could not be made at all.
    #[error("request to {url} failed: {reason}")]
    Failed { url: String, reason: String },
}

/// Default waits between tries: three retries after 0.5 s, 1 s and 2 s.
pub const RETRY_DELAYS: [Duration; 3] = [
    Duration::from_millis(500),
    Duration::from_millis(1000),
    Duration::from_millis(2000),
];

#[derive(Debug, Clone)]
pub struct Transport {
    client: reqwest::Client,
    api_key: Option<String>,
    retry_delays: Vec<Duration>,
}

impl Transport {
    pub fn new(api_key: Option<String>, connect_timeout: Duration) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            // Local servers: an HTTP proxy from the environment would only be in the way.
            .no_proxy()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Transport {
            client,
            api_key: api_key.filter(|k| !k.is_empty()),
            retry_delays: RETRY_DELAYS.to_vec(),
        })
    }

    /// POST `body` as JSON to `url`, retrying connection failures and 5xx answers; returns the
    /// first 2xx response (its body not yet read). `final_5xx` marks 5xx answers (status and
    /// error message) that retrying cannot fix; they come back as [`SendError::Rejected`].
    pub async fn post_json(
        &self,
        url: &str,
        body: &serde_json::Value,
        final_5xx: &(dyn Fn(u16, &str) -> bool + Sync),
    ) -> Result<reqwest::Response, SendError> {
        let tries = self.retry_delays.len() + 1;
        let mut last: Option<SendError> = None;
        for attempt in 0..tries {
            if attempt > 0 {
                let delay = self.retry_delays[attempt - 1];
                tokio::time::sleep(delay).await;
            }
            let mut builder = self
                .client
                .post(url)
                .header("accept", "text/event-stream, application/json")
                .json(body);
            if let Some(key) = &self.api_key {
                builder = builder.bearer_auth(key);
            }
            match builder.send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let message = error_body_message(response).await;
                    if (500..600).contains(&status) && status != 501 && !final_5xx(status, &message)
                    {
                        last = Some(SendError::ServerError {
                            url: url.to_string(),
                            status,
                            message,
                            tries,
                        });
                        continue;
                    }
                    return Err(SendError::Rejected {
                        url: url.to_string(),
                        status,
                        message,
                    });
                }
                Err(e) if e.is_connect() || e.is_request() => {
                    last = Some(SendError::Unreachable {
                        url: url.to_string(),
                        reason: describe(&e),
                        tries,
                    });
                }
                Err(e) => {
                    return Err(SendError::Failed {
                        url: url.to_string(),
                        reason: describe(&e),
                    })
                }
            }
        }
        Err(last.unwrap_or(SendError::Failed {
            url: url.to_string(),
            reason: "no attempt was made".to_string(),
        }))
    }

    /// GET `url` once (no retries) and parse the body as JSON. `Ok(None)` when the server
    /// answered but not with a JSON 2xx of at most [`MAX_MODELS_BODY`] bytes; `Err` when it
    /// could not be reached in `timeout`.
    pub async fn get_json(
        &self,
        url: &str,
        timeout: Duration,
    ) -> Result<Option<serde_json::Value>, String> {
        let mut builder = self.client.get(url).timeout(timeout);
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        let response = builder.send().await.map_err(|e| describe(&e))?;
        if !response.status().is_success() {
            return Ok(None);
        }
        let body = read_capped(response, MAX_MODELS_BODY).await;
        match body.end {
            BodyEnd::Complete => Ok(serde_json::from_slice(&body.bytes).ok()),
            // Too long to be a model list: no name from it.
            BodyEnd::Cut => Ok(None),
            BodyEnd::Broken(reason) => Err(reason),
        }
    }
}

/// The message of an error answer, read from at most [`MAX_ERROR_BODY`] bytes of its body (the
/// rest is not read: dropping the response closes the connection).
async fn error_body_message(response: reqwest::Response) -> String {
    let body = read_capped(response, MAX_ERROR_BODY).await;
    let message = error_message(&String::from_utf8_lossy(&body.bytes));
    let message = if message.is_empty() {
        "(empty body)".to_string()
    } else {
        message
    };
    match body.end {
        BodyEnd::Complete | BodyEnd::Broken(_) => message,
        BodyEnd::Cut => format!(
            "{message} (the error body is longer than {}, the most read of one; the rest was \
             not read — the server's own log should hold the whole error)",
            size(MAX_ERROR_BODY)
        ),
    }
}

/// The most telling part of a request error: the I/O error kind when there is one
/// ("connection refused"), else the innermost cause.
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut innermost = error.to_string();
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                std::io::ErrorKind::ConnectionReset => "connection reset".to_string(),
                std::io::ErrorKind::ConnectionAborted => "connection aborted".to_string(),
                std::io::ErrorKind::TimedOut => "connection timed out".to_string(),
                _ => io.to_string(),
            };
        }
        innermost = current.to_string();
        source = current.source();
    }
    clip(&innermost, 300)
}
