//! The YAML suite loader: the documents' examples load, a suite equals the Rust declaration,
//! and every kind of mistake is an error at the right line and column.

use mcptest_core::eval::{ExpectedCall, ExpectedTrace, GoldenPath, RecoveryBudget, TrajectoryAxes};
use mcptest_core::matchers::Matcher;
use mcptest_core::spec::{
    AgentSpec, Expectation, Fault, FaultKind, FaultTarget, NarrativeGate, ParallelCalls,
    StabilityGate,
};
use mcptest_core::suite::{
    ServerTransport, Suite, SuiteError, evaluate_cassette, resolve_cassette,
};
use mcptest_core::trace::Cassette;
use serde_json::json;
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn load_example(name: &str) -> Suite {
    let path = examples().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Suite::from_yaml_str(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"))
}

fn cassette_of(suite: &Suite, spec: &AgentSpec) -> Cassette {
    let path = resolve_cassette(Path::new(&suite.name), &spec.cassettes[0]);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Cassette::from_json_str(&path.display().to_string(), &text).unwrap()
}

fn load_err(text: &str) -> SuiteError {
    Suite::from_yaml_str("suite.yml", text).expect_err("the suite should not load")
}

/// Asserts the first problem is at `line:column` and its message contains every `needle`.
#[track_caller]
fn assert_problem(text: &str, line: usize, column: usize, needles: &[&str]) {
    let err = load_err(text);
    let p = &err.problems[0];
    let shown = err.to_string();
    assert_eq!((p.line, p.column), (line, column), "{shown}");
    for n in needles {
        assert!(p.message.contains(n), "missing {n:?} in:\n{shown}");
    }
    assert!(
        shown.starts_with(&format!("suite.yml:{line}:{column}: ")),
        "{shown}"
    );
}

// ---------------------------------------------------------------------------------------------
// The documents' examples

/// The example suites (`examples/` holds other YAML too, such as a mock server's tool list).
const EXAMPLE_SUITES: &[&str] = &[
    "offline-trace-validation.yml",
    "agent-stability.yml",
    "fault-injection-recovery.yml",
    "narrative.yml",
    "observable-evidence.yml",
    "failing-on-purpose.yml",
];

#[test]
fn every_example_suite_loads_and_every_cassette_parses() {
    for name in EXAMPLE_SUITES {
        let suite = load_example(name);
        for spec in &suite.agents {
            assert!(spec.validate().is_empty(), "{name}: {}", spec.name);
            assert!(!cassette_of(&suite, spec).runs.is_empty());
        }
    }
}

#[test]
fn example_outcomes_are_the_documented_ones() {
    let passing = [
        "offline-trace-validation.yml",
        "agent-stability.yml",
        "fault-injection-recovery.yml",
        "narrative.yml",
        "observable-evidence.yml",
    ];
    for name in passing {
        let suite = load_example(name);
        for spec in &suite.agents {
            let cells = evaluate_cassette(spec, &cassette_of(&suite, spec));
            for c in &cells {
                assert!(c.passed(), "{name}: {}\n{}", spec.name, c.render());
            }
            assert!(cells.len() >= spec.run_count() as usize);
        }
    }
    let suite = load_example("failing-on-purpose.yml");
    for spec in &suite.agents {
        let cells = evaluate_cassette(spec, &cassette_of(&suite, spec));
        assert!(
            cells.iter().any(|c| !c.passed()),
            "{} should fail",
            spec.name
        );
    }
}

#[test]
fn the_oracle_example_passes_on_what_was_done_not_what_was_said() {
    let suite = load_example("observable-evidence.yml");
    let spec = &suite.agents[0];
    let cassette = cassette_of(&suite, spec);
    assert!(
        cassette.runs[0]
            .trace
            .final_text()
            .contains("issued the refund")
    );
    let cells = evaluate_cassette(spec, &cassette);
    assert!(cells[0].passed(), "{}", cells[0].render());
    // The second agent's advisory narration row fails and does not decide the cell.
    let second = evaluate_cassette(&suite.agents[1], &cassette);
    assert!(second[0].passed());
    assert!(second[0].gates.iter().any(|g| g.advisory && !g.passed));
}

#[test]
fn the_fault_example_is_scored_in_virtual_time() {
    let suite = load_example("fault-injection-recovery.yml");
    let spec = &suite.agents[0];
    assert_eq!(spec.inject[0].name, "hung-search");
    let cassette = cassette_of(&suite, spec);
    let trace = &cassette.runs[0].trace;
    let hung = &trace.tool_calls[0];
    assert!(trace.tool_results[0].timed_out);
    assert_eq!(
        hung.ended_ms.unwrap() - hung.started_ms.unwrap(),
        spec.recovery.unwrap().max_detection_ms
    );
    let cells = evaluate_cassette(spec, &cassette);
    assert_eq!(cells[0].metrics["recovery"]["clean_timeout"], json!(1));
}

// ---------------------------------------------------------------------------------------------
// A suite and the Rust declaration are the same spec and grade the same

#[test]
fn a_suite_equals_the_rust_declaration_and_reports_equally() {
    let suite = load_example("agent-stability.yml");
    let rust = AgentSpec {
        model: Some("claude-sonnet-4-5".into()),
        prompt: Some("What is the weather in Sacramento?".into()),
        servers: vec!["weather".into()],
        ..AgentSpec::new("weather session is stable on every dimension")
            .cassettes([
                "cassettes/agent-stability/weather-session-is-stable-on-every-dimension/claude-sonnet-4-5.json",
            ])
            .runs(5)
            .stability(StabilityGate {
                expect: vec![
                    Expectation::new("stability.score", Matcher::schema(json!({"minimum": 0.7})))
                        .unwrap(),
                    Expectation::new(
                        "stability.weakest_score",
                        Matcher::schema(json!({"minimum": 0.5})),
                    )
                    .unwrap(),
                    Expectation::new(
                        "stability.variance",
                        Matcher::schema(json!({"maximum": 0.05})),
                    )
                    .unwrap(),
                ],
            })
    };
    let yaml = &suite.agents[1];
    assert_eq!(yaml, &rust);
    let cassette = cassette_of(&suite, yaml);
    assert_eq!(
        evaluate_cassette(yaml, &cassette),
        evaluate_cassette(&rust, &cassette)
    );

    let suite = load_example("offline-trace-validation.yml");
    let rust = AgentSpec {
        model: Some("claude-sonnet-4-5".into()),
        prompt: Some("What is the weather in Sacramento?".into()),
        servers: vec!["search".into()],
        ..AgentSpec::new("trajectory pins the call plan")
            .cassettes([
                "cassettes/offline-trace-validation/trajectory-pins-the-call-plan/claude-sonnet-4-5.json",
            ])
            .runs(3)
            .trajectory(ExpectedTrace::subsequence(vec![
                ExpectedCall::by_name("get_weather").args_subset(json!({"city": "Sacramento"})),
            ]))
            .golden_path(GoldenPath::new(["get_weather"]))
            .trajectory_axes(
                TrajectoryAxes::default()
                    .dependency("search", "fetch_page")
                    .order("authenticate", "search"),
            )
    };
    let yaml = &suite.agents[0];
    assert_eq!(yaml, &rust);
    let cassette = cassette_of(&suite, yaml);
    let (a, b) = (
        evaluate_cassette(yaml, &cassette),
        evaluate_cassette(&rust, &cassette),
    );
    assert_eq!(a, b);
    assert_eq!(
        a.iter().map(|c| c.render()).collect::<Vec<_>>(),
        b.iter().map(|c| c.render()).collect::<Vec<_>>()
    );
}

#[test]
fn faults_narrative_and_recovery_decode_to_the_model() {
    let suite = load_example("fault-injection-recovery.yml");
    let hung = Fault {
        name: "hung-search".into(),
        target: FaultTarget {
            tool: Some("search".into()),
            server: None,
        },
        kind: FaultKind::Hang,
    };
    assert_eq!(suite.faults[0], hung);
    assert_eq!(
        suite.faults[1].kind,
        FaultKind::RecoverAfter { failures: 2 }
    );
    assert_eq!(suite.agents[0].inject, vec![hung]);
    assert_eq!(
        suite.agents[0].recovery,
        Some(RecoveryBudget {
            max_detection_ms: 3000,
            max_recovery_ms: Some(5000),
            require_clean_timeout: true,
        })
    );

    let suite = load_example("narrative.yml");
    assert_eq!(suite.agents[0].narrative, Some(NarrativeGate::default()));
    let n = suite.agents[1].narrative.as_ref().unwrap();
    assert_eq!(n.mutating_tools, ["run_job"]);
    assert_eq!(n.readonly_tools, ["post_search"]);
    assert_eq!(n.max_divergence_score, Some(0.25));
    assert_eq!(n.expect.len(), 2);

    let suite = load_example("observable-evidence.yml");
    let a = &suite.agents[0];
    assert_eq!((a.max_turns, a.max_tokens), (Some(3), Some(256)));
    assert_eq!(a.expect[0].matcher, Matcher::exact(json!("get_invoice")));
    assert!(suite.agents[1].expect[3].advisory);
}

#[test]
fn servers_models_and_defaults() {
    let text = "\
servers:
  weather:
    command: weather-mcp
    args: [--stdio, --units, imperial]
    env: [WEATHER_API_KEY]
    cwd: servers/weather
agents:
  - name: \"Weather: Sacramento (°F)\"
    model: [claude-sonnet-4-5, claude-haiku-4-5]
    stability:
    runs: 2
    trajectory:
      mode: exact-sequence
      calls: [get_weather, {name: get_forecast, args: ignore}]
";
    let suite = Suite::from_yaml_str("tests/suites/weather.yaml", text).unwrap();
    assert_eq!(suite.stem, "weather");
    assert_eq!(suite.servers[0].name, "weather");
    let ServerTransport::Stdio(weather) = &suite.servers[0].transport else {
        panic!("a `command:` server is started over stdio");
    };
    assert_eq!(weather.args, ["--stdio", "--units", "imperial"]);
    assert_eq!(weather.env, ["WEATHER_API_KEY"]);
    assert_eq!(weather.cwd.as_deref(), Some("servers/weather"));
    assert_eq!(suite.agents.len(), 2);
    assert_eq!(
        suite.agents[1].cassettes,
        ["cassettes/weather/weather-sacramento-f/claude-haiku-4-5.json"]
    );
    assert_eq!(suite.agents[0].stability, Some(StabilityGate::default()));
    let t = suite.agents[0].trajectory.as_ref().unwrap();
    assert_eq!(
        t,
        &ExpectedTrace::strict(vec![
            ExpectedCall::by_name("get_weather"),
            ExpectedCall::by_name("get_forecast").args_ignore()
        ])
    );
    assert!(suite.agents[0].snapshots);
    assert_eq!(suite.filter("haiku").count(), 1);
    assert_eq!(suite.filter("SACRAMENTO").count(), 2);
    assert_eq!(suite.filter("nothing").count(), 0);
}

// ---------------------------------------------------------------------------------------------
// Load errors: where and what to do

const HEAD: &str = "agents:\n  - name: a\n    model: m\n";

#[test]
fn unknown_keys_get_a_did_you_mean() {
    assert_problem(
        &format!("{HEAD}    trajectroy:\n      mode: strict\n"),
        4,
        5,
        &["unknown key `trajectroy`", "did you mean `trajectory`?"],
    );
    assert_problem(
        "agent:\n  - name: a\n",
        1,
        1,
        &["unknown key `agent`", "did you mean `agents`?"],
    );
    assert_problem(
        &format!("{HEAD}    stability:\n      expekt: []\n    runs: 2\n"),
        5,
        7,
        &["did you mean `expect`?"],
    );
    assert_problem(
        &format!("{HEAD}    trajectory:\n      mode: subsequnce\n"),
        5,
        13,
        &[
            "unknown match mode `subsequnce`",
            "did you mean `subsequence`?",
        ],
    );
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0].name\n        matcher: {{exakt: x}}\n"
        ),
        6,
        19,
        &["unknown matcher `exakt`", "did you mean `exact`?"],
    );
}

#[test]
fn roots_are_a_list_of_folders() {
    let suite = Suite::from_yaml_str(
        "suite.yml",
        &format!("roots: [./workspace, file:///srv]\n{HEAD}"),
    )
    .expect("loads");
    assert_eq!(suite.roots, ["./workspace", "file:///srv"]);
    assert!(
        Suite::from_yaml_str("suite.yml", HEAD)
            .unwrap()
            .roots
            .is_empty()
    );
    assert_problem(&format!("roots: ./workspace\n{HEAD}"), 1, 8, &["roots"]);
    assert_problem(
        &format!("rootz: [a]\n{HEAD}"),
        1,
        1,
        &["did you mean `roots`?"],
    );
}

#[test]
fn an_agent_system_prompt_overrides_the_suites() {
    let suite = Suite::from_yaml_str(
        "suite.yml",
        "system: Be brief.\nagents:\n  - name: a\n    model: m\n  - name: b\n    model: m\n    \
         system: Answer in French.\n",
    )
    .expect("loads");
    assert_eq!(suite.agents[0].system.as_deref(), Some("Be brief."));
    assert_eq!(suite.agents[1].system.as_deref(), Some("Answer in French."));
    assert_eq!(
        Suite::from_yaml_str("suite.yml", HEAD).unwrap().agents[0].system,
        None
    );
    assert_problem(&format!("{HEAD}    system: [a]\n"), 4, 13, &["system"]);
    assert_problem(
        &format!("{HEAD}    sytem: Be brief.\n"),
        4,
        5,
        &["did you mean `system`?"],
    );
}

#[test]
fn parallel_calls_reads_both_modes_and_guesses_a_misspelling() {
    let spec = |line: &str| {
        Suite::from_yaml_str("suite.yml", &format!("{HEAD}{line}"))
            .expect("loads")
            .agents
            .remove(0)
            .parallel_calls
    };
    assert_eq!(spec(""), ParallelCalls::Concurrent);
    assert_eq!(
        spec("    parallel_calls: concurrent\n"),
        ParallelCalls::Concurrent
    );
    assert_eq!(
        spec("    parallel_calls: sequential\n"),
        ParallelCalls::Sequential
    );
    assert_problem(
        &format!("{HEAD}    parallel_calls: sequentail\n"),
        4,
        21,
        &[
            "unknown `parallel_calls: sequentail`",
            "did you mean `sequential`?",
        ],
    );
    assert_problem(
        &format!("{HEAD}    parallel_calls: [sequential]\n"),
        4,
        21,
        &["parallel_calls"],
    );
}

#[test]
fn wrong_types_say_what_to_write() {
    assert_problem(
        &format!("{HEAD}    runs: five\n"),
        4,
        11,
        &["`agents[0].runs` must be a whole number", "a string `five`"],
    );
    assert_problem(
        &format!("{HEAD}    runs: 0\n"),
        4,
        5,
        &["`runs` must be at least 1"],
    );
    assert_problem(
        "agents:\n  - name: 42\n    model: m\n",
        2,
        11,
        &["must be a string", "quote it"],
    );
    assert_problem(
        &format!("{HEAD}    servers: weather\n"),
        4,
        14,
        &["must be a list", "write `servers: [weather]`"],
    );
    assert_problem(
        &format!(
            "{HEAD}    recovery: {{max_detection_ms: 3000, require_clean_timeout: yes}}\n    inject: []\n"
        ),
        4,
        63,
        &["`true` or `false`"],
    );
    assert_problem("agents:\n  - model: m\n", 2, 5, &["needs `name:`"]);
}

#[test]
fn a_stability_gate_needs_runs() {
    assert_problem(
        &format!("{HEAD}    stability: {{}}\n"),
        4,
        5,
        &["needs a sample", "set `runs: 2` (or more)"],
    );
    assert_problem(
        &format!(
            "{HEAD}    runs: 1\n    stability:\n      expect:\n        - target: stability.score\n          matcher: {{schema: {{minimum: 0.7}}}}\n"
        ),
        5,
        5,
        &["asks for 1 run", "`runs: 2`"],
    );
}

#[test]
fn model_graded_matchers_cannot_gate() {
    for key in ["llm-judge", "llm-jury", "similar"] {
        assert_problem(
            &format!(
                "{HEAD}    runs: 3\n    stability:\n      expect:\n        - target: stability.score\n          matcher: {{{key}: {{rubric: stable}}}}\n"
            ),
            8,
            21,
            &[&format!("`{key}` is model-graded")],
        );
    }
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0].name\n        matcher:\n          not: {{llm-judge: {{rubric: ok}}}}\n"
        ),
        7,
        17,
        &["model-graded"],
    );
    // Advisory, it loads.
    let ok = format!(
        "{HEAD}    expect:\n      - target: final_response\n        matcher: {{llm-judge: {{rubric: polite}}}}\n        advisory: true\n"
    );
    Suite::from_yaml_str("s.yml", &ok).unwrap();
}

#[test]
fn narration_cannot_gate() {
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: final_response\n        matcher: {{regex: done}}\n"
        ),
        5,
        17,
        &["reads the model's narration", "advisory: true"],
    );
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: conversation.turns[-1].content\n        matcher: {{regex: done}}\n"
        ),
        5,
        17,
        &["narration"],
    );
}

#[test]
fn dangling_injects_and_bad_faults() {
    let faults = "faults:\n  - name: hung-search\n    target: {tool: search}\n    kind: hang\n";
    assert_problem(
        &format!(
            "{faults}{HEAD}    inject: [hung-serch]\n    recovery: {{max_detection_ms: 3000}}\n"
        ),
        8,
        14,
        &[
            "`hung-serch`",
            "not declared",
            "did you mean `hung-search`?",
        ],
    );
    assert_problem(
        &format!("{HEAD}    inject: [hung-search]\n"),
        4,
        14,
        &["declares no faults"],
    );
    assert_problem(
        "faults:\n  - name: f\n    target: {tool: x}\n    kind: slow\nagents:\n  - name: a\n    model: m\n",
        4,
        11,
        &["needs `delay_ms`: add `delay_ms:`"],
    );
    assert_problem(
        "faults:\n  - name: f\n    target: {tool: x}\n    kind: wedgd\nagents:\n  - name: a\n    model: m\n",
        4,
        11,
        &["did you mean `wedged`?"],
    );
    assert_problem(
        "faults:\n  - name: f\n    target: {}\n    kind: hang\nagents:\n  - name: a\n    model: m\n",
        3,
        13,
        &["names a tool, a server, or both"],
    );
    assert_problem(
        &format!("{HEAD}    recovery: {{max_detection_ms: 3000}}\n"),
        4,
        5,
        &["needs a fault to recover from"],
    );
}

#[test]
fn malformed_schemas_and_regexes() {
    assert_problem(
        &format!(
            "{HEAD}    trajectory:\n      mode: strict\n      calls:\n        - name: search\n          args: {{schema: {{type: 12}}}}\n"
        ),
        8,
        26,
        &["malformed JSON Schema"],
    );
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0].name\n        matcher: {{regex: \"(unclosed\"}}\n"
        ),
        6,
        26,
        &["malformed regex"],
    );
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0.name\n        matcher: {{exact: 1}}\n"
        ),
        5,
        17,
        &["bad target"],
    );
}

#[test]
fn bad_yaml_and_hostile_files_are_errors_not_panics() {
    assert_problem(
        "agents:\n  - name: a\n    model: [m\n",
        3,
        12,
        &["invalid YAML"],
    );
    assert_problem("agents:\n\t- name: a\n", 2, 2, &["invalid YAML", "tab"]);
    assert_problem("", 1, 1, &["the suite is empty", "agents:"]);
    assert_problem("   \n# only a comment\n", 1, 1, &["the suite is empty"]);
    assert_problem("- a\n- b\n", 1, 1, &["a suite is a map"]);
    assert_problem("servers: {}\n", 1, 1, &["no `agents:` list"]);
    assert_problem("agents: []\n", 1, 9, &["`agents:` is empty"]);
    assert_problem(
        &format!("{HEAD}    name: b\n"),
        4,
        5,
        &["duplicate key `name`", "first written at 2:5"],
    );
    assert_problem(
        "agents:\n  - name: Same Name\n    model: m\n  - name: same-name\n    model: m\n",
        4,
        5,
        &["collides", "same-name"],
    );
    let deep = format!("agents: {}1{}\n", "[".repeat(300), "]".repeat(300));
    let deep_err = load_err(&deep).to_string();
    assert!(deep_err.contains("deeper than 24"), "{deep_err}");
    let nested: String = (0..100)
        .map(|i| format!("{}a:\n", "  ".repeat(i)))
        .collect();
    assert!(load_err(&nested).to_string().contains("deeper than 24"));
    let huge = "#".repeat(mcptest_core::suite::MAX_SUITE_BYTES + 1);
    assert!(load_err(&huge).to_string().contains("split it"));
    // Many agents load quickly and completely.
    let many: String = (0..2000)
        .map(|i| format!("  - name: agent {i}\n    model: m\n"))
        .collect();
    let suite = Suite::from_yaml_str("many.yml", &format!("agents:\n{many}")).unwrap();
    assert_eq!(suite.agents.len(), 2000);
    // Garbage never panics.
    for text in [
        "{",
        "]",
        ": :",
        "agents: {",
        "agents:\n  - [",
        "\u{0}",
        "&a [*a]",
        "agents: *x",
    ] {
        let _ = Suite::from_yaml_str("g.yml", text);
    }
}

#[test]
fn every_problem_is_reported_at_once_in_file_order() {
    let text = "agents:\n  - name: a\n    model: m\n    runs: x\n    trajectroy: {}\n  - name: b\n    model: m\n    stability: {}\n";
    let err = load_err(text);
    let at: Vec<(usize, usize)> = err.problems.iter().map(|p| (p.line, p.column)).collect();
    assert_eq!(at, [(4, 11), (5, 5), (8, 5)]);
    let shown = err.to_string();
    assert!(shown.ends_with("3 problems in suite.yml"), "{shown}");
    assert!(
        shown.contains("5 |     trajectroy: {}\n  |     ^"),
        "{shown}"
    );
}

#[test]
fn targets_must_name_what_their_gate_reports() {
    assert_problem(
        &format!(
            "{HEAD}    runs: 3\n    expect:\n      - target: stability.score\n        matcher: {{schema: {{minimum: 0.5}}}}\n"
        ),
        6,
        17,
        &["cross-run target", "`stability: expect:`"],
    );
    assert_problem(
        &format!(
            "{HEAD}    expect:\n      - target: trajectory.passed\n        matcher: {{exact: 1}}\n"
        ),
        5,
        17,
        &["add `trajectory:` to the agent"],
    );
    assert_problem(
        &format!(
            "{HEAD}    trajectory: {{mode: strict}}\n    expect:\n      - target: trajectory.order_satisfaction\n        matcher: {{exact: 100}}\n"
        ),
        6,
        17,
        &["`trajectory_axes:`"],
    );
    assert_problem(
        &format!(
            "{HEAD}    runs: 2\n    stability:\n      expect:\n        - target: tool_calls[0].name\n          matcher: {{exact: a}}\n"
        ),
        7,
        19,
        &["starts with `stability.`"],
    );
    // A misspelled metric is located at its target, with a guess.
    assert_problem(
        &format!(
            "{HEAD}    runs: 2\n    stability:\n      expect:\n        - target: stability.weakest\n          matcher: {{schema: {{minimum: 0.5}}}}\n"
        ),
        7,
        19,
        &[
            "the stability report has no `weakest`",
            "did you mean `stability.weakest_score`?",
        ],
    );
    assert_problem(
        &format!(
            "{HEAD}    golden_path: {{calls: [a]}}\n    expect:\n      - target: golden_path.penalti\n        matcher: {{exact: 0}}\n"
        ),
        6,
        17,
        &["did you mean `golden_path.penalty`?"],
    );
    // Declared gates make their targets valid.
    let ok = format!(
        "{HEAD}    trajectory: {{mode: subsequence, calls: [a]}}\n    golden_path: {{calls: [a]}}\n    expect:\n      - target: trajectory.mismatch_count\n        matcher: {{exact: 0}}\n      - target: golden_path.penalty\n        matcher: {{schema: {{minimum: 0.5}}}}\n"
    );
    Suite::from_yaml_str("s.yml", &ok).unwrap();
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "agents:",
        "\n",
        "  ",
        "- ",
        "name: a",
        "model: m",
        "runs: ",
        "2",
        "-1",
        "1.5",
        "stability:",
        "{}",
        "[",
        "]",
        "{",
        "}",
        ":",
        ",",
        "expect:",
        "target: ",
        "tool_calls[0].name",
        "final_response",
        "matcher: ",
        "{exact: 1}",
        "{regex: '('}",
        "{llm-judge: x}",
        "{schema: {type: 3}}",
        "trajectory:",
        "mode: strict",
        "calls:",
        "inject: [x]",
        "faults:",
        "kind: hang",
        "target: {tool: s}",
        "&a ",
        "*a",
        "~",
        "\"",
        "'",
        "#",
        "\t",
        "é",
        "---",
        "recovery: {max_detection_ms: 1}",
        "narrative:",
        "max_divergence_score: 2",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_arrangement_of_suite_pieces_loads_or_errs(picks in prop::collection::vec(0..PIECES.len(), 0..60)) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            match Suite::from_yaml_str("p.yml", &text) {
                Ok(_) => {}
                Err(e) => {
                    prop_assert!(!e.problems.is_empty());
                    prop_assert!(e.problems.iter().all(|p| p.line >= 1 && p.column >= 1));
                    let _ = e.to_string();
                }
            }
        }

        #[test]
        fn damaged_example_suites_load_or_err(cut in 0usize..4000, len in 0usize..40, junk in "[ -~\n\t]{0,8}") {
            let text = std::fs::read_to_string(examples().join("fault-injection-recovery.yml")).unwrap();
            let mut chars: Vec<char> = text.chars().collect();
            let at = cut.min(chars.len());
            let end = (at + len).min(chars.len());
            chars.splice(at..end, junk.chars());
            let damaged: String = chars.into_iter().collect();
            if let Err(e) = Suite::from_yaml_str("d.yml", &damaged) {
                prop_assert!(!e.problems.is_empty());
                let _ = e.to_string();
            }
        }
    }
}

/// The one grading plan: every recorded run is a cell, `runs` is a minimum, and the gates over
/// runs read every recorded run.
#[test]
fn every_recorded_run_is_graded_and_runs_is_a_minimum() {
    use mcptest_core::spec::ReliabilityGate;
    use mcptest_core::suite::{PlannedCell, grading_plan};
    let run = |tool: &str| json!({"trace": {"tool_calls": [{"name": tool}]}});
    let text =
        json!({"mcptest_cassette": 1, "runs": [run("search"), run("search"), run("delete")]})
            .to_string();
    assert_eq!(Cassette::count_runs(&text), Some(3));
    let cassette = Cassette::from_json_str("c.json", &text).unwrap();
    let spec = AgentSpec::new("searcher")
        .trajectory(ExpectedTrace::subsequence(vec![ExpectedCall::by_name(
            "search",
        )]))
        .reliability(ReliabilityGate::default());

    // No `runs`: three recorded runs are three cells, and the third run's failure is graded.
    let cells = evaluate_cassette(&spec, &cassette);
    let names: Vec<&str> = cells.iter().map(|c| c.cell.as_str()).collect();
    assert_eq!(names, ["run_1", "run_2", "run_3", "reliability"]);
    let passed: Vec<bool> = cells[..3].iter().map(|c| c.passed()).collect();
    assert_eq!(passed, [true, true, false]);
    assert!(
        cells[3].metrics.to_string().contains("\"runs\":3"),
        "{}",
        cells[3].metrics
    );
    assert_eq!(
        grading_plan(&spec, 3)
            .iter()
            .map(PlannedCell::name)
            .collect::<Vec<_>>(),
        names
    );

    // `runs = 5` over three recorded runs: two failing cells that say what is missing; the
    // reliability gate still summarizes the three recorded runs.
    let spec = spec.runs(5).stability(StabilityGate::default());
    let cells = evaluate_cassette(&spec, &cassette);
    let names: Vec<&str> = cells.iter().map(|c| c.cell.as_str()).collect();
    assert_eq!(
        names,
        [
            "run_1",
            "run_2",
            "run_3",
            "run_4",
            "run_5",
            "stability",
            "reliability"
        ]
    );
    assert!(!cells[3].passed());
    assert!(
        cells[3].gates[0]
            .summary
            .contains("run 4 is missing: the agent asks for 5 run(s) and the cassette holds 3"),
        "{}",
        cells[3].gates[0].summary
    );
    assert!(
        cells[6].metrics.to_string().contains("\"runs\":3"),
        "{}",
        cells[6].metrics
    );
}

/// `env:` as a list passes names through as secrets; as a map, a value is plain configuration
/// set as written and `~` passes the name through as a secret.
#[test]
fn env_lists_secrets_and_maps_plain_values() {
    let text = "\
servers:
  a:
    command: a-mcp
    env: {INTEROP_REGION: eu-west-1, PORT: 8080, VERBOSE: true, A_TOKEN: ~}
agents:
  - name: x
    model: m
    servers: [a]
";
    let suite = Suite::from_yaml_str("s.yml", text).unwrap();
    let ServerTransport::Stdio(s) = &suite.servers[0].transport else {
        panic!("a `command:` server is started over stdio");
    };
    assert_eq!(s.env, ["A_TOKEN"]);
    assert_eq!(
        s.env_values,
        [
            ("INTEROP_REGION".to_string(), "eu-west-1".to_string()),
            ("PORT".to_string(), "8080".to_string()),
            ("VERBOSE".to_string(), "true".to_string()),
        ]
    );
    let bad = text.replace("PORT: 8080", "PORT: [1, 2]");
    let err = Suite::from_yaml_str("s.yml", &bad).unwrap_err();
    let p = &err.problems[0];
    assert_eq!((p.line, p.column), (4, 44), "{err}");
    assert!(err.to_string().contains("`PORT` takes one value"), "{err}");
    let bad = text.replace("PORT:", "9PORT:");
    let err = Suite::from_yaml_str("s.yml", &bad).unwrap_err();
    assert!(
        err.to_string()
            .contains("`9PORT` is not an environment variable name"),
        "{err}"
    );
}

#[test]
fn a_reliability_block_decides_a_pass_rate() {
    use mcptest_core::spec::Inconclusive;
    let text = "agents:\n  - name: a\n    model: m\n    prompt: p\n    runs: 3\n    \
                reliability: {min_pass_rate: 0.9, confidence: 0.9, inconclusive: fail}\n";
    let suite = Suite::from_yaml_str("s.yml", text).unwrap();
    let g = suite.agents[0].reliability.as_ref().unwrap();
    assert_eq!(g.min_pass_rate, Some(0.9));
    assert_eq!(g.confidence, Some(0.9));
    assert_eq!(g.inconclusive, Inconclusive::Fail);

    let base = "agents:\n  - name: a\n    model: m\n    prompt: p\n    runs: 3\n    reliability:\n";
    assert_problem(
        &format!("{base}      min_pass_rate: 0.9\n      inconclusive: maybe\n"),
        8,
        21,
        &["unknown `inconclusive: maybe`", "expected `fail`"],
    );
    assert_problem(
        &format!("{base}      min_pass_rate: 90\n"),
        7,
        7,
        &["`min_pass_rate` is a number from 0 to 1"],
    );
    assert_problem(
        &format!("{base}      confidence: 0.95\n"),
        7,
        7,
        &["add `min_pass_rate: 0.9`"],
    );
}

/// A server reached by URL: `url:` and `headers:` whose values name environment variables;
/// mixing it with `command:` keys, a non-HTTP URL or a literal header value is a load error
/// located at the offending key or value.
#[test]
fn servers_by_url_take_headers_from_the_environment() {
    let text = "\
servers:
  remote:
    url: http://127.0.0.1:3001/mcp
    headers:
      Authorization: \"Bearer ${REMOTE_TOKEN}\"
      X-Team: REMOTE_TEAM
agents:
  - name: x
    model: m
    servers: [remote]
";
    let suite = Suite::from_yaml_str("s.yml", text).unwrap();
    let server = &suite.servers[0];
    let ServerTransport::Http(http) = &server.transport else {
        panic!("a `url:` server is reached over HTTP: {server:?}");
    };
    assert_eq!(http.url, "http://127.0.0.1:3001/mcp");
    assert_eq!(server.endpoint(), "http://127.0.0.1:3001/mcp");
    assert_eq!(server.secret_vars(), ["REMOTE_TOKEN", "REMOTE_TEAM"]);
    let rendered: Vec<String> = http
        .headers
        .iter()
        .map(|h| h.render(|v| Some(format!("<{v}>"))).unwrap())
        .collect();
    assert_eq!(rendered, ["Bearer <REMOTE_TOKEN>", "<REMOTE_TEAM>"]);

    let err_of = |from: &str, to: &str| {
        let bad = text.replace(from, to);
        Suite::from_yaml_str("s.yml", &bad).unwrap_err()
    };
    let err = err_of("    headers:", "    command: remote-mcp\n    headers:");
    assert!(err.to_string().contains("s.yml:3:5:"), "{err}");
    assert!(
        err.to_string().contains("has both `command:` and `url:`"),
        "{err}"
    );
    let err = err_of("http://127.0.0.1:3001/mcp", "127.0.0.1:3001/mcp");
    assert!(err.to_string().contains("s.yml:3:10:"), "{err}");
    assert!(err.to_string().contains("is not an HTTP URL"), "{err}");
    let err = err_of("X-Team: REMOTE_TEAM", "X-Team: blue team");
    assert!(err.to_string().contains("s.yml:6:15:"), "{err}");
    assert!(
        err.to_string().contains("names no environment variable"),
        "{err}"
    );
    let err = err_of("    headers:", "    env: [A]\n    headers:");
    assert!(
        err.to_string()
            .contains("`env:` is for a server started by `command:`"),
        "{err}"
    );
    let err = err_of("X-Team:", "authorization:");
    assert!(err.to_string().contains("duplicate header"), "{err}");
    let err = err_of("    url: http://127.0.0.1:3001/mcp\n", "    command: x\n");
    assert!(
        err.to_string()
            .contains("`headers:` is for a server reached by `url:`"),
        "{err}"
    );
}

#[test]
fn a_fault_kind_carries_its_setting_and_serializes_flat() {
    let text = "faults:\n  - name: s\n    target: {tool: search}\n    kind: slow\n    delay_ms: 300\n  - name: r\n    target: {server: docs}\n    kind: recover-after\n    failures: 2\nagents:\n  - name: a\n    model: m\n    inject: [s, r]\n";
    let suite = Suite::from_yaml_str("suite.yml", text).unwrap();
    assert_eq!(suite.faults[0].kind, FaultKind::Slow { delay_ms: 300 });
    assert_eq!(suite.faults[0].kind.to_string(), "slow (300 ms)");
    assert_eq!(suite.faults[1].kind.name(), "recover_after");
    let v = serde_json::to_value(&suite.faults[0]).unwrap();
    assert_eq!(
        v,
        json!({"name": "s", "target": {"tool": "search", "server": null}, "kind": "slow", "delay_ms": 300})
    );
    // A setting on the wrong kind is a load error at the setting.
    assert_problem(
        "faults:\n  - name: h\n    target: {tool: x}\n    kind: hang\n    failures: 2\nagents:\n  - name: a\n    model: m\n",
        5,
        5,
        &["`failures` applies to `kind: recover_after` only"],
    );
}
