//! The MCP client: each of an agent's servers as a child process over stdio, or reached by
//! URL over Streamable HTTP, on rmcp.
//!
//! This is the only module that names rmcp (pinned to one exact version in the workspace):
//! everything leaves it as JSON. A server's environment is cleared and rebuilt from a few
//! basic variables ([`BASE_ENV`]) and the names its `servers:` entry lists, so the model API
//! key never reaches a server it was not given to. Its standard error is kept (the last few
//! kilobytes) to explain a server that does not start.

// Roots and sampling are deprecated by the protocol's SEP-2577, and servers in use still ask
// for them: the recorder answers them.
#![allow(deprecated)]

use crate::error::{ConnectFailure, RecordError};
use http::{HeaderName, HeaderValue};
use mcptest_core::suite::{HttpServer, ServerConfig, ServerTransport, StdioServer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorData, Implementation,
    InitializeRequestParams, ListRootsResult, Root, RootsCapabilities,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::runtime::Runtime;

/// Environment variables every server gets when they are set (what a shell session needs to
/// find programs and write temporary files), on top of the ones its entry names.
pub const BASE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
];

/// How long a server has to answer `initialize` and `tools/list`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// An error and its sources, joined: rmcp's handshake errors wrap the transport's, which says
/// what actually happened (a refused connection, a 401).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// What kind of failure the Streamable HTTP transport met, and its words for it.
fn connect_failure(e: &HttpError) -> (ConnectFailure, String) {
    let failure = match e {
        StreamableHttpError::AuthRequired(_) => ConnectFailure::Unauthorized,
        StreamableHttpError::InsufficientScope(_) => ConnectFailure::Forbidden,
        // A 401 or 403 without a challenge comes back as the status and the body.
        StreamableHttpError::UnexpectedServerResponse(r) if r.starts_with("HTTP 401") => {
            ConnectFailure::Unauthorized
        }
        StreamableHttpError::UnexpectedServerResponse(r) if r.starts_with("HTTP 403") => {
            ConnectFailure::Forbidden
        }
        StreamableHttpError::Client(c) if c.is_connect() || c.is_timeout() => {
            ConnectFailure::Unreachable
        }
        _ => ConnectFailure::Handshake,
    };
    let words = match e {
        StreamableHttpError::Client(c) => error_chain(c),
        _ => error_chain(e),
    };
    (failure, words)
}

/// Keep this much of a server's standard error.
const STDERR_KEEP: usize = 4096;

type Client = RunningService<RoleClient, RecordingClient>;

/// The Streamable HTTP transport's error, with reqwest as its client.
type HttpError = StreamableHttpError<reqwest::Error>;

/// The client the recorder is to one server. It declares the suite's `roots:` (and answers
/// `roots/list` with them); it refuses `sampling/createMessage` and `elicitation/create` with
/// an error that says why, since a recording has no one to ask. Every such request the server
/// makes is kept for the cassette's MCP exchanges.
#[derive(Clone)]
pub(crate) struct RecordingClient {
    info: InitializeRequestParams,
    server: String,
    roots: Vec<Root>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl RecordingClient {
    fn keep(&self, method: &str, params: Option<Value>, outcome: (&str, Value)) {
        let mut entry = Map::new();
        entry.insert("server".into(), Value::String(self.server.clone()));
        entry.insert("method".into(), method.into());
        entry.insert("from".into(), "server".into());
        if let Some(p) = params {
            entry.insert("params".into(), p);
        }
        entry.insert(outcome.0.into(), outcome.1);
        if let Ok(mut log) = self.requests.lock() {
            log.push(Value::Object(entry));
        }
    }

    fn refuse(&self, method: &str, params: Option<Value>, why: &str) -> ErrorData {
        let error = ErrorData::invalid_request(why.to_string(), None);
        let shown = serde_json::json!({"code": error.code.0, "message": why});
        self.keep(method, params, ("error", shown));
        error
    }
}

impl ClientHandler for RecordingClient {
    fn get_info(&self) -> InitializeRequestParams {
        self.info.clone()
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        if self.roots.is_empty() {
            return Err(self.refuse(
                "roots/list",
                None,
                "the suite declares no roots: add `roots: [./folder]` at the top of the suite \
                 to give servers folders to work in",
            ));
        }
        let result = ListRootsResult::new(self.roots.clone());
        let shown = serde_json::to_value(&result).unwrap_or(Value::Null);
        self.keep("roots/list", None, ("result", shown));
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Err(self.refuse(
            "sampling/createMessage",
            serde_json::to_value(&params).ok(),
            "mcptest is recording this session and does not let a server sample the model: \
             sampling is not supported while recording",
        ))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Err(self.refuse(
            "elicitation/create",
            serde_json::to_value(&request).ok(),
            "mcptest is recording this session and has no user to ask: elicitation is not \
             supported while recording",
        ))
    }
}

/// The roots a suite declares, as MCP roots: a `file://` URI is kept, any other entry is a
/// path (relative to the suite's folder) made absolute. Each is named by its last component.
fn roots_of(entries: &[String], suite_dir: &Path) -> Vec<Root> {
    entries
        .iter()
        .map(|e| {
            let uri = if e.starts_with("file://") {
                e.clone()
            } else {
                let path = suite_dir.join(e);
                let path = std::fs::canonicalize(&path).unwrap_or(path);
                format!("file://{}", path.display())
            };
            let name = uri
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .map(str::to_string);
            let mut root = Root::new(uri);
            root.name = name;
            root
        })
        .collect()
}

/// One running server.
struct Server {
    name: String,
    client: Client,
    stderr: Arc<Mutex<String>>,
}

/// One `tools/call` to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PendingCall {
    pub server: String,
    pub tool: String,
    pub arguments: Option<Map<String, Value>>,
}

/// How one `tools/call` ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallOutcome {
    /// The server's result (an MCP `CallToolResult` as JSON).
    Result(Value),
    /// A JSON-RPC error (unknown tool, invalid params, ...).
    Error { code: i64, message: String },
    /// No answer within the deadline; the request was cancelled.
    TimedOut,
    /// The connection failed (the server exited, for example).
    Failed(String),
}

/// The servers of one run.
pub(crate) struct McpServers {
    runtime: Arc<Runtime>,
    servers: Vec<Server>,
    /// The requests servers made of the client (roots, sampling, elicitation), in order.
    client_requests: Arc<Mutex<Vec<Value>>>,
    /// The roots declared to every server.
    roots: Vec<Root>,
}

/// What a server said about itself and the tools it listed.
pub(crate) struct Listed {
    pub server: String,
    /// `initialize` result details (protocol version, server info), as JSON.
    pub info: Value,
    pub tools: Vec<Value>,
    pub started_ms: u64,
    pub ended_ms: u64,
}

impl McpServers {
    /// Starts these servers (in order), declaring the suite's `roots` to each, and lists their
    /// tools. `suite_dir` anchors relative working directories and roots; `clock_ms` gives the
    /// run's time for the exchange log.
    pub fn start(
        runtime: Arc<Runtime>,
        configs: &[&ServerConfig],
        suite_dir: &Path,
        roots: &[String],
        clock_ms: &dyn Fn() -> u64,
    ) -> Result<(McpServers, Vec<Listed>), RecordError> {
        let mut servers = McpServers {
            runtime,
            servers: Vec::new(),
            client_requests: Arc::default(),
            roots: roots_of(roots, suite_dir),
        };
        let mut listed = Vec::new();
        for config in configs {
            let started_ms = clock_ms();
            let server = servers.spawn(config, suite_dir)?;
            let info = server
                .client
                .peer_info()
                .and_then(|i| serde_json::to_value(&*i).ok())
                .map(|mut v| {
                    if let Some(m) = v.as_object_mut() {
                        m.remove("capabilities");
                    }
                    v
                })
                .unwrap_or(Value::Null);
            let rt = servers.runtime.clone();
            let tools = rt
                .block_on(async {
                    tokio::time::timeout(HANDSHAKE_TIMEOUT, server.client.list_all_tools()).await
                })
                .map_err(|_| RecordError::ListTools {
                    server: config.name.clone(),
                    error: format!("no answer within {} s", HANDSHAKE_TIMEOUT.as_secs()),
                })?
                .map_err(|e| RecordError::ListTools {
                    server: config.name.clone(),
                    error: e.to_string(),
                })?;
            let tools: Vec<Value> = tools
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect();
            servers.servers.push(server);
            listed.push(Listed {
                server: config.name.clone(),
                info,
                tools,
                started_ms,
                ended_ms: clock_ms(),
            });
        }
        Ok((servers, listed))
    }

    /// Starts or reaches one server and completes the MCP handshake.
    fn spawn(&self, config: &ServerConfig, suite_dir: &Path) -> Result<Server, RecordError> {
        match &config.transport {
            ServerTransport::Stdio(stdio) => self.spawn_stdio(&config.name, stdio, suite_dir),
            ServerTransport::Http(http) => self.connect_http(&config.name, http),
        }
    }

    /// The client the recorder is to the server `name`.
    fn client_for(&self, name: &str) -> RecordingClient {
        let mut capabilities = ClientCapabilities::default();
        if !self.roots.is_empty() {
            let mut roots = RootsCapabilities::default();
            roots.list_changed = Some(false);
            capabilities.roots = Some(roots);
        }
        RecordingClient {
            info: InitializeRequestParams::new(
                capabilities,
                Implementation::new("mcptest", env!("CARGO_PKG_VERSION")),
            ),
            server: name.to_string(),
            roots: self.roots.clone(),
            requests: self.client_requests.clone(),
        }
    }

    /// Reaches a server by URL over Streamable HTTP, its headers built from the environment.
    fn connect_http(&self, name: &str, http: &HttpServer) -> Result<Server, RecordError> {
        let connect_error = |failure: ConnectFailure, error: String| RecordError::ServerConnect {
            server: name.to_string(),
            url: http.url.clone(),
            failure,
            error,
        };
        let mut headers = HashMap::new();
        for template in &http.headers {
            let value = template
                .render(|var| std::env::var(var).ok())
                .map_err(|var| RecordError::MissingHeaderEnv {
                    server: name.to_string(),
                    header: template.name.clone(),
                    var,
                })?;
            let header_name = HeaderName::from_bytes(template.name.as_bytes()).map_err(|e| {
                connect_error(
                    ConnectFailure::Handshake,
                    format!("header `{}`: {e}", template.name),
                )
            })?;
            let mut header_value = HeaderValue::from_str(&value).map_err(|_| {
                connect_error(
                    ConnectFailure::Handshake,
                    format!(
                        "the value of header `{}` holds a character no header may (a line break?)",
                        template.name
                    ),
                )
            })?;
            header_value.set_sensitive(true);
            headers.insert(header_name, header_value);
        }
        // reqwest is built without a TLS provider of its own: use the ring provider ureq
        // uses too. Installing it a second time is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut transport_config = StreamableHttpClientTransportConfig::with_uri(http.url.as_str())
            .custom_headers(headers);
        transport_config.reinit_on_expired_session = false;
        let _guard = self.runtime.enter();
        let transport = StreamableHttpClientTransport::from_config(transport_config);
        let client_config = self.client_for(name);
        let handshake = self.runtime.block_on(async {
            tokio::time::timeout(HANDSHAKE_TIMEOUT, client_config.serve(transport)).await
        });
        match handshake {
            Ok(Ok(client)) => Ok(Server {
                name: name.to_string(),
                client,
                stderr: Arc::default(),
            }),
            Ok(Err(rmcp::service::ClientInitializeError::TransportError { error, context })) => {
                // The transport's own error says what happened (a refused connection, a
                // status); rmcp's wrapper names only its types.
                let inner = error.error.as_ref();
                let (failure, what) = match inner.downcast_ref::<HttpError>() {
                    Some(e) => connect_failure(e),
                    None => (ConnectFailure::Handshake, error_chain(inner)),
                };
                Err(connect_error(failure, format!("{what}, on {context}")))
            }
            Ok(Err(e)) => Err(connect_error(ConnectFailure::Handshake, error_chain(&e))),
            Err(_) => Err(connect_error(
                ConnectFailure::Unreachable,
                format!(
                    "no answer to `initialize` within {} s",
                    HANDSHAKE_TIMEOUT.as_secs()
                ),
            )),
        }
    }

    fn spawn_stdio(
        &self,
        name: &str,
        config: &StdioServer,
        suite_dir: &Path,
    ) -> Result<Server, RecordError> {
        let command_line = config.command_line();
        let start_error = |error: String, stderr: String| RecordError::ServerStart {
            server: name.to_string(),
            command: command_line.clone(),
            error,
            stderr,
        };
        let mut cmd = tokio::process::Command::new(&config.command);
        cmd.args(&config.args).env_clear();
        for var in BASE_ENV {
            if let Some(v) = std::env::var_os(var) {
                cmd.env(var, v);
            }
        }
        for var in &config.env {
            match std::env::var_os(var) {
                Some(v) => {
                    cmd.env(var, v);
                }
                None => {
                    return Err(RecordError::MissingEnv {
                        server: name.to_string(),
                        var: var.clone(),
                    });
                }
            }
        }
        // Plain values the suite writes: configuration, not secrets.
        for (var, value) in &config.env_values {
            cmd.env(var, value);
        }
        if let Some(cwd) = &config.cwd {
            cmd.current_dir(suite_dir.join(cwd));
        }
        let _guard = self.runtime.enter();
        let (transport, stderr_pipe) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| start_error(e.to_string(), String::new()))?;
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(mut pipe) = stderr_pipe {
            let keep = stderr.clone();
            self.runtime.spawn(async move {
                let mut buf = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut s) = keep.lock() {
                        s.push_str(&String::from_utf8_lossy(&buf[..n]));
                        if s.len() > STDERR_KEEP {
                            let cut = s.len() - STDERR_KEEP;
                            let cut = (cut..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                            s.drain(..cut);
                        }
                    }
                }
            });
        }
        let client_config = self.client_for(name);
        let handshake = self.runtime.block_on(async {
            tokio::time::timeout(HANDSHAKE_TIMEOUT, client_config.serve(transport)).await
        });
        let tail = |stderr: &Arc<Mutex<String>>| {
            // Give the process a moment to finish writing why it failed.
            std::thread::sleep(Duration::from_millis(50));
            stderr.lock().map(|s| s.clone()).unwrap_or_default()
        };
        match handshake {
            Ok(Ok(client)) => Ok(Server {
                name: name.to_string(),
                client,
                stderr,
            }),
            Ok(Err(e)) => Err(start_error(e.to_string(), tail(&stderr))),
            Err(_) => Err(start_error(
                format!(
                    "no answer to `initialize` within {} s",
                    HANDSHAKE_TIMEOUT.as_secs()
                ),
                tail(&stderr),
            )),
        }
    }

    /// Sends these calls, each with its own deadline: concurrently, or with `sequential` one
    /// at a time in order (each sent when the previous one answered); returns each outcome and
    /// its wall time, in order.
    pub fn call_all(
        &self,
        calls: &[PendingCall],
        deadline: Duration,
        sequential: bool,
    ) -> Vec<(CallOutcome, Duration)> {
        if sequential {
            return calls
                .iter()
                .flat_map(|call| self.call_all(std::slice::from_ref(call), deadline, false))
                .collect();
        }
        let mut handles = Vec::with_capacity(calls.len());
        for call in calls {
            let peer = self
                .servers
                .iter()
                .find(|s| s.name == call.server)
                .map(|s| s.client.peer().clone());
            let mut params = CallToolRequestParams::new(call.tool.clone());
            params.arguments = call.arguments.clone();
            handles.push(self.runtime.spawn(async move {
                let started = Instant::now();
                let Some(peer) = peer else {
                    return (
                        CallOutcome::Failed("the server is not running".into()),
                        started.elapsed(),
                    );
                };
                // Dropping the request future at the deadline makes rmcp send
                // `notifications/cancelled` for it.
                let outcome =
                    match tokio::time::timeout(deadline, peer.call_tool_once(params)).await {
                        Err(_) => CallOutcome::TimedOut,
                        Ok(Ok(CallToolResponse::Complete(result))) => {
                            match serde_json::to_value(&result) {
                                Ok(v) => CallOutcome::Result(v),
                                Err(e) => CallOutcome::Failed(e.to_string()),
                            }
                        }
                        Ok(Ok(CallToolResponse::InputRequired(_))) => CallOutcome::Failed(
                            "the server asked the client for input, which a recording cannot give"
                                .into(),
                        ),
                        Ok(Ok(CallToolResponse::Task(_))) => CallOutcome::Failed(
                            "the server answered with a task to poll, which recording does not \
                         support yet"
                                .into(),
                        ),
                        Ok(Ok(_)) => CallOutcome::Failed("an unexpected kind of result".into()),
                        Ok(Err(rmcp::ServiceError::McpError(e))) => CallOutcome::Error {
                            code: i64::from(e.code.0),
                            message: e.message.to_string(),
                        },
                        Ok(Err(e)) => CallOutcome::Failed(e.to_string()),
                    };
                (outcome, started.elapsed())
            }));
        }
        self.runtime.block_on(async move {
            let mut out = Vec::with_capacity(handles.len());
            for h in handles {
                out.push(h.await.unwrap_or_else(|e| {
                    (
                        CallOutcome::Failed(format!("the call's task failed: {e}")),
                        Duration::ZERO,
                    )
                }));
            }
            out
        })
    }

    /// The requests servers made of the client so far (roots, sampling, elicitation), taken.
    pub fn take_client_requests(&self) -> Vec<Value> {
        self.client_requests
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }

    /// What a server wrote to standard error lately.
    pub fn stderr_tail(&self, server: &str) -> String {
        self.servers
            .iter()
            .find(|s| s.name == server)
            .and_then(|s| s.stderr.lock().ok().map(|t| t.clone()))
            .unwrap_or_default()
    }

    /// Closes every server's standard input and waits (briefly) for it to exit.
    pub fn shutdown(self) {
        let McpServers {
            runtime, servers, ..
        } = self;
        runtime.block_on(async move {
            for mut s in servers {
                let _ = s.client.close_with_timeout(Duration::from_secs(5)).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{ConnectFailure, StreamableHttpError, connect_failure};
    use rmcp::transport::streamable_http_client::AuthRequiredError;

    #[test]
    fn the_transports_error_decides_the_kind_of_failure() {
        let kind = |e| connect_failure(&e).0;
        assert_eq!(
            kind(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                "Bearer".into()
            ))),
            ConnectFailure::Unauthorized
        );
        let status = |s: &'static str| StreamableHttpError::UnexpectedServerResponse(s.into());
        assert_eq!(
            kind(status("HTTP 401 Unauthorized: no")),
            ConnectFailure::Unauthorized
        );
        assert_eq!(
            kind(status("HTTP 403 Forbidden: no")),
            ConnectFailure::Forbidden
        );
        assert_eq!(
            kind(status("HTTP 500 oops: 401 words")),
            ConnectFailure::Handshake
        );
        assert_eq!(
            kind(StreamableHttpError::UnexpectedContentType(Some(
                "text/html".into()
            ))),
            ConnectFailure::Handshake
        );
    }
}
