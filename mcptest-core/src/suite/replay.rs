//! Grading one agent against its cassette: every cell, in a fixed order.
//!
//! The cells are `run_1` .. `run_N` (every per-run gate, [`evaluate_run`]), then `stability`
//! ([`evaluate_stability`]) and `reliability` ([`evaluate_reliability`] over the per-run
//! verdicts) when the agent declares them. Every recorded run is graded; when the cassette holds
//! fewer runs than the agent's `runs`, each missing run is a failing cell that says so.

use crate::gate::{CellReport, GateResult, evaluate_reliability, evaluate_run, evaluate_stability};
use crate::spec::AgentSpec;
use crate::trace::Cassette;
use serde_json::json;

/// Every cell of `spec` graded against `cassette`.
///
/// ```
/// use mcptest_core::spec::{AgentSpec, ReliabilityGate};
/// use mcptest_core::suite::evaluate_cassette;
/// use mcptest_core::trace::Cassette;
///
/// let cassette = Cassette::from_json_str("c.json", r#"{"tool_calls": [{"name": "search"}]}"#).unwrap();
/// let spec = AgentSpec::new("search").runs(2).reliability(ReliabilityGate::default());
/// let cells = evaluate_cassette(&spec, &cassette);
/// let names: Vec<&str> = cells.iter().map(|c| c.cell.as_str()).collect();
/// assert_eq!(names, ["run_1", "run_2", "reliability"]);
/// assert!(cells[0].passed());
/// assert!(!cells[1].passed()); // asked for 2 runs, the cassette holds 1
/// ```
pub fn evaluate_cassette(spec: &AgentSpec, cassette: &Cassette) -> Vec<CellReport> {
    let plan = grading_plan(spec, cassette.runs.len());
    let mut verdicts: Vec<bool> = Vec::with_capacity(cassette.runs.len());
    let mut cells = Vec::with_capacity(plan.len());
    for cell in plan {
        let report = match cell {
            PlannedCell::Run(i) => {
                let report = grade_run(spec, &cell.name(), cassette, i);
                if i < cassette.runs.len() {
                    verdicts.push(report.passed());
                }
                report
            }
            PlannedCell::Stability => grade_stability(spec, &cell.name(), cassette),
            PlannedCell::Reliability => grade_reliability(spec, &cell.name(), &verdicts),
        };
        cells.push(report);
    }
    cells
}

/// One cell of an agent's grading plan over one cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlannedCell {
    /// Run `i` (0-based) and its per-run gates; a run the cassette does not hold fails.
    Run(usize),
    /// The stability gate over every recorded run.
    Stability,
    /// The reliability gate over the verdicts of every recorded run.
    Reliability,
}

impl PlannedCell {
    /// The cell's name: `run_1`, `stability`, `reliability`.
    pub fn name(&self) -> String {
        match self {
            PlannedCell::Run(i) => format!("run_{}", i + 1),
            PlannedCell::Stability => "stability".into(),
            PlannedCell::Reliability => "reliability".into(),
        }
    }
}

/// The cells of `spec` over a cassette holding `recorded` runs, in grading order. Every
/// recorded run is a cell, and `runs` is a minimum: the runs it asks for beyond those recorded
/// are cells that fail and say so. Then `stability` and `reliability`, when declared. Both
/// runners (`mcptest run` and the `cargo test` harness) list exactly these cells.
///
/// ```
/// use mcptest_core::spec::{AgentSpec, StabilityGate};
/// use mcptest_core::suite::{PlannedCell, grading_plan};
///
/// let spec = AgentSpec::new("a").runs(2).stability(StabilityGate::default());
/// let names: Vec<String> = grading_plan(&spec, 3).iter().map(PlannedCell::name).collect();
/// assert_eq!(names, ["run_1", "run_2", "run_3", "stability"]);
/// assert_eq!(grading_plan(&spec, 1).len(), 3); // run_2 is planned, and fails
/// ```
pub fn grading_plan(spec: &AgentSpec, recorded: usize) -> Vec<PlannedCell> {
    let runs = recorded.max(spec.run_count() as usize);
    let mut plan: Vec<PlannedCell> = (0..runs).map(PlannedCell::Run).collect();
    if spec.stability.is_some() {
        plan.push(PlannedCell::Stability);
    }
    if spec.reliability.is_some() {
        plan.push(PlannedCell::Reliability);
    }
    plan
}

/// Grades run `index` (0-based) of `cassette` as cell `cell`: its per-run gates, or a failing
/// cell when the cassette does not hold that run.
pub fn grade_run(spec: &AgentSpec, cell: &str, cassette: &Cassette, index: usize) -> CellReport {
    match cassette.runs.get(index) {
        Some(run) => evaluate_run(spec, cell, run),
        None => failing_cell(
            spec,
            cell,
            "runs",
            format!(
                "run {} is missing: the agent asks for {} run(s) and the cassette holds {}",
                index + 1,
                spec.run_count(),
                cassette.runs.len()
            ),
            record_hint(spec),
        ),
    }
}

/// Grades the stability gate over every recorded run of `cassette` as cell `cell`; it fails
/// when fewer than two runs are recorded, or when the agent declares no stability gate.
pub fn grade_stability(spec: &AgentSpec, cell: &str, cassette: &Cassette) -> CellReport {
    let recorded = cassette.runs.len();
    if recorded < 2 {
        return failing_cell(
            spec,
            cell,
            "stability",
            format!(
                "the stability gate compares runs, and the cassette holds {recorded} recorded \
                 run(s)"
            ),
            record_hint(spec),
        );
    }
    evaluate_stability(spec, cell, &cassette.runs).unwrap_or_else(|| {
        failing_cell(
            spec,
            cell,
            "stability",
            "this agent declares no stability gate".into(),
            "declare one (`stability: {}`) or drop this cell".into(),
        )
    })
}

/// Grades the reliability gate over the verdicts of every recorded run (in run order) as cell
/// `cell`; it fails when no run is recorded, or when the agent declares no reliability gate.
pub fn grade_reliability(spec: &AgentSpec, cell: &str, verdicts: &[bool]) -> CellReport {
    if verdicts.is_empty() {
        return failing_cell(
            spec,
            cell,
            "reliability",
            "the cassette holds no recorded run to summarize".into(),
            record_hint(spec),
        );
    }
    evaluate_reliability(spec, cell, verdicts).unwrap_or_else(|| {
        failing_cell(
            spec,
            cell,
            "reliability",
            "this agent declares no reliability gate".into(),
            "declare one (`reliability: {}`) or drop this cell".into(),
        )
    })
}

/// What both runners say of a stale cassette: why, and the command that records it again.
/// `suite` is the suite file when there is one.
pub fn stale_cassette_message(
    spec: &AgentSpec,
    cassette: &str,
    stale: &dyn std::fmt::Display,
    suite: Option<&str>,
) -> String {
    format!(
        "{cassette}: cassette is stale: {stale}; it would grade old behaviour. Record it \
         again with `mcptest run --record --config {} --filter {:?}`",
        suite.unwrap_or("<suite>"),
        spec.name
    )
}

fn record_hint(spec: &AgentSpec) -> String {
    format!(
        "record {} run(s) into the cassette (`mcptest run --record --config <suite>`), or \
         lower `runs:`",
        spec.run_count()
    )
}

fn failing_cell(
    spec: &AgentSpec,
    cell: &str,
    gate: &str,
    summary: String,
    hint: String,
) -> CellReport {
    CellReport {
        agent: spec.name.clone(),
        cell: cell.into(),
        calls: vec![],
        gates: vec![GateResult {
            gate: gate.into(),
            passed: false,
            advisory: false,
            summary,
            details: vec![hint],
            inconclusive: false,
        }],
        metrics: json!({}),
    }
}
