#!/usr/bin/env bash
# Real MCP hosts nobody here wrote, installed from the registries and driven as their users drive
# them (tests/hosts/):
#
# - the MCP Inspector 2.12.0 (npm, pinned in tests/hosts/package-lock.json), its web UI in
#   Debian's headless Chromium over WebDriver (chromedriver): tests/hosts/inspector.test.mjs,
#   against examples/rmcp/booking.rs and api_key_server.rs over stdio, on both eras;
# - fast-agent 0.10.48 (PyPI `fast-agent-mcp`, with pexpect and pyte, pinned below) in a
#   pseudo-terminal: tests/hosts/test_fast_agent.py, against examples/rmcp/fleet_server.rs and a
#   redis-server;
# - Claude Code 2.1.337 and Codex 0.171.0 (npm, pinned in tests/hosts/package-lock.json, each
#   native binary an optional dependency from the registry), each TUI in a pseudo-terminal
#   (pexpect and pyte, in .ci/.venv-terminal) against a scripted model on loopback:
#   tests/hosts/test_coding_hosts.py, against examples/rmcp/booking.rs, ops_server.rs and
#   api_key_server.rs over stdio, a new user's own server (bin/alerts_server.rs), and, for Codex's
#   negative controls, booking and api_key_server with the host table and the link form off
#   (bin/unadapted.rs). Each runs inside its own network namespace with only loopback up
#   (`unshare -n`, then `ip link set lo up`; as root, or `unshare -rn` in a user namespace): the
#   host, its servers and pages, the model and the test's browser share it, and nothing leaves
#   the machine.
#
# (The TypeScript SDK v2's client runs in the fleet: .ci/fleet.sh, `typescript_v2_client`.)
#
# Installs what is missing: Chromium, ChromeDriver and redis-server (apt); iproute2 and
# util-linux (apt: `ip`, `unshare`); Node 22 from npm into .ci/node (the Inspector needs 22.19
# or later); the Inspector, Claude Code and Codex into tests/hosts/node_modules (`npm ci`, about
# 900 MB unpacked, skipped while the lock is the one installed); a venv .ci/.venv-fast-agent on
# Python 3.13 (fast-agent needs it; this machine's pyenv has it, or `python3.13` on PATH); a
# venv .ci/.venv-terminal with pexpect and pyte. Builds the servers. Each step prints its wall
# time.
# Usage: .ci/hosts.sh [inspector|fast-agent|claude-code|codex]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
only=${1:-all}

fast_agent_version=0.10.48
pexpect_version=4.9.0
pyte_version=0.8.2

timed() {
  local what=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "--- $what: $((SECONDS - start)) s"
  return "$rc"
}

wants() { [ "$only" = all ] || [ "$only" = "$1" ]; }

echo "=== Chromium, ChromeDriver and redis-server; ip, unshare, npm and python3-venv (Debian)"
if ! command -v ip >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1 ||
  ! command -v npm >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq -o DPkg::Lock::Timeout=300
  apt-get install -y -qq -o DPkg::Lock::Timeout=300 iproute2 util-linux nodejs npm python3-venv >/dev/null
fi
if wants inspector || wants fast-agent; then
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1 ||
    ! command -v redis-server >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq -o DPkg::Lock::Timeout=300
    apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium chromium-driver redis-server >/dev/null
  fi
  chromedriver --version
fi

echo "=== Node 22 (in .ci/node); the Inspector, Claude Code and Codex (tests/hosts, from its lock)"
node_dir="$root/.ci/node"
if [ ! -x "$node_dir/node_modules/.bin/node" ]; then
  npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error node@22
fi
export PATH="$node_dir/node_modules/.bin:$PATH"
node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    console.error(`the Inspector needs Node 22.19 or later, found ${process.version}`);
    process.exit(1);
  }
  console.log(`node ${process.version}`);'
# `npm ci` empties node_modules first: skipped while the lock is the one last installed (the
# hosts' native binaries are 900 MB unpacked).
lock_sum=$(sha256sum tests/hosts/package-lock.json | cut -d' ' -f1)
if [ "$(cat tests/hosts/node_modules/.elicit-lock.sha256 2>/dev/null)" != "$lock_sum" ]; then
  timed "npm ci (tests/hosts)" bash -c 'cd tests/hosts && npm ci --no-audit --no-fund --loglevel=error'
  echo "$lock_sum" >tests/hosts/node_modules/.elicit-lock.sha256
fi
tests/hosts/node_modules/.bin/claude --version
tests/hosts/node_modules/.bin/codex --version

echo "=== pexpect and pyte for Claude Code and Codex (in .ci/.venv-terminal)"
terminal_venv="$root/.ci/.venv-terminal"
want="pexpect==$pexpect_version pyte==$pyte_version"
if ! "$terminal_venv/bin/python" -c '
import importlib.metadata as m, sys
want = dict(p.split("==") for p in sys.argv[1:])
assert all(m.version(name) == version for name, version in want.items())' $want 2>/dev/null; then
  timed "venv and pip install (.ci/.venv-terminal)" bash -c "python3 -m venv '$terminal_venv' &&
    '$terminal_venv/bin/pip' install --quiet --disable-pip-version-check $want"
fi

venv="$root/.ci/.venv-fast-agent"
if wants fast-agent; then
  echo "=== Python 3.13 and fast-agent $fast_agent_version (in .ci/.venv-fast-agent)"
  venv="$root/.ci/.venv-fast-agent"
  # The first candidate that runs as 3.13: pyenv's own 3.13 (its `python3.13` shim on PATH fails
  # unless 3.13 is pyenv's selected version), then whatever `python3.13` is on PATH.
  python313=""
  for candidate in $(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python3.13 2>/dev/null | sort -V -r) \
    $(command -v python3.13 || true); do
    if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 13)' >/dev/null 2>&1; then
      python313=$candidate
      break
    fi
  done
  if [ -z "$python313" ]; then
    echo "fast-agent needs Python 3.13: none on PATH (python3.13) nor in ~/.pyenv/versions" >&2
    exit 1
  fi
  want="fast-agent-mcp==$fast_agent_version pexpect==$pexpect_version pyte==$pyte_version"
  if ! "$venv/bin/python" -c '
  import importlib.metadata as m, sys
  want = dict(p.split("==") for p in sys.argv[1:])
  assert all(m.version(name) == version for name, version in want.items())' $want 2>/dev/null; then
    timed "venv and pip install" bash -c "'$python313' -m venv '$venv' &&
      '$venv/bin/pip' install --quiet --disable-pip-version-check $want"
  fi
  "$venv/bin/python" --version
fi

echo "=== build the servers"
# The features .ci/python_e2e.sh and .ci/fleet.sh build with, so these are mostly cached.
timed "cargo build (booking, api_key_server, unadapted, alerts_server, ops_server, fleet_server)" bash -c '
  cargo build --quiet -p elicit-examples --features page --example booking --example api_key_server \
    --bin unadapted --bin alerts_server &&
  cargo build --quiet -p elicit-examples --features oauth --example ops_server &&
  cargo build --quiet -p elicit-examples --features fleet --example fleet_server'
target_dir=${CARGO_TARGET_DIR:-$root/target}
export BOOKING_SERVER="$target_dir/debug/examples/booking"
export API_KEY_SERVER="$target_dir/debug/examples/api_key_server"
export FLEET_SERVER="$target_dir/debug/examples/fleet_server"
export OPS_SERVER="$target_dir/debug/examples/ops_server"
export UNADAPTED_SERVER="$target_dir/debug/unadapted"
export ALERTS_SERVER="$target_dir/debug/alerts_server"
export HOSTS_ARTIFACTS="$target_dir/hosts"

status=0
if wants inspector; then
  echo "=== the MCP Inspector in headless Chromium (tests/hosts/inspector.test.mjs)"
  timed "the Inspector" bash -c 'cd tests/hosts && node --test --test-concurrency=1 inspector.test.mjs' || status=1
fi
if wants fast-agent; then
  echo "=== fast-agent in a pty (tests/hosts/test_fast_agent.py)"
  timed "fast-agent" "$venv/bin/python" tests/hosts/test_fast_agent.py || status=1
fi
# A network namespace of its own with only loopback up: as root `unshare -n`; otherwise a user
# namespace too (`-r`), where `ip link set lo up` is allowed.
netns=(unshare -n)
[ "$(id -u)" = 0 ] || netns=(unshare -rn)
for host in claude-code codex; do
  if wants "$host"; then
    echo "=== $host in a pty, in a network namespace with only loopback (tests/hosts/test_coding_hosts.py)"
    timed "$host" "${netns[@]}" bash -c 'ip link set lo up && exec "$0" tests/hosts/test_coding_hosts.py "$1"' \
      "$terminal_venv/bin/python" "$host" || status=1
  fi
done
exit "$status"
