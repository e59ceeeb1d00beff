//! The JUnit XML report, in the shape CI systems read:
//!
//! ```xml
//! <testsuites name="mcptest" tests="4" failures="1" errors="0" skipped="0" time="0.003">
//!   <testsuite name="offline-trace-validation" tests="4" failures="1" errors="0" skipped="0"
//!              time="0.003" file="examples/offline-trace-validation.yml">
//!     <testcase name="trajectory pins the call plan [claude-sonnet-4-5] run_1"
//!               classname="offline-trace-validation" time="0.001"
//!               file="examples/offline-trace-validation.yml">
//!       <failure message="trajectory: strict, 2 reference call(s), 1 mismatch(es)"
//!                type="gate">...the cell's report...</failure>
//!     </testcase>
//!   </testsuite>
//! </testsuites>
//! ```
//!
//! One `<testsuite>` per suite file, one `<testcase>` per cell (`run_N`, `stability`,
//! `reliability`). A failing cell carries `<failure type="gate">` whose `message` is the first
//! failing gate row and whose text is the whole cell report. An agent that could not be graded
//! (missing or malformed cassette) is one `<testcase>` with `<error type="infra">`; a suite that
//! did not load is one `<testcase name="load">` with `<error type="load">`. A cell whose
//! pass-rate gate is inconclusive (and that did not fail) carries `<skipped
//! type="inconclusive">` whose message says how many runs would decide it. A case's `time` is
//! its agent's wall time shared evenly among the agent's cells.

use super::{AgentOutcome, Report};
use std::fmt::Write as _;

/// Escapes text for an XML attribute or element: markup characters become entities, line
/// breaks in attributes become character references, characters XML 1.0 forbids become U+FFFD.
fn esc(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

struct Case {
    name: String,
    seconds: f64,
    /// (element, type, message, body)
    problem: Option<(&'static str, &'static str, String, String)>,
}

/// Renders the report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut suites_xml = String::new();
    let (mut all_tests, mut all_failures, mut all_errors, mut all_skipped, mut all_time) =
        (0, 0, 0, 0, 0.0);
    for s in &report.suites {
        let mut cases = Vec::new();
        if let Some(e) = &s.load_error {
            let first = e
                .problems
                .first()
                .map(|p| format!("{}:{}:{}: {}", e.file, p.line, p.column, p.message));
            cases.push(Case {
                name: "load".into(),
                seconds: 0.0,
                problem: Some(("error", "load", first.unwrap_or_default(), e.to_string())),
            });
        }
        for a in &s.agents {
            match &a.outcome {
                AgentOutcome::Error(msg) => cases.push(Case {
                    name: a.label(),
                    seconds: a.seconds,
                    problem: Some((
                        "error",
                        "infra",
                        msg.lines().next().unwrap_or_default().to_string(),
                        msg.clone(),
                    )),
                }),
                AgentOutcome::Graded(cells) => {
                    let share = a.seconds / cells.len().max(1) as f64;
                    for c in cells {
                        let problem = c
                            .failures()
                            .next()
                            .map(|g| {
                                (
                                    "failure",
                                    "gate",
                                    format!("{}: {}", g.gate, g.summary),
                                    c.render(),
                                )
                            })
                            .or_else(|| {
                                let g = c.gates.iter().find(|g| g.inconclusive)?;
                                let why = g.details.get(1).cloned().unwrap_or_default();
                                Some((
                                    "skipped",
                                    "inconclusive",
                                    format!("{}: {}; {why}", g.gate, g.summary),
                                    c.render(),
                                ))
                            });
                        cases.push(Case {
                            name: format!("{} {}", a.label(), c.cell),
                            seconds: share,
                            problem,
                        });
                    }
                }
            }
        }
        let tests = cases.len();
        let failures = cases
            .iter()
            .filter(|c| matches!(c.problem, Some(("failure", ..))))
            .count();
        let errors = cases
            .iter()
            .filter(|c| matches!(c.problem, Some(("error", ..))))
            .count();
        let skipped = cases
            .iter()
            .filter(|c| matches!(c.problem, Some(("skipped", ..))))
            .count();
        let time: f64 = cases.iter().map(|c| c.seconds).sum();
        all_tests += tests;
        all_failures += failures;
        all_errors += errors;
        all_skipped += skipped;
        all_time += time;
        let file = esc(&s.file, true);
        let stem = esc(&s.stem, true);
        let _ = writeln!(
            suites_xml,
            "  <testsuite name=\"{stem}\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\" file=\"{file}\">"
        );
        for c in &cases {
            let _ = write!(
                suites_xml,
                "    <testcase name=\"{}\" classname=\"{stem}\" time=\"{:.3}\" file=\"{file}\"",
                esc(&c.name, true),
                c.seconds
            );
            match &c.problem {
                None => {
                    let _ = writeln!(suites_xml, "/>");
                }
                Some((element, kind, message, body)) => {
                    let _ = writeln!(
                        suites_xml,
                        ">\n      <{element} message=\"{}\" type=\"{kind}\">{}</{element}>\n    \
                         </testcase>",
                        esc(message, true),
                        esc(body, false)
                    );
                }
            }
        }
        let _ = writeln!(suites_xml, "  </testsuite>");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcptest\" \
         tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"{all_errors}\" \
         skipped=\"{all_skipped}\" time=\"{all_time:.3}\">\n{suites_xml}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        assert_eq!(
            esc("a<b & \"c\"\n", true),
            "a&lt;b &amp; &quot;c&quot;&#10;"
        );
        assert_eq!(esc("x\u{1b}[31m", false), "x\u{FFFD}[31m");
        assert_eq!(esc("line\nnext", false), "line\nnext");
    }
}
