"""The pre-commit hooks (.pre-commit-hooks.yaml, issue #37 §5), run by the real pre-commit
package from PyPI on a scratch repository: it installs tofu-solve from this repository's
committed HEAD into its own environment, as a team's .pre-commit-config.yaml would, and
runs both hooks against the fixture world."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import VPC6_EKS20, write_root

REPO = Path(__file__).resolve().parents[2]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=60).stdout


def test_the_hooks_pass_on_a_locked_repository_and_catch_an_edit(tmp_path, tofu_solve, own_cache, running):
    scratch = tmp_path / "infra"
    root = write_root(scratch / "live" / "prod", VPC6_EKS20)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    head = _git(REPO, "rev-parse", "HEAD").strip()
    (scratch / ".gitignore").write_text(".terraform/\n")
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: tofu-solve-check\n"
        "      - id: tofu-solve-lock\n")
    _git(scratch, "init", "-q")
    _git(scratch, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(own_cache)}

    def pre_commit() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
                              cwd=scratch, env=env, capture_output=True, text=True, timeout=900)

    done = pre_commit()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tofu-solve check" in done.stdout and "tofu-solve lock is complete" in done.stdout
    assert done.stdout.count("Passed") == 2, done.stdout

    # a version edited without running init: both hooks fail, naming the call
    main_tf = root / "main.tf"
    main_tf.write_text(main_tf.read_text().replace('version = "~> 6.0"', 'version = "~> 5.0"', 1))
    assert main_tf.read_text() != VPC6_EKS20
    _git(scratch, "add", "-A")
    done = pre_commit()
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("Failed") == 2, done.stdout
    assert "vpc" in done.stdout and "main.tf" in done.stdout, done.stdout
