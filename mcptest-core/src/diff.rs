//! The one diff shape every matcher, gate and reporter speaks.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// One point where a recorded value differs from what was expected.
///
/// `pointer` is a JSON pointer (RFC 6901) into the *actual* value the matcher looked at
/// (`""` is the value itself, `/args/city` a field inside it). `expected` and `actual` hold the
/// two sides where they exist (`None` for a missing key on that side), and `message` says in one
/// line what is wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssertionDiff {
    /// JSON pointer into the actual value (`""` for the value itself).
    pub pointer: String,
    /// The expected value at `pointer`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// The recorded value at `pointer`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// One line saying what differs.
    pub message: String,
}

impl AssertionDiff {
    /// A diff at `pointer` with both sides and a message.
    pub fn new(
        pointer: impl Into<String>,
        expected: Option<Value>,
        actual: Option<Value>,
        message: impl Into<String>,
    ) -> Self {
        AssertionDiff {
            pointer: pointer.into(),
            expected,
            actual,
            message: message.into(),
        }
    }

    /// The same diff with `prefix` (a JSON pointer) put in front of its pointer.
    pub fn under(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

impl fmt::Display for AssertionDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.message)?;
        // Show the values the message does not already state.
        let mut sep = "; ";
        if let Some(e) = &self.expected
            && !self.message.contains("expected")
        {
            write!(f, "{sep}expected {e}")?;
            sep = ", ";
        }
        if let Some(a) = &self.actual
            && !self.message.contains("recorded")
        {
            write!(f, "{sep}recorded {a}")?;
        }
        Ok(())
    }
}

/// Escapes one reference token of a JSON pointer (`~` -> `~0`, `/` -> `~1`).
pub fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
