//! Every evaluator on the median real run, beside parsing that run.
//!
//! `fixtures/median-real-runs.json` holds the median run (by tool calls) of the tau-bench and of
//! the tau2-bench recordings (5 and 8 calls; see `fixtures/NOTICE.md`). Most users' traces are
//! this small, so this is the speed they feel: each evaluator's fixed cost, beside
//! `serde_json` parsing the same run's text.
//!
//! Run with `cargo bench -p mcptest-core --bench real_runs`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcptest_core::eval::{
    ExpectedCall, ExpectedTrace, GoldenPath, MatchMode, NarrativeConfig, agent_stability,
    check_narrative, score_golden_path, tool_calls_from_envelope, trace_stability, validate_trace,
};
use mcptest_core::trace::Cassette;
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;

const FIXTURE: &str = include_str!("fixtures/median-real-runs.json");

fn bench(c: &mut Criterion) {
    let cassette = Cassette::from_json_str("median-real-runs.json", FIXTURE).expect("a cassette");
    let doc: Value = serde_json::from_str(FIXTURE).expect("JSON");
    for (run, name) in cassette.runs.iter().zip(["tau_bench", "tau2"]) {
        let raw = &doc["runs"][cassette
            .runs
            .iter()
            .position(|r| std::ptr::eq(r, run))
            .unwrap()];
        let text = serde_json::to_string(raw).expect("serializable");
        let trace = &run.trace;
        let calls = &trace.tool_calls;
        let mut g = c.benchmark_group(format!("median_run_{name}_{}_calls", calls.len()));
        g.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        g.bench_function("parse/serde_json_value", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
        });
        g.bench_function("tool_calls_from_envelope", |b| {
            b.iter(|| tool_calls_from_envelope(black_box(raw)))
        });
        g.bench_function("agent_stability/envelope", |b| {
            b.iter(|| agent_stability(black_box(raw)))
        });
        g.bench_function("agent_stability/decoded", |b| {
            b.iter(|| trace_stability(black_box(trace)))
        });
        let golden = GoldenPath::new(calls.iter().map(|c| c.name.clone()));
        g.bench_function("score_golden_path", |b| {
            b.iter(|| score_golden_path(black_box(calls), &golden))
        });
        for mode in MatchMode::ALL {
            // The run's own calls with their exact arguments, as a pinned trajectory reads.
            let reference = ExpectedTrace::new(
                mode,
                calls.iter().map(|c| {
                    ExpectedCall::by_name(c.name.clone())
                        .args_exact(c.args.clone().unwrap_or_default())
                }),
            );
            assert!(validate_trace(calls, &reference).unwrap().passed);
            g.bench_function(format!("validate_trace/{mode}"), |b| {
                b.iter(|| validate_trace(black_box(calls), &reference).unwrap())
            });
        }
        let text_of_run = trace.final_text();
        let cfg = NarrativeConfig::default();
        g.bench_function("check_narrative", |b| {
            b.iter(|| check_narrative(black_box(&text_of_run), black_box(calls), &cfg))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
