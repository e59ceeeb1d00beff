//! Mutation testing of a suite: would its gates notice if the agent misbehaved?
//!
//! A suite that passes every recorded run may still catch nothing: expectations loose enough
//! to pass a broken run pass a good one too. [`mutation_test`] takes each recorded run of a
//! cassette, derives **mutants** from it (the same run with one misbehaviour planted), grades
//! each against the agent's gates, and counts the mutants some gate **caught**: a cell that
//! passes on the recorded runs fails once the mutant takes its run's place (the run's own cell,
//! or the cassette's `stability` and `reliability` cells).
//!
//! ```text
//! score = caught / mutants        (0 when there is no mutant)
//! ```
//!
//! A suite whose gates catch nothing scores 0; adding a gate never lowers the score on the same
//! runs (a mutant caught by a cell stays caught when another gate is added to that cell).
//!
//! The kinds of [`MutantKind`], each applied at up to [`MAX_PER_KIND`] calls of a run spread
//! evenly over it, and at up to as many more among the calls of tools the suite names (its
//! reference calls, golden path and axes):
//!
//! | kind | the run, changed |
//! |---|---|
//! | `drop_call` | one call (and its result) removed |
//! | `swap_calls` | two neighbouring calls (and their results) exchanged; skipped when identical |
//! | `duplicate_call` | one call (and its result) repeated right after itself |
//! | `perturb_argument` | the first scalar argument of one call changed (a string gains a suffix, a number grows by 1, a boolean flips); a call with no scalar argument gains one |
//! | `error_result` | one successful result turned into an error |
//! | `insert_call` | a call to a tool the run never used, in the middle of the run (a tool from the recorded tool lists or the suite, else `unlisted_tool`) |
//! | `false_claim` | the closing message claims an action no call performed (checked with the narrative checker) |
//! | `stretch_call` | one call takes longer than its deadline (`recovery.max_detection_ms` when declared, else 30,000 ms); later calls shift |
//!
//! ```
//! use mcptest_core::eval::{ExpectedCall, ExpectedTrace};
//! use mcptest_core::mutate::mutation_test;
//! use mcptest_core::spec::AgentSpec;
//! use mcptest_core::trace::Cassette;
//!
//! let cassette = Cassette::from_json_str(
//!     "c.json",
//!     r#"{"tool_calls": [{"name": "search", "args": {"q": "rust"}}, {"name": "open"}]}"#,
//! ).unwrap();
//! let none = AgentSpec::new("no gates");
//! assert_eq!(mutation_test(&none, &cassette).score, 0.0);
//! let strict = AgentSpec::new("strict").trajectory(ExpectedTrace::strict(vec![
//!     ExpectedCall::by_name("search").args_exact(serde_json::json!({"q": "rust"})),
//!     ExpectedCall::by_name("open"),
//! ]));
//! let report = mutation_test(&strict, &cassette);
//! assert!(report.score > 0.5, "{report:?}");
//! ```

use crate::eval::{NarrativeConfig, ToolHints, check_narrative_with};
use crate::gate::{CellReport, evaluate_run};
use crate::json::canonical;
use crate::spec::AgentSpec;
use crate::suite::{
    PlannedCell, evaluate_cassette, grade_reliability, grade_stability, grading_plan,
};
use crate::trace::{Cassette, Run, ToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The most positions of one run each kind is applied at.
pub const MAX_PER_KIND: usize = 8;

/// The deadline a stretched call passes when the agent declares no recovery budget.
pub const DEFAULT_DEADLINE_MS: u64 = 30_000;

/// What a mutant changes in a run (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantKind {
    /// One call removed.
    DropCall,
    /// Two neighbouring calls exchanged.
    SwapCalls,
    /// One call repeated.
    DuplicateCall,
    /// One argument value changed.
    PerturbArgument,
    /// One result turned into an error.
    ErrorResult,
    /// A call to a tool the run never used.
    InsertCall,
    /// The closing message claims an action not taken.
    FalseClaim,
    /// One call past its deadline.
    StretchCall,
}

impl MutantKind {
    /// Every kind, in report order.
    pub const ALL: [MutantKind; 8] = [
        MutantKind::DropCall,
        MutantKind::SwapCalls,
        MutantKind::DuplicateCall,
        MutantKind::PerturbArgument,
        MutantKind::ErrorResult,
        MutantKind::InsertCall,
        MutantKind::FalseClaim,
        MutantKind::StretchCall,
    ];

    /// The snake_case name (`drop_call`).
    pub fn as_str(self) -> &'static str {
        match self {
            MutantKind::DropCall => "drop_call",
            MutantKind::SwapCalls => "swap_calls",
            MutantKind::DuplicateCall => "duplicate_call",
            MutantKind::PerturbArgument => "perturb_argument",
            MutantKind::ErrorResult => "error_result",
            MutantKind::InsertCall => "insert_call",
            MutantKind::FalseClaim => "false_claim",
            MutantKind::StretchCall => "stretch_call",
        }
    }
}

impl fmt::Display for MutantKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One mutant: a recorded run with one misbehaviour planted.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutant {
    /// What was changed.
    pub kind: MutantKind,
    /// The run it came from (0-based).
    pub run: usize,
    /// What changed, in one line.
    pub description: String,
    /// The changed run.
    pub mutated: Run,
}

/// A mutant no gate caught.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Survivor {
    /// What was changed.
    pub kind: MutantKind,
    /// The run's cell name (`run_1`).
    pub run: String,
    /// What changed, in one line.
    pub description: String,
}

/// Mutants and catches of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KindCount {
    /// Mutants of this kind.
    pub mutants: usize,
    /// Those a gate caught.
    pub caught: usize,
}

/// What [`mutation_test`] found for one agent and cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutationReport {
    /// Mutants graded.
    pub mutants: usize,
    /// Mutants some gate caught.
    pub caught: usize,
    /// `caught / mutants` (0 with no mutant).
    pub score: f64,
    /// Per kind, in [`MutantKind::ALL`] order (kinds with no mutant left out).
    pub kinds: BTreeMap<MutantKind, KindCount>,
    /// Every mutant no gate caught.
    pub survivors: Vec<Survivor>,
    /// Cells that already fail on the recorded runs: they cannot catch a mutant (a suite
    /// should pass its own recordings before its mutation score means much).
    pub already_failing: Vec<String>,
}

/// Generates every mutant of every recorded run of `cassette`, grades each against `spec`, and
/// reports how many a gate caught (see the [module docs](self)).
pub fn mutation_test(spec: &AgentSpec, cassette: &Cassette) -> MutationReport {
    let plan = grading_plan(spec, cassette.runs.len());
    let original = evaluate_cassette(spec, cassette);
    let verdicts: Vec<bool> = plan
        .iter()
        .zip(&original)
        .filter_map(|(p, c)| match p {
            PlannedCell::Run(i) if *i < cassette.runs.len() => Some(c.passed()),
            _ => None,
        })
        .collect();
    let mut report = MutationReport {
        mutants: 0,
        caught: 0,
        score: 0.0,
        kinds: BTreeMap::new(),
        survivors: Vec::new(),
        already_failing: original
            .iter()
            .filter(|c| !c.passed())
            .map(|c| c.cell.clone())
            .collect(),
    };
    for (i, run) in cassette.runs.iter().enumerate() {
        for m in mutants_of_run(spec, run, i) {
            let caught = is_caught(spec, cassette, &plan, &original, &verdicts, &m);
            report.mutants += 1;
            let k = report.kinds.entry(m.kind).or_default();
            k.mutants += 1;
            if caught {
                report.caught += 1;
                k.caught += 1;
            } else {
                report.survivors.push(Survivor {
                    kind: m.kind,
                    run: PlannedCell::Run(i).name(),
                    description: m.description,
                });
            }
        }
    }
    if report.mutants > 0 {
        report.score = report.caught as f64 / report.mutants as f64;
    }
    report
}

/// True when a cell that passes on the recorded runs fails with the mutant in its run's place.
fn is_caught(
    spec: &AgentSpec,
    cassette: &Cassette,
    plan: &[PlannedCell],
    original: &[CellReport],
    verdicts: &[bool],
    m: &Mutant,
) -> bool {
    let run_cell = evaluate_run(spec, &PlannedCell::Run(m.run).name(), &m.mutated);
    let mut changed: Option<Cassette> = None;
    for (cell, before) in plan.iter().zip(original) {
        if !before.passed() {
            continue;
        }
        let after = match cell {
            PlannedCell::Run(j) if *j == m.run => run_cell.passed(),
            PlannedCell::Run(_) => continue,
            PlannedCell::Stability => {
                let c = changed.get_or_insert_with(|| {
                    let mut c = cassette.clone();
                    c.runs[m.run] = m.mutated.clone();
                    c
                });
                grade_stability(spec, &cell.name(), c).passed()
            }
            PlannedCell::Reliability => {
                let mut v = verdicts.to_vec();
                if let Some(slot) = v.get_mut(m.run) {
                    *slot = run_cell.passed();
                }
                grade_reliability(spec, &cell.name(), &v).passed()
            }
        };
        if !after {
            return true;
        }
    }
    false
}

/// Up to `cap` positions among `0..n`, spread evenly, first and last included.
fn positions(n: usize, cap: usize) -> Vec<usize> {
    if n <= cap {
        return (0..n).collect();
    }
    let mut out: Vec<usize> = (0..cap).map(|k| k * (n - 1) / (cap - 1)).collect();
    out.dedup();
    out
}

fn describe_call(run: &Run, i: usize) -> String {
    let c = &run.trace.tool_calls[i];
    match &c.args {
        Some(a) => {
            let s = canonical(a);
            let s = if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            };
            format!("call #{i} `{}` {s}", c.name)
        }
        None => format!("call #{i} `{}`", c.name),
    }
}

/// The calls a kind is applied at: up to [`MAX_PER_KIND`] spread evenly over the run, and up
/// to as many more among the calls of tools the suite names (its reference calls, golden path
/// and axes), so the calls a suite cares about are always among the mutated.
fn picked(spec: &AgentSpec, run: &Run) -> Vec<usize> {
    let calls = &run.trace.tool_calls;
    let mut named: Vec<&str> = Vec::new();
    if let Some(t) = &spec.trajectory {
        named.extend(t.calls.iter().map(|c| c.name.as_str()));
    }
    if let Some(g) = &spec.golden_path {
        named.extend(g.calls.iter().map(String::as_str));
    }
    if let Some(a) = &spec.trajectory_axes {
        for (x, y) in a.dependencies.iter().chain(&a.order) {
            named.push(x);
            named.push(y);
        }
    }
    let referenced: Vec<usize> = (0..calls.len())
        .filter(|&i| named.contains(&calls[i].name.as_str()))
        .collect();
    let mut out = positions(calls.len(), MAX_PER_KIND);
    out.extend(
        positions(referenced.len(), MAX_PER_KIND)
            .into_iter()
            .map(|k| referenced[k]),
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// Every mutant of one run (`index` is its 0-based position in the cassette).
pub fn mutants_of_run(spec: &AgentSpec, run: &Run, index: usize) -> Vec<Mutant> {
    let n = run.trace.tool_calls.len();
    let at = picked(spec, run);
    let mut out = Vec::new();
    let mut push = |kind, description: String, mutated: Run| {
        out.push(Mutant {
            kind,
            run: index,
            description,
            mutated,
        })
    };
    for &i in &at {
        let mut r = run.clone();
        r.trace.tool_calls.remove(i);
        if i < r.trace.tool_results.len() {
            r.trace.tool_results.remove(i);
        }
        push(
            MutantKind::DropCall,
            format!("dropped {}", describe_call(run, i)),
            r,
        );
    }
    // A swap exchanges a picked call with the next one (the last picked, with the one before).
    let mut pairs: Vec<usize> = at.iter().map(|&i| i.min(n.saturating_sub(2))).collect();
    pairs.dedup();
    for i in pairs.into_iter().filter(|_| n >= 2) {
        let calls = &run.trace.tool_calls;
        let results = &run.trace.tool_results;
        if calls[i] == calls[i + 1] && results.get(i) == results.get(i + 1) {
            continue; // an identical pair: swapping changes nothing
        }
        let mut r = run.clone();
        r.trace.tool_calls.swap(i, i + 1);
        if i + 1 < r.trace.tool_results.len() {
            r.trace.tool_results.swap(i, i + 1);
        }
        push(
            MutantKind::SwapCalls,
            format!(
                "swapped call #{i} `{}` and call #{} `{}`",
                calls[i].name,
                i + 1,
                calls[i + 1].name
            ),
            r,
        );
    }
    for &i in &at {
        let mut r = run.clone();
        let call = r.trace.tool_calls[i].clone();
        r.trace.tool_calls.insert(i + 1, call);
        if let Some(res) = r.trace.tool_results.get(i).cloned() {
            r.trace.tool_results.insert(i + 1, res);
        }
        push(
            MutantKind::DuplicateCall,
            format!("repeated {}", describe_call(run, i)),
            r,
        );
    }
    for &i in &at {
        let mut r = run.clone();
        let call = &mut r.trace.tool_calls[i];
        let mut args = call
            .args
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        let what = perturb(&mut args);
        call.args = Some(args);
        push(
            MutantKind::PerturbArgument,
            format!("call #{i} `{}`: {what}", run.trace.tool_calls[i].name),
            r,
        );
    }
    for &i in &at {
        let ok = run
            .trace
            .tool_results
            .get(i)
            .is_none_or(|res| !res.is_error && !res.timed_out);
        if !ok {
            continue; // already an error
        }
        let mut r = run.clone();
        let results = &mut r.trace.tool_results;
        while results.len() <= i {
            results.push(ToolResult::default());
        }
        results[i].is_error = true;
        results[i].content = Some(serde_json::json!([{
            "type": "text", "text": "error: the tool failed (planted by mcptest mutate)"
        }]));
        push(
            MutantKind::ErrorResult,
            format!("the result of {} is an error", describe_call(run, i)),
            r,
        );
    }
    {
        let tool = unused_tool(spec, run);
        let at = n / 2;
        let mut r = run.clone();
        let mut call = crate::trace::ToolCall::new(tool.clone());
        call.args = Some(Value::Object(Map::new()));
        r.trace.tool_calls.insert(at, call);
        if at <= r.trace.tool_results.len() && !r.trace.tool_results.is_empty() {
            r.trace.tool_results.insert(at, ToolResult::default());
        }
        push(
            MutantKind::InsertCall,
            format!("inserted a call to `{tool}` (never used in this run) at #{at}"),
            r,
        );
    }
    if let Some((claim, r)) = false_claim(spec, run) {
        push(
            MutantKind::FalseClaim,
            format!("the closing message adds {claim:?}"),
            r,
        );
    }
    let deadline = spec
        .recovery
        .as_ref()
        .map_or(DEFAULT_DEADLINE_MS, |b| b.max_detection_ms);
    let mut stretch_at = at.clone();
    if spec.recovery.is_some()
        && let Some(f) = spec.inject.iter().find_map(|f| {
            crate::eval::find_faulted_call(
                &run.trace.tool_calls,
                f.target.tool.as_deref(),
                f.target.server.as_deref(),
            )
        })
        && !stretch_at.contains(&f)
    {
        stretch_at.insert(0, f);
    }
    for i in stretch_at {
        let mut r = run.clone();
        stretch(&mut r, i, deadline);
        push(
            MutantKind::StretchCall,
            format!(
                "{} takes {} ms, past the {deadline} ms deadline",
                describe_call(run, i),
                deadline + 1
            ),
            r,
        );
    }
    out
}

/// Changes the first scalar in `v` (depth first, keys in order); adds a key when there is none.
/// Returns what changed.
fn perturb(v: &mut Value) -> String {
    fn walk(v: &mut Value, at: &mut String) -> Option<String> {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<String> = m.keys().cloned().collect();
                keys.sort();
                for k in keys {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    if let Some(found) = walk(m.get_mut(&k).expect("key present"), at) {
                        return Some(found);
                    }
                    at.truncate(len);
                }
                None
            }
            Value::Array(a) => {
                for (i, x) in a.iter_mut().enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    if let Some(found) = walk(x, at) {
                        return Some(found);
                    }
                    at.truncate(len);
                }
                None
            }
            scalar => {
                let before = scalar.clone();
                *scalar = match &before {
                    Value::String(s) if s.is_empty() => Value::String("x".into()),
                    Value::String(s) => Value::String(format!("{s}-mutated")),
                    Value::Bool(b) => Value::Bool(!b),
                    Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                        (Some(i), _, _) => Value::from(i.wrapping_add(1)),
                        (_, Some(u), _) => Value::from(u.wrapping_add(1)),
                        (_, _, Some(f)) => serde_json::Number::from_f64(f + 1.0)
                            .map_or(Value::from(0), Value::Number),
                        _ => Value::from(0),
                    },
                    _ => Value::String("mutated".into()),
                };
                let shown = if at.is_empty() { "(root)" } else { at.as_str() };
                Some(format!("{shown} {before} -> {}", scalar))
            }
        }
    }
    let mut at = String::new();
    if let Some(found) = walk(v, &mut at) {
        return found;
    }
    match v {
        Value::Object(m) => {
            m.insert("mutated".into(), Value::Bool(true));
            "added argument /mutated true".into()
        }
        Value::Array(a) => {
            a.push(Value::Bool(true));
            "appended true to the arguments".into()
        }
        _ => unreachable!("a scalar is found by walk"),
    }
}

/// A tool the run never called: from its recorded tool lists, else the suite's reference
/// calls and golden path, else `unlisted_tool`.
fn unused_tool(spec: &AgentSpec, run: &Run) -> String {
    let used: std::collections::HashSet<&str> = run
        .trace
        .tool_calls
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut candidates: Vec<String> = Vec::new();
    if let Some(Value::Array(xs)) = run.extra.get("mcp_exchanges") {
        for x in xs {
            if x.get("method").and_then(Value::as_str) != Some("tools/list") {
                continue;
            }
            if let Some(Value::Array(tools)) = x.get("tools") {
                candidates.extend(
                    tools
                        .iter()
                        .filter_map(|t| t.get("name").and_then(Value::as_str))
                        .map(str::to_string),
                );
            }
        }
    }
    if let Some(t) = &spec.trajectory {
        candidates.extend(t.calls.iter().map(|c| c.name.clone()));
    }
    if let Some(g) = &spec.golden_path {
        candidates.extend(g.calls.iter().cloned());
    }
    candidates
        .into_iter()
        .find(|c| !used.contains(c.as_str()))
        .unwrap_or_else(|| {
            let mut name = "unlisted_tool".to_string();
            while used.contains(name.as_str()) {
                name.push('_');
            }
            name
        })
}

/// The closing message with one claim of an action no call performed, confirmed by the
/// narrative checker (the first candidate it reads as claimed but absent).
fn false_claim(spec: &AgentSpec, run: &Run) -> Option<(String, Run)> {
    const CLAIMS: &[&str] = &[
        "I also deleted the customer record.",
        "I also cancelled the subscription.",
        "I also sent the invoice.",
        "I also published the draft.",
        "I also revoked the access token.",
        "I also merged the pull request.",
    ];
    let cfg = spec
        .narrative
        .as_ref()
        .map_or_else(NarrativeConfig::default, |n| n.config());
    let hints = ToolHints::from_run(run);
    let calls = &run.trace.tool_calls;
    let text = run.trace.final_text();
    let before = check_narrative_with(&text, calls, &cfg, &hints).claimed_but_absent;
    CLAIMS.iter().find_map(|claim| {
        let new_text = if text.trim().is_empty() {
            claim.to_string()
        } else {
            format!("{} {claim}", text.trim_end())
        };
        let after = check_narrative_with(&new_text, calls, &cfg, &hints).claimed_but_absent;
        (after > before).then(|| {
            let mut r = run.clone();
            r.trace.final_response = Some(new_text);
            (claim.to_string(), r)
        })
    })
}

/// Makes call `i` end `deadline + 1` ms after it starts, shifting the calls after it.
fn stretch(run: &mut Run, i: usize, deadline: u64) {
    let calls = &mut run.trace.tool_calls;
    let start = calls[i].started_ms.unwrap_or_else(|| {
        calls[..i]
            .iter()
            .rev()
            .find_map(|c| c.ended_ms.or(c.started_ms))
            .unwrap_or(0)
    });
    let old_end = calls[i].ended_ms.unwrap_or(start);
    let new_end = start.saturating_add(deadline).saturating_add(1);
    let shift = new_end.saturating_sub(old_end);
    calls[i].started_ms = Some(start);
    calls[i].ended_ms = Some(new_end);
    for c in &mut calls[i + 1..] {
        c.started_ms = c.started_ms.map(|t| t.saturating_add(shift));
        c.ended_ms = c.ended_ms.map(|t| t.saturating_add(shift));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn positions_spread_and_include_both_ends() {
        assert_eq!(positions(3, 8), [0, 1, 2]);
        assert_eq!(positions(100, 8), [0, 14, 28, 42, 56, 70, 84, 99]);
        assert!(positions(0, 8).is_empty());
    }

    #[test]
    fn perturb_changes_the_first_scalar_or_adds_one() {
        let mut v = json!({"b": {"c": [1]}, "a": "rust"});
        assert_eq!(perturb(&mut v), r#"/a "rust" -> "rust-mutated""#);
        let mut v = json!({"n": 41});
        perturb(&mut v);
        assert_eq!(v, json!({"n": 42}));
        let mut v = json!({"flag": true});
        perturb(&mut v);
        assert_eq!(v, json!({"flag": false}));
        let mut v = json!({});
        assert_eq!(perturb(&mut v), "added argument /mutated true");
        let mut v = json!({"a/b": null});
        assert_eq!(perturb(&mut v), r#"/a~1b null -> "mutated""#);
    }

    #[test]
    fn stretching_shifts_later_calls() {
        let mut run = Run::from_trace(
            crate::trace::ConversationTrace::from_envelope(&json!({"tool_calls": [
                {"name": "a", "started_ms": 0, "ended_ms": 10},
                {"name": "b", "started_ms": 20, "ended_ms": 30}]}))
            .unwrap(),
        );
        stretch(&mut run, 0, 1000);
        let c = &run.trace.tool_calls;
        assert_eq!((c[0].started_ms, c[0].ended_ms), (Some(0), Some(1001)));
        assert_eq!((c[1].started_ms, c[1].ended_ms), (Some(1011), Some(1021)));
    }
}
