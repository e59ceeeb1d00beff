//! Targets: the paths that pick values out of a trace or a report.
//!
//! Grammar: fields joined by `.`; `[N]` indexes an array (a negative `N` counts from the end,
//! `[-1]` is the last element); `[*]` takes every element; `["key"]` names a field whose name
//! has dots or brackets in it. A leading `$` or `$.` is allowed and ignored.
//!
//! ```text
//! tool_calls[0].args.city      one value
//! tool_calls[-1].name          the last call's name
//! tool_calls[*].name           every call's name
//! stability.weakest_score      a field of a gate's report
//! ```
//!
//! A target that names nothing gives an empty selection, never a panic; the gate using it then
//! fails with "no value at target".
//!
//! ```
//! use mcptest_core::select::select;
//! use serde_json::json;
//! let trace = json!({"tool_calls": [{"name": "search"}, {"name": "open"}]});
//! assert_eq!(select(&trace, "tool_calls[-1].name"), vec![&json!("open")]);
//! assert_eq!(select(&trace, "tool_calls[*].name").len(), 2);
//! assert!(select(&trace, "tool_calls[5].name").is_empty());
//! ```

use crate::diff::escape_pointer_token;
use serde_json::Value;
use std::fmt;

/// A parsed target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    text: String,
    steps: Vec<Step>,
}

/// One step of a [`Target`] (the rulebook's grammar, [`crate::rules::target`]).
pub use mcptest_rules::target::Step;

/// A value a target selected, with its JSON pointer from the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'a> {
    /// JSON pointer (RFC 6901) of the value from the root.
    pub pointer: String,
    /// The value.
    pub value: &'a Value,
}

/// A target string that does not follow the grammar.
pub use mcptest_rules::target::TargetError;

impl Target {
    /// Parses a target.
    pub fn parse(text: &str) -> Result<Self, TargetError> {
        let steps = mcptest_rules::target::parse(text)?;
        Ok(Target {
            text: text.to_string(),
            steps,
        })
    }

    /// The target as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The parsed steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The first field name (`tool_calls` in `tool_calls[0].name`), if the target starts with one.
    pub fn root_field(&self) -> Option<&str> {
        match self.steps.first() {
            Some(Step::Field(f)) => Some(f),
            _ => None,
        }
    }

    /// True when the target can select more than one value (it has a `[*]`).
    pub fn is_multi(&self) -> bool {
        self.steps.contains(&Step::Each)
    }

    /// Every value the target names in `root`, in document order, with JSON pointers.
    pub fn select_pointed<'a>(&self, root: &'a Value) -> Vec<Selected<'a>> {
        let mut current = vec![Selected {
            pointer: String::new(),
            value: root,
        }];
        for step in &self.steps {
            let mut next = Vec::with_capacity(current.len());
            for sel in current {
                match (step, sel.value) {
                    (Step::Field(k), Value::Object(m)) => {
                        if let Some(v) = m.get(k) {
                            next.push(Selected {
                                pointer: format!("{}/{}", sel.pointer, escape_pointer_token(k)),
                                value: v,
                            });
                        }
                    }
                    (Step::Index(n), Value::Array(a)) => {
                        let len = a.len() as i64;
                        let idx = if *n < 0 { len + n } else { *n };
                        if (0..len).contains(&idx) {
                            next.push(Selected {
                                pointer: format!("{}/{idx}", sel.pointer),
                                value: &a[idx as usize],
                            });
                        }
                    }
                    (Step::Each, Value::Array(a)) => {
                        next.extend(a.iter().enumerate().map(|(i, v)| Selected {
                            pointer: format!("{}/{i}", sel.pointer),
                            value: v,
                        }));
                    }
                    (Step::Each, Value::Object(m)) => {
                        next.extend(m.iter().map(|(k, v)| Selected {
                            pointer: format!("{}/{}", sel.pointer, escape_pointer_token(k)),
                            value: v,
                        }));
                    }
                    _ => {}
                }
            }
            current = next;
        }
        current
    }

    /// Every value the target names in `root`.
    pub fn select<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        self.select_pointed(root)
            .into_iter()
            .map(|s| s.value)
            .collect()
    }

    /// The value a matcher sees: for a single-value target, the value (or `None` when the
    /// target names nothing); for a `[*]` target, an array of every selected value (empty when
    /// the collection is empty), or `None` when the path up to the first `[*]` names nothing.
    pub fn resolve(&self, root: &Value) -> Option<Value> {
        if self.is_multi() {
            let first_each = self.steps.iter().position(|s| *s == Step::Each)?;
            let prefix = Target {
                text: String::new(),
                steps: self.steps[..first_each].to_vec(),
            };
            if prefix.select(root).is_empty() {
                return None;
            }
            Some(Value::Array(
                self.select(root).into_iter().cloned().collect(),
            ))
        } else {
            self.select(root).first().map(|v| (*v).clone())
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, TargetError> {
        Target::parse(s)
    }
}

/// Every value `target` names in `root`; empty when it names nothing or is not a valid target.
///
/// Use [`Target::parse`] to report a malformed target instead of selecting nothing.
pub fn select<'a>(root: &'a Value, target: &str) -> Vec<&'a Value> {
    Target::parse(target)
        .map(|t| t.select(root))
        .unwrap_or_default()
}
