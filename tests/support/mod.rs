//! The fixture crate (`tests/fixture/`) laid out in a temporary directory and built against
//! this workspace's crates, shared by `tests/harness.rs` and `benches/cells.rs`.
//!
//! The fixture has its own target directory, shared by every run, so only the first build on
//! a machine compiles the dependencies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// Test targets of the fixture built for every test (the `plain` comparison is built on demand).
pub const TARGETS: &[&str] = &["good", "snap", "bad", "empty", "scale", "suites"];

pub struct Fixture {
    pub root: PathBuf,
    pub target_dir: PathBuf,
    pub bins: BTreeMap<String, PathBuf>,
}

pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Writes `contents` to `path` unless it already holds exactly that (keeps mtimes, so cargo
/// does not rebuild an unchanged fixture).
pub fn write(path: &Path, contents: impl AsRef<[u8]>) {
    if std::fs::read(path).ok().as_deref() == Some(contents.as_ref()) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

pub fn copy(from: &str, to: &Path) {
    write(to, std::fs::read(Path::new(WORKSPACE).join(from)).unwrap());
}

/// A command with no test-runner or snapshot settings inherited from the outer run.
pub fn clean(mut cmd: Command) -> Command {
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

pub fn lay_out(root: &Path) {
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

/// Builds the given test targets of the fixture at `root`; returns their executables by name.
pub fn build(root: &Path, target_dir: &Path, targets: &[&str]) -> BTreeMap<String, PathBuf> {
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

/// The fixture with every target in [`TARGETS`] built and the `good` target's snapshots
/// accepted, so its cells pass. Built once per process.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let f = Fixture::new(TARGETS);
        let _ = std::fs::remove_dir_all(f.root.join("tests/snapshots"));
        let out = f.run("good", &[], &[("INSTA_UPDATE", "always")]);
        assert!(out.status.success(), "{}", text(&out));
        f
    })
}

impl Fixture {
    /// Lays the fixture out in this target's temporary directory and builds `targets`.
    pub fn new(targets: &[&str]) -> Fixture {
        let root = Path::new(TMP).join("mcptest-fixture");
        let target_dir = Path::new(TMP).join("mcptest-fixture-target");
        lay_out(&root);
        let bins = build(&root, &target_dir, targets);
        Fixture {
            root,
            target_dir,
            bins,
        }
    }

    pub fn command(&self, target: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = clean(Command::new(&self.bins[target]));
        cmd.current_dir(&self.root).args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, target: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(target, args, env)
            .output()
            .expect("the test binary runs")
    }

    /// `--list --format terse` names.
    pub fn list(&self, target: &str, args: &[&str]) -> Vec<String> {
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

/// A finished process's status and output, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "status: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
