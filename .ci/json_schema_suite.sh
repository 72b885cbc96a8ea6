#!/usr/bin/env bash
# Fetches the JSON-Schema-Test-Suite for elicit-core/tests/format_suite.rs and prints the
# directory that holds its `tests/` folder, for JSON_SCHEMA_TEST_SUITE:
#
#   JSON_SCHEMA_TEST_SUITE=$(bash .ci/json_schema_suite.sh) \
#     cargo test -p elicit-core --test format_suite -- --ignored
#
# The suite's files stay out of this repository (public repository content is not committed
# here), and its own repository is out of reach from CI, which reaches only the package
# registries. The Python `jsonschema` package ships the suite in its source distribution (the
# `json/` folder, with the suite's LICENSE), so this downloads that sdist from PyPI with pip, at
# a pinned version and SHA-256, and unpacks only `json/` into a directory outside the
# repository: the first argument, or by default one under $TMPDIR. A second run finds it there
# and downloads nothing. pip builds the sdist's metadata to download it, which fetches its
# build backend (hatchling) into an isolated environment: about 5 s.
#
# Progress goes to stderr; stdout is the path alone.
set -euo pipefail

version=4.26.0
sha256=0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326

repo=$(cd "$(dirname "$0")/.." && pwd -P)
dest=$(realpath -m "${1:-${TMPDIR:-/tmp}/json-schema-test-suite-from-jsonschema-$version}")
case "$dest/" in
  "$repo"/*) echo "refusing to unpack the suite inside the repository: $dest" >&2; exit 1 ;;
esac
mkdir -p "$(dirname "$dest")"

# The four files the test reads; all there means a previous run finished.
formats="$dest/tests/draft2020-12/optional/format"
have_all() {
  for f in email uri date date-time; do test -f "$formats/$f.json" || return 1; done
}
if have_all; then
  echo "$dest"
  exit 0
fi

if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "installing pip (python3-pip) to download the suite" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq python3-pip >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "jsonschema==$version --hash=sha256:$sha256" >"$work/requirements.txt"
echo "downloading the jsonschema $version sdist (it carries the JSON-Schema-Test-Suite)" >&2
python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
  --require-hashes -r "$work/requirements.txt" -d "$work" >&2
sdist="$work/jsonschema-$version.tar.gz"
echo "$sha256  $sdist" | sha256sum --check --quiet - >&2

tar -xzf "$sdist" -C "$work" "jsonschema-$version/json"
rm -rf "$dest"
mv "$work/jsonschema-$version/json" "$dest"
have_all || { echo "the sdist's suite lacks a format file under $formats" >&2; exit 1; }
echo "$dest"
