//! Fault recovery: when a tool stops answering, how fast did the agent notice, how long did the
//! user wait, and did the agent route around the failure?
//!
//! A suite injects a fault (`hang`, `wedged`, `slow:<ms>`, `recover-after:<n>`) into one tool.
//! The executor never blocks on it: it synthesizes the timeout in **virtual time**, each timeout
//! consuming one `max_detection_ms`, and records `started_ms`/`ended_ms` on every call. Three
//! marks are read off the recorded trace ([`recovery_marks`]), all in virtual milliseconds since
//! the run began:
//!
//! * the **fault start**: the faulted call's `started_ms`;
//! * **detection**: the faulted call's `ended_ms`, when its result is the synthesized timeout
//!   (`timed_out: true`) or an error (`is_error: true`);
//! * **recovery**: the `ended_ms` of the first call, after the fault started, whose result
//!   succeeded (neither `is_error` nor `timed_out`); see "What counts as a recovery" below.
//!
//! [`score_recovery`] folds them into a [`RecoveryReport`] against a [`RecoveryBudget`]:
//!
//! ```text
//! time_to_detection_ms = detection - fault start            (none when never detected)
//! time_to_recovery_ms  = recovery  - fault start            (none when never recovered)
//! user_visible_hang_ms = min(time_to_detection, time_to_recovery) over those that happened,
//!                        else max_detection_ms              (the hang is capped at the budget)
//! recovered            = time_to_recovery is some
//! clean_timeout        = time_to_detection <= max_detection_ms
//! passed               = recovered
//!                        and (max_recovery_ms is none or time_to_recovery <= max_recovery_ms)
//!                        and (not require_clean_timeout or clean_timeout)
//! ```
//!
//! # How to read it
//!
//! `clean_timeout` is the key distinction: an agent whose call times out at its 3 s budget timed
//! out cleanly; one that hung for 9 s before noticing did not, even though both detected the
//! fault. `user_visible_hang_ms` is how long a person watching the run saw nothing happen. Every
//! failed condition adds one line to `reasons` that says what went wrong and by how much.
//!
//! Choices made where the documents are silent:
//!
//! * A faulted call without `started_ms` is measured from the start of the run (0 ms). That can
//!   only make the durations longer, never shorter, so a missing mark never passes a run that
//!   should fail; the report says so when the run fails.
//! * A mark earlier than the fault start (a clock that went backwards, or a parallel call that
//!   finished first) counts as 0 ms, never as a negative duration.
//! * A faulted call that answered successfully (a `slow:` fault under its budget) is not a
//!   detection; the run still needs a later successful call to count as recovered.
//! * A later success without `ended_ms` cannot show *when* the agent recovered and is skipped.
//!
//! # What counts as a recovery
//!
//! A success recorded before the fault began is not a recovery: it cannot have routed around a
//! failure that had not happened yet. A call other than the faulted one is a recovery
//! candidate when it succeeded, has an `ended_ms`, and
//!
//! * it has a `started_ms` strictly later than the fault start (a call launched in the same
//!   millisecond, in a parallel batch, did not react to the fault), or
//! * it has no `started_ms`, comes after the faulted call in the trace, and ended strictly
//!   after the fault start.
//!
//! Recovery is the earliest `ended_ms` among the candidates (in a sequential trace, the first
//! later success). When the faulted call has no `started_ms` the fault start is unknown and
//! every later success in the trace is a candidate, as before.
//!
//! # Known limits
//!
//! Recovery means "a later call succeeded", not "the task got done": a retry of an unrelated
//! read-only tool counts. Pair the recovery gate with a trajectory expectation when the fallback
//! itself matters.
//!
//! ```
//! use mcptest_core::eval::{recovery_marks, score_recovery, RecoveryBudget};
//! use serde_json::json;
//!
//! let run = json!({
//!     "tool_calls": [
//!         {"name": "search", "server": "faulty", "started_ms": 100, "ended_ms": 3100},
//!         {"name": "search", "server": "mirror", "started_ms": 3200, "ended_ms": 3450}
//!     ],
//!     "tool_results": [
//!         {"is_error": true, "timed_out": true},
//!         {"is_error": false, "content": [{"type": "text", "text": "incident report"}]}
//!     ]
//! });
//! let budget = RecoveryBudget {
//!     max_detection_ms: 3000,
//!     max_recovery_ms: Some(5000),
//!     require_clean_timeout: true,
//! };
//! let report = score_recovery(&recovery_marks(&run, 0), &budget);
//! assert_eq!(report.time_to_detection_ms, Some(3000));
//! assert_eq!(report.time_to_recovery_ms, Some(3350));
//! assert_eq!(report.user_visible_hang_ms, 3000);
//! assert!(report.clean_timeout && report.recovered && report.passed);
//! ```

use crate::trace::{ConversationTrace, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The millisecond marks of one fault, in (virtual) time since the run began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RecoveryMarks {
    /// When the faulted call started; `None` when the recording has no `started_ms` (times are
    /// then measured from 0, the start of the run).
    #[serde(default)]
    pub fault_started_ms: Option<u64>,
    /// When the agent detected the fault (the faulted call's timeout or error ended); `None`
    /// when it never did.
    #[serde(default)]
    pub detected_ms: Option<u64>,
    /// When the first call that started after the fault succeeded (see "What counts as a
    /// recovery" in the [module docs](self)); `None` when none did.
    #[serde(default)]
    pub recovered_ms: Option<u64>,
}

/// The time budget a recovery gate holds the agent to (the suite's `recovery:` block).
///
/// ```yaml
/// recovery:
///   max_detection_ms: 3000      # per-call timeout budget
///   max_recovery_ms: 5000       # total recovery budget (omit for unbounded)
///   require_clean_timeout: true
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryBudget {
    /// The per-call timeout budget: detecting the fault at or before this many milliseconds
    /// after the faulted call started is a clean timeout.
    pub max_detection_ms: u64,
    /// The total recovery budget from the faulted call's start; `None` is unbounded.
    #[serde(default)]
    pub max_recovery_ms: Option<u64>,
    /// When true, a detection later than `max_detection_ms` (or none at all) fails the gate.
    #[serde(default)]
    pub require_clean_timeout: bool,
}

/// The verdict of [`score_recovery`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryReport {
    /// Fault start to detection; `None` when the fault was never detected.
    pub time_to_detection_ms: Option<u64>,
    /// Fault start to recovery; `None` when the agent never recovered.
    pub time_to_recovery_ms: Option<u64>,
    /// How long the user saw the call hang: until detection or recovery, whichever came first;
    /// the detection budget when neither happened.
    pub user_visible_hang_ms: u64,
    /// True when a call after the fault succeeded.
    pub recovered: bool,
    /// True when the fault was detected at or before `max_detection_ms`.
    pub clean_timeout: bool,
    /// True when every condition of the budget held.
    pub passed: bool,
    /// One line per failed condition, saying what went wrong; empty on a pass.
    pub reasons: Vec<String>,
}

/// Scores the marks of one fault against a budget. Pure arithmetic; see the
/// [module documentation](self) for the formulas.
///
/// ```
/// use mcptest_core::eval::{score_recovery, RecoveryBudget, RecoveryMarks};
///
/// let budget = RecoveryBudget { max_detection_ms: 3000, max_recovery_ms: Some(5000),
///                               require_clean_timeout: true };
/// // Hung 9 s before noticing, then recovered at 9.4 s: detected, recovered, not clean.
/// let late = RecoveryMarks { fault_started_ms: Some(0), detected_ms: Some(9000),
///                            recovered_ms: Some(9400) };
/// let report = score_recovery(&late, &budget);
/// assert!(report.recovered && !report.clean_timeout && !report.passed);
/// assert_eq!(report.reasons.len(), 2); // over the recovery budget, and not a clean timeout
/// ```
pub fn score_recovery(marks: &RecoveryMarks, budget: &RecoveryBudget) -> RecoveryReport {
    let start = marks.fault_started_ms.unwrap_or(0);
    let ttd = marks.detected_ms.map(|t| t.saturating_sub(start));
    let ttr = marks.recovered_ms.map(|t| t.saturating_sub(start));
    let hang = match (ttd, ttr) {
        (Some(d), Some(r)) => d.min(r),
        (Some(d), None) => d,
        (None, Some(r)) => r,
        (None, None) => budget.max_detection_ms,
    };
    let recovered = ttr.is_some();
    let clean_timeout = ttd.is_some_and(|d| d <= budget.max_detection_ms);

    let mut reasons = Vec::new();
    match ttr {
        None => reasons.push(
            "never recovered: no call after the faulted one succeeded (expected a retry or a \
             fallback that returns a result; a recording without `ended_ms` cannot show one)"
                .to_string(),
        ),
        Some(r) => {
            if let Some(max) = budget.max_recovery_ms.filter(|&max| r > max) {
                reasons.push(format!(
                    "recovered {r} ms after the fault started, {} ms over the {max} ms recovery \
                     budget (max_recovery_ms)",
                    r - max
                ));
            }
        }
    }
    if budget.require_clean_timeout && !clean_timeout {
        let max = budget.max_detection_ms;
        reasons.push(match ttd {
            Some(d) => format!(
                "not a clean timeout: the fault was detected {d} ms after the call started, \
                 {} ms past the {max} ms detection budget (max_detection_ms); the call should \
                 time out at the budget instead of hanging",
                d - max
            ),
            None => format!(
                "not a clean timeout: the fault was never detected (the faulted call has no \
                 timeout or error result with an `ended_ms`); it should time out within the \
                 {max} ms detection budget (max_detection_ms)"
            ),
        });
    }
    if !reasons.is_empty() && marks.fault_started_ms.is_none() {
        reasons.push(
            "the faulted call has no `started_ms`: times were measured from the start of the \
             run, which can only overstate them"
                .to_string(),
        );
    }
    RecoveryReport {
        time_to_detection_ms: ttd,
        time_to_recovery_ms: ttr,
        user_visible_hang_ms: hang,
        recovered,
        clean_timeout,
        passed: reasons.is_empty(),
        reasons,
    }
}

/// Reads the recovery marks of the fault at `fault_call_index` off an envelope (or a cassette
/// run: `trace.tool_calls` is preferred to a root `tool_calls`, as in
/// [`tool_calls_from_envelope`](crate::trace::tool_calls_from_envelope)).
///
/// Lenient by design: a call or result that is missing or malformed contributes no mark, and an
/// index past the end gives all-`None` marks. It never panics.
pub fn recovery_marks(envelope: &Value, fault_call_index: usize) -> RecoveryMarks {
    let root = match envelope.get("trace") {
        Some(t) if t.get("tool_calls").is_some() => t,
        _ => envelope,
    };
    let empty = Vec::new();
    let calls = root
        .get("tool_calls")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let results = root
        .get("tool_results")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let steps: Vec<Step> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| Step {
            started: c.get("started_ms").and_then(millis),
            ended: c.get("ended_ms").and_then(millis),
            outcome: results.get(i).map_or(Outcome::Missing, outcome_of_value),
        })
        .collect();
    marks_of(&steps, fault_call_index)
}

/// [`recovery_marks`] over an already-decoded trace.
pub fn recovery_marks_from_trace(
    trace: &ConversationTrace,
    fault_call_index: usize,
) -> RecoveryMarks {
    let steps: Vec<Step> = trace
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| Step {
            started: c.started_ms,
            ended: c.ended_ms,
            outcome: match trace.tool_results.get(i) {
                None => Outcome::Missing,
                Some(r) if r.is_error || r.timed_out => Outcome::Failed,
                Some(_) => Outcome::Succeeded,
            },
        })
        .collect();
    marks_of(&steps, fault_call_index)
}

/// The index of the first call a fault target matches: `tool` and `server` both given match
/// that tool on that server; no `tool` matches every tool on `server`; no `server` matches
/// `tool` on any server; neither matches the first call. `None` when no call matches.
///
/// ```
/// use mcptest_core::eval::find_faulted_call;
/// use mcptest_core::trace::ToolCall;
///
/// let calls = vec![
///     ToolCall::new("list").with_server("docs"),
///     ToolCall::new("search").with_server("web"),
///     ToolCall::new("search").with_server("docs"),
/// ];
/// assert_eq!(find_faulted_call(&calls, Some("search"), None), Some(1));
/// assert_eq!(find_faulted_call(&calls, Some("search"), Some("docs")), Some(2));
/// assert_eq!(find_faulted_call(&calls, None, Some("docs")), Some(0));
/// assert_eq!(find_faulted_call(&calls, Some("open"), None), None);
/// ```
pub fn find_faulted_call(
    calls: &[ToolCall],
    tool: Option<&str>,
    server: Option<&str>,
) -> Option<usize> {
    calls.iter().position(|c| {
        tool.is_none_or(|t| c.name == t) && server.is_none_or(|s| c.server.as_deref() == Some(s))
    })
}

impl fmt::Display for RecoveryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |v: Option<u64>| v.map_or_else(|| "none".to_string(), |v| format!("{v} ms"));
        write!(
            f,
            "recovery: {} (detection {}, recovery {}, visible hang {} ms, clean timeout {})",
            if self.passed { "PASS" } else { "FAIL" },
            ms(self.time_to_detection_ms),
            ms(self.time_to_recovery_ms),
            self.user_visible_hang_ms,
            self.clean_timeout
        )?;
        for r in &self.reasons {
            write!(f, "\n  - {r}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The call has no result (the run was cut off).
    Missing,
    /// An error or a synthesized timeout.
    Failed,
    /// A result that is neither an error nor a timeout.
    Succeeded,
}

struct Step {
    started: Option<u64>,
    ended: Option<u64>,
    outcome: Outcome,
}

fn marks_of(steps: &[Step], fault: usize) -> RecoveryMarks {
    let Some(faulted) = steps.get(fault) else {
        return RecoveryMarks::default();
    };
    RecoveryMarks {
        fault_started_ms: faulted.started,
        detected_ms: if faulted.outcome == Outcome::Failed {
            faulted.ended
        } else {
            None
        },
        recovered_ms: steps
            .iter()
            .enumerate()
            .filter(|&(i, s)| i != fault && s.outcome == Outcome::Succeeded)
            .filter_map(|(i, s)| {
                let ended = s.ended?;
                let after_fault = match (faulted.started, s.started) {
                    (None, _) => i > fault,
                    (Some(fault_start), Some(started)) => started > fault_start,
                    (Some(fault_start), None) => i > fault && ended > fault_start,
                };
                after_fault.then_some(ended)
            })
            .min(),
    }
}

fn outcome_of_value(r: &Value) -> Outcome {
    let Some(obj) = r.as_object() else {
        return Outcome::Missing;
    };
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("is_error") || flag("isError") || flag("timed_out") {
        Outcome::Failed
    } else {
        Outcome::Succeeded
    }
}

fn millis(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < u64::MAX as f64)
            .map(|f| f as u64)
    })
}
