//! Reliability reporting: run-count power analysis, the outcome summary, and the unbiased
//! pass@k / pass^k estimators, against every worked number of the product documents and
//! hand-computed cases.

use mcptest_core::eval::{
    ReliabilityError, ReliabilitySummary, confidence_band, pass_at, pass_hat, recommend_runs,
    summarize, try_confidence_band, try_pass_at, try_pass_hat, try_recommend_runs, z_score,
};
use proptest::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// "pass, pass, pass, fail" and friends, written the way a reader says them.
fn outcomes(s: &str) -> Vec<bool> {
    s.split(',')
        .map(|w| match w.trim() {
            "pass" => true,
            "fail" => false,
            other => panic!("not an outcome: {other}"),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The documents' worked numbers.

#[test]
fn five_points_at_95_percent_needs_385_runs() {
    // ceil((1.96 / 0.05)^2 * 0.25) = ceil(384.16) = 385 (f64 gives 384.1599999999999).
    assert_eq!(try_recommend_runs(0.05, 0.95), Ok(385));
}

#[test]
fn one_hundred_runs_at_95_percent_give_a_band_of_0_098() {
    // 1.96 * sqrt(0.25 / 100) = 1.96 * 0.05 = 0.098, "about 10 percent".
    let band = try_confidence_band(100, 0.95).unwrap();
    assert!(close(band, 0.098, 1e-12), "{band}");
}

#[test]
fn decay_curve_of_pass_pass_pass_fail() {
    let s = summarize(&outcomes("pass, pass, pass, fail"));
    // k=4: c=3, (3/4)^4 * 100 = 31.64 -> 31.
    assert_eq!(s.decay_curve, vec![100, 100, 100, 31]);
    assert_eq!(s.passhat_k, 31);
    assert_eq!(s.pass_at_k, 100);
    assert_eq!(s.runs, 4);
}

#[test]
fn graceful_degradation_weights_late_failures_more() {
    // Positions 1..=4 sum to 10. fail,pass,pass,pass: (2+3+4)/10 = 90.
    assert_eq!(
        summarize(&outcomes("fail, pass, pass, pass")).graceful_degradation,
        90
    );
    // pass,pass,pass,fail: (1+2+3)/10 = 60.
    assert_eq!(
        summarize(&outcomes("pass, pass, pass, fail")).graceful_degradation,
        60
    );
    assert_eq!(
        summarize(&outcomes("pass, pass, pass, pass")).graceful_degradation,
        100
    );
}

#[test]
fn variance_amplification_even_split_is_100_and_agreement_is_0() {
    assert_eq!(
        summarize(&outcomes("pass, fail, pass, fail")).variance_amplification,
        100
    );
    assert_eq!(
        summarize(&outcomes("fail, pass")).variance_amplification,
        100
    );
    assert_eq!(summarize(&[true; 7]).variance_amplification, 0);
    assert_eq!(summarize(&[false; 7]).variance_amplification, 0);
}

#[test]
fn z_table_values_are_exact() {
    assert_eq!(z_score(0.90), Ok(1.645));
    assert_eq!(z_score(0.95), Ok(1.96));
    assert_eq!(z_score(0.99), Ok(2.576));
}

// ---------------------------------------------------------------------------------------------
// Run counts and bands.

#[test]
fn recommend_runs_hand_computed() {
    // (1.645 / 0.05)^2 * 0.25 = 32.9^2 / 4 = 270.6025 -> 271.
    assert_eq!(try_recommend_runs(0.05, 0.90), Ok(271));
    // (2.576 / 0.05)^2 * 0.25 = 51.52^2 / 4 = 663.5776 -> 664.
    assert_eq!(try_recommend_runs(0.05, 0.99), Ok(664));
    // (1.96 / 0.1)^2 * 0.25 = 19.6^2 / 4 = 96.04 -> 97.
    assert_eq!(try_recommend_runs(0.1, 0.95), Ok(97));
    // (1.96 / 0.03)^2 * 0.25 = 1067.11 -> 1068.
    assert_eq!(try_recommend_runs(0.03, 0.95), Ok(1068));
    // A half-width wider than any interval still needs one run.
    assert_eq!(try_recommend_runs(5.0, 0.95), Ok(1));
}

#[test]
fn recommend_runs_does_not_round_float_noise_up() {
    // 196^2 / 4 = 9604 exactly; 1.96/0.098 = 20 exactly -> 100; these must not become 9605 / 101.
    assert_eq!(try_recommend_runs(0.01, 0.95), Ok(9604));
    assert_eq!(try_recommend_runs(0.098, 0.95), Ok(100));
    // (2 * 2.576 / 0.02)^2 / 16 = 4147.36 -> 4148 (genuinely above an integer).
    assert_eq!(try_recommend_runs(0.02, 0.99), Ok(4148));
}

#[test]
fn recommend_runs_inverts_confidence_band() {
    // The band of N runs asks for exactly N runs back. Naive ceil gets about a third of these
    // wrong (e.g. N = 3 -> 3.0000000000000004 -> 4).
    for confidence in [0.80, 0.90, 0.95, 0.99, 0.999] {
        for n in 1..=3000u64 {
            let band = try_confidence_band(n, confidence).unwrap();
            assert_eq!(
                try_recommend_runs(band, confidence),
                Ok(n),
                "n={n} confidence={confidence} band={band}"
            );
        }
    }
}

#[test]
fn confidence_band_hand_computed() {
    // 1.645 * sqrt(0.25 / 25) = 1.645 * 0.1 = 0.1645.
    assert!(close(try_confidence_band(25, 0.90).unwrap(), 0.1645, 1e-12));
    // 2.576 * 0.5 / 1 = 1.288.
    assert!(close(try_confidence_band(1, 0.99).unwrap(), 1.288, 1e-12));
}

#[test]
fn z_for_other_confidences_is_the_two_sided_normal_quantile() {
    // Reference values: Φ⁻¹(1 - (1 - c) / 2) to full double precision, computed as
    // -Φ⁻¹((1 - c) / 2) so that the reference itself loses nothing near c = 1.
    let cases = [
        (0.5, 0.6744897501960817),
        (0.8, 1.2815515655446008),
        (0.85, 1.4395314709384557),
        (0.975, 2.2414027276049446),
        (0.98, 2.3263478740408408),
        (0.995, 2.807033768343803),
        (0.999, 3.2905267314918945),
        (0.9999, 3.89059188641312),
        (0.999999999999, 7.130509892879272),
        (0.01, 0.012533469508069278),
        (0.1, 0.125661346855074),
    ];
    for (c, z) in cases {
        let got = z_score(c).unwrap();
        assert!(close(got, z, 1e-13), "c={c}: {got} vs {z}");
    }
    // Rounded to four places, as tables print them.
    assert_eq!((z_score(0.80).unwrap() * 1e4).round() / 1e4, 1.2816);
    assert_eq!((z_score(0.999).unwrap() * 1e4).round() / 1e4, 3.2905);
    // Near, but not at, a table entry: the quantile, not the table.
    assert!(close(z_score(0.950001).unwrap(), 1.96, 1e-3));
    assert_ne!(z_score(0.950001).unwrap(), 1.96);
}

#[test]
fn bad_inputs_are_errors_with_messages() {
    for hw in [0.0, -0.05, f64::NAN, f64::INFINITY] {
        let err = try_recommend_runs(hw, 0.95).unwrap_err();
        assert!(
            matches!(err, ReliabilityError::InvalidHalfWidth(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains("half-width"), "{err}");
    }
    for c in [0.0, 1.0, 1.5, -0.1, f64::NAN, 95.0] {
        let err = try_recommend_runs(0.05, c).unwrap_err();
        assert!(
            matches!(err, ReliabilityError::InvalidConfidence(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains("between 0 and 1"), "{err}");
        assert!(try_confidence_band(10, c).is_err());
        assert!(z_score(c).is_err());
    }
    assert_eq!(try_confidence_band(0, 0.95), Err(ReliabilityError::NoRuns));
    let err = try_recommend_runs(1e-300, 0.95).unwrap_err();
    assert!(
        matches!(err, ReliabilityError::TooManyRuns { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("wider"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The summary.

#[test]
fn summary_hand_computed_five_runs() {
    // pass, fail, pass, pass, fail: c_k = 1, 1, 2, 3, 3.
    // k=1: 1^1 = 100; k=2: (1/2)^2 = 25; k=3: (2/3)^3 = 8/27 = 29.6 -> 29;
    // k=4: (3/4)^4 = 81/256 = 31.6 -> 31; k=5: (3/5)^5 = 243/3125 = 7.78 -> 7.
    // popstd: p = 0.6, sqrt(0.24) = 0.4899; / 0.5 = 0.9798 -> 97.
    // graceful: passing positions 1 + 3 + 4 = 8 of 15 -> 53.3 -> 53.
    let s = summarize(&outcomes("pass, fail, pass, pass, fail"));
    assert_eq!(
        s,
        ReliabilitySummary {
            runs: 5,
            pass_at_k: 100,
            passhat_k: 7,
            decay_curve: vec![100, 25, 29, 31, 7],
            variance_amplification: 97,
            graceful_degradation: 53,
        }
    );
    let line = s.to_string();
    assert!(
        line.contains("passhat_k=7") && line.contains("[100, 25, 29, 31, 7]"),
        "{line}"
    );
}

#[test]
fn summary_of_no_outcomes_is_all_zero() {
    let s = summarize(&[]);
    assert_eq!(s.runs, 0);
    assert_eq!(s.pass_at_k, 0);
    assert_eq!(s.passhat_k, 0);
    assert!(s.decay_curve.is_empty());
    assert_eq!(s.variance_amplification, 0);
    assert_eq!(s.graceful_degradation, 0);
}

#[test]
fn summary_of_single_runs_and_all_fail() {
    let pass = summarize(&[true]);
    assert_eq!(
        (pass.pass_at_k, pass.passhat_k, pass.graceful_degradation),
        (100, 100, 100)
    );
    let fail = summarize(&[false]);
    assert_eq!(
        (fail.pass_at_k, fail.passhat_k, fail.graceful_degradation),
        (0, 0, 0)
    );
    let all_fail = summarize(&[false; 6]);
    assert_eq!(all_fail.decay_curve, vec![0; 6]);
    assert_eq!(all_fail.pass_at_k, 0);
}

#[test]
fn exact_integer_percents_are_not_truncated_by_float_noise() {
    // (1/2)^2 * 100 = 25 exactly.
    assert_eq!(summarize(&outcomes("fail, pass")).decay_curve, vec![0, 25]);
    // One pass in five: popstd = sqrt(0.16) = 0.4 -> 0.4 / 0.5 = 80 exactly (0.39999.. in f64).
    assert_eq!(
        summarize(&outcomes("pass, fail, fail, fail, fail")).variance_amplification,
        80
    );
    // One pass in ten: sqrt(0.09) = 0.3 -> 60 exactly.
    let mut ten = vec![false; 10];
    ten[4] = true;
    assert_eq!(summarize(&ten).variance_amplification, 60);
    // 24 runs, positions sum to 300; passes at 18, 22, 23, 24 sum to 87 -> 29 exactly
    // (87 / 300 * 100 is 28.999999999999996 in f64).
    let mut runs = vec![false; 24];
    for p in [18, 22, 23, 24] {
        runs[p - 1] = true;
    }
    assert_eq!(summarize(&runs).graceful_degradation, 29);
}

#[test]
fn long_decay_curve_uses_large_k_correctly() {
    // First run fails, the rest pass: entry k = floor(((k-1)/k)^k * 100), tending to 100/e.
    // Exact values (rational arithmetic): k=2 -> 25, 3 -> 29, 10 -> 34, 25 -> 36, 26 -> 36,
    // 30 -> 36, 50 -> 36, 100 -> 36.
    let mut runs = vec![true; 100];
    runs[0] = false;
    let s = summarize(&runs);
    assert_eq!(s.decay_curve.len(), 100);
    for (k, want) in [
        (2, 25),
        (3, 29),
        (10, 34),
        (25, 36),
        (26, 36),
        (30, 36),
        (50, 36),
        (100, 36),
    ] {
        assert_eq!(s.decay_curve[k - 1], want, "k={k}");
    }
    assert_eq!(s.decay_curve[0], 0);
    assert_eq!(s.passhat_k, 36);
    let all = summarize(&[true; 1000]);
    assert!(all.decay_curve.iter().all(|&e| e == 100));
    assert_eq!(all.graceful_degradation, 100);
}

#[test]
fn summary_serializes_with_target_names() {
    let s = summarize(&outcomes("pass, pass, pass, fail"));
    let v = serde_json::to_value(&s).unwrap();
    // The pass-rate metrics come from the Wilson interval, not the summary.
    let interval = ["passes", "pass_rate", "lower_bound", "upper_bound"];
    for key in mcptest_core::spec::gate_metrics("reliability") {
        if interval.contains(&key) {
            continue;
        }
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    let back: ReliabilitySummary = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
}

// ---------------------------------------------------------------------------------------------
// Unbiased estimators.

#[test]
fn pass_at_and_pass_hat_hand_computed() {
    // n=10, c=3, k=2: C(10,2) = 45, C(7,2) = 21, C(3,2) = 3.
    assert!(close(try_pass_at(10, 3, 2).unwrap(), 24.0 / 45.0, 1e-14));
    assert!(close(try_pass_hat(10, 3, 2).unwrap(), 3.0 / 45.0, 1e-14));
    // k = 1: both are the pass rate c / n.
    assert_eq!(try_pass_at(8, 2, 1), Ok(0.25));
    assert_eq!(try_pass_hat(8, 2, 1), Ok(0.25));
    // k = n: pass@n is "any passed", pass^n is "all passed".
    assert_eq!(try_pass_at(5, 1, 5), Ok(1.0));
    assert_eq!(try_pass_at(5, 0, 5), Ok(0.0));
    assert_eq!(try_pass_hat(5, 4, 5), Ok(0.0));
    assert_eq!(try_pass_hat(5, 5, 5), Ok(1.0));
    // Fewer failures than k: every draw contains a pass.
    assert_eq!(try_pass_at(10, 8, 3), Ok(1.0));
    // Fewer passes than k: no draw is all passes.
    assert_eq!(try_pass_hat(10, 2, 3), Ok(0.0));
}

#[test]
fn estimators_are_stable_at_ten_thousand_runs() {
    // Reference: exact big-integer binomials. n=10000, c=1000, k=50.
    let at = try_pass_at(10_000, 1_000, 50).unwrap();
    assert!(close(at, 0.9949161401492811, 1e-12), "{at}");
    let hat = try_pass_hat(10_000, 1_000, 50).unwrap();
    assert!((hat / 3.252941451744153e-51 - 1.0).abs() < 1e-10, "{hat}");
    // Huge k underflows gracefully to 0, never NaN.
    assert_eq!(try_pass_hat(10_000, 5_000, 5_000), Ok(0.0));
    assert_eq!(try_pass_at(10_000, 5_000, 5_001), Ok(1.0));
    // A tiny pass rate keeps its precision: 1 - (1 - 1/10000) = 1e-4 for k = 1 ... and k = 2:
    // 1 - C(9999,2)/C(10000,2) = 2/10000.
    assert!(close(try_pass_at(10_000, 1, 2).unwrap(), 2e-4, 1e-12));
}

#[test]
fn estimators_reject_impossible_counts() {
    assert_eq!(
        try_pass_at(5, 6, 1),
        Err(ReliabilityError::PassesExceedRuns { runs: 5, passes: 6 })
    );
    assert_eq!(
        try_pass_hat(5, 2, 0),
        Err(ReliabilityError::InvalidK { runs: 5, k: 0 })
    );
    assert_eq!(
        try_pass_hat(5, 2, 6),
        Err(ReliabilityError::InvalidK { runs: 5, k: 6 })
    );
    assert_eq!(
        try_pass_at(0, 0, 1),
        Err(ReliabilityError::InvalidK { runs: 0, k: 1 })
    );
    assert!(
        try_pass_at(5, 2, 9)
            .unwrap_err()
            .to_string()
            .contains("k must be")
    );
}

// ---------------------------------------------------------------------------------------------
// Properties.

proptest! {
    #[test]
    fn pass_at_is_at_least_pass_hat(n in 1u64..3000, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0) {
        let c = ((n as f64) * c_frac).round() as u64;
        let k = 1 + (((n - 1) as f64) * k_frac).round() as u64;
        let at = try_pass_at(n, c, k).unwrap();
        let hat = try_pass_hat(n, c, k).unwrap();
        prop_assert!((0.0..=1.0).contains(&at), "{at}");
        prop_assert!((0.0..=1.0).contains(&hat), "{hat}");
        prop_assert!(at >= hat, "pass@{k} {at} < pass^{k} {hat} (n={n}, c={c})");
    }

    #[test]
    fn summary_fields_stay_in_range(outcomes in proptest::collection::vec(any::<bool>(), 0..120)) {
        let s = summarize(&outcomes);
        prop_assert_eq!(s.runs as usize, outcomes.len());
        prop_assert_eq!(s.decay_curve.len(), outcomes.len());
        prop_assert!(s.decay_curve.iter().all(|&e| e <= 100));
        prop_assert_eq!(s.passhat_k, s.decay_curve.last().copied().unwrap_or(0));
        prop_assert!(s.pass_at_k == 0 || s.pass_at_k == 100);
        prop_assert!(s.variance_amplification <= 100);
        prop_assert!(s.graceful_degradation <= 100);
        let passes = outcomes.iter().filter(|&&o| o).count();
        prop_assert_eq!(s.pass_at_k == 100, passes > 0);
        if passes == outcomes.len() && passes > 0 {
            prop_assert_eq!(s.graceful_degradation, 100);
            prop_assert_eq!(s.variance_amplification, 0);
        }
    }

    #[test]
    fn decay_entries_match_rational_arithmetic(c in 0u64..=12, extra in 0u64..=12) {
        // k <= 24: compare with an f64 computation nudged by a tolerance that cannot cross an
        // integer boundary except at exact integers.
        let k = c + extra;
        prop_assume!(k >= 1);
        let mut runs = vec![true; c as usize];
        runs.extend(std::iter::repeat_n(false, extra as usize));
        let got = *summarize(&runs).decay_curve.last().unwrap();
        let x = (c as f64 / k as f64).powi(k as i32) * 100.0;
        let want = (x + 1e-9).floor() as u32;
        prop_assert_eq!(got, want, "c={} k={} x={}", c, k, x);
    }

    #[test]
    fn recommended_runs_meet_the_band(hw in 0.005f64..0.5, idx in 0usize..5) {
        let confidence = [0.80, 0.90, 0.95, 0.99, 0.999][idx];
        let n = try_recommend_runs(hw, confidence).unwrap();
        // N runs reach the half-width (within rounding); N - 1 runs do not.
        prop_assert!(try_confidence_band(n, confidence).unwrap() <= hw * (1.0 + 1e-9));
        if n > 1 {
            prop_assert!(try_confidence_band(n - 1, confidence).unwrap() > hw * (1.0 - 1e-9));
        }
    }
}

#[test]
fn infallible_forms_keep_the_documented_signatures() {
    // The names the design fixes: plain numbers, with saturating answers for impossible input.
    let n: u64 = recommend_runs(0.05, 0.95);
    assert_eq!(n, 385);
    let band: f64 = confidence_band(100, 0.95);
    assert!(close(band, 0.098, 1e-12));
    assert_eq!(recommend_runs(-0.1, 0.95), u64::MAX);
    assert_eq!(recommend_runs(0.05, 1.0), u64::MAX);
    assert_eq!(confidence_band(0, 0.95), f64::INFINITY);
    assert!(confidence_band(10, 0.0).is_nan());
    assert!(close(pass_at(10, 3, 2), 24.0 / 45.0, 1e-12));
    assert!(close(pass_hat(10, 3, 2), 3.0 / 45.0, 1e-12));
    assert!(pass_hat(2, 3, 1).is_nan());
    assert!(pass_at(5, 2, 0).is_nan());
}

// ---- pass-rate decisions by the Wilson interval --------------------------------------------

mod pass_rate {
    use mcptest_core::eval::{
        PassRateDecision, ReliabilityError, decide_pass_rate, wilson_interval,
    };
    use proptest::prelude::*;

    fn runs(passes: usize, fails: usize) -> Vec<bool> {
        let mut v = vec![true; passes];
        v.extend(vec![false; fails]);
        v
    }

    #[test]
    fn the_documents_three_outcomes_at_p_090_c_095() {
        let three = decide_pass_rate(&runs(3, 0), 0.9, 0.95).unwrap();
        assert_eq!(three.decision, PassRateDecision::Inconclusive);
        assert_eq!(
            format!("{:.3} {:.3}", three.lower, three.upper),
            "0.438 1.000"
        );
        // All passing: lower = N / (N + z²) >= 0.9 from N = 9 · 1.96² = 34.57, so 35.
        assert_eq!(three.runs_needed, Some(35));
        assert!(three.advice().contains("about 35 runs in all (32 more)"));

        let one_of_three = decide_pass_rate(&runs(1, 2), 0.9, 0.95).unwrap();
        assert_eq!(one_of_three.decision, PassRateDecision::Fail);
        assert_eq!(
            format!("{:.3} {:.3}", one_of_three.lower, one_of_three.upper),
            "0.061 0.792"
        );
        assert_eq!(one_of_three.runs_needed, None);

        let forty = decide_pass_rate(&runs(40, 0), 0.9, 0.95).unwrap();
        assert_eq!(forty.decision, PassRateDecision::Pass);
        assert_eq!(format!("{:.3}", forty.lower), "0.912");
    }

    #[test]
    fn eight_of_ten_by_hand() {
        // p = 0.8, n = 10, z² = 3.8416: denominator 1.38416, center 0.716738,
        // half-width 1.416021 · sqrt(0.016 + 0.009604) = 0.226580.
        let (lo, hi) = wilson_interval(8, 10, 0.95).unwrap();
        assert!((lo - 0.490158).abs() < 1e-5, "{lo}");
        assert!((hi - 0.943318).abs() < 1e-5, "{hi}");
        let at = |floor| decide_pass_rate(&runs(8, 2), floor, 0.95).unwrap();
        assert_eq!(at(0.49).decision, PassRateDecision::Pass);
        assert_eq!(at(0.5).decision, PassRateDecision::Inconclusive);
        assert_eq!(at(0.95).decision, PassRateDecision::Fail);
        // At p = 0.8 and n = 11: denominator 1.349236, center 0.722344, half-width
        // 1.452674 · sqrt(0.014545 + 0.007937) = 0.217815, lower 0.504529 >= 0.5.
        assert_eq!(at(0.5).runs_needed, Some(11));
    }

    #[test]
    fn a_rate_on_the_floor_and_no_runs_are_undecidable() {
        let on_floor = decide_pass_rate(&runs(1, 1), 0.5, 0.95).unwrap();
        assert_eq!(on_floor.decision, PassRateDecision::Inconclusive);
        assert_eq!(on_floor.runs_needed, None);
        assert!(on_floor.advice().contains("sits on the floor"));
        let none = decide_pass_rate(&[], 0.9, 0.95).unwrap();
        assert_eq!(none.decision, PassRateDecision::Inconclusive);
        assert_eq!((none.lower, none.upper), (0.0, 1.0));
        assert!(none.advice().contains("record runs"));
        // A floor of 0 is met by anything; a floor of 1 is never shown by a finite sample.
        assert_eq!(
            decide_pass_rate(&[], 0.0, 0.95).unwrap().decision,
            PassRateDecision::Pass
        );
        let perfect = decide_pass_rate(&runs(1000, 0), 1.0, 0.95).unwrap();
        assert_eq!(perfect.decision, PassRateDecision::Inconclusive);
        assert_eq!(perfect.runs_needed, None);
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert_eq!(
            decide_pass_rate(&[true], 1.5, 0.95).unwrap_err(),
            ReliabilityError::InvalidPassRate(1.5)
        );
        assert!(decide_pass_rate(&[true], 0.9, 1.0).is_err());
        assert!(decide_pass_rate(&[true], f64::NAN, 0.95).is_err());
        assert!(wilson_interval(3, 2, 0.95).is_err());
    }

    proptest! {
        #[test]
        fn the_interval_holds_the_rate_and_the_decision_follows_it(
            passes in 0u64..200, fails in 0u64..200, floor in 0.0f64..=1.0
        ) {
            let n = passes + fails;
            let (lo, hi) = wilson_interval(passes, n, 0.95).unwrap();
            prop_assert!(0.0 <= lo && lo <= hi && hi <= 1.0);
            if n > 0 {
                let p = passes as f64 / n as f64;
                prop_assert!(lo <= p + 1e-12 && p <= hi + 1e-12);
            }
            let v = decide_pass_rate(&runs(passes as usize, fails as usize), floor, 0.95).unwrap();
            let expected = if lo >= floor {
                PassRateDecision::Pass
            } else if hi < floor {
                PassRateDecision::Fail
            } else {
                PassRateDecision::Inconclusive
            };
            prop_assert_eq!(v.decision, expected);
            if let Some(need) = v.runs_needed {
                prop_assert!(need >= n);
            }
        }

        #[test]
        fn more_passing_runs_never_turn_a_pass_into_anything_else(
            passes in 1u64..300, floor in 0.0f64..0.99
        ) {
            let a = decide_pass_rate(&runs(passes as usize, 0), floor, 0.95).unwrap();
            let b = decide_pass_rate(&runs(passes as usize + 1, 0), floor, 0.95).unwrap();
            if a.decision == PassRateDecision::Pass {
                prop_assert_eq!(b.decision, PassRateDecision::Pass);
            }
        }
    }
}
