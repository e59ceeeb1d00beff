#!/usr/bin/env bash
# Creates the Python virtual environment the mock's interoperability tests drive the server
# with: the official MCP Python SDK (`mcp`, pinned below) in target/py-mcp-venv, or in
# $MCPTEST_PY_VENV when set. Reused when it already holds the pinned version.
set -euo pipefail

MCP_VERSION="2.3.0"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="${MCPTEST_PY_VENV:-$root/target/py-mcp-venv}"
python="${PYTHON:-python3}"

if [ -x "$venv/bin/python" ] \
    && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
    echo "mcp $MCP_VERSION already installed in $venv"
    exit 0
fi

if ! command -v "$python" >/dev/null; then
    echo "error: $python not found; install Python 3.10 or newer (or set PYTHON)" >&2
    exit 1
fi

echo "creating $venv with mcp $MCP_VERSION"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
"$venv/bin/python" -c "import mcp; print('mcp', __import__('importlib.metadata').metadata.version('mcp'), 'ready in $venv')"
