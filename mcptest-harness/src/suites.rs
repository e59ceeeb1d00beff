//! YAML suites under the same harness: `mcptest::main!(suites = "tests/suites/*.yml")`.
//!
//! A suite agent is named `<suite stem>::<agent slug>`, and its cells follow the Rust agents'
//! rule: `<suite stem>::<agent slug>::<cassette stem>::run_<i>`, where the cassette stem is
//! the model's file stem for the default cassette path. Suites are small and their agents'
//! names come from inside them, so they are parsed while planning; a suite that does not load
//! is a failing `<suite stem>::suite` cell with the loader's `file:line:column` message.

use crate::plan::{Cell, Source, Work, display_path};
use mcptest_core::suite::{Suite, resolve_cassette, slug, suite_stem};
use std::path::Path;

/// The agents of every suite the patterns match, and cells for the suites that failed.
pub(crate) fn load(root: &Path, patterns: &[&str]) -> (Vec<(String, Source)>, Vec<Cell>) {
    let mut agents = Vec::new();
    let mut failed = Vec::new();
    for pattern in patterns {
        let full = format!(
            "{}/{pattern}",
            glob::Pattern::escape(&root.to_string_lossy())
        );
        let files: Vec<_> = match glob::glob(&full) {
            Ok(walk) => walk
                .filter_map(Result::ok)
                .filter(|p| p.is_file())
                .collect(),
            Err(e) => {
                failed.push(Cell {
                    name: "mcptest::suites".into(),
                    work: Work::Fail(format!(
                        "suite pattern `{pattern}` is not a valid glob: {}",
                        e.msg
                    )),
                });
                continue;
            }
        };
        if files.is_empty() {
            failed.push(Cell {
                name: "mcptest::suites".into(),
                work: Work::Fail(format!(
                    "suite pattern `{pattern}` matches no file under {} (patterns are relative \
                     to the crate root)",
                    root.display()
                )),
            });
        }
        for file in files {
            let shown = display_path(root, &file);
            let stem = suite_stem(&shown);
            let suite = std::fs::read_to_string(&file)
                .map_err(|e| format!("{shown}: cannot read the suite: {e}"))
                .and_then(|text| Suite::from_yaml_str(&shown, &text).map_err(|e| e.to_string()));
            match suite {
                Ok(suite) => {
                    for mut spec in suite.agents {
                        let name = format!("{stem}::{}", slug(&spec.name));
                        spec.cassettes = spec
                            .cassettes
                            .iter()
                            .map(|c| {
                                let path = resolve_cassette(&file, c);
                                glob::Pattern::escape(&display_path(root, &path))
                            })
                            .collect();
                        let location = shown.clone();
                        let spec = Box::new(spec);
                        agents.push((name, Source::Suite { location, spec }));
                    }
                }
                Err(message) => failed.push(Cell {
                    name: format!("{stem}::suite"),
                    work: Work::Fail(message),
                }),
            }
        }
    }
    (agents, failed)
}
