#!/usr/bin/env bash
# A fleet on one machine: three replicas of examples/rmcp/fleet_server behind Debian's haproxy,
# sharing a real redis-server, all on loopback; tests/fleet/test_fleet.py starts them (each case
# may kill a replica or stop Redis, and restores them) and drives them with the official Python
# MCP client (mcp==2.3.0) on both revisions, the TypeScript SDK's v1 client (2025-11-25) and its
# v2 client (`@modelcontextprotocol/client`, 2026-07-28, its own input-required driver).
#
# Installs haproxy and redis-server (apt) and the venv .ci/.venv if missing, builds the server,
# runs the cases and fails on any failed case.
# Usage: .ci/fleet.sh [case-filter ...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

echo "=== haproxy and redis-server"
if ! command -v haproxy >/dev/null 2>&1 || ! command -v redis-server >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq haproxy redis-server >/dev/null
fi
# Not `| head`: under pipefail, haproxy killed by SIGPIPE fails the script (exit 141).
haproxy -v | sed -n 1p
redis-server --version

venv="$root/.ci/.venv"
echo "=== Python venv with mcp==2.3.0 (in $venv)"
if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi

echo "=== Node 22 (in .ci/node) and the TypeScript SDK (tests/e2e/ts, from its lock)"
node_dir="$root/.ci/node"
if [ ! -x "$node_dir/node_modules/.bin/node" ]; then
  npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error node@22
fi
export PATH="$node_dir/node_modules/.bin:$PATH"
node --version
(cd tests/e2e/ts && npm ci --no-audit --no-fund --loglevel=error)

echo "=== build the replica"
cargo build --quiet -p elicit-examples --features fleet --example fleet_server
target_dir=${CARGO_TARGET_DIR:-$root/target}
export FLEET_SERVER="$target_dir/debug/examples/fleet_server"

echo "=== tests/fleet/test_fleet.py"
"$venv/bin/python" tests/fleet/test_fleet.py "$@"
