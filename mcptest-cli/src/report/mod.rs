//! What a replay found, and the three ways to print it.

pub mod json;
pub mod junit;
pub mod pretty;

use mcptest_core::gate::{CellReport, Outcome};
use mcptest_core::suite::SuiteError;

/// Everything one `mcptest run` found.
#[derive(Debug, Default)]
pub struct Report {
    /// One entry per `--config` file, in the order given.
    pub suites: Vec<SuiteReport>,
}

/// One suite file.
#[derive(Debug)]
pub struct SuiteReport {
    /// The path as given.
    pub file: String,
    /// Its stem (names the cassette folder and the JUnit classname).
    pub stem: String,
    /// The (agent, model) pairs that ran, in suite order.
    pub agents: Vec<AgentReport>,
    /// Why the suite did not load, when it did not.
    pub load_error: Option<SuiteError>,
}

/// One (agent, model) pair.
#[derive(Debug)]
pub struct AgentReport {
    /// The agent's name.
    pub name: String,
    /// The model.
    pub model: String,
    /// The cassette path, as resolved.
    pub cassette: String,
    /// Its cells, or why it could not be graded.
    pub outcome: AgentOutcome,
    /// Wall time spent reading and grading it.
    pub seconds: f64,
}

/// Graded cells, or an infrastructure error.
#[derive(Debug)]
pub enum AgentOutcome {
    /// The cells, in order (`run_1`..., `stability`, `reliability`).
    Graded(Vec<CellReport>),
    /// The cassette is missing or malformed: what happened and what to do.
    Error(String),
}

/// The verdict of an (agent, model) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every cell passed.
    Pass,
    /// A gate failed.
    Fail,
    /// It could not be graded.
    Error,
}

impl Status {
    /// `pass`, `fail`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

impl AgentReport {
    /// `name [model]`.
    pub fn label(&self) -> String {
        format!("{} [{}]", self.name, self.model)
    }

    /// The pair's verdict.
    pub fn status(&self) -> Status {
        match &self.outcome {
            AgentOutcome::Error(_) => Status::Error,
            AgentOutcome::Graded(cells) if cells.iter().all(CellReport::passed) => Status::Pass,
            AgentOutcome::Graded(_) => Status::Fail,
        }
    }

    /// The graded cells (none for an error).
    pub fn cells(&self) -> &[CellReport] {
        match &self.outcome {
            AgentOutcome::Graded(c) => c,
            AgentOutcome::Error(_) => &[],
        }
    }
}

/// Counts over a report.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// (agent, model) pairs.
    pub agents: usize,
    /// Pairs whose every cell passed.
    pub passed: usize,
    /// Pairs with a failing cell.
    pub failed: usize,
    /// Pairs that could not be graded, plus suites that did not load.
    pub errors: usize,
    /// Cells graded.
    pub cells: usize,
    /// Cells that failed.
    pub cells_failed: usize,
    /// Cells that neither failed nor decided (a pass-rate gate the runs cannot settle).
    pub cells_inconclusive: usize,
}

/// An (agent, model) pair whose runs disagree: some pass every per-run gate, some do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flaky {
    /// `name [model]`.
    pub label: String,
    /// The suite file.
    pub file: String,
    /// Runs that passed.
    pub passed: usize,
    /// Runs graded.
    pub runs: usize,
    /// The failing runs' cell names.
    pub failing: Vec<String>,
}

impl Report {
    /// The counts.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for s in &self.suites {
            if s.load_error.is_some() {
                c.errors += 1;
            }
            for a in &s.agents {
                c.agents += 1;
                match a.status() {
                    Status::Pass => c.passed += 1,
                    Status::Fail => c.failed += 1,
                    Status::Error => c.errors += 1,
                }
                c.cells += a.cells().len();
                c.cells_failed += a.cells().iter().filter(|x| !x.passed()).count();
                c.cells_inconclusive += a
                    .cells()
                    .iter()
                    .filter(|x| x.outcome() == Outcome::Inconclusive)
                    .count();
            }
        }
        c
    }

    /// The pairs whose recorded runs both pass and fail, in report order.
    pub fn flaky(&self) -> Vec<Flaky> {
        let mut out = Vec::new();
        for s in &self.suites {
            for a in &s.agents {
                let runs: Vec<&CellReport> = a
                    .cells()
                    .iter()
                    .filter(|c| c.cell.starts_with("run_"))
                    .collect();
                let passed = runs.iter().filter(|c| c.passed()).count();
                if passed > 0 && passed < runs.len() {
                    out.push(Flaky {
                        label: a.label(),
                        file: s.file.clone(),
                        passed,
                        runs: runs.len(),
                        failing: runs
                            .iter()
                            .filter(|c| !c.passed())
                            .map(|c| c.cell.clone())
                            .collect(),
                    });
                }
            }
        }
        out
    }

    /// 2 on any load or infrastructure error, else 1 on any failed cell, else 0.
    pub fn exit_code(&self) -> u8 {
        let c = self.counts();
        if c.errors > 0 {
            2
        } else if c.failed > 0 {
            1
        } else {
            0
        }
    }

    /// `6 agent(s): 4 passed, 1 failed, 1 error(s); 20 cell(s), 2 failed` (and
    /// `, 1 inconclusive` when a cell is).
    pub fn summary_line(&self) -> String {
        let c = self.counts();
        let inconclusive = if c.cells_inconclusive > 0 {
            format!(", {} inconclusive", c.cells_inconclusive)
        } else {
            String::new()
        };
        format!(
            "{} agent(s): {} passed, {} failed, {} error(s); {} cell(s), {} failed{inconclusive}",
            c.agents, c.passed, c.failed, c.errors, c.cells, c.cells_failed
        )
    }
}
