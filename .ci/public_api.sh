#!/usr/bin/env bash
# The public API of the published crates, as cargo-public-api lists it, against the snapshot
# in public-api/. A change to the public surface must show in the diff of its own commit (and
# in CHANGELOG.md). Regenerate the snapshot with `bash .ci/public_api.sh --bless`.
#
# cargo-public-api reads rustdoc JSON, which only a nightly rustdoc writes; RUSTC_BOOTSTRAP=1
# lets the stable toolchain write it, so the snapshot does not drift with each nightly.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.52.0
if ! cargo public-api --version 2>/dev/null | grep -q "$version"; then
  cargo install cargo-public-api --version "$version" --locked
fi
status=0
for crate in mcp-elicit elicit-core; do
  listing=$(RUSTC_BOOTSTRAP=1 cargo public-api -p "$crate" --all-features -sss --color never)
  if [ "${1:-}" = "--bless" ]; then
    printf '%s\n' "$listing" >"public-api/$crate.txt"
  elif ! diff -u "public-api/$crate.txt" <(printf '%s\n' "$listing"); then
    echo "the public API of $crate changed (above): if that is meant, run 'bash .ci/public_api.sh --bless' and say so in CHANGELOG.md"
    status=1
  fi
done
exit "$status"
