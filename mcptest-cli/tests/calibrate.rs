//! End-to-end tests of `mcptest calibrate`: the calibrated suite passes on its own recordings,
//! fails on a recording that loops, needs its cassettes, and is stable when calibrated again.

use assert_cmd::Command;
use predicates::str::contains;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn mcptest() -> Command {
    let mut c = Command::cargo_bin("mcptest").unwrap();
    c.env("NO_COLOR", "1");
    c
}

const SUITE: &str = "\
# A booking agent: searches a few times, then books.
agents:
  - name: booker
    model: m1
    prompt: Book me a flight to Seattle.   # the user's words
    runs: 3
    golden_path: { calls: [search_flights, book_flight], allow_extra_steps: true }
    stability: {}
    narrative: {}
    reliability: {}
    expect:
      - target: tool_calls[0].name
        matcher: { exact: search_flights }
";

const CASSETTE: &str = "cassettes/suite/booker/m1.json";

/// One run: three searches and a booking, `tokens` in all, two answers of similar length.
fn booking_run(tokens: u64, day: u64) -> Value {
    json!({"trace": {
        "tool_calls": [
            {"name": "search_flights", "args": {"to": "SEA", "day": day}},
            {"name": "search_flights", "args": {"to": "SEA", "day": day + 1}},
            {"name": "search_flights", "args": {"to": "SEA", "day": day + 2}},
            {"name": "book_flight", "args": {"flight": "HAT136"}}
        ],
        "tool_results": [{}, {}, {}, {}],
        "conversation": {"tokens": {"total": tokens}, "turns": [
            {"role": "user", "content": "Book me a flight to Seattle."},
            {"role": "assistant", "content": "Let me look for flights to Seattle."},
            {"role": "assistant", "content": ""},
            {"role": "assistant", "content": "Here is your flight HAT136 to Seattle."}
        ]}
    }})
}

/// The same search twenty times: a loop.
fn looping_run() -> Value {
    let calls: Vec<Value> = (0..20)
        .map(|_| json!({"name": "search_flights", "args": {"to": "SEA", "day": 1}}))
        .collect();
    let results: Vec<Value> = (0..20).map(|_| json!({})).collect();
    json!({"trace": {
        "tool_calls": calls,
        "tool_results": results,
        "conversation": {"tokens": {"total": 22000}, "turns": [
            {"role": "user", "content": "Book me a flight to Seattle."},
            {"role": "assistant", "content": "Let me look for flights to Seattle."},
            {"role": "assistant", "content": "Here are the flights to Seattle I saw."}
        ]}
    }})
}

fn write_cassette(dir: &Path, runs: &[Value]) {
    let path = dir.join(CASSETTE);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let doc = json!({"mcptest_cassette": 1, "runs": runs});
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// A folder with the suite and three healthy recordings (each over the 2,000 tokens per call
/// the default gate allows: 20k to 22k tokens over 4 distinct calls).
fn recorded() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.yml");
    std::fs::write(&suite, SUITE).unwrap();
    write_cassette(
        dir.path(),
        &[
            booking_run(20_000, 1),
            booking_run(21_000, 4),
            booking_run(22_000, 7),
        ],
    );
    (dir, suite)
}

/// Runs `mcptest calibrate --config suite --output out`; returns stderr.
fn calibrate(suite: &Path, out: &Path) -> String {
    let o = mcptest()
        .args(["calibrate", "--config"])
        .arg(suite)
        .arg("--output")
        .arg(out)
        .assert()
        .code(0)
        .get_output()
        .clone();
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run(suite: &Path) -> assert_cmd::assert::Assert {
    mcptest().args(["run", "--config"]).arg(suite).assert()
}

#[test]
fn the_calibrated_suite_passes_on_its_recordings_and_fails_on_a_loop() {
    let (dir, suite) = recorded();
    // The default gates fail: 5,000+ tokens per distinct call (cost_per_progress 0.364).
    run(&suite).code(1).stdout(contains(
        "run_3 cost_per_progress 0.364: 22,000 tokens over 4 distinct calls",
    ));

    let calibrated = dir.path().join("suite.calibrated.yml");
    let summary = calibrate(&suite, &calibrated);
    assert!(summary.contains("booker [m1]:"), "{summary}");
    assert!(
        summary.contains("stability.weakest_score 0.364 -> minimum 0.313"),
        "{summary}"
    );
    assert!(
        summary.contains("narrative.divergence_score 1 -> max_divergence_score 1"),
        "{summary}"
    );
    // The agent names no `cassette:`; the copy points at the recordings it was calibrated on.
    assert!(
        summary.contains("cassette: cassettes/suite/booker/m1.json"),
        "{summary}"
    );
    let text = std::fs::read_to_string(&calibrated).unwrap();
    assert!(
        text.starts_with("# Calibrated by `mcptest calibrate"),
        "{text}"
    );
    assert!(text.contains("Comments of the original suite are not kept"));
    // The user's own fields and assertions are kept; the bounds are written.
    assert!(
        text.contains("prompt: Book me a flight to Seattle."),
        "{text}"
    );
    assert!(text.contains("target: tool_calls[0].name"), "{text}");
    assert!(text.contains("max_divergence_score: 1"), "{text}");
    assert!(
        text.contains("cassette: cassettes/suite/booker/m1.json"),
        "{text}"
    );
    assert!(text.contains("target: golden_path.penalty"), "{text}");
    assert!(text.contains("target: reliability.passhat_k"), "{text}");

    run(&calibrated)
        .code(0)
        .stdout(contains("PASS  1 agent(s): 1 passed"));

    // The same calibrated suite against a recording whose second run loops.
    write_cassette(
        dir.path(),
        &[
            booking_run(20_000, 1),
            looping_run(),
            booking_run(22_000, 7),
        ],
    );
    let out = run(&calibrated).code(1).get_output().clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL stability: stability.weakest_score"),
        "{stdout}"
    );
    assert!(
        stdout.contains("driven by: run_2 redundancy 0.050: 1 distinct call of 20"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL stability: stability.tool_sequence_similarity"),
        "{stdout}"
    );
}

#[test]
fn calibrating_twice_writes_the_same_bounds() {
    let (dir, suite) = recorded();
    let once = dir.path().join("once.yml");
    let twice = dir.path().join("twice.yml");
    calibrate(&suite, &once);
    calibrate(&once, &twice);
    let body = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&once), body(&twice));
    // One assertion per target: the second pass replaced the first pass's bounds.
    assert_eq!(
        body(&twice)
            .matches("target: stability.weakest_score")
            .count(),
        1
    );
}

#[test]
fn without_output_the_suite_goes_to_stdout() {
    let (_dir, suite) = recorded();
    mcptest()
        .args(["calibrate", "--config"])
        .arg(&suite)
        .assert()
        .code(0)
        .stdout(contains("target: stability.score"))
        .stderr(contains("stability.score"));
}

#[test]
fn a_missing_cassette_exits_2_and_says_how_to_record() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.yml");
    std::fs::write(&suite, SUITE).unwrap();
    let out = dir.path().join("out.yml");
    mcptest()
        .args(["calibrate", "--config"])
        .arg(&suite)
        .arg("--output")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("cassette not found"))
        .stderr(contains("record one with: mcptest run --record --config"));
    assert!(
        !out.exists(),
        "nothing is written when a cassette is missing"
    );
}

#[test]
fn a_suite_that_does_not_load_exits_2_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.yml");
    std::fs::write(
        &suite,
        "agents:\n  - name: a\n    model: m\n    stabilty: {}\n",
    )
    .unwrap();
    mcptest()
        .args(["calibrate", "--config"])
        .arg(&suite)
        .assert()
        .code(2)
        .stderr(contains(format!(
            "{}:4:5: unknown key `stabilty`",
            suite.display()
        )));
}

#[test]
fn help_shows_examples_and_says_comments_are_not_kept() {
    mcptest()
        .args(["calibrate", "--help"])
        .assert()
        .code(0)
        .stdout(contains(
            "mcptest calibrate --config suite.yml --output suite.calibrated.yml",
        ))
        .stdout(contains("YAML comments"));
}
