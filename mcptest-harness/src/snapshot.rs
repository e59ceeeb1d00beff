//! Each cell's report as an insta snapshot.
//!
//! The decisions, each one measured:
//! - The assertion itself (`insta::assert_snapshot!`) is expanded in the user's test target by
//!   `mcptest::main!()` and handed over as a function pointer: insta resolves the workspace from
//!   the crate that expands it, and from here it would resolve to mcptest's own directory.
//! - Names are explicit and built from the cell name (`::` becomes `__`, anything outside
//!   `[A-Za-z0-9._-]` becomes `_`), prefixed with the test target's name: stable across runs,
//!   threads and processes, and valid file names everywhere.
//! - Settings are per thread in insta, so every assertion binds its own: an absolute snapshot
//!   folder (`snapshots/` beside the test target's source file), no module prefix, no
//!   expression, the cell name as description and the cassette as input file.
//! - Assertions are serialized: insta prints a diff box before failing, and boxes of parallel
//!   cells would interleave. insta's own panic is caught and kept quiet; the cell reports the
//!   outcome in its own words, next to any failing gate.

use std::cell::Cell as ThreadFlag;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The snapshot assertion `mcptest::main!()` expands in the user's crate:
/// `|name, contents| insta::assert_snapshot!(name, contents)`.
pub type SnapshotAssertion = fn(name: &str, contents: &str);

thread_local! {
    /// Set while an insta assertion runs on this thread: its panic is expected and reported
    /// by the cell, so the panic hook stays quiet.
    static QUIET: ThreadFlag<bool> = const { ThreadFlag::new(false) };
}

static SERIAL: Mutex<()> = Mutex::new(());
static HOOK: Once = Once::new();

/// Installs (once) a panic hook that stays quiet for expected snapshot panics and defers to
/// the previous hook for everything else.
pub(crate) fn install_quiet_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(ThreadFlag::get) {
                previous(info);
            }
        }));
    });
}

struct QuietGuard;

impl QuietGuard {
    fn new() -> Self {
        QUIET.with(|q| q.set(true));
        QuietGuard
    }
}

impl Drop for QuietGuard {
    fn drop(&mut self) {
        QUIET.with(|q| q.set(false));
    }
}

/// Where and how a test target keeps its snapshots.
pub(crate) struct Snapshots {
    /// The absolute `snapshots/` folder.
    pub dir: PathBuf,
    /// The test target's name, the first part of every snapshot name.
    pub prefix: String,
    /// The crate root, for messages.
    pub root: PathBuf,
    pub assertion: SnapshotAssertion,
}

impl Snapshots {
    /// The snapshot name of a cell.
    pub fn name(&self, cell: &str) -> String {
        format!("{}__{}", self.prefix, sanitize(cell))
    }

    /// Asserts `contents` as the snapshot of `cell`; `Err` says what differs and what to do.
    pub fn check(&self, cell: &str, contents: &str, input: &Path) -> Result<(), String> {
        let name = self.name(cell);
        let file = self.dir.join(format!("{name}.snap"));
        let existed = file.is_file();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&self.dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(cell);
        settings.set_input_file(input);
        let outcome = {
            let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
            let _quiet = QuietGuard::new();
            catch_unwind(AssertUnwindSafe(|| {
                settings.bind(|| (self.assertion)(&name, contents))
            }))
        };
        if outcome.is_ok() {
            return Ok(());
        }
        let shown = crate::plan::display_path(&self.root, &file);
        let what = if existed {
            format!("snapshot {shown} does not match this report")
        } else {
            format!("snapshot {shown} does not exist yet")
        };
        let next = if writes_nothing() {
            "nothing was written (CI mode or INSTA_UPDATE=no): run `cargo insta test --review` \
             locally and commit the accepted snapshot"
                .to_string()
        } else {
            "the new report is pending as a .snap.new file: review it with `cargo insta review` \
             (or accept every pending snapshot with `cargo insta accept`)"
                .to_string()
        };
        Err(format!("{what}; {next}"))
    }
}

/// True when insta writes no pending file on a mismatch.
fn writes_nothing() -> bool {
    let update = std::env::var("INSTA_UPDATE").unwrap_or_default();
    match update.as_str() {
        "no" => true,
        "" | "auto" => is_ci(),
        _ => false,
    }
}

/// insta's CI detection: `CI` set to anything but "", "0" or "false" (or `TF_BUILD` set).
fn is_ci() -> bool {
    match std::env::var("CI").ok().as_deref() {
        Some("false" | "0" | "") => false,
        None => std::env::var_os("TF_BUILD").is_some(),
        Some(_) => true,
    }
}

/// A cell name as a file-name-safe snapshot name.
pub(crate) fn sanitize(cell: &str) -> String {
    cell.replace("::", "__")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `snapshots/` folder beside the test target's source file.
///
/// `file` is `file!()` of the `mcptest::main!()` call, relative to the directory cargo ran
/// rustc in: the crate root or a workspace root above it. The first ancestor of the crate
/// root that holds `file` wins; `tests/` of the crate root otherwise.
pub(crate) fn folder(root: &Path, file: &str) -> PathBuf {
    let file = Path::new(file);
    let source = if file.is_absolute() {
        Some(file.to_path_buf())
    } else {
        root.ancestors()
            .map(|a| a.join(file))
            .find(|candidate| candidate.is_file())
    };
    match source.as_deref().and_then(Path::parent) {
        Some(dir) => dir.join("snapshots"),
        None => root.join("tests").join("snapshots"),
    }
}

/// The workspace root insta would find with `cargo metadata`: the nearest ancestor whose
/// `Cargo.toml` has a `[workspace]` table, else the crate root.
pub(crate) fn workspace_root(root: &Path) -> PathBuf {
    root.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .map(|t| {
                    t.lines().any(|l| {
                        let l = l.trim();
                        l == "[workspace]" || l.starts_with("[workspace.")
                    })
                })
                .unwrap_or(false)
        })
        .unwrap_or(root)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_file_safe() {
        assert_eq!(
            sanitize("weather::sacramento::claude-sonnet-4.5::run_1"),
            "weather__sacramento__claude-sonnet-4.5__run_1"
        );
        assert_eq!(
            sanitize("a::my cassette/x::run_1"),
            "a__my_cassette_x__run_1"
        );
    }

    #[test]
    fn folder_is_beside_the_target_source() {
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().join("crates/app");
        std::fs::create_dir_all(krate.join("tests")).unwrap();
        std::fs::write(krate.join("tests/agents.rs"), "").unwrap();
        assert_eq!(
            folder(&krate, "tests/agents.rs"),
            krate.join("tests/snapshots")
        );
        assert_eq!(
            folder(&krate, "crates/app/tests/agents.rs"),
            krate.join("tests/snapshots")
        );
        assert_eq!(folder(&krate, "gone.rs"), krate.join("tests/snapshots"));
    }

    #[test]
    fn workspace_root_is_the_nearest_workspace_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().join("crates/app");
        std::fs::create_dir_all(&krate).unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        std::fs::write(krate.join("Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(workspace_root(&krate), dir.path());
    }
}
