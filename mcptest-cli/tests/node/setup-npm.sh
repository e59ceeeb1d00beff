#!/usr/bin/env bash
# Installs what the recording and proxy tests drive from npm, at the versions pinned in
# package-lock.json beside this script: the reference MCP servers "everything" and "memory",
# and the official TypeScript SDK (its client). They go to target/npm-ref, or $MCPTEST_NPM_DIR
# when set, and are reused while the lock file is unchanged.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
dir="${MCPTEST_NPM_DIR:-$root/target/npm-ref}"

if ! command -v npm >/dev/null; then
    echo "error: npm not found; install Node.js 20 or newer" >&2
    exit 1
fi

if [ -f "$dir/package-lock.json" ] && cmp -s "$here/package-lock.json" "$dir/package-lock.json" \
    && [ -d "$dir/node_modules/@modelcontextprotocol/server-everything" ] \
    && [ -d "$dir/node_modules/@modelcontextprotocol/sdk" ] \
    && [ -d "$dir/node_modules/@modelcontextprotocol/server-memory" ]; then
    echo "npm reference servers already installed in $dir"
    exit 0
fi

echo "installing the pinned npm reference servers into $dir"
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
echo "ready in $dir: $(cd "$dir" && node -e 'for (const p of ["@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-memory", "@modelcontextprotocol/sdk"]) process.stdout.write(p + "@" + require("./node_modules/" + p + "/package.json").version + " ")')"
