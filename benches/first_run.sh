#!/usr/bin/env bash
# The README's two commands, cold, on a fresh clone, against a floor crate, all in one run.
#
#   floor       a crate depending only on serde (derive), serde_json and darling: the least a
#               derive-based JSON library costs to build. `cargo build`.
#   quickstart  `cargo build --example quickstart` in a fresh clone of HEAD: what the README's
#               `cargo run --example quickstart` builds before it runs.
#   tests       `cargo test --workspace` in the same clone: every build (trybuild's nested one
#               included) and every test run — the README's test command, whole.
#
# Each starts from an empty target directory, after `cargo fetch`: downloads are not timed. The
# floor uses this repository's Cargo.lock, so shared crates are the same versions.
# Compile units are the `Compiling`/`Checking` lines cargo prints (one per crate built, build
# scripts included), trybuild's nested build included: the count the issue's targets use.
#
# Usage: bash benches/first_run.sh
#   OUT=dir     where the clone and target directories go (default: target/first-run)
#   RECORD=1    also append the result as a row of the table in BENCHMARKS.md
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-${CARGO_TARGET_DIR:-$repo/target}/first-run}
unset CARGO_TARGET_DIR
rm -rf "$out"
mkdir -p "$out"

# One cold build: name, directory, command... Sets $secs and $units; a failed build stops the
# script (called directly, not in a subshell, so that its `exit` is the script's).
measure() {
  local name=$1 dir=$2
  shift 2
  local log="$out/$name.log" start end status=0
  start=$(date +%s.%N)
  (cd "$dir" && CARGO_TARGET_DIR="$out/target-$name" CARGO_TERM_COLOR=never "$@") >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  if [ "$status" -ne 0 ]; then
    echo "$name failed (exit $status); see $log" >&2
    exit 1
  fi
  units=$(grep -cE '^ *(Compiling|Checking) ' "$log" || true)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
}

floor="$out/floor"
mkdir -p "$floor/src"
cp "$repo/Cargo.lock" "$floor/Cargo.lock"
cat >"$floor/Cargo.toml" <<'TOML'
[package]
name = "floor"
version = "0.0.0"
edition = "2024"
publish = false
[workspace]
[dependencies]
serde = { version = "1.0.200", features = ["derive"] }
serde_json = "1.0.120"
darling = "0.24.1"
TOML
cat >"$floor/src/lib.rs" <<'RS'
pub use darling;
#[derive(serde::Deserialize, Debug)]
pub struct Deploy {
    pub env: String,
    pub ticket: Option<String>,
}
pub fn parse(text: &str) -> serde_json::Result<Deploy> {
    serde_json::from_str(text)
}
RS

clone="$out/clone"
git clone -q "$repo" "$clone"
(cd "$floor" && cargo fetch -q)
(cd "$clone" && cargo fetch -q)

measure floor "$floor" cargo build
floor_s=$secs floor_units=$units
measure quickstart "$clone" cargo build --example quickstart
quick_s=$secs quick_units=$units
measure tests "$clone" cargo test --workspace
tests_s=$secs tests_units=$units

ratio() { awk -v a="$1" -v b="$floor_s" 'BEGIN { printf "%.2f", a / b }'; }
commit=$(git -C "$repo" rev-parse --short HEAD)
row=$(printf '| %s | %s | %.1f s, %s units | %.1f s, %s units, %s× | %.1f s, %s units, %s× |' \
  "$(date -u +%Y-%m-%d)" "$commit" "$floor_s" "$floor_units" \
  "$quick_s" "$quick_units" "$(ratio "$quick_s")" \
  "$tests_s" "$tests_units" "$(ratio "$tests_s")")

echo "floor (serde derive + serde_json + darling): ${floor_s} s, ${floor_units} units"
echo "quickstart (cargo build --example quickstart): ${quick_s} s, ${quick_units} units, $(ratio "$quick_s")x"
echo "tests (cargo test --workspace): ${tests_s} s, ${tests_units} units, $(ratio "$tests_s")x"
echo "$row"

if [ "${RECORD:-0}" = 1 ]; then
  marker='<!-- first-run rows: benches/first_run.sh appends here -->'
  grep -qF "$marker" "$repo/BENCHMARKS.md" || { echo "no first-run table in BENCHMARKS.md" >&2; exit 1; }
  python3 - "$repo/BENCHMARKS.md" "$marker" "$row" <<'PY'
import sys
path, marker, row = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(marker, row + "\n" + marker, 1))
PY
  echo "recorded in BENCHMARKS.md"
fi
