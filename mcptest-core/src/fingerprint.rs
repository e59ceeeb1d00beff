//! The first model request of a recorded run, its fingerprint, and the stale-cassette check.
//!
//! A recorder sends the model the same first request every time it records an agent: the
//! model, the prompt, the token limit and the tools of the agent's servers. A cassette keeps a
//! **fingerprint** of each request it recorded (`request_fingerprint` in each of a run's
//! `exchanges`): the SHA-256 of the request body's canonical JSON (sorted keys, normalised
//! numbers) without its volatile fields ([`VOLATILE_FIELDS`]).
//!
//! Replay recomputes the first request from the suite as it is now (prompt, `system:`, model,
//! `max_tokens`, `servers`) and what the cassette recorded of the servers (their tool lists in
//! `meta.tools`, their `instructions` in `meta.server_info`). When the fingerprint differs, the
//! suite no longer describes what was recorded and grading the cassette would grade old
//! behaviour: [`check_cassette`] says so, and what changed.
//!
//! Tool names reach the model as **wire names** `<server>__<tool>` ([`wire_tool_name`]).
//! Model APIs accept only `[A-Za-z0-9_-]`, at most [`MAX_WIRE_NAME_LEN`] characters; a name
//! that already fits is used as it is, any other is made to fit and given a short hash of the
//! original, so two tools never share a wire name. The mapping is reversed through the run's
//! tool table ([`WireNames`]), which the recorder builds from the same tool lists.
//!
//! ```
//! use mcptest_core::fingerprint::{FirstRequest, Provider, ServerTools, wire_tool_name};
//! use serde_json::json;
//!
//! let tools = vec![ServerTools {
//!     server: "docs".into(),
//!     tools: vec![json!({"name": "search", "description": "Full-text search.",
//!                        "inputSchema": {"type": "object"}})],
//! }];
//! let first = FirstRequest::new(Provider::Anthropic, "claude-sonnet-4-5", "Find the runbook.", tools);
//! let body = first.body();
//! assert_eq!(body["tools"][0]["name"], "docs__search");
//! assert_eq!(body["messages"][0]["content"], "Find the runbook.");
//! assert!(first.fingerprint().starts_with("sha256:"));
//!
//! assert_eq!(wire_tool_name("docs", "search"), "docs__search");
//! assert!(wire_tool_name("docs", "search.v2").starts_with("docs__search_v2-"));
//! ```

use crate::json::canonical;
use crate::sha256;
use crate::spec::AgentSpec;
use crate::trace::{Cassette, Run, WIRE_SEPARATOR};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;

/// The value of `meta.fingerprint` in a run whose fingerprints this module computes. Runs
/// with neither this nor [`FINGERPRINT_SCHEME_V1`] (hand-written or older cassettes) are never
/// reported stale.
pub const FINGERPRINT_SCHEME: &str = "mcptest-request/2";

/// The scheme of runs recorded before the servers' `instructions` reached the model: their
/// expected first request carries only the agent's `system:`.
pub const FINGERPRINT_SCHEME_V1: &str = "mcptest-request/1";

/// The per-response token limit when an agent sets no `max_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The longest wire name model APIs accept.
pub const MAX_WIRE_NAME_LEN: usize = 64;

/// Request body fields left out of a fingerprint: they change between identical requests
/// (streaming, client metadata, server-assigned container ids, end-user ids).
pub const VOLATILE_FIELDS: &[&str] = &["stream", "metadata", "container", "user", "service_tier"];

/// The model API a run was recorded with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// The Anthropic Messages API (`POST /v1/messages`).
    Anthropic,
    /// An OpenAI-compatible chat-completions endpoint (`POST /chat/completions`).
    OpenAi,
}

impl Provider {
    /// The name written in `meta.provider`: `anthropic` or `openai`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
        }
    }

    /// Reads a provider name (`anthropic`, `openai`).
    pub fn parse(s: &str) -> Option<Provider> {
        match s {
            "anthropic" => Some(Provider::Anthropic),
            "openai" => Some(Provider::OpenAi),
            _ => None,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The wire name of `tool` on `server`: `<server>__<tool>` when that is at most
/// [`MAX_WIRE_NAME_LEN`] characters of `[A-Za-z0-9_-]`; otherwise every other character
/// becomes `_`, the name is shortened, and `-` plus 8 hex digits of the SHA-256 of the
/// original `<server>__<tool>` is appended, so distinct tools get distinct wire names.
pub fn wire_tool_name(server: &str, tool: &str) -> String {
    let original = format!("{server}{WIRE_SEPARATOR}{tool}");
    let fits = original.len() <= MAX_WIRE_NAME_LEN
        && !original.is_empty()
        && original
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if fits {
        return original;
    }
    let hash = hex(&sha256::digest(original.as_bytes()))[..8].to_string();
    let keep = MAX_WIRE_NAME_LEN - hash.len() - 1;
    let sanitized: String = original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(keep)
        .collect();
    format!("{sanitized}-{hash}")
}

/// The wire names of a run's tools and the (server, tool) each stands for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireNames {
    by_wire: BTreeMap<String, (String, String)>,
}

impl WireNames {
    /// The table of these servers' tools (each tool object's `name`).
    pub fn new(servers: &[ServerTools]) -> Self {
        let mut by_wire = BTreeMap::new();
        for s in servers {
            for t in &s.tools {
                if let Some(name) = t.get("name").and_then(Value::as_str) {
                    by_wire.insert(
                        wire_tool_name(&s.server, name),
                        (s.server.clone(), name.to_string()),
                    );
                }
            }
        }
        WireNames { by_wire }
    }

    /// The (server, tool) a wire name stands for.
    pub fn resolve(&self, wire: &str) -> Option<(&str, &str)> {
        self.by_wire
            .get(wire)
            .map(|(s, t)| (s.as_str(), t.as_str()))
    }

    /// The wire names that differ from `<server>__<tool>`, for `meta.wire_names`.
    pub fn renamed(&self) -> Map<String, Value> {
        self.by_wire
            .iter()
            .filter(|(wire, (s, t))| **wire != format!("{s}{WIRE_SEPARATOR}{t}"))
            .map(|(wire, (s, t))| (wire.clone(), json!({"server": s, "tool": t})))
            .collect()
    }

    /// Every wire name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_wire.keys().map(String::as_str)
    }
}

/// The tools one MCP server listed, as MCP tool objects (`name`, `description`,
/// `inputSchema`, ...), in the order it listed them.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTools {
    /// The server's name in the suite.
    pub server: String,
    /// Its tools.
    pub tools: Vec<Value>,
}

/// The inputs of a run's first model request.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstRequest {
    /// The model API.
    pub provider: Provider,
    /// The model id.
    pub model: String,
    /// The agent's prompt (the first user message).
    pub prompt: String,
    /// The per-response token limit.
    pub max_tokens: u32,
    /// The agent's servers and their tools, in the agent's order.
    pub servers: Vec<ServerTools>,
    /// The code-execution tool type offered for programmatic tool calling
    /// (`code_execution_20250825`), Anthropic only; `None` offers none.
    pub code_execution: Option<String>,
    /// The system prompt ([`system_prompt`]); `None` sends none.
    pub system: Option<String>,
}

impl FirstRequest {
    /// A first request with the default token limit and no code execution.
    pub fn new(
        provider: Provider,
        model: impl Into<String>,
        prompt: impl Into<String>,
        servers: Vec<ServerTools>,
    ) -> Self {
        FirstRequest {
            provider,
            model: model.into(),
            prompt: prompt.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
            servers,
            code_execution: None,
            system: None,
        }
    }

    /// The request body.
    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.model.clone()));
        body.insert("max_tokens".into(), self.max_tokens.into());
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.system {
            match self.provider {
                Provider::Anthropic => {
                    body.insert("system".into(), Value::String(system.clone()));
                }
                Provider::OpenAi => messages.push(json!({"role": "system", "content": system})),
            }
        }
        messages.push(json!({"role": "user", "content": self.prompt}));
        body.insert("messages".into(), Value::Array(messages));
        let tools = tool_definitions(self.provider, &self.servers, self.code_execution.as_deref());
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
        }
        Value::Object(body)
    }

    /// The fingerprint of [`body`](Self::body).
    pub fn fingerprint(&self) -> String {
        request_fingerprint(&self.body())
    }
}

/// The system prompt of a run: the agent's `system:` (or its suite's), then the `instructions`
/// each server gave in `initialize`, in the agent's server order, each under a line naming its
/// server; paragraphs are separated by a blank line. `None` when there is neither.
///
/// ```
/// use mcptest_core::fingerprint::system_prompt;
/// assert_eq!(system_prompt(None, &[]), None);
/// assert_eq!(
///     system_prompt(Some("Be brief."), &[("docs", "Search before you open.")]).as_deref(),
///     Some("Be brief.\n\nInstructions from the `docs` MCP server:\nSearch before you open.")
/// );
/// ```
pub fn system_prompt(system: Option<&str>, instructions: &[(&str, &str)]) -> Option<String> {
    let mut parts: Vec<String> = system
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
        .into_iter()
        .collect();
    for (server, text) in instructions {
        if !text.trim().is_empty() {
            parts.push(format!(
                "Instructions from the `{server}` MCP server:\n{text}"
            ));
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The `instructions` each of `servers` gave in `initialize`, read from their `initialize`
/// answers by server name (a run's `meta.server_info`), in that order; servers without
/// instructions are left out.
pub fn server_instructions<'a>(
    server_info: &'a Map<String, Value>,
    servers: impl IntoIterator<Item = &'a str>,
) -> Vec<(&'a str, &'a str)> {
    servers
        .into_iter()
        .filter_map(|name| {
            let text = server_info.get(name)?.get("instructions")?.as_str()?;
            Some((name, text))
        })
        .collect()
}

/// The tool definitions a provider is offered for these servers' tools.
///
/// Anthropic: `{name, description, input_schema}` (plus `allowed_callers` and the code
/// execution tool itself when `code_execution` names its type); OpenAI:
/// `{type: "function", function: {name, description, parameters}}`.
pub fn tool_definitions(
    provider: Provider,
    servers: &[ServerTools],
    code_execution: Option<&str>,
) -> Vec<Value> {
    let mut out = Vec::new();
    let code_execution = code_execution.filter(|_| provider == Provider::Anthropic);
    if let Some(kind) = code_execution {
        out.push(json!({"type": kind, "name": "code_execution"}));
    }
    for s in servers {
        for t in &s.tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            let wire = wire_tool_name(&s.server, name);
            let description = t
                .get("description")
                .and_then(Value::as_str)
                .or_else(|| t.get("title").and_then(Value::as_str));
            let schema = t
                .get("inputSchema")
                .or_else(|| t.get("input_schema"))
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}));
            let mut def = Map::new();
            match provider {
                Provider::Anthropic => {
                    def.insert("name".into(), Value::String(wire));
                    if let Some(d) = description {
                        def.insert("description".into(), Value::String(d.to_string()));
                    }
                    def.insert("input_schema".into(), schema);
                    if let Some(kind) = code_execution {
                        def.insert("allowed_callers".into(), json!(["direct", kind]));
                    }
                }
                Provider::OpenAi => {
                    let mut f = Map::new();
                    f.insert("name".into(), Value::String(wire));
                    if let Some(d) = description {
                        f.insert("description".into(), Value::String(d.to_string()));
                    }
                    f.insert("parameters".into(), schema);
                    def.insert("type".into(), Value::String("function".into()));
                    def.insert("function".into(), Value::Object(f));
                }
            }
            out.push(Value::Object(def));
        }
    }
    out
}

/// The fingerprint of a request body: `sha256:` and the hex SHA-256 of its canonical JSON
/// without the top-level [`VOLATILE_FIELDS`]. Key order and number spelling never change it.
///
/// ```
/// use mcptest_core::fingerprint::request_fingerprint;
/// use serde_json::json;
/// let a = request_fingerprint(&json!({"model": "m", "max_tokens": 10, "stream": false}));
/// let b = request_fingerprint(&json!({"max_tokens": 10.0, "model": "m"}));
/// assert_eq!(a, b);
/// assert_ne!(a, request_fingerprint(&json!({"model": "m2", "max_tokens": 10})));
/// ```
pub fn request_fingerprint(body: &Value) -> String {
    let stable = match body {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !VOLATILE_FIELDS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    };
    format!(
        "sha256:{}",
        hex(&sha256::digest(canonical(&stable).as_bytes()))
    )
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// A cassette that no longer matches its suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleCassette {
    /// The run (0-based) whose first request no longer matches.
    pub run: usize,
    /// What changed, in the suite's words (`prompt`, `model`, `max_tokens`, `servers`,
    /// `tool list`); empty when the difference could not be attributed.
    pub changed: Vec<String>,
    /// The fingerprint the cassette recorded.
    pub recorded: String,
    /// The fingerprint the suite gives now.
    pub expected: String,
}

impl fmt::Display for StaleCassette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the suite no longer gives run {}'s recorded first request",
            self.run + 1
        )?;
        if !self.changed.is_empty() {
            write!(f, " ({} changed since recording)", self.changed.join(", "))?;
        }
        if self.recorded != self.expected {
            write!(
                f,
                "; recorded {}, the suite gives {}",
                short(&self.recorded),
                short(&self.expected)
            )?;
        }
        Ok(())
    }
}

fn short(fp: &str) -> &str {
    fp.get(..19).unwrap_or(fp)
}

/// The first request of `run` as `spec` describes it now, with the tool lists the run
/// recorded; `None` when the run does not carry [`FINGERPRINT_SCHEME`] (or lacks what the
/// scheme needs), so it cannot be checked.
pub fn expected_first_request(spec: &AgentSpec, run: &Run) -> Option<FirstRequest> {
    let with_instructions = match run.meta.get("fingerprint").and_then(Value::as_str) {
        Some(FINGERPRINT_SCHEME) => true,
        Some(FINGERPRINT_SCHEME_V1) => false,
        _ => return None,
    };
    let provider = Provider::parse(run.meta.get("provider")?.as_str()?)?;
    let tools = run.meta.get("tools").and_then(Value::as_object);
    let servers = spec
        .servers
        .iter()
        .map(|name| ServerTools {
            server: name.clone(),
            tools: tools
                .and_then(|t| t.get(name))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        })
        .collect();
    Some(FirstRequest {
        provider,
        model: spec.model.clone().unwrap_or_default(),
        prompt: spec.prompt.clone().unwrap_or_default(),
        max_tokens: spec.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        servers,
        code_execution: run
            .meta
            .get("code_execution")
            .and_then(Value::as_str)
            .map(str::to_string),
        system: system_prompt(
            spec.system.as_deref(),
            &run.meta
                .get("server_info")
                .and_then(Value::as_object)
                .filter(|_| with_instructions)
                .map(|info| server_instructions(info, spec.servers.iter().map(String::as_str)))
                .unwrap_or_default(),
        ),
    })
}

/// Checks every run of `cassette` that carries [`FINGERPRINT_SCHEME`]: its first exchange's
/// `request_fingerprint` must equal the fingerprint `spec` gives now with the run's recorded
/// tool lists, and the agent's servers must be the recorded ones. Runs without the scheme
/// pass unchecked.
///
/// ```
/// use mcptest_core::fingerprint::{FINGERPRINT_SCHEME, FirstRequest, Provider, check_cassette};
/// use mcptest_core::spec::AgentSpec;
/// use mcptest_core::trace::{Cassette, Run};
/// use serde_json::json;
///
/// let mut spec = AgentSpec::new("a");
/// spec.model = Some("m".into());
/// spec.prompt = Some("Say hi.".into());
/// let first = FirstRequest::new(Provider::Anthropic, "m", "Say hi.", vec![]);
/// let mut run = Run::default();
/// run.meta.insert("fingerprint".into(), json!(FINGERPRINT_SCHEME));
/// run.meta.insert("provider".into(), json!("anthropic"));
/// run.meta.insert("prompt".into(), json!("Say hi."));
/// run.exchanges.push(json!({"request_fingerprint": first.fingerprint()}));
/// let cassette = Cassette::new(vec![run]);
/// assert!(check_cassette(&spec, &cassette).is_ok());
///
/// spec.prompt = Some("Say hello.".into());
/// let stale = check_cassette(&spec, &cassette).unwrap_err();
/// assert_eq!(stale.changed, ["prompt"]);
/// ```
pub fn check_cassette(spec: &AgentSpec, cassette: &Cassette) -> Result<(), StaleCassette> {
    for (i, run) in cassette.runs.iter().enumerate() {
        let Some(first) = expected_first_request(spec, run) else {
            continue;
        };
        let recorded = run
            .exchanges
            .first()
            .and_then(|e| e.get("request_fingerprint"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let expected = first.fingerprint();
        // A server added to (or dropped from) the agent changes what the model would be
        // offered even when the recorded tool lists cannot show it.
        let servers_changed = run
            .meta
            .get("servers")
            .and_then(Value::as_array)
            .is_some_and(|r| {
                !r.iter()
                    .map(Value::as_str)
                    .eq(spec.servers.iter().map(|s| Some(s.as_str())))
            });
        if recorded != expected || servers_changed {
            return Err(StaleCassette {
                run: i,
                changed: what_changed(spec, run, &first),
                recorded: recorded.to_string(),
                expected,
            });
        }
    }
    Ok(())
}

/// Names what differs between the suite and what the run recorded (best effort: the
/// recorded request body may have been redacted).
fn what_changed(spec: &AgentSpec, run: &Run, first: &FirstRequest) -> Vec<String> {
    let mut changed = Vec::new();
    let meta_str = |k: &str| run.meta.get(k).and_then(Value::as_str);
    if let Some(recorded) = meta_str("model")
        && Some(recorded) != spec.model.as_deref()
    {
        changed.push("model".to_string());
    }
    if let Some(recorded) = meta_str("prompt")
        && Some(recorded) != spec.prompt.as_deref()
    {
        changed.push("prompt".to_string());
    }
    if let Some(recorded) = run.meta.get("max_tokens").and_then(Value::as_u64)
        && recorded != u64::from(first.max_tokens)
    {
        changed.push("max_tokens".to_string());
    }
    if let Some(recorded) = run.meta.get("servers").and_then(Value::as_array) {
        let recorded: Vec<&str> = recorded.iter().filter_map(Value::as_str).collect();
        if recorded != spec.servers.iter().map(String::as_str).collect::<Vec<_>>() {
            changed.push("servers".to_string());
        }
    }
    if run.meta.get("system").and_then(Value::as_str) != first.system.as_deref()
        && (run.meta.contains_key("system") || first.system.is_some())
    {
        changed.push("system".to_string());
    }
    if changed.is_empty()
        && let Some(body) = run
            .exchanges
            .first()
            .and_then(|e| e.get("request"))
            .and_then(|r| r.get("body"))
        && body.get("tools") != first.body().get("tools")
    {
        changed.push("tool list".to_string());
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_prompt_is_placed_as_each_api_expects_and_changes_the_fingerprint() {
        let mut first = FirstRequest::new(Provider::Anthropic, "m", "Hi.", vec![]);
        let plain = first.fingerprint();
        assert!(first.body().get("system").is_none());
        first.system = system_prompt(Some("Be brief."), &[]);
        let body = first.body();
        assert_eq!(body["system"], "Be brief.");
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "Hi."}])
        );
        assert_ne!(first.fingerprint(), plain);

        first.provider = Provider::OpenAi;
        let body = first.body();
        assert!(body.get("system").is_none());
        assert_eq!(
            body["messages"],
            json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi."}])
        );
    }

    #[test]
    fn server_instructions_count_from_the_second_scheme_on() {
        // A run recorded against a server with instructions, sending no system prompt.
        let mut spec = AgentSpec::new("a");
        spec.model = Some("m".into());
        spec.prompt = Some("Hi.".into());
        spec.servers = vec!["docs".into()];
        let run = |scheme: &str| {
            let mut run = recorded(&spec, json!({"docs": []}));
            run.meta.insert("fingerprint".into(), json!(scheme));
            let info = json!({"docs": {"instructions": "Search first."}});
            run.meta.insert("server_info".into(), info);
            Cassette::new(vec![run])
        };
        // Recorded before instructions reached the model: still what the suite gives.
        assert!(check_cassette(&spec, &run(FINGERPRINT_SCHEME_V1)).is_ok());
        // Under the current scheme the model would have seen them: that run is stale.
        let stale = check_cassette(&spec, &run(FINGERPRINT_SCHEME)).unwrap_err();
        assert_eq!(stale.changed, ["system"], "{stale}");
    }

    #[test]
    fn blank_parts_of_the_system_prompt_are_left_out() {
        assert_eq!(system_prompt(Some("  "), &[("a", "\n")]), None);
        assert_eq!(
            system_prompt(None, &[("a", "First."), ("b", " "), ("c", "Third.")]).as_deref(),
            Some(
                "Instructions from the `a` MCP server:\nFirst.\n\n\
                 Instructions from the `c` MCP server:\nThird."
            )
        );
    }

    #[test]
    fn wire_names_fit_and_stay_distinct() {
        assert_eq!(wire_tool_name("gh", "create-issue"), "gh__create-issue");
        let a = wire_tool_name("fs", "read.file");
        let b = wire_tool_name("fs", "read/file");
        assert_ne!(a, b);
        assert!(a.starts_with("fs__read_file-"), "{a}");
        let long = wire_tool_name("server", &"x".repeat(100));
        assert_eq!(long.len(), MAX_WIRE_NAME_LEN);
        assert!(
            long.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
        let table = WireNames::new(&[ServerTools {
            server: "fs".into(),
            tools: vec![json!({"name": "read.file"}), json!({"name": "list"})],
        }]);
        assert_eq!(table.resolve(&a), Some(("fs", "read.file")));
        assert_eq!(table.resolve("fs__list"), Some(("fs", "list")));
        assert_eq!(table.renamed().len(), 1);
    }

    #[test]
    fn openai_tools_are_functions() {
        let s = vec![ServerTools {
            server: "w".into(),
            tools: vec![json!({"name": "get", "inputSchema": {"type": "object"}})],
        }];
        let defs = tool_definitions(Provider::OpenAi, &s, Some("code_execution_20250825"));
        assert_eq!(
            defs,
            vec![
                json!({"type": "function", "function": {"name": "w__get", "parameters": {"type": "object"}}})
            ]
        );
        let defs = tool_definitions(Provider::Anthropic, &s, Some("code_execution_20250825"));
        assert_eq!(defs.len(), 2);
        assert_eq!(defs[1]["allowed_callers"][1], "code_execution_20250825");
    }

    fn recorded(spec: &AgentSpec, tools: Value) -> Run {
        let servers: Vec<ServerTools> = spec
            .servers
            .iter()
            .map(|s| ServerTools {
                server: s.clone(),
                tools: tools[s].as_array().cloned().unwrap_or_default(),
            })
            .collect();
        let mut first = FirstRequest::new(
            Provider::OpenAi,
            spec.model.clone().unwrap_or_default(),
            spec.prompt.clone().unwrap_or_default(),
            servers,
        );
        first.max_tokens = spec.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let mut run = Run::default();
        for (k, v) in [
            ("fingerprint", json!(FINGERPRINT_SCHEME)),
            ("provider", json!("openai")),
            ("model", json!(first.model)),
            ("prompt", json!(first.prompt)),
            ("max_tokens", json!(first.max_tokens)),
            ("servers", json!(spec.servers)),
            ("tools", tools),
        ] {
            run.meta.insert(k.into(), v);
        }
        run.exchanges
            .push(json!({"request_fingerprint": first.fingerprint(),
                                  "request": {"body": first.body()}}));
        run
    }

    #[test]
    fn stale_names_what_changed() {
        let mut spec = AgentSpec::new("a");
        spec.model = Some("m1".into());
        spec.prompt = Some("p".into());
        spec.servers = vec!["docs".into()];
        let tools = json!({"docs": [{"name": "search", "inputSchema": {"type": "object"}}]});
        let cassette = Cassette::new(vec![recorded(&spec, tools.clone())]);
        assert_eq!(check_cassette(&spec, &cassette), Ok(()));

        let changed = |f: &dyn Fn(&mut AgentSpec)| {
            let mut s = spec.clone();
            f(&mut s);
            check_cassette(&s, &cassette).map_err(|e| e.changed)
        };
        assert_eq!(
            changed(&|s| s.model = Some("m2".into())),
            Err(vec!["model".into()])
        );
        assert_eq!(
            changed(&|s| s.max_tokens = Some(10)),
            Err(vec!["max_tokens".into()])
        );
        assert_eq!(
            changed(&|s| s.servers.push("web".into())),
            Err(vec!["servers".into()])
        );
        // Grading gates are not part of the request: changing them is not staleness.
        assert_eq!(changed(&|s| s.runs = Some(5)), Ok(()));

        let mut edited = cassette.clone();
        edited.runs[0].meta.insert(
            "tools".into(),
            json!({"docs": [{"name": "search", "description": "new", "inputSchema": {"type": "object"}}]}),
        );
        let stale = check_cassette(&spec, &edited).unwrap_err();
        assert_eq!(stale.changed, ["tool list"]);
        assert!(
            stale
                .to_string()
                .contains("tool list changed since recording"),
            "{stale}"
        );
    }

    #[test]
    fn unmarked_runs_are_not_checked() {
        let spec = AgentSpec::new("a");
        let mut run = Run::default();
        run.exchanges
            .push(json!({"request_fingerprint": "sha256:33670da92d630db0"}));
        assert!(check_cassette(&spec, &Cassette::new(vec![run])).is_ok());
    }
}
