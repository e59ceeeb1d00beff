//! From registered agents to named cells: declaration, cassette discovery, naming.
//!
//! Discovery is cheap on purpose: it lists files and never opens them. A runner that starts
//! one process per cell (nextest) rebuilds this plan in every process; parsing happens inside
//! the cells, once per cassette and process.
//!
//! Names: `<agent>::<cassette-stem>::run_<i>` for each run asked for, then
//! `<agent>::<cassette-stem>::stability` and `::reliability` when those gates are declared.
//! A problem found while planning becomes a failing cell of the agent, never a missing one:
//! `<agent>::declaration` (a mistake in the declaration, a panicking agent function, two agents
//! with one name) or `<agent>::cassettes` (no pattern, a pattern matching nothing, a bad glob,
//! two cassettes with one stem). Every name ends in a leaf segment of its own, so a name is
//! never a prefix of another.

use crate::registry::{AgentEntry, Declaration};
use mcptest_core::spec::AgentSpec;
use mcptest_core::suite::{PlannedCell, grading_plan};
use mcptest_core::trace::Cassette;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One cell: a trial name and what it does.
pub(crate) struct Cell {
    pub name: String,
    pub work: Work,
}

/// What a cell does.
pub(crate) enum Work {
    /// Fails with this message (a planning problem).
    Fail(String),
    /// Evaluates the per-run gates of run `index` (0-based).
    Run {
        cassette: Arc<AgentCassette>,
        index: usize,
    },
    /// Evaluates the stability gate across the runs.
    Stability { cassette: Arc<AgentCassette> },
    /// Evaluates the reliability gate over the runs' verdicts.
    Reliability { cassette: Arc<AgentCassette> },
}

/// One cassette file, read and parsed at most once per process.
pub(crate) struct CassetteFile {
    pub path: PathBuf,
    /// The path as shown in messages (relative to the crate root when inside it).
    pub display: String,
    text: OnceLock<Result<String, String>>,
    parsed: OnceLock<Result<Arc<Cassette>, String>>,
}

impl CassetteFile {
    fn new(path: PathBuf, display: String) -> Self {
        CassetteFile {
            path,
            display,
            text: OnceLock::new(),
            parsed: OnceLock::new(),
        }
    }

    /// The file's text (read once: the plan counts its runs, the cells parse it).
    fn text(&self) -> Result<&str, String> {
        self.text
            .get_or_init(|| {
                std::fs::read_to_string(&self.path)
                    .map_err(|e| format!("{}: cannot read the cassette: {e}", self.display))
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    /// How many runs the file holds, read without building them (zero when it cannot be read:
    /// its run cells then say why).
    pub fn recorded_runs(&self) -> usize {
        self.text().ok().and_then(Cassette::count_runs).unwrap_or(0)
    }

    /// The parsed cassette, or why it cannot be used.
    pub fn load(&self) -> Result<Arc<Cassette>, String> {
        self.parsed
            .get_or_init(|| {
                Cassette::from_json_str(&self.display, self.text()?)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }
}

/// One agent over one cassette: the cells share its per-run reports.
pub(crate) struct AgentCassette {
    pub agent: Arc<AgentSpec>,
    pub file: Arc<CassetteFile>,
    pub stem: String,
    /// `<agent>::<stem>`.
    pub prefix: String,
    pub reports: Vec<OnceLock<mcptest_core::gate::CellReport>>,
    /// Whether the cassette is still what this agent would record (checked once, shared by
    /// the agent's cells over this file).
    pub fresh: OnceLock<Result<(), String>>,
}

/// Where an agent was declared.
pub(crate) enum Source {
    /// A `#[mcptest::agent]` function.
    Rust(&'static AgentEntry),
    /// An agent of a YAML suite (one spec per model), with cassette patterns already made
    /// relative to the crate root.
    Suite {
        location: String,
        spec: Box<AgentSpec>,
    },
}

impl Source {
    fn location(&self) -> String {
        match self {
            Source::Rust(e) => e.location(),
            Source::Suite { location, .. } => location.clone(),
        }
    }
}

/// Every cell of the registered agents and suite agents, in a stable order.
///
/// `only` keeps the agents a filter can reach (the exact-name fast path); `root` is the crate
/// root that cassette patterns are relative to; `early` holds cells for problems found before
/// planning (a suite that does not load).
pub(crate) fn plan(
    entries: &[&'static AgentEntry],
    suites: Vec<(String, Source)>,
    mut early: Vec<Cell>,
    root: &Path,
    only: &dyn Fn(&str) -> bool,
) -> Vec<Cell> {
    if entries.is_empty() && suites.is_empty() && early.is_empty() {
        return vec![Cell {
            name: "mcptest::no_agents".into(),
            work: Work::Fail(
                "this test target registers no agent: declare one with #[mcptest::agent(...)] \
                 on a function in this target (or in a module it includes)"
                    .into(),
            ),
        }];
    }
    let mut by_name: BTreeMap<String, Vec<Source>> = BTreeMap::new();
    for e in entries {
        by_name.entry(e.name()).or_default().push(Source::Rust(e));
    }
    for (name, s) in suites {
        by_name.entry(name).or_default().push(s);
    }
    let mut files: BTreeMap<PathBuf, Arc<CassetteFile>> = BTreeMap::new();
    let mut globbed: std::collections::HashMap<Vec<String>, Found> =
        std::collections::HashMap::new();
    let mut cells = Vec::new();
    cells.append(&mut early);
    for (name, group) in by_name {
        if !only(&name) {
            continue;
        }
        // Several models of one suite agent share its name; anything else is a clash.
        let clash = group.len() > 1 && group.iter().any(|s| matches!(s, Source::Rust(_)));
        if clash {
            let mut places: Vec<String> = group.iter().map(|e| e.location()).collect();
            places.sort();
            cells.push(Cell {
                name: format!("{name}::declaration"),
                work: Work::Fail(format!(
                    "{} agents are named `{name}` ({}); cell names must be unique: rename or \
                     move one of the functions",
                    group.len(),
                    places.join(", ")
                )),
            });
            continue;
        }
        let mut stems: std::collections::HashSet<String> = std::collections::HashSet::new();
        for source in group {
            let spec = match source {
                Source::Rust(entry) => match declare(entry) {
                    Ok(mut spec) => {
                        spec.name = name.clone();
                        Arc::new(spec)
                    }
                    Err(problems) => {
                        cells.push(Cell {
                            name: format!("{name}::declaration"),
                            work: Work::Fail(format!(
                                "the agent declared at {} cannot be evaluated:\n  - {}",
                                entry.location(),
                                problems.join("\n  - ")
                            )),
                        });
                        continue;
                    }
                },
                Source::Suite { spec, .. } => Arc::new(*spec),
            };
            agent_cells(
                &name,
                spec,
                root,
                &mut stems,
                &mut files,
                &mut globbed,
                &mut cells,
            );
        }
    }
    cells
}

type Found = (Vec<(String, PathBuf, String)>, Vec<String>);

/// The cells of one declared spec.
fn agent_cells(
    name: &str,
    spec: Arc<AgentSpec>,
    root: &Path,
    stems: &mut std::collections::HashSet<String>,
    files: &mut BTreeMap<PathBuf, Arc<CassetteFile>>,
    globbed: &mut std::collections::HashMap<Vec<String>, Found>,
    cells: &mut Vec<Cell>,
) {
    {
        // Agents often share their patterns: list each set of patterns once.
        let (found, problems) = globbed
            .entry(spec.cassettes.clone())
            .or_insert_with(|| discover(root, &spec.cassettes))
            .clone();
        if !problems.is_empty() {
            cells.push(Cell {
                name: format!("{name}::cassettes"),
                work: Work::Fail(problems.join("\n")),
            });
        }
        for (stem, path, display) in found {
            if !stems.insert(stem.clone()) {
                cells.push(Cell {
                    name: format!("{name}::{stem}::duplicate"),
                    work: Work::Fail(format!(
                        "two cassettes of `{name}` share the stem `{stem}` ({display} is the \
                         second), and cell names use the stem: rename one"
                    )),
                });
                continue;
            }
            let file = files
                .entry(path.clone())
                .or_insert_with(|| Arc::new(CassetteFile::new(path, display)))
                .clone();
            let prefix = format!("{name}::{stem}");
            // The one grading plan: every recorded run, at least `runs`, then the gates over
            // runs (the same cells `mcptest run` grades).
            let plan = grading_plan(&spec, file.recorded_runs());
            let runs = plan
                .iter()
                .filter(|c| matches!(c, PlannedCell::Run(_)))
                .count();
            let cassette = Arc::new(AgentCassette {
                agent: spec.clone(),
                file,
                stem,
                prefix: prefix.clone(),
                reports: (0..runs).map(|_| OnceLock::new()).collect(),
                fresh: OnceLock::new(),
            });
            for planned in plan {
                let work = match planned {
                    PlannedCell::Run(index) => Work::Run {
                        cassette: cassette.clone(),
                        index,
                    },
                    PlannedCell::Stability => Work::Stability {
                        cassette: cassette.clone(),
                    },
                    PlannedCell::Reliability => Work::Reliability {
                        cassette: cassette.clone(),
                    },
                };
                cells.push(Cell {
                    name: format!("{prefix}::{}", planned.name()),
                    work,
                });
            }
        }
    }
}

/// Runs the agent function, turning a panic into a declaration problem.
fn declare(entry: &AgentEntry) -> Declaration {
    match catch_unwind(AssertUnwindSafe(entry.declare)) {
        Ok(d) => d,
        Err(payload) => Err(vec![format!(
            "the agent function panicked while building its declaration: {}",
            crate::panic_text(payload.as_ref())
        )]),
    }
}

/// The cassettes the patterns name, as `(stem, path, display)` sorted by stem, and every
/// problem found on the way.
fn discover(root: &Path, patterns: &[String]) -> (Vec<(String, PathBuf, String)>, Vec<String>) {
    let mut problems = Vec::new();
    if patterns.is_empty() {
        problems.push(
            "this agent names no cassette: add `cassettes = \"tests/cassettes/<agent>/*.json\"` \
             to #[mcptest::agent(...)] (or `.cassettes([...])` to the returned Agent)"
                .to_string(),
        );
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for pattern in patterns {
        let full = if Path::new(pattern).is_absolute() {
            pattern.clone()
        } else {
            format!(
                "{}/{pattern}",
                glob::Pattern::escape(&root.to_string_lossy())
            )
        };
        let walker = match glob::glob(&full) {
            Ok(w) => w,
            Err(e) => {
                problems.push(format!(
                    "cassette pattern `{pattern}` is not a valid glob: {} (at character {})",
                    e.msg,
                    e.pos.saturating_sub(full.len() - pattern.len()) + 1
                ));
                continue;
            }
        };
        let mut matched = 0;
        for item in walker {
            match item {
                Ok(p) if p.is_file() => {
                    matched += 1;
                    if seen.insert(p.clone()) {
                        paths.push(p);
                    }
                }
                Ok(_) => {}
                Err(e) => problems.push(format!(
                    "cassette pattern `{pattern}`: cannot read {}: {}",
                    display_path(root, e.path()),
                    e.error()
                )),
            }
        }
        if matched == 0 {
            problems.push(format!(
                "cassette pattern `{pattern}` matches no file under {} (patterns are relative to \
                 the crate root): check the path, or record the cassettes first",
                root.display()
            ));
        }
    }
    let mut found: Vec<(String, PathBuf, String)> = paths
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().replace(':', "_"))
                .unwrap_or_default();
            let display = display_path(root, &p);
            (stem, p, display)
        })
        .collect();
    found.sort();
    let mut unique: Vec<(String, PathBuf, String)> = Vec::new();
    for item in found {
        match unique.last() {
            Some(last) if last.0 == item.0 => problems.push(format!(
                "cassettes {} and {} share the stem `{}`, and cell names use the stem: rename one",
                last.2, item.2, item.0
            )),
            _ => unique.push(item),
        }
    }
    (unique, problems)
}

/// `path` relative to `root` with `/` separators when inside it, else as it is.
pub(crate) fn display_path(root: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path);
    shown
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcptest_core::spec::StabilityGate;

    fn weather() -> Declaration {
        Ok(AgentSpec::new("")
            .cassettes(["cassettes/*.json"])
            .runs(2)
            .stability(StabilityGate::default()))
    }
    fn nothing() -> Declaration {
        Ok(AgentSpec::new("").cassettes(["missing/*.json", "cassettes/a.json"]))
    }
    fn broken() -> Declaration {
        Err(vec!["`stability`: needs runs".into()])
    }
    fn panics() -> Declaration {
        panic!("boom")
    }

    fn entry(
        module: &'static str,
        function: &'static str,
        declare: fn() -> Declaration,
    ) -> &'static AgentEntry {
        Box::leak(Box::new(AgentEntry {
            module_path: module,
            function,
            file: "tests/agents.rs",
            line: 7,
            declare,
        }))
    }

    fn names(cells: &[Cell]) -> Vec<&str> {
        cells.iter().map(|c| c.name.as_str()).collect()
    }

    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("cassettes")).unwrap();
        for f in ["a.json", "b.json"] {
            std::fs::write(dir.path().join("cassettes").join(f), "{}").unwrap();
        }
        dir
    }

    #[test]
    fn names_cells_after_agent_stem_and_run() {
        let dir = fixture();
        let cells = plan(
            &[entry("agents::weather", "sacramento", weather)],
            vec![],
            vec![],
            dir.path(),
            &|_| true,
        );
        assert_eq!(
            names(&cells),
            [
                "weather::sacramento::a::run_1",
                "weather::sacramento::a::run_2",
                "weather::sacramento::a::stability",
                "weather::sacramento::b::run_1",
                "weather::sacramento::b::run_2",
                "weather::sacramento::b::stability",
            ]
        );
    }

    #[test]
    fn planning_problems_become_failing_cells() {
        let dir = fixture();
        let cells = plan(
            &[
                entry("agents", "nothing", nothing),
                entry("agents", "broken", broken),
                entry("agents", "panics", panics),
                entry("agents", "twice", weather),
                entry("agents", "twice", weather),
            ],
            vec![],
            vec![],
            dir.path(),
            &|_| true,
        );
        assert_eq!(
            names(&cells),
            [
                "broken::declaration",
                "nothing::cassettes",
                "nothing::a::run_1",
                "panics::declaration",
                "twice::declaration",
            ]
        );
        let text = |i: usize| match &cells[i].work {
            Work::Fail(m) => m.clone(),
            _ => String::new(),
        };
        assert!(text(0).contains("needs runs"));
        assert!(
            text(1).contains("`missing/*.json` matches no file"),
            "{}",
            text(1)
        );
        assert!(text(3).contains("panicked while building its declaration: boom"));
        assert!(
            text(4).contains("2 agents are named `twice` (tests/agents.rs:7, tests/agents.rs:7)")
        );
    }

    #[test]
    fn no_agent_is_a_failing_cell_and_filters_prune_agents() {
        let dir = fixture();
        assert_eq!(
            names(&plan(&[], vec![], vec![], dir.path(), &|_| true)),
            ["mcptest::no_agents"]
        );
        let cells = plan(
            &[
                entry("agents", "one", nothing),
                entry("agents", "two", nothing),
            ],
            vec![],
            vec![],
            dir.path(),
            &|n| n == "two",
        );
        assert!(names(&cells).iter().all(|n| n.starts_with("two::")));
    }

    #[test]
    fn bad_globs_and_shared_stems_are_reported() {
        let dir = fixture();
        std::fs::create_dir(dir.path().join("other")).unwrap();
        std::fs::write(dir.path().join("other/a.json"), "{}").unwrap();
        let (found, problems) = discover(
            dir.path(),
            &[
                "cassettes/[.json".into(),
                "cassettes/*.json".into(),
                "other/*.json".into(),
            ],
        );
        assert_eq!(found.len(), 2);
        assert!(problems[0].contains("is not a valid glob"), "{problems:?}");
        assert!(
            problems[1].contains("cassettes/a.json and other/a.json share the stem `a`"),
            "{problems:?}"
        );
    }
}
