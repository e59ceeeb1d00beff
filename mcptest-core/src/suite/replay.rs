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
    let asked = spec.run_count() as usize;
    let recorded = cassette.runs.len();
    let mut cells = Vec::with_capacity(recorded.max(asked) + 2);
    let mut verdicts = Vec::with_capacity(recorded);
    for (i, run) in cassette.runs.iter().enumerate() {
        let report = evaluate_run(spec, &format!("run_{}", i + 1), run);
        verdicts.push(report.passed());
        cells.push(report);
    }
    for i in recorded..asked {
        cells.push(missing_run_cell(spec, i + 1, recorded));
    }
    if spec.stability.is_some() {
        if recorded < 2 {
            cells.push(failing_cell(
                spec,
                "stability",
                "stability",
                format!(
                    "the stability gate compares runs, and the cassette holds {recorded} \
                     recorded run(s)"
                ),
                record_hint(spec),
            ));
        } else if let Some(report) = evaluate_stability(spec, "stability", &cassette.runs) {
            cells.push(report);
        }
    }
    if spec.reliability.is_some() {
        if recorded == 0 {
            cells.push(failing_cell(
                spec,
                "reliability",
                "reliability",
                "the cassette holds no recorded run to summarize".into(),
                record_hint(spec),
            ));
        } else if let Some(report) = evaluate_reliability(spec, "reliability", &verdicts) {
            cells.push(report);
        }
    }
    cells
}

/// The failing cell of run `index` (1-based) that the cassette does not hold.
pub fn missing_run_cell(spec: &AgentSpec, index: usize, recorded: usize) -> CellReport {
    failing_cell(
        spec,
        &format!("run_{index}"),
        "runs",
        format!(
            "run {index} is missing: the agent asks for {} run(s) and the cassette holds \
             {recorded}",
            spec.run_count()
        ),
        record_hint(spec),
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
        }],
        metrics: json!({}),
    }
}
