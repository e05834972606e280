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

import pytest

from tests.e2e.conftest import write_root
from tests.e2e.oci_fixtures import run_registry

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "user-guide.md"


def guide_blocks() -> list[str]:
    section = GUIDE.read_text(encoding="utf-8").split("## Adopt it in an existing repository", 1)[1]
    section = section.split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


ROOT = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
        '      version = ">= 6.0"\n    }\n  }\n}\n'
        'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n')


def _environment(tmp_path: Path, running) -> dict:
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "tofu-solve").write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m tofu_solve "$@"\n')
    (shim / "tofu-solve").chmod(0o755)
    return {"PATH": f"{shim}:/usr/bin:/bin", "HOME": str(tmp_path), "TF_CLI_CONFIG_FILE": str(running.cli_config),
            "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x.invalid",
            "TOFU_SOLVE_PACKAGE_STORE_GRACE": "120"}


def _git(repo: Path, env: dict, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def _client_written_locks(repo: Path, env: dict, version_file: str, version: str) -> None:
    """Provider locks as the product's own init writes them (its registry's host, the
    provider blocks only), committed: the repository tofu-solve is adopted into."""
    (repo / version_file).write_text(version + "\n")
    done = subprocess.run(["tofu-solve", "init", "-recursive", "-handover=false"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / version_file).unlink()
    for lock in repo.glob("envs/*/.terraform.lock.hcl"):
        text = lock.read_text()
        lock.write_text(re.sub(r'\nmodule "[^"]+" \{.*?\n\}\n', "\n", text, flags=re.S))
        assert 'module "' not in lock.read_text() and 'provider "' in lock.read_text()
    for d in repo.glob("envs/*/.terraform"):
        subprocess.run(["rm", "-rf", str(d)], check=True)
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "client-written provider locks")


@pytest.mark.parametrize("product, version_file, version, host", [
    ("Terraform", ".terraform-version", "1.11.4", "registry.terraform.io"),
    ("OpenTofu", ".opentofu-version", "1.10.6", "registry.opentofu.org"),
])
def test_the_adoption_procedure_runs_as_written(tmp_path, running, product, version_file, version, host):
    """Issue #70 §4: on a repository whose provider locks its product's client wrote, the
    procedure picks that product's version file, commits every lock it changed, and a fresh
    clone's CI step passes."""
    adopt, store_block = guide_blocks()
    repo = tmp_path / "infra"
    for env_name in ("prod", "dev"):
        write_root(repo / "envs" / env_name, ROOT)
    env = _environment(tmp_path, running)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    _client_written_locks(repo, env, version_file, version)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", adopt], cwd=repo, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no longer required" not in r.stdout + r.stderr  # the locks stay the product's
    committed = _git(repo, env, "ls-files").split()
    assert {".gitignore", version_file, "envs/dev/.terraform.lock.hcl", "envs/prod/.terraform.lock.hcl"} <= \
        set(committed), committed
    assert not any(p.startswith(("envs/dev/.terraform/", "envs/prod/.terraform/")) for p in committed)
    assert _git(repo, env, "status", "--porcelain", "--", "envs") == ""  # nothing tofu-solve wrote left out
    lock = (repo / "envs/prod/.terraform.lock.hcl").read_text()
    assert 'module "vpc"' in lock and f'provider "{host}/hashicorp/aws"' in lock
    assert '"version": "2.1.0"' in (repo / "tofu-solve.sarif").read_text()  # a SARIF log, no finding to fail on

    # a fresh clone: what CI checks out passes the CI step
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], env=env, check=True)
    ci = subprocess.run(["tofu-solve", "init", "-recursive", "-lockfile=readonly", "-input=false",
                         "-handover=false"], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert ci.returncode == 0, ci.stdout + ci.stderr
    if product == "OpenTofu":
        return
    with run_registry(tmp_path / "store") as store:
        block = store_block.replace("oci://registry.example.com/tofu-packages", f"oci://{store.host}/ci")
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr  # store verify: every locked package read back and verified
