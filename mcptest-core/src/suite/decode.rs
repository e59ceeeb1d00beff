//! From the node tree to the suite model, gathering every problem with its position.
//!
//! This file holds the decoder, its readers of one value (built on the shared kit in
//! [`crate::yaml::read`]) and the suite's top level; one file per concern holds the rest:
//! `servers`, `faults`, `agent` (an agent's fields, models, `inject:` and where a spec mistake
//! was written), `gates` and `expect` (assertions and matchers).
//!
//! Each block is decoded by hand rather than through derived `Deserialize` impls, for three
//! reasons: an unknown key gets a did-you-mean, a wrong type says what to write instead, and
//! every decoded field records where it was written so that a problem found later by
//! [`AgentSpec::validate`] (which names a field path such as `stability.expect[0]`) is reported
//! at the right line and column.

mod agent;
mod expect;
mod faults;
mod gates;
mod servers;

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
