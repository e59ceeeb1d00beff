//! Invariants that hold for every input, checked with proptest.

use mcptest_core::eval::{
    ExpectedCall, ExpectedTrace, GoldenPath, MatchMode, score_golden_path, validate_trace,
};
use mcptest_core::matchers::Matcher;
use mcptest_core::select::{Target, select};
use mcptest_core::trace::{Cassette, ToolCall};
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
        "[a-zé東 ]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{1,2}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Calls over a small alphabet so names and args repeat.
fn arb_calls(max: usize) -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["search", "open", "read", "検索"]),
            0u8..3,
        ),
        0..max,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(n, a)| ToolCall::new(n).with_args(json!({"k": a})))
            .collect()
    })
}

fn as_exact(calls: &[ToolCall]) -> Vec<ExpectedCall> {
    calls
        .iter()
        .map(|c| ExpectedCall::by_name(c.name.clone()).args_exact(c.args.clone().unwrap()))
        .collect()
}

fn passes(calls: &[ToolCall], mode: MatchMode, reference: Vec<ExpectedCall>) -> bool {
    validate_trace(calls, &ExpectedTrace::new(mode, reference))
        .unwrap()
        .passed
}

const MODES: [MatchMode; 5] = MatchMode::ALL;

proptest! {
    #[test]
    fn a_trace_validated_against_itself_passes_in_every_mode(calls in arb_calls(12)) {
        for mode in MODES {
            prop_assert!(passes(&calls, mode, as_exact(&calls)), "{}", mode);
            let by_name = calls.iter().map(|c| ExpectedCall::by_name(c.name.clone())).collect();
            prop_assert!(passes(&calls, mode, by_name), "{} by name", mode);
        }
    }

    #[test]
    fn strict_implies_subsequence_implies_superset(
        calls in arb_calls(10),
        reference in arb_calls(6),
        any_args in prop::collection::vec(any::<bool>(), 6),
    ) {
        let reference: Vec<ExpectedCall> = reference
            .iter()
            .zip(&any_args)
            .map(|(c, &any)| if any {
                ExpectedCall::by_name(c.name.clone())
            } else {
                ExpectedCall::by_name(c.name.clone()).args_exact(c.args.clone().unwrap())
            })
            .collect();
        let strict = passes(&calls, MatchMode::Strict, reference.clone());
        let subseq = passes(&calls, MatchMode::Subsequence, reference.clone());
        let superset = passes(&calls, MatchMode::Superset, reference.clone());
        let unordered = passes(&calls, MatchMode::Unordered, reference);
        prop_assert!(!strict || subseq);
        prop_assert!(!subseq || superset);
        prop_assert_eq!(superset, unordered);
    }

    #[test]
    fn subset_and_superset_agree_when_roles_swap(a in arb_calls(8), b in arb_calls(8)) {
        // "every call of a is allowed by b" == "b's calls include all of a".
        let subset = passes(&a, MatchMode::Subset, as_exact(&b));
        let superset = passes(&b, MatchMode::Superset, as_exact(&a));
        prop_assert_eq!(subset, superset);
    }

    #[test]
    fn golden_penalty_is_in_range_and_never_rises_with_more_waste(
        calls in arb_calls(12),
        more in arb_calls(6),
        golden in arb_calls(5),
        flags in (any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let g = GoldenPath {
            calls: golden.iter().map(|c| c.name.clone()).collect(),
            allow_extra_steps: flags.0,
            penalize_backtracking: flags.1,
            penalize_repeated_tools: flags.2,
        };
        let before = score_golden_path(&calls, &g);
        let longer: Vec<ToolCall> = calls.iter().chain(&more).cloned().collect();
        let after = score_golden_path(&longer, &g);
        for s in [&before, &after] {
            prop_assert!(s.penalty > 0.0 && s.penalty <= 1.0);
            prop_assert_eq!(s.passed, s.penalty == 1.0);
        }
        prop_assert!(after.penalty <= before.penalty);
    }

    #[test]
    fn selection_never_panics(root in arb_json(), target in "[a-c.\\[\\]*0-9-]{0,12}") {
        let _ = select(&root, &target);
        if let Ok(t) = Target::parse(&target) {
            let _ = t.resolve(&root);
            for s in t.select_pointed(&root) {
                prop_assert_eq!(root.pointer(&s.pointer), Some(s.value));
            }
        }
    }

    #[test]
    fn every_matcher_returns_on_arbitrary_json(expected in arb_json(), actual in arb_json(), pattern in ".{0,8}") {
        let ms = [
            Matcher::exact(expected.clone()),
            Matcher::contains(expected.clone()),
            Matcher::schema(expected.clone()),
            Matcher::regex(pattern),
            Matcher::not(Matcher::contains(expected.clone())),
            Matcher::all([Matcher::exact(expected.clone()), Matcher::contains(expected.clone())]),
            Matcher::any([Matcher::exact(expected.clone()), Matcher::contains(expected.clone())]),
        ];
        for m in &ms {
            let _ = m.check(&actual);
        }
        // exact passes on itself and implies contains.
        prop_assert!(Matcher::exact(actual.clone()).check(&actual).unwrap().is_empty());
        prop_assert!(Matcher::contains(actual.clone()).check(&actual).unwrap().is_empty());
        if Matcher::exact(expected.clone()).check(&actual).unwrap().is_empty() {
            prop_assert!(Matcher::contains(expected).check(&actual).unwrap().is_empty());
        }
    }

    #[test]
    fn cassette_loading_never_panics(text in ".{0,64}", v in arb_json()) {
        let _ = Cassette::from_json_str("p.json", &text);
        let _ = Cassette::from_json_str("p.json", &v.to_string());
        let _ = Cassette::from_value(&json!({"tool_calls": [v]}));
    }
}
