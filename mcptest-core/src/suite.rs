//! YAML suites: agents declared in a `.yml` file, loaded into the same [`AgentSpec`]s the Rust
//! builder and the `#[mcptest::agent]` attribute produce, and graded by the same gate code.
//!
//! # The format
//!
//! ```yaml
//! servers:                      # how to launch each MCP server (recording only; replay ignores it)
//!   weather:
//!     command: weather-mcp
//!     args: [--stdio]
//!     env: [WEATHER_API_KEY]    # secrets passed through by name (redacted from cassettes);
//!                               # a map sets plain values: {REGION: eu-west-1, KEY: ~}
//!     cwd: servers/weather      # relative to the suite file's folder
//!
//! faults:                       # named faults agents can inject while recording
//!   - name: hung-search
//!     target: { tool: search }  # a tool, a server, or both
//!     kind: hang                # hang | wedged | slow (+ delay_ms) | recover_after (+ failures)
//!
//! agents:
//!   - name: weather lookup      # required; its slug names the cassette folder
//!     model: claude-sonnet-4-5  # required; a list of models makes one cell per model
//!     servers: [weather]
//!     prompt: What is the weather in Sacramento?
//!     runs: 3                   # default 1
//!     max_turns: 5
//!     max_tokens: 1024
//!     cassette: recorded/weather.json   # optional; default below
//!     trajectory:               # mode: strict | exact_sequence | subsequence | unordered | superset | subset
//!       mode: subsequence
//!       calls:
//!         - name: get_weather
//!           args: { subset: { city: Sacramento } }   # any | ignore | {exact} | {subset} | {schema}
//!     golden_path: { calls: [get_weather], allow_extra_steps: false,
//!                    penalize_backtracking: true, penalize_repeated_tools: true }
//!     trajectory_axes:
//!       dependencies: [{ producer: search, consumer: fetch_page }]
//!       order: [{ first: authenticate, second: search }]
//!     stability: {}             # needs runs >= 2; default gate stability.weakest_score >= 0.5
//!     narrative: {}             # default gate: no claimed-but-absent mutating action
//!     reliability: {}           # default gate: reliability.pass_at_k >= 100
//!     inject: [hung-search]     # names from `faults:`
//!     recovery: { max_detection_ms: 3000, max_recovery_ms: 5000, require_clean_timeout: true }
//!     expect:
//!       - target: tool_results[0].is_error
//!         matcher: { exact: false }
//!         advisory: false       # an advisory assertion is reported, never gating
//!     snapshots: true           # the test harness keeps a snapshot of each cell (default)
//! ```
//!
//! Every block is optional except `name` and `model`. A block without `expect:` applies its
//! default gate (see [`crate::gate`]); `stability:`, `narrative:` and `reliability:` take
//! `expect:` lists of `{target, matcher}` on their own targets (`stability.score`, ...).
//! An expected call may also be written as a bare name (`calls: [search, open]`).
//!
//! # Cassettes
//!
//! An agent's cassette is `cassettes/<suite stem>/<agent slug>/<model>.json` next to the suite
//! file, or the agent's `cassette:` path, relative to the suite file's folder. The loaded spec
//! holds that relative path in [`AgentSpec::cassettes`]; [`resolve_cassette`] joins it to the
//! suite file's location. See [`slug`] for how names become folder names.
//!
//! # Load errors
//!
//! A suite that cannot be graded does not load: [`SuiteError`] lists every problem with its
//! file, line and column and what to do: YAML syntax, unknown keys (with a did-you-mean),
//! wrong types, a `stability:` block on a single run, a model-graded matcher (`llm-judge`,
//! `llm-jury`, `similar`) in a gating assertion, an `inject:` name no fault declares, a
//! malformed JSON Schema or regex, a gating assertion on the model's narration, and the other
//! mistakes [`AgentSpec::validate`] finds. An empty file, a file over 16 MiB or nesting deeper
//! than 24 levels is an error too, never a panic.
//!
//! ```
//! use mcptest_core::suite::Suite;
//!
//! let text = "\
//! agents:
//!   - name: invoice lookup stays read-only
//!     model: claude-sonnet-4-5
//!     expect:
//!       - target: tool_calls[0].name
//!         matcher: { exact: get_invoice }
//! ";
//! let suite = Suite::from_yaml_str("examples/oracle.yml", text)?;
//! let agent = &suite.agents[0];
//! assert_eq!(agent.model.as_deref(), Some("claude-sonnet-4-5"));
//! assert_eq!(
//!     agent.cassettes,
//!     ["cassettes/oracle/invoice-lookup-stays-read-only/claude-sonnet-4-5.json"]
//! );
//!
//! let err = Suite::from_yaml_str("bad.yml", "agents:\n  - name: a\n    model: m\n    trajectroy: {}\n")
//!     .unwrap_err();
//! assert_eq!((err.problems[0].line, err.problems[0].column), (4, 5));
//! assert!(err.to_string().contains("bad.yml:4:5: unknown key `trajectroy`"));
//! assert!(err.to_string().contains("did you mean `trajectory`?"));
//! # Ok::<(), mcptest_core::suite::SuiteError>(())
//! ```

mod decode;
mod paths;
mod replay;
mod server;

pub use crate::yaml::Pos;
pub use paths::{
    CASSETTE_DIR, default_cassette, model_file_stem, resolve_cassette, slug, suite_stem,
};
pub use replay::{
    PlannedCell, evaluate_cassette, grade_reliability, grade_run, grade_stability, grading_plan,
    stale_cassette_message,
};
pub use server::{
    HeaderTemplate, HttpServer, ServerConfig, ServerTransport, StdioServer, is_env_name,
};

use crate::spec::{AgentSpec, Fault};
use std::fmt;

/// The deepest nesting of lists and maps accepted. A suite needs about eight levels, plus what
/// a JSON Schema inside an assertion adds; the cap keeps the recursive decoding well inside a
/// test thread's stack.
const MAX_DEPTH: usize = 24;

/// The largest suite text accepted, in bytes (16 MiB).
pub const MAX_SUITE_BYTES: usize = 16 * 1024 * 1024;

/// A loaded suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The name the suite was loaded under (usually its file path).
    pub name: String,
    /// The stem of that name, which names the suite's cassette folder.
    pub stem: String,
    /// How to start or reach each MCP server, in the order written (recording only).
    pub servers: Vec<ServerConfig>,
    /// The declared faults, in the order written.
    pub faults: Vec<Fault>,
    /// The folders (paths relative to the suite's folder, or `file://` URIs) recording
    /// declares to every server as the client's roots (`roots:`).
    pub roots: Vec<String>,
    /// The agents, one spec per (agent, model), in the order written.
    pub agents: Vec<AgentSpec>,
}

impl Suite {
    /// Loads suite text. `name` (usually the file path) appears in every error and its stem
    /// names the cassette folder; nothing is read from disk.
    pub fn from_yaml_str(name: &str, text: &str) -> Result<Suite, SuiteError> {
        let stem = suite_stem(name);
        let err = |problems: Vec<Problem>| SuiteError {
            file: name.to_string(),
            problems,
        };
        let root = match decode::parse(text) {
            Ok(root) => root,
            Err((pos, message)) => {
                let mut d = decode::Decoder::new(text, stem);
                d.problem(pos, "", message);
                return Err(err(d.problems));
            }
        };
        let mut d = decode::Decoder::new(text, stem.clone());
        let decoded = d.suite(&root);
        let mut problems = d.problems;
        match decoded {
            Some(decoded) if problems.is_empty() => Ok(Suite {
                name: name.to_string(),
                stem,
                servers: decoded.servers,
                faults: decoded.faults,
                roots: decoded.roots,
                agents: decoded.agents,
            }),
            _ => {
                problems.sort_by_key(|p| (p.line, p.column));
                problems.dedup_by(|a, b| {
                    a.line == b.line && a.column == b.column && a.message == b.message
                });
                Err(err(problems))
            }
        }
    }

    /// The agents whose name, model or `name [model]` label contains `pattern`
    /// (case-insensitive); every agent for an empty pattern.
    pub fn filter<'a>(&'a self, pattern: &str) -> impl Iterator<Item = &'a AgentSpec> {
        let p = pattern.to_lowercase();
        self.agents.iter().filter(move |a| {
            p.is_empty() || cell_label(a).to_lowercase().contains(&p) || slug(&a.name).contains(&p)
        })
    }
}

/// A suite's text as a JSON document (maps keep the order written), for a tool that rewrites
/// a suite, such as `mcptest calibrate`. Parsed under the same limits as
/// [`Suite::from_yaml_str`]; comments are not part of the document.
///
/// ```
/// let doc = mcptest_core::suite::suite_document("s.yml", "agents:\n  - name: a # note\n    model: m\n").unwrap();
/// assert_eq!(doc["agents"][0]["name"], "a");
/// ```
pub fn suite_document(name: &str, text: &str) -> Result<serde_json::Value, SuiteError> {
    let err = |pos: Pos, message: String| {
        let mut d = decode::Decoder::new(text, suite_stem(name));
        d.problem(pos, "", message);
        SuiteError {
            file: name.to_string(),
            problems: d.problems,
        }
    };
    let root = decode::parse(text).map_err(|(pos, message)| err(pos, message))?;
    root.to_json().map_err(|e| {
        let pos = match &e {
            crate::yaml::NotJson::NonFinite { pos, .. }
            | crate::yaml::NotJson::CollectionKey { pos, .. } => *pos,
        };
        let what = match e {
            crate::yaml::NotJson::NonFinite { .. } => "a number that is not finite",
            crate::yaml::NotJson::CollectionKey { .. } => "a list or map used as a key",
        };
        err(
            pos,
            format!("this suite cannot be rewritten: it holds {what}"),
        )
    })
}

/// The label of an (agent, model) pair: `name [model]`.
pub fn cell_label(spec: &AgentSpec) -> String {
    match &spec.model {
        Some(m) => format!("{} [{m}]", spec.name),
        None => spec.name.clone(),
    }
}

/// One problem in a suite, at a line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field it is about (`agents[0].stability`), empty for the whole file.
    pub path: String,
    /// What is wrong and what to do.
    pub message: String,
    /// The source line, for the snippet under the message.
    pub source_line: String,
}

/// A suite that did not load: every problem found, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// The name the suite was loaded under.
    pub file: String,
    /// The problems, at least one.
    pub problems: Vec<Problem>,
}

impl SuiteError {
    /// An error about the whole file (it could not be read, for example).
    pub fn whole_file(file: &str, message: impl Into<String>) -> Self {
        SuiteError {
            file: file.to_string(),
            problems: vec![Problem {
                line: 1,
                column: 1,
                path: String::new(),
                message: message.into(),
                source_line: String::new(),
            }],
        }
    }
}

impl fmt::Display for SuiteError {
    /// `file:line:column: message`, the offending line with a caret under the column, for
    /// every problem.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, p.message)?;
            if !p.source_line.trim().is_empty() {
                let num = p.line.to_string();
                let pad = " ".repeat(num.len());
                let shown: String = p.source_line.chars().take(160).collect();
                let caret_at: String = shown
                    .chars()
                    .take(p.column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                write!(f, "\n{pad} |\n{num} | {shown}\n{pad} | {caret_at}^")?;
            }
        }
        if self.problems.len() > 1 {
            write!(f, "\n{} problems in {}", self.problems.len(), self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for SuiteError {}
