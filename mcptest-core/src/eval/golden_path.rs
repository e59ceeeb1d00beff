//! Golden-path efficiency: did the right calls happen *without waste*?
//!
//! [`score_golden_path`] compares the recorded tool-name sequence with an ideal one and counts
//! three kinds of waste:
//!
//! * `extra_steps`: calls beyond the golden path's length, `recorded.len() - golden.len()`
//!   (never negative);
//! * `backtracks`: a call to a tool used earlier that is not the immediately preceding tool (the
//!   trajectory moved on and came back); each such return counts once;
//! * `repeated_tools`: a call with the same name as the immediately preceding call.
//!
//! With `w` the sum of the *enabled* counts (extra steps unless `allow_extra_steps`, backtracks
//! when `penalize_backtracking`, repeats when `penalize_repeated_tools`):
//!
//! ```text
//! penalty = 1 / (1 + 0.5 * w)        passed = (w == 0)
//! ```
//!
//! The penalty is 1.0 exactly when there is no enabled waste and falls monotonically toward 0
//! as waste grows, always in (0, 1]. All three counts are reported even when a dimension's
//! penalty is switched off. Golden path reads only the names; pair it with
//! [`validate_trace`](super::validate_trace) to check *which* calls were made.
//!
//! ```
//! use mcptest_core::eval::{score_golden_path, GoldenPath};
//! use mcptest_core::trace::ToolCall;
//!
//! let calls: Vec<ToolCall> = ["search", "open", "search", "summarize"]
//!     .into_iter().map(ToolCall::new).collect();
//! let score = score_golden_path(&calls, &GoldenPath::new(["search", "open", "summarize"]));
//! assert_eq!((score.extra_steps, score.backtracks, score.repeated_tools), (1, 1, 0));
//! assert_eq!(score.penalty, 0.5); // w = 2
//! assert!(!score.passed);
//! ```

use crate::fasthash::HashSet;
use crate::trace::ToolCall;
use serde::{Deserialize, Serialize};
use std::fmt;

/// An ideal tool sequence and the waste policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenPath {
    /// The ideal tool names, in order.
    pub calls: Vec<String>,
    /// When true, calls beyond the golden length are not penalized (still counted).
    #[serde(default)]
    pub allow_extra_steps: bool,
    /// When true, returning to an earlier tool is penalized.
    #[serde(default = "yes")]
    pub penalize_backtracking: bool,
    /// When true, a consecutive duplicate call is penalized.
    #[serde(default = "yes")]
    pub penalize_repeated_tools: bool,
}

fn yes() -> bool {
    true
}

impl GoldenPath {
    /// The strictest policy: every penalty on, no extra steps allowed.
    pub fn new<S: Into<String>>(calls: impl IntoIterator<Item = S>) -> Self {
        GoldenPath {
            calls: calls.into_iter().map(Into::into).collect(),
            allow_extra_steps: false,
            penalize_backtracking: true,
            penalize_repeated_tools: true,
        }
    }
}

/// The waste counts and the penalty of one recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathScore {
    /// True when no enabled waste was found.
    pub passed: bool,
    /// Calls beyond the golden path's length.
    pub extra_steps: usize,
    /// Returns to a tool used earlier that was not the preceding tool.
    pub backtracks: usize,
    /// Consecutive duplicate calls.
    pub repeated_tools: usize,
    /// `1 / (1 + 0.5 * w)`, in (0, 1].
    pub penalty: f64,
}

/// Scores the recorded `calls` against `golden` (names only).
pub fn score_golden_path(calls: &[ToolCall], golden: &GoldenPath) -> PathScore {
    let extra_steps = calls.len().saturating_sub(golden.calls.len());
    let mut seen = Seen::default();
    let mut backtracks = 0;
    let mut repeated_tools = 0;
    let mut prev: Option<&str> = None;
    for c in calls {
        let name = c.name.as_str();
        if prev == Some(name) {
            repeated_tools += 1;
        } else if !seen.insert(name) {
            backtracks += 1;
        }
        prev = Some(name);
    }
    let w = if golden.allow_extra_steps {
        0
    } else {
        extra_steps
    } + if golden.penalize_backtracking {
        backtracks
    } else {
        0
    } + if golden.penalize_repeated_tools {
        repeated_tools
    } else {
        0
    };
    PathScore {
        passed: w == 0,
        extra_steps,
        backtracks,
        repeated_tools,
        penalty: 1.0 / (1.0 + 0.5 * w as f64),
    }
}

/// The tool names seen so far: a short list scanned in place while it is small (a typical run
/// uses a handful of tools), a hash set beyond that, so a long run stays linear.
#[derive(Default)]
struct Seen<'a> {
    few: [&'a str; 16],
    len: usize,
    many: HashSet<&'a str>,
}

impl<'a> Seen<'a> {
    /// Adds `name`; false when it was already seen.
    fn insert(&mut self, name: &'a str) -> bool {
        if self.few[..self.len].contains(&name) {
            return false;
        }
        if self.len < self.few.len() {
            self.few[self.len] = name;
            self.len += 1;
            return true;
        }
        self.many.insert(name)
    }
}

impl fmt::Display for PathScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "golden path: {} (penalty {:.3}; extra_steps {}, backtracks {}, repeated_tools {})",
            if self.passed { "PASS" } else { "FAIL" },
            self.penalty,
            self.extra_steps,
            self.backtracks,
            self.repeated_tools
        )
    }
}
