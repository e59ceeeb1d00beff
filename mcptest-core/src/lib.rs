//! # mcptest-core
//!
//! The pure heart of mcptest: everything that reads a recorded agent run and decides a verdict,
//! with no model, no network, no clock and no file system in the loop.
//!
//! A run is recorded once into a **cassette** (JSON). After that, the functions here grade it:
//!
//! * [`trace`]: the trace model and cassette format (envelope, runs, tool calls and results).
//! * [`select`]: the target grammar (`tool_calls[0].args.city`, `tool_calls[*].name`,
//!   `tool_results[-1]`) that picks values out of a trace or a report.
//! * [`matchers`]: deterministic matchers (`exact`, `contains`, `schema`, `regex`, `not`, `all`,
//!   `any`) and the one diff shape, [`AssertionDiff`].
//! * [`eval`]: the evaluators: trajectory validation in five match modes, golden-path scoring,
//!   trajectory axes, and the metrics built on them.
//! * [`spec`] and [`gate`]: what an agent is expected to do, and the cell reports that grade it.
//! * [`calibrate`]: floors and ceilings for an agent's declared gates, from known-good recordings.
//! * [`mutate`]: mutants of recorded runs, and how many of them a suite's gates catch.
//! * [`suite`]: YAML suites loaded into the same specs, and where their cassettes live.
//! * [`rules`]: the rulebook (the `mcptest-rules` crate, re-exported): the target grammar, the
//!   gate table, the names of modes, shapes, matchers and faults, and the words of every
//!   declaration mistake, shared with the attribute macro.
//! * [`fingerprint`] and [`secrets`]: what a recorder fingerprints (the first model request,
//!   to tell a stale cassette) and what it must never write (API keys, tokens, secret
//!   environment values).
//!
//! One support module is public only for the mock server's tools files and stays out of these
//! docs: `yaml`, the YAML reader both loaders share (nodes that remember their line and column,
//! under a depth and size cap).
//!
//! Every function in [`eval`] is pure and deterministic: the same cassette gives the same numbers
//! on every machine, every time.
//!
//! ```
//! use mcptest_core::eval::{validate_trace, ExpectedCall, ExpectedTrace};
//! use mcptest_core::trace::Cassette;
//! use serde_json::json;
//!
//! let text = r#"{"tool_calls": [
//!     {"name": "get_weather", "server": "weather", "args": {"city": "Sacramento", "units": "F"}}
//! ]}"#;
//! let cassette = Cassette::from_json_str("weather.json", text)?;
//! let calls = &cassette.runs[0].trace.tool_calls;
//!
//! let expected = ExpectedTrace::subsequence(vec![
//!     ExpectedCall::by_name("get_weather").args_subset(json!({"city": "Sacramento"})),
//! ]);
//! let verdict = validate_trace(calls, &expected)?;
//! assert!(verdict.passed, "{verdict}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod calibrate;
pub mod diff;
pub mod eval;
mod fasthash;
pub mod fingerprint;
pub mod gate;
mod json;
mod json_locate;
pub mod matchers;
mod matching;
pub mod mutate;
pub mod secrets;
pub mod select;
mod sha256;
pub mod spec;
pub mod suite;
pub mod trace;
#[doc(hidden)]
pub mod yaml;

pub use diff::AssertionDiff;
/// The rulebook every front end and evaluator reads: target grammar, gate table, names and
/// the words of every declaration mistake (the `mcptest-rules` crate).
pub use mcptest_rules as rules;
