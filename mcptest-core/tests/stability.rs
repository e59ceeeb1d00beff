//! Within-session and cross-run stability: every rule of the product documents, hand-computed
//! cases for each sub-score and aggregate, malformed input, and properties (ranges, repeated
//! runs, key order, the bit-parallel LCS against a plain DP).

use mcptest_core::eval::{
    StabilityAcross, StabilityFloors, StabilityReport, agent_stability, agent_stability_across,
    drift_flags, lcs_length, trace_stability, trace_stability_across,
};
use mcptest_core::trace::Cassette;
use mcptest_core::trace::{ConversationTrace, Run, ToolCall, Turn};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// A call `{name, server, args}` as a recorder writes it.
fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "server": "docs", "args": args})
}

/// An envelope with these calls, these assistant answers (after one user prompt) and tokens.
fn envelope(calls: Vec<Value>, answers: &[&str], tokens: Option<u64>) -> Value {
    let mut turns = vec![json!({"role": "user", "content": "Find the release notes."})];
    turns.extend(
        answers
            .iter()
            .map(|a| json!({"role": "assistant", "content": a})),
    );
    let mut conversation = json!({"turns": turns});
    if let Some(t) = tokens {
        conversation["tokens"] = json!({"total": t});
    }
    json!({"tool_calls": calls, "conversation": conversation})
}

/// Calls of these names, each with distinct args.
fn named_calls(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| call(n, json!({"step": i})))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// tool_usage_stability = 1 - (distinct_tools - 1) / (total_calls - 1), 1.0 under two calls.

#[test]
fn tool_usage_stability_hand_computed() {
    let two_answers = ["Looking.", "Done now."];
    // search, open, search, fetch, search: 3 distinct of 5 -> 1 - 2/4 = 0.5.
    let r = agent_stability(&envelope(
        named_calls(&["search", "open", "search", "fetch", "search"]),
        &two_answers,
        None,
    ));
    assert!(close(r.tool_usage_stability, 0.5));
    // A fresh tool on every call: 4 distinct of 4 -> 1 - 3/3 = 0.
    let r = agent_stability(&envelope(
        named_calls(&["a", "b", "c", "d"]),
        &two_answers,
        None,
    ));
    assert_eq!(r.tool_usage_stability, 0.0);
    // One tool five times -> 1.
    let r = agent_stability(&envelope(named_calls(&["search"; 5]), &two_answers, None));
    assert_eq!(r.tool_usage_stability, 1.0);
    // A tool is its name: the same name on two servers is one tool.
    let calls = vec![
        json!({"name": "search", "server": "docs", "args": {"q": 1}}),
        json!({"name": "search", "server": "web", "args": {"q": 1}}),
        json!({"name": "open", "server": "web", "args": {"q": 1}}),
    ];
    let r = agent_stability(&envelope(calls, &two_answers, None));
    // 2 distinct names of 3 calls -> 1 - 1/2 = 0.5; but three distinct (name, server, args).
    assert!(close(r.tool_usage_stability, 0.5));
    assert_eq!(r.redundancy, 1.0);
    // Fewer than two calls (with enough turns not to be trivially stable) -> 1.
    let r = agent_stability(&envelope(named_calls(&["search"]), &two_answers, None));
    assert_eq!(r.tool_usage_stability, 1.0);
}

// ---------------------------------------------------------------------------------------------
// response_consistency = 1 - min(1, cv), cv = population std / mean of assistant char counts.

#[test]
fn response_consistency_uses_population_std() {
    // Lengths 10 and 30: mean 20, population std 10, cv 0.5 -> 0.5.
    // (The sample std, 14.14, would give 0.293.)
    let r = agent_stability(&envelope(
        vec![],
        &["a".repeat(10).as_str(), &"b".repeat(30)],
        None,
    ));
    assert!(close(r.response_consistency, 0.5), "{r}");
    // Lengths 5, 5, 5 -> std 0 -> 1.
    let r = agent_stability(&envelope(vec![], &["hello", "there", "again"], None));
    assert_eq!(r.response_consistency, 1.0);
    // Lengths 1 and 100: mean 50.5, std 49.5, cv 0.980198 -> 0.019802.
    let r = agent_stability(&envelope(vec![], &["k", &"x".repeat(100)], None));
    assert!(close(r.response_consistency, 1.0 - 49.5 / 50.5));
    // Lengths 2, 30, 100: mean 44, population std 41.22, cv 0.937 -> 0.063.
    let r = agent_stability(&envelope(
        vec![],
        &["ok", &"z".repeat(30), &"y".repeat(100)],
        None,
    ));
    let std = ((42.0f64.powi(2) + 14.0f64.powi(2) + 56.0f64.powi(2)) / 3.0).sqrt();
    assert!(close(r.response_consistency, 1.0 - std / 44.0), "{r}");
    // Lengths 1 and 300: cv 0.993; lengths 1, 1, 1, 300: cv 1.73 capped at 1 -> 0.
    let r = agent_stability(&envelope(vec![], &["a", "b", "c", &"z".repeat(300)], None));
    assert_eq!(r.response_consistency, 0.0);
}

#[test]
fn response_consistency_counts_only_turns_that_carry_text() {
    // Texts of 100 and 120 characters with three tool-only turns between them: the tool-only
    // turns are not answers. Mean 110, population std 10, cv 10/110 -> 1 - 1/11.
    let mut turns = vec![
        json!({"role": "user", "content": "Book the flight."}),
        json!({"role": "assistant", "content": "a".repeat(100)}),
    ];
    turns.push(json!({"role": "assistant", "content": ""}));
    turns.push(json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "search", "input": {}}]}));
    turns.push(
        json!({"role": "assistant", "content": [{"type": "text", "text": "  \n"},
        {"type": "tool_use", "id": "t2", "name": "book", "input": {}}]}),
    );
    turns.push(json!({"role": "assistant", "content": "b".repeat(120)}));
    let v = json!({"conversation": {"turns": turns}});
    let r = agent_stability(&v);
    assert!(close(r.response_consistency, 1.0 - 1.0 / 11.0), "{r}");
    // The decoded trace agrees.
    let c = Cassette::from_json_str("t.json", &v.to_string()).unwrap();
    assert_eq!(trace_stability(&c.runs[0].trace), r);
    // Counting the three tool-only turns as 0-character answers would have given
    // lengths 100, 0, 0, 0, 120: cv 1.2 -> 0.
    assert!(r.response_consistency > 0.9);
}

#[test]
fn response_consistency_degenerate_cases() {
    // No assistant turn carries text -> 1 (no answer to vary).
    let r = agent_stability(&envelope(vec![], &["", "", ""], None));
    assert_eq!(r.response_consistency, 1.0);
    // One answer among tool-only turns -> 1 (fewer than two answers).
    let r = agent_stability(&envelope(vec![], &["", &"z".repeat(30), ""], None));
    assert_eq!(r.response_consistency, 1.0);
    // One assistant turn among several user turns -> 1.
    let v = json!({"conversation": {"turns": [
        {"role": "user", "content": "a"},
        {"role": "user", "content": "a much longer user turn that does not count"},
        {"role": "assistant", "content": "x"}
    ]}});
    assert_eq!(agent_stability(&v).response_consistency, 1.0);
    // User and tool turns never count: equal assistant answers stay perfect.
    let v = json!({"conversation": {"turns": [
        {"role": "user", "content": "short"},
        {"role": "assistant", "content": "four"},
        {"role": "tool", "content": "a very long tool result that is not an answer at all"},
        {"role": "assistant", "content": "five"}
    ]}});
    assert_eq!(agent_stability(&v).response_consistency, 1.0);
}

#[test]
fn response_consistency_counts_characters_not_bytes() {
    // "ééééé" is 5 characters (10 bytes), "abcde" 5 characters: equal, so 1.0.
    // Counting bytes would give lengths 10 and 5: cv 1/3 -> 0.667.
    let r = agent_stability(&envelope(vec![], &["ééééé", "abcde"], None));
    assert_eq!(r.response_consistency, 1.0);
    // "日本語" is 3 scalar values (9 bytes); "👍👍👍" 3 (12 bytes); "e\u{301}x" is 3 (a
    // combining accent is its own scalar value).
    let r = agent_stability(&envelope(vec![], &["日本語", "👍👍👍", "e\u{301}x"], None));
    assert_eq!(r.response_consistency, 1.0);
    // 2 vs 6 characters: mean 4, std 2, cv 0.5 -> 0.5 ("🦀🦀" is 8 bytes).
    let r = agent_stability(&envelope(vec![], &["🦀🦀", "crabby"], None));
    assert!(close(r.response_consistency, 0.5));
}

#[test]
fn response_consistency_reads_content_arrays() {
    // A content array counts its text blocks, joined by "\n" as Turn::text_content reads them:
    // "abc" + "\n" + "de" = 6 characters; the tool_use block has no text.
    let blocks = json!([
        {"type": "text", "text": "abc"},
        {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "a much longer query"}},
        {"type": "text", "text": "de"}
    ]);
    assert_eq!(
        Turn {
            role: "assistant".into(),
            content: blocks.clone(),
            extra: Map::new()
        }
        .text_content()
        .chars()
        .count(),
        6
    );
    let v = json!({"conversation": {"turns": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": blocks},
        {"role": "assistant", "content": "sixsix"}
    ]}});
    assert_eq!(agent_stability(&v).response_consistency, 1.0);
    // A bare string block counts as text, an image block does not:
    // "abc\nde" = 6 characters against "eighteen chars..\n!!" = 16 + 1 + 2 = 19.
    let v = json!({"conversation": {"turns": [
        {"role": "assistant", "content": [{"type": "text", "text": "abc"}, {"type": "text", "text": "de"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "eighteen chars.."}, {"type": "image"}, "!!"]}
    ]}});
    let r = agent_stability(&v);
    // 6 and 19: mean 12.5, population std 6.5, cv 0.52 -> 0.48.
    assert!(close(r.response_consistency, 1.0 - 6.5 / 12.5), "{r}");
}

// ---------------------------------------------------------------------------------------------
// redundancy = distinct_calls / total_calls keyed on (name, server, canonical args).

#[test]
fn redundancy_hand_computed_with_shuffled_keys() {
    // Four calls, the third re-emits the first with its keys in another order and 10 as 10.0:
    // distinct 3 of 4 -> 0.75.
    let calls: Vec<Value> = vec![
        serde_json::from_str(
            r#"{"name": "search", "server": "docs", "args": {"q": "rust", "limit": 10}}"#,
        )
        .unwrap(),
        serde_json::from_str(r#"{"name": "open", "server": "docs", "args": {"url": "https://a"}}"#)
            .unwrap(),
        serde_json::from_str(
            r#"{"name": "search", "server": "docs", "args": {"limit": 10.0, "q": "rust"}}"#,
        )
        .unwrap(),
        serde_json::from_str(
            r#"{"name": "search", "server": "docs", "args": {"q": "rust", "limit": 11}}"#,
        )
        .unwrap(),
    ];
    let r = agent_stability(&envelope(calls, &["a", "b"], None));
    assert_eq!(r.redundancy, 0.75);
    // Same call through the wire name: `docs__search` is search on docs, a repeat.
    let calls = vec![
        json!({"name": "docs__search", "args": {"q": "x"}}),
        json!({"name": "search", "server": "docs", "args": {"q": "x"}}),
    ];
    assert_eq!(
        agent_stability(&envelope(calls, &["a", "b"], None)).redundancy,
        0.5
    );
    // Another server is another call.
    let calls = vec![
        json!({"name": "search", "server": "docs", "args": {"q": "x"}}),
        json!({"name": "search", "server": "web", "args": {"q": "x"}}),
    ];
    assert_eq!(
        agent_stability(&envelope(calls, &["a", "b"], None)).redundancy,
        1.0
    );
    // A loop: the same failing call 5 times -> 1/5.
    let calls = vec![call("deploy", json!({"env": "prod"})); 5];
    assert!(close(
        agent_stability(&envelope(calls, &["a", "b"], None)).redundancy,
        0.2
    ));
    // No calls -> 1.
    assert_eq!(
        agent_stability(&envelope(vec![], &["a", "b"], None)).redundancy,
        1.0
    );
}

// ---------------------------------------------------------------------------------------------
// cost_per_progress = 2000 / max(2000, tokens / distinct_calls).

#[test]
fn cost_per_progress_hand_computed() {
    let answers = ["one", "two"];
    // 12000 tokens over 3 distinct calls = 4000 per call -> 2000/4000 = 0.5.
    let r = agent_stability(&envelope(
        named_calls(&["a", "b", "c"]),
        &answers,
        Some(12_000),
    ));
    assert_eq!(r.cost_per_progress, 0.5);
    // 3000 over 3 = 1000 per call, under the target -> 1.
    let r = agent_stability(&envelope(
        named_calls(&["a", "b", "c"]),
        &answers,
        Some(3_000),
    ));
    assert_eq!(r.cost_per_progress, 1.0);
    // A repeat is not progress: 4 calls, 2 distinct, 10000 tokens -> 5000 per call -> 0.4.
    let calls = vec![
        call("search", json!({"q": "a"})),
        call("search", json!({"q": "a"})),
        call("open", json!({"u": 1})),
        call("open", json!({"u": 1})),
    ];
    let r = agent_stability(&envelope(calls, &answers, Some(10_000)));
    assert_eq!(r.cost_per_progress, 0.4);
    assert_eq!(r.redundancy, 0.5);
    // No tokens recorded, or zero -> 1.
    let r = agent_stability(&envelope(named_calls(&["a", "b"]), &answers, None));
    assert_eq!(r.cost_per_progress, 1.0);
    let r = agent_stability(&envelope(named_calls(&["a", "b"]), &answers, Some(0)));
    assert_eq!(r.cost_per_progress, 1.0);
}

#[test]
fn tokens_spent_against_zero_calls_cost_zero() {
    // Two assistant turns (not trivially stable), no calls, 5000 tokens -> 0.0.
    let r = agent_stability(&envelope(
        vec![],
        &["Thinking.", "Still thinking."],
        Some(5_000),
    ));
    assert_eq!(r.cost_per_progress, 0.0);
    assert_eq!(r.weakest_score(), 0.0);
    assert_eq!(r.tool_usage_stability, 1.0);
    assert_eq!(r.redundancy, 1.0);
}

// ---------------------------------------------------------------------------------------------
// The short-trace rule: at most one turn AND at most one call is 1.0 everywhere.

#[test]
fn one_turn_and_one_call_is_trivially_stable() {
    let v = json!({
        "tool_calls": [call("search", json!({"q": "a"}))],
        "conversation": {"tokens": {"total": 90_000},
                         "turns": [{"role": "assistant", "content": "done"}]}
    });
    assert_eq!(agent_stability(&v), StabilityReport::PERFECT);
    // Empty envelope, and zero calls with one turn and tokens: trivially stable too.
    assert_eq!(agent_stability(&json!({})), StabilityReport::PERFECT);
    let v = json!({"conversation": {"tokens": {"total": 50_000},
                                    "turns": [{"role": "user", "content": "hi"}]}});
    assert_eq!(agent_stability(&v), StabilityReport::PERFECT);
    // Two calls and no turns is not trivial: 2 identical calls -> redundancy 0.5.
    let v = json!({"tool_calls": [call("a", json!({})), call("a", json!({}))]});
    let r = agent_stability(&v);
    assert_eq!(r.redundancy, 0.5);
    assert_eq!(r.tool_usage_stability, 1.0);
    // One call and two turns is not trivial: 9000 tokens on one call -> 2000/9000.
    let r = agent_stability(&envelope(named_calls(&["a"]), &["answer"], Some(9_000)));
    assert!(close(r.cost_per_progress, 2.0 / 9.0));
}

// ---------------------------------------------------------------------------------------------
// Input shapes.

#[test]
fn cassette_run_and_bare_envelope_score_the_same() {
    let env = envelope(
        vec![
            call("search", json!({"q": "a"})),
            call("search", json!({"q": "a"})),
            call("open", json!({"u": 1})),
        ],
        &["short", "a longer answer"],
        Some(7_000),
    );
    let run = json!({"trace": env.clone(), "exchanges": [], "meta": {"model": "m"}});
    assert_eq!(agent_stability(&run), agent_stability(&env));
    // Through the trace model: Run::to_value and ConversationTrace::to_envelope.
    let trace = ConversationTrace::from_envelope(&env).unwrap();
    assert_eq!(agent_stability(&trace.to_envelope()), agent_stability(&env));
    assert_eq!(
        agent_stability(&Run::from_trace(trace).to_value()),
        agent_stability(&env)
    );
    // A trace built in Rust.
    let call = ToolCall::new("search")
        .with_server("docs")
        .with_args(json!({"q": "a"}));
    let mut built = ConversationTrace {
        tool_calls: vec![call.clone(), call],
        ..ConversationTrace::default()
    };
    built.conversation.turns = vec![Turn::text("user", "q"), Turn::text("assistant", "a")];
    assert_eq!(agent_stability(&built.to_envelope()).redundancy, 0.5);
}

#[test]
fn malformed_input_is_read_conservatively() {
    // Roots that are not objects, and known fields of the wrong type: no panic, no calls.
    for v in [
        json!(null),
        json!(42),
        json!("text"),
        json!([1, 2, 3]),
        json!({"tool_calls": "not a list", "conversation": []}),
        json!({"trace": 5}),
        json!({"conversation": {"turns": "nope", "tokens": "many"}}),
    ] {
        assert_eq!(agent_stability(&v), StabilityReport::PERFECT, "{v}");
    }
    // Calls without a name are skipped; non-object turns do not count; a negative or textual
    // token total reads as no tokens.
    let v = json!({
        "tool_calls": [{"args": {"q": 1}}, {"name": "a"}, 7, {"name": "a"}],
        "conversation": {"tokens": {"total": -5},
                         "turns": ["loose", {"role": "assistant", "content": "ab"},
                                   {"role": "assistant", "content": null},
                                   {"content": "no role"}]}
    });
    let r = agent_stability(&v);
    assert_eq!(r.redundancy, 0.5); // two readable calls, both `a` without args
    assert_eq!(r.cost_per_progress, 1.0);
    // Assistant turns "ab" and null: null carries no text, so one answer -> 1.
    assert_eq!(r.response_consistency, 1.0);
    let v = json!({"tool_calls": [call("a", json!(1)), call("b", json!(2))],
                   "conversation": {"tokens": {"total": 8000.0}}});
    assert_eq!(agent_stability(&v).cost_per_progress, 0.5); // a float total is still read
}

// ---------------------------------------------------------------------------------------------
// weakest_score, summary, floors.

#[test]
fn weakest_score_and_summary() {
    let r = StabilityReport {
        tool_usage_stability: 0.8,
        response_consistency: 0.95,
        redundancy: 0.6,
        cost_per_progress: 0.7,
    };
    assert_eq!(r.weakest_score(), 0.6);
    let line = r.summary();
    assert!(!line.contains('\n'));
    for part in [
        "tool_usage_stability=0.800",
        "response_consistency=0.950",
        "redundancy=0.600",
        "cost_per_progress=0.700",
        "weakest 0.600",
    ] {
        assert!(line.contains(part), "{line}");
    }
    assert!(r.to_string().contains(&line));
    let back: StabilityReport = serde_json::from_value(serde_json::to_value(r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn drift_flags_are_strict_and_in_field_order() {
    let r = StabilityReport {
        tool_usage_stability: 0.5,
        response_consistency: 0.2,
        redundancy: 0.99,
        cost_per_progress: 0.0,
    };
    // Default 0.5: exactly at the floor does not fire.
    assert_eq!(
        drift_flags(&r, &StabilityFloors::default()),
        vec!["response_consistency", "cost_per_progress"]
    );
    // A floor of 0.0 never fires, even on a 0.0 score.
    assert!(drift_flags(&r, &StabilityFloors::uniform(0.0)).is_empty());
    // A floor of 1.0 flags anything short of perfect.
    assert_eq!(
        drift_flags(&r, &StabilityFloors::uniform(1.0)),
        vec![
            "tool_usage_stability",
            "response_consistency",
            "redundancy",
            "cost_per_progress"
        ]
    );
    assert!(drift_flags(&StabilityReport::PERFECT, &StabilityFloors::uniform(1.0)).is_empty());
    // Per-dimension floors.
    let floors = StabilityFloors {
        redundancy: 1.0,
        ..StabilityFloors::uniform(0.0)
    };
    assert_eq!(drift_flags(&r, &floors), vec!["redundancy"]);
}

#[test]
fn floors_default_to_one_half_and_deserialize_partially() {
    assert_eq!(StabilityFloors::default(), StabilityFloors::uniform(0.5));
    let f: StabilityFloors = serde_json::from_value(json!({"redundancy": 0.9})).unwrap();
    assert_eq!(f.redundancy, 0.9);
    assert_eq!(f.cost_per_progress, 0.5);
    assert!(serde_json::from_value::<StabilityFloors>(json!({"redundnacy": 0.9})).is_err());
}

// ---------------------------------------------------------------------------------------------
// Across runs.

#[test]
fn across_runs_score_weakest_and_variance() {
    let answers = ["same", "size"];
    // A: two search calls, different args, no tokens -> every sub-score 1 -> weakest 1.
    let a = envelope(
        vec![
            call("search", json!({"q": "a"})),
            call("search", json!({"q": "b"})),
        ],
        &answers,
        None,
    );
    // B: the same call twice -> redundancy 1/2 -> weakest 0.5.
    let b = envelope(
        vec![
            call("search", json!({"q": "a"})),
            call("search", json!({"q": "a"})),
        ],
        &answers,
        None,
    );
    // C: like A but 16000 tokens over 2 distinct calls = 8000 -> cost 0.25 -> weakest 0.25.
    let c = envelope(
        vec![
            call("search", json!({"q": "a"})),
            call("search", json!({"q": "b"})),
        ],
        &answers,
        Some(16_000),
    );
    let across = agent_stability_across(&[a, b, c]);
    // mean(1, 1/2, 1/4) = 7/12; min 1/4; variance = (1 + 1/4 + 1/16)/3 - (7/12)^2 = 14/144.
    assert!(close(across.score, 7.0 / 12.0));
    assert_eq!(across.weakest_score, 0.25);
    assert!(close(across.variance, 14.0 / 144.0));
    // Every run is [search, search]: identical paths, no divergence.
    assert_eq!(across.tool_sequence_similarity, 1.0);
    assert_eq!(across.early_divergence, 0);
    // Args per pair: (A,B) position 1 differs -> 1/2; (A,C) 2/2; (B,C) 1/2 -> mean 2/3.
    assert!(close(across.argument_consistency, 2.0 / 3.0));
}

#[test]
fn across_runs_similarity_arguments_and_divergence() {
    let answers = ["x", "y"];
    // R1: search open summarize
    // R2: search summarize
    // R3: open fetch summarize search
    let r1 = envelope(
        vec![
            call("search", json!({"q": "rust"})),
            call("open", json!({"url": "a"})),
            call("summarize", json!({})),
        ],
        &answers,
        None,
    );
    let r2 = envelope(
        vec![
            call("search", json!({"q": "rust"})),
            call("summarize", json!({})),
        ],
        &answers,
        None,
    );
    let r3 = envelope(
        vec![
            call("open", json!({"url": "a"})),
            call("fetch", json!({"url": "a"})),
            call("summarize", json!({"style": "short"})),
            call("search", json!({"q": "Rust"})),
        ],
        &answers,
        None,
    );
    let across = agent_stability_across(&[r1, r2, r3]);
    // LCS: (R1,R2) = 2 [search summarize] / 3; (R1,R3) = 2 [open summarize] / 4;
    // (R2,R3) = 1 / 4. Mean = (2/3 + 1/2 + 1/4) / 3 = 17/36.
    assert!(close(across.tool_sequence_similarity, 17.0 / 36.0));
    // Same-name positions: (R1,R2) index 0 search, args equal -> 1; (R1,R3) index 2 summarize,
    // args differ -> 0; (R2,R3) none -> left out. Mean of 1 and 0 = 0.5.
    assert_eq!(across.argument_consistency, 0.5);
    // Divergence: (R1,R2) at 1, (R1,R3) at 0, (R2,R3) at 0: 3 of 3 early -> 1.
    assert_eq!(across.early_divergence, 1);
    // Every run uses a fresh tool on every call -> tool_usage_stability 0 -> weakest 0.
    assert_eq!(across.score, 0.0);
    assert_eq!(across.variance, 0.0);
}

#[test]
fn early_divergence_needs_a_strict_majority() {
    let runs = |seqs: &[&[&str]]| -> StabilityAcross {
        let envs: Vec<Value> = seqs
            .iter()
            .map(|s| envelope(named_calls(s), &["a", "b"], None))
            .collect();
        agent_stability_across(&envs)
    };
    // Late splits: pairs diverge at 3 (a name differs, or one run ends) -> 0.
    assert_eq!(
        runs(&[
            &["a", "b", "c", "d"],
            &["a", "b", "c", "e"],
            &["a", "b", "c"]
        ])
        .early_divergence,
        0
    );
    // A = B = abcd, C = D = abcx, E = x: AB and CD identical (not diverging); AC, AD, BC, BD
    // split at 3 (late); AE, BE, CE, DE at 0 (early). 4 of 8 is a tie, not a strict majority.
    let tie = runs(&[
        &["a", "b", "c", "d"],
        &["a", "b", "c", "d"],
        &["a", "b", "c", "x"],
        &["a", "b", "c", "x"],
        &["x"],
    ]);
    assert_eq!(tie.early_divergence, 0);
    // A = B = abcd, C = abcx, D = ax, E = y: AB none; AC, BC at 3; AD, BD, CD at 1;
    // AE, BE, CE, DE at 0 -> 7 early of 9 diverging -> 1.
    let majority = runs(&[
        &["a", "b", "c", "d"],
        &["a", "b", "c", "d"],
        &["a", "b", "c", "x"],
        &["a", "x"],
        &["y"],
    ]);
    assert_eq!(majority.early_divergence, 1);
    // A prefix diverges where the shorter run ends: [a] vs [a, b] at 1 (early).
    assert_eq!(runs(&[&["a"], &["a", "b"]]).early_divergence, 1);
    assert_eq!(runs(&[&["a", "b"], &["a", "b", "c"]]).early_divergence, 0);
    // Identical runs never diverge -> 0.
    assert_eq!(runs(&[&["a", "b"], &["a", "b"]]).early_divergence, 0);
}

#[test]
fn empty_sequences_and_degenerate_run_counts() {
    let empty = envelope(vec![], &["a", "b"], None);
    let one = envelope(named_calls(&["search", "open"]), &["a", "b"], None);
    // Two empty sequences: similarity 1; no same-name position: consistency 1; no divergence.
    let both_empty = agent_stability_across(&[empty.clone(), empty.clone()]);
    assert_eq!(both_empty.tool_sequence_similarity, 1.0);
    assert_eq!(both_empty.argument_consistency, 1.0);
    assert_eq!(both_empty.early_divergence, 0);
    // Empty against non-empty: LCS 0 / 2 = 0; diverges at index 0.
    let mixed = agent_stability_across(&[empty, one.clone()]);
    assert_eq!(mixed.tool_sequence_similarity, 0.0);
    assert_eq!(mixed.early_divergence, 1);
    // One run: no pair. Similarity 1, consistency 1, variance 0, score = weakest = the run's.
    let single = agent_stability_across(std::slice::from_ref(&one));
    let w = agent_stability(&one).weakest_score();
    assert_eq!(
        single,
        StabilityAcross {
            score: w,
            weakest_score: w,
            variance: 0.0,
            tool_sequence_similarity: 1.0,
            argument_consistency: 1.0,
            early_divergence: 0,
        }
    );
    // No run: no evidence of stability -> score and weakest 0 (a gate fails).
    let none = agent_stability_across(&[]);
    assert_eq!(none.score, 0.0);
    assert_eq!(none.weakest_score, 0.0);
    assert_eq!(none.variance, 0.0);
    assert_eq!(none.tool_sequence_similarity, 1.0);
    assert_eq!(none.early_divergence, 0);
    assert!(none.to_string().contains("score=0.000"));
}

#[test]
fn across_accepts_cassette_runs_and_envelopes_mixed() {
    let env = envelope(
        named_calls(&["search", "open", "search"]),
        &["a", "bb"],
        Some(100),
    );
    let as_run = json!({"trace": env.clone()});
    let across = agent_stability_across(&[env.clone(), as_run]);
    assert_eq!(across.tool_sequence_similarity, 1.0);
    assert_eq!(across.argument_consistency, 1.0);
    assert_eq!(across.variance, 0.0);
    assert_eq!(across.score, agent_stability(&env).weakest_score());
    let v = serde_json::to_value(&across).unwrap();
    assert_eq!(v["early_divergence"], json!(0));
}

#[test]
fn decoded_traces_score_like_their_envelopes() {
    // A cassette file as the harness reads it: the typed entry points give the same numbers
    // as the envelope ones on the runs' JSON.
    let text = json!({"mcptest_cassette": 1, "runs": [
        {"trace": envelope(named_calls(&["search", "open", "search"]), &["ok", "fine"], Some(9_000))},
        {"trace": envelope(vec![call("search", json!({"step": 0})), call("search", json!({"step": 0}))],
                           &["ok", "a longer one"], Some(500))},
        {"trace": envelope(vec![], &["only words", "and more words"], Some(4_000))}
    ]})
    .to_string();
    let cassette = Cassette::from_json_str("search.json", &text).unwrap();
    let values: Vec<Value> = cassette.runs.iter().map(Run::to_value).collect();
    for (run, value) in cassette.runs.iter().zip(&values) {
        assert_eq!(trace_stability(&run.trace), agent_stability(value));
    }
    let typed = trace_stability_across(cassette.runs.iter().map(|r| &r.trace));
    assert_eq!(typed, agent_stability_across(&values));
    // The third run spent tokens on no call: cost 0, so the weakest score is 0.
    assert_eq!(typed.weakest_score, 0.0);
}

#[test]
fn lcs_examples() {
    assert_eq!(lcs_length(b"ABCBDAB", b"BDCABA"), 4);
    assert_eq!(lcs_length::<u8>(b"", b""), 0);
    assert_eq!(lcs_length(b"abc", b"xyz"), 0);
    // Sequences longer than one 64-bit word, differing in one place.
    let a: Vec<u32> = (0..150).map(|i| i % 7).collect();
    let mut b = a.clone();
    b[100] = 99;
    assert_eq!(lcs_length(&a, &b), 149);
    assert_eq!(lcs_length(&a, &a), 150);
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// The plain O(n * m) dynamic program.
fn lcs_reference<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()]
}

const TOOLS: [&str; 5] = ["search", "open", "fetch", "summarize", "deploy"];

/// A random call: a name from a small pool, an args object with small values.
fn arb_call() -> impl Strategy<Value = (usize, Vec<(String, u8)>)> {
    (
        0..TOOLS.len(),
        proptest::collection::vec(("[a-d]", 0u8..3), 0..4),
    )
}

/// A random run as (calls, assistant answers, tokens).
type RawRun = (Vec<(usize, Vec<(String, u8)>)>, Vec<String>, Option<u32>);

fn arb_run() -> impl Strategy<Value = RawRun> {
    (
        proptest::collection::vec(arb_call(), 0..12),
        proptest::collection::vec("[a-zé日🦀 ]{0,40}", 0..5),
        proptest::option::of(0u32..60_000),
    )
}

/// Builds the envelope, writing each args object's keys in the given order (reversed when
/// `reverse`); serde_json keeps insertion order here, so the JSON text really differs.
fn build(run: &RawRun, reverse: bool) -> Value {
    let (calls, answers, tokens) = run;
    let calls = calls
        .iter()
        .map(|(t, args)| {
            let mut pairs = args.clone();
            pairs.sort();
            pairs.dedup_by(|x, y| x.0 == y.0);
            if reverse {
                pairs.reverse();
            }
            let map: Map<String, Value> = pairs.into_iter().map(|(k, v)| (k, json!(v))).collect();
            call(TOOLS[*t], Value::Object(map))
        })
        .collect();
    let answers: Vec<&str> = answers.iter().map(String::as_str).collect();
    envelope(calls, &answers, tokens.map(u64::from))
}

fn in_unit(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

proptest! {
    #[test]
    fn bit_parallel_lcs_equals_the_dp(
        a in proptest::collection::vec(0u8..4, 0..200),
        b in proptest::collection::vec(0u8..4, 0..200),
    ) {
        prop_assert_eq!(lcs_length(&a, &b), lcs_reference(&a, &b));
        prop_assert_eq!(lcs_length(&b, &a), lcs_reference(&a, &b));
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dp_with_shared_ends(
        prefix in proptest::collection::vec(0u8..3, 0..80),
        x in proptest::collection::vec(0u8..3, 0..90),
        y in proptest::collection::vec(0u8..3, 0..90),
        suffix in proptest::collection::vec(0u8..3, 0..80),
    ) {
        // Runs that share a plan and differ in the middle, as real recordings do.
        let a: Vec<u8> = prefix.iter().chain(&x).chain(&suffix).copied().collect();
        let b: Vec<u8> = prefix.iter().chain(&y).chain(&suffix).copied().collect();
        prop_assert_eq!(lcs_length(&a, &b), lcs_reference(&a, &b));
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dp_on_a_larger_alphabet(
        a in proptest::collection::vec(0u16..40, 60..200),
        b in proptest::collection::vec(0u16..40, 0..70),
    ) {
        prop_assert_eq!(lcs_length(&a, &b), lcs_reference(&a, &b));
    }

    #[test]
    fn every_score_stays_in_range(runs in proptest::collection::vec(arb_run(), 0..6)) {
        let envs: Vec<Value> = runs.iter().map(|r| build(r, false)).collect();
        for env in &envs {
            let r = agent_stability(env);
            for (name, score) in r.scores() {
                prop_assert!(in_unit(score), "{} = {}", name, score);
            }
            prop_assert!(in_unit(r.weakest_score()));
        }
        let across = agent_stability_across(&envs);
        prop_assert!(in_unit(across.score));
        prop_assert!(in_unit(across.weakest_score));
        prop_assert!(across.weakest_score <= across.score + 1e-12);
        prop_assert!((0.0..=0.25).contains(&across.variance), "{}", across.variance);
        prop_assert!(in_unit(across.tool_sequence_similarity));
        prop_assert!(in_unit(across.argument_consistency));
        prop_assert!(across.early_divergence <= 1);
    }

    #[test]
    fn a_repeated_run_agrees_with_itself(run in arb_run(), n in 2usize..6) {
        let env = build(&run, false);
        let across = agent_stability_across(&vec![env.clone(); n]);
        let w = agent_stability(&env).weakest_score();
        prop_assert_eq!(across.tool_sequence_similarity, 1.0);
        prop_assert_eq!(across.argument_consistency, 1.0);
        prop_assert_eq!(across.variance, 0.0);
        prop_assert_eq!(across.early_divergence, 0);
        prop_assert_eq!(across.score, w);
        prop_assert_eq!(across.weakest_score, w);
    }

    #[test]
    fn argument_key_order_never_changes_a_score(runs in proptest::collection::vec(arb_run(), 1..5)) {
        let forward: Vec<Value> = runs.iter().map(|r| build(r, false)).collect();
        let reversed: Vec<Value> = runs.iter().map(|r| build(r, true)).collect();
        for (f, r) in forward.iter().zip(&reversed) {
            prop_assert_eq!(agent_stability(f), agent_stability(r));
        }
        // Mixing orders across runs too: every run's key order may differ from its peers.
        let mixed: Vec<Value> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| build(r, i % 2 == 1))
            .collect();
        let base = agent_stability_across(&forward);
        prop_assert_eq!(&agent_stability_across(&reversed), &base);
        prop_assert_eq!(&agent_stability_across(&mixed), &base);
    }

    #[test]
    fn decoded_and_envelope_entry_points_agree(runs in proptest::collection::vec(arb_run(), 0..5)) {
        let envs: Vec<Value> = runs.iter().map(|r| build(r, false)).collect();
        let traces: Vec<ConversationTrace> = envs
            .iter()
            .map(|e| ConversationTrace::from_envelope(e).unwrap())
            .collect();
        for (t, e) in traces.iter().zip(&envs) {
            prop_assert_eq!(trace_stability(t), agent_stability(e));
        }
        prop_assert_eq!(trace_stability_across(&traces), agent_stability_across(&envs));
    }

    #[test]
    fn arbitrary_json_never_panics(v in arb_json()) {
        let r = agent_stability(&v);
        prop_assert!(in_unit(r.weakest_score()));
        let wrapped = json!({"trace": v.clone()});
        let across = agent_stability_across(&[v, wrapped]);
        prop_assert!(in_unit(across.score));
    }
}

/// Arbitrary JSON biased toward the envelope's field names.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z👍]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![
            Just("tool_calls".to_string()),
            Just("conversation".to_string()),
            Just("turns".to_string()),
            Just("tokens".to_string()),
            Just("total".to_string()),
            Just("role".to_string()),
            Just("assistant".to_string()),
            Just("content".to_string()),
            Just("name".to_string()),
            Just("args".to_string()),
            Just("trace".to_string()),
            Just("text".to_string()),
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The tool-only assistant turns a real agent makes between answers: empty text, a bare
/// tool_use block, whitespace beside a tool_use block.
fn tool_only_turn(kind: u8) -> Value {
    match kind % 3 {
        0 => json!({"role": "assistant", "content": ""}),
        1 => json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "search", "input": {"q": "x"}}]}),
        _ => json!({"role": "assistant", "content": [{"type": "text", "text": " \n"},
            {"type": "tool_use", "id": "t", "name": "open", "input": {}}]}),
    }
}

proptest! {
    #[test]
    fn tool_only_turns_never_change_the_score(
        run in arb_run(),
        inserts in proptest::collection::vec((0usize..8, any::<u8>()), 1..6),
    ) {
        let base = build(&run, false);
        let mut with = base.clone();
        let turns = with["conversation"]["turns"].as_array_mut().unwrap();
        for (at, kind) in &inserts {
            let at = at % (turns.len() + 1);
            turns.insert(at, tool_only_turn(*kind));
        }
        let (a, b) = (agent_stability(&base), agent_stability(&with));
        prop_assert_eq!(a.response_consistency, b.response_consistency);
        // A run long enough not to be trivially stable keeps every sub-score (more turns can
        // only take a one-turn, one-call run out of the trivial case).
        let turns_before = base["conversation"]["turns"].as_array().unwrap().len();
        if turns_before >= 2 || run.0.len() >= 2 {
            prop_assert_eq!(a, b);
        }
        // The typed path agrees with the envelope path.
        let c = Cassette::from_json_str("t.json", &with.to_string()).unwrap();
        prop_assert_eq!(trace_stability(&c.runs[0].trace), b);
    }
}

#[test]
fn evidence_names_the_weakest_run_and_its_driver() {
    use mcptest_core::eval::trace_stability_evidence;
    // run_1 is healthy; run_2 thrashes across 4 tools in 5 calls (0.25).
    let healthy = envelope(
        named_calls(&["search", "search", "open"]),
        &["Looking.", "Found it."],
        Some(3000),
    );
    let thrash = envelope(
        named_calls(&["search", "open", "fetch", "deploy", "search"]),
        &["Looking.", "Found it."],
        None,
    );
    let traces: Vec<ConversationTrace> = [healthy, thrash]
        .iter()
        .map(|v| {
            Cassette::from_json_str("t.json", &v.to_string())
                .unwrap()
                .runs[0]
                .trace
                .clone()
        })
        .collect();
    let e = trace_stability_evidence(&traces);
    assert_eq!(
        e.driver("weakest_score"),
        "run_2 tool_usage_stability 0.250: 4 distinct tools in 5 calls"
    );
    assert_eq!(
        e.runs[0].driver("cost_per_progress").unwrap(),
        "3,000 tokens over 3 distinct calls (1,000 per call; the target is 2,000)"
    );
    assert_eq!(
        e.runs[1].driver("response_consistency").unwrap(),
        "2 answers of 8 to 9 characters (cv 0.06)"
    );
    assert_eq!(
        e.runs[1].driver("redundancy").unwrap(),
        "5 distinct calls of 5"
    );
    // LCS(search search open, search open fetch deploy search) = 2 (search, open) of 5.
    assert_eq!(
        e.driver("tool_sequence_similarity"),
        "least similar: run_1 and run_2, 2 calls in common order of 5 (0.400)"
    );
    assert_eq!(
        e.driver("early_divergence"),
        "1 of 1 diverging pair split at step 0 or 1; run_1 and run_2 split at step 1: \
         `search` vs `open`"
    );
    assert!(
        e.driver("variance").contains("from 0.250 (run_2) to"),
        "{}",
        e.driver("variance")
    );
    assert_eq!(e.driver("not_a_target"), "");
}
