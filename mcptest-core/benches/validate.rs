//! Trajectory validation and golden-path scoring beside parsing the same trace file.
//!
//! The performance contract: at 1,000 recorded calls every evaluator costs less than
//! `serde_json` parsing the trace file it reads. `validate_trace_failing` measures a verdict
//! that fails in the middle of the trace, with its partial credit and edit script.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcptest_core::eval::{
    ExpectedCall, ExpectedTrace, GoldenPath, MatchMode, score_golden_path, validate_trace,
};
use mcptest_core::trace::{Cassette, ToolCall};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;

const TOOLS: [&str; 8] = [
    "search_issues",
    "get_issue",
    "list_comments",
    "add_label",
    "create_comment",
    "get_file_contents",
    "search_code",
    "run_workflow",
];

/// A realistic envelope of `n` calls: repeated tools, argument objects, results and turns.
fn envelope(n: usize) -> Value {
    let calls: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "name": TOOLS[i % TOOLS.len()],
                "server": "github",
                "args": {
                    "owner": "acme", "repo": "widgets", "issue": 400 + (i % 50),
                    "query": format!("flaky test {}", i % 17), "labels": ["ci", "flaky"],
                    "per_page": 30
                },
                "started_ms": i * 40, "ended_ms": i * 40 + 25
            })
        })
        .collect();
    let results: Vec<Value> = (0..n)
        .map(|i| {
            json!({"is_error": false, "status": 200,
                        "content": [{"type": "text", "text": format!("result {i}: 3 matches")}]})
        })
        .collect();
    json!({
        "tool_calls": calls,
        "tool_results": results,
        "conversation": {"tokens": {"total": 1200 * n},
                          "turns": [{"role": "user", "content": "Triage the flaky CI issues."},
                                    {"role": "assistant", "content": "Labelled and commented."}]},
        "final_response": "Labelled and commented."
    })
}

/// A reference as long as the trace with mixed argument shapes.
fn reference(calls: &[ToolCall], mode: MatchMode) -> ExpectedTrace {
    let refs: Vec<ExpectedCall> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let e = ExpectedCall::by_name(c.name.clone());
            let args = c.args.clone().unwrap();
            match i % 4 {
                0 => e,
                1 => e.args_subset(json!({"issue": args["issue"]})),
                2 => e.args_exact(args),
                _ => e.args_schema(json!({"type": "object", "required": ["owner", "repo"],
                                          "properties": {"per_page": {"maximum": 100}}})),
            }
        })
        .collect();
    ExpectedTrace::new(mode, refs)
}

fn bench(c: &mut Criterion) {
    let modes = MatchMode::ALL;
    for n in [10usize, 100, 1_000, 10_000] {
        let text = serde_json::to_string_pretty(&envelope(n)).unwrap();
        let calls = Cassette::from_json_str("bench.json", &text).unwrap().runs[0]
            .trace
            .tool_calls
            .clone();
        let mut g = c.benchmark_group(format!("calls_{n}"));
        g.throughput(Throughput::Elements(n as u64));
        if n >= 1_000 {
            g.sample_size(20).measurement_time(Duration::from_secs(3));
        }
        g.bench_function("parse/serde_json_value", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
        });
        g.bench_function("parse/cassette", |b| {
            b.iter(|| Cassette::from_json_str("bench.json", black_box(&text)).unwrap())
        });
        for mode in modes {
            let expected = reference(&calls, mode);
            assert!(validate_trace(&calls, &expected).unwrap().passed);
            g.bench_with_input(
                BenchmarkId::new("validate_trace", mode),
                &expected,
                |b, e| b.iter(|| validate_trace(black_box(&calls), e).unwrap()),
            );
        }
        // A failing reference (one call in the middle names another tool): the verdict plus
        // its partial credit and, in the ordered modes, the shortest edit script.
        for mode in [
            MatchMode::Strict,
            MatchMode::Subsequence,
            MatchMode::Unordered,
        ] {
            let mut expected = reference(&calls, mode);
            expected.calls[n / 2] = ExpectedCall::by_name("close_issue");
            assert!(!validate_trace(&calls, &expected).unwrap().passed);
            g.bench_with_input(
                BenchmarkId::new("validate_trace_failing", mode),
                &expected,
                |b, e| b.iter(|| validate_trace(black_box(&calls), e).unwrap()),
            );
        }
        let golden = GoldenPath::new(TOOLS);
        g.bench_function("score_golden_path", |b| {
            b.iter(|| score_golden_path(black_box(&calls), &golden))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
