//! The readable report: one line per (agent, model) pair, then its cells and their gate rows.
//!
//! ```text
//! examples/offline-trace-validation.yml
//!   PASS  trajectory pins the call plan [claude-sonnet-4-5]  (3 runs)
//!         run_1  PASS
//!                PASS trajectory: subsequence, 1 reference call(s), 0 mismatch(es), score 1.000 (precision 1.000, recall 1.000)
//!                PASS golden_path: penalty 1.000 (extra_steps 0, backtracks 0, repeated_tools 0)
//! ```
//!
//! Details (mismatches, edit scripts, diffs, reasons) are printed under failing, advisory and
//! inconclusive rows only. After the summary line, the pairs whose runs disagree (some pass,
//! some fail) are listed as flaky.

use super::{AgentOutcome, Report, Status};
use std::fmt::Write as _;

struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn status(&self, s: &str) -> String {
        match s {
            "PASS" => self.wrap("32", s),
            "FAIL" => self.wrap("31;1", s),
            "ERROR" => self.wrap("33;1", s),
            _ => self.wrap("33", s),
        }
    }
    fn bold(&self, s: &str) -> String {
        self.wrap("1", s)
    }
    fn dim(&self, s: &str) -> String {
        self.wrap("2", s)
    }
}

/// Renders the report; `color` adds ANSI colours.
pub fn render(report: &Report, color: bool) -> String {
    let p = Paint(color);
    let mut out = String::new();
    for s in &report.suites {
        let _ = writeln!(out, "{}", p.bold(&s.file));
        if let Some(e) = &s.load_error {
            let _ = writeln!(
                out,
                "  {}  the suite did not load ({} problem(s); see the errors above)",
                p.status("ERROR"),
                e.problems.len()
            );
        }
        for a in &s.agents {
            let status = match a.status() {
                Status::Pass => "PASS",
                Status::Fail => "FAIL",
                Status::Error => "ERROR",
            };
            let runs = a
                .cells()
                .iter()
                .filter(|c| c.cell.starts_with("run_"))
                .count();
            let extra = match &a.outcome {
                AgentOutcome::Graded(_) => format!("  ({runs} run(s))"),
                AgentOutcome::Error(_) => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:<5}  {}{}",
                p.status(status),
                p.bold(&a.label()),
                p.dim(&extra)
            );
            match &a.outcome {
                AgentOutcome::Error(msg) => {
                    for line in msg.lines() {
                        let _ = writeln!(out, "         {line}");
                    }
                }
                AgentOutcome::Graded(cells) => {
                    for c in cells {
                        let v = c.outcome().label();
                        let note = if c.gates.is_empty() {
                            p.dim("  (no per-run gate declared)")
                        } else {
                            String::new()
                        };
                        let _ = writeln!(out, "         {:<11} {}{note}", c.cell, p.status(v));
                        for g in &c.gates {
                            let tag = match (g.passed, g.advisory, g.inconclusive) {
                                (true, false, true) => p.status("INCONCLUSIVE"),
                                (false, false, true) => p.status("FAIL (inconclusive)"),
                                (true, false, false) => p.status("PASS"),
                                (false, false, false) => p.status("FAIL"),
                                (true, true, _) => p.status("pass (advisory)"),
                                (false, true, _) => p.status("fail (advisory)"),
                            };
                            let _ = writeln!(out, "           {tag} {}: {}", g.gate, g.summary);
                            if !g.passed || g.advisory || g.inconclusive {
                                for d in &g.details {
                                    for line in d.lines() {
                                        let _ = writeln!(out, "                {line}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let _ = writeln!(out);
    }
    let code = report.exit_code();
    let verdict = match code {
        0 => p.status("PASS"),
        1 => p.status("FAIL"),
        _ => p.status("ERROR"),
    };
    let _ = writeln!(out, "{verdict}  {}", report.summary_line());
    let flaky = report.flaky();
    if !flaky.is_empty() {
        let _ = writeln!(
            out,
            "{}  {} agent(s) pass some runs and fail others:",
            p.status("FLAKY"),
            flaky.len()
        );
        for f in &flaky {
            let _ = writeln!(
                out,
                "         {} ({}): {} of {} run(s) passed; failing: {}",
                f.label,
                f.file,
                f.passed,
                f.runs,
                f.failing.join(", ")
            );
        }
    }
    out
}
