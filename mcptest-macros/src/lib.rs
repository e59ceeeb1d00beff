//! Procedural macros for mcptest: the home of the `#[mcptest::agent]` attribute.
//!
//! Use it through the facade crate (`mcptest`), never directly: the attribute emits absolute
//! paths into `::mcptest::__private`, so the facade is the only supported entry point.
//! The attribute is not available yet; today agents are declared with the library API of
//! `mcptest::core`:
//!
//! ```text
//! use mcptest::core::eval::{ExpectedCall, ExpectedTrace};
//! let plan = ExpectedTrace::subsequence(vec![ExpectedCall::by_name("get_weather")]);
//! ```
#![forbid(unsafe_code)]
