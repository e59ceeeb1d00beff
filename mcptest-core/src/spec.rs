//! What an agent is expected to do: the one model the Rust builder, the `#[mcptest::agent]`
//! attribute and YAML suites all produce.
//!
//! An [`AgentSpec`] names the agent, where its cassettes are, how many runs it asks for, and its
//! **gates**: trajectory, golden path, trajectory axes, narrative and recovery (per run),
//! stability and reliability (across runs), and free `expect` assertions (a [`Target`] and a
//! [`Matcher`]). [`AgentSpec::validate`] finds every mistake a spec can hold before anything is
//! evaluated; [`crate::gate`] evaluates a valid spec against recorded runs.
//!
//! ```
//! use mcptest_core::spec::{AgentSpec, Expectation, StabilityGate};
//! use mcptest_core::eval::{ExpectedCall, ExpectedTrace};
//! use mcptest_core::matchers::Matcher;
//! use serde_json::json;
//!
//! let spec = AgentSpec::new("weather")
//!     .cassettes(["tests/cassettes/weather/*.json"])
//!     .runs(3)
//!     .trajectory(ExpectedTrace::subsequence(vec![
//!         ExpectedCall::by_name("get_weather").args_subset(json!({"city": "Sacramento"})),
//!     ]))
//!     .stability(StabilityGate::default())
//!     .expect(Expectation::new("tool_results[0].is_error", Matcher::exact(json!(false)))?);
//! assert!(spec.validate().is_empty());
//!
//! let single = AgentSpec::new("once").stability(StabilityGate::default());
//! assert!(single.validate()[0].message.contains("runs"));
//! # Ok::<(), mcptest_core::select::TargetError>(())
//! ```

use crate::eval::{
    ExpectedArgs, ExpectedTrace, GoldenPath, NarrativeConfig, RecoveryBudget, TrajectoryAxes,
};
use crate::matchers::{Matcher, MatcherError};
use crate::select::{Target, TargetError};
pub use mcptest_rules::mistakes::{Front, Mistake, Place};
use mcptest_rules::{gates, mistakes};
use serde::{Serialize, Serializer};
use std::fmt;

/// One agent's declaration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentSpec {
    /// The agent's name (a Rust function path or a suite's `name:`).
    pub name: String,
    /// The model the cassettes were recorded with (suite metadata).
    pub model: Option<String>,
    /// The prompt (suite metadata; recording uses it).
    pub prompt: Option<String>,
    /// The system prompt recording sends before the servers' instructions (the agent's
    /// `system:`, else its suite's).
    pub system: Option<String>,
    /// The MCP servers the agent uses (suite metadata).
    pub servers: Vec<String>,
    /// Runs asked for; `None` means 1.
    pub runs: Option<u32>,
    /// Turn limit for recording.
    pub max_turns: Option<u32>,
    /// Token limit per model response for recording.
    pub max_tokens: Option<u32>,
    /// How recording executes the tool calls of one model reply.
    pub parallel_calls: ParallelCalls,
    /// Cassette paths or glob patterns.
    pub cassettes: Vec<String>,
    /// The call plan.
    pub trajectory: Option<ExpectedTrace>,
    /// The ideal path and waste policy.
    pub golden_path: Option<GoldenPath>,
    /// Data-flow edges.
    pub trajectory_axes: Option<TrajectoryAxes>,
    /// The cross-run stability gate.
    pub stability: Option<StabilityGate>,
    /// The narrative-vs-trace gate.
    pub narrative: Option<NarrativeGate>,
    /// Faults injected while recording (names of suite `faults:`), resolved.
    pub inject: Vec<Fault>,
    /// The recovery gate.
    pub recovery: Option<RecoveryBudget>,
    /// The reliability gate over the runs' verdicts.
    pub reliability: Option<ReliabilityGate>,
    /// Free assertions on a run (targets into the trace or into per-run gate reports).
    pub expect: Vec<Expectation>,
    /// Whether the harness keeps a snapshot of each cell's report (default true).
    pub snapshots: bool,
}

/// How recording executes the tool calls the model asks for in one reply (`parallel_calls:`).
/// Either way the cassette keeps them in the model's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParallelCalls {
    /// All at once, as most agent loops do (the default).
    #[default]
    Concurrent,
    /// One at a time, in the model's order, each sent when the previous one answered: for
    /// stateful servers where a later call depends on an earlier one's effect.
    Sequential,
}

impl ParallelCalls {
    /// Its name, as written in YAML and in a cassette's `meta`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParallelCalls::Concurrent => "concurrent",
            ParallelCalls::Sequential => "sequential",
        }
    }
}

impl AgentSpec {
    /// An agent with no gate yet and snapshots on.
    pub fn new(name: impl Into<String>) -> Self {
        AgentSpec {
            name: name.into(),
            snapshots: true,
            ..AgentSpec::default()
        }
    }
    /// Where the cassettes are (paths or globs).
    pub fn cassettes<S: Into<String>>(mut self, globs: impl IntoIterator<Item = S>) -> Self {
        self.cassettes = globs.into_iter().map(Into::into).collect();
        self
    }
    /// How many runs the agent asks for.
    pub fn runs(mut self, n: u32) -> Self {
        self.runs = Some(n);
        self
    }
    /// The call plan.
    pub fn trajectory(mut self, t: ExpectedTrace) -> Self {
        self.trajectory = Some(t);
        self
    }
    /// The golden path.
    pub fn golden_path(mut self, g: GoldenPath) -> Self {
        self.golden_path = Some(g);
        self
    }
    /// The trajectory axes.
    pub fn trajectory_axes(mut self, a: TrajectoryAxes) -> Self {
        self.trajectory_axes = Some(a);
        self
    }
    /// The stability gate.
    pub fn stability(mut self, s: StabilityGate) -> Self {
        self.stability = Some(s);
        self
    }
    /// The narrative gate.
    pub fn narrative(mut self, n: NarrativeGate) -> Self {
        self.narrative = Some(n);
        self
    }
    /// The recovery gate.
    pub fn recovery(mut self, r: RecoveryBudget) -> Self {
        self.recovery = Some(r);
        self
    }
    /// The reliability gate.
    pub fn reliability(mut self, r: ReliabilityGate) -> Self {
        self.reliability = Some(r);
        self
    }
    /// Adds a free assertion.
    pub fn expect(mut self, e: Expectation) -> Self {
        self.expect.push(e);
        self
    }

    /// The number of runs asked for (1 when unset).
    pub fn run_count(&self) -> u32 {
        self.runs.unwrap_or(1)
    }

    /// Every mistake in the spec, in declaration order; empty when it can be evaluated.
    /// Fixes are spelled as in a YAML suite; [`validate_for`](Self::validate_for) spells them
    /// for another front end.
    pub fn validate(&self) -> Vec<SpecError> {
        self.validate_for(Front::Yaml)
    }

    /// Every mistake in the spec, with each fix spelled for the front end that declared it.
    /// The rules and the words are the rulebook's ([`crate::rules::mistakes`]), so a YAML
    /// suite, the builder and the attribute report the same mistake the same way.
    pub fn validate_for(&self, front: Front) -> Vec<SpecError> {
        let mut errors = Vec::new();
        let mut err = |field: &str, kind: SpecErrorKind, message: String| {
            errors.push(SpecError {
                field: field.to_string(),
                kind,
                message,
            })
        };
        if self.runs == Some(0) {
            err("runs", SpecErrorKind::Runs, mistakes::runs_zero());
        }
        if let Some(t) = &self.trajectory {
            for (i, c) in t.calls.iter().enumerate() {
                if let ExpectedArgs::Schema(s) = &c.args
                    && let Err(e) = crate::matchers::compiled_schema(s)
                {
                    err(
                        &format!("trajectory.calls[{i}].args.schema"),
                        SpecErrorKind::MalformedSchema,
                        format!("malformed JSON Schema for `{}`: {e}", c.name),
                    );
                }
            }
        }
        if self.stability.is_some() && self.run_count() < 2 {
            err(
                "stability",
                SpecErrorKind::StabilityNeedsRuns,
                mistakes::stability_needs_runs(self.run_count(), front),
            );
        }
        if let Some(c) = self.narrative.as_ref().and_then(|n| n.max_divergence_score)
            && !(0.0..=1.0).contains(&c)
        {
            err(
                "narrative.max_divergence_score",
                SpecErrorKind::Ceiling,
                mistakes::unit_interval("max_divergence_score", Some(c)),
            );
        }
        if let Some(g) = &self.reliability {
            if let Some(p) = g.min_pass_rate
                && !(0.0..=1.0).contains(&p)
            {
                err(
                    "reliability.min_pass_rate",
                    SpecErrorKind::PassRate,
                    mistakes::pass_rate(Some(p)),
                );
            }
            if let Some(c) = g.confidence
                && !(c > 0.0 && c < 1.0)
            {
                err(
                    "reliability.confidence",
                    SpecErrorKind::PassRate,
                    mistakes::confidence(Some(c)),
                );
            }
            if g.min_pass_rate.is_none()
                && (g.confidence.is_some() || g.inconclusive != Inconclusive::Pass)
            {
                let field = if g.confidence.is_some() {
                    "reliability.confidence"
                } else {
                    "reliability.inconclusive"
                };
                err(
                    field,
                    SpecErrorKind::PassRate,
                    mistakes::pass_rate_qualifiers(front),
                );
            }
        }
        if self.recovery.is_some() && self.inject.is_empty() {
            err(
                "recovery",
                SpecErrorKind::RecoveryWithoutFault,
                mistakes::recovery_without_fault(front),
            );
        }
        let declared = |gate: &str| self.declares(gate);
        let per_gate = self.gate_expectations();
        let groups = std::iter::once((Place::PerRun, self.expect.as_slice()))
            .chain(per_gate.iter().map(|(g, list)| (Place::Gate(g), *list)));
        for (place, list) in groups {
            let field = match place {
                Place::PerRun => "expect".to_string(),
                Place::Gate(g) => format!("{g}.expect"),
            };
            for (i, e) in list.iter().enumerate() {
                let field = format!("{field}[{i}]");
                for (kind, message) in e.problems(front) {
                    err(&field, kind, message);
                }
                // The target is parsed already: check its steps, not its text again.
                if let Err(m) = mistakes::check_steps(
                    e.target.as_str(),
                    e.target.steps(),
                    place,
                    e.advisory,
                    Some(&declared),
                ) {
                    err(&field, SpecErrorKind::of(&m), m.message(front));
                }
            }
        }
        errors
    }

    /// True when the agent declares the gate whose key is `gate` (`trajectory_axes`).
    pub fn declares(&self, gate: &str) -> bool {
        match gate {
            "trajectory" => self.trajectory.is_some(),
            "trajectory_axes" => self.trajectory_axes.is_some(),
            "golden_path" => self.golden_path.is_some(),
            "narrative" => self.narrative.is_some(),
            "recovery" => self.recovery.is_some(),
            "stability" => self.stability.is_some(),
            "reliability" => self.reliability.is_some(),
            _ => false,
        }
    }

    /// The assertions of the gates that hold their own `expect:` lists.
    fn gate_expectations(&self) -> [(&'static str, &[Expectation]); 3] {
        [
            (
                "stability",
                self.stability.as_ref().map_or(&[], |g| &g.expect),
            ),
            (
                "narrative",
                self.narrative.as_ref().map_or(&[], |g| &g.expect),
            ),
            (
                "reliability",
                self.reliability.as_ref().map_or(&[], |g| &g.expect),
            ),
        ]
    }
}

/// A mistake in a spec: which field, what kind, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The offending field (`stability`, `expect[2]`, `trajectory.calls[0].args.schema`).
    pub field: String,
    /// The kind of mistake (a loader uses it to point at the right token).
    pub kind: SpecErrorKind,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// The kinds of [`SpecError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecErrorKind {
    /// `runs` is 0.
    Runs,
    /// A trajectory call's JSON Schema does not compile.
    MalformedSchema,
    /// A stability gate on fewer than two runs.
    StabilityNeedsRuns,
    /// `max_divergence_score` outside 0..=1.
    Ceiling,
    /// A `reliability:` pass-rate decision that cannot be made (`min_pass_rate` outside
    /// 0..=1, `confidence` outside (0, 1), or either qualifier without `min_pass_rate`).
    PassRate,
    /// A recovery gate with no injected fault.
    RecoveryWithoutFault,
    /// A model-graded matcher in a gating assertion.
    ModelGraded,
    /// A gating assertion whose target reads narration.
    NarrationTarget,
    /// A malformed schema or regex inside an assertion's matcher.
    MalformedMatcher,
    /// A cross-run target (`stability.*`, `reliability.*`) in a per-run `expect:`.
    CrossRunTarget,
    /// A target that reads the report of a gate the agent does not declare.
    UndeclaredGate,
    /// A target naming a metric its gate does not report.
    UnknownMetric,
    /// A target under a gate's `expect:` that does not read that gate's report.
    MisplacedTarget,
}

impl SpecErrorKind {
    /// The kind of a rulebook mistake.
    pub fn of(m: &Mistake) -> SpecErrorKind {
        match m {
            Mistake::Narration { .. } => SpecErrorKind::NarrationTarget,
            Mistake::CrossRunTarget { .. } => SpecErrorKind::CrossRunTarget,
            Mistake::UnknownMetric { .. } => SpecErrorKind::UnknownMetric,
            Mistake::UndeclaredGate { .. } => SpecErrorKind::UndeclaredGate,
            Mistake::MisplacedTarget { .. } => SpecErrorKind::MisplacedTarget,
            Mistake::ModelGraded { .. } => SpecErrorKind::ModelGraded,
            _ => SpecErrorKind::MalformedMatcher,
        }
    }
}

/// The metrics read under `report` (`trajectory`, `stability`), from the rulebook's gate
/// table ([`crate::rules::gates`]); empty when no gate writes that report.
pub fn gate_metrics(report: &str) -> Vec<&'static str> {
    gates::report_metrics(report)
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for SpecError {}

/// One assertion: the value a target selects must satisfy a matcher.
///
/// YAML: `{target: tool_calls[0].name, matcher: {exact: get_invoice}, advisory: false}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expectation {
    /// What to look at.
    #[serde(serialize_with = "ser_target")]
    pub target: Target,
    /// How to judge it.
    pub matcher: Matcher,
    /// An advisory assertion is reported and never decides the verdict.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub advisory: bool,
}

fn ser_target<S: Serializer>(t: &Target, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.as_str())
}

impl Expectation {
    /// A gating assertion.
    pub fn new(target: &str, matcher: Matcher) -> Result<Self, TargetError> {
        Ok(Expectation {
            target: Target::parse(target)?,
            matcher,
            advisory: false,
        })
    }

    /// The same assertion, advisory (reported, never gating).
    pub fn advisory(mut self) -> Self {
        self.advisory = true;
        self
    }

    /// What is wrong with this assertion's matcher: a model-graded matcher in a gating
    /// assertion, a malformed schema or regex. (Its target is checked where it is written, by
    /// [`AgentSpec::validate`].)
    pub fn problems(&self, front: Front) -> Vec<(SpecErrorKind, String)> {
        let mut out = Vec::new();
        if !self.advisory
            && let Some(kind) = self.matcher.model_graded()
        {
            let m = Mistake::ModelGraded {
                key: kind.key().into(),
            };
            out.push((SpecErrorKind::ModelGraded, m.message(front)));
        }
        if let Err(e) = self.matcher.validate()
            && !matches!(e, MatcherError::ModelGraded(_))
        {
            out.push((SpecErrorKind::MalformedMatcher, e.to_string()));
        }
        out
    }
}

/// True when a target selects the model's prose: `final_response`, a turn's `content`, or a
/// container holding them (`conversation`, `conversation.turns[0]`, the whole run); the
/// rulebook's rule ([`crate::rules::target::reads_narration`]).
pub fn reads_narration(target: &Target) -> bool {
    mcptest_rules::target::reads_narration(target.steps())
}

/// The cross-run stability gate (`stability:`).
///
/// With no `expect`, the default gate is `stability.weakest_score >= 0.5`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct StabilityGate {
    /// Assertions on `stability.*` targets; empty = the default gate.
    pub expect: Vec<Expectation>,
}

/// The narrative-vs-trace gate (`narrative:`).
///
/// With no `expect`, the default gate fails on any claimed-but-absent mutating action;
/// `max_divergence_score` adds a ceiling either way.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct NarrativeGate {
    /// Tool names always treated as writes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mutating_tools: Vec<String>,
    /// Tool names never treated as writes (wins over `mutating_tools`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readonly_tools: Vec<String>,
    /// Fail when the divergence score exceeds this (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_divergence_score: Option<f64>,
    /// Advisory, model-assisted signal; never changes the verdict.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub llm_assisted: bool,
    /// Assertions on `narrative.*` targets; empty = the default gate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expectation>,
}

impl NarrativeGate {
    /// The checker's configuration.
    pub fn config(&self) -> NarrativeConfig {
        NarrativeConfig {
            mutating_tools: self.mutating_tools.clone(),
            readonly_tools: self.readonly_tools.clone(),
            max_divergence_score: self.max_divergence_score,
            llm_assisted: self.llm_assisted,
        }
    }
}

/// The reliability gate over the runs' verdicts (`reliability:`).
///
/// With `min_pass_rate`, the gate decides by the Wilson score interval of the pass rate
/// ([`decide_pass_rate`](crate::eval::decide_pass_rate)): pass, fail, or **inconclusive**
/// when the runs cannot tell (which passes unless `inconclusive` is [`Inconclusive::Fail`]).
/// With neither `min_pass_rate` nor `expect`, the default gate is
/// `reliability.pass_at_k >= 100` (at least one run passed every per-run gate); assert
/// `reliability.passhat_k` for "every run passed".
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ReliabilityGate {
    /// Assertions on `reliability.*` targets.
    pub expect: Vec<Expectation>,
    /// The pass rate the runs must support, in 0..=1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_pass_rate: Option<f64>,
    /// The confidence of the interval (default 0.95).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// What an inconclusive verdict does to the cell.
    pub inconclusive: Inconclusive,
}

impl ReliabilityGate {
    /// The confidence the interval is computed at: `confidence`, else 0.95.
    pub fn confidence(&self) -> f64 {
        self.confidence.unwrap_or(0.95)
    }
}

/// What an inconclusive pass-rate verdict does (`inconclusive:` in a `reliability:` block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Inconclusive {
    /// Reported as inconclusive; the cell does not fail (exit code 0).
    #[default]
    Pass,
    /// Reported as inconclusive, and the cell fails.
    Fail,
}

/// Where a fault applies: a tool, a server, or both.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct FaultTarget {
    /// The tool; `None` matches every tool of `server`.
    pub tool: Option<String>,
    /// The server; `None` matches `tool` on any server.
    pub server: Option<String>,
}

/// What a fault does to `tools/call`, with the setting its kind needs: a slow fault cannot
/// exist without its delay, nor a recovering one without its count.
///
/// Serialized flat beside the fault's other fields, as a suite writes it:
/// `{"kind": "slow", "delay_ms": 300}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultKind {
    /// Never answers.
    Hang,
    /// Never answers (a deadlocked backend rather than a stalled network).
    Wedged,
    /// Answers after `delay_ms` milliseconds.
    Slow {
        /// How long each call takes to answer.
        delay_ms: u64,
    },
    /// Hangs `failures` times, then answers.
    RecoverAfter {
        /// How many calls hang before the server answers.
        failures: u32,
    },
}

impl FaultKind {
    /// The kind's name as a suite writes it (`recover_after`), one of the rulebook's
    /// [`FAULT_KINDS`](crate::rules::names::FAULT_KINDS).
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Hang => "hang",
            FaultKind::Wedged => "wedged",
            FaultKind::Slow { .. } => "slow",
            FaultKind::RecoverAfter { .. } => "recover_after",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::Slow { delay_ms } => write!(f, "slow ({delay_ms} ms)"),
            FaultKind::RecoverAfter { failures } => {
                write!(f, "recover_after ({failures} failures)")
            }
            other => f.write_str(other.name()),
        }
    }
}

/// A named fault (`faults:` in a suite).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fault {
    /// The name agents `inject:`.
    pub name: String,
    /// Where it applies.
    pub target: FaultTarget,
    /// What it does.
    #[serde(flatten)]
    pub kind: FaultKind,
}
