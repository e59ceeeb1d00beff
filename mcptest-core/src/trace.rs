//! The trace model and the cassette format.
//!
//! An agent run is stored as an **envelope**: the tool calls it made, the results it got back,
//! the conversation (turns and token totals) and its final response:
//!
//! ```json
//! {
//!   "tool_calls":   [{"name": "search", "server": "docs", "args": {"q": "a"},
//!                     "caller": {"type": "code_execution"}, "started_ms": 0, "ended_ms": 40}],
//!   "tool_results": [{"is_error": false, "content": [], "timed_out": false, "status": 200}],
//!   "conversation": {"tokens": {"total": 3000},
//!                    "turns": [{"role": "user", "content": "..."}]},
//!   "final_response": "..."
//! }
//! ```
//!
//! A **cassette** file holds one scenario recorded `runs` times:
//! `{"mcptest_cassette": 1, "runs": [RUN, ...]}` with
//! `RUN = {"trace": ENVELOPE, "exchanges": [...], "meta": {...}}`. A file whose root is a single
//! `RUN`, or a bare `ENVELOPE`, is read as a cassette of one run.
//!
//! Rules every reader shares:
//! * `tool_calls[i].name` is the tool name without the `<server>__` wire prefix; a recorded name
//!   that still carries the prefix is split on load ([`split_wire_name`]).
//! * `tool_results[i]` answers `tool_calls[i]`; parallel calls in one turn keep their order.
//! * `caller` is absent for a direct call and holds the provider's caller object (opaque JSON)
//!   for a call made from model-written code.
//! * Unknown fields are kept, so a load/save round-trip loses nothing, and ignored by every check.
//! * A malformed file is a [`CassetteError`] naming the file, the JSON path and line:column.
//!
//! The types implement serde's `Serialize` and `Deserialize` as this envelope JSON (the same
//! encoder and decoder as the cassette reader), so a host can embed them in its own types:
//!
//! ```
//! use mcptest_core::trace::{ConversationTrace, ToolCall};
//!
//! let trace = ConversationTrace {
//!     tool_calls: vec![ToolCall::new("search").with_args(serde_json::json!({"q": "rust"}))],
//!     ..ConversationTrace::default()
//! };
//! let text = serde_json::to_string(&trace).unwrap();
//! assert_eq!(serde_json::from_str::<ConversationTrace>(&text).unwrap(), trace);
//! let err = serde_json::from_str::<ToolCall>(r#"{"name": 7}"#).unwrap_err();
//! assert!(err.to_string().contains("name"), "{err}");
//! ```

use crate::json::type_name;
use serde_json::{Map, Value};
use std::fmt;

/// The separator between server and tool in a wire name (`docs__search`).
pub const WIRE_SEPARATOR: &str = "__";

/// The format version written in `mcptest_cassette`.
pub const CASSETTE_VERSION: u64 = 1;

/// One tool call the agent made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The tool name, without the `<server>__` wire prefix.
    pub name: String,
    /// The MCP server that served the call, when known.
    pub server: Option<String>,
    /// The arguments the agent sent; `None` when the call carried none.
    pub args: Option<Value>,
    /// The provider's caller object for a call made from model-written code; `None` for a
    /// direct call (a recorded `{"type": "direct"}` reads as `None`).
    pub caller: Option<Value>,
    /// Start of the call, in (possibly virtual) milliseconds since the run began.
    pub started_ms: Option<u64>,
    /// End of the call (its result or its synthesized timeout).
    pub ended_ms: Option<u64>,
    /// Fields this version does not know; kept for round-trips, ignored by checks.
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// A call of `name` with no server and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        ToolCall {
            name: name.into(),
            ..ToolCall::default()
        }
    }

    /// The same call with these arguments.
    pub fn with_args(mut self, args: Value) -> Self {
        self.args = Some(args);
        self
    }

    /// The same call with this server.
    pub fn with_server(mut self, server: impl Into<String>) -> Self {
        self.server = Some(server.into());
        self
    }

    /// True when the call was made from model-written code (it has a `caller`).
    pub fn is_programmatic(&self) -> bool {
        self.caller.is_some()
    }

    /// This call as envelope JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        if let Some(s) = &self.server {
            m.insert("server".into(), Value::String(s.clone()));
        }
        if let Some(a) = &self.args {
            m.insert("args".into(), a.clone());
        }
        if let Some(c) = &self.caller {
            m.insert("caller".into(), c.clone());
        }
        if let Some(t) = self.started_ms {
            m.insert("started_ms".into(), t.into());
        }
        if let Some(t) = self.ended_ms {
            m.insert("ended_ms".into(), t.into());
        }
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// The result the server (or the executor, for an injected fault) gave one call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    /// True when the result is an error the model saw (`isError` in MCP).
    pub is_error: bool,
    /// The MCP content blocks, as recorded.
    pub content: Option<Value>,
    /// MCP structured content, when the tool returned any.
    pub structured_content: Option<Value>,
    /// True when the call never answered and a timeout was synthesized.
    pub timed_out: bool,
    /// A status code, when the transport reports one.
    pub status: Option<u16>,
    /// Fields this version does not know; kept for round-trips, ignored by checks.
    pub extra: Map<String, Value>,
}

impl ToolResult {
    /// This result as envelope JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("is_error".into(), Value::Bool(self.is_error));
        if let Some(c) = &self.content {
            m.insert("content".into(), c.clone());
        }
        if let Some(c) = &self.structured_content {
            m.insert("structured_content".into(), c.clone());
        }
        m.insert("timed_out".into(), Value::Bool(self.timed_out));
        if let Some(s) = self.status {
            m.insert("status".into(), s.into());
        }
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// One conversation turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    /// `user`, `assistant`, or another role the provider used.
    pub role: String,
    /// The turn's content: a string, or the provider's array of content blocks.
    pub content: Value,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

impl Turn {
    /// The turn as envelope JSON (`{"role": ..., "content": ...}`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), Value::String(self.role.clone()));
        m.insert("content".into(), self.content.clone());
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }

    /// A turn with text content.
    pub fn text(role: impl Into<String>, text: impl Into<String>) -> Self {
        Turn {
            role: role.into(),
            content: Value::String(text.into()),
            extra: Map::new(),
        }
    }

    /// The turn's text: the string itself, or the `text` of its text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        content_text(&self.content)
    }
}

/// The text of a content value: a string, or the text blocks of a content array joined by `\n`.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        other => content_texts(other).collect::<Vec<_>>().join("\n"),
    }
}

/// The texts [`content_text`] joins, in order: the string itself, or each text block of a
/// content array (a string, or an object whose `type` is `text` or absent); nothing for any
/// other value.
pub fn content_texts(content: &Value) -> impl Iterator<Item = &str> {
    let (whole, blocks): (Option<&str>, &[Value]) = match content {
        Value::String(s) => (Some(s), &[]),
        Value::Array(blocks) => (None, blocks),
        _ => (None, &[]),
    };
    whole
        .into_iter()
        .chain(blocks.iter().filter_map(text_block))
}

/// The text of one block of a content array, when it is a text block.
fn text_block(block: &Value) -> Option<&str> {
    match block {
        Value::String(s) => Some(s),
        Value::Object(o) => {
            let [kind, text] = crate::json::fields(o, ["type", "text"]);
            let is_text = kind.and_then(Value::as_str).is_none_or(|t| t == "text");
            text.and_then(Value::as_str).filter(|_| is_text)
        }
        _ => None,
    }
}

/// Token totals of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tokens {
    /// All tokens of the run (input, output, cache creation and cache read).
    pub total: Option<u64>,
    /// Fields this version does not know (per-kind counts, for example).
    pub extra: Map<String, Value>,
}

/// The conversation of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    /// Token totals.
    pub tokens: Tokens,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

/// One recorded agent run: what [`ConversationTrace::to_envelope`] writes and
/// [`ConversationTrace::from_envelope`] reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConversationTrace {
    /// The tool calls, in the order they were made.
    pub tool_calls: Vec<ToolCall>,
    /// `tool_results[i]` answers `tool_calls[i]` (it may be shorter when the run was cut off).
    pub tool_results: Vec<ToolResult>,
    /// Turns and tokens.
    pub conversation: Conversation,
    /// The closing text, when recorded explicitly.
    pub final_response: Option<String>,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

impl ConversationTrace {
    /// Reads an envelope. Unknown fields are kept; a wrong type at a known field is an error
    /// naming its JSON path.
    pub fn from_envelope(v: &Value) -> Result<Self, DecodeError> {
        decode_trace(v.clone(), &mut Path::root())
    }

    /// Writes the envelope JSON (the inverse of [`from_envelope`](Self::from_envelope)).
    pub fn to_envelope(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "tool_calls".into(),
            Value::Array(self.tool_calls.iter().map(ToolCall::to_value).collect()),
        );
        m.insert(
            "tool_results".into(),
            Value::Array(self.tool_results.iter().map(ToolResult::to_value).collect()),
        );
        let mut conv = Map::new();
        let mut tokens = Map::new();
        if let Some(t) = self.conversation.tokens.total {
            tokens.insert("total".into(), t.into());
        }
        extend_missing(&mut tokens, &self.conversation.tokens.extra);
        conv.insert("tokens".into(), Value::Object(tokens));
        conv.insert(
            "turns".into(),
            Value::Array(self.conversation.turns.iter().map(Turn::to_value).collect()),
        );
        extend_missing(&mut conv, &self.conversation.extra);
        m.insert("conversation".into(), Value::Object(conv));
        if let Some(f) = &self.final_response {
            m.insert("final_response".into(), Value::String(f.clone()));
        }
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }

    /// The closing text: `final_response` when recorded, else the last assistant turn's text,
    /// else the empty string.
    pub fn final_text(&self) -> String {
        if let Some(f) = &self.final_response {
            return f.clone();
        }
        self.conversation
            .turns
            .iter()
            .rev()
            .find(|t| t.role == "assistant")
            .map(Turn::text_content)
            .unwrap_or_default()
    }

    /// The turns spoken by the assistant.
    pub fn assistant_turns(&self) -> impl Iterator<Item = &Turn> {
        self.conversation
            .turns
            .iter()
            .filter(|t| t.role == "assistant")
    }
}

/// One run of a cassette: its trace, the model exchanges behind it, and metadata.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The normalized trace every check reads.
    pub trace: ConversationTrace,
    /// Model request/response pairs as recorded (opaque to checks).
    pub exchanges: Vec<Value>,
    /// Metadata (model, servers, tool lists), opaque to checks.
    pub meta: Map<String, Value>,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

impl Run {
    /// A run holding only a trace.
    pub fn from_trace(trace: ConversationTrace) -> Self {
        Run {
            trace,
            ..Run::default()
        }
    }

    /// The run as JSON (`{"trace": ..., "exchanges": [...], "meta": {...}}`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("trace".into(), self.trace.to_envelope());
        m.insert("exchanges".into(), Value::Array(self.exchanges.clone()));
        m.insert("meta".into(), Value::Object(self.meta.clone()));
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// What shape a cassette file's root had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CassetteShape {
    /// `{"mcptest_cassette": 1, "runs": [...]}`.
    Cassette,
    /// A single `{"trace": ...}` run at the root.
    SingleRun,
    /// A bare envelope at the root.
    Envelope,
}

/// One recorded scenario: one or more runs of the same agent, prompt and model.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    /// The format version (`mcptest_cassette`).
    pub version: u64,
    /// The runs, in recording order.
    pub runs: Vec<Run>,
    /// The shape the file had.
    pub shape: CassetteShape,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

impl Cassette {
    /// A cassette of these runs.
    pub fn new(runs: Vec<Run>) -> Self {
        Cassette {
            version: CASSETTE_VERSION,
            runs,
            shape: CassetteShape::Cassette,
            extra: Map::new(),
        }
    }

    /// How many runs cassette text holds, read without building them: the length of `runs`
    /// for a cassette, one for a single run or a bare trace. `None` when the text is not a
    /// JSON object ([`from_json_str`](Self::from_json_str) says what is wrong with it).
    ///
    /// ```
    /// use mcptest_core::trace::Cassette;
    ///
    /// let three = r#"{"mcptest_cassette": 1, "runs": [{"trace": {}}, {"trace": {}}, {"trace": {}}]}"#;
    /// assert_eq!(Cassette::count_runs(three), Some(3));
    /// assert_eq!(Cassette::count_runs(r#"{"tool_calls": []}"#), Some(1));
    /// assert_eq!(Cassette::count_runs("{truncated"), None);
    /// ```
    pub fn count_runs(text: &str) -> Option<usize> {
        use serde::de::IgnoredAny;
        #[derive(serde::Deserialize)]
        struct Head {
            mcptest_cassette: Option<IgnoredAny>,
            runs: Option<Vec<IgnoredAny>>,
        }
        let head: Head = serde_json::from_str(text).ok()?;
        match head.mcptest_cassette {
            Some(_) => head.runs.map(|r| r.len()),
            None => Some(1),
        }
    }

    /// Parses cassette text. `name` (usually the file path) appears in every error.
    ///
    /// Accepts the three root shapes ([`CassetteShape`]). Errors name the file, the JSON path
    /// and line:column; an empty file is an error, never an empty cassette.
    pub fn from_json_str(name: &str, text: &str) -> Result<Self, CassetteError> {
        if text.trim().is_empty() {
            return Err(CassetteError {
                file: name.to_string(),
                path: String::new(),
                line: 1,
                column: 1,
                kind: CassetteErrorKind::Empty,
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|e| CassetteError {
            file: name.to_string(),
            path: String::new(),
            line: e.line().max(1),
            // serde_json reports column 0 for an error at the very start of a line (a file
            // truncated right after a newline); columns are 1-based here.
            column: e.column().max(1),
            kind: CassetteErrorKind::Syntax(strip_position(&e.to_string())),
        })?;
        Self::from_owned_value(value).map_err(|e| {
            let (line, column) = crate::json_locate::locate(text, &e.path.segments);
            CassetteError {
                file: name.to_string(),
                path: e.path.to_string(),
                line,
                column,
                kind: CassetteErrorKind::Shape(e.message),
            }
        })
    }

    /// Reads a parsed cassette value (any of the three root shapes).
    pub fn from_value(v: &Value) -> Result<Self, DecodeError> {
        Self::from_owned_value(v.clone())
    }

    /// [`from_value`](Self::from_value) without a copy: the values move into the model.
    pub fn from_owned_value(v: Value) -> Result<Self, DecodeError> {
        let mut path = Path::root();
        let is_cassette = v.get("mcptest_cassette").is_some();
        let is_run = v.get("trace").is_some();
        if is_cassette {
            let mut obj = into_object(v, &path)?;
            let version = take_required(
                &mut obj,
                "mcptest_cassette",
                "the format version",
                &mut path,
                |v, p| {
                    v.as_u64()
                        .ok_or_else(|| p.error("a format version number (1)", &v))
                },
            )?;
            if version != CASSETTE_VERSION {
                return Err(path.error_msg(format!(
                    "unsupported cassette version {version}; this mcptest reads version {CASSETTE_VERSION}"
                )));
            }
            let runs = take_required(&mut obj, "runs", "an array of runs", &mut path, |v, p| {
                into_array(v, p)?
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| p.with_index(i, |p| decode_run(r, p)))
                    .collect::<Result<Vec<_>, _>>()
            })?;
            Ok(Cassette {
                version,
                runs,
                shape: CassetteShape::Cassette,
                extra: obj,
            })
        } else if is_run {
            Ok(Cassette {
                shape: CassetteShape::SingleRun,
                ..Cassette::new(vec![decode_run(v, &mut path)?])
            })
        } else {
            Ok(Cassette {
                shape: CassetteShape::Envelope,
                ..Cassette::new(vec![Run::from_trace(decode_trace(v, &mut path)?)])
            })
        }
    }

    /// The cassette as JSON, always in the full `{"mcptest_cassette": 1, "runs": [...]}` shape.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("mcptest_cassette".into(), self.version.into());
        m.insert(
            "runs".into(),
            Value::Array(self.runs.iter().map(Run::to_value).collect()),
        );
        extend_missing(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// The recorded calls of a cassette run (`trace.tool_calls`) or an envelope (`tool_calls`),
/// as [`tool_calls_from_envelope`] finds them; empty when neither is an array.
fn envelope_calls(v: &Value) -> &[Value] {
    // Found by scanning the few keys of a run in place (a hashed lookup of a large map costs
    // more than that on the small objects a run is made of).
    let Value::Object(run) = v else { return &[] };
    let [trace, root] = crate::json::fields(run, ["trace", "tool_calls"]);
    let nested = match trace {
        Some(Value::Object(t)) => crate::json::fields(t, ["tool_calls"])[0],
        _ => None,
    };
    match nested.or(root) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// Pulls the tool calls out of a cassette run (`trace.tool_calls`) or an envelope
/// (`tool_calls` at the root), in that order of preference; an empty list when neither exists
/// or the calls are malformed.
///
/// ```
/// use mcptest_core::trace::tool_calls_from_envelope;
/// use serde_json::json;
/// let run = json!({"trace": {"tool_calls": [{"name": "docs__search", "args": {"q": "a"}}]}});
/// let calls = tool_calls_from_envelope(&run);
/// assert_eq!(calls[0].name, "search");
/// assert_eq!(calls[0].server.as_deref(), Some("docs"));
/// assert!(tool_calls_from_envelope(&json!({"other": 1})).is_empty());
/// ```
pub fn tool_calls_from_envelope(v: &Value) -> Vec<ToolCall> {
    let items = envelope_calls(v);
    let mut calls = Vec::with_capacity(items.len());
    calls.extend(items.iter().filter_map(call_of));
    calls
}

/// A recorded call's known fields, read in place in one pass over its entries with the
/// decoder's checks (a string `name`, a string or null `server`, an object or null `caller`,
/// times that are whole non-negative milliseconds or null); any other entry goes to `extra`.
/// `None` when the decoder would reject the call.
struct RawCall<'a> {
    name: &'a str,
    server: Option<&'a str>,
    args: Option<&'a Value>,
    caller: Option<&'a Map<String, Value>>,
    started_ms: Option<u64>,
    ended_ms: Option<u64>,
}

impl<'a> RawCall<'a> {
    fn read(v: &'a Value, mut extra: impl FnMut(&'a String, &'a Value)) -> Option<Self> {
        let time = |v: &Value| {
            if v.is_null() {
                Some(None)
            } else {
                millis_of(v).map(Some)
            }
        };
        let mut name = None;
        let mut call = RawCall {
            name: "",
            server: None,
            args: None,
            caller: None,
            started_ms: None,
            ended_ms: None,
        };
        for (key, value) in v.as_object()? {
            match key.as_str() {
                "name" => name = Some(value.as_str()?),
                "server" if value.is_null() => {}
                "server" => call.server = Some(value.as_str()?),
                "args" => call.args = Some(value),
                "caller" => match value {
                    Value::Null => {}
                    Value::Object(c) => call.caller = Some(c),
                    _ => return None,
                },
                "started_ms" => call.started_ms = time(value)?,
                "ended_ms" => call.ended_ms = time(value)?,
                _ => extra(key, value),
            }
        }
        let (server, name) = resolve_wire_name(name?, call.server);
        (call.server, call.name) = (server, name);
        Some(call)
    }
}

/// One tool call read in place from a run's JSON: what the checks need, borrowed.
///
/// [`CallRef::read`] accepts exactly the calls the cassette decoder accepts (and splits a wire
/// name the same way), so a check that reads calls in place grades the same calls as one that
/// decodes them first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CallRef<'a> {
    /// The tool name, without the `<server>__` wire prefix.
    pub(crate) name: &'a str,
    /// The server, when known.
    pub(crate) server: Option<&'a str>,
    /// The arguments as recorded (`Some(Null)` for a recorded `"args": null`).
    pub(crate) args: Option<&'a Value>,
}

impl<'a> CallRef<'a> {
    /// Reads one recorded call, or `None` when the decoder would reject it (not an object, no
    /// string `name`, a `server` that is not a string, a `caller` that is not an object, or
    /// times that are not whole non-negative milliseconds).
    pub(crate) fn read(v: &'a Value) -> Option<Self> {
        let RawCall {
            name, server, args, ..
        } = RawCall::read(v, |_, _| {})?;
        Some(CallRef { name, server, args })
    }

    /// The calls of a cassette run or an envelope that [`tool_calls_from_envelope`] returns,
    /// read in place.
    pub(crate) fn all_in(run: &'a Value) -> Vec<Self> {
        envelope_calls(run)
            .iter()
            .filter_map(CallRef::read)
            .collect()
    }
}

impl<'a> From<&'a ToolCall> for CallRef<'a> {
    fn from(call: &'a ToolCall) -> Self {
        CallRef {
            name: &call.name,
            server: call.server.as_deref(),
            args: call.args.as_ref(),
        }
    }
}

/// A recorded call as the decoder builds it, copying only what a [`ToolCall`] keeps; `None`
/// when the decoder would reject it.
fn call_of(v: &Value) -> Option<ToolCall> {
    let mut extra = Map::new();
    let raw = RawCall::read(v, |k, v| {
        extra.insert(k.clone(), v.clone());
    })?;
    Some(ToolCall {
        name: raw.name.to_string(),
        server: raw.server.map(str::to_string),
        args: raw.args.cloned(),
        // A recorded `{"type": "direct"}` is a direct call.
        caller: raw
            .caller
            .filter(|c| c.get("type").and_then(Value::as_str) != Some("direct"))
            .map(|c| Value::Object(c.clone())),
        started_ms: raw.started_ms,
        ended_ms: raw.ended_ms,
        extra,
    })
}

/// A recorded name and server as the decoder reads them: a wire name `<server>__<tool>` names
/// its server when the call gives none or the same one.
fn resolve_wire_name<'a>(raw: &'a str, server: Option<&'a str>) -> (Option<&'a str>, &'a str) {
    match split_wire_name(raw) {
        (Some(prefix), tool) if server.is_none() || server == Some(prefix) => (Some(prefix), tool),
        _ => (server, raw),
    }
}

/// Whole non-negative milliseconds, as the decoder reads them.
fn millis_of(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| match v.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64 => Some(f as u64),
        _ => None,
    })
}

/// Splits a wire name `<server>__<tool>` into `(Some(server), tool)`; a name without the
/// separator is `(None, name)`. The split is at the first `__`, so a tool name may itself
/// contain `__`.
///
/// ```
/// use mcptest_core::trace::split_wire_name;
/// assert_eq!(split_wire_name("github__create_issue"), (Some("github"), "create_issue"));
/// assert_eq!(split_wire_name("search"), (None, "search"));
/// ```
pub fn split_wire_name(wire: &str) -> (Option<&str>, &str) {
    // A byte scan: names are short, and a substring searcher's setup costs more than the scan.
    match wire.as_bytes().windows(2).position(|w| w == b"__") {
        Some(i) if i > 0 && i + WIRE_SEPARATOR.len() < wire.len() => {
            (Some(&wire[..i]), &wire[i + WIRE_SEPARATOR.len()..])
        }
        _ => (None, wire),
    }
}

/// Joins a server and tool into a wire name (`docs__search`).
pub fn wire_name(server: &str, tool: &str) -> String {
    format!("{server}{WIRE_SEPARATOR}{tool}")
}

// ---------------------------------------------------------------------------------------------
// Errors

/// A cassette file that could not be read: where and why.
#[derive(Debug, Clone, PartialEq)]
pub struct CassetteError {
    /// The name the caller gave (usually the file path).
    pub file: String,
    /// The JSON path of the offending value (`runs[0].trace.tool_calls[2].name`), empty for
    /// syntax errors and empty files.
    pub path: String,
    /// 1-based line of the offending text.
    pub line: usize,
    /// 1-based column of the offending text.
    pub column: usize,
    /// What went wrong.
    pub kind: CassetteErrorKind,
}

/// The kinds of [`CassetteError`].
#[derive(Debug, Clone, PartialEq)]
pub enum CassetteErrorKind {
    /// The file is empty or only whitespace.
    Empty,
    /// The text is not JSON.
    Syntax(String),
    /// The JSON does not have the cassette's shape.
    Shape(String),
}

impl fmt::Display for CassetteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        match &self.kind {
            CassetteErrorKind::Empty => write!(
                f,
                "the cassette file is empty; record it again or delete it (a cassette holds \
                 {{\"mcptest_cassette\": 1, \"runs\": [...]}} or a trace envelope)"
            ),
            CassetteErrorKind::Syntax(m) => {
                write!(
                    f,
                    "not valid JSON: {m}; the file may be truncated or hand-edited"
                )
            }
            CassetteErrorKind::Shape(m) => write!(f, "at `{}`: {m}", display_path(&self.path)),
        }
    }
}

impl std::error::Error for CassetteError {}

fn display_path(p: &str) -> &str {
    if p.is_empty() { "(root)" } else { p }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A JSON value that does not have the trace model's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// Where in the value.
    pub path: JsonPath,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at `{}`: {}",
            display_path(&self.path.to_string()),
            self.message
        )
    }
}

impl std::error::Error for DecodeError {}

/// A path into a JSON value, as written in messages (`runs[0].trace.tool_calls[2].args`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonPath {
    /// The segments from the root.
    pub segments: Vec<PathSegment>,
}

/// One step of a [`JsonPath`].
#[derive(Debug, Clone, PartialEq)]
pub enum PathSegment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            match s {
                PathSegment::Key(k) if i == 0 => write!(f, "{k}")?,
                PathSegment::Key(k) => write!(f, ".{k}")?,
                PathSegment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding, with the path kept for messages.

struct Path(Vec<PathSegment>);

impl Path {
    fn root() -> Self {
        Path(Vec::new())
    }
    fn with<T>(&mut self, key: &str, f: impl FnOnce(&mut Path) -> T) -> T {
        self.0.push(PathSegment::Key(key.to_string()));
        let out = f(self);
        self.0.pop();
        out
    }
    fn with_index<T>(&mut self, i: usize, f: impl FnOnce(&mut Path) -> T) -> T {
        self.0.push(PathSegment::Index(i));
        let out = f(self);
        self.0.pop();
        out
    }
    fn error(&self, expected: &str, found: &Value) -> DecodeError {
        self.error_msg(format!("expected {expected}, found {}", describe(found)))
    }
    fn error_msg(&self, message: String) -> DecodeError {
        DecodeError {
            path: JsonPath {
                segments: self.0.clone(),
            },
            message,
        }
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 40 => "a string".to_string(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        other => format!("{} {other}", type_name(other)),
    }
}

fn into_object(v: Value, p: &Path) -> Result<Map<String, Value>, DecodeError> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err(p.error("an object", &other)),
    }
}

fn into_array(v: Value, p: &Path) -> Result<Vec<Value>, DecodeError> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(p.error("an array", &other)),
    }
}

/// Takes an optional field out of `obj` and reads it with `f`, treating `null` as absent.
/// Decoding moves values out of the parsed document instead of copying them; what is left in
/// `obj` at the end is the unknown fields, in their original order.
fn take<T>(
    obj: &mut Map<String, Value>,
    key: &str,
    p: &mut Path,
    f: impl FnOnce(Value, &mut Path) -> Result<T, DecodeError>,
) -> Result<Option<T>, DecodeError> {
    match obj.shift_remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => p.with(key, |p| f(v, p)).map(Some),
    }
}

/// Takes a required field, or says it is missing (`what` describes it).
fn take_required<T>(
    obj: &mut Map<String, Value>,
    key: &str,
    what: &str,
    p: &mut Path,
    f: impl FnOnce(Value, &mut Path) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    match obj.shift_remove(key) {
        Some(v) => p.with(key, |p| f(v, p)),
        None => Err(p.error_msg(format!("missing field `{key}` ({what})"))),
    }
}

fn string(v: Value, p: &mut Path) -> Result<String, DecodeError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(p.error("a string", &other)),
    }
}

fn millis(v: Value, p: &mut Path) -> Result<u64, DecodeError> {
    millis_of(&v).ok_or_else(|| p.error("a non-negative whole number of milliseconds", &v))
}

fn boolean(v: Value, p: &mut Path) -> Result<bool, DecodeError> {
    v.as_bool().ok_or_else(|| p.error("true or false", &v))
}

fn extend_missing(m: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        if !m.contains_key(k) {
            m.insert(k.clone(), v.clone());
        }
    }
}

fn list<T>(
    obj: &mut Map<String, Value>,
    key: &str,
    p: &mut Path,
    f: impl Fn(Value, &mut Path) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    Ok(take(obj, key, p, |v, p| {
        into_array(v, p)?
            .into_iter()
            .enumerate()
            .map(|(i, item)| p.with_index(i, |p| f(item, p)))
            .collect::<Result<Vec<T>, _>>()
    })?
    .unwrap_or_default())
}

fn decode_call(v: Value, p: &mut Path) -> Result<ToolCall, DecodeError> {
    let mut obj = into_object(v, p)?;
    let raw_name = take_required(&mut obj, "name", "the tool's name", p, string)?;
    let server = take(&mut obj, "server", p, string)?;
    let (server, name) = match resolve_wire_name(&raw_name, server.as_deref()) {
        // A wire prefix was split off: the server is the prefix.
        (Some(prefix), tool) if tool.len() < raw_name.len() => {
            (Some(prefix.to_string()), tool.to_string())
        }
        _ => (server, raw_name),
    };
    let args = obj.shift_remove("args");
    let caller = match obj.shift_remove("caller") {
        None | Some(Value::Null) => None,
        Some(c) if c.get("type").and_then(Value::as_str) == Some("direct") => None,
        Some(c @ Value::Object(_)) => Some(c),
        Some(c) => return p.with("caller", |p| Err(p.error("an object", &c))),
    };
    Ok(ToolCall {
        name,
        server,
        args,
        caller,
        started_ms: take(&mut obj, "started_ms", p, millis)?,
        ended_ms: take(&mut obj, "ended_ms", p, millis)?,
        extra: obj,
    })
}

fn decode_result(v: Value, p: &mut Path) -> Result<ToolResult, DecodeError> {
    let mut obj = into_object(v, p)?;
    // `is_error` wins over MCP's `isError` when both are present.
    let is_error = if obj.contains_key("is_error") {
        obj.shift_remove("isError");
        take(&mut obj, "is_error", p, boolean)?
    } else {
        take(&mut obj, "isError", p, boolean)?
    };
    let snake = obj.shift_remove("structured_content");
    let camel = obj.shift_remove("structuredContent");
    let structured_content = match snake {
        Some(v) => Some(v),
        None => camel,
    }
    .filter(|v| !v.is_null());
    let status = take(&mut obj, "status", p, |v, p| {
        v.as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| p.error("a status code (0..=65535)", &v))
    })?;
    Ok(ToolResult {
        is_error: is_error.unwrap_or(false),
        content: obj.shift_remove("content"),
        structured_content,
        timed_out: take(&mut obj, "timed_out", p, boolean)?.unwrap_or(false),
        status,
        extra: obj,
    })
}

fn decode_turn(v: Value, p: &mut Path) -> Result<Turn, DecodeError> {
    let mut obj = into_object(v, p)?;
    let role = take_required(&mut obj, "role", "user or assistant", p, string)?;
    let content = obj.shift_remove("content").unwrap_or(Value::Null);
    Ok(Turn {
        role,
        content,
        extra: obj,
    })
}

fn decode_conversation(v: Value, p: &mut Path) -> Result<Conversation, DecodeError> {
    let mut obj = into_object(v, p)?;
    let tokens = take(&mut obj, "tokens", p, |v, p| {
        let mut t = into_object(v, p)?;
        Ok(Tokens {
            total: take(&mut t, "total", p, |v, p| {
                v.as_u64()
                    .ok_or_else(|| p.error("a non-negative token count", &v))
            })?,
            extra: t,
        })
    })?
    .unwrap_or_default();
    Ok(Conversation {
        tokens,
        turns: list(&mut obj, "turns", p, decode_turn)?,
        extra: obj,
    })
}

fn decode_trace(v: Value, p: &mut Path) -> Result<ConversationTrace, DecodeError> {
    let mut obj = into_object(v, p)?;
    Ok(ConversationTrace {
        tool_calls: list(&mut obj, "tool_calls", p, decode_call)?,
        tool_results: list(&mut obj, "tool_results", p, decode_result)?,
        conversation: take(&mut obj, "conversation", p, decode_conversation)?.unwrap_or_default(),
        final_response: take(&mut obj, "final_response", p, string)?,
        extra: obj,
    })
}

fn decode_run(v: Value, p: &mut Path) -> Result<Run, DecodeError> {
    let mut obj = into_object(v, p)?;
    let trace = take_required(&mut obj, "trace", "the run's envelope", p, decode_trace)?;
    Ok(Run {
        trace,
        exchanges: take(&mut obj, "exchanges", p, |v, p| into_array(v, p))?.unwrap_or_default(),
        meta: take(&mut obj, "meta", p, |v, p| into_object(v, p))?.unwrap_or_default(),
        extra: obj,
    })
}

// Serde for the trace types writes and reads the envelope JSON through the same encoder
// (`to_value`, `to_envelope`) and decoder (with its JSON-path errors) as the cassette reader.
macro_rules! envelope_serde {
    ($($ty:ty => $encode:expr, $decode:expr;)*) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let encode: fn(&$ty) -> Value = $encode;
                encode(self).serialize(serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let v = Value::deserialize(deserializer)?;
                let decode: fn(Value) -> Result<$ty, DecodeError> = $decode;
                decode(v).map_err(serde::de::Error::custom)
            }
        }
    )*};
}

envelope_serde! {
    ToolCall => ToolCall::to_value, |v| decode_call(v, &mut Path::root());
    ToolResult => ToolResult::to_value, |v| decode_result(v, &mut Path::root());
    Turn => Turn::to_value, |v| decode_turn(v, &mut Path::root());
    ConversationTrace => ConversationTrace::to_envelope, |v| decode_trace(v, &mut Path::root());
    Run => Run::to_value, |v| decode_run(v, &mut Path::root());
    Cassette => Cassette::to_value, Cassette::from_owned_value;
}

#[cfg(test)]
mod reading_calls_in_place {
    use super::{CallRef, ToolCall, call_of, tool_calls_from_envelope};
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Values a recorded call's fields take in real and broken cassettes.
    fn field() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<u32>().prop_map(Value::from),
            (-5i64..5).prop_map(Value::from),
            prop_oneof![Just(1.0), Just(1.5), Just(-2.0), Just(3e20)].prop_map(|f| json!(f)),
            prop_oneof![
                Just("search"),
                Just("docs__search"),
                Just("__x"),
                Just("docs__"),
                Just("a__b__c"),
                Just("docs"),
                Just("direct"),
            ]
            .prop_map(Value::from),
            Just(json!({"type": "direct"})),
            Just(json!({"type": "code_execution", "tool_id": "t"})),
            Just(json!({"q": "rust", "n": [1, 2]})),
            Just(json!([1, "two"])),
        ]
    }

    fn call() -> impl Strategy<Value = Value> {
        let keys = prop::sample::subsequence(
            vec![
                "name",
                "server",
                "args",
                "caller",
                "started_ms",
                "ended_ms",
                "id",
                "note",
            ],
            0..=8,
        );
        prop_oneof![
            9 => (keys, prop::collection::vec(field(), 8)).prop_map(|(keys, values)| {
                Value::Object(
                    keys.into_iter()
                        .zip(values)
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
            1 => field(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]
        /// The in-place reader accepts exactly the calls the decoder accepts, and builds the
        /// same call from each.
        #[test]
        fn agrees_with_the_decoder(v in call()) {
            let decoded = serde_json::from_value::<ToolCall>(v.clone()).ok();
            prop_assert_eq!(call_of(&v), decoded.clone());
            let read = CallRef::read(&v);
            prop_assert_eq!(read.is_some(), decoded.is_some());
            if let (Some(r), Some(d)) = (read, &decoded) {
                prop_assert_eq!(r, CallRef::from(d));
            }
        }

        #[test]
        fn extraction_keeps_the_decodable_calls_in_order(calls in prop::collection::vec(call(), 0..12)) {
            let run = json!({"trace": {"tool_calls": calls.clone()}});
            let expected: Vec<ToolCall> = calls
                .into_iter()
                .filter_map(|c| serde_json::from_value(c).ok())
                .collect();
            prop_assert_eq!(tool_calls_from_envelope(&run), expected);
        }
    }
}
