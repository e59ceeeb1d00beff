//! Replays the shipped example cassettes against expectations declared in Rust and prints a
//! report: no model, no network, the same verdicts on every machine.
//!
//! ```text
//! cargo run --example replay                 # every shipped cassette
//! cargo run --example replay -- path/to.json # one cassette, with the weather expectations
//! ```
//!
//! It exits 0 after printing the report (some runs fail on purpose, to show what a failure
//! looks like); gating with exit codes is what a test target or a CI command does.

use mcptest::core::eval::{
    ExpectedCall, ExpectedTrace, GoldenPath, TrajectoryAxes, score_golden_path,
    score_trajectory_axes, validate_trace,
};
use mcptest::core::trace::Cassette;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What one example agent is expected to do.
struct Expectation {
    name: &'static str,
    cassette: &'static str,
    trajectory: ExpectedTrace,
    golden: Option<GoldenPath>,
    axes: Option<TrajectoryAxes>,
}

fn expectations() -> Vec<Expectation> {
    vec![
        Expectation {
            name: "weather",
            cassette: "weather/claude-sonnet-4-5.json",
            trajectory: ExpectedTrace::subsequence(vec![
                ExpectedCall::by_name("get_weather").args_subset(json!({"city": "Sacramento"})),
            ]),
            golden: Some(GoldenPath {
                allow_extra_steps: true,
                ..GoldenPath::new(["get_weather"])
            }),
            axes: None,
        },
        Expectation {
            name: "docs_research",
            cassette: "docs-research/claude-sonnet-4-5.json",
            trajectory: ExpectedTrace::subsequence(vec![
                ExpectedCall::by_name("search").args_schema(json!({
                    "type": "object", "required": ["q"],
                    "properties": {"q": {"type": "string", "pattern": "pinning"}}
                })),
                ExpectedCall::by_name("open").args_subset(json!({
                    "url": "https://rust-lang.github.io/async-book/04_pinning/01_chapter.html"
                })),
                ExpectedCall::by_name("summarize"),
            ]),
            golden: Some(GoldenPath::new(["search", "open", "summarize"])),
            axes: Some(
                TrajectoryAxes::default()
                    .dependency("search", "open")
                    .dependency("open", "summarize"),
            ),
        },
        Expectation {
            name: "issue_triage",
            cassette: "triage/claude-sonnet-4-5.json",
            trajectory: ExpectedTrace::superset(vec![
                ExpectedCall::by_name("get_issue").args_subset(json!({"issue": 412})),
                ExpectedCall::by_name("add_label").args_exact(
                    json!({"repo": "acme/widgets", "issue": 412, "label": "flaky-test"}),
                ),
                ExpectedCall::by_name("create_comment").args_subset(json!({"issue": 412})),
            ]),
            golden: None,
            axes: Some(TrajectoryAxes::default().order("get_issue", "add_label")),
        },
    ]
}

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cassettes");
    let only: Option<PathBuf> = std::env::args_os().nth(1).map(PathBuf::from);
    let mut total = 0;
    let mut failed = 0;
    for e in expectations() {
        let path = match &only {
            Some(_) if e.name != "weather" => continue,
            Some(p) => p.clone(),
            None => dir.join(e.cassette),
        };
        let shown = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&path)
            .display()
            .to_string();
        let cassette = match std::fs::read_to_string(&path)
            .map_err(|err| format!("{shown}: cannot read the cassette: {err}"))
            .and_then(|text| Cassette::from_json_str(&shown, &text).map_err(|err| err.to_string()))
        {
            Ok(c) => c,
            Err(msg) => {
                eprintln!("error: {msg}");
                return ExitCode::from(2);
            }
        };
        println!("{} ({shown}, {} run(s))", e.name, cassette.runs.len());
        for (i, run) in cassette.runs.iter().enumerate() {
            total += 1;
            let calls = &run.trace.tool_calls;
            let mut lines = Vec::new();
            let trajectory = match validate_trace(calls, &e.trajectory) {
                Ok(v) => v,
                Err(err) => {
                    eprintln!("error: {} expectation: {err}", e.name);
                    return ExitCode::from(2);
                }
            };
            let mut ok = trajectory.passed;
            lines.push(trajectory.to_string().replacen(
                "trajectory:",
                &format!("trajectory ({}):", e.trajectory.mode),
                1,
            ));
            if let Some(g) = &e.golden {
                let s = score_golden_path(calls, g);
                ok &= s.passed;
                lines.push(s.to_string());
            }
            if let Some(a) = &e.axes {
                let s = score_trajectory_axes(calls, a);
                ok &= s.passed();
                lines.push(s.to_string());
            }
            failed += usize::from(!ok);
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            println!(
                "  run_{}  {}  [{}]",
                i + 1,
                if ok { "PASS" } else { "FAIL" },
                names.join(" -> ")
            );
            for l in lines {
                for line in l.lines() {
                    println!("    {line}");
                }
            }
        }
        println!();
    }
    println!("{total} run(s), {} passed, {failed} failed", total - failed);
    ExitCode::SUCCESS
}
