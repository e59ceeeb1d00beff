//! Checks across entries, once everything is parsed. When the function returns the builder,
//! the builder may complete the declaration (runs, cassettes, faults), so only what it cannot
//! change is checked here; the harness checks the rest when the binary starts.

use crate::messages;
use crate::model::{AgentFn, Declared};
use crate::parse::cursor::Errors;
use proc_macro2::Span;

/// Records every cross-entry mistake.
pub fn declaration(d: &Declared, f: &AgentFn, errors: &mut Errors) {
    let builder = f.returns.is_some();
    if let Some(gate) = &d.stability {
        let runs = d.runs.map(|(n, _)| n);
        if runs.is_some_and(|n| n < 2) || (runs.is_none() && !builder) {
            errors.at(gate.span, messages::stability_single_run(runs.is_some()));
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
}
