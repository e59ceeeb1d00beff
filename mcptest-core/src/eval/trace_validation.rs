//! Offline trace validation: did the agent call the right tools, with the right argument
//! shapes, in the right order?
//!
//! An [`ExpectedTrace`] is a list of [`ExpectedCall`]s (a tool name plus an argument shape,
//! [`ExpectedArgs`]) and a [`MatchMode`] that says how the reference lines up against the
//! recorded calls:
//!
//! | mode | passes when |
//! |---|---|
//! | `strict` (alias `exact_sequence`) | same length, every position matches, order matters, trailing extras fail |
//! | `subsequence` | every reference call appears in reference order; other calls may interleave |
//! | `unordered` | every reference call is matched to a distinct recorded call, any order; extras allowed |
//! | `superset` | same outcome as `unordered`; reads as "the reference is a lower bound" |
//! | `subset` | every recorded call is matched to a distinct reference call (no over-calling); fewer is fine |
//!
//! An empty reference passes every trace in every mode except `subset`, where it means "no calls
//! allowed" (only an empty trace passes).
//!
//! `unordered`, `superset` and `subset` are solved as a maximum bipartite matching, never
//! greedily: `[A(any), A{x:1}]` against `[A{x:1}, A{x:2}]` passes. Identical calls are grouped
//! first, so ten thousand calls to one tool cost one class, not ten thousand nodes.
//!
//! [`validate_trace`] returns `Err` only for a structural problem with the expectation (a
//! malformed JSON Schema), checked before any matching; a shape mismatch is `Ok` with
//! `passed == false` and one [`TraceMismatch`] per problem.
//!
//! ```
//! use mcptest_core::eval::{validate_trace, ExpectedCall, ExpectedTrace};
//! use mcptest_core::trace::ToolCall;
//! use serde_json::json;
//!
//! let calls = vec![
//!     ToolCall::new("login"),
//!     ToolCall::new("search").with_args(json!({"q": "rust", "limit": 5})),
//!     ToolCall::new("open").with_args(json!({"url": "https://doc.rust-lang.org"})),
//! ];
//! let expected = ExpectedTrace::subsequence(vec![
//!     ExpectedCall::by_name("search").args_subset(json!({"q": "rust"})),
//!     ExpectedCall::by_name("open"),
//! ]);
//! assert!(validate_trace(&calls, &expected)?.passed);
//!
//! let strict = ExpectedTrace::strict(vec![ExpectedCall::by_name("search")]);
//! let verdict = validate_trace(&calls, &strict)?;
//! assert!(!verdict.passed);
//! assert_eq!(verdict.mismatches[0].diffs[0].pointer, "/name");
//! # Ok::<(), mcptest_core::eval::ValidationError>(())
//! ```

use crate::diff::AssertionDiff;
use crate::json::{hash_value, json_eq};
use crate::matchers::{
    MatcherError, compiled_schema, contains, contains_diffs, exact_diffs, schema_diffs,
};
use crate::matching::{ClassGraph, expand, group, max_class_matching};
use crate::trace::ToolCall;
use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock};

pub mod credit;
mod greedy;
pub use credit::{EditOp, EditStep};

/// The argument shape an expected call pins.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ExpectedArgs {
    /// Arguments may be anything, including absent. Pins the name only.
    #[default]
    Any,
    /// Deliberately skip the arguments of this call (noisy or nondeterministic values).
    Ignore,
    /// The recorded arguments deep-equal this value (JSON number semantics).
    Exact(Value),
    /// The recorded arguments contain this value (object subset, multiset arrays).
    Subset(Value),
    /// The recorded arguments validate against this JSON Schema.
    Schema(Value),
}

/// One expected call: a tool name and an argument shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedCall {
    /// The tool name, without the `<server>__` wire prefix.
    pub name: String,
    /// The argument shape (default: `any`).
    #[serde(default)]
    pub args: ExpectedArgs,
}

impl ExpectedCall {
    /// A call of `name` with any arguments.
    pub fn by_name(name: impl Into<String>) -> Self {
        ExpectedCall {
            name: name.into(),
            args: ExpectedArgs::Any,
        }
    }
    /// The same call with these arguments exactly.
    pub fn args_exact(mut self, v: Value) -> Self {
        self.args = ExpectedArgs::Exact(v);
        self
    }
    /// The same call whose arguments contain `v`.
    pub fn args_subset(mut self, v: Value) -> Self {
        self.args = ExpectedArgs::Subset(v);
        self
    }
    /// The same call whose arguments validate against `schema`.
    pub fn args_schema(mut self, schema: Value) -> Self {
        self.args = ExpectedArgs::Schema(schema);
        self
    }
    /// The same call with its arguments deliberately ignored.
    pub fn args_ignore(mut self) -> Self {
        self.args = ExpectedArgs::Ignore;
        self
    }
}

impl fmt::Display for ExpectedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)?;
        match &self.args {
            ExpectedArgs::Any => Ok(()),
            ExpectedArgs::Ignore => write!(f, " (args ignored)"),
            ExpectedArgs::Exact(v) => write!(f, " with args exactly {v}"),
            ExpectedArgs::Subset(v) => write!(f, " with args containing {v}"),
            ExpectedArgs::Schema(_) => write!(f, " with args matching a schema"),
        }
    }
}

/// How the reference calls line up against the recorded calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchMode {
    /// One-for-one, in order, same length (YAML `strict`, `exact_sequence`, `exact-sequence`).
    Strict,
    /// Every reference call in order, interleaving allowed.
    Subsequence,
    /// Every reference call, any order, extras allowed.
    Unordered,
    /// Same outcome as `Unordered`; the reference is a lower bound.
    Superset,
    /// Every recorded call must be allowed by the reference (no over-calling).
    Subset,
}

/// The names a [`MatchMode`] may be written as (the rulebook's list).
pub use mcptest_rules::names::MODE_SPELLINGS as MATCH_MODE_NAMES;

impl MatchMode {
    /// The five modes, ordered from strictest to loosest order.
    pub const ALL: [MatchMode; 5] = [
        MatchMode::Strict,
        MatchMode::Subsequence,
        MatchMode::Unordered,
        MatchMode::Superset,
        MatchMode::Subset,
    ];

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMode::Strict => "strict",
            MatchMode::Subsequence => "subsequence",
            MatchMode::Unordered => "unordered",
            MatchMode::Superset => "superset",
            MatchMode::Subset => "subset",
        }
    }
}

impl fmt::Display for MatchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for MatchMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match mcptest_rules::names::mode(s) {
            Some("strict") => MatchMode::Strict,
            Some("subsequence") => MatchMode::Subsequence,
            Some("unordered") => MatchMode::Unordered,
            Some("superset") => MatchMode::Superset,
            Some(_) => MatchMode::Subset,
            None => {
                return Err(mcptest_rules::mistakes::unknown(
                    "match mode",
                    s,
                    MATCH_MODE_NAMES,
                ));
            }
        })
    }
}

impl Serialize for MatchMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MatchMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

/// A reference call list and the mode that lines it up against the recorded calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedTrace {
    /// The match mode.
    pub mode: MatchMode,
    /// The reference calls.
    #[serde(default)]
    pub calls: Vec<ExpectedCall>,
}

impl ExpectedTrace {
    /// An expectation in `mode` (any list of calls: a `Vec`, an array, an iterator).
    pub fn new(mode: MatchMode, calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        ExpectedTrace {
            mode,
            calls: calls.into_iter().collect(),
        }
    }
    /// `strict`: one-for-one, in order.
    pub fn strict(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Strict, calls)
    }
    /// `exact_sequence`: the original name of `strict`.
    pub fn exact_sequence(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Strict, calls)
    }
    /// `subsequence`: in order, interleaving allowed.
    pub fn subsequence(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Subsequence, calls)
    }
    /// `unordered`: any order, extras allowed.
    pub fn unordered(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Unordered, calls)
    }
    /// `superset`: the reference is a lower bound.
    pub fn superset(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Superset, calls)
    }
    /// `subset`: no call beyond the reference.
    pub fn subset(calls: impl IntoIterator<Item = ExpectedCall>) -> Self {
        Self::new(MatchMode::Subset, calls)
    }
}

/// The verdict of [`validate_trace`], with partial credit and, for a failing ordered mode, the
/// edit script that would make it pass (see [`credit`] for the formulas).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceValidation {
    /// True when every constraint of the mode held.
    pub passed: bool,
    /// One entry per problem; empty on a pass.
    pub mismatches: Vec<TraceMismatch>,
    /// Reference calls paired with recorded calls, as the mode forms pairs.
    #[serde(default)]
    pub matched: usize,
    /// `matched / recorded calls` (1.0 with no recorded call).
    #[serde(default)]
    pub precision: f64,
    /// `matched / reference calls` (1.0 with an empty reference).
    #[serde(default)]
    pub recall: f64,
    /// The F1 of precision and recall: 1.0 exactly when every call on both sides is paired.
    #[serde(default)]
    pub score: f64,
    /// For a failing `strict` or `subsequence` trajectory, the shortest steps that turn the
    /// recorded calls into a passing sequence; empty otherwise.
    #[serde(default)]
    pub edits: Vec<EditStep>,
    /// False when the trace was too long for the shortest script and `edits` is a valid but
    /// possibly longer one.
    #[serde(default = "yes")]
    pub edits_minimal: bool,
}

fn yes() -> bool {
    true
}

/// One problem found by [`validate_trace`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceMismatch {
    /// The reference call concerned (`None` for a recorded call the reference has no place for).
    pub expected_index: Option<usize>,
    /// The recorded call looked at (`None` when the trace ran out or has no candidate).
    pub recorded_index: Option<usize>,
    /// Diffs with pointers into the recorded call (`/name`, `/args/city`).
    pub diffs: Vec<AssertionDiff>,
    /// One line a person can act on.
    pub reason: String,
}

/// A structural problem with an expectation (it cannot decide anything).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    /// The reference call whose argument shape is broken.
    pub expected_index: usize,
    /// Its tool name.
    pub name: String,
    /// What is broken.
    pub error: MatcherError,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected call #{} (`{}`): {}",
            self.expected_index, self.name, self.error
        )
    }
}

impl std::error::Error for ValidationError {}

/// An argument shape ready to run (schemas compiled).
enum ArgCheck<'a> {
    Pass,
    Exact(&'a Value),
    Subset(&'a Value),
    Schema(Arc<jsonschema::Validator>),
}

static EMPTY_ARGS: LazyLock<Value> = LazyLock::new(|| Value::Object(Map::new()));

/// A call's arguments; absent arguments read as `{}`.
fn args_of(call: &ToolCall) -> &Value {
    call.args.as_ref().unwrap_or(&EMPTY_ARGS)
}

impl ArgCheck<'_> {
    fn passes(&self, args: &Value) -> bool {
        match self {
            ArgCheck::Pass => true,
            ArgCheck::Exact(v) => json_eq(v, args),
            ArgCheck::Subset(v) => contains(v, args),
            ArgCheck::Schema(s) => s.is_valid(args),
        }
    }

    fn diffs(&self, args: &Value) -> Vec<AssertionDiff> {
        let d = match self {
            ArgCheck::Pass => vec![],
            ArgCheck::Exact(v) => exact_diffs(v, args),
            ArgCheck::Subset(v) => contains_diffs(v, args),
            ArgCheck::Schema(s) => schema_diffs(s, args),
        };
        d.into_iter().map(|d| d.under("/args")).collect()
    }
}

/// Compiles every argument shape; a schema is compiled once per process and shared
/// ([`compiled_schema`]).
fn compile(expected: &ExpectedTrace) -> Result<Vec<ArgCheck<'_>>, ValidationError> {
    expected
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Ok(match &c.args {
                ExpectedArgs::Any | ExpectedArgs::Ignore => ArgCheck::Pass,
                ExpectedArgs::Exact(v) => ArgCheck::Exact(v),
                ExpectedArgs::Subset(v) => ArgCheck::Subset(v),
                ExpectedArgs::Schema(s) => {
                    ArgCheck::Schema(compiled_schema(s).map_err(|e| ValidationError {
                        expected_index: i,
                        name: c.name.clone(),
                        error: MatcherError::Schema(e),
                    })?)
                }
            })
        })
        .collect()
}

/// Diffs of a recorded call against an expected call: `/name` when the names differ, else the
/// argument diffs under `/args`.
fn call_diffs(exp: &ExpectedCall, check: &ArgCheck<'_>, rec: &ToolCall) -> Vec<AssertionDiff> {
    if exp.name != rec.name {
        return vec![AssertionDiff::new(
            "/name",
            Some(Value::String(exp.name.clone())),
            Some(Value::String(rec.name.clone())),
            format!("expected tool `{}`, recorded `{}`", exp.name, rec.name),
        )];
    }
    check.diffs(args_of(rec))
}

fn call_passes(exp: &ExpectedCall, check: &ArgCheck<'_>, rec: &ToolCall) -> bool {
    exp.name == rec.name && check.passes(args_of(rec))
}

/// Validates the recorded `calls` against `expected`.
///
/// Every schema in the expectation is compiled first: a malformed one is `Err` even when the
/// trace is empty or the call is never reached. See the [module docs](self) for the modes.
pub fn validate_trace(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
) -> Result<TraceValidation, ValidationError> {
    let checks = compile(expected)?;
    let mut matched = None;
    let mismatches = if expected.calls.is_empty() {
        if expected.mode == MatchMode::Subset {
            calls
                .iter()
                .enumerate()
                .map(|(j, c)| TraceMismatch {
                    expected_index: None,
                    recorded_index: Some(j),
                    diffs: vec![unexpected_call_diff(c)],
                    reason: format!(
                        "recorded call #{j} `{}` is not allowed: the subset reference is empty \
                         (no calls allowed)",
                        c.name
                    ),
                })
                .collect()
        } else {
            Vec::new()
        }
    } else {
        match expected.mode {
            MatchMode::Strict => strict(calls, expected, &checks),
            MatchMode::Subsequence => subsequence(calls, expected, &checks),
            MatchMode::Unordered | MatchMode::Superset => {
                let (out, m) = unordered(calls, expected, &checks);
                matched = Some(m);
                out
            }
            MatchMode::Subset => {
                let (out, m) = subset(calls, expected, &checks);
                matched = Some(m);
                out
            }
        }
    };
    let passed = mismatches.is_empty();
    let ordered = matches!(expected.mode, MatchMode::Strict | MatchMode::Subsequence);
    let (mut edits, mut edits_minimal) = (Vec::new(), true);
    let matched = match matched {
        Some(m) => m,
        // A passing ordered mode pairs every reference call.
        None if passed => expected.calls.len(),
        None if expected.calls.is_empty() => 0,
        None => {
            debug_assert!(ordered, "the unordered modes count their own pairs");
            let x = credit::explain(
                calls,
                &expected.calls,
                &checks,
                expected.mode == MatchMode::Strict,
            );
            (edits, edits_minimal) = (x.edits, x.minimal);
            x.matched
        }
    };
    let (precision, recall, score) = credit::f1(matched, calls.len(), expected.calls.len());
    Ok(TraceValidation {
        passed,
        mismatches,
        matched,
        precision,
        recall,
        score,
        edits,
        edits_minimal,
    })
}

fn unexpected_call_diff(c: &ToolCall) -> AssertionDiff {
    AssertionDiff::new(
        "/name",
        None,
        Some(Value::String(c.name.clone())),
        format!("unexpected call `{}`", c.name),
    )
}

fn missing_call_diff(e: &ExpectedCall) -> AssertionDiff {
    AssertionDiff::new(
        "/name",
        Some(Value::String(e.name.clone())),
        None,
        format!("no recorded call `{}`", e.name),
    )
}

fn strict(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
    checks: &[ArgCheck<'_>],
) -> Vec<TraceMismatch> {
    let n = expected.calls.len();
    let mut out = Vec::new();
    for i in 0..n.max(calls.len()) {
        match (expected.calls.get(i).zip(checks.get(i)), calls.get(i)) {
            (Some((e, check)), Some(r)) => {
                if call_passes(e, check, r) {
                    continue; // the cheap check first; diffs only for a mismatch
                }
                let diffs = call_diffs(e, check, r);
                if !diffs.is_empty() {
                    let reason = if e.name != r.name {
                        format!("position {i}: expected {e}, recorded `{}`", r.name)
                    } else {
                        format!(
                            "position {i}: `{}` was called with the wrong arguments",
                            e.name
                        )
                    };
                    out.push(TraceMismatch {
                        expected_index: Some(i),
                        recorded_index: Some(i),
                        diffs,
                        reason,
                    });
                }
            }
            (Some((e, _)), None) => out.push(TraceMismatch {
                expected_index: Some(i),
                recorded_index: None,
                diffs: vec![missing_call_diff(e)],
                reason: format!(
                    "the trace ran out after {} call(s): expected {e} at position {i}",
                    calls.len()
                ),
            }),
            (None, Some(r)) => out.push(TraceMismatch {
                expected_index: None,
                recorded_index: Some(i),
                diffs: vec![unexpected_call_diff(r)],
                reason: format!(
                    "extra recorded call #{i} `{}`: strict mode expects exactly {n} call(s)",
                    r.name
                ),
            }),
            (None, None) => unreachable!("loop bound is the longer list"),
        }
    }
    out
}

fn positions_by_name(calls: &[ToolCall]) -> HashMap<&str, Vec<usize>> {
    let mut m: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, c) in calls.iter().enumerate() {
        m.entry(c.name.as_str()).or_default().push(j);
    }
    m
}

fn subsequence(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
    checks: &[ArgCheck<'_>],
) -> Vec<TraceMismatch> {
    // One forward scan settles a passing trace without an index: the earliest acceptable call
    // is always the best choice, and the scan never moves back.
    let mut next = 0usize;
    let in_order = expected.calls.iter().zip(checks).all(|(e, check)| {
        let found = calls[next..].iter().position(|c| call_passes(e, check, c));
        found.inspect(|k| next += k + 1).is_some()
    });
    if in_order {
        return Vec::new();
    }
    let by_name = positions_by_name(calls);
    let empty = Vec::new();
    let mut next = 0usize; // first recorded index still free
    let mut out = Vec::new();
    for (i, e) in expected.calls.iter().enumerate() {
        let positions = by_name.get(e.name.as_str()).unwrap_or(&empty);
        let start = positions.partition_point(|&j| j < next);
        let found = positions[start..]
            .iter()
            .copied()
            .find(|&j| checks[i].passes(args_of(&calls[j])));
        if let Some(j) = found {
            next = j + 1;
            continue;
        }
        let mismatch = match positions.get(start) {
            Some(&j) => TraceMismatch {
                expected_index: Some(i),
                recorded_index: Some(j),
                diffs: call_diffs(e, &checks[i], &calls[j]),
                reason: format!(
                    "expected {e} (reference #{i}); no call to `{}` at or after recorded #{next} \
                     has matching arguments (showing recorded #{j})",
                    e.name
                ),
            },
            None => {
                let earlier = positions.last().copied();
                TraceMismatch {
                    expected_index: Some(i),
                    recorded_index: None,
                    diffs: vec![missing_call_diff(e)],
                    reason: match earlier {
                        Some(j) => format!(
                            "the trace ran out: expected {e} (reference #{i}) after recorded \
                             #{}, but `{}` was only called earlier (last at recorded #{j}): out \
                             of order",
                            next.saturating_sub(1),
                            e.name
                        ),
                        None => format!(
                            "the trace ran out: expected {e} (reference #{i}) but `{}` was never \
                             called",
                            e.name
                        ),
                    },
                }
            }
        };
        out.push(mismatch);
    }
    out
}

/// Maximum matching of expected calls to distinct recorded calls; `assignment[i]` is the
/// recorded index given to expected call `i`.
///
/// A greedy pairing that covers every call of the side the mode needs covered (reference calls
/// with `cover_expected`, recorded calls otherwise) is already maximum and is taken as it is
/// ([`greedy::cover`]); only otherwise is the class graph built.
///
/// Identical expected calls and identical recorded calls are grouped into classes first (by a
/// structural hash, verified by equality). Edges are then found without testing every pair
/// where the shape allows it: `any`/`ignore` join every recorded class of the name, `exact` is a
/// hash lookup, `subset` looks candidates up by one of its scalar keys; only `schema` (and
/// `subset` with no scalar key) test each candidate of the name.
fn match_calls(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
    checks: &[ArgCheck<'_>],
    cover_expected: bool,
) -> Vec<Option<usize>> {
    if let Some(assignment) = greedy::cover(calls, &expected.calls, checks, cover_expected) {
        return assignment;
    }
    let c = classes(calls, &expected.calls, checks);
    let g = ClassGraph {
        left: c.expected.iter().map(Vec::len).collect(),
        right: c.recorded.iter().map(Vec::len).collect(),
        edges: c.edges,
    };
    expand(
        &max_class_matching(&g),
        &c.expected,
        &c.recorded,
        expected.calls.len(),
    )
}

/// Expected and recorded calls grouped into classes of identical calls, and which recorded
/// classes each expected class accepts.
pub(super) struct Classes {
    /// Expected call indices per expected class.
    pub expected: Vec<Vec<usize>>,
    /// Recorded call indices per recorded class.
    pub recorded: Vec<Vec<usize>>,
    /// `edges[c]`: the recorded classes expected class `c` accepts.
    pub edges: Vec<Vec<usize>>,
}

/// Groups the calls and finds the accepted pairs (see [`match_calls`] for how edges are found
/// without testing every pair).
fn classes(calls: &[ToolCall], expected: &[ExpectedCall], checks: &[ArgCheck<'_>]) -> Classes {
    let e_members = group(
        expected,
        |i| {
            let c = &expected[i];
            let h = match &c.args {
                ExpectedArgs::Any | ExpectedArgs::Ignore => 0,
                ExpectedArgs::Exact(v) => hash_value(v) ^ 1,
                ExpectedArgs::Subset(v) => hash_value(v) ^ 2,
                ExpectedArgs::Schema(v) => hash_value(v) ^ 3,
            };
            (c.name.as_str(), h)
        },
        |a, b| {
            a.name == b.name
                && match (&a.args, &b.args) {
                    (
                        ExpectedArgs::Any | ExpectedArgs::Ignore,
                        ExpectedArgs::Any | ExpectedArgs::Ignore,
                    ) => true,
                    (ExpectedArgs::Exact(x), ExpectedArgs::Exact(y))
                    | (ExpectedArgs::Subset(x), ExpectedArgs::Subset(y))
                    | (ExpectedArgs::Schema(x), ExpectedArgs::Schema(y)) => json_eq(x, y),
                    _ => false,
                }
        },
    );
    let r_hash: Vec<u64> = calls.iter().map(|c| hash_value(args_of(c))).collect();
    let r_members = group(
        calls,
        |j| (calls[j].name.as_str(), r_hash[j]),
        |a, b| a.name == b.name && json_eq(args_of(a), args_of(b)),
    );
    let rep_args = |d: usize| args_of(&calls[r_members[d][0]]);
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_hash: HashMap<(&str, u64), Vec<usize>> = HashMap::new();
    for (d, m) in r_members.iter().enumerate() {
        let name = calls[m[0]].name.as_str();
        by_name.entry(name).or_default().push(d);
        by_hash.entry((name, r_hash[m[0]])).or_default().push(d);
    }
    // (name, key) -> hash of a scalar value -> recorded classes; built on first use.
    let mut scalar_index: HashMap<(&str, &str), HashMap<u64, Vec<usize>>> = HashMap::new();
    let no_classes: Vec<usize> = Vec::new();

    let edges = e_members
        .iter()
        .map(|m| {
            let i = m[0];
            let name = expected[i].name.as_str();
            let same_name = by_name.get(name).unwrap_or(&no_classes);
            let candidates: &[usize] = match &checks[i] {
                ArgCheck::Pass => return same_name.clone(),
                ArgCheck::Exact(v) => by_hash.get(&(name, hash_value(v))).unwrap_or(&no_classes),
                ArgCheck::Subset(Value::Object(want)) => {
                    let scalar = want
                        .iter()
                        .find(|(_, v)| !matches!(v, Value::Array(_) | Value::Object(_)));
                    match scalar {
                        Some((key, value)) => scalar_index
                            .entry((name, key.as_str()))
                            .or_insert_with(|| {
                                let mut idx: HashMap<u64, Vec<usize>> = HashMap::new();
                                for &d in same_name {
                                    if let Some(v) = rep_args(d).get(key.as_str()) {
                                        idx.entry(hash_value(v)).or_default().push(d);
                                    }
                                }
                                idx
                            })
                            .get(&hash_value(value))
                            .unwrap_or(&no_classes),
                        None => same_name,
                    }
                }
                _ => same_name,
            };
            candidates
                .iter()
                .copied()
                .filter(|&d| checks[i].passes(rep_args(d)))
                .collect()
        })
        .collect();
    Classes {
        expected: e_members,
        recorded: r_members,
        edges,
    }
}

fn unordered(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
    checks: &[ArgCheck<'_>],
) -> (Vec<TraceMismatch>, usize) {
    let assignment = match_calls(calls, expected, checks, true);
    let matched = assignment.iter().flatten().count();
    if matched == expected.calls.len() {
        return (Vec::new(), matched);
    }
    let mut used = vec![false; calls.len()];
    assignment.iter().flatten().for_each(|&j| used[j] = true);
    let by_name = positions_by_name(calls);
    let mut out = Vec::new();
    for (i, e) in expected.calls.iter().enumerate() {
        if assignment[i].is_some() {
            continue;
        }
        let same = by_name.get(e.name.as_str());
        // Show the closest candidate: an unused call of the same name, else any of that name.
        let candidate =
            same.and_then(|p| p.iter().copied().find(|&j| !used[j]).or(p.first().copied()));
        out.push(match candidate {
            Some(j) => {
                let mut diffs = call_diffs(e, &checks[i], &calls[j]);
                let all_taken = same.is_some_and(|p| p.iter().all(|&k| used[k]));
                let reason = if diffs.is_empty() || all_taken {
                    let n = same.map_or(0, Vec::len);
                    if diffs.is_empty() {
                        diffs.push(missing_call_diff(e));
                    }
                    format!(
                        "expected {e} (reference #{i}) has no distinct recorded call left: all \
                         {n} call(s) to `{}` are matched to other reference calls",
                        e.name
                    )
                } else {
                    format!(
                        "expected {e} (reference #{i}); no recorded call to `{}` has matching \
                         arguments (showing recorded #{j})",
                        e.name
                    )
                };
                TraceMismatch {
                    expected_index: Some(i),
                    recorded_index: Some(j),
                    diffs,
                    reason,
                }
            }
            None => TraceMismatch {
                expected_index: Some(i),
                recorded_index: None,
                diffs: vec![missing_call_diff(e)],
                reason: format!(
                    "expected {e} (reference #{i}) but `{}` was never called",
                    e.name
                ),
            },
        });
    }
    (out, matched)
}

fn subset(
    calls: &[ToolCall],
    expected: &ExpectedTrace,
    checks: &[ArgCheck<'_>],
) -> (Vec<TraceMismatch>, usize) {
    let assignment = match_calls(calls, expected, checks, false);
    let mut matched = vec![false; calls.len()];
    assignment.iter().flatten().for_each(|&j| matched[j] = true);
    let mut out = Vec::new();
    for (j, c) in calls.iter().enumerate() {
        if matched[j] {
            continue;
        }
        let same: Vec<usize> = (0..expected.calls.len())
            .filter(|&i| expected.calls[i].name == c.name)
            .collect();
        let accepting: Vec<usize> = same
            .iter()
            .copied()
            .filter(|&i| call_passes(&expected.calls[i], &checks[i], c))
            .collect();
        out.push(if let Some(&i) = accepting.first() {
            TraceMismatch {
                expected_index: Some(i),
                recorded_index: Some(j),
                diffs: vec![unexpected_call_diff(c)],
                reason: format!(
                    "over-calling: recorded call #{j} `{}` is one call too many (the reference \
                     allows {} matching call(s), each used once)",
                    c.name,
                    accepting.len()
                ),
            }
        } else if let Some(&i) = same.first() {
            TraceMismatch {
                expected_index: Some(i),
                recorded_index: Some(j),
                diffs: call_diffs(&expected.calls[i], &checks[i], c),
                reason: format!(
                    "recorded call #{j} `{}` has arguments no reference call allows (showing \
                     reference #{i})",
                    c.name
                ),
            }
        } else {
            TraceMismatch {
                expected_index: None,
                recorded_index: Some(j),
                diffs: vec![unexpected_call_diff(c)],
                reason: format!(
                    "recorded call #{j} `{}` is not in the reference (subset mode allows only \
                     reference calls)",
                    c.name
                ),
            }
        });
    }
    (out, assignment.iter().flatten().count())
}

impl fmt::Display for TraceMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let idx = |i: Option<usize>| i.map_or("-".to_string(), |i| format!("#{i}"));
        write!(
            f,
            "expected {} / recorded {}: {}",
            idx(self.expected_index),
            idx(self.recorded_index),
            self.reason
        )?;
        for d in &self.diffs {
            write!(f, "\n    {d}")?;
        }
        Ok(())
    }
}

impl fmt::Display for TraceValidation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let credit = format!(
            "score {:.3}, precision {:.3}, recall {:.3}",
            self.score, self.precision, self.recall
        );
        if self.passed {
            return write!(f, "trajectory: PASS ({credit})");
        }
        write!(
            f,
            "trajectory: FAIL ({} mismatch(es); {credit})",
            self.mismatches.len()
        )?;
        for m in &self.mismatches {
            write!(f, "\n  {m}")?;
        }
        for line in self.explanation() {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

impl TraceValidation {
    /// The edit script as report lines: a heading (`to pass, 2 edit(s):`, noting when the
    /// trace was too long for the shortest script), then each numbered step and its diffs;
    /// empty when there is no script.
    pub fn explanation(&self) -> Vec<String> {
        if self.edits.is_empty() {
            return Vec::new();
        }
        let mut out = vec![if self.edits_minimal {
            format!("to pass, {} edit(s):", self.edits.len())
        } else {
            format!(
                "to pass, {} edit(s) (a valid script; the trace is too long for the shortest):",
                self.edits.len()
            )
        }];
        for (k, e) in self.edits.iter().enumerate() {
            out.extend(format!("  {}. {e}", k + 1).lines().map(str::to_string));
        }
        out
    }
}

// serde for ExpectedArgs: `any` | `ignore` | {exact: V} | {subset: V} | {schema: S}

impl Serialize for ExpectedArgs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (key, v) = match self {
            ExpectedArgs::Any => return s.serialize_str("any"),
            ExpectedArgs::Ignore => return s.serialize_str("ignore"),
            ExpectedArgs::Exact(v) => ("exact", v),
            ExpectedArgs::Subset(v) => ("subset", v),
            ExpectedArgs::Schema(v) => ("schema", v),
        };
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(key, v)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for ExpectedArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use mcptest_rules::{mistakes::unknown, names::SHAPES};
        let v = Value::deserialize(d)?;
        match v {
            Value::Null => Ok(ExpectedArgs::Any),
            Value::String(s) => match s.as_str() {
                "any" => Ok(ExpectedArgs::Any),
                "ignore" => Ok(ExpectedArgs::Ignore),
                other => Err(de::Error::custom(unknown("argument shape", other, SHAPES))),
            },
            Value::Object(m) if m.len() == 1 => {
                let (k, v) = m.into_iter().next().expect("one entry");
                match k.as_str() {
                    "exact" => Ok(ExpectedArgs::Exact(v)),
                    "subset" | "contains" => Ok(ExpectedArgs::Subset(v)),
                    "schema" => Ok(ExpectedArgs::Schema(v)),
                    other => Err(de::Error::custom(unknown("argument shape", other, SHAPES))),
                }
            }
            _ => Err(de::Error::custom(
                "argument shape must be `any`, `ignore`, or a map with one key: \
                 `{exact: ...}`, `{subset: ...}` or `{schema: ...}`",
            )),
        }
    }
}
