//! Trajectory axes: dependency and order edges.

use mcptest_core::eval::{Axis, TrajectoryAxes, score_trajectory_axes};
use mcptest_core::trace::ToolCall;
use serde_json::json;

fn calls(ns: &[&str]) -> Vec<ToolCall> {
    ns.iter().map(|n| ToolCall::new(*n)).collect()
}

fn docs_axes() -> TrajectoryAxes {
    // The documents' example: fetch_page after search; authenticate before search.
    serde_json::from_value(json!({
        "dependencies": [{"producer": "search", "consumer": "fetch_page"}],
        "order": [{"first": "authenticate", "second": "search"}]
    }))
    .unwrap()
}

#[test]
fn documents_example_holds_with_retries_and_extra_steps() {
    let s = score_trajectory_axes(
        &calls(&[
            "authenticate",
            "log",
            "search",
            "fetch_page",
            "search",
            "fetch_page",
        ]),
        &docs_axes(),
    );
    assert_eq!(
        (s.dependency_satisfaction, s.order_satisfaction),
        (100, 100)
    );
    assert!(s.passed());
}

#[test]
fn a_consumer_before_its_producer_breaks_the_edge() {
    let s = score_trajectory_axes(
        &calls(&["authenticate", "fetch_page", "search"]),
        &docs_axes(),
    );
    assert_eq!((s.dependency_satisfaction, s.order_satisfaction), (0, 100));
    assert_eq!(s.edges[0].violated_at, Some(1));
    assert!(!s.passed());
    assert!(
        s.to_string()
            .contains("`fetch_page` ran at recorded #1 with no `search` before it")
    );
    // The producer never ran but the consumer did: broken.
    let s = score_trajectory_axes(&calls(&["authenticate", "fetch_page"]), &docs_axes());
    assert_eq!(s.dependency_satisfaction, 0);
}

#[test]
fn edges_hold_vacuously_when_the_second_tool_never_runs() {
    let s = score_trajectory_axes(&calls(&["fetch_nothing"]), &docs_axes());
    assert_eq!(
        (s.dependency_satisfaction, s.order_satisfaction),
        (100, 100)
    );
    let s = score_trajectory_axes(&[], &docs_axes());
    assert!(s.passed());
}

#[test]
fn percent_is_truncated_over_declared_edges() {
    // 3 order edges, 2 hold: floor(200/3) = 66.
    let axes = TrajectoryAxes::default()
        .order("a", "b")
        .order("b", "c")
        .order("c", "a");
    let s = score_trajectory_axes(&calls(&["a", "b", "c"]), &axes);
    assert_eq!(s.order_satisfaction, 66);
    assert_eq!(s.dependency_satisfaction, 100, "no dependency edges: 100");
    assert_eq!(
        s.edges
            .iter()
            .filter(|e| e.axis == Axis::Order && !e.held)
            .count(),
        1
    );
}

#[test]
fn a_tool_is_never_before_itself() {
    let s = score_trajectory_axes(
        &calls(&["a", "a"]),
        &TrajectoryAxes::default().order("a", "a"),
    );
    assert_eq!(s.order_satisfaction, 0);
}

#[test]
fn yaml_shape_round_trips_and_rejects_unknown_keys() {
    let axes = docs_axes();
    let v = serde_json::to_value(&axes).unwrap();
    assert_eq!(v["dependencies"][0]["producer"], "search");
    assert_eq!(serde_json::from_value::<TrajectoryAxes>(v).unwrap(), axes);
    assert!(
        serde_json::from_value::<TrajectoryAxes>(
            json!({"dependencies": [{"from": "a", "to": "b"}]})
        )
        .is_err()
    );
}

mod at_any_size {
    use mcptest_core::eval::{TrajectoryAxes, score_trajectory_axes};
    use mcptest_core::trace::ToolCall;
    use proptest::prelude::*;

    /// The rule written plainly: X -> Y holds iff Y never runs or X's first call precedes
    /// Y's first call.
    fn holds(names: &[String], from: &str, to: &str) -> bool {
        let first = |n: &str| names.iter().position(|x| x == n);
        match (first(from), first(to)) {
            (_, None) => true,
            (Some(x), Some(y)) => x < y,
            (None, Some(_)) => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn short_and_long_traces_score_by_the_same_rule(
            picks in prop::collection::vec(0u8..12, 0..150),
            edges in prop::collection::vec((0u8..14, 0u8..14, any::<bool>()), 0..12),
        ) {
            // Tools 12 and 13 never run, so edges to and from absent tools are exercised.
            let names: Vec<String> = picks.iter().map(|p| format!("t{p}")).collect();
            let calls: Vec<ToolCall> = names.iter().map(ToolCall::new).collect();
            let mut axes = TrajectoryAxes::default();
            for (a, b, dependency) in &edges {
                let (a, b) = (format!("t{a}"), format!("t{b}"));
                axes = if *dependency { axes.dependency(a, b) } else { axes.order(a, b) };
            }
            let score = score_trajectory_axes(&calls, &axes);
            prop_assert_eq!(score.edges.len(), edges.len());
            for e in &score.edges {
                prop_assert_eq!(e.held, holds(&names, &e.from, &e.to), "{} -> {}", e.from, e.to);
            }
        }
    }
}
