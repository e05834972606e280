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


def _renovate_module(*args: str) -> object:
    import json

    done = subprocess.run(["node", str(SCRIPT.with_name("renovate_module.mjs")), str(RENOVATE), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


VPC5_AWS = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
}
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}
'''


def test_the_renovate_recipe_a_bumped_version_lands_in_one_init(tmp_path, tofu_solve, world):
    """The user guide's Renovate recipe, with Renovate's own code for Renovate's part: its
    terraform manager finds the module's ``version``, its hashicorp versioning computes the
    new constraint and its auto-replace writes it (as a Renovate branch does); then one
    ``tofu-solve init`` (the recipe's ``postUpgradeTasks``) lands it: the call moves, the
    provider follows as far as it must, and Renovate reads the lock back."""
    root = write_root(tmp_path / "root", VPC5_AWS)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    before = parse_lock_text((root / ".terraform.lock.hcl").read_text())[0]
    was = before.modules["vpc"].version
    assert was.startswith("5.")
    newest6 = max((v for v in world.modules["terraform-aws-modules/vpc/aws"]["versions"]
                   if v.startswith("6.") and "-" not in v), key=lambda v: tuple(int(x) for x in v.split(".")))
    bumped = _renovate_module("bump", str(root / "main.tf"), "terraform-aws-modules/vpc/aws", was, newest6)
    assert bumped == {"currentValue": "~> 5.0", "newValue": "~> 6.0"}
    assert 'version = "~> 6.0"' in (root / "main.tf").read_text()

    r = tofu_solve(root, "init", "-handover=false")  # postUpgradeTasks: one command
    assert r.code == 0, r.err
    text = (root / ".terraform.lock.hcl").read_text()
    after, diags = parse_lock_text(text)
    assert not diags
    assert after.modules["vpc"].version == newest6
    aws = after.providers["registry.opentofu.org/hashicorp/aws"].version
    assert aws.startswith("6.")  # vpc 6 needs aws 6: the provider moved because it must

    deps = _renovate_module("extract", str(root / "main.tf"))
    assert isinstance(deps, list)
    module = next(d for d in deps if d["depName"] == "terraform-aws-modules/vpc/aws")
    provider = next(d for d in deps if d.get("depType") == "required_provider")
    assert module["currentValue"] == "~> 6.0"
    assert provider["lockedVersion"] == aws  # Renovate's lock-file code read our lock
