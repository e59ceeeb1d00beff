#!/usr/bin/env bash
# Runs the whole test suite exactly as CI does: formatting, lints, every test target
# (unit, integration, property, benchmark smoke runs) and every doc-test.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

# The mock server's interop tests (mcptest-mock/tests/python_interop.rs) drive it with the
# official MCP Python SDK: create its virtual environment (target/py-mcp-venv) when missing.
step "Python MCP SDK for the mock's interop tests"
mcptest-mock/tests/python/setup-venv.sh

step "cargo test (unit, integration, property tests, benchmark smoke runs)"
cargo test --workspace --all-targets

step "cargo test --doc"
cargo test --workspace --doc

step "example replay"
cargo run --quiet --example replay > /dev/null

printf '\nall checks passed\n'
