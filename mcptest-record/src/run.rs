//! One recorded run: the agent loop.
//!
//! Start the agent's servers, list their tools, send the first request, then until the model
//! stops: execute every tool use of a reply (concurrently, or one at a time with
//! `parallel_calls: sequential`; each with its deadline, injected
//! faults synthesized in virtual time), return all results in one message, in order, and ask
//! again. `pause_turn` continues without new input; `end_turn`, `max_tokens`, another stop
//! reason, or `max_turns` model requests end the run.

use crate::clock::VirtualClock;
use crate::error::RecordError;
use crate::faults::{Directive, FaultPlan};
use crate::http::{HttpClient, HttpExchange};
use crate::mcp::{CallOutcome, McpServers, PendingCall};
use crate::progress::Progress;
use crate::provider::{self, Answer, ProviderConfig, Reply, Stop, Usage};
use mcptest_core::fingerprint::{
    FINGERPRINT_SCHEME, FirstRequest, ServerTools, WireNames, request_fingerprint,
    server_instructions, system_prompt,
};
use mcptest_core::spec::{AgentSpec, Fault, ParallelCalls};
use mcptest_core::suite::{ServerConfig, ServerTransport};
use mcptest_core::trace::{
    Conversation, ConversationTrace, Run, Tokens, ToolCall, ToolResult, Turn, split_wire_name,
};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// Everything one run needs.
pub(crate) struct RunSetup<'a> {
    pub provider: &'a ProviderConfig,
    pub http: &'a HttpClient,
    pub runtime: Arc<Runtime>,
    pub spec: &'a AgentSpec,
    pub model: &'a str,
    pub prompt: &'a str,
    pub servers: Vec<&'a ServerConfig>,
    pub suite_dir: &'a Path,
    /// The suite's `roots:`, as written.
    pub roots: &'a [String],
    pub call_timeout_ms: u64,
    pub max_tokens: u32,
    pub max_turns: u32,
    pub code_execution: Option<&'a str>,
    pub progress: Progress,
    pub label: String,
}

/// Numbers about one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Model requests sent.
    pub requests: u32,
    /// Tool calls made.
    pub calls: usize,
    /// Wall time of the run.
    pub wall_ms: u64,
    /// Virtual time the fault executor added (no one waited for it).
    pub virtual_ms: u64,
}

/// Records one run.
pub(crate) fn record_run(setup: &RunSetup<'_>) -> Result<(Run, RunStats), RecordError> {
    let wall = Instant::now();
    let mut clock = VirtualClock::start();
    let clock_ms = {
        let c = clock.clone();
        move || c.now_ms()
    };
    let (servers, listed) = McpServers::start(
        setup.runtime.clone(),
        &setup.servers,
        setup.suite_dir,
        setup.roots,
        &clock_ms,
    )?;
    let mut log = RunLog::default();
    for l in &listed {
        log.mcp.push(json!({
            "server": l.server, "method": "initialize", "result": l.info,
            "started_ms": l.started_ms, "ended_ms": l.ended_ms,
        }));
        log.mcp.push(json!({
            "server": l.server, "method": "tools/list", "tools": listed_tools(&l.tools),
            "started_ms": l.started_ms, "ended_ms": l.ended_ms,
        }));
    }
    let tools: Vec<ServerTools> = listed
        .into_iter()
        .map(|l| {
            log.server_info.insert(l.server.clone(), l.info);
            ServerTools {
                server: l.server,
                tools: l.tools,
            }
        })
        .collect();
    let result = drive(setup, &servers, &tools, &mut clock, &mut log);
    // What the servers asked of the client (roots, sampling, elicitation), after the calls.
    log.mcp.extend(servers.take_client_requests());
    servers.shutdown();
    let (stop_reason, model_stop_reason) = result?;
    let stats = RunStats {
        requests: log.requests,
        calls: log.trace.tool_calls.len(),
        wall_ms: u64::try_from(wall.elapsed().as_millis()).unwrap_or(u64::MAX),
        virtual_ms: clock.virtual_ms(),
    };
    Ok((
        assemble(setup, tools, log, &clock, stop_reason, model_stop_reason),
        stats,
    ))
}

/// The `tools` of a `tools/list` exchange: per tool, its `name`, and its `title` and
/// `annotations` (MCP's `readOnlyHint`, `destructiveHint`, ... as the server sent them) when
/// it has them. Descriptions and schemas are left out: `meta.tools` holds them, and the
/// replay reads this list only to tell which tools mutate.
fn listed_tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .filter_map(|t| {
            let name = t.get("name").and_then(Value::as_str)?;
            let mut kept = Map::new();
            kept.insert("name".into(), name.into());
            for key in ["title", "annotations"] {
                if let Some(v) = t.get(key).filter(|v| !v.is_null()) {
                    kept.insert(key.into(), v.clone());
                }
            }
            Some(Value::Object(kept))
        })
        .collect()
}

/// What a run accumulates.
#[derive(Default)]
struct RunLog {
    trace: ConversationTrace,
    exchanges: Vec<Value>,
    mcp: Vec<Value>,
    faults: Vec<Value>,
    usage: Usage,
    requests: u32,
    server_info: Map<String, Value>,
    /// The system prompt the run sent, if any.
    system: Option<String>,
}

/// The loop; returns (normalized stop reason, the provider's last stop reason).
fn drive(
    setup: &RunSetup<'_>,
    servers: &McpServers,
    tools: &[ServerTools],
    clock: &mut VirtualClock,
    log: &mut RunLog,
) -> Result<(String, String), RecordError> {
    let provider = setup.provider.provider;
    let names = tools.iter().map(|t| t.server.as_str());
    let instructions = server_instructions(&log.server_info, names);
    let system = system_prompt(setup.spec.system.as_deref(), &instructions);
    log.system = system.clone();
    let first = FirstRequest {
        provider,
        model: setup.model.to_string(),
        prompt: setup.prompt.to_string(),
        max_tokens: setup.max_tokens,
        servers: tools.to_vec(),
        code_execution: setup.code_execution.map(str::to_string),
        system,
    };
    let Value::Object(mut body) = first.body() else {
        return Err(RecordError::Runtime(
            "the first request is not an object".into(),
        ));
    };
    let wire = WireNames::new(tools);
    let mut plan = FaultPlan::new(&setup.spec.inject);
    log.trace
        .conversation
        .turns
        .push(Turn::text("user", setup.prompt));
    let url = setup.provider.endpoint();
    let headers = setup.provider.headers();
    let mut stored_messages = 0usize;
    let mut stored_container: Option<Value> = None;
    let mut last_reason = String::new();
    loop {
        if log.requests >= setup.max_turns {
            return Ok(("max_turns".into(), last_reason));
        }
        log.requests += 1;
        setup.progress.show(&format!(
            "{}: turn {}, {} tool call(s) so far",
            setup.label,
            log.requests,
            log.trace.tool_calls.len()
        ));
        let request_body = Value::Object(body.clone());
        let fingerprint = request_fingerprint(&request_body);
        let started_ms = clock.now_ms();
        let http = setup.http.post_json(&url, &headers, &request_body)?;
        let reply = provider::parse_reply(provider, &http.body).map_err(|error| {
            RecordError::BadResponse {
                url: url.clone(),
                error,
            }
        })?;
        let message_count = body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        log.exchanges.push(exchange(
            &http,
            &request_body,
            fingerprint,
            stored_messages,
            &mut stored_container,
            started_ms,
            clock.now_ms(),
        ));
        stored_messages = message_count;
        log.usage.add(reply.usage);
        last_reason = reply.stop_reason.clone();
        push_message(&mut body, reply.message.clone());
        log.trace.conversation.turns.push(reply.turn.clone());
        provider::set_continuation(provider, &mut body, &reply);
        match reply.stop {
            Stop::PauseTurn => continue,
            Stop::ToolUse if !reply.tool_uses.is_empty() => {
                let answers = execute(setup, servers, &wire, &mut plan, &reply, clock, log);
                let (messages, turns) = provider::answer_messages(provider, &answers);
                for m in messages {
                    push_message(&mut body, m);
                }
                log.trace.conversation.turns.extend(turns);
            }
            Stop::EndTurn => return Ok(("end_turn".into(), last_reason)),
            // `tool_use` with no client tool to run (only server tools): nothing to answer.
            Stop::ToolUse => return Ok((last_reason.clone(), last_reason)),
            Stop::MaxTokens => return Ok(("max_tokens".into(), last_reason)),
            Stop::Other => {
                let reason = if last_reason.is_empty() {
                    "unknown".to_string()
                } else {
                    last_reason.clone()
                };
                return Ok((reason, last_reason));
            }
        }
    }
}

fn push_message(body: &mut Map<String, Value>, message: Value) {
    if let Some(Value::Array(messages)) = body.get_mut("messages") {
        messages.push(message);
    }
}

/// A model exchange as a cassette stores it: the first request's body whole, later ones as
/// the messages they add (every other field is the first request's, except `container`).
fn exchange(
    http: &HttpExchange,
    body: &Value,
    fingerprint: String,
    stored_messages: usize,
    stored_container: &mut Option<Value>,
    started_ms: u64,
    ended_ms: u64,
) -> Value {
    let mut request = Map::new();
    request.insert("method".into(), "POST".into());
    request.insert("url".into(), Value::String(http.url.clone()));
    request.insert(
        "headers".into(),
        Value::Object(http.request_headers.clone()),
    );
    if stored_messages == 0 {
        request.insert("body".into(), body.clone());
    } else {
        let new: Vec<Value> = body
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| m.iter().skip(stored_messages).cloned().collect())
            .unwrap_or_default();
        let mut delta = Map::new();
        delta.insert("messages_from".into(), stored_messages.into());
        delta.insert("messages".into(), Value::Array(new));
        let container = body.get("container").cloned();
        if container != *stored_container {
            delta.insert("container".into(), container.clone().unwrap_or(Value::Null));
        }
        request.insert("body_delta".into(), Value::Object(delta));
    }
    *stored_container = body.get("container").cloned();
    json!({
        "request_fingerprint": fingerprint,
        "request": request,
        "status": http.status,
        "response_headers": http.response_headers,
        "response": http.body,
        "started_ms": started_ms,
        "ended_ms": ended_ms,
        "duration_ms": http.duration_ms,
    })
}

/// What the executor decided for one tool use.
enum Plan {
    /// No tool has this wire name.
    Unknown,
    /// The arguments did not parse.
    BadArgs { raw: String, why: String },
    /// An injected fault: a synthesized timeout.
    Timeout { fault: Fault },
    /// Sent to the server (index into the dispatched list), maybe with a virtual delay.
    Dispatch {
        slot: usize,
        delay: Option<(Fault, u64)>,
    },
}

/// Executes a reply's tool uses; returns the answers in order and logs calls, results,
/// exchanges and faults.
fn execute(
    setup: &RunSetup<'_>,
    servers: &McpServers,
    wire: &WireNames,
    plan: &mut FaultPlan,
    reply: &Reply,
    clock: &mut VirtualClock,
    log: &mut RunLog,
) -> Vec<Answer> {
    let deadline_ms = setup.call_timeout_ms;
    let sequential = setup.spec.parallel_calls == ParallelCalls::Sequential;
    let turn_start = clock.now_ms();
    let mut plans = Vec::with_capacity(reply.tool_uses.len());
    let mut dispatch = Vec::new();
    for tu in &reply.tool_uses {
        let target = wire.resolve(&tu.wire_name);
        let p = match (target, &tu.input) {
            (None, _) => Plan::Unknown,
            (Some(_), Err((raw, why))) => Plan::BadArgs {
                raw: raw.clone(),
                why: why.clone(),
            },
            (Some((server, tool)), Ok(args)) => {
                let (fault, directive) = plan.decide(server, tool);
                let fault = fault.cloned();
                match (directive, fault) {
                    (Directive::Timeout { .. }, Some(fault)) => Plan::Timeout { fault },
                    (directive, fault) => {
                        let delay = match (directive, fault) {
                            (Directive::Delay { delay_ms, .. }, Some(f)) => Some((f, delay_ms)),
                            _ => None,
                        };
                        dispatch.push(PendingCall {
                            server: server.to_string(),
                            tool: tool.to_string(),
                            arguments: args.as_object().cloned(),
                        });
                        Plan::Dispatch {
                            slot: dispatch.len() - 1,
                            delay,
                        }
                    }
                }
            }
        };
        plans.push(p);
    }
    if !dispatch.is_empty() {
        setup.progress.show(&format!(
            "{}: turn {}, calling {} tool(s)",
            setup.label,
            log.requests,
            dispatch.len()
        ));
    }
    let outcomes = if dispatch.is_empty() {
        Vec::new()
    } else {
        servers.call_all(&dispatch, Duration::from_millis(deadline_ms), sequential)
    };
    let mut answers = Vec::with_capacity(plans.len());
    let mut latest_end = turn_start;
    for (tu, p) in reply.tool_uses.iter().zip(plans) {
        // Concurrent calls all start with the turn; sequential ones when the previous ended.
        let t0 = if sequential { latest_end } else { turn_start };
        let (server, tool) = match wire.resolve(&tu.wire_name) {
            Some((s, t)) => (Some(s.to_string()), t.to_string()),
            None => {
                let (s, t) = split_wire_name(&tu.wire_name);
                (s.map(str::to_string), t.to_string())
            }
        };
        let mut call = ToolCall {
            name: tool.clone(),
            server: server.clone(),
            args: tu.input.as_ref().ok().cloned(),
            caller: tu.caller.clone(),
            started_ms: Some(t0),
            ended_ms: Some(t0),
            extra: Map::new(),
        };
        call.extra.insert("id".into(), Value::String(tu.id.clone()));
        let call_index = log.trace.tool_calls.len();
        let mut mcp = Map::new();
        mcp.insert("server".into(), json!(server));
        mcp.insert("method".into(), "tools/call".into());
        mcp.insert(
            "params".into(),
            json!({"name": tool, "arguments": tu.input.as_ref().ok()}),
        );
        // Calls never sent and not injected (unknown tool, bad arguments) have no MCP exchange.
        let sent_or_injected = matches!(p, Plan::Timeout { .. } | Plan::Dispatch { .. });
        let (result, ended) = match p {
            Plan::Unknown => {
                let known: Vec<&str> = wire.names().collect();
                (
                    error_result(format!(
                        "there is no tool named `{}`; the tools are: {}",
                        tu.wire_name,
                        known.join(", ")
                    )),
                    t0,
                )
            }
            Plan::BadArgs { raw, why } => {
                call.extra
                    .insert("raw_arguments".into(), Value::String(raw));
                call.extra
                    .insert("arguments_error".into(), Value::String(why.clone()));
                (
                    error_result(format!(
                        "{why}; the call was not sent: send the arguments as a JSON object"
                    )),
                    t0,
                )
            }
            Plan::Timeout { fault } => {
                let ended = t0.saturating_add(deadline_ms);
                log.faults
                    .push(fault_entry(&fault, call_index, deadline_ms));
                mcp.insert(
                    "injected".into(),
                    json!({"fault": fault.name, "kind": fault.kind.name(), "sent": false}),
                );
                mcp.insert("timed_out".into(), Value::Bool(true));
                (timeout_result(&tool, deadline_ms, Some(&fault.name)), ended)
            }
            Plan::Dispatch { slot, delay } => {
                let (outcome, took) = outcomes
                    .get(slot)
                    .cloned()
                    .unwrap_or((CallOutcome::Failed("no outcome".into()), Duration::ZERO));
                let took_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
                let delay_ms = delay.as_ref().map_or(0, |(_, d)| *d);
                if let Some((fault, d)) = &delay {
                    let mut entry = fault_entry(fault, call_index, deadline_ms);
                    if let Some(m) = entry.as_object_mut() {
                        m.remove("virtual_timeout_ms");
                        m.insert("delay_ms".into(), json!(d));
                    }
                    log.faults.push(entry);
                    mcp.insert(
                        "injected".into(),
                        json!({"fault": fault.name, "kind": "slow", "delay_ms": d, "sent": true}),
                    );
                }
                let late = took_ms.saturating_add(delay_ms) >= deadline_ms && delay_ms > 0;
                match outcome {
                    _ if late => {
                        mcp.insert("timed_out".into(), Value::Bool(true));
                        if let CallOutcome::Result(v) = &outcome {
                            // The answer the server gave, which the delay made arrive too late.
                            mcp.insert("late_result".into(), v.clone());
                        }
                        let name = delay.as_ref().map(|(f, _)| f.name.as_str());
                        (
                            timeout_result(&tool, deadline_ms, name),
                            t0.saturating_add(deadline_ms),
                        )
                    }
                    CallOutcome::TimedOut => {
                        mcp.insert("timed_out".into(), Value::Bool(true));
                        mcp.insert("cancelled".into(), Value::Bool(true));
                        (
                            timeout_result(&tool, deadline_ms, None),
                            t0.saturating_add(deadline_ms),
                        )
                    }
                    CallOutcome::Result(v) => {
                        mcp.insert("result".into(), v.clone());
                        (
                            mcp_result(&v),
                            t0.saturating_add(took_ms).saturating_add(delay_ms),
                        )
                    }
                    CallOutcome::Error { code, message } => {
                        mcp.insert("error".into(), json!({"code": code, "message": message}));
                        let mut r = error_result(format!("the server refused the call: {message}"));
                        r.extra
                            .insert("error".into(), json!({"code": code, "message": message}));
                        (r, t0.saturating_add(took_ms).saturating_add(delay_ms))
                    }
                    CallOutcome::Failed(why) => {
                        let tail = server
                            .as_deref()
                            .map(|s| servers.stderr_tail(s))
                            .unwrap_or_default();
                        mcp.insert("failed".into(), Value::String(why.clone()));
                        if !tail.trim().is_empty() {
                            mcp.insert("stderr".into(), Value::String(tail));
                        }
                        (
                            error_result(format!("the call failed: {why}")),
                            t0.saturating_add(took_ms).saturating_add(delay_ms),
                        )
                    }
                }
            }
        };
        call.ended_ms = Some(ended);
        latest_end = latest_end.max(ended);
        if sent_or_injected {
            mcp.insert("started_ms".into(), json!(t0));
            mcp.insert("ended_ms".into(), json!(ended));
            log.mcp.push(Value::Object(mcp));
        }
        answers.push(Answer {
            id: tu.id.clone(),
            is_error: result.is_error,
            content: result
                .content
                .as_ref()
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            structured: result.structured_content.clone(),
        });
        log.trace.tool_calls.push(call);
        log.trace.tool_results.push(result);
    }
    clock.advance_to(latest_end);
    answers
}

fn fault_entry(f: &Fault, call_index: usize, timeout_ms: u64) -> Value {
    let mut target = Map::new();
    if let Some(t) = &f.target.tool {
        target.insert("tool".into(), Value::String(t.clone()));
    }
    if let Some(s) = &f.target.server {
        target.insert("server".into(), Value::String(s.clone()));
    }
    json!({
        "name": f.name,
        "kind": f.kind.name(),
        "target": target,
        "call_index": call_index,
        "virtual_timeout_ms": timeout_ms,
    })
}

fn text_content(text: String) -> Value {
    json!([{"type": "text", "text": text}])
}

fn error_result(text: String) -> ToolResult {
    ToolResult {
        is_error: true,
        content: Some(text_content(text)),
        ..ToolResult::default()
    }
}

fn timeout_result(tool: &str, ms: u64, fault: Option<&str>) -> ToolResult {
    let why = match fault {
        Some(f) => format!(
            "tools/call `{tool}` did not answer within {ms} ms (injected fault `{f}`): the call \
             was abandoned"
        ),
        None => {
            format!("tools/call `{tool}` did not answer within {ms} ms: the call was cancelled")
        }
    };
    ToolResult {
        is_error: true,
        timed_out: true,
        content: Some(text_content(why)),
        ..ToolResult::default()
    }
}

/// An MCP `CallToolResult` (JSON) as a trace result.
fn mcp_result(v: &Value) -> ToolResult {
    let mut extra = Map::new();
    if let Some(m) = v.get("_meta") {
        extra.insert("_meta".into(), m.clone());
    }
    ToolResult {
        is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
        content: Some(v.get("content").cloned().unwrap_or_else(|| json!([]))),
        structured_content: v.get("structuredContent").filter(|s| !s.is_null()).cloned(),
        timed_out: false,
        status: None,
        extra,
    }
}

/// The run as a cassette stores it.
fn assemble(
    setup: &RunSetup<'_>,
    tools: Vec<ServerTools>,
    log: RunLog,
    clock: &VirtualClock,
    stop_reason: String,
    model_stop_reason: String,
) -> Run {
    let RunLog {
        mut trace,
        exchanges,
        mcp,
        faults,
        usage,
        requests,
        server_info,
        system,
    } = log;
    let mut tokens = Map::new();
    tokens.insert("input".into(), usage.input.into());
    tokens.insert("output".into(), usage.output.into());
    tokens.insert("cache_creation".into(), usage.cache_creation.into());
    tokens.insert("cache_read".into(), usage.cache_read.into());
    trace.conversation = Conversation {
        tokens: Tokens {
            total: Some(usage.total()),
            extra: tokens,
        },
        turns: std::mem::take(&mut trace.conversation.turns),
        extra: Map::new(),
    };
    trace.final_response = Some(trace.final_text());
    let wire = WireNames::new(&tools);
    let mut meta = Map::new();
    meta.insert("fingerprint".into(), FINGERPRINT_SCHEME.into());
    meta.insert(
        "recorded_with".into(),
        concat!("mcptest ", env!("CARGO_PKG_VERSION")).into(),
    );
    meta.insert("provider".into(), setup.provider.provider.as_str().into());
    meta.insert("model".into(), setup.model.into());
    meta.insert("prompt".into(), setup.prompt.into());
    if let Some(system) = system {
        meta.insert("system".into(), system.into());
    }
    meta.insert(
        "servers".into(),
        Value::Array(tools.iter().map(|t| t.server.clone().into()).collect()),
    );
    meta.insert(
        "tools".into(),
        Value::Object(
            tools
                .iter()
                .map(|t| (t.server.clone(), Value::Array(t.tools.clone())))
                .collect(),
        ),
    );
    let renamed = wire.renamed();
    if !renamed.is_empty() {
        meta.insert("wire_names".into(), Value::Object(renamed));
    }
    meta.insert("server_info".into(), Value::Object(server_info));
    meta.insert(
        "server_commands".into(),
        Value::Object(
            setup
                .servers
                .iter()
                .map(|s| (s.name.clone(), server_meta(s)))
                .collect(),
        ),
    );
    if let Some(c) = setup.code_execution {
        meta.insert("code_execution".into(), c.into());
    }
    meta.insert("max_tokens".into(), setup.max_tokens.into());
    meta.insert("max_turns".into(), setup.max_turns.into());
    meta.insert(
        "parallel_calls".into(),
        setup.spec.parallel_calls.as_str().into(),
    );
    meta.insert("call_timeout_ms".into(), setup.call_timeout_ms.into());
    meta.insert("requests".into(), requests.into());
    meta.insert("stop_reason".into(), stop_reason.into());
    meta.insert("model_stop_reason".into(), model_stop_reason.into());
    meta.insert("duration_ms".into(), clock.now_ms().into());
    meta.insert("virtual_ms".into(), clock.virtual_ms().into());
    meta.insert("faults".into(), Value::Array(faults));
    let mut extra = Map::new();
    extra.insert("mcp_exchanges".into(), Value::Array(mcp));
    Run {
        trace,
        exchanges,
        meta,
        extra,
    }
}

/// How a server was started or reached, for the cassette's `meta.server_commands`: never a
/// secret (header templates name their variables; list-form `env:` names only).
fn server_meta(server: &ServerConfig) -> Value {
    match &server.transport {
        ServerTransport::Stdio(s) => json!({
            "command": s.command,
            "args": s.args,
            "env": s.env,
            "env_values": s.env_values.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<serde_json::Map<String, Value>>(),
            "cwd": s.cwd,
        }),
        ServerTransport::Http(h) => json!({
            "url": h.url,
            "headers": h.headers.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::listed_tools;
    use serde_json::json;

    #[test]
    fn listed_tools_keep_name_title_and_annotations_only() {
        let tools = [
            json!({"name": "search", "title": "Search", "description": "Full-text search.",
                   "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": true, "openWorldHint": false}}),
            json!({"name": "delete", "description": "Delete a page.",
                   "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}),
            json!({"title": "no name"}),
        ];
        assert_eq!(
            listed_tools(&tools),
            [
                json!({"name": "search", "title": "Search",
                       "annotations": {"readOnlyHint": true, "openWorldHint": false}}),
                json!({"name": "delete"}),
            ]
        );
    }
}
