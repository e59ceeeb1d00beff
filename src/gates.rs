//! Builders for each gate an [`Agent`](crate::prelude::Agent) declares.
//!
//! | builder | gate | checked on |
//! |---|---|---|
//! | [`Trajectory`] + [`call`] | the call plan, in one of five match modes | every run |
//! | [`GoldenPath`] (+ [`GoldenPathExt`]) | the ideal path and its waste policy | every run |
//! | [`Axes`] | data-flow edges (producer before consumer, first before second) | every run |
//! | [`Narrative`] | the closing story against the trace | every run |
//! | [`Recovery`] + [`Fault`] | time to notice and route around an injected fault | every run |
//! | [`Stability`] | how alike and how steady the runs are | each cassette, across its runs |
//! | [`Reliability`] | what the runs' verdicts add up to (pass@k, pass^k) | each cassette, across its runs |
//!
//! Cross-run gates with no assertion apply their default (`stability.weakest_score >= 0.5`,
//! `reliability.pass_at_k >= 100`); each `min_*`/`max_*` method adds an inclusive bound on one
//! metric, written as the same `schema` assertion a YAML suite would hold.

use mcptest_core::eval::{ExpectedCall, ExpectedTrace, MatchMode, RecoveryBudget, TrajectoryAxes};
use mcptest_core::matchers::Matcher;
use mcptest_core::spec::{
    Expectation, Fault as CoreFault, FaultKind, FaultTarget, Inconclusive, NarrativeGate,
    ReliabilityGate, StabilityGate,
};
use serde_json::{Value, json};

pub use mcptest_core::eval::GoldenPath;

/// One expected call: a tool name and an argument shape (see [`call`]).
pub type Call = ExpectedCall;

/// Data-flow edges: `Axes::default().dependency("search", "open").order("login", "search")`.
pub type Axes = TrajectoryAxes;

/// An expected call of `tool` with any arguments; narrow it with `.args_exact(..)`,
/// `.args_subset(..)`, `.args_schema(..)` or `.args_ignore()`.
///
/// ```
/// use mcptest::prelude::*;
/// let c = call("get_weather").args_subset(json!({"city": "Sacramento"}));
/// assert_eq!(c.name, "get_weather");
/// ```
pub fn call(tool: impl Into<String>) -> Call {
    ExpectedCall::by_name(tool)
}

/// The call plan: expected calls and the mode that lines them up against the recorded ones.
///
/// | constructor | passes when |
/// |---|---|
/// | [`strict`](Self::strict) / [`exact_sequence`](Self::exact_sequence) | the same calls, one for one, in order, nothing more |
/// | [`subsequence`](Self::subsequence) | every expected call, in order; other calls may interleave |
/// | [`unordered`](Self::unordered) / [`superset`](Self::superset) | every expected call, any order, extras allowed |
/// | [`subset`](Self::subset) | every recorded call is one the plan allows (no over-calling) |
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory(ExpectedTrace);

impl Trajectory {
    /// A plan in `mode`.
    pub fn new(mode: MatchMode, calls: impl IntoIterator<Item = Call>) -> Self {
        Trajectory(ExpectedTrace::new(mode, calls))
    }
    /// The same calls, one for one, in order; a trailing extra call fails.
    pub fn strict(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Strict, calls)
    }
    /// Another name for [`strict`](Self::strict).
    pub fn exact_sequence(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Strict, calls)
    }
    /// Every expected call appears in order; other calls may come between them.
    pub fn subsequence(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Subsequence, calls)
    }
    /// Every expected call appears, matched to a distinct recorded call, in any order.
    pub fn unordered(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Unordered, calls)
    }
    /// At least the expected calls, in any order (same outcome as `unordered`).
    pub fn superset(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Superset, calls)
    }
    /// Every recorded call is one the plan allows, each allowed call used at most once.
    pub fn subset(calls: impl IntoIterator<Item = Call>) -> Self {
        Self::new(MatchMode::Subset, calls)
    }
}

impl From<Trajectory> for ExpectedTrace {
    fn from(t: Trajectory) -> Self {
        t.0
    }
}

impl From<ExpectedTrace> for Trajectory {
    fn from(t: ExpectedTrace) -> Self {
        Trajectory(t)
    }
}

/// What [`Agent::golden_path`](crate::prelude::Agent::golden_path) accepts: a list of tool
/// names (every penalty on, no extra steps allowed) or a configured [`GoldenPath`].
pub trait IntoGoldenPath {
    /// The golden path.
    fn into_golden_path(self) -> GoldenPath;
}

impl IntoGoldenPath for GoldenPath {
    fn into_golden_path(self) -> GoldenPath {
        self
    }
}

impl<S: Into<String>, const N: usize> IntoGoldenPath for [S; N] {
    fn into_golden_path(self) -> GoldenPath {
        GoldenPath::new(self)
    }
}

impl<S: Into<String>> IntoGoldenPath for Vec<S> {
    fn into_golden_path(self) -> GoldenPath {
        GoldenPath::new(self)
    }
}

/// The three waste-policy flags of a [`GoldenPath`], as builder methods.
///
/// ```
/// use mcptest::prelude::*;
/// let g = GoldenPath::new(["search", "open"]).allow_extra_steps(true).penalize_backtracking(false);
/// assert!(g.allow_extra_steps && !g.penalize_backtracking && g.penalize_repeated_tools);
/// ```
pub trait GoldenPathExt {
    /// Calls beyond the golden length are counted but not penalized.
    fn allow_extra_steps(self, yes: bool) -> Self;
    /// Returning to a tool used earlier (not the one just before) is penalized.
    fn penalize_backtracking(self, yes: bool) -> Self;
    /// Calling the same tool twice in a row is penalized.
    fn penalize_repeated_tools(self, yes: bool) -> Self;
}

impl GoldenPathExt for GoldenPath {
    fn allow_extra_steps(mut self, yes: bool) -> Self {
        self.allow_extra_steps = yes;
        self
    }
    fn penalize_backtracking(mut self, yes: bool) -> Self {
        self.penalize_backtracking = yes;
        self
    }
    fn penalize_repeated_tools(mut self, yes: bool) -> Self {
        self.penalize_repeated_tools = yes;
        self
    }
}

/// Assertions of one cross-run or narrative gate, with the mistakes found while building them.
/// What a target may name is checked with the whole declaration, by the rulebook
/// ([`AgentSpec::validate_for`](mcptest_core::spec::AgentSpec::validate_for)), in the same
/// words a YAML suite gets.
#[derive(Debug, Clone, PartialEq, Default)]
struct GateAsserts {
    expect: Vec<Expectation>,
    errors: Vec<String>,
}

impl GateAsserts {
    fn bound(&mut self, gate: &str, metric: &str, key: &str, value: Value) {
        self.push(
            &format!("{gate}.{metric}"),
            Matcher::schema(json!({ key: value })),
        );
    }

    fn push(&mut self, target: &str, matcher: Matcher) {
        match Expectation::new(target, matcher) {
            Ok(e) => self.expect.push(e),
            Err(err) => self.errors.push(err.to_string()),
        }
    }
}

/// The cross-run stability gate (needs `runs` of at least 2).
///
/// With no bound it applies the default gate `stability.weakest_score >= 0.5`.
///
/// ```
/// use mcptest::prelude::*;
/// let s = Stability::default().min_score(0.7).max_variance(0.05).no_early_divergence();
/// # let _ = s;
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stability(GateAsserts);

impl Stability {
    /// `stability.score` (the mean of each run's weakest sub-score) is at least `floor`.
    pub fn min_score(mut self, floor: f64) -> Self {
        self.0.bound("stability", "score", "minimum", json!(floor));
        self
    }
    /// `stability.weakest_score` (the worst run's weakest sub-score) is at least `floor`.
    pub fn min_weakest_score(mut self, floor: f64) -> Self {
        self.0
            .bound("stability", "weakest_score", "minimum", json!(floor));
        self
    }
    /// `stability.variance` (how much the runs swing) is at most `ceiling`.
    pub fn max_variance(mut self, ceiling: f64) -> Self {
        self.0
            .bound("stability", "variance", "maximum", json!(ceiling));
        self
    }
    /// `stability.tool_sequence_similarity` (mean pairwise LCS ratio of the tool sequences) is
    /// at least `floor`.
    pub fn min_similarity(mut self, floor: f64) -> Self {
        self.0.bound(
            "stability",
            "tool_sequence_similarity",
            "minimum",
            json!(floor),
        );
        self
    }
    /// `stability.argument_consistency` (same-tool positions with identical arguments) is at
    /// least `floor`.
    pub fn min_argument_consistency(mut self, floor: f64) -> Self {
        self.0
            .bound("stability", "argument_consistency", "minimum", json!(floor));
        self
    }
    /// `stability.early_divergence` is 0: the runs do not tend to split in their first two
    /// steps.
    pub fn no_early_divergence(mut self) -> Self {
        self.0
            .push("stability.early_divergence", Matcher::exact(json!(0)));
        self
    }
    /// Any assertion on a `stability.*` target.
    pub fn expect(mut self, target: &str, matcher: Matcher) -> Self {
        self.0.push(target, matcher);
        self
    }
}

/// The narrative gate: the closing story may not claim what the trace does not show.
///
/// With no assertion it fails on any claimed-but-absent mutating action; a
/// [`max_divergence_score`](Self::max_divergence_score) ceiling applies either way.
///
/// ```
/// use mcptest::prelude::*;
/// let n = Narrative::default().mutating_tools(["run_job"]).max_divergence_score(0.25);
/// # let _ = n;
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Narrative {
    gate: NarrativeGate,
    asserts: GateAsserts,
}

impl Narrative {
    /// Tool names always treated as writes.
    pub fn mutating_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.gate
            .mutating_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }
    /// Tool names never treated as writes (wins over `mutating_tools`).
    pub fn readonly_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.gate
            .readonly_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }
    /// Also fail when the divergence score (0 to 1) exceeds `ceiling`.
    pub fn max_divergence_score(mut self, ceiling: f64) -> Self {
        self.gate.max_divergence_score = Some(ceiling);
        self
    }
    /// Adds advisory, model-assisted signal to the report; never changes the verdict.
    pub fn llm_assisted(mut self, yes: bool) -> Self {
        self.gate.llm_assisted = yes;
        self
    }
    /// At most `n` claimed-but-absent actions.
    pub fn max_claimed_but_absent(mut self, n: u32) -> Self {
        self.asserts
            .bound("narrative", "claimed_but_absent", "maximum", json!(n));
        self
    }
    /// At most `n` recorded calls the story never mentions.
    pub fn max_present_but_unclaimed(mut self, n: u32) -> Self {
        self.asserts
            .bound("narrative", "present_but_unclaimed", "maximum", json!(n));
        self
    }
    /// At most `n` stated argument values that disagree with the recorded call.
    pub fn max_arg_mismatch(mut self, n: u32) -> Self {
        self.asserts
            .bound("narrative", "arg_mismatch", "maximum", json!(n));
        self
    }
    /// Any assertion on a `narrative.*` target.
    pub fn expect(mut self, target: &str, matcher: Matcher) -> Self {
        self.asserts.push(target, matcher);
        self
    }
}

/// The reliability gate over the per-run verdicts of a cassette.
///
/// With no bound it applies the default gate `reliability.pass_at_k >= 100` (some run passed);
/// `min_passhat_k(100)` asks that every run passed. [`min_pass_rate`](Self::min_pass_rate)
/// decides by the Wilson interval instead: pass, fail, or inconclusive when the runs cannot
/// tell (which passes unless [`inconclusive_fails`](Self::inconclusive_fails)).
///
/// ```
/// use mcptest::prelude::*;
/// let r = Reliability::default().min_passhat_k(60);
/// let decided = Reliability::default().min_pass_rate(0.9).confidence(0.95);
/// # let _ = (r, decided);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reliability(GateAsserts, PassRate);

/// The pass-rate decision of a [`Reliability`] gate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct PassRate {
    min_pass_rate: Option<f64>,
    confidence: Option<f64>,
    inconclusive_fails: bool,
}

impl Reliability {
    /// The runs must support a pass rate of at least `floor` (0..=1): the Wilson interval's
    /// lower bound at [`confidence`](Self::confidence) (0.95 by default) must reach it. When
    /// the interval straddles `floor` the cell is inconclusive.
    pub fn min_pass_rate(mut self, floor: f64) -> Self {
        self.1.min_pass_rate = Some(floor);
        self
    }
    /// The confidence of the pass-rate interval, strictly between 0 and 1.
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.1.confidence = Some(confidence);
        self
    }
    /// An inconclusive pass-rate verdict fails the cell (by default it is reported and passes).
    pub fn inconclusive_fails(mut self) -> Self {
        self.1.inconclusive_fails = true;
        self
    }
    /// `reliability.pass_at_k` (100 when any run passed, else 0) is at least `floor`.
    pub fn min_pass_at_k(mut self, floor: u32) -> Self {
        self.0
            .bound("reliability", "pass_at_k", "minimum", json!(floor));
        self
    }
    /// `reliability.passhat_k` (the pass^k percent; 100 when every run passed) is at least
    /// `floor`.
    pub fn min_passhat_k(mut self, floor: u32) -> Self {
        self.0
            .bound("reliability", "passhat_k", "minimum", json!(floor));
        self
    }
    /// `reliability.graceful_degradation` (late failures cost more) is at least `floor`.
    pub fn min_graceful_degradation(mut self, floor: u32) -> Self {
        self.0.bound(
            "reliability",
            "graceful_degradation",
            "minimum",
            json!(floor),
        );
        self
    }
    /// `reliability.variance_amplification` (0 stable, 100 an even split) is at most
    /// `ceiling`.
    pub fn max_variance_amplification(mut self, ceiling: u32) -> Self {
        self.0.bound(
            "reliability",
            "variance_amplification",
            "maximum",
            json!(ceiling),
        );
        self
    }
    /// Any assertion on a `reliability.*` target.
    pub fn expect(mut self, target: &str, matcher: Matcher) -> Self {
        self.0.push(target, matcher);
        self
    }
}

/// The recovery gate's time budget (needs an injected [`Fault`]).
///
/// ```
/// use mcptest::prelude::*;
/// let r = Recovery::new(3000).max_recovery_ms(5000).require_clean_timeout(true);
/// # let _ = r;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovery(RecoveryBudget);

impl Recovery {
    /// Detecting the fault within `max_detection_ms` of the faulted call's start is a clean
    /// timeout.
    pub fn new(max_detection_ms: u64) -> Self {
        Recovery(RecoveryBudget {
            max_detection_ms,
            max_recovery_ms: None,
            require_clean_timeout: false,
        })
    }
    /// The agent recovers (a later call succeeds) within `ms` of the faulted call's start.
    pub fn max_recovery_ms(mut self, ms: u64) -> Self {
        self.0.max_recovery_ms = Some(ms);
        self
    }
    /// A detection later than `max_detection_ms`, or none, fails the gate.
    pub fn require_clean_timeout(mut self, yes: bool) -> Self {
        self.0.require_clean_timeout = yes;
        self
    }
}

impl From<Recovery> for RecoveryBudget {
    fn from(r: Recovery) -> Self {
        r.0
    }
}

impl From<RecoveryBudget> for Recovery {
    fn from(b: RecoveryBudget) -> Self {
        Recovery(b)
    }
}

/// A fault that was injected while recording, so the recovery gate can find the faulted call.
///
/// ```
/// use mcptest::prelude::*;
/// let f = Fault::hang("hung-search").tool("search");
/// # let _ = f;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault(CoreFault);

impl Fault {
    fn of(name: impl Into<String>, kind: FaultKind) -> Self {
        Fault(CoreFault {
            name: name.into(),
            target: FaultTarget::default(),
            kind,
        })
    }
    /// The call never answers.
    pub fn hang(name: impl Into<String>) -> Self {
        Self::of(name, FaultKind::Hang)
    }
    /// The call never answers (a deadlocked backend rather than a stalled network).
    pub fn wedged(name: impl Into<String>) -> Self {
        Self::of(name, FaultKind::Wedged)
    }
    /// The call answers after `delay_ms`.
    pub fn slow(name: impl Into<String>, delay_ms: u64) -> Self {
        Self::of(name, FaultKind::Slow { delay_ms })
    }
    /// The first `failures` calls hang, then the server answers.
    pub fn recover_after(name: impl Into<String>, failures: u32) -> Self {
        Self::of(name, FaultKind::RecoverAfter { failures })
    }
    /// The tool it hits (every tool of the server when unset).
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.0.target.tool = Some(tool.into());
        self
    }
    /// The server it hits (the tool on any server when unset).
    pub fn server(mut self, server: impl Into<String>) -> Self {
        self.0.target.server = Some(server.into());
        self
    }
}

impl From<Fault> for CoreFault {
    fn from(f: Fault) -> Self {
        f.0
    }
}

impl From<CoreFault> for Fault {
    fn from(f: CoreFault) -> Self {
        Fault(f)
    }
}

impl From<StabilityGate> for Stability {
    fn from(g: StabilityGate) -> Self {
        Stability(GateAsserts {
            expect: g.expect,
            errors: vec![],
        })
    }
}

impl From<NarrativeGate> for Narrative {
    fn from(mut gate: NarrativeGate) -> Self {
        let expect = std::mem::take(&mut gate.expect);
        Narrative {
            gate,
            asserts: GateAsserts {
                expect,
                errors: vec![],
            },
        }
    }
}

impl From<ReliabilityGate> for Reliability {
    fn from(g: ReliabilityGate) -> Self {
        Reliability(
            GateAsserts {
                expect: g.expect,
                errors: vec![],
            },
            PassRate {
                min_pass_rate: g.min_pass_rate,
                confidence: g.confidence,
                inconclusive_fails: g.inconclusive == Inconclusive::Fail,
            },
        )
    }
}

/// The core gate and the mistakes made while building it.
pub(crate) fn stability_parts(s: Stability) -> (StabilityGate, Vec<String>) {
    (StabilityGate { expect: s.0.expect }, s.0.errors)
}

pub(crate) fn narrative_parts(n: Narrative) -> (NarrativeGate, Vec<String>) {
    let mut gate = n.gate;
    gate.expect = n.asserts.expect;
    (gate, n.asserts.errors)
}

pub(crate) fn reliability_parts(r: Reliability) -> (ReliabilityGate, Vec<String>) {
    let gate = ReliabilityGate {
        expect: r.0.expect,
        min_pass_rate: r.1.min_pass_rate,
        confidence: r.1.confidence,
        inconclusive: if r.1.inconclusive_fails {
            Inconclusive::Fail
        } else {
            Inconclusive::Pass
        },
    };
    (gate, r.0.errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_become_schema_assertions_on_full_targets() {
        let (gate, errors) =
            stability_parts(Stability::default().min_score(0.7).max_variance(0.05));
        assert!(errors.is_empty());
        assert_eq!(gate.expect[0].target.as_str(), "stability.score");
        assert_eq!(
            gate.expect[0].matcher,
            Matcher::schema(json!({"minimum": 0.7}))
        );
        assert_eq!(
            gate.expect[1].matcher,
            Matcher::schema(json!({"maximum": 0.05}))
        );
    }

    #[test]
    fn wrong_root_and_unknown_metric_are_reported_with_a_hint() {
        let s = Stability::default()
            .expect("narrative.divergence_score", Matcher::exact(json!(0)))
            .expect("stability.varianse", Matcher::exact(json!(0)))
            .expect("stability[", Matcher::exact(json!(0)));
        let err = crate::prelude::Agent::new()
            .runs(2)
            .stability(s)
            .into_spec("a")
            .unwrap_err();
        let errors = &err.problems;
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("bad target `stability[`"), "{errors:?}");
        assert!(
            errors[1].contains("its target starts with `stability.`"),
            "{errors:?}"
        );
        assert!(
            errors[2].contains("did you mean `stability.variance`"),
            "{errors:?}"
        );
    }

    #[test]
    fn narrative_keeps_overrides_and_assertions_apart() {
        let (gate, errors) = narrative_parts(
            Narrative::default()
                .mutating_tools(["run_job"])
                .readonly_tools(["post_search"])
                .max_divergence_score(0.25)
                .max_claimed_but_absent(0),
        );
        assert!(errors.is_empty());
        assert_eq!(gate.mutating_tools, ["run_job"]);
        assert_eq!(gate.readonly_tools, ["post_search"]);
        assert_eq!(gate.max_divergence_score, Some(0.25));
        assert_eq!(
            gate.expect[0].target.as_str(),
            "narrative.claimed_but_absent"
        );
    }
}
