//! The runner behind `mcptest::main!()`: discovers cassettes, expands every cassette x run into
//! a named trial, and reports each verdict.
//!
//! It stands on [`mcptest_core`] (the dependency runs one way: core <- harness <- facade).
//! The runner itself is not available yet; its building block, loading a cassette by name with
//! errors that say where the file is broken, is:
//!
//! ```
//! let err = mcptest_harness::core::trace::Cassette::from_json_str("tests/cassettes/w.json", "")
//!     .unwrap_err();
//! assert!(err.to_string().starts_with("tests/cassettes/w.json:1:1: the cassette file is empty"));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The evaluators the harness runs.
pub use mcptest_core as core;
