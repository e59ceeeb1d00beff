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
//! | `response_consistency` | `1 - min(1, cv)`, `cv` = population std / mean of the assistant-turn character counts | 1.0 with fewer than two assistant turns or all of them empty |
//! | `redundancy` | `distinct_calls / total_calls`, a call keyed on `(name, server, canonical args)` | 1.0 with no calls |
//! | `cost_per_progress` | `target / max(target, tokens / distinct_calls)`, `target` = [`COST_TARGET_TOKENS`] | 1.0 when no tokens were spent; 0.0 when tokens were spent against zero distinct calls |
//!
//! Choices fixed here:
//!
//! * A **tool** is its name (without the server); `distinct_tools` counts names.
//! * A turn's **characters** are the Unicode scalar values (`chars().count()`) of its text as
//!   [`Turn::text_content`](crate::trace::Turn::text_content) reads it: a string, or the text
//!   blocks of a content array joined by `\n` (each separator counts as one character). Only
//!   turns whose role is `assistant` count.
//! * `cv` uses the **population** standard deviation (divide by `n`, not `n - 1`): the turns are
//!   the whole session, not a sample of one.
//! * Arguments compare by [`canonical`](crate::json::canonical) JSON, so `{"a":1,"b":2}` and
//!   `{"b":2,"a":1.0}` are the same call; absent arguments read as `null`.
//! * A trace with **at most one conversation turn and at most one tool call** is trivially
//!   stable: 1.0 on every sub-score (there is no progression to measure), whatever its tokens.
//! * Missing or malformed fields never error: a call that does not decode (no name, or a known
//!   field of the wrong type, as [`tool_calls_from_envelope`] reads it) is skipped, a turn that
//!   is not an object does not count, and a token total that is not a positive number reads as
//!   no tokens.
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
//! through [`hash_value`] and [`json_eq`], which agree with canonical-text equality without
//! building the text, so comparing them costs less than parsing them.
//!
//! [`trace_stability`] and [`trace_stability_across`] score traces already decoded from a
//! cassette, with the same results as the envelope functions on the same runs.
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

use crate::json::{hash_value, json_eq};
use crate::trace::{ConversationTrace, ToolCall, content_text, tool_calls_from_envelope};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
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
    let calls = tool_calls_from_envelope(run);
    run_facts(&envelope_input(run, &calls), &mut Interner::default()).report
}

/// [`agent_stability`] of a trace already decoded (a cassette's `runs[i].trace`), without
/// writing it back to JSON.
pub fn trace_stability(trace: &ConversationTrace) -> StabilityReport {
    run_facts(&trace_input(trace), &mut Interner::default()).report
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
    let calls: Vec<Vec<ToolCall>> = runs.iter().map(tool_calls_from_envelope).collect();
    let mut interner = Interner::default();
    let facts: Vec<RunFacts> = runs
        .iter()
        .zip(&calls)
        .map(|(run, calls)| run_facts(&envelope_input(run, calls), &mut interner))
        .collect();
    across(&facts, interner.names.len())
}

/// [`agent_stability_across`] of traces already decoded (a cassette's runs), without writing
/// them back to JSON.
pub fn trace_stability_across<'a>(
    traces: impl IntoIterator<Item = &'a ConversationTrace>,
) -> StabilityAcross {
    let mut interner = Interner::default();
    let facts: Vec<RunFacts> = traces
        .into_iter()
        .map(|trace| run_facts(&trace_input(trace), &mut interner))
        .collect();
    across(&facts, interner.names.len())
}

/// The cross-run targets of the runs' facts; `alphabet` is the number of distinct tool names.
fn across(facts: &[RunFacts], alphabet: usize) -> StabilityAcross {
    let weakest: Vec<f64> = facts.iter().map(|f| f.report.weakest_score()).collect();
    let (score, weakest_score, variance) = summarize_scores(&weakest);

    let mut lcs = Lcs::with_alphabet(alphabet);
    let mut pairs = 0usize;
    let mut similarity_sum = 0.0;
    let mut consistency_sum = 0.0;
    let mut consistency_pairs = 0usize;
    let mut diverging = 0usize;
    let mut early = 0usize;
    for (i, a) in facts.iter().enumerate() {
        for b in &facts[i + 1..] {
            let pair = compare_pair(a, b, &mut lcs);
            pairs += 1;
            similarity_sum += pair.similarity;
            if let Some(c) = pair.argument_consistency {
                consistency_sum += c;
                consistency_pairs += 1;
            }
            if let Some(at) = pair.divergence {
                diverging += 1;
                early += usize::from(at <= 1);
            }
        }
    }

    StabilityAcross {
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
        early_divergence: u32::from(diverging > 0 && 2 * early > diverging),
    }
}

/// How two runs compare.
struct PairComparison {
    /// `LCS / max(|a|, |b|)` of the tool-name sequences; 1.0 for two empty sequences.
    similarity: f64,
    /// The fraction of same-name positions with the same arguments; `None` without such a
    /// position.
    argument_consistency: Option<f64>,
    /// The first index where the names differ or one sequence ends; `None` when identical.
    divergence: Option<usize>,
}

fn compare_pair(a: &RunFacts, b: &RunFacts, lcs: &mut Lcs) -> PairComparison {
    let longest = a.names.len().max(b.names.len());
    let similarity = if longest == 0 {
        1.0
    } else {
        lcs.length(&a.names, &b.names) as f64 / longest as f64
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
        argument_consistency: (same_name > 0).then(|| same_args as f64 / same_name as f64),
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
    report: StabilityReport,
    /// Tool-name ids, in call order.
    names: Vec<u32>,
    /// Argument ids (equal exactly when the canonical texts are), parallel to `names`.
    args: Vec<u32>,
}

/// What the sub-scores read from one run, however it arrived.
struct RunInput<'a> {
    calls: &'a [ToolCall],
    /// Conversation turns of any role.
    turns: usize,
    /// Character counts of the assistant turns, in order.
    assistant_chars: Vec<f64>,
    /// Total tokens (0 when unknown).
    tokens: f64,
}

/// Reads an envelope or cassette run leniently; `calls` are its decoded tool calls.
fn envelope_input<'a>(run: &Value, calls: &'a [ToolCall]) -> RunInput<'a> {
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
    let turns: Vec<&serde_json::Map<String, Value>> =
        turns.iter().filter_map(Value::as_object).collect();
    RunInput {
        calls,
        turns: turns.len(),
        assistant_chars: turns
            .iter()
            .filter(|t| t.get("role").and_then(Value::as_str) == Some("assistant"))
            .map(|t| char_count(t.get("content").unwrap_or(&Value::Null)) as f64)
            .collect(),
        tokens: conversation
            .and_then(|c| c.get("tokens"))
            .and_then(|t| t.get("total"))
            .map_or(0.0, token_count),
    }
}

fn trace_input(trace: &ConversationTrace) -> RunInput<'_> {
    RunInput {
        calls: &trace.tool_calls,
        turns: trace.conversation.turns.len(),
        assistant_chars: trace
            .assistant_turns()
            .map(|t| char_count(&t.content) as f64)
            .collect(),
        tokens: trace.conversation.tokens.total.unwrap_or(0) as f64,
    }
}

fn run_facts<'a>(input: &RunInput<'a>, interner: &mut Interner<'a>) -> RunFacts {
    let calls = input.calls;
    let mut names = Vec::with_capacity(calls.len());
    let mut args = Vec::with_capacity(calls.len());
    let mut distinct_calls: HashSet<(u32, Option<u32>, u32)> = HashSet::new();
    let mut distinct_tools: HashSet<u32> = HashSet::new();
    for call in calls {
        let name = intern(&mut interner.names, &call.name);
        let server = call
            .server
            .as_deref()
            .map(|s| intern(&mut interner.servers, s));
        let arg = interner.args.id(call.args.as_ref().unwrap_or(&Value::Null));
        distinct_tools.insert(name);
        distinct_calls.insert((name, server, arg));
        names.push(name);
        args.push(arg);
    }

    let report = if input.turns <= 1 && names.len() <= 1 {
        StabilityReport::PERFECT
    } else {
        StabilityReport {
            tool_usage_stability: tool_usage_stability(distinct_tools.len(), names.len()),
            response_consistency: response_consistency(&input.assistant_chars),
            redundancy: redundancy(distinct_calls.len(), names.len()),
            cost_per_progress: cost_per_progress(input.tokens, distinct_calls.len()),
        }
    };
    RunFacts {
        report,
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

/// Unicode scalar values of a turn's text (a content array: its text blocks joined by `\n`).
fn char_count(content: &Value) -> usize {
    match content {
        Value::String(s) => s.chars().count(),
        other => content_text(other).chars().count(),
    }
}

// ---------------------------------------------------------------------------------------------
// Ids: tool names and servers by text, arguments by canonical identity.

/// Dense ids for names, servers and arguments, shared by the runs of one call. Everything is
/// borrowed from the decoded calls.
#[derive(Default)]
struct Interner<'a> {
    names: HashMap<&'a str, u32>,
    servers: HashMap<&'a str, u32>,
    args: ArgIds<'a>,
}

fn intern<'a>(map: &mut HashMap<&'a str, u32>, key: &'a str) -> u32 {
    let next = map.len() as u32;
    *map.entry(key).or_insert(next)
}

/// Ids for argument values: two values get the same id exactly when their
/// [`canonical`](crate::json::canonical) texts are equal. Found through [`hash_value`] and
/// [`json_eq`], which agree with canonical-text equality without building the text.
#[derive(Default)]
struct ArgIds<'a> {
    by_hash: HashMap<u64, Vec<u32>>,
    values: Vec<&'a Value>,
}

impl<'a> ArgIds<'a> {
    fn id(&mut self, v: &'a Value) -> u32 {
        let bucket = self.by_hash.entry(hash_value(v)).or_default();
        if let Some(&id) = bucket
            .iter()
            .find(|&&id| json_eq(self.values[id as usize], v))
        {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(v);
        bucket.push(id);
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
    if chars.len() < 2 {
        return 1.0;
    }
    let n = chars.len() as f64;
    let mean = chars.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return 1.0;
    }
    let variance = chars.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n;
    let cv = variance.sqrt() / mean;
    unit(1.0 - cv.min(1.0))
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
            let mask = &self.blocks[start..start + words];
            let mut carry = 0u64;
            for (v, &m) in self.v.iter_mut().zip(mask) {
                let u = *v & m;
                let (sum, c1) = v.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(carry);
                carry = u64::from(c1 | c2);
                *v = sum | (*v & !m);
            }
        }

        for s in self.present.drain(..) {
            self.slot[s as usize] = NONE;
        }
        let mut ones = 0usize;
        for (w, &v) in self.v.iter().enumerate() {
            let bits_in_use = (long.len() - w * 64).min(64);
            let v = if bits_in_use == 64 {
                v
            } else {
                v & ((1u64 << bits_in_use) - 1)
            };
            ones += v.count_ones() as usize;
        }
        long.len() - ones
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::canonical;
    use proptest::prelude::*;
    use serde_json::json;

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
