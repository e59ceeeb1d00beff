//! The deterministic matchers, as functions: `exact(false)`, `contains(json!({..}))`,
//! `schema(json!({..}))`, `regex("^ok")`, `not(m)`, `all([..])`, `any([..])`.
//!
//! Each builds a [`Matcher`] of `mcptest-core`, the same value a YAML `matcher:` block parses
//! to. Model-graded matchers have no function here: a Rust gate is deterministic.
//!
//! ```
//! use mcptest::prelude::*;
//!
//! let m = all([contains(json!({"city": "Sacramento"})), not(exact(json!({})))]);
//! assert!(m.check(&json!({"city": "Sacramento", "units": "imperial"})).unwrap().is_empty());
//! assert!(!regex("^get_").check(&json!("open")).unwrap().is_empty());
//! ```

use mcptest_core::matchers::Matcher;
use serde_json::Value;

/// The value deep-equals `expected` (JSON number semantics: `1 == 1.0`, `1 != true`).
pub fn exact(expected: impl Into<Value>) -> Matcher {
    Matcher::exact(expected.into())
}

/// The value contains `expected`: every key present with a contained value; arrays are
/// multisets (each expected element matched by a distinct recorded one, any order).
pub fn contains(expected: impl Into<Value>) -> Matcher {
    Matcher::contains(expected.into())
}

/// The value validates against this JSON Schema.
pub fn schema(schema: impl Into<Value>) -> Matcher {
    Matcher::schema(schema.into())
}

/// The value is a string in which `pattern` finds a match (anchor with `^...$` for the whole
/// string).
pub fn regex(pattern: impl Into<String>) -> Matcher {
    Matcher::regex(pattern)
}

/// `matcher` fails.
pub fn not(matcher: Matcher) -> Matcher {
    Matcher::not(matcher)
}

/// Every matcher passes.
pub fn all(matchers: impl IntoIterator<Item = Matcher>) -> Matcher {
    Matcher::all(matchers)
}

/// At least one matcher passes.
pub fn any(matchers: impl IntoIterator<Item = Matcher>) -> Matcher {
    Matcher::any(matchers)
}
