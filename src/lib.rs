//! # mcptest
//!
//! Grade recorded AI-agent runs against MCP servers, deterministically, inside `cargo test`.
//!
//! An agent run is recorded once (a real model, real MCP servers) into a **cassette** (JSON).
//! Every later check reads the cassette with no model in the loop, so CI is offline, free and
//! byte-stable: did the agent call the right tools with the right argument shapes in the right
//! order, did it waste steps, did data flow in order, did its closing story match what it did,
//! and do repeated runs agree.
//!
//! ## The loop
//!
//! 1. Add the dependency and a test target that mcptest runs (`harness = false`). mcptest is
//!    not on crates.io (the names there belong to another project): depend on a clone of its
//!    repository by path, or by git:
//!
//!    ```toml
//!    [dev-dependencies]
//!    mcptest = { path = "../mcptest" }  # or { git = "https://github.com/mcptest/mcptest" }
//!
//!    [[test]]
//!    name = "agents"
//!    harness = false
//!    ```
//!
//! 2. Declare agents in `tests/agents.rs`, over cassettes under `tests/cassettes/`, and end
//!    the file with `mcptest::main!();`:
//!
//!    ```no_run
//!    use mcptest::prelude::*;
//!
//!    /// Looks up the weather once, in the right city.
//!    #[mcptest::agent(
//!        cassettes = "tests/cassettes/weather/*.json",
//!        runs = 3,
//!        trajectory(subsequence, [get_weather(subset = {"city": "Sacramento"})]),
//!        golden_path([get_weather], allow_extra_steps),
//!        stability(weakest_score >= 0.5),
//!        expect("tool_results[0].is_error", exact(false)),
//!    )]
//!    fn sacramento() {}
//!
//!    /// The same kind of declaration with the builder, for what the attribute cannot say.
//!    #[mcptest::agent(cassettes = "tests/cassettes/triage/*.json")]
//!    fn triage() -> Agent {
//!        Agent::new()
//!            .trajectory(Trajectory::superset([
//!                call("add_label").args_subset(json!({"label": "flaky-test"})),
//!            ]))
//!            .narrative(Narrative::default().max_claimed_but_absent(0))
//!    }
//!
//!    mcptest::main!();
//!    ```
//!
//! 3. `cargo test --test agents` runs one cell per cassette run:
//!    `sacramento::claude-sonnet-4-5::run_1` ... `::run_3`, then `::stability`. A failing cell
//!    prints which gate failed, the expected and recorded calls, JSON-pointer diffs and the
//!    reason. Each cell's report is also an [insta](https://insta.rs) snapshot in
//!    `tests/snapshots/`: when a re-recorded cassette changes a report, the cell fails and
//!    `cargo insta review` shows the change to accept or reject. With `CI=true` nothing is
//!    written and a missing or changed snapshot fails.
//!
//! 4. "Run Test" on an agent function in an IDE runs
//!    `cargo test --test agents -- sacramento --exact`, which runs every cell of that agent;
//!    `cargo nextest run` (including `--partition`) runs the cells as tests too.
//!
//! ## What to declare
//!
//! | gate | attribute | builder |
//! |---|---|---|
//! | call plan | `trajectory(subsequence, [search(subset = {"q": "rust"}), open])` | [`.trajectory(Trajectory::subsequence([call("search").args_subset(json!(..)), call("open")]))`](prelude::Agent::trajectory) |
//! | waste | `golden_path([search, open], allow_extra_steps)` | [`.golden_path(GoldenPath::new([..]).allow_extra_steps(true))`](prelude::Agent::golden_path) |
//! | data flow | `axes(dependencies = [search -> open])` | [`.axes(Axes::default().dependency("search", "open"))`](prelude::Agent::axes) |
//! | runs agree | `stability(score >= 0.7, variance <= 0.05)` | [`.stability(Stability::default().min_score(0.7).max_variance(0.05))`](prelude::Agent::stability) |
//! | honest story | `narrative(mutating_tools = [run_job], max_divergence_score = 0.25)` | [`.narrative(Narrative::default()..)`](prelude::Agent::narrative) |
//! | recovery | `inject(..)`, `recovery(max_detection_ms = 3000)` | [`.inject(Fault::hang(..))`](prelude::Agent::inject), [`.recovery(Recovery::new(3000))`](prelude::Agent::recovery) |
//! | verdicts add up | `reliability(passhat_k >= 100)` | [`.reliability(Reliability::default().min_passhat_k(100))`](prelude::Agent::reliability) |
//! | anything else | `expect("tool_calls[0].args.city", exact("Sacramento"))` | [`.expect("..", exact(..))`](prelude::Agent::expect) |
//!
//! Both build the same [`AgentSpec`](core::spec::AgentSpec), the model YAML suites load too.
//! Narration (`final_response`, turn text) never decides a verdict: a gating assertion on it
//! is a compile error (or, from the builder, a failing `declaration` cell); add `advisory`.
//!
//! The builder on its own, evaluated by hand:
//!
//! ```
//! use mcptest::core::gate::evaluate_run;
//! use mcptest::core::trace::Cassette;
//! use mcptest::prelude::*;
//!
//! let cassette = Cassette::from_json_str("run.json", r#"{"tool_calls": [
//!     {"name": "docs__search", "args": {"q": "pinning"}},
//!     {"name": "docs__open", "args": {"url": "https://rust-lang.github.io/async-book/"}}
//! ]}"#)?;
//! let spec = Agent::new()
//!     .trajectory(Trajectory::strict([
//!         call("search").args_subset(json!({"q": "pinning"})),
//!         call("open"),
//!     ]))
//!     .golden_path(["search", "open"])
//!     .expect("tool_calls[1].args.url", regex("^https://"))
//!     .into_spec("docs")?;
//! let report = evaluate_run(&spec, "run_1", &cassette.runs[0]);
//! assert!(report.passed(), "{}", report.render());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The evaluators themselves are in [`core`] (`mcptest-core`), pure functions with no I/O.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod agent;
pub mod gates;
pub mod matchers;

pub use mcptest_core as core;

/// The fault-injecting mock MCP server (feature `mock`): start it in-process or as a child
/// process to test an agent's recovery against a dead-but-connected tool.
#[cfg(feature = "mock")]
pub use mcptest_mock as mock;

/// Declares an agent for the harness behind [`main!`]: see the grammar below and the crate
/// documentation for the loop.
///
/// Every mistake is a compile error at the offending token, with a hint:
///
/// ```compile_fail
/// #[mcptest::agent(cassettes = "tests/cassettes/*.json", trajectory(subsequnce, [search]))]
/// fn search() {} // error: unknown match mode `subsequnce`; did you mean `subsequence`? ...
/// # fn main() {}
/// ```
pub use mcptest_macros::agent;

/// Everything needed to declare agents: `use mcptest::prelude::*;`.
pub mod prelude {
    pub use crate::agent::{Agent, DeclarationError};
    pub use crate::gates::{
        Axes, Call, Fault, GoldenPath, GoldenPathExt, IntoGoldenPath, Narrative, Recovery,
        Reliability, Stability, Trajectory, call,
    };
    pub use crate::matchers::{all, any, contains, exact, not, regex, schema};
    pub use mcptest_core::eval::MatchMode;
    pub use mcptest_core::matchers::Matcher;
    pub use serde_json::json;
}

/// The `main` of a `harness = false` test target: runs every agent declared with
/// [`#[mcptest::agent]`](agent) in the target, one test cell per cassette run, with the
/// standard test-runner command line (filters, `--exact`, `--skip`, `--list`,
/// `--test-threads`, nextest).
///
/// ```no_run
/// #[mcptest::agent(cassettes = "tests/cassettes/weather/*.json")]
/// fn weather() {}
///
/// mcptest::main!();
/// ```
///
/// `mcptest::main!(suites = "tests/suites/*.yml")` (or a list of patterns) also runs the
/// agents of YAML suites, with cells named `<suite stem>::<agent slug>::<model>::run_<i>`.
///
/// It expands the snapshot assertion here, in the test target, so insta finds the right
/// crate and writes snapshots to `snapshots/` beside this file.
#[macro_export]
macro_rules! main {
    () => {
        $crate::main!(@suites []);
    };
    (suites = [$($suite:literal),* $(,)?] $(,)?) => {
        $crate::main!(@suites [$($suite),*]);
    };
    (suites = $suite:literal $(,)?) => {
        $crate::main!(@suites [$suite]);
    };
    (@suites [$($suite:literal),*]) => {
        fn main() -> ::std::process::ExitCode {
            $crate::__private::run(
                $crate::__private::TestTarget {
                    manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                    module_path: ::core::module_path!(),
                    file: ::core::file!(),
                    suites: &[$($suite),*],
                },
                |name: &str, contents: &str| {
                    $crate::__private::insta::assert_snapshot!(name, contents);
                },
            )
        }
    };
}

/// Support for the generated code of [`agent`] and [`main!`]; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::agent::Agent;
    pub use insta;
    pub use mcptest_harness::inventory;
    pub use mcptest_harness::registry::{AgentEntry, Declaration, registered};
    pub use mcptest_harness::{TestTarget, run};
    pub use serde_json;

    use mcptest_core::matchers::{Matcher, ModelGradedKind};

    /// The attribute's declarations merged with the returned builder's, as a spec.
    pub fn declare(attribute: Agent, returned: Agent) -> Declaration {
        attribute
            .merge(returned)
            .into_spec("")
            .map_err(|e| e.problems)
    }

    /// What an agent function may return.
    #[diagnostic::on_unimplemented(
        message = "an agent function returns `mcptest::prelude::Agent` or nothing, not `{Self}`",
        label = "this return type",
        note = "write `fn name() -> Agent {{ Agent::new()... }}`, or give the function an empty \
                body and declare everything in #[mcptest::agent(...)]"
    )]
    pub trait AgentReturn {
        /// The builder (empty for `()`).
        fn into_agent(self) -> Agent;
    }

    impl AgentReturn for Agent {
        fn into_agent(self) -> Agent {
            self
        }
    }

    impl AgentReturn for () {
        fn into_agent(self) -> Agent {
            Agent::new()
        }
    }

    /// A model-graded matcher (advisory assertions only).
    pub fn model_graded(key: &str, config: serde_json::Value) -> Matcher {
        let kind = match key {
            "llm-judge" => ModelGradedKind::LlmJudge,
            "llm-jury" => ModelGradedKind::LlmJury,
            _ => ModelGradedKind::Similar,
        };
        Matcher::ModelGraded { kind, config }
    }
}
