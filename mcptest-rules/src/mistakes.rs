//! Every declaration mistake the rulebook defines, and its words.
//!
//! A mistake reads the same from every front end: a YAML suite (reported at file:line:col,
//! exit 2), the builder (a failing declaration cell naming the agent) and the attribute (a
//! compile error at the token). Only the fix differs, written in the syntax of the front end
//! the user wrote ([`Front`]): `advisory: true`, `.advisory(..)` or `advisory`.
//!
//! ```
//! use mcptest_rules::mistakes::{check_target, Front, Place};
//! let declared = |gate: &str| gate == "stability";
//! let m = check_target("stability.weakest", Place::Gate("stability"), false, Some(&declared))
//!     .unwrap_err();
//! assert_eq!(
//!     m.message(Front::Yaml),
//!     "`stability.weakest`: the stability report has no `weakest`; did you mean \
//!      `stability.weakest_score`? It reports `score`, `weakest_score`, `variance`, \
//!      `tool_sequence_similarity`, `argument_consistency`, `early_divergence`"
//! );
//! let m = check_target("golden_path.penalty", Place::PerRun, false, Some(&declared)).unwrap_err();
//! assert!(m.message(Front::Attribute).contains("add `golden_path(...)` to the attribute"));
//! ```

use crate::gates::{self, Gate, Scope};
use crate::names;
use crate::suggest;
use crate::target::{self, Step, TargetError};
use std::fmt::Write;

/// The front end a declaration was written in: it decides how a fix is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// A YAML suite (`advisory: true`, `stability: expect:`).
    Yaml,
    /// The Rust builder (`Agent::new().advisory(..)`, `Stability::default().expect(..)`).
    Builder,
    /// `#[mcptest::agent(...)]` (`advisory`, `stability(...)`).
    Attribute,
}

impl Front {
    /// How to make an assertion advisory.
    fn advisory(self) -> &'static str {
        match self {
            Front::Yaml => "mark the assertion `advisory: true`",
            Front::Builder => "declare it with `.advisory(target, matcher)` instead of `.expect`",
            Front::Attribute => "add `advisory` to report it without gating",
        }
    }

    /// How to declare `gate`.
    fn declare(self, gate: &Gate) -> String {
        match self {
            Front::Yaml => format!("add `{}:` to the agent", gate.key),
            Front::Builder => format!("add `.{}(...)` to the agent", gate.builder_method),
            Front::Attribute => format!("add `{}(...)` to the attribute", gate.attribute_key),
        }
    }

    /// Where an assertion on `gate`'s report goes.
    fn assert_under(self, gate: &Gate, target: &str) -> String {
        let metric = target.split_once('.').map_or("score", |(_, m)| m);
        match self {
            Front::Yaml => format!("move this assertion under `{}: expect:`", gate.key),
            Front::Builder => format!(
                "assert it on the gate: `.{}({}::default().expect(\"{target}\", ...))`",
                gate.builder_method,
                title(gate.key)
            ),
            Front::Attribute => format!(
                "assert it inside `{}(...)`, like `{}({metric} >= ...)`",
                gate.attribute_key, gate.attribute_key
            ),
        }
    }

    /// How to ask for `n` runs.
    fn runs(self, n: u32) -> String {
        match self {
            Front::Yaml => format!("set `runs: {n}` (or more)"),
            Front::Builder => format!("call `.runs({n})` (or more)"),
            Front::Attribute => format!("set `runs = {n}` (or more) in the attribute"),
        }
    }

    /// How to declare the fault a recovery gate reads.
    fn inject(self) -> &'static str {
        match self {
            Front::Yaml => "add `inject: [<fault name>]` naming a fault of the suite's `faults:`",
            Front::Builder => {
                "add `.inject(Fault::hang(\"hung-search\").tool(\"search\"))` describing the \
                 fault injected while recording"
            }
            Front::Attribute => {
                "add `inject(name = \"hung-search\", kind = hang, tool = \"search\")` \
                 describing the fault injected while recording"
            }
        }
    }

    /// How to add a pass-rate floor.
    fn min_pass_rate(self) -> &'static str {
        match self {
            Front::Yaml => "add `min_pass_rate: 0.9`",
            Front::Builder => "add `.min_pass_rate(0.9)`",
            Front::Attribute => "add `min_pass_rate = 0.9`",
        }
    }
}

fn title(key: &str) -> String {
    let mut c = key.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Where an assertion is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// In the agent's own assertions, checked on every run against the trace and the per-run
    /// gates' reports.
    PerRun,
    /// In a gate's own assertions (the gate's key: `stability`), reading that gate's report.
    Gate(&'a str),
}

/// A mistake in a declaration.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Mistake {
    /// A target that does not follow the grammar.
    BadTarget(TargetError),
    /// A gating assertion on the model's prose.
    Narration {
        /// The target as written.
        target: String,
    },
    /// A cross-run metric in a per-run assertion.
    CrossRunTarget {
        /// The target as written.
        target: String,
        /// The gate whose report it reads.
        gate: &'static Gate,
    },
    /// A metric its report does not have.
    UnknownMetric {
        /// The target as written.
        target: String,
        /// The report it reads (`stability`).
        report: String,
        /// The metric as written.
        metric: String,
    },
    /// A metric of a gate the agent does not declare.
    UndeclaredGate {
        /// The target as written.
        target: String,
        /// The gate that would report it.
        gate: &'static Gate,
    },
    /// An assertion under a gate whose target does not read that gate's report.
    MisplacedTarget {
        /// The target as written.
        target: String,
        /// The gate it is written under.
        gate: &'static Gate,
    },
    /// A model-graded matcher in a gating assertion.
    ModelGraded {
        /// The matcher's key (`llm-judge`).
        key: String,
    },
}

impl Mistake {
    /// What is wrong and how to fix it, in the syntax of `front`.
    pub fn message(&self, front: Front) -> String {
        match self {
            Mistake::BadTarget(e) => e.to_string(),
            Mistake::Narration { target } => format!(
                "target `{target}` reads the model's narration, and narration never decides a \
                 verdict (the observable-evidence rule): assert on tool_calls[...] or \
                 tool_results[...] instead, or {}",
                front.advisory()
            ),
            Mistake::CrossRunTarget { target, gate } => format!(
                "`{target}` is a cross-run target, read across a cassette's runs, not part of \
                 one run: {}",
                front.assert_under(gate, target)
            ),
            Mistake::UnknownMetric {
                target,
                report,
                metric,
            } => {
                let metrics = gates::report_metrics(report);
                let then = match suggest::did_you_mean(metric, &metrics) {
                    Some(g) => format!("did you mean `{report}.{g}`? It reports"),
                    None => "it reports".into(),
                };
                let mut out = format!("`{target}`: the {report} report has no `{metric}`; {then} ");
                for (i, m) in metrics.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    let _ = write!(out, "{sep}`{m}`");
                }
                out
            }
            Mistake::UndeclaredGate { target, gate } => format!(
                "`{target}` reads the report of the `{}` gate, which this agent does not \
                 declare; {}",
                gate.key,
                front.declare(gate)
            ),
            Mistake::MisplacedTarget { target, gate } => format!(
                "an assertion on the {} gate reads its report, so its target starts with `{}.` \
                 (for example `{}`); found `{target}`",
                gate.key, gate.report, gate.example
            ),
            Mistake::ModelGraded { key } => format!(
                "`{key}` is model-graded and cannot decide a deterministic gate; use {}, or {}",
                or_list(names::MATCHERS),
                front.advisory()
            ),
        }
    }

    /// The target the mistake is about, if it is about one.
    pub fn target(&self) -> Option<&str> {
        match self {
            Mistake::BadTarget(e) => Some(&e.target),
            Mistake::Narration { target }
            | Mistake::CrossRunTarget { target, .. }
            | Mistake::UnknownMetric { target, .. }
            | Mistake::UndeclaredGate { target, .. }
            | Mistake::MisplacedTarget { target, .. } => Some(target),
            Mistake::ModelGraded { .. } => None,
        }
    }
}

/// `a, b, c or d`.
fn or_list(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Checks an assertion's target where it is written, and returns its steps.
///
/// * `advisory`: an advisory assertion may read narration.
/// * `declared`: which gates the agent declares, by key; `None` when that is not known yet
///   (an attribute whose function returns a builder that may declare more), which skips the
///   undeclared-gate rule only.
///
/// # Errors
///
/// The first [`Mistake`] the target makes, in this order: grammar, narration, a cross-run
/// metric in a per-run list, an assertion under a gate that reads another report, a metric
/// its report lacks, a metric of an undeclared gate.
pub fn check_target(
    text: &str,
    place: Place<'_>,
    advisory: bool,
    declared: Option<&dyn Fn(&str) -> bool>,
) -> Result<Vec<Step>, Mistake> {
    let steps = target::parse(text).map_err(Mistake::BadTarget)?;
    check_steps(text, &steps, place, advisory, declared)?;
    Ok(steps)
}

/// [`check_target`] for a target already parsed: `text` as written, `steps` its steps.
///
/// # Errors
///
/// The first [`Mistake`] the target makes, in [`check_target`]'s order (after the grammar).
pub fn check_steps(
    text: &str,
    steps: &[Step],
    place: Place<'_>,
    advisory: bool,
    declared: Option<&dyn Fn(&str) -> bool>,
) -> Result<(), Mistake> {
    if !advisory && target::reads_narration(steps) {
        return Err(Mistake::Narration {
            target: text.into(),
        });
    }
    let root = target::root(steps);
    if let Place::Gate(key) = place
        && let Some(gate) = gates::gate(key)
        && root != Some(gate.report)
    {
        return Err(Mistake::MisplacedTarget {
            target: text.into(),
            gate,
        });
    }
    let Some(report) = root.filter(|r| gates::is_report(r)) else {
        return Ok(());
    };
    let Some(metric) = target::field(steps, 1) else {
        return Ok(());
    };
    let Some(gate) = gates::producer(report, metric) else {
        return Err(Mistake::UnknownMetric {
            target: text.into(),
            report: report.into(),
            metric: metric.into(),
        });
    };
    if place == Place::PerRun && gate.scope == Scope::CrossRun {
        return Err(Mistake::CrossRunTarget {
            target: text.into(),
            gate,
        });
    }
    if let Some(declared) = declared
        && !declared(gate.key)
    {
        return Err(Mistake::UndeclaredGate {
            target: text.into(),
            gate,
        });
    }
    Ok(())
}

/// `unknown {what} `{word}`; did you mean `..`? expected one of a, b, c`.
pub fn unknown(what: &str, word: &str, expected: &[&str]) -> String {
    format!(
        "unknown {what} `{word}`; {}expected one of {}",
        suggest::hint(word, expected),
        expected.join(", ")
    )
}

/// `runs` of 0.
pub fn runs_zero() -> String {
    "`runs` must be at least 1".into()
}

/// A stability gate on an agent that asks for `runs` runs (fewer than 2).
pub fn stability_needs_runs(runs: u32, front: Front) -> String {
    format!(
        "a stability gate needs a sample: it aggregates across runs, and this agent asks for \
         {runs} run; {}",
        front.runs(2)
    )
}

/// A recovery gate with no injected fault.
pub fn recovery_without_fault(front: Front) -> String {
    format!(
        "a recovery gate needs a fault to recover from: {}",
        front.inject()
    )
}

/// A number that must lie in 0..=1 (`found` when it is known).
pub fn unit_interval(key: &str, found: Option<f64>) -> String {
    let mut out = format!("`{key}` is a number from 0 to 1");
    if let Some(v) = found {
        let _ = write!(out, ", found {v}");
    }
    out
}

/// A pass-rate floor outside 0..=1 (written as a percent, most often).
pub fn pass_rate(found: Option<f64>) -> String {
    let mut out = "`min_pass_rate` is a number from 0 to 1 (0.9 for 90%)".to_string();
    if let Some(v) = found {
        let _ = write!(out, ", found {v}");
    }
    out
}

/// A confidence outside (0, 1).
pub fn confidence(found: Option<f64>) -> String {
    let mut out = "`confidence` is a number strictly between 0 and 1 (0.95 for 95%)".to_string();
    if let Some(v) = found {
        let _ = write!(out, ", found {v}");
    }
    out
}

/// `confidence` or `inconclusive` without the pass-rate floor they qualify.
pub fn pass_rate_qualifiers(front: Front) -> String {
    format!(
        "`confidence` and `inconclusive` qualify a pass-rate decision: {} (the pass rate the \
         runs must support)",
        front.min_pass_rate()
    )
}

/// A fault of `kind` that lacks the setting `key` it needs ([`names::fault_needs`]).
pub fn fault_needs(kind: &str, key: &str) -> String {
    format!("a `{kind}` fault needs `{key}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(_: &str) -> bool {
        true
    }

    fn check(text: &str, place: Place<'_>) -> Option<Mistake> {
        check_target(text, place, false, Some(&all)).err()
    }

    #[test]
    fn each_rule_in_order() {
        assert!(matches!(
            check("tool_calls[0.name", Place::PerRun),
            Some(Mistake::BadTarget(_))
        ));
        assert!(matches!(
            check("final_response", Place::PerRun),
            Some(Mistake::Narration { .. })
        ));
        assert!(check_target("final_response", Place::PerRun, true, None).is_ok());
        assert!(matches!(
            check("stability.score", Place::PerRun),
            Some(Mistake::CrossRunTarget { .. })
        ));
        assert!(matches!(
            check("tool_calls[0].name", Place::Gate("stability")),
            Some(Mistake::MisplacedTarget { .. })
        ));
        assert!(matches!(
            check("stability.weakest", Place::Gate("stability")),
            Some(Mistake::UnknownMetric { .. })
        ));
        assert!(check("stability.weakest_score", Place::Gate("stability")).is_none());
        assert!(check("tool_calls[*].name", Place::PerRun).is_none());
        assert!(check("trajectory", Place::PerRun).is_none());
        let none = |_: &str| false;
        let m = check_target(
            "trajectory.order_satisfaction",
            Place::PerRun,
            false,
            Some(&none),
        );
        let Err(Mistake::UndeclaredGate { gate, .. }) = m else {
            panic!("{m:?}")
        };
        assert_eq!(gate.key, "trajectory_axes");
        assert!(check_target("trajectory.order_satisfaction", Place::PerRun, false, None).is_ok());
    }

    #[test]
    fn fixes_follow_the_front() {
        let m = check("stability.score", Place::PerRun).unwrap();
        assert!(
            m.message(Front::Yaml)
                .ends_with("move this assertion under `stability: expect:`")
        );
        assert!(
            m.message(Front::Attribute)
                .ends_with("like `stability(score >= ...)`")
        );
        assert!(
            m.message(Front::Builder)
                .contains("Stability::default().expect(\"stability.score\"")
        );
        let m = Mistake::ModelGraded {
            key: "llm-judge".into(),
        };
        assert_eq!(
            m.message(Front::Yaml),
            "`llm-judge` is model-graded and cannot decide a deterministic gate; use exact, \
             contains, schema, regex, not, all or any, or mark the assertion `advisory: true`"
        );
        assert_eq!(
            unknown("fault kind", "hnag", names::FAULT_KINDS),
            "unknown fault kind `hnag`; did you mean `hang`? expected one of hang, wedged, slow, \
             recover_after"
        );
        assert_eq!(
            pass_rate(Some(90.0)),
            "`min_pass_rate` is a number from 0 to 1 (0.9 for 90%), found 90"
        );
    }
}
