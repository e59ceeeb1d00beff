//! `mcptest proxy --listen ADDR --upstream URL`: the proxy for Streamable HTTP servers.
//!
//! Every HTTP request a client sends is passed to the upstream endpoint with its headers
//! (credentials included; they are never recorded) and its body unchanged, and the answer comes
//! back the same way: a JSON body whole, an event stream event by event as it arrives. On the
//! way each JSON-RPC message is noted as the stdio proxy notes lines. A client session, named
//! by the `Mcp-Session-Id` the server gives at `initialize`, is one run of the cassette;
//! requests that carry no session (a stateless server) share one run. The cassette is
//! rewritten after every answer with every session's run, so stopping the proxy (Ctrl-C, or
//! killing it) loses nothing a client saw.

use super::{Noted, Pass, Session, Side, assemble, read_existing, write_runs};
use crate::lint::known_values;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcptest_core::secrets::Redactor;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The largest request or JSON answer body passed through (16 MiB, as on stdio).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Headers that belong to one hop, not to the exchange: never forwarded.
const HOP_HEADERS: &[&str] = &[
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
];

const SESSION_HEADER: &str = "mcp-session-id";

type Body = BoxBody<Bytes, std::io::Error>;

/// One client session seen over HTTP.
struct HttpSession {
    /// The `Mcp-Session-Id` the server gave it (`None`: requests without a session).
    key: Option<String>,
    start: Instant,
    log: Session,
}

impl HttpSession {
    fn ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// What every request handler shares.
struct Shared {
    name: String,
    upstream: String,
    output: PathBuf,
    existing: Option<Value>,
    template: Session,
    sessions: Mutex<Vec<HttpSession>>,
    redactor: Redactor,
    client: reqwest::Client,
    stop: CancellationToken,
    warned: AtomicBool,
    started: Instant,
}

impl Shared {
    /// The session a request belongs to: by its `Mcp-Session-Id`, a new one for an
    /// `initialize`, else the latest one without a session.
    fn session_for(&self, key: Option<&str>, initialize: bool) -> usize {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let found = match key {
            Some(k) => sessions.iter().position(|s| s.key.as_deref() == Some(k)),
            None if initialize => None,
            // Without sessions (a stateless server), the latest `initialize` began the run.
            None => sessions.iter().rposition(|s| s.key.is_none()),
        };
        found.unwrap_or_else(|| {
            sessions.push(HttpSession {
                key: key.map(str::to_string),
                start: Instant::now(),
                log: self.template.clone(),
            });
            sessions.len() - 1
        })
    }

    /// Notes a message body sent by `from` in session `i`.
    fn note(&self, i: usize, from: Side, message: Option<&Value>) -> Noted {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let s = &mut sessions[i];
        let ms = s.ms();
        s.log.note(from, message, ms)
    }

    /// Rewrites the cassette with every session's run; warns once when that fails.
    fn save(&self) -> Result<(), String> {
        // Copied under the lock, assembled outside it: requests go on meanwhile.
        let snapshot: Vec<(Session, u64, Option<String>)> = {
            let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            sessions
                .iter()
                .map(|s| (s.log.clone(), s.ms(), s.key.clone()))
                .collect()
        };
        let runs: Vec<Value> = snapshot
            .into_iter()
            .map(|(log, ms, key)| {
                let mut run = assemble(&self.name, &[], log, ms, None);
                if let Some(meta) = run.get_mut("meta").and_then(Value::as_object_mut) {
                    meta.remove("command");
                    meta.remove("server_exit_code");
                    meta.insert("upstream".into(), self.upstream.clone().into());
                    if let Some(k) = key {
                        meta.insert("session_id".into(), k.into());
                    }
                }
                self.redactor.redact(&mut run);
                run
            })
            .collect();
        let saved = write_runs(&self.output, self.existing.clone(), runs);
        if let Err(e) = &saved
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            eprintln!("mcptest proxy: warning: {e}");
        }
        saved
    }
}

/// Runs the HTTP proxy until interrupted.
pub(super) fn proxy_http(
    args: &super::ProxyArgs,
    listen: &str,
    upstream: &str,
) -> Result<(), String> {
    let not_http = || {
        format!(
            "`--upstream {upstream}` is not an HTTP URL; give the server's MCP endpoint, for \
             example --upstream http://127.0.0.1:3001/mcp"
        )
    };
    let url = reqwest::Url::parse(upstream).map_err(|_| not_http())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(not_http());
    }
    let existing = read_existing(&args.output)?;
    let name = args
        .name
        .clone()
        .or_else(|| url.host_str().map(str::to_string))
        .unwrap_or_else(|| "server".into());
    // The same TLS provider the recorder uses; a second install is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
            format!(
                "cannot listen on {listen}: {e}; give --listen a free address such as \
                     127.0.0.1:8932 (port 0 picks one)"
            )
        })?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let shared = Arc::new(Shared {
            name,
            upstream: upstream.to_string(),
            output: args.output.clone(),
            existing,
            template: Session {
                fault: args.fault,
                fault_tool: args.fault_tool.clone(),
                ..Session::default()
            },
            sessions: Mutex::new(Vec::new()),
            redactor: Redactor::new(known_values(&[])),
            client,
            stop: CancellationToken::new(),
            warned: AtomicBool::new(false),
            started: Instant::now(),
        });
        eprintln!(
            "mcptest proxy: listening on http://{local}/mcp, forwarding to {upstream}; \
             recording into {}",
            args.output.display()
        );
        let accept = {
            let shared = shared.clone();
            async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    };
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let shared = shared.clone();
                            async move {
                                Ok::<_, std::convert::Infallible>(handle(shared, request).await)
                            }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        };
        tokio::select! {
            () = accept => {}
            () = interrupted() => {}
        }
        shared.stop.cancel();
        let sessions = shared.sessions.lock().map(|s| s.len()).unwrap_or_default();
        if sessions == 0 {
            eprintln!("mcptest proxy: no client session; nothing recorded");
            return Ok(());
        }
        shared.save()?;
        eprintln!(
            "mcptest proxy: {sessions} session(s) recorded into {} ({} ms)",
            shared.output.display(),
            shared.started.elapsed().as_millis()
        );
        Ok(())
    })
}

/// Ctrl-C, or SIGTERM where there are signals.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn full(body: impl Into<Bytes>) -> Body {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed()
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    let mut r = Response::new(full(text));
    *r.status_mut() = status;
    r
}

/// Whether a JSON-RPC body holds an `initialize` request.
fn is_initialize(message: Option<&Value>) -> bool {
    let one = |m: &Value| m.get("method").and_then(Value::as_str) == Some("initialize");
    match message {
        Some(Value::Array(batch)) => batch.iter().any(one),
        Some(m) => one(m),
        None => false,
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body could not be read whole ({e}); the limit is 16 MiB\n"),
            );
        }
    };
    let message: Option<Value> = serde_json::from_slice(&body).ok();
    let key = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let i = shared.session_for(key.as_deref(), is_initialize(message.as_ref()));

    let pass = {
        let mut sessions = shared.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let s = &mut sessions[i];
        let ms = s.ms();
        s.log.note(Side::Client, message.as_ref(), ms);
        s.log.intercept(message.as_ref())
    };
    if pass == Pass::Back {
        let _ = shared.save();
        let is_request = message
            .as_ref()
            .and_then(|m| m.get("id"))
            .is_some_and(|id| !id.is_null());
        if !is_request {
            // A cancellation the fault keeps from the server: accepted, not passed on.
            return plain(StatusCode::ACCEPTED, String::new());
        }
        // A held-back call: never answered, until the client gives up or the proxy stops.
        shared.stop.cancelled().await;
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the proxy stopped while holding this call back (injected fault)\n".into(),
        );
    }

    let mut upstream = shared
        .client
        .request(parts.method.clone(), shared.upstream.as_str());
    for (name, value) in &parts.headers {
        if !HOP_HEADERS.contains(&name.as_str()) {
            upstream = upstream.header(name, value);
        }
    }
    let answer = match upstream.body(body).send().await {
        Ok(a) => a,
        Err(e) => {
            return plain(
                StatusCode::BAD_GATEWAY,
                format!(
                    "mcptest proxy: the upstream server at {} did not answer: {e}\n",
                    shared.upstream
                ),
            );
        }
    };
    if let Some(k) = answer
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        let mut sessions = shared.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if sessions[i].key.is_none() {
            sessions[i].key = Some(k.to_string());
        }
    }
    let mut response = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        if !HOP_HEADERS.contains(&name.as_str()) {
            response = response.header(name.as_str(), value.as_bytes());
        }
    }
    let streaming = answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let body = if streaming {
        stream_events(shared.clone(), i, answer)
    } else {
        let bytes = match answer.bytes().await {
            Ok(b) => b,
            Err(e) => {
                return plain(
                    StatusCode::BAD_GATEWAY,
                    format!("mcptest proxy: the upstream answer broke off: {e}\n"),
                );
            }
        };
        let message: Option<Value> = serde_json::from_slice(&bytes).ok();
        if let Noted::Answer { delay_ms } = shared.note(i, Side::Server, message.as_ref()) {
            let _ = shared.save();
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
        }
        full(bytes)
    };
    response.body(body).unwrap_or_else(|e| {
        plain(
            StatusCode::BAD_GATEWAY,
            format!("mcptest proxy: the upstream answer has a header no HTTP answer may: {e}\n"),
        )
    })
}

/// Passes an event stream on as it arrives, noting the JSON-RPC message of every event.
fn stream_events(shared: Arc<Shared>, i: usize, mut answer: reqwest::Response) -> Body {
    let (mut tx, body) = http_body_util::channel::Channel::<Bytes, std::io::Error>::new(16);
    tokio::spawn(async move {
        let mut pending = String::new();
        loop {
            let chunk = tokio::select! {
                c = answer.chunk() => c,
                () = shared.stop.cancelled() => break,
            };
            let Ok(Some(chunk)) = chunk else { break };
            pending.push_str(&String::from_utf8_lossy(&chunk));
            let mut delay_ms = 0;
            while let Some(end) = event_end(&pending) {
                let event: String = pending.drain(..end.1).collect();
                let data = event_data(&event[..end.0]);
                if data.is_empty() {
                    continue;
                }
                let message: Option<Value> = serde_json::from_str(&data).ok();
                if let Noted::Answer { delay_ms: d } =
                    shared.note(i, Side::Server, message.as_ref())
                {
                    let _ = shared.save();
                    delay_ms = delay_ms.max(d);
                }
            }
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            if tx.send_data(chunk).await.is_err() {
                break;
            }
        }
    });
    body.boxed()
}

/// Where the first complete event of an event stream ends: (end of its text, end of its
/// blank-line separator).
fn event_end(text: &str) -> Option<(usize, usize)> {
    ["\r\n\r\n", "\n\n", "\r\r"]
        .iter()
        .filter_map(|sep| text.find(sep).map(|at| (at, at + sep.len())))
        .min()
}

/// The `data:` of one event, its lines joined by newlines.
fn event_data(event: &str) -> String {
    event
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_blank_lines_and_join_their_data_lines() {
        let text = "event: message\nid: 1\ndata: {\"a\":\ndata: 1}\n\nretry: 3000\r\n\r\ndata: x";
        let (end, next) = event_end(text).unwrap();
        assert_eq!(event_data(&text[..end]), "{\"a\":\n1}");
        let rest = &text[next..];
        let (end, next) = event_end(rest).unwrap();
        assert_eq!(event_data(&rest[..end]), "");
        assert_eq!(
            event_end(&rest[next..]),
            None,
            "an event without its blank line waits"
        );
    }

    #[test]
    fn requests_join_their_session_or_the_latest_without_one() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let shared = Shared {
            name: "s".into(),
            upstream: "http://127.0.0.1:9/mcp".into(),
            output: PathBuf::from("unused.json"),
            existing: None,
            template: Session::default(),
            sessions: Mutex::new(Vec::new()),
            redactor: Redactor::new(vec![]),
            client: reqwest::Client::new(),
            stop: CancellationToken::new(),
            warned: AtomicBool::new(false),
            started: Instant::now(),
        };
        // A stateless server: each `initialize` begins a run; what follows joins the latest.
        assert_eq!(shared.session_for(None, true), 0);
        assert_eq!(shared.session_for(None, false), 0);
        assert_eq!(shared.session_for(None, true), 1);
        assert_eq!(shared.session_for(None, false), 1);
        // A session the server named is found by its id, wherever it is.
        shared.sessions.lock().unwrap()[0].key = Some("abc".into());
        assert_eq!(shared.session_for(Some("abc"), false), 0);
        assert_eq!(shared.session_for(None, false), 1);
        // An id never seen (the proxy restarted) begins a run of its own.
        assert_eq!(shared.session_for(Some("new"), false), 2);
    }

    #[test]
    fn only_initialize_starts_a_session() {
        let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"});
        assert!(is_initialize(Some(&init)));
        assert!(is_initialize(Some(&serde_json::json!([init]))));
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"});
        assert!(!is_initialize(Some(&call)));
        assert!(!is_initialize(None));
    }
}
