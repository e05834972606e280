"""The user guide's outage drill, run as written (issue #68 §4): its two shell blocks, taken from
``docs/user-guide.md`` ("An outage drill"), run by bash against ``tofu-solve demo -serve`` as
the origins and a ``docker-registry`` as the package store: the first with the origins up, in a
git repository of two root modules; the origins stopped; the second in a fresh clone with an
empty cache. For a Terraform repository the real client on PATH finishes each root's init
(the hand-over) with every origin down; for an OpenTofu repository (no ``tofu`` here) init
names the command to run next. Then ``demo -serve`` starts again on the same ports."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CLIENT_PATHS, require_tool
from tests.e2e.oci_fixtures import run_registry
from tests.e2e.test_demo_serve import _serve as serve_demo
from tofu_solve.command.demo import serve_ports
from tofu_solve.errors import ConfigurationError
from tofu_solve.plugins import current_platform

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "user-guide.md"

ROOT_TF = '''terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 6.0" }
  }
}
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''


def drill_blocks() -> list[str]:
    section = GUIDE.read_text(encoding="utf-8").split("#### An outage drill", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def _serve(tmp: Path, output: Path) -> tuple[subprocess.Popen, str]:
    """``tofu-solve demo -serve -output=OUTPUT`` as its own process, once it is up."""
    proc, lines = serve_demo(tmp, output=output)
    return proc, "\n".join(lines)


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 0


def _refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except OSError:
        return True


@pytest.mark.parametrize("product", ["terraform", "opentofu"])
def test_the_outage_drill_runs_as_written(tmp_path, product):
    prepare, outage_job = drill_blocks()
    client = require_tool(CLIENT_PATHS["terraform"], "terraform", "terraform") if product == "terraform" else None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tofu-solve").write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m tofu_solve "$@"\n')
    (bin_dir / "tofu-solve").chmod(0o755)
    if client:
        (bin_dir / "terraform").symlink_to(client)
    version_file = (".terraform-version", "1.11.4") if product == "terraform" else (".opentofu-version", "1.10.6")
    repo = tmp_path / "infra"
    for env_name in ("prod", "dev"):
        (repo / "envs" / env_name).mkdir(parents=True)
        (repo / "envs" / env_name / "main.tf").write_text(ROOT_TF)
    (repo / version_file[0]).write_text(version_file[1] + "\n")
    (repo / ".gitignore").write_text(".terraform/\n")
    home = tmp_path / "home"
    home.mkdir()
    output = tmp_path / "world"
    world, _ = _serve(tmp_path, output)
    ports = json.loads((output / "world-ports.json").read_text())
    try:
        with run_registry(tmp_path / "store") as store:
            env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(home),
                   "TF_CLI_CONFIG_FILE": str(output / "tofu-solve-world.tfrc"),
                   "TOFU_SOLVE_PACKAGE_STORE": f"oci://{store.host}/ci", "TOFU_SOLVE_PACKAGE_STORE_GRACE": "120",
                   "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "warm-cache"), "CHECKPOINT_DISABLE": "1",
                   "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@x.invalid", "REPOSITORY": str(repo)}
            subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", prepare], cwd=repo, env=env, capture_output=True,
                               text=True, timeout=600)
            assert r.returncode == 0, r.stdout + r.stderr
            subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
            subprocess.run(["git", "commit", "-qm", "locks"], cwd=repo, env=env, check=True)
            locks = {e: (repo / "envs" / e / ".terraform.lock.hcl").read_text() for e in ("prod", "dev")}
            _stop(world)  # every origin down
            assert _refused(ports["registry"]) and _refused(ports["git"])
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", outage_job], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=600)
            out = r.stdout + r.stderr
            assert r.returncode == 0, out
            assert "This is a bug" not in out
            drill = tmp_path / "outage-drill"
            for e in ("prod", "dev"):
                root = drill / "envs" / e
                assert (root / ".terraform.lock.hcl").read_text() == locks[e]
                assert (root / ".terraform" / "modules" / "vpc" / "versions.tf").is_file()
                if product == "terraform":  # the hand-over ran, and got the providers with no registry
                    platform_dirs = list((root / ".terraform/providers/registry.terraform.io/hashicorp/aws")
                                         .glob(f"*/{current_platform()}"))
                    assert platform_dirs, out
            if product == "terraform":
                assert "2 of 2 root modules failed" not in out and "Failed to query available provider" not in out
            else:  # no tofu here: what to run next, for every root
                assert "tofu init -lockfile=readonly" in out, out
    finally:
        if world.poll() is None:
            world.kill()
    # the origins come back on the ports every source and lock package embeds
    again, said_again = _serve(tmp_path, output)
    try:
        assert json.loads((output / "world-ports.json").read_text()) == ports
        assert f"127.0.0.1:{ports['registry']}" in said_again and f"127.0.0.1:{ports['git']}" in said_again
        assert not _refused(ports["registry"]) and not _refused(ports["git"])
    finally:
        _stop(again)


def test_serve_ports_are_the_flags_else_the_last_ones_else_any(tmp_path):
    assert serve_ports(tmp_path, None) == (0, 0)
    (tmp_path / "world-ports.json").write_text('{"registry": 41000, "git": 41007}')
    assert serve_ports(tmp_path, None) == (41000, 41007)
    assert serve_ports(tmp_path, 45000) == (45000, 45001)
    (tmp_path / "world-ports.json").write_text("not json")
    assert serve_ports(tmp_path, None) == (0, 0)
    with pytest.raises(ConfigurationError, match="Invalid -port"):
        serve_ports(tmp_path, 65535)
