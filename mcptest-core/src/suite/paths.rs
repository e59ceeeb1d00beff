//! Where a suite's cassettes live.
//!
//! An agent's cassette is `cassettes/<suite stem>/<agent slug>/<model>.json`, relative to the
//! folder of the suite file, unless the agent names `cassette:` (also relative to that folder).
//! Recording writes there and replay reads from there, so nothing has to be configured.
//!
//! The **slug** of an agent name is its lowercase form with every run of characters that are
//! not letters or digits turned into one `-`, and no `-` at either end:
//! `"Trajectory pins the call plan"` becomes `trajectory-pins-the-call-plan`,
//! `"weather: Sacramento (°F)"` becomes `weather-sacramento-f`. Letters outside ASCII are kept
//! (`"Café"` becomes `café`). A model id is used as the file name with path separators and
//! characters that Windows forbids turned into `-`.
//!
//! These functions compute paths only; they never touch the disk.
//!
//! ```
//! use mcptest_core::suite::{slug, default_cassette};
//!
//! assert_eq!(slug("Trajectory pins the call plan"), "trajectory-pins-the-call-plan");
//! assert_eq!(
//!     default_cassette("agent-stability", "weather session stays stable", "claude-sonnet-4-5"),
//!     "cassettes/agent-stability/weather-session-stays-stable/claude-sonnet-4-5.json",
//! );
//! ```

use std::path::{Path, PathBuf};

/// The folder, next to a suite file, that holds its cassettes.
pub const CASSETTE_DIR: &str = "cassettes";

/// The slug of an agent name: lowercase, every run of non-alphanumerics turned into one `-`,
/// trimmed of `-`. Empty when the name has no letter or digit.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
    }
    out
}

/// A model id made safe as a file name: `/`, `\`, `:`, `*`, `?`, `"`, `<`, `>`, `|` and
/// control characters become `-`; a name of only dots becomes `model`.
pub fn model_file_stem(model: &str) -> String {
    let s: String = model
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '-'
            } else {
                c
            }
        })
        .collect();
    let s = s.trim().to_string();
    if s.chars().all(|c| c == '.') {
        "model".into()
    } else {
        s
    }
}

/// The stem of a suite file name (`examples/agent-stability.yml` -> `agent-stability`).
pub fn suite_stem(suite_file: &str) -> String {
    let p = Path::new(suite_file);
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "suite".into())
}

/// The default cassette of an agent, relative to the suite file's folder:
/// `cassettes/<suite stem>/<agent slug>/<model>.json`, always with `/` separators (which every
/// platform accepts), so a suite loads to the same spec everywhere.
pub fn default_cassette(suite_stem: &str, agent_name: &str, model: &str) -> String {
    format!(
        "{CASSETTE_DIR}/{suite_stem}/{}/{}.json",
        slug(agent_name),
        model_file_stem(model)
    )
}

/// Resolves a cassette path written in (or computed for) a suite against the suite file's
/// location: relative paths are joined to the suite's folder, absolute paths are kept.
///
/// ```
/// use mcptest_core::suite::resolve_cassette;
/// use std::path::Path;
/// assert_eq!(
///     resolve_cassette(Path::new("examples/oracle.yml"), "cassettes/x/y/m.json"),
///     Path::new("examples/cassettes/x/y/m.json"),
/// );
/// ```
pub fn resolve_cassette(suite_file: &Path, cassette: &str) -> PathBuf {
    let c = Path::new(cassette);
    if c.is_absolute() {
        return c.to_path_buf();
    }
    match suite_file.parent() {
        Some(dir) => dir.join(c),
        None => c.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("  Weather -- Sacramento!! "), "weather-sacramento");
        assert_eq!(slug("weather: Sacramento (°F)"), "weather-sacramento-f");
        assert_eq!(slug("Café au lait"), "café-au-lait");
        assert_eq!(slug("a_b.c"), "a-b-c");
        assert_eq!(slug("!!!"), "");
    }

    #[test]
    fn model_stems() {
        assert_eq!(model_file_stem("claude-sonnet-4-5"), "claude-sonnet-4-5");
        assert_eq!(model_file_stem("org/model:v1"), "org-model-v1");
        assert_eq!(model_file_stem(".."), "model");
    }

    #[test]
    fn stems_and_resolution() {
        assert_eq!(
            suite_stem("examples/agent-stability.yml"),
            "agent-stability"
        );
        assert_eq!(suite_stem("s.yaml"), "s");
        assert_eq!(
            resolve_cassette(Path::new("s.yml"), "c.json"),
            PathBuf::from("c.json")
        );
    }
}
