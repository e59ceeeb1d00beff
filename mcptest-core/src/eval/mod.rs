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
//! Everything public in the submodules is re-exported here, so
//! `use mcptest_core::eval::{validate_trace, score_golden_path};` works.

pub mod golden_path;
pub mod narrative;
pub mod recovery;
pub mod reliability;
pub mod stability;
pub mod trace_validation;
pub mod trajectory_axes;

pub use crate::trace::tool_calls_from_envelope;
pub use golden_path::*;
pub use narrative::*;
pub use recovery::*;
pub use reliability::*;
pub use stability::*;
pub use trace_validation::*;
pub use trajectory_axes::*;
