pub use mcptest_core as core;
