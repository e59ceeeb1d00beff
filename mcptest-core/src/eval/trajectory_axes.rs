//! Trajectory axes: did data flow in order, whatever else the agent did?
//!
//! Two kinds of edge, both `X -> Y`:
//!
//! * a **dependency** (`producer -> consumer`): the consumer reads what the producer returned,
//!   so it must run after it;
//! * an **order** constraint (`first -> second`): one call must precede another (authenticate
//!   before search).
//!
//! An edge `X -> Y` holds when every call of `Y` has a call of `X` earlier in the trace. It
//! holds vacuously when `Y` never runs. Each axis scores the percent of its declared edges that
//! hold, truncated to an integer in 0..=100; an axis with no edges scores 100. The default gate
//! asks both axes for 100. Extra steps, retries and reordering of unrelated calls never lower
//! the score: only a broken edge does.
//!
//! ```
//! use mcptest_core::eval::{score_trajectory_axes, TrajectoryAxes};
//! use mcptest_core::trace::ToolCall;
//!
//! let calls: Vec<ToolCall> = ["authenticate", "search", "fetch_page", "search"]
//!     .into_iter().map(ToolCall::new).collect();
//! let axes = TrajectoryAxes::default()
//!     .dependency("search", "fetch_page")
//!     .order("authenticate", "search");
//! let score = score_trajectory_axes(&calls, &axes);
//! assert_eq!((score.dependency_satisfaction, score.order_satisfaction), (100, 100));
//! assert!(score.passed());
//! ```

use crate::fasthash::{HashMap, same_bytes};
use crate::trace::ToolCall;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// One declared edge: the tool that must come first, and the tool that must come after.
pub type AxisEdge = (Arc<str>, Arc<str>);

/// The declared edges.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryAxes {
    /// `(producer, consumer)` pairs.
    #[serde(default, with = "dependency_serde")]
    pub dependencies: Vec<AxisEdge>,
    /// `(first, second)` pairs.
    #[serde(default, with = "order_serde")]
    pub order: Vec<AxisEdge>,
}

impl TrajectoryAxes {
    /// Adds a dependency: `consumer` runs only after `producer`.
    pub fn dependency(mut self, producer: impl Into<String>, consumer: impl Into<String>) -> Self {
        self.dependencies
            .push((Arc::from(producer.into()), Arc::from(consumer.into())));
        self
    }

    /// Adds an order constraint: `first` precedes `second`.
    pub fn order(mut self, first: impl Into<String>, second: impl Into<String>) -> Self {
        self.order
            .push((Arc::from(first.into()), Arc::from(second.into())));
        self
    }
}

/// Which axis an edge belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// A producer -> consumer dependency.
    Dependency,
    /// A first -> second order constraint.
    Order,
}

/// The verdict on one edge (its names are shared with the [`TrajectoryAxes`] it judges).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeResult {
    /// The axis.
    pub axis: Axis,
    /// The tool that must come first.
    pub from: Arc<str>,
    /// The tool that must come after.
    pub to: Arc<str>,
    /// True when the edge holds.
    pub held: bool,
    /// For a broken edge, the first recorded index of `to` with no `from` before it.
    pub violated_at: Option<usize>,
}

/// The scores of both axes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxesScore {
    /// Percent of dependency edges that hold (0..=100, truncated; 100 when none declared).
    pub dependency_satisfaction: u32,
    /// Percent of order edges that hold (0..=100, truncated; 100 when none declared).
    pub order_satisfaction: u32,
    /// Every edge, dependencies first, in declaration order.
    pub edges: Vec<EdgeResult>,
}

impl AxesScore {
    /// The default gate: both axes at 100.
    pub fn passed(&self) -> bool {
        self.dependency_satisfaction == 100 && self.order_satisfaction == 100
    }
}

/// Scores `calls` against the declared edges.
pub fn score_trajectory_axes(calls: &[ToolCall], axes: &TrajectoryAxes) -> AxesScore {
    // Each tool's first call: scanned for directly on a short trace with few edges, looked up
    // in an index otherwise.
    let lookups = 2 * (axes.dependencies.len() + axes.order.len());
    let index: Option<HashMap<&str, usize>> =
        (calls.len().saturating_mul(lookups) > 512).then(|| {
            let mut first = HashMap::default();
            for (i, c) in calls.iter().enumerate() {
                first.entry(c.name.as_str()).or_insert(i);
            }
            first
        });
    let first = |name: &str| match &index {
        Some(first) => first.get(name).copied(),
        // Names are short: compared inline, not through the C library's memcmp.
        None => calls
            .iter()
            .position(|c| same_bytes(c.name.as_bytes(), name.as_bytes())),
    };
    // X -> Y holds iff Y never runs, or X's first call precedes Y's first call.
    let judge = |axis: Axis, (from, to): &AxisEdge| {
        let violated_at = match (first(from), first(to)) {
            (_, None) => None,
            (Some(x), Some(y)) if x < y => None,
            (_, Some(y)) => Some(y),
        };
        EdgeResult {
            axis,
            from: from.clone(),
            to: to.clone(),
            held: violated_at.is_none(),
            violated_at,
        }
    };
    let edges: Vec<EdgeResult> = axes
        .dependencies
        .iter()
        .map(|e| judge(Axis::Dependency, e))
        .chain(axes.order.iter().map(|e| judge(Axis::Order, e)))
        .collect();
    let percent = |axis: Axis| {
        let (held, total) = edges
            .iter()
            .filter(|e| e.axis == axis)
            .fold((0u64, 0u64), |(h, t), e| (h + u64::from(e.held), t + 1));
        (held * 100).checked_div(total).map_or(100, |p| p as u32)
    };
    AxesScore {
        dependency_satisfaction: percent(Axis::Dependency),
        order_satisfaction: percent(Axis::Order),
        edges,
    }
}

impl fmt::Display for AxesScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trajectory axes: {} (dependency_satisfaction {}, order_satisfaction {})",
            if self.passed() { "PASS" } else { "FAIL" },
            self.dependency_satisfaction,
            self.order_satisfaction
        )?;
        for e in self.edges.iter().filter(|e| !e.held) {
            let kind = match e.axis {
                Axis::Dependency => "dependency",
                Axis::Order => "order",
            };
            write!(f, "\n  broken {kind} `{}` -> `{}`: ", e.from, e.to)?;
            match e.violated_at {
                Some(i) => write!(
                    f,
                    "`{}` ran at recorded #{i} with no `{}` before it",
                    e.to, e.from
                )?,
                None => write!(f, "violated")?,
            }
        }
        Ok(())
    }
}

mod dependency_serde {
    use super::AxisEdge;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Edge {
        producer: Arc<str>,
        consumer: Arc<str>,
    }

    pub fn serialize<S: Serializer>(v: &[AxisEdge], s: S) -> Result<S::Ok, S::Error> {
        v.iter()
            .map(|(p, c)| Edge {
                producer: p.clone(),
                consumer: c.clone(),
            })
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AxisEdge>, D::Error> {
        Ok(Vec::<Edge>::deserialize(d)?
            .into_iter()
            .map(|e| (e.producer, e.consumer))
            .collect())
    }
}

mod order_serde {
    use super::AxisEdge;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Edge {
        first: Arc<str>,
        second: Arc<str>,
    }

    pub fn serialize<S: Serializer>(v: &[AxisEdge], s: S) -> Result<S::Ok, S::Error> {
        v.iter()
            .map(|(a, b)| Edge {
                first: a.clone(),
                second: b.clone(),
            })
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AxisEdge>, D::Error> {
        Ok(Vec::<Edge>::deserialize(d)?
            .into_iter()
            .map(|e| (e.first, e.second))
            .collect())
    }
}
