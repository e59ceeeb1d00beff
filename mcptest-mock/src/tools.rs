//! The tools file model: the tools a mock serves and how each one answers.
//!
//! Choosing an answer is pure and deterministic: the arguments are checked against the tool's
//! input schema, then the first answer whose `when:` the arguments contain is the result.
//! Faults are not applied here (see [`crate::fault`]); this is what a healthy server answers.

use mcptest_core::yaml::Pos;
use serde_json::{Map, Value, json};
use std::fmt;
use std::sync::Arc;

/// A loaded tools file: what the mock says about itself, its tools and its resources.
#[derive(Debug, Clone)]
pub struct ToolsFile {
    /// The name the file was loaded under (usually its path), used in messages.
    pub name: String,
    /// How the server introduces itself in `initialize`.
    pub server: ServerInfo,
    /// The tools, in the order written; `tools/list` lists them in this order.
    pub tools: Vec<Tool>,
    /// Static text resources served by `resources/list` and `resources/read`.
    pub resources: Vec<Resource>,
}

/// How the server introduces itself (`serverInfo` and `instructions` in `initialize`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The server's name (default `mcptest-mock`).
    pub name: String,
    /// The server's version (default this crate's version).
    pub version: String,
    /// Optional instructions a client may show its model.
    pub instructions: Option<String>,
}

impl Default for ServerInfo {
    fn default() -> Self {
        ServerInfo {
            name: "mcptest-mock".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            instructions: None,
        }
    }
}

/// One tool: what `tools/list` says about it and how `tools/call` answers it.
#[derive(Clone)]
pub struct Tool {
    /// The tool's name, unique in the file.
    pub name: String,
    /// An optional display name.
    pub title: Option<String>,
    /// What the tool does, as a model reads it.
    pub description: Option<String>,
    /// The JSON Schema its arguments must satisfy (an object schema).
    pub input_schema: Value,
    /// The JSON Schema of its structured results, when it declares one.
    pub output_schema: Option<Value>,
    /// MCP tool annotations (`annotations:`), sent in `tools/list` when given.
    pub annotations: Option<Annotations>,
    /// The answers, tried in order; the first whose `when:` matches is the result.
    pub answers: Vec<Answer>,
    /// Where the tool is written in the file.
    pub pos: Pos,
    pub(crate) validator: Arc<jsonschema::Validator>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("input_schema", &self.input_schema)
            .field("output_schema", &self.output_schema)
            .field("annotations", &self.annotations)
            .field("answers", &self.answers)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

/// MCP tool annotations: hints a client may use about a tool (MCP 2025-03-26 and later). All
/// are optional; a hint not given is left out of `tools/list`, and a client applies MCP's
/// default (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `title`: a human-readable title for the tool.
    pub title: Option<String>,
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`: the tool may perform destructive updates (meaningful when not
    /// read-only).
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`: calling it again with the same arguments has no further effect.
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`: the tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
}

/// One possible answer of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The arguments this answer is for, as a subset (see [`Tool::answer`]); `None` matches
    /// every call (the default answer).
    pub when: Option<Value>,
    /// The result sent back.
    pub result: ToolResult,
    /// Where the answer is written in the file.
    pub pos: Pos,
}

/// A `tools/call` result: content blocks, optional structured content, and the error flag.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// MCP content blocks as they go on the wire (`{"type": "text", "text": "..."}`, images,
    /// audio, resource links, embedded resources).
    pub content: Vec<Value>,
    /// The structured result (`structuredContent`), a JSON object.
    pub structured_content: Option<Value>,
    /// `isError`: a failure the model should see (not a protocol error).
    pub is_error: bool,
}

impl ToolResult {
    /// A result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![text_block(text)],
            structured_content: None,
            is_error: false,
        }
    }

    /// An `isError` result with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            is_error: true,
            ..ToolResult::text(text)
        }
    }

    /// The text of every text block, joined by newlines.
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The result as MCP puts it on the wire (`content`, `structuredContent`, `isError`).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("content".into(), Value::Array(self.content.clone()));
        if let Some(s) = &self.structured_content {
            m.insert("structuredContent".into(), s.clone());
        }
        m.insert("isError".into(), Value::Bool(self.is_error));
        Value::Object(m)
    }
}

/// A text content block.
pub(crate) fn text_block(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

/// A static text resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The resource's URI, unique in the file.
    pub uri: String,
    /// Its name (default: the URI).
    pub name: String,
    /// An optional description.
    pub description: Option<String>,
    /// Its MIME type, when given.
    pub mime_type: Option<String>,
    /// Its text.
    pub text: String,
}

/// A `tools/call` named a tool the file does not declare: a protocol error (JSON-RPC -32602),
/// not a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool {
    /// The name asked for.
    pub name: String,
    /// The names the mock serves.
    pub known: Vec<String>,
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown tool `{}`", self.name)?;
        let names: Vec<&str> = self.known.iter().map(String::as_str).collect();
        if let Some(close) = mcptest_core::rules::suggest::did_you_mean(&self.name, &names) {
            write!(f, "; did you mean `{close}`?")?;
        }
        if names.is_empty() {
            write!(f, "; this server has no tools")
        } else {
            write!(f, "; this server's tools are: {}", names.join(", "))
        }
    }
}

impl std::error::Error for UnknownTool {}

impl ToolsFile {
    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// What a healthy server answers to `tools/call` with these arguments (no fault applied).
    /// `arguments` is the call's `arguments` object; `None` is the same as `{}`.
    pub fn call(&self, name: &str, arguments: Option<&Value>) -> Result<ToolResult, UnknownTool> {
        match self.tool(name) {
            Some(tool) => Ok(tool.answer(arguments)),
            None => Err(UnknownTool {
                name: name.to_string(),
                known: self.tools.iter().map(|t| t.name.clone()).collect(),
            }),
        }
    }

    /// The resource at `uri`.
    pub fn resource(&self, uri: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.uri == uri)
    }
}

/// At most this many schema errors are listed in an invalid-arguments result.
const MAX_LISTED_ERRORS: usize = 8;
/// Each listed schema error is cut to this many characters (it may quote a huge argument).
const MAX_ERROR_CHARS: usize = 240;

impl Tool {
    /// The answer to a call with these arguments.
    ///
    /// 1. Arguments that fail the input schema get an `isError` result that lists why, one
    ///    reason per schema error (at most eight), each with its JSON pointer.
    /// 2. Otherwise the first answer whose `when:` the arguments *contain* is the result:
    ///    every key of `when` is present with a value that contains it (objects: a subset;
    ///    lists: each listed element matched by a distinct element, in any order; scalars:
    ///    equal, with `1 == 1.0`). An answer without `when:` matches every call.
    /// 3. When no answer matches, an `isError` result says so.
    pub fn answer(&self, arguments: Option<&Value>) -> ToolResult {
        let empty = Value::Object(Map::new());
        let args = arguments.unwrap_or(&empty);
        if let Some(reasons) = self.schema_errors(args) {
            return ToolResult::error(format!(
                "invalid arguments for tool `{}`: {}",
                self.name,
                reasons.join("; ")
            ));
        }
        for answer in &self.answers {
            let matches = match &answer.when {
                None => true,
                Some(when) => mcptest_core::matchers::contains(when, args),
            };
            if matches {
                return answer.result.clone();
            }
        }
        ToolResult::error(format!(
            "no answer of tool `{}` matches the arguments {}; the tools file needs an answer \
             without `when:` as the default",
            self.name,
            cut(&args.to_string(), MAX_ERROR_CHARS)
        ))
    }

    /// Why `args` fails the input schema, or `None` when it passes.
    fn schema_errors(&self, args: &Value) -> Option<Vec<String>> {
        if self.validator.is_valid(args) {
            return None;
        }
        let mut reasons: Vec<String> = Vec::new();
        let mut more = 0usize;
        for e in self.validator.iter_errors(args) {
            if reasons.len() == MAX_LISTED_ERRORS {
                more += 1;
                continue;
            }
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "(root)".into() } else { at };
            reasons.push(format!("at {at}: {}", cut(&e.to_string(), MAX_ERROR_CHARS)));
        }
        if more > 0 {
            reasons.push(format!("and {more} more"));
        }
        if reasons.is_empty() {
            reasons.push("the arguments do not satisfy the input schema".into());
        }
        Some(reasons)
    }
}

/// `s` cut to at most `max` characters, with an ellipsis when cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}...", &s[..i]),
    }
}
