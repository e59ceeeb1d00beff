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
cargo clippy -p mcptest --features mock -- -D warnings

# Tools the harness tests drive (tests/harness.rs): without them those tests are skipped
# locally and fail when CI is set, so install whichever is missing.
step "test tools: cargo-insta, cargo-nextest"
if ! cargo insta --version >/dev/null 2>&1; then
    cargo install cargo-insta --locked
fi
if ! cargo nextest --version >/dev/null 2>&1; then
    cargo install cargo-nextest --locked
fi

# The mock server's interop tests (mcptest-mock/tests/python_interop.rs) drive it with the
# official MCP Python SDK: create its virtual environment (target/py-mcp-venv) when missing.
step "Python MCP SDK for the mock's interop tests"
mcptest-mock/tests/python/setup-venv.sh

# The recording and proxy tests drive the reference "everything" and "memory" MCP servers and
# the official TypeScript SDK client, pinned by mcptest-cli/tests/node/package-lock.json: install them into
# target/npm-ref when missing.
step "npm reference servers for the recording and proxy tests"
mcptest-cli/tests/node/setup-npm.sh

step "cargo test (unit, integration, property tests, benchmark smoke runs)"
cargo test --workspace --all-targets --no-fail-fast

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "cargo test --doc"
cargo test --workspace --doc --no-fail-fast

step "the quick start's main job, and the library example"
cargo run --quiet -p mcptest-cli -- run --config examples/offline-trace-validation.yml > /dev/null
cargo run --quiet --example replay > /dev/null

# The fuzz targets (fuzz/) need a nightly toolchain; a short smoke of each runs when one is
# on the machine (cargo-fuzz is installed when missing), and the script says so when not.
step "fuzz smoke (cargo fuzz, ${MCPTEST_FUZZ_SECONDS:-10} s per target)"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo install cargo-fuzz --locked
    fi
    fuzz/run.sh "${MCPTEST_FUZZ_SECONDS:-10}"
else
    echo "no nightly toolchain on this machine: the fuzz smoke did not run" \
        "(rustup toolchain install nightly, then fuzz/run.sh)"
fi

printf '\nall checks passed\n'
