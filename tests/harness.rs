//! The harness as a user runs it: a fixture crate (`tests/fixture/`) is laid out in this
//! target's temporary directory, built once against this workspace's crates, and its test
//! binaries are driven directly, through `cargo test`, and through `cargo nextest`.
//!
//! The fixture has its own target directory, shared by every run of these tests, so only the
//! first build on a machine compiles the dependencies. The fixture code lives in
//! `support/mod.rs`, shared with `benches/cells.rs`, which measures the 10,000-cell target.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

use support::{Fixture, WORKSPACE, cargo, clean, fixture, text, write};

/// Whether `CI` is set to a true value (anything but "", "0" and "false").
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// Whether a tool a test drives is installed. When it is not, the test is skipped locally
/// (with a message) and fails in CI, saying how to install it.
fn tool_available(installed: bool, tool: &str, checks: &str) -> bool {
    if installed {
        return true;
    }
    let install = format!("cargo install {tool} --locked");
    assert!(
        !in_ci(),
        "{tool} is not installed, and CI is set: install it with `{install}` \
         (scripts/test.sh does) to run the {checks} checks"
    );
    eprintln!(
        "{tool} is not installed: skipping the {checks} checks (install it with `{install}`)"
    );
    false
}

/// The cells a run reported, with their outcome (`ok`, `FAILED`).
fn outcomes(out: &Output) -> BTreeMap<String, String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|l| l.rsplit_once(" ... "))
        .map(|(name, outcome)| (name.trim().to_string(), outcome.trim().to_string()))
        .collect()
}

fn good_cells() -> Vec<&'static str> {
    vec![
        "docs::pinning::claude-sonnet-4-5::run_1",
        "docs::pinning::claude-sonnet-4-5::run_2",
        "docs::pinning::claude-sonnet-4-5::run_3",
        "docs::pinning::claude-sonnet-4-5::reliability",
        "weather::sacramento::claude-sonnet-4-5::run_1",
        "weather::sacramento::claude-sonnet-4-5::run_2",
        "weather::sacramento::claude-sonnet-4-5::run_3",
        "weather::sacramento::claude-sonnet-4-5::stability",
        "weather::sacramento_every_run::claude-sonnet-4-5::run_1",
        "weather::sacramento_every_run::claude-sonnet-4-5::run_2",
        "weather::sacramento_every_run::claude-sonnet-4-5::run_3",
    ]
}

#[test]
fn lists_every_cell_by_name() {
    let f = fixture();
    assert_eq!(f.list("good", &[]), good_cells());
    assert_eq!(f.list("good", &["--ignored"]), Vec::<String>::new());
}

#[test]
fn exact_agent_path_runs_that_agents_cells_only() {
    let f = fixture();
    // What an IDE sends for "Run Test" on `fn sacramento`.
    let out = f.run(
        "good",
        &["weather::sacramento", "--exact", "--nocapture"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    let ran: Vec<String> = outcomes(&out).into_keys().collect();
    assert_eq!(ran, &good_cells()[4..8], "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("4 passed"));

    let cassette = f.list(
        "good",
        &["weather::sacramento::claude-sonnet-4-5", "--exact"],
    );
    assert_eq!(cassette, &good_cells()[4..8]);
    let module = f.list("good", &["weather", "--exact"]);
    assert_eq!(module, &good_cells()[4..]);
}

#[test]
fn exact_cell_name_runs_one_cell() {
    let f = fixture();
    let out = f.run(
        "good",
        &["--exact", "weather::sacramento::claude-sonnet-4-5::run_2"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        outcomes(&out).into_iter().collect::<Vec<_>>(),
        [(
            "weather::sacramento::claude-sonnet-4-5::run_2".to_string(),
            "ok".to_string()
        )]
    );
    // A name that is no cell and no node selects nothing, as in libtest.
    assert!(
        f.list("good", &["--exact", "weather::sacramento::claude"])
            .is_empty()
    );
}

#[test]
fn substring_filters_and_skip() {
    let f = fixture();
    assert_eq!(f.list("good", &["docs"]), &good_cells()[..4]);
    assert_eq!(
        f.list(
            "good",
            &["sacramento", "--skip", "stability", "--skip", "every"]
        ),
        &good_cells()[4..7]
    );
    // `--skip` of a subtree with `--exact`.
    assert_eq!(
        f.list("good", &["--exact", "--skip", "weather::sacramento"]),
        {
            let mut v = good_cells()[..4].to_vec();
            v.extend_from_slice(&good_cells()[8..]);
            v
        }
    );
}

#[test]
fn cargo_test_runs_the_target_and_an_agent_by_path() {
    let f = fixture();
    let mut cmd = clean(Command::new(cargo()));
    let out = cmd
        .current_dir(&f.root)
        .env("CARGO_TARGET_DIR", &f.target_dir)
        .args([
            "test",
            "--offline",
            "--test",
            "good",
            "--",
            "docs::pinning",
            "--exact",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(outcomes(&out).len(), 4, "{}", text(&out));
}

fn nextest_available() -> bool {
    Command::new(cargo())
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn nextest(f: &Fixture, args: &[&str]) -> Output {
    let mut cmd = clean(Command::new(cargo()));
    cmd.current_dir(&f.root)
        .env("CARGO_TARGET_DIR", &f.target_dir)
        .args(["nextest"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn nextest_lists_runs_and_partitions_cells() {
    if !tool_available(nextest_available(), "cargo-nextest", "nextest") {
        return;
    }
    let f = fixture();
    let listed = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "list",
            "--offline",
            "--test",
            "good",
            "--message-format",
            "oneline",
        ];
        args.extend_from_slice(extra);
        let out = nextest(f, &args);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().last().map(String::from))
            .collect()
    };
    let mut whole = listed(&[]);
    whole.sort();
    let mut expected: Vec<String> = good_cells().into_iter().map(String::from).collect();
    expected.sort();
    assert_eq!(whole, expected);

    let mut union = Vec::new();
    for k in 1..=3 {
        union.extend(listed(&["--partition", &format!("count:{k}/3")]));
    }
    union.sort();
    assert_eq!(union, expected, "each cell in exactly one partition");

    let out = nextest(
        f,
        &[
            "run",
            "--offline",
            "--test",
            "good",
            "--partition",
            "count:2/3",
            "--no-fail-fast",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let all = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(all.contains("4 tests run: 4 passed"), "{all}");
}

/// The tests that change the `snap` target's cassette take turns.
static SNAP_TARGET: Mutex<()> = Mutex::new(());

/// The snapshot life cycle, as a user lives it: no snapshot yet, accept, a re-recorded
/// cassette changes the report, review and accept, then a cassette that also breaks a gate.
#[test]
fn snapshot_life_cycle() {
    let _serial = SNAP_TARGET.lock().unwrap_or_else(|e| e.into_inner());
    let f = fixture();
    let snapshots = f.root.join("tests/snapshots");
    let cassette = f
        .root
        .join("tests/cassettes/lifecycle/claude-sonnet-4-5.json");
    // The first run of the weather cassette: one run, one cell, one snapshot.
    let weather = std::fs::read_to_string(
        Path::new(WORKSPACE).join("tests/cassettes/weather/claude-sonnet-4-5.json"),
    )
    .unwrap();
    let mut one: serde_json::Value = serde_json::from_str(&weather).unwrap();
    one["runs"].as_array_mut().unwrap().truncate(1);
    let original = serde_json::to_string_pretty(&one).unwrap();
    write(&cassette, &original);
    let snap = snapshots.join("snap__lookup__claude-sonnet-4-5__run_1.snap");
    let pending = snapshots.join("snap__lookup__claude-sonnet-4-5__run_1.snap.new");
    let files = || -> BTreeSet<String> {
        std::fs::read_dir(&snapshots)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("snap__"))
                    .collect()
            })
            .unwrap_or_default()
    };
    for name in files() {
        std::fs::remove_file(snapshots.join(name)).unwrap();
    }

    // CI: a missing snapshot fails and nothing is written.
    let out = f.run("snap", &[], &[("CI", "true")]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("does not exist yet; nothing was written (CI mode"),
        "{}",
        text(&out)
    );
    assert!(files().is_empty(), "{:?}", files());

    // Locally: it fails and leaves a pending snapshot; accepting it makes the cell pass.
    let out = f.run("snap", &[], &[]);
    assert!(!out.status.success());
    assert!(pending.is_file(), "{}", text(&out));
    assert!(text(&out).contains("cargo insta review"));
    std::fs::rename(&pending, &snap).unwrap();
    let out = f.run("snap", &[], &[]);
    assert!(out.status.success(), "{}", text(&out));

    // Re-recorded with other units: every gate still passes, the report changed.
    write(
        &cassette,
        original.replacen("\"imperial\"", "\"metric\"", 1),
    );
    let out = f.run("snap", &[], &[]);
    assert!(!out.status.success());
    let t = text(&out);
    assert!(
        t.contains("every gate passed, but the report changed"),
        "{t}"
    );
    assert!(t.contains("does not match this report"), "{t}");
    let proposed = std::fs::read_to_string(&pending).unwrap();
    assert!(proposed.contains("\"units\":\"metric\""), "{proposed}");
    assert!(
        std::fs::read_to_string(&snap)
            .unwrap()
            .contains("\"units\":\"imperial\"")
    );
    std::fs::rename(&pending, &snap).unwrap();
    let out = f.run("snap", &[], &[]);
    assert!(out.status.success(), "{}", text(&out));

    // Re-recorded in the wrong city: the gate and the snapshot fail, reported together.
    write(
        &cassette,
        original.replacen("\"Sacramento\"", "\"Fresno\"", 1),
    );
    let out = f.run("snap", &[], &[("CI", "true")]);
    assert!(!out.status.success());
    let t = text(&out);
    assert!(t.contains("failed gate(s): trajectory"), "{t}");
    assert!(t.contains("/args/city"), "{t}");
    assert!(t.contains("snapshot: snapshot tests/snapshots/snap__lookup__claude-sonnet-4-5__run_1.snap does not match"), "{t}");
    assert!(!pending.exists(), "CI mode wrote {pending:?}");
    write(&cassette, &original);
}

/// `cargo insta test`, `pending-snapshots` and `accept` on a harness target (needs cargo-insta:
/// `cargo install cargo-insta --locked`; skipped without it, except in CI).
#[test]
fn cargo_insta_reviews_harness_snapshots() {
    let insta = |args: &[&str]| -> Output {
        let f = fixture();
        clean(Command::new(cargo()))
            .current_dir(&f.root)
            .env("CARGO_TARGET_DIR", &f.target_dir)
            .arg("insta")
            .args(args)
            .output()
            .unwrap()
    };
    if !tool_available(
        insta(&["--version"]).status.success(),
        "cargo-insta",
        "cargo insta",
    ) {
        return;
    }
    let _serial = SNAP_TARGET.lock().unwrap_or_else(|e| e.into_inner());
    let f = fixture();
    let snapshots = f.root.join("tests/snapshots");
    let snap = snapshots.join("snap__lookup__claude-sonnet-4-5__run_1.snap");
    let cassette = f
        .root
        .join("tests/cassettes/lifecycle/claude-sonnet-4-5.json");
    // The first run of the weather cassette: one run, one cell, one snapshot.
    let weather = std::fs::read_to_string(
        Path::new(WORKSPACE).join("tests/cassettes/weather/claude-sonnet-4-5.json"),
    )
    .unwrap();
    let mut one: serde_json::Value = serde_json::from_str(&weather).unwrap();
    one["runs"].as_array_mut().unwrap().truncate(1);
    let original = serde_json::to_string_pretty(&one).unwrap();
    write(&cassette, &original);
    let _ = std::fs::remove_file(&snap);
    let _ = std::fs::remove_file(snapshots.join("snap__lookup__claude-sonnet-4-5__run_1.snap.new"));

    let out = insta(&["test", "--test", "snap", "--accept"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        std::fs::read_to_string(&snap)
            .unwrap()
            .contains("\"units\":\"imperial\"")
    );

    write(
        &cassette,
        original.replacen("\"imperial\"", "\"metric\"", 1),
    );
    let tested = insta(&["test", "--test", "snap"]);
    assert!(
        !tested.status.success(),
        "pending snapshots fail `cargo insta test`"
    );
    let out = insta(&["pending-snapshots"]);
    assert!(
        text(&out).contains("run_1.snap"),
        "{}\n{}",
        text(&out),
        text(&tested)
    );
    let out = insta(&["accept"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        std::fs::read_to_string(&snap)
            .unwrap()
            .contains("\"units\":\"metric\"")
    );
    let out = f.run("snap", &[], &[("CI", "true")]);
    assert!(out.status.success(), "{}", text(&out));
    write(&cassette, &original);
}

#[test]
fn bad_input_becomes_failing_named_cells() {
    let f = fixture();
    let out = f.run("bad", &["--test-threads", "2"], &[]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(101), "{t}");
    assert!(
        !t.contains("panicked at") || t.contains("the builder blew up"),
        "{t}"
    );
    let got = outcomes(&out);
    let failed: Vec<&str> = got
        .iter()
        .filter(|(_, o)| *o == "FAILED")
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "builder_mistake::declaration",
            "claims_a_comment::claude-sonnet-4-5::run_2",
            "malformed::empty::run_1",
            "malformed::latin1::run_1",
            "malformed::truncated::run_1",
            "no_match::cassettes",
            "panics::declaration",
            "too_few_runs::claude-sonnet-4-5::run_4",
            "too_few_runs::claude-sonnet-4-5::run_5",
            "too_few_runs::claude-sonnet-4-5::stability",
            "twins::twin::declaration",
        ],
        "{t}"
    );
    for (cell, says) in [
        (
            "builder_mistake::declaration",
            "a stability gate needs a sample",
        ),
        (
            "builder_mistake::declaration",
            "target `final_response` reads the model's narration",
        ),
        (
            "claims_a_comment::claude-sonnet-4-5::run_2",
            "claimed-but-absent: the narrative claims \"created a comment\"",
        ),
        (
            "malformed::empty::run_1",
            "tests/cassettes/broken/empty.json:1:1: the cassette file is empty",
        ),
        (
            "malformed::latin1::run_1",
            "tests/cassettes/broken/latin1.json: cannot read the cassette",
        ),
        (
            "malformed::truncated::run_1",
            "tests/cassettes/broken/truncated.json:2:",
        ),
        (
            "no_match::cassettes",
            "cassette pattern `tests/cassettes/nowhere/*.json` matches no file",
        ),
        (
            "panics::declaration",
            "panicked while building its declaration: the builder blew up",
        ),
        (
            "too_few_runs::claude-sonnet-4-5::run_4",
            "run 4 is missing: the agent asks for 5 run(s) and the cassette holds 3",
        ),
        (
            "twins::twin::declaration",
            "2 agents are named `twins::twin` (src/lib.rs:4, tests/bad.rs:",
        ),
    ] {
        let section = t
            .split(&format!("---- {cell} ----"))
            .nth(1)
            .unwrap_or_else(|| panic!("no failure text for {cell}:\n{t}"));
        let section = section.split("\n---- ").next().unwrap();
        assert!(
            section.contains(says),
            "{cell} should say {says:?}:\n{section}"
        );
    }
    assert_eq!(
        got.get("too_few_runs::claude-sonnet-4-5::run_3")
            .map(String::as_str),
        Some("ok")
    );
    assert!(t.contains("test result: FAILED."), "{t}");

    let out = f.run("empty", &[], &[]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("this test target registers no agent"),
        "{}",
        text(&out)
    );
}

#[test]
fn an_agent_in_a_libtest_target_explains_what_to_change() {
    let f = fixture();
    let out = clean(Command::new(cargo()))
        .current_dir(&f.root)
        .env("CARGO_TARGET_DIR", &f.target_dir)
        .args(["test", "--no-run", "--offline", "--test", "misuse"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let t = text(&out);
    assert!(
        t.contains("#[mcptest::agent] needs a test target with `harness = false` whose main is `mcptest::main!();`"),
        "{t}"
    );
}

#[test]
fn yaml_suites_run_under_the_same_harness() {
    let f = fixture();
    let out = f.run("suites", &[], &[]);
    let got = outcomes(&out);
    let expected: BTreeMap<String, String> = [
        ("broken::suite", "FAILED"),
        ("weather::weather-lookup::claude-sonnet-4-5::run_1", "ok"),
        ("weather::weather-lookup::claude-sonnet-4-5::run_2", "ok"),
        ("weather::weather-lookup::claude-sonnet-4-5::run_3", "ok"),
        (
            "weather::weather-lookup::claude-sonnet-4-5::stability",
            "ok",
        ),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, expected, "{}", text(&out));
    assert!(
        text(&out).contains("tests/suites/broken.yml:5:"),
        "{}",
        text(&out)
    );
}

/// 10,000 cells are listed by name, all run and pass, and one runs alone in its own process.
/// How fast is measured by `cargo bench --bench cells`.
#[test]
fn ten_thousand_cells() {
    let f = fixture();
    let names = f.list("scale", &[]);
    assert_eq!(names.len(), 10_000);
    assert_eq!(
        names.iter().collect::<BTreeSet<_>>().len(),
        10_000,
        "cell names are unique"
    );
    for name in ["a000::c00::run_1", "a042::c17::run_3", "a099::c24::run_4"] {
        assert!(names.iter().any(|n| n == name), "{name} is not listed");
    }

    let out = f.run("scale", &["--test-threads", "2"], &[]);
    let t = text(&out);
    assert!(out.status.success(), "{}", &t[..2000.min(t.len())]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("10000 passed"));

    // One cell the way nextest starts it: a process that rebuilds the plan and runs one cell.
    let out = f.run(
        "scale",
        &["a042::c17::run_3", "--exact", "--nocapture"],
        &[("NEXTEST_EXECUTION_MODE", "process-per-test")],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        outcomes(&out).into_iter().collect::<Vec<_>>(),
        [("a042::c17::run_3".to_string(), "ok".to_string())],
        "{}",
        text(&out)
    );
}
