//! The fault executor: which injected fault a tool call meets, and what it does instead of
//! (or on top of) dispatching the call.
//!
//! * `hang` and `wedged`: the call is not sent; its result is a synthesized timeout that ends
//!   one detection budget after the call started.
//! * `slow` (`delay_ms`): the call is sent; its answer arrives `delay_ms` later in virtual
//!   time, or, when that passes the budget, it is a timeout at the budget.
//! * `recover_after` (`failures`): the first `failures` matching calls of a run hang; later
//!   ones are sent as usual.
//!
//! A fault's target matches a call as `find_faulted_call` reads it back: tool and server
//! both, every tool of a server, a tool on any server. The first injected fault that matches
//! applies. Counters are per run (each run starts its servers afresh).

use mcptest_core::spec::{Fault, FaultKind};
use std::collections::HashMap;

/// What the executor does with one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// Send the call as usual.
    Dispatch,
    /// Do not send it: a timeout at the budget.
    Timeout {
        /// The fault's name.
        fault: String,
    },
    /// Send it, and add this delay to when its answer arrives.
    Delay {
        /// The fault's name.
        fault: String,
        /// The delay.
        delay_ms: u64,
    },
}

/// The faults injected into one run, with their counters.
#[derive(Debug, Clone, Default)]
pub struct FaultPlan {
    faults: Vec<Fault>,
    hits: HashMap<String, u32>,
}

impl FaultPlan {
    /// A plan for these injected faults, in `inject:` order.
    pub fn new(faults: &[Fault]) -> Self {
        FaultPlan {
            faults: faults.to_vec(),
            hits: HashMap::new(),
        }
    }

    /// The fault (if any) a call of `tool` on `server` meets, and what to do; counts the call
    /// against a `recover_after` fault.
    pub fn decide(&mut self, server: &str, tool: &str) -> (Option<&Fault>, Directive) {
        let Some(fault) = self.faults.iter().find(|f| matches(f, server, tool)) else {
            return (None, Directive::Dispatch);
        };
        let name = fault.name.clone();
        let directive = match fault.kind {
            FaultKind::Hang | FaultKind::Wedged => Directive::Timeout { fault: name },
            FaultKind::Slow { delay_ms } => Directive::Delay {
                fault: name,
                delay_ms,
            },
            FaultKind::RecoverAfter { failures } => {
                let hits = self.hits.entry(name.clone()).or_insert(0);
                *hits += 1;
                if *hits <= failures {
                    Directive::Timeout { fault: name }
                } else {
                    Directive::Dispatch
                }
            }
        };
        (Some(fault), directive)
    }
}

fn matches(f: &Fault, server: &str, tool: &str) -> bool {
    f.target.tool.as_deref().is_none_or(|t| t == tool)
        && f.target.server.as_deref().is_none_or(|s| s == server)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcptest_core::spec::FaultTarget;

    fn fault(name: &str, tool: Option<&str>, server: Option<&str>, kind: FaultKind) -> Fault {
        Fault {
            name: name.into(),
            target: FaultTarget {
                tool: tool.map(Into::into),
                server: server.map(Into::into),
            },
            kind,
        }
    }

    #[test]
    fn targets_match_like_the_recovery_gate() {
        let mut plan = FaultPlan::new(&[
            fault("a", Some("search"), None, FaultKind::Hang),
            fault("b", None, Some("slowdb"), FaultKind::Slow { delay_ms: 250 }),
        ]);
        assert_eq!(
            plan.decide("docs", "search").1,
            Directive::Timeout { fault: "a".into() }
        );
        assert_eq!(
            plan.decide("slowdb", "query").1,
            Directive::Delay {
                fault: "b".into(),
                delay_ms: 250
            }
        );
        assert_eq!(plan.decide("docs", "open").1, Directive::Dispatch);
        let mut wedged = FaultPlan::new(&[fault("w", None, Some("db"), FaultKind::Wedged)]);
        assert_eq!(
            wedged.decide("db", "query").1,
            Directive::Timeout { fault: "w".into() }
        );
    }

    #[test]
    fn recover_after_counts_per_plan() {
        let mut plan = FaultPlan::new(&[fault(
            "flaky",
            Some("search"),
            Some("docs"),
            FaultKind::RecoverAfter { failures: 2 },
        )]);
        let seen: Vec<bool> = (0..4)
            .map(|_| matches!(plan.decide("docs", "search").1, Directive::Timeout { .. }))
            .collect();
        assert_eq!(seen, [true, true, false, false]);
        assert_eq!(plan.decide("web", "search").1, Directive::Dispatch);
    }
}
