//! Targets (`tool_calls[0].args.city`): the grammar of `mcptest_core::select::Target`, checked
//! at compile time, and the two rules a gating target must follow.

use crate::messages;

/// One step of a target.
#[derive(Debug, PartialEq)]
pub enum Step {
    Field(String),
    Index,
    Each,
}

/// The steps of `text`, or `(character offset, what is wrong)`.
pub fn steps(text: &str) -> Result<Vec<Step>, (usize, &'static str)> {
    let chars: Vec<char> = text.chars().collect();
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
                    .ok_or((i, "`[` without a closing `]`"))?;
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
                } else if inner.parse::<i64>().is_ok() {
                    steps.push(Step::Index);
                } else {
                    return Err((i + 1, "expected an index (`0`, `-1`), `*`, or a quoted key"));
                }
                i = close + 1;
                expect_field = false;
            }
            '.' => {
                if expect_field {
                    return Err((i, "empty field name"));
                }
                i += 1;
                expect_field = true;
                if i == chars.len() {
                    return Err((i - 1, "the target ends with `.`"));
                }
            }
            ']' => return Err((i, "`]` without an opening `[`")),
            _ => {
                if !expect_field {
                    return Err((i, "expected `.` or `[` before a field name"));
                }
                let start = i;
                while i < chars.len() && !matches!(chars[i], '.' | '[' | ']') {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.trim() != name {
                    return Err((start, "field names may not start or end with spaces"));
                }
                steps.push(Step::Field(name));
                expect_field = false;
            }
        }
    }
    if steps.is_empty() && !text.trim_start_matches(['$', '.']).is_empty() {
        return Err((0, "empty target"));
    }
    Ok(steps)
}

/// True when the target selects the model's prose (the rule of `mcptest_core::spec`).
pub fn reads_narration(steps: &[Step]) -> bool {
    let field = |i: usize| match steps.get(i) {
        Some(Step::Field(f)) => Some(f.as_str()),
        _ => None,
    };
    match (field(0), steps.len()) {
        (None, 0) => true,
        (Some("final_response"), _) => true,
        (Some("conversation"), 1) => true,
        (Some("conversation"), _) => match field(1) {
            Some("turns") => steps.len() <= 3 || field(3) == Some("content"),
            _ => false,
        },
        _ => false,
    }
}

/// Why `text` cannot be a per-run target under these flags, if it cannot.
pub fn problem(text: &str, advisory: bool) -> Option<String> {
    let steps = match steps(text) {
        Ok(s) => s,
        Err((offset, why)) => return Some(messages::bad_target(text, offset, why)),
    };
    if let Some(Step::Field(root)) = steps.first()
        && (root == "stability" || root == "reliability")
    {
        return Some(messages::cross_run_target(text, root));
    }
    (!advisory && reads_narration(&steps)).then(|| messages::narration(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_and_rules() {
        assert!(problem("tool_calls[0].args.city", false).is_none());
        assert!(problem("tool_results[-1].is_error", false).is_none());
        assert!(problem("tool_calls[*].name", false).is_none());
        assert!(
            problem("tool_calls[0.name", false)
                .unwrap()
                .contains("at character 11")
        );
        assert!(
            problem("final_response", false)
                .unwrap()
                .contains("narration")
        );
        assert!(problem("final_response", true).is_none());
        assert!(problem("conversation.turns[1].content", false).is_some());
        assert!(problem("conversation.tokens.total", false).is_none());
        assert!(
            problem("stability.score", false)
                .unwrap()
                .contains("inside `stability(...)`")
        );
    }
}
