//! # mcptest
//!
//! Grade recorded AI-agent runs against MCP servers, deterministically, inside `cargo test`.
//!
//! An agent run is recorded once (a real model, real MCP servers) into a **cassette** (JSON).
//! Every later check reads the cassette with no model in the loop, so CI is offline, free and
//! byte-stable: did the agent call the right tools with the right argument shapes in the right
//! order, did it waste steps, did data flow in order, did its closing story match what it did.
//!
//! This crate is the facade: it re-exports the pure evaluators of [`mcptest_core`] as
//! [`core`], and (as they land) the `#[mcptest::agent]` attribute and the test harness.
//!
//! ```
//! use mcptest::core::eval::{validate_trace, score_golden_path, ExpectedCall, ExpectedTrace, GoldenPath};
//! use mcptest::core::trace::Cassette;
//! use serde_json::json;
//!
//! let cassette = Cassette::from_json_str("run.json", r#"{"tool_calls": [
//!     {"name": "docs__search", "args": {"q": "pinning"}},
//!     {"name": "docs__open", "args": {"url": "https://rust-lang.github.io/async-book/"}}
//! ]}"#)?;
//! let calls = &cassette.runs[0].trace.tool_calls;
//!
//! let plan = ExpectedTrace::strict(vec![
//!     ExpectedCall::by_name("search").args_subset(json!({"q": "pinning"})),
//!     ExpectedCall::by_name("open"),
//! ]);
//! assert!(validate_trace(calls, &plan)?.passed);
//! assert_eq!(score_golden_path(calls, &GoldenPath::new(["search", "open"])).penalty, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use mcptest_core as core;
