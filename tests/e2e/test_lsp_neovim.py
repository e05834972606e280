"""``tofu-solve lsp`` with Neovim as the client (issue #61 §6): Debian's ``neovim``, headless,
starts the server with its built-in LSP client (``vim.lsp.start_client``, which Neovim 0.7
has; ``vim.lsp.start`` and nvim-lspconfig wrap it), opens an impossible root's ``main.tf``
and reads the diagnostics Neovim itself holds for the buffer. ``.ci/run`` installs neovim."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import require_tool
from tests.e2e.conftest import AWS5_VPC61, write_root

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
local out = vim.env.TOFU_SOLVE_TEST_OUT
local id = vim.lsp.start_client({
  name = "tofu-solve",
  cmd = { vim.env.TOFU_SOLVE_PYTHON, "-m", "tofu_solve", "lsp" },
  root_dir = vim.env.TOFU_SOLVE_ROOT,
  init_options = { network = true },
})
vim.cmd("edit " .. vim.env.TOFU_SOLVE_ROOT .. "/main.tf")
vim.lsp.buf_attach_client(0, id)
local ok = vim.wait(90000, function()
  local n = 0
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.severity == vim.diagnostic.severity.ERROR then n = n + 1 end
  end
  return n >= 2
end, 100)
local got = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(got, { lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity,
                      source = d.source, message = d.message })
end
vim.fn.writefile({ vim.fn.json_encode({ ok = ok, diagnostics = got }) }, out)
vim.lsp.stop_client(id)
vim.cmd("qall!")
"""


def test_neovim_shows_the_conflict_at_each_clashing_line(tmp_path, running):
    nvim = shutil.which("nvim")
    require_tool(nvim is not None, "Neovim (a real LSP client)", "neovim")
    root = write_root(tmp_path / "root", AWS5_VPC61)
    (tmp_path / "test.lua").write_text(SCRIPT)
    out = tmp_path / "diagnostics.json"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path), "TOFU_SOLVE_ROOT": str(root),
           "TOFU_SOLVE_PYTHON": sys.executable, "TOFU_SOLVE_TEST_OUT": str(out)}
    r = subprocess.run([nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {tmp_path / 'test.lua'}"],
                       env=env, capture_output=True, text=True, timeout=180)
    assert out.is_file(), r.stdout + r.stderr
    got = json.loads(out.read_text())
    assert got["ok"], got
    errors = {d["lnum"] + 1: d for d in got["diagnostics"] if d["severity"] == 1}
    assert {5, 12} <= set(errors), got
    line12 = (root / "main.tf").read_text().splitlines()[11]
    assert line12[errors[12]["col"]:errors[12]["end_col"]] == '"~> 6.1"'
    assert errors[12]["source"] == "tofu-solve" and "No consistent set of versions" in errors[12]["message"]
