#!/usr/bin/env bash
# Build the self-contained executable (issue #37 §3): dist/tofu-solve, one file that needs no
# Python on the machine (PyInstaller freezes the interpreter, tofu-solve and its dependencies,
# the demo's corpus and the HCL grammar data into it). git stays a system tool, as for tofu.
# Usage: scripts/build_executable.sh [PYTHON] [OUT_DIR] [VENV]   (default python3, ./dist, a new venv)
# VENV: an existing virtual environment with tofu-solve installed (not editable), to build
# from instead of a new one (.ci/run passes its own; PyInstaller is added to it).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
out=${2:-dist}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${3:-}" ]; then
  venv=$(readlink -f "$3")
  "$venv/bin/pip" install -q 'pyinstaller>=6.10,<7'
else
  venv="$work/venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q . 'pyinstaller>=6.10,<7'
fi
# tofu-solve imports each command's module and pyhcl (HCL 1) by name, and lark, python-hcl2, rich, oras and
# license_expression (spdx-tools' licence index, for list -format=spdx) read data files at run
# time: collect them explicitly, as PyInstaller's import analysis cannot see either.
"$venv/bin/pyinstaller" --onefile --noconfirm --log-level WARN --name tofu-solve \
  --distpath "$out" --workpath "$work/build" --specpath "$work" \
  --collect-submodules tofu_solve --collect-data tofu_solve \
  --collect-data hcl2 --collect-data lark --collect-submodules rich --collect-data oras --collect-submodules hcl \
  --collect-data license_expression \
  --copy-metadata python-hcl2 --copy-metadata lark --copy-metadata tofu-solve \
  scripts/pyinstaller_entry.py
ls -l "$out/tofu-solve"
