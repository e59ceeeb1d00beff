//! The mcptest harness.
