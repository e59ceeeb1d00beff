//! Reliability: how much confidence N runs buy, and how the pass/fail outcomes of a multi-run
//! test hang together.
//!
//! One green run does not prove a non-deterministic agent reliable. This module is pure
//! arithmetic over run counts and pass/fail outcomes.
//!
//! # How many runs: [`recommend_runs`] and [`confidence_band`]
//!
//! The normal-approximation (Wald) interval of a pass rate `p` over `N` runs has half-width
//! `z * sqrt(p (1 - p) / N)`. `p (1 - p)` peaks at `p = 0.5`, so solving at that worst case
//! holds for any observed rate:
//!
//! ```text
//! N          = ceil((z / half_width)^2 * 0.25)        recommend_runs
//! half_width = z * sqrt(0.25 / N)                      confidence_band
//! ```
//!
//! `z` is 1.645, 1.96 and 2.576 for confidence 0.90, 0.95 and 0.99 exactly (the published
//! table), and the two-sided normal quantile `Φ⁻¹(1 - (1 - c) / 2)` for any other confidence
//! `c` in (0, 1) ([`z_score`]). A 5% half-width at 95% takes 385 runs; 100 runs at 95% give a
//! worst-case half-width of 0.098.
//!
//! # What the outcomes say: [`summarize`]
//!
//! For outcomes `o_1..o_N` (true = pass), with `c_k` the passes among the first `k` runs, every
//! percent truncated to an integer (floor):
//!
//! * `pass_at_k`: 100 when any run passed, else 0 (pass@k with k = N);
//! * `decay_curve[k - 1] = floor((c_k / k)^k * 100)`, the cumulative pass^k for k = 1..=N;
//!   `passhat_k` is its last entry (pass, pass, pass, fail -> `[100, 100, 100, 31]`, 31);
//! * `variance_amplification = floor(popstd(o) / 0.5 * 100)`: 0 when every run agrees, 100 for
//!   an even split;
//! * `graceful_degradation = floor(100 * Σ{i : o_i passed} i / Σ i)` with 1-based positions `i`:
//!   100 when every run passed, and a late failure costs more than an early one
//!   (fail, pass, pass, pass -> 90; pass, pass, pass, fail -> 60).
//!
//! The percents are computed in integer arithmetic wherever the numbers allow, so a value that
//! is exactly an integer (`(1/2)^2 * 100 = 25`) never truncates to the one below. No outcome at
//! all is no evidence: every field is 0 and the curve is empty.
//!
//! # Is the pass rate high enough: [`decide_pass_rate`]
//!
//! A gate on a pass rate decides only what the runs support. With `c` passes in `n` runs,
//! `p̂ = c / n` and `z` as above, the Wilson score interval is
//!
//! ```text
//! center = (p̂ + z²/2n) / (1 + z²/n)
//! half   = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²)
//! [lower, upper] = [center − half, center + half]   (clamped to [0, 1]; [0, 1] when n = 0)
//! ```
//!
//! and against a floor `P` the verdict is **pass** when `lower ≥ P`, **fail** when
//! `upper < P`, and **inconclusive** otherwise. Three passes out of three at `P = 0.9`, 95%:
//! `[0.438, 1.000]`, inconclusive; one of three: `[0.061, 0.792]`, fail; forty of forty:
//! `[0.912, 1.000]`, pass. An inconclusive verdict carries the number of runs that would
//! decide it if the observed pass rate held (the smallest `N ≥ n` whose interval at `p̂`
//! clears `P`): 35 for three passes out of three, since with every run passing
//! `lower = N / (N + z²)`. None is given when `p̂ = P` exactly, or when no `N` up to 10⁹ does.
//!
//! [`pass_at`] and [`pass_hat`] are the unbiased estimators for a report that picks `k < n`:
//! `1 - C(n - c, k) / C(n, k)` and `C(c, k) / C(n, k)` for `c` passes out of `n` runs, computed
//! as products of ratios (no factorials, no overflow).
//!
//! Invalid input (a non-positive or NaN half-width, a confidence outside (0, 1), zero runs,
//! more passes than runs, `k` outside `1..=n`) never panics: the plain functions saturate
//! (`u64::MAX` runs, an infinite band, NaN), and each has a `try_` form that returns a
//! [`ReliabilityError`] saying what is wrong.
//!
//! ```
//! use mcptest_core::eval::{confidence_band, recommend_runs, summarize};
//!
//! assert_eq!(recommend_runs(0.05, 0.95), 385);
//! assert!((confidence_band(100, 0.95) - 0.098).abs() < 1e-12);
//!
//! let summary = summarize(&[true, true, true, false]);
//! assert_eq!(summary.decay_curve, vec![100, 100, 100, 31]);
//! assert_eq!((summary.pass_at_k, summary.passhat_k), (100, 31));
//! assert_eq!(summary.graceful_degradation, 60);
//! assert_eq!(summary.variance_amplification, 86); // popstd sqrt(3/16) = 0.433
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a reliability computation could not answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ReliabilityError {
    /// The half-width is zero, negative, infinite or NaN.
    InvalidHalfWidth(f64),
    /// The confidence is not strictly between 0 and 1.
    InvalidConfidence(f64),
    /// A band for zero runs.
    NoRuns,
    /// The recommended run count is beyond 2^53 (the half-width is too small to be useful).
    TooManyRuns {
        /// The half-width asked for.
        half_width: f64,
    },
    /// More passes than runs.
    PassesExceedRuns {
        /// Runs `n`.
        runs: u64,
        /// Passes `c`.
        passes: u64,
    },
    /// A pass-rate floor outside 0..=1.
    InvalidPassRate(f64),
    /// `k` outside `1..=n`.
    InvalidK {
        /// Runs `n`.
        runs: u64,
        /// The `k` asked for.
        k: u64,
    },
}

impl fmt::Display for ReliabilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReliabilityError::InvalidHalfWidth(hw) => write!(
                f,
                "half-width must be a positive number (0.05 for plus or minus 5 points), got {hw}"
            ),
            ReliabilityError::InvalidConfidence(c) => write!(
                f,
                "confidence must be strictly between 0 and 1 (0.95 for 95 percent), got {c}"
            ),
            ReliabilityError::NoRuns => write!(f, "the number of runs must be at least 1"),
            ReliabilityError::TooManyRuns { half_width } => write!(
                f,
                "half-width {half_width} needs more runs than can be counted; choose a wider band"
            ),
            ReliabilityError::PassesExceedRuns { runs, passes } => write!(
                f,
                "{passes} passes out of {runs} runs: passes cannot exceed runs"
            ),
            ReliabilityError::InvalidPassRate(p) => write!(
                f,
                "min_pass_rate must be between 0 and 1 (0.9 for 90 percent), got {p}"
            ),
            ReliabilityError::InvalidK { runs, k } => write!(
                f,
                "k must be between 1 and the number of runs ({runs}), got {k}"
            ),
        }
    }
}

impl std::error::Error for ReliabilityError {}

/// The standard-normal critical value `z` for a two-sided `confidence`.
///
/// 0.90, 0.95 and 0.99 give the table values 1.645, 1.96 and 2.576 exactly; any other
/// confidence in (0, 1) gives `Φ⁻¹(1 - (1 - c) / 2)`, accurate to about 1e-15 relative
/// (Wichura's AS241).
///
/// ```
/// use mcptest_core::eval::z_score;
/// assert_eq!(z_score(0.95)?, 1.96);
/// assert!((z_score(0.80)? - 1.2815515655446004).abs() < 1e-12);
/// assert!(z_score(1.0).is_err());
/// # Ok::<(), mcptest_core::eval::ReliabilityError>(())
/// ```
pub fn z_score(confidence: f64) -> Result<f64, ReliabilityError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(ReliabilityError::InvalidConfidence(confidence));
    }
    let table = if confidence == 0.90 {
        Some(1.645)
    } else if confidence == 0.95 {
        Some(1.96)
    } else if confidence == 0.99 {
        Some(2.576)
    } else {
        None
    };
    // The upper tail (1 - c) / 2 is computed directly, so a confidence near 1 loses nothing.
    Ok(table.unwrap_or_else(|| -normal_quantile((1.0 - confidence) / 2.0)))
}

/// The worst-case (p = 0.5) number of runs for a pass-rate interval no wider than
/// `± half_width` at `confidence`: `ceil((z / half_width)^2 * 0.25)`, at least 1.
///
/// A product that lands within rounding noise of an integer counts as that integer, so
/// `recommend_runs(0.098, 0.95)` is 100, not 101.
///
/// Input no run count can satisfy (a half-width that is not a positive finite number, a
/// confidence outside (0, 1), or more than 2^53 runs) gives `u64::MAX`; use
/// [`try_recommend_runs`] to learn why.
///
/// ```
/// use mcptest_core::eval::recommend_runs;
/// assert_eq!(recommend_runs(0.05, 0.95), 385);
/// assert_eq!(recommend_runs(0.0, 0.95), u64::MAX);
/// ```
pub fn recommend_runs(half_width: f64, confidence: f64) -> u64 {
    try_recommend_runs(half_width, confidence).unwrap_or(u64::MAX)
}

/// [`recommend_runs`], with an error saying which input no run count can satisfy.
pub fn try_recommend_runs(half_width: f64, confidence: f64) -> Result<u64, ReliabilityError> {
    if !(half_width > 0.0 && half_width.is_finite()) {
        return Err(ReliabilityError::InvalidHalfWidth(half_width));
    }
    let z = z_score(confidence)?;
    let ratio = z / half_width;
    let runs = ratio * ratio * 0.25;
    // 2^53: beyond it, f64 no longer counts every integer.
    if !runs.is_finite() || runs > 9_007_199_254_740_992.0 {
        return Err(ReliabilityError::TooManyRuns { half_width });
    }
    let nearest = runs.round();
    let runs = if (runs - nearest).abs() <= 1e-9 * nearest.max(1.0) {
        nearest
    } else {
        runs.ceil()
    };
    Ok((runs as u64).max(1))
}

/// The worst-case (p = 0.5) half-width of the pass-rate interval after `runs` runs at
/// `confidence`: `z * sqrt(0.25 / runs)`.
///
/// Zero runs give `f64::INFINITY` (no evidence bounds nothing); a confidence outside (0, 1)
/// gives NaN. [`try_confidence_band`] reports both as errors.
///
/// ```
/// use mcptest_core::eval::confidence_band;
/// assert!((confidence_band(100, 0.95) - 0.098).abs() < 1e-12);
/// assert_eq!(confidence_band(0, 0.95), f64::INFINITY);
/// ```
pub fn confidence_band(runs: u64, confidence: f64) -> f64 {
    match try_confidence_band(runs, confidence) {
        Ok(band) => band,
        Err(ReliabilityError::NoRuns) => f64::INFINITY,
        Err(_) => f64::NAN,
    }
}

/// [`confidence_band`], with an error for zero runs or a confidence outside (0, 1).
pub fn try_confidence_band(runs: u64, confidence: f64) -> Result<f64, ReliabilityError> {
    if runs == 0 {
        return Err(ReliabilityError::NoRuns);
    }
    let z = z_score(confidence)?;
    Ok(z * (0.25 / runs as f64).sqrt())
}

/// The reliability statistics of one multi-run test's pass/fail outcomes
/// (`reliability.*` targets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReliabilitySummary {
    /// How many outcomes were summarized.
    pub runs: u64,
    /// pass@k with k = runs, as a percent: 100 when any run passed, else 0.
    pub pass_at_k: u32,
    /// pass^k with k = runs, as a truncated percent: the last entry of `decay_curve`.
    pub passhat_k: u32,
    /// `decay_curve[k - 1] = floor((c_k / k)^k * 100)` for k = 1..=runs, `c_k` the passes among
    /// the first k runs.
    pub decay_curve: Vec<u32>,
    /// `floor(popstd / 0.5 * 100)` of the pass indicators: 0 all agree, 100 an even split.
    pub variance_amplification: u32,
    /// `floor(100 * Σ positions of passing runs / Σ all positions)`, 1-based positions.
    pub graceful_degradation: u32,
}

impl fmt::Display for ReliabilitySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reliability: runs={} pass_at_k={} passhat_k={} variance_amplification={} \
             graceful_degradation={} decay_curve={:?}",
            self.runs,
            self.pass_at_k,
            self.passhat_k,
            self.variance_amplification,
            self.graceful_degradation,
            self.decay_curve
        )
    }
}

/// Summarizes the pass/fail `outcomes` of one multi-run test, in run order.
///
/// No outcome gives `runs` 0, every percent 0 and an empty curve (no evidence passes nothing).
pub fn summarize(outcomes: &[bool]) -> ReliabilitySummary {
    let runs = outcomes.len() as u64;
    let mut decay_curve = Vec::with_capacity(outcomes.len());
    let mut passes = 0u64;
    let mut pass_positions = 0u128;
    for (i, &passed) in outcomes.iter().enumerate() {
        let k = i as u64 + 1;
        if passed {
            passes += 1;
            pass_positions += u128::from(k);
        }
        decay_curve.push(decay_entry(passes, k));
    }
    let all_positions = u128::from(runs) * (u128::from(runs) + 1) / 2;
    ReliabilitySummary {
        runs,
        pass_at_k: if passes > 0 { 100 } else { 0 },
        passhat_k: decay_curve.last().copied().unwrap_or(0),
        decay_curve,
        variance_amplification: variance_amplification(passes, runs),
        graceful_degradation: floor_percent(pass_positions, all_positions),
    }
}

/// `floor((c / k)^k * 100)`, exact in integers while `100 * c^k` and `k^k` fit in a `u128`.
fn decay_entry(c: u64, k: u64) -> u32 {
    if c == k {
        return 100;
    }
    if c == 0 {
        return 0;
    }
    let exact = u32::try_from(k).ok().and_then(|e| {
        let num = u128::from(c).checked_pow(e)?.checked_mul(100)?;
        let den = u128::from(k).checked_pow(e)?;
        Some(num / den)
    });
    match exact {
        Some(p) => p as u32, // c < k, so p < 100
        // Here c < k and k > 25: the true value is never an integer (k^k would have to divide
        // 100 c^k), so a plain floor is exact up to rounding far below one percent.
        None => ((c as f64 / k as f64).powf(k as f64) * 100.0)
            .floor()
            .clamp(0.0, 99.0) as u32,
    }
}

/// `floor(popstd / 0.5 * 100)` of `passes` ones among `runs` indicators:
/// `floor(200 * sqrt(c (n - c)) / n) = floor(isqrt(40000 c (n - c)) / n)`, exact in integers.
fn variance_amplification(passes: u64, runs: u64) -> u32 {
    if runs == 0 {
        return 0;
    }
    let (c, n) = (u128::from(passes), u128::from(runs));
    match (c * (n - c)).checked_mul(40_000) {
        Some(x) => (x.isqrt() / n).min(100) as u32,
        None => {
            let p = passes as f64 / runs as f64;
            ((p * (1.0 - p)).sqrt() * 200.0).floor().clamp(0.0, 100.0) as u32
        }
    }
}

/// `floor(100 * part / whole)`, 0 when `whole` is 0.
fn floor_percent(part: u128, whole: u128) -> u32 {
    if whole == 0 {
        return 0;
    }
    match part.checked_mul(100) {
        Some(p) => (p / whole).min(100) as u32,
        None => ((part as f64 / whole as f64) * 100.0)
            .floor()
            .clamp(0.0, 100.0) as u32,
    }
}

/// The unbiased pass@k estimator: the chance that at least one of `k` runs drawn without
/// replacement from `n` runs with `c` passes passed, `1 - C(n - c, k) / C(n, k)`.
///
/// Computed as `1 - Π_{i<k} (1 - c / (n - i))` in log space (`ln_1p`, `exp_m1`), so it is
/// accurate for small rates and never overflows (n in the millions is fine). Never reported
/// below [`pass_hat`] of the same arguments. NaN when `c > n` or `k` is outside `1..=n`
/// ([`try_pass_at`] says which).
///
/// ```
/// use mcptest_core::eval::{pass_at, pass_hat};
/// // 10 runs, 3 passes, k = 2: 1 - C(7,2)/C(10,2) = 1 - 21/45, and C(3,2)/C(10,2) = 3/45.
/// assert!((pass_at(10, 3, 2) - 24.0 / 45.0).abs() < 1e-12);
/// assert!((pass_hat(10, 3, 2) - 3.0 / 45.0).abs() < 1e-12);
/// assert!(pass_at(3, 4, 1).is_nan());
/// ```
pub fn pass_at(n: u64, c: u64, k: u64) -> f64 {
    try_pass_at(n, c, k).unwrap_or(f64::NAN)
}

/// [`pass_at`], with an error when `c > n` or `k` is outside `1..=n`.
pub fn try_pass_at(n: u64, c: u64, k: u64) -> Result<f64, ReliabilityError> {
    let hat = try_pass_hat(n, c, k)?;
    let at = if k == 1 {
        c as f64 / n as f64
    } else if n - c < k {
        1.0 // every draw of k contains a pass
    } else if c == 0 {
        0.0
    } else {
        let log_none: f64 = (0..k).map(|i| (-(c as f64) / (n - i) as f64).ln_1p()).sum();
        -log_none.exp_m1()
    };
    Ok(at.clamp(0.0, 1.0).max(hat))
}

/// The unbiased pass^k estimator: the chance that all of `k` runs drawn without replacement
/// from `n` runs with `c` passes passed, `C(c, k) / C(n, k) = Π_{i<k} (c - i) / (n - i)`.
///
/// NaN when `c > n` or `k` is outside `1..=n` ([`try_pass_hat`] says which).
pub fn pass_hat(n: u64, c: u64, k: u64) -> f64 {
    try_pass_hat(n, c, k).unwrap_or(f64::NAN)
}

/// [`pass_hat`], with an error when `c > n` or `k` is outside `1..=n`.
pub fn try_pass_hat(n: u64, c: u64, k: u64) -> Result<f64, ReliabilityError> {
    check_counts(n, c, k)?;
    if c < k {
        return Ok(0.0);
    }
    if c == n {
        return Ok(1.0);
    }
    let mut product = 1.0f64;
    for i in 0..k {
        product *= (c - i) as f64 / (n - i) as f64;
        if product == 0.0 {
            break; // underflow: every later factor is at most 1
        }
    }
    Ok(product.clamp(0.0, 1.0))
}

/// The Wilson score interval of `passes` out of `runs` at `confidence` (see the
/// [module docs](self)); `(0.0, 1.0)` for zero runs.
///
/// ```
/// use mcptest_core::eval::wilson_interval;
/// let (lo, hi) = wilson_interval(3, 3, 0.95)?;
/// assert_eq!((format!("{lo:.3}"), hi), ("0.438".to_string(), 1.0));
/// # Ok::<(), mcptest_core::eval::ReliabilityError>(())
/// ```
pub fn wilson_interval(
    passes: u64,
    runs: u64,
    confidence: f64,
) -> Result<(f64, f64), ReliabilityError> {
    let z = z_score(confidence)?;
    if passes > runs {
        return Err(ReliabilityError::PassesExceedRuns { runs, passes });
    }
    if runs == 0 {
        return Ok((0.0, 1.0));
    }
    Ok(wilson_at(passes as f64 / runs as f64, runs as f64, z))
}

fn wilson_at(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let lower = if p == 0.0 { 0.0 } else { center - half };
    let upper = if p == 1.0 { 1.0 } else { center + half };
    (lower.clamp(0.0, 1.0), upper.clamp(0.0, 1.0))
}

/// The three outcomes of a pass-rate gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassRateDecision {
    /// The interval's lower bound is at least the floor.
    Pass,
    /// The interval's upper bound is below the floor.
    Fail,
    /// The interval straddles the floor: the runs cannot tell.
    Inconclusive,
}

impl PassRateDecision {
    /// `pass`, `fail` or `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            PassRateDecision::Pass => "pass",
            PassRateDecision::Fail => "fail",
            PassRateDecision::Inconclusive => "inconclusive",
        }
    }
}

/// What [`decide_pass_rate`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassRateVerdict {
    /// The outcome.
    pub decision: PassRateDecision,
    /// Runs looked at.
    pub runs: u64,
    /// Runs that passed.
    pub passes: u64,
    /// `passes / runs` (0 with no run).
    pub pass_rate: f64,
    /// The Wilson interval's lower bound.
    pub lower: f64,
    /// The Wilson interval's upper bound.
    pub upper: f64,
    /// The floor `P` decided against.
    pub min_pass_rate: f64,
    /// The confidence of the interval.
    pub confidence: f64,
    /// For an inconclusive verdict: the total number of runs that would decide it if the
    /// observed pass rate held (`None` when no number would, or when it is decided).
    pub runs_needed: Option<u64>,
}

impl fmt::Display for PassRateVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: pass rate {}/{} = {:.3}, {}% Wilson interval [{:.3}, {:.3}] against \
             min_pass_rate {:.3}",
            self.decision.as_str(),
            self.passes,
            self.runs,
            self.pass_rate,
            trim_percent(self.confidence * 100.0),
            self.lower,
            self.upper,
            self.min_pass_rate
        )
    }
}

fn trim_percent(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl PassRateVerdict {
    /// What would decide an inconclusive verdict, in one sentence (empty otherwise).
    pub fn advice(&self) -> String {
        if self.decision != PassRateDecision::Inconclusive {
            return String::new();
        }
        if self.runs == 0 {
            return "no run is recorded: record runs to decide".into();
        }
        match self.runs_needed {
            Some(n) => format!(
                "about {n} runs in all ({} more) would decide it if the pass rate of {:.3} held",
                n - self.runs,
                self.pass_rate
            ),
            None => format!(
                "the observed pass rate {:.3} sits on the floor: more runs decide it only if \
                 the rate moves",
                self.pass_rate
            ),
        }
    }
}

/// Decides a pass rate of at least `min_pass_rate` over `outcomes` at `confidence` by the
/// Wilson score interval (see the [module docs](self)).
///
/// ```
/// use mcptest_core::eval::{PassRateDecision, decide_pass_rate};
/// let three = decide_pass_rate(&[true; 3], 0.9, 0.95)?;
/// assert_eq!(three.decision, PassRateDecision::Inconclusive);
/// assert_eq!(three.runs_needed, Some(35));
/// assert_eq!(decide_pass_rate(&[true, false, false], 0.9, 0.95)?.decision, PassRateDecision::Fail);
/// assert_eq!(decide_pass_rate(&[true; 40], 0.9, 0.95)?.decision, PassRateDecision::Pass);
/// # Ok::<(), mcptest_core::eval::ReliabilityError>(())
/// ```
pub fn decide_pass_rate(
    outcomes: &[bool],
    min_pass_rate: f64,
    confidence: f64,
) -> Result<PassRateVerdict, ReliabilityError> {
    if !(0.0..=1.0).contains(&min_pass_rate) {
        return Err(ReliabilityError::InvalidPassRate(min_pass_rate));
    }
    let z = z_score(confidence)?;
    let runs = outcomes.len() as u64;
    let passes = outcomes.iter().filter(|&&o| o).count() as u64;
    let (lower, upper) = wilson_interval(passes, runs, confidence)?;
    let decision = if lower >= min_pass_rate {
        PassRateDecision::Pass
    } else if upper < min_pass_rate {
        PassRateDecision::Fail
    } else {
        PassRateDecision::Inconclusive
    };
    let pass_rate = if runs == 0 {
        0.0
    } else {
        passes as f64 / runs as f64
    };
    let runs_needed = (decision == PassRateDecision::Inconclusive && runs > 0)
        .then(|| runs_to_decide(pass_rate, runs, min_pass_rate, z))
        .flatten();
    Ok(PassRateVerdict {
        decision,
        runs,
        passes,
        pass_rate,
        lower,
        upper,
        min_pass_rate,
        confidence,
        runs_needed,
    })
}

/// The smallest `N >= from` whose Wilson interval at rate `p` clears `floor` (above when
/// `p > floor`, below when `p < floor`); `None` when `p == floor` or beyond 10⁹ runs.
fn runs_to_decide(p: f64, from: u64, floor: f64, z: f64) -> Option<u64> {
    const LIMIT: u64 = 1_000_000_000;
    let decided = |n: u64| {
        let (lo, hi) = wilson_at(p, n as f64, z);
        if p > floor { lo >= floor } else { hi < floor }
    };
    if p == floor {
        return None;
    }
    // Exponential search for a deciding N, then binary search down to the smallest.
    let mut hi = from.max(1);
    while !decided(hi) {
        if hi >= LIMIT {
            return None;
        }
        hi = (hi * 2).min(LIMIT);
    }
    let mut lo = from.max(1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if decided(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi)
}

fn check_counts(n: u64, c: u64, k: u64) -> Result<(), ReliabilityError> {
    if c > n {
        return Err(ReliabilityError::PassesExceedRuns { runs: n, passes: c });
    }
    if k == 0 || k > n {
        return Err(ReliabilityError::InvalidK { runs: n, k });
    }
    Ok(())
}

/// The standard normal quantile `Φ⁻¹(p)` for `p` in (0, 1): Wichura's algorithm AS241
/// (PPND16), about 1e-16 relative accuracy. Callers pass `p` strictly inside (0, 1).
fn normal_quantile(p: f64) -> f64 {
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q * horner(&AS241_CENTRAL_NUM, r) / horner(&AS241_CENTRAL_DEN, r);
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let value = if r <= 5.0 {
        let r = r - 1.6;
        horner(&AS241_NEAR_NUM, r) / horner(&AS241_NEAR_DEN, r)
    } else {
        let r = r - 5.0;
        horner(&AS241_FAR_NUM, r) / horner(&AS241_FAR_DEN, r)
    };
    if q < 0.0 { -value } else { value }
}

/// `c[0] + c[1] x + c[2] x^2 + ...`.
fn horner(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

// The AS241 coefficients as published (Wichura 1988), lowest degree first; the digits beyond
// double precision are kept so the table can be checked against the paper line by line.
#[allow(clippy::excessive_precision)]
const AS241_CENTRAL_NUM: [f64; 8] = [
    3.387132872796366608,
    133.14166789178437745,
    1971.5909503065514427,
    13731.693765509461125,
    45921.953931549871457,
    67265.770927008700853,
    33430.575583588128105,
    2509.0809287301226727,
];
#[allow(clippy::excessive_precision)]
const AS241_CENTRAL_DEN: [f64; 8] = [
    1.0,
    42.313330701600911252,
    687.1870074920579083,
    5394.1960214247511077,
    21213.794301586595867,
    39307.89580009271061,
    28729.085735721942674,
    5226.495278852545925,
];
#[allow(clippy::excessive_precision)]
const AS241_NEAR_NUM: [f64; 8] = [
    1.42343711074968357734,
    4.6303378461565452959,
    5.7694972214606914055,
    3.64784832476320460504,
    1.27045825245236838258,
    0.24178072517745061177,
    0.0227238449892691845833,
    7.7454501427834140764e-4,
];
#[allow(clippy::excessive_precision)]
const AS241_NEAR_DEN: [f64; 8] = [
    1.0,
    2.05319162663775882187,
    1.6763848301838038494,
    0.68976733498510000455,
    0.14810397642748007459,
    0.0151986665636164571966,
    5.475938084995344946e-4,
    1.05075007164441684324e-9,
];
#[allow(clippy::excessive_precision)]
const AS241_FAR_NUM: [f64; 8] = [
    6.6579046435011037772,
    5.4637849111641143699,
    1.7848265399172913358,
    0.29656057182850489123,
    0.026532189526576123093,
    0.0012426609473880784386,
    2.71155556874348757815e-5,
    2.01033439929228813265e-7,
];
#[allow(clippy::excessive_precision)]
const AS241_FAR_DEN: [f64; 8] = [
    1.0,
    0.59983220655588793769,
    0.13692988092273580531,
    0.0148753612908506148525,
    7.868691311456132591e-4,
    1.8463183175100546818e-5,
    1.4215117583164458887e-7,
    2.04426310338993978564e-15,
];
