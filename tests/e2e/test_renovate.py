"""Renovate's terraform lock-file updater, its real code (the npm package ``renovate``, run
offline with node), on a lock file tofu-solve wrote: bumping a provider must leave every
module block as it was (issue #21). Renovate takes everything from one ``provider "`` line to
the next as that provider's block (``lib/modules/manager/terraform/lockfile/util.ts``
``extractLocks``), so module blocks written after the providers were rewritten with the
provider's version and lost their hashes; tofu-solve now writes them first.

``.ci/run`` installs Renovate (``npm install renovate@44`` into ``.node-test/``); elsewhere
point ``TOFU_SOLVE_RENOVATE_DIR`` at an installed ``node_modules/renovate``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import VPC6_EKS20, write_root
from tofu_solve.lockfile import parse_lock_text

REPO = Path(__file__).resolve().parents[2]
RENOVATE = Path(os.environ.get("TOFU_SOLVE_RENOVATE_DIR") or REPO / ".node-test" / "node_modules" / "renovate")
SCRIPT = Path(__file__).with_name("renovate_update.mjs")

pytestmark = pytest.mark.skipif(
    not (RENOVATE / "dist/modules/manager/terraform/lockfile/util.js").is_file() or not shutil.which("node"),
    reason=f"Renovate's code is not installed at {RENOVATE} (.ci/run installs it; or set TOFU_SOLVE_RENOVATE_DIR)")


def _renovate_bump(lock: Path, provider: str, version: str, *hashes: str) -> None:
    subprocess.run(["node", str(SCRIPT), str(RENOVATE), str(lock), provider, version, *hashes], check=True,
                   capture_output=True, text=True, timeout=120)


def _module_blocks(text: str) -> list[str]:
    return re.findall(r'^module "[^"]+" \{\n.*?^\}\n', text, re.M | re.S)


def test_renovate_bumping_a_provider_leaves_the_module_blocks_alone(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC6_EKS20)
    assert tofu_solve(root, "init").code == 0
    lock = root / ".terraform.lock.hcl"
    before = lock.read_text()
    assert _module_blocks(before) and before.index("\nmodule ") < before.index("\nprovider ")
    assert all("\n  package = \"git::" in m for m in _module_blocks(before))  # issue #25's pins ride along
    _renovate_bump(lock, "hashicorp/aws", "6.99.0", "h1:" + "r" * 43 + "=", "zh:" + "0" * 64)
    after = lock.read_text()
    assert 'version     = "6.99.0"' in after  # Renovate did its job on the provider
    assert _module_blocks(after) == _module_blocks(before)
    locks, diags = parse_lock_text(after)
    assert not diags
    assert locks.modules == parse_lock_text(before)[0].modules
    assert locks.providers["registry.opentofu.org/hashicorp/aws"].version == "6.99.0"


def test_the_layout_tofu_solve_no_longer_writes_is_what_renovate_corrupts(tmp_path, tofu_solve):
    """Why the order matters: the same lock with its module blocks after the providers."""
    root = write_root(tmp_path / "root", VPC6_EKS20)
    assert tofu_solve(root, "init").code == 0
    lock = root / ".terraform.lock.hcl"
    text = lock.read_text()
    modules = _module_blocks(text)
    rest = text
    for m in modules:
        rest = rest.replace("\n" + m, "")
    lock.write_text(rest + "".join("\n" + m for m in modules))
    _renovate_bump(lock, "hashicorp/tls", "9.9.9", "h1:" + "t" * 43 + "=")
    after = _module_blocks(lock.read_text())
    assert after != modules
    assert all('version     = "9.9.9"' in m and "hashes = [\n  ]" in m for m in after)  # each one rewritten
    _, diags = parse_lock_text(lock.read_text())
    assert diags  # and the file no longer reads
