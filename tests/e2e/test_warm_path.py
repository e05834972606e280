"""Issue #13: a warm re-init is lean: nothing fetched, nothing announced as fetched, no
network operation, and no network library imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.e2e.conftest import write_root


def test_warm_reinit_fetches_nothing_and_imports_no_network_library(tmp_path, running):
    root = write_root(tmp_path / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c")}
    probe = ("import json, sys\nfrom tofu_solve.cli import main\n"
             f"code = main(['init', '-json', '-chdir={root}'])\n"
             "print(json.dumps({'code': code, 'requests': 'requests' in sys.modules, 'git': 'git' in sys.modules,"
             " 'oras': 'oras' in sys.modules}))\n")

    def run():
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
        lines = done.stdout.strip().splitlines()
        return [json.loads(x) for x in lines[:-1]], json.loads(lines[-1]), done.stderr
    cold_stream, cold, _ = run()
    assert cold["code"] == 0 and cold["requests"]
    assert not cold["git"]  # git runs as the git executable (remote/gitcmd.py), never through GitPython
    assert any(m["@message"].startswith("- Fetching") for m in cold_stream)
    installed = {p.name: p.stat().st_mtime_ns for p in (root / ".terraform" / "modules").iterdir()}
    warm_stream, warm, _ = run()
    assert warm["code"] == 0
    assert not warm["requests"] and not warm["oras"]  # no network library imported
    assert not any("Fetching" in m["@message"] for m in warm_stream)
    result = warm_stream[-1]["result"]
    assert sum(result["network_operations"].values()) == 0
    assert sorted(result["verified"]) == ["kms", "vpc"]
    # nothing reinstalled: the installed copies were verified in place
    assert {p.name: p.stat().st_mtime_ns for p in (root / ".terraform" / "modules").iterdir()} == installed
