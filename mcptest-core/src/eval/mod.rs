//! The evaluators: pure, deterministic functions from a recorded run (its tool calls or its
//! envelope) to a verdict or a score.
//!
//! | module | question it answers |
//! |---|---|
//! | [`trace_validation`] | did the agent call the right tools, with the right argument shapes, in the right order (five match modes)? |
//! | [`golden_path`] | did it get there without waste (extra steps, backtracks, repeats)? |
//! | [`trajectory_axes`] | did data flow in order (producer before consumer, first before second)? |
//! | [`recovery`] | when a tool stopped answering, how fast did the agent notice, how long did the user wait, and did it route around the fault? |
//! | [`narrative`] | does the agent's closing story match its trace (claimed-but-absent, present-but-unclaimed, arg-mismatch)? |
//! | [`stability`] | did a session hold steady as it went (tool thrash, loops, answer sizes, token burn), and did repeated runs take the same path? |
//! | [`reliability`] | how many runs does a verdict need, and what do N pass/fail outcomes say (pass@k, pass^k decay, variance, late failures)? |
//!
//! The public items of the submodules are re-exported here by name, so
//! `use mcptest_core::eval::{validate_trace, score_golden_path};` works.

pub mod golden_path;
pub mod narrative;
pub mod recovery;
pub mod reliability;
pub mod stability;
pub mod trace_validation;
pub mod trajectory_axes;

pub use crate::trace::tool_calls_from_envelope;
pub use golden_path::{GoldenPath, PathScore, score_golden_path};
pub use narrative::{
    Divergence, DivergenceCategory, MUTATING_VERBS, NarrativeConfig, NarrativeReport, ToolHint,
    ToolHints, check_narrative, check_narrative_with, narrative_tokens, state_changing_verb,
    tool_is_mutating, tool_name_tokens,
};
pub use recovery::{
    RecoveryBudget, RecoveryMarks, RecoveryReport, find_faulted_call, recovery_marks,
    recovery_marks_from_trace, score_recovery,
};
pub use reliability::{
    PassRateDecision, PassRateVerdict, ReliabilityError, ReliabilitySummary, confidence_band,
    decide_pass_rate, pass_at, pass_hat, recommend_runs, summarize, try_confidence_band,
    try_pass_at, try_pass_hat, try_recommend_runs, wilson_interval, z_score,
};
pub use stability::{
    COST_TARGET_TOKENS, PairEvidence, RunEvidence, RunSplit, StabilityAcross, StabilityEvidence,
    StabilityFloors, StabilityReport, agent_stability, agent_stability_across, drift_flags,
    lcs_length, trace_stability, trace_stability_across, trace_stability_evidence,
};
pub use trace_validation::{
    EditOp, EditStep, ExpectedArgs, ExpectedCall, ExpectedTrace, MATCH_MODE_NAMES, MatchMode,
    TraceMismatch, TraceValidation, ValidationError, validate_trace,
};
pub use trajectory_axes::{
    AxesScore, Axis, AxisEdge, EdgeResult, TrajectoryAxes, score_trajectory_axes,
};
