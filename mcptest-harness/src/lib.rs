//! The runner behind `mcptest::main!()`: it turns every agent declared with
//! `#[mcptest::agent]` into named test cells, runs them in parallel with
//! [libtest-mimic](https://docs.rs/libtest-mimic), and keeps each cell's report as an
//! [insta](https://insta.rs) snapshot.
//!
//! Use it through the `mcptest` crate; this page says what the runner does and why.
//!
//! # Cells and names
//!
//! For each agent, each cassette its patterns match (relative to the crate root), and each run
//! it asks for (`runs = N`, default 1):
//!
//! ```text
//! weather::sacramento::claude-sonnet-4-5::run_1         every per-run gate on run 1
//! weather::sacramento::claude-sonnet-4-5::run_2
//! weather::sacramento::claude-sonnet-4-5::stability     when a stability gate is declared
//! weather::sacramento::claude-sonnet-4-5::reliability   when a reliability gate is declared
//! ```
//!
//! The agent's part is the function's module path without the test target's crate name, then
//! the function name: the path an IDE sends. Cells sort by agent, then cassette stem, then
//! run. A cassette with more runs than asked for is graded on its first N runs.
//!
//! # Filters
//!
//! Everything libtest-mimic accepts works (`--list`, `--format terse`, a substring filter,
//! `--skip`, `--exact`, `--test-threads`). One addition: `--exact` with the path of an agent,
//! a cassette (`agent::stem`) or a module runs every cell below it, which is what an IDE's
//! "Run Test" on an agent function needs (libtest alone would run nothing and pass).
//! `cargo nextest run`, including `--partition`, works at the cell level.
//!
//! # Bad input
//!
//! Nothing the user provides panics the binary or silently yields no test. Each problem is a
//! failing cell with the cause: `<agent>::declaration` (a mistake in the declaration, a
//! panicking agent function, two agents with one name), `<agent>::cassettes` (a pattern that
//! matches nothing, an invalid glob, two cassettes with one stem), and in the run cells of a
//! cassette that cannot be read or parsed (with file:line:column) or that holds fewer runs
//! than asked for. A target with no agent at all fails `mcptest::no_agents`.
//!
//! # Snapshots
//!
//! Each cell's report ([`CellReport::render`](mcptest_core::gate::CellReport::render): fixed
//! float precision, no paths, no times) is the snapshot
//! `<snapshots/ beside the target's source>/<target>__<cell, :: as __>.snap`. The usual insta
//! workflow applies: a changed report fails the cell and leaves a `.snap.new` for
//! `cargo insta review`; with `CI=true` nothing is written and a missing or changed snapshot
//! fails. A failing cell prints its failing gates and its snapshot outcome together.
//!
//! # Limitations
//!
//! - Cells that print interleave under `cargo test` (libtest-mimic does not capture output);
//!   nextest captures per process.
//! - Only one positional filter is accepted, and libtest flags libtest-mimic does not know
//!   (`--shuffle`, `--format junit`) are refused.
//! - Listing does not open cassettes, so a cassette with more runs than asked for does not
//!   grow new cells, and one with fewer shows its missing runs as failing cells.
//!
//! The registration type is public for the attribute's generated code; the one entry point is
//! [`run`]:
//!
//! ```
//! use mcptest_harness::registry::agent_name;
//! assert_eq!(agent_name("agents::weather", "sacramento"), "weather::sacramento");
//! ```
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod cell;
mod filter;
mod plan;
pub mod registry;
mod snapshot;
mod suites;

pub use snapshot::SnapshotAssertion;

/// The evaluators the harness runs.
pub use mcptest_core as core;

#[doc(hidden)]
pub use inventory;

use libtest_mimic::{Arguments, Trial};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Facts about the test target, captured where `mcptest::main!()` expands.
#[derive(Debug, Clone, Copy)]
pub struct TestTarget {
    /// `env!("CARGO_MANIFEST_DIR")`: cassette patterns are relative to it.
    pub manifest_dir: &'static str,
    /// `module_path!()`: its first segment is the test target's name.
    pub module_path: &'static str,
    /// `file!()`: snapshots live in `snapshots/` beside it.
    pub file: &'static str,
    /// YAML suite paths or globs, relative to `manifest_dir`, whose agents run next to the
    /// registered ones.
    pub suites: &'static [&'static str],
}

/// Runs every registered agent's cells with the command-line arguments of this process and
/// returns the exit code (`ExitCode` rather than `process::exit`, so destructors run).
pub fn run(target: TestTarget, assertion: SnapshotAssertion) -> ExitCode {
    let root = PathBuf::from(target.manifest_dir);
    pin_insta_workspace(&root);
    let mut args = Arguments::from_args();
    snapshot::install_quiet_hook();

    let exact_filter = args.filter.clone().filter(|_| args.exact);
    let only = move |name: &str| {
        exact_filter
            .as_deref()
            .is_none_or(|x| filter::may_reach(name, x))
    };
    let (suite_agents, suite_problems) = suites::load(&root, target.suites);
    let cells = plan::plan(
        &registry::registered(),
        suite_agents,
        suite_problems,
        &root,
        &only,
    );

    let snapshots = Arc::new(snapshot::Snapshots {
        dir: snapshot::folder(&root, target.file),
        prefix: target
            .module_path
            .split("::")
            .next()
            .unwrap_or("mcptest")
            .to_string(),
        root,
        assertion,
    });
    let names: Vec<String> = cells.iter().map(|c| c.name.clone()).collect();
    let keep = filter::expand_exact(&mut args, &names);
    let trials = cells
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.as_ref().is_none_or(|k| k[*i]))
        .map(|(_, c)| {
            let snapshots = snapshots.clone();
            Trial::test(c.name, move || {
                cell::run(&c.work, &snapshots).map_err(libtest_mimic::Failed::from)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// Under nextest every cell is its own process, and insta would start `cargo metadata` in
/// each one to find the workspace root; naming it once here saves that. cargo-insta sets the
/// variable itself, and a value the user set wins.
#[allow(unsafe_code)]
fn pin_insta_workspace(root: &std::path::Path) {
    if std::env::var_os("NEXTEST_EXECUTION_MODE").is_none()
        || std::env::var_os("INSTA_WORKSPACE_ROOT").is_some()
    {
        return;
    }
    let workspace = snapshot::workspace_root(root);
    // SAFETY: called first thing in `run`, which `main` calls before anything else: no other
    // thread exists yet that could read the environment concurrently.
    unsafe { std::env::set_var("INSTA_WORKSPACE_ROOT", workspace) };
}

/// The text of a panic payload.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}
