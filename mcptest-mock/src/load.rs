//! Reading a tools file: YAML nodes to the [`ToolsFile`] model, every mistake gathered with
//! its line and column and what to do about it.

use crate::tools::{
    Annotations, Answer, Resource, ServerInfo, Tool, ToolResult, ToolsFile, text_block,
};
use mcptest_core::yaml::read::{self, Fields};
use mcptest_core::yaml::{self, Kind, Limits, Node, Pos, Reason};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The deepest nesting accepted. A tools file needs about six levels plus what an input
/// schema adds; the cap keeps the recursive decoding well inside a thread's stack.
const MAX_DEPTH: usize = 32;

/// The largest tools file accepted, in bytes (16 MiB).
pub const MAX_TOOLS_FILE_BYTES: usize = 16 * 1024 * 1024;

/// A tools file that cannot be served: every problem found, each with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The name the file was loaded under (usually its path).
    pub file: String,
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

/// One problem in a tools file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where it is (`None` when the file could not be read at all).
    pub pos: Option<Pos>,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match p.pos {
                Some(pos) => write!(f, "{}:{pos}: {}", self.file, p.message)?,
                None => write!(f, "{}: {}", self.file, p.message)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

impl ToolsFile {
    /// Reads and loads the tools file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<ToolsFile, LoadError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| LoadError {
            file: name.clone(),
            problems: vec![Problem {
                pos: None,
                message: if e.kind() == std::io::ErrorKind::InvalidData {
                    "the tools file is not UTF-8 text; save it as UTF-8".to_string()
                } else {
                    format!("cannot read the tools file: {e}; check the path given to --tools-from")
                },
            }],
        })?;
        ToolsFile::from_yaml_str(&name, &text)
    }

    /// Loads a tools file from its text; `name` is used in messages.
    pub fn from_yaml_str(name: &str, text: &str) -> Result<ToolsFile, LoadError> {
        let fail = |problems| LoadError {
            file: name.to_string(),
            problems,
        };
        let root = parse(text).map_err(|problem| fail(vec![problem]))?;
        let mut d = Decoder::default();
        let file = d.file(name, &root);
        match file {
            Some(file) if d.problems.is_empty() => Ok(file),
            _ => {
                d.problems.sort_by_key(|p| p.pos);
                Err(fail(d.problems))
            }
        }
    }
}

/// Parses a tools file's text into a node tree; a problem with the YAML itself comes back with
/// its position and what to do about it.
fn parse(text: &str) -> Result<Node, Problem> {
    let limits = Limits {
        max_depth: MAX_DEPTH,
        max_bytes: MAX_TOOLS_FILE_BYTES,
    };
    yaml::parse(text, limits).map_err(|e| Problem {
        pos: Some(e.pos),
        message: syntax_message(e.reason),
    })
}

/// A YAML problem in a tools file's words.
fn syntax_message(reason: Reason) -> String {
    match reason {
        Reason::TooLarge { bytes } => format!(
            "the tools file is {bytes} bytes, more than the {MAX_TOOLS_FILE_BYTES} a tools file \
             may hold; keep large payloads out of it"
        ),
        Reason::TooDeep => format!(
            "the YAML nests deeper than {MAX_DEPTH} levels; a tools file is a list of tools a few \
             levels deep: flatten the input schema or the answer"
        ),
        Reason::TooManyNodes { detail } | Reason::OverBudget { detail } => {
            format!("the YAML is too large ({detail}); keep large payloads out of a tools file")
        }
        Reason::MultipleDocuments => {
            "a tools file holds one YAML document; remove the `---` separator".into()
        }
        Reason::Invalid { message } => format!("invalid YAML: {message}"),
    }
}

const TOP_KEYS: &[&str] = &["server", "tools", "resources"];
const SERVER_KEYS: &[&str] = &["name", "version", "instructions"];
const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "input_schema",
    "output_schema",
    "annotations",
    "result",
    "answers",
];
/// MCP's own names: the one place a tools file spells keys in camelCase.
const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];
const ANSWER_KEYS: &[&str] = &["when", "text", "json", "content", "error", "is_error"];
const RESOURCE_KEYS: &[&str] = &["uri", "name", "description", "mime_type", "text"];

#[derive(Default)]
struct Decoder {
    problems: Vec<Problem>,
}

impl Decoder {
    fn problem(&mut self, pos: Pos, message: impl Into<String>) {
        self.problems.push(Problem {
            pos: Some(pos),
            message: message.into(),
        });
    }

    /// The entries of a map node, with unknown and duplicate keys reported (the loaders'
    /// shared reading kit). `what` names the node in messages ("a tool", "the `server:`
    /// block").
    fn map<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        allowed: &[&'static str],
    ) -> Option<Fields<'n>> {
        match read::map(node, what, allowed, spelling_advice) {
            Ok((fields, found)) => {
                for f in found {
                    self.problem(f.pos, f.message);
                }
                Some(fields)
            }
            Err(f) => {
                self.problem(f.pos, f.message);
                None
            }
        }
    }

    fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.kind {
            Kind::Str(s) => Some(s.clone()),
            _ => {
                self.problem(
                    node.pos,
                    format!("{what} is a string, found {}; quote it", node.type_name()),
                );
                None
            }
        }
    }

    /// A scalar read as text (`text: 42` means the text "42").
    fn text(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.kind {
            Kind::Seq(_) | Kind::Map(_) | Kind::Null => {
                self.problem(
                    node.pos,
                    format!("{what} is a string, found {}", node.type_name()),
                );
                None
            }
            _ => node.scalar_text(),
        }
    }

    fn json(&mut self, node: &Node) -> Option<Value> {
        read::json(node)
            .map_err(|f| self.problem(f.pos, f.message))
            .ok()
    }

    fn file(&mut self, name: &str, root: &Node) -> Option<ToolsFile> {
        if root.kind == Kind::Null {
            self.problem(
                root.pos,
                "the tools file is empty; start it with `tools:` and a list of tools \
                 (examples/tools.yml shows the format)",
            );
            return None;
        }
        let before = self.problems.len();
        let top = self.map(root, "the tools file", TOP_KEYS)?;
        let misspelt = self.problems.len() > before;
        let server = match top.get("server") {
            Some((_, node)) => self.server(node),
            None => Some(ServerInfo::default()),
        };
        let tools = match top.get("tools") {
            Some((_, node)) => self.tools(node),
            None => {
                // A misspelt key was reported already; the list is likely that key.
                if !misspelt {
                    self.problem(
                        root.pos,
                        "the tools file has no `tools:` list; add one (an empty list `tools: []` \
                     serves no tools)",
                    );
                }
                None
            }
        };
        let resources = match top.get("resources") {
            Some((_, node)) => self.resources(node),
            None => Some(Vec::new()),
        };
        Some(ToolsFile {
            name: name.to_string(),
            server: server?,
            tools: tools?,
            resources: resources?,
        })
    }

    fn server(&mut self, node: &Node) -> Option<ServerInfo> {
        let m = self.map(node, "the `server:` block", SERVER_KEYS)?;
        let mut info = ServerInfo::default();
        if let Some((_, n)) = m.get("name") {
            info.name = self.text(n, "`name`")?;
        }
        if let Some((_, n)) = m.get("version") {
            info.version = self.text(n, "`version`")?;
        }
        if let Some((_, n)) = m.get("instructions") {
            info.instructions = Some(self.string(n, "`instructions`")?);
        }
        Some(info)
    }

    fn tools(&mut self, node: &Node) -> Option<Vec<Tool>> {
        let Kind::Seq(items) = &node.kind else {
            self.problem(
                node.pos,
                format!(
                    "`tools:` is a list of tools (each `- name: ...`), found {}",
                    node.type_name()
                ),
            );
            return None;
        };
        let mut tools = Vec::new();
        let mut names: HashMap<String, Pos> = HashMap::new();
        let mut ok = true;
        for item in items {
            match self.tool(item) {
                Some(tool) => {
                    if let Some(first) = names.get(&tool.name) {
                        self.problem(
                            tool.pos,
                            format!(
                                "a second tool named `{}` (the first is at {first}); tool names \
                                 are unique: rename or remove one",
                                tool.name
                            ),
                        );
                        ok = false;
                    } else {
                        names.insert(tool.name.clone(), tool.pos);
                    }
                    tools.push(tool);
                }
                None => ok = false,
            }
        }
        ok.then_some(tools)
    }

    fn tool(&mut self, node: &Node) -> Option<Tool> {
        let at_start = self.problems.len();
        let m = self.map(node, "a tool", TOOL_KEYS)?;
        // A misspelt key was reported already: do not also report the key it stands for.
        let misspelt = self.problems.len() > at_start;
        let before = self.problems.len();
        let name = match m.get("name") {
            Some((_, n)) => self.text(n, "a tool's `name`"),
            None => {
                if !misspelt {
                    self.problem(node.pos, "this tool has no `name:`; add one");
                }
                None
            }
        };
        let name = match name {
            Some(n) if n.trim().is_empty() => {
                if let Some((_, n)) = m.get("name") {
                    self.problem(n.pos, "a tool's name is not empty; name the tool");
                }
                None
            }
            other => other,
        };
        let label = name
            .as_deref()
            .map_or_else(|| "this tool".to_string(), |n| format!("tool `{n}`"));
        let title = m.get("title").and_then(|(_, n)| self.string(n, "`title`"));
        let description = m
            .get("description")
            .and_then(|(_, n)| self.string(n, "`description`"));
        let input_schema = match m.get("input_schema") {
            Some((_, n)) => self.schema(n, "input_schema"),
            None => Some(json!({"type": "object"})),
        };
        let validator = input_schema.as_ref().and_then(|s| {
            let pos = m.get("input_schema").map_or(node.pos, |(_, n)| n.pos);
            self.compile(s, pos, "input_schema")
        });
        let output_schema = match m.get("output_schema") {
            Some((_, n)) => self.schema(n, "output_schema"),
            None => None,
        };
        let output_validator = output_schema.as_ref().and_then(|s| {
            let pos = m.get("output_schema").map_or(node.pos, |(_, n)| n.pos);
            self.compile(s, pos, "output_schema")
        });
        let annotations = m
            .get("annotations")
            .and_then(|(_, n)| self.annotations(n, &label));
        let properties: Option<Vec<String>> = input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect());
        let answers = match (m.get("result"), m.get("answers")) {
            (Some((k, _)), Some((k2, _))) => {
                self.problem(
                    k2.pos,
                    format!(
                        "{label} has both `result:` (at {}) and `answers:`; keep `result:` for \
                         one answer to every call, or move it into `answers:` as the last entry",
                        k.pos
                    ),
                );
                None
            }
            (Some((_, n)), None) => self
                .answer(n, &label, false, properties.as_deref())
                .map(|a| vec![a]),
            (None, Some((_, n))) => self.answers(n, &label, properties.as_deref()),
            (None, None) => {
                if !misspelt {
                    self.problem(
                        node.pos,
                        format!(
                            "{label} has no answer; add `result:` (one answer to every call) or \
                             `answers:` (answers chosen by the arguments)"
                        ),
                    );
                }
                None
            }
        };
        if let (Some(answers), Some(out)) = (&answers, &output_validator) {
            for a in answers.iter().filter(|a| !a.result.is_error) {
                match &a.result.structured_content {
                    None => self.problem(
                        a.pos,
                        format!(
                            "{label} declares an `output_schema`, so every answer that is not an \
                             error carries `json:` (structured content) that fits it"
                        ),
                    ),
                    Some(v) => {
                        let reasons: Vec<String> = out
                            .iter_errors(v)
                            .take(3)
                            .map(|e| {
                                let at = e.instance_path().to_string();
                                format!("at {}: {e}", if at.is_empty() { "(root)" } else { &at })
                            })
                            .collect();
                        if !reasons.is_empty() {
                            self.problem(
                                a.pos,
                                format!(
                                    "this answer's `json:` does not fit {label}'s output_schema: \
                                     {}",
                                    reasons.join("; ")
                                ),
                            );
                        }
                    }
                }
            }
        }
        if self.problems.len() > before {
            return None;
        }
        Some(Tool {
            name: name?,
            title,
            description,
            input_schema: input_schema?,
            output_schema,
            annotations,
            answers: answers?,
            pos: node.pos,
            validator: Arc::new(validator?),
        })
    }

    /// A tool's `annotations:` block: MCP's hint names, booleans, and a string `title`.
    fn annotations(&mut self, node: &Node, label: &str) -> Option<Annotations> {
        let what = format!("the `annotations:` of {label}");
        let m = self.map(node, &what, ANNOTATION_KEYS)?;
        let before = self.problems.len();
        let mut hint = |key: &str| -> Option<bool> {
            let (_, n) = m.get(key)?;
            match n.kind {
                Kind::Bool(b) => Some(b),
                _ => {
                    self.problem(
                        n.pos,
                        format!(
                            "`{key}` is true or false, found {}; write `{key}: true` or \
                             `{key}: false` (unquoted)",
                            n.type_name()
                        ),
                    );
                    None
                }
            }
        };
        let annotations = Annotations {
            title: None,
            read_only_hint: hint("readOnlyHint"),
            destructive_hint: hint("destructiveHint"),
            idempotent_hint: hint("idempotentHint"),
            open_world_hint: hint("openWorldHint"),
        };
        let title = m
            .get("title")
            .and_then(|(_, n)| self.string(n, "`title` in `annotations:`"));
        (self.problems.len() == before).then_some(Annotations {
            title,
            ..annotations
        })
    }

    /// An input or output schema: a map whose `type` is `object`.
    fn schema(&mut self, node: &Node, key: &str) -> Option<Value> {
        if !matches!(node.kind, Kind::Map(_)) {
            self.problem(
                node.pos,
                format!(
                    "`{key}` is a JSON Schema written as a map (e.g. `{{type: object, properties: \
                     {{city: {{type: string}}}}}}`), found {}",
                    node.type_name()
                ),
            );
            return None;
        }
        let schema = self.json(node)?;
        if schema.get("type") != Some(&Value::String("object".into())) {
            self.problem(
                node.pos,
                format!(
                    "`{key}` describes an object (MCP tools take and give named values); add \
                     `type: object` to it"
                ),
            );
            return None;
        }
        Some(schema)
    }

    fn compile(&mut self, schema: &Value, pos: Pos, key: &str) -> Option<jsonschema::Validator> {
        match jsonschema::validator_for(schema) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(
                    pos,
                    format!("`{key}` is not a valid JSON Schema: {e}; fix the schema"),
                );
                None
            }
        }
    }

    fn answers(
        &mut self,
        node: &Node,
        label: &str,
        properties: Option<&[String]>,
    ) -> Option<Vec<Answer>> {
        let Kind::Seq(items) = &node.kind else {
            self.problem(
                node.pos,
                format!(
                    "`answers:` is a list (each `- when: {{...}}` and a result), found {}",
                    node.type_name()
                ),
            );
            return None;
        };
        if items.is_empty() {
            self.problem(
                node.pos,
                format!("{label} has an empty `answers:` list; add at least one answer"),
            );
            return None;
        }
        let mut answers = Vec::new();
        let mut ok = true;
        let mut default_at: Option<Pos> = None;
        for item in items {
            let Some(answer) = self.answer(item, label, true, properties) else {
                ok = false;
                continue;
            };
            if let Some(at) = default_at {
                self.problem(
                    answer.pos,
                    format!(
                        "this answer is never chosen: the answer at {at} has no `when:` and \
                         matches every call; move the default answer last"
                    ),
                );
                ok = false;
            }
            if answer.when.is_none() && default_at.is_none() {
                default_at = Some(answer.pos);
            }
            answers.push(answer);
        }
        ok.then_some(answers)
    }

    fn answer(
        &mut self,
        node: &Node,
        label: &str,
        in_list: bool,
        properties: Option<&[String]>,
    ) -> Option<Answer> {
        let what = if in_list { "an answer" } else { "`result:`" };
        let m = self.map(node, what, ANSWER_KEYS)?;
        let before = self.problems.len();
        let when = match m.get("when") {
            Some((k, _)) if !in_list => {
                self.problem(
                    k.pos,
                    "`when:` chooses among `answers:`; `result:` answers every call. Write \
                     `answers:` with a `when:` per answer",
                );
                None
            }
            Some((_, n)) => self.when(n, label, properties),
            None => None,
        };
        let mut content = Vec::new();
        if let Some((_, n)) = m.get("text")
            && let Some(t) = self.text(n, "`text`")
        {
            content.push(text_block(t));
        }
        let mut is_error = false;
        if let Some((k, n)) = m.get("error") {
            if m.has("text") {
                self.problem(
                    k.pos,
                    "`error:` is the error's text already; drop `text:` or write `text:` with \
                     `is_error: true`",
                );
            } else if let Some(t) = self.text(n, "`error`") {
                content.push(text_block(t));
                is_error = true;
            }
        }
        if let Some((_, n)) = m.get("content")
            && let Some(blocks) = self.content(n)
        {
            content.extend(blocks);
        }
        let structured = match m.get("json") {
            Some((_, n)) => {
                if matches!(n.kind, Kind::Map(_)) {
                    self.json(n)
                } else {
                    self.problem(
                        n.pos,
                        format!(
                            "`json:` is structured content, a JSON object; found {}. Wrap the \
                             value in a key, e.g. `json: {{items: [...]}}`",
                            n.type_name()
                        ),
                    );
                    None
                }
            }
            None => None,
        };
        if let Some((_, n)) = m.get("is_error") {
            match n.kind {
                Kind::Bool(b) => {
                    if !b && m.has("error") {
                        self.problem(
                            n.pos,
                            "`error:` makes an error result; remove `is_error: false`",
                        );
                    }
                    is_error |= b;
                }
                _ => self.problem(
                    n.pos,
                    format!("`is_error` is true or false, found {}", n.type_name()),
                ),
            }
        }
        if !["text", "json", "content", "error"]
            .iter()
            .any(|k| m.has(k))
        {
            self.problem(
                node.pos,
                format!(
                    "{what} of {label} says nothing to send; give it `text:`, `json:`, \
                     `content:` or `error:`"
                ),
            );
        }
        if self.problems.len() > before {
            return None;
        }
        if content.is_empty()
            && let Some(s) = &structured
        {
            // MCP asks a tool that returns structured content to also send it as text, for
            // clients that read only `content`.
            content.push(text_block(s.to_string()));
        }
        Some(Answer {
            when,
            result: ToolResult {
                content,
                structured_content: structured,
                is_error,
            },
            pos: node.pos,
        })
    }

    fn when(&mut self, node: &Node, label: &str, properties: Option<&[String]>) -> Option<Value> {
        let Kind::Map(entries) = &node.kind else {
            self.problem(
                node.pos,
                format!(
                    "`when:` is a map of the arguments this answer is for (e.g. `when: {{city: \
                     Paris}}`), found {}",
                    node.type_name()
                ),
            );
            return None;
        };
        if let Some(props) = properties {
            let names: Vec<&str> = props.iter().map(String::as_str).collect();
            for (k, _) in entries {
                let Some(key) = k.scalar_text() else { continue };
                if !names.contains(&key.as_str()) {
                    let hint = match mcptest_core::rules::suggest::did_you_mean(&key, &names) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => format!("its arguments are: {}", names.join(", ")),
                    };
                    self.problem(
                        k.pos,
                        format!(
                            "`when:` names `{key}`, which is not an argument of {label} (not in \
                             its input_schema's properties), so this answer would never be \
                             chosen; {hint}"
                        ),
                    );
                }
            }
        }
        self.json(node)
    }

    fn content(&mut self, node: &Node) -> Option<Vec<Value>> {
        let Kind::Seq(items) = &node.kind else {
            self.problem(
                node.pos,
                format!(
                    "`content:` is a list of MCP content blocks, found {}",
                    node.type_name()
                ),
            );
            return None;
        };
        let mut blocks = Vec::new();
        for item in items {
            match &item.kind {
                Kind::Str(s) => blocks.push(text_block(s.clone())),
                Kind::Map(_) => {
                    let Some(block) = self.json(item) else {
                        continue;
                    };
                    if let Err(why) = crate::server::check_content_block(&block) {
                        self.problem(
                            item.pos,
                            format!(
                                "not an MCP content block: {why}; write blocks as MCP sends \
                                 them, e.g. `{{type: text, text: hi}}`, `{{type: image, data: \
                                 <base64>, mimeType: image/png}}` or `{{type: resource_link, \
                                 uri: ..., name: ...}}`"
                            ),
                        );
                        continue;
                    }
                    blocks.push(block);
                }
                _ => self.problem(
                    item.pos,
                    format!(
                        "a content block is a string (a text block) or a map with a `type`, \
                         found {}",
                        item.type_name()
                    ),
                ),
            }
        }
        Some(blocks)
    }

    fn resources(&mut self, node: &Node) -> Option<Vec<Resource>> {
        let Kind::Seq(items) = &node.kind else {
            self.problem(
                node.pos,
                format!(
                    "`resources:` is a list (each `- uri: ...`), found {}",
                    node.type_name()
                ),
            );
            return None;
        };
        let mut out = Vec::new();
        let mut uris: HashMap<String, Pos> = HashMap::new();
        let before = self.problems.len();
        for item in items {
            let Some(m) = self.map(item, "a resource", RESOURCE_KEYS) else {
                continue;
            };
            let uri = match m.get("uri") {
                Some((_, n)) => self.string(n, "`uri`"),
                None => {
                    self.problem(item.pos, "this resource has no `uri:`; add one");
                    None
                }
            };
            let text = match m.get("text") {
                Some((_, n)) => self.string(n, "`text`"),
                None => {
                    self.problem(item.pos, "this resource has no `text:`; add its text");
                    None
                }
            };
            let name = m.get("name").and_then(|(_, n)| self.text(n, "`name`"));
            let description = m
                .get("description")
                .and_then(|(_, n)| self.string(n, "`description`"));
            let mime_type = m
                .get("mime_type")
                .and_then(|(_, n)| self.string(n, "`mime_type`"));
            let (Some(uri), Some(text)) = (uri, text) else {
                continue;
            };
            if let Some(first) = uris.get(&uri) {
                self.problem(
                    item.pos,
                    format!(
                        "a second resource with uri `{uri}` (the first is at {first}); keep one"
                    ),
                );
                continue;
            }
            uris.insert(uri.clone(), item.pos);
            out.push(Resource {
                name: name.unwrap_or_else(|| uri.clone()),
                uri,
                description,
                mime_type,
                text,
            });
        }
        (self.problems.len() == before).then_some(out)
    }
}

/// `inputSchema` -> `input_schema`; `None` when `key` has no capital letter.
/// A tools file's spelling rules for an unknown key: its keys are snake_case, except MCP's
/// annotation names, which keep their camelCase.
fn spelling_advice(key: &str, allowed: &[&'static str]) -> Option<String> {
    match (snake_case(key), camel_case(key)) {
        (Some(snake), _) if allowed.contains(&snake.as_str()) => Some(format!(
            "write `{snake}` (tools files spell keys in snake_case)"
        )),
        (_, Some(camel)) if allowed.contains(&camel.as_str()) => Some(format!(
            "write `{camel}` (annotations keep MCP's camelCase names)"
        )),
        _ => None,
    }
}

fn snake_case(key: &str) -> Option<String> {
    if !key.chars().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// `read_only_hint` -> `readOnlyHint`; `None` when `key` has no underscore between letters.
fn camel_case(key: &str) -> Option<String> {
    let trimmed = key.trim_matches('_');
    if !trimmed.contains('_') {
        return None;
    }
    let mut out = String::new();
    let mut upper = false;
    for c in trimmed.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{Kind, parse};

    #[test]
    fn hostile_inputs_are_errors_in_the_tools_file_s_words() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert!(parse(&deep).unwrap_err().message.contains("deeper than 32"));
        let alias = format!(
            "a: &x {}1{}\nb: [[[[[[[[[[[[[[*x]]]]]]]]]]]]]]\n",
            "[".repeat(25),
            "]".repeat(25)
        );
        let e = parse(&alias).unwrap_err();
        assert_eq!(e.pos.map(|p| p.line), Some(2), "{e:?}");
        assert!(
            parse("a: [1, 2\n")
                .unwrap_err()
                .message
                .starts_with("invalid YAML")
        );
        assert!(
            parse("a: 1\n---\nb: 2\n")
                .unwrap_err()
                .message
                .contains("one YAML document")
        );
        assert_eq!(parse("").unwrap().kind, Kind::Null);
    }
}
