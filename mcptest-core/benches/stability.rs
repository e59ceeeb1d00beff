//! Cross-run stability over N recorded runs: per-run sub-scores, pairwise bit-parallel LCS,
//! argument consistency and divergence, at 2, 10 and 100 runs of 100 and 1,000 calls, beside
//! `serde_json` parsing the same runs' text.
//!
//! `score` is `agent_stability_across` on the runs' JSON; `decoded` is
//! `trace_stability_across` on the same runs already decoded from a cassette.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcptest_core::eval::{agent_stability, agent_stability_across, trace_stability_across};
use mcptest_core::trace::ConversationTrace;
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;

const TOOLS: [&str; 12] = [
    "search_issues",
    "get_issue",
    "list_comments",
    "add_label",
    "create_comment",
    "get_file_contents",
    "search_code",
    "run_workflow",
    "list_pull_requests",
    "get_pull_request_diff",
    "update_issue",
    "list_workflow_runs",
];

/// A small deterministic generator (xorshift64*), so every run of the bench sees the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `runs` envelopes of about `calls` calls each: one base plan of tools, which each run
/// follows with about one step in ten replaced, dropped or inserted, and argument objects that
/// sometimes differ.
fn runs(runs: usize, calls: usize) -> Vec<Value> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (runs * 1_000_003 + calls) as u64);
    let plan: Vec<usize> = (0..calls)
        .map(|_| rng.below(TOOLS.len() as u64) as usize)
        .collect();
    (0..runs)
        .map(|_| {
            let mut steps = Vec::with_capacity(calls + calls / 10);
            for (i, &tool) in plan.iter().enumerate() {
                match rng.below(30) {
                    0 => continue,
                    1 => steps.push((rng.below(TOOLS.len() as u64) as usize, i)),
                    2 => {
                        steps.push((tool, i));
                        steps.push((rng.below(TOOLS.len() as u64) as usize, i));
                    }
                    _ => steps.push((tool, i)),
                }
            }
            let tool_calls: Vec<Value> = steps
                .iter()
                .map(|&(tool, i)| {
                    json!({
                        "name": TOOLS[tool],
                        "server": "github",
                        "args": {
                            "owner": "acme", "repo": "widgets",
                            "issue": 400 + (i % 50) + usize::from(rng.below(8) == 0),
                            "query": format!("flaky test {}", i % 17),
                            "labels": ["ci", "flaky"], "per_page": 30
                        }
                    })
                })
                .collect();
            let turns: Vec<Value> = (0..6)
                .map(|t| {
                    let words = 10 + rng.below(60) as usize;
                    json!({
                        "role": if t % 2 == 0 { "user" } else { "assistant" },
                        "content": "checked the workflow logs ".repeat(words / 4 + 1)
                    })
                })
                .collect();
            json!({
                "tool_calls": tool_calls,
                "tool_results": [],
                "conversation": {"tokens": {"total": 1_500 * calls as u64 + rng.below(50_000)},
                                 "turns": turns},
                "final_response": "Labelled the flaky issues and re-ran the workflow."
            })
        })
        .collect()
}

fn bench_across(c: &mut Criterion) {
    let mut group = c.benchmark_group("agent_stability_across");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for calls in [100usize, 1_000] {
        for n in [2usize, 10, 100] {
            let data = runs(n, calls);
            let texts: Vec<String> = data.iter().map(Value::to_string).collect();
            let big = n * calls >= 100_000;
            group.measurement_time(Duration::from_secs(if big { 6 } else { 2 }));
            group.throughput(Throughput::Elements((n * calls) as u64));
            let id = format!("{n}runs_x_{calls}calls");
            group.bench_with_input(BenchmarkId::new("score", &id), &data, |b, d| {
                b.iter(|| agent_stability_across(black_box(d)))
            });
            let traces: Vec<ConversationTrace> = data
                .iter()
                .filter_map(|r| ConversationTrace::from_envelope(r).ok())
                .collect();
            group.bench_with_input(BenchmarkId::new("decoded", &id), &traces, |b, t| {
                b.iter(|| trace_stability_across(black_box(t)))
            });
            group.bench_with_input(BenchmarkId::new("parse", &id), &texts, |b, t| {
                b.iter(|| {
                    t.iter()
                        .map(|s| serde_json::from_str::<Value>(black_box(s)).map_or(0, |_| 1))
                        .sum::<usize>()
                })
            });
        }
    }
    group.finish();
}

fn bench_single(c: &mut Criterion) {
    let mut group = c.benchmark_group("agent_stability");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    let run = runs(1, 1_000).remove(0);
    let text = run.to_string();
    group.bench_function("score/1000calls", |b| {
        b.iter(|| agent_stability(black_box(&run)))
    });
    group.bench_function("parse/1000calls", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).map_or(0, |_| 1))
    });
    group.finish();
}

criterion_group!(benches, bench_across, bench_single);
criterion_main!(benches);
