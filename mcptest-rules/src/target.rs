//! The target grammar: the paths that pick values out of a trace or a gate's report.
//!
//! Fields are joined by `.`; `[N]` indexes an array (a negative `N` counts from the end, `[-1]`
//! is the last element); `[*]` takes every element; `["key"]` (or `['key']`) names a field
//! whose name has dots or brackets in it. A leading `$` or `$.` is allowed and ignored.
//!
//! ```
//! use mcptest_rules::target::{parse, Step};
//! let steps = parse("tool_calls[-1].args.city").unwrap();
//! assert_eq!(steps[1], Step::Index(-1));
//! let err = parse("tool_calls[0.name").unwrap_err();
//! assert_eq!(err.offset, 10);
//! assert!(err.to_string().contains("at character 11: `[` without a closing `]`"));
//! ```

use std::fmt;

/// One step of a target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// An object field.
    Field(String),
    /// An array index; negative counts from the end.
    Index(i64),
    /// Every element of an array (or every value of an object).
    Each,
}

/// A target that does not follow the grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetError {
    /// The target as written.
    pub target: String,
    /// 0-based character offset of the problem.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad target `{}` at character {}: {} (targets look like `tool_calls[0].args.city`, \
             `tool_calls[-1].name` or `tool_calls[*].name`)",
            self.target,
            self.offset + 1,
            self.message
        )
    }
}

impl std::error::Error for TargetError {}

/// The steps of `text`.
///
/// # Errors
///
/// A [`TargetError`] naming the first character that breaks the grammar.
pub fn parse(text: &str) -> Result<Vec<Step>, TargetError> {
    let chars: Vec<char> = text.chars().collect();
    let err = |offset: usize, message: &str| TargetError {
        target: text.to_string(),
        offset,
        message: message.to_string(),
    };
    let mut i = 0;
    if chars.first() == Some(&'$') {
        i = if chars.get(1) == Some(&'.') { 2 } else { 1 };
    }
    let mut steps = Vec::new();
    let mut expect_field = true;
    while i < chars.len() {
        match chars[i] {
            '[' => {
                let close = chars[i..]
                    .iter()
                    .position(|&c| c == ']')
                    .map(|p| p + i)
                    .ok_or_else(|| err(i, "`[` without a closing `]`"))?;
                let inner: String = chars[i + 1..close].iter().collect();
                let inner = inner.trim();
                if inner == "*" {
                    steps.push(Step::Each);
                } else if let Some(q) = inner
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .or_else(|| inner.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
                {
                    steps.push(Step::Field(q.to_string()));
                } else {
                    let n: i64 = inner.parse().map_err(|_| {
                        err(i + 1, "expected an index (`0`, `-1`), `*`, or a quoted key")
                    })?;
                    steps.push(Step::Index(n));
                }
                i = close + 1;
                expect_field = false;
            }
            '.' => {
                if expect_field {
                    return Err(err(i, "empty field name"));
                }
                i += 1;
                expect_field = true;
                if i == chars.len() {
                    return Err(err(i - 1, "the target ends with `.`"));
                }
            }
            ']' => return Err(err(i, "`]` without an opening `[`")),
            _ => {
                if !expect_field {
                    return Err(err(i, "expected `.` or `[` before a field name"));
                }
                let start = i;
                while i < chars.len() && !matches!(chars[i], '.' | '[' | ']') {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.trim() != name {
                    return Err(err(start, "field names may not start or end with spaces"));
                }
                steps.push(Step::Field(name));
                expect_field = false;
            }
        }
    }
    if steps.is_empty() && !text.trim_start_matches(['$', '.']).is_empty() {
        return Err(err(0, "empty target"));
    }
    Ok(steps)
}

/// The first field of a target (`tool_calls` in `tool_calls[0].name`), if it starts with one.
pub fn root(steps: &[Step]) -> Option<&str> {
    field(steps, 0)
}

/// The field at step `i`, if that step is a field.
pub fn field(steps: &[Step], i: usize) -> Option<&str> {
    match steps.get(i) {
        Some(Step::Field(f)) => Some(f),
        _ => None,
    }
}

/// True when a target selects the model's prose: `final_response`, a turn's `content`, or a
/// container holding them (`conversation`, `conversation.turns[0]`, the whole run). Such a
/// target may only be advisory: narration never decides a verdict.
///
/// ```
/// use mcptest_rules::target::{parse, reads_narration};
/// assert!(reads_narration(&parse("final_response").unwrap()));
/// assert!(reads_narration(&parse("conversation.turns[1].content").unwrap()));
/// assert!(!reads_narration(&parse("conversation.tokens.total").unwrap()));
/// assert!(!reads_narration(&parse("tool_calls[0].args").unwrap()));
/// ```
pub fn reads_narration(steps: &[Step]) -> bool {
    match (field(steps, 0), steps.len()) {
        (None, 0) => true,
        (Some("final_response"), _) => true,
        (Some("conversation"), 1) => true,
        (Some("conversation"), _) => match field(steps, 1) {
            Some("turns") => steps.len() <= 3 || field(steps, 3) == Some("content"),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset(text: &str) -> usize {
        parse(text).unwrap_err().offset
    }

    #[test]
    fn grammar() {
        assert_eq!(
            parse("$.a[\"b.c\"][*][2]").unwrap(),
            vec![
                Step::Field("a".into()),
                Step::Field("b.c".into()),
                Step::Each,
                Step::Index(2)
            ]
        );
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(parse("$").unwrap(), vec![]);
        assert_eq!(parse("['x']").unwrap(), vec![Step::Field("x".into())]);
        assert_eq!(offset("a..b"), 2);
        assert_eq!(offset("a."), 1);
        assert_eq!(offset("a]"), 1);
        assert_eq!(offset("a[x]"), 2);
        assert_eq!(offset("a[0]b"), 4);
        assert_eq!(offset(" a"), 0);
        assert_eq!(offset("a[0"), 1);
    }

    #[test]
    fn roots_and_fields() {
        let s = parse("stability.weakest_score").unwrap();
        assert_eq!(root(&s), Some("stability"));
        assert_eq!(field(&s, 1), Some("weakest_score"));
        assert_eq!(root(&parse("[0]").unwrap()), None);
    }
}
