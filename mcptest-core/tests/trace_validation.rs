//! Trajectory validation: every mode x argument shape, the documents' examples, and the edges.

use mcptest_core::eval::{
    ExpectedArgs, ExpectedCall, ExpectedTrace, MatchMode, TraceValidation, validate_trace,
};
use mcptest_core::matchers::MatcherError;
use mcptest_core::trace::ToolCall;
use serde_json::{Value, json};

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall::new(name).with_args(args)
}

fn names(ns: &[&str]) -> Vec<ToolCall> {
    ns.iter().map(|n| ToolCall::new(*n)).collect()
}

fn run(calls: &[ToolCall], t: &ExpectedTrace) -> TraceValidation {
    validate_trace(calls, t).expect("well-formed expectation")
}

const ALL_MODES: [MatchMode; 5] = MatchMode::ALL;

// ---- the documents' examples -------------------------------------------------------------

#[test]
fn doc_example_subsequence_with_subset_args_and_by_name() {
    // The seed's Rust example: search{q: rust} then open, interleaving allowed.
    let calls = vec![
        call("login", json!({})),
        call("search", json!({"q": "rust", "page": 1})),
        call("log_event", json!({"kind": "click"})),
        call("open", json!({"url": "https://www.rust-lang.org"})),
    ];
    let expected = ExpectedTrace::subsequence(vec![
        ExpectedCall {
            name: "search".into(),
            args: ExpectedArgs::Subset(json!({"q": "rust"})),
        },
        ExpectedCall::by_name("open"),
    ]);
    assert!(run(&calls, &expected).passed);
}

#[test]
fn doc_example_weather_subsequence_subset_city() {
    let calls = vec![call(
        "get_weather",
        json!({"city": "Sacramento", "units": "imperial"}),
    )];
    let t = ExpectedTrace::subsequence(vec![
        ExpectedCall::by_name("get_weather").args_subset(json!({"city": "Sacramento"})),
    ]);
    assert!(run(&calls, &t).passed);
    let wrong = vec![call("get_weather", json!({"city": "Fresno"}))];
    let v = run(&wrong, &t);
    assert!(!v.passed);
    assert_eq!(v.mismatches[0].diffs[0].pointer, "/args/city");
    assert_eq!(v.mismatches[0].diffs[0].expected, Some(json!("Sacramento")));
    assert_eq!(v.mismatches[0].diffs[0].actual, Some(json!("Fresno")));
}

#[test]
fn constructors_take_vecs_arrays_and_iterators() {
    let from_vec = ExpectedTrace::strict(vec![ExpectedCall::by_name("a")]);
    let from_array = ExpectedTrace::strict([ExpectedCall::by_name("a")]);
    let from_iter = ExpectedTrace::strict(["a"].into_iter().map(ExpectedCall::by_name));
    assert_eq!(from_vec, from_array);
    assert_eq!(from_vec, from_iter);
    assert_eq!(
        ExpectedTrace::exact_sequence([]),
        ExpectedTrace::strict(vec![])
    );
}

#[test]
fn wrong_name_reports_a_diff_on_the_name_pointer() {
    let v = run(
        &names(&["search"]),
        &ExpectedTrace::strict(vec![ExpectedCall::by_name("open")]),
    );
    let m = &v.mismatches[0];
    assert_eq!((m.expected_index, m.recorded_index), (Some(0), Some(0)));
    assert_eq!(m.diffs[0].pointer, "/name");
    assert!(m.reason.contains("position 0"), "{}", m.reason);
}

// ---- empty reference ---------------------------------------------------------------------

#[test]
fn empty_reference_passes_every_mode_but_subset() {
    let some = names(&["a", "b"]);
    for mode in ALL_MODES {
        let t = ExpectedTrace::new(mode, vec![]);
        let expect_pass = mode != MatchMode::Subset;
        assert_eq!(
            run(&some, &t).passed,
            expect_pass,
            "{mode} on a non-empty trace"
        );
        assert!(run(&[], &t).passed, "{mode} on an empty trace");
    }
    let v = run(&some, &ExpectedTrace::subset(vec![]));
    assert_eq!(v.mismatches.len(), 2);
    assert_eq!(v.mismatches[1].recorded_index, Some(1));
    assert_eq!(v.mismatches[1].expected_index, None);
}

#[test]
fn non_empty_reference_against_empty_trace() {
    let t = |m| ExpectedTrace::new(m, vec![ExpectedCall::by_name("a")]);
    for mode in ALL_MODES {
        let v = run(&[], &t(mode));
        // subset tolerates calling fewer; every other mode needs the call.
        assert_eq!(v.passed, mode == MatchMode::Subset, "{mode}");
        if !v.passed {
            assert_eq!(
                v.mismatches[0].recorded_index, None,
                "{mode}: the trace ran out"
            );
        }
    }
}

// ---- strict ------------------------------------------------------------------------------

#[test]
fn strict_trailing_extra_is_a_mismatch_without_expected_index() {
    let v = run(
        &names(&["a", "b", "c"]),
        &ExpectedTrace::strict(vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")]),
    );
    assert!(!v.passed);
    assert_eq!(v.mismatches.len(), 1);
    let m = &v.mismatches[0];
    assert_eq!((m.expected_index, m.recorded_index), (None, Some(2)));
    assert!(
        m.reason.contains("extra recorded call #2 `c`"),
        "{}",
        m.reason
    );
}

#[test]
fn strict_missing_call_has_no_recorded_index() {
    let v = run(
        &names(&["a"]),
        &ExpectedTrace::exact_sequence(vec![
            ExpectedCall::by_name("a"),
            ExpectedCall::by_name("b"),
            ExpectedCall::by_name("c"),
        ]),
    );
    assert_eq!(v.mismatches.len(), 2);
    assert_eq!(v.mismatches[0].expected_index, Some(1));
    assert_eq!(v.mismatches[0].recorded_index, None);
    assert!(v.mismatches[0].reason.contains("ran out"));
    assert_eq!(v.mismatches[1].expected_index, Some(2));
}

#[test]
fn strict_order_matters_and_each_bad_position_is_reported() {
    let v = run(
        &names(&["b", "a"]),
        &ExpectedTrace::strict(vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")]),
    );
    assert_eq!(v.mismatches.len(), 2);
    assert!(
        run(
            &names(&["a", "b"]),
            &ExpectedTrace::strict(vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")])
        )
        .passed
    );
}

// ---- every mode x every argument shape ------------------------------------------------------

/// For each argument shape: a recorded call that satisfies it and one that does not.
fn shapes() -> Vec<(ExpectedArgs, Value, Option<Value>)> {
    vec![
        (ExpectedArgs::Any, json!({"x": 1}), None),
        (
            ExpectedArgs::Ignore,
            json!({"noise": "2026-11-21T10:00:00Z"}),
            None,
        ),
        (
            ExpectedArgs::Exact(json!({"x": 1, "tags": ["a", "b"]})),
            json!({"tags": ["a", "b"], "x": 1.0}),
            Some(json!({"x": 1, "tags": ["b", "a"]})),
        ),
        (
            ExpectedArgs::Subset(json!({"tags": ["b"], "x": 1})),
            json!({"x": 1, "tags": ["a", "b"], "y": 2}),
            Some(json!({"x": 2, "tags": ["a", "b"]})),
        ),
        (
            ExpectedArgs::Schema(json!({
                "type": "object",
                "required": ["x"],
                "properties": {"x": {"type": "integer", "minimum": 1}}
            })),
            json!({"x": 3}),
            Some(json!({"x": 0})),
        ),
    ]
}

#[test]
fn every_mode_times_every_shape() {
    for mode in ALL_MODES {
        for (shape, good, bad) in shapes() {
            let t = ExpectedTrace::new(
                mode,
                vec![
                    ExpectedCall::by_name("auth"),
                    ExpectedCall {
                        name: "tool".into(),
                        args: shape.clone(),
                    },
                ],
            );
            let ok = vec![ToolCall::new("auth"), call("tool", good.clone())];
            assert!(run(&ok, &t).passed, "{mode} {shape:?} should pass");
            if let Some(bad) = bad {
                let v = run(&[ToolCall::new("auth"), call("tool", bad.clone())], &t);
                assert!(!v.passed, "{mode} {shape:?} should fail on {bad}");
                let m = &v.mismatches[0];
                assert!(!m.diffs.is_empty(), "{mode}: diffs explain the failure");
                assert!(
                    m.diffs
                        .iter()
                        .all(|d| d.pointer.starts_with("/args") || d.pointer == "/name"),
                    "{mode}: {:?}",
                    m.diffs
                );
                assert_eq!(m.recorded_index, Some(1), "{mode} {shape:?}: {m}");
            }
        }
    }
}

#[test]
fn absent_args_read_as_an_empty_object() {
    let t = ExpectedTrace::strict(vec![ExpectedCall::by_name("ping").args_exact(json!({}))]);
    assert!(run(&[ToolCall::new("ping")], &t).passed);
    let any = ExpectedTrace::strict(vec![ExpectedCall::by_name("ping")]);
    assert!(run(&[ToolCall::new("ping")], &any).passed);
}

#[test]
fn exact_uses_json_number_semantics() {
    let t = ExpectedTrace::strict(vec![ExpectedCall::by_name("n").args_exact(json!({"v": 1}))]);
    assert!(run(&[call("n", json!({"v": 1.0}))], &t).passed);
    assert!(!run(&[call("n", json!({"v": true}))], &t).passed);
    assert!(!run(&[call("n", json!({"v": "1"}))], &t).passed);
    let null = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("n").args_exact(json!({"v": null})),
    ]);
    assert!(
        !run(&[call("n", json!({}))], &null).passed,
        "null is not a missing key"
    );
}

// ---- subsequence -------------------------------------------------------------------------

#[test]
fn subsequence_tolerates_interleaving_but_not_reordering() {
    let t =
        ExpectedTrace::subsequence(vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")]);
    assert!(run(&names(&["x", "a", "y", "b", "z"]), &t).passed);
    let v = run(&names(&["b", "a"]), &t);
    assert!(!v.passed);
    let m = &v.mismatches[0];
    assert_eq!((m.expected_index, m.recorded_index), (Some(1), None));
    assert!(m.reason.contains("out of order"), "{}", m.reason);
}

#[test]
fn subsequence_earliest_match_skips_calls_with_wrong_args() {
    let t = ExpectedTrace::subsequence(vec![
        ExpectedCall::by_name("search").args_subset(json!({"q": "b"})),
        ExpectedCall::by_name("search").args_subset(json!({"q": "c"})),
    ]);
    let calls = vec![
        call("search", json!({"q": "a"})),
        call("search", json!({"q": "b"})),
        call("search", json!({"q": "c"})),
    ];
    assert!(run(&calls, &t).passed);
    let swapped = vec![
        call("search", json!({"q": "c"})),
        call("search", json!({"q": "b"})),
    ];
    let v = run(&swapped, &t);
    assert_eq!(v.mismatches.len(), 1);
    assert_eq!(v.mismatches[0].expected_index, Some(1));
}

#[test]
fn subsequence_reports_the_closest_candidate_with_diffs() {
    let t = ExpectedTrace::subsequence(vec![
        ExpectedCall::by_name("get_weather").args_exact(json!({"city": "Sacramento"})),
    ]);
    let v = run(
        &[
            ToolCall::new("geo"),
            call("get_weather", json!({"city": "Reno"})),
        ],
        &t,
    );
    let m = &v.mismatches[0];
    assert_eq!(m.recorded_index, Some(1));
    assert_eq!(m.diffs[0].pointer, "/args/city");
}

// ---- unordered / superset: maximum matching, not greedy ---------------------------------------

#[test]
fn the_greedy_trap_passes_in_unordered_superset_and_subset() {
    // [A(any), A{x:1}] against [A{x:1}, A{x:2}]: greedy gives A{x:1} to A(any) and strands A{x:1}.
    let reference = vec![
        ExpectedCall::by_name("A"),
        ExpectedCall::by_name("A").args_exact(json!({"x": 1})),
    ];
    let calls = vec![call("A", json!({"x": 1})), call("A", json!({"x": 2}))];
    for mode in [MatchMode::Unordered, MatchMode::Superset, MatchMode::Subset] {
        let v = run(&calls, &ExpectedTrace::new(mode, reference.clone()));
        assert!(v.passed, "{mode}: {v}");
    }
}

#[test]
fn unordered_needs_distinct_recorded_calls() {
    let t = ExpectedTrace::unordered(vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("a")]);
    let v = run(&names(&["a", "b"]), &t);
    assert!(!v.passed);
    assert!(
        v.mismatches[0]
            .reason
            .contains("matched to other reference calls"),
        "{}",
        v.mismatches[0].reason
    );
    assert!(run(&names(&["a", "b", "a"]), &t).passed);
}

#[test]
fn unordered_and_superset_agree() {
    let cases: Vec<(Vec<ToolCall>, Vec<ExpectedCall>)> = vec![
        (
            names(&["c", "b", "a"]),
            vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")],
        ),
        (
            names(&["a"]),
            vec![ExpectedCall::by_name("a"), ExpectedCall::by_name("b")],
        ),
        (vec![], vec![ExpectedCall::by_name("a")]),
    ];
    for (calls, refs) in cases {
        let u = run(&calls, &ExpectedTrace::unordered(refs.clone()));
        let s = run(&calls, &ExpectedTrace::superset(refs));
        assert_eq!(u, s);
    }
}

#[test]
fn unordered_missing_tool_has_no_recorded_index() {
    let v = run(
        &names(&["a"]),
        &ExpectedTrace::unordered(vec![ExpectedCall::by_name("zz")]),
    );
    assert_eq!(v.mismatches[0].recorded_index, None);
    assert!(v.mismatches[0].reason.contains("never called"));
}

// ---- subset ------------------------------------------------------------------------------

#[test]
fn subset_catches_over_calling_and_unknown_tools() {
    let t = ExpectedTrace::subset(vec![
        ExpectedCall::by_name("search"),
        ExpectedCall::by_name("open"),
    ]);
    assert!(run(&names(&["open"]), &t).passed, "calling fewer is fine");
    assert!(run(&names(&["open", "search"]), &t).passed, "order is free");
    let v = run(&names(&["search", "search"]), &t);
    assert!(
        !v.passed,
        "calling an allowed tool twice when allowed once is over-calling"
    );
    assert_eq!(v.mismatches[0].recorded_index, Some(1));
    assert!(v.mismatches[0].reason.contains("over-calling"));
    let v = run(&names(&["search", "delete_repo"]), &t);
    assert_eq!(v.mismatches[0].recorded_index, Some(1));
    assert_eq!(v.mismatches[0].expected_index, None);
}

#[test]
fn subset_names_the_reference_whose_args_did_not_allow_the_call() {
    let t = ExpectedTrace::subset(vec![ExpectedCall::by_name("pay").args_schema(json!({
        "type": "object", "properties": {"amount": {"maximum": 100}}
    }))]);
    let v = run(&[call("pay", json!({"amount": 5000}))], &t);
    let m = &v.mismatches[0];
    assert_eq!((m.expected_index, m.recorded_index), (Some(0), Some(0)));
    assert_eq!(m.diffs[0].pointer, "/args/amount");
}

// ---- schema errors come before any matching --------------------------------------------------

#[test]
fn malformed_schema_is_an_error_even_on_an_empty_trace_and_unreached_calls() {
    let bad = ExpectedCall::by_name("b").args_schema(json!({"type": "no-such-type"}));
    for mode in ALL_MODES {
        let t = ExpectedTrace::new(mode, vec![ExpectedCall::by_name("a"), bad.clone()]);
        let err = validate_trace(&[], &t).unwrap_err();
        assert_eq!(err.expected_index, 1, "{mode}");
        assert!(matches!(err.error, MatcherError::Schema(_)));
        // Reached or not, the first call failing does not hide it.
        assert!(validate_trace(&names(&["zzz"]), &t).is_err(), "{mode}");
        assert!(err.to_string().contains("malformed JSON Schema"), "{err}");
    }
    let not_a_schema =
        ExpectedTrace::strict(vec![ExpectedCall::by_name("a").args_schema(json!(3))]);
    assert!(validate_trace(&[], &not_a_schema).is_err());
}

// ---- unicode ------------------------------------------------------------------------------

#[test]
fn unicode_names_and_values() {
    let calls = vec![
        call("recherche_météo", json!({"ville": "Zürich", "emoji": "☀️"})),
        call("検索", json!({"クエリ": "東京"})),
    ];
    let t = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("recherche_météo").args_subset(json!({"ville": "Zürich"})),
        ExpectedCall::by_name("検索").args_exact(json!({"クエリ": "東京"})),
    ]);
    assert!(run(&calls, &t).passed);
    let wrong = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("recherche_météo").args_subset(json!({"ville": "Zurich"})),
        ExpectedCall::by_name("検索"),
    ]);
    let v = run(&calls, &wrong);
    assert_eq!(v.mismatches[0].diffs[0].pointer, "/args/ville");
}

#[test]
fn pointer_tokens_are_escaped() {
    let t = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("a").args_exact(json!({"a/b": 1, "m~n": 2})),
    ]);
    let v = run(&[call("a", json!({"a/b": 9, "m~n": 2}))], &t);
    assert_eq!(v.mismatches[0].diffs[0].pointer, "/args/a~1b");
}

// ---- scale: nothing exponential ----------------------------------------------------------------

#[test]
fn ten_thousand_repeated_calls_in_unordered_are_matched() {
    // 10,000 calls over 3 tools with repeated args, reference = the same calls reversed, with
    // a mix of shapes: a class-level matching makes this a handful of classes, not 10^4 nodes.
    let calls: Vec<ToolCall> = (0..10_000)
        .map(|i| call(["search", "open", "read"][i % 3], json!({"page": i % 7})))
        .collect();
    let reference: Vec<ExpectedCall> = calls
        .iter()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            if i % 2 == 0 {
                ExpectedCall::by_name(c.name.clone())
            } else {
                ExpectedCall::by_name(c.name.clone()).args_exact(c.args.clone().unwrap())
            }
        })
        .collect();
    for mode in [MatchMode::Unordered, MatchMode::Superset, MatchMode::Subset] {
        assert!(
            run(&calls, &ExpectedTrace::new(mode, reference.clone())).passed,
            "{mode}"
        );
    }
    let mut short = reference.clone();
    short.pop();
    let v = run(&calls, &ExpectedTrace::subset(short));
    assert_eq!(v.mismatches.len(), 1, "exactly one call too many");
}

// ---- serde of expectations ------------------------------------------------------------------

#[test]
fn expectations_read_from_json_with_aliases_and_clear_errors() {
    let t: ExpectedTrace = serde_json::from_value(json!({
        "mode": "exact-sequence",
        "calls": [
            {"name": "a", "args": "any"},
            {"name": "b", "args": "ignore"},
            {"name": "c", "args": {"exact": {"x": 1}}},
            {"name": "d", "args": {"subset": {"y": [1]}}},
            {"name": "e", "args": {"schema": {"type": "object"}}},
            {"name": "f"}
        ]
    }))
    .unwrap();
    assert_eq!(t.mode, MatchMode::Strict);
    assert_eq!(t.calls[1].args, ExpectedArgs::Ignore);
    assert_eq!(t.calls[5].args, ExpectedArgs::Any);
    let back: ExpectedTrace = serde_json::from_value(serde_json::to_value(&t).unwrap()).unwrap();
    assert_eq!(back, t);

    let err = serde_json::from_value::<ExpectedTrace>(json!({"mode": "subsequnce", "calls": []}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("did you mean `subsequence`"), "{err}");
    let err = serde_json::from_value::<ExpectedTrace>(
        json!({"mode": "strict", "calls": [{"name": "a", "args": "anything"}]}),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown argument shape `anything`"), "{err}");
}

#[test]
fn mismatch_report_reads_well() {
    let calls = vec![
        call("search", json!({"q": "rust async"})),
        call("open", json!({"url": "https://tokio.rs"})),
    ];
    let t = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("search").args_subset(json!({"q": "rust"})),
        ExpectedCall::by_name("summarize"),
    ]);
    let text = run(&calls, &t).to_string();
    assert!(
        text.starts_with(
            "trajectory: FAIL (2 mismatch(es); score 0.000, precision 0.000, recall 0.000)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "expected #1 / recorded #1: position 1: expected `summarize`, recorded `open`"
        ),
        "{text}"
    );
    assert!(
        text.contains("at /name: expected tool `summarize`, recorded `open`"),
        "{text}"
    );
}
