//! Calibration: floors and ceilings for an agent's declared gates, taken from known-good
//! recordings (`mcptest calibrate`).
//!
//! A real agent rarely clears the default gates on day one (a `stability: {}` gate wants every
//! run's weakest sub-score at 0.5 or more; a `golden_path:` wants no wasted step), yet its
//! current behaviour is what a regression test should hold it to. Calibration grades the
//! recordings, reads every numeric target of the gates the agent declares, and writes an
//! explicit bound a little looser than what was observed:
//!
//! | scale ([`Scale`]) | bound written |
//! |---|---|
//! | score, higher is better | `minimum` = lowest observed − [`Margins::score`], clamped to 0, rounded down to 3 decimals |
//! | score, lower is better | `maximum` = highest observed + [`Margins::score`], clamped to 1, rounded up to 3 decimals |
//! | percent, higher is better | `minimum` = lowest observed − [`Margins::percent`] points, at least 0 |
//! | percent, lower is better | `maximum` = highest observed + [`Margins::percent`] points, at most 100 |
//! | flag (0 or 1) | the observed worst value, no margin |
//!
//! Which targets are bounded, and which way, is [`target_scale`]: `stability.*` (all six),
//! `golden_path.passed` and `golden_path.penalty`, `trajectory.dependency_satisfaction` and
//! `trajectory.order_satisfaction` (when `trajectory_axes:` is declared),
//! `narrative.divergence_score` and `reliability.*` (but `runs` and `decay_curve`).
//!
//! Where the bounds go: `stability:` and `reliability:` get them in their own `expect:`
//! lists; golden-path and axes targets go in the agent's `expect:`; the narrative ceiling is
//! `max_divergence_score`, so the narrative gate's default verdict (no claimed-but-absent
//! mutating action) stays as it is. An explicit assertion replaces its gate's default, so a
//! calibrated gate is held to the recordings instead of the default line. Assertions the
//! suite already had on a bounded target are replaced; every other assertion is kept.
//!
//! Reliability is summarized over the per-run verdicts, which the calibrated per-run bounds
//! change, so its bounds are read from a second grading with the per-run bounds applied.
//! Correctness gates (`trajectory:` pins, the narrative default, `recovery:` budgets) are never
//! loosened: a run that fails one still fails, and [`Calibration::still_failing`] says so.
//!
//! The numbers depend only on the recordings, so calibrating a calibrated suite writes the same
//! bounds again.
//!
//! ```
//! use mcptest_core::calibrate::{Margins, calibrate_agent};
//! use mcptest_core::spec::{AgentSpec, StabilityGate};
//! use mcptest_core::trace::Cassette;
//!
//! // Two runs that thrash: 3 distinct tools in 4 calls (tool_usage_stability 1/3 < 0.5).
//! let run = r#"{"tool_calls": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "a"}]}"#;
//! let text = format!(r#"{{"mcptest_cassette": 1, "runs": [{{"trace": {run}}}, {{"trace": {run}}}]}}"#);
//! let cassette = Cassette::from_json_str("c.json", &text).unwrap();
//! let spec = AgentSpec::new("agent").runs(2).stability(StabilityGate::default());
//!
//! let calibration = calibrate_agent(&[(&spec, &cassette)], &Margins::default());
//! let weakest = calibration.bounds.iter().find(|b| b.target == "stability.weakest_score").unwrap();
//! assert_eq!(weakest.value, 0.283); // 1/3 - 0.05, rounded down
//! assert!(calibration.still_failing.is_empty());
//! ```

use crate::gate::{CellReport, Scale, target_scale};
use crate::matchers::Matcher;
use crate::select::TargetError;
use crate::spec::{AgentSpec, Expectation};
use crate::suite::evaluate_cassette;
use crate::trace::Cassette;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// How much looser than the recordings a bound is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margins {
    /// Subtracted from (added to) a 0..1 score: 0.05 by default.
    pub score: f64,
    /// Subtracted from (added to) an integer percent: 5 points by default.
    pub percent: u32,
}

impl Default for Margins {
    fn default() -> Self {
        Margins {
            score: 0.05,
            percent: 5,
        }
    }
}

/// Which side of a target a bound holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The value must be at least the bound (`schema: {minimum: ...}`).
    Floor,
    /// The value must be at most the bound (`schema: {maximum: ...}`).
    Ceiling,
}

/// One bound: a target, what the recordings showed, and the bound written.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The gate whose block holds it: `stability`, `reliability`, `narrative`, or `agent` for
    /// per-run targets that go in the agent's `expect:`.
    pub block: &'static str,
    /// The target, `stability.weakest_score`.
    pub target: String,
    /// Which side the bound holds.
    pub side: Side,
    /// The worst value observed (the lowest for a floor, the highest for a ceiling).
    pub observed: f64,
    /// The bound written.
    pub value: f64,
}

impl Bound {
    /// The assertion that holds it: `{target, matcher: {schema: {minimum|maximum: value}}}`.
    pub fn expectation(&self) -> Result<Expectation, TargetError> {
        Expectation::new(&self.target, Matcher::schema(self.schema()))
    }

    fn schema(&self) -> Value {
        let key = match self.side {
            Side::Floor => "minimum",
            Side::Ceiling => "maximum",
        };
        json!({ key: number(self.value) })
    }

    /// The YAML (as JSON) of the assertion.
    fn yaml(&self) -> Value {
        json!({"target": self.target, "matcher": {"schema": self.schema()}})
    }
}

/// A whole number as an integer, so `minimum: 95` reads as written.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// What calibrating one agent found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Calibration {
    /// The bounds, gate by gate, targets in name order.
    pub bounds: Vec<Bound>,
    /// The rows that still fail on the recordings with the bounds applied (`cell: gate:
    /// summary`): correctness gates calibration does not loosen, or missing runs.
    pub still_failing: Vec<String>,
}

/// Calibrates one agent from its recordings: `models` holds each (agent, model) spec of the
/// agent with its cassette. The bounds hold every model's recordings (the loosest wins).
pub fn calibrate_agent(models: &[(&AgentSpec, &Cassette)], margins: &Margins) -> Calibration {
    let graded: Vec<Vec<CellReport>> = models
        .iter()
        .map(|(spec, cassette)| evaluate_cassette(spec, cassette))
        .collect();
    let mut bounds = bounds_of(graded.iter().flatten(), margins, |gate| {
        gate != "reliability"
    });
    let calibrated: Vec<AgentSpec> = models
        .iter()
        .map(|(spec, _)| apply_to_spec(spec, &bounds))
        .collect();
    let regraded: Vec<Vec<CellReport>> = calibrated
        .iter()
        .zip(models)
        .map(|(spec, (_, cassette))| evaluate_cassette(spec, cassette))
        .collect();
    bounds.extend(bounds_of(regraded.iter().flatten(), margins, |gate| {
        gate == "reliability"
    }));
    let mut still_failing = Vec::new();
    for (spec, (_, cassette)) in calibrated.iter().zip(models) {
        let spec = apply_to_spec(spec, &bounds);
        for cell in evaluate_cassette(&spec, cassette) {
            for row in cell.failures() {
                still_failing.push(format!("{}: {}: {}", cell.cell, row.gate, row.summary));
            }
        }
    }
    Calibration {
        bounds,
        still_failing,
    }
}

/// The bounds of the targets the cells' metrics hold, for the gates `wanted` accepts.
fn bounds_of<'a>(
    cells: impl Iterator<Item = &'a CellReport>,
    margins: &Margins,
    wanted: impl Fn(&str) -> bool,
) -> Vec<Bound> {
    // (gate, field) -> (scale, lowest, highest)
    let mut seen: BTreeMap<(String, String), (Scale, f64, f64)> = BTreeMap::new();
    for cell in cells {
        let Some(metrics) = cell.metrics.as_object() else {
            continue;
        };
        for (gate, report) in metrics {
            let Some(report) = report.as_object().filter(|_| wanted(gate)) else {
                continue;
            };
            for (field, value) in report {
                let (Some(scale), Some(v)) = (target_scale(gate, field), value.as_f64()) else {
                    continue;
                };
                let entry = seen
                    .entry((gate.clone(), field.clone()))
                    .or_insert((scale, v, v));
                entry.1 = entry.1.min(v);
                entry.2 = entry.2.max(v);
            }
        }
    }
    seen.into_iter()
        .map(|((gate, field), (scale, low, high))| {
            let (side, observed, value) = bound(scale, low, high, margins);
            Bound {
                block: match gate.as_str() {
                    "stability" => "stability",
                    "reliability" => "reliability",
                    "narrative" => "narrative",
                    _ => "agent",
                },
                target: format!("{gate}.{field}"),
                side,
                observed,
                value,
            }
        })
        .collect()
}

/// `(side, observed worst, bound)` of one target.
fn bound(scale: Scale, low: f64, high: f64, m: &Margins) -> (Side, f64, f64) {
    let percent = f64::from(m.percent);
    match scale {
        Scale::Score => (Side::Floor, low, round_down(low - m.score).max(0.0)),
        Scale::ScoreLowerIsBetter => (Side::Ceiling, high, round_up(high + m.score).min(1.0)),
        Scale::Percent => (Side::Floor, low, (low - percent).floor().max(0.0)),
        Scale::PercentLowerIsBetter => (Side::Ceiling, high, (high + percent).ceil().min(100.0)),
        Scale::Flag => (Side::Floor, low, low),
        Scale::FlagLowerIsBetter => (Side::Ceiling, high, high),
    }
}

/// Down to 3 decimals (a hair of float noise forgiven: 0.9 - 0.05 is 0.85, not 0.849).
fn round_down(x: f64) -> f64 {
    ((x + 1e-9) * 1000.0).floor() / 1000.0
}

fn round_up(x: f64) -> f64 {
    ((x - 1e-9) * 1000.0).ceil() / 1000.0
}

/// `spec` with the bounds applied: assertions on the bounded targets replaced, the narrative
/// ceiling set. Bounds of gates the spec does not declare are left out.
pub fn apply_to_spec(spec: &AgentSpec, bounds: &[Bound]) -> AgentSpec {
    let mut spec = spec.clone();
    let of = |block: &'static str| of_block(bounds, block);
    replace(&mut spec.expect, of("agent"));
    if let Some(g) = &mut spec.stability {
        replace(&mut g.expect, of("stability"));
    }
    if let Some(g) = &mut spec.reliability {
        replace(&mut g.expect, of("reliability"));
    }
    if let Some(g) = &mut spec.narrative
        && let Some(b) = of("narrative").find(|b| b.target == "narrative.divergence_score")
    {
        g.max_divergence_score = Some(b.value);
    }
    spec
}

/// The bounds that go in `block`.
fn of_block<'a>(
    bounds: &'a [Bound],
    block: &'static str,
) -> impl Iterator<Item = &'a Bound> + Clone + 'a {
    bounds.iter().filter(move |b| b.block == block)
}

fn replace<'a>(list: &mut Vec<Expectation>, bounds: impl Iterator<Item = &'a Bound> + Clone) {
    list.retain(|e| !bounds.clone().any(|b| b.target == e.target.as_str()));
    list.extend(bounds.filter_map(|b| b.expectation().ok()));
}

/// Writes the bounds into one agent of a suite document (the agent's map, as JSON): the
/// same places [`apply_to_spec`] puts them, every other field kept as written. Bounds of a
/// block the agent does not declare are left out.
pub fn apply_to_yaml_agent(agent: &mut Map<String, Value>, bounds: &[Bound]) {
    let of = |block: &'static str| of_block(bounds, block);
    if of("agent").next().is_some() {
        replace_yaml(agent, of("agent"));
    }
    for block in ["stability", "reliability"] {
        if let Some(gate) = agent.get_mut(block) {
            if gate.is_null() {
                *gate = json!({});
            }
            if let Some(gate) = gate.as_object_mut() {
                replace_yaml(gate, of(block));
            }
        }
    }
    if let Some(gate) = agent.get_mut("narrative")
        && let Some(b) = of("narrative").find(|b| b.target == "narrative.divergence_score")
    {
        if gate.is_null() {
            *gate = json!({});
        }
        if let Some(gate) = gate.as_object_mut() {
            gate.insert("max_divergence_score".into(), number(b.value));
        }
    }
}

/// Replaces the assertions on the bounded targets in `owner`'s `expect:` list.
fn replace_yaml<'a>(
    owner: &mut Map<String, Value>,
    bounds: impl Iterator<Item = &'a Bound> + Clone,
) {
    let list = owner
        .entry("expect")
        .or_insert_with(|| Value::Array(vec![]));
    if !list.is_array() {
        *list = Value::Array(vec![]);
    }
    if let Value::Array(items) = list {
        items.retain(|e| {
            let target = e.get("target").and_then(Value::as_str).map(str::trim);
            !bounds.clone().any(|b| Some(b.target.as_str()) == target)
        });
        items.extend(bounds.map(Bound::yaml));
    }
}
