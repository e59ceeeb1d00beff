//! Evaluating an [`AgentSpec`] against recorded runs: one [`CellReport`] per cell.
//!
//! A **cell** is one thing a test runner shows as one test: a run of a cassette (every per-run
//! gate: trajectory, golden path, axes, narrative, recovery, `expect`), or a cassette's
//! cross-run gates (stability, reliability). Each gate contributes one or more
//! [`GateResult`] rows; a cell passes when every non-advisory row passes.
//!
//! Targets of `expect` assertions resolve, through the same selector as trace targets, against
//! a **metrics object**: the run's envelope (`tool_calls`, `tool_results`, ...) plus one object
//! per declared gate (`trajectory.passed`, `trajectory.mismatch_count`, `trajectory.score`,
//! `trajectory.precision`, `trajectory.recall`, `trajectory.edit_distance`,
//! `trajectory.dependency_satisfaction`, `golden_path.penalty`, `narrative.claimed_but_absent`,
//! `recovery.time_to_detection_ms`, ...; and `stability.*`, `reliability.*` for the cross-run
//! cells). Pass/fail flags appear there as 1 or 0, so numeric matchers gate them.
//!
//! Default gates apply when no assertion takes their place: `trajectory.passed >= 1`, both axes
//! at 100, `golden_path.passed >= 1`, the narrative gate's own verdict,
//! `stability.weakest_score >= 0.5`, `reliability.pass_at_k >= 100`. An explicit `expect`
//! on a gate's targets replaces its default.
//!
//! [`CellReport::render`] prints a stable text (fixed float precision, no paths, no times): the
//! snapshot a test runner keeps.
//!
//! ```
//! use mcptest_core::gate::evaluate_run;
//! use mcptest_core::spec::AgentSpec;
//! use mcptest_core::eval::{ExpectedCall, ExpectedTrace};
//! use mcptest_core::trace::Cassette;
//!
//! let cassette = Cassette::from_json_str("w.json", r#"{"tool_calls": [{"name": "get_weather"}]}"#).unwrap();
//! let spec = AgentSpec::new("weather")
//!     .trajectory(ExpectedTrace::strict(vec![ExpectedCall::by_name("get_weather")]));
//! let report = evaluate_run(&spec, "run_1", &cassette.runs[0]);
//! assert!(report.passed());
//! assert!(report.render().contains("PASS trajectory"));
//! ```

use crate::eval::{
    Divergence, PassRateDecision, ToolHints, check_narrative_with, decide_pass_rate,
    find_faulted_call, recovery_marks_from_trace, score_golden_path, score_recovery,
    score_trajectory_axes, summarize, trace_stability, trace_stability_evidence, validate_trace,
    wilson_interval,
};
use crate::json::canonical;
use crate::matchers::Matcher;
use crate::rules;
use crate::spec::{AgentSpec, Expectation, Inconclusive, ReliabilityGate};
use crate::trace::Run;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;

/// The verdict of one gate (or one assertion) in a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateResult {
    /// The gate: `trajectory`, `trajectory_axes`, `golden_path`, `narrative`, `recovery`,
    /// `expect`, `stability`, `reliability`.
    pub gate: String,
    /// True when it held.
    pub passed: bool,
    /// Advisory rows are reported and never decide the cell.
    pub advisory: bool,
    /// One line: what was checked and the headline numbers.
    pub summary: String,
    /// Further lines: mismatches, diffs, reasons.
    pub details: Vec<String>,
    /// True when the gate could not decide (a pass-rate interval that straddles its floor);
    /// `passed` then says whether the gate lets the cell pass anyway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inconclusive: bool,
}

/// A cell's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every gate held.
    Pass,
    /// A gate failed.
    Fail,
    /// No gate failed, and one could not decide (see [`GateResult::inconclusive`]).
    Inconclusive,
}

impl Outcome {
    /// `PASS`, `FAIL` or `INCONCLUSIVE`.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Inconclusive => "INCONCLUSIVE",
        }
    }
}

/// Everything one cell found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellReport {
    /// The agent's name.
    pub agent: String,
    /// The cell within the agent (`run_1`, `stability`, `reliability`).
    pub cell: String,
    /// One line per recorded call (`name {canonical args}`); empty for cross-run cells.
    pub calls: Vec<String>,
    /// The gate rows, in a fixed order.
    pub gates: Vec<GateResult>,
    /// The metrics object assertions were resolved against (without the envelope).
    pub metrics: Value,
}

impl CellReport {
    /// True when every non-advisory row passed.
    pub fn passed(&self) -> bool {
        self.gates.iter().all(|g| g.passed || g.advisory)
    }

    /// Pass, fail, or inconclusive (no failure, and a gate that could not decide).
    pub fn outcome(&self) -> Outcome {
        if !self.passed() {
            Outcome::Fail
        } else if self.gates.iter().any(|g| g.inconclusive && !g.advisory) {
            Outcome::Inconclusive
        } else {
            Outcome::Pass
        }
    }

    /// The rows that decided a failure.
    pub fn failures(&self) -> impl Iterator<Item = &GateResult> {
        self.gates.iter().filter(|g| !g.passed && !g.advisory)
    }

    /// A stable text of the report: the snapshot a runner keeps and diffs.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "agent: {}", self.agent);
        let _ = writeln!(out, "cell: {}", self.cell);
        let _ = writeln!(out, "verdict: {}", self.outcome().label());
        if !self.calls.is_empty() {
            let _ = writeln!(out, "calls:");
            for (i, c) in self.calls.iter().enumerate() {
                let _ = writeln!(out, "  #{i} {c}");
            }
        }
        let _ = writeln!(out, "gates:");
        for g in &self.gates {
            let status = match (g.passed, g.advisory, g.inconclusive) {
                (true, false, true) => "INCONCLUSIVE",
                (false, false, true) => "FAIL (inconclusive)",
                (true, false, false) => "PASS",
                (false, false, false) => "FAIL",
                (true, true, _) => "PASS (advisory)",
                (false, true, _) => "FAIL (advisory)",
            };
            let _ = writeln!(out, "  {status} {}: {}", g.gate, g.summary);
            for d in &g.details {
                let _ = writeln!(out, "      {d}");
            }
        }
        out
    }
}

fn flag(b: bool) -> Value {
    json!(u8::from(b))
}

fn row(gate: &str, passed: bool, summary: String, details: Vec<String>) -> GateResult {
    GateResult {
        gate: gate.into(),
        passed,
        advisory: false,
        summary,
        details,
        inconclusive: false,
    }
}

/// True when some assertion targets `root.<one of fields>` (it replaces that default gate).
/// True when an assertion of `expect` reads a metric the gate `gate` (a key of the rulebook's
/// gate table) reports.
fn targets(expect: &[Expectation], gate: &str) -> bool {
    expect.iter().any(|e| {
        let s = e.target.steps();
        match (rules::target::root(s), rules::target::field(s, 1)) {
            (Some(report), Some(metric)) => {
                rules::gates::producer(report, metric).is_some_and(|g| g.key == gate)
            }
            _ => false,
        }
    })
}

/// Evaluates one assertion against `view`.
pub fn check_expectation(e: &Expectation, view: &Value) -> GateResult {
    let (passed, details) = match e.target.resolve(view) {
        None => (false, vec![format!("no value at target `{}`", e.target)]),
        Some(actual) => match e.matcher.check(&actual) {
            Ok(diffs) if diffs.is_empty() => (true, vec![]),
            Ok(diffs) => (false, diffs.iter().map(ToString::to_string).collect()),
            Err(err) => (false, vec![format!("cannot evaluate: {err}")]),
        },
    };
    GateResult {
        gate: "expect".into(),
        passed,
        advisory: e.advisory,
        summary: format!("{} {}", e.target, matcher_text(&e.matcher)),
        details,
        inconclusive: false,
    }
}

fn matcher_text(m: &Matcher) -> String {
    serde_json::to_value(m).map_or_else(|_| m.key().to_string(), |v| canonical(&v))
}

fn short(v: &Value, max: usize) -> String {
    let s = canonical(v);
    if s.chars().count() <= max {
        s
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// Evaluates every per-run gate of `spec` on one run.
pub fn evaluate_run(spec: &AgentSpec, cell: &str, run: &Run) -> CellReport {
    let trace = &run.trace;
    let calls = &trace.tool_calls;
    let mut gates = Vec::new();
    let mut metrics = Map::new();

    let mut traj = Map::new();
    if let Some(t) = &spec.trajectory {
        match validate_trace(calls, t) {
            Ok(v) => {
                traj.insert("passed".into(), flag(v.passed));
                traj.insert("mismatch_count".into(), json!(v.mismatches.len()));
                traj.insert("matched".into(), json!(v.matched));
                traj.insert("precision".into(), json!(v.precision));
                traj.insert("recall".into(), json!(v.recall));
                traj.insert("score".into(), json!(v.score));
                traj.insert("edit_distance".into(), json!(v.edits.len()));
                traj.insert(
                    "edits".into(),
                    serde_json::to_value(&v.edits).unwrap_or_else(|_| json!([])),
                );
                let lines = |s: String| s.lines().map(str::to_string).collect::<Vec<_>>();
                let mut details: Vec<String> = v
                    .mismatches
                    .iter()
                    .flat_map(|m| lines(m.to_string()))
                    .collect();
                details.extend(v.explanation());
                let mut r = row(
                    "trajectory",
                    v.passed,
                    format!(
                        "{}, {} reference call(s), {} mismatch(es), score {:.3} (precision \
                         {:.3}, recall {:.3})",
                        t.mode,
                        t.calls.len(),
                        v.mismatches.len(),
                        v.score,
                        v.precision,
                        v.recall
                    ),
                    details,
                );
                // An assertion on the trajectory's report replaces the pass/fail gate; the
                // row stays, advisory, so the mismatches and the edit script still show.
                r.advisory = targets(&spec.expect, "trajectory");
                gates.push(r);
            }
            Err(e) => gates.push(row(
                "trajectory",
                false,
                "the expectation is malformed".into(),
                vec![e.to_string()],
            )),
        }
    }
    if let Some(a) = &spec.trajectory_axes {
        let s = score_trajectory_axes(calls, a);
        traj.insert(
            "dependency_satisfaction".into(),
            json!(s.dependency_satisfaction),
        );
        traj.insert("order_satisfaction".into(), json!(s.order_satisfaction));
        if !targets(&spec.expect, "trajectory_axes") {
            let text = s.to_string();
            let mut lines = text.lines().map(|l| l.trim().to_string());
            lines.next();
            gates.push(row(
                "trajectory_axes",
                s.passed(),
                format!(
                    "dependency_satisfaction {}, order_satisfaction {}",
                    s.dependency_satisfaction, s.order_satisfaction
                ),
                lines.collect(),
            ));
        }
    }
    if !traj.is_empty() {
        metrics.insert("trajectory".into(), Value::Object(traj));
    }
    if let Some(g) = &spec.golden_path {
        let s = score_golden_path(calls, g);
        metrics.insert(
            "golden_path".into(),
            json!({"passed": u8::from(s.passed), "penalty": s.penalty, "extra_steps": s.extra_steps,
                   "backtracks": s.backtracks, "repeated_tools": s.repeated_tools}),
        );
        if !targets(&spec.expect, "golden_path") {
            gates.push(row(
                "golden_path",
                s.passed,
                format!(
                    "penalty {:.3} (extra_steps {}, backtracks {}, repeated_tools {})",
                    s.penalty, s.extra_steps, s.backtracks, s.repeated_tools
                ),
                vec![],
            ));
        }
    }
    if spec.narrative.is_some()
        && trace.final_response.is_none()
        && trace.conversation.turns.is_empty()
    {
        // Nothing the agent said was recorded (a proxy sees MCP traffic only): there is no
        // story to check, and passing would say it was checked.
        metrics.insert("narrative".into(), json!({"gate_passed": 0}));
        gates.push(row(
            "narrative",
            false,
            "no closing message to read: the run has no conversation".into(),
            vec![
                "the narrative check compares what the agent said with what it did, and this \
                 run recorded only MCP traffic (as `mcptest proxy` does); record the agent \
                 with `mcptest run --record`, or drop `narrative:` for this cassette"
                    .into(),
            ],
        ));
    } else if let Some(n) = &spec.narrative {
        let hints = ToolHints::from_run(run);
        let r = check_narrative_with(&trace.final_text(), calls, &n.config(), &hints);
        let view = json!({"narrative": {
            "divergence_score": r.divergence_score, "claimed_but_absent": r.claimed_but_absent,
            "present_but_unclaimed": r.present_but_unclaimed, "arg_mismatch": r.arg_mismatch,
            "gate_passed": u8::from(r.gate_passed)}});
        metrics.insert("narrative".into(), view["narrative"].clone());
        let items: Vec<String> = r.items.iter().map(divergence_line).collect();
        let summary = format!(
            "divergence_score {:.3} (claimed_but_absent {}, present_but_unclaimed {}, arg_mismatch {})",
            r.divergence_score, r.claimed_but_absent, r.present_but_unclaimed, r.arg_mismatch
        );
        // The items say what diverged; the ceiling line says why a ceiling failed.
        let ceiling_ok = n
            .max_divergence_score
            .is_none_or(|c| r.divergence_score <= c);
        let mut details = items;
        if !ceiling_ok {
            details.insert(
                0,
                format!(
                    "divergence_score {:.3} is above max_divergence_score {:.3}",
                    r.divergence_score,
                    n.max_divergence_score.unwrap_or(0.0)
                ),
            );
        }
        if n.expect.is_empty() {
            // The default gate: no claimed-but-absent mutating action, and the ceiling.
            gates.push(row("narrative", r.gate_passed, summary, details));
        } else {
            gates.push(row("narrative", ceiling_ok, summary, details));
            gates.extend(gate_expectations("narrative", &n.expect, &view));
        }
    }
    if let Some(budget) = &spec.recovery {
        let faulted = spec.inject.iter().find_map(|f| {
            find_faulted_call(calls, f.target.tool.as_deref(), f.target.server.as_deref())
                .map(|i| (f, i))
        });
        match faulted {
            Some((fault, index)) => {
                let r = score_recovery(&recovery_marks_from_trace(trace, index), budget);
                metrics.insert(
                    "recovery".into(),
                    json!({"time_to_detection_ms": r.time_to_detection_ms,
                           "time_to_recovery_ms": r.time_to_recovery_ms,
                           "user_visible_hang_ms": r.user_visible_hang_ms,
                           "recovered": u8::from(r.recovered),
                           "clean_timeout": u8::from(r.clean_timeout),
                           "passed": u8::from(r.passed)}),
                );
                let ms = |v: Option<u64>| v.map_or("never".to_string(), |v| format!("{v} ms"));
                gates.push(row(
                    "recovery",
                    r.passed,
                    format!(
                        "fault `{}` at call #{index}: detected {}, recovered {}, hang {} ms, clean_timeout {}",
                        fault.name,
                        ms(r.time_to_detection_ms),
                        ms(r.time_to_recovery_ms),
                        r.user_visible_hang_ms,
                        r.clean_timeout
                    ),
                    r.reasons.clone(),
                ));
            }
            None => gates.push(row(
                "recovery",
                false,
                "no recorded call matches an injected fault".into(),
                vec![format!(
                    "injected: {}; re-record the cassette with the fault injected",
                    spec.inject
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )],
            )),
        }
    }
    let mut view = trace.to_envelope();
    if let Value::Object(v) = &mut view {
        for (k, m) in &metrics {
            v.insert(k.clone(), m.clone());
        }
    }
    for e in &spec.expect {
        gates.push(check_expectation(e, &view));
    }
    CellReport {
        agent: spec.name.clone(),
        cell: cell.into(),
        calls: calls
            .iter()
            .map(|c| match &c.args {
                Some(a) => format!("{} {}", c.name, short(a, 160)),
                None => c.name.clone(),
            })
            .collect(),
        gates,
        metrics: Value::Object(metrics),
    }
}

/// One line describing a narrative divergence.
fn divergence_line(d: &Divergence) -> String {
    format!("{}: {}", d.category, d.message())
}

/// Evaluates the stability gate of `spec` across a cassette's runs; `None` when undeclared.
///
/// A failing row says what drove it: the default gate and the per-run targets name the weakest
/// run, its weakest sub-score and the counts behind it; the pairwise targets name the pair of
/// runs that agreed least ([`StabilityEvidence::driver`](crate::eval::StabilityEvidence::driver)).
pub fn evaluate_stability(spec: &AgentSpec, cell: &str, runs: &[Run]) -> Option<CellReport> {
    let gate = spec.stability.as_ref()?;
    let evidence = trace_stability_evidence(runs.iter().map(|r| &r.trace));
    let across = &evidence.across;
    let per_run: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| format!("run_{}: {}", i + 1, trace_stability(&r.trace).summary()))
        .collect();
    let view = json!({"stability": {
        "score": across.score, "weakest_score": across.weakest_score, "variance": across.variance,
        "tool_sequence_similarity": across.tool_sequence_similarity,
        "argument_consistency": across.argument_consistency,
        "early_divergence": across.early_divergence}});
    let summary = format!(
        "score {:.3}, weakest_score {:.3}, variance {:.4}, tool_sequence_similarity {:.3}, \
         argument_consistency {:.3}, early_divergence {}",
        across.score,
        across.weakest_score,
        across.variance,
        across.tool_sequence_similarity,
        across.argument_consistency,
        across.early_divergence
    );
    let default = (across.weakest_score >= 0.5).then_some(()).ok_or_else(|| {
        format!(
            "default gate stability.weakest_score >= 0.5 failed: {:.3}, {}",
            across.weakest_score,
            evidence.driver("weakest_score")
        )
    });
    let mut report = cross_run_cell(
        spec,
        cell,
        CrossRun {
            gate: "stability",
            view,
            summary,
            details: per_run,
            default,
            expect: &gate.expect,
        },
    );
    // Each failing assertion says what drove its target (the first row is the summary).
    for (row, e) in report.gates.iter_mut().skip(1).zip(&gate.expect) {
        if row.passed {
            continue;
        }
        if let Some(crate::select::Step::Field(field)) = e.target.steps().get(1) {
            let why = evidence.driver(field);
            if !why.is_empty() {
                row.details.push(format!("driven by: {why}"));
            }
        }
    }
    Some(report)
}

/// How a numeric target of a gate's report reads: its scale and which way is better.
///
/// [`crate::calibrate`] writes a floor under a target where higher is better and a ceiling
/// over one where lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A score in `0.0..=1.0`, higher is better.
    Score,
    /// A non-negative score, lower is better.
    ScoreLowerIsBetter,
    /// An integer percent `0..=100`, higher is better.
    Percent,
    /// An integer percent `0..=100`, lower is better.
    PercentLowerIsBetter,
    /// 0 or 1, 1 is good.
    Flag,
    /// 0 or 1, 0 is good.
    FlagLowerIsBetter,
}

/// The scale of the target `gate.field` of a report's metrics object, for the targets a
/// calibration bounds; `None` for the others: correctness verdicts (`trajectory.passed`,
/// `narrative.claimed_but_absent`), the counts folded into a score (`golden_path.extra_steps`
/// is in `golden_path.penalty`), budgets the suite already states (`recovery.*`), and
/// `reliability.runs` and `decay_curve`.
///
/// ```
/// use mcptest_core::gate::{Scale, target_scale};
/// assert_eq!(target_scale("stability", "weakest_score"), Some(Scale::Score));
/// assert_eq!(target_scale("stability", "variance"), Some(Scale::ScoreLowerIsBetter));
/// assert_eq!(target_scale("trajectory", "passed"), None);
/// ```
pub fn target_scale(gate: &str, field: &str) -> Option<Scale> {
    use Scale::*;
    Some(match (gate, field) {
        (
            "stability",
            "score" | "weakest_score" | "tool_sequence_similarity" | "argument_consistency",
        ) => Score,
        ("stability", "variance") => ScoreLowerIsBetter,
        ("stability", "early_divergence") => FlagLowerIsBetter,
        ("golden_path", "penalty") => Score,
        ("golden_path", "passed") => Flag,
        ("trajectory", "dependency_satisfaction" | "order_satisfaction") => Percent,
        ("narrative", "divergence_score") => ScoreLowerIsBetter,
        ("reliability", "pass_at_k" | "passhat_k" | "graceful_degradation") => Percent,
        ("reliability", "variance_amplification") => PercentLowerIsBetter,
        _ => return None,
    })
}

/// Evaluates the reliability gate over the per-run verdicts; `None` when undeclared.
pub fn evaluate_reliability(spec: &AgentSpec, cell: &str, verdicts: &[bool]) -> Option<CellReport> {
    let gate = spec.reliability.as_ref()?;
    let s = summarize(verdicts);
    let passes = verdicts.iter().filter(|&&v| v).count();
    let (lower, upper) = wilson_interval(passes as u64, verdicts.len() as u64, gate.confidence())
        .unwrap_or((0.0, 1.0));
    let pass_rate = if verdicts.is_empty() {
        0.0
    } else {
        passes as f64 / verdicts.len() as f64
    };
    let view = json!({"reliability": {
        "runs": s.runs, "passes": passes, "pass_rate": pass_rate, "lower_bound": lower,
        "upper_bound": upper, "pass_at_k": s.pass_at_k, "passhat_k": s.passhat_k,
        "decay_curve": s.decay_curve, "variance_amplification": s.variance_amplification,
        "graceful_degradation": s.graceful_degradation}});
    let outcomes: String = verdicts
        .iter()
        .map(|&p| if p { 'P' } else { 'F' })
        .collect();
    let summary = format!(
        "runs {} [{}], pass_at_k {}, passhat_k {}, decay_curve {:?}, variance_amplification {}, \
         graceful_degradation {}",
        s.runs,
        outcomes,
        s.pass_at_k,
        s.passhat_k,
        s.decay_curve,
        s.variance_amplification,
        s.graceful_degradation
    );
    if let Some(floor) = gate.min_pass_rate {
        return Some(pass_rate_cell(
            spec, cell, gate, floor, verdicts, view, summary,
        ));
    }
    let default = (s.pass_at_k >= 100)
        .then_some(())
        .ok_or_else(|| "default gate reliability.pass_at_k >= 100 failed: no run passed".into());
    Some(cross_run_cell(
        spec,
        cell,
        CrossRun {
            gate: "reliability",
            view,
            summary,
            details: vec![],
            default,
            expect: &gate.expect,
        },
    ))
}

/// The reliability cell of a gate with `min_pass_rate`: one row with the Wilson decision,
/// then the gate's own assertions.
fn pass_rate_cell(
    spec: &AgentSpec,
    cell: &str,
    gate: &ReliabilityGate,
    floor: f64,
    verdicts: &[bool],
    view: Value,
    summary: String,
) -> CellReport {
    let mut gates = Vec::new();
    match decide_pass_rate(verdicts, floor, gate.confidence()) {
        Ok(v) => {
            let inconclusive = v.decision == PassRateDecision::Inconclusive;
            let passed = match v.decision {
                PassRateDecision::Pass => true,
                PassRateDecision::Fail => false,
                PassRateDecision::Inconclusive => gate.inconclusive == Inconclusive::Pass,
            };
            let mut details = vec![summary];
            if inconclusive {
                details.push(v.advice());
                if !passed {
                    details.push("`inconclusive: fail` makes an undecided gate fail".into());
                }
            }
            gates.push(GateResult {
                inconclusive,
                ..row("reliability", passed, v.to_string(), details)
            });
        }
        Err(e) => gates.push(row(
            "reliability",
            false,
            "the pass-rate decision cannot be made".into(),
            vec![e.to_string()],
        )),
    }
    gates.extend(gate_expectations("reliability", &gate.expect, &view));
    CellReport {
        agent: spec.name.clone(),
        cell: cell.into(),
        calls: vec![],
        gates,
        metrics: view,
    }
}

/// What a cross-run cell holds before its rows are laid out.
struct CrossRun<'a> {
    gate: &'static str,
    view: Value,
    summary: String,
    details: Vec<String>,
    /// The default gate's verdict (`Err` says why it failed).
    default: Result<(), String>,
    expect: &'a [Expectation],
}

/// One summary row that is the gate (the default gate), or an advisory summary row followed by
/// one row per explicit assertion (which replace the default).
fn cross_run_cell(spec: &AgentSpec, cell: &str, c: CrossRun<'_>) -> CellReport {
    let mut gates = Vec::new();
    if c.expect.is_empty() {
        let mut details = c.details;
        if let Err(why) = &c.default {
            details.insert(0, why.clone());
        }
        gates.push(row(c.gate, c.default.is_ok(), c.summary, details));
    } else {
        gates.push(GateResult {
            gate: c.gate.into(),
            passed: true,
            advisory: true,
            summary: c.summary,
            details: c.details,
            inconclusive: false,
        });
        gates.extend(gate_expectations(c.gate, c.expect, &c.view));
    }
    CellReport {
        agent: spec.name.clone(),
        cell: cell.into(),
        calls: vec![],
        gates,
        metrics: c.view,
    }
}

/// The rows of a gate's own `expect:` list, labelled with the gate.
fn gate_expectations<'a>(
    gate: &'a str,
    expect: &'a [Expectation],
    view: &'a Value,
) -> impl Iterator<Item = GateResult> + 'a {
    expect.iter().map(move |e| GateResult {
        gate: gate.into(),
        ..check_expectation(e, view)
    })
}
