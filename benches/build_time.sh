#!/usr/bin/env bash
# Build time: 100 structs × 8 fields, derived two ways, built on this machine in this run.
#
#   elicit:      #[derive(Elicit)]                  (dependency: this repository's `mcp-elicit`)
#   elicit-mrtr: the same, with the `mrtr` feature  (what a 2026-07-28 server also builds)
#   serde:       #[derive(Deserialize, JsonSchema)] (what an rmcp user writes: serde + schemars)
#
# Both crates also depend on serde_json, and use this repository's Cargo.lock, so shared
# dependencies are the same versions. For each, RUNS times, alternating the two crates:
#   clean      rm -rf the crate's target dir, then `cargo build`: dependencies + the crate
#   deps-built `cargo clean -p <crate>`, then `cargo build`: the generated crate alone
# and, once, a clean build of the macro crate `elicit-derive` alone, with its dependency count.
#
# Usage: bash benches/build_time.sh            (RUNS=3 PROFILE=dev by default; OUT=dir)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
profile=${PROFILE:-dev}
out=${OUT:-${CARGO_TARGET_DIR:-$repo/target}/build-time}
structs=${STRUCTS:-100}
mkdir -p "$out"

gen_crate() { # name, kind
  local dir="$out/$1" kind=$2
  rm -rf "$dir/src"; mkdir -p "$dir/src"
  cp "$repo/Cargo.lock" "$dir/Cargo.lock"
  {
    echo '[package]'
    echo "name = \"$1\""
    echo 'version = "0.0.0"'
    echo 'edition = "2024"'
    echo 'publish = false'
    echo '[workspace]'
    echo '[dependencies]'
    echo 'serde_json = "1.0.120"'
    if [ "$kind" = elicit ]; then
      echo "mcp-elicit = { path = \"$repo\" }"
    elif [ "$kind" = elicit-mrtr ]; then
      echo "mcp-elicit = { path = \"$repo\", features = [\"mrtr\"] }"
    else
      echo 'serde = { version = "1.0.200", features = ["derive"] }'
      echo 'schemars = "1.0"'
    fi
  } >"$dir/Cargo.toml"
  {
    echo '#![allow(dead_code)]'
    if [ "$kind" != serde ]; then
      echo 'use mcp_elicit::Elicit;'
      echo '#[derive(Elicit, Debug, Clone, Copy, PartialEq)]'
      echo '#[elicit(rename_all = "lowercase")]'
      echo 'pub enum Plan { #[elicit(title = "Free")] Free, #[elicit(title = "Pro")] Pro, #[elicit(title = "Team")] Team }'
      echo '#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]'
      echo '#[elicit(rename_all = "lowercase")]'
      echo 'pub enum Topic { Rust, Mcp, Wasm, Embedded }'
    else
      echo 'use serde::Deserialize;'
      echo 'use schemars::JsonSchema;'
      echo '#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq)]'
      echo '#[serde(rename_all = "lowercase")]'
      echo '#[schemars(inline)]'
      echo 'pub enum Plan { #[schemars(title = "Free")] Free, #[schemars(title = "Pro")] Pro, #[schemars(title = "Team")] Team }'
      echo '#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq)]'
      echo '#[serde(rename_all = "lowercase")]'
      echo '#[schemars(inline)]'
      echo 'pub enum Topic { Rust, Mcp, Wasm, Embedded }'
    fi
    for i in $(seq 1 "$structs"); do
      if [ "$kind" != serde ]; then
        cat <<RS
/// Form $i: we need a way to reach you and what you want to try.
#[derive(Elicit, Debug)]
pub struct Form$i {
    /// Where we send the invitation.
    #[elicit(title = "Email", format = "email", min_length = 6, max_length = 254)]
    pub email: String,
    #[elicit(title = "Full name", min_length = 2, max_length = 64)]
    pub name: String,
    #[elicit(title = "Age", minimum = 18, maximum = 130)]
    pub age: u8,
    /// Monthly budget, if any.
    #[elicit(minimum = 0, maximum = 100000)]
    pub budget: Option<f64>,
    #[elicit(title = "Send me the newsletter")]
    pub newsletter: bool,
    #[elicit(title = "Plan")]
    pub plan: Plan,
    #[elicit(min_items = 1, max_items = 3)]
    pub topics: Vec<Topic>,
    #[elicit(format = "uri", max_length = 2048)]
    pub website: Option<String>,
}
RS
      else
        cat <<RS
/// Form $i: we need a way to reach you and what you want to try.
#[derive(Deserialize, JsonSchema, Debug)]
pub struct Form$i {
    /// Where we send the invitation.
    #[schemars(title = "Email", email, length(min = 6, max = 254))]
    pub email: String,
    #[schemars(title = "Full name", length(min = 2, max = 64))]
    pub name: String,
    #[schemars(title = "Age", range(min = 18, max = 130))]
    pub age: u8,
    /// Monthly budget, if any.
    #[schemars(range(min = 0, max = 100000))]
    pub budget: Option<f64>,
    #[schemars(title = "Send me the newsletter")]
    pub newsletter: bool,
    #[schemars(title = "Plan", extend("type" = "string"))]
    pub plan: Plan,
    #[schemars(length(min = 1, max = 3))]
    pub topics: Vec<Topic>,
    #[schemars(url, length(max = 2048))]
    pub website: Option<String>,
}
RS
      fi
    done
  } >"$dir/src/lib.rs"
}

secs() { # command...: run it quietly, print the wall-clock seconds it took
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$out/last.err" || { cat "$out/last.err" >&2; return 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

build() { # crate
  (cd "$out/$1" && CARGO_TARGET_DIR="$out/target-$1" cargo build --quiet --profile "$profile" --lib)
}

crates=(gen-elicit gen-elicit-mrtr gen-serde)
gen_crate gen-elicit elicit
gen_crate gen-elicit-mrtr elicit-mrtr
gen_crate gen-serde serde
# Fetch once, outside the timings.
for c in "${crates[@]}"; do (cd "$out/$c" && cargo fetch --quiet); done

declare -A clean warm
for r in $(seq 1 "$runs"); do
  for c in "${crates[@]}"; do
    rm -rf "$out/target-$c"
    t_clean=$(secs build "$c"); clean[$c]+="$t_clean "
    (cd "$out/$c" && CARGO_TARGET_DIR="$out/target-$c" cargo clean --quiet -p "$c")
    t_warm=$(secs build "$c"); warm[$c]+="$t_warm "
    echo "run $r $c: clean $t_clean s, deps-built $t_warm s" >&2
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.2f s [%.2f, %.2f]", m, a[1], a[NR]}'; }
ratio() { # elicit list, serde list: median of per-run ratios
  paste <(tr ' ' '\n' <<<"$1" | grep -v '^$') <(tr ' ' '\n' <<<"$2" | grep -v '^$') |
    awk '{print $1/$2}' | tr '\n' ' ' | median | sed 's/ s / /;s/\.\([0-9][0-9]\) \[/.\1× [/'
}

# The macro crate alone, from clean.
rm -rf "$out/target-derive"
derive_t=$(secs env CARGO_TARGET_DIR="$out/target-derive" cargo build --quiet --profile "$profile" -p elicit-derive --manifest-path "$repo/Cargo.toml")
derive_deps=$(cargo tree --manifest-path "$repo/Cargo.toml" -p elicit-derive -e normal --prefix none 2>/dev/null | sed 's/ (\*)//' | sort -u | wc -l)
deps() { (cd "$out/$1" && cargo tree -e normal --prefix none 2>/dev/null | sed 's/ (\*)//' | sort -u | wc -l); }

echo
echo "## build time: $structs structs × 8 fields, profile $profile, $runs runs (median [min, max]; ratio = elicit / serde+schemars per run)"
echo "| build | #[derive(Elicit)] | #[derive(Elicit)], feature mrtr | #[derive(Deserialize, JsonSchema)] | ratio | ratio, mrtr |"
echo "|---|---|---|---|---|---|"
for kind in clean warm; do
  declare -n t=$kind
  label="clean (dependencies + crate)"; [ "$kind" = warm ] && label="dependencies prebuilt (crate alone)"
  echo "| $label | $(median <<<"${t[gen-elicit]}") | $(median <<<"${t[gen-elicit-mrtr]}") | $(median <<<"${t[gen-serde]}") | $(ratio "${t[gen-elicit]}" "${t[gen-serde]}") | $(ratio "${t[gen-elicit-mrtr]}" "${t[gen-serde]}") |"
done
echo "| crates in the dependency graph (incl. itself) | $(deps gen-elicit) | $(deps gen-elicit-mrtr) | $(deps gen-serde) | | |"
echo
echo "elicit-derive alone, clean: ${derive_t} s; crates in its dependency graph (incl. itself): $derive_deps"
