//! Partial credit (precision, recall, score) and edit scripts of trajectory gates: the
//! documents' numbers, hand-computed cases, every mode, and invariants checked with proptest.

use mcptest_core::eval::{
    EditOp, ExpectedArgs, ExpectedCall, ExpectedTrace, MatchMode, TraceValidation, validate_trace,
};
use mcptest_core::trace::ToolCall;
use proptest::prelude::*;
use serde_json::json;

fn names(ns: &[&str]) -> Vec<ToolCall> {
    ns.iter().map(|n| ToolCall::new(*n)).collect()
}

fn refs(ns: &[&str]) -> Vec<ExpectedCall> {
    ns.iter().map(|n| ExpectedCall::by_name(*n)).collect()
}

fn run(calls: &[ToolCall], mode: MatchMode, reference: Vec<ExpectedCall>) -> TraceValidation {
    validate_trace(calls, &ExpectedTrace::new(mode, reference)).expect("well-formed")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn the_documents_strict_example() {
    // Reference [a, b, c] against recorded [a, x, c, d] in strict pairs a and c.
    let v = run(
        &names(&["a", "x", "c", "d"]),
        MatchMode::Strict,
        refs(&["a", "b", "c"]),
    );
    assert!(!v.passed);
    assert_eq!(v.matched, 2);
    assert!(close(v.precision, 0.5));
    assert!(close(v.recall, 2.0 / 3.0));
    assert_eq!(format!("{:.3}", v.score), "0.571");
    // Shortest script: x -> b, delete d.
    let ops: Vec<_> = v
        .edits
        .iter()
        .map(|e| (e.op, e.expected_index, e.recorded_index))
        .collect();
    assert_eq!(
        ops,
        [
            (EditOp::Substitute, Some(1), Some(1)),
            (EditOp::Delete, None, Some(3))
        ]
    );
    assert!(v.edits_minimal);
    assert_eq!(v.edits[0].diffs[0].pointer, "/name");
}

#[test]
fn subsequence_with_a_wrong_argument_hand_computed() {
    // Only `open` pairs: precision 1/3, recall 1/2, F1 = (2 * 1/6) / (5/6) = 0.4.
    let calls = vec![
        ToolCall::new("login"),
        ToolCall::new("search").with_args(json!({"q": "go"})),
        ToolCall::new("open"),
    ];
    let v = run(
        &calls,
        MatchMode::Subsequence,
        vec![
            ExpectedCall::by_name("search").args_subset(json!({"q": "rust"})),
            ExpectedCall::by_name("open"),
        ],
    );
    assert!(!v.passed);
    assert_eq!(v.matched, 1);
    assert!(close(v.score, 0.4));
    assert_eq!(v.edits.len(), 1, "{:?}", v.edits);
    let e = &v.edits[0];
    assert_eq!(e.op, EditOp::Substitute);
    assert_eq!(e.recorded_index, Some(1));
    assert_eq!(e.diffs[0].pointer, "/args/q");
    assert_eq!(e.diffs[0].expected, Some(json!("rust")));
    assert_eq!(e.diffs[0].actual, Some(json!("go")));
    assert!(
        e.description
            .contains("change the arguments of recorded #1 `search`")
    );
}

#[test]
fn subsequence_inserts_where_order_needs_it_and_never_deletes() {
    // b never ran: one insertion between a and c; the extra z stays.
    let v = run(
        &names(&["a", "z", "c"]),
        MatchMode::Subsequence,
        refs(&["a", "b", "c"]),
    );
    assert_eq!(v.matched, 2);
    assert_eq!(v.edits.len(), 1);
    assert_eq!(v.edits[0].op, EditOp::Insert);
    assert_eq!(v.edits[0].expected_index, Some(1));
    // Before z or before c are both shortest; either keeps the order.
    assert!(matches!(v.edits[0].recorded_index, Some(1 | 2)));
}

#[test]
fn strict_on_a_short_trace_inserts_at_the_end() {
    let v = run(&names(&["a"]), MatchMode::Strict, refs(&["a", "b"]));
    assert_eq!(v.edits.len(), 1);
    assert_eq!(v.edits[0].op, EditOp::Insert);
    assert_eq!(v.edits[0].recorded_index, None);
    assert!(v.edits[0].description.ends_with("at the end"));
    assert!(close(v.precision, 1.0));
    assert!(close(v.recall, 0.5));
}

#[test]
fn unordered_pairs_by_maximum_matching_not_greedily() {
    let calls = vec![
        ToolCall::new("A").with_args(json!({"x": 1})),
        ToolCall::new("A").with_args(json!({"x": 2})),
        ToolCall::new("B"),
    ];
    let reference = vec![
        ExpectedCall::by_name("A"),
        ExpectedCall::by_name("A").args_exact(json!({"x": 1})),
    ];
    for mode in [MatchMode::Unordered, MatchMode::Superset] {
        let v = run(&calls, mode, reference.clone());
        assert!(v.passed);
        assert_eq!(v.matched, 2);
        // Extras lower precision: 2/3, recall 1, F1 0.8.
        assert!(close(v.score, 0.8), "{mode}: {}", v.score);
        assert!(v.edits.is_empty(), "unordered modes carry no script");
    }
}

#[test]
fn subset_passes_with_fewer_calls_at_partial_recall() {
    let v = run(&names(&["a"]), MatchMode::Subset, refs(&["a", "b", "c"]));
    assert!(v.passed);
    assert!(close(v.precision, 1.0));
    assert!(close(v.recall, 1.0 / 3.0));
    assert!(close(v.score, 0.5));
}

#[test]
fn empty_lists() {
    for mode in MatchMode::ALL {
        let both = run(&[], mode, vec![]);
        assert!(close(both.score, 1.0), "{mode}");
        let no_calls = run(&[], mode, refs(&["a"]));
        assert!(close(no_calls.score, 0.0), "{mode}");
        assert!(close(no_calls.precision, 1.0), "{mode}");
        let no_reference = run(&names(&["a"]), mode, vec![]);
        assert!(close(no_reference.recall, 1.0), "{mode}");
        assert!(close(no_reference.score, 0.0), "{mode}");
    }
}

#[test]
fn the_report_text_shows_credit_and_the_script() {
    let v = run(
        &names(&["a", "x", "c", "d"]),
        MatchMode::Strict,
        refs(&["a", "b", "c"]),
    );
    let text = v.to_string();
    assert!(
        text.contains("score 0.571, precision 0.500, recall 0.667"),
        "{text}"
    );
    assert!(text.contains("to pass, 2 edit(s):"), "{text}");
    assert!(
        text.contains("1. replace recorded #1 `x` by `b` (reference #1)"),
        "{text}"
    );
    assert!(text.contains("2. delete recorded #3 `d`"), "{text}");
}

#[test]
fn a_long_failing_strict_trace_keeps_its_common_ends_out_of_the_script() {
    // 3,000 calls each side, one substitution in the middle: the script is one step.
    let mut calls = names(&vec!["t"; 3000]);
    calls[1500] = ToolCall::new("u");
    let v = run(&calls, MatchMode::Strict, refs(&vec!["t"; 3000]));
    assert_eq!(v.matched, 2999);
    assert_eq!(v.edits.len(), 1);
    assert!(v.edits_minimal);
    assert_eq!(v.edits[0].recorded_index, Some(1500));
}

#[test]
fn past_the_script_limit_a_valid_script_is_given_and_marked() {
    // Every position differs and the middle is 2,500 x 2,500 > 4 M pairs.
    let calls = names(&vec!["x"; 2500]);
    let v = run(&calls, MatchMode::Strict, refs(&vec!["y"; 2500]));
    assert!(!v.edits_minimal);
    assert_eq!(v.edits.len(), 2500);
    assert!(v.explanation()[0].contains("too long for the shortest"));
    assert_eq!(v.matched, 0);
}

// ---- invariants ---------------------------------------------------------------------------

fn arb_calls(max: usize) -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), 0u8..2), 0..max).prop_map(
        |v| {
            v.into_iter()
                .map(|(n, a)| ToolCall::new(n).with_args(json!({"k": a})))
                .collect()
        },
    )
}

fn as_exact(calls: &[ToolCall]) -> Vec<ExpectedCall> {
    calls
        .iter()
        .map(|c| ExpectedCall::by_name(c.name.clone()).args_exact(c.args.clone().unwrap()))
        .collect()
}

/// Plain quadratic LCS and Levenshtein on exact equality, the oracle for the fast paths.
fn oracle(a: &[ToolCall], b: &[ToolCall]) -> (usize, usize) {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    let mut lev = vec![vec![0usize; m + 1]; n + 1];
    for (j, cell) in lev[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        lev[i][0] = i;
        for j in 1..=m {
            let same = a[i - 1] == b[j - 1];
            lcs[i][j] = if same {
                lcs[i - 1][j - 1] + 1
            } else {
                lcs[i - 1][j].max(lcs[i][j - 1])
            };
            lev[i][j] = (lev[i - 1][j - 1] + usize::from(!same))
                .min(lev[i - 1][j] + 1)
                .min(lev[i][j - 1] + 1);
        }
    }
    (lcs[n][m], lev[n][m])
}

/// Applies an edit script to the recorded calls (reference calls here pin exact args).
fn apply(calls: &[ToolCall], reference: &[ExpectedCall], v: &TraceValidation) -> Vec<ToolCall> {
    let concrete = |i: usize| {
        let e = &reference[i];
        match &e.args {
            ExpectedArgs::Exact(a) => ToolCall::new(e.name.clone()).with_args(a.clone()),
            _ => ToolCall::new(e.name.clone()),
        }
    };
    let mut out = Vec::new();
    for j in 0..=calls.len() {
        for e in &v.edits {
            let at = e.recorded_index.unwrap_or(calls.len());
            if e.op == EditOp::Insert && at == j {
                out.push(concrete(e.expected_index.unwrap()));
            }
        }
        if j == calls.len() {
            break;
        }
        match v
            .edits
            .iter()
            .find(|e| e.op != EditOp::Insert && e.recorded_index == Some(j))
        {
            Some(e) if e.op == EditOp::Delete => {}
            Some(e) => out.push(concrete(e.expected_index.unwrap())),
            None => out.push(calls[j].clone()),
        }
    }
    out
}

const MODES: [MatchMode; 5] = MatchMode::ALL;

/// The ordered modes against the quadratic oracle, and their scripts applied.
fn check_ordered(calls: &[ToolCall], reference: &[ToolCall]) -> Result<(), TestCaseError> {
    let (lcs, lev) = oracle(reference, calls);
    let exact = as_exact(reference);
    let strict = run(calls, MatchMode::Strict, exact.clone());
    let sub = run(calls, MatchMode::Subsequence, exact.clone());
    prop_assert_eq!(sub.matched, lcs);
    if !strict.passed {
        prop_assert_eq!(strict.matched, lcs);
        prop_assert_eq!(strict.edits.len(), lev);
        let fixed = apply(calls, &exact, &strict);
        prop_assert!(run(&fixed, MatchMode::Strict, exact.clone()).passed);
    }
    if !sub.passed {
        prop_assert_eq!(sub.edits.len(), reference.len() - lcs);
        prop_assert!(sub.edits.iter().all(|e| e.op != EditOp::Delete));
        let fixed = apply(calls, &exact, &sub);
        prop_assert!(run(&fixed, MatchMode::Subsequence, exact).passed);
    }
    Ok(())
}

proptest! {
    #[test]
    fn score_is_in_range_and_one_exactly_when_everything_pairs(
        calls in arb_calls(10), reference in arb_calls(10)
    ) {
        let reference = as_exact(&reference);
        for mode in MODES {
            let v = run(&calls, mode, reference.clone());
            prop_assert!((0.0..=1.0).contains(&v.score));
            prop_assert!((0.0..=1.0).contains(&v.precision));
            prop_assert!((0.0..=1.0).contains(&v.recall));
            let perfect = v.passed && v.matched == calls.len() && v.matched == reference.len();
            prop_assert_eq!(v.score == 1.0, perfect, "{} {:?}", mode, v);
        }
    }

    #[test]
    fn ordered_pairs_are_the_longest_alignment_and_scripts_are_shortest(
        calls in arb_calls(90), reference in arb_calls(90)
    ) {
        // Lengths up to 90 cross a 64-bit word, so the carry between words is exercised.
        check_ordered(&calls, &reference)?;
    }

    #[test]
    fn long_middles_go_through_the_classes_and_agree(
        calls in arb_calls(260), reference in arb_calls(260)
    ) {
        // Middles past 2^14 pairs are compared through classes of identical calls.
        check_ordered(&calls, &reference)?;
    }

    #[test]
    fn a_weaker_reference_never_scores_lower_in_unordered_modes(
        calls in arb_calls(10), reference in arb_calls(10)
    ) {
        // Loosening every argument shape to `any` can only add pairs.
        let exact = as_exact(&reference);
        let loose: Vec<ExpectedCall> =
            reference.iter().map(|c| ExpectedCall::by_name(c.name.clone())).collect();
        for mode in [MatchMode::Unordered, MatchMode::Superset, MatchMode::Subset, MatchMode::Subsequence, MatchMode::Strict] {
            let a = run(&calls, mode, exact.clone());
            let b = run(&calls, mode, loose.clone());
            prop_assert!(b.matched >= a.matched, "{}", mode);
        }
    }
}

/// In each unordered mode, the pairs are `best` (the size of a maximum matching), and the
/// verdict passes exactly when that covers the side the mode needs covered.
fn check_unordered_verdicts(
    calls: &[ToolCall],
    reference: &[ExpectedCall],
    best: usize,
) -> Result<(), TestCaseError> {
    for mode in [MatchMode::Unordered, MatchMode::Superset, MatchMode::Subset] {
        let v = run(calls, mode, reference.to_vec());
        prop_assert_eq!(v.matched, best, "{}", mode);
        let passes = match mode {
            MatchMode::Subset => best == calls.len(),
            _ => best == reference.len(),
        };
        prop_assert_eq!(v.passed, passes, "{}", mode);
        prop_assert_eq!(v.mismatches.is_empty(), passes, "{}", mode);
    }
    Ok(())
}

/// The largest one-to-one pairing, by brute force over subsets (small inputs only).
fn oracle_matching(reference: &[ExpectedCall], calls: &[ToolCall]) -> usize {
    fn accepts(e: &ExpectedCall, c: &ToolCall) -> bool {
        e.name == c.name
            && match &e.args {
                ExpectedArgs::Exact(a) => c.args.as_ref() == Some(a),
                _ => true,
            }
    }
    fn best(i: usize, used: u32, r: &[ExpectedCall], c: &[ToolCall]) -> usize {
        if i == r.len() {
            return 0;
        }
        let mut top = best(i + 1, used, r, c);
        for (j, call) in c.iter().enumerate() {
            if used & (1 << j) == 0 && accepts(&r[i], call) {
                top = top.max(1 + best(i + 1, used | (1 << j), r, c));
            }
        }
        top
    }
    best(0, 0, reference, calls)
}

proptest! {
    #[test]
    fn unordered_pairs_are_a_maximum_matching_even_on_greedy_traps(
        calls in arb_calls(7), reference in arb_calls(7), loose in prop::collection::vec(any::<bool>(), 7)
    ) {
        // Some reference calls pin exact arguments, others only the name: greedy traps.
        let reference: Vec<ExpectedCall> = reference
            .iter()
            .zip(&loose)
            .map(|(c, &l)| {
                let e = ExpectedCall::by_name(c.name.clone());
                if l { e } else { e.args_exact(c.args.clone().unwrap()) }
            })
            .collect();
        check_unordered_verdicts(&calls, &reference, oracle_matching(&reference, &calls))?;
    }
}

/// A maximum one-to-one pairing by augmenting paths (Kuhn), for inputs too large to brute
/// force; `accepts(i, j)` says whether reference call `i` pairs with recorded call `j`.
fn kuhn_matching(n: usize, m: usize, accepts: impl Fn(usize, usize) -> bool) -> usize {
    fn augment(
        i: usize,
        m: usize,
        accepts: &dyn Fn(usize, usize) -> bool,
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for j in 0..m {
            if accepts(i, j) && !seen[j] {
                seen[j] = true;
                if owner[j].is_none_or(|o| augment(o, m, accepts, seen, owner)) {
                    owner[j] = Some(i);
                    return true;
                }
            }
        }
        false
    }
    let mut owner = vec![None; m];
    (0..n)
        .filter(|&i| augment(i, m, &accepts, &mut vec![false; m], &mut owner))
        .count()
}

/// A recorded trace of 20 to 70 calls over three tools and a reference drawn from it: each
/// reference call pins a recorded call's exact arguments, a subset of them, or only its name,
/// and the reference is shuffled, shortened or lengthened. Sizes pass the direct scan's limit
/// of 512 pairs, so the chained pairing and its fallback are what is tested.
fn arb_large_case() -> impl Strategy<Value = (Vec<ToolCall>, Vec<ExpectedCall>)> {
    let calls = prop::collection::vec(
        (prop::sample::select(vec!["a", "b", "c"]), 0u8..4, 0u8..2),
        20..70,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(n, k, x)| ToolCall::new(n).with_args(json!({"k": k, "x": x})))
            .collect::<Vec<_>>()
    });
    (
        calls,
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..3), 20..75),
        any::<u64>(),
    )
        .prop_map(|(calls, picks, seed)| {
            let mut reference: Vec<ExpectedCall> = picks
                .iter()
                .map(|(at, shape)| {
                    let c = &calls[at.index(calls.len())];
                    let e = ExpectedCall::by_name(c.name.clone());
                    match shape {
                        0 => e.args_exact(c.args.clone().unwrap()),
                        1 => e.args_subset(json!({"k": c.args.as_ref().unwrap()["k"]})),
                        _ => e,
                    }
                })
                .collect();
            // A deterministic shuffle from the seed.
            let mut s = seed | 1;
            for i in (1..reference.len()).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                reference.swap(i, (s % (i as u64 + 1)) as usize);
            }
            (calls, reference)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn large_unordered_verdicts_are_a_maximum_matching((calls, reference) in arb_large_case()) {
        let accepts = |i: usize, j: usize| {
            let (e, c) = (&reference[i], &calls[j]);
            let args = c.args.as_ref().unwrap();
            e.name == c.name
                && match &e.args {
                    ExpectedArgs::Exact(a) => a == args,
                    ExpectedArgs::Subset(a) => a["k"] == args["k"],
                    _ => true,
                }
        };
        let best = kuhn_matching(reference.len(), calls.len(), accepts);
        check_unordered_verdicts(&calls, &reference, best)?;
    }
}
