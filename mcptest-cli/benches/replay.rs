//! Whole-process replay time of a generated 100-agent x 5-run suite.
//!
//! ```text
//! cargo bench -p mcptest-cli --bench replay      # 15 timed runs, prints min / median / max
//! MCPTEST_BENCH_DIR=/tmp/bench cargo bench -p mcptest-cli --bench replay   # keep the suite
//! hyperfine 'target/release/mcptest run --reporter json --config /tmp/bench/bench.yml'
//! ```
//!
//! Each agent declares a trajectory, a golden path, trajectory axes, a narrative gate, two
//! assertions, a stability gate and a reliability gate, over a cassette of 5 recorded runs of
//! 4 tool calls each (with turns and exchanges, like a real recording). The timing covers the
//! whole `mcptest run --config suite.yml --reporter json` process: start-up, reading and
//! parsing the suite and 100 cassettes, grading 700 cells, and writing the report. Under
//! `cargo test` the same target runs once, as a smoke test.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const AGENTS: usize = 100;
const RUNS: usize = 5;

fn run_value(agent: usize, run: usize) -> Value {
    let city = ["Sacramento", "Fresno", "Oakland", "San Jose"][(agent + run) % 4];
    let calls = [
        ("authenticate", json!({"scope": "read"})),
        ("search", json!({"q": format!("weather {city}")})),
        (
            "fetch_page",
            json!({"url": format!("https://example.test/{city}")}),
        ),
        ("get_weather", json!({"city": city, "units": "imperial"})),
    ];
    let mut tool_calls = Vec::new();
    let mut tool_results = Vec::new();
    let mut turns =
        vec![json!({"role": "user", "content": format!("What is the weather in {city}?")})];
    let mut exchanges = Vec::new();
    let mut t = 0u64;
    for (i, (name, args)) in calls.iter().enumerate() {
        let id = format!("toolu_{agent:03}{run}{i}");
        let block = json!({"type": "tool_use", "id": id, "name": format!("weather__{name}"), "input": args});
        turns.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": format!("Step {i}: calling {name} for {city}.")}, block.clone()]}));
        let text = format!("{name} answered for {city}: ok, 71F, clear, wind NW 6 mph");
        turns.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": text}]}));
        exchanges.push(
            json!({"request_fingerprint": format!("sha256:{agent:08x}{run:04x}{i:04x}"),
            "response": {"stop_reason": "tool_use", "content": [block]}}),
        );
        tool_calls.push(json!({"name": name, "server": "weather", "args": args,
            "started_ms": t + 600, "ended_ms": t + 800}));
        tool_results.push(
            json!({"is_error": false, "content": [{"type": "text", "text": text}],
            "timed_out": false}),
        );
        t += 800;
    }
    let answer = format!("It is 71F and clear in {city}, with a light northwest wind.");
    turns.push(json!({"role": "assistant", "content": [{"type": "text", "text": answer}]}));
    json!({"trace": {"tool_calls": tool_calls, "tool_results": tool_results,
        "conversation": {"tokens": {"total": 7400}, "turns": turns}, "final_response": answer},
        "exchanges": exchanges, "meta": {"model": "claude-sonnet-4-5", "servers": ["weather"]}})
}

/// Writes the suite and its cassettes under `dir`; returns the suite path.
fn generate(dir: &Path) -> std::path::PathBuf {
    let mut yaml = String::from("agents:\n");
    for a in 0..AGENTS {
        yaml.push_str(&format!(
            "- name: weather agent {a}
  model: claude-sonnet-4-5
  servers: [weather]
  prompt: What is the weather?
  runs: {RUNS}
  trajectory:
    mode: subsequence
    calls:
    - name: search
      args: {{schema: {{type: object, required: [q]}}}}
    - name: get_weather
      args: {{subset: {{units: imperial}}}}
  golden_path:
    calls: [authenticate, search, fetch_page, get_weather]
  trajectory_axes:
    dependencies: [{{producer: search, consumer: fetch_page}}]
    order: [{{first: authenticate, second: search}}]
  narrative: {{}}
  stability:
    expect:
    - target: stability.tool_sequence_similarity
      matcher: {{schema: {{minimum: 0.9}}}}
  reliability: {{}}
  expect:
  - target: tool_results[*].is_error
    matcher: {{not: {{contains: [true]}}}}
  - target: tool_calls[-1].args.city
    matcher: {{regex: \"^[A-Z]\"}}
"
        ));
        let runs: Vec<Value> = (0..RUNS).map(|r| run_value(a, r)).collect();
        let path = dir.join(format!(
            "cassettes/bench/weather-agent-{a}/claude-sonnet-4-5.json"
        ));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let doc = json!({"mcptest_cassette": 1, "runs": runs});
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    }
    let suite = dir.join("bench.yml");
    std::fs::write(&suite, yaml).unwrap();
    suite
}

fn replay(suite: &Path) -> Duration {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mcptest"))
        .args(["run", "--reporter", "json", "--config"])
        .arg(suite)
        .output()
        .expect("the mcptest binary runs");
    let took = started.elapsed();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        serde_json::to_string_pretty(&report["suites"][0]["agents"][0]).unwrap_or_default()
    );
    assert_eq!(report["summary"]["agents"], AGENTS);
    assert_eq!(report["summary"]["cells"], AGENTS * (RUNS + 2));
    took
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    // MCPTEST_BENCH_DIR keeps the generated suite (for timing it with other tools).
    let keep = std::env::var_os("MCPTEST_BENCH_DIR").map(std::path::PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mcptest-replay-bench-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let suite = generate(&dir);
    let bytes: u64 = walk(&dir);
    let iterations = if bench { 15 } else { 1 };
    replay(&suite); // warm the file cache
    let mut times: Vec<Duration> = (0..iterations).map(|_| replay(&suite)).collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "replay of {AGENTS} agents x {RUNS} runs ({} cells, {:.1} MiB of suite and cassettes), \
         whole process, {iterations} run(s): min {:.1} ms, median {:.1} ms, max {:.1} ms",
        AGENTS * (RUNS + 2),
        bytes as f64 / (1024.0 * 1024.0),
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
    );
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn walk(p: &Path) -> u64 {
    match std::fs::read_dir(p) {
        Ok(entries) => entries
            .flatten()
            .map(|e| {
                let path = e.path();
                if path.is_dir() {
                    walk(&path)
                } else {
                    e.metadata().map(|m| m.len()).unwrap_or(0)
                }
            })
            .sum(),
        Err(_) => 0,
    }
}
