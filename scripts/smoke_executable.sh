#!/usr/bin/env bash
# The self-contained executable, end to end with no Python on PATH (issue #37 §3): from an
# empty directory with nothing beside it, PATH holding git alone, the executable builds the
# fixture world from the corpus it carries and runs the demo (three inits against the
# world's registry and git daemon on 127.0.0.1, why, graph, check). Prints its size and its
# cold and warm start-up times (`version`).
# Usage: scripts/smoke_executable.sh EXECUTABLE   (scripts/build_executable.sh builds it)
set -euo pipefail
exe=$(readlink -f "$1")
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
mkdir -p "$smoke/bin" "$smoke/empty/dir"
ln -s "$(command -v git)" "$smoke/bin/git"
run() { env -i HOME="$smoke/home" PATH="$smoke/bin" TOFU_SOLVE_WORLD_DIR="$smoke/world" \
          TOFU_SOLVE_CACHE_DIR="$smoke/cache" "$@"; }
if run sh -c 'command -v python3 || command -v python' >/dev/null 2>&1; then
  echo "smoke: a Python is on the smoke PATH" >&2; exit 1
fi
echo "executable: $(stat -c %s "$exe") bytes"
ms() { local start end; start=$(date +%s%N); run "$exe" version >/dev/null; end=$(date +%s%N)
       echo $(( (end - start) / 1000000 )); }
cold=$(ms); warm=$(ms)
echo "start-up (version): first run ${cold} ms, next run ${warm} ms"
cd "$smoke/empty/dir"
if ! run "$exe" demo --output "$smoke/demo" > "$smoke/demo.log" 2>&1; then
  cat "$smoke/demo.log"; echo "smoke: the executable's demo failed" >&2; exit 1
fi
grep -q "from $smoke/cache/corpus/" "$smoke/demo.log" || {
  cat "$smoke/demo.log"; echo "smoke: the demo did not use the corpus the executable carries" >&2; exit 1; }
test -f "$smoke/demo/2-needs-solver/.terraform.lock.hcl"
grep -q "all agree" "$smoke/demo/2-needs-solver/check.txt"
# the SBOMs, whose libraries read data files of their own
for fmt in cyclonedx spdx; do
  run "$exe" list -chdir="$smoke/demo/2-needs-solver" -format=$fmt > "$smoke/sbom.$fmt" 2> "$smoke/sbom.err" || {
    cat "$smoke/sbom.err"; echo "smoke: the executable's list -format=$fmt failed" >&2; exit 1; }
done
grep -q '"specVersion": "1.6"' "$smoke/sbom.cyclonedx"
grep -q '"spdxVersion": "SPDX-2.3"' "$smoke/sbom.spdx"
echo "smoke: the executable runs the demo (init, why, graph, check) and writes both SBOMs with no Python on PATH"
