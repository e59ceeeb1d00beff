//! Calibration: bounds from recordings, where they are written, and what is never loosened.

use mcptest_core::calibrate::{Margins, Side, apply_to_spec, apply_to_yaml_agent, calibrate_agent};
use mcptest_core::suite::{Suite, evaluate_cassette};
use mcptest_core::trace::Cassette;
use serde_json::{Value, json};

fn cassette(runs: &[Value]) -> Cassette {
    Cassette::from_value(&json!({"mcptest_cassette": 1, "runs": runs})).unwrap()
}

/// A run calling these tools in order, with `tokens` in all and one closing answer.
fn run(names: &[&str], tokens: u64, answer: &str) -> Value {
    let calls: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "args": {"step": i}}))
        .collect();
    json!({"trace": {"tool_calls": calls, "conversation": {"tokens": {"total": tokens}, "turns": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": answer}
    ]}}})
}

const SUITE: &str = "\
agents:
  - name: a
    model: m
    runs: 3
    golden_path: { calls: [search, open] }
    trajectory_axes:
      order: [{ first: search, second: open }, { first: open, second: search }]
    trajectory: { mode: subsequence, calls: [search] }
    stability:
      expect:
        - target: stability.variance
          matcher: { schema: { maximum: 0.0001 } }
        - target: stability.argument_consistency
          matcher: { exact: 1 }
    narrative: {}
    reliability: {}
    expect:
      - target: tool_calls[0].name
        matcher: { exact: search }
";

#[test]
fn bounds_follow_the_scale_and_the_margins() {
    let suite = Suite::from_yaml_str("s.yml", SUITE).unwrap();
    let spec = &suite.agents[0];
    let c = cassette(&[
        run(&["search", "search", "open"], 1000, "Found it."),
        run(
            &["search", "search", "open", "open"],
            1000,
            "Found it again.",
        ),
        run(&["search", "search", "search", "open"], 1000, "Here it is."),
    ]);
    let cal = calibrate_agent(&[(spec, &c)], &Margins::default());
    let get = |t: &str| {
        cal.bounds
            .iter()
            .find(|b| b.target == t)
            .unwrap_or_else(|| panic!("no bound on {t}: {:?}", cal.bounds))
    };
    // Integer percents move by 5 points: one of the two order edges holds (no `open` comes
    // before the first `search`): 50% -> 45.
    let order = get("trajectory.order_satisfaction");
    assert_eq!(
        (order.side, order.observed, order.value),
        (Side::Floor, 50.0, 45.0)
    );
    assert_eq!(order.block, "agent");
    // A flag keeps the worst observed value: the repeats fail the golden path.
    let passed = get("golden_path.passed");
    assert_eq!(
        (passed.side, passed.observed, passed.value),
        (Side::Floor, 0.0, 0.0)
    );
    // Lower is better: a ceiling above the highest value.
    let variance = get("stability.variance");
    assert_eq!(variance.side, Side::Ceiling);
    assert!(variance.value >= variance.observed + 0.05 - 1e-9);
    // Scores: 0.05 under the lowest, rounded down to 3 decimals. Run 1 is the weakest:
    // 2 distinct tools in 3 calls, 0.5 -> 0.45.
    let weakest = get("stability.weakest_score");
    assert_eq!((weakest.observed, weakest.value), (0.5, 0.45));
    // The mean of 0.5, 2/3 and 2/3 is 0.6111; minus 0.05 is 0.5611 -> 0.561 (rounded down).
    let score = get("stability.score");
    assert!((score.observed - (0.5 + 2.0 / 3.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
    assert_eq!(score.value, 0.561);
    // Correctness verdicts and recovery budgets get no bound.
    for t in [
        "trajectory.passed",
        "trajectory.mismatch_count",
        "narrative.claimed_but_absent",
    ] {
        assert!(cal.bounds.iter().all(|b| b.target != t), "{t}");
    }
    // Reliability is read after the per-run bounds apply: every run now passes.
    assert_eq!(get("reliability.passhat_k").observed, 100.0);
    assert!(cal.still_failing.is_empty(), "{:?}", cal.still_failing);

    // The calibrated spec passes on the recordings; the original did not.
    let before = evaluate_cassette(spec, &c);
    assert!(before.iter().any(|cell| !cell.passed()));
    let after = evaluate_cassette(&apply_to_spec(spec, &cal.bounds), &c);
    assert!(after.iter().all(|cell| cell.passed()));
}

#[test]
fn correctness_gates_are_never_loosened() {
    let suite = Suite::from_yaml_str("s.yml", SUITE).unwrap();
    let spec = &suite.agents[0];
    // Run 2 never calls `search`: the trajectory pin fails, and stays failing.
    let c = cassette(&[
        run(&["search", "open"], 1000, "Found it."),
        run(&["open"], 1000, "Found it."),
        run(&["search", "open"], 1000, "Found it."),
    ]);
    let cal = calibrate_agent(&[(spec, &c)], &Margins::default());
    assert!(
        cal.still_failing
            .iter()
            .any(|r| r.starts_with("run_2: trajectory:")),
        "{:?}",
        cal.still_failing
    );
}

#[test]
fn the_document_keeps_other_fields_and_replaces_bounded_assertions() {
    let suite = Suite::from_yaml_str("s.yml", SUITE).unwrap();
    let spec = &suite.agents[0];
    let c = cassette(&[
        run(&["search", "open"], 1000, "Found it."),
        run(&["search", "open"], 1000, "Found it."),
        run(&["search", "open"], 1000, "Found it."),
    ]);
    let cal = calibrate_agent(&[(spec, &c)], &Margins::default());
    let mut doc = mcptest_core::suite::suite_document("s.yml", SUITE).unwrap();
    let agent = doc["agents"][0].as_object_mut().unwrap();
    apply_to_yaml_agent(agent, &cal.bounds);
    let stability: Vec<&str> = doc["agents"][0]["stability"]["expect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    // The user's two assertions on bounded targets were replaced, one per target.
    assert_eq!(stability.len(), 6, "{stability:?}");
    assert_eq!(
        stability
            .iter()
            .filter(|t| **t == "stability.variance")
            .count(),
        1
    );
    // The agent's own assertion stays, before the bounds.
    assert_eq!(
        doc["agents"][0]["expect"][0]["target"],
        "tool_calls[0].name"
    );
    assert_eq!(doc["agents"][0]["trajectory"]["mode"], "subsequence");
    // The narrative keeps its default verdict and gains a ceiling.
    assert!(doc["agents"][0]["narrative"]["expect"].is_null());
    assert!(doc["agents"][0]["narrative"]["max_divergence_score"].is_number());
}
