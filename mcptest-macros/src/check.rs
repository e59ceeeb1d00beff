//! Checks across entries, once everything is parsed. When the function returns the builder,
//! the builder may complete the declaration (runs, cassettes, faults), so only what it cannot
//! change is checked here; the harness checks the rest when the binary starts.

use crate::messages;
use crate::model::{AgentFn, Declared};
use crate::parse::cursor::Errors;
use crate::parse::target;
use proc_macro2::Span;

/// Records every cross-entry mistake.
pub fn declaration(d: &Declared, f: &AgentFn, errors: &mut Errors) {
    let builder = f.returns.is_some();
    if let Some(gate) = &d.stability {
        let runs = d.runs.map(|(n, _)| n);
        if runs.is_some_and(|n| n < 2) || (runs.is_none() && !builder) {
            errors.at(gate.span, messages::stability_single_run(runs.unwrap_or(1)));
        }
    }
    if builder {
        return;
    }
    if !d.cassettes_written {
        errors.at(Span::call_site(), messages::no_cassettes());
    }
    if let Some(r) = &d.recovery
        && d.inject.is_empty()
    {
        errors.at(r.span, messages::recovery_without_fault());
    }
    // With every gate known, a target on an undeclared gate's report is a mistake.
    let declared = |gate: &str| match gate {
        "trajectory" => d.trajectory.is_some(),
        "trajectory_axes" => d.axes.is_some(),
        "golden_path" => d.golden_path.is_some(),
        "narrative" => d.narrative.is_some(),
        "recovery" => d.recovery.is_some(),
        "stability" => d.stability.is_some(),
        "reliability" => d.reliability.is_some(),
        _ => false,
    };
    for e in &d.expect {
        if let Some(p) = target::problem(&e.target, e.advisory, Some(&declared)) {
            errors.at(e.span, p);
        }
    }
}
