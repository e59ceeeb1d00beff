//! The MCP side: the mock as an rmcp server, and the transport layer that makes the faults
//! observable on the wire. This is the only module that names rmcp, pinned at `=3.9.0`:
//! rmcp's major versions have changed its API, so an upgrade touches this file alone.
//!
//! Two rmcp behaviours shape this module:
//!
//! * rmcp drops any response to a request the client cancelled. `reply-after-cancel` must put
//!   its late answer on the wire anyway, so [`Wire`] withholds from the service loop the
//!   `notifications/cancelled` that name calls under that fault; the handler then finishes
//!   and its answer is sent.
//! * At end of input rmcp waits up to five seconds for handlers still running. Every fault
//!   wait also listens to a stop signal that [`Wire`] fires at end of input, so a hung call
//!   ends at once and the process exits without that wait. Answers of calls a fault was
//!   holding are not written after that point; answers that were being computed still are
//!   (a client that pipes requests in and closes its input still reads them).
//!
//! What a client may send wrong is answered by the line layer ([`crate::lines`]: parse errors,
//! invalid requests with their readable id, over-long lines) and by rmcp (an unknown method
//! gets Method not found, -32601). [`Wire`] adds the session's rules: a notification or a stray
//! response before the session starts is ignored (rmcp would otherwise end the session); a
//! request other than `initialize` or `ping` before it is refused with what to send first; a
//! request that reuses the id of one still in flight is refused.

use crate::fault::{Faults, Plan};
use crate::lines::{Lines, error_reply};
use crate::log::{LogLevel, log};
use crate::tools::ToolsFile;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientNotification, ClientRequest,
    ContentBlock, CustomRequest, CustomResult, ErrorCode, ErrorData, JsonRpcMessage,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, RequestId, ServerCapabilities, ServerConfig,
    ServerJsonRpcMessage, ServerResult, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer, RxJsonRpcMessage, ServerInitializeError};
use rmcp::transport::Transport;
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

/// Checks that a JSON value is an MCP content block; the message says why not.
pub(crate) fn check_content_block(block: &Value) -> Result<(), String> {
    serde_json::from_value::<ContentBlock>(block.clone())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// What the handler and the transport share for one session.
pub(crate) struct Session {
    file: Arc<ToolsFile>,
    faults: Faults,
    log: LogLevel,
    /// Fired at end of input or on shutdown: every fault wait ends.
    stop: CancellationToken,
    /// The session has started (an `initialize` went through, or the service loop runs).
    started: AtomicBool,
    /// Calls under `reply-after-cancel` whose answer is still due.
    answer_anyway: Mutex<HashSet<RequestId>>,
    /// Calls a fault was holding when the client went away: their answers are not written.
    abandoned: Mutex<HashSet<RequestId>>,
    info: ServerConfig,
    tools: ListToolsResult,
    resources: ListResourcesResult,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Session {
    /// Prepares a session; `Err` when the tools file holds something rmcp cannot represent
    /// (the loader checks content blocks, so this is not expected).
    pub fn new(
        file: Arc<ToolsFile>,
        faults: Faults,
        log: LogLevel,
        stop: CancellationToken,
    ) -> Result<Session, String> {
        let tools: Vec<Value> = file
            .tools
            .iter()
            .map(|t| {
                let mut v = json!({"name": t.name, "inputSchema": t.input_schema});
                if let Some(d) = &t.description {
                    v["description"] = json!(d);
                }
                if let Some(title) = &t.title {
                    v["title"] = json!(title);
                }
                if let Some(o) = &t.output_schema {
                    v["outputSchema"] = o.clone();
                }
                v
            })
            .collect();
        let mut tools: ListToolsResult =
            serde_json::from_value(json!({ "tools": tools, "resultType": "complete" }))
                .map_err(|e| format!("cannot list the tools: {e}"))?;
        for (listed, t) in tools.tools.iter_mut().zip(&file.tools) {
            listed.annotations = t.annotations.as_ref().map(|a| {
                ToolAnnotations::from_raw(
                    a.title.clone(),
                    a.read_only_hint,
                    a.destructive_hint,
                    a.idempotent_hint,
                    a.open_world_hint,
                )
            });
        }
        let resources: Vec<Value> = file
            .resources
            .iter()
            .map(|r| {
                let mut v = json!({"uri": r.uri, "name": r.name});
                if let Some(d) = &r.description {
                    v["description"] = json!(d);
                }
                if let Some(m) = &r.mime_type {
                    v["mimeType"] = json!(m);
                }
                v
            })
            .collect();
        let resources: ListResourcesResult =
            serde_json::from_value(json!({ "resources": resources, "resultType": "complete" }))
                .map_err(|e| format!("cannot list the resources: {e}"))?;
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if !file.resources.is_empty() {
            capabilities["resources"] = json!({"listChanged": false, "subscribe": false});
        }
        let capabilities: ServerCapabilities = serde_json::from_value(capabilities)
            .map_err(|e| format!("cannot state the capabilities: {e}"))?;
        let mut info = ServerConfig::new(capabilities).with_server_info(
            rmcp::model::Implementation::new(&file.server.name, &file.server.version),
        );
        if let Some(i) = &file.server.instructions {
            info = info.with_instructions(i);
        }
        Ok(Session {
            file,
            faults,
            log,
            stop,
            started: AtomicBool::new(false),
            answer_anyway: Mutex::new(HashSet::new()),
            abandoned: Mutex::new(HashSet::new()),
            info,
            tools,
            resources,
        })
    }
}

/// The methods the mock serves, and the params each takes (for malformed-params errors).
const KNOWN_METHODS: &[(&str, &str)] = &[
    (
        "initialize",
        "{protocolVersion: string, capabilities: object, clientInfo: {name, version}}",
    ),
    ("ping", "no params"),
    ("tools/list", "{cursor?: string}"),
    ("tools/call", "{name: string, arguments?: object}"),
    ("resources/list", "{cursor?: string}"),
    ("resources/read", "{uri: string}"),
];

/// The rmcp handler: tools, resources and the faults on `tools/call`.
struct Handler(Arc<Session>);

/// Why a held call stopped waiting.
enum Interrupted {
    Cancelled,
    ClientGone,
}

impl Handler {
    /// Waits out a fault's plan; `Err` when the call must not be answered.
    async fn wait(&self, plan: Plan, ct: &CancellationToken) -> Result<(), Interrupted> {
        let stop = &self.0.stop;
        match plan {
            Plan::Answer => Ok(()),
            Plan::Hang => tokio::select! {
                _ = ct.cancelled() => Err(Interrupted::Cancelled),
                _ = stop.cancelled() => Err(Interrupted::ClientGone),
            },
            Plan::Delay(d) => tokio::select! {
                _ = tokio::time::sleep(d) => Ok(()),
                _ = ct.cancelled() => Err(Interrupted::Cancelled),
                _ = stop.cancelled() => Err(Interrupted::ClientGone),
            },
            Plan::DelayIgnoringCancel(d) => tokio::select! {
                _ = tokio::time::sleep(d) => Ok(()),
                _ = stop.cancelled() => Err(Interrupted::ClientGone),
            },
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        self.0.info.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(self.0.tools.clone())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(self.0.resources.clone())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(r) = self.0.file.resource(&request.uri) else {
            let known: Vec<&str> = self
                .0
                .file
                .resources
                .iter()
                .map(|r| r.uri.as_str())
                .collect();
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource `{}`; this server's resources are: {}",
                    crate::tools::cut(&request.uri, 200),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
                None,
            ));
        };
        let mut contents = json!({"uri": r.uri, "text": r.text});
        if let Some(m) = &r.mime_type {
            contents["mimeType"] = json!(m);
        }
        let result: ReadResourceResult =
            serde_json::from_value(json!({ "contents": [contents], "resultType": "complete" }))
                .map_err(|e| {
                    ErrorData::internal_error(format!("cannot send `{}`: {e}", r.uri), None)
                })?;
        Ok(result.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // rmcp hands a known method here when its params do not parse.
        if let Some(shape) = KNOWN_METHODS
            .iter()
            .find(|(m, _)| *m == request.method)
            .map(|(_, shape)| shape)
        {
            log(
                self.0.log,
                LogLevel::Calls,
                format_args!("malformed params for `{}`", request.method),
            );
            return Err(ErrorData::invalid_params(
                format!(
                    "the params of `{}` are malformed; it takes {shape}",
                    request.method
                ),
                None,
            ));
        }
        log(
            self.0.log,
            LogLevel::Calls,
            format_args!(
                "unknown method `{}`",
                crate::tools::cut(&request.method, 80)
            ),
        );
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            not_served(&request.method),
            None,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let s = &self.0;
        let name = request.name.as_ref();
        let id = context.id.clone();
        let args = request.arguments.map(Value::Object);
        if s.file.tool(name).is_none() {
            let unknown = s
                .file
                .call(name, args.as_ref())
                .err()
                .map_or_else(|| "unknown tool".to_string(), |e| e.to_string());
            log(
                s.log,
                LogLevel::Calls,
                format_args!("request {id}: {unknown}"),
            );
            return Err(ErrorData::invalid_params(unknown, None));
        }
        let plan = s.faults.plan(name);
        let fault = s.faults.fault_for(name);
        match plan {
            Plan::Answer => log(
                s.log,
                LogLevel::Calls,
                format_args!("request {id}: tools/call `{name}`"),
            ),
            Plan::Hang => log(
                s.log,
                LogLevel::Faults,
                format_args!("request {id}: tools/call `{name}` hangs (fault {fault})"),
            ),
            Plan::Delay(_) | Plan::DelayIgnoringCancel(_) => log(
                s.log,
                LogLevel::Faults,
                format_args!("request {id}: tools/call `{name}` is delayed (fault {fault})"),
            ),
        }
        match self.wait(plan, &context.ct).await {
            Ok(()) => {}
            Err(Interrupted::Cancelled) => {
                log(
                    s.log,
                    LogLevel::Faults,
                    format_args!("request {id}: cancelled by the client; stopped"),
                );
                return Err(ErrorData::internal_error(
                    "the client cancelled the call",
                    None,
                ));
            }
            Err(Interrupted::ClientGone) => {
                log(
                    s.log,
                    LogLevel::Faults,
                    format_args!(
                        "request {id}: tools/call `{name}` was held by fault {fault} when the \
                         input ended; cancelled, not answered"
                    ),
                );
                locked(&s.abandoned).insert(id.clone());
                return Err(ErrorData::internal_error("the client went away", None));
            }
        }
        let result = s
            .file
            .call(name, args.as_ref())
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        if matches!(plan, Plan::DelayIgnoringCancel(_)) {
            log(
                s.log,
                LogLevel::Faults,
                format_args!("request {id}: answered after {} (cancelled or not)", fault),
            );
        }
        let mut wire = result.to_json();
        wire["resultType"] = json!("complete");
        let result: CallToolResult = serde_json::from_value(wire).map_err(|e| {
            ErrorData::internal_error(format!("cannot send the result of `{name}`: {e}"), None)
        })?;
        Ok(result.into())
    }
}

/// The transport as the service loop sees it: the stdio (or in-process) JSON-RPC lines, with
/// the mock's rules on top (see the module docs).
struct Wire<R, W> {
    inner: Lines<R, W>,
    session: Arc<Session>,
    /// Requests received and not yet answered.
    in_flight: Arc<Mutex<HashSet<RequestId>>>,
}

/// True when a request names its protocol version in `params._meta` (the stateless protocol
/// of 2026, served without `initialize`).
fn names_protocol_version(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    serde_json::to_value(message).is_ok_and(|v| {
        v["params"]["_meta"]
            .get("io.modelcontextprotocol/protocolVersion")
            .is_some()
    })
}

/// The Method not found message for `method`.
fn not_served(method: &str) -> String {
    format!(
        "method not found: `{}`; this mock serves initialize, ping, tools/list, tools/call, \
         and resources/list, resources/read and resources/templates/list when its tools file \
         has resources",
        crate::tools::cut(method, 200)
    )
}

/// The JSON form of a request id, for a reply the line layer writes.
fn id_json(id: &RequestId) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

impl<R, W> Transport<RoleServer> for Wire<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let s = &self.session;
        let answered = match &item {
            JsonRpcMessage::Response(r) => {
                if matches!(r.result, ServerResult::InitializeResult(_)) {
                    s.started.store(true, Ordering::SeqCst);
                }
                Some(r.id.clone())
            }
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let mut write = true;
        if let Some(id) = answered {
            locked(&self.in_flight).remove(&id);
            locked(&s.answer_anyway).remove(&id);
            if locked(&s.abandoned).remove(&id) {
                write = false;
            }
        }
        let send = write.then(|| self.inner.send(item));
        async move {
            match send {
                Some(send) => send.await,
                None => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let Some(message) = self.inner.receive().await else {
                log(
                    self.session.log,
                    LogLevel::Faults,
                    format_args!("end of input; stopping"),
                );
                self.session.stop.cancel();
                return None;
            };
            let s = self.session.clone();
            let started = s.started.load(Ordering::SeqCst);
            match &message {
                JsonRpcMessage::Request(r) => {
                    let initialize = matches!(r.request, ClientRequest::InitializeRequest(_));
                    // A request of the stateless protocol names its version in `_meta`; rmcp
                    // serves it without a handshake. Any other request needs `initialize`.
                    if !started && !initialize && !names_protocol_version(&message) {
                        let ping = matches!(r.request, ClientRequest::PingRequest(_));
                        self.before_initialize(&r.id, ping);
                        continue;
                    }
                    if !self.serves(&r.request) {
                        let method = r.request.method();
                        log(
                            s.log,
                            LogLevel::Calls,
                            format_args!("unknown method `{}`", crate::tools::cut(method, 80)),
                        );
                        self.inner
                            .reply(&error_reply(id_json(&r.id), -32601, not_served(method)));
                        continue;
                    }
                    if !locked(&self.in_flight).insert(r.id.clone()) {
                        log(
                            s.log,
                            LogLevel::Calls,
                            format_args!("request {}: refused, its id is in flight", r.id),
                        );
                        self.inner.reply(&error_reply(
                            id_json(&r.id),
                            -32600,
                            format!(
                                "Invalid Request: id {} is already used by a request that has \
                                 not been answered; give each request a new id",
                                r.id
                            ),
                        ));
                        continue;
                    }
                    match &r.request {
                        ClientRequest::InitializeRequest(_) => {
                            s.started.store(true, Ordering::SeqCst)
                        }
                        ClientRequest::CallToolRequest(call)
                            if s.faults.ignores_cancel(&call.params.name) =>
                        {
                            locked(&s.answer_anyway).insert(r.id.clone());
                        }
                        _ => {}
                    }
                }
                JsonRpcMessage::Notification(n) => {
                    if !started {
                        log(
                            s.log,
                            LogLevel::Calls,
                            format_args!("ignored a notification sent before `initialize`"),
                        );
                        continue;
                    }
                    if let ClientNotification::CancelledNotification(c) = &n.notification
                        && let Some(id) = &c.params.request_id
                        && !locked(&s.answer_anyway).contains(id)
                    {
                        // A cancelled request is never answered: its id is free again.
                        locked(&self.in_flight).remove(id);
                    }
                    if let ClientNotification::CancelledNotification(c) = &n.notification
                        && let Some(id) = &c.params.request_id
                        && locked(&s.answer_anyway).contains(id)
                    {
                        log(
                            s.log,
                            LogLevel::Faults,
                            format_args!(
                                "request {id}: the client cancelled it; answering anyway \
                                 (fault reply-after-cancel)"
                            ),
                        );
                        continue;
                    }
                }
                JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {
                    if !started {
                        continue;
                    }
                }
            }
            return Some(message);
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<R, W> Wire<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// True for the methods the mock declares: the lifecycle, tools, and resources when the
    /// tools file has some. A method of any other capability (prompts, completions, logging,
    /// subscriptions, tasks) is not found, as the capabilities it announced say. A method rmcp
    /// does not know reaches the handler, which answers it.
    fn serves(&self, request: &ClientRequest) -> bool {
        let resources = !self.session.file.resources.is_empty();
        match request {
            ClientRequest::PingRequest(_)
            | ClientRequest::InitializeRequest(_)
            | ClientRequest::DiscoverRequest(_)
            | ClientRequest::ListToolsRequest(_)
            | ClientRequest::CallToolRequest(_)
            | ClientRequest::CustomRequest(_) => true,
            ClientRequest::ListResourcesRequest(_)
            | ClientRequest::ReadResourceRequest(_)
            | ClientRequest::ListResourceTemplatesRequest(_) => resources,
            _ => false,
        }
    }

    /// Answers a request sent before `initialize`: a ping is answered (the lifecycle allows
    /// it), anything else is refused with what to send first.
    fn before_initialize(&mut self, id: &RequestId, ping: bool) {
        let s = &self.session;
        let reply = if ping {
            json!({"jsonrpc": "2.0", "id": id_json(id), "result": {}})
        } else {
            log(
                s.log,
                LogLevel::Calls,
                format_args!("request {id}: refused, the session is not initialized"),
            );
            error_reply(
                id_json(id),
                -32600,
                "Invalid Request: the session is not initialized; send `initialize` \
                 (protocolVersion \"2025-06-18\" or \"2025-03-26\") and, once answered, \
                 `notifications/initialized` before other requests"
                    .to_string(),
            )
        };
        self.inner.reply(&reply);
    }
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The client closed its end, or the mock was shut down.
    Closed,
    /// The session could not start; the message says why (the client was told too).
    Refused(String),
}

/// Serves one MCP session over a byte stream pair until end of input or `shutdown`.
pub(crate) async fn serve<R, W>(
    session: Arc<Session>,
    read: R,
    write: W,
    shutdown: CancellationToken,
) -> Ended
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let wire = Wire {
        inner: Lines::new(read, write, session.log),
        session: session.clone(),
        in_flight: Arc::default(),
    };
    let stop = session.stop.clone();
    // A shutdown also ends every fault wait, so handlers finish before rmcp's drain.
    let on_shutdown = {
        let shutdown = shutdown.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            shutdown.cancelled().await;
            stop.cancel();
        })
    };
    let ended = match Handler(session.clone())
        .serve_with_ct(wire, shutdown.clone())
        .await
    {
        Ok(running) => {
            session.started.store(true, Ordering::SeqCst);
            let _ = running.waiting().await;
            Ended::Closed
        }
        Err(ServerInitializeError::ConnectionClosed(_) | ServerInitializeError::Cancelled) => {
            Ended::Closed
        }
        Err(e) => Ended::Refused(e.to_string()),
    };
    stop.cancel();
    on_shutdown.abort();
    ended
}

/// The Streamable HTTP service of one mock server: every client session and request is served
/// by the same session state (call counters, faults), which `stop` ends.
#[cfg(feature = "http")]
pub(crate) struct HttpService(
    rmcp::transport::StreamableHttpService<
        Handler,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    >,
);

#[cfg(feature = "http")]
impl HttpService {
    /// Serves `session` over Streamable HTTP, accepting loopback `Host` values only unless
    /// `any_host` (a server bound to a non-loopback address).
    pub fn new(session: Arc<Session>, any_host: bool) -> HttpService {
        use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
        let stop = session.stop.clone();
        session.started.store(true, Ordering::SeqCst);
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = stop.child_token();
        if any_host {
            config.allowed_hosts.clear();
        }
        HttpService(rmcp::transport::StreamableHttpService::new(
            move || Ok(Handler(session.clone())),
            Arc::default(),
            config,
        ))
    }

    /// Answers one HTTP request.
    pub async fn handle(
        &self,
        request: http::Request<hyper::body::Incoming>,
    ) -> http::Response<http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>>
    {
        self.0.handle(request).await
    }
}
