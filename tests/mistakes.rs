//! The shared mistake corpus (`tests/mistakes/corpus.json`), through the builder: every case
//! the builder can express is a declaration error in the rulebook's words. The YAML loader
//! (`mcptest-core/tests/mistakes.rs`) and the attribute (the macro crate's `corpus` test) run
//! the same cases.

use mcptest::prelude::*;
use serde_json::Value;

/// The builder's form of a corpus case: its problems, or `None` when the case is one the
/// corpus says the builder cannot express.
fn problems(id: &str) -> Option<Vec<String>> {
    let agent = match id {
        "bad-target" => Agent::new().expect("tool_calls[0.name", exact("search")),
        "narration-gates" => Agent::new().expect("final_response", contains("done")),
        "cross-run-target-in-a-run" => {
            Agent::new().expect("stability.score", schema(json!({"minimum": 0.7})))
        }
        "unknown-cross-run-metric" => Agent::new().runs(2).stability(
            Stability::default().expect("stability.weakest", schema(json!({"minimum": 0.5}))),
        ),
        "unknown-per-run-metric" => Agent::new()
            .golden_path(["search"])
            .expect("golden_path.penalti", schema(json!({"maximum": 0.2}))),
        "target-on-an-undeclared-gate" => {
            Agent::new().expect("golden_path.penalty", schema(json!({"maximum": 0.2})))
        }
        "axes-metric-without-axes" => Agent::new()
            .trajectory(Trajectory::strict([call("search")]))
            .expect("trajectory.order_satisfaction", exact(1.0)),
        "target-under-the-wrong-gate" => Agent::new()
            .runs(2)
            .stability(Stability::default().expect("tool_calls[0].name", exact("search"))),
        "model-graded-gates" => Agent::new().expect(
            "tool_calls[0].args",
            serde_json::from_value::<Matcher>(json!({"llm-judge": {"rubric": "polite"}}))
                .expect("a model-graded matcher"),
        ),
        // Modes are typed; text becomes one through `MatchMode`'s parser.
        "unknown-match-mode" => {
            return Some(match "subsequnce".parse::<MatchMode>() {
                Ok(m) => vec![format!("parsed as {m}")],
                Err(e) => vec![e],
            });
        }
        "stability-on-one-run" => Agent::new().runs(1).stability(Stability::default()),
        "recovery-without-a-fault" => Agent::new().recovery(Recovery::new(3000)),
        "zero-runs" => Agent::new().runs(0),
        "divergence-ceiling-out-of-range" => {
            Agent::new().narrative(Narrative::default().max_divergence_score(1.5))
        }
        "pass-rate-out-of-range" => Agent::new()
            .runs(5)
            .reliability(Reliability::default().min_pass_rate(90.0)),
        "confidence-without-a-floor" => Agent::new()
            .runs(5)
            .reliability(Reliability::default().confidence(0.9)),
        "malformed-regex" => Agent::new().expect("tool_calls[0].name", regex("(")),
        "malformed-schema" => Agent::new().expect("tool_calls[0].args", schema(json!({"type": 5}))),
        _ => return None,
    };
    Some(match agent.cassettes(["a.json"]).into_spec("a") {
        Ok(spec) => vec![format!("accepted: {spec:?}")],
        Err(e) => e.problems,
    })
}

#[test]
fn every_mistake_the_builder_can_write_is_refused_in_the_rulebooks_words() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mistakes/corpus.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in doc["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let words = case["words"].as_str().unwrap();
        let cannot = case["builder_cannot"].as_str();
        match (problems(id), cannot) {
            (Some(_), Some(_)) => failures.push(format!(
                "{id}: the corpus says the builder cannot write it, but this test does"
            )),
            (None, None) => failures.push(format!("{id}: no builder form and no reason why")),
            (None, Some(_)) => {}
            (Some(p), None) => {
                checked += 1;
                if !p.iter().any(|m| m.contains(words)) {
                    failures.push(format!("{id}: no problem says {words:?}; got {p:#?}"));
                }
            }
        }
    }
    assert!(checked >= 15, "only {checked} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
