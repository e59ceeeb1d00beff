//! Stability: does a session hold steady as it goes, and do repeated runs take the same path?
//!
//! # Within one run: [`agent_stability`]
//!
//! A long session can degrade without a single error: the agent thrashes between tools, loops
//! on a failing call, answers in wildly different sizes, or burns tokens without progress.
//! [`agent_stability`] folds one recorded run into four heuristic sub-scores, each in
//! `0.0..=1.0`, higher is more stable:
//!
//! | sub-score | formula | degenerate case |
//! |---|---|---|
//! | `tool_usage_stability` | `1 - (distinct_tools - 1) / (total_calls - 1)`, clamped | 1.0 with fewer than two calls |
//! | `response_consistency` | `1 - min(1, cv)`, `cv` = population std / mean of the character counts of the assistant turns that carry text (the answers) | 1.0 with fewer than two answers (no assistant turn carrying text included) |
//! | `redundancy` | `distinct_calls / total_calls`, a call keyed on `(name, server, canonical args)` | 1.0 with no calls |
//! | `cost_per_progress` | `target / max(target, tokens / distinct_calls)`, `target` = [`COST_TARGET_TOKENS`] | 1.0 when no tokens were spent; 0.0 when tokens were spent against zero distinct calls |
//!
//! Choices fixed here:
//!
//! * A **tool** is its name (without the server); `distinct_tools` counts names.
//! * A turn's **characters** are the Unicode scalar values (`chars().count()`) of its text as
//!   [`Turn::text_content`](crate::trace::Turn::text_content) reads it: a string, or the text
//!   blocks of a content array joined by `\n` (each separator counts as one character).
//! * An **answer** is an assistant turn that carries text: at least one character that is not
//!   whitespace. A turn that only calls tools (empty text, or no text block) is not an answer
//!   and does not count: real agents make many such turns, and counting them as 0-character
//!   answers would fail every real run. User and tool turns never count.
//! * `cv` uses the **population** standard deviation (divide by `n`, not `n - 1`): the turns are
//!   the whole session, not a sample of one.
//! * Arguments compare by canonical JSON (sorted keys, normalised numbers), so `{"a":1,"b":2}` and
//!   `{"b":2,"a":1.0}` are the same call; absent arguments read as `null`.
//! * A trace with **at most one conversation turn and at most one tool call** is trivially
//!   stable: 1.0 on every sub-score (there is no progression to measure), whatever its tokens.
//! * Missing or malformed fields never error: a call that does not decode (no name, or a known
//!   field of the wrong type, as [`tool_calls_from_envelope`](crate::trace::tool_calls_from_envelope)
//!   reads it) is skipped, a turn that is not an object does not count, and a token total that
//!   is not a positive number reads as no tokens.
//!
//! [`StabilityReport::weakest_score`] is the lowest of the four. [`drift_flags`] names the
//! sub-scores strictly below their [`StabilityFloors`] (0.5 each by default): a floor of 0.0
//! never fires and a floor of 1.0 flags anything short of perfect. Read a low score as "look
//! here", not as proof of a regression.
//!
//! # Across runs: [`agent_stability_across`]
//!
//! The YAML `stability:` gate reads [`StabilityAcross`]. With `w_r` the weakest score of run `r`:
//!
//! * `score` = mean of `w_r`; `weakest_score` = min of `w_r`; `variance` = population variance
//!   of `w_r`;
//! * `tool_sequence_similarity` = mean over run pairs of `LCS(a, b) / max(|a|, |b|)` on the
//!   tool-name sequences (two empty sequences are 1.0);
//! * `argument_consistency`: per pair, over the positions `i` where both runs called the same
//!   tool name, the fraction whose canonical arguments are identical; the mean over the pairs
//!   that have such a position (none: 1.0);
//! * `early_divergence`: a pair diverges at the first index where the names differ or one
//!   sequence ends; 1 when a strict majority of the diverging pairs diverge at index 0 or 1,
//!   else 0 (no diverging pair: 0).
//!
//! One run has no pair: similarity 1.0, argument consistency 1.0, early divergence 0, variance
//! 0.0, and `score` = `weakest_score` = that run's weakest score. Zero runs give no evidence of
//! stability: `score` = `weakest_score` = 0.0 (a gate on them fails), variance 0.0, and the
//! pairwise targets take their no-pair values (1.0, 1.0, 0).
//!
//! The longest common subsequence is computed bit-parallel (Allison–Dix / Hyyrö), in
//! `O(|a| * |b| / 64)` word operations per pair; [`lcs_length`] exposes it. Arguments get ids
//! through a structural hash and equality, which agree with canonical-text equality without
//! building the text, so comparing them costs less than parsing them.
//!
//! [`trace_stability`] and [`trace_stability_across`] score traces already decoded from a
//! cassette, with the same results as the envelope functions on the same runs.
//!
//! # Saying what drove a score
//!
//! [`trace_stability_evidence`] returns the counts each formula read, so a failing gate can say
//! why in plain numbers: [`RunEvidence::explain`] gives `tool_usage_stability 0.043: 23 distinct
//! tools in 24 calls`, `redundancy 0.400: 6 distinct calls of 15`, `response_consistency 0.210:
//! 4 answers of 12 to 1,840 characters (cv 0.79)` or `cost_per_progress 0.310: 9,600 tokens over
//! 3 distinct calls (...)`; [`StabilityEvidence::driver`] names the weakest run for `score`,
//! `weakest_score` and `variance`, and the pair of runs that agreed least for the pairwise
//! targets.
//!
//! ```
//! use mcptest_core::eval::{agent_stability, agent_stability_across, drift_flags, StabilityFloors};
//! use serde_json::json;
//!
//! let run = json!({
//!     "tool_calls": [
//!         {"name": "search", "server": "docs", "args": {"q": "rust"}},
//!         {"name": "search", "server": "docs", "args": {"q": "rust"}},   // an exact repeat
//!         {"name": "open", "server": "docs", "args": {"url": "https://a"}},
//!         {"name": "summarize", "args": {}}
//!     ],
//!     "conversation": {
//!         "tokens": {"total": 12000},
//!         "turns": [
//!             {"role": "user", "content": "Find the Rust docs."},
//!             {"role": "assistant", "content": "Searching."},
//!             {"role": "assistant", "content": "Here is the summary."}
//!         ]
//!     }
//! });
//! let report = agent_stability(&run);
//! assert!((report.tool_usage_stability - 1.0 / 3.0).abs() < 1e-12); // 1 - (3-1)/(4-1)
//! assert_eq!(report.redundancy, 0.75);                             // 3 distinct of 4
//! assert_eq!(report.cost_per_progress, 0.5);                       // 2000 / (12000 / 3)
//! assert!((report.response_consistency - 2.0 / 3.0).abs() < 1e-12);// lengths 10 and 20: cv 1/3
//! assert_eq!(drift_flags(&report, &StabilityFloors::default()), vec!["tool_usage_stability"]);
//!
//! // The same run three times: the runs agree perfectly with each other.
//! let across = agent_stability_across(&[run.clone(), run.clone(), json!({"trace": run})]);
//! assert_eq!(across.tool_sequence_similarity, 1.0);
//! assert_eq!(across.variance, 0.0);
//! assert_eq!(across.weakest_score, report.weakest_score());
//! ```

use crate::fasthash::{HashMap as FastMap, HashSet as FastSet};
use crate::json::{fields, hash_value, json_eq};
use crate::matching::{lcs_of, lcs_step};
use crate::trace::{CallRef, ConversationTrace, content_texts};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

/// The tokens per useful (distinct) call at which `cost_per_progress` starts to decay. A
/// relative anchor, not a claim about what a call should cost.
pub const COST_TARGET_TOKENS: f64 = 2000.0;

/// The four within-session sub-scores of one run, each in `0.0..=1.0`, higher is more stable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StabilityReport {
    /// How concentrated the tool repertoire is: `1 - (distinct_tools - 1) / (total_calls - 1)`.
    pub tool_usage_stability: f64,
    /// Whether assistant turns stay a similar size: `1 - min(1, cv)` of their character counts.
    pub response_consistency: f64,
    /// The fraction of calls that are not exact repeats: `distinct_calls / total_calls`.
    pub redundancy: f64,
    /// Token spend per distinct call against [`COST_TARGET_TOKENS`]:
    /// `target / max(target, tokens / distinct_calls)`.
    pub cost_per_progress: f64,
}

impl StabilityReport {
    /// 1.0 on every sub-score: what a trivially stable (short) trace reports.
    pub const PERFECT: StabilityReport = StabilityReport {
        tool_usage_stability: 1.0,
        response_consistency: 1.0,
        redundancy: 1.0,
        cost_per_progress: 1.0,
    };

    /// The four sub-scores with their names, in field order.
    pub fn scores(&self) -> [(&'static str, f64); 4] {
        [
            ("tool_usage_stability", self.tool_usage_stability),
            ("response_consistency", self.response_consistency),
            ("redundancy", self.redundancy),
            ("cost_per_progress", self.cost_per_progress),
        ]
    }

    /// The lowest of the four sub-scores: the run's headline number.
    pub fn weakest_score(&self) -> f64 {
        self.scores()
            .iter()
            .map(|&(_, s)| s)
            .fold(f64::INFINITY, f64::min)
    }

    /// All four sub-scores on one line, for an operator-facing log:
    /// `tool_usage_stability=1.000 response_consistency=0.667 redundancy=0.750
    /// cost_per_progress=0.500 (weakest 0.500)`.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (name, score) in self.scores() {
            out.push_str(&format!("{name}={score:.3} "));
        }
        out.push_str(&format!("(weakest {:.3})", self.weakest_score()));
        out
    }
}

impl fmt::Display for StabilityReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stability: {}", self.summary())
    }
}

/// The per-sub-score floors [`drift_flags`] compares against.
///
/// Default: 0.5 on every sub-score (under half, a dimension is more degraded than stable; the
/// same line the default YAML gate uses for `stability.weakest_score`). Fields left out when
/// deserializing take that default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StabilityFloors {
    /// Floor for [`StabilityReport::tool_usage_stability`].
    pub tool_usage_stability: f64,
    /// Floor for [`StabilityReport::response_consistency`].
    pub response_consistency: f64,
    /// Floor for [`StabilityReport::redundancy`].
    pub redundancy: f64,
    /// Floor for [`StabilityReport::cost_per_progress`].
    pub cost_per_progress: f64,
}

impl StabilityFloors {
    /// The same floor on every sub-score.
    pub fn uniform(floor: f64) -> Self {
        StabilityFloors {
            tool_usage_stability: floor,
            response_consistency: floor,
            redundancy: floor,
            cost_per_progress: floor,
        }
    }
}

impl Default for StabilityFloors {
    fn default() -> Self {
        StabilityFloors::uniform(0.5)
    }
}

/// The names of the sub-scores strictly below their floor, in field order; empty when no
/// dimension drifted.
///
/// The comparison is strict: a floor of 0.0 never fires, a floor of 1.0 flags anything short
/// of perfect, and a NaN floor never fires.
pub fn drift_flags(report: &StabilityReport, floors: &StabilityFloors) -> Vec<&'static str> {
    let floors = [
        floors.tool_usage_stability,
        floors.response_consistency,
        floors.redundancy,
        floors.cost_per_progress,
    ];
    report
        .scores()
        .into_iter()
        .zip(floors)
        .filter(|&((_, score), floor)| score < floor)
        .map(|((name, _), _)| name)
        .collect()
}

/// Scores one recorded run's within-session stability.
///
/// `run` is a trace envelope (`{"tool_calls": [...], "conversation": {...}}`) or a cassette
/// run (`{"trace": ENVELOPE, ...}`). Never panics and never errors: missing or malformed fields
/// are read conservatively (see the [module docs](self)).
pub fn agent_stability(run: &Value) -> StabilityReport {
    run_facts(&envelope_input(run), &mut Interner::default())
        .evidence
        .report
}

/// [`agent_stability`] of a trace already decoded (a cassette's `runs[i].trace`), without
/// writing it back to JSON.
pub fn trace_stability(trace: &ConversationTrace) -> StabilityReport {
    run_facts(&trace_input(trace), &mut Interner::default())
        .evidence
        .report
}

/// The six cross-run stability targets (`stability.*`) of N runs of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StabilityAcross {
    /// Mean of each run's [`weakest_score`](StabilityReport::weakest_score); 0.0 with no run.
    pub score: f64,
    /// Minimum of each run's weakest score; 0.0 with no run.
    pub weakest_score: f64,
    /// Population variance of each run's weakest score; 0.0 with fewer than two runs.
    pub variance: f64,
    /// Mean over run pairs of `LCS(a, b) / max(|a|, |b|)` on tool-name sequences; 1.0 with
    /// fewer than two runs.
    pub tool_sequence_similarity: f64,
    /// Mean over run pairs of the fraction of same-name positions with identical canonical
    /// arguments (pairs with no such position left out); 1.0 when no pair counts.
    pub argument_consistency: f64,
    /// 1 when a strict majority of diverging run pairs diverge at index 0 or 1, else 0.
    pub early_divergence: u32,
}

impl fmt::Display for StabilityAcross {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stability across runs: score={:.3} weakest_score={:.3} variance={:.4} \
             tool_sequence_similarity={:.3} argument_consistency={:.3} early_divergence={}",
            self.score,
            self.weakest_score,
            self.variance,
            self.tool_sequence_similarity,
            self.argument_consistency,
            self.early_divergence
        )
    }
}

/// Scores N runs of one scenario: the per-run weakest scores summarized, and how alike the
/// runs' tool paths and arguments are.
///
/// Each element of `runs` is an envelope or a cassette run, as for [`agent_stability`]. Zero
/// and one run are defined in the [module docs](self). Never panics.
pub fn agent_stability_across(runs: &[Value]) -> StabilityAcross {
    let inputs: Vec<RunInput> = runs.iter().map(envelope_input).collect();
    let mut interner = Interner::default();
    let facts: Vec<RunFacts> = inputs
        .iter()
        .map(|input| run_facts(input, &mut interner))
        .collect();
    across(&facts, interner.names.len()).0
}

/// [`agent_stability_across`] of traces already decoded (a cassette's runs), without writing
/// them back to JSON.
pub fn trace_stability_across<'a>(
    traces: impl IntoIterator<Item = &'a ConversationTrace>,
) -> StabilityAcross {
    trace_stability_evidence(traces).across
}

/// [`trace_stability_across`] with the evidence behind each target: each run's counts and the
/// run pairs that drove the cross-run targets, for a report that says why a gate failed.
///
/// ```
/// use mcptest_core::eval::trace_stability_evidence;
/// use mcptest_core::trace::{ConversationTrace, ToolCall};
///
/// let run = |names: &[&str]| ConversationTrace {
///     tool_calls: names.iter().map(|n| ToolCall::new(*n)).collect(),
///     ..ConversationTrace::default()
/// };
/// let runs = [
///     run(&["search", "search", "open"]),
///     run(&["search", "search", "open"]),
///     run(&["list", "open", "fetch"]),
/// ];
/// let evidence = trace_stability_evidence(&runs);
/// assert_eq!(
///     evidence.driver("tool_sequence_similarity"),
///     "least similar: run_1 and run_3, 1 call in common order of 3 (0.333)"
/// );
/// assert_eq!(
///     evidence.driver("weakest_score"),
///     "run_3 tool_usage_stability 0.000: 3 distinct tools in 3 calls"
/// );
/// ```
pub fn trace_stability_evidence<'a>(
    traces: impl IntoIterator<Item = &'a ConversationTrace>,
) -> StabilityEvidence {
    let mut interner = Interner::default();
    let facts: Vec<RunFacts> = traces
        .into_iter()
        .map(|trace| run_facts(&trace_input(trace), &mut interner))
        .collect();
    let mut names = vec![""; interner.names.len()];
    for (&name, &id) in &interner.names {
        names[id as usize] = name;
    }
    let (across, pairs) = across(&facts, names.len());
    let name_of =
        |run: &RunFacts, at: usize| run.names.get(at).map(|&id| names[id as usize].to_string());
    StabilityEvidence {
        across,
        least_similar: pairs.least_similar,
        least_consistent: pairs.least_consistent,
        early_pairs: pairs.early,
        diverging_pairs: pairs.diverging,
        first_divergence: pairs.first_divergence.map(|(a, b, at)| RunSplit {
            runs: (a, b),
            at,
            calls: (name_of(&facts[a], at), name_of(&facts[b], at)),
        }),
        runs: facts.into_iter().map(|f| f.evidence).collect(),
    }
}

/// The counts behind one run's four sub-scores: what drove a low score, in plain numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvidence {
    /// The sub-scores.
    pub report: StabilityReport,
    /// True when the run is trivially stable (at most one turn and at most one call).
    pub trivial: bool,
    /// Tool calls.
    pub calls: usize,
    /// Distinct tool names among them.
    pub distinct_tools: usize,
    /// Distinct calls (name, server, canonical arguments).
    pub distinct_calls: usize,
    /// Assistant turns that carry text.
    pub answers: usize,
    /// Characters of the shortest answer (0 with none).
    pub shortest_answer: usize,
    /// Characters of the longest answer (0 with none).
    pub longest_answer: usize,
    /// The coefficient of variation of the answer lengths (0.0 with fewer than two).
    pub answer_cv: f64,
    /// Total tokens (0.0 when unknown).
    pub tokens: f64,
}

impl RunEvidence {
    /// The weakest sub-score and its value (the first in field order on a tie).
    pub fn weakest(&self) -> (&'static str, f64) {
        self.report
            .scores()
            .into_iter()
            .fold(("tool_usage_stability", f64::INFINITY), |low, s| {
                if s.1 < low.1 { s } else { low }
            })
    }

    /// What a sub-score was computed from, in plain numbers, as its formula reads them:
    /// `"23 distinct tools in 24 calls"`, `"6 distinct calls of 15"`, `"4 answers of 12 to
    /// 1,840 characters (cv 0.79)"`, `"9,600 tokens over 3 distinct calls"`. `None` for a name
    /// that is not a sub-score.
    pub fn driver(&self, sub_score: &str) -> Option<String> {
        if self.trivial {
            return Some(format!(
                "{} and {}: too short to measure, every sub-score is 1.0",
                count(self.calls, "call"),
                count(self.answers, "answer")
            ));
        }
        Some(match sub_score {
            "tool_usage_stability" => format!(
                "{} in {}",
                count(self.distinct_tools, "distinct tool"),
                count(self.calls, "call")
            ),
            "redundancy" => format!(
                "{} of {}",
                count(self.distinct_calls, "distinct call"),
                thousands(self.calls as f64)
            ),
            "response_consistency" => match self.answers {
                0 | 1 => format!(
                    "{} (an assistant turn that only calls tools is not an answer)",
                    count(self.answers, "answer")
                ),
                n => format!(
                    "{n} answers of {} to {} characters (cv {:.2})",
                    thousands(self.shortest_answer as f64),
                    thousands(self.longest_answer as f64),
                    self.answer_cv
                ),
            },
            "cost_per_progress" => {
                let tokens = count_f(self.tokens, "token");
                if self.distinct_calls == 0 {
                    format!("{tokens} and no distinct call")
                } else {
                    format!(
                        "{tokens} over {} ({} per call; the target is {})",
                        count(self.distinct_calls, "distinct call"),
                        thousands((self.tokens / self.distinct_calls as f64).round()),
                        thousands(COST_TARGET_TOKENS)
                    )
                }
            }
            _ => return None,
        })
    }

    /// `"tool_usage_stability 0.043: 23 distinct tools in 24 calls"`: a sub-score, its value
    /// and what drove it; `None` for a name that is not a sub-score.
    pub fn explain(&self, sub_score: &str) -> Option<String> {
        let value = self
            .report
            .scores()
            .into_iter()
            .find(|(n, _)| *n == sub_score)?
            .1;
        Some(format!(
            "{sub_score} {value:.3}: {}",
            self.driver(sub_score)?
        ))
    }
}

/// Two runs, as a report names them (0-based indices; shown as `run_1`, `run_2`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct PairEvidence {
    /// The two runs.
    pub runs: (usize, usize),
    /// The pair's value of the target (similarity or argument consistency).
    pub value: f64,
    /// Calls in common order (LCS), or same-tool positions with identical arguments.
    pub agreeing: usize,
    /// The longer run's calls, or the same-tool positions.
    pub of: usize,
}

/// Where two runs' tool sequences split.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSplit {
    /// The two runs.
    pub runs: (usize, usize),
    /// The index of the first call that differs.
    pub at: usize,
    /// The two runs' tool names at that index (`None`: the run had ended).
    pub calls: (Option<String>, Option<String>),
}

/// [`StabilityAcross`] and the evidence behind it: see [`trace_stability_evidence`].
#[derive(Debug, Clone, PartialEq)]
pub struct StabilityEvidence {
    /// The six targets.
    pub across: StabilityAcross,
    /// Each run's counts, in run order.
    pub runs: Vec<RunEvidence>,
    /// The pair with the lowest tool-sequence similarity (the first on a tie).
    pub least_similar: Option<PairEvidence>,
    /// The pair with the lowest argument consistency, among pairs that have a same-tool
    /// position.
    pub least_consistent: Option<PairEvidence>,
    /// Diverging pairs that split at step 0 or 1.
    pub early_pairs: usize,
    /// Pairs whose tool sequences differ.
    pub diverging_pairs: usize,
    /// The first diverging pair, in run order.
    pub first_divergence: Option<RunSplit>,
}

impl StabilityEvidence {
    /// The run with the lowest weakest score (the first on a tie), as `(index, evidence)`.
    pub fn weakest_run(&self) -> Option<(usize, &RunEvidence)> {
        self.runs
            .iter()
            .enumerate()
            .fold(None, |low, (i, r)| match low {
                Some((_, l)) if l.report.weakest_score() <= r.report.weakest_score() => low,
                _ => Some((i, r)),
            })
    }

    /// What drove one cross-run target (its field name: `weakest_score`,
    /// `tool_sequence_similarity`, ...), in plain numbers: the weakest run and its weakest
    /// sub-score, or the least similar pair. Empty for a name that is not a target.
    pub fn driver(&self, target: &str) -> String {
        let label = |(a, b): (usize, usize)| format!("run_{} and run_{}", a + 1, b + 1);
        let weakest = || match self.weakest_run() {
            None => "no recorded run".to_string(),
            Some((i, r)) => {
                let (name, _) = r.weakest();
                format!(
                    "run_{} {}",
                    i + 1,
                    r.explain(name).unwrap_or_else(|| name.to_string())
                )
            }
        };
        match target {
            "weakest_score" => weakest(),
            "score" => format!(
                "the mean of {} runs' weakest scores; lowest: {}",
                self.runs.len(),
                weakest()
            ),
            "variance" => {
                let mut scored: Vec<(usize, f64)> = self
                    .runs
                    .iter()
                    .map(|r| r.report.weakest_score())
                    .enumerate()
                    .collect();
                scored.sort_by(|a, b| a.1.total_cmp(&b.1));
                match (scored.first(), scored.last()) {
                    (Some(lo), Some(hi)) => format!(
                        "the runs' weakest scores range from {:.3} (run_{}) to {:.3} (run_{})",
                        lo.1,
                        lo.0 + 1,
                        hi.1,
                        hi.0 + 1
                    ),
                    _ => "no recorded run".to_string(),
                }
            }
            "tool_sequence_similarity" => match &self.least_similar {
                None => "fewer than two runs".to_string(),
                Some(p) => format!(
                    "least similar: {}, {} in common order of {} ({:.3})",
                    label(p.runs),
                    count(p.agreeing, "call"),
                    thousands(p.of as f64),
                    p.value
                ),
            },
            "argument_consistency" => match &self.least_consistent {
                None => "no pair of runs called the same tool at the same step".to_string(),
                Some(p) => format!(
                    "least consistent: {}, identical arguments at {} of {} same-tool steps                      ({:.3})",
                    label(p.runs),
                    thousands(p.agreeing as f64),
                    thousands(p.of as f64),
                    p.value
                ),
            },
            "early_divergence" => {
                let first = match &self.first_divergence {
                    None => String::new(),
                    Some(d) => {
                        let call = |c: &Option<String>| {
                            c.as_deref()
                                .map_or("nothing (ended)".into(), |n| format!("`{n}`"))
                        };
                        format!(
                            "; {} split at step {}: {} vs {}",
                            label(d.runs),
                            d.at,
                            call(&d.calls.0),
                            call(&d.calls.1)
                        )
                    }
                };
                format!(
                    "{} of {} split at step 0 or 1{first}",
                    self.early_pairs,
                    count(self.diverging_pairs, "diverging pair")
                )
            }
            _ => String::new(),
        }
    }
}

/// `n thing` or `n things`, `n` with thousands separators.
fn count(n: usize, thing: &str) -> String {
    count_f(n as f64, thing)
}

fn count_f(n: f64, thing: &str) -> String {
    let plural = if n == 1.0 { "" } else { "s" };
    format!("{} {thing}{plural}", thousands(n))
}

/// A whole number with thousands separators: `1840.0` -> `"1,840"`.
fn thousands(n: f64) -> String {
    let digits = format!("{:.0}", n.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What the pair loop found, for [`StabilityEvidence`].
#[derive(Default)]
struct PairNotes {
    least_similar: Option<PairEvidence>,
    least_consistent: Option<PairEvidence>,
    early: usize,
    diverging: usize,
    /// `(a, b, at)` of the first diverging pair.
    first_divergence: Option<(usize, usize, usize)>,
}

/// The cross-run targets of the runs' facts; `alphabet` is the number of distinct tool names.
fn across(facts: &[RunFacts], alphabet: usize) -> (StabilityAcross, PairNotes) {
    let weakest: Vec<f64> = facts
        .iter()
        .map(|f| f.evidence.report.weakest_score())
        .collect();
    let (score, weakest_score, variance) = summarize_scores(&weakest);

    let mut lcs = Lcs::with_alphabet(alphabet);
    let mut notes = PairNotes::default();
    let mut pairs = 0usize;
    let mut similarity_sum = 0.0;
    let mut consistency_sum = 0.0;
    let mut consistency_pairs = 0usize;
    for (i, a) in facts.iter().enumerate() {
        for (j, b) in facts.iter().enumerate().skip(i + 1) {
            let pair = compare_pair(a, b, &mut lcs);
            pairs += 1;
            similarity_sum += pair.similarity;
            if notes
                .least_similar
                .as_ref()
                .is_none_or(|p| pair.similarity < p.value)
            {
                notes.least_similar = Some(PairEvidence {
                    runs: (i, j),
                    value: pair.similarity,
                    agreeing: pair.lcs,
                    of: a.names.len().max(b.names.len()),
                });
            }
            if let Some((same_args, same_name)) = pair.argument_counts {
                let c = same_args as f64 / same_name as f64;
                consistency_sum += c;
                consistency_pairs += 1;
                if notes.least_consistent.as_ref().is_none_or(|p| c < p.value) {
                    notes.least_consistent = Some(PairEvidence {
                        runs: (i, j),
                        value: c,
                        agreeing: same_args,
                        of: same_name,
                    });
                }
            }
            if let Some(at) = pair.divergence {
                notes.diverging += 1;
                notes.early += usize::from(at <= 1);
                notes.first_divergence.get_or_insert((i, j, at));
            }
        }
    }

    let across = StabilityAcross {
        score,
        weakest_score,
        variance,
        tool_sequence_similarity: if pairs == 0 {
            1.0
        } else {
            unit(similarity_sum / pairs as f64)
        },
        argument_consistency: if consistency_pairs == 0 {
            1.0
        } else {
            unit(consistency_sum / consistency_pairs as f64)
        },
        early_divergence: u32::from(notes.diverging > 0 && 2 * notes.early > notes.diverging),
    };
    (across, notes)
}

/// How two runs compare.
struct PairComparison {
    /// `LCS / max(|a|, |b|)` of the tool-name sequences; 1.0 for two empty sequences.
    similarity: f64,
    /// The LCS length.
    lcs: usize,
    /// `(same-name positions with the same arguments, same-name positions)`; `None` without
    /// such a position.
    argument_counts: Option<(usize, usize)>,
    /// The first index where the names differ or one sequence ends; `None` when identical.
    divergence: Option<usize>,
}

fn compare_pair(a: &RunFacts, b: &RunFacts, lcs: &mut Lcs) -> PairComparison {
    let longest = a.names.len().max(b.names.len());
    let common_order = if longest == 0 {
        0
    } else {
        lcs.length(&a.names, &b.names)
    };
    let similarity = if longest == 0 {
        1.0
    } else {
        common_order as f64 / longest as f64
    };
    let common = a.names.len().min(b.names.len());
    let mut same_name = 0usize;
    let mut same_args = 0usize;
    let mut divergence = None;
    for k in 0..common {
        if a.names[k] == b.names[k] {
            same_name += 1;
            same_args += usize::from(a.args[k] == b.args[k]);
        } else if divergence.is_none() {
            divergence = Some(k);
        }
    }
    if divergence.is_none() && a.names.len() != b.names.len() {
        divergence = Some(common);
    }
    PairComparison {
        similarity,
        lcs: common_order,
        argument_counts: (same_name > 0).then_some((same_args, same_name)),
        divergence,
    }
}

/// The length of the longest common subsequence of `a` and `b`, computed bit-parallel
/// (Allison–Dix / Hyyrö) in `O(|a| * |b| / 64)` word operations.
///
/// ```
/// use mcptest_core::eval::lcs_length;
/// let a = ["search", "open", "search", "summarize"];
/// let b = ["search", "search", "open", "summarize"];
/// assert_eq!(lcs_length(&a, &b), 3);
/// assert_eq!(lcs_length::<&str>(&[], &b), 0);
/// ```
pub fn lcs_length<T: Eq + Hash>(a: &[T], b: &[T]) -> usize {
    let mut ids: HashMap<&T, u32> = HashMap::new();
    let a_ids = symbol_ids(a, &mut ids);
    let b_ids = symbol_ids(b, &mut ids);
    Lcs::with_alphabet(ids.len()).length(&a_ids, &b_ids)
}

/// Maps each element to a dense id, shared through `ids`.
fn symbol_ids<'a, T: Eq + Hash>(seq: &'a [T], ids: &mut HashMap<&'a T, u32>) -> Vec<u32> {
    seq.iter()
        .map(|x| {
            let next = ids.len() as u32;
            *ids.entry(x).or_insert(next)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Reading a run.

/// What the scores need from one run.
struct RunFacts {
    /// The sub-scores and the counts behind them.
    evidence: RunEvidence,
    /// Tool-name ids, in call order.
    names: Vec<u32>,
    /// Argument ids (equal exactly when the canonical texts are), parallel to `names`.
    args: Vec<u32>,
}

/// What the sub-scores read from one run, however it arrived.
struct RunInput<'a> {
    calls: Vec<CallRef<'a>>,
    /// Conversation turns of any role.
    turns: usize,
    /// Character counts of the assistant turns that carry text (the answers), in order.
    answer_chars: Vec<f64>,
    /// Total tokens (0 when unknown).
    tokens: f64,
}

/// Reads an envelope or cassette run leniently, in place: the calls the decoder would accept.
fn envelope_input(run: &Value) -> RunInput<'_> {
    // The conversation sits where the calls do: under `trace` for a cassette run, else at the root.
    let conversation = run
        .get("trace")
        .and_then(|t| t.get("conversation"))
        .filter(|c| c.is_object())
        .or_else(|| run.get("conversation"));
    let turns: &[Value] = conversation
        .and_then(|c| c.get("turns"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut objects = 0;
    let mut answers = Vec::new();
    for turn in turns.iter().filter_map(Value::as_object) {
        objects += 1;
        let [role, content] = fields(turn, ["role", "content"]);
        if role.and_then(Value::as_str) == Some("assistant") {
            answers.extend(answer_chars(content.unwrap_or(&Value::Null)));
        }
    }
    RunInput {
        calls: CallRef::all_in(run),
        turns: objects,
        answer_chars: answers,
        tokens: conversation
            .and_then(|c| c.get("tokens"))
            .and_then(|t| t.get("total"))
            .map_or(0.0, token_count),
    }
}

fn trace_input(trace: &ConversationTrace) -> RunInput<'_> {
    RunInput {
        calls: trace.tool_calls.iter().map(CallRef::from).collect(),
        turns: trace.conversation.turns.len(),
        answer_chars: trace
            .assistant_turns()
            .filter_map(|t| answer_chars(&t.content))
            .collect(),
        tokens: trace.conversation.tokens.total.unwrap_or(0) as f64,
    }
}

fn run_facts<'a>(input: &RunInput<'a>, interner: &mut Interner<'a>) -> RunFacts {
    let calls = &input.calls;
    let mut names = Vec::with_capacity(calls.len());
    let mut args = Vec::with_capacity(calls.len());
    let mut distinct_calls: FastSet<(u32, Option<u32>, u32)> = FastSet::default();
    distinct_calls.reserve(calls.len());
    for call in calls {
        let name = intern(&mut interner.names, call.name);
        let server = call.server.map(|s| intern(&mut interner.servers, s));
        let arg = interner.args.id(call.args.unwrap_or(&Value::Null));
        distinct_calls.insert((name, server, arg));
        names.push(name);
        args.push(arg);
    }
    // Names are dense ids, so the distinct ones are counted with a bitmap, not a set.
    let mut seen = vec![false; interner.names.len()];
    let distinct_tools = names
        .iter()
        .filter(|&&n| !std::mem::replace(&mut seen[n as usize], true))
        .count();

    let trivial = input.turns <= 1 && names.len() <= 1;
    let report = if trivial {
        StabilityReport::PERFECT
    } else {
        StabilityReport {
            tool_usage_stability: tool_usage_stability(distinct_tools, names.len()),
            response_consistency: response_consistency(&input.answer_chars),
            redundancy: redundancy(distinct_calls.len(), names.len()),
            cost_per_progress: cost_per_progress(input.tokens, distinct_calls.len()),
        }
    };
    let answers = &input.answer_chars;
    RunFacts {
        evidence: RunEvidence {
            report,
            trivial,
            calls: names.len(),
            distinct_tools,
            distinct_calls: distinct_calls.len(),
            answers: answers.len(),
            shortest_answer: answers.iter().copied().fold(f64::INFINITY, f64::min) as usize
                * usize::from(!answers.is_empty()),
            longest_answer: answers.iter().copied().fold(0.0, f64::max) as usize,
            answer_cv: coefficient_of_variation(answers),
            tokens: input.tokens,
        },
        names,
        args,
    }
}

/// A token total: a positive finite number (a float is accepted); anything else reads as 0.
fn token_count(v: &Value) -> f64 {
    match v.as_f64() {
        Some(t) if t.is_finite() && t > 0.0 => t,
        _ => 0.0,
    }
}

/// The Unicode scalar values of an assistant turn's text (a content array: its text blocks
/// joined by `\n`), or `None` when the turn carries no text (no text block, or only
/// whitespace): a turn that only calls tools is not an answer.
fn answer_chars(content: &Value) -> Option<f64> {
    // Counted over the text blocks without joining them: the joined text is blank exactly when
    // every block is, and each separator is one character.
    let mut chars = 0usize;
    let mut blocks = 0usize;
    let mut blank = true;
    for text in content_texts(content) {
        chars += text.chars().count();
        blocks += 1;
        blank &= text.trim().is_empty();
    }
    (!blank).then(|| (chars + blocks.saturating_sub(1)) as f64)
}

// ---------------------------------------------------------------------------------------------
// Ids: tool names and servers by text, arguments by canonical identity.

/// Dense ids for names, servers and arguments, shared by the runs of one call. Everything is
/// borrowed from the decoded calls.
#[derive(Default)]
struct Interner<'a> {
    names: FastMap<&'a str, u32>,
    servers: FastMap<&'a str, u32>,
    args: ArgIds<'a>,
}

fn intern<'a>(map: &mut FastMap<&'a str, u32>, key: &'a str) -> u32 {
    let next = map.len() as u32;
    *map.entry(key).or_insert(next)
}

/// Ids for argument values: two values get the same id exactly when their
/// [`canonical`](crate::json::canonical) texts are equal. Found through [`hash_value`] and
/// [`json_eq`], which agree with canonical-text equality without building the text.
#[derive(Default)]
struct ArgIds<'a> {
    /// The newest id of each hash; older ids of the same hash chain through `next`.
    newest: FastMap<u64, u32>,
    /// The value of each id.
    values: Vec<&'a Value>,
    /// The previous id with the same hash, or `u32::MAX`.
    next: Vec<u32>,
}

impl<'a> ArgIds<'a> {
    fn id(&mut self, v: &'a Value) -> u32 {
        let id = self.values.len() as u32;
        let slot = self.newest.entry(hash_value(v)).or_insert(u32::MAX);
        let mut at = *slot;
        while at != u32::MAX {
            if json_eq(self.values[at as usize], v) {
                return at;
            }
            at = self.next[at as usize];
        }
        self.next.push(*slot);
        *slot = id;
        self.values.push(v);
        id
    }
}

// ---------------------------------------------------------------------------------------------
// The sub-scores.

fn unit(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

fn tool_usage_stability(distinct_tools: usize, total_calls: usize) -> f64 {
    if total_calls < 2 {
        return 1.0;
    }
    let spread = distinct_tools.saturating_sub(1) as f64 / (total_calls - 1) as f64;
    unit(1.0 - spread)
}

fn response_consistency(chars: &[f64]) -> f64 {
    unit(1.0 - coefficient_of_variation(chars).min(1.0))
}

/// Population std / mean; 0.0 with fewer than two values or a mean that is not positive.
fn coefficient_of_variation(chars: &[f64]) -> f64 {
    if chars.len() < 2 {
        return 0.0;
    }
    let n = chars.len() as f64;
    let mean = chars.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return 0.0;
    }
    let variance = chars.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n;
    variance.sqrt() / mean
}

fn redundancy(distinct_calls: usize, total_calls: usize) -> f64 {
    if total_calls == 0 {
        return 1.0;
    }
    unit(distinct_calls as f64 / total_calls as f64)
}

fn cost_per_progress(tokens: f64, distinct_calls: usize) -> f64 {
    if tokens <= 0.0 {
        return 1.0;
    }
    if distinct_calls == 0 {
        return 0.0;
    }
    let per_call = tokens / distinct_calls as f64;
    unit(COST_TARGET_TOKENS / COST_TARGET_TOKENS.max(per_call))
}

/// `(mean, min, population variance)` of the per-run weakest scores; `(0, 0, 0)` with none.
fn summarize_scores(weakest: &[f64]) -> (f64, f64, f64) {
    let Some(&first) = weakest.first() else {
        return (0.0, 0.0, 0.0);
    };
    // Identical scores give exactly their value and exactly zero variance (a plain mean of
    // equal floats can be off by an ulp).
    if weakest.iter().all(|&w| w == first) {
        return (first, first, 0.0);
    }
    let n = weakest.len() as f64;
    let mean = weakest.iter().sum::<f64>() / n;
    let min = weakest.iter().copied().fold(f64::INFINITY, f64::min);
    let variance = weakest.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / n;
    (unit(mean), unit(min), variance.max(0.0))
}

// ---------------------------------------------------------------------------------------------
// Bit-parallel LCS.

/// LCS over dense symbol ids, with buffers reused from pair to pair.
///
/// A common prefix and suffix are matched directly (`LCS(p x s, p y s) = |p| + |s| +
/// LCS(x, y)`), so identical or nearly identical runs cost `O(n)`. The middles go through
/// Hyyrö's bit-parallel recurrence: per-symbol match masks of the longer middle as 64-bit
/// words, and for each symbol `c` of the shorter one, with `M` the mask of `c`,
/// `U = V & M; V = (V + U) | (V & !M)` (the addition carrying across words). `V` starts all
/// ones; the LCS is the number of zero bits among its first `len` bits.
#[derive(Default)]
struct Lcs {
    /// `slot[s]`: the index of symbol `s`'s mask in `blocks`, or `NONE`.
    slot: Vec<u32>,
    /// The symbols that have a mask now (to reset `slot` afterwards).
    present: Vec<u32>,
    /// The masks, `present.len()` of `words` words each.
    blocks: Vec<u64>,
    /// The running bit vector `V`.
    v: Vec<u64>,
}

const NONE: u32 = u32::MAX;

impl Lcs {
    /// Buffers for symbols `0..alphabet` (larger ids still work; the table grows).
    fn with_alphabet(alphabet: usize) -> Self {
        Lcs {
            slot: vec![NONE; alphabet],
            ..Lcs::default()
        }
    }

    fn length(&mut self, a: &[u32], b: &[u32]) -> usize {
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let (a, b) = (&a[prefix..], &b[prefix..]);
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
        // Masks on the longer middle: the cost is |shorter| * ceil(|longer| / 64).
        let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        let middle = if short.is_empty() {
            0
        } else {
            self.bit_parallel(long, short)
        };
        prefix + suffix + middle
    }

    fn bit_parallel(&mut self, long: &[u32], short: &[u32]) -> usize {
        let words = long.len().div_ceil(64);
        self.blocks.clear();
        for (i, &s) in long.iter().enumerate() {
            let s = s as usize;
            if s >= self.slot.len() {
                self.slot.resize(s + 1, NONE);
            }
            if self.slot[s] == NONE {
                self.slot[s] = self.present.len() as u32;
                self.present.push(s as u32);
                self.blocks.resize(self.blocks.len() + words, 0);
            }
            self.blocks[self.slot[s] as usize * words + i / 64] |= 1u64 << (i % 64);
        }

        self.v.clear();
        self.v.resize(words, u64::MAX);
        for &c in short {
            let k = self.slot.get(c as usize).copied().unwrap_or(NONE);
            if k == NONE {
                continue; // `c` matches nothing: V is unchanged.
            }
            let start = k as usize * words;
            lcs_step(&mut self.v, &self.blocks[start..start + words]);
        }

        for s in self.present.drain(..) {
            self.slot[s as usize] = NONE;
        }
        lcs_of(&self.v, long.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::canonical;
    use crate::trace::content_text;
    use proptest::prelude::*;
    use serde_json::json;

    /// Content values: strings and arrays of text blocks, blank or not, and other blocks.
    fn arb_content() -> impl Strategy<Value = Value> {
        let text = prop_oneof![
            Just(""),
            Just("  "),
            Just("\n"),
            Just("ok"),
            Just("héllo wörld"),
            Just(" done. ")
        ];
        let block = prop_oneof![
            text.clone().prop_map(|t| json!(t)),
            text.clone()
                .prop_map(|t| json!({"type": "text", "text": t})),
            text.clone().prop_map(|t| json!({"text": t})),
            Just(json!({"type": "tool_use", "id": "t1", "text": "not an answer"})),
            Just(json!({"type": "image"})),
            Just(json!(7)),
        ];
        prop_oneof![
            text.prop_map(|t| json!(t)),
            prop::collection::vec(block, 0..5).prop_map(Value::Array),
            Just(Value::Null),
            Just(json!({"text": "an object is not content"})),
        ]
    }

    proptest! {
        /// Counting the blocks in place agrees with counting their joined text.
        #[test]
        fn answer_chars_counts_the_joined_text(content in arb_content()) {
            let text = content_text(&content);
            let expected = (!text.trim().is_empty()).then(|| text.chars().count() as f64);
            prop_assert_eq!(answer_chars(&content), expected);
        }
    }

    /// Numbers chosen to sit on both sides of every number rule of `canonical`.
    fn arb_number() -> impl Strategy<Value = Value> {
        prop_oneof![
            (-3i64..3).prop_map(|n| json!(n)),
            (-3i64..3).prop_map(|n| json!(n as f64)),
            Just(json!(-0.0)),
            Just(json!(0.5)),
            Just(json!(1e16)),
            Just(json!(10_000_000_000_000_000u64)),
            Just(json!(9_007_199_254_740_993u64)),
            Just(json!(9_007_199_254_740_992.0)),
            Just(json!(u64::MAX)),
            Just(json!(1.8446744073709552e19)),
            Just(json!(i64::MIN)),
            Just(json!(1.5e300)),
        ]
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            arb_number(),
            "[ab\"1]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[abc]", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// The property the argument ids rest on: same id exactly when the canonical texts are
        /// equal.
        #[test]
        fn arg_ids_follow_canonical_text(a in arb_value(), b in arb_value()) {
            let mut ids = ArgIds::default();
            let (x, y) = (ids.id(&a), ids.id(&b));
            prop_assert_eq!(x == y, canonical(&a) == canonical(&b), "{} vs {}", a, b);
        }
    }

    #[test]
    fn arg_ids_ignore_key_order_and_number_spelling() {
        let values = [
            json!({"q": "rust", "n": 10}),
            json!({"n": 10.0, "q": "rust"}),
            json!({"q": "rust", "n": 11}),
            json!(null),
        ];
        let mut ids = ArgIds::default();
        let got: Vec<u32> = values.iter().map(|v| ids.id(v)).collect();
        assert_eq!(got, vec![0, 0, 1, 2]);
    }
}
