//! [`Agent`]: the builder every declaration goes through.

use crate::gates::{
    Fault, IntoGoldenPath, Narrative, Recovery, Reliability, Stability, Trajectory,
    narrative_parts, reliability_parts, stability_parts,
};
use mcptest_core::eval::{ExpectedTrace, GoldenPath, RecoveryBudget, TrajectoryAxes};
use mcptest_core::matchers::Matcher;
use mcptest_core::spec::{
    AgentSpec, Expectation, Fault as CoreFault, Front, NarrativeGate, ReliabilityGate,
    StabilityGate,
};
use std::fmt;

/// What an agent is expected to do: where its cassettes are, how many runs it asks for, and
/// its gates. Build one with chained calls; the harness turns it into an
/// [`AgentSpec`](mcptest_core::spec::AgentSpec) named after the function that declared it.
///
/// ```
/// use mcptest::prelude::*;
///
/// let agent = Agent::new()
///     .cassettes(["tests/cassettes/weather/*.json"])
///     .runs(3)
///     .trajectory(Trajectory::subsequence([
///         call("get_weather").args_subset(json!({"city": "Sacramento"})),
///     ]))
///     .golden_path(GoldenPath::new(["get_weather"]).allow_extra_steps(true))
///     .stability(Stability::default().min_score(0.7).max_variance(0.05))
///     .expect("tool_results[0].is_error", exact(false));
///
/// let spec = agent.into_spec("weather").unwrap();
/// assert_eq!(spec.run_count(), 3);
/// assert_eq!(spec.expect[0].target.as_str(), "tool_results[0].is_error");
/// ```
///
/// Mistakes a builder cannot refuse at compile time (a malformed target, a stability gate on
/// one run, a recovery gate with no fault) are collected and returned together by
/// [`into_spec`](Agent::into_spec); under `mcptest::main!()` they fail the agent's
/// `declaration` cell.
#[derive(Debug, Clone, PartialEq, Default)]
#[must_use = "an Agent does nothing until it is returned from an #[mcptest::agent] function"]
pub struct Agent {
    cassettes: Vec<String>,
    runs: Option<u32>,
    snapshots: Option<bool>,
    trajectory: Option<ExpectedTrace>,
    golden_path: Option<GoldenPath>,
    axes: Option<TrajectoryAxes>,
    stability: Option<StabilityGate>,
    narrative: Option<NarrativeGate>,
    recovery: Option<RecoveryBudget>,
    reliability: Option<ReliabilityGate>,
    inject: Vec<CoreFault>,
    expect: Vec<Expectation>,
    errors: Vec<String>,
}

impl Agent {
    /// An agent with no cassette and no gate yet.
    pub fn new() -> Self {
        Agent::default()
    }

    /// Adds cassette paths or glob patterns, relative to the crate root
    /// (`"tests/cassettes/weather/*.json"`).
    pub fn cassettes<S: Into<String>>(mut self, globs: impl IntoIterator<Item = S>) -> Self {
        self.cassettes.extend(globs.into_iter().map(Into::into));
        self
    }

    /// Asks for `n` runs per cassette: cells `run_1` to `run_n`; a cassette holding fewer fails
    /// the missing cells.
    pub fn runs(mut self, n: u32) -> Self {
        self.runs = Some(n);
        self
    }

    /// Turns the per-cell report snapshots on (the default) or off.
    pub fn snapshots(mut self, on: bool) -> Self {
        self.snapshots = Some(on);
        self
    }

    /// The call plan (see [`Trajectory`]).
    pub fn trajectory(mut self, plan: impl Into<Trajectory>) -> Self {
        self.trajectory = Some(plan.into().into());
        self
    }

    /// The ideal path: a list of tool names (every penalty on) or a configured
    /// [`GoldenPath`].
    pub fn golden_path(mut self, path: impl IntoGoldenPath) -> Self {
        self.golden_path = Some(path.into_golden_path());
        self
    }

    /// Data-flow edges (see [`Axes`](crate::gates::Axes)).
    pub fn axes(mut self, axes: TrajectoryAxes) -> Self {
        self.axes = Some(axes);
        self
    }

    /// The cross-run stability gate (see [`Stability`]).
    pub fn stability(mut self, gate: impl Into<Stability>) -> Self {
        let (gate, errors) = stability_parts(gate.into());
        self.stability = Some(gate);
        self.errors.extend(errors);
        self
    }

    /// The narrative gate (see [`Narrative`]).
    pub fn narrative(mut self, gate: impl Into<Narrative>) -> Self {
        let (gate, errors) = narrative_parts(gate.into());
        self.narrative = Some(gate);
        self.errors.extend(errors);
        self
    }

    /// The recovery gate (see [`Recovery`]); needs an [`inject`](Self::inject)ed fault.
    pub fn recovery(mut self, budget: impl Into<Recovery>) -> Self {
        self.recovery = Some(budget.into().into());
        self
    }

    /// A fault injected while recording (see [`Fault`]).
    pub fn inject(mut self, fault: impl Into<Fault>) -> Self {
        self.inject.push(fault.into().into());
        self
    }

    /// The reliability gate (see [`Reliability`]).
    pub fn reliability(mut self, gate: impl Into<Reliability>) -> Self {
        let (gate, errors) = reliability_parts(gate.into());
        self.reliability = Some(gate);
        self.errors.extend(errors);
        self
    }

    /// A gating assertion on every run: the value at `target` (`tool_calls[0].args.city`,
    /// `tool_results[-1].is_error`, `golden_path.penalty`, ...) satisfies `matcher`.
    ///
    /// A target that reads the model's narration (`final_response`, a turn's `content`) cannot
    /// gate: use [`advisory`](Self::advisory) for those.
    pub fn expect(self, target: &str, matcher: Matcher) -> Self {
        self.assertion(target, matcher, false)
    }

    /// An advisory assertion: reported in the cell's report, never deciding its verdict.
    pub fn advisory(self, target: &str, matcher: Matcher) -> Self {
        self.assertion(target, matcher, true)
    }

    fn assertion(mut self, target: &str, matcher: Matcher, advisory: bool) -> Self {
        match Expectation::new(target, matcher) {
            Ok(e) => self.expect.push(if advisory { e.advisory() } else { e }),
            Err(err) => self.errors.push(err.to_string()),
        }
        self
    }

    /// The declaration as an [`AgentSpec`] named `name`, or every mistake it holds.
    pub fn into_spec(self, name: impl Into<String>) -> Result<AgentSpec, DeclarationError> {
        let mut problems = self.errors;
        let mut spec = AgentSpec::new(name).cassettes(self.cassettes);
        spec.runs = self.runs;
        spec.snapshots = self.snapshots.unwrap_or(true);
        spec.trajectory = self.trajectory;
        spec.golden_path = self.golden_path;
        spec.trajectory_axes = self.axes;
        spec.stability = self.stability;
        spec.narrative = self.narrative;
        spec.recovery = self.recovery;
        spec.reliability = self.reliability;
        spec.inject = self.inject;
        spec.expect = self.expect;
        problems.extend(
            spec.validate_for(Front::Builder)
                .iter()
                .map(ToString::to_string),
        );
        if problems.is_empty() {
            Ok(spec)
        } else {
            Err(DeclarationError { problems })
        }
    }

    /// Combines the attribute's declarations (`self`) with those of the builder its function
    /// returned: lists are concatenated, and a gate declared in both is a mistake.
    pub(crate) fn merge(mut self, other: Agent) -> Agent {
        fn one<T>(name: &str, a: &mut Option<T>, b: Option<T>, errors: &mut Vec<String>) {
            if let Some(b) = b {
                if a.is_some() {
                    errors.push(format!(
                        "`{name}` is declared both in #[mcptest::agent(...)] and in the returned \
                         Agent; keep one of them"
                    ));
                } else {
                    *a = Some(b);
                }
            }
        }
        let e = &mut self.errors;
        e.extend(other.errors);
        self.cassettes.extend(other.cassettes);
        one("runs", &mut self.runs, other.runs, e);
        one("snapshots", &mut self.snapshots, other.snapshots, e);
        one("trajectory", &mut self.trajectory, other.trajectory, e);
        one("golden_path", &mut self.golden_path, other.golden_path, e);
        one("axes", &mut self.axes, other.axes, e);
        one("stability", &mut self.stability, other.stability, e);
        one("narrative", &mut self.narrative, other.narrative, e);
        one("recovery", &mut self.recovery, other.recovery, e);
        one("reliability", &mut self.reliability, other.reliability, e);
        self.inject.extend(other.inject);
        self.expect.extend(other.expect);
        self
    }
}

/// Every mistake an agent declaration holds, each saying what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarationError {
    /// One line per mistake.
    pub problems: Vec<String>,
}

impl fmt::Display for DeclarationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DeclarationError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn collects_every_mistake() {
        let err = Agent::new()
            .stability(Stability::default())
            .recovery(Recovery::new(3000))
            .expect("tool_calls[0.name", exact("x"))
            .expect("final_response", contains("done"))
            .into_spec("a")
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("bad target `tool_calls[0.name`"), "{text}");
        assert!(text.contains("call `.runs(2)` (or more)"), "{text}");
        assert!(text.contains("inject"), "{text}");
        assert!(text.contains("narration"), "{text}");
        assert_eq!(err.problems.len(), 4);
    }

    #[test]
    fn merge_concatenates_lists_and_refuses_a_gate_declared_twice() {
        let attr = Agent::new()
            .cassettes(["a/*.json"])
            .trajectory(Trajectory::strict([call("x")]));
        let user = Agent::new()
            .cassettes(["b/*.json"])
            .trajectory(Trajectory::strict([call("y")]))
            .expect("tool_calls[0].name", exact("x"));
        let merged = attr.merge(user);
        assert_eq!(merged.cassettes, ["a/*.json", "b/*.json"]);
        let err = merged.into_spec("a").unwrap_err();
        assert!(err.problems[0].contains("`trajectory` is declared both"));
    }

    #[test]
    fn advisory_narration_is_allowed() {
        let spec = Agent::new()
            .advisory("final_response", regex("71°F"))
            .into_spec("a")
            .unwrap();
        assert!(spec.expect[0].advisory);
    }
}
