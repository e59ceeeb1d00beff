//! Running one cell: load the cassette (once per process), evaluate, snapshot, explain.

use crate::plan::{AgentCassette, Work};
use crate::snapshot::Snapshots;
use mcptest_core::fingerprint::check_cassette;
use mcptest_core::gate::{CellReport, evaluate_run};
use mcptest_core::suite::{grade_reliability, grade_run, grade_stability, stale_cassette_message};
use mcptest_core::trace::Cassette;
use std::fmt::Write as _;
use std::sync::Arc;

/// Runs `work`; `Err` holds the text a runner prints under the cell's name.
pub(crate) fn run(work: &Work, snapshots: &Snapshots) -> Result<(), String> {
    match work {
        Work::Fail(message) => Err(message.clone()),
        Work::Run { cassette, index } => {
            let loaded = load(cassette)?;
            let cell = format!("{}::run_{}", cassette.prefix, index + 1);
            if *index >= loaded.runs.len() {
                // A run the agent asks for and the cassette does not hold: nothing to snapshot.
                let report = grade_run(&cassette.agent, &cell, &loaded, *index);
                return Err(unsnapshotted(cassette, &report));
            }
            let report = run_report(cassette, &loaded, *index);
            let context = format!(
                "cassette {}, run {} of {}",
                cassette.file.display,
                index + 1,
                loaded.runs.len()
            );
            finish(&cell, &context, report, cassette, snapshots)
        }
        Work::Stability { cassette } => {
            let loaded = load(cassette)?;
            let n = loaded.runs.len();
            let cell = format!("{}::stability", cassette.stem);
            let report = grade_stability(&cassette.agent, &cell, &loaded);
            if n < 2 {
                return Err(unsnapshotted(cassette, &report));
            }
            let context = format!("cassette {}, runs 1 to {n}", cassette.file.display);
            let name = format!("{}::stability", cassette.prefix);
            finish(&name, &context, &report, cassette, snapshots)
        }
        Work::Reliability { cassette } => {
            let loaded = load(cassette)?;
            let n = loaded.runs.len();
            let verdicts: Vec<bool> = (0..n)
                .map(|i| run_report(cassette, &loaded, i).passed())
                .collect();
            let cell = format!("{}::reliability", cassette.stem);
            let report = grade_reliability(&cassette.agent, &cell, &verdicts);
            if n == 0 {
                return Err(unsnapshotted(cassette, &report));
            }
            let context = format!(
                "cassette {}, the verdicts of runs 1 to {n}",
                cassette.file.display
            );
            let name = format!("{}::reliability", cassette.prefix);
            finish(&name, &context, &report, cassette, snapshots)
        }
    }
}

/// The text of a cell that fails before any gate could run (a run or runs the cassette does
/// not hold): what is missing and how to record it.
fn unsnapshotted(cassette: &AgentCassette, report: &CellReport) -> String {
    let mut out = format!("cassette {}\n", cassette.file.display);
    for gate in report.failures() {
        let _ = writeln!(out, "{}", gate.summary);
        for d in &gate.details {
            let _ = writeln!(out, "  {d}");
        }
    }
    out.trim_end().to_string()
}

/// The parsed cassette, refused when it is stale: the agent's prompt, model or servers no
/// longer give the first request it recorded (agents declared without a prompt are not checked).
/// The file is parsed once per process and checked once per agent.
fn load(cassette: &AgentCassette) -> Result<Arc<Cassette>, String> {
    let loaded = cassette.file.load()?;
    cassette
        .fresh
        .get_or_init(|| {
            check_cassette(&cassette.agent, &loaded).map_err(|stale| {
                stale_cassette_message(&cassette.agent, &cassette.file.display, &stale, None)
            })
        })
        .clone()?;
    Ok(loaded)
}

/// The per-run report of run `index`, evaluated once and shared by the cells that need it.
fn run_report<'a>(cassette: &'a AgentCassette, loaded: &Cassette, index: usize) -> &'a CellReport {
    cassette.reports[index].get_or_init(|| {
        evaluate_run(
            &cassette.agent,
            &format!("{}::run_{}", cassette.stem, index + 1),
            &loaded.runs[index],
        )
    })
}

/// Checks the gates and the snapshot, and explains whichever failed (both when both did).
fn finish(
    cell: &str,
    context: &str,
    report: &CellReport,
    cassette: &AgentCassette,
    snapshots: &Snapshots,
) -> Result<(), String> {
    let rendered = report.render();
    let snapshot = if cassette.agent.snapshots {
        snapshots.check(cell, &rendered, &cassette.file.path)
    } else {
        Ok(())
    };
    let passed = report.passed();
    if passed && report.outcome() == mcptest_core::gate::Outcome::Inconclusive {
        // The trial passes (an undecided pass rate is not a failure unless the gate says
        // `inconclusive: fail`); say so where the test output shows it.
        for g in report.gates.iter().filter(|g| g.inconclusive) {
            let advice = g.details.get(1).map(String::as_str).unwrap_or_default();
            eprintln!("note: {cell}: {}; {advice}", g.summary);
        }
    }
    if passed && snapshot.is_ok() {
        return Ok(());
    }
    let mut out = String::new();
    let _ = writeln!(out, "{context}");
    if passed {
        let _ = writeln!(out, "every gate passed, but the report changed:");
    } else {
        let mut failed: Vec<&str> = report.failures().map(|g| g.gate.as_str()).collect();
        failed.dedup();
        let _ = writeln!(out, "failed gate(s): {}", failed.join(", "));
    }
    let _ = writeln!(out);
    out.push_str(&rendered);
    if let Err(s) = snapshot {
        let _ = writeln!(out);
        let _ = writeln!(out, "snapshot: {s}");
    }
    Err(out.trim_end().to_string())
}
