//! Fault recovery: marks read off recorded traces, and the scoring against a budget.

use mcptest_core::eval::{
    RecoveryBudget, RecoveryMarks, RecoveryReport, find_faulted_call, recovery_marks,
    recovery_marks_from_trace, score_recovery,
};
use mcptest_core::trace::{Cassette, ConversationTrace, ToolCall};
use serde_json::{Value, json};

/// The seeds' budget: `max_detection_ms: 3000`, `max_recovery_ms: 5000`,
/// `require_clean_timeout: true`.
fn seed_budget() -> RecoveryBudget {
    RecoveryBudget {
        max_detection_ms: 3000,
        max_recovery_ms: Some(5000),
        require_clean_timeout: true,
    }
}

fn marks(start: Option<u64>, detected: Option<u64>, recovered: Option<u64>) -> RecoveryMarks {
    RecoveryMarks {
        fault_started_ms: start,
        detected_ms: detected,
        recovered_ms: recovered,
    }
}

// ---------------------------------------------------------------------------------------------
// The budget's YAML surface (the same keys through any serde format).

#[test]
fn budget_reads_the_seed_block() {
    let b: RecoveryBudget = serde_json::from_value(json!({
        "max_detection_ms": 3000,
        "max_recovery_ms": 5000,
        "require_clean_timeout": true
    }))
    .unwrap();
    assert_eq!(b, seed_budget());
}

#[test]
fn budget_defaults_and_errors() {
    let b: RecoveryBudget = serde_json::from_value(json!({"max_detection_ms": 3000})).unwrap();
    assert_eq!(
        b.max_recovery_ms, None,
        "omitted max_recovery_ms is unbounded"
    );
    assert!(!b.require_clean_timeout);

    let missing = serde_json::from_value::<RecoveryBudget>(json!({"max_recovery_ms": 5000}));
    assert!(
        missing
            .unwrap_err()
            .to_string()
            .contains("max_detection_ms")
    );

    let typo = serde_json::from_value::<RecoveryBudget>(
        json!({"max_detection_ms": 3000, "require_clean_timout": true}),
    );
    assert!(
        typo.unwrap_err()
            .to_string()
            .contains("require_clean_timout")
    );

    let negative = serde_json::from_value::<RecoveryBudget>(json!({"max_detection_ms": -1}));
    assert!(negative.is_err());

    // Round trip.
    let back: RecoveryBudget =
        serde_json::from_value(serde_json::to_value(seed_budget()).unwrap()).unwrap();
    assert_eq!(back, seed_budget());
}

// ---------------------------------------------------------------------------------------------
// Scoring.

#[test]
fn clean_versus_late_detection() {
    let budget = seed_budget();
    // Timed out exactly at the 3 s budget: clean.
    let clean = score_recovery(&marks(Some(0), Some(3000), Some(3400)), &budget);
    assert!(clean.clean_timeout);
    assert!(clean.passed, "{clean}");
    assert_eq!(clean.user_visible_hang_ms, 3000);

    // Hung 9 s before noticing: detected, but not clean.
    let late = score_recovery(&marks(Some(0), Some(9000), Some(9400)), &budget);
    assert!(!late.clean_timeout);
    assert!(late.recovered);
    assert_eq!(late.time_to_detection_ms, Some(9000));
    assert_eq!(late.user_visible_hang_ms, 9000);
    assert!(!late.passed);
    assert!(
        late.reasons
            .iter()
            .any(|r| r.contains("not a clean timeout")
                && r.contains("9000 ms")
                && r.contains("6000 ms past"))
    );

    // One millisecond over is already late.
    assert!(!score_recovery(&marks(Some(0), Some(3001), Some(3100)), &budget).clean_timeout);
}

#[test]
fn late_detection_passes_without_require_clean_timeout() {
    let budget = RecoveryBudget {
        max_detection_ms: 3000,
        max_recovery_ms: None,
        require_clean_timeout: false,
    };
    let r = score_recovery(&marks(Some(0), Some(9000), Some(9400)), &budget);
    assert!(!r.clean_timeout, "still reported");
    assert!(r.passed, "{r}");
}

#[test]
fn never_detected() {
    let budget = seed_budget();
    // Nothing at all: the hang is capped at the detection budget.
    let r = score_recovery(&marks(Some(100), None, None), &budget);
    assert_eq!(r.time_to_detection_ms, None);
    assert_eq!(r.time_to_recovery_ms, None);
    assert_eq!(r.user_visible_hang_ms, 3000);
    assert!(!r.clean_timeout && !r.recovered && !r.passed);
    assert_eq!(r.reasons.len(), 2, "{:?}", r.reasons);
    assert!(r.reasons[0].contains("never recovered"));
    assert!(r.reasons[1].contains("never detected"));

    // Routed around the hung call without it ever timing out: recovered, hang ends there.
    let r = score_recovery(&marks(Some(100), None, Some(1600)), &budget);
    assert_eq!(r.user_visible_hang_ms, 1500);
    assert!(r.recovered && !r.clean_timeout);
    assert!(!r.passed, "require_clean_timeout wants a detection");
    let lenient = RecoveryBudget {
        require_clean_timeout: false,
        ..budget
    };
    assert!(score_recovery(&marks(Some(100), None, Some(1600)), &lenient).passed);
}

#[test]
fn never_recovered() {
    let r = score_recovery(&marks(Some(0), Some(3000), None), &seed_budget());
    assert!(r.clean_timeout);
    assert!(!r.recovered);
    assert_eq!(r.user_visible_hang_ms, 3000);
    assert!(!r.passed);
    assert_eq!(r.reasons.len(), 1);
    assert!(r.reasons[0].starts_with("never recovered"));
}

#[test]
fn recovery_before_detection() {
    // A parallel fallback answered at 1.2 s; the hung call's timeout fired at 3 s.
    let r = score_recovery(&marks(Some(0), Some(3000), Some(1200)), &seed_budget());
    assert_eq!(r.user_visible_hang_ms, 1200, "the earlier of the two");
    assert!(r.recovered && r.clean_timeout && r.passed);
}

#[test]
fn over_the_recovery_budget() {
    let r = score_recovery(&marks(Some(1000), Some(4000), Some(6001)), &seed_budget());
    assert_eq!(r.time_to_recovery_ms, Some(5001));
    assert!(!r.passed);
    assert_eq!(r.reasons.len(), 1);
    assert!(r.reasons[0].contains("5001 ms") && r.reasons[0].contains("1 ms over the 5000 ms"));
    // Exactly at the budget passes.
    assert!(score_recovery(&marks(Some(1000), Some(4000), Some(6000)), &seed_budget()).passed);
}

#[test]
fn missing_fault_start_measures_from_zero_and_says_so() {
    let r = score_recovery(&marks(None, Some(3500), Some(4000)), &seed_budget());
    assert_eq!(r.time_to_detection_ms, Some(3500));
    assert!(!r.passed);
    assert!(r.reasons.last().unwrap().contains("no `started_ms`"));
    // On a pass, no note.
    let ok = score_recovery(&marks(None, Some(2000), Some(2500)), &seed_budget());
    assert!(ok.passed && ok.reasons.is_empty());
}

#[test]
fn marks_before_the_start_count_as_zero() {
    let r = score_recovery(&marks(Some(5000), Some(4000), Some(4500)), &seed_budget());
    assert_eq!(r.time_to_detection_ms, Some(0));
    assert_eq!(r.time_to_recovery_ms, Some(0));
    assert_eq!(r.user_visible_hang_ms, 0);
    assert!(r.passed);
}

#[test]
fn extreme_values_do_not_overflow() {
    let b = RecoveryBudget {
        max_detection_ms: u64::MAX,
        max_recovery_ms: Some(0),
        require_clean_timeout: true,
    };
    let r = score_recovery(&marks(Some(0), Some(u64::MAX), Some(u64::MAX)), &b);
    assert!(r.clean_timeout);
    assert!(!r.passed);
    let r = score_recovery(&marks(Some(u64::MAX), None, None), &b);
    assert_eq!(r.user_visible_hang_ms, u64::MAX);
}

/// Hand-computed table: (start, detected, recovered) against the seed budget.
#[test]
fn hand_computed_cases() {
    #[allow(clippy::type_complexity)]
    let cases: &[(
        (Option<u64>, Option<u64>, Option<u64>),
        (Option<u64>, Option<u64>, u64, bool, bool, bool),
    )] = &[
        // marks                           ttd          ttr          hang  recov  clean  passed
        (
            (Some(0), Some(3000), Some(3200)),
            (Some(3000), Some(3200), 3000, true, true, true),
        ),
        (
            (Some(500), Some(3500), Some(4100)),
            (Some(3000), Some(3600), 3000, true, true, true),
        ),
        (
            (Some(500), Some(2500), Some(5600)),
            (Some(2000), Some(5100), 2000, true, true, false),
        ),
        (
            (Some(0), Some(9000), Some(9100)),
            (Some(9000), Some(9100), 9000, true, false, false),
        ),
        (
            (Some(0), Some(3000), None),
            (Some(3000), None, 3000, false, true, false),
        ),
        (
            (Some(0), None, None),
            (None, None, 3000, false, false, false),
        ),
        (
            (Some(200), Some(3200), Some(700)),
            (Some(3000), Some(500), 500, true, true, true),
        ),
        (
            (Some(0), Some(0), Some(0)),
            (Some(0), Some(0), 0, true, true, true),
        ),
        (
            (Some(10_000), Some(13_000), Some(15_000)),
            (Some(3000), Some(5000), 3000, true, true, true),
        ),
    ];
    for &((s, d, r), (ttd, ttr, hang, recovered, clean, passed)) in cases {
        let rep = score_recovery(&marks(s, d, r), &seed_budget());
        assert_eq!(
            (
                rep.time_to_detection_ms,
                rep.time_to_recovery_ms,
                rep.user_visible_hang_ms,
                rep.recovered,
                rep.clean_timeout,
                rep.passed
            ),
            (ttd, ttr, hang, recovered, clean, passed),
            "marks {:?}",
            (s, d, r)
        );
        assert_eq!(rep.passed, rep.reasons.is_empty(), "{rep}");
    }
}

// ---------------------------------------------------------------------------------------------
// Marks read off recorded traces.

/// A hung `search` on `faulty` (virtual-time timeout at its 3 s budget), then a fallback to the
/// `mirror` server.
fn hang_then_fallback() -> Value {
    json!({
        "tool_calls": [
            {"name": "list_sources", "server": "faulty", "args": {}, "started_ms": 0, "ended_ms": 35},
            {"name": "faulty__search", "args": {"q": "latest incident report"},
             "started_ms": 120, "ended_ms": 3120},
            {"name": "search", "server": "mirror", "args": {"q": "latest incident report"},
             "started_ms": 3300, "ended_ms": 3710},
            {"name": "fetch", "server": "mirror", "args": {"id": "INC-2291"},
             "started_ms": 3800, "ended_ms": 3950}
        ],
        "tool_results": [
            {"is_error": false, "content": [{"type": "text", "text": "faulty, mirror"}]},
            {"is_error": true, "timed_out": true,
             "content": [{"type": "text", "text": "tool call timed out after 3000 ms"}]},
            {"is_error": false, "content": [{"type": "text", "text": "INC-2291"}]},
            {"is_error": false, "content": [{"type": "text", "text": "Incident INC-2291 ..."}]}
        ],
        "conversation": {"turns": [
            {"role": "user", "content": "Search for the latest incident report."},
            {"role": "assistant", "content": "The search tool timed out; I used the mirror."}
        ]}
    })
}

#[test]
fn realistic_hang_then_fallback() {
    let run = hang_then_fallback();
    let calls = Cassette::from_value(&run).unwrap().runs[0]
        .trace
        .tool_calls
        .clone();
    let fault = find_faulted_call(&calls, Some("search"), Some("faulty")).unwrap();
    assert_eq!(fault, 1, "the wire prefix is split off on load");
    let m = recovery_marks(&run, fault);
    assert_eq!(m, marks(Some(120), Some(3120), Some(3710)));
    let r = score_recovery(&m, &seed_budget());
    assert_eq!(r.time_to_detection_ms, Some(3000));
    assert_eq!(r.time_to_recovery_ms, Some(3590));
    assert_eq!(r.user_visible_hang_ms, 3000);
    assert!(r.passed, "{r}");
}

#[test]
fn realistic_recover_after_two_failures() {
    // `recover-after:2`: two synthesized timeouts, each consuming one 3 s budget, then success.
    let run = json!({"trace": {
        "tool_calls": [
            {"name": "search", "server": "flaky", "args": {"q": "x"}, "started_ms": 0, "ended_ms": 3000},
            {"name": "search", "server": "flaky", "args": {"q": "x"}, "started_ms": 3050, "ended_ms": 6050},
            {"name": "search", "server": "flaky", "args": {"q": "x"}, "started_ms": 6100, "ended_ms": 6180}
        ],
        "tool_results": [
            {"is_error": true, "timed_out": true},
            {"is_error": true, "timed_out": true},
            {"is_error": false, "content": [{"type": "text", "text": "ok"}]}
        ]
    }});
    let m = recovery_marks(&run, 0);
    assert_eq!(m, marks(Some(0), Some(3000), Some(6180)));
    let r = score_recovery(&m, &seed_budget());
    assert!(r.clean_timeout);
    assert_eq!(r.time_to_recovery_ms, Some(6180));
    assert!(!r.passed, "6180 ms is over the 5000 ms recovery budget");
    let unbounded = RecoveryBudget {
        max_recovery_ms: None,
        ..seed_budget()
    };
    assert!(score_recovery(&m, &unbounded).passed);
}

#[test]
fn realistic_agent_that_hangs_past_its_budget() {
    // The agent's own timeout was 9 s: the executor reports the timeout at 9 s.
    let run = json!({
        "tool_calls": [
            {"name": "query", "server": "db", "started_ms": 1000, "ended_ms": 10_000},
            {"name": "query", "server": "replica", "started_ms": 10_100, "ended_ms": 10_300}
        ],
        "tool_results": [{"timed_out": true, "is_error": true}, {"is_error": false}]
    });
    let r = score_recovery(&recovery_marks(&run, 0), &seed_budget());
    assert_eq!(r.time_to_detection_ms, Some(9000));
    assert!(!r.clean_timeout);
    assert_eq!(r.reasons.len(), 2, "{r}");
}

#[test]
fn an_error_result_is_a_detection() {
    let run = json!({
        "tool_calls": [{"name": "search", "started_ms": 0, "ended_ms": 40},
                       {"name": "search", "started_ms": 60, "ended_ms": 90}],
        "tool_results": [{"isError": true}, {"isError": false}]
    });
    assert_eq!(recovery_marks(&run, 0), marks(Some(0), Some(40), Some(90)));
}

#[test]
fn later_failures_and_unanswered_calls_are_not_recovery() {
    let run = json!({
        "tool_calls": [
            {"name": "search", "started_ms": 0, "ended_ms": 3000},
            {"name": "search", "started_ms": 3100, "ended_ms": 6100},
            {"name": "open", "started_ms": 6200, "ended_ms": 6300},
            {"name": "search", "started_ms": 6400}
        ],
        "tool_results": [
            {"timed_out": true}, {"is_error": true}, {"is_error": false, "timed_out": true}
        ]
    });
    let m = recovery_marks(&run, 0);
    assert_eq!(m.detected_ms, Some(3000));
    assert_eq!(
        m.recovered_ms, None,
        "errors, timeouts and a missing result are not successes"
    );
}

#[test]
fn a_call_before_the_fault_is_not_recovery() {
    let run = hang_then_fallback();
    // Fault at index 3 (the last call): the earlier successes do not count.
    let m = recovery_marks(&run, 3);
    assert_eq!(m.recovered_ms, None);
    assert_eq!(m.detected_ms, None, "the call succeeded: nothing to detect");
}

#[test]
fn missing_timing_fields() {
    // A recording without timing: the fault is there, but neither mark can be placed in time.
    let run = json!({
        "tool_calls": [{"name": "search"}, {"name": "search", "server": "mirror"}],
        "tool_results": [{"is_error": true, "timed_out": true}, {"is_error": false}]
    });
    let m = recovery_marks(&run, 0);
    assert_eq!(m, RecoveryMarks::default());
    let r = score_recovery(&m, &seed_budget());
    assert!(!r.passed);
    assert!(r.reasons.iter().any(|x| x.contains("ended_ms")));
    assert!(r.reasons.iter().any(|x| x.contains("started_ms")));

    // Start present, ends missing.
    let run = json!({
        "tool_calls": [{"name": "search", "started_ms": 10},
                       {"name": "search", "started_ms": 3100, "ended_ms": 3300}],
        "tool_results": [{"timed_out": true}, {"is_error": false}]
    });
    assert_eq!(recovery_marks(&run, 0), marks(Some(10), None, Some(3300)));

    // A later success without `ended_ms` is skipped in favour of one that has it.
    let run = json!({
        "tool_calls": [{"name": "a", "started_ms": 0, "ended_ms": 3000},
                       {"name": "b", "started_ms": 3100},
                       {"name": "c", "started_ms": 3200, "ended_ms": 3400}],
        "tool_results": [{"timed_out": true}, {}, {}]
    });
    assert_eq!(recovery_marks(&run, 0).recovered_ms, Some(3400));
}

#[test]
fn malformed_and_out_of_range_inputs_give_no_marks() {
    assert_eq!(recovery_marks(&json!({}), 0), RecoveryMarks::default());
    assert_eq!(recovery_marks(&json!(null), 0), RecoveryMarks::default());
    assert_eq!(
        recovery_marks(&json!({"tool_calls": 7}), 0),
        RecoveryMarks::default()
    );
    assert_eq!(
        recovery_marks(&hang_then_fallback(), 99),
        RecoveryMarks::default()
    );
    let odd = json!({
        "tool_calls": [{"name": "a", "started_ms": "0", "ended_ms": -5},
                       {"name": "b", "started_ms": 1.0, "ended_ms": 2.5},
                       {"name": "c", "ended_ms": 40.0}],
        "tool_results": ["not an object", {"is_error": "yes"}, {"is_error": false}]
    });
    let m = recovery_marks(&odd, 0);
    assert_eq!(m.fault_started_ms, None);
    assert_eq!(m.detected_ms, None, "a non-object result is no result");
    assert_eq!(
        m.recovered_ms,
        Some(40),
        "whole-number floats are read; 2.5 is not"
    );
}

#[test]
fn cassette_run_shape_and_decoded_trace_agree() {
    let envelope = hang_then_fallback();
    let run = json!({"trace": envelope.clone(), "exchanges": [], "meta": {"model": "m"}});
    let trace = ConversationTrace::from_envelope(&envelope).unwrap();
    for i in 0..5 {
        assert_eq!(
            recovery_marks(&run, i),
            recovery_marks(&envelope, i),
            "index {i}"
        );
        assert_eq!(
            recovery_marks_from_trace(&trace, i),
            recovery_marks(&envelope, i),
            "index {i}"
        );
    }
    let text = serde_json::to_string(&json!({"mcptest_cassette": 1, "runs": [run]})).unwrap();
    let cassette = Cassette::from_json_str("recovery.json", &text).unwrap();
    assert_eq!(
        recovery_marks_from_trace(&cassette.runs[0].trace, 1),
        marks(Some(120), Some(3120), Some(3710))
    );
}

// ---------------------------------------------------------------------------------------------
// Finding the faulted call.

#[test]
fn fault_targets() {
    let calls = vec![
        ToolCall::new("list").with_server("docs"),
        ToolCall::new("search").with_server("web"),
        ToolCall::new("search").with_server("docs"),
        ToolCall::new("search"),
    ];
    assert_eq!(find_faulted_call(&calls, Some("search"), None), Some(1));
    assert_eq!(
        find_faulted_call(&calls, Some("search"), Some("docs")),
        Some(2)
    );
    assert_eq!(find_faulted_call(&calls, None, Some("web")), Some(1));
    assert_eq!(find_faulted_call(&calls, None, Some("docs")), Some(0));
    assert_eq!(find_faulted_call(&calls, Some("list"), Some("web")), None);
    assert_eq!(find_faulted_call(&calls, None, Some("nowhere")), None);
    assert_eq!(find_faulted_call(&calls, None, None), Some(0));
    assert_eq!(find_faulted_call(&[], None, None), None);
    assert_eq!(find_faulted_call(&[], Some("search"), None), None);
}

// ---------------------------------------------------------------------------------------------
// Reports.

#[test]
fn report_serializes_and_displays() {
    let r = score_recovery(&marks(Some(0), Some(9000), None), &seed_budget());
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["time_to_detection_ms"], json!(9000));
    assert_eq!(v["time_to_recovery_ms"], Value::Null);
    assert_eq!(v["passed"], json!(false));
    let back: RecoveryReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
    let shown = r.to_string();
    assert!(
        shown.starts_with("recovery: FAIL (detection 9000 ms, recovery none"),
        "{shown}"
    );
    assert_eq!(shown.lines().count(), 1 + r.reasons.len());
    let m: RecoveryMarks = serde_json::from_value(json!({"detected_ms": 5})).unwrap();
    assert_eq!(m, marks(None, Some(5), None));
}

#[test]
fn scoring_is_deterministic() {
    let m = recovery_marks(&hang_then_fallback(), 1);
    let a = serde_json::to_string(&score_recovery(&m, &seed_budget())).unwrap();
    for _ in 0..5 {
        assert_eq!(
            serde_json::to_string(&score_recovery(&m, &seed_budget())).unwrap(),
            a
        );
    }
}

#[test]
fn a_success_recorded_before_the_fault_started_is_not_recovery() {
    // The fault starts at 5000; the only success after it in the trace started at 1000 and
    // ended at 1200 (a call recorded out of order). It cannot have routed around the fault.
    let run = json!({
        "tool_calls": [
            {"name": "search", "started_ms": 5000, "ended_ms": 8000},
            {"name": "list", "started_ms": 1000, "ended_ms": 1200}
        ],
        "tool_results": [{"timed_out": true}, {"is_error": false}]
    });
    let m = recovery_marks(&run, 0);
    assert_eq!(m, marks(Some(5000), Some(8000), None));
    let r = score_recovery(&m, &seed_budget());
    assert!(!r.recovered && !r.passed, "{r}");
    assert_eq!(r.time_to_recovery_ms, None);

    // Without a start time, a success that ended before the fault started does not count
    // either; one that ended after it does.
    let run = json!({
        "tool_calls": [
            {"name": "search", "started_ms": 5000, "ended_ms": 8000},
            {"name": "list", "ended_ms": 4000},
            {"name": "open", "ended_ms": 9100}
        ],
        "tool_results": [{"timed_out": true}, {}, {}]
    });
    assert_eq!(recovery_marks(&run, 0).recovered_ms, Some(9100));

    // A parallel call launched in the same millisecond as the faulted one is no reaction.
    let run = json!({
        "tool_calls": [
            {"name": "search", "started_ms": 100, "ended_ms": 3100},
            {"name": "weather", "started_ms": 100, "ended_ms": 250}
        ],
        "tool_results": [{"timed_out": true}, {}]
    });
    assert_eq!(recovery_marks(&run, 0).recovered_ms, None);
}

#[test]
fn a_success_after_the_fault_is_recovery_with_the_right_time() {
    // Recorded before the faulted call in the trace but started after it (a parallel batch
    // written out of order): it counts, and the earliest end wins.
    let run = json!({
        "tool_calls": [
            {"name": "open", "started_ms": 3200, "ended_ms": 3700},
            {"name": "search", "started_ms": 100, "ended_ms": 3100},
            {"name": "search", "server": "mirror", "started_ms": 3150, "ended_ms": 3450}
        ],
        "tool_results": [{}, {"timed_out": true}, {}]
    });
    let m = recovery_marks(&run, 1);
    assert_eq!(m, marks(Some(100), Some(3100), Some(3450)));
    let r = score_recovery(&m, &seed_budget());
    assert_eq!(r.time_to_recovery_ms, Some(3350));
    assert!(r.recovered && r.passed, "{r}");
}
