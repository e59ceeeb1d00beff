//! The gate table: every gate an agent can declare, what its report holds, whether it reads
//! one run or all of a cassette's runs, and the rule it applies when no assertion is written.
//!
//! The evaluators build their reports with exactly these metric names (core's tests hold them
//! to it), and every front end checks an assertion's target against this table.
//!
//! ```
//! use mcptest_rules::gates::{self, Scope};
//! let g = gates::gate("stability").unwrap();
//! assert_eq!(g.scope, Scope::CrossRun);
//! assert_eq!(g.default_rule, Some("stability.weakest_score >= 0.5"));
//! // Two gates write the `trajectory` report: a metric names the gate that produces it.
//! assert_eq!(gates::producer("trajectory", "order_satisfaction").unwrap().key, "trajectory_axes");
//! assert!(gates::producer("stability", "weakest").is_none());
//! ```

/// Whether a gate reads one run or all of a cassette's runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Checked on every run; its report is part of the run's report.
    PerRun,
    /// Checked once per cassette across its runs; its report is a cell of its own.
    CrossRun,
}

/// What kind of value a metric holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// A real number (scores, ratios, rates).
    Number,
    /// A whole number: counts, milliseconds, percents from 0 to 100, and flags written 0 or 1.
    Count,
    /// A list (edit steps, a decay curve): matched with `schema`, not compared.
    List,
}

/// One metric of a gate's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// Its name under the report (`weakest_score` in `stability.weakest_score`).
    pub name: &'static str,
    /// What it holds.
    pub kind: MetricKind,
}

/// One gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// The key that declares it, in a YAML agent (`trajectory_axes:`).
    pub key: &'static str,
    /// The key that declares it in `#[mcptest::agent(...)]` (`axes(...)`).
    pub attribute_key: &'static str,
    /// The builder method that declares it (`Agent::axes`).
    pub builder_method: &'static str,
    /// The report its metrics are read under: a target's first field (`trajectory`).
    pub report: &'static str,
    /// One run, or all of a cassette's runs.
    pub scope: Scope,
    /// Its metrics, in report order.
    pub metrics: &'static [Metric],
    /// The assertion applied when the gate is declared without one, if it has such a rule
    /// written as an assertion (the trajectory gates pass when every expectation pairs).
    pub default_rule: Option<&'static str>,
    /// A target to show in examples.
    pub example: &'static str,
}

impl Gate {
    /// The names of its metrics, in report order.
    pub fn metric_names(&self) -> impl Iterator<Item = &'static str> + Clone + use<> {
        self.metrics.iter().map(|m| m.name)
    }

    /// Its metric `name`, if it reports one.
    pub fn metric(&self, name: &str) -> Option<&'static Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

const fn number(name: &'static str) -> Metric {
    Metric {
        name,
        kind: MetricKind::Number,
    }
}

const fn count(name: &'static str) -> Metric {
    Metric {
        name,
        kind: MetricKind::Count,
    }
}

const fn list(name: &'static str) -> Metric {
    Metric {
        name,
        kind: MetricKind::List,
    }
}

/// Every gate, per-run gates first.
pub const GATES: &[Gate] = &[
    Gate {
        key: "trajectory",
        attribute_key: "trajectory",
        builder_method: "trajectory",
        report: "trajectory",
        scope: Scope::PerRun,
        metrics: &[
            count("passed"),
            count("mismatch_count"),
            count("matched"),
            number("precision"),
            number("recall"),
            number("score"),
            count("edit_distance"),
            list("edits"),
        ],
        default_rule: None,
        example: "trajectory.score",
    },
    Gate {
        key: "trajectory_axes",
        attribute_key: "axes",
        builder_method: "axes",
        report: "trajectory",
        scope: Scope::PerRun,
        metrics: &[
            number("dependency_satisfaction"),
            number("order_satisfaction"),
        ],
        default_rule: None,
        example: "trajectory.order_satisfaction",
    },
    Gate {
        key: "golden_path",
        attribute_key: "golden_path",
        builder_method: "golden_path",
        report: "golden_path",
        scope: Scope::PerRun,
        metrics: &[
            count("passed"),
            number("penalty"),
            count("extra_steps"),
            count("backtracks"),
            count("repeated_tools"),
        ],
        default_rule: None,
        example: "golden_path.penalty",
    },
    Gate {
        key: "narrative",
        attribute_key: "narrative",
        builder_method: "narrative",
        report: "narrative",
        scope: Scope::PerRun,
        metrics: &[
            number("divergence_score"),
            count("claimed_but_absent"),
            count("present_but_unclaimed"),
            count("arg_mismatch"),
            count("gate_passed"),
        ],
        default_rule: Some("narrative.claimed_but_absent == 0"),
        example: "narrative.claimed_but_absent",
    },
    Gate {
        key: "recovery",
        attribute_key: "recovery",
        builder_method: "recovery",
        report: "recovery",
        scope: Scope::PerRun,
        metrics: &[
            count("time_to_detection_ms"),
            count("time_to_recovery_ms"),
            count("user_visible_hang_ms"),
            count("recovered"),
            count("clean_timeout"),
            count("passed"),
        ],
        default_rule: None,
        example: "recovery.time_to_recovery_ms",
    },
    Gate {
        key: "stability",
        attribute_key: "stability",
        builder_method: "stability",
        report: "stability",
        scope: Scope::CrossRun,
        metrics: &[
            number("score"),
            number("weakest_score"),
            number("variance"),
            number("tool_sequence_similarity"),
            number("argument_consistency"),
            count("early_divergence"),
        ],
        default_rule: Some("stability.weakest_score >= 0.5"),
        example: "stability.weakest_score",
    },
    Gate {
        key: "reliability",
        attribute_key: "reliability",
        builder_method: "reliability",
        report: "reliability",
        scope: Scope::CrossRun,
        metrics: &[
            count("runs"),
            count("passes"),
            number("pass_rate"),
            number("lower_bound"),
            number("upper_bound"),
            count("pass_at_k"),
            count("passhat_k"),
            list("decay_curve"),
            count("variance_amplification"),
            count("graceful_degradation"),
        ],
        default_rule: Some("reliability.pass_at_k >= 100"),
        example: "reliability.passhat_k",
    },
];

/// The gate declared by `key` (`trajectory_axes`), if any.
pub fn gate(key: &str) -> Option<&'static Gate> {
    GATES.iter().find(|g| g.key == key)
}

/// The gates whose metrics are read under `report` (`trajectory` has two).
pub fn writers(report: &str) -> impl Iterator<Item = &'static Gate> + Clone + use<'_> {
    GATES.iter().filter(move |g| g.report == report)
}

/// True when `root` is the name of a gate's report.
pub fn is_report(root: &str) -> bool {
    writers(root).next().is_some()
}

/// Every metric read under `report`, in table order.
pub fn report_metrics(report: &str) -> Vec<&'static str> {
    writers(report).flat_map(|g| g.metric_names()).collect()
}

/// The gate that reports `metric` under `report`, if one does.
pub fn producer(report: &str, metric: &str) -> Option<&'static Gate> {
    writers(report).find(|g| g.metric(metric).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for g in GATES {
            assert!(producer(g.report, g.example.split('.').nth(1).unwrap()).is_some());
            let mut names: Vec<_> = g.metric_names().collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), g.metrics.len(), "{} repeats a metric", g.key);
            if let Some(rule) = g.default_rule {
                assert!(rule.starts_with(&format!("{}.", g.report)), "{rule}");
            }
        }
        assert_eq!(report_metrics("trajectory").len(), 10);
        assert!(is_report("golden_path"));
        assert!(!is_report("tool_calls"));
        assert!(!is_report("trajectory_axes"));
    }
}
