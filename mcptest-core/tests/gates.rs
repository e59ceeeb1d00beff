//! Spec validation and gate evaluation: default gates, explicit expectations, the oracle rule.

use mcptest_core::eval::{ExpectedCall, ExpectedTrace, GoldenPath, RecoveryBudget, TrajectoryAxes};
use mcptest_core::gate::{evaluate_reliability, evaluate_run, evaluate_stability};
use mcptest_core::select::Target;
use mcptest_core::spec::{
    AgentSpec, Expectation, Fault, FaultKind, FaultTarget, NarrativeGate, ReliabilityGate,
    StabilityGate, reads_narration,
};
use mcptest_core::trace::{Cassette, Run};
use serde_json::{Value, json};

fn run(v: Value) -> Run {
    Cassette::from_value(&v).unwrap().runs.remove(0)
}

fn invoice_run(final_text: &str) -> Run {
    run(json!({
        "tool_calls": [{"name": "billing__get_invoice", "args": {"id": 42}}],
        "tool_results": [{"is_error": false, "content": [{"type": "text", "text": "invoice 42: paid"}]}],
        "conversation": {"tokens": {"total": 900}, "turns": [
            {"role": "user", "content": "Look up invoice 42 and tell me its status."},
            {"role": "assistant", "content": final_text}]},
    }))
}

fn expect(target: &str, m: Value) -> Expectation {
    Expectation::new(target, serde_json::from_value(m).unwrap()).unwrap()
}

#[test]
fn documents_invoice_oracle_passes_on_evidence_whatever_the_prose() {
    // The documents' example: the run passes on what it observably did, even when the model
    // closes with a claim of a refund it never made.
    let spec = AgentSpec::new("invoice lookup stays read-only")
        .expect(expect(
            "tool_calls[0].name",
            json!({"exact": "get_invoice"}),
        ))
        .expect(expect("tool_results[0].is_error", json!({"exact": false})));
    for prose in ["Invoice 42 is paid.", "Done, I issued the refund."] {
        let r = evaluate_run(&spec, "run_1", &invoice_run(prose));
        assert!(r.passed(), "{}", r.render());
    }
    // ...and a separate assertion catches the narrated-but-never-taken action only when the
    // action happens: no refund call, so `not contains refund_order` holds.
    let guard = spec.expect(expect(
        "tool_calls[*].name",
        json!({"not": {"contains": ["refund_order"]}}),
    ));
    assert!(evaluate_run(&guard, "run_1", &invoice_run("Done, refunded.")).passed());
}

#[test]
fn narration_targets_are_load_errors_unless_advisory() {
    for t in [
        "final_response",
        "conversation",
        "conversation.turns",
        "conversation.turns[-1]",
        "conversation.turns[*].content",
        "",
    ] {
        assert!(reads_narration(&Target::parse(t).unwrap()), "{t}");
    }
    for t in [
        "conversation.tokens.total",
        "tool_calls[0].args",
        "narrative.claimed_but_absent",
    ] {
        assert!(!reads_narration(&Target::parse(t).unwrap()), "{t}");
    }
    let gating = AgentSpec::new("a").expect(expect("final_response", json!({"regex": "done"})));
    let errs = gating.validate();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].field, "expect[0]");
    assert!(
        errs[0]
            .message
            .contains("narration never decides a verdict"),
        "{}",
        errs[0]
    );
    let advisory =
        AgentSpec::new("a").expect(expect("final_response", json!({"regex": "done"})).advisory());
    assert!(advisory.validate().is_empty());
    // An advisory failure is reported and never decides the cell.
    let r = evaluate_run(&advisory, "run_1", &invoice_run("all good"));
    assert!(r.passed());
    assert!(
        r.render()
            .contains("FAIL (advisory) expect: final_response"),
        "{}",
        r.render()
    );
}

#[test]
fn validation_gathers_every_mistake() {
    let spec = AgentSpec::new("x")
        .runs(1)
        .stability(StabilityGate {
            expect: vec![expect("stability.score", json!({"llm-judge": "stable?"}))],
        })
        .trajectory(ExpectedTrace::strict(vec![
            ExpectedCall::by_name("a").args_schema(json!({"type": 5})),
        ]))
        .expect(expect("tool_calls[0].name", json!({"regex": "(unclosed"})))
        .recovery(RecoveryBudget {
            max_detection_ms: 3000,
            max_recovery_ms: None,
            require_clean_timeout: true,
        })
        .narrative(NarrativeGate {
            max_divergence_score: Some(1.5),
            ..NarrativeGate::default()
        });
    let fields: Vec<String> = spec.validate().into_iter().map(|e| e.field).collect();
    assert_eq!(
        fields,
        vec![
            "trajectory.calls[0].args.schema",
            "stability",
            "narrative.max_divergence_score",
            "recovery",
            "expect[0]",
            "stability.expect[0]",
        ]
    );
    assert!(
        AgentSpec::new("z").runs(0).validate()[0]
            .message
            .contains("at least 1")
    );
}

#[test]
fn default_gates_and_their_replacement_by_explicit_expectations() {
    let r = run(json!({"tool_calls": [{"name": "search"}, {"name": "open"}, {"name": "search"}]}));
    let spec = AgentSpec::new("s")
        .trajectory(ExpectedTrace::strict(vec![ExpectedCall::by_name("search")]))
        .golden_path(GoldenPath::new(["search", "open"]))
        .trajectory_axes(TrajectoryAxes::default().order("open", "search"));
    let rep = evaluate_run(&spec, "run_1", &r);
    let gates: Vec<(&str, bool)> = rep
        .gates
        .iter()
        .map(|g| (g.gate.as_str(), g.passed))
        .collect();
    assert_eq!(
        gates,
        vec![
            ("trajectory", false),
            ("trajectory_axes", false),
            ("golden_path", false)
        ]
    );
    assert_eq!(rep.metrics["trajectory"]["mismatch_count"], 2);
    assert_eq!(rep.metrics["trajectory"]["order_satisfaction"], 0);
    assert_eq!(rep.metrics["golden_path"]["backtracks"], 1);
    // Explicit assertions on a gate's targets replace its default gate.
    let relaxed = spec
        .expect(expect(
            "trajectory.mismatch_count",
            json!({"schema": {"maximum": 2}}),
        ))
        .expect(expect(
            "golden_path.penalty",
            json!({"schema": {"minimum": 0.4}}),
        ))
        .expect(expect(
            "trajectory.order_satisfaction",
            json!({"schema": {"minimum": 0}}),
        ));
    let rep = evaluate_run(&relaxed, "run_1", &r);
    assert!(rep.passed(), "{}", rep.render());
    // The replaced trajectory gate stays as an advisory row (its explanation still shows);
    // the replaced axes and golden-path gates are gone.
    let rows: Vec<_> = rep
        .gates
        .iter()
        .map(|g| (g.gate.as_str(), g.advisory))
        .collect();
    assert_eq!(
        rows,
        [
            ("trajectory", true),
            ("expect", false),
            ("expect", false),
            ("expect", false)
        ]
    );
}

#[test]
fn a_target_that_names_nothing_fails_with_a_message() {
    let spec = AgentSpec::new("a").expect(expect("tool_results[3].status", json!({"exact": 200})));
    let rep = evaluate_run(&spec, "run_1", &invoice_run("ok"));
    assert!(!rep.passed());
    assert_eq!(
        rep.gates[0].details,
        vec!["no value at target `tool_results[3].status`"]
    );
}

#[test]
fn narrative_gate_default_and_explicit() {
    let r = run(json!({
        "tool_calls": [{"name": "get_issue", "args": {"issue": 412}}, {"name": "add_label", "args": {"label": "flaky"}}],
        "final_response": "I added the label and created a comment on the issue."
    }));
    let default = AgentSpec::new("triage").narrative(NarrativeGate::default());
    let rep = evaluate_run(&default, "run_1", &r);
    assert!(
        !rep.passed(),
        "claimed a comment it never created:\n{}",
        rep.render()
    );
    assert!(
        rep.metrics["narrative"]["claimed_but_absent"]
            .as_u64()
            .unwrap()
            >= 1
    );
    let explicit = AgentSpec::new("triage").narrative(NarrativeGate {
        expect: vec![expect(
            "narrative.present_but_unclaimed",
            json!({"schema": {"maximum": 5}}),
        )],
        ..NarrativeGate::default()
    });
    assert!(
        evaluate_run(&explicit, "run_1", &r).passed(),
        "explicit expect replaces the default gate"
    );
}

#[test]
fn recovery_gate_reads_virtual_time_off_the_trace() {
    let hung = json!({
        "tool_calls": [
            {"name": "search", "server": "faulty", "args": {"q": "incident"}, "started_ms": 100, "ended_ms": 3100},
            {"name": "search_backup", "server": "docs", "args": {"q": "incident"}, "started_ms": 3150, "ended_ms": 3400}],
        "tool_results": [{"is_error": true, "timed_out": true}, {"is_error": false}]
    });
    let fault = Fault {
        name: "hung-search".into(),
        target: FaultTarget {
            tool: Some("search".into()),
            server: None,
        },
        kind: FaultKind::Hang,
    };
    let mut spec = AgentSpec::new("recovers").recovery(RecoveryBudget {
        max_detection_ms: 3000,
        max_recovery_ms: Some(5000),
        require_clean_timeout: true,
    });
    spec.inject.push(fault);
    let rep = evaluate_run(&spec, "run_1", &run(hung.clone()));
    assert!(rep.passed(), "{}", rep.render());
    assert_eq!(rep.metrics["recovery"]["time_to_detection_ms"], 3000);
    assert_eq!(rep.metrics["recovery"]["time_to_recovery_ms"], 3300);
    // No call matches the injected fault: the gate fails and says to re-record.
    let other = run(json!({"tool_calls": [{"name": "lookup"}]}));
    let rep = evaluate_run(&spec, "run_1", &other);
    assert!(!rep.passed());
    assert!(rep.gates[0].details[0].contains("re-record"));
}

fn weather_run(calls: &[(&str, Value)], turns: &[&str], tokens: u64) -> Run {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(n, a)| json!({"name": n, "args": a}))
        .collect();
    let mut t: Vec<Value> =
        vec![json!({"role": "user", "content": "What is the weather in Sacramento?"})];
    t.extend(
        turns
            .iter()
            .map(|x| json!({"role": "assistant", "content": x})),
    );
    run(json!({"tool_calls": calls, "conversation": {"tokens": {"total": tokens}, "turns": t}}))
}

#[test]
fn stability_cell_default_gate_and_explicit_expectations() {
    let runs = vec![
        weather_run(
            &[("get_weather", json!({"city": "Sacramento"}))],
            &["71°F and clear."],
            1900,
        ),
        weather_run(
            &[("get_weather", json!({"city": "Sacramento"}))],
            &["It is 71°F."],
            1800,
        ),
    ];
    let spec = AgentSpec::new("weather")
        .runs(2)
        .stability(StabilityGate::default());
    let rep = evaluate_stability(&spec, "stability", &runs).unwrap();
    assert!(rep.passed(), "{}", rep.render());
    assert_eq!(rep.metrics["stability"]["tool_sequence_similarity"], 1.0);
    // A looping run: the same failing call five times, 40k tokens.
    let looping = weather_run(
        &vec![("get_weather", json!({"city": "Sacramento"})); 5],
        &["a", "b", "c"],
        40_000,
    );
    let runs = vec![runs[0].clone(), looping];
    let rep = evaluate_stability(&spec, "stability", &runs).unwrap();
    assert!(!rep.passed(), "{}", rep.render());
    let strict = AgentSpec::new("weather").runs(2).stability(StabilityGate {
        expect: vec![expect(
            "stability.tool_sequence_similarity",
            json!({"schema": {"minimum": 0.9}}),
        )],
    });
    let rep = evaluate_stability(&strict, "stability", &runs).unwrap();
    assert!(!rep.passed());
    assert!(evaluate_stability(&AgentSpec::new("none"), "stability", &runs).is_none());
}

#[test]
fn reliability_cell_uses_the_documents_numbers() {
    let spec = AgentSpec::new("r").reliability(ReliabilityGate {
        expect: vec![expect(
            "reliability.passhat_k",
            json!({"schema": {"minimum": 50}}),
        )],
        ..ReliabilityGate::default()
    });
    let rep = evaluate_reliability(&spec, "reliability", &[true, true, true, false]).unwrap();
    assert_eq!(
        rep.metrics["reliability"]["decay_curve"],
        json!([100, 100, 100, 31])
    );
    assert_eq!(rep.metrics["reliability"]["graceful_degradation"], 60);
    assert!(!rep.passed(), "pass^k 31 < 50");
    let default = AgentSpec::new("r").reliability(ReliabilityGate::default());
    assert!(
        evaluate_reliability(&default, "reliability", &[false, true])
            .unwrap()
            .passed()
    );
    assert!(
        !evaluate_reliability(&default, "reliability", &[false, false])
            .unwrap()
            .passed()
    );
}

#[test]
fn rendered_reports_are_stable_text() {
    let spec = AgentSpec::new("docs")
        .trajectory(ExpectedTrace::subsequence(vec![
            ExpectedCall::by_name("open").args_subset(json!({"url": "https://a"})),
        ]))
        .golden_path(GoldenPath::new(["search", "open"]))
        .expect(expect("tool_calls[0].args.q", json!({"regex": "^rust"})));
    let r = run(json!({"tool_calls": [
        {"name": "search", "args": {"q": "rust pin", "limit": 5}},
        {"name": "open", "args": {"url": "https://b"}}]}));
    let text = evaluate_run(&spec, "run_1", &r).render();
    let expected = r#"agent: docs
cell: run_1
verdict: FAIL
calls:
  #0 search {"limit":5,"q":"rust pin"}
  #1 open {"url":"https://b"}
gates:
  FAIL trajectory: subsequence, 1 reference call(s), 1 mismatch(es), score 0.000 (precision 0.000, recall 0.000)
      expected #0 / recorded #1: expected `open` with args containing {"url":"https://a"} (reference #0); no call to `open` at or after recorded #0 has matching arguments (showing recorded #1)
          at /args/url: expected "https://a", recorded "https://b"
      to pass, 1 edit(s):
        1. change the arguments of recorded #1 `open` {"url":"https://b"} to match reference #0 (`open` with args containing {"url":"https://a"})
          at /args/url: expected "https://a", recorded "https://b"
  PASS golden_path: penalty 1.000 (extra_steps 0, backtracks 0, repeated_tools 0)
  PASS expect: tool_calls[0].args.q {"regex":"^rust"}
"#;
    assert_eq!(text, expected);
}

#[test]
fn a_failing_stability_row_names_the_run_the_sub_score_and_the_counts() {
    let healthy = weather_run(
        &[("get_weather", json!({"city": "Sacramento"}))],
        &["71°F and clear."],
        1900,
    );
    // The same call five times, 40k tokens: cost_per_progress 2000 / 40000 = 0.05.
    let looping = weather_run(
        &vec![("get_weather", json!({"city": "Sacramento"})); 5],
        &["a", "b", "c"],
        40_000,
    );
    let runs = vec![healthy, looping];
    let spec = AgentSpec::new("weather")
        .runs(2)
        .stability(StabilityGate::default());
    let rep = evaluate_stability(&spec, "stability", &runs).unwrap();
    let row = rep.failures().next().expect("the default gate fails");
    assert_eq!(
        row.details[0],
        "default gate stability.weakest_score >= 0.5 failed: 0.050, run_2 cost_per_progress \
         0.050: 40,000 tokens over 1 distinct call (40,000 per call; the target is 2,000)"
    );
    assert!(rep.render().contains("run_2 cost_per_progress 0.050"));

    // An explicit pairwise target says which pair agreed least.
    let strict = AgentSpec::new("weather").runs(2).stability(StabilityGate {
        expect: vec![
            expect(
                "stability.tool_sequence_similarity",
                json!({"schema": {"minimum": 0.9}}),
            ),
            expect("stability.redundancy_typo_free", json!({"exact": 1})),
            expect("stability.variance", json!({"schema": {"maximum": 1}})),
        ],
    });
    let rep = evaluate_stability(&strict, "stability", &runs).unwrap();
    let failing: Vec<_> = rep.failures().collect();
    assert_eq!(failing.len(), 2, "{}", rep.render());
    assert_eq!(
        failing[0].details.last().unwrap(),
        "driven by: least similar: run_1 and run_2, 1 call in common order of 5 (0.200)"
    );
    // A target that is not in the report gets no driver line.
    assert!(
        !failing[1]
            .details
            .iter()
            .any(|d| d.starts_with("driven by")),
        "{:?}",
        failing[1].details
    );
    // A passing assertion carries none either.
    assert!(rep.gates[3].passed && rep.gates[3].details.is_empty());
}

#[test]
fn tool_only_turns_between_answers_pass_the_default_stability_gate() {
    use mcptest_core::suite::{Suite, evaluate_cassette};
    use mcptest_core::trace::Cassette;
    // A healthy agent: search, then book, answering before and after, with turns that only
    // call tools in between (empty text, a bare tool_use block). Counting those turns as
    // 0-character answers gave response_consistency 0 and failed the default gate.
    let run = |first: &str, last: &str| {
        json!({"trace": {
            "tool_calls": [
                {"name": "search_flights", "args": {"to": "SEA"}},
                {"name": "search_flights", "args": {"to": "SEA", "day": 2}},
                {"name": "book", "args": {"flight": "HAT136"}}
            ],
            "conversation": {"tokens": {"total": 4000}, "turns": [
                {"role": "user", "content": "Book me a flight to Seattle."},
                {"role": "assistant", "content": first},
                {"role": "assistant", "content": ""},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_flights", "input": {}}]},
                {"role": "assistant", "content": ""},
                {"role": "assistant", "content": last}
            ]}
        }})
    };
    let cassette = Cassette::from_value(&json!({"mcptest_cassette": 1, "runs": [
        run("Let me look for flights to Seattle.", "Booked HAT136 to Seattle on May 20."),
        run("I will search flights to Seattle now.", "You are booked on HAT136, May 20."),
    ]}))
    .unwrap();
    let suite = Suite::from_yaml_str(
        "s.yml",
        "agents:\n  - name: booker\n    model: m\n    runs: 2\n    stability: {}\n",
    )
    .unwrap();
    let cells = evaluate_cassette(&suite.agents[0], &cassette);
    let stability = cells.iter().find(|c| c.cell == "stability").unwrap();
    assert!(stability.passed(), "{}", stability.render());
    assert!(
        stability.metrics["stability"]["weakest_score"]
            .as_f64()
            .unwrap()
            >= 0.5
    );
}

/// Every gate reports exactly the metrics the rulebook's gate table names, so a target the table accepts
/// always finds a value, and one it refuses never would.
#[test]
fn gate_reports_hold_exactly_the_metrics_of_the_table() {
    use mcptest_core::spec::gate_metrics;
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let table = |gate: &str| -> Vec<String> {
        let mut k: Vec<String> = gate_metrics(gate).iter().map(|m| m.to_string()).collect();
        k.sort();
        k
    };
    let spec = AgentSpec::new("all")
        .trajectory(ExpectedTrace::subsequence(vec![ExpectedCall::by_name(
            "billing__get_invoice",
        )]))
        .trajectory_axes(TrajectoryAxes::default().order("a", "b"))
        .golden_path(GoldenPath::new(["billing__get_invoice"]))
        .narrative(NarrativeGate::default());
    let rep = evaluate_run(&spec, "run_1", &invoice_run("Invoice 42 is paid."));
    for gate in ["trajectory", "golden_path", "narrative"] {
        assert_eq!(keys(&rep.metrics[gate]), table(gate), "{gate}");
    }
    let runs = vec![
        weather_run(
            &[("get_weather", json!({"city": "Oslo"}))],
            &["Sunny."],
            900,
        ),
        weather_run(
            &[("get_weather", json!({"city": "Oslo"}))],
            &["Sunny."],
            900,
        ),
    ];
    let spec = AgentSpec::new("s")
        .runs(2)
        .stability(StabilityGate::default())
        .reliability(ReliabilityGate::default());
    let rep = evaluate_stability(&spec, "stability", &runs).unwrap();
    assert_eq!(keys(&rep.metrics["stability"]), table("stability"));
    let rep = evaluate_reliability(&spec, "reliability", &[true, false]).unwrap();
    assert_eq!(keys(&rep.metrics["reliability"]), table("reliability"));
}

/// A misspelled metric, a target on an undeclared gate, a cross-run target in a per-run list
/// and a foreign target under a gate's list are declaration errors, whatever the front end.
#[test]
fn targets_are_checked_against_the_gates_when_declared() {
    let spec = AgentSpec::new("a")
        .runs(2)
        .trajectory(ExpectedTrace::subsequence(vec![ExpectedCall::by_name("x")]))
        .expect(expect("trajectory.pased", json!({"exact": 1})))
        .expect(expect("golden_path.penalty", json!({"exact": 0})))
        .expect(expect("stability.score", json!({"exact": 1})))
        .expect(expect("tool_calls[0].name", json!({"exact": "x"})))
        .stability(StabilityGate {
            expect: vec![
                expect("stability.weakest", json!({"schema": {"minimum": 0.5}})),
                expect("reliability.runs", json!({"exact": 2})),
            ],
        });
    let errors = spec.validate();
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "expect[0]",
            "expect[1]",
            "expect[2]",
            "stability.expect[0]",
            "stability.expect[1]"
        ],
        "{shown:#?}"
    );
    assert!(
        shown[0].contains("did you mean `trajectory.passed`?"),
        "{}",
        shown[0]
    );
    assert!(
        shown[1].contains("add `golden_path:` to the agent"),
        "{}",
        shown[1]
    );
    assert!(shown[2].contains("cross-run target"), "{}", shown[2]);
    assert!(
        shown[3].contains("did you mean `stability.weakest_score`?"),
        "{}",
        shown[3]
    );
    assert!(
        shown[4].contains("starts with `stability.`"),
        "{}",
        shown[4]
    );
    // Axes metrics need the axes gate, not the trajectory gate.
    let axes = AgentSpec::new("b")
        .trajectory(ExpectedTrace::subsequence(vec![ExpectedCall::by_name("x")]))
        .expect(expect("trajectory.order_satisfaction", json!({"exact": 1})));
    assert!(axes.validate()[0].message.contains("`trajectory_axes:`"));
}

#[test]
fn a_pass_rate_gate_passes_fails_or_stays_inconclusive() {
    use mcptest_core::gate::Outcome;
    use mcptest_core::spec::Inconclusive;
    let gate = |inconclusive| ReliabilityGate {
        min_pass_rate: Some(0.9),
        confidence: Some(0.95),
        inconclusive,
        ..ReliabilityGate::default()
    };
    let spec = AgentSpec::new("a")
        .runs(3)
        .reliability(gate(Inconclusive::Pass));
    let three = evaluate_reliability(&spec, "reliability", &[true; 3]).unwrap();
    assert_eq!(three.outcome(), Outcome::Inconclusive);
    assert!(three.passed(), "inconclusive does not fail by default");
    let text = three.render();
    assert!(text.contains("verdict: INCONCLUSIVE"), "{text}");
    assert!(
        text.contains(
            "INCONCLUSIVE reliability: inconclusive: pass rate 3/3 = 1.000, 95% Wilson \
             interval [0.438, 1.000] against min_pass_rate 0.900"
        ),
        "{text}"
    );
    assert!(text.contains("about 35 runs in all (32 more)"), "{text}");
    assert!(
        (three.metrics["reliability"]["lower_bound"]
            .as_f64()
            .unwrap()
            - 0.4385)
            .abs()
            < 1e-3
    );

    let strict = AgentSpec::new("a")
        .runs(3)
        .reliability(gate(Inconclusive::Fail));
    let failed = evaluate_reliability(&strict, "reliability", &[true; 3]).unwrap();
    assert_eq!(failed.outcome(), Outcome::Fail);
    assert!(failed.render().contains("FAIL (inconclusive) reliability"));

    let one = evaluate_reliability(&spec, "reliability", &[true, false, false]).unwrap();
    assert_eq!(one.outcome(), Outcome::Fail);
    let forty = evaluate_reliability(&spec, "reliability", &[true; 40]).unwrap();
    assert_eq!(forty.outcome(), Outcome::Pass);
}

#[test]
fn pass_rate_parameters_are_checked_when_declared() {
    let bad = AgentSpec::new("a").reliability(ReliabilityGate {
        min_pass_rate: Some(1.5),
        confidence: Some(1.0),
        ..ReliabilityGate::default()
    });
    let errors = bad.validate();
    assert!(
        errors
            .iter()
            .any(|e| e.field == "reliability.min_pass_rate")
    );
    assert!(errors.iter().any(|e| e.field == "reliability.confidence"));
    let orphan = AgentSpec::new("a").reliability(ReliabilityGate {
        confidence: Some(0.9),
        ..ReliabilityGate::default()
    });
    let errors = orphan.validate();
    assert!(
        errors[0].message.contains("add `min_pass_rate: 0.9`"),
        "{errors:?}"
    );
}
