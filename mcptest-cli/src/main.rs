//! The `mcptest` command line.
//!
//! It will replay YAML suites (`mcptest run`), record cassettes (`mcptest run --record`), serve
//! a fault-injecting mock MCP server (`mcptest mock`) and size run counts (`mcptest runs`).
//! None of these subcommands exists yet; this binary says so and exits with the
//! infrastructure-error code 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "mcptest {}: no subcommand is available in this build yet; replay the shipped \
         examples with `cargo run --example replay`",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(2)
}
