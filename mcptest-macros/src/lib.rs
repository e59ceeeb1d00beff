//! Proc-macros for mcptest.
