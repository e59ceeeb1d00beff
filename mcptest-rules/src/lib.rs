//! # mcptest-rules
//!
//! What an mcptest declaration means, written once. Every front end (a YAML suite, the Rust
//! builder, the `#[mcptest::agent]` attribute) and the evaluators read this rulebook, so they
//! agree by construction: the same targets parse, the same names are known, and the same
//! mistake reads the same wherever it is written.
//!
//! * [`target`]: the target grammar (`tool_calls[0].args.city`, `stability.weakest_score`) and
//!   the narration rule.
//! * [`gates`]: the gate table: each gate's report, its metrics and their kinds, per-run or
//!   cross-run, its default rule.
//! * [`names`]: match modes, argument shapes, matchers, model-graded kinds, fault kinds.
//! * [`mistakes`]: the checks on an assertion's target and the words of every declaration
//!   mistake, with the fix spelled for the front end at hand.
//! * [`suggest`]: the one "did you mean".
//!
//! The crate has no dependencies, so the attribute macro can check a declaration at compile
//! time with the same rules the evaluators apply.
//!
//! ```
//! use mcptest_rules::mistakes::{check_target, Front, Place};
//!
//! // A per-run assertion on a cross-run metric is a mistake, reported with its fix.
//! let err = check_target("reliability.passhat_k", Place::PerRun, false, None).unwrap_err();
//! assert!(err.message(Front::Yaml).contains("move this assertion under `reliability: expect:`"));
//!
//! // A well-formed target yields its steps.
//! let steps = check_target("tool_calls[-1].name", Place::PerRun, false, None).unwrap();
//! assert_eq!(steps.len(), 3);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod gates;
pub mod mistakes;
pub mod names;
pub mod suggest;
pub mod target;
