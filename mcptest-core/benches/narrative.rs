//! `check_narrative` at scale: a 10,000-word narrative against 1,000 recorded calls, and a
//! 1,000-word narrative against 100 calls; beside them, `serde_json` parsing the same large run
//! as an envelope, the yardstick of the performance contract (a gate should cost less than
//! parsing the run it grades); and a parse followed by a check, as a suite runs them.
//!
//! Run with `cargo bench -p mcptest-core --bench narrative`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcptest_core::eval::{NarrativeConfig, check_narrative};
use mcptest_core::trace::{ConversationTrace, ToolCall};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;

const VERBS: [&str; 8] = [
    "create", "update", "delete", "send", "get", "list", "search", "close",
];
const NOUNS: [&str; 16] = [
    "issue", "branch", "comment", "email", "user", "order", "invoice", "label", "ticket", "file",
    "report", "record", "page", "token", "message", "customer",
];

/// A small deterministic generator, so every run measures the same input.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn calls(n: usize) -> Vec<ToolCall> {
    let mut rng = Lcg(7);
    (0..n)
        .map(|i| {
            let name = format!("{}_{}{}", VERBS[rng.next(8)], NOUNS[rng.next(16)], i % 50);
            let priority = ["low", "high"][i % 2];
            ToolCall::new(name).with_server("svc").with_args(json!({
                "id": i,
                "title": format!("Item number {i}"),
                "priority": priority,
            }))
        })
        .collect()
}

/// About `words` words of narration: claims, mentions, key-value statements and filler.
fn narrative(words: usize) -> String {
    let mut rng = Lcg(11);
    let templates: [&dyn Fn(&mut Lcg) -> String; 5] = [
        &|r| {
            format!(
                "I created the {}{} with title: \"Item number {}\".",
                NOUNS[r.next(16)],
                r.next(50),
                r.next(1000)
            )
        },
        &|r| {
            format!(
                "Then I updated the {} and set priority to high.",
                NOUNS[r.next(16)]
            )
        },
        &|r| {
            format!(
                "I searched the {}s, listed every {} and read them carefully before moving on.",
                NOUNS[r.next(16)],
                NOUNS[r.next(16)]
            )
        },
        &|r| {
            format!(
                "After that, the team reviewed {} results and nothing else needed attention today.",
                r.next(90)
            )
        },
        &|r| {
            format!(
                "Finally I sent an email to the {} owner and closed ticket {}.",
                NOUNS[r.next(16)],
                r.next(500)
            )
        },
    ];
    let mut out = String::new();
    let mut count = 0;
    while count < words {
        let s = templates[rng.next(5)](&mut rng);
        count += s.split_whitespace().count();
        out.push_str(&s);
        out.push(' ');
    }
    out
}

fn bench(c: &mut Criterion) {
    let cfg = NarrativeConfig::default();
    let large = (narrative(10_000), calls(1_000));
    let small = (narrative(1_000), calls(100));
    let mut group = c.benchmark_group("check_narrative");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("10000_words_x_1000_calls", |b| {
        b.iter(|| check_narrative(black_box(&large.0), black_box(&large.1), &cfg))
    });
    group.bench_function("1000_words_x_100_calls", |b| {
        b.iter(|| check_narrative(black_box(&small.0), black_box(&small.1), &cfg))
    });
    let envelope = ConversationTrace {
        tool_calls: large.1.clone(),
        final_response: Some(large.0.clone()),
        ..ConversationTrace::default()
    }
    .to_envelope();
    let text = serde_json::to_string(&envelope).expect("serializable");
    group.bench_function("serde_json_parse_of_the_10000_word_run", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).expect("valid JSON"))
    });
    // As a suite runs: each check right after a parse, so the allocator holds what the parse
    // left behind (this minus the parse above is what the check costs there).
    group.bench_function("parse_then_check_of_the_10000_word_run", |b| {
        b.iter(|| {
            let run = serde_json::from_str::<Value>(black_box(&text)).expect("valid JSON");
            let report = check_narrative(black_box(&large.0), black_box(&large.1), &cfg);
            (run, report)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
