//! End-to-end tests of the `mcptest` binary: what a user runs, what they see, the exit code.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `mcptest` run from the workspace root, so suite paths read as a user types them.
fn mcptest() -> Command {
    let mut c = Command::cargo_bin("mcptest").unwrap();
    c.current_dir(root()).env_remove("NO_COLOR");
    c
}

/// A suite file in a fresh folder (and the folder, kept alive by the guard).
fn suite(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("suite.yml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// Writes a cassette where a suite expects it.
fn cassette(dir: &Path, rel: &str, runs: &[Value]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let doc = serde_json::json!({"mcptest_cassette": 1, "runs": runs});
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

fn weather_run() -> Value {
    serde_json::json!({"trace": {
        "tool_calls": [{"name": "get_weather", "server": "weather", "args": {"city": "Sacramento"}}],
        "tool_results": [{"is_error": false, "content": [{"type": "text", "text": "71F"}]}],
        "final_response": "It's 71F."
    }, "exchanges": [], "meta": {"model": "m"}})
}

/// Runs a suite that must not load: exit 2, and stderr names `suite.yml:line:col` and every
/// needle.
#[track_caller]
fn load_error(text: &str, line: usize, column: usize, needles: &[&str]) {
    let (_dir, path) = suite(text);
    let out = mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = format!("{}:{line}:{column}: ", path.display());
    assert!(stderr.contains(&at), "expected {at:?} in:\n{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in:\n{stderr}");
    }
}

const HEAD: &str = "agents:\n  - name: a\n    model: m\n";

// ---------------------------------------------------------------------------------------------
// Exit codes and reporters

#[test]
fn a_passing_suite_exits_0_with_one_line_per_agent_and_its_gate_rows() {
    mcptest()
        .args(["run", "--config", "examples/offline-trace-validation.yml"])
        .assert()
        .code(0)
        .stdout(contains(
            "PASS   trajectory pins the call plan [claude-sonnet-4-5]  (3 run(s))",
        ))
        .stdout(contains(
            "PASS trajectory: subsequence, 1 reference call(s), 0 mismatch(es)",
        ))
        .stdout(contains("PASS golden_path: penalty 1.000"))
        .stdout(contains(
            "PASS  3 agent(s): 3 passed, 0 failed, 0 error(s); 8 cell(s), 0 failed",
        ))
        .stdout(contains("\x1b[").not());
}

#[test]
fn every_documented_example_suite_passes() {
    for s in [
        "examples/offline-trace-validation.yml",
        "examples/agent-stability.yml",
        "examples/fault-injection-recovery.yml",
        "examples/narrative.yml",
        "examples/observable-evidence.yml",
    ] {
        mcptest().args(["run", "--config", s]).assert().code(0);
    }
}

#[test]
fn a_failing_suite_exits_1_and_says_why() {
    mcptest()
        .args(["run", "--config", "examples/failing-on-purpose.yml"])
        .assert()
        .code(1)
        .stdout(contains(
            "FAIL   books a flight it never searched [claude-sonnet-4-5]",
        ))
        .stdout(contains(
            "expected tool `search_flights`, recorded `book_flight`",
        ))
        .stdout(contains(
            "claimed-but-absent: the narrative claims \"created a comment\" (action `create_comment`)",
        ))
        .stdout(contains("not a clean timeout"))
        .stdout(contains(
            "default gate stability.weakest_score >= 0.5 failed: 0.000, run_1 \
             tool_usage_stability 0.000: 6 distinct tools in 6 calls",
        ))
        .stdout(contains("FAIL  5 agent(s): 0 passed, 5 failed"));
    // The JSON report carries the same reason in the stability row's details.
    let out = mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--reporter",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let details: Vec<String> = report["suites"][0]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["cells"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["cell"] == "stability")
        .flat_map(|c| {
            c["gates"][0]["details"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|d| d.as_str().map(str::to_string))
        .collect();
    assert!(
        details
            .iter()
            .any(|d| d.ends_with("run_1 tool_usage_stability 0.000: 6 distinct tools in 6 calls")),
        "{details:?}"
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    mcptest()
        .args([
            "run",
            "--config",
            "examples/narrative.yml",
            "--color",
            "always",
        ])
        .assert()
        .code(0)
        .stdout(contains("\x1b[32mPASS\x1b[0m"));
    mcptest()
        .args([
            "run",
            "--config",
            "examples/narrative.yml",
            "--color",
            "auto",
        ])
        .assert()
        .stdout(contains("\x1b[").not());
}

#[test]
fn json_reporter_has_the_documented_shape() {
    let out = mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--reporter",
            "json",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["mcptest_report"], 1);
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["summary"]["agents"], 5);
    assert_eq!(v["summary"]["failed"], 5);
    let suite = &v["suites"][0];
    assert_eq!(suite["file"], "examples/failing-on-purpose.yml");
    assert!(suite["load_error"].is_null());
    let agent = &suite["agents"][0];
    assert_eq!(agent["name"], "books a flight it never searched");
    assert_eq!(agent["model"], "claude-sonnet-4-5");
    assert_eq!(agent["status"], "fail");
    assert!(agent["error"].is_null());
    assert_eq!(
        agent["cassette"],
        "examples/cassettes/failing-on-purpose/books-a-flight-it-never-searched/claude-sonnet-4-5.json"
    );
    let cell = &agent["cells"][0];
    assert_eq!(cell["cell"], "run_1");
    assert_eq!(cell["passed"], false);
    assert_eq!(cell["gates"][0]["gate"], "trajectory");
    assert_eq!(cell["gates"][0]["passed"], false);
    assert!(cell["gates"][0]["details"].as_array().unwrap().len() >= 2);
    assert_eq!(cell["metrics"]["trajectory"]["passed"], 0);
    // Stable bytes: two replays print the same document.
    let again = mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--reporter",
            "json",
        ])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(out, again);
}

#[test]
fn junit_reporter_is_xml_with_the_fields_ci_reads() {
    let out = mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--config",
            "examples/narrative.yml",
            "--reporter",
            "junit",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let num = |n: roxmltree::Node, a: &str| -> usize { n.attribute(a).unwrap().parse().unwrap() };
    assert_eq!(num(root, "tests"), 11);
    // The triage agent's first run says "added a comment" and called create_comment: backed
    // (add and create are one verb class), so 6 cells fail, all on purpose.
    assert_eq!(num(root, "failures"), 6);
    assert_eq!(num(root, "errors"), 0);
    assert!(root.attribute("time").unwrap().parse::<f64>().is_ok());
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2);
    let s = suites[0];
    assert_eq!(s.attribute("name"), Some("failing-on-purpose"));
    assert_eq!(num(s, "tests"), 9);
    assert_eq!(num(s, "failures"), 6);
    assert_eq!(num(s, "errors"), 0);
    assert!(s.attribute("time").is_some());
    let cases: Vec<_> = s
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 9);
    for c in &cases {
        assert_eq!(c.attribute("classname"), Some("failing-on-purpose"));
        assert!(c.attribute("time").unwrap().parse::<f64>().is_ok());
    }
    let first = cases[0];
    assert_eq!(
        first.attribute("name"),
        Some("books a flight it never searched [claude-sonnet-4-5] run_1")
    );
    let failure = first
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("type"), Some("gate"));
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("trajectory: strict")
    );
    assert!(
        failure
            .text()
            .unwrap()
            .contains("expected tool `search_flights`")
    );
    let passing = suites[1]
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .all(|c| c.children().all(|n| !n.is_element()));
    assert!(passing);
}

#[test]
fn junit_reports_infra_and_load_errors_as_errors() {
    let (dir, path) = suite(&format!("{HEAD}  - name: b\n    model: m\n"));
    cassette(dir.path(), "cassettes/suite/a/m.json", &[weather_run()]);
    let (_bad_dir, bad) = suite("agents:\n  - name: a\n    modle: m\n");
    let out = mcptest()
        .args(["run", "--reporter", "junit", "--config"])
        .arg(&path)
        .arg("--config")
        .arg(&bad)
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("errors"), Some("2"));
    let errors: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("error"))
        .collect();
    assert_eq!(errors[0].attribute("type"), Some("infra"));
    assert!(
        errors[0]
            .attribute("message")
            .unwrap()
            .starts_with("cassette not found")
    );
    assert_eq!(errors[1].attribute("type"), Some("load"));
    assert!(
        errors[1]
            .attribute("message")
            .unwrap()
            .contains("did you mean `model`?")
    );
}

#[test]
fn output_writes_the_report_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    mcptest()
        .args([
            "run",
            "--config",
            "examples/agent-stability.yml",
            "--reporter",
            "junit",
            "--output",
        ])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(contains("3 agent(s): 3 passed").and(contains("report written to")));
    let text = std::fs::read_to_string(&file).unwrap();
    roxmltree::Document::parse(&text).unwrap();
    let json = dir.path().join("report.json");
    mcptest()
        .args([
            "run",
            "--config",
            "examples/narrative.yml",
            "--reporter",
            "json",
            "-o",
        ])
        .arg(&json)
        .assert()
        .code(0);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["summary"]["passed"], 2);
}

#[test]
fn filter_selects_agents_and_an_empty_selection_is_an_error() {
    mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--filter",
            "INVOICE",
        ])
        .assert()
        .code(1)
        .stdout(contains("invoice lookup hits a server error"))
        .stdout(contains("books a flight").not())
        .stdout(contains("1 agent(s): 0 passed, 1 failed"));
    mcptest()
        .args([
            "run",
            "--config",
            "examples/failing-on-purpose.yml",
            "--filter",
            "sonnet",
        ])
        .assert()
        .code(1)
        .stdout(contains("5 agent(s)"));
    mcptest()
        .args([
            "run",
            "--config",
            "examples/narrative.yml",
            "--filter",
            "nobody",
        ])
        .assert()
        .code(2)
        .stderr(contains("no agent matches --filter \"nobody\""))
        .stderr(contains("triage agent tells the truth"));
}

// ---------------------------------------------------------------------------------------------
// Infrastructure errors

#[test]
fn a_missing_cassette_exits_2_and_says_how_to_record_one() {
    let (_dir, path) = suite(HEAD);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(contains("ERROR  a [m]"))
        .stdout(contains("cassette not found:"))
        .stdout(contains("cassettes/suite/a/m.json"))
        .stdout(contains(format!(
            "mcptest run --record --config {}",
            path.display()
        )));
}

#[test]
fn a_malformed_cassette_exits_2_with_its_position() {
    let (dir, path) = suite(HEAD);
    let file = dir.path().join("cassettes/suite/a/m.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"mcptest_cassette\": 1,\n \"runs\": [\n").unwrap();
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(contains("malformed cassette:"))
        .stdout(contains("m.json:3:"))
        .stdout(contains("not valid JSON"));
}

#[test]
fn a_cassette_with_fewer_runs_fails_the_missing_cells() {
    let (dir, path) = suite(&format!(
        "{HEAD}    runs: 3\n    trajectory:\n      mode: strict\n      calls: [get_weather]\n"
    ));
    cassette(dir.path(), "cassettes/suite/a/m.json", &[weather_run()]);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains("run_1       PASS"))
        .stdout(contains("run_3       FAIL"))
        .stdout(contains(
            "run 3 is missing: the agent asks for 3 run(s) and the cassette holds 1",
        ));
}

#[test]
fn an_explicit_cassette_is_relative_to_the_suite_folder() {
    let (dir, path) = suite(&format!("{HEAD}    cassette: recorded/weather.json\n"));
    cassette(dir.path(), "recorded/weather.json", &[weather_run()]);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(0);
}

/// Recording itself is tested end to end in `tests/record.rs`; here only that it asks for the
/// key before touching anything (a replay-only build says recording is not available).
#[test]
fn record_without_an_api_key_exits_2_and_says_which() {
    mcptest()
        .args([
            "run",
            "--record",
            "--config",
            "examples/offline-trace-validation.yml",
        ])
        .env_remove("ANTHROPIC_API_KEY")
        .assert()
        .code(2)
        .stderr(contains("ANTHROPIC_API_KEY is not set"));
}

#[test]
fn a_missing_suite_file_exits_2() {
    mcptest()
        .args(["run", "--config", "examples/nope.yml"])
        .assert()
        .code(2)
        .stderr(contains("examples/nope.yml:1:1: no such file"));
}

// ---------------------------------------------------------------------------------------------
// Load errors: file:line:column and what to do

#[test]
fn load_error_unknown_key_with_did_you_mean() {
    load_error(
        &format!("{HEAD}    golden_pth: {{calls: [a]}}\n"),
        4,
        5,
        &["unknown key `golden_pth`", "did you mean `golden_path`?"],
    );
}

#[test]
fn load_error_wrong_type() {
    load_error(
        &format!("{HEAD}    runs: many\n"),
        4,
        11,
        &["must be a whole number, found a string `many`"],
    );
}

#[test]
fn load_error_bad_yaml_and_empty_file() {
    load_error(
        "agents:\n  - name: a\n   model: [m\n",
        3,
        4,
        &["invalid YAML"],
    );
    load_error("", 1, 1, &["the suite is empty"]);
}

#[test]
fn load_error_stability_on_a_single_run() {
    load_error(
        &format!("{HEAD}    stability: {{}}\n"),
        4,
        5,
        &["set `runs: 2` (or more)"],
    );
}

#[test]
fn load_error_model_graded_matcher_in_a_deterministic_gate() {
    load_error(
        &format!(
            "{HEAD}    runs: 2\n    stability:\n      expect:\n        - target: stability.score\n          matcher: {{llm-jury: {{rubric: steady}}}}\n"
        ),
        8,
        21,
        &["`llm-jury` is model-graded"],
    );
}

#[test]
fn load_error_dangling_inject() {
    load_error(
        &format!(
            "faults:\n  - name: hung-search\n    target: {{tool: search}}\n    kind: hang\n{HEAD}    inject: [hung-serch]\n"
        ),
        8,
        14,
        &["`hung-serch`", "did you mean `hung-search`?"],
    );
}

#[test]
fn load_error_malformed_schema_and_regex() {
    load_error(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0].args\n        matcher: {{schema: {{type: nonsense}}}}\n"
        ),
        6,
        27,
        &["malformed JSON Schema"],
    );
    load_error(
        &format!(
            "{HEAD}    expect:\n      - target: tool_calls[0].name\n        matcher: {{regex: \"[a-\"}}\n"
        ),
        6,
        26,
        &["malformed regex"],
    );
}

#[test]
fn load_error_gating_assertion_on_narration() {
    load_error(
        &format!(
            "{HEAD}    expect:\n      - target: final_response\n        matcher: {{regex: refund}}\n"
        ),
        5,
        17,
        &["narration never decides a verdict", "advisory: true"],
    );
}

// ---------------------------------------------------------------------------------------------
// `mcptest runs` and help

#[test]
fn runs_prints_the_recommended_count_and_band() {
    mcptest()
        .args(["runs", "--half-width", "0.05", "--confidence", "0.95"])
        .assert()
        .code(0)
        .stdout(contains("recommended runs: 385"))
        .stdout(contains("worst-case band with 385 runs: ±4.99 points"));
    mcptest()
        .args(["runs", "--runs", "100"])
        .assert()
        .code(0)
        .stdout(contains("±9.80 points at 95% confidence"));
    mcptest()
        .args(["runs", "--half-width", "0.05", "--confidence", "1.5"])
        .assert()
        .code(2);
    mcptest().args(["runs"]).assert().code(2);
}

#[test]
fn help_everywhere_with_examples() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["runs", "--help"],
    ] {
        mcptest()
            .args(&args)
            .assert()
            .code(0)
            .stdout(contains("Examples:"));
    }
    mcptest().args(["run", "--help"]).assert().stdout(
        contains("--reporter")
            .and(contains("--filter"))
            .and(contains("--output")),
    );
    mcptest().assert().code(2);
}

// ---------------------------------------------------------------------------------------------
// Partial credit, pass-rate decisions, flaky agents, mutation scores

/// Runs `mcptest <args> --config <path>`, expects `code`, and parses standard output as JSON.
#[track_caller]
fn json_of(args: &[&str], path: &Path, code: i32) -> Value {
    let out = mcptest()
        .args(args)
        .arg("--config")
        .arg(path)
        .assert()
        .code(code)
        .get_output()
        .clone();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn triage_run(label: &str) -> Value {
    serde_json::json!({"trace": {
        "tool_calls": [
            {"name": "search_issues", "args": {"q": "flaky"}},
            {"name": "get_issue", "args": {"issue": 412}},
            {"name": label, "args": {"issue": 412, "label": "flaky-test"}}],
        "tool_results": [{"is_error": false}, {"is_error": false}, {"is_error": false}],
        "final_response": "Issue 412 is a flaky timeout; I added the flaky-test label."
    }})
}

#[test]
fn a_failing_ordered_trajectory_reports_credit_and_the_edits_that_pass() {
    let (dir, path) = suite(
        "agents:\n  - name: a\n    model: m\n    cassette: c.json\n    trajectory:\n      \
         mode: strict\n      calls: [{name: search_issues}, {name: add_label}]\n    \
         expect:\n      - {target: trajectory.score, matcher: {schema: {minimum: 0.5}}}\n",
    );
    cassette(dir.path(), "c.json", &[triage_run("add_label")]);
    let doc = json_of(&["run", "--reporter", "json"], &path, 0);
    let cell = &doc["suites"][0]["agents"][0]["cells"][0];
    let t = &cell["metrics"]["trajectory"];
    // Pairs search_issues and add_label: precision 2/3, recall 1, F1 0.8.
    assert_eq!(t["matched"], 2);
    assert!((t["score"].as_f64().unwrap() - 0.8).abs() < 1e-9, "{t}");
    assert_eq!(t["edit_distance"], 1);
    assert_eq!(t["edits"][0]["op"], "delete");
    assert_eq!(t["edits"][0]["recorded_index"], 1);
    let row = &cell["gates"][0];
    assert_eq!(row["gate"], "trajectory");
    assert_eq!(
        row["advisory"], true,
        "the score assertion replaces the gate"
    );
    let details = row["details"].to_string();
    assert!(details.contains("to pass, 1 edit(s):"), "{details}");
    assert!(
        details.contains("delete recorded #1 `get_issue`"),
        "{details}"
    );
}

fn reliability_suite(block: &str, runs: &[Value]) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = suite(&format!(
        "agents:\n  - name: a\n    model: m\n    cassette: c.json\n    runs: {}\n    \
         trajectory: {{mode: subsequence, calls: [{{name: add_label}}]}}\n    \
         reliability: {block}\n",
        runs.len()
    ));
    cassette(dir.path(), "c.json", runs);
    (dir, path)
}

#[test]
fn a_pass_rate_the_runs_cannot_settle_is_inconclusive_and_exits_0() {
    let runs = vec![triage_run("add_label"); 3];
    let (_dir, path) = reliability_suite("{min_pass_rate: 0.9, confidence: 0.95}", &runs);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout(contains("reliability INCONCLUSIVE"))
        .stdout(contains(
            "INCONCLUSIVE reliability: inconclusive: pass rate 3/3 = 1.000, 95% Wilson interval \
             [0.438, 1.000] against min_pass_rate 0.900",
        ))
        .stdout(contains("about 35 runs in all (32 more)"))
        .stdout(contains("4 cell(s), 0 failed, 1 inconclusive"));
    let out = mcptest()
        .args(["run", "--reporter", "junit", "--config"])
        .arg(&path)
        .assert()
        .code(0)
        .get_output()
        .clone();
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(xml.contains("skipped=\"1\""), "{xml}");
    assert!(
        xml.contains("<skipped message=\"reliability: inconclusive"),
        "{xml}"
    );
    assert!(xml.contains("type=\"inconclusive\""), "{xml}");
    let doc = json_of(&["run", "--reporter", "json"], &path, 0);
    assert_eq!(doc["summary"]["cells_inconclusive"], 1);
    assert_eq!(
        doc["suites"][0]["agents"][0]["cells"][3]["outcome"],
        "inconclusive"
    );
}

#[test]
fn inconclusive_fail_fails_and_decided_rates_pass_or_fail() {
    let three = vec![triage_run("add_label"); 3];
    let (_d, path) = reliability_suite("{min_pass_rate: 0.9, inconclusive: fail}", &three);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains("FAIL (inconclusive) reliability"));
    let forty = vec![triage_run("add_label"); 40];
    let (_d, path) = reliability_suite("{min_pass_rate: 0.9}", &forty);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(0);
    let one_of_three = vec![
        triage_run("add_label"),
        triage_run("remove_label"),
        triage_run("remove_label"),
    ];
    let (_d, path) = reliability_suite("{min_pass_rate: 0.9}", &one_of_three);
    mcptest()
        .args(["run", "--config"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains("FAIL reliability: fail: pass rate 1/3"))
        .stdout(contains(
            "FLAKY  1 agent(s) pass some runs and fail others:",
        ))
        .stdout(contains("1 of 3 run(s) passed; failing: run_2, run_3"));
}

fn mutate_suite(gates: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = suite(&format!(
        "agents:\n  - name: a\n    model: m\n    cassette: c.json\n    runs: 2\n{gates}"
    ));
    cassette(
        dir.path(),
        "c.json",
        &[triage_run("add_label"), triage_run("add_label")],
    );
    (dir, path)
}

#[test]
fn mutate_scores_a_weak_suite_below_a_strong_one_and_names_survivors() {
    let (_w, weak) = mutate_suite("    trajectory: {mode: superset, calls: [{name: add_label}]}\n");
    let (_s, strong) = mutate_suite(
        "    trajectory:\n      mode: strict\n      calls:\n        - {name: search_issues, \
         args: {exact: {q: flaky}}}\n        - {name: get_issue, args: {exact: {issue: 412}}}\n        \
         - {name: add_label, args: {exact: {issue: 412, label: flaky-test}}}\n    \
         narrative: {}\n",
    );
    let score = |path: &Path| {
        let doc = json_of(&["mutate", "--reporter", "json"], path, 0);
        doc["agents"][0].clone()
    };
    let w = score(&weak);
    let s = score(&strong);
    for key in ["name", "mutants", "caught", "score", "survivors"] {
        assert!(w.get(key).is_some(), "{key} missing in {w}");
    }
    assert!(s["score"].as_f64() > w["score"].as_f64(), "{s} vs {w}");
    let survivor = &w["survivors"][0];
    for key in ["kind", "run", "description"] {
        assert!(survivor.get(key).is_some(), "{key} missing in {survivor}");
    }
    // --min-score between the two: the weak suite exits 1, the strong one 0.
    let mid = format!(
        "{:.3}",
        (s["score"].as_f64().unwrap() + w["score"].as_f64().unwrap()) / 2.0
    );
    mcptest()
        .args(["mutate", "--min-score", &mid, "--config"])
        .arg(&weak)
        .assert()
        .code(1)
        .stdout(contains("survivors (no gate failed):"))
        .stdout(contains(format!(
            "below --min-score {}",
            mid.trim_end_matches('0')
        )));
    mcptest()
        .args(["mutate", "--min-score", &mid, "--config"])
        .arg(&strong)
        .assert()
        .code(0);
}

#[test]
fn mutate_refuses_bad_input_with_exit_2() {
    let (_d, path) = mutate_suite("");
    mcptest()
        .args(["mutate", "--min-score", "80", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(contains("outside 0..=1"));
    let (_d, path) = suite("agents:\n  - name: a\n    model: m\n    cassette: missing.json\n");
    mcptest()
        .args(["mutate", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(contains("cassette not found"));
    mcptest()
        .args(["mutate", "--config", "no/such/suite.yml"])
        .assert()
        .code(2)
        .stderr(contains("no such file"));
}
