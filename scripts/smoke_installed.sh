#!/usr/bin/env bash
# The installed package, end to end (issue #37 §2 and §7): build the wheel, install it into a
# fresh venv outside the repository, and from an empty directory run the demo (its fixture
# world built from the corpus the wheel carries: three inits, why, graph and check against
# servers on 127.0.0.1), the shell completion and the man page the wheel installs.
# Usage: scripts/smoke_installed.sh [PYTHON]   (default python3; .ci/run runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
"$python" -m venv "$smoke/build"
"$smoke/build/bin/pip" wheel -q --no-deps -w "$smoke/dist" .
wheel=$(ls "$smoke"/dist/tofu_solve-*.whl)
echo "wheel: $(basename "$wheel"), $(stat -c %s "$wheel") bytes"
"$python" -m venv "$smoke/venv"
"$smoke/venv/bin/pip" install -q "$wheel"
mkdir "$smoke/empty"
cd "$smoke/empty"
env -u TOFU_SOLVE_CORPUS TOFU_SOLVE_WORLD_DIR="$smoke/world" TOFU_SOLVE_CACHE_DIR="$smoke/cache" \
  "$smoke/venv/bin/tofu-solve" demo --output "$smoke/demo" > "$smoke/demo.log" 2>&1 || {
    cat "$smoke/demo.log"; echo "smoke: the installed demo failed" >&2; exit 1; }
grep -q "from $smoke/cache/corpus/" "$smoke/demo.log" || {
  cat "$smoke/demo.log"; echo "smoke: the demo did not use the corpus the wheel carries" >&2; exit 1; }
test -f "$smoke/demo/2-needs-solver/.terraform.lock.hcl"
"$smoke/venv/bin/tofu-solve" completion bash | grep -q "complete -o bashdefault -F _shtab_tofu_solve tofu-solve"
test -s "$smoke/venv/share/man/man1/tofu-solve.1"
"$smoke/venv/bin/tofu-solve" version
echo "smoke: the installed package runs the demo, completes and has its man page"
