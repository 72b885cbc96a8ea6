#!/usr/bin/env bash
# The public API of the published crates, as cargo-public-api lists it, against the snapshot
# in public-api/. A change to the public surface must show in the diff of its own commit (and
# in CHANGELOG.md). Regenerate the snapshot with `bash .ci/public_api.sh --bless`.
#
# cargo-public-api reads rustdoc JSON, which only a nightly rustdoc writes; RUSTC_BOOTSTRAP=1
# lets the stable toolchain write it, so the snapshot does not drift with each nightly. The JSON
# is built here and handed to the tool (`--rustdoc-json`): left to itself, cargo-public-api
# switches to a nightly whenever one is installed, and the listing would depend on whether
# .ci/run had installed one yet.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.52.0
if ! cargo public-api --version 2>/dev/null | grep -q "$version"; then
  cargo install cargo-public-api --version "$version" --locked
fi
status=0
for crate in mcp-elicit elicit-core; do
  RUSTC_BOOTSTRAP=1 cargo +stable rustdoc -q -p "$crate" --all-features --lib -- \
    -Z unstable-options --output-format json
  json="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/doc/${crate//-/_}.json"
  listing=$(cargo public-api --rustdoc-json "$json" -sss --color never)
  if [ "${1:-}" = "--bless" ]; then
    printf '%s\n' "$listing" >"public-api/$crate.txt"
  elif ! diff -u "public-api/$crate.txt" <(printf '%s\n' "$listing"); then
    echo "the public API of $crate changed (above): if that is meant, run 'bash .ci/public_api.sh --bless' and say so in CHANGELOG.md"
    status=1
  fi
done
exit "$status"
