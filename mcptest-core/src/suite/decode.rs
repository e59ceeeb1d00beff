//! From the node tree to the suite model, gathering every problem with its position.
//!
//! Each block is decoded by hand rather than through derived `Deserialize` impls, for three
//! reasons: an unknown key gets a did-you-mean, a wrong type says what to write instead, and
//! every decoded field records where it was written so that a problem found later by
//! [`AgentSpec::validate`] (which names a field path such as `stability.expect[0]`) is reported
//! at the right line and column.

use super::paths::{default_cassette, slug};
use super::{
    HeaderTemplate, HttpServer, MAX_DEPTH, MAX_SUITE_BYTES, Problem, ServerConfig, ServerTransport,
    StdioServer, is_env_name,
};
use crate::eval::{AxisEdge, RecoveryBudget, TrajectoryAxes};
use crate::eval::{ExpectedArgs, ExpectedCall, ExpectedTrace, GoldenPath, MatchMode};
use crate::matchers::{Matcher, ModelGradedKind};
use crate::rules::suggest::did_you_mean;
use crate::select::Target;
use crate::spec::{
    AgentSpec, Expectation, Fault, FaultKind, FaultTarget, Inconclusive, NarrativeGate,
    ParallelCalls, ReliabilityGate, SpecErrorKind, StabilityGate,
};
use crate::yaml::read::{self, Fields, Found, quoted_list};
use crate::yaml::{self, Kind, Limits, Node, Pos, Reason};
use mcptest_rules::{mistakes, names};
use std::collections::HashMap;
use std::sync::Arc;

/// Parses suite text into a node tree; a problem with the YAML itself comes back with its
/// position and what to do about it.
pub(crate) fn parse(text: &str) -> Result<Node, (Pos, String)> {
    let limits = Limits {
        max_depth: MAX_DEPTH,
        max_bytes: MAX_SUITE_BYTES,
    };
    yaml::parse(text, limits).map_err(|e| (e.pos, syntax_message(e.reason)))
}

/// A YAML problem in a suite's words.
fn syntax_message(reason: Reason) -> String {
    const SIMPLIFY: &str = "a suite is a list of agents, each a few levels deep: simplify it";
    match reason {
        Reason::TooLarge { bytes } => format!(
            "the suite is {bytes} bytes, more than the {MAX_SUITE_BYTES} bytes a suite may hold; \
             split it into several suite files"
        ),
        Reason::TooDeep => format!("the YAML nests deeper than {MAX_DEPTH} levels; {SIMPLIFY}"),
        Reason::TooManyNodes { .. } => {
            format!("the YAML holds more than 250,000 nodes; {SIMPLIFY}")
        }
        Reason::OverBudget { detail } => format!("the YAML is too large ({detail}); {SIMPLIFY}"),
        Reason::MultipleDocuments => "a suite file holds one YAML document; remove the `---` \
                                      separator or split the documents into several suite files"
            .into(),
        Reason::Invalid { message } => format!("invalid YAML: {message}"),
    }
}

pub(crate) const SUITE_KEYS: &[&str] = &["servers", "faults", "system", "roots", "agents"];
pub(crate) const SERVER_KEYS: &[&str] = &["command", "args", "env", "cwd", "url", "headers"];
pub(crate) const FAULT_KEYS: &[&str] = &["name", "target", "kind", "delay_ms", "failures"];
pub(crate) const AGENT_KEYS: &[&str] = &[
    "name",
    "model",
    "servers",
    "prompt",
    "system",
    "runs",
    "max_turns",
    "max_tokens",
    "parallel_calls",
    "cassette",
    "trajectory",
    "golden_path",
    "trajectory_axes",
    "stability",
    "narrative",
    "inject",
    "recovery",
    "reliability",
    "expect",
    "snapshots",
];
/// Span-table suffixes marking where an assertion's model-graded or malformed matcher was
/// written (they are not field names, so they never collide with one).
const MODEL_GRADED_MARK: &str = "#model-graded";
const MALFORMED_MARK: &str = "#malformed";

/// What a decoded suite holds, before it becomes a [`super::Suite`].
pub(crate) struct Decoded {
    pub servers: Vec<ServerConfig>,
    pub faults: Vec<Fault>,
    pub roots: Vec<String>,
    pub agents: Vec<AgentSpec>,
}

/// The decoding state: the problems found so far and where every decoded field was written.
pub(crate) struct Decoder<'t> {
    lines: Vec<&'t str>,
    pub problems: Vec<Problem>,
    spans: HashMap<String, Pos>,
    suite_stem: String,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'t> Decoder<'t> {
    pub fn new(text: &'t str, suite_stem: String) -> Self {
        Decoder {
            lines: text.lines().collect(),
            problems: Vec::new(),
            spans: HashMap::new(),
            suite_stem,
        }
    }

    /// Records a problem at `pos`.
    pub fn problem(&mut self, pos: Pos, path: &str, message: impl Into<String>) {
        let source_line = self
            .lines
            .get(pos.line.saturating_sub(1))
            .map(|l| l.to_string())
            .unwrap_or_default();
        self.problems.push(Problem {
            line: pos.line,
            column: pos.column,
            path: path.to_string(),
            message: message.into(),
            source_line,
        });
    }

    fn wrong_type(&mut self, node: &Node, path: &str, expected: &str, hint: &str) {
        let message = read::wrong_type(&format!("`{path}`"), node, expected, hint);
        self.problem(node.pos, path, message);
    }

    /// Records a reading mistake of the kit at `path` (or at its key under `path`).
    fn found(&mut self, f: Found, path: &str) {
        let at = match &f.key {
            Some(k) => join(path, k),
            None => path.to_string(),
        };
        self.problem(f.pos, &at, f.message);
    }

    /// The entries of a map node ([`read::map`]); `None` (with a problem recorded) when it is
    /// not a map. A null node is an empty map when `null_is_empty`.
    fn fields<'n>(
        &mut self,
        node: &'n Node,
        path: &str,
        what: &str,
        known: &[&'static str],
        null_is_empty: bool,
    ) -> Option<Fields<'n>> {
        if node.kind == Kind::Null && !null_is_empty {
            let keys = quoted_list(known);
            self.wrong_type(node, path, "a map", &format!("{what} has the keys {keys}"));
            return None;
        }
        match read::map(node, what, known, |_, _| None) {
            Ok((fields, found)) => {
                for f in found {
                    self.found(f, path);
                }
                Some(fields)
            }
            Err(f) => {
                self.found(f, path);
                None
            }
        }
    }

    /// The value of `key` in `f`, recording where the key was written.
    fn field<'n>(&mut self, f: &Fields<'n>, path: &str, key: &str) -> Option<&'n Node> {
        let (k, v) = f.get(key)?;
        self.spans.insert(join(path, key), k.pos);
        Some(v)
    }

    fn required<'n>(
        &mut self,
        f: &Fields<'n>,
        path: &str,
        key: &str,
        what: &str,
        example: &str,
    ) -> Option<&'n Node> {
        let v = self.field(f, path, key);
        // A misspelt `key` is already reported with a did-you-mean; saying it is missing too
        // would only repeat that.
        if v.is_none() && !f.typos.contains(&key) {
            self.problem(
                f.pos,
                &join(path, key),
                format!("{what} needs `{key}:` (for example `{example}`)"),
            );
        }
        v
    }

    fn string(&mut self, node: &Node, path: &str) -> Option<String> {
        match &node.kind {
            Kind::Str(s) => Some(s.clone()),
            Kind::Bool(_) | Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => {
                let t = node.scalar_text().unwrap_or_default();
                self.wrong_type(
                    node,
                    path,
                    "a string",
                    &format!("quote it to keep it as text: \"{t}\""),
                );
                None
            }
            _ => {
                self.wrong_type(node, path, "a string", "");
                None
            }
        }
    }

    /// One of a few keywords: `choices` are (keyword, value, what it means). Anything else is
    /// a problem that lists them, with a guess.
    fn choice<T: Copy>(
        &mut self,
        node: &Node,
        path: &str,
        choices: &[(&str, T, &str)],
    ) -> Option<T> {
        let v = self.nonempty_string(node, path)?;
        if let Some((_, c, _)) = choices.iter().find(|(k, _, _)| *k == v) {
            return Some(*c);
        }
        let keywords: Vec<&str> = choices.iter().map(|(k, _, _)| *k).collect();
        let hint = did_you_mean(&v, &keywords)
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        let listed: Vec<String> = choices
            .iter()
            .map(|(k, _, what)| format!("`{k}` ({what})"))
            .collect();
        let key = path.rsplit('.').next().unwrap_or(path);
        self.problem(
            node.pos,
            path,
            format!(
                "unknown `{key}: {v}`{hint}; expected {}",
                listed.join(" or ")
            ),
        );
        None
    }

    fn nonempty_string(&mut self, node: &Node, path: &str) -> Option<String> {
        let s = self.string(node, path)?;
        if s.trim().is_empty() {
            self.problem(node.pos, path, format!("`{path}` must not be empty"));
            return None;
        }
        Some(s)
    }

    fn uint(&mut self, node: &Node, path: &str, min: u64, max: u64) -> Option<u64> {
        let n = match node.kind {
            Kind::UInt(u) => u,
            Kind::Int(i) if i >= 0 => i as u64,
            Kind::Int(_) => {
                self.wrong_type(node, path, &format!("a whole number of at least {min}"), "");
                return None;
            }
            _ => {
                self.wrong_type(node, path, "a whole number", "");
                return None;
            }
        };
        if n < min || n > max {
            self.problem(
                node.pos,
                path,
                format!("`{path}` must be from {min} to {max}, found {n}"),
            );
            return None;
        }
        Some(n)
    }

    fn u32(&mut self, node: &Node, path: &str, min: u32) -> Option<u32> {
        self.uint(node, path, u64::from(min), u64::from(u32::MAX))
            .map(|n| n as u32)
    }

    fn float(&mut self, node: &Node, path: &str) -> Option<f64> {
        match node.kind {
            Kind::UInt(u) => Some(u as f64),
            Kind::Int(i) => Some(i as f64),
            Kind::Float(f) if f.is_finite() => Some(f),
            _ => {
                self.wrong_type(node, path, "a number", "");
                None
            }
        }
    }

    fn boolean(&mut self, node: &Node, path: &str) -> Option<bool> {
        match node.kind {
            Kind::Bool(b) => Some(b),
            _ => {
                self.wrong_type(node, path, "`true` or `false`", "");
                None
            }
        }
    }

    fn list<'n>(&mut self, node: &'n Node, path: &str, example: &str) -> Option<&'n [Node]> {
        match &node.kind {
            Kind::Seq(items) => Some(items),
            Kind::Null => Some(&[]),
            _ => {
                self.wrong_type(node, path, "a list", &format!("write `{example}`"));
                None
            }
        }
    }

    fn string_list(&mut self, node: &Node, path: &str, example: &str) -> Option<Vec<String>> {
        let items = self.list(node, path, example)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            self.spans.insert(p.clone(), item.pos);
            match self.nonempty_string(item, &p) {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn json(&mut self, node: &Node, path: &str) -> Option<serde_json::Value> {
        read::json(node).map_err(|f| self.found(f, path)).ok()
    }

    // -----------------------------------------------------------------------------------------
    // The suite

    pub fn suite(&mut self, root: &Node) -> Option<Decoded> {
        let example = "agents:\n  - name: weather lookup\n    model: claude-sonnet-4-5\n    \
                       prompt: What is the weather in Sacramento?";
        match &root.kind {
            Kind::Null => {
                self.problem(
                    Pos { line: 1, column: 1 },
                    "",
                    format!(
                        "the suite is empty: a suite lists its agents under `agents:`, for \
                         example\n{example}"
                    ),
                );
                return None;
            }
            Kind::Map(_) => {}
            _ => {
                self.problem(
                    root.pos,
                    "",
                    format!(
                        "a suite is a map with `agents:` (and optionally `servers:` and \
                         `faults:`), found {}; for example\n{example}",
                        root.type_name()
                    ),
                );
                return None;
            }
        }
        let f = self.fields(root, "", "a suite", SUITE_KEYS, false)?;
        let servers = match self.field(&f, "", "servers") {
            Some(n) => self.servers(n),
            None => vec![],
        };
        let faults = match self.field(&f, "", "faults") {
            Some(n) => self.faults(n),
            None => vec![],
        };
        let system = self
            .field(&f, "", "system")
            .and_then(|n| self.string(n, "system"));
        let roots = self
            .field(&f, "", "roots")
            .and_then(|n| self.string_list(n, "roots", "roots: [./workspace]"))
            .unwrap_or_default();
        let Some(agents_node) = self.field(&f, "", "agents") else {
            self.problem(
                root.pos,
                "agents",
                format!("the suite has no `agents:` list; add one, for example\n{example}"),
            );
            return None;
        };
        let items = self.list(agents_node, "agents", "agents: [ ... ]")?;
        if items.is_empty() {
            self.problem(
                agents_node.pos,
                "agents",
                "`agents:` is empty: add at least one agent (a `- name: ...` entry)",
            );
        }
        let mut agents = Vec::new();
        let mut seen: HashMap<(String, String), Pos> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("agents[{i}]");
            self.spans.insert(path.clone(), item.pos);
            for mut spec in self.agent(item, &path, &faults) {
                if spec.system.is_none() {
                    spec.system = system.clone();
                }
                let key = (
                    slug(&spec.name),
                    spec.model.clone().unwrap_or_default().to_lowercase(),
                );
                let at = self
                    .spans
                    .get(&join(&path, "name"))
                    .copied()
                    .unwrap_or(item.pos);
                if let Some(first) = seen.get(&key) {
                    let first = *first;
                    self.problem(
                        at,
                        &join(&path, "name"),
                        format!(
                            "agent `{}` with model `{}` collides with the agent at line {}: \
                             both would use the cassette folder `{}`; give one a different name",
                            spec.name,
                            spec.model.as_deref().unwrap_or(""),
                            first.line,
                            key.0
                        ),
                    );
                    continue;
                }
                seen.insert(key, at);
                agents.push(spec);
            }
        }
        Some(Decoded {
            servers,
            faults,
            roots,
            agents,
        })
    }

    fn servers(&mut self, node: &Node) -> Vec<ServerConfig> {
        let Kind::Map(entries) = &node.kind else {
            if !matches!(node.kind, Kind::Null) {
                self.wrong_type(
                    node,
                    "servers",
                    "a map from server name to its launch command",
                    "write `servers:\\n  weather:\\n    command: weather-mcp`",
                );
            }
            return vec![];
        };
        let mut out: Vec<ServerConfig> = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.string(k, "servers") else {
                continue;
            };
            let path = format!("servers.{name}");
            if out.iter().any(|s| s.name == name) {
                self.problem(
                    k.pos,
                    &path,
                    format!("duplicate server `{name}`; keep one of them"),
                );
                continue;
            }
            let what = format!("server `{name}`");
            let Some(f) = self.fields(v, &path, &what, SERVER_KEYS, false) else {
                continue;
            };
            let transport = match (f.get("command"), f.get("url")) {
                (Some(_), Some((url_key, _))) => {
                    self.problem(
                        url_key.pos,
                        &join(&path, "url"),
                        format!(
                            "{what} has both `command:` and `url:`; a server is started over \
                             stdio (`command:`) or reached over Streamable HTTP (`url:`), keep one"
                        ),
                    );
                    None
                }
                (None, Some(_)) => self.http_server(&f, &path, &what),
                _ => self.stdio_server(&f, &path, &what),
            };
            if let Some(transport) = transport {
                out.push(ServerConfig { name, transport });
            }
        }
        out
    }

    /// A problem at each of `keys` written on a server of the other transport.
    fn keys_of_the_other_transport(
        &mut self,
        f: &Fields,
        path: &str,
        keys: &[&str],
        message: impl Fn(&str) -> String,
    ) {
        for key in keys {
            if let Some((k, _)) = f.get(key) {
                self.problem(k.pos, &join(path, key), message(key));
            }
        }
    }

    fn stdio_server(&mut self, f: &Fields, path: &str, what: &str) -> Option<ServerTransport> {
        self.keys_of_the_other_transport(f, path, &["headers"], |key| {
            format!(
                "`{key}:` is for a server reached by `url:`; {what} is started by `command:` \
                 (give it variables with `env:`)"
            )
        });
        let command = self
            .required(f, path, "command", what, "command: weather-mcp")
            .and_then(|n| self.nonempty_string(n, &join(path, "command")));
        let args = match self.field(f, path, "args") {
            Some(n) => self
                .string_list(n, &join(path, "args"), "args: [--stdio]")
                .unwrap_or_default(),
            None => vec![],
        };
        let (env, env_values) = match self.field(f, path, "env") {
            Some(n) => self.env(n, &join(path, "env")),
            None => (vec![], vec![]),
        };
        let cwd = self
            .field(f, path, "cwd")
            .and_then(|n| self.nonempty_string(n, &join(path, "cwd")));
        Some(ServerTransport::Stdio(StdioServer {
            command: command?,
            args,
            env,
            env_values,
            cwd,
        }))
    }

    fn http_server(&mut self, f: &Fields, path: &str, what: &str) -> Option<ServerTransport> {
        self.keys_of_the_other_transport(f, path, &["args", "env", "cwd"], |key| {
            format!(
                "`{key}:` is for a server started by `command:`; {what} is reached by `url:` \
                 (send credentials with `headers:`)"
            )
        });
        let url_node = self.field(f, path, "url")?;
        let url = self.nonempty_string(url_node, &join(path, "url"))?;
        let scheme_ok = ["http://", "https://"]
            .iter()
            .any(|p| url.len() > p.len() && url[..p.len()].eq_ignore_ascii_case(p));
        if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            self.problem(
                url_node.pos,
                &join(path, "url"),
                format!(
                    "`{url}` is not an HTTP URL; write the server's MCP endpoint, for example \
                     `url: https://mcp.example.com/mcp` (servers run as a program take \
                     `command:` instead)"
                ),
            );
            return None;
        }
        let mut headers: Vec<HeaderTemplate> = Vec::new();
        let mut ok = true;
        if let Some(node) = self.field(f, path, "headers") {
            let hpath = join(path, "headers");
            match &node.kind {
                Kind::Map(entries) => {
                    for (k, v) in entries {
                        let Some(name) = self.nonempty_string(k, &hpath) else {
                            ok = false;
                            continue;
                        };
                        let p = join(&hpath, &name);
                        self.spans.insert(p.clone(), v.pos);
                        if headers.iter().any(|h| h.name.eq_ignore_ascii_case(&name)) {
                            self.problem(
                                k.pos,
                                &p,
                                format!("duplicate header `{name}`; keep one of them"),
                            );
                            ok = false;
                            continue;
                        }
                        let Some(value) = self.nonempty_string(v, &p) else {
                            ok = false;
                            continue;
                        };
                        match HeaderTemplate::parse(&name, &value) {
                            Ok(t) => headers.push(t),
                            Err(message) => {
                                self.problem(v.pos, &p, message);
                                ok = false;
                            }
                        }
                    }
                }
                Kind::Null => {}
                _ => {
                    self.wrong_type(
                        node,
                        &hpath,
                        "a map from header name to the environment variable that holds its value",
                        "write `headers: {Authorization: \"Bearer ${MCP_TOKEN}\"}`",
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(ServerTransport::Http(HttpServer { url, headers }))
    }

    /// `env:` as a list of names passed through (secrets), or a map whose entries with a
    /// value are set to it (plain) and whose entries without one (`NAME: ~`) pass through.
    fn env(&mut self, node: &Node, path: &str) -> (Vec<String>, Vec<(String, String)>) {
        let Kind::Map(entries) = &node.kind else {
            return (self.env_names(node, path), vec![]);
        };
        let mut secret = Vec::new();
        let mut plain = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.nonempty_string(k, path) else {
                continue;
            };
            if !self.env_name_ok(&name, k.pos, path) {
                continue;
            }
            let p = join(path, &name);
            self.spans.insert(p.clone(), v.pos);
            match &v.kind {
                Kind::Null => secret.push(name),
                Kind::Str(_) | Kind::Bool(_) | Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => {
                    plain.push((name, v.scalar_text().unwrap_or_default()))
                }
                _ => self.problem(
                    v.pos,
                    &p,
                    format!(
                        "`{name}` takes one value (`{name}: eu-west-1`), or none (`{name}: ~`) \
                         to pass it through from the environment as a secret"
                    ),
                ),
            }
        }
        (secret, plain)
    }

    fn env_name_ok(&mut self, name: &str, pos: Pos, path: &str) -> bool {
        let valid = is_env_name(name);
        if !valid {
            self.problem(
                pos,
                path,
                format!(
                    "`{name}` is not an environment variable name (letters, digits and `_`, \
                     not starting with a digit)"
                ),
            );
        }
        valid
    }

    fn env_names(&mut self, node: &Node, path: &str) -> Vec<String> {
        let names = self
            .string_list(node, path, "env: [WEATHER_API_KEY]")
            .unwrap_or_default();
        let items: &[Node] = match &node.kind {
            Kind::Seq(items) => items,
            _ => &[],
        };
        let mut out = Vec::new();
        for (name, item) in names.into_iter().zip(items) {
            if self.env_name_ok(&name, item.pos, path) {
                out.push(name);
            }
        }
        out
    }

    fn faults(&mut self, node: &Node) -> Vec<Fault> {
        let example = "faults: [{name: hung-search, target: {tool: search}, kind: hang}]";
        let Some(items) = self.list(node, "faults", example) else {
            return vec![];
        };
        let mut out: Vec<Fault> = Vec::new();
        let mut at: HashMap<String, Pos> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("faults[{i}]");
            let Some(f) = self.fields(item, &path, "a fault", FAULT_KEYS, false) else {
                continue;
            };
            let name_node = self.required(&f, &path, "name", "a fault", "name: hung-search");
            let name = name_node.and_then(|n| self.nonempty_string(n, &join(&path, "name")));
            let target =
                match self.required(&f, &path, "target", "a fault", "target: {tool: search}") {
                    Some(n) => self.fault_target(n, &join(&path, "target")),
                    None => None,
                };
            let kind_node = self.required(&f, &path, "kind", "a fault", "kind: hang");
            let kind = kind_node.and_then(|n| self.fault_kind(n, &join(&path, "kind")));
            let delay_ms = self
                .field(&f, &path, "delay_ms")
                .and_then(|n| self.uint(n, &join(&path, "delay_ms"), 0, u64::MAX));
            let failures = self
                .field(&f, &path, "failures")
                .and_then(|n| self.u32(n, &join(&path, "failures"), 1));
            let (Some(name), Some(target), Some(kind)) = (name, target, kind) else {
                continue;
            };
            let kind_pos = kind_node.map_or(item.pos, |n| n.pos);
            // Each setting belongs to one kind: say where one is missing or stray.
            for (key, owner, about) in [
                ("delay_ms", "slow", "how long each call takes to answer"),
                (
                    "failures",
                    "recover_after",
                    "how many calls hang before the server answers",
                ),
            ] {
                match (kind == owner, f.get(key)) {
                    (true, None) => self.problem(
                        kind_pos,
                        &join(&path, "kind"),
                        format!(
                            "{}: add `{key}:` ({about})",
                            mistakes::fault_needs(owner, key)
                        ),
                    ),
                    (false, Some((k, _))) => self.problem(
                        k.pos,
                        &join(&path, key),
                        format!(
                            "`{key}` applies to `kind: {owner}` only; remove it or change the kind"
                        ),
                    ),
                    _ => {}
                }
            }
            let kind = match kind {
                "hang" => FaultKind::Hang,
                "wedged" => FaultKind::Wedged,
                "slow" => match delay_ms {
                    Some(delay_ms) => FaultKind::Slow { delay_ms },
                    None => continue,
                },
                _ => match failures {
                    Some(failures) => FaultKind::RecoverAfter { failures },
                    None => continue,
                },
            };
            let name_pos = name_node.map_or(item.pos, |n| n.pos);
            if let Some(first) = at.get(&name) {
                let first = *first;
                self.problem(
                    name_pos,
                    &join(&path, "name"),
                    format!(
                        "duplicate fault name `{name}` (first declared at line {}); fault names \
                         are what agents `inject:`, so each must be unique",
                        first.line
                    ),
                );
                continue;
            }
            at.insert(name.clone(), name_pos);
            out.push(Fault { name, target, kind });
        }
        out
    }

    fn fault_target(&mut self, node: &Node, path: &str) -> Option<FaultTarget> {
        let f = self.fields(node, path, "a fault target", &["tool", "server"], false)?;
        let tool = self
            .field(&f, path, "tool")
            .and_then(|n| self.nonempty_string(n, &join(path, "tool")));
        let server = self
            .field(&f, path, "server")
            .and_then(|n| self.nonempty_string(n, &join(path, "server")));
        if tool.is_none() && server.is_none() {
            if f.entries.is_empty() {
                self.problem(
                    node.pos,
                    path,
                    "a fault target names a tool, a server, or both: `{tool: search}`, \
                     `{server: docs}`, `{tool: search, server: docs}`",
                );
            }
            return None;
        }
        Some(FaultTarget { tool, server })
    }

    /// The fault kind a node names (the rulebook's canonical name).
    fn fault_kind(&mut self, node: &Node, path: &str) -> Option<&'static str> {
        let s = self.string(node, path)?;
        let kind = match names::fault_kind(&s) {
            Some(kind) => kind,
            None => {
                let other = s.as_str();
                let extra = if other.contains(':') {
                    "; write the delay or count as its own key: `kind: slow` with \
                     `delay_ms: 300`, `kind: recover_after` with `failures: 2`"
                } else {
                    ""
                };
                self.problem(
                    node.pos,
                    path,
                    format!(
                        "{}{extra}",
                        mistakes::unknown("fault kind", other, names::FAULT_KINDS)
                    ),
                );
                return None;
            }
        };
        Some(kind)
    }

    // -----------------------------------------------------------------------------------------
    // An agent

    fn agent(&mut self, node: &Node, path: &str, faults: &[Fault]) -> Vec<AgentSpec> {
        let Some(f) = self.fields(node, path, "an agent", AGENT_KEYS, false) else {
            return vec![];
        };
        let before = self.problems.len();
        let name_node = self.required(&f, path, "name", "an agent", "name: weather lookup");
        let name = name_node.and_then(|n| self.nonempty_string(n, &join(path, "name")));
        if let (Some(n), Some(node)) = (&name, name_node)
            && slug(n).is_empty()
        {
            self.problem(
                node.pos,
                &join(path, "name"),
                format!(
                    "the name `{n}` has no letter or digit, so it cannot name the agent's \
                     cassette folder; add a word to it"
                ),
            );
        }
        let model_node = self.required(&f, path, "model", "an agent", "model: claude-sonnet-4-5");
        let models = model_node.and_then(|n| self.models(n, &join(path, "model")));
        let mut spec = AgentSpec::new(name.clone().unwrap_or_default());
        if let Some(n) = self.field(&f, path, "servers") {
            spec.servers = self
                .string_list(n, &join(path, "servers"), "servers: [weather]")
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "prompt") {
            spec.prompt = self.string(n, &join(path, "prompt"));
        }
        if let Some(n) = self.field(&f, path, "system") {
            spec.system = self.string(n, &join(path, "system"));
        }
        if let Some(n) = self.field(&f, path, "runs") {
            spec.runs = self.u32(n, &join(path, "runs"), 0);
        }
        if let Some(n) = self.field(&f, path, "max_turns") {
            spec.max_turns = self.u32(n, &join(path, "max_turns"), 1);
        }
        if let Some(n) = self.field(&f, path, "max_tokens") {
            spec.max_tokens = self.u32(n, &join(path, "max_tokens"), 1);
        }
        if let Some(n) = self.field(&f, path, "parallel_calls") {
            let choices = [
                (
                    ParallelCalls::Concurrent,
                    "the default: a reply's tool calls run at once",
                ),
                (
                    ParallelCalls::Sequential,
                    "one at a time, in the model's order",
                ),
            ]
            .map(|(c, what)| (c.as_str(), c, what));
            if let Some(c) = self.choice(n, &join(path, "parallel_calls"), &choices) {
                spec.parallel_calls = c;
            }
        }
        let cassette = self
            .field(&f, path, "cassette")
            .and_then(|n| self.nonempty_string(n, &join(path, "cassette")));
        if let Some(n) = self.field(&f, path, "snapshots") {
            spec.snapshots = self.boolean(n, &join(path, "snapshots")).unwrap_or(true);
        }
        if let Some(n) = self.field(&f, path, "trajectory") {
            spec.trajectory = self.trajectory(n, &join(path, "trajectory"));
        }
        if let Some(n) = self.field(&f, path, "golden_path") {
            spec.golden_path = self.golden_path(n, &join(path, "golden_path"));
        }
        if let Some(n) = self.field(&f, path, "trajectory_axes") {
            spec.trajectory_axes = self.axes(n, &join(path, "trajectory_axes"));
        }
        if let Some(n) = self.field(&f, path, "stability") {
            let p = join(path, "stability");
            if let Some(g) = self.fields(n, &p, "`stability:`", &["expect"], true) {
                let expect = self.expect_list(&g, &p);
                spec.stability = Some(StabilityGate { expect });
            }
        }
        if let Some(n) = self.field(&f, path, "narrative") {
            spec.narrative = self.narrative(n, &join(path, "narrative"));
        }
        if let Some(n) = self.field(&f, path, "reliability") {
            let p = join(path, "reliability");
            spec.reliability = self.reliability(n, &p);
        }
        if let Some(n) = self.field(&f, path, "inject") {
            spec.inject = self.inject(n, &join(path, "inject"), faults);
        }
        if let Some(n) = self.field(&f, path, "recovery") {
            spec.recovery = self.recovery(n, &join(path, "recovery"));
        }
        if let Some(n) = self.field(&f, path, "expect") {
            spec.expect = self.expectations(n, &join(path, "expect"));
        }
        let (Some(_), Some(models)) = (name, models) else {
            return vec![];
        };
        if models.len() > 1
            && let (Some(_), Some((k, _))) = (&cassette, f.get("cassette"))
        {
            self.problem(
                k.pos,
                &join(path, "cassette"),
                "`cassette:` names one file, and this agent lists several models; drop \
                 `cassette:` so each model gets its own cassette, or split the agent",
            );
            return vec![];
        }
        // Semantic checks run on the decoded spec; a check about a field whose decoding
        // already failed would only repeat that problem, so it is left out.
        let reported: Vec<String> = self.problems[before..]
            .iter()
            .map(|p| p.path.clone())
            .collect();
        let mut out = Vec::new();
        for model in models {
            let mut s = spec.clone();
            s.cassettes = vec![match &cassette {
                Some(c) => c.clone(),
                None => default_cassette(&self.suite_stem, &s.name, &model),
            }];
            s.model = Some(model);
            out.push(s);
        }
        if let Some(first) = out.first() {
            for e in first.validate() {
                let root = e.field.split(['.', '[']).next().unwrap_or_default();
                let related: &[&str] = match root {
                    "stability" => &["stability", "runs"],
                    "recovery" => &["recovery", "inject"],
                    _ => &[],
                };
                let repeats = std::iter::once(root)
                    .chain(related.iter().copied())
                    .any(|r| {
                        let p = join(path, r);
                        reported.iter().any(|q| {
                            q == &p
                                || q.starts_with(&format!("{p}."))
                                || q.starts_with(&format!("{p}["))
                        })
                    });
                if !repeats {
                    let pos = self.locate(path, &e.field, e.kind);
                    self.problem(pos, &join(path, &e.field), e.message);
                }
            }
        }
        out
    }

    fn models(&mut self, node: &Node, path: &str) -> Option<Vec<String>> {
        match &node.kind {
            Kind::Seq(_) => {
                let models = self.string_list(node, path, "model: [claude-sonnet-4-5]")?;
                if models.is_empty() {
                    self.problem(node.pos, path, "`model:` lists no model; name at least one");
                    return None;
                }
                Some(models)
            }
            _ => self.nonempty_string(node, path).map(|m| vec![m]),
        }
    }

    /// Where a problem [`AgentSpec::validate`] reports about `field` was written.
    fn locate(&self, agent_path: &str, field: &str, kind: SpecErrorKind) -> Pos {
        let mut candidates = Vec::new();
        if field.ends_with(']') && field.contains("expect[") {
            match kind {
                SpecErrorKind::NarrationTarget
                | SpecErrorKind::CrossRunTarget
                | SpecErrorKind::UndeclaredGate
                | SpecErrorKind::UnknownMetric
                | SpecErrorKind::MisplacedTarget => candidates.push(format!("{field}.target")),
                SpecErrorKind::ModelGraded => {
                    candidates.push(format!("{field}.{MODEL_GRADED_MARK}"))
                }
                _ => candidates.push(format!("{field}.{MALFORMED_MARK}")),
            }
            candidates.push(format!("{field}.matcher"));
        }
        let mut f = field.to_string();
        loop {
            candidates.push(f.clone());
            match f.rfind(['.', '[']) {
                Some(i) => f.truncate(i),
                None => break,
            }
        }
        candidates
            .iter()
            .find_map(|c| self.spans.get(&join(agent_path, c)).copied())
            .or_else(|| self.spans.get(agent_path).copied())
            .unwrap_or_default()
    }

    fn inject(&mut self, node: &Node, path: &str, faults: &[Fault]) -> Vec<Fault> {
        let names = self
            .string_list(node, path, "inject: [hung-search]")
            .unwrap_or_default();
        let items: &[Node] = match &node.kind {
            Kind::Seq(items) => items,
            _ => &[],
        };
        let known: Vec<&str> = faults.iter().map(|f| f.name.as_str()).collect();
        let mut out = Vec::new();
        for (name, item) in names.iter().zip(items) {
            match faults.iter().find(|f| &f.name == name) {
                Some(f) => out.push(f.clone()),
                None => {
                    let hint = did_you_mean(name, &known)
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    let declared = if known.is_empty() {
                        "the suite declares no faults; add a top-level `faults:` list, for \
                         example `faults: [{name: hung-search, target: {tool: search}, kind: \
                         hang}]`"
                            .to_string()
                    } else {
                        format!(
                            "declare it under the top-level `faults:` or use one of {}",
                            quoted_list(&known)
                        )
                    };
                    self.problem(
                        item.pos,
                        path,
                        format!("`inject:` names the fault `{name}`, which is not declared{hint}; {declared}"),
                    );
                }
            }
        }
        out
    }

    fn trajectory(&mut self, node: &Node, path: &str) -> Option<ExpectedTrace> {
        let f = self.fields(node, path, "`trajectory:`", &["mode", "calls"], false)?;
        let mode = match self.required(&f, path, "mode", "`trajectory:`", "mode: subsequence") {
            Some(n) => {
                let p = join(path, "mode");
                let s = self.string(n, &p)?;
                match s.parse::<MatchMode>() {
                    Ok(m) => Some(m),
                    Err(e) => {
                        self.problem(n.pos, &p, e);
                        None
                    }
                }
            }
            None => None,
        };
        let mut calls = Vec::new();
        if let Some(n) = self.field(&f, path, "calls") {
            let p = join(path, "calls");
            for (i, item) in self
                .list(n, &p, "calls: [{name: get_weather}]")
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let cp = format!("{p}[{i}]");
                self.spans.insert(cp.clone(), item.pos);
                if let Some(c) = self.expected_call(item, &cp) {
                    calls.push(c);
                }
            }
        }
        Some(ExpectedTrace { mode: mode?, calls })
    }

    fn expected_call(&mut self, node: &Node, path: &str) -> Option<ExpectedCall> {
        if let Kind::Str(name) = &node.kind {
            return Some(ExpectedCall::by_name(name.clone()));
        }
        let f = self.fields(node, path, "an expected call", &["name", "args"], false)?;
        let name = self
            .required(&f, path, "name", "an expected call", "name: get_weather")
            .and_then(|n| self.nonempty_string(n, &join(path, "name")));
        let args = match self.field(&f, path, "args") {
            Some(n) => self.expected_args(n, &join(path, "args"))?,
            None => ExpectedArgs::Any,
        };
        Some(ExpectedCall { name: name?, args })
    }

    fn expected_args(&mut self, node: &Node, path: &str) -> Option<ExpectedArgs> {
        let how = "`any`, `ignore`, `{exact: ...}`, `{subset: ...}` or `{schema: ...}`";
        match &node.kind {
            Kind::Null => Some(ExpectedArgs::Any),
            Kind::Str(s) if s == "any" => Some(ExpectedArgs::Any),
            Kind::Str(s) if s == "ignore" => Some(ExpectedArgs::Ignore),
            Kind::Str(s) => {
                self.problem(
                    node.pos,
                    path,
                    format!(
                        "{} (written {how})",
                        mistakes::unknown("argument shape", s, names::SHAPES)
                    ),
                );
                None
            }
            Kind::Map(entries) if entries.len() == 1 => {
                let (k, v) = &entries[0];
                let key = k.scalar_text().unwrap_or_default();
                let p = join(path, &key);
                self.spans.insert(p.clone(), v.pos);
                match key.as_str() {
                    "exact" => self.json(v, &p).map(ExpectedArgs::Exact),
                    "subset" | "contains" => self.json(v, &p).map(ExpectedArgs::Subset),
                    "schema" => self.json(v, &p).map(ExpectedArgs::Schema),
                    other => {
                        self.problem(
                            k.pos,
                            &p,
                            format!(
                                "{} (written {how})",
                                mistakes::unknown("argument shape", other, names::SHAPES)
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                self.wrong_type(node, path, how, "");
                None
            }
        }
    }

    fn golden_path(&mut self, node: &Node, path: &str) -> Option<GoldenPath> {
        let keys = &[
            "calls",
            "allow_extra_steps",
            "penalize_backtracking",
            "penalize_repeated_tools",
        ];
        let f = self.fields(node, path, "`golden_path:`", keys, false)?;
        let calls = self
            .required(&f, path, "calls", "`golden_path:`", "calls: [search, open]")
            .and_then(|n| self.string_list(n, &join(path, "calls"), "calls: [search, open]"));
        let mut g = GoldenPath::new(calls?);
        if let Some(n) = self.field(&f, path, "allow_extra_steps") {
            g.allow_extra_steps = self.boolean(n, &join(path, "allow_extra_steps"))?;
        }
        if let Some(n) = self.field(&f, path, "penalize_backtracking") {
            g.penalize_backtracking = self.boolean(n, &join(path, "penalize_backtracking"))?;
        }
        if let Some(n) = self.field(&f, path, "penalize_repeated_tools") {
            g.penalize_repeated_tools = self.boolean(n, &join(path, "penalize_repeated_tools"))?;
        }
        Some(g)
    }

    fn axes(&mut self, node: &Node, path: &str) -> Option<TrajectoryAxes> {
        let f = self.fields(
            node,
            path,
            "`trajectory_axes:`",
            &["dependencies", "order"],
            true,
        )?;
        let mut axes = TrajectoryAxes::default();
        if let Some(n) = self.field(&f, path, "dependencies") {
            axes.dependencies = self.edges(
                n,
                &join(path, "dependencies"),
                ("producer", "consumer"),
                "a dependency",
            )?;
        }
        if let Some(n) = self.field(&f, path, "order") {
            axes.order = self.edges(
                n,
                &join(path, "order"),
                ("first", "second"),
                "an order edge",
            )?;
        }
        Some(axes)
    }

    fn edges(
        &mut self,
        node: &Node,
        path: &str,
        (a, b): (&'static str, &'static str),
        what: &str,
    ) -> Option<Vec<AxisEdge>> {
        let example = format!("[{{{a}: search, {b}: fetch_page}}]");
        let items = self.list(node, path, &example)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            let Some(f) = self.fields(item, &p, what, &[a, b], false) else {
                ok = false;
                continue;
            };
            let x = self
                .required(&f, &p, a, what, &format!("{a}: search"))
                .and_then(|n| self.nonempty_string(n, &join(&p, a)));
            let y = self
                .required(&f, &p, b, what, &format!("{b}: fetch_page"))
                .and_then(|n| self.nonempty_string(n, &join(&p, b)));
            match (x, y) {
                (Some(x), Some(y)) => out.push((Arc::from(x), Arc::from(y))),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn narrative(&mut self, node: &Node, path: &str) -> Option<NarrativeGate> {
        let keys = &[
            "mutating_tools",
            "readonly_tools",
            "max_divergence_score",
            "llm_assisted",
            "expect",
        ];
        let f = self.fields(node, path, "`narrative:`", keys, true)?;
        let mut g = NarrativeGate::default();
        if let Some(n) = self.field(&f, path, "mutating_tools") {
            g.mutating_tools = self
                .string_list(
                    n,
                    &join(path, "mutating_tools"),
                    "mutating_tools: [run_job]",
                )
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "readonly_tools") {
            g.readonly_tools = self
                .string_list(
                    n,
                    &join(path, "readonly_tools"),
                    "readonly_tools: [post_search]",
                )
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "max_divergence_score") {
            g.max_divergence_score = self.float(n, &join(path, "max_divergence_score"));
        }
        if let Some(n) = self.field(&f, path, "llm_assisted") {
            g.llm_assisted = self
                .boolean(n, &join(path, "llm_assisted"))
                .unwrap_or(false);
        }
        g.expect = self.expect_list(&f, path);
        Some(g)
    }

    fn reliability(&mut self, node: &Node, path: &str) -> Option<ReliabilityGate> {
        let keys = &["min_pass_rate", "confidence", "inconclusive", "expect"];
        let f = self.fields(node, path, "`reliability:`", keys, true)?;
        let mut g = ReliabilityGate::default();
        if let Some(n) = self.field(&f, path, "min_pass_rate") {
            g.min_pass_rate = self.float(n, &join(path, "min_pass_rate"));
        }
        if let Some(n) = self.field(&f, path, "confidence") {
            g.confidence = self.float(n, &join(path, "confidence"));
        }
        if let Some(n) = self.field(&f, path, "inconclusive") {
            let choices = [
                (
                    "fail",
                    Inconclusive::Fail,
                    "an inconclusive verdict fails the cell",
                ),
                (
                    "pass",
                    Inconclusive::Pass,
                    "the default: reported, exit code 0",
                ),
            ];
            if let Some(c) = self.choice(n, &join(path, "inconclusive"), &choices) {
                g.inconclusive = c;
            }
        }
        g.expect = self.expect_list(&f, path);
        Some(g)
    }

    fn recovery(&mut self, node: &Node, path: &str) -> Option<RecoveryBudget> {
        let keys = &[
            "max_detection_ms",
            "max_recovery_ms",
            "require_clean_timeout",
        ];
        let f = self.fields(node, path, "`recovery:`", keys, false)?;
        let detection = self
            .required(
                &f,
                path,
                "max_detection_ms",
                "`recovery:`",
                "max_detection_ms: 3000",
            )
            .and_then(|n| self.uint(n, &join(path, "max_detection_ms"), 1, u64::MAX));
        let recovery = match self.field(&f, path, "max_recovery_ms") {
            Some(n) if matches!(n.kind, Kind::Null) => None,
            Some(n) => Some(self.uint(n, &join(path, "max_recovery_ms"), 1, u64::MAX)?),
            None => None,
        };
        let clean = match self.field(&f, path, "require_clean_timeout") {
            Some(n) => self.boolean(n, &join(path, "require_clean_timeout"))?,
            None => false,
        };
        Some(RecoveryBudget {
            max_detection_ms: detection?,
            max_recovery_ms: recovery,
            require_clean_timeout: clean,
        })
    }

    fn expect_list(&mut self, f: &Fields<'_>, path: &str) -> Vec<Expectation> {
        match self.field(f, path, "expect") {
            Some(n) => self.expectations(n, &join(path, "expect")),
            None => vec![],
        }
    }

    fn expectations(&mut self, node: &Node, path: &str) -> Vec<Expectation> {
        let example = "expect: [{target: tool_calls[0].name, matcher: {exact: get_invoice}}]";
        let items = self.list(node, path, example).unwrap_or_default();
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            self.spans.insert(p.clone(), item.pos);
            if let Some(e) = self.expectation(item, &p) {
                out.push(e);
            }
        }
        out
    }

    fn expectation(&mut self, node: &Node, path: &str) -> Option<Expectation> {
        let what = "an assertion";
        let f = self.fields(node, path, what, &["target", "matcher", "advisory"], false)?;
        let target = match self.required(&f, path, "target", what, "target: tool_calls[0].name") {
            Some(n) => {
                let p = join(path, "target");
                self.spans.insert(p.clone(), n.pos);
                match self.string(n, &p) {
                    Some(s) => match Target::parse(&s) {
                        Ok(t) => Some(t),
                        Err(e) => {
                            self.problem(n.pos, &p, e.to_string());
                            None
                        }
                    },
                    None => None,
                }
            }
            None => None,
        };
        let matcher =
            match self.required(&f, path, "matcher", what, "matcher: {exact: get_invoice}") {
                Some(n) => self.matcher(n, &join(path, "matcher")),
                None => None,
            };
        let advisory = match self.field(&f, path, "advisory") {
            Some(n) => self.boolean(n, &join(path, "advisory"))?,
            None => false,
        };
        Some(Expectation {
            target: target?,
            matcher: matcher?,
            advisory,
        })
    }

    fn matcher(&mut self, node: &Node, path: &str) -> Option<Matcher> {
        let how = format!(
            "a matcher is a map with one key, one of {}",
            quoted_list(names::MATCHER_KEYS)
        );
        let entries = match &node.kind {
            Kind::Map(e) if e.len() == 1 => e,
            Kind::Map(e) if e.is_empty() => {
                self.problem(node.pos, path, format!("empty matcher: {how}"));
                return None;
            }
            Kind::Map(e) => {
                let keys: Vec<String> = e.iter().filter_map(|(k, _)| k.scalar_text()).collect();
                self.problem(
                    e[1].0.pos,
                    path,
                    format!(
                        "a matcher has exactly one key, found {}; combine matchers with \
                         `all: [...]` or `any: [...]`",
                        keys.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                );
                return None;
            }
            _ => {
                self.wrong_type(
                    node,
                    path,
                    "a matcher",
                    &format!("{how}, e.g. `{{exact: 42}}`"),
                );
                return None;
            }
        };
        let (k, v) = &entries[0];
        let key = k.scalar_text().unwrap_or_default();
        let p = join(path, &key);
        // Where the assertion's first model-graded or malformed matcher was written, for the
        // problems `AgentSpec::validate` reports about the whole assertion.
        let assertion = path
            .find(".matcher")
            .map_or(path, |i| &path[..i])
            .to_string();
        let mark = |d: &mut Self, what: &str, pos: Pos| {
            d.spans.entry(format!("{assertion}.{what}")).or_insert(pos);
        };
        let m = match key.as_str() {
            "exact" => Matcher::Exact(self.json(v, &p)?),
            "contains" => Matcher::Contains(self.json(v, &p)?),
            "schema" | "regex" => {
                let m = if key == "schema" {
                    Matcher::schema(self.json(v, &p)?)
                } else {
                    Matcher::regex(self.string(v, &p)?)
                };
                if m.validate().is_err() {
                    mark(self, MALFORMED_MARK, v.pos);
                }
                m
            }
            "not" => Matcher::not(self.matcher(v, &p)?),
            "all" | "any" => {
                let items = self.list(v, &p, "all: [{regex: a}, {regex: b}]")?;
                let mut ms = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    ms.push(self.matcher(item, &format!("{p}[{i}]")));
                }
                let ms: Option<Vec<Matcher>> = ms.into_iter().collect();
                if key == "all" {
                    Matcher::All(ms?)
                } else {
                    Matcher::Any(ms?)
                }
            }
            graded if names::model_graded(graded).is_some() => {
                let kind = match names::model_graded(graded) {
                    Some("llm-judge") => ModelGradedKind::LlmJudge,
                    Some("llm-jury") => ModelGradedKind::LlmJury,
                    _ => ModelGradedKind::Similar,
                };
                mark(self, MODEL_GRADED_MARK, k.pos);
                Matcher::ModelGraded {
                    kind,
                    config: self.json(v, &p)?,
                }
            }
            other => {
                self.problem(
                    k.pos,
                    &p,
                    format!(
                        "{}; {how}",
                        mistakes::unknown("matcher", other, names::MATCHER_KEYS)
                    ),
                );
                return None;
            }
        };
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::{Pos, parse};

    #[test]
    fn hostile_inputs_are_errors_in_the_suite_s_words() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert!(parse(&deep).unwrap_err().1.contains("deeper than 24"));
        let e = parse("a: [1, 2\n").unwrap_err();
        assert!(e.1.starts_with("invalid YAML"), "{e:?}");
        assert!(
            parse("a: 1\n---\nb: 2\n")
                .unwrap_err()
                .1
                .contains("one YAML document")
        );
    }

    #[test]
    fn the_deepest_accepted_suite_fits_a_small_thread_stack() {
        let ok = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(|| {
                let depth = super::MAX_DEPTH - 1;
                let block: String = (0..depth)
                    .map(|i| format!("{}a:\n", "  ".repeat(i)))
                    .collect();
                let flow = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                let block_ok = parse(&block).is_ok();
                let flow_ok = parse(&flow).is_ok();
                let over: String = (0..100)
                    .map(|i| format!("{}a:\n", "  ".repeat(i)))
                    .collect();
                let over_err = parse(&over).unwrap_err();
                let flow_over = format!("{}1{}", "[".repeat(40), "]".repeat(40));
                let flow_err = parse(&flow_over).unwrap_err();
                let alias = format!(
                    "a: &x {}1{}\nb: [[[[[[*x]]]]]]\n",
                    "[".repeat(20),
                    "]".repeat(20)
                );
                let alias_err = parse(&alias).unwrap_err();
                assert_eq!(
                    over_err.0,
                    Pos {
                        line: 25,
                        column: 49
                    }
                );
                assert_eq!(
                    flow_err.0,
                    Pos {
                        line: 1,
                        column: 25
                    }
                );
                assert_eq!(alias_err.0.line, 2);
                (block_ok, flow_ok, over_err.1)
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(ok.0 && ok.1, "{ok:?}");
        assert!(ok.2.contains("deeper than 24"), "{ok:?}");
    }
}
