//! Targets (`tool_calls[0].args.city`), checked at compile time by the rulebook
//! (`mcptest_rules::mistakes::check_target`): the grammar, the narration rule, cross-run
//! metrics, unknown metrics and, once every entry is parsed, undeclared gates.

use mcptest_rules::mistakes::{Front, Place, check_target};

/// Why `text` cannot be a per-run target of this declaration, if it cannot. `declared` says
/// which gates the declaration holds; `None` skips that rule (a returned builder may declare
/// more).
pub fn problem(
    text: &str,
    advisory: bool,
    declared: Option<&dyn Fn(&str) -> bool>,
) -> Option<String> {
    check_target(text, Place::PerRun, advisory, declared)
        .err()
        .map(|m| m.message(Front::Attribute))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_and_rules() {
        assert!(problem("tool_calls[0].args.city", false, None).is_none());
        assert!(problem("tool_results[-1].is_error", false, None).is_none());
        assert!(problem("tool_calls[*].name", false, None).is_none());
        assert!(
            problem("tool_calls[0.name", false, None)
                .unwrap()
                .contains("at character 11")
        );
        assert!(
            problem("final_response", false, None)
                .unwrap()
                .contains("add `advisory`")
        );
        assert!(problem("final_response", true, None).is_none());
        assert!(problem("conversation.turns[1].content", false, None).is_some());
        assert!(problem("conversation.tokens.total", false, None).is_none());
        assert!(
            problem("stability.score", false, None)
                .unwrap()
                .contains("inside `stability(...)`")
        );
        let none = |_: &str| false;
        assert!(
            problem("golden_path.penalty", false, Some(&none))
                .unwrap()
                .contains("add `golden_path(...)` to the attribute")
        );
        assert!(problem("golden_path.penalty", false, None).is_none());
    }
}
