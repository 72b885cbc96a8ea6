#!/usr/bin/env bash
# End to end with a client nobody here wrote: the official Python MCP SDK (`mcp==2.3.0`) drives
# `examples/rmcp/ops_server.rs` over stdio, in legacy (2025-11-25) and 2026-07-28 modes; a few
# cases also write and read the server's stdio lines themselves, to check its raw JSON. The same
# client drives `examples/rmcp/api_key_server.rs` (URL mode on the library's page), the user's
# browser played by the standard library's HTTP client on the page's loopback port; and, over
# streamable HTTP with a bearer token, `examples/rmcp/axum_login_server.rs`, whose browser signs
# in on axum-login's login page (httpx2). Then the
# other way round, with a server nobody here wrote: `AnsweringClient` with a scripted user
# answers tests/e2e/elicit_server.py, on the same SDK, on both revisions; and terminal_client,
# typed into in a real pseudo-terminal, answers it too.
#
# Creates the venv .ci/.venv, builds the examples, runs tests/e2e/test_ops_server.py and
# tests/e2e/test_api_key_server.py, tests/e2e/test_axum_login_server.py and then
# examples/rmcp/tests/python_server.rs, and fails on any
# failed case.
# Usage: .ci/python_e2e.sh [case-filter ...] (the filters select Python cases only)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

venv="$root/.ci/.venv"
echo "=== Python venv with mcp==2.3.0 (in $venv)"
if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi
"$venv/bin/python" --version

echo "=== build the servers"
# `ops_server`'s GitHub page needs `oauth` (which brings `page` and `rmcp`).
cargo build --quiet -p elicit-examples --features oauth --example ops_server
# The page is behind its own feature (`page`, which brings `rmcp`).
cargo build --quiet -p elicit-examples --features page --example api_key_server
# axum-login is a feature of its own (no other build compiles it).
cargo build --quiet -p elicit-examples --features axum-login --example axum_login_server
target_dir=${CARGO_TARGET_DIR:-$root/target}
export OPS_SERVER="$target_dir/debug/examples/ops_server"
export API_KEY_SERVER="$target_dir/debug/examples/api_key_server"
export AXUM_LOGIN_SERVER="$target_dir/debug/examples/axum_login_server"

echo "=== tests/e2e/test_ops_server.py"
# Every case starts its own server (through the SDK's client, or as a raw subprocess) and stops
# it when the case ends.
"$venv/bin/python" tests/e2e/test_ops_server.py "$@"

echo "=== tests/e2e/test_api_key_server.py"
# The same, and each case's browser talks only to the page's listener on 127.0.0.1, which ends
# with its server.
"$venv/bin/python" tests/e2e/test_api_key_server.py "$@"

echo "=== tests/e2e/test_axum_login_server.py"
# Each case starts the server on a free loopback port and stops it when the case ends.
"$venv/bin/python" tests/e2e/test_axum_login_server.py "$@"

echo "=== examples/rmcp/tests/python_server.rs (the client against tests/e2e/elicit_server.py)"
# Ignored in a plain `cargo test`: they need this venv's Python, named by ELICIT_PYTHON.
ELICIT_PYTHON="$venv/bin/python" cargo test -p elicit-examples --features rmcp --test python_server -- --ignored

echo "=== examples/rmcp/tests/terminal.rs: terminal_client in a pty against the same Python server"
# The form and the page are answered by typing in a real pseudo-terminal, as a user would.
cargo build --quiet -p elicit-examples --features terminal --example terminal_client
ELICIT_PYTHON="$venv/bin/python" cargo test -p elicit-examples --features terminal --test terminal -- --ignored
