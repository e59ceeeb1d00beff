//! The harness as a user runs it: a fixture crate (`tests/fixture/`) is laid out in this
//! target's temporary directory, built once against this workspace's crates, and its test
//! binaries are driven directly, through `cargo test`, and through `cargo nextest`.
//!
//! The fixture has its own target directory, shared by every run of these tests, so only the
//! first build on a machine compiles the dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// Test targets of the fixture built for every test (the `plain` comparison is built on demand).
const TARGETS: &[&str] = &["good", "snap", "bad", "empty", "scale", "suites"];

struct Fixture {
    root: PathBuf,
    target_dir: PathBuf,
    bins: BTreeMap<String, PathBuf>,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Writes `contents` to `path` unless it already holds exactly that (keeps mtimes, so cargo
/// does not rebuild an unchanged fixture).
fn write(path: &Path, contents: impl AsRef<[u8]>) {
    if std::fs::read(path).ok().as_deref() == Some(contents.as_ref()) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn copy(from: &str, to: &Path) {
    write(to, std::fs::read(Path::new(WORKSPACE).join(from)).unwrap());
}

/// A command with no test-runner or snapshot settings inherited from the outer test run.
fn clean(mut cmd: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("INSTA_")
            || key.starts_with("NEXTEST")
            || key == "CI"
            || key == "TF_BUILD"
        {
            cmd.env_remove(&key);
        }
    }
    cmd
}

fn lay_out(root: &Path) {
    let src = Path::new(WORKSPACE).join("tests/fixture");
    let manifest = std::fs::read_to_string(src.join("Cargo.toml.in"))
        .unwrap()
        .replace("@MCPTEST@", &WORKSPACE.replace('\\', "/"));
    write(&root.join("Cargo.toml"), manifest);
    copy("Cargo.lock", &root.join("Cargo.lock"));
    for file in [
        "src/lib.rs",
        "tests/good.rs",
        "tests/snap.rs",
        "tests/bad.rs",
        "tests/empty.rs",
        "tests/misuse.rs",
        "tests/suites.rs",
        "tests/suites/weather.yml",
        "tests/suites/broken.yml",
    ] {
        copy(&format!("tests/fixture/{file}"), &root.join(file));
    }
    let cassettes = root.join("tests/cassettes");
    copy(
        "tests/cassettes/weather/claude-sonnet-4-5.json",
        &cassettes.join("weather/claude-sonnet-4-5.json"),
    );
    copy(
        "tests/cassettes/weather/claude-sonnet-4-5.json",
        &root.join("tests/suites/cassettes/weather/weather-lookup/claude-sonnet-4-5.json"),
    );
    copy(
        "tests/cassettes/docs-research/claude-sonnet-4-5.json",
        &cassettes.join("docs-research/claude-sonnet-4-5.json"),
    );
    // The example's honest run 1, then the recorded run 2 that claims a comment it never
    // created.
    let read = |p: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(Path::new(WORKSPACE).join(p)).unwrap())
            .unwrap()
    };
    let mut triage = read("tests/cassettes/triage/claude-sonnet-4-5.json");
    triage["runs"][1] = read("examples/cassettes/triage/claude-sonnet-4-5.json")["runs"][1].clone();
    write(
        &cassettes.join("triage/claude-sonnet-4-5.json"),
        serde_json::to_string_pretty(&triage).unwrap(),
    );
    write(
        &cassettes.join("broken/truncated.json"),
        "{\"mcptest_cassette\": 1, \"runs\": [\n  {\"trace\": {\"tool_calls\": [",
    );
    write(&cassettes.join("broken/empty.json"), "");
    write(
        &cassettes.join("broken/latin1.json"),
        b"{\"final_response\": \"caf\xe9\"}",
    );

    // 100 agents x 25 cassettes x 4 runs = 10,000 cells.
    let mut scale = String::from("//! 10,000 cells.\n\n");
    for a in 0..100 {
        scale.push_str(&format!(
            "#[mcptest::agent(cassettes = \"tests/cassettes/scale/*.json\", runs = 4, snapshots = false, \
             trajectory(subsequence, [lookup(subset = {{\"n\": {}}})]))]\nfn a{a:03}() {{}}\n\n",
            a % 2
        ));
    }
    scale.push_str("mcptest::main!();\n");
    write(&root.join("tests/scale.rs"), scale);
    for c in 0..25 {
        let runs: Vec<String> = (0..4)
            .map(|r| {
                let calls: Vec<String> = (0..2)
                    .map(|a| {
                        format!("{{\"name\": \"lookup\", \"args\": {{\"n\": {a}, \"run\": {r}}}}}")
                    })
                    .collect();
                format!("{{\"trace\": {{\"tool_calls\": [{}]}}}}", calls.join(", "))
            })
            .collect();
        write(
            &cassettes.join(format!("scale/c{c:02}.json")),
            format!(
                "{{\"mcptest_cassette\": 1, \"runs\": [{}]}}\n",
                runs.join(",\n")
            ),
        );
    }
    let mut plain = String::from("//! 10,000 plain tests, for comparison.\n\n");
    for t in 0..10_000 {
        plain.push_str(&format!("#[test]\nfn t{t:05}() {{}}\n"));
    }
    write(&root.join("tests/plain.rs"), plain);
}

fn build(root: &Path, target_dir: &Path, targets: &[&str]) -> BTreeMap<String, PathBuf> {
    let mut cmd = clean(Command::new(cargo()));
    cmd.current_dir(root)
        .env("CARGO_TARGET_DIR", target_dir)
        .args([
            "test",
            "--no-run",
            "--offline",
            "--message-format=json-render-diagnostics",
        ]);
    for t in targets {
        cmd.args(["--test", t]);
    }
    let out = cmd.output().expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "building the fixture failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bins = BTreeMap::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let (Some(name), Some(exe)) =
            (msg["target"]["name"].as_str(), msg["executable"].as_str())
        {
            bins.insert(name.to_string(), PathBuf::from(exe));
        }
    }
    bins
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = Path::new(TMP).join("mcptest-fixture");
        let target_dir = Path::new(TMP).join("mcptest-fixture-target");
        lay_out(&root);
        let bins = build(&root, &target_dir, TARGETS);
        let f = Fixture {
            root,
            target_dir,
            bins,
        };
        // Accept the good target's snapshots once, so its cells pass.
        let _ = std::fs::remove_dir_all(f.root.join("tests/snapshots"));
        let out = f.run("good", &[], &[("INSTA_UPDATE", "always")]);
        assert!(out.status.success(), "{}", text(&out));
        f
    })
}

impl Fixture {
    fn command(&self, target: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = clean(Command::new(&self.bins[target]));
        cmd.current_dir(&self.root).args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    fn run(&self, target: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(target, args, env)
            .output()
            .expect("the test binary runs")
    }

    /// `--list --format terse` names.
    fn list(&self, target: &str, args: &[&str]) -> Vec<String> {
        let mut all = vec!["--list", "--format", "terse"];
        all.extend_from_slice(args);
        let out = self.run(target, &all, &[]);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .map(String::from)
            .collect()
    }
}

fn text(out: &Output) -> String {
    format!(
        "status: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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
        "weather::sacramento_once::claude-sonnet-4-5::run_1",
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
    assert_eq!(module, &good_cells()[4..9]);
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
            &["sacramento", "--skip", "stability", "--skip", "once"]
        ),
        &good_cells()[4..7]
    );
    // `--skip` of a subtree with `--exact`.
    assert_eq!(
        f.list("good", &["--exact", "--skip", "weather::sacramento"]),
        {
            let mut v = good_cells()[..4].to_vec();
            v.push(good_cells()[8]);
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
    if !nextest_available() {
        eprintln!("cargo-nextest is not installed: skipping the nextest checks");
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
    assert!(all.contains("3 tests run: 3 passed"), "{all}");
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
    let original = std::fs::read_to_string(
        Path::new(WORKSPACE).join("tests/cassettes/weather/claude-sonnet-4-5.json"),
    )
    .unwrap();
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

/// `cargo insta test`, `pending-snapshots` and `accept` on a harness target (when cargo-insta
/// is installed: `cargo install cargo-insta --locked`).
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
    if !insta(&["--version"]).status.success() {
        eprintln!("cargo-insta is not installed: skipping the cargo insta checks");
        return;
    }
    let _serial = SNAP_TARGET.lock().unwrap_or_else(|e| e.into_inner());
    let f = fixture();
    let snapshots = f.root.join("tests/snapshots");
    let snap = snapshots.join("snap__lookup__claude-sonnet-4-5__run_1.snap");
    let cassette = f
        .root
        .join("tests/cassettes/lifecycle/claude-sonnet-4-5.json");
    let original = std::fs::read_to_string(
        Path::new(WORKSPACE).join("tests/cassettes/weather/claude-sonnet-4-5.json"),
    )
    .unwrap();
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
            "holds 3 run(s), and this agent asks for runs = 5",
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

/// 10,000 cells: listing must stay well under a second, and the per-cell overhead is printed.
#[test]
fn ten_thousand_cells() {
    let f = fixture();
    let mut best = Duration::MAX;
    let mut names = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let out = f.run("scale", &["--list", "--format", "terse"], &[]);
        best = best.min(start.elapsed());
        assert!(out.status.success(), "{}", text(&out));
        names = String::from_utf8_lossy(&out.stdout).lines().count();
    }
    assert_eq!(names, 10_000);
    eprintln!("listing 10,000 cells: {best:?}");
    assert!(best < Duration::from_secs(1), "listing took {best:?}");

    let start = Instant::now();
    let out = f.run("scale", &["--test-threads", "2"], &[]);
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        &text(&out)[..2000.min(text(&out).len())]
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("10000 passed"));
    eprintln!(
        "running 10,000 cells (2 calls each): {elapsed:?}, {:?} per cell",
        elapsed / 10_000
    );

    // One cell the way nextest starts it: a process that rebuilds the plan and runs one cell.
    let start = Instant::now();
    let out = f.run(
        "scale",
        &["a042::c17::run_3", "--exact", "--nocapture"],
        &[("NEXTEST_EXECUTION_MODE", "process-per-test")],
    );
    assert!(out.status.success(), "{}", text(&out));
    eprintln!("one cell in its own process: {:?}", start.elapsed());
}

/// The same measure for 10,000 plain `#[test]` functions (slow to compile: run it with
/// `cargo test --test harness -- --ignored`).
#[test]
#[ignore]
fn ten_thousand_plain_tests_for_comparison() {
    let f = fixture();
    let bins = build(&f.root, &f.target_dir, &["plain"]);
    let bin = &bins["plain"];
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let out = clean(Command::new(bin))
            .args(["--list", "--format", "terse"])
            .output()
            .unwrap();
        best = best.min(start.elapsed());
        assert!(out.status.success());
    }
    let start = Instant::now();
    let out = clean(Command::new(bin))
        .args(["--test-threads", "2"])
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(out.status.success());
    eprintln!(
        "plain #[test] x 10,000: listing {best:?}, running {elapsed:?}, {:?} per test",
        elapsed / 10_000
    );
}
