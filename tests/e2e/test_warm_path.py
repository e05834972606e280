"""Issue #13: a warm re-init is lean: nothing fetched, nothing announced as fetched, no
network operation, and no network library imported. Issue #36: a warm re-init and ``check``
import none of the network, OCI, graph or grammar libraries (a root written in plain values
is read without the HCL parser)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.e2e.conftest import write_root

# Libraries a warm init and check have no use for (issue #36): HTTP, OCI, graphs, the HCL
# grammar, IDNA (ASCII host names only here).
UNUSED = ("requests", "urllib3", "oras", "networkx", "pydot", "lark", "hcl2", "idna")


def test_warm_reinit_fetches_nothing_and_imports_no_network_library(tmp_path, running):
    # the root requires a provider itself, in the one-line form: read without the parser, and
    # init's early start (command/early.py) finds its listing in the cache, importing nothing
    root = write_root(tmp_path / "root", '''
        terraform {
          required_providers {
            aws = { source = "hashicorp/aws" }
          }
        }
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

    def probe(*args: str) -> str:
        return ("import json, sys\nfrom tofu_solve.cli import main\n"
                f"code = main({[*args, f'-chdir={root}']!r})\n"
                "print(json.dumps({'code': code, 'requests': 'requests' in sys.modules, 'git': 'git' in sys.modules,"
                " 'oras': 'oras' in sys.modules, 'unused': sorted(set(sys.modules) & set(UNUSED))}))\n")

    def run(*args: str):
        done = subprocess.run([sys.executable, "-c", f"UNUSED = {UNUSED!r}\n" + probe(*(args or ("init", "-json")))],
                              env=env, capture_output=True, text=True, timeout=300)
        lines = done.stdout.strip().splitlines()
        stream = [json.loads(x) for x in lines[:-1]] if not args else []  # init -json's stream
        return stream, json.loads(lines[-1]), done.stderr
    cold_stream, cold, _ = run()
    assert cold["code"] == 0 and cold["requests"]
    assert not cold["git"]  # git runs as the git executable (remote/gitcmd.py), never through GitPython
    assert any(m["@message"].startswith("- Fetching") for m in cold_stream)
    installed = {p.name: p.stat().st_mtime_ns for p in (root / ".terraform" / "modules").iterdir()}
    warm_stream, warm, _ = run()
    assert warm["code"] == 0
    assert not warm["requests"] and not warm["oras"]  # no network library imported
    assert warm["unused"] == []  # nor the graph, grammar or IDNA libraries
    assert not any("Fetching" in m["@message"] for m in warm_stream)
    result = warm_stream[-1]["result"]
    assert sum(result["network_operations"].values()) == 0
    assert sorted(result["verified"]) == ["kms", "vpc"]
    # nothing reinstalled: the installed copies were verified in place
    assert {p.name: p.stat().st_mtime_ns for p in (root / ".terraform" / "modules").iterdir()} == installed
    _, checked, err = run("check")
    assert checked["code"] == 0, err
    assert checked["unused"] == []
