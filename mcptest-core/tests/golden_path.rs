//! Golden-path scoring: the documents' definitions and hand-computed cases.

use mcptest_core::eval::{GoldenPath, PathScore, score_golden_path};
use mcptest_core::trace::ToolCall;

fn calls(ns: &[&str]) -> Vec<ToolCall> {
    ns.iter().map(|n| ToolCall::new(*n)).collect()
}

fn score(ns: &[&str], g: &GoldenPath) -> PathScore {
    score_golden_path(&calls(ns), g)
}

#[test]
fn the_golden_sequence_itself_has_no_waste() {
    let g = GoldenPath::new(["search", "open", "summarize"]);
    let s = score(&["search", "open", "summarize"], &g);
    assert_eq!(
        s,
        PathScore {
            passed: true,
            extra_steps: 0,
            backtracks: 0,
            repeated_tools: 0,
            penalty: 1.0
        }
    );
}

#[test]
fn counts_follow_the_definitions() {
    let g = GoldenPath::new(["search", "open", "summarize"]);
    // search open search open summarize: extra 2; backtracks at #2 (search) and #3 (open).
    let s = score(&["search", "open", "search", "open", "summarize"], &g);
    assert_eq!((s.extra_steps, s.backtracks, s.repeated_tools), (2, 2, 0));
    // w = 4 -> 1 / (1 + 2) = 1/3
    assert!((s.penalty - 1.0 / 3.0).abs() < 1e-12);
    // A consecutive duplicate is a repeat, not a backtrack.
    let s = score(&["search", "search", "open"], &g);
    assert_eq!((s.extra_steps, s.backtracks, s.repeated_tools), (0, 0, 1));
    assert_eq!(s.penalty, 1.0 / 1.5);
    // a b a a: #2 backtrack, #3 repeat.
    let s = score(&["a", "b", "a", "a"], &GoldenPath::new(["a", "b"]));
    assert_eq!((s.extra_steps, s.backtracks, s.repeated_tools), (2, 1, 1));
    assert_eq!(s.penalty, 1.0 / (1.0 + 0.5 * 4.0));
}

#[test]
fn flags_remove_a_dimension_from_the_penalty_but_keep_its_count() {
    let ns = ["search", "search", "open", "search", "summarize"];
    let strict = GoldenPath::new(["search", "open", "summarize"]);
    let s = score(&ns, &strict);
    assert_eq!((s.extra_steps, s.backtracks, s.repeated_tools), (2, 1, 1));
    assert_eq!(s.penalty, 1.0 / (1.0 + 0.5 * 4.0));
    let lenient = GoldenPath {
        allow_extra_steps: true,
        penalize_backtracking: false,
        penalize_repeated_tools: false,
        ..strict.clone()
    };
    let s = score(&ns, &lenient);
    assert!(s.passed);
    assert_eq!(s.penalty, 1.0);
    assert_eq!(
        (s.extra_steps, s.backtracks, s.repeated_tools),
        (2, 1, 1),
        "counts still reported"
    );
    let only_repeats = GoldenPath {
        allow_extra_steps: true,
        penalize_backtracking: false,
        ..strict
    };
    assert_eq!(score(&ns, &only_repeats).penalty, 1.0 / 1.5);
}

#[test]
fn a_shorter_trace_has_no_extra_steps() {
    let s = score(
        &["search"],
        &GoldenPath::new(["search", "open", "summarize"]),
    );
    assert_eq!(s.extra_steps, 0);
    assert!(s.passed);
    let s = score(&[], &GoldenPath::new(Vec::<String>::new()));
    assert!(s.passed);
    let s = score(&["x"], &GoldenPath::new(Vec::<String>::new()));
    assert_eq!((s.extra_steps, s.penalty), (1, 1.0 / 1.5));
}

#[test]
fn a_backtracking_trace_scores_below_a_clean_one() {
    let g = GoldenPath {
        allow_extra_steps: true,
        ..GoldenPath::new(["a", "b", "c"])
    };
    let clean = score(&["a", "b", "c", "d"], &g);
    let back = score(&["a", "b", "a", "c"], &g);
    assert!(back.penalty < clean.penalty);
}

#[test]
fn unicode_names() {
    let s = score(
        &["検索", "開く", "検索"],
        &GoldenPath::new(["検索", "開く"]),
    );
    assert_eq!((s.extra_steps, s.backtracks), (1, 1));
}

#[test]
fn yaml_shaped_config_defaults_to_the_strict_policy() {
    let g: GoldenPath =
        serde_json::from_value(serde_json::json!({"calls": ["get_weather"]})).unwrap();
    assert_eq!(g, GoldenPath::new(["get_weather"]));
    let err = serde_json::from_value::<GoldenPath>(
        serde_json::json!({"calls": [], "penalize_backtrack": true}),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown field `penalize_backtrack`"), "{err}");
}

mod counts_at_any_size {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// The definitions, written the plain way: a repeat is a call of the previous tool; a
    /// backtrack is a return to any earlier tool that is not the previous one.
    fn reference(names: &[String]) -> (usize, usize) {
        let mut seen = HashSet::new();
        let (mut repeats, mut backtracks) = (0, 0);
        for (i, n) in names.iter().enumerate() {
            if i > 0 && names[i - 1] == *n {
                repeats += 1;
            } else if seen.contains(n) {
                backtracks += 1;
            }
            seen.insert(n.clone());
        }
        (repeats, backtracks)
    }

    #[test]
    fn a_return_to_a_tool_first_seen_beyond_the_sixteenth_is_a_backtrack() {
        // 20 distinct tools, then back to the 18th and the 2nd.
        let mut names: Vec<String> = (0..20).map(|i| format!("tool_{i}")).collect();
        names.push("tool_17".into());
        names.push("tool_1".into());
        names.push("tool_1".into());
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let s = score(&refs, &GoldenPath::new(["tool_0"]));
        assert_eq!((s.backtracks, s.repeated_tools), (2, 1));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn counts_agree_with_the_definitions(picks in prop::collection::vec(0u8..40, 0..120)) {
            let names: Vec<String> = picks.iter().map(|p| format!("t{p}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let s = score(&refs, &GoldenPath::new(["t0"]));
            prop_assert_eq!((s.repeated_tools, s.backtracks), reference(&names));
        }
    }
}
