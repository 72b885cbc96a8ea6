#!/usr/bin/env bash
# The TypeScript MCP SDK's client (pinned in tests/e2e/ts/package-lock.json) against the rmcp
# example servers over stdio: tests/e2e/ts/*.test.mjs, through Node's test runner.
#
# Uses Node 22 from .ci/node (installs it there, from npm, if missing: as .ci/run and
# .ci/conformance.sh do), `npm ci` in tests/e2e/ts, and builds the servers it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

node_dir="$root/.ci/node"
if [ ! -x "$node_dir/node_modules/.bin/node" ]; then
  npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error node@22
fi
export PATH="$node_dir/node_modules/.bin:$PATH"
echo "node $(node --version)"

(cd tests/e2e/ts && npm ci --no-audit --no-fund --loglevel=error)

cargo build --quiet -p elicit-examples --features rmcp --bin keep_alive_server
target_dir=$(cargo metadata --format-version 1 --no-deps |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')
KEEP_ALIVE_SERVER="$target_dir/debug/keep_alive_server"
export KEEP_ALIVE_SERVER

cd tests/e2e/ts
node --test keep_alive.test.mjs
