//! The JSON report: one document, stable in shape and free of times and absolute paths, so
//! two replays of the same cassettes print the same bytes.
//!
//! ```json
//! {
//!   "mcptest_report": 1,
//!   "exit_code": 1,
//!   "summary": {"agents": 2, "passed": 1, "failed": 1, "errors": 0, "cells": 4, "cells_failed": 1,
//!               "cells_inconclusive": 0},
//!   "flaky": [],                     // {"agent", "file", "passed", "runs", "failing": [cells]}
//!   "suites": [{
//!     "file": "examples/failing-on-purpose.yml",
//!     "load_error": null,
//!     "agents": [{
//!       "name": "books a flight it never searched", "model": "claude-sonnet-4-5",
//!       "cassette": "examples/cassettes/...json",
//!       "status": "fail",            // pass | fail | error
//!       "error": null,               // the message when status is error
//!       "cells": [{
//!         "cell": "run_1", "passed": false, "outcome": "fail",   // pass | fail | inconclusive
//!         "calls": ["book_flight {\"to\":\"SFO\"}"],
//!         "gates": [{"gate": "trajectory", "passed": false, "advisory": false,
//!                    "summary": "...", "details": ["..."]}],
//!         "metrics": {"trajectory": {"passed": 0, "mismatch_count": 1, "score": 0.0, ...}}
//!       }]
//!     }]
//!   }]
//! }
//! ```
//!
//! A suite that did not load has `"load_error": {"message": ..., "problems": [{"line", "column",
//! "path", "message"}]}` and no agents.

use super::{AgentOutcome, Report};
use serde_json::{Value, json};

/// Renders the report as pretty-printed JSON with a trailing newline.
pub fn render(report: &Report) -> String {
    let c = report.counts();
    let suites: Vec<Value> = report
        .suites
        .iter()
        .map(|s| {
            let load_error = s.load_error.as_ref().map(|e| {
                json!({
                    "message": e.to_string(),
                    "problems": e.problems.iter().map(|p| json!({
                        "line": p.line, "column": p.column, "path": p.path, "message": p.message,
                    })).collect::<Vec<_>>(),
                })
            });
            let agents: Vec<Value> = s
                .agents
                .iter()
                .map(|a| {
                    let error = match &a.outcome {
                        AgentOutcome::Error(m) => Value::String(m.clone()),
                        AgentOutcome::Graded(_) => Value::Null,
                    };
                    let cells: Vec<Value> = a
                        .cells()
                        .iter()
                        .map(|cell| {
                            json!({
                                "cell": cell.cell,
                                "passed": cell.passed(),
                                "outcome": cell.outcome(),
                                "calls": cell.calls,
                                "gates": cell.gates,
                                "metrics": cell.metrics,
                            })
                        })
                        .collect();
                    json!({
                        "name": a.name,
                        "model": a.model,
                        "cassette": a.cassette,
                        "status": a.status().as_str(),
                        "error": error,
                        "cells": cells,
                    })
                })
                .collect();
            json!({"file": s.file, "load_error": load_error, "agents": agents})
        })
        .collect();
    let doc = json!({
        "mcptest_report": 1,
        "exit_code": report.exit_code(),
        "summary": {
            "agents": c.agents, "passed": c.passed, "failed": c.failed, "errors": c.errors,
            "cells": c.cells, "cells_failed": c.cells_failed,
            "cells_inconclusive": c.cells_inconclusive,
        },
        "flaky": report.flaky().iter().map(|f| json!({
            "agent": f.label, "file": f.file, "passed": f.passed, "runs": f.runs,
            "failing": f.failing,
        })).collect::<Vec<_>>(),
        "suites": suites,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
