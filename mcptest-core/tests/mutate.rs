//! Mutation testing of suites: every kind of mutant, a weak and a strong suite over the same
//! runs, and the invariants (a suite with no gate scores 0; adding a gate never lowers the
//! score).

use mcptest_core::eval::{ExpectedCall, ExpectedTrace, GoldenPath};
use mcptest_core::matchers::Matcher;
use mcptest_core::mutate::{MutantKind, mutants_of_run, mutation_test};
use mcptest_core::spec::{AgentSpec, Expectation, NarrativeGate, StabilityGate};
use mcptest_core::trace::{Cassette, Run};
use proptest::prelude::*;
use serde_json::{Value, json};

fn triage_run() -> Value {
    json!({"trace": {
        "tool_calls": [
            {"name": "search_issues", "args": {"q": "flaky"}, "started_ms": 0, "ended_ms": 100},
            {"name": "get_issue", "args": {"issue": 412}, "started_ms": 100, "ended_ms": 200},
            {"name": "add_label", "args": {"issue": 412, "label": "flaky-test"},
             "started_ms": 200, "ended_ms": 300}],
        "tool_results": [
            {"is_error": false, "content": [{"type": "text", "text": "#412"}]},
            {"is_error": false, "content": [{"type": "text", "text": "timeout"}]},
            {"is_error": false, "content": [{"type": "text", "text": "ok"}]}],
        "final_response": "Issue 412 is a flaky timeout; I added the flaky-test label."
    }})
}

fn cassette(runs: &[Value]) -> Cassette {
    let doc = json!({"mcptest_cassette": 1, "runs": runs});
    Cassette::from_json_str("c.json", &doc.to_string()).unwrap()
}

fn strong() -> AgentSpec {
    AgentSpec::new("strong")
        .trajectory(ExpectedTrace::strict(vec![
            ExpectedCall::by_name("search_issues").args_exact(json!({"q": "flaky"})),
            ExpectedCall::by_name("get_issue").args_exact(json!({"issue": 412})),
            ExpectedCall::by_name("add_label")
                .args_exact(json!({"issue": 412, "label": "flaky-test"})),
        ]))
        .narrative(NarrativeGate::default())
        .expect(
            Expectation::new(
                "tool_results[*].is_error",
                Matcher::schema(json!({"items": {"const": false}})),
            )
            .unwrap(),
        )
}

#[test]
fn every_kind_is_planted_and_changes_the_run() {
    let c = cassette(&[triage_run()]);
    let run = &c.runs[0];
    let mutants = mutants_of_run(&strong(), run, 0);
    for kind in MutantKind::ALL {
        let of_kind: Vec<_> = mutants.iter().filter(|m| m.kind == kind).collect();
        assert!(!of_kind.is_empty(), "no {kind} mutant");
        for m in of_kind {
            assert_ne!(&m.mutated, run, "{kind}: {}", m.description);
            assert_eq!(m.run, 0);
        }
    }
    // Three calls: three drops, two swaps, one insertion, one false claim.
    let count = |k| mutants.iter().filter(|m| m.kind == k).count();
    assert_eq!(count(MutantKind::DropCall), 3);
    assert_eq!(count(MutantKind::SwapCalls), 2);
    assert_eq!(count(MutantKind::InsertCall), 1);
    assert_eq!(count(MutantKind::FalseClaim), 1);
    let stretched = mutants
        .iter()
        .find(|m| m.kind == MutantKind::StretchCall)
        .unwrap();
    let c0 = &stretched.mutated.trace.tool_calls[0];
    assert_eq!(c0.ended_ms, Some(30_001));
    assert_eq!(
        stretched.mutated.trace.tool_calls[1].started_ms,
        Some(30_001)
    );
}

#[test]
fn a_suite_with_no_gate_scores_zero_and_names_every_survivor() {
    let c = cassette(&[triage_run()]);
    let r = mutation_test(&AgentSpec::new("none"), &c);
    assert!(r.mutants > 0);
    assert_eq!(r.caught, 0);
    assert_eq!(r.score, 0.0);
    assert_eq!(r.survivors.len(), r.mutants);
    assert!(r.survivors.iter().all(|s| s.run == "run_1"));
}

#[test]
fn a_strong_suite_outscores_a_weak_one_on_the_same_runs() {
    let c = cassette(&[triage_run(), triage_run()]);
    let weak = AgentSpec::new("weak")
        .runs(2)
        .trajectory(ExpectedTrace::superset(vec![ExpectedCall::by_name(
            "add_label",
        )]));
    let w = mutation_test(&weak, &c);
    let s = mutation_test(&strong().runs(2), &c);
    assert!(w.already_failing.is_empty(), "{:?}", w.already_failing);
    assert!(s.already_failing.is_empty(), "{:?}", s.already_failing);
    assert!(s.score > w.score, "strong {} vs weak {}", s.score, w.score);
    // The weak suite only notices the label call disappearing.
    assert_eq!(w.kinds[&MutantKind::DropCall].caught, 2);
    assert!(
        w.survivors
            .iter()
            .any(|x| x.kind == MutantKind::SwapCalls && x.description.contains("swapped"))
    );
    // The strong one catches every order, argument, error, insertion and claim mutant.
    for kind in [
        MutantKind::DropCall,
        MutantKind::SwapCalls,
        MutantKind::DuplicateCall,
        MutantKind::PerturbArgument,
        MutantKind::ErrorResult,
        MutantKind::InsertCall,
        MutantKind::FalseClaim,
    ] {
        let k = s.kinds[&kind];
        assert_eq!(k.caught, k.mutants, "{kind}");
    }
    // Timing is not gated by the strong suite: the stretched calls survive, and say so.
    assert!(
        s.survivors
            .iter()
            .all(|x| x.kind == MutantKind::StretchCall)
    );
}

#[test]
fn cross_run_cells_catch_too() {
    // Only a stability gate: repeating a call in one run changes how the runs agree.
    let c = cassette(&[triage_run(), triage_run()]);
    let spec = AgentSpec::new("stable").runs(2).stability(StabilityGate {
        expect: vec![
            Expectation::new(
                "stability.tool_sequence_similarity",
                Matcher::schema(json!({"minimum": 1.0})),
            )
            .unwrap(),
        ],
    });
    let r = mutation_test(&spec, &c);
    assert_eq!(
        r.kinds[&MutantKind::DuplicateCall].caught,
        r.kinds[&MutantKind::DuplicateCall].mutants
    );
}

#[test]
fn a_failing_cell_is_reported_and_cannot_catch() {
    let c = cassette(&[triage_run()]);
    let spec =
        AgentSpec::new("wrong").trajectory(ExpectedTrace::strict(vec![ExpectedCall::by_name(
            "delete_issue",
        )]));
    let r = mutation_test(&spec, &c);
    assert_eq!(r.already_failing, ["run_1"]);
    assert_eq!(r.caught, 0);
}

fn arb_run() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["search", "open", "create_issue"]),
            0u8..3,
        ),
        0..6,
    )
    .prop_map(|calls| {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|(n, a)| json!({"name": n, "args": {"k": a}}))
            .collect();
        let results: Vec<Value> = calls.iter().map(|_| json!({"is_error": false})).collect();
        json!({"trace": {"tool_calls": tool_calls, "tool_results": results,
                         "final_response": "Done."}})
    })
}

fn exact_reference(run: &Run) -> Vec<ExpectedCall> {
    run.trace
        .tool_calls
        .iter()
        .map(|c| ExpectedCall::by_name(c.name.clone()).args_exact(c.args.clone().unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn adding_a_gate_never_lowers_the_score(run in arb_run()) {
        let c = cassette(&[run]);
        let reference = exact_reference(&c.runs[0]);
        let names: Vec<String> = reference.iter().map(|e| e.name.clone()).collect();
        let base = AgentSpec::new("a").trajectory(ExpectedTrace::subsequence(reference.clone()));
        let more = base.clone().golden_path(GoldenPath::new(names));
        let most = more.clone().narrative(NarrativeGate::default());
        let (a, b, d) = (mutation_test(&base, &c), mutation_test(&more, &c), mutation_test(&most, &c));
        prop_assert_eq!(a.mutants, b.mutants);
        prop_assert!((0.0..=1.0).contains(&a.score));
        // A stronger suite that still passes the recordings catches at least as much.
        if b.already_failing.is_empty() {
            prop_assert!(b.caught >= a.caught);
        }
        if d.already_failing.is_empty() {
            prop_assert!(d.caught >= b.caught);
        }
        prop_assert_eq!(a.survivors.len(), a.mutants - a.caught);
    }
}

#[test]
fn the_calls_a_suite_names_are_always_mutated() {
    // 30 reads and one write at #5: the even spread (0, 4, 8, ...) misses #5, the suite names it.
    let mut calls: Vec<Value> = (0..30)
        .map(|i| json!({"name": "search", "args": {"page": i}}))
        .collect();
    calls[5] = json!({"name": "book", "args": {"id": 7}});
    let c = cassette(&[json!({"trace": {"tool_calls": calls, "final_response": "Booked."}})]);
    let spec = AgentSpec::new("books").trajectory(ExpectedTrace::superset(vec![
        ExpectedCall::by_name("book").args_exact(json!({"id": 7})),
    ]));
    let mutants = mutants_of_run(&spec, &c.runs[0], 0);
    assert!(
        mutants
            .iter()
            .any(|m| m.kind == MutantKind::DropCall && m.description.contains("#5 `book`"))
    );
    let r = mutation_test(&spec, &c);
    assert_eq!(r.kinds[&MutantKind::DropCall].caught, 1);
    assert_eq!(r.kinds[&MutantKind::PerturbArgument].caught, 1);
}
