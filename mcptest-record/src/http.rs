//! One JSON POST to the model API, with retries on overload, and the headers a cassette may
//! keep.
//!
//! Headers are stored by **allow-list**: only the names in [`STORED_HEADERS`] reach a
//! cassette. `x-api-key`, `authorization`, cookies and anything else never do.

use crate::error::RecordError;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// The request and response headers a cassette keeps; every other header is dropped.
pub const STORED_HEADERS: &[&str] = &[
    "content-type",
    "anthropic-version",
    "anthropic-beta",
    "request-id",
    "x-request-id",
    "openai-model",
    "openai-processing-ms",
    "retry-after",
];

/// How often and how long to retry a request the API refused as overloaded (408, 409, 429,
/// 5xx): `attempts` tries in all, waiting `base_delay`, then twice that, and so on (or the
/// `retry-after` the API sent, up to a minute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries in all (at least 1).
    pub attempts: u32,
    /// The first wait.
    pub base_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            base_delay: Duration::from_secs(2),
        }
    }
}

/// One request and the answer it got.
#[derive(Debug, Clone)]
pub(crate) struct HttpExchange {
    pub url: String,
    /// Allow-listed request headers.
    pub request_headers: Map<String, Value>,
    pub status: u16,
    /// Allow-listed response headers.
    pub response_headers: Map<String, Value>,
    pub body: Value,
    pub duration_ms: u64,
}

/// A blocking JSON client for one API.
pub(crate) struct HttpClient {
    agent: ureq::Agent,
    retry: RetryPolicy,
}

impl HttpClient {
    pub fn new(retry: RetryPolicy, timeout: Duration) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("mcptest/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        HttpClient { agent, retry }
    }

    /// POSTs `body` to `url` with `headers` (secret ones included: they are sent, never
    /// stored).
    pub fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &Value,
    ) -> Result<HttpExchange, RecordError> {
        let text = body.to_string();
        let mut request_headers = Map::new();
        request_headers.insert("content-type".into(), "application/json".into());
        for (k, v) in headers {
            if stored(k) {
                request_headers.insert(k.to_ascii_lowercase(), Value::String(v.clone()));
            }
        }
        let attempts = self.retry.attempts.max(1);
        let started = Instant::now();
        for attempt in 1..=attempts {
            let mut req = self
                .agent
                .post(url)
                .header("content-type", "application/json");
            for (k, v) in headers {
                req = req.header(*k, v.as_str());
            }
            let mut resp = match req.send(text.as_str()) {
                Ok(r) => r,
                Err(e) if attempt < attempts && transient(&e) => {
                    std::thread::sleep(self.backoff(attempt, None));
                    continue;
                }
                Err(e) => {
                    return Err(RecordError::Connect {
                        url: url.to_string(),
                        error: e.to_string(),
                    });
                }
            };
            let status = resp.status().as_u16();
            let mut response_headers = Map::new();
            for (name, value) in resp.headers() {
                if stored(name.as_str())
                    && let Ok(v) = value.to_str()
                {
                    response_headers.insert(name.as_str().to_string(), v.into());
                }
            }
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let text = resp
                .body_mut()
                .with_config()
                .limit(64 * 1024 * 1024)
                .read_to_string()
                .map_err(|e| RecordError::Connect {
                    url: url.to_string(),
                    error: format!("reading the response: {e}"),
                })?;
            if attempt < attempts && matches!(status, 408 | 409 | 429 | 500..=599) {
                std::thread::sleep(self.backoff(attempt, retry_after));
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(RecordError::Api {
                    url: url.to_string(),
                    status,
                    message: api_message(&text),
                });
            }
            let body: Value =
                serde_json::from_str(&text).map_err(|e| RecordError::BadResponse {
                    url: url.to_string(),
                    error: format!("not JSON ({e}): {}", excerpt(&text)),
                })?;
            return Ok(HttpExchange {
                url: url.to_string(),
                request_headers,
                status,
                response_headers,
                body,
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        }
        Err(RecordError::Connect {
            url: url.to_string(),
            error: "no attempt was made".into(),
        })
    }

    fn backoff(&self, attempt: u32, retry_after_s: Option<u64>) -> Duration {
        match retry_after_s {
            Some(s) => Duration::from_secs(s.min(60)),
            None => self
                .retry
                .base_delay
                .saturating_mul(1u32 << (attempt - 1).min(6)),
        }
    }
}

fn stored(name: &str) -> bool {
    STORED_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name))
}

fn transient(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Io(_) | ureq::Error::Timeout(_) | ureq::Error::ConnectionFailed
    )
}

/// The API's own error message (`{"error": {"message": ...}}` in both APIs), else an excerpt.
fn api_message(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| {
            let e = v.get("error")?;
            e.get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| e.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| excerpt(text))
}

fn excerpt(text: &str) -> String {
    let t: String = text.chars().take(300).collect();
    if t.len() < text.len() {
        format!("{t}...")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allow_listed_headers_are_stored() {
        assert!(stored("Content-Type"));
        assert!(stored("anthropic-version"));
        assert!(!stored("x-api-key"));
        assert!(!stored("Authorization"));
        assert!(!stored("set-cookie"));
    }

    #[test]
    fn api_messages() {
        assert_eq!(
            api_message(r#"{"type":"error","error":{"type":"x","message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(api_message("oops"), "oops");
    }
}
