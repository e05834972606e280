"""The user guide's "Adopt it in an existing repository", run as written (issue #60 §5): its
shell blocks, taken from ``docs/user-guide.md``, run by bash in a git repository of two root
modules, against the fixture world's registry and git server on 127.0.0.1 and a
``docker-registry`` as the package store. ``tofu-solve`` on PATH is this checkout's CLI; no
client is on PATH (the commands print what to run next instead of handing over). If the guide
changes, this test runs what it says now."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import write_root
from tests.e2e.oci_fixtures import run_registry

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "user-guide.md"


def guide_blocks() -> list[str]:
    section = GUIDE.read_text(encoding="utf-8").split("## Adopt it in an existing repository", 1)[1]
    section = section.split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def test_the_adoption_procedure_runs_as_written(tmp_path, running):
    adopt, store_block = guide_blocks()
    repo = tmp_path / "infra"
    for env in ("prod", "dev"):
        write_root(repo / "envs" / env, 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "~> 6.0"\n}\n')
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "tofu-solve").write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m tofu_solve "$@"\n')
    (shim / "tofu-solve").chmod(0o755)
    env = {"PATH": f"{shim}:/usr/bin:/bin", "HOME": str(tmp_path), "TF_CLI_CONFIG_FILE": str(running.cli_config),
           "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x.invalid", "TOFU_SOLVE_PACKAGE_STORE_GRACE": "120"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", adopt], cwd=repo, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    committed = subprocess.run(["git", "ls-files"], cwd=repo, env=env, capture_output=True, text=True).stdout.split()
    assert {".gitignore", ".opentofu-version", "envs/dev/.terraform.lock.hcl", "envs/prod/.terraform.lock.hcl"} <= \
        set(committed), committed
    assert not any(p.startswith(("envs/dev/.terraform/", "envs/prod/.terraform/")) for p in committed)
    assert 'module "vpc"' in (repo / "envs/prod/.terraform.lock.hcl").read_text()
    assert '"version": "2.1.0"' in (repo / "tofu-solve.sarif").read_text()  # a SARIF log, no finding to fail on
    with run_registry(tmp_path / "store") as store:
        block = store_block.replace("oci://registry.example.com/tofu-packages", f"oci://{store.host}/ci")
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr  # store verify: every locked package read back and verified
