"""``tofu-solve lsp`` with Neovim as the client (issue #61 §6, #70 §3): Debian's ``neovim``
(0.7.2), headless, with the user guide's Lua block, as written, as its ``init.lua``: opening
an impossible root's ``main.tf`` starts the server through the guide's ``FileType``
autocommand; the test reads the diagnostics Neovim itself holds for the buffer. ``.ci/run``
installs neovim; ``tofu-solve`` on PATH is this checkout's CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import require_tool
from tests.e2e.conftest import AWS5_VPC61, write_root

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "user-guide.md"


def guide_setup() -> str:
    """The user guide's Neovim block, as written."""
    section = GUIDE.read_text(encoding="utf-8").split("**Neovim**", 1)[1].split("**Helix**", 1)[0]
    return re.findall(r"```lua\n(.*?)```", section, re.S)[0]


HARNESS = r"""
local out = vim.env.TOFU_SOLVE_TEST_OUT
vim.cmd("edit " .. vim.env.TOFU_SOLVE_FILE)
local want = tonumber(vim.env.TOFU_SOLVE_ERRORS)
local ok = vim.wait(90000, function()
  local n = 0
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.severity == vim.diagnostic.severity.ERROR then n = n + 1 end
  end
  return n >= want
end, 100)
local got = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(got, { lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity,
                      source = d.source, message = d.message })
end
local clients = {}
for _, c in pairs(vim.lsp.get_active_clients()) do table.insert(clients, c.name) end
vim.fn.writefile({ vim.fn.json_encode({ ok = ok, diagnostics = got, clients = clients }) }, out)
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.cmd("qall!")
"""


def _neovim(tmp_path: Path, running, file: Path, errors: int) -> dict:
    """Neovim, headless, with the guide's block as its ``init.lua``, opening ``file`` and
    waiting for ``errors`` Error diagnostics; what it holds for the buffer then."""
    nvim = shutil.which("nvim")
    require_tool(nvim is not None, "Neovim (a real LSP client)", "neovim")
    (tmp_path / "init.lua").write_text(guide_setup())
    (tmp_path / "harness.lua").write_text(HARNESS)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "tofu-solve").write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m tofu_solve "$@"\n')
    (shim / "tofu-solve").chmod(0o755)
    out = tmp_path / "diagnostics.json"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
           "PATH": f"{shim}:/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path), "TOFU_SOLVE_FILE": str(file),
           "TOFU_SOLVE_ERRORS": str(errors), "TOFU_SOLVE_TEST_OUT": str(out)}
    r = subprocess.run([nvim, "--headless", "-u", str(tmp_path / "init.lua"), "-c",
                        f"luafile {tmp_path / 'harness.lua'}"], env=env, capture_output=True, text=True, timeout=180)
    assert out.is_file(), r.stdout + r.stderr
    got = json.loads(out.read_text())
    assert got["ok"], got
    return got


def test_neovim_shows_the_conflict_at_each_clashing_line(tmp_path, running):
    root = write_root(tmp_path / "root", AWS5_VPC61)
    got = _neovim(tmp_path, running, root / "main.tf", 2)
    assert got["clients"] == ["tofu-solve"], got  # one server for the root, started by the guide's autocommand
    errors = {d["lnum"] + 1: d for d in got["diagnostics"] if d["severity"] == 1}
    assert {5, 12} <= set(errors), got
    line12 = (root / "main.tf").read_text().splitlines()[11]
    assert line12[errors[12]["col"]:errors[12]["end_col"]] == '"~> 6.1"'
    assert errors[12]["source"] == "tofu-solve" and "No consistent set of versions" in errors[12]["message"]


def test_neovim_shows_a_shared_includes_range_for_each_unit_that_reads_it(tmp_path, running):
    """Issue #85 §1: the guide's setup on a Terragrunt live repository, opening the shared
    ``_envcommon/vpc.hcl`` (Neovim starts the server with that folder as its root): both
    units that read it are solved, and each one's error is on the include's range line."""
    from tests.e2e.test_lsp_terragrunt import live_repo

    repo = live_repo(tmp_path / "repo", "~> 99.0")
    got = _neovim(tmp_path, running, repo / "_envcommon" / "vpc.hcl", 2)
    errors = [d for d in got["diagnostics"] if d["severity"] == 1]
    assert sorted(d["message"].split(":", 1)[0] for d in errors) == ["live/dev/vpc", "live/prod/vpc"], got
    assert {d["lnum"] for d in errors} == {2} and all("~> 99.0" in d["message"] for d in errors)
